//! Hygiene and measure of text for a terminal: server-supplied strings made safe to draw
//! (escape sequences, controls and invisible format characters removed), display width in
//! columns, cutting to a width and word wrap. Below everything: used by the panels, the
//! headless output and the dialogs alike.

use ratatui::text::Span;

/// Display width of a string in terminal columns (as ratatui measures what it draws).
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// Display width of one character in terminal columns.
pub fn char_width(c: char) -> usize {
    let mut b = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut b)).width()
}

/// Makes server-supplied text safe to draw: escape sequences (CSI, OSC, two-byte ESC)
/// removed, other control characters and invisible format characters (bidi overrides,
/// joiners, variation selectors, emoji modifiers) dropped, whitespace runs (tabs, newlines)
/// folded into one space, at most `max_chars` characters kept.
pub fn sanitize(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars));
    let mut kept = 0usize;
    let mut last_space = false;
    for c in Visible::new(s) {
        if kept >= max_chars {
            break;
        }
        if c == ' ' {
            if !last_space && kept > 0 {
                out.push(' ');
                kept += 1;
                last_space = true;
            }
            continue;
        }
        out.push(c);
        kept += 1;
        last_space = false;
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// [`sanitize`] with no cap: one of our own sentences on one line, whole.
pub fn one_line(s: &str) -> String {
    sanitize(s, usize::MAX)
}

/// [`sanitize`] of server-supplied free text (a statement, a user or host name) kept to
/// `max_chars`, its last character "…" when cut so that a cut never reads as the whole.
pub fn capped(s: &str, max_chars: usize) -> String {
    let mut out = sanitize(s, max_chars.saturating_add(1));
    if out.chars().count() > max_chars {
        let keep = max_chars.saturating_sub(1);
        out = out
            .chars()
            .take(keep)
            .collect::<String>()
            .trim_end()
            .to_string();
        out.push('…');
    }
    out
}

/// Like [`sanitize`] for one line of plain-text output (`--format text`): nothing a terminal
/// would act on survives, but the spacing (column alignment) is kept and nothing is cut.
pub fn strip_controls(line: &str) -> String {
    Visible::new(line).collect()
}

/// The characters of server text a terminal may be sent: escape sequences skipped whole,
/// whitespace (tab, CR, newline, …) as a plain space, other controls and invisible format
/// characters dropped.
struct Visible<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl<'a> Visible<'a> {
    fn new(s: &'a str) -> Self {
        Visible {
            chars: s.chars().peekable(),
        }
    }

    /// Skips the rest of an escape sequence whose introducer (ESC or C1 CSI) was `c`.
    fn skip_escape(&mut self, c: char) {
        let chars = &mut self.chars;
        let csi = c == '\u{9b}' || chars.peek() == Some(&'[');
        let osc = chars.peek() == Some(&']');
        if c == '\u{1b}' && (csi || osc) {
            chars.next();
        }
        if csi {
            // Parameters and intermediates up to the final byte.
            for n in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&n) {
                    break;
                }
            }
        } else if osc {
            // Up to BEL or ESC \ (string terminator).
            while let Some(n) = chars.next() {
                if n == '\u{7}' || n == '\u{9c}' {
                    break;
                }
                if n == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        } else {
            // ESC + one character.
            chars.next();
        }
    }
}

impl Iterator for Visible<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            let c = self.chars.next()?;
            if c == '\u{1b}' || c == '\u{9b}' {
                self.skip_escape(c);
            } else if c.is_whitespace() {
                return Some(' ');
            } else if !c.is_control() && !is_invisible(c) {
                return Some(c);
            }
        }
    }
}

/// Characters that draw nothing themselves but reorder, join or restyle their neighbours:
/// bidi controls, zero-width spaces and joiners, the soft hyphen, variation selectors, emoji
/// skin-tone modifiers and tags. Terminals disagree on how wide the sequences they build are
/// (`☺` + VS16 is one column in tmux and two by Unicode's tables; a thumb with a skin tone is
/// two columns here and four there), and a line drawn wider than it was measured pushes the
/// panel borders out. Without them every character stands alone, as wide everywhere.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
        | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        | '\u{1f3fb}'..='\u{1f3ff}' | '\u{e0000}'..='\u{e0fff}')
}

/// At most `max` columns; a cut string ends in `…`, at a word boundary when one is near.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = truncate_words(s, max - 1);
    out.push('…');
    out
}

/// At most `max` columns, cut in the middle: the start and the end kept around one `…` (the
/// end is what tells `db1:3306` from `db1:3307`, or `127.0.0.1:1` from `127.0.0.1:12`).
pub fn elide_middle(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max <= 1 {
        return "…".chars().take(max).collect();
    }
    // The end gets the larger half: names differ at their ends more often than at their starts.
    let room = max - 1;
    let head = truncate_hard(s, room / 2);
    let mut tail: Vec<char> = Vec::new();
    let mut w = 0;
    for c in s.chars().rev() {
        let cw = char_width(c);
        if w + cw > room - width(&head) {
            break;
        }
        tail.push(c);
        w += cw;
    }
    let tail: String = tail.into_iter().rev().collect();
    format!("{head}…{tail}")
}

