//! Error-log calibration: real recovery logs of MariaDB and MySQL, and odd ones.

use chrono::{TimeZone, Utc};

use super::*;

/// A MariaDB 10.11.19 start after `kill -9` under load (this project's lab; paths shortened).
const MARIADB_CRASH: &str = "\
2026-11-21 20:37:20 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843d8475120241667a7ce0f8a1abb6c9b43a273 server_uid fXdYp7ZWAMMBm0PUMZFJoAcM0o0= as process 10342
2026-11-21 20:37:20 0 [Note] mariadbd: Aria engine: starting recovery
recovered pages: 0% 92% 100% (0.0 seconds); tables to flush: 1 0
 (0.0 seconds); 
2026-11-21 20:37:20 0 [Note] mariadbd: Aria engine: recovery done
2026-11-21 20:37:20 0 [Note] InnoDB: Compressed tables use zlib 1.2.13
2026-11-21 20:37:20 0 [Note] InnoDB: Number of transaction pools: 1
2026-11-21 20:37:20 0 [Note] InnoDB: Using io_uring
2026-11-21 20:37:20 0 [Note] InnoDB: innodb_buffer_pool_size_max=8388608m, innodb_buffer_pool_size=256m
2026-11-21 20:37:20 0 [Note] InnoDB: Completed initialization of buffer pool
2026-11-21 20:37:20 0 [Note] InnoDB: Buffered log writes (block size=4096 bytes)
2026-11-21 20:37:20 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=572420596
2026-11-21 20:37:21 0 [Note] InnoDB: End of log at LSN=626061190
2026-11-21 20:37:21 0 [Note] InnoDB: 2 transaction(s) which must be rolled back or cleaned up in total 804 row operations to undo
2026-11-21 20:37:21 0 [Note] InnoDB: Trx id counter is 43899
2026-11-21 20:37:21 0 [Note] InnoDB: To recover: 1603 pages
2026-11-21 20:37:21 0 [Note] InnoDB: 128 rollback segments are active.
2026-11-21 20:37:21 0 [Note] InnoDB: Starting in background the rollback of recovered transactions
2026-11-21 20:37:21 0 [Note] InnoDB: Removed temporary tablespace data file: \"./ibtmp1\"
2026-11-21 20:37:21 0 [Note] InnoDB: Setting file './ibtmp1' size to 12.000MiB. Physically writing the file full; Please wait ...
2026-11-21 20:37:21 0 [Note] InnoDB: File './ibtmp1' size is now 12.000MiB.
2026-11-21 20:37:21 0 [Note] InnoDB: log sequence number 626061190; transaction id 43900
2026-11-21 20:37:21 0 [Note] InnoDB: Loading buffer pool(s) from ./ib_buffer_pool
2026-11-21 20:37:21 0 [Note] Plugin 'FEEDBACK' is disabled.
2026-11-21 20:37:21 0 [Note] InnoDB: Buffer pool(s) load completed at 261121 20:37:21
2026-11-21 20:37:21 0 [Note] InnoDB: Rolled back recovered transaction 43897
2026-11-21 20:37:22 0 [Note] mariadbd: ready for connections.
Version: '10.11.19-MariaDB-0+deb12u1'  socket: 'mysqld.sock'  port: 0  Debian 12
2026-11-21 20:37:22 0 [Note] InnoDB: Rolled back recovered transaction 43893
2026-11-21 20:37:22 0 [Note] InnoDB: Rollback of non-prepared transactions completed
";

/// A clean start of the same server (no redo to apply).
const MARIADB_CLEAN: &str = "\
2026-11-21 21:00:00 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843d8475120241667a7ce0f8a1abb6c9b43a273 server_uid fXdYp7ZWAMMBm0PUMZFJoAcM0o0= as process 11000
2026-11-21 21:00:00 0 [Note] InnoDB: Completed initialization of buffer pool
2026-11-21 21:00:00 0 [Note] InnoDB: End of log at LSN=700000000
2026-11-21 21:00:00 0 [Note] InnoDB: log sequence number 700000000; transaction id 50000
2026-11-21 21:00:01 0 [Note] mariadbd: ready for connections.
";

