//! Panel 6, undo residency: how big undo is, whether it is being read back from disk (no
//! longer cached), and the cached share from the last (expensive, on-demand) buffer-pool scan.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::app::{App, Panel, secs_between};
use crate::keymap::LiveKey;
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::figures::{FigureId, Rollback, Severity};
use innodebt_engine::units;

use super::chart::{Plot, TimeChart, Unit, why_missing};
use super::flow::{Item, draw_lines, layout_text};
use innodebt_engine::units::{bytes_or_na, opt, rate, secs};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::Undo, app, theme) else {
        return;
    };
    let view = app.view();
    let u = &f.undo;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let key = theme.style(ThemeItem::Key);
    // The scan key, where it works (a replay, a frozen or a watched screen scans nothing).
    let scan_key = app.live_key_name(LiveKey::UndoScan);

    let mut items = vec![
        Item::kv(theme, "size", bytes_or_na(u.size_bytes), text),
        Item::kv(theme, "read from disk", rate(u.reads_per_s), text),
        rseg_item(&f.rollback, theme),
    ];
    items.push(match u.scanned_at {
        Some(_) => Item::new(vec![
            Span::styled("cached ", dim),
            Span::styled(
                opt(u.resident_pct.filter(|p| p.is_finite()), |p| {
                    format!("{p:.0}%")
                }),
                text,
            ),
            Span::styled(
                format!(
                    " ({} pages)",
                    opt(u.cached_pages, |c| units::count(c as f64))
                ),
                dim,
            ),
        ]),
        None => Item::new(match scan_key {
            Some(k) => vec![
                Span::styled("cached ", dim),
                Span::styled("never scanned — press ", text),
                Span::styled(k, key),
            ],
            None => vec![
                Span::styled("cached ", dim),
                Span::styled("never scanned", text),
            ],
        }),
    });
    if let Some(at) = u.scanned_at {
        items.push(Item::new(vec![
            Span::styled("scanned ", dim),
            Span::styled(secs(secs_between(at, app.now).max(0.0)), text),
            Span::styled(" ago", dim),
        ]));
    }
    items.extend(Item::needs_privilege(
        f,
        &[
            FigureId::UndoSize,
            FigureId::UndoReads,
            FigureId::UndoCachedPages,
        ],
        "size, reads, scan",
        theme,
    ));
    if let Some(k) = scan_key {
        items.push(
            Item::new(vec![
                Span::styled(k, key),
                Span::styled(" scan now (asks first)", dim),
            ])
            .on_own_line(),
        );
    }

    let (lines, text_area, chart) = layout_text(items, inner, true);
    draw_lines(frame.buffer_mut(), text_area, &lines);
    let Some(chart) = chart else { return };
    // The chart is undo's size; when it cannot have one it says why, and that the cached
    // share (the residency) has not been scanned either.
    let mut why = why_missing(
        app,
        f,
        "undo size",
        &[FigureId::UndoSize],
        &["trx_rseg_current_size"],
        theme,
    );
    if let (Some(line), None, Some(k)) = (why.as_mut(), u.scanned_at, scan_key) {
        line.spans.extend([
            Span::styled(" · residency ", dim),
            Span::styled("never scanned — press ", text),
            Span::styled(k, key),
        ]);
    }
    TimeChart {
        plots: &[Plot::new(
            &view.charts.undo_size,
            theme.style(ThemeItem::SeriesHistory),
        )
        .missing(why)],
        thresholds: &[],
        y_max: None,
        unit: Unit::Bytes,
    }
    .render(frame, chart, app, theme);
}

/// The rollback segments writers share and their latch waits, in the verdict's colour when
/// writes queue on too few (`rseg 4 · latch 0.80 s/s (52k/s)`, `rseg 128 fixed · …`).
fn rseg_item(r: &Rollback, theme: &Theme) -> Item {
    let dim = theme.style(ThemeItem::Dim);
    let style = match r.severity {
        Some(Severity::Warning) => theme.severity(Severity::Warning),
        _ => theme.style(ThemeItem::Text),
    };
    let segments = match (r.segments, r.segments_fixed) {
        (Some(n), true) => format!("{n} fixed"),
        (Some(n), false) => n.to_string(),
        (None, _) => "n/a".into(),
    };
    let mut spans = vec![Span::styled("rseg ", dim), Span::styled(segments, style)];
    if let Some(w) = r.waits_words() {
        spans.extend([Span::styled(" · ", dim), Span::styled(w, style)]);
    }
    Item::new(spans)
}
