//! The panel frame: border and numbered title (the focused panel highlighted), and what a
//! panel shows before the first sample.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::symbols::merge::MergeStrategy;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::app::{App, Panel};
use crate::figures::Figures;
use crate::theme::{Theme, ThemeItem};

use super::flow::draw_lines;

/// Draws the panel's border and title (`1 Checkpoint age`), the focused one highlighted;
/// returns the inside.
pub fn panel_frame(frame: &mut Frame, area: Rect, panel: Panel, app: &App, theme: &Theme) -> Rect {
    let focused = app.focus == panel;
    let border = if focused {
        theme.style(ThemeItem::BorderFocused)
    } else {
        theme.style(ThemeItem::Border)
    };
    let title = Line::from(vec![
        Span::styled(format!(" {} ", panel.number()), theme.style(ThemeItem::Key)),
        Span::styled(format!("{} ", panel.title()), theme.style(ThemeItem::Title)),
    ]);
    // Neighbouring panels share their borders (the grid overlaps them by one cell).
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(border)
        .merge_borders(MergeStrategy::Exact)
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// What a panel shows before the first sample arrives.
/// Draws a panel's frame and returns its inner area with the figures to show — or `None`
/// when there is no room, or no sample yet (the "waiting" text is drawn then).
pub fn open_panel<'a>(
    frame: &mut Frame,
    area: Rect,
    panel: Panel,
    app: &'a App,
    theme: &Theme,
) -> Option<(Rect, &'a Figures)> {
    let inner = panel_frame(frame, area, panel, app, theme);
    if inner.is_empty() {
        return None;
    }
    match app.view().latest.as_ref() {
        Some(f) => Some((inner, f)),
        None => {
            waiting(frame.buffer_mut(), inner, theme);
            None
        }
    }
}

pub fn waiting(buf: &mut Buffer, area: Rect, theme: &Theme) {
    draw_lines(
        buf,
        area,
        &[Line::styled(
            "waiting for the first sample…",
            theme.style(ThemeItem::Dim),
        )],
    );
}
