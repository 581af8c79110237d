//! Flowed text: figures as items laid out left to right and wrapped between items, lines cut
//! to a width with `…`, and the split of a panel's inside between figures and a chart.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::text::{char_width, truncate_hard, truncate_words};
use crate::theme::{Severity, Theme, ThemeItem};
use innodebt_engine::figures::{FigureId, Figures};

/// Below this a panel's chart would be noise: only the figures are drawn.
pub const CHART_MIN_ROWS: u16 = 6;
pub const CHART_MIN_COLS: u16 = 24;

/// A line cut to `max` columns, with `…` where it was cut.
pub fn fit_line(line: Line<'static>, max: usize) -> Line<'static> {
    if line.width() <= max {
        return line;
    }
    let style = line.style;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let w = span.width();
        if used + w < max {
            used += w;
            spans.push(span);
            continue;
        }
        let room = max - used;
        if room > 0 {
            spans.push(Span::styled(
                truncate_words(&span.content, room - 1) + "…",
                span.style,
            ));
        } else if let Some(last) = spans.pop() {
            // No room left at all: the ellipsis replaces the end of the previous span.
            let lw = last.width();
            spans.push(Span::styled(
                truncate_hard(&last.content, lw.saturating_sub(1)) + "…",
                last.style,
            ));
        }
        break;
    }
    Line::from(spans).style(style)
}

/// A styled line wrapped at spaces into lines of at most `max` columns (a word wider than
/// a line is split); spaces at a break are dropped. Styles carry over the breaks.
pub fn wrap_line(line: Line<'static>, max: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    // Words with the spaces after them, each char with its style.
    let mut words: Vec<Vec<(char, Style)>> = Vec::new();
    let mut cur: Vec<(char, Style)> = Vec::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        for c in span.content.chars() {
            if c != ' ' && cur.last().is_some_and(|(p, _)| *p == ' ') {
                words.push(std::mem::take(&mut cur));
            }
            cur.push((c, style));
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let cw = |w: &[(char, Style)]| w.iter().map(|(c, _)| char_width(*c)).sum::<usize>();
    let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
    let mut used = 0;
    for word in words {
        let body_len = word
            .iter()
            .rposition(|(c, _)| *c != ' ')
            .map_or(0, |i| i + 1);
        let body_w = cw(&word[..body_len]);
        if used > 0 && used + body_w > max {
            rows.push(Vec::new());
            used = 0;
        }
        for (i, (c, st)) in word.into_iter().enumerate() {
            let w = char_width(c);
            if c == ' ' && i >= body_len && used + w > max {
                break; // trailing spaces at a break
            }
            if used + w > max && used > 0 {
                rows.push(Vec::new());
                used = 0;
            }
            if let Some(row) = rows.last_mut() {
                row.push((c, st));
            }
            used += w;
        }
    }
    rows.into_iter()
        .filter(|r| !r.is_empty())
        .map(|row| {
            // Trailing spaces of a row are dropped; chars regrouped into spans by style.
            let end = row
                .iter()
                .rposition(|(c, _)| *c != ' ')
                .map_or(0, |i| i + 1);
            let mut spans: Vec<Span<'static>> = Vec::new();
            let mut text = String::new();
            let mut style: Option<Style> = None;
            for (c, st) in row.into_iter().take(end) {
                if style.is_some_and(|s| s != st) {
                    spans.push(Span::styled(
                        std::mem::take(&mut text),
                        style.unwrap_or_default(),
                    ));
                }
                style = Some(st);
                text.push(c);
            }
            if !text.is_empty() {
                spans.push(Span::styled(text, style.unwrap_or_default()));
            }
            Line::from(spans)
        })
        .collect()
}

/// One unit of flowed text: never split across lines unless wider than a line.
pub struct Item {
    pub spans: Vec<Span<'static>>,
    /// Starts a new line (and the next item starts after it on the same line if it fits).
    pub own_line: bool,
}

impl Item {
    pub fn new(spans: Vec<Span<'static>>) -> Item {
        Item {
            spans,
            own_line: false,
        }
    }

    /// `label value` with the label dim.
    pub fn kv(theme: &Theme, label: &str, value: String, value_style: Style) -> Item {
        Item::new(vec![
            Span::styled(format!("{label} "), theme.style(ThemeItem::Dim)),
            Span::styled(value, value_style),
        ])
    }

    pub fn on_own_line(mut self) -> Item {
        self.own_line = true;
        self
    }

    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }

    /// `▲ what: needs PROCESS privilege`, on its own line, when a missing privilege keeps
    /// any of `figures` unknown: a panel says why instead of a bare `n/a`.
    pub fn needs_privilege(
        f: &Figures,
        figures: &[FigureId],
        what: &str,
        theme: &Theme,
    ) -> Option<Item> {
        let note = f.privilege_note(figures)?;
        let warn = theme.severity(Severity::Warning);
        Some(
            Item::new(vec![Span::styled(
                format!(
                    "{} {what}: {note}",
                    theme.severity_symbol(Severity::Warning)
                ),
                warn,
            )])
            .on_own_line(),
        )
    }
}

