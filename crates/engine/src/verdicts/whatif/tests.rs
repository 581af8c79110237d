//! What-if by hand: points from each flavour's own formula (the function cited), ages chosen
//! around them, and the time past, crossings and recovery worked out in the comments.

use std::collections::BTreeMap;

use chrono::{TimeZone, Utc};

use super::*;
use crate::figures::{Dirty, History, Purge, Redo};

const MIB: u64 = 1024 * 1024;

fn info(version: &str, comment: &str, vars: &[(&str, &str)]) -> ServerInfo {
    let variables: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ServerInfo {
        label: "db:3306".into(),
        version: version.into(),
        version_comment: comment.into(),
        flavor: Flavor::detect(
            version,
            comment,
            variables.contains_key("innodb_redo_log_capacity"),
        ),
        variables,
        recovery_log: None,
    }
}

fn mariadb() -> ServerInfo {
    info(
        "10.11.19-MariaDB",
        "",
        &[
            ("innodb_log_file_size", "16777216"),
            ("innodb_page_size", "16384"),
        ],
    )
}

/// One sample a second at `t`, with this checkpoint age against the recorded 16 MiB points.
fn fig(t: i64, age: u64) -> Figures {
    let rec = innodebt_server::flavor::mariadb_points(16 * MIB, 16384, (10, 11));
    Figures {
        sampled_at: Utc
            .with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
            .single()
            .expect("valid time")
            + chrono::TimeDelta::seconds(t),
        interval_s: Some(1.0),
        redo: Redo {
            checkpoint_age_bytes: Some(age),
            capacity_bytes: Some(rec.capacity),
            async_point_bytes: Some(rec.async_point),
            sync_point_bytes: Some(rec.sync_point),
            ..Redo::default()
        },
        dirty: Dirty::default(),
        ..Figures::default()
    }
}

fn run(info: &ServerInfo, settings: &[(&str, u64)], figs: &[Figures]) -> WhatIfReport {
    let settings: Vec<(String, u64)> = settings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let scenario = Scenario::new(&settings, info).expect("valid scenario");
    let mut w = WhatIf::new(scenario, info, RecoveryModel::published_default());
    figs.iter().for_each(|f| w.observe(f));
    w.finish()
}

#[test]
fn mariadb_64_mib_by_hand() {
    // MariaDB log0log.cc log_t::set_capacity at 64 MiB: async 46,935,385, M 53,640,439 (the
    // figures the server reported: Innodb_checkpoint_max_age and log_max_modified_age_async).
    let ages: Vec<u64> = [40_000_000, 47_000_000, 50_000_000, 54_000_000, 54_000_000]
        .into_iter()
        .chain([45_000_000; 12])
        .chain([48_000_000])
        .collect();
    let figs: Vec<Figures> = ages
        .iter()
        .enumerate()
        .map(|(t, a)| fig(t as i64, *a))
        .collect();
    let r = run(&mariadb(), &[("innodb_log_file_size", 64 * MIB)], &figs);
    let w = &r.redo.as_ref().expect("redo").what_if;
    assert_eq!(w.async_point_bytes, Some(46_935_385));
    assert_eq!(w.sync_point_bytes, Some(53_640_439));
    // Past async: 47, 50, 54, 54 and the last 48 million: 5 samples of 1 s. Past M: 2.
    assert_eq!(w.seconds_past_async, 5.0);
    assert_eq!(w.seconds_past_sync, 2.0);
    // Up at 47M (async), up at 54M (M); 45M holds 12 s ≥ 10 s → below; up again at 48M.
    assert_eq!((w.async_crossings, w.sync_crossings), (2, 1));
    // Worst moment: 54M cut at M (writes wait there) ÷ 10.5 GB / 20 min.
    let want = 53_640_439.0 / (10.5e9 / 1200.0);
    let got = w.recovery_at_worst_moment_s.expect("recovery");
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    assert_eq!(w.peak_checkpoint_age_bytes, Some(54_000_000));
    // At the recorded 16 MiB every one of these ages is past M (11,2xx,xxx bytes of async).
    let rec = &r.redo.as_ref().expect("redo").recorded;
    assert_eq!(rec.seconds_past_sync, 18.0);
    assert_eq!((rec.async_crossings, rec.sync_crossings), (1, 1));
    assert!(r.summary[0].starts_with("with innodb_log_file_size = 64M: past async 5s"));
}

