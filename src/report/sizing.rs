//! "What to change": the redo sizing advice as the dashboard gave it at the window's end, and
//! the what-if runs behind the changes the page advises (the advised redo size; with the
//! purge-lag trap, `innodb_max_purge_lag = 0`), the recording's outcome beside the what-if's,
//! with the model's limits.

use super::Report;
use super::doc::{Block, Inline, code, dim, t};
use innodebt_engine::units::bytes;
use innodebt_engine::verdicts::whatif::{PurgeOutcome, RedoOutcome, WhatIfReport};

/// Seconds as the engine's own summaries say them (rounded, not cut).
fn secs(v: f64) -> String {
    innodebt_engine::units::secs(v.round())
}

pub fn section(r: &Report) -> Vec<Block> {
    let clock = r.clock();
    let mut out = vec![Block::Heading {
        id: "change",
        text: "What to change".into(),
    }];
    match &r.last.sizing {
        Some(s) => {
            out.push(Block::Subheading("Redo log size".into()));
            out.push(Block::Para(vec![t(s.advice.clone())]));
            let mut facts: Vec<(String, Vec<Inline>)> = vec![
                (
                    "peak checkpoint age".into(),
                    vec![t(format!(
                        "{} at {}{}",
                        bytes(s.peak_checkpoint_age_bytes),
                        clock.at(s.peak_at),
                        s.peak_pct_of_async
                            .map(|p| format!(" ({p:.0} % of the async point)"))
                            .unwrap_or_default()
                    ))],
                ),
                (
                    "redo capacity now".into(),
                    vec![t(s.current_capacity_bytes.map_or("unknown".into(), bytes))],
                ),
                ("advised".into(), vec![code(s.setting.clone())]),
                (
                    "worst-case recovery".into(),
                    vec![t(format!(
                        "{} now, {} at the advised size",
                        s.worst_case_recovery_s_now.map_or("unknown".into(), secs),
                        secs(s.worst_case_recovery_s_at_advised)
                    ))],
                ),
            ];
            if s.peak_at < r.from {
                facts.push((
                    "note".into(),
                    vec![dim(
                        "the peak is the recording's since it began, before this window",
                    )],
                ));
            }
            out.push(Block::Facts(facts));
            out.push(Block::Para(vec![dim(s.note.clone())]));
        }
        None => out.push(Block::Para(vec![t(
            "No redo sizing advice: no checkpoint age above zero was read.",
        )])),
    }
    for w in &r.what_ifs {
        out.extend(what_if(r, w));
    }
    out
}

fn what_if(r: &Report, w: &WhatIfReport) -> Vec<Block> {
    let mut out = vec![Block::Subheading(format!(
        "What if {}: the window replayed under it",
        w.scenario.label
    ))];
    out.push(Block::List(
        w.summary.iter().map(|s| vec![t(s.clone())]).collect(),
    ));
    if let Some(redo) = &w.redo {
        out.push(Block::Table {
            head: vec!["".into(), "recorded".into(), w.scenario.label.clone()],
            rows: redo_rows(r, &w.sync_point_name, &redo.recorded, &redo.what_if),
        });
    }
    if let Some(p) = &w.purge {
        out.push(Block::Table {
            head: vec!["".into(), "recorded".into(), w.scenario.label.clone()],
            rows: purge_rows(r, &p.recorded, &p.what_if),
        });
    }
    out.push(Block::Para(vec![dim(format!(
        "Recovery rate: {}. Limits of the model: {}.",
        w.recovery_rate_source,
        w.limits.join("; ")
    ))]));
    out
}

type Rows = Vec<Vec<Vec<Inline>>>;

fn row(name: &str, a: String, b: String) -> Vec<Vec<Inline>> {
    vec![vec![t(name)], vec![t(a)], vec![t(b)]]
}

fn redo_rows(r: &Report, sync: &str, a: &RedoOutcome, b: &RedoOutcome) -> Rows {
    let clock = r.clock();
    let by = |o: &RedoOutcome| o.capacity_bytes.map_or("unknown".into(), bytes);
    let pt = |v: Option<u64>| v.map_or("unknown".into(), bytes);
    let pct = |o: &RedoOutcome| {
        o.peak_pct_of_async
            .map_or("unknown".into(), |p| format!("{p:.0} %"))
    };
    let first = |o: &RedoOutcome| {
        o.first_async_crossing_at
            .map_or("never".into(), |t| clock.at(t))
    };
    let s = |v: Option<f64>| v.map_or("unknown".into(), secs);
    vec![
        row("redo capacity", by(a), by(b)),
        row(
            "async point",
            pt(a.async_point_bytes),
            pt(b.async_point_bytes),
        ),
        row(
            &format!("{sync} point"),
            pt(a.sync_point_bytes),
            pt(b.sync_point_bytes),
        ),
        row("peak checkpoint age, of the async point", pct(a), pct(b)),
        row(
            "time past the async point",
            secs(a.seconds_past_async),
            secs(b.seconds_past_async),
        ),
        row(
            "async crossings",
            a.async_crossings.to_string(),
            b.async_crossings.to_string(),
        ),
        row("first async crossing", first(a), first(b)),
        row(
            &format!("time past {sync}"),
            secs(a.seconds_past_sync),
            secs(b.seconds_past_sync),
        ),
        row(
            "recovery after a crash at the worst moment",
            s(a.recovery_at_worst_moment_s),
            s(b.recovery_at_worst_moment_s),
        ),
        row(
            "worst-case recovery",
            s(a.worst_case_recovery_s),
            s(b.worst_case_recovery_s),
        ),
    ]
}

fn purge_rows(r: &Report, a: &PurgeOutcome, b: &PurgeOutcome) -> Rows {
    let clock = r.clock();
    let n = |v: Option<u64>| v.map_or("unknown".into(), |v| v.to_string());
    let us = |v: Option<u64>| v.map_or("unknown".into(), |v| format!("{v} µs"));
    let first = |o: &PurgeOutcome| o.first_delay_at.map_or("never".into(), |t| clock.at(t));
    vec![
        row(
            "innodb_max_purge_lag (as last seen)",
            n(a.max_purge_lag),
            n(b.max_purge_lag),
        ),
        row(
            "innodb_max_purge_lag_delay (as last seen)",
            us(a.max_purge_lag_delay_us),
            us(b.max_purge_lag_delay_us),
        ),
        row(
            "time writes were delayed",
            secs(a.seconds_delayed),
            secs(b.seconds_delayed),
        ),
        row(
            "delay armed but not applied (purge blocked)",
            secs(a.seconds_armed_not_applied),
            secs(b.seconds_armed_not_applied),
        ),
        row(
            "peak delay per row",
            format!("{} µs", a.peak_delay_us),
            format!("{} µs", b.peak_delay_us),
        ),
        row("first delay", first(a), first(b)),
        row(
            "writes waited in all (at least)",
            format!("{:.1} s", a.writes_waited_s),
            format!("{:.1} s", b.writes_waited_s),
        ),
    ]
}
