//! Screens as text a reviewer can read: [`plain`] (the characters) and [`styled`] (each row of
//! characters over a row of style codes, and a legend of the codes) — instead of a `Buffer`'s
//! `Debug`, which no one reviews at 100–190 KB.
#![allow(dead_code)]

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};

/// Cells that are the trailing half of a wide character are skipped, as a terminal shows them.
fn visible(row: &[Cell]) -> Vec<&Cell> {
    let mut out = Vec::new();
    let mut skip = 0usize;
    for cell in row {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        out.push(cell);
        skip = ratatui::text::Span::raw(cell.symbol())
            .width()
            .saturating_sub(1);
    }
    out
}

/// The screen as text, one line per row (trailing blanks trimmed), wide characters once.
pub fn plain(buf: &Buffer) -> String {
    let w = usize::from(buf.area.width).max(1);
    let mut out = String::new();
    for row in buf.content.chunks(w) {
        let line: String = visible(row).iter().map(|c| c.symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Codes for styles in order of first appearance (`.` is the terminal's default style).
const CODES: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn describe(fg: Color, bg: Color, m: Modifier) -> String {
    let mut parts = vec![format!("fg {fg:?}"), format!("bg {bg:?}")];
    if !m.is_empty() {
        parts.push(format!("{m:?}"));
    }
    parts.join(", ")
}

/// Every row twice: its characters (`|` marks the row's start), then one style code per
/// character (`>`); then the legend of the codes. Trailing cells in the default style are
/// trimmed from the code rows.
pub fn styled(buf: &Buffer) -> String {
    let w = usize::from(buf.area.width).max(1);
    let mut seen: Vec<(Color, Color, Modifier)> = Vec::new();
    let mut out = String::new();
    for row in buf.content.chunks(w) {
        let cells = visible(row);
        let text: String = cells.iter().map(|c| c.symbol()).collect();
        let mut codes = String::new();
        for c in &cells {
            let style = (c.fg, c.bg, c.modifier);
            if style == (Color::Reset, Color::Reset, Modifier::empty()) {
                codes.push('.');
                continue;
            }
            let i = seen.iter().position(|s| *s == style).unwrap_or_else(|| {
                seen.push(style);
                seen.len() - 1
            });
            codes.push(CODES.chars().nth(i).unwrap_or('?'));
        }
        out.push_str(&format!(
            "|{}\n>{}\n",
            text.trim_end(),
            codes.trim_end_matches('.')
        ));
    }
    out.push_str("\nlegend (. = fg Reset, bg Reset):\n");
    for (i, (fg, bg, m)) in seen.iter().enumerate() {
        let code = CODES.chars().nth(i).unwrap_or('?');
        out.push_str(&format!("{code} = {}\n", describe(*fg, *bg, *m)));
    }
    assert!(
        seen.len() <= CODES.len(),
        "more styles than codes: {}",
        seen.len()
    );
    out
}
