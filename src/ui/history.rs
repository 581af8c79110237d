//! Panel 3, history list length: the undo logs purge still has to process, how fast that
//! grows, when `innodb_max_purge_lag` will be reached, and the transaction holding purge back.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::app::{App, Panel};
use crate::figures::Blocker;
use crate::figures::FigureId;
use crate::theme::{Severity, Theme, ThemeItem};
use crate::units;

use super::chart::{Plot, Threshold, TimeChart, Unit, why_missing};
use super::flow::{Item, draw_lines, layout_text};
use crate::text::sanitize;
use crate::units::{opt, secs, signed_rate};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::History, app, theme) else {
        return;
    };
    let view = app.view();
    let h = &f.history;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);

    let mut items = vec![
        Item::kv(
            theme,
            "length",
            opt(h.length, |l| units::count(l as f64)),
            text,
        ),
        Item::kv(theme, "growth", signed_rate(h.growth_per_s), text),
    ];
    let lag = f.purge.max_purge_lag.filter(|l| *l > 0);
    items.push(match lag {
        None => Item::kv(theme, "max_purge_lag", "off".into(), dim),
        Some(l) => match h.seconds_to_max_purge_lag.filter(|s| s.is_finite()) {
            Some(s) if s <= 0.0 => Item::new(vec![
                Span::styled(format!("max_purge_lag {l} "), dim),
                Span::styled(
                    format!("reached {}", theme.severity_symbol(Severity::Warning)),
                    theme.severity(Severity::Warning),
                ),
            ]),
            Some(s) => Item::new(vec![
                Span::styled(format!("max_purge_lag {l} in "), dim),
                Span::styled(secs(s), theme.severity(Severity::Warning)),
            ]),
            None => Item::new(vec![
                Span::styled(format!("max_purge_lag {l} "), dim),
                Span::styled("not nearing", text),
            ]),
        },
    });
    // Without INNODB_TRX nobody can tell whether a read view blocks purge: never "no blocker".
    let blocker = match Item::needs_privilege(f, &[FigureId::Blocker], "blocker unknown", theme) {
        Some(unknown) if f.blocker.is_none() => vec![unknown],
        _ => blocker_items(f.blocker.as_ref(), theme),
    };
    let mut blocker = blocker.into_iter();
    if let Some(first) = blocker.next() {
        items.push(first.on_own_line());
    }
    items.extend(blocker);

    let (lines, text_area, chart) = layout_text(items, inner, true);
    draw_lines(frame.buffer_mut(), text_area, &lines);
    let Some(chart) = chart else { return };
    let mut thresholds: Vec<Threshold> = lag
        .map(|l| Threshold {
            value: l as f64,
            style: theme.style(ThemeItem::AsyncLine),
            label: "max_purge_lag".into(),
            soft: true,
        })
        .into_iter()
        .collect();
    // `replay --what-if innodb_max_purge_lag=N`: its lag as a second, dim line (a hypothesis,
    // not the server), drawn even far above the data: where it sits is the answer.
    let what_if_lag = app
        .replay
        .as_ref()
        .and_then(|r| r.what_if.as_ref())
        .and_then(|w| w.max_purge_lag());
    if let Some(l) = what_if_lag {
        thresholds.push(Threshold {
            value: l as f64,
            style: dim,
            label: format!("what if: max_purge_lag {}", units::count(l as f64)),
            soft: false,
        });
    }
    TimeChart {
        plots: &[Plot::new(
            &view.charts.history_length,
            theme.style(ThemeItem::SeriesHistory),
        )
        .missing(why_missing(
            app,
            f,
            "history length",
            &[FigureId::HistoryLength],
            &["trx_rseg_history_len"],
            theme,
        ))],
        thresholds: &thresholds,
        y_max: None,
        unit: Unit::Count,
    }
    .render(frame, chart, app, theme);
}

/// `▲ blocker 1m 01s thread 42` then `app@10.0.0.5: SELECT …` (two items, so the query
/// goes on the next line when narrow), or `no blocker`.
fn blocker_items(b: Option<&Blocker>, theme: &Theme) -> Vec<Item> {
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let Some(b) = b else {
        return vec![Item::new(vec![Span::styled("no blocker", dim)])];
    };
    let warn = theme.severity(Severity::Warning);
    // The client port adds nothing the thread id doesn't already identify.
    let host = sanitize(b.host.as_deref().unwrap_or("?"), 64);
    let host = match host.rsplit_once(':') {
        Some((h, port))
            if !h.is_empty() && !port.is_empty() && port.bytes().all(|c| c.is_ascii_digit()) =>
        {
            h.to_string()
        }
        _ => host,
    };
    let who = format!("{}@{host}", sanitize(b.user.as_deref().unwrap_or("?"), 64));
    let doing = match b.query.as_deref().map(|q| sanitize(q, 300)) {
        Some(q) if !q.is_empty() => q,
        _ => match b.command.as_deref().map(|c| sanitize(c, 32)) {
            Some(c) if c == "Sleep" => "(idle in transaction)".to_string(),
            Some(c) if !c.is_empty() => format!("({c}, no statement)"),
            _ => "(no statement running)".to_string(),
        },
    };
    vec![
        Item::new(vec![
            Span::styled(
                format!("{} blocker ", theme.severity_symbol(Severity::Warning)),
                warn,
            ),
            Span::styled(units::duration(b.age_s), warn),
            Span::styled(" thread ", dim),
            Span::styled(opt(b.thread_id, |t| t.to_string()), text),
        ]),
        Item::new(vec![
            Span::styled(who, text),
            Span::styled(": ", dim),
            Span::styled(doing, text),
        ]),
    ]
}
