//! Verdicts that claim no more than they know: `unknown` until the data is there,
//! a one-shot look that names a blocker, purge lag in transactions, no alarm over nothing,
//! open write transactions holding history, and held verdicts that say they are clearing.

use super::*;
use crate::figures::FigureId;
use innodebt_server::sample::SourceKind;

fn one_shot() -> VerdictEngine {
    VerdictEngine::new(EngineConfig {
        hysteresis: Hysteresis::one_shot(),
        ..EngineConfig::default()
    })
}

fn missing(a: &Assessment) -> Vec<Missing> {
    a.get(VerdictKind::Unknown)
        .map(|v| v.missing.clone())
        .unwrap_or_default()
}

#[test]
fn without_a_purge_position_it_watches_for_the_trend_before_saying_healthy() {
    // No SEIS read (lag unknown) and history of 5,000: nothing proves purge keeps up until
    // the 10 s trend is seen.
    let figs = |t: i64| {
        let mut f = fig(t);
        f.history.length = Some(5_000);
        f.purge.lag_trx_numbers = None;
        f
    };
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), figs, 0..12);
    for (t, a) in out.iter().enumerate().take(10) {
        assert_eq!(kinds(a), vec![VerdictKind::Unknown], "t = {t}");
        assert_eq!(a.severity(), Severity::Unknown);
        let v = &a.verdicts[0];
        assert!(
            v.message
                .contains(&format!("watching — {t} s of 10 s needed")),
            "{}",
            v.message
        );
        assert_eq!(
            missing(a),
            vec![Missing::WatchingFor {
                have_s: t as f64,
                need_s: 10.0
            }]
        );
    }
    assert_eq!(kinds(&out[10]), vec![VerdictKind::Healthy]);
    let json = serde_json::to_value(&out[4]).unwrap_or_default();
    assert_eq!(json["verdicts"][0]["kind"], "unknown");
    assert_eq!(json["verdicts"][0]["severity"], "unknown");
    assert_eq!(json["verdicts"][0]["missing"][0]["why"], "watching_for");
    assert_eq!(json["verdicts"][0]["missing"][0]["need_s"], 10.0);
}

#[test]
fn an_unreadable_blocker_or_checkpoint_age_is_unknown_not_healthy() {
    let mut f = fig(0);
    f.unavailable.push(crate::figures::Unreadable {
        source: SourceKind::InnodbTrx,
        what: "information_schema.INNODB_TRX".into(),
        privilege: Some("PROCESS".into()),
        error: "Access denied".into(),
        figures: vec![FigureId::Blocker],
    });
    let a = VerdictEngine::default().observe(0.0, &f, mysql());
    assert_eq!(kinds(&a), vec![VerdictKind::Unknown]);
    let v = &a.verdicts[0];
    assert!(
        v.message
            .contains("whether a read view blocks purge is unknown"),
        "{}",
        v.message
    );
    assert!(v.message.contains("GRANT PROCESS"), "{}", v.message);

    let mut f = fig(0);
    f.redo.checkpoint_age_bytes = None;
    f.metrics_off = vec!["log_lsn_current".into()];
    let a = VerdictEngine::default().observe(0.0, &f, mysql());
    assert_eq!(kinds(&a), vec![VerdictKind::Unknown]);
    assert!(
        a.verdicts[0]
            .message
            .contains("checkpoint age unknown: INNODB_METRICS counters off (log_lsn_current"),
        "{}",
        a.verdicts[0].message
    );
}

#[test]
fn a_problem_verdict_and_what_is_unknown_both_show_problem_first() {
    let mut f = fig(0);
    f.history.length = Some(5_000);
    f.purge.lag_trx_numbers = None;
    f.redo.checkpoint_age_bytes = f.redo.sync_point_bytes;
    let mut e = VerdictEngine::default();
    e.observe(0.0, &f, mysql());
    f.sampled_at = at(1);
    let a = e.observe(1.0, &f, mysql());
    assert_eq!(
        kinds(&a),
        vec![VerdictKind::FlushPressure, VerdictKind::Unknown]
    );
}

