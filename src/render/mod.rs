//! Drawing: the whole screen from `&App`, one file per panel (`render(frame, area, app,
//! theme)`). Render reads and formats; it never derives a figure, never panics on any size or
//! any data, and sanitises every string that came from the server before drawing it.
//!
//! Screen: header · verdict (one line, two when it needs them) · panels · footer, overlays
//! on top. Panels sit in a 2 × 3 grid in reading order (the order focus moves in); at 80×24
//! the lower rows are compact (figures and one-line gauges) and only the checkpoint chart
//! shows; a tall terminal gives every panel its chart. `app.zoom` shows one panel full-screen.

pub mod chart;
pub mod checkpoint;
pub mod compare;
pub mod compare_detail;
pub mod cost;
pub mod dirty;
pub mod flow;
pub mod flush;
pub mod footer;
pub mod frame;
pub mod gauge;
pub mod header;
pub mod history;
pub mod overlay;
pub mod purge;
pub mod timeline;
pub mod undo;
pub mod verdict;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::app::{App, Panel, Showing};
use crate::keymap;
use crate::theme::{Theme, ThemeItem};

/// The smallest terminal the dashboard lays out for.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// Height of a compact grid row: its two borders (shared with its neighbours) and four
/// lines of figures.
const COMPACT_ROW: u16 = 6;
/// Body height from which the three grid rows share it equally (each with a chart).
const EVEN_ROWS_FROM: u16 = 34;

pub fn render(frame: &mut Frame, app: &App, theme: &Theme) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, theme);
    } else if let Showing::Compare(_) = app.showing {
        // `innodebt compare`: a screen of its own, not the panels.
        compare::render(frame, app, theme);
    } else {
        let header = Rect { height: 1, ..area };
        // A verdict too long for one line takes a second from the panels (at 80×24 the
        // grid still fits all six).
        let verdict_line = verdict::verdict_line(app, theme);
        let verdict_rows = verdict::rows(&verdict_line, area.width);
        let verdict = Rect {
            y: area.y + 1,
            height: verdict_rows,
            ..area
        };
        let footer = Rect {
            y: area.bottom() - 1,
            height: 1,
            ..area
        };
        let body = Rect {
            y: area.y + 1 + verdict_rows,
            height: area.height - 2 - verdict_rows,
            ..area
        };
        header::render(frame, header, app, theme);
        verdict::render(frame, verdict, verdict_line, app, theme);
        match app.zoom {
            Some(panel) => render_panel(frame, body, panel, app, theme),
            None => {
                let cells = grid(body);
                for (panel, rect) in &cells {
                    render_panel(frame, *rect, *panel, app, theme);
                }
                // Shared borders were drawn by whichever panel came last: give the focused
                // panel its whole outline back.
                if let Some((_, rect)) = cells.iter().find(|(p, _)| *p == app.focus) {
                    restyle_border(frame, *rect, theme.style(ThemeItem::BorderFocused));
                }
            }
        }
        // The mode's own bar: a replay's timeline, else the footer of the mode's keys.
        match &app.showing {
            Showing::Live(feed) => footer::render(frame, footer, app, feed.keys(), theme),
            Showing::Frozen { .. } => footer::render(frame, footer, app, &keymap::FROZEN, theme),
            Showing::Replay(_) => timeline::render(frame, footer, app, theme),
            Showing::Compare(_) => {}
        }
    }
    if let Some(o) = &app.overlay {
        overlay::render(frame, area, o, app, theme);
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

/// Where each panel goes: two columns, three rows in `Panel::ALL` order. Neighbouring
/// rectangles overlap by one cell so that they share a border.
pub fn grid(body: Rect) -> Vec<(Panel, Rect)> {
    // Heights of the three rows, counting both borders; shared borders give back two rows.
    let total = body.height + 2;
    let rows: [u16; 3] = if body.height >= EVEN_ROWS_FROM {
        let third = total / 3;
        [total - 2 * third, third, third]
    } else {
        let compact = COMPACT_ROW.min(total / 3);
        [total - 2 * compact, compact, compact]
    };
    let left_w = (body.width / 2 + 1).min(body.width);
    let mut out = Vec::with_capacity(6);
    let mut y = body.y;
    for (r, rh) in rows.iter().enumerate() {
        for c in 0..2u16 {
            let (x, w) = if c == 0 {
                (body.x, left_w)
            } else {
                let x = body.x + left_w.saturating_sub(1);
                (x, body.right().saturating_sub(x))
            };
            let h = (*rh).min(body.bottom().saturating_sub(y));
            if let Some(panel) = Panel::ALL.get(r * 2 + c as usize) {
                out.push((
                    *panel,
                    Rect {
                        x,
                        y,
                        width: w,
                        height: h,
                    },
                ));
            }
        }
        y = (y + rh).saturating_sub(1);
    }
    out
}

/// Gives the line-drawing cells on the edge of `rect` the style `style` (titles keep theirs).
fn restyle_border(frame: &mut Frame, rect: Rect, style: Style) {
    let buf = frame.buffer_mut();
    let rect = rect.intersection(buf.area);
    if rect.is_empty() {
        return;
    }
    let mut edge = Vec::new();
    for x in rect.left()..rect.right() {
        edge.push((x, rect.top()));
        edge.push((x, rect.bottom() - 1));
    }
    for y in rect.top()..rect.bottom() {
        edge.push((rect.left(), y));
        edge.push((rect.right() - 1, y));
    }
    for pos in edge {
        if let Some(cell) = buf.cell_mut(pos)
            && cell
                .symbol()
                .chars()
                .next()
                .is_some_and(|c| ('\u{2500}'..='\u{257f}').contains(&c))
        {
            cell.set_style(style);
        }
    }
}

fn too_small(frame: &mut Frame, area: Rect, theme: &Theme) {
    let msg = format!(
        "terminal too small (need {MIN_WIDTH}×{MIN_HEIGHT}, have {}×{})",
        area.width, area.height
    );
    let lines = crate::text::wrap(&msg, area.width as usize);
    let h = (lines.len() as u16).min(area.height);
    let top = area.y + (area.height - h) / 2;
    let style = theme.style(ThemeItem::Warning);
    let buf = frame.buffer_mut();
    for (i, l) in lines.iter().take(h as usize).enumerate() {
        let w = crate::text::width(l) as u16;
        let x = area.x + area.width.saturating_sub(w) / 2;
        let line = Line::styled(l.clone(), style);
        buf.set_line(x, top + i as u16, &line, area.width);
    }
}
