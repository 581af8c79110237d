//! Panel 1, checkpoint age: redo not yet checkpointed, against the redo capacity, with the
//! flush points marked on the gauge and drawn as lines on the chart, named as the flavour
//! names them (`Flavor::point_words`): the adaptive-flushing lwm where redo-driven flushing
//! starts, then async / sync on MySQL 5.7, async / furious flush (M) on MariaDB, flush hard /
//! sync flush / stall on MySQL 8.0+ (which acts before its async counter). The regime line
//! says what the page cleaner does at this age (`redo.flush_regime`, judged once) and the age
//! it was judged on (the oldest dirty page's, or what stood in). Past async is a warning, past
//! the stall line critical — by colour and symbol.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::{App, Panel};
use crate::theme::{Severity, Theme, ThemeItem};
use innodebt_engine::figures::{FigureId, Figures};
use innodebt_engine::units;
use innodebt_server::flavor::{Flavor, RegimeAge};

use super::chart::{Plot, Threshold, TimeChart, Unit, why_missing};
use super::flow::{CHART_MIN_COLS, CHART_MIN_ROWS, Item, draw_lines, flow};
use super::gauge::{GaugeMark, MarkerLabel, gauge_line, marker_labels};
use crate::text::sanitize;
use innodebt_engine::units::{bytes_or_na, pct};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::Checkpoint, app, theme)
    else {
        return;
    };
    let view = app.view();
    let r = &f.redo;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    let flavor = flavor_of(app, f);
    let words = flavor.point_words();
    // Where redo-driven flushing starts: drawn only while adaptive flushing acts from it
    // (OFF, MySQL flushes from the async point; MariaDB still from lwm, at io_capacity).
    let lwm = r
        .adaptive_lwm_bytes
        .filter(|l| *l > 0)
        .filter(|_| r.adaptive_flushing != Some(false) || flavor.is_mariadb());
    let (async_name, async_short) = (words.flushing_starts, words.flushing_starts_short);
    let (sync_name, sync_short) = (words.stall.to_string(), words.stall_short.to_string());
    // MySQL 8.0+: where the page cleaner stops respecting io_capacity, between the two.
    let sync_flush = words.sync_flush.zip(r.sync_flush_bytes);
    let age = r.checkpoint_age_bytes;
    let cap = r.capacity_bytes.filter(|c| *c > 0);
    // Judged once with the figures (the flush-pressure verdict reads the same).
    let sev = app.severity_now(r.severity);
    let sev_style = theme.severity(sev);
    let frac = |v: u64| cap.map(|c| v as f64 / c as f64);

    let mut items = vec![Item::new(vec![
        Span::styled("age ", dim),
        Span::styled(bytes_or_na(age), sev_style),
        Span::styled(format!(" {}", theme.severity_symbol(sev)), sev_style),
        Span::styled(" = ", dim),
        Span::styled(pct(r.checkpoint_age_pct_of_capacity), sev_style),
        Span::styled(" of ", dim),
        Span::styled(bytes_or_na(r.capacity_bytes), text),
    ])];
    if let (Some(_), Some(regime)) = (r.severity, r.flush_regime) {
        let lwm_pct = r
            .adaptive_lwm_pct
            .unwrap_or(innodebt_server::flavor::DEFAULT_ADAPTIVE_FLUSHING_LWM_PCT);
        let state = flavor.flush_regime_words(regime, lwm_pct);
        // The age the regime was judged on: the oldest dirty page's, beside it; where that was
        // unread, the checkpoint age stood in, said in the same words (`--once` says why).
        match r.flush_regime_age {
            Some(RegimeAge::CheckpointStandIn) => items.push(Item::new(vec![Span::styled(
                format!("{state} by checkpoint age"),
                sev_style,
            )])),
            _ => {
                items.push(Item::new(vec![Span::styled(state, sev_style)]));
                if let Some(judged) = r.flush_regime_age_words() {
                    items.push(Item::new(vec![Span::styled(judged, dim)]));
                }
            }
        }
    }
    items.extend(Item::needs_privilege(
        f,
        &[FigureId::CheckpointAge],
        "age",
        theme,
    ));
    // An age no server can show: unknown (derive took it off), and why, in the unknown colour.
    items.extend(Item::suspect(f, &[FigureId::CheckpointAge], "age", theme));
    let main = flow(items, inner.width as usize);
    // A flush point: its name in its line's colour, bytes, share of capacity.
    let point = |name: String, line: ThemeItem, at: Option<u64>| {
        Item::new(vec![
            Span::styled(name, theme.style(line)),
            Span::styled(bytes_or_na(at), text),
            Span::styled(
                format!(" ({})", pct(at.and_then(frac).map(|x| x * 100.0))),
                dim,
            ),
        ])
    };
    let mut items = Vec::new();
    if let Some(at) = lwm {
        items.push(point(format!("{} ", words.lwm), ThemeItem::Dim, Some(at)));
    }
    items.push(point(
        format!("{async_name} "),
        ThemeItem::AsyncLine,
        r.async_point_bytes,
    ));
    if let Some((name, at)) = sync_flush {
        items.push(point(
            format!("{name} "),
            ThemeItem::SyncFlushLine,
            Some(at),
        ));
    }
    items.push(point(
        format!("{sync_name} "),
        ThemeItem::SyncLine,
        r.sync_point_bytes,
    ));
    items.push(Item::kv(
        theme,
        "redo written",
        r.written_bytes_per_s
            .filter(|b| b.is_finite() && *b >= 0.0)
            .map(|b| format!("{}/s", units::bytes(b.min(u64::MAX as f64) as u64)))
            .unwrap_or_else(|| innodebt_engine::units::NA.to_string()),
        text,
    ));
    // MySQL 8.0+: the counters report the points before the concurrency margin (as
    // `--once --format text` says).
    if let (Some(a), Some(s)) = (r.counter_async_bytes, r.counter_sync_bytes) {
        items.push(Item::new(vec![
            Span::styled("counters say async ", dim),
            Span::styled(units::bytes(a), text),
            Span::styled(" · sync ", dim),
            Span::styled(units::bytes(s), text),
        ]));
    }
    if let Some(rec) = &f.recovery {
        // 5.7 / MariaDB < 10.5.7 take it at max_checkpoint_age, past the sync line.
        let at = match r.max_checkpoint_age_bytes {
            Some(_) => "max age",
            None => sync_short.as_str(),
        };
        let worst = rec
            .worst_case_s
            .map(|w| format!(" · worst ({at}) {}", units::duration(w as u64)))
            .unwrap_or_default();
        items.push(Item::new(vec![
            Span::styled("crash now → recovery ~", dim),
            Span::styled(units::duration(rec.estimate_s as u64), sev_style),
            Span::styled(worst, text),
            Span::styled(
                format!(
                    " at {}/s ({})",
                    units::bytes(rec.rate_bytes_per_s as u64),
                    short_source(&rec.rate_source)
                ),
                dim,
            ),
        ]));
    }
    // `replay --what-if`: its summary first among the extra rows (it is why the DBA opened
    // this replay).
    let what_if = app
        .what_if()
        .and_then(|w| Some((w.redo.as_ref()?, w.summary.first()?)));
    if let Some((_, line)) = what_if {
        items.push(Item::new(vec![
            Span::styled("what if ", theme.style(ThemeItem::AsyncLine)),
            Span::styled(sanitize(line.trim_start_matches("with "), 200), text),
        ]));
    }
    if let Some(sz) = &f.sizing {
        // The span the peak is from, as the advice states it: a shrink waits for it to cover
        // the workload's cycle. Two items, so a narrow panel wraps between them.
        let span = if sz.span_s > 0.0 {
            format!(" over {}", units::span(sz.span_s))
        } else {
            " in one sample".to_string()
        };
        items.push(
            Item::new(vec![
                Span::styled("peak ", dim),
                Span::styled(units::bytes(sz.peak_checkpoint_age_bytes), text),
                Span::styled(
                    sz.peak_pct_of_async
                        .map(|p| format!(" ({p:.0}% of {async_short})"))
                        .unwrap_or_default(),
                    dim,
                ),
                Span::styled(span, dim),
            ])
            .on_own_line(),
        );
        items.push(Item::new(if sz.shrink_withheld {
            vec![Span::styled(
                format!("advice to shrink needs {}", units::span(sz.span_needed_s)),
                dim,
            )]
        } else {
            vec![
                Span::styled("advise ", dim),
                Span::styled(sanitize(&sz.setting, 80), text),
                Span::styled(
                    format!(
                        " (worst recovery {})",
                        units::duration(sz.worst_case_recovery_s_at_advised as u64)
                    ),
                    dim,
                ),
            ]
        }));
        if let Some(h) = sz.hour_of_writes_bytes {
            items.push(Item::new(vec![
                Span::styled("naive 1 h of redo writes ", dim),
                Span::styled(units::bytes(h), text),
                Span::styled(" — sizes for volume, not for the age flushing allows", dim),
            ]));
        }
    }
    let extra = flow(items, inner.width as usize);

    // The gauge and its labels.
    let w = inner.width as usize;
    let mut gauge: Vec<Line<'static>> = Vec::new();
    if cap.is_some() {
        let fill = match sev {
            Severity::Ok => theme.style(ThemeItem::GaugeFill),
            s => theme.severity(s),
        };
        let marks: Vec<GaugeMark> = [
            (lwm, ThemeItem::Dim),
            (r.async_point_bytes, ThemeItem::AsyncLine),
            (sync_flush.map(|(_, at)| at), ThemeItem::SyncFlushLine),
            (r.sync_point_bytes, ThemeItem::SyncLine),
        ]
        .into_iter()
        .filter_map(|(p, item)| {
            Some(GaugeMark {
                at: p.and_then(frac)?,
                style: theme.style(item),
            })
        })
        .collect();
        gauge.push(gauge_line(age.and_then(frac), w, fill, &marks, theme));
        let async_forms = [
            format!("{async_name} {}", bytes_or_na(r.async_point_bytes)),
            format!("{async_short} {}", bytes_or_na(r.async_point_bytes)),
            async_short.to_string(),
        ];
        let sync_flush_forms =
            sync_flush.map(|(name, at)| [format!("{name} {}", units::bytes(at)), name.to_string()]);
        let sync_forms = [
            format!("{sync_name} {}", bytes_or_na(r.sync_point_bytes)),
            format!("{sync_short} {}", bytes_or_na(r.sync_point_bytes)),
            sync_short.clone(),
        ];
        let lwm_forms = lwm.map(|at| {
            [
                format!("{} {}", words.lwm_short, units::bytes(at)),
                words.lwm_short.to_string(),
            ]
        });
        let mut labels = Vec::new();
        if let (Some(forms), Some(at)) = (&lwm_forms, lwm.and_then(frac)) {
            labels.push(MarkerLabel {
                at,
                forms,
                style: dim,
            });
        }
        if let Some(at) = r.async_point_bytes.and_then(frac) {
            labels.push(MarkerLabel {
                at,
                forms: &async_forms,
                style: theme.style(ThemeItem::AsyncLine),
            });
        }
        if let (Some((_, p)), Some(forms)) = (sync_flush, &sync_flush_forms)
            && let Some(at) = frac(p)
        {
            labels.push(MarkerLabel {
                at,
                forms,
                style: theme.style(ThemeItem::SyncFlushLine),
            });
        }
        if let Some(at) = r.sync_point_bytes.and_then(frac) {
            labels.push(MarkerLabel {
                at,
                forms: &sync_forms,
                style: theme.style(ThemeItem::SyncLine),
            });
        }
        gauge.push(marker_labels(w, &labels));
    }

    // Rows: the first figures line, the gauge, then the rest of the figures while the chart
    // keeps its minimum, then the chart. Short of a row (a two-line verdict at 80×24), the
    // labels under the gauge go first: the chart labels the same lines.
    let fits = |fixed: u16| inner.width >= CHART_MIN_COLS && inner.height >= fixed + CHART_MIN_ROWS;
    if gauge.len() == 2 && !fits(3) && fits(2) {
        gauge.truncate(1);
    }
    let fixed = 1 + gauge.len() as u16;
    let chart_ok = fits(fixed);
    let room = if chart_ok {
        inner.height - fixed - CHART_MIN_ROWS
    } else {
        inner.height.saturating_sub(fixed)
    };
    let mut rows: Vec<Line<'static>> = Vec::new();
    rows.extend(main.iter().take(1).cloned());
    rows.extend(gauge);
    rows.extend(
        main.iter()
            .skip(1)
            .chain(extra.iter())
            .take(room as usize)
            .cloned(),
    );
    let used = rows.len() as u16;
    let buf = frame.buffer_mut();
    draw_lines(buf, inner, &rows);
    if !chart_ok {
        return;
    }
    let chart_area = Rect {
        y: inner.y + used,
        height: inner.height.saturating_sub(used),
        ..inner
    };
    let mut thresholds = Vec::new();
    if let Some(l) = lwm {
        thresholds.push(Threshold {
            value: l as f64,
            style: dim,
            // Short: it sits where the age usually runs, and its label covers the trace.
            label: words.lwm_short.to_string(),
            soft: true,
        });
    }
    if let Some(a) = r.async_point_bytes {
        thresholds.push(Threshold {
            value: a as f64,
            style: theme.style(ThemeItem::AsyncLine),
            label: format!("{async_name} {}", bytes_or_na(Some(a))),
            soft: false,
        });
    }
    if let Some(s) = r.sync_point_bytes {
        thresholds.push(Threshold {
            value: s as f64,
            style: theme.style(ThemeItem::SyncLine),
            label: format!("{sync_name} {}", bytes_or_na(Some(s))),
            soft: false,
        });
    }
    // Labelled after the stall line: where the two share a row, the stall is named.
    if let Some((name, at)) = sync_flush {
        thresholds.push(Threshold {
            value: at as f64,
            style: theme.style(ThemeItem::SyncFlushLine),
            label: format!("{name} {}", units::bytes(at)),
            soft: false,
        });
    }
    // The what-if points as a second pair of lines (dim: a hypothesis, not the server).
    let mut y_max = cap.map(|c| c as f64);
    if let Some((redo, _)) = what_if {
        let w = &redo.what_if;
        for (p, name) in [
            (w.async_point_bytes, async_short.to_string()),
            (w.sync_point_bytes, sync_short.clone()),
        ] {
            if let Some(p) = p {
                thresholds.push(Threshold {
                    value: p as f64,
                    style: dim,
                    label: format!("what if: {name} {}", bytes_or_na(Some(p))),
                    soft: false,
                });
            }
        }
        y_max = match (y_max, w.capacity_bytes) {
            (Some(a), Some(b)) => Some(a.max(b as f64)),
            (a, b) => a.or(b.map(|b| b as f64)),
        };
    }
    TimeChart {
        plots: &[Plot::new(
            &view.charts.checkpoint_age,
            theme.style(ThemeItem::SeriesCheckpointAge),
        )
        .missing(why_missing(
            app,
            f,
            "checkpoint age",
            &[FigureId::CheckpointAge],
            // MySQL 8.0 before .30 reads the LSNs from these where status lacks them.
            &["log_lsn_current", "log_lsn_last_checkpoint"],
            theme,
        ))],
        thresholds: &thresholds,
        y_max,
        unit: Unit::Bytes,
    }
    .render(frame, chart_area, app, theme);
}

