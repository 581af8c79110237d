//! The footer: the keys a DBA needs most, as many as fit (`?` lists them all).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::keymap::{self, Bar, KeyAction};
use crate::theme::{Theme, ThemeItem};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let key = theme.style(ThemeItem::Key);
    let dim = theme.style(ThemeItem::Dim);
    let window = format!("window {}", app.window.label());
    let hints: Vec<(&str, &str)> = keymap::hints(Bar::Footer)
        .into_iter()
        .filter_map(|(b, h)| {
            // What a key does now, where that changes.
            let what = match b.keys.first().map(|(_, a)| *a) {
                Some(KeyAction::Back) if app.zoom.is_none() => return None,
                Some(KeyAction::Freeze) if app.is_frozen() => "unfreeze",
                Some(KeyAction::ChartWindow) => window.as_str(),
                _ => h.what,
            };
            Some((h.key, what))
        })
        .collect();

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