/// MySQL 8.0 recovery lines (message texts of `log0recv.cc`, ER_IB_MSG numbers as printed).
const MYSQL80_CRASH: &str = "\
2025-03-01T10:00:00.100000Z 0 [System] [MY-010116] [Server] mysqld (mysqld 8.0.36) starting as process 2001
2025-03-01T10:00:00.200000Z 1 [Note] [MY-012557] [InnoDB] Database was not shutdown normally!
2025-03-01T10:00:00.300000Z 1 [Note] [MY-013086] [InnoDB] Starting to parse redo log at lsn = 536973859, whereas checkpoint_lsn = 536974192 and start_lsn = 536973824
2025-03-01T10:00:01.300000Z 1 [Note] [MY-012550] [InnoDB] Doing recovery: scanned up to log sequence number 800000000
2025-03-01T10:00:02.300000Z 1 [Note] [MY-012550] [InnoDB] Doing recovery: scanned up to log sequence number 1036974192
2025-03-01T10:00:02.400000Z 1 [Note] [MY-013083] [InnoDB] Log background threads are being started...
2025-03-01T10:00:02.500000Z 1 [Note] [MY-012532] [InnoDB] Applying a batch of 1200000 redo log records ...
2025-03-01T10:00:04.300000Z 1 [Note] [MY-012535] [InnoDB] Apply batch completed!
2025-03-01T10:00:05.000000Z 0 [System] [MY-010931] [Server] mysqld: ready for connections. Version: '8.0.36'  socket: 'mysql.sock'  port: 3306  MySQL Community Server - GPL.
";

/// MySQL 5.7 (bug #81648's log, shortened; the scan took 16.5 minutes).
const MYSQL57_CRASH: &str = "\
2016-05-30T18:19:04.035978Z 0 [Note] InnoDB: Log scan progressed past the checkpoint lsn 504334603435
2016-05-30T18:19:04.243914Z 0 [Note] InnoDB: Doing recovery: scanned up to log sequence number 504339846144
2016-05-30T18:35:36.104244Z 0 [Note] InnoDB: Doing recovery: scanned up to log sequence number 514865113030
2016-05-30T18:35:36.106714Z 0 [Note] InnoDB: Database was not shutdown normally!
2016-05-30T18:35:36.106724Z 0 [Note] InnoDB: Starting crash recovery.
2016-05-30T18:35:50.885045Z 0 [Note] InnoDB: 79 transaction(s) which must be rolled back or cleaned up in total 632 row operations to undo
2016-05-30T18:35:50.971000Z 0 [Note] InnoDB: Starting an apply batch of log records to the database...
2016-05-30T18:39:04.035978Z 0 [Note] InnoDB: Apply batch completed
2016-05-30T18:39:10.000000Z 0 [Note] mysqld: ready for connections.
";

fn date(y: i32, m: u32, d: u32, hh: u32, mm: u32, ss: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, m, d)
        .and_then(|d| d.and_hms_opt(hh, mm, ss))
        .unwrap_or_default()
}

#[test]
fn mariadb_1011_crash_recovery() {
    let c = calibrate_from_error_log(MARIADB_CRASH).expect("a recovery");
    assert_eq!(c.server, "MariaDB");
    assert_eq!(c.checkpoint_lsn, 572_420_596);
    assert_eq!(c.end_lsn, 626_061_190);
    assert_eq!(c.redo_bytes, 53_640_594);
    assert_eq!(c.pages, Some(1603));
    assert_eq!(c.batches, 1);
    assert_eq!(c.started_at, date(2026, 11, 21, 20, 37, 20));
    // Ends at "log sequence number …; transaction id …", not at "ready for connections".
    assert_eq!(c.finished_at, date(2026, 11, 21, 20, 37, 21));
    assert_eq!(c.seconds, 1.0);
    assert_eq!(c.timestamp_resolution_s, 1.0);
    assert_eq!(c.restart_s, Some(2.0));
    // 1 s by whole-second timestamps: up to 2 s really, the slowest rate the log allows.
    assert_eq!(c.rate_bytes_per_s, 26_820_297.0);
    assert!(c.coarse);
}

#[test]
fn the_last_crash_recovery_wins_and_clean_starts_do_not_count() {
    let older = MARIADB_CRASH
        .replace("572420596", "100")
        .replace("626061190", "1100")
        .replace("20:37:2", "19:37:2");
    let log = format!("{older}{MARIADB_CRASH}{MARIADB_CLEAN}");
    let c = calibrate_from_error_log(&log).expect("a recovery");
    assert_eq!(c.checkpoint_lsn, 572_420_596);
    assert_eq!(
        calibrate_from_error_log(MARIADB_CLEAN),
        Err(CalibrationError::NoCrashRecovery)
    );
}

