//! Panel 5, dirty pages: InnoDB's own ratio dirty / (data + free) as a gauge with
//! `innodb_max_dirty_pages_pct` and its low-water mark marked, the bytes dirty, and a trend.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::{App, Panel};
use crate::theme::{Severity, Theme, ThemeItem};
use innodebt_engine::figures::FigureId;
use innodebt_engine::units;

use super::chart::{Plot, Threshold, TimeChart, Unit};
use super::flow::{Item, draw_lines, flow, split_for_chart};
use super::gauge::{GaugeMark, gauge_line};
use innodebt_engine::units::{bytes_or_na, opt, pct};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::Dirty, app, theme) else {
        return;
    };
    let view = app.view();
    let d = &f.dirty;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let pct_of = |v: Option<f64>| opt(v.filter(|v| v.is_finite()), |p| format!("{p:.0}%"));
    // Judged once with the figures (the flush-pressure verdict reads the same).
    let sev = app.severity_now(d.severity);
    let sev_style = theme.severity(sev);

    let mut items = vec![
        Item::new(vec![
            Span::styled("dirty ", dim),
            Span::styled(pct(d.pct), sev_style),
            Span::styled(format!(" {}", theme.severity_symbol(sev)), sev_style),
            Span::styled(" of data+free", dim),
        ]),
        Item::new(vec![Span::styled(bytes_or_na(d.bytes), text)]),
        Item::kv(
            theme,
            "pages",
            opt(d.pages, |p| units::count(p as f64)),
            text,
        ),
        Item::new(vec![
            Span::styled("max ", theme.style(ThemeItem::SyncLine)),
            Span::styled(pct_of(d.max_pct), text),
        ]),
        Item::new(vec![
            Span::styled("lwm ", theme.style(ThemeItem::AsyncLine)),
            Span::styled(
                if d.lwm_off {
                    "off".to_string()
                } else {
                    pct_of(d.lwm_pct)
                },
                text,
            ),
        ]),
    ];
    items.extend(Item::suspect(f, &[FigureId::DirtyPages], "dirty", theme));
    let lines = flow(items, inner.width as usize);
    let fill = match sev {
        Severity::Ok => theme.style(ThemeItem::GaugeFill),
        s => theme.severity(s),
    };
    let marks: Vec<GaugeMark> = [
        (d.lwm_pct, ThemeItem::AsyncLine),
        (d.max_pct, ThemeItem::SyncLine),
    ]
    .into_iter()
    .filter_map(|(p, item)| {
        Some(GaugeMark {
            at: p.filter(|p| p.is_finite())? / 100.0,
            style: theme.style(item),
        })
    })
    .collect();
    let gauge = gauge_line(
        d.pct.map(|p| p / 100.0),
        inner.width as usize,
        fill,
        &marks,
        theme,
    );
    let mut rows: Vec<Line<'static>> = Vec::new();
    rows.extend(lines.iter().take(1).cloned());
    rows.push(gauge);
    rows.extend(lines.iter().skip(1).cloned());
    let (text_area, chart) = split_for_chart(inner, rows.len() as u16);
    draw_lines(frame.buffer_mut(), text_area, &rows);
    let Some(chart) = chart else { return };
    let thresholds: Vec<Threshold> = [
        (d.lwm_pct, ThemeItem::AsyncLine, "lwm"),
        (d.max_pct, ThemeItem::SyncLine, "max"),
    ]
    .into_iter()
    .filter_map(|(v, item, label)| {
        Some(Threshold {
            value: v?,
            style: theme.style(item),
            label: label.into(),
            soft: true,
        })
    })
    .collect();
    TimeChart {
        plots: &[Plot::new(
            &view.charts.dirty_pct,
            theme.style(ThemeItem::SeriesDirty),
        )],
        thresholds: &thresholds,
        y_max: None,
        unit: Unit::Percent,
    }
    .render(frame, chart, app, theme);
}
