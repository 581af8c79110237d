//! The replay timeline (replaces the footer while replaying): play state and speed, the
//! position on a bar shaded by the worst verdict of each stretch, the notable moments marked
//! (repeats of one kind folded into one mark with their count), and the transport keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::{App, Showing};
use crate::keymap;
use crate::theme::{SeverityLook, Theme, ThemeItem};
use innodebt_engine::units;
use innodebt_engine::verdicts::Severity;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Showing::Replay(r) = &app.showing else {
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
    let offset = |a: Option<chrono::DateTime<chrono::Utc>>| match (r.first_at, a) {
        // Nearest second: samples taken a hair under a second apart read +1s, not +0s.
        (Some(s), Some(t)) => {
            let ms = (t - s).num_milliseconds().max(0) as u64;
            units::duration((ms + 500) / 1000)
        }
        _ => "?".to_string(),
    };
    let left = vec![
        Span::styled(format!(" {state} {speed} "), text),
        Span::styled(
            r.pos_at
                .map(|t| t.format("%H:%M:%S").to_string())
                .unwrap_or_default(),
            text,
        ),
        Span::styled(
            format!(" +{}/{} ", offset(r.pos_at), offset(r.last_at)),
            dim,
        ),
    ];
    let hints = keymap::REPLAY.hints();
    let used_left: usize = left.iter().map(|s| s.content.chars().count()).sum();
    let total = area.width as usize;
    let mut right = Vec::new();
    let mut right_w = 0usize;
    for (_, h) in hints {
        let (k, what) = (h.key, h.what);
        let w = k.chars().count() + what.chars().count() + 3;
        if used_left + right_w + w + 20 > total {
            break;
        }
        right.push(Span::styled(format!(" {k}"), key));
        right.push(Span::styled(format!(" {what} "), dim));
        right_w += w;
    }
    let bar_w = total.saturating_sub(used_left + right_w + 2).max(1);
    let cells = bar(r, bar_w);
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

/// The bar's cells: severity shading, moment marks with counts, the cursor.
fn bar(r: &crate::app::Replay, width: usize) -> Vec<(char, ThemeItem)> {
    let span = r.last.saturating_sub(r.first).max(1);
    let w = width as u64;
    let col = |sample: u64| -> usize {
        let c = (sample.saturating_sub(r.first) * (w - 1)) / span;
        usize::try_from(c).unwrap_or(usize::MAX).min(width - 1)
    };
    let mut worst: Vec<Option<Severity>> = vec![None; width];
    let shading = r.recording.severity();
    for (i, (from, sev)) in shading.iter().enumerate() {
        let to = shading.get(i + 1).map_or(r.last + 1, |(next, _)| *next);
        if to <= r.first || *from > r.last || sev.is_none() {
            continue;
        }
        let (a, b) = (
            col((*from).max(r.first)),
            col(to.saturating_sub(1).min(r.last)),
        );
        for c in worst.iter_mut().take(b + 1).skip(a) {
            *c = (*c).max(*sev);
        }
    }
    let mut cells: Vec<(char, ThemeItem)> = worst
        .iter()
        .map(|s| s.map_or(('─', ThemeItem::Dim), Severity::bar))
        .collect();
    // One mark per column: of the groups starting there, the one holding most moments.
    let mut owner: Vec<Option<&crate::app::moments::Group>> = vec![None; width];
    for g in &r.recording.groups {
        if g.first.sample < r.first || g.first.sample > r.last {
            continue;
        }
        let c = col(g.first.sample);
        if owner[c].is_none_or(|o| g.count > o.count) {
            owner[c] = Some(g);
        }
    }
    let mut taken: Vec<bool> = owner.iter().map(Option::is_some).collect();
    for (c, g) in owner.iter().enumerate() {
        let Some(g) = g else { continue };
        cells[c] = (g.mark, ThemeItem::TimelineMarker);
        // Its count right after it, whole or not at all (a cut number would lie).
        let digits = g.count.to_string();
        let room = c + 1..c + 1 + digits.len();
        if g.count > 1 && room.end <= width && !taken[room.clone()].contains(&true) {
            for (at, d) in room.zip(digits.chars()) {
                cells[at] = (d, ThemeItem::TimelineMarker);
                taken[at] = true;
            }
        }
    }
    cells[col(r.pos)] = ('┃', ThemeItem::TimelineCursor);
    cells
}