#[test]
fn sub_second_mariadb_recovery_counts_one_second() {
    let same_second = MARIADB_CRASH.replace("20:37:21", "20:37:20");
    let c = calibrate_from_error_log(&same_second).expect("a recovery");
    assert_eq!(c.seconds, 0.0);
    assert_eq!(c.rate_bytes_per_s, c.redo_bytes as f64);
}

/// A start after `kill -9` with one committed row to redo (2,898 bytes), all in one second.
const MARIADB_NEAR_EMPTY: &str = "\
2026-11-28 09:12:03 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843d8475120241667a7ce0f8a1abb6c9b43a273 server_uid fXdYp7ZWAMMBm0PUMZFJoAcM0o0= as process 20001
2026-11-28 09:12:03 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=700000000
2026-11-28 09:12:03 0 [Note] InnoDB: End of log at LSN=700002898
2026-11-28 09:12:03 0 [Note] InnoDB: To recover: 12 pages
2026-11-28 09:12:03 0 [Note] InnoDB: log sequence number 700002898; transaction id 50000
2026-11-28 09:12:03 0 [Note] mariadbd: ready for connections.
";

#[test]
fn a_small_last_recovery_is_passed_over_for_an_earlier_large_one() {
    let log = format!("{MARIADB_CRASH}{MARIADB_NEAR_EMPTY}{MARIADB_CLEAN}");
    let read = RecoveryLog::parsed("host.err", &log).timed_by_process(20001, 0.13);
    let last = read.calibration().expect("the last recovery");
    assert_eq!((last.redo_bytes, last.process_restart_s), (2_898, None));
    assert_eq!(last.version.as_deref(), Some("10.11.19-MariaDB-0+deb12u1"));
    // Too little redo to time, whatever times it.
    let why = Untimed::TooLittleRedo { redo_bytes: 2_898 };
    assert_eq!(last.untimed(), Some(why.clone()));
    assert!(
        why.to_string()
            .starts_with("2,898 bytes of redo is too little to time")
    );
    let choice = read.choice();
    assert_eq!(choice.passed_over, vec![(last, why)]);
    let taken = choice.timed.expect("the earlier recovery");
    assert_eq!(taken.redo_bytes, 53_640_594);
    assert_eq!(taken.started_at, date(2026, 11, 21, 20, 37, 20));
    // Nothing older than the one taken is kept.
    let older = MARIADB_CRASH.replace("2026-11-21", "2026-11-20");
    let read = RecoveryLog::parsed("host.err", &format!("{older}{log}"));
    assert_eq!(read.earlier.len(), 1);
    // Small ones only: each passed over, newest first, and none taken.
    let small_again = MARIADB_NEAR_EMPTY.replace("09:12:03", "10:00:00");
    let read = RecoveryLog::parsed("host.err", &format!("{MARIADB_NEAR_EMPTY}{small_again}"));
    let choice = read.choice();
    assert_eq!(choice.timed, None);
    let at: Vec<_> = choice
        .passed_over
        .iter()
        .map(|(c, _)| c.started_at)
        .collect();
    assert_eq!(
        at,
        [date(2026, 11, 28, 10, 0, 0), date(2026, 11, 28, 9, 12, 3)]
    );
}

/// A recovery over within one tick of whole-second stamps is "under a second" and no more:
/// timed only when the host timed its restart.
#[test]
fn a_recovery_within_one_tick_is_timed_only_by_the_host() {
    let same_second = MARIADB_CRASH.replace("20:37:21", "20:37:20");
    let read = RecoveryLog::parsed("host.err", &same_second);
    let c = read.calibration().expect("a recovery");
    assert_eq!(c.seconds, 0.0);
    let why = c.untimed().expect("too short");
    assert_eq!(
        why,
        Untimed::TooShort {
            redo_bytes: 53_640_594,
            resolution_s: 1.0
        }
    );
    assert!(why.to_string().contains("whole-second"), "{why}");
    let timed = read.timed_by_process(10342, 1.5);
    assert_eq!(timed.calibration().and_then(Calibration::untimed), None);
    // A log of one second or more times it by itself.
    let c = calibrate_from_error_log(MARIADB_CRASH).expect("a recovery");
    assert_eq!(c.untimed(), None);
}

