//! The one-line gauge with threshold markers on the bar, and the line of labels under it
//! pointing at each marker.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::text::{char_width, width};
use crate::theme::{Theme, ThemeItem};

pub struct GaugeMark {
    /// Position as a fraction of the gauge, 0–1.
    pub at: f64,
    pub style: Style,
}

/// The column of fraction `at` on a gauge `w` columns wide.
pub fn gauge_col(at: f64, w: usize) -> usize {
    if w == 0 || !at.is_finite() {
        return 0;
    }
    ((at.clamp(0.0, 1.0) * w as f64).round() as usize).min(w - 1)
}

/// A one-line gauge `w` columns wide: filled to `fraction` with `fill`, the rest dim, and a
/// `│` at each marker so thresholds show on the bar itself.
pub fn gauge_line(
    fraction: Option<f64>,
    w: usize,
    fill: Style,
    markers: &[GaugeMark],
    theme: &Theme,
) -> Line<'static> {
    let empty = theme
        .style(ThemeItem::Dim)
        .patch(theme.style(ThemeItem::GaugeEmpty));
    let filled = match fraction.filter(|f| f.is_finite()) {
        Some(f) => (f.clamp(0.0, 1.0) * w as f64).round() as usize,
        None => 0,
    };
    let mut cells: Vec<(char, Style)> = (0..w)
        .map(|i| {
            if i < filled {
                ('█', fill)
            } else {
                ('░', empty)
            }
        })
        .collect();
    for m in markers {
        if w == 0 || !m.at.is_finite() {
            continue;
        }
        let col = gauge_col(m.at, w);
        if let Some(cell) = cells.get_mut(col) {
            let base = if col < filled { fill } else { empty };
            *cell = ('│', base.patch(m.style));
        }
    }
    styled_cells_line(cells)
}

/// A row of styled cells as a line, runs of one style merged into one span.
fn styled_cells_line(cells: Vec<(char, Style)>) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_style: Option<Style> = None;
    for (c, s) in cells {
        if run_style != Some(s) {
            if let Some(rs) = run_style {
                spans.push(Span::styled(std::mem::take(&mut run), rs));
            }
            run_style = Some(s);
        }
        run.push(c);
    }
    if let Some(rs) = run_style {
        spans.push(Span::styled(run, rs));
    }
    Line::from(spans)
}

/// One label under a gauge marker, in long to short forms; the longest that fits is used.
pub struct MarkerLabel<'a> {
    pub at: f64,
    pub forms: &'a [String],
    pub style: Style,
}

/// A line of labels under a gauge `w` columns wide, each pointing at its marker: ending at it
/// (`async 67 MiB ┘`) or starting at it (`└ M 77 MiB`), never overlapping; markers in
/// increasing order. A label with no room is left out (the figures line says it anyway).
pub fn marker_labels(w: usize, labels: &[MarkerLabel<'_>]) -> Line<'static> {
    let mut cells: Vec<(char, Style)> = vec![(' ', Style::new()); w];
    // First free column (one space is kept between labels).
    let mut free = 0usize;
    for l in labels {
        if w == 0 || !l.at.is_finite() {
            continue;
        }
        let col = gauge_col(l.at, w);
        let placed = l.forms.iter().find_map(|form| {
            let before = format!("{form} ┘");
            let bw = width(&before);
            if bw <= col + 1 && col + 1 - bw >= free {
                return Some((col + 1 - bw, before));
            }
            let after = format!("└ {form}");
            let aw = width(&after);
            if col >= free && col + aw <= w {
                return Some((col, after));
            }
            None
        });
        if let Some((start, text)) = placed {
            let mut x = start;
            for c in text.chars() {
                if let Some(cell) = cells.get_mut(x) {
                    *cell = (c, l.style);
                }
                x += char_width(c);
            }
            free = x + 1;
        }
    }
    styled_cells_line(cells)
}
