//! The footer: the keys of the mode shown a DBA needs most, as many as fit (`?` lists them
//! all).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::keymap::{PanelKey, ScreenAction, ScreenKey, Table};
use crate::theme::{Theme, ThemeItem};

pub fn render<A: ScreenAction>(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    keys: &Table<A>,
    theme: &Theme,
) {
    let key = theme.style(ThemeItem::Key);
    let dim = theme.style(ThemeItem::Dim);
    let window = format!("window {}", app.window.label());
    let hints: Vec<(&str, &str)> = keys
        .hints()
        .into_iter()
        .filter_map(|(b, h)| {
            // What a key does now, where that changes.
            let action = b.keys.first().map(|(_, a)| *a);
            if action.and_then(ScreenAction::screen) == Some(ScreenKey::Back) && app.zoom.is_none()
            {
                return None;
            }
            let what = match action.and_then(ScreenAction::panel) {
                Some(PanelKey::ChartWindow) => window.as_str(),
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
