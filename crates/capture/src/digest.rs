//! Query texts reduced to digests before they reach a capture file, the way
//! performance_schema digests them: literals and numbers become `?`, `IN (?, ?, …)` becomes
//! `IN (...)`, comments go, whitespace collapses. Identifiers (plain or back-quoted) stay.
//!
//! Statements that can carry a secret (`IDENTIFIED BY '…'`, `PASSWORD('…')`,
//! `MASTER_PASSWORD = '…'`, …) are always digested, even when query texts are kept.
//! Pure, total: any input (cut short, unbalanced quotes, binary) gives a string.

/// Words that mark a statement whose literals may be secrets (matched case-insensitively).
const SENSITIVE: &[&str] = &[
    "IDENTIFIED",
    "PASSWORD",
    "AES_ENCRYPT",
    "AES_DECRYPT",
    "DES_ENCRYPT",
    "DES_DECRYPT",
    "ENCODE(",
    "DECODE(",
    "ENCRYPT(",
    "CREATE SERVER",
    "ALTER SERVER",
    "CHANGE MASTER",
    "CHANGE REPLICATION",
];

/// Whether the text may contain a secret, so it must be digested whatever the settings.
pub fn is_sensitive(query: &str) -> bool {
    let upper = query.to_ascii_uppercase();
    SENSITIVE.iter().any(|w| upper.contains(w))
}

/// The text to store: the digest, or the text itself when `keep` is set and it holds no secret.
pub fn redact(query: &str, keep: bool) -> String {
    if keep && !is_sensitive(query) {
        query.to_string()
    } else {
        digest(query)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A word, identifier, operator or punctuation, kept as written.
    Text(String),
    /// A literal, now `?`.
    Value,
    /// `(`, and whether whitespace came before it (kept: `COUNT(*)` vs `t (a, b)`).
    Open(bool),
    Close,
    Comma,
}

/// The performance_schema-style digest text of a statement.
pub fn digest(query: &str) -> String {
    render(&collapse_lists(tokenize(query)))
}

fn tokenize(q: &str) -> Vec<Tok> {
    let chars: Vec<char> = q.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        match c {
            _ if c.is_whitespace() => i += 1,
            '\'' | '"' => {
                i = skip_quoted(&chars, i);
                toks.push(Tok::Value);
            }
            '`' => {
                let end = skip_quoted(&chars, i);
                toks.push(Tok::Text(chars[i..end].iter().collect()));
                i = end;
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i = (i + 2).min(chars.len());
            }
            '#' => i = skip_line(&chars, i),
            '-' if next == Some('-') && chars.get(i + 2).is_none_or(|c| c.is_whitespace()) => {
                i = skip_line(&chars, i)
            }
            '(' => {
                let spaced = i > 0 && chars[i - 1].is_whitespace();
                toks.push(Tok::Open(spaced));
                i += 1;
            }
            ')' => {
                toks.push(Tok::Close);
                i += 1;
            }
            ',' => {
                toks.push(Tok::Comma);
                i += 1;
            }
            _ if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) => {
                i = skip_number(&chars, i);
                toks.push(Tok::Value);
            }
            _ if is_word_char(c) => {
                let start = i;
                while i < chars.len() && is_word_char(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                // X'0A1B', B'0101', N'text', _utf8mb4'text': the prefix belongs to the literal.
                let is_prefix = matches!(word.to_ascii_uppercase().as_str(), "X" | "B" | "N")
                    || (word.starts_with('_') && word.len() > 1);
                if is_prefix && chars.get(i) == Some(&'\'') {
                    i = skip_quoted(&chars, i);
                    toks.push(Tok::Value);
                } else {
                    toks.push(Tok::Text(word));
                }
            }
            _ => {
                // Operators: keep runs like `<=`, `:=`, `!=` together.
                let start = i;
                i += 1;
                while i < chars.len() && is_operator_char(chars[i]) && is_operator_char(c) {
                    i += 1;
                }
                toks.push(Tok::Text(chars[start..i].iter().collect()));
            }
        }
    }
    toks
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$' || c == '@'
}

fn is_operator_char(c: char) -> bool {
    matches!(c, '<' | '>' | '=' | '!' | ':' | '|' | '&')
}