#[test]
fn a_large_enough_log_is_never_reached() {
    let figs: Vec<Figures> = (0..5).map(|t| fig(t, 12_000_000)).collect();
    let r = run(&mariadb(), &[("innodb_log_file_size", 4096 * MIB)], &figs);
    let w = &r.redo.as_ref().expect("redo").what_if;
    assert_eq!((w.seconds_past_async, w.async_crossings), (0.0, 0));
    assert!(
        r.summary[0].starts_with("with innodb_log_file_size = 4G: async never reached"),
        "{}",
        r.summary[0]
    );
    assert!(r.summary[0].contains("worst recovery 1s (default rate)"));
}

#[test]
fn mysql_8030_100_mib_by_hand() {
    // MySQL ≥ 8.0.30 at 100 MiB, where the server acts (log0files_capacity.cc
    // soft_logical_capacity_for_hard; log0chkp.cc log_concurrency_margin): the page cleaner
    // at counter async 81,281,024 − margin 5,474,908 → 75,805,696 (to 512); writes wait at
    // the free-check limit soft − margin = 87,417,344 (worked out in the redo.rs tests).
    let i = info(
        "8.0.36",
        "MySQL Community Server - GPL",
        &[("innodb_redo_log_capacity", "8388608")],
    );
    let figs = [fig(0, 75_805_695), fig(1, 75_805_696), fig(2, 87_417_344)];
    let r = run(&i, &[("innodb_redo_log_capacity", 100 * MIB)], &figs);
    let w = &r.redo.as_ref().expect("redo").what_if;
    assert_eq!(
        (w.async_point_bytes, w.sync_point_bytes),
        (Some(75_805_696), Some(87_417_344))
    );
    assert_eq!((w.seconds_past_async, w.seconds_past_sync), (2.0, 1.0));
    assert_eq!((w.async_crossings, w.sync_crossings), (1, 1));
}

#[test]
fn mysql_57_and_80_two_files_by_hand() {
    // MySQL 5.7 log0log.cc log_calc_max_ages, 2 × 48 MiB, 16 KiB pages, concurrency 0:
    // margin 80,826,164 → async 70,722,894, sync 75,774,529.
    let i = info(
        "5.7.44",
        "MySQL Community Server (GPL)",
        &[("innodb_log_files_in_group", "2")],
    );
    let figs = [fig(0, 70_722_893), fig(1, 70_722_894), fig(2, 75_774_529)];
    let r = run(&i, &[("innodb_log_file_size", 48 * MIB)], &figs);
    let w = &r.redo.as_ref().expect("redo").what_if;
    assert_eq!(w.capacity_bytes, Some(96 * MIB));
    assert_eq!(
        (w.async_point_bytes, w.sync_point_bytes),
        (Some(70_722_894), Some(75_774_529))
    );
    assert_eq!((w.seconds_past_async, w.seconds_past_sync), (2.0, 1.0));
    // The worst case at max_checkpoint_age (log0log.cc log_checkpoint_margin), 80,826,164
    // bytes at the published 10.5 GB / 20 min, not at the sync point.
    let worst = w.worst_case_recovery_s.expect("worst case");
    assert!(
        (worst - 80_826_164.0 * 1_200.0 / 10.5e9).abs() < 1e-6,
        "{worst}"
    );

    // MySQL 8.0.18–8.0.29, 2 × 48 MiB, where the server acts (log0chkp.cc log_calc_max_ages
    // and log_calc_concurrency_margin): counter async 75,305,984 − margin 5,487,580 →
    // 69,818,368 (to 512); writes wait at the free-check limit, 80,576,000.
    let i = info("8.0.28", "MySQL Community Server - GPL", &[]);
    let figs = [fig(0, 69_818_367), fig(1, 69_818_368), fig(2, 80_576_000)];
    let r = run(&i, &[("innodb_log_file_size", 48 * MIB)], &figs);
    let w = &r.redo.as_ref().expect("redo").what_if;
    assert_eq!(
        (w.async_point_bytes, w.sync_point_bytes),
        (Some(69_818_368), Some(80_576_000))
    );
    assert_eq!((w.seconds_past_async, w.seconds_past_sync), (2.0, 1.0));
}

