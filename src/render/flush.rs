//! Panel 2, flush sources: pages/s flushed by adaptive, LRU, sync and background flushing,
//! with the total and `innodb_io_capacity` / `_max` for reference. Neighbor flushing is not a
//! source beside them: `buffer_flush_neighbor_total_pages` counts the pages flushed as
//! neighbours *within* those batches, so it is shown under them, "of which", never added to
//! them. A source whose INNODB_METRICS counter is off says so (it is never drawn as a zero);
//! with only the totals, flush-list ≈ total − LRU.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::app::{App, Panel};
use crate::keymap::LiveKey;
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::figures::{FigureId, FlushSource};

use super::chart::{Plot, Threshold, TimeChart, Unit};
use super::flow::{Item, draw_lines, layout_text};
use innodebt_engine::units::{opt, rate};

/// The colour of a source's series and swatch.
fn item(source: FlushSource) -> ThemeItem {
    match source {
        FlushSource::Adaptive => ThemeItem::FlushAdaptive,
        FlushSource::Lru => ThemeItem::FlushLru,
        FlushSource::Sync => ThemeItem::FlushSync,
        FlushSource::Background => ThemeItem::FlushBackground,
        FlushSource::Neighbor => ThemeItem::FlushNeighbor,
    }
}

/// The legend swatch before a series' name.
pub const SWATCH: &str = "━ ";

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::Flush, app, theme) else {
        return;
    };
    let view = app.view();
    let fl = &f.flush;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let by = &fl.by_source_pages_per_s;
    let off = |s: FlushSource| fl.sources_off.contains(&s);

    let mut items = vec![Item::new(vec![
        Span::styled(SWATCH, theme.style(ThemeItem::FlushTotal)),
        Span::styled("total ", dim),
        Span::styled(
            opt(
                fl.total_pages_per_s.filter(|v| v.is_finite()),
                innodebt_engine::units::count,
            ),
            text,
        ),
        Span::styled(" pages/s", dim),
    ])];
    for source in FlushSource::ALL
        .into_iter()
        .filter(|s| !off(*s) && *s != FlushSource::Neighbor)
    {
        items.push(Item::new(vec![
            Span::styled(SWATCH, theme.style(item(source))),
            Span::styled(format!("{} ", source.label()), dim),
            Span::styled(rate(by.get(source)), text),
        ]));
    }
    // Counted within the sources above (`buf_flush_try_neighbors` runs inside each batch).
    if !off(FlushSource::Neighbor) {
        items.push(
            Item::new(vec![
                Span::styled("  ↳ ", dim),
                Span::styled(SWATCH, theme.style(item(FlushSource::Neighbor))),
                Span::styled("of which neighbors ", dim),
                Span::styled(rate(by.get(FlushSource::Neighbor)), text),
            ])
            .on_own_line(),
        );
    }
    // The flush-list sources are all but LRU; with any of them off, show the estimate.
    if fl.sources_off.iter().any(|s| *s != FlushSource::Lru) && fl.flush_list_pages_per_s.is_some()
    {
        items.push(Item::new(vec![
            Span::styled("flush-list ≈ ", dim),
            Span::styled(rate(fl.flush_list_pages_per_s), text),
            Span::styled(" (total − LRU)", dim),
        ]));
    }
    items.push(
        Item::new(vec![
            Span::styled("io_capacity ", dim),
            Span::styled(opt(fl.io_capacity, |v| v.to_string()), text),
            Span::styled(" / max ", dim),
            Span::styled(opt(fl.io_capacity_max, |v| v.to_string()), text),
        ])
        .on_own_line(),
    );
    items.extend(Item::needs_privilege(
        f,
        &FigureId::FLUSH_BY_SOURCE,
        "by source",
        theme,
    ));
    let flush_rates = [FigureId::FlushTotal, FigureId::FlushList];
    let flush_rates = flush_rates.iter().chain(&FigureId::FLUSH_BY_SOURCE);
    let flush_rates: Vec<FigureId> = flush_rates.copied().collect();
    items.extend(Item::suspect(f, &flush_rates, "flushing", theme));
    if !fl.sources_off.is_empty() {
        // The key only where it acts (a replay, `--read-only` or a frozen screen enables nothing).
        let off_line = match app.live_key_name(LiveKey::EnableMonitors) {
            Some(k) => vec![
                Span::styled("off — press ", dim),
                Span::styled(k, theme.style(ThemeItem::Key)),
                Span::styled(" to enable:", dim),
            ],
            None => vec![Span::styled("off:", dim)],
        };
        items.push(Item::new(off_line).on_own_line());
        for source in FlushSource::ALL.into_iter().filter(|s| off(*s)) {
            items.push(Item::new(vec![Span::styled(source.label(), text)]));
        }
    }

    let (lines, text_area, chart) = layout_text(items, inner, true);
    draw_lines(frame.buffer_mut(), text_area, &lines);
    let Some(chart) = chart else { return };
    let mut plots = vec![Plot::new(
        &view.charts.flush_total,
        theme.style(ThemeItem::FlushTotal),
    )];
    for source in FlushSource::ALL.into_iter().filter(|s| !off(*s)) {
        plots.push(Plot::new(
            view.charts.flush(source),
            theme.style(item(source)),
        ));
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