impl Item {
    /// `? age suspect: checkpoint age … is more than the redo log holds …` when derivation
    /// found any of `figures` impossible: in the unknown colour, on its own line.
    pub fn suspect(f: &Figures, figures: &[FigureId], what: &str, theme: &Theme) -> Option<Item> {
        let s = figures.iter().find_map(|id| f.suspect(*id))?;
        let style = theme.severity(Severity::Unknown);
        Some(
            Item::new(vec![Span::styled(
                format!(
                    "{} {what} suspect: {}",
                    theme.severity_symbol(Severity::Unknown),
                    crate::text::sanitize(&s.reason, 200)
                ),
                style,
            )])
            .on_own_line(),
        )
    }
}

const GAP: &str = "  ";

/// Items laid out left to right, wrapping between items at `max` columns.
pub fn flow(items: Vec<Item>, max: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut cur_w = 0;
    for item in items {
        let w = item.width();
        let fits = cur_w == 0 || cur_w + GAP.len() + w <= max;
        if !cur.is_empty() && (!fits || item.own_line) {
            lines.push(Line::from(std::mem::take(&mut cur)));
            cur_w = 0;
        }
        if cur_w > 0 {
            cur.push(Span::raw(GAP));
            cur_w += GAP.len();
        }
        cur.extend(item.spans);
        cur_w += w;
    }
    if !cur.is_empty() {
        lines.push(Line::from(cur));
    }
    lines
}

/// Lines from the top of `area`, each cut to its width.
pub fn draw_lines(buf: &mut Buffer, area: Rect, lines: &[Line<'static>]) {
    for (i, line) in lines.iter().take(area.height as usize).enumerate() {
        let line = fit_line(line.clone(), area.width as usize);
        buf.set_line(area.x, area.y + i as u16, &line, area.width);
    }
}
/// Splits a panel's inside into figures on top and a chart below when there is room for
/// both; otherwise everything is figures.
pub fn split_for_chart(inner: Rect, text_rows: u16) -> (Rect, Option<Rect>) {
    let text_rows = text_rows.min(inner.height);
    if inner.width >= CHART_MIN_COLS && inner.height >= text_rows + CHART_MIN_ROWS {
        let text = Rect {
            height: text_rows,
            ..inner
        };
        let chart = Rect {
            y: inner.y + text_rows,
            height: inner.height - text_rows,
            ..inner
        };
        (text, Some(chart))
    } else {
        (inner, None)
    }
}

/// Which of two ways a set of flowed items is best drawn: the lines and whether a chart
/// goes below them (only when `want_chart` and there is room).
pub fn layout_text(
    items: Vec<Item>,
    inner: Rect,
    want_chart: bool,
) -> (Vec<Line<'static>>, Rect, Option<Rect>) {
    let lines = flow(items, inner.width as usize);
    if !want_chart {
        return (lines, inner, None);
    }
    let (text, chart) = split_for_chart(inner, lines.len() as u16);
    (lines, text, chart)
}