/// The flavour the figures came from (its names for the points, its flushing rules); with no
/// connection seen, from the version the figures carry.
fn flavor_of(app: &App, f: &Figures) -> Flavor {
    app.view()
        .info()
        .map(|i| i.flavor)
        .unwrap_or_else(|| Flavor::of_server(&f.server.flavor, &f.server.version))
}

/// The rate source in a word or two, for the panel's one line (the text and JSON outputs
/// carry it whole): "default", "calibrated 2026-11-20" (the day of the server's recovery it
/// comes from), "--recovery-rate".
fn short_source(source: &str) -> String {
    let s = sanitize(source, 120);
    if let Some(rest) = s.strip_prefix("calibrated from this server's recovery of ") {
        return format!("calibrated {}", rest.get(..10).unwrap_or(rest));
    }
    let cut = [" (", ": ", ", ", "; "]
        .iter()
        .filter_map(|sep| s.find(sep))
        .min();
    let head = cut.map_or(s.as_str(), |i| &s[..i]);
    match head.strip_prefix("default rate") {
        Some(_) => "default".to_string(),
        None => head.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::short_source;

    #[test]
    fn the_panel_names_the_rate_source_in_a_word() {
        assert_eq!(
            short_source(
                "calibrated from this server's recovery of 2026-11-20: 782.2 MB in 21 s → 39.1 MB/s"
            ),
            "calibrated 2026-11-20"
        );
        assert_eq!(
            short_source(
                "default rate for MariaDB 10.11: 80.0 MB/s (this project's measured MariaDB 10.11 \
                 recoveries); not calibrated: the server runs on db1, not here"
            ),
            "default"
        );
        assert_eq!(short_source("--recovery-rate"), "--recovery-rate");
    }
}
