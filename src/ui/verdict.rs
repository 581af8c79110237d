//! The one-line verdict under the header: what the figures mean, in a sentence — the most
//! severe verdict first, with how many more hold.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::theme::{Theme, ThemeItem};

use super::flow::fit_line;

/// The verdict for what is on screen now; cut to the line's width by the caller.
pub fn verdict_line(app: &App, theme: &Theme) -> Line<'static> {
    let verdicts = app.verdicts_now();
    let Some(first) = verdicts.first() else {
        return Line::default();
    };
    let sev = first.severity;
    let style = theme.severity(sev);
    let mut spans = vec![
        Span::styled(format!("{} ", theme.severity_symbol(sev)), style),
        Span::styled(first.kind.as_str().replace('_', " "), style),
        Span::styled(
            format!(" since {}", first.since.format("%H:%M:%S")),
            theme.style(ThemeItem::Dim),
        ),
        Span::styled(": ", theme.style(ThemeItem::Dim)),
        Span::styled(
            crate::text::sanitize(&first.message, 1000),
            theme.style(ThemeItem::Text),
        ),
    ];
    let more = verdicts.len().saturating_sub(1);
    if more > 0 {
        let kinds: Vec<String> = verdicts[1..]
            .iter()
            .map(|v| v.kind.as_str().replace('_', " "))
            .collect();
        spans.insert(
            2,
            Span::styled(
                format!(" (+{more}: {})", kinds.join(", ")),
                theme.style(ThemeItem::Dim),
            ),
        );
    }
    Line::from(spans)
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let line = fit_line(
        verdict_line(app, theme),
        area.width.saturating_sub(1) as usize,
    );
    frame.buffer_mut().set_line(
        area.x + 1.min(area.width),
        area.y,
        &line,
        area.width.saturating_sub(1),
    );
}
