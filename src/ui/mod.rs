//! Drawing: the whole screen from `&App`, one file per panel (`render(frame, area, app,
//! theme)`). Render reads and formats; it never derives a figure, never panics on any size or
//! any data, and sanitises every string that came from the server before drawing it.
//!
//! Screen: header · verdict line · panels · footer, overlays on top. Panels sit in a 2 × 3
//! grid in reading order (the order focus moves in); at 80×24 the lower rows are compact
//! (figures and one-line gauges) and only the checkpoint chart shows; a tall terminal gives
//! every panel its chart. `app.zoom` shows one panel full-screen.

pub mod checkpoint;
pub mod dirty;
pub mod flush;
pub mod footer;
pub mod header;
pub mod history;
pub mod overlay;
pub mod purge;
pub mod undo;
pub mod verdict;
pub mod widgets;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::app::{App, Panel};
use crate::theme::{Theme, ThemeItem};

/// The smallest terminal the dashboard lays out for.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// Height of a compact grid row: border + three lines of figures.
const COMPACT_ROW: u16 = 5;
/// Body height from which the three grid rows share it equally (each with a chart).
const EVEN_ROWS_FROM: u16 = 36;

pub fn render(frame: &mut Frame, app: &App, theme: &Theme) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, theme);
    } else {
        let header = Rect { height: 1, ..area };
        let verdict = Rect {
            y: area.y + 1,
            height: 1,
            ..area
        };
        let footer = Rect {
            y: area.bottom() - 1,
            height: 1,
            ..area
        };
        let body = Rect {
            y: area.y + 2,
            height: area.height - 3,
            ..area
        };
        header::render(frame, header, app, theme);
        verdict::render(frame, verdict, app, theme);
        match app.zoom {
            Some(panel) => render_panel(frame, body, panel, app, theme),
            None => {
                for (panel, rect) in grid(body) {
                    render_panel(frame, rect, panel, app, theme);
                }
            }
        }
        footer::render(frame, footer, app, theme);
    }
    if let Some(o) = &app.overlay {
        overlay::render(frame, area, o, theme);
    }
}

pub fn render_panel(frame: &mut Frame, area: Rect, panel: Panel, app: &App, theme: &Theme) {
    match panel {
        Panel::Checkpoint => checkpoint::render(frame, area, app, theme),
        Panel::Flush => flush::render(frame, area, app, theme),
        Panel::History => history::render(frame, area, app, theme),
        Panel::Purge => purge::render(frame, area, app, theme),
        Panel::Dirty => dirty::render(frame, area, app, theme),
        Panel::Undo => undo::render(frame, area, app, theme),
    }
}

/// Where each panel goes: two columns, three rows in `Panel::ALL` order.
pub fn grid(body: Rect) -> Vec<(Panel, Rect)> {
    let h = body.height;
    let rows: [u16; 3] = if h >= EVEN_ROWS_FROM {
        let third = h / 3;
        [h - 2 * third, third, third]
    } else {
        let compact = COMPACT_ROW.min(h / 3);
        [h - 2 * compact, compact, compact]
    };
    let left_w = body.width / 2;
    let mut out = Vec::with_capacity(6);
    let mut y = body.y;
    for (r, rh) in rows.iter().enumerate() {
        for c in 0..2u16 {
            let (x, w) = if c == 0 {
                (body.x, left_w)
            } else {
                (body.x + left_w, body.width - left_w)
            };
            if let Some(panel) = Panel::ALL.get(r * 2 + c as usize) {
                out.push((
                    *panel,
                    Rect {
                        x,
                        y,
                        width: w,
                        height: *rh,
                    },
                ));
            }
        }
        y += rh;
    }
    out
}

fn too_small(frame: &mut Frame, area: Rect, theme: &Theme) {
    let msg = format!(
        "terminal too small (need {MIN_WIDTH}×{MIN_HEIGHT}, have {}×{})",
        area.width, area.height
    );
    let lines = widgets::wrap(&msg, area.width as usize);
    let h = (lines.len() as u16).min(area.height);
    let top = area.y + (area.height - h) / 2;
    let style = theme.style(ThemeItem::Warning);
    let buf = frame.buffer_mut();
    for (i, l) in lines.iter().take(h as usize).enumerate() {
        let w = widgets::width(l) as u16;
        let x = area.x + area.width.saturating_sub(w) / 2;
        let line = Line::styled(l.clone(), style);
        buf.set_line(x, top + i as u16, &line, area.width);
    }
}
