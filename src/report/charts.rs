//! "Charts": the figures over the window, each chart the dashboard panel's figures — the
//! checkpoint age against the adaptive lwm, async and stall points; the history list length
//! (with `innodb_max_purge_lag`); purge against inflow; flushing by source against
//! `innodb_io_capacity(_max)`; dirty pages against their maximum; and the crash-recovery
//! estimate — with the stretches a warning or critical verdict held shaded behind them.

use super::Report;
use super::chart::{Line, Style, TimeChart, Unit};
use super::doc::{Block, Chart};
use super::series::{BUCKETS, SeriesId};
use innodebt_engine::figures::FlushSource;

fn line(r: &Report, id: SeriesId, label: &str, style: Style, unit: Unit, missing: &str) -> Line {
    let track = r.tracks.get(id);
    let legend = match (style, track.peak()) {
        (Style::Threshold(_), Some(_)) => String::new(),
        (_, Some((_, v))) => format!("peak {}", unit.value(v)),
        (_, None) => format!(
            "n/a{}",
            if missing.is_empty() {
                String::new()
            } else {
                format!(": {missing}")
            }
        ),
    };
    Line {
        label: label.to_string(),
        points: track.points(),
        style,
        legend,
        peak: false,
    }
}

/// Thresholds are drawn only where they are known.
fn known(lines: Vec<Line>) -> Vec<Line> {
    lines
        .into_iter()
        .filter(|l| !(matches!(l.style, Style::Threshold(_)) && l.points.is_empty()))
        .collect()
}

fn chart(
    r: &Report,
    name: &'static str,
    title: &str,
    unit: Unit,
    lines: Vec<Line>,
    caption: &str,
) -> Block {
    let axis = r.axis();
    let bucket_s = axis.span_s / BUCKETS as f64;
    let gap = r.interval_s.map_or(5.0, |i| (i * 3.0).max(5.0));
    let c = TimeChart {
        title: title.to_string(),
        unit,
        axis,
        lines: known(lines),
        shade: r
            .incident_spans()
            .into_iter()
            .map(|(a, b, s)| (axis.at(a), axis.at(b), s))
            .collect(),
        break_s: gap.max(bucket_s * 2.5),
        empty: "no data in this window".into(),
    };
    Block::Chart(Chart {
        name,
        title: title.to_string(),
        svg: super::chart::render(&c),
        caption: caption.to_string(),
    })
}

/// Why a flush source has no rate: its counter was off, or the capture holds no reading of
/// it (the flavour counts none, or the source of the capture did not collect it).
fn source_missing(r: &Report, s: FlushSource) -> &'static str {
    if r.last.flush.sources_off.contains(&s) {
        "INNODB_METRICS counter off on the server"
    } else {
        "not in the capture"
    }
}

