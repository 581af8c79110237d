//! Unit tests of the verdict rules with hand-built `Figures` sequences at 1 Hz.

use chrono::{TimeZone, Utc};

use super::*;
use crate::metrics::{Blocker, Dirty, Flush, History, Purge, Redo, ServerFigures, Undo};
use crate::source::flavor::{Flavor, mariadb_points, mysql_8030_points};

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

/// A quiet server at second `t`: history 100, checkpoint age 10 MiB of a 100 MiB redo.
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
        },
        purge: Purge {
            records_per_s: Some(500.0),
            inflow_records_per_s: Some(500.0),
            dml_delay_us: Some(0),
            max_purge_lag: Some(0),
            threads: Some(4),
            batch_size: Some(300),
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
        verdicts: Vec::new(),
        recovery: None,
        sizing: None,
        metrics_off: Vec::new(),
        unavailable: Vec::new(),
        warnings: Vec::new(),
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
fn blocked_by_read_view_enters_on_the_second_sample_and_names_the_session() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), blocked_run, 0..20);
    // t = 5: first sample with the blocker (held back 3,000 ≥ 1,000) — not shown yet.
    assert!(out[5].get(VerdictKind::BlockedByReadView).is_none());
    // t = 6: second consecutive sample, 1 s apart → shown, since the first one.
    let v = out[6]
        .get(VerdictKind::BlockedByReadView)
        .expect("blocked at t = 6");
    assert_eq!(v.since, at(5));
    assert_eq!(v.severity, Severity::Warning);
    assert_eq!(v.thread_id, Some(42));
    for needle in [
        "thread 42",
        "app@10.0.0.5:5512",
        "3s",
        "SELECT * FROM orders WHERE id > 10",
        "K",
    ] {
        assert!(
            v.message.contains(needle),
            "{needle:?} missing: {}",
            v.message
        );
    }
    // Held back = HLL now − HLL when the view started (t − age = 3): 1,500 × 3 at t = 6.
    assert_eq!(out[6].purge.held_back, Some(4_500));
    assert!(!out[6].purge.held_back_is_lower_bound);
    // It grows with the view; `since` stays.
    let later = out[19]
        .get(VerdictKind::BlockedByReadView)
        .expect("still blocked");
    assert_eq!(later.since, at(5));
    assert_eq!(out[19].purge.held_back, Some(1_500 * 16));
    assert!(later.message.contains("24.0k"), "{}", later.message);
    assert!(out[19].get(VerdictKind::Healthy).is_none());
}

#[test]
fn blocked_verdict_leaves_five_seconds_after_the_commit() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), blocked_run, 0..30);
    // Committed at t = 20: the condition is false from t = 20; the verdict stays through 24.
    for (t, a) in out.iter().enumerate().take(25).skip(20) {
        let v = a.get(VerdictKind::BlockedByReadView);
        assert!(v.is_some(), "left too early at t = {t}");
        assert!(v.is_some_and(|v| v.message.contains("thread 42")));
    }
    assert_eq!(kinds(&out[25]), vec![VerdictKind::Healthy]);
    assert_eq!(out[25].verdicts[0].since, at(25));
}

#[test]
fn a_blocker_that_holds_back_nothing_is_not_a_verdict() {
    // An idle REPEATABLE READ transaction on an idle server: history flat.
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            f.blocker = Some(blocker(100 + t as u64));
            f
        },
        0..40,
    );
    assert!(
        out.iter()
            .all(|a| a.get(VerdictKind::BlockedByReadView).is_none())
    );
    // The view began before the series did: held back is a lower bound (here 0).
    assert_eq!(out[39].purge.held_back, Some(0));
    assert!(out[39].purge.held_back_is_lower_bound);
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
fn purge_lag_trap_on_mysql_is_critical_and_says_set_it_to_zero() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = blocked_run(t);
            f.purge.max_purge_lag = Some(1_000);
            f.purge.max_purge_lag_delay_us = Some(2_000);
            f.purge.dml_delay_us = f
                .history
                .length
                .map(|h| mysql().dml_delay_us(h, 1_000, 2_000));
            f
        },
        0..12,
    );
    let v = out[11].get(VerdictKind::PurgeLagTrap).expect("trap");
    assert_eq!(v.severity, Severity::Critical);
    assert_eq!(v.since, at(5));
    assert!(
        v.message.contains("lets purge progress not at all"),
        "{}",
        v.message
    );
    assert!(
        v.message
            .contains("set innodb_max_purge_lag back to 0 (key l)"),
        "{}",
        v.message
    );
    assert!(v.message.contains("2000 µs"), "{}", v.message);
    // Critical trap first, then the (warning) blocker.
    assert_eq!(
        kinds(&out[11]),
        vec![VerdictKind::PurgeLagTrap, VerdictKind::BlockedByReadView]
    );
}

