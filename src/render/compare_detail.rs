//! Enter on the compare screen: the selected difference in a popup — both sides' median,
//! p95 and max side by side, how the score came about, the verdict time behind it, what it
//! means — every line whole (wrapped, never cut); when taller than the screen, its end is
//! cut with a line that says so.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::compare::Compare;
use crate::text::{sanitize, truncate, width, wrap};
use crate::theme::{Theme, ThemeItem};

/// Widest the popup gets, so lines stay readable on huge terminals.
const MAX_WIDTH: u16 = 100;

pub fn render(frame: &mut Frame, area: Rect, c: &Compare, theme: &Theme) {
    let Some(d) = &c.detail else {
        return;
    };
    let bg = theme.style(ThemeItem::PopupBg);
    let base = theme.style(ThemeItem::Text).patch(bg);
    let dim = theme.style(ThemeItem::Dim).patch(bg);
    let head = base.patch(theme.style(ThemeItem::Title));
    let w = area.width.min(MAX_WIDTH);
    // Inside the border, a column of padding each side.
    let text_w = w.saturating_sub(4) as usize;
    if text_w < 10 || area.height < 5 {
        return;
    }
    let mut lines: Vec<Line<'static>> = Vec::new();
    if !d.table.is_empty() {
        // Columns as wide as their widest cell; the label column gives way first.
        let col = |i: usize| {
            d.table
                .iter()
                .map(|r| width(&sanitize(&r[i], 200)))
                .max()
                .unwrap_or(0)
        };
        let (v1, v2) = (col(1).max(8), col(2).max(8));
        let label_w = col(0).min(text_w.saturating_sub(v1 + v2 + 4));
        for (n, r) in d.table.iter().enumerate() {
            let style = if n == 0 { head } else { base };
            let label = truncate(&sanitize(&r[0], 200), label_w);
            let pad = |s: &str, w: usize| " ".repeat(w.saturating_sub(width(s)));
            let (a, b) = (sanitize(&r[1], 200), sanitize(&r[2], 200));
            lines.push(Line::from(vec![
                Span::styled(format!("{label}{}", pad(&label, label_w)), style),
                Span::styled(format!("  {}{a}", pad(&a, v1)), style),
                Span::styled(format!("  {}{b}", pad(&b, v2)), style),
            ]));
        }
        lines.push(Line::styled("", base));
    }
    for l in &d.lines {
        for row in wrap(&sanitize(l, 2000), text_w) {
            lines.push(Line::styled(row, base));
        }
    }
    lines.push(Line::styled("", base));
    lines.push(Line::styled(
        "↑↓ another difference · Enter or Esc closes",
        dim,
    ));
    // Taller than the screen: keep the top and say how much is left out.
    let room = area.height.saturating_sub(2) as usize;
    if lines.len() > room {
        let cut = lines.len() - room + 1;
        lines.truncate(room.saturating_sub(1));
        lines.push(Line::styled(
            format!("… {cut} more lines: a taller terminal, or innodebt compare --format json"),
            dim,
        ));
    }
    let h = lines.len() as u16 + 2;
    let title = sanitize(&d.title, 200);
    super::frame::popup(frame, area, (w, h), &title, &lines, theme);
}