/// Purge `numbers` behind, with the transactions estimate derive gives beside them (MariaDB:
/// two numbers per committed read-write transaction).
fn behind(f: &mut Figures, numbers: u64) {
    f.purge.lag_trx_numbers = Some(numbers);
    f.purge.lag_transactions = Some(numbers / 2);
    f.purge.lag_transactions_basis = Some(
        "at most: 2 transaction numbers per committed \
                                           read-write transaction"
            .into(),
    );
}

/// One figure, one unit: a verdict says purge's lag as the Purge panel beside it does
/// (`Purge::lag_words`: `≤1243 trx`), in transactions, not in SEIS's transaction numbers.
#[test]
fn the_verdicts_say_the_purge_lag_in_the_panels_unit() {
    let said = |a: &Assessment, kind: VerdictKind| {
        a.get(kind).map(|v| v.message.clone()).unwrap_or_default()
    };
    let check = |f: &Figures, message: &str| {
        let panel = f.purge.lag_words().expect("the panel's lag");
        let trx = panel
            .split(", ")
            .find_map(|w| w.strip_suffix(" trx"))
            .expect("the panel says transactions");
        assert!(
            message.contains(&format!("{trx} transactions behind")),
            "panel {panel:?}, verdict: {message}"
        );
        assert!(!message.contains("transaction numbers"), "{message}");
    };
    let mut e = one_shot();
    let out = run(&mut e, mariadb(), incident, 0..2);
    check(&incident(1), &said(&out[1], VerdictKind::BlockedByReadView));
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mariadb(), held, 0..5);
    check(
        &held(4),
        &said(&out[4], VerdictKind::HistoryHeldByOpenWrites),
    );
}

/// The incident: a REPEATABLE READ view open for 25 s under write load, history
/// 1,206 growing 43/s. One look = two SEIS reads a second apart: the trx id counter moved,
/// `Purge done for trx's n:o <` did not (SEIS, MariaDB `lock_print_info_summary`).
fn incident(t: i64) -> Figures {
    let mut f = fig(t);
    f.history.length = Some(1_163 + 43 * t as u64);
    f.history.growth_per_s = Some(43.0);
    f.blocker = Some(blocker(24 + t as u64));
    behind(&mut f, 2_400 + 86 * t as u64);
    f.purge.pace = (t > 0).then_some(0.0);
    f
}

#[test]
fn one_look_names_the_blocker_when_purge_stands_still_behind_it() {
    let mut e = one_shot();
    let out = run(&mut e, mariadb(), incident, 0..2);
    // The first sample alone proves nothing (one SEIS read); it is not "healthy" either.
    assert!(
        out[0].get(VerdictKind::Healthy).is_none(),
        "{:?}",
        kinds(&out[0])
    );
    let v = out[1]
        .get(VerdictKind::BlockedByReadView)
        .expect("a one-shot look names the blocker");
    assert_eq!(out[1].verdicts[0].kind, VerdictKind::BlockedByReadView);
    assert_eq!(out[1].purge.blocked, Some(true));
    for needle in [
        "thread 42",
        "app@10.0.0.5:5512",
        "25s",
        "stands still ≤1243 transactions behind",
        "K",
    ] {
        assert!(v.message.contains(needle), "{needle:?}: {}", v.message);
    }
    // Purge moving behind a young view: not blocked by it on one look.
    let mut e = one_shot();
    let out = run(
        &mut e,
        mariadb(),
        |t| {
            let mut f = incident(t);
            f.purge.pace = Some(1.0);
            f
        },
        0..2,
    );
    assert!(out[1].get(VerdictKind::BlockedByReadView).is_none());
}

