//! The verdict under the header: what the figures mean, in a sentence — the most severe
//! verdict first, with how many more hold. It wraps to a second line rather than cut the
//! blocker and the way out; when even two lines are not enough it ends with the key that
//! shows every verdict in full (`v`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::keymap::PanelKey;
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::figures::Verdict;

use super::flow::{fit_line, wrap_line};

/// The most rows the verdict takes from the panels.
pub const MAX_ROWS: u16 = 2;

/// `▲ blocked by read view`: a verdict's symbol and kind in its severity's style.
pub fn headline(v: &Verdict, theme: &Theme) -> Vec<Span<'static>> {
    let style = theme.severity(v.severity);
    vec![
        Span::styled(format!("{} ", theme.severity_symbol(v.severity)), style),
        Span::styled(v.kind.words(), style),
    ]
}

/// The verdict for what is on screen now, whole (the caller wraps or cuts it).
pub fn verdict_line(app: &App, theme: &Theme) -> Line<'static> {
    let verdicts = app.verdicts_now();
    let Some(first) = verdicts.first() else {
        return Line::default();
    };
    let mut spans = headline(first, theme);
    let more = verdicts.len().saturating_sub(1);
    if more > 0 {
        let kinds: Vec<String> = verdicts[1..].iter().map(|v| v.kind.words()).collect();
        spans.push(Span::styled(
            format!(" (+{more}: {})", kinds.join(", ")),
            theme.style(ThemeItem::Dim),
        ));
    }
    spans.extend([
        Span::styled(
            format!(" since {}", first.since.format("%H:%M:%S")),
            theme.style(ThemeItem::Dim),
        ),
        Span::styled(": ", theme.style(ThemeItem::Dim)),
        Span::styled(
            crate::text::sanitize(&first.message, 1000),
            theme.style(ThemeItem::Text),
        ),
    ]);
    Line::from(spans)
}

/// The text's width: the line keeps one column of margin, like the header.
fn text_width(width: u16) -> usize {
    width.saturating_sub(1) as usize
}

/// Rows `line` (the [`verdict_line`]) needs at `width`: one when it fits, else two.
pub fn rows(line: &Line<'_>, width: u16) -> u16 {
    if line.width() <= text_width(width) {
        1
    } else {
        MAX_ROWS
    }
}

/// The verdict wrapped into at most `rows` lines of `max` columns; when it does not fit, the
/// last line is cut and ends with `… v full text` (the key that shows it whole), where the key
/// works.
fn lines(
    line: Line<'static>,
    app: &App,
    theme: &Theme,
    max: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let mut wrapped = wrap_line(line, max);
    if wrapped.len() <= rows.max(1) {
        return wrapped;
    }
    let rows = rows.max(1);
    let hint = match app.panel_key_name(PanelKey::Verdicts) {
        Some(k) => vec![
            Span::styled(" ", theme.style(ThemeItem::Dim)),
            Span::styled(k, theme.style(ThemeItem::Key)),
            Span::styled(" full text", theme.style(ThemeItem::Dim)),
        ],
        None => Vec::new(),
    };
    let hint_w: usize = hint.iter().map(Span::width).sum();
    // The last row takes the rest of the text, cut (with `…`) to leave room for the hint.
    let rest: Vec<Span<'static>> = wrapped
        .drain(rows - 1..)
        .enumerate()
        .flat_map(|(i, l)| {
            let sep = (i > 0).then(|| Span::raw(" "));
            sep.into_iter().chain(l.spans)
        })
        .collect();
    let room = if hint_w + 8 <= max { max - hint_w } else { max };
    let mut last = fit_line(Line::from(rest), room);
    if room < max {
        last.spans.extend(hint);
    }
    wrapped.push(last);
    wrapped
}

/// Draws `line` (the [`verdict_line`], built once per frame by the caller that also sized
/// `area` with [`rows`]).
pub fn render(frame: &mut Frame, area: Rect, line: Line<'static>, app: &App, theme: &Theme) {
    let max = text_width(area.width);
    let x = area.x + 1.min(area.width);
    let buf = frame.buffer_mut();
    for (i, line) in lines(line, app, theme, max, area.height as usize)
        .iter()
        .enumerate()
    {
        buf.set_line(x, area.y + i as u16, line, max as u16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::flow::wrap_line;

    fn text(l: &Line<'_>) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_keeps_every_word() {
        let line = Line::from(vec![
            Span::raw("▲ blocked by read view"),
            Span::raw(": thread 42 holds purge back. Commit it, or kill it with K"),
        ]);
        let out = wrap_line(line, 30);
        let texts: Vec<String> = out.iter().map(text).collect();
        assert!(
            texts.iter().all(|t| crate::text::width(t) <= 30),
            "{texts:?}"
        );
        assert_eq!(
            texts.join(" "),
            "▲ blocked by read view: thread 42 holds purge back. Commit it, or kill it with K"
        );
        // A word wider than the line is split, not lost.
        let long = wrap_line(Line::raw("x".repeat(25)), 10);
        assert_eq!(long.iter().map(text).collect::<String>(), "x".repeat(25));
    }
}
