//! Panel 2, flush sources: pages/s flushed by adaptive, LRU, sync, background and neighbor
//! flushing, with the total and `innodb_io_capacity` / `_max` for reference. A source whose
//! INNODB_METRICS counter is off says so (it is never drawn as a zero); with only the totals,
//! flush-list ≈ total − LRU.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::app::view::FLUSH_SOURCES;
use crate::app::{App, Panel};
use crate::theme::{Theme, ThemeItem};

use super::widgets::{Item, Plot, Threshold, TimeChart, Unit, draw_lines, layout_text, opt, rate};

/// Display names, in [`FLUSH_SOURCES`] order.
const NAMES: [&str; 5] = ["adaptive", "LRU", "sync", "background", "neighbor"];
const ITEMS: [ThemeItem; 5] = [
    ThemeItem::FlushAdaptive,
    ThemeItem::FlushLru,
    ThemeItem::FlushSync,
    ThemeItem::FlushBackground,
    ThemeItem::FlushNeighbor,
];

/// The legend swatch before a series' name.
pub const SWATCH: &str = "━ ";

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::widgets::open_panel(frame, area, Panel::Flush, app, theme) else {
        return;
    };
    let view = app.view();
    let fl = &f.flush;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let by = &fl.by_source_pages_per_s;
    let values = [by.adaptive, by.lru, by.sync, by.background, by.neighbor];
    // A source is off when its counter is listed as disabled (matched by its name inside
    // the counter's, e.g. `buffer_flush_sync_total_pages`).
    let off: Vec<bool> = FLUSH_SOURCES
        .iter()
        .map(|src| {
            let needle = format!("_{src}_");
            fl.disabled_counters
                .iter()
                .any(|c| c.to_ascii_lowercase().contains(&needle))
        })
        .collect();

    let mut items = vec![Item::new(vec![
        Span::styled(SWATCH, theme.style(ThemeItem::FlushTotal)),
        Span::styled("total ", dim),
        Span::styled(
            opt(
                fl.total_pages_per_s.filter(|v| v.is_finite()),
                crate::output::count,
            ),
            text,
        ),
        Span::styled(" pages/s", dim),
    ])];
    for i in 0..5 {
        if off[i] {
            continue;
        }
        items.push(Item::new(vec![
            Span::styled(SWATCH, theme.style(ITEMS[i])),
            Span::styled(format!("{} ", NAMES[i]), dim),
            Span::styled(rate(values[i]), text),
        ]));
    }
    let off_names: Vec<&str> = (0..5).filter(|i| off[*i]).map(|i| NAMES[i]).collect();
    // The flush-list sources are all but LRU; with any of them off, show the estimate.
    if off.iter().enumerate().any(|(i, o)| *o && i != 1) && fl.flush_list_pages_per_s.is_some() {
        items.push(Item::new(vec![
            Span::styled("flush-list ≈ ", dim),
            Span::styled(rate(fl.flush_list_pages_per_s), text),
            Span::styled(" (total − LRU)", dim),
        ]));
    }
    items.push(Item::new(vec![
        Span::styled("io_capacity ", dim),
        Span::styled(opt(fl.io_capacity, |v| v.to_string()), text),
        Span::styled(" / max ", dim),
        Span::styled(opt(fl.io_capacity_max, |v| v.to_string()), text),
    ]));
    items.extend(Item::needs_privilege(
        f,
        &["flush.by_source_pages_per_s"],
        "by source",
        theme,
    ));
    if !off_names.is_empty() {
        items.push(
            Item::new(vec![
                Span::styled("off — press ", dim),
                Span::styled("m", theme.style(ThemeItem::Key)),
                Span::styled(" to enable:", dim),
            ])
            .on_own_line(),
        );
        for name in off_names {
            items.push(Item::new(vec![Span::styled(name.to_string(), text)]));
        }
    }

    let (lines, text_area, chart) = layout_text(items, inner, true);
    draw_lines(frame.buffer_mut(), text_area, &lines);
    let Some(chart) = chart else { return };
    let mut plots = vec![Plot {
        series: &view.charts.flush_total,
        style: theme.style(ThemeItem::FlushTotal),
    }];
    for i in 0..5 {
        if !off[i] {
            plots.push(Plot {
                series: &view.charts.flush[i],
                style: theme.style(ITEMS[i]),
            });
        }
    }
    let thresholds: Vec<Threshold> = [
        (fl.io_capacity, "io_capacity"),
        (fl.io_capacity_max, "io_capacity_max"),
    ]
    .into_iter()
    .filter_map(|(v, label)| {
        Some(Threshold {
            value: v? as f64,
            style: dim,
            label: label.into(),
            soft: true,
        })
    })
    .collect();
    TimeChart {
        plots: &plots,
        thresholds: &thresholds,
        y_max: None,
        unit: Unit::Count,
    }
    .render(frame, chart, app, theme);
}
