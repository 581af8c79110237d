//! How the status text reaches us: raw, as mysql-client `\G` output, inside a table cell
//! with `|` borders, or with batch mode's literal `\n` escapes — unwrapped to plain lines
//! with their whitespace collapsed.

use std::borrow::Cow;

use super::{END_MARK, MONITOR_MARK};

/// Picks the lines of the first complete monitor output; the first output when none is
/// complete; the whole text when no header is found.
pub(super) fn select_block<'a, 'b>(lines: &'b [&'a str]) -> (&'b [&'a str], bool) {
    let is_start = |l: &str| l.contains(MONITOR_MARK) && !l.contains(END_MARK);
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines.get(i).is_some_and(|l| is_start(l)))
        .collect();
    for (k, &s) in starts.iter().enumerate() {
        let next = starts.get(k + 1).copied().unwrap_or(lines.len());
        let end = (s..next).find(|&i| lines.get(i).is_some_and(|l| l.contains(END_MARK)));
        if let Some(e) = end {
            return (lines.get(s..=e).unwrap_or(lines), false);
        }
    }
    match starts.first() {
        Some(&s) => {
            let next = starts.get(1).copied().unwrap_or(lines.len());
            (lines.get(s..next).unwrap_or(lines), true)
        }
        None => (lines, !lines.iter().any(|l| l.contains(END_MARK))),
    }
}

/// When most lines are wrapped in table borders (`| ... |`), strips them.
pub(super) fn strip_table_borders<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let non_empty = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let bordered = lines
        .iter()
        .filter(|l| {
            let t = l.trim();
            t.len() >= 2 && t.starts_with('|') && t.ends_with('|')
        })
        .count();
    if non_empty == 0 || bordered * 2 <= non_empty {
        return lines.to_vec();
    }
    lines
        .iter()
        .map(|l| {
            let t = l.trim();
            let t = t.strip_prefix('|').unwrap_or(t);
            let t = t.strip_suffix('|').unwrap_or(t);
            t.strip_prefix(' ').unwrap_or(t).trim_end()
        })
        .collect()
}

/// mysql batch mode (`-B`, `-e` into a pipe) prints the whole status on one line with `\n`
/// escapes. A few escapes inside a query don't count: escapes must outnumber real newlines.
pub(super) fn looks_escaped(text: &str) -> bool {
    let escaped = text.matches("\\n").count();
    let real = text.matches('\n').count();
    escaped >= 3 && escaped > real
}

/// Undoes mysql's batch-mode escaping (`\n`, `\t`, `\r`, `\0`, `\\`).
pub(super) fn unescape_batch(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Trims and collapses runs of spaces and tabs so `Log flushed up to   123` and
/// `Buffer pool size\t8064` match their single-spaced prefixes.
pub(super) fn collapse_ws(s: &str) -> Cow<'_, str> {
    let clean = !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.contains("  ")
        && !s.contains(|c: char| c.is_whitespace() && c != ' ');
    if clean {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    Cow::Owned(out)
}