#[test]
fn a_slow_leak_far_from_any_consequence_is_no_alarm() {
    // The demo's "purge too slow" at history 190 growing 7/s: 1,000,000 is 40 h away.
    let leak = |lag: Option<u64>| {
        move |t: i64| {
            let mut f = fig(t);
            f.history.length = Some(190 + 7 * t as u64);
            f.purge.lag_trx_numbers = Some(50_000);
            f.purge.pace = Some(0.5);
            f.purge.records_per_s = Some(10.0);
            f.purge.inflow_records_per_s = Some(20.0);
            f.purge.max_purge_lag = lag;
            f
        }
    };
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), leak(Some(0)), 0..30);
    assert!(
        out.iter()
            .all(|a| a.get(VerdictKind::PurgeTooSlow).is_none())
    );
    assert_eq!(kinds(&out[29]), vec![VerdictKind::Healthy]);
    // With innodb_max_purge_lag = 1,000 the same leak reaches it in under 2 minutes.
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), leak(Some(1_000)), 0..30);
    let v = out[29]
        .get(VerdictKind::PurgeTooSlow)
        .expect("a consequence");
    assert!(
        v.message
            .contains("at this rate it reaches innodb_max_purge_lag 1000 in 1m"),
        "{}",
        v.message
    );
    // The growth the message cites is the one the panel shows.
    assert!(v.message.contains("+7/s"), "{}", v.message);
    assert_eq!(
        out[29].purge.history_growth_per_s.map(f64::round),
        Some(7.0)
    );
}

/// MariaDB with 150 read-write transactions open: purge keeps pace (2,700 behind, as
/// measured at 3,000 commits/s), history stands at 270,000 — `trx0purge.cc
/// purge_sys_t::iterator::free_history_rseg` frees no rollback segment whose last writer
/// the purge view cannot see.
fn held(t: i64) -> Figures {
    let mut f = fig(t);
    f.server.flavor = "mariadb".into();
    f.history.length = Some(270_000);
    behind(&mut f, 2_700);
    f.purge.pace = Some(1.0);
    f.purge.open_trx = Some(180);
    f.purge.open_rw_trx = Some(150);
    f.purge.oldest_rw = Some(crate::figures::OldestRw {
        trx_id: "9001".into(),
        thread_id: Some(77),
        age_s: 300,
    });
    f
}

#[test]
fn history_held_by_open_writes_is_named_with_their_count() {
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mariadb(), held, 0..5);
    let v = out[4]
        .get(VerdictKind::HistoryHeldByOpenWrites)
        .expect("held by open writes");
    assert_eq!(v.severity, Severity::Warning);
    assert_eq!(
        v.thread_id,
        Some(77),
        "K acts on the oldest read-write transaction"
    );
    for needle in [
        "history 270.0k",
        "caught up (≤1350 transactions behind)",
        "thread 77 (one of 150 open) has been open 5m 00s",
        // K kills the oldest read view's session; this writer holds none: the statement.
        "commit it, or KILL 77",
    ] {
        assert!(v.message.contains(needle), "{needle:?}: {}", v.message);
    }
    // The same writer in REPEATABLE READ is also the panel's blocker (purge keeps pace past
    // it): then K acts on it.
    let mut e = VerdictEngine::default();
    let as_blocker = |t| {
        let mut f = held(t);
        f.blocker = Some(Blocker {
            thread_id: Some(77),
            ..blocker(300)
        });
        f.purge.pace_over_s = Some(9.0);
        f
    };
    let out2 = run(&mut e, mariadb(), as_blocker, 0..5);
    let v2 = out2[4]
        .get(VerdictKind::HistoryHeldByOpenWrites)
        .expect("held, K on the blocker");
    assert!(
        v2.message.contains("commit it, or kill it with K"),
        "{}",
        v2.message
    );
    assert!(out[4].get(VerdictKind::Healthy).is_none());
    assert!(out[4].get(VerdictKind::PurgeTooSlow).is_none());

    // Purge far behind, or not keeping pace: that is not this case.
    for behind in [
        |t| {
            let mut f = held(t);
            f.purge.lag_trx_numbers = Some(90_000);
            f
        },
        |t| {
            let mut f = held(t);
            f.purge.pace = Some(0.3);
            f
        },
    ] as [fn(i64) -> Figures; 2]
    {
        let mut e = VerdictEngine::default();
        let out = run(&mut e, mariadb(), behind, 0..5);
        assert!(out[4].get(VerdictKind::HistoryHeldByOpenWrites).is_none());
    }
    // MySQL frees history otherwise, and so did MariaDB before MDEV-32050 (10.11.6).
    for flavor in [
        mysql(),
        Flavor::detect("10.11.5-MariaDB", "", false),
        Flavor::detect("10.6.15-MariaDB", "", false),
    ] {
        let mut e = VerdictEngine::default();
        let out = run(&mut e, flavor, held, 0..5);
        assert!(out[4].get(VerdictKind::HistoryHeldByOpenWrites).is_none());
    }
}

