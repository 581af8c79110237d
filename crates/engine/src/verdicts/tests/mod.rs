//! Unit tests of the verdict rules with hand-built `Figures` sequences at 1 Hz.

use chrono::{TimeZone, Utc};

mod flush;
mod purge;
mod sizing;
mod truth;

use super::*;
use crate::figures::{Blocker, Dirty, Flush, History, Purge, Redo, ServerFigures, Undo};
use innodebt_server::flavor::{Flavor, mariadb_points, mysql_8030_points};

const MIB: u64 = 1024 * 1024;

fn mysql() -> Flavor {
    Flavor::detect("8.0.36", "MySQL Community Server - GPL", true)
}

fn mariadb() -> Flavor {
    Flavor::detect("10.11.19-MariaDB-0+deb12u1", "Debian 12", false)
}

fn at(t: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
        .single()
        .expect("valid time")
        + chrono::TimeDelta::seconds(t)
}

/// A quiet server at second `t`: history 100, checkpoint age 10 MiB of a 100 MiB redo, purge
/// caught up (SEIS: 2 transaction numbers behind) — so healthy from the first sample.
fn fig(t: i64) -> Figures {
    let p = mysql_8030_points(100 * MIB);
    Figures {
        server: ServerFigures {
            flavor: "mysql".into(),
            version: "8.0.36".into(),
            uptime_s: Some(1000 + t as u64),
            label: "test".into(),
        },
        sampled_at: at(t),
        interval_s: Some(1.0),
        redo: Redo {
            checkpoint_age_bytes: Some(10 * MIB),
            capacity_bytes: Some(p.capacity),
            async_point_bytes: Some(p.async_point),
            sync_point_bytes: Some(p.sync_point),
            sync_point_name: "sync".into(),
            written_bytes_per_s: Some(1_000_000.0),
            ..Redo::default()
        },
        flush: Flush {
            io_capacity_max: Some(2000),
            ..Flush::default()
        },
        history: History {
            length: Some(100),
            growth_per_s: Some(0.0),
            seconds_to_max_purge_lag: None,
            held_back: None,
            held_by: None,
        },
        purge: Purge {
            records_per_s: Some(500.0),
            inflow_records_per_s: Some(500.0),
            dml_delay_us: Some(0),
            max_purge_lag: Some(0),
            threads: Some(4),
            batch_size: Some(300),
            lag_trx_numbers: Some(2),
            ..Purge::default()
        },
        blocker: None,
        dirty: Dirty {
            pages: Some(1000),
            pct: Some(10.0),
            max_pct: Some(90.0),
            ..Dirty::default()
        },
        undo: Undo::default(),
        rollback: Default::default(),
        verdicts: Vec::new(),
        recovery: None,
        sizing: None,
        metrics_off: Vec::new(),
        unavailable: Vec::new(),
        suspect: Vec::new(),
        warnings: Vec::new(),
        self_cost: None,
    }
}

fn blocker(age_s: u64) -> Blocker {
    Blocker {
        trx_id: "421".into(),
        thread_id: Some(42),
        user: Some("app".into()),
        host: Some("10.0.0.5:5512".into()),
        age_s,
        state: "RUNNING".into(),
        query: Some("SELECT * FROM orders\n WHERE id > 10".into()),
        isolation: Some("REPEATABLE READ".into()),
        command: Some("Query".into()),
    }
}

/// A read view opened at t = 3 (seen from t = 5, when it is 2 s old) and committed at t = 20;
/// history +1,500/s from t = 3 until the commit, then back to 100 at once.
fn blocked_run(t: i64) -> Figures {
    let mut f = fig(t);
    if (3..20).contains(&t) {
        f.history.length = Some(100 + 1_500 * (t as u64 - 3));
        f.history.growth_per_s = Some(1_500.0);
        f.purge.records_per_s = Some(0.0);
    }
    if (5..20).contains(&t) {
        f.blocker = Some(blocker(t as u64 - 3));
    }
    f
}

fn run(
    engine: &mut VerdictEngine,
    flavor: Flavor,
    figs: impl Fn(i64) -> Figures,
    ts: std::ops::Range<i64>,
) -> Vec<Assessment> {
    ts.map(|t| engine.observe(t as f64, &figs(t), flavor))
        .collect()
}

