//! The purge rules: a read view blocking purge, the purge-lag trap per flavour, purge too
//! slow for the writes.

use super::*;

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
                .map(|h| mysql().dml_delay_us(h, 1_000, 2_000, Some(4), Some(300)));
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

/// No blocker; history +300/s from t = 0 (1,000,000 within the hour); purge 100 records/s
/// vs 500 written, 50,000 transaction numbers behind and moving at half the commits' pace.
fn slow_purge(t: i64) -> Figures {
    let mut f = fig(t);
    f.history.length = Some(10_000 + 300 * t as u64);
    f.history.growth_per_s = Some(300.0);
    f.purge.lag_trx_numbers = Some(50_000);
    f.purge.pace = Some(0.5);
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
        "+300/s",
        "at this rate it reaches 1.0M undo logs in 5",
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
    assert!((g - 300.0).abs() < 1e-6, "{g}");
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

/// "Purge not moving" judged once (`purge.moving`, the verdicts' `purge_stuck`): the Purge
/// panel once said "not moving" for any pace under 0.1 with a lag above 0, where the verdicts
/// call a purge within 100 transaction numbers of the counter at rest.
#[test]
fn purge_moving_is_the_verdicts_standing_still() {
    let judged = |pace: Option<f64>, lag: Option<u64>| {
        let mut f = fig(0);
        f.purge.pace = pace;
        f.purge.lag_trx_numbers = lag;
        let mut e = VerdictEngine::default();
        e.observe(0.0, &f, mysql()).purge.moving
    };
    assert_eq!(judged(Some(0.0), Some(26_272)), Some(false), "a read view");
    assert_eq!(
        judged(Some(0.0), Some(40)),
        Some(true),
        "at rest next to the counter"
    );
    assert_eq!(
        judged(Some(0.5), Some(50_000)),
        Some(true),
        "slow, but moving"
    );
    assert_eq!(
        judged(None, Some(50_000)),
        None,
        "one SEIS read says nothing"
    );
    assert_eq!(judged(Some(0.0), None), None);
}

/// At a 15 s interval (a Prometheus step) the 20 s trend window would hold two samples and
/// history's growth would never be known ("watching" for good): the window widens to three
/// samples, so the third sample judges the trend.
#[test]
fn a_coarse_interval_still_forms_a_trend() {
    let mut e = VerdictEngine::default();
    let grows = |t: i64| {
        let mut f = fig(t);
        f.interval_s = Some(15.0);
        f.history.length = Some(100 + 50 * t as u64);
        // No rate of its own: the growth is the trend's.
        f.history.growth_per_s = None;
        f
    };
    let out: Vec<Assessment> = [0, 15, 30, 45]
        .iter()
        .map(|t| e.observe(*t as f64, &grows(*t), mysql()))
        .collect();
    assert_eq!(
        out[1].purge.history_growth_per_s, None,
        "two samples are no trend"
    );
    for a in &out[2..] {
        let g = a
            .purge
            .history_growth_per_s
            .expect("a trend from three samples");
        assert!((g - 50.0).abs() < 1e-6, "{g}");
    }
}
