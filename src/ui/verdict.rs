//! The one-line verdict under the header: what the figures mean, in a sentence. Owned by the
//! verdict work; until it lands the line is left neutral (blank), so the layout already has
//! its place.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::app::App;
use crate::theme::Theme;

use super::widgets::fit_line;

/// The verdict for what is on screen now. Neutral (empty) until verdicts are added; whatever
/// it returns is cut to the line's width, so it may be as long as it likes.
pub fn verdict_line(app: &App, theme: &Theme) -> Line<'static> {
    let _ = (app, theme);
    Line::default()
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let line = fit_line(verdict_line(app, theme), area.width.saturating_sub(1) as usize);
    frame
        .buffer_mut()
        .set_line(area.x + 1.min(area.width), area.y, &line, area.width.saturating_sub(1));
}