/// The longest prefix of `s` at most `max` columns wide, ending at a word boundary when
/// that keeps at least half of it.
pub fn truncate_words(s: &str, max: usize) -> String {
    let hard = truncate_hard(s, max);
    let next = s[hard.len()..].chars().next();
    if next.is_none_or(|c| c == ' ') {
        return hard.trim_end().to_string();
    }
    match hard.rfind(' ') {
        Some(i) if width(&hard[..i]) * 2 >= max => hard[..i].trim_end().to_string(),
        _ => hard,
    }
}

/// The longest prefix of `s` at most `max` columns wide, no ellipsis.
pub fn truncate_hard(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out
}

/// Greedy word wrap to `max` columns; a word longer than a line is split.
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_w = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        let mut ww = width(&word);
        if cur_w > 0 && cur_w + 1 + ww <= max {
            cur.push(' ');
            cur.push_str(&word);
            cur_w += 1 + ww;
            continue;
        }
        if cur_w > 0 {
            lines.push(std::mem::take(&mut cur));
        }
        while ww > max {
            let head = truncate_hard(&word, max);
            if head.is_empty() {
                // A character wider than the line: nothing can show it.
                word.clear();
                break;
            }
            word = word[head.len()..].to_string();
            lines.push(head);
            ww = width(&word);
        }
        cur = word;
        cur_w = ww;
    }
    if cur_w > 0 || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elision_keeps_both_ends() {
        assert_eq!(elide_middle("127.0.0.1:1", 11), "127.0.0.1:1");
        assert_eq!(
            elide_middle("db-orders-replica-02:3307", 12),
            "db-or…2:3307"
        );
        assert_eq!(
            width(&elide_middle("ホスト名のとても長いサーバー:3306", 10)),
            10
        );
        assert_eq!(elide_middle("abc", 1), "…");
        assert_eq!(elide_middle("abc", 0), "");
    }

    #[test]
    fn sanitize_strips_escapes_and_controls() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b", 100), "ared b");
        assert_eq!(sanitize("x\u{1b}]0;title\u{7}y", 100), "xy");
        assert_eq!(sanitize("tab\there\nnew\r\n", 100), "tab here new");
        assert_eq!(sanitize("\u{202e}evil", 100), "evil");
        assert_eq!(sanitize("abcdef", 3), "abc");
        assert_eq!(sanitize("x\u{1b}]2;t\u{1b}\\y\u{9b}2Jz", 100), "xyz");
    }

    #[test]
    fn server_text_is_marked_where_cut_and_our_sentences_are_whole() {
        assert_eq!(capped("abcdef", 6), "abcdef");
        assert_eq!(capped("abcdefg", 6), "abcde…");
        assert_eq!(capped("abcd efgh", 6), "abcd…");
        let long = "word ".repeat(100);
        assert_eq!(one_line(&long), long.trim_end());
        assert_eq!(one_line("a\u{1b}[31m\tb"), "a b");
    }

    #[test]
    fn strip_controls_keeps_the_spacing() {
        assert_eq!(
            strip_controls("redo      age\u{1b}[2J 1\t2\r\u{7}3"),
            "redo      age 1 2 3"
        );
    }

    #[test]
    fn sanitize_splits_sequences_terminals_measure_differently() {
        // Joined, restyled or skin-toned emoji become their plain characters, whose widths
        // every terminal agrees on.
        assert_eq!(sanitize("☺\u{fe0f}", 10), "☺");
        assert_eq!(width(&sanitize("☺\u{fe0f}", 10)), 1);
        assert_eq!(sanitize("👍\u{1f3fd}", 10), "👍");
        assert_eq!(
            sanitize("👨\u{200d}👩\u{200d}👧", 10),
            "👨👩👧",
            "a ZWJ family is three people, six columns"
        );
        assert_eq!(width(&sanitize("👨\u{200d}👩\u{200d}👧", 10)), 6);
        assert_eq!(sanitize("soft\u{ad}hyphen\u{2060}", 20), "softhyphen");
        // Combining marks stay with their letter; wide CJK stays wide.
        assert_eq!(sanitize("e\u{301}漢", 10), "e\u{301}漢");
    }

    #[test]
    fn truncation_by_width() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hello world again", 14), "hello world…");
        assert_eq!(truncate("abcdefghij klm", 6), "abcde…");
        assert_eq!(truncate("日本語テキスト", 5), "日本…");
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn wraps_words() {
        assert_eq!(wrap("one two three", 7), vec!["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), vec![""]);
    }
}