fn purge_fig(t: i64, history: u64, blocked: bool) -> Figures {
    Figures {
        history: History {
            length: Some(history),
            ..History::default()
        },
        purge: Purge {
            inflow_records_per_s: Some(500.0),
            max_purge_lag: Some(0),
            max_purge_lag_delay_us: Some(0),
            blocked: Some(blocked),
            ..Purge::default()
        },
        ..fig(t, 0)
    }
}

#[test]
fn purge_lag_delay_by_hand() {
    // trx0purge.cc trx_purge_dml_delay: ratio = 2000 / 1000 = 2 → (2 − 0.5) × 10,000 =
    // 15,000 µs, capped at innodb_max_purge_lag_delay = 2,000 µs. 500 rows/s × 1 s × 2 ms =
    // 1 s waited per sample; history 900 is under the lag: no delay.
    let mysql = info("5.7.44", "MySQL Community Server (GPL)", &[]);
    let figs = [
        purge_fig(0, 900, false),
        purge_fig(1, 2000, false),
        purge_fig(2, 2000, true),
    ];
    let settings = [
        ("innodb_max_purge_lag", 1000),
        ("innodb_max_purge_lag_delay", 2000),
    ];
    let r = run(&mysql, &settings, &figs);
    let p = r.purge.as_ref().expect("purge");
    // MySQL delays even while a read view blocks purge.
    assert_eq!(p.what_if.seconds_delayed, 2.0);
    assert_eq!(p.what_if.peak_delay_us, 2000);
    assert!((p.what_if.writes_waited_s - 2.0).abs() < 1e-9);
    // Recorded: lag 0 (off) → nothing.
    assert_eq!(p.recorded.seconds_delayed, 0.0);
    assert!(r.redo.is_none());

    // MariaDB (measured on 10.11, MDEV-29401): armed, not applied while a view blocks purge.
    let r = run(&mariadb(), &settings, &figs);
    let p = r.purge.as_ref().expect("purge");
    assert_eq!(p.what_if.seconds_delayed, 1.0);
    assert_eq!(p.what_if.seconds_armed_not_applied, 1.0);
    assert!((p.what_if.writes_waited_s - 1.0).abs() < 1e-9);
    // The panels' words: the purge line (no redo line before it), whole and short.
    assert_eq!(r.redo_summary(), None);
    assert_eq!(r.purge_summary(), r.summary.first().map(String::as_str));
    assert_eq!(
        r.purge_short().as_deref(),
        Some("max_purge_lag = 1000, max_purge_lag_delay = 2000: writes delayed 1s, ≥ 1.0 s waited")
    );
    assert_eq!(r.max_purge_lag(), Some(1000));
}