/// "To recover: N pages" counts what is left of the current batch: the largest is a lower bound.
#[test]
fn the_pages_are_a_lower_bound() {
    let c = calibrate_from_error_log(MARIADB_CRASH).expect("a recovery");
    assert_eq!(c.pages_words().as_deref(), Some("at least 1603 pages"));
    let c = calibrate_from_error_log(MYSQL80_CRASH).expect("a recovery");
    assert_eq!(c.pages_words(), None);
}

#[test]
fn sizes_are_said_so_that_a_small_one_is_not_nothing() {
    assert_eq!(size_words(0), "0 bytes");
    assert_eq!(size_words(2_898), "2,898 bytes");
    assert_eq!(size_words(999_999), "999,999 bytes");
    assert_eq!(size_words(53_640_594), "53.6 MB");
}

#[test]
fn multi_batch_and_progress_lines() {
    let log = "\
2026-01-01  9:00:00 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=1000
2026-01-01  9:00:15 0 [Note] InnoDB: Read redo log up to LSN=900000000
2026-01-01  9:00:30 0 [Note] InnoDB: Multi-batch recovery needed at LSN 950000000
2026-01-01  9:00:45 0 [Note] InnoDB: To recover: LSN 960000000/1000001000; 30000 pages
2026-01-01  9:01:00 0 [Note] InnoDB: Parsed redo log up to LSN=1000001000; to recover: 45000 pages
2026-01-01  9:01:40 0 [Note] InnoDB: 10.6.12 started; log sequence number 1000001000; transaction id 5678
";
    let c = calibrate_from_error_log(log).expect("a recovery");
    assert_eq!(c.redo_bytes, 1_000_000_000);
    assert_eq!(c.pages, Some(45_000));
    assert_eq!(c.batches, 2);
    assert_eq!(c.seconds, 100.0);
    assert_eq!(c.rate_bytes_per_s, 1e9 / 101.0);
    assert!(!c.coarse);
    // No start line: no start-up time.
    assert_eq!(c.restart_s, None);
}

#[test]
fn mysql_80_crash_recovery() {
    let c = calibrate_from_error_log(MYSQL80_CRASH).expect("a recovery");
    assert_eq!(c.server, "MySQL");
    assert_eq!(c.checkpoint_lsn, 536_974_192);
    assert_eq!(c.end_lsn, 1_036_974_192);
    assert_eq!(c.redo_bytes, 500_000_000);
    assert_eq!(c.batches, 1);
    assert_eq!(c.timestamp_resolution_s, 1e-6);
    assert!((c.seconds - 4.0).abs() < 1e-9, "{}", c.seconds);
    assert!((c.rate_bytes_per_s / 125_000_000.0 - 1.0).abs() < 1e-6);
    assert!(!c.coarse);
    assert!(c.restart_s.is_some_and(|s| (s - 4.9).abs() < 1e-9));
}

#[test]
fn mysql_80_clean_start_is_not_a_recovery() {
    let clean = "\
2025-11-10T11:46:31.501928+08:00 1 [Note] [MY-013883] [InnoDB] The latest found checkpoint is at lsn = 30303787 in redo log file ./#innodb_redo/#ib_redo0.
2025-11-10T11:46:31.502072+08:00 1 [Note] [MY-013086] [InnoDB] Starting to parse redo log at lsn = 30303787, whereas checkpoint_lsn = 30303787 and start_lsn = 30303744
2025-11-10T11:46:31.558635+08:00 1 [Note] [MY-012532] [InnoDB] Applying a batch of 0 redo log records ...
2025-11-10T11:46:31.558720+08:00 1 [Note] [MY-012535] [InnoDB] Apply batch completed!
";
    assert_eq!(
        calibrate_from_error_log(clean),
        Err(CalibrationError::NoCrashRecovery)
    );
    let crashed_but_cut = format!(
        "{clean}2025-11-10T11:46:31.6+08:00 1 [Note] [MY-012552] [InnoDB] Starting crash recovery.\n"
    );
    assert_eq!(
        calibrate_from_error_log(&crashed_but_cut),
        Err(CalibrationError::NoEndLsn {
            checkpoint_lsn: 30_303_787
        })
    );
    let scanned = clean.replace(
        "Applying a batch of 0",
        "Doing recovery: scanned up to log sequence number 30303787\n2025-11-10T11:46:31.558635+08:00 1 [Note] [MY-012532] [InnoDB] Applying a batch of 0",
    );
    assert_eq!(
        calibrate_from_error_log(&scanned),
        Err(CalibrationError::NoCrashRecovery)
    );
}

