//! The footer: the keys a DBA needs most, as many as fit (`?` lists them all).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::theme::{Theme, ThemeItem};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let key = theme.style(ThemeItem::Key);
    let dim = theme.style(ThemeItem::Dim);
    let window = format!("window {}", app.window.label());
    let mut hints: Vec<(&str, &str)> = vec![("?", "help"), ("q", "quit")];
    if app.zoom.is_some() {
        hints.push(("Esc", "back"));
    }
    hints.push(("1-6", "zoom"));
    hints.push((
        "p",
        if app.is_frozen() {
            "unfreeze"
        } else {
            "freeze"
        },
    ));
    hints.push(("+/-", "interval"));
    hints.push(("w", &window));
    hints.push(("u", "undo scan"));
    hints.push(("arrows", "focus"));

    let mut spans = vec![Span::raw(" ")];
    let mut used = 1usize;
    for (k, what) in hints {
        let w = k.chars().count() + 1 + what.chars().count() + 2;
        if used + w > area.width as usize {
            break;
        }
        spans.push(Span::styled(k.to_string(), key));
        spans.push(Span::styled(format!(" {what}  "), dim));
        used += w;
    }
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &Line::from(spans), area.width);
}