pub fn section(r: &Report) -> Vec<Block> {
    let sync_name = match r.last.redo.sync_point_name.as_str() {
        "" => "sync".to_string(),
        n => n.to_string(),
    };
    let shaded = "Shaded: a warning (amber) or critical (red) verdict held.";
    let mut age = line(
        r,
        SeriesId::CheckpointAge,
        "checkpoint age",
        Style::Data(0),
        Unit::Bytes,
        "",
    );
    age.peak = true;
    let checkpoint = chart(
        r,
        "checkpoint-age",
        "Checkpoint age",
        Unit::Bytes,
        vec![
            age,
            line(
                r,
                SeriesId::AdaptiveLwm,
                "lwm",
                Style::Threshold(0),
                Unit::Bytes,
                "",
            ),
            line(
                r,
                SeriesId::AsyncPoint,
                "async",
                Style::Threshold(1),
                Unit::Bytes,
                "",
            ),
            line(
                r,
                SeriesId::SyncPoint,
                &sync_name,
                Style::Threshold(2),
                Unit::Bytes,
                "",
            ),
        ],
        &format!(
            "Redo written since the last checkpoint, against where the page cleaner acts: \
             adaptive flushing from the lwm, flushing hard past the async point, and writes \
             waiting at {sync_name}. {shaded}"
        ),
    );
    let mut hist = line(
        r,
        SeriesId::HistoryLength,
        "history length",
        Style::Data(0),
        Unit::Count,
        "",
    );
    hist.peak = true;
    let history = chart(
        r,
        "history-length",
        "History list length",
        Unit::Count,
        vec![
            hist,
            line(
                r,
                SeriesId::MaxPurgeLag,
                "innodb_max_purge_lag",
                Style::Threshold(1),
                Unit::Count,
                "",
            ),
        ],
        &format!(
            "Undo logs waiting for purge (with innodb_max_purge_lag where it is set). {shaded}"
        ),
    );
    let purge = chart(
        r,
        "purge",
        "Purge against inflow",
        Unit::Rate,
        vec![
            line(
                r,
                SeriesId::Purged,
                "purged",
                Style::Data(2),
                Unit::Rate,
                "",
            ),
            line(
                r,
                SeriesId::Inflow,
                "inflow (rows updated + deleted)",
                Style::Data(1),
                Unit::Rate,
                "",
            ),
        ],
        &format!(
            "Undo records purged per second against the rows updated and deleted per second \
             that purge will have to process: history grows while inflow stays above purge. {shaded}"
        ),
    );
    let source =
        |id, s: FlushSource, style| line(r, id, s.label(), style, Unit::Rate, source_missing(r, s));
    let flush = chart(
        r,
        "flushing",
        "Flushing by source (pages/s)",
        Unit::Rate,
        vec![
            line(
                r,
                SeriesId::FlushTotal,
                "total",
                Style::Data(5),
                Unit::Rate,
                "",
            ),
            source(
                SeriesId::FlushAdaptive,
                FlushSource::Adaptive,
                Style::Data(0),
            ),
            source(SeriesId::FlushLru, FlushSource::Lru, Style::Data(2)),
            source(SeriesId::FlushSync, FlushSource::Sync, Style::Data(1)),
            source(
                SeriesId::FlushBackground,
                FlushSource::Background,
                Style::Data(3),
            ),
            line(
                r,
                SeriesId::FlushNeighbor,
                "of which neighbors",
                Style::Part(4),
                Unit::Rate,
                source_missing(r, FlushSource::Neighbor),
            ),
            line(
                r,
                SeriesId::IoCapacity,
                "io_capacity",
                Style::Threshold(0),
                Unit::Rate,
                "",
            ),
            line(
                r,
                SeriesId::IoCapacityMax,
                "io_capacity_max",
                Style::Threshold(1),
                Unit::Rate,
                "",
            ),
        ],
        &format!(
            "Pages flushed per second by the page cleaner's sources, against \
             innodb_io_capacity and innodb_io_capacity_max; sync flushing means writes waited \
             for it. {shaded}"
        ),
    );
    let mut dirty_line = line(
        r,
        SeriesId::DirtyPct,
        "dirty",
        Style::Data(0),
        Unit::Percent,
        "",
    );
    dirty_line.peak = true;
    let dirty = chart(
        r,
        "dirty-pages",
        "Dirty pages (% of data + free)",
        Unit::Percent,
        vec![
            dirty_line,
            line(
                r,
                SeriesId::DirtyLwmPct,
                "lwm",
                Style::Threshold(0),
                Unit::Percent,
                "",
            ),
            line(
                r,
                SeriesId::DirtyMaxPct,
                "max",
                Style::Threshold(2),
                Unit::Percent,
                "",
            ),
        ],
        &format!(
            "Dirty pages as InnoDB counts them (dirty ÷ (data + free)), against \
             innodb_max_dirty_pages_pct and its low-water mark. {shaded}"
        ),
    );
    let rate = r
        .last
        .recovery
        .as_ref()
        .map(|x| format!(" Rate: {}.", x.rate_source))
        .unwrap_or_default();
    let mut est = line(
        r,
        SeriesId::Recovery,
        "recovery if it crashed then",
        Style::Data(0),
        Unit::Seconds,
        "",
    );
    est.peak = true;
    let recovery = chart(
        r,
        "recovery",
        "Crash recovery estimate",
        Unit::Seconds,
        vec![
            est,
            line(
                r,
                SeriesId::RecoveryWorst,
                &format!("worst case, at {sync_name}"),
                Style::Threshold(2),
                Unit::Seconds,
                "",
            ),
        ],
        &format!(
            "How long crash recovery would have taken had the server crashed at that moment, \
             and the worst case (checkpoint age at {sync_name}).{rate} {shaded}"
        ),
    );
    vec![
        Block::Heading {
            id: "charts",
            text: "Charts".into(),
        },
        checkpoint,
        history,
        purge,
        flush,
        dirty,
        recovery,
    ]
}