#[test]
fn mysql_57_bug_81648() {
    let c = calibrate_from_error_log(MYSQL57_CRASH).expect("a recovery");
    assert_eq!(c.redo_bytes, 514_865_113_030 - 504_334_603_435);
    assert_eq!(
        c.started_at.and_utc(),
        Utc.with_ymd_and_hms(2016, 5, 30, 18, 19, 4)
            .single()
            .unwrap_or_default()
            + chrono::TimeDelta::microseconds(35_978)
    );
    // 18:19:04.035978 → 18:39:04.035978: exactly 20 minutes.
    assert!((c.seconds - 1_200.0).abs() < 1e-6, "{}", c.seconds);
    assert!(
        (c.rate_bytes_per_s - 8_775_424.6).abs() < 1.0,
        "{}",
        c.rate_bytes_per_s
    );
}

#[test]
fn offsets_are_converted_to_utc() {
    let (a, frac) = parse_timestamp("2025-11-10T11:46:31.5+08:00 1 [Note]").unwrap_or_default();
    assert!(frac);
    assert_eq!(
        a,
        date(2025, 11, 10, 3, 46, 31) + TimeDelta::milliseconds(500)
    );
    assert_eq!(
        parse_timestamp("120314 11:03:18  InnoDB: Completed"),
        Some((date(2012, 3, 14, 11, 3, 18), false))
    );
    assert_eq!(parse_timestamp("InnoDB: Doing recovery"), None);
    assert_eq!(parse_timestamp("Version: '10.11.19'"), None);
}

#[test]
fn unfinished_and_untimed_recoveries_are_errors_that_say_why() {
    let cut: String = MARIADB_CRASH
        .lines()
        .take(15)
        .map(|l| format!("{l}\n"))
        .collect();
    let e = calibrate_from_error_log(&cut).expect_err("cut short");
    assert_eq!(
        e,
        CalibrationError::Unfinished {
            checkpoint_lsn: 572_420_596
        }
    );
    assert!(e.to_string().contains("complete log"), "{e}");
    let untimed = "InnoDB: Starting crash recovery from checkpoint LSN=10\nInnoDB: End of log at LSN=20\nInnoDB: log sequence number 20; transaction id 3\n";
    assert_eq!(
        calibrate_from_error_log(untimed),
        Err(CalibrationError::NoTimestamps)
    );
    assert_eq!(
        calibrate_from_error_log(""),
        Err(CalibrationError::NoCrashRecovery)
    );
}

/// `performance_schema.error_log` (MySQL 8.0.22+) rows give the lines of the file: the same
/// recovery, whatever the session's time zone (the time comes as Unix seconds).
#[test]
fn mysql_error_log_table_reads_like_the_file() {
    let rows = [
        (
            "1740823200.100000",
            "System",
            "MY-010116",
            "Server",
            "mysqld (mysqld 8.0.36) starting as process 2001",
        ),
        (
            "1740823200.200000",
            "Note",
            "MY-012557",
            "InnoDB",
            "Database was not shutdown normally!",
        ),
        (
            "1740823200.300000",
            "Note",
            "MY-013086",
            "InnoDB",
            "Starting to parse redo log at lsn = 536973859, whereas checkpoint_lsn = 536974192 and start_lsn = 536973824",
        ),
        (
            "1740823202.300000",
            "Note",
            "MY-012550",
            "InnoDB",
            "Doing recovery: scanned up to log sequence number 1036974192",
        ),
        (
            "1740823204.300000",
            "Note",
            "MY-012535",
            "InnoDB",
            "Apply batch completed!",
        ),
        (
            "1740823205",
            "System",
            "MY-010931",
            "Server",
            "mysqld: ready for connections.\nVersion: '8.0.36'",
        ),
        ("not a time", "Note", "MY-000000", "Server", "odd"),
    ];
    let text = lines_from_table(rows);
    assert_eq!(text.lines().count(), rows.len());
    assert!(
        text.starts_with("2025-03-01T10:00:00.100000Z 0 [System] [MY-010116] [Server] mysqld"),
        "{text}"
    );
    let c = calibrate_from_error_log(&text).expect("a recovery");
    assert_eq!(c.redo_bytes, 500_000_000);
    assert!((c.seconds - 4.0).abs() < 1e-6, "{}", c.seconds);
    assert_eq!(c.timestamp_resolution_s, 1e-6);
    let from_table = RecoveryLog::parsed("performance_schema.error_log", &text);
    assert_eq!(from_table.calibration(), Some(&c));
}
