//! The report as Markdown for tickets and wikis: the same sections as the page, each chart an
//! SVG file beside it (named after the page: `incident.md` → `incident-checkpoint-age.svg`),
//! linked as an image. Server strings are escaped so no renderer reads them as markup or HTML.

use std::fmt::Write as _;

use super::doc::{Block, Inline, symbol};

/// A page and its chart files (file name, SVG).
#[derive(Debug, Clone, PartialEq)]
pub struct Markdown {
    pub text: String,
    pub files: Vec<(String, String)>,
}

/// Text with every character Markdown (CommonMark, GFM tables) could read as markup
/// backslash-escaped, and what would break a line or a table cell made plain. `_` is left
/// alone within a word (`innodb_max_purge_lag`), where CommonMark never reads it as emphasis.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let word = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        if c == '_' && word(i.checked_sub(1)) && word(Some(i + 1)) {
            out.push('_');
            continue;
        }
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A code span holding `s` literally: a fence of more backticks than any run inside it (a
/// table cell's `|` escaped, as GFM reads it there).
fn code(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('|', "\\|");
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

fn inlines(parts: &[Inline]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            Inline::Text(s) | Inline::Dim(s) => out.push_str(&esc(s)),
            Inline::Strong(s) => {
                let _ = write!(out, "**{}**", esc(s));
            }
            Inline::Code(s) => out.push_str(&code(s)),
            Inline::Severity(s) => {
                let _ = write!(out, "**{} {}**", symbol(*s), s.as_str());
            }
        }
    }
    out
}

/// The page; charts become `{stem}-{name}.svg` files, each with the chart stylesheet inside.
pub fn page(
    title: &str,
    header: &[Block],
    blocks: &[Block],
    footer: &[Inline],
    stem: &str,
) -> Markdown {
    let mut out = String::new();
    let mut files = Vec::new();
    let _ = writeln!(out, "# {}\n", esc(title));
    for b in header.iter().chain(blocks) {
        block(&mut out, &mut files, b, stem, "");
    }
    let _ = writeln!(out, "---\n\n{}", inlines(footer));
    Markdown { text: out, files }
}

fn block(out: &mut String, files: &mut Vec<(String, String)>, b: &Block, stem: &str, quote: &str) {
    match b {
        // The page's own title is written once, above.
        Block::Heading { id: "top", .. } => {}
        Block::Heading { text, .. } => {
            let _ = writeln!(out, "{quote}## {}\n{quote}", esc(text));
        }
        Block::Subheading(text) => {
            let _ = writeln!(out, "{quote}#### {}\n{quote}", esc(text));
        }
        Block::Para(parts) => {
            let _ = writeln!(out, "{quote}{}\n{quote}", inlines(parts));
        }
        Block::Problem {
            severity,
            title,
            body,
        } => {
            let _ = writeln!(out, "### {} {}\n", symbol(*severity), inlines(title));
            let inner = format!("{quote}> ");
            for b in body {
                block(out, files, b, stem, &inner);
            }
            out.push('\n');
        }
        Block::List(items) => {
            for item in items {
                let _ = writeln!(out, "{quote}- {}", inlines(item));
            }
            let _ = writeln!(out, "{quote}");
        }
        Block::Facts(pairs) => {
            for (name, value) in pairs {
                let _ = writeln!(out, "{quote}- {}: {}", esc(name), inlines(value));
            }
            let _ = writeln!(out, "{quote}");
        }
        Block::Table { head, rows } => {
            let cell = |s: String| s.replace('\n', " ");
            let _ = writeln!(
                out,
                "{quote}| {} |",
                head.iter().map(|h| esc(h)).collect::<Vec<_>>().join(" | ")
            );
            let _ = writeln!(out, "{quote}|{}", "---|".repeat(head.len()));
            for row in rows {
                let cells: Vec<String> = row.iter().map(|c| cell(inlines(c))).collect();
                let _ = writeln!(out, "{quote}| {} |", cells.join(" | "));
            }
            let _ = writeln!(out, "{quote}");
        }
        Block::Chart(c) => {
            let file = format!("{stem}-{}.svg", c.name);
            let _ = writeln!(
                out,
                "{quote}![{}]({})\n{quote}\n{quote}*{}*\n{quote}",
                esc(&c.title),
                link(&file),
                esc(&c.caption)
            );
            files.push((file, super::chart::standalone(&c.svg)));
        }
    }
}

/// A file name as a link destination: what would end or break it percent-encoded.
fn link(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            ' ' | '(' | ')' | '<' | '>' | '%' | '[' | ']' | '\\' | '`' | '"' | '\'' => {
                let mut b = [0u8; 4];
                for byte in c.encode_utf8(&mut b).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_html_in_text_stay_text() {
        assert_eq!(
            esc("</svg><script>*x*|y"),
            "\\</svg\\>\\<script\\>\\*x\\*\\|y"
        );
        assert_eq!(
            esc("innodb_max_purge_lag _x_"),
            "innodb_max_purge_lag \\_x\\_"
        );
        assert_eq!(code("a`b|c"), "``a`b\\|c``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(link("my (1)-verdicts.svg"), "my%20%281%29-verdicts.svg");
    }
}