fn kinds(a: &Assessment) -> Vec<VerdictKind> {
    a.verdicts.iter().map(|v| v.kind).collect()
}

#[test]
fn quiet_server_is_healthy_from_the_first_sample() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), fig, 0..5);
    for a in &out {
        assert_eq!(kinds(a), vec![VerdictKind::Healthy]);
        assert_eq!(a.severity(), Severity::Ok);
        assert_eq!(a.verdicts[0].since, at(0));
    }
}

#[test]
fn one_sample_blip_never_shows() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            if t == 3 {
                f.redo.checkpoint_age_bytes = f.redo.sync_point_bytes;
            }
            f
        },
        0..10,
    );
    assert!(out.iter().all(|a| kinds(a) == vec![VerdictKind::Healthy]));
    // The blip does not restart `since` of healthy either (nothing entered).
    assert_eq!(out[9].verdicts[0].since, at(0));
}

#[test]
fn entry_needs_two_samples_spanning_the_minimum_time() {
    // Polled every 0.25 s: two samples are not enough, the streak must span 0.9 s.
    let mut e = VerdictEngine::default();
    let mut shown_at = None;
    for i in 0..10 {
        let t = i as f64 * 0.25;
        let mut f = fig(0);
        f.sampled_at = at(0) + chrono::TimeDelta::milliseconds(250 * i);
        f.redo.checkpoint_age_bytes = f.redo.async_point_bytes;
        let a = e.observe(t, &f, mysql());
        if shown_at.is_none() && a.get(VerdictKind::FlushPressure).is_some() {
            shown_at = Some(t);
        }
    }
    assert_eq!(shown_at, Some(1.0));
}

#[test]
fn several_verdicts_most_severe_first() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = blocked_run(t);
            f.redo.checkpoint_age_bytes = f.redo.sync_point_bytes;
            f
        },
        0..10,
    );
    assert_eq!(
        kinds(&out[9]),
        vec![VerdictKind::FlushPressure, VerdictKind::BlockedByReadView]
    );
    assert_eq!(out[9].severity(), Severity::Critical);
}

#[test]
fn replay_times_each_sample_by_its_sampled_at_and_time_going_back_restarts() {
    // Samples 0.5 to 4 s apart (a slow server, a stalled poller): a replay takes each one's
    // time from its `sampled_at`, measured from the first — not from its place in the list.
    let gaps_ms = [500, 1_000, 4_000, 1_500, 2_000];
    let mut offset_ms = 0;
    let timed: Vec<(f64, Figures)> = (0..30)
        .map(|i| {
            let mut f = blocked_run(i);
            f.sampled_at = at(0) + chrono::TimeDelta::milliseconds(offset_ms);
            let t = offset_ms as f64 / 1000.0;
            offset_ms += gaps_ms[i as usize % gaps_ms.len()];
            (t, f)
        })
        .collect();
    let figs: Vec<Figures> = timed.iter().map(|(_, f)| f.clone()).collect();
    let mut a = VerdictEngine::default();
    let replayed = a.replay(&figs, mysql());
    // The same samples observed live at their true times (seconds since the first).
    let mut b = VerdictEngine::default();
    let observed: Vec<Assessment> = timed
        .iter()
        .map(|(t, f)| b.observe(*t, f, mysql()))
        .collect();
    assert_eq!(replayed, observed);
    // Timed by their place in the list instead, the same samples judge otherwise: the
    // equality above is about the times.
    let mut c = VerdictEngine::default();
    let by_index: Vec<Assessment> = figs
        .iter()
        .enumerate()
        .map(|(i, f)| c.observe(i as f64, f, mysql()))
        .collect();
    assert_ne!(replayed, by_index);
    // A seek back to the start forgets the blocker's history.
    let again = b.observe(0.0, &figs[0], mysql());
    assert_eq!(kinds(&again), vec![VerdictKind::Healthy]);
    assert_eq!(again.verdicts[0].since, at(0));
}

