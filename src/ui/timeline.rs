//! The replay timeline (replaces the footer while replaying): play state and speed, the
//! position on a bar with the notable moments marked, and the transport keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::output;
use crate::theme::{Theme, ThemeItem};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(r) = app.replay.as_ref() else {
        return;
    };
    let dim = theme.style(ThemeItem::Dim);
    let key = theme.style(ThemeItem::Key);
    let text = theme.style(ThemeItem::Text);
    let state = if r.playing { "▶" } else { "⏸" };
    let speed = if r.speed < 1.0 {
        format!("{}×", r.speed)
    } else {
        format!("{:.0}×", r.speed)
    };
    let start = r.recording.sample_time(r.first);
    let here = r.recording.sample_time(r.pos);
    let end = r.recording.sample_time(r.last);
    let offset = |a: Option<(chrono::DateTime<chrono::Utc>, f64)>| match (start, a) {
        // Nearest second: samples taken a hair under a second apart read +1s, not +0s.
        (Some((s, _)), Some((t, _))) => {
            let ms = (t - s).num_milliseconds().max(0) as u64;
            output::duration((ms + 500) / 1000)
        }
        _ => "?".to_string(),
    };
    let left = vec![
        Span::styled(format!(" {state} {speed} "), text),
        Span::styled(
            here.map(|(t, _)| t.format("%H:%M:%S").to_string())
                .unwrap_or_default(),
            text,
        ),
        Span::styled(format!(" +{}/{} ", offset(here), offset(end)), dim),
    ];
    let hints: [(&str, &str); 5] = [
        ("space", "play"),
        ("←→", "step"),
        ("[]", "speed"),
        ("g", "go to"),
        ("n/N", "moment"),
    ];
    let used_left: usize = left.iter().map(|s| s.content.chars().count()).sum();
    let total = area.width as usize;
    let mut right = Vec::new();
    let mut right_w = 0usize;
    for (k, what) in hints {
        let w = k.chars().count() + what.chars().count() + 3;
        if used_left + right_w + w + 20 > total {
            break;
        }
        right.push(Span::styled(format!(" {k}"), key));
        right.push(Span::styled(format!(" {what} "), dim));
        right_w += w;
    }
    let bar_w = total.saturating_sub(used_left + right_w + 2).max(1);
    let span = r.last.saturating_sub(r.first).max(1);
    let col = |sample: usize| (sample.saturating_sub(r.first) * (bar_w - 1)) / span;
    let mut cells: Vec<(char, ThemeItem)> = vec![('─', ThemeItem::Dim); bar_w];
    for m in &r.moments {
        if m.sample < r.first || m.sample > r.last {
            continue;
        }
        if let Some(c) = cells.get_mut(col(m.sample)) {
            *c = (m.kind.mark(), ThemeItem::TimelineMarker);
        }
    }
    if let Some(c) = cells.get_mut(col(r.pos)) {
        *c = ('┃', ThemeItem::TimelineCursor);
    }
    let mut spans = left;
    spans.push(Span::styled("[", dim));
    spans.extend(
        cells
            .into_iter()
            .map(|(ch, item)| Span::styled(ch.to_string(), theme.style(item))),
    );
    spans.push(Span::styled("]", dim));
    spans.extend(right);
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &Line::from(spans), area.width);
}