#[test]
fn a_held_verdict_says_it_is_clearing_and_quotes_its_last_sample_with_its_time() {
    // Past async for t < 6, back below from t = 6: the verdict stays through t = 10.
    let figs = |t: i64| {
        let mut f = fig(t);
        if t < 6 {
            f.redo.checkpoint_age_bytes = f.redo.async_point_bytes.map(|a| a + MIB);
        }
        f
    };
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), figs, 0..12);
    let active = out[5].get(VerdictKind::FlushPressure).expect("active");
    assert!(!active.clearing);
    assert!(
        active.message.starts_with("checkpoint age"),
        "{}",
        active.message
    );
    for (t, a) in out.iter().enumerate().take(11).skip(6) {
        let v = a.get(VerdictKind::FlushPressure).expect("held");
        assert!(v.clearing, "t = {t}");
        assert!(
            v.message.starts_with(&format!("clearing {}/5 s", t - 6)),
            "{}",
            v.message
        );
        assert!(
            v.message.contains("last seen 03:04:10: checkpoint age"),
            "{}",
            v.message
        );
        assert!(v.severity <= Severity::Warning);
    }
    assert_eq!(kinds(&out[11]), vec![VerdictKind::Healthy]);
    let json = serde_json::to_value(&out[7]).unwrap_or_default();
    assert_eq!(json["verdicts"][0]["clearing"], true);
    assert!(
        serde_json::to_value(&out[5]).unwrap_or_default()["verdicts"][0]
            .get("clearing")
            .is_none()
    );
}

#[test]
fn without_fresh_data_no_old_green_check_survives() {
    let a = VerdictEngine::default().observe(0.0, &fig(0), mysql());
    assert_eq!(kinds(&a), vec![VerdictKind::Healthy]);
    let shown = without_fresh_data(&a.verdicts, 12.4, at(0));
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].kind, VerdictKind::Unknown);
    assert_eq!(shown[0].severity, Severity::Unknown);
    assert!(
        shown[0].message.starts_with("no data for 12s"),
        "{}",
        shown[0].message
    );
    assert_eq!(shown[0].missing, vec![Missing::NoData { for_s: 12.4 }]);
    // A problem seen before the data stopped stays, after the no-data verdict.
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mysql(), blocked_run, 0..8);
    let shown = without_fresh_data(&out[7].verdicts, 30.0, at(7));
    assert_eq!(
        shown.iter().map(|v| v.kind).collect::<Vec<_>>(),
        vec![VerdictKind::Unknown, VerdictKind::BlockedByReadView]
    );
}

/// Purge keeping pace over a window the view was open for the whole of passes that view:
/// history growing behind it is held some other way (MariaDB's open writers), not blocked by
/// it. A view younger than the window gets no such pass: the pace was seen before it opened.
#[test]
fn purge_keeping_pace_past_a_view_is_not_blocked_by_it_unless_the_view_is_newer() {
    let growing_with = |age: u64| {
        move |t: i64| {
            let mut f = fig(t);
            f.history.length = Some(2_000 + 400 * t as u64);
            f.blocker = Some(blocker(age + t as u64));
            f.purge.lag_trx_numbers = Some(3_000);
            f.purge.pace = Some(0.97);
            f.purge.pace_over_s = Some(9.0);
            f
        }
    };
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mariadb(), growing_with(30), 0..15);
    assert_eq!(out[14].purge.blocked, Some(false));
    assert!(out[14].get(VerdictKind::BlockedByReadView).is_none());
    // The same, but the view is 3 s old: it opened after the older SEIS read 9 s ago.
    let young = |t: i64| {
        let mut f = growing_with(3)(t);
        f.blocker = Some(blocker(3));
        f
    };
    let mut e = VerdictEngine::default();
    let out = run(&mut e, mariadb(), young, 0..15);
    assert_eq!(out[14].purge.blocked, Some(true), "{:?}", kinds(&out[14]));
}