#[test]
fn serialised_names_are_the_contract() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), blocked_run, 0..8);
    let json = serde_json::to_value(&out[7]).unwrap_or_default();
    assert_eq!(json["verdicts"][0]["kind"], "blocked_by_read_view");
    assert_eq!(json["verdicts"][0]["severity"], "warning");
    assert_eq!(json["verdicts"][0]["since"], "2026-01-02T03:04:10Z");
    assert_eq!(json["verdicts"][0]["thread_id"], 42);
    let healthy = serde_json::to_value(&out[0]).unwrap_or_default();
    assert_eq!(healthy["verdicts"][0]["kind"], "healthy");
    assert_eq!(healthy["verdicts"][0]["severity"], "ok");
    assert!(healthy["verdicts"][0].get("thread_id").is_none());
}

// ---------------------------------------------------------------------------
// Recovery estimate and sizing, through the engine
// ---------------------------------------------------------------------------

#[test]
fn assessment_carries_the_recovery_estimate() {
    let mut e = VerdictEngine::default();
    let a = e.observe(0.0, &fig(0), mysql());
    let r = a.recovery.expect("estimate");
    assert_eq!(r.redo_to_apply_bytes, 10 * MIB);
    // 10 MiB at 10.5 GB / 1200 s (the engine's model before a server picks its own).
    assert!((r.estimate_s - 10.0 * MIB as f64 * 1200.0 / 10.5e9).abs() < 1e-9);
    let sync = mysql_8030_points(100 * MIB).sync_point;
    assert!((r.worst_case_s.unwrap_or(0.0) - sync as f64 * 1200.0 / 10.5e9).abs() < 1e-9);
    assert_eq!(
        r.rate_source,
        crate::verdicts::recovery::DEFAULT_RATE_SOURCE
    );
}

/// What `serve` holds per target once a run is long: four hours at its 5 s interval keep two
/// hours of history (1,441 points), the trend window's purge and inflow rates, and the write
/// rate's hour as at most 61 minute sums — no point of it.
#[test]
fn a_long_run_at_five_seconds_keeps_two_hours_of_history_and_minute_sums() {
    let mut e = VerdictEngine::default();
    for t in (0..4 * 3_600).step_by(5) {
        let mut f = fig(t);
        f.redo.written_bytes_per_s = Some(1e6);
        e.observe(t as f64, &f, mysql());
    }
    assert_eq!(e.state().series_len(), [1_441, 9, 9, 0]);
    let state = serde_json::to_value(e.state()).unwrap_or_default();
    let minutes = state["written"]["kept"].as_array().map(Vec::len);
    assert_eq!(minutes, Some(61));
}

/// Purge and inflow rates are only averaged over the trend window, so only that much is kept;
/// the redo write rate keeps its hour as minute sums, no points. A restored engine (a replay
/// checkpoint: the state and the newest points each series holds) goes on to the same
/// assessments, its sizing's hour of writes included.
#[test]
fn purge_and_inflow_rates_keep_the_trend_window_and_restore_alike() {
    let mut live = VerdictEngine::default();
    let window = live.config().thresholds.trend_window_s;
    let varying = |t: i64| {
        let mut f = fig(t);
        f.purge.records_per_s = Some(400.0 + (t % 7) as f64 * 30.0);
        f.purge.inflow_records_per_s = Some(450.0 + (t % 5) as f64 * 40.0);
        f.redo.written_bytes_per_s = Some(1e6 + (t % 11) as f64 * 1e4);
        f
    };
    run(&mut live, mysql(), varying, 0..4_000);
    let [history, purge, inflow, written] = live.state().series_len();
    assert_eq!((history, written), (4_000, 0));
    let kept = 2 * window as usize + 1;
    assert_eq!((purge, inflow), (kept, kept), "window {window} s at 1 Hz");

    let points = live.series_points();
    let mut restored = VerdictEngine::restore(live.state(), RecoveryModel::default(), points)
        .expect("the engine's own state restores");
    let ahead = |e: &mut VerdictEngine| run(e, mysql(), varying, 4_000..4_100);
    let (restored, live) = (ahead(&mut restored), ahead(&mut live));
    let hours = live
        .iter()
        .filter_map(|a| a.sizing.as_ref()?.hour_of_writes_bytes);
    assert_eq!(
        hours.count(),
        live.len(),
        "every sizing reads the hour of writes"
    );
    assert_eq!(restored, live);
}
