//! Recovery estimate arithmetic, and where its rate comes from.

use chrono::{TimeZone, Utc};

use super::*;
use crate::figures::{Dirty, Flush, History, Purge, Redo, ServerFigures, Undo};
use innodebt_server::error_log::RecoveryLog;
use innodebt_server::flavor::MYSQL_57_RECOVERY;

/// A MariaDB 10.11.19 recovery of 51.2 MiB logged as 1 s (this project's lab, shortened).
const MARIADB_CRASH: &str = "\
2026-11-21 20:37:20 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843d8475120241667a7ce0f8a1abb6c9b43a273 server_uid fXdYp7ZWAMMBm0PUMZFJoAcM0o0= as process 10342
2026-11-21 20:37:20 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=572420596
2026-11-21 20:37:21 0 [Note] InnoDB: End of log at LSN=626061190
2026-11-21 20:37:21 0 [Note] InnoDB: To recover: 1603 pages
2026-11-21 20:37:21 0 [Note] InnoDB: log sequence number 626061190; transaction id 43900
2026-11-21 20:37:22 0 [Note] mariadbd: ready for connections.
";

/// A start after `kill -9` with one committed row to redo (2,898 bytes), all in one second.
const MARIADB_NEAR_EMPTY: &str = "\
2026-11-28 09:12:03 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843d8475120241667a7ce0f8a1abb6c9b43a273 server_uid fXdYp7ZWAMMBm0PUMZFJoAcM0o0= as process 20001
2026-11-28 09:12:03 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=700000000
2026-11-28 09:12:03 0 [Note] InnoDB: End of log at LSN=700002898
2026-11-28 09:12:03 0 [Note] InnoDB: To recover: 12 pages
2026-11-28 09:12:03 0 [Note] InnoDB: log sequence number 700002898; transaction id 50000
2026-11-28 09:12:03 0 [Note] mariadbd: ready for connections.
";

const TOO_LITTLE: &str = "2,898 bytes of redo is too little to time: start-up hides the apply \
                          of less than 16.0 MB; a crash with more redo will calibrate";

// ---------------------------------------------------------------------------
// The estimate
// ---------------------------------------------------------------------------