/// Index just past a quoted run starting at `i` (doubled quotes and backslash escapes inside);
/// an unterminated quote runs to the end (the text may have been cut short).
fn skip_quoted(chars: &[char], i: usize) -> usize {
    let quote = chars[i];
    let mut j = i + 1;
    while j < chars.len() {
        let c = chars[j];
        if c == '\\' && quote != '`' {
            j += 2;
            continue;
        }
        if c == quote {
            if chars.get(j + 1) == Some(&quote) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    chars.len()
}

fn skip_line(chars: &[char], i: usize) -> usize {
    let mut j = i;
    while j < chars.len() && chars[j] != '\n' {
        j += 1;
    }
    j
}

/// Decimal, hex (`0x1F`), binary (`0b01`) and exponent forms. A run like `1abc` is one token
/// (MySQL allows identifiers that start with digits); it is a value only when it is numeric.
fn skip_number(chars: &[char], i: usize) -> usize {
    let mut j = i;
    while j < chars.len() {
        let c = chars[j];
        let exp_sign = (c == '+' || c == '-')
            && j > i
            && matches!(chars[j - 1], 'e' | 'E')
            && chars[i..j - 1]
                .iter()
                .all(|d| d.is_ascii_digit() || *d == '.');
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' || exp_sign {
            j += 1;
        } else {
            break;
        }
    }
    j
}

/// `( ? , ? , ? )` → `(...)` after IN; every row of `VALUES (?, ?), (?, ?)` → `(...)` and the
/// repeats folded into one, as performance_schema does.
fn collapse_lists(toks: Vec<Tok>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if matches!(toks[i], Tok::Open(_))
            && let Some(len) = value_list_len(&toks[i..])
        {
            let prev_word = last_word(&out);
            let before_comma = out
                .len()
                .checked_sub(2)
                .and_then(|k| out.get(k))
                .and_then(|t| match t {
                    Tok::Text(w) => Some(w.clone()),
                    _ => None,
                });
            let after_row = matches!(out.last(), Some(Tok::Comma))
                && matches!(before_comma.as_deref(), Some("(...)" | "/* , ... */"));
            if after_row {
                // another row of a VALUES list: fold it (and its comma) into one mark
                out.pop();
                if before_comma.as_deref() == Some("(...)") {
                    out.push(Tok::Text("/* , ... */".into()));
                }
                i += len;
                continue;
            }
            if matches!(prev_word.as_deref(), Some("IN" | "VALUES" | "VALUE")) {
                out.push(Tok::Text("(...)".into()));
                i += len;
                continue;
            }
        }
        out.push(toks[i].clone());
        i += 1;
    }
    out
}

/// Length of `( ? [, ?]* )` at the start of `toks`, if it is one.
fn value_list_len(toks: &[Tok]) -> Option<usize> {
    let mut j = 1;
    loop {
        match toks.get(j)? {
            Tok::Value => j += 1,
            _ => return None,
        }
        match toks.get(j)? {
            Tok::Comma => j += 1,
            Tok::Close => return Some(j + 1),
            _ => return None,
        }
    }
}

fn last_word(out: &[Tok]) -> Option<String> {
    match out.last()? {
        Tok::Text(t) => Some(t.to_ascii_uppercase()),
        _ => None,
    }
}

fn render(toks: &[Tok]) -> String {
    let mut s = String::new();
    let mut prev: Option<&Tok> = None;
    for t in toks {
        let space = match (prev, t) {
            (None, _) => false,
            (_, Tok::Close) | (_, Tok::Comma) => false,
            (Some(Tok::Open(_)), _) => false,
            (Some(Tok::Text(_)), Tok::Open(spaced)) => *spaced,
            _ => true,
        };
        if space {
            s.push(' ');
        }
        match t {
            Tok::Text(w) => s.push_str(w),
            Tok::Value => s.push('?'),
            Tok::Open(_) => s.push('('),
            Tok::Close => s.push(')'),
            Tok::Comma => s.push(','),
        }
        prev = Some(t);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_numbers_and_lists() {
        assert_eq!(
            digest("SELECT * FROM t1 WHERE id = 42 AND name = 'bob''s' AND x IN (1, 2,3)"),
            "SELECT * FROM t1 WHERE id = ? AND name = ? AND x IN (...)"
        );
        assert_eq!(
            digest("INSERT INTO t (a,b) VALUES (1,'x'), (2,'y'),(3, \"z\")"),
            "INSERT INTO t (a, b) VALUES (...) /* , ... */"
        );
        assert_eq!(
            digest("  update  `my table`\n set n=n+1.5e-3 -- why\n where id=0x1F /* c */ limit 10"),
            "update `my table` set n = n + ? where id = ? limit ?"
        );
        assert_eq!(
            digest("SELECT COUNT(*), seq FROM seq_1_to_500 WHERE c = X'0A' LIMIT 1"),
            "SELECT COUNT(*), seq FROM seq_1_to_500 WHERE c = ? LIMIT ?"
        );
    }

    #[test]
    fn secrets_are_digested_even_when_kept() {
        let q = "CREATE USER 'app'@'%' IDENTIFIED BY 's3cr3t'";
        assert_eq!(redact(q, true), "CREATE USER ? @ ? IDENTIFIED BY ?");
        assert!(!redact("SET PASSWORD FOR u = PASSWORD('hunter2')", true).contains("hunter2"));
        assert!(!redact("CHANGE MASTER TO MASTER_PASSWORD='pw'", true).contains("pw'"));
        assert_eq!(redact("SELECT 1", true), "SELECT 1");
        assert_eq!(redact("SELECT 1", false), "SELECT ?");
    }

    #[test]
    fn never_panics_on_odd_input() {
        for q in [
            "'", "\"abc", "`x", "/* open", "0x", "1e", "--", "#", "\\", "IN (", "(((", "é'ü",
        ] {
            let _ = digest(q);
        }
        assert_eq!(digest("SELECT 'unterminated"), "SELECT ?");
    }
}