#[test]
fn purge_line_follows_the_redo_line() {
    let figs = [purge_fig(0, 900, false), purge_fig(1, 2000, true)];
    let both = [
        ("innodb_log_file_size", 64 << 20),
        ("innodb_max_purge_lag", 1000),
        ("innodb_max_purge_lag_delay", 2000),
    ];
    let r = run(&mariadb(), &both, &figs);
    assert_eq!(r.summary.len(), 2);
    assert!(
        r.redo_summary()
            .is_some_and(|l| l.contains("innodb_log_file_size"))
    );
    assert!(
        r.purge_summary()
            .is_some_and(|l| l.contains("innodb_max_purge_lag"))
    );
    assert_eq!(
        r.purge_short().as_deref(),
        Some(
            "max_purge_lag = 1000, max_purge_lag_delay = 2000: never delayed (armed 1s while \
             purge was blocked)"
        )
    );
    // Lag 0 is off: no line to draw.
    let r = run(&mariadb(), &[("innodb_max_purge_lag", 0)], &figs);
    assert_eq!(r.max_purge_lag(), None);
    assert_eq!(
        r.purge_short().as_deref(),
        Some("max_purge_lag = 0: writes never delayed")
    );
}

#[test]
fn purge_threads_gate_the_delay_on_mysql_8014() {
    // MySQL ≥ 8.0.14 trx0purge.cc trx_purge_dml_delay: no delay while history ≤
    // innodb_purge_threads × innodb_purge_batch_size. History 2,000, batch 300: with 4
    // threads the gate is 1,200 (delayed: (2 − 0.9995) × 10,000 = 10,005 µs, capped at 2,000);
    // with 8 it is 2,400 (no delay).
    let mysql84 = info("8.4.3", "MySQL Community Server - GPL", &[]);
    let figs: Vec<Figures> = (0..3)
        .map(|t| {
            let mut f = purge_fig(t, 2000, false);
            f.purge.max_purge_lag = Some(1000);
            f.purge.max_purge_lag_delay_us = Some(2000);
            f.purge.threads = Some(4);
            f.purge.batch_size = Some(300);
            f
        })
        .collect();
    let r = run(&mysql84, &[("innodb_purge_threads", 8)], &figs);
    let p = r.purge.as_ref().expect("purge");
    assert_eq!(p.recorded.seconds_delayed, 3.0);
    assert_eq!(p.recorded.peak_delay_us, 2000);
    assert_eq!(p.what_if.seconds_delayed, 0.0);
    assert!(
        r.summary[0].contains("writes never delayed"),
        "{}",
        r.summary[0]
    );
}

#[test]
fn bad_settings_say_what_is_wrong() {
    let err = |settings: &[(&str, u64)], info: &ServerInfo| {
        let s: Vec<(String, u64)> = settings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Scenario::new(&s, info).expect_err("refused")
    };
    let m = mariadb();
    let e = err(&[("innodb_bogus", 1)], &m);
    assert!(e.contains("unknown variable \"innodb_bogus\""), "{e}");
    assert!(e.contains("innodb_log_file_size"), "{e}");
    let e = err(&[("innodb_io_capacity", 2000)], &m);
    assert!(e.contains("no model for innodb_io_capacity"), "{e}");
    let e = err(&[("innodb_purge_threads", 8)], &m);
    assert!(
        e.contains("no model for innodb_purge_threads on MariaDB 10.11.19"),
        "{e}"
    );
    let mysql84 = info("8.4.3", "MySQL Community Server - GPL", &[]);
    let e = err(&[("innodb_purge_threads", 33)], &mysql84);
    assert!(e.contains("1 to 32"), "{e}");
    let e = err(&[("innodb_redo_log_capacity", 4096 * MIB)], &m);
    assert!(
        e.contains("MariaDB 10.11.19 sizes redo with innodb_log_file_size"),
        "{e}"
    );
    let e = err(&[("innodb_log_file_size", MIB)], &m);
    assert!(e.contains("accepts 4.0 MiB"), "{e}");
    let e = err(&[("innodb_max_purge_lag_delay", 20_000_000)], &m);
    assert!(e.contains("0 to 10000000"), "{e}");
    let e = err(&[], &m);
    assert!(e.contains("VAR=VALUE"), "{e}");
}