fn figures(age: u64, sync: u64, dirty_pages: u64, io_capacity_max: Option<u64>) -> Figures {
    Figures {
        server: ServerFigures {
            flavor: "mysql".into(),
            version: "8.0.36".into(),
            uptime_s: None,
            label: "test".into(),
        },
        sampled_at: Utc
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .single()
            .unwrap_or_default(),
        interval_s: None,
        redo: Redo {
            checkpoint_age_bytes: Some(age),
            sync_point_bytes: Some(sync),
            ..Redo::default()
        },
        flush: Flush {
            io_capacity_max,
            ..Flush::default()
        },
        history: History::default(),
        purge: Purge::default(),
        blocker: None,
        dirty: Dirty {
            pages: Some(dirty_pages),
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

#[test]
fn default_before_the_server_is_known_is_mysql_57s_published_rate() {
    let m = RecoveryModel::default();
    let r = m
        .estimate(&figures(10_500_000_000, 21_000_000_000, 1_000, None))
        .expect("estimate");
    // Bug #81648: 10.5 GB in ~20 min; nothing added for start-up.
    assert!((r.estimate_s - 1_200.0).abs() < 1e-9, "{}", r.estimate_s);
    assert!(r.worst_case_s.is_some_and(|w| (w - 2_400.0).abs() < 1e-9));
    assert_eq!(r.worst_case_redo_bytes, Some(21_000_000_000));
    assert_eq!(r.bound_by, Bound::Redo);
    assert_eq!(r.page_reads_per_s, 2_000.0);
    assert!(
        r.page_read_source.contains("default 2000/s"),
        "{}",
        r.page_read_source
    );
}

#[test]
fn many_dirty_pages_on_slow_storage_set_the_floor() {
    // 100 MB of redo at 8.3 MB/s = 12 s; 500,000 dirty pages at 1,000 reads/s = 500 s.
    let m = RecoveryModel::with_rate(10e9 / 1_200.0)
        .expect("positive")
        .with_page_reads(1_000.0);
    let r = m
        .estimate(&figures(100_000_000, 200_000_000, 500_000, Some(4_000)))
        .expect("estimate");
    assert_eq!(r.estimate_s, 500.0);
    assert_eq!(r.bound_by, Bound::Pages);
    assert_eq!(r.worst_case_s, Some(500.0));
    assert_eq!(r.rate_source, "--recovery-rate");
    assert_eq!(r.page_read_source, "--recovery-page-reads");
    // Without the override the server's innodb_io_capacity_max is the read rate.
    let r = RecoveryModel::with_rate(10e9 / 1_200.0)
        .expect("positive")
        .estimate(&figures(100_000_000, 200_000_000, 500_000, Some(4_000)))
        .expect("estimate");
    assert_eq!(r.estimate_s, 125.0);
    assert_eq!(r.page_read_source, "innodb_io_capacity_max (4000)");
}

fn mariadb_info(log: Option<RecoveryLog>) -> ServerInfo {
    let mut info = ServerInfo::mariadb_10_11(&[]);
    info.recovery_log = log.map(Box::new);
    info
}

#[test]
fn the_server_log_calibrates_and_says_so() {
    // 53.6 MB of redo logged as 1 s inside a restart logged as 2 s: whole seconds put the redo
    // anywhere in 0–2 s and the restart in 1–3 s; the middles are 1 s of redo and 1 s around it.
    let log = RecoveryLog::parsed("/var/lib/mysql/host.err", MARIADB_CRASH);
    let m = RecoveryModel::default().for_server(&mariadb_info(Some(log)));
    assert_eq!(m.origin, RateOrigin::Calibrated);
    assert_eq!(m.rate_bytes_per_s, 53_640_594.0);
    assert_eq!(m.startup_s, 1.0);
    assert_eq!(
        m.rate_source,
        "calibrated from this server's recovery of 2026-11-21: 53.6 MB in 1 s, restart 2 s → \
         1.00 s start-up + 53.6 MB/s (the log's whole-second timestamps put redo application \
         anywhere in 0.00–2.00 s: the middle is taken)"
    );
    // The evidence travels with every estimate.
    let r = m
        .estimate(&figures(140_000_000, 280_000_000, 5_000, None))
        .expect("estimate");
    assert_eq!(r.rate_origin, RateOrigin::Calibrated);
    assert_eq!(
        (r.not_calibrated.as_deref(), r.passed_over.len()),
        (None, 0)
    );
    let e = r.calibration.expect("the calibrating recovery");
    assert_eq!(e.from.as_deref(), Some("/var/lib/mysql/host.err"));
    assert_eq!(
        (e.checkpoint_lsn, e.end_lsn, e.redo_bytes),
        (572_420_596, 626_061_190, 53_640_594)
    );
    assert_eq!((e.pages_at_least, e.batches), (Some(1603), 1));
    assert_eq!((e.logged_s, e.timestamp_resolution_s), (1.0, 1.0));
    assert_eq!((e.restart_logged_s, e.restart_host_s), (Some(2.0), None));
    assert_eq!((e.redo_s, e.restart_s), ((0.0, 2.0), Some((1.0, 3.0))));
    assert_eq!(
        e.started_at.format("%F %T").to_string(),
        "2026-11-21 20:37:20"
    );
    // 140 MB: 1 s + 2.61 s; 5,000 dirty pages at 2,000 reads/s (2.5 s) are no floor: the
    // calibrated rate holds this server's own page reads. The ends of the ranges give 1 s (all
    // of the restart start-up) to 6.2 s (3 s, 2 of them redo, scaled by 2.61).
    let r = m
        .estimate(&figures(140_000_000, 280_000_000, 5_000, None))
        .expect("estimate");
    let k = 140e6 / 53_640_594.0;
    assert!((r.estimate_s - (1.0 + k)).abs() < 1e-9, "{}", r.estimate_s);
    assert_eq!(r.startup_s, 1.0);
    assert_eq!(r.bound_by, Bound::Redo);
    let (lo, hi) = r.estimate_range_s.expect("a calibrated range");
    assert!((lo - 1.0).abs() < 1e-9 && (hi - (3.0 + 2.0 * (k - 1.0))).abs() < 1e-9);
    assert!(
        r.page_read_source.starts_with("not a floor"),
        "{}",
        r.page_read_source
    );
    // A read rate the DBA sets is a floor again.
    let r = m
        .clone()
        .with_page_reads(1_000.0)
        .estimate(&figures(140_000_000, 280_000_000, 5_000, None))
        .expect("estimate");
    assert!((r.estimate_s - 6.0).abs() < 1e-9, "{}", r.estimate_s);
    assert_eq!(r.estimate_range_s, None);

    // A 21 s recovery sets the rate by itself: 782.2 MB in 20–22 s, within a 21–23 s restart.
    let long = MARIADB_CRASH
        .replace("572420596", "100000000")
        .replace("626061190", "882200000")
        .replace("20:37:21", "20:37:41")
        .replace("20:37:22", "20:37:42");
    let m = RecoveryModel::default()
        .for_server(&mariadb_info(Some(RecoveryLog::parsed("host.err", &long))));
    assert_eq!(m.rate_bytes_per_s, 782_200_000.0 / 21.0);
    assert_eq!(m.startup_s, 1.0);
    assert_eq!(
        m.rate_source,
        "calibrated from this server's recovery of 2026-11-21: 782.2 MB in 21 s, restart 22 s → \
         1.00 s start-up + 37.2 MB/s (the log's whole-second timestamps put redo application \
         anywhere in 20.00–22.00 s: the middle is taken)"
    );
}

#[test]
fn the_host_times_the_restart_when_the_running_server_is_the_recovery() {
    // The running process 10342 took 1.5 s from its start to its pid file: the restart is
    // 1.49–1.51 s, and the redo in it 0–1.51 s (it cannot outlast the restart).
    let timed = |pid, s| {
        RecoveryModel::default().for_server(&mariadb_info(Some(
            RecoveryLog::parsed("host.err", MARIADB_CRASH).timed_by_process(pid, s),
        )))
    };
    let m = timed(10342, 1.5);
    let split = m.split.clone().expect("calibrated");
    assert_eq!(split.restart_s, Some((1.49, 1.51)));
    assert_eq!(split.redo_s, (0.0, 1.51));
    assert!((m.startup_s - 0.745).abs() < 1e-9, "{}", m.startup_s);
    assert!((m.rate_bytes_per_s - 53_640_594.0 / 0.755).abs() < 1e-6);
    assert!(
        m.rate_source.starts_with(
            "calibrated from this server's recovery of 2026-11-21: 53.6 MB in 1 s, restart \
             1.50 s (process start to pid file) → 0.74 s start-up + 71.0 MB/s"
        ),
        "{}",
        m.rate_source
    );
    // Another process, or a time the log's stamps rule out, is another start: the log alone.
    for other in [timed(999, 1.5), timed(10342, 3.5)] {
        assert_eq!(other.split.and_then(|s| s.restart_s), Some((1.0, 3.0)));
    }
    // A clean start after the recovery: the running process is not the one that recovered.
    let later = format!(
        "{MARIADB_CRASH}{}",
        "2026-11-21 21:00:00 0 [Note] Starting MariaDB 10.11.19-MariaDB as process 10342\n"
    );
    let log = RecoveryLog::parsed("host.err", &later).timed_by_process(10342, 1.5);
    assert_eq!(log.calibration().and_then(|c| c.process_restart_s), None);
}

/// The case from the field: a private server killed with one committed row restarts in 0.13 s
/// (timed by the host). Taken as half redo, its 2,898 bytes made 45 kB/s and 138 s for 6.3 MB
/// of redo that the same server recovers in well under a second: it does not calibrate.
#[test]
fn a_near_empty_recovery_does_not_calibrate() {
    let log = RecoveryLog::parsed("host.err", MARIADB_NEAR_EMPTY).timed_by_process(20001, 0.13);
    let m = RecoveryModel::default().for_server(&mariadb_info(Some(log)));
    assert_eq!(m.origin, RateOrigin::Default);
    assert_eq!((m.rate_bytes_per_s, m.startup_s), (80e6, 0.55));
    let why = format!("host.err: the last crash recovery (2026-11-28 09:12:03): {TOO_LITTLE}");
    assert_eq!(
        m.rate_source,
        format!(
            "default rate for MariaDB 10.11: 80.0 MB/s (this project's measured MariaDB 10.11 \
             recoveries); not calibrated: {why}"
        )
    );
    let r = m
        .estimate(&figures(6_300_000, 12_000_000, 0, None))
        .expect("estimate");
    assert!(
        (r.estimate_s - (0.55 + 6.3 / 80.0)).abs() < 1e-9,
        "{}",
        r.estimate_s
    );
    assert_eq!(r.rate_origin, RateOrigin::Default);
    assert_eq!(r.calibration, None);
    assert_eq!(r.not_calibrated.as_deref(), Some(why.as_str()));
    let [passed] = r.passed_over.as_slice() else {
        panic!("one recovery passed over: {:?}", r.passed_over);
    };
    assert_eq!(passed.why, TOO_LITTLE);
    let e = &passed.recovery;
    assert_eq!((e.redo_bytes, e.pages_at_least), (2_898, Some(12)));
    assert_eq!((e.logged_s, e.restart_host_s), (0.0, Some(0.13)));
    assert_eq!(e.from.as_deref(), Some("host.err"));
    // Two of them: the last is named, the one before it counted.
    let earlier = MARIADB_NEAR_EMPTY.replace("09:12:03", "08:00:00");
    let log = RecoveryLog::parsed("host.err", &format!("{earlier}{MARIADB_NEAR_EMPTY}"));
    let m = RecoveryModel::default().for_server(&mariadb_info(Some(log)));
    assert!(
        m.rate_source
            .ends_with("will calibrate (nor can the 1 before it be timed)"),
        "{}",
        m.rate_source
    );
    assert_eq!(m.passed_over.len(), 2);
}

#[test]
fn a_small_last_recovery_calibrates_from_an_earlier_large_one() {
    let log = RecoveryLog::parsed("host.err", &format!("{MARIADB_CRASH}{MARIADB_NEAR_EMPTY}"))
        .timed_by_process(20001, 0.13);
    let m = RecoveryModel::default().for_server(&mariadb_info(Some(log)));
    let alone = RecoveryModel::default().for_server(&mariadb_info(Some(RecoveryLog::parsed(
        "host.err",
        MARIADB_CRASH,
    ))));
    assert_eq!(m.origin, RateOrigin::Calibrated);
    assert_eq!(
        (m.rate_bytes_per_s, m.startup_s, &m.split),
        (alone.rate_bytes_per_s, alone.startup_s, &alone.split)
    );
    assert_eq!(
        m.rate_source,
        format!(
            "{}; the later recovery of 2026-11-28 09:12:03 is passed over: {TOO_LITTLE}",
            alone.rate_source
        )
    );
    let r = m
        .estimate(&figures(6_300_000, 12_000_000, 0, None))
        .expect("estimate");
    assert_eq!(
        r.calibration.map(|e| (e.redo_bytes, e.restart_host_s)),
        Some((53_640_594, None))
    );
    assert_eq!(r.not_calibrated, None);
    assert_eq!(
        r.passed_over
            .iter()
            .map(|p| p.recovery.redo_bytes)
            .collect::<Vec<_>>(),
        [2_898]
    );
}

/// 53.6 MB within one whole second, the restart too: the log alone cannot split it; the
/// host's timing of the restart can.
#[test]
fn a_recovery_within_one_second_calibrates_only_when_the_host_timed_it() {
    let same_second = MARIADB_CRASH
        .replace("20:37:21", "20:37:20")
        .replace("20:37:22", "20:37:20");
    let model = |log: RecoveryLog| RecoveryModel::default().for_server(&mariadb_info(Some(log)));
    let m = model(RecoveryLog::parsed("host.err", &same_second));
    assert_eq!(m.origin, RateOrigin::Default);
    assert!(
        m.rate_source.ends_with(
            "53.6 MB of redo applied within one tick of the log's whole-second timestamps and \
             the host did not time the restart (the server running now is another start): too \
             short to time"
        ),
        "{}",
        m.rate_source
    );
    let m = model(RecoveryLog::parsed("host.err", &same_second).timed_by_process(10342, 0.4));
    assert_eq!(m.origin, RateOrigin::Calibrated);
    let (lo, hi) = m
        .split
        .and_then(|s| s.restart_s)
        .expect("the host's restart");
    assert!(
        (lo - 0.39).abs() < 1e-9 && (hi - 0.41).abs() < 1e-9,
        "{lo}–{hi}"
    );
}

#[test]
fn without_a_log_the_flavour_default_says_so_and_a_given_rate_wins() {
    let m = RecoveryModel::default().for_server(&mariadb_info(None));
    assert_eq!(m.origin, RateOrigin::Default);
    assert_eq!(
        m.rate_source,
        "default rate for MariaDB 10.11: 80.0 MB/s (this project's measured MariaDB 10.11 recoveries)"
    );
    let why = RecoveryLog::unread("the server runs on another host (db1), not here");
    let m = RecoveryModel::default().for_server(&mariadb_info(Some(why)));
    assert!(
        m.rate_source
            .ends_with("; not calibrated: the server runs on another host (db1), not here"),
        "{}",
        m.rate_source
    );
    assert_eq!(
        m.not_calibrated.as_deref(),
        Some("the server runs on another host (db1), not here")
    );
    let given = RecoveryModel::with_rate(1e6).expect("positive");
    let log = RecoveryLog::parsed("host.err", MARIADB_CRASH);
    assert_eq!(given.for_server(&mariadb_info(Some(log))), given);
    // The page-read setting survives the choice of rate.
    let m = RecoveryModel::default()
        .with_page_reads(500.0)
        .for_server(&mariadb_info(None));
    assert_eq!(m.page_reads_per_s, Some(500.0));
    // MySQL 5.7 has no start-up term (the published figures are minutes long).
    assert_eq!(MYSQL_57_RECOVERY.startup_s, 0.0);
}

#[test]
fn nonsense_rates_are_refused() {
    assert!(RecoveryModel::with_rate(0.0).is_none());
    assert!(RecoveryModel::with_rate(f64::NAN).is_none());
    assert_eq!(
        RecoveryModel::default()
            .with_page_reads(-1.0)
            .page_reads_per_s,
        None
    );
}

/// MySQL 5.7 / MariaDB < 10.5.7 (`log0log.cc log_calc_max_ages`, `log_checkpoint_margin`): past
/// the sync point (margin − margin/16) user threads flush, and only at `max_checkpoint_age`
/// (the margin) a synchronous checkpoint is forced, so the worst case is taken there — 6.7 %
/// more redo than at sync. 2 × 48 MiB: margin 80,826,164, sync 75,774,529.
#[test]
fn worst_case_on_57_is_max_checkpoint_age_not_the_sync_point() {
    let p = innodebt_server::flavor::mysql_57_points(48 * 1024 * 1024, 2, 16384, 0);
    assert_eq!((p.sync_point, p.worst_case_age()), (75_774_529, 80_826_164));
    let mut f = figures(1_000_000, p.sync_point, 0, None);
    f.redo.max_checkpoint_age_bytes = p.max_checkpoint_age;
    let m = RecoveryModel::with_rate(1_000_000.0).expect("positive");
    let r = m.estimate(&f).expect("estimate");
    assert_eq!(r.worst_case_redo_bytes, Some(80_826_164));
    assert!(
        r.worst_case_s
            .is_some_and(|w| (w - 80.826_164).abs() < 1e-9)
    );
    // Elsewhere (MySQL 8.0+, MariaDB ≥ 10.5.7) the stall line is the worst case.
    let eight = innodebt_server::flavor::mysql_8030_points(100 * 1024 * 1024);
    assert_eq!(eight.worst_case_age(), eight.sync_point);
}
