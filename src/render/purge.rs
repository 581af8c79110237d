//! Panel 4, purge: how fast purge pays undo debt back (records and undo pages per second)
//! against how fast new debt arrives (rows updated + deleted per second), the purge state and
//! threads, and the `innodb_max_purge_lag` throttle with the DML delay it injects now.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::app::{App, Panel};
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::figures::FigureId;

use super::chart::{Plot, TimeChart, Unit, why_missing};
use super::flow::{Item, draw_lines, layout_text};
use super::flush::SWATCH;
use crate::text::sanitize;
use innodebt_engine::units::{count, opt, rate};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::Purge, app, theme) else {
        return;
    };
    let view = app.view();
    let p = &f.purge;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let us = |v: u64| format!("{v} µs");

    let mut items = vec![
        Item::new(vec![
            Span::styled(SWATCH, theme.style(ThemeItem::SeriesPurge)),
            Span::styled("purged ", dim),
            Span::styled(rate(p.records_per_s), text),
            Span::styled(
                if p.records_per_s.is_some() {
                    " rec"
                } else {
                    ""
                },
                dim,
            ),
        ]),
        Item::new(vec![
            Span::styled(SWATCH, theme.style(ThemeItem::SeriesInflow)),
            Span::styled("inflow ", dim),
            Span::styled(rate(p.inflow_records_per_s), text),
            Span::styled(
                if p.inflow_records_per_s.is_some() {
                    " rec"
                } else {
                    ""
                },
                dim,
            ),
        ]),
        Item::kv(theme, "undo pages", rate(p.undo_pages_per_s), text),
        Item::kv(
            theme,
            "state",
            opt(p.state.as_deref(), |s| {
                let s = sanitize(s, 40);
                if s.is_empty() { "n/a".into() } else { s }
            }),
            text,
        ),
        // How far purge is behind, in time and transactions (the figure's own words): tells
        // "cannot proceed" (long, not moving) from "caught up while history stays high".
        Item::kv(
            theme,
            "behind",
            opt(p.lag_words(), |l| match p.moving {
                Some(false) => format!("{l}, not moving"),
                _ => l,
            }),
            text,
        ),
        Item::kv(
            theme,
            "DML delay now",
            opt(p.dml_delay_applied_us, |applied| match p.dml_delay_us {
                // MariaDB while a read view blocks purge: 0 now, the formula's delay armed.
                Some(armed) if armed != applied => format!("{applied} (armed {armed} µs)"),
                _ => us(applied),
            }),
            text,
        ),
        Item::kv(
            theme,
            "max_purge_lag",
            opt(p.max_purge_lag, |l| {
                if l == 0 {
                    "0 (off)".into()
                } else {
                    l.to_string()
                }
            }),
            text,
        ),
        Item::kv(theme, "_delay", opt(p.max_purge_lag_delay_us, us), text),
        Item::kv(theme, "threads", opt(p.threads, |t| t.to_string()), text),
        Item::kv(theme, "batch", opt(p.batch_size, |b| b.to_string()), text),
    ];
    // Read-write transactions open, where the server counts them (not in older captures).
    if let Some(n) = p.open_rw_trx {
        items.push(Item::kv(theme, "open rw trx", count(n as f64), text));
    }
    // `replay --what-if innodb_max_purge_lag(_delay)`: the delay writes would have paid (the
    // what-if's own summary), right under the rates: it is why this replay was opened.
    let what_if = app
        .what_if()
        .and_then(|w| Some((w.purge_summary()?, w.purge_short()?)));
    if let Some((full, short)) = what_if {
        let width = inner.width.max(1) as usize;
        let said = |l: &str| format!("what if {}", sanitize(l.trim_start_matches("with "), 400));
        let mut wrapped = crate::text::wrap(&said(full), width);
        // The whole line when it leaves a row for the other figures; else its short form.
        if wrapped.len() + 2 > inner.height as usize {
            wrapped = crate::text::wrap(&said(&short), width);
        }
        let mut rows: Vec<Item> = wrapped
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let spans = match l.strip_prefix("what if ") {
                    Some(rest) if i == 0 => vec![
                        Span::styled("what if ", theme.style(ThemeItem::AsyncLine)),
                        Span::styled(rest.to_string(), text),
                    ],
                    _ => vec![Span::styled(l, text)],
                };
                Item::new(spans).on_own_line()
            })
            .collect();
        if let Some(next) = items.get_mut(2) {
            next.own_line = true;
        }
        let tail = items.split_off(2.min(items.len()));
        items.append(&mut rows);
        items.extend(tail);
    }
    items.extend(Item::suspect(
        f,
        &[
            FigureId::PurgeRecords,
            FigureId::PurgeUndoPages,
            FigureId::PurgeInflow,
        ],
        "purge",
        theme,
    ));
    items.extend(Item::needs_privilege(
        f,
        &[
            FigureId::PurgeRecords,
            FigureId::PurgeUndoPages,
            FigureId::PurgeState,
            FigureId::PurgeLagTrxNumbers,
            FigureId::PurgeLagSeconds,
        ],
        "rates, state, lag",
        theme,
    ));

    let (lines, text_area, chart) = layout_text(items, inner, true);
    draw_lines(frame.buffer_mut(), text_area, &lines);
    let Some(chart) = chart else { return };
    TimeChart {
        plots: &[
            Plot::new(
                &view.charts.purge_inflow,
                theme.style(ThemeItem::SeriesInflow),
            ),
            Plot::new(
                &view.charts.purge_records,
                theme.style(ThemeItem::SeriesPurge),
            )
            .missing(why_missing(
                app,
                f,
                "purged",
                &[FigureId::PurgeRecords],
                &[
                    "purge_del_mark_records",
                    "purge_upd_exist_or_extern_records",
                ],
                theme,
            )),
        ],
        thresholds: &[],
        y_max: None,
        unit: Unit::Count,
    }
    .render(frame, chart, app, theme);
}
