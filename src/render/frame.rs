//! The panel frame: border and numbered title (the focused panel highlighted), and what a
//! panel shows before the first sample.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::symbols::merge::MergeStrategy;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::app::{App, Panel};
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::figures::Figures;

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

/// A bordered popup of `w` × `h` centred in `area`, cleared, titled (cut to fit), its
/// `lines` drawn inside with a column of margin: the one shape every overlay takes.
pub fn popup(
    frame: &mut Frame,
    area: Rect,
    (w, h): (u16, u16),
    title: &str,
    lines: &[Line<'static>],
    theme: &Theme,
) {
    use ratatui::widgets::Clear;
    let bg = theme.style(ThemeItem::PopupBg);
    let base = theme.style(ThemeItem::Text).patch(bg);
    let (w, h) = (w.min(area.width), h.min(area.height));
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    frame.render_widget(Clear, rect);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(bg.patch(theme.style(ThemeItem::PopupBorder)))
        .title(Line::styled(
            format!(
                " {} ",
                crate::text::truncate(title, w.saturating_sub(4) as usize)
            ),
            bg.patch(theme.style(ThemeItem::Title)),
        ))
        .style(base);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let text_area = Rect {
        x: inner.x + 1.min(inner.width),
        width: inner.width.saturating_sub(2),
        ..inner
    };
    draw_lines(frame.buffer_mut(), text_area, lines);
}