#[test]
fn purge_lag_trap_on_mariadb_says_armed_with_lower_severity() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mariadb(),
        |t| {
            let mut f = blocked_run(t);
            f.purge.max_purge_lag = Some(1_000);
            f.purge.dml_delay_us = Some(2_000);
            f
        },
        0..12,
    );
    let v = out[11].get(VerdictKind::PurgeLagTrap).expect("trap");
    assert_eq!(v.severity, Severity::Warning);
    assert!(v.message.contains("armed"), "{}", v.message);
    assert!(v.message.contains("as soon as it commits"), "{}", v.message);
    assert!(v.message.contains("thread 42"), "{}", v.message);
    assert!(!v.message.contains("not at all"), "{}", v.message);
}

#[test]
fn no_trap_without_the_setting_or_without_a_blocker() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), blocked_run, 0..12);
    assert!(out[11].get(VerdictKind::PurgeLagTrap).is_none());
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            f.history.length = Some(50_000);
            f.purge.max_purge_lag = Some(1_000);
            f.purge.dml_delay_us = Some(2_000);
            f
        },
        0..12,
    );
    assert!(out[11].get(VerdictKind::PurgeLagTrap).is_none());
}

/// No blocker; history +50/s from t = 0; purge 100 records/s vs 500 written.
fn slow_purge(t: i64) -> Figures {
    let mut f = fig(t);
    f.history.length = Some(10_000 + 50 * t as u64);
    f.history.growth_per_s = Some(50.0);
    f.purge.records_per_s = Some(100.0);
    f.purge.inflow_records_per_s = Some(500.0);
    f.undo.reads_per_s = Some(5.0);
    f
}

#[test]
fn purge_too_slow_needs_a_smoothed_trend_then_enters() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), slow_purge, 0..30);
    // The trend needs ≥ 10 s of points: condition from t = 10, shown from t = 11.
    assert!(out[10].get(VerdictKind::PurgeTooSlow).is_none());
    let v = out[11]
        .get(VerdictKind::PurgeTooSlow)
        .expect("too slow at t = 11");
    assert_eq!(v.since, at(10));
    assert_eq!(v.severity, Severity::Warning);
    for needle in [
        "+50/s",
        "100/s",
        "500/s",
        "read from disk",
        "innodb_purge_threads (now 4)",
        "innodb_purge_batch_size (now 300)",
        "dump/load",
    ] {
        assert!(
            v.message.contains(needle),
            "{needle:?} missing: {}",
            v.message
        );
    }
    let g = out[29].purge.history_growth_per_s.unwrap_or(0.0);
    assert!((g - 50.0).abs() < 1e-6, "{g}");
}

#[test]
fn purge_keeping_up_or_a_single_burst_is_not_too_slow() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = slow_purge(t);
            f.purge.records_per_s = Some(600.0);
            f
        },
        0..30,
    );
    assert!(
        out.iter()
            .all(|a| a.get(VerdictKind::PurgeTooSlow).is_none())
    );
    // One burst: +5,000 at t = 12, flat otherwise — a steep fit but not steady growth.
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            f.history.length = Some(if t >= 12 { 5_100 } else { 100 });
            f.purge.records_per_s = Some(0.0);
            f
        },
        0..30,
    );
    assert!(
        out.iter()
            .all(|a| a.get(VerdictKind::PurgeTooSlow).is_none())
    );
}

#[test]
fn flush_pressure_warning_at_async_critical_at_sync() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            let (a, s) = (f.redo.async_point_bytes, f.redo.sync_point_bytes);
            f.redo.checkpoint_age_bytes = if t < 10 { a } else { s };
            f
        },
        0..15,
    );
    let w = out[5].get(VerdictKind::FlushPressure).expect("warning");
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!(w.since, at(0));
    assert!(
        w.message.contains("adaptive flushing working hard"),
        "{}",
        w.message
    );
    let c = out[11].get(VerdictKind::FlushPressure).expect("critical");
    assert_eq!(c.severity, Severity::Critical);
    assert_eq!(c.since, at(0), "a severity change keeps since");
    assert!(
        c.message.contains("sync flushing: writes stall"),
        "{}",
        c.message
    );
}

#[test]
fn flush_pressure_on_mariadb_names_m() {
    let mut e = VerdictEngine::default();
    let p = mariadb_points(64 * MIB, 16_384, (10, 11));
    let out = run(
        &mut e,
        mariadb(),
        |t| {
            let mut f = fig(t);
            f.redo.capacity_bytes = Some(p.capacity);
            f.redo.async_point_bytes = Some(p.async_point);
            f.redo.sync_point_bytes = Some(p.sync_point);
            f.redo.sync_point_name = "furious flush (M)".into();
            f.redo.checkpoint_age_bytes = Some(p.sync_point + 1);
            f
        },
        0..3,
    );
    let v = out[2].get(VerdictKind::FlushPressure).expect("critical");
    assert_eq!(v.severity, Severity::Critical);
    assert!(v.message.contains("furious flush (M)"), "{}", v.message);
    assert!(v.message.contains("user threads wait"), "{}", v.message);
}

#[test]
fn dirty_pages_past_their_maximum_warn() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            f.dirty.pct = Some(91.0);
            f
        },
        0..3,
    );
    let v = out[2].get(VerdictKind::FlushPressure).expect("dirty");
    assert_eq!(v.severity, Severity::Warning);
    assert!(
        v.message.contains("innodb_max_dirty_pages_pct 90 %"),
        "{}",
        v.message
    );
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
fn replay_matches_observe_and_time_going_back_restarts() {
    let figs: Vec<Figures> = (0..30).map(blocked_run).collect();
    let mut a = VerdictEngine::default();
    let replayed = a.replay(&figs, mysql());
    let mut b = VerdictEngine::default();
    let observed = run(&mut b, mysql(), blocked_run, 0..30);
    assert_eq!(replayed, observed);
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
    // 10 MiB at 10 GB / 1200 s.
    assert!((r.estimate_s - 10.0 * MIB as f64 * 1200.0 / 10e9).abs() < 1e-9);
    let sync = mysql_8030_points(100 * MIB).sync_point;
    assert!((r.worst_case_s.unwrap_or(0.0) - sync as f64 * 1200.0 / 10e9).abs() < 1e-9);
    assert_eq!(
        r.rate_source,
        "default (published field figures: ~10 GB in ~20 min)"
    );
}

/// Sizing after one sample at `peak` checkpoint age on a server of `flavor` with `layout`.
fn sizing_for(flavor: Flavor, layout: RedoLayout, peak: u64) -> Sizing {
    let mut e = VerdictEngine::new(EngineConfig {
        layout,
        ..EngineConfig::default()
    });
    let mut f = fig(0);
    f.redo.checkpoint_age_bytes = Some(peak);
    e.observe(0.0, &f, flavor).sizing.expect("sizing")
}

// Expected sizes computed by hand from the formulas in METRICS.md (a separate script
// evaluating each MiB), then rounded up to 1/16 of the power of two below.

#[test]
fn sizing_mysql_8030() {
    // Peak 50,000,000 → async ≥ 60,000,000: 74 MiB is the smallest; rounded up to 76 MiB
    // (async 61,734,400).
    let s = sizing_for(mysql(), RedoLayout::default(), 50_000_000);
    assert_eq!(s.advised_capacity_bytes, 76 * MIB);
    assert_eq!(s.advised_async_point_bytes, 61_734_400);
    assert_eq!(s.variable, "innodb_redo_log_capacity");
    assert_eq!(s.setting, "innodb_redo_log_capacity = 76M");
    assert_eq!(s.hour_of_writes_bytes, Some(3_600_000_000));
    // Worst case at 76 MiB: sync point 66,143,744 at the default rate.
    assert!((s.worst_case_recovery_s_at_advised - 66_143_744.0 * 1200.0 / 10e9).abs() < 1e-9);
    assert!(
        s.advice.contains("still leaves 20 % headroom"),
        "{}",
        s.advice
    );
    assert!(s.note.contains("sizes for write volume"), "{}", s.note);
    assert!(s.note.contains("3.4 GiB"), "{}", s.note);
}

#[test]
fn sizing_mysql_80_two_files() {
    // Peak 100,000,000 → async ≥ 120,000,000: 77 MiB per file, rounded to 80 MiB × 2.
    let f = Flavor::detect("8.0.28", "MySQL Community Server - GPL", false);
    let s = sizing_for(f, RedoLayout::default(), 100_000_000);
    assert_eq!(s.advised_capacity_bytes, 160 * MIB);
    assert_eq!(s.advised_async_point_bytes, 125_511_484);
    assert_eq!(s.setting, "innodb_log_file_size = 80M (× 2 files = 160M)");
    assert!(s.advice.contains("grow to"), "{}", s.advice);
}

#[test]
fn sizing_mysql_57_two_files() {
    // Peak 100,000,000 → async ≥ 120,000,000: 82 MiB per file, rounded to 84 MiB × 2.
    let f = Flavor::detect("5.7.44", "MySQL Community Server (GPL)", false);
    let s = sizing_for(f, RedoLayout::default(), 100_000_000);
    assert_eq!(s.advised_capacity_bytes, 168 * MIB);
    assert_eq!(s.advised_async_point_bytes, 124_231_727);
    assert_eq!(
        s.variable,
        "innodb_log_file_size × innodb_log_files_in_group"
    );
}

#[test]
fn sizing_mariadb() {
    // Peak at the measured 64 MiB async point 46,935,385 → async ≥ 56,322,462: 77 MiB,
    // rounded to 80 MiB (async 58,826,236).
    let s = sizing_for(mariadb(), RedoLayout::default(), 46_935_385);
    assert_eq!(s.advised_capacity_bytes, 80 * MIB);
    assert_eq!(s.advised_async_point_bytes, 58_826_236);
    assert_eq!(s.setting, "innodb_log_file_size = 80M");
}

#[test]
fn sizing_at_the_async_point_says_the_need_may_be_larger() {
    let p = mysql_8030_points(100 * MIB);
    let s = sizing_for(mysql(), RedoLayout::default(), p.async_point);
    assert!(
        s.peak_pct_of_async
            .is_some_and(|x| (x - 100.0).abs() < 1e-9)
    );
    assert!(s.advice.contains("real need may be larger"), "{}", s.advice);
    assert!(s.advised_capacity_bytes > 100 * MIB);
}

#[test]
fn sizing_tracks_the_peak_not_the_last_value() {
    let mut e = VerdictEngine::default();
    let mut last = None;
    for (t, age) in [(0, 5 * MIB), (1, 40 * MIB), (2, 8 * MIB)] {
        let mut f = fig(t);
        f.redo.checkpoint_age_bytes = Some(age);
        last = e.observe(t as f64, &f, mysql()).sizing;
    }
    let s = last.expect("sizing");
    assert_eq!(s.peak_checkpoint_age_bytes, 40 * MIB);
    assert_eq!(s.peak_at, at(1));
}

#[test]
fn no_sizing_without_checkpoint_age() {
    let mut e = VerdictEngine::default();
    let mut f = fig(0);
    f.redo.checkpoint_age_bytes = None;
    let a = e.observe(0.0, &f, mysql());
    assert!(a.sizing.is_none());
    assert!(a.recovery.is_none());
}
