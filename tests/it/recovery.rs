//! A real crash recovery, measured: a throw-away MariaDB with a 256 MiB redo log runs write
//! load, is `kill -9`ed at a known checkpoint age (~30 % and ~90 % of `M`,
//! `Innodb_checkpoint_max_age`), restarts, and the error log of that restart is calibrated
//! with `verdicts::calibrate_from_error_log`. The test asserts that the real log parses and
//! that the redo it says was applied matches the checkpoint age read just before the kill, and
//! prints estimate vs measured (bytes, seconds, rate) for BENCHMARKS.md.
//!
//! The load is the harness's `WriteLoad` plus a bulk updater, with
//! `innodb_flush_log_at_trx_commit=2` so redo builds up in seconds rather than minutes on a
//! slow-fsync VM; recovery applies the same redo either way.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::wait::wait_for_async_every;
use common::{PrivateServer, ServerConfig, WriteLoad};
use innodebt::verdicts::{Calibration, RecoveryModel, calibrate_from_error_log};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts};

/// The redo log size; `INNODEBT_RECOVERY_LOG_SIZE=1G` for a recovery long enough to outlast
/// the error log's whole-second timestamps (the buffer pool follows it).
fn log_file_size() -> String {
    std::env::var("INNODEBT_RECOVERY_LOG_SIZE").unwrap_or_else(|_| "256M".to_string())
}
/// Page reads/s for the page term of the estimate: MariaDB's default innodb_io_capacity_max.
const PAGE_READS_PER_S: f64 = 2_000.0;

/// One crash and its recovery.
struct Crash {
    label: &'static str,
    max_age: u64,
    /// `Innodb_checkpoint_age` read just before `kill -9`.
    age: u64,
    dirty_pages: u64,
    /// From spawning the restarted server to its first successful query.
    restart: Duration,
    cal: Calibration,
}

/// Rows for the bulk updater to rewrite (a few MB: the table stays in the buffer pool).
async fn fill_table(opts: Opts) {
    let mut conn = Conn::new(opts).await.expect("connect");
    common::ensure_load_table(&mut conn)
        .await
        .expect("create test.load");
    conn.query_drop("INSERT INTO test.load (k, pad) VALUES (1, REPEAT('a', 200))")
        .await
        .expect("first row");
    for _ in 0..14 {
        conn.query_drop("INSERT INTO test.load (k, pad) SELECT k + 1, pad FROM test.load")
            .await
            .expect("double the table");
    }
    let _ = conn.disconnect().await;
}

/// Rewrites 500-row ranges until stopped: ~100 KB of redo per statement.
async fn bulk_updater(opts: Opts, seed: u64, stop: Arc<AtomicBool>) {
    let Ok(mut conn) = Conn::new(opts).await else {
        return;
    };
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while !stop.load(Ordering::Relaxed) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let from = 1 + x % 15_000;
        let letter = char::from(b'a' + (x % 26) as u8);
        let q = format!(
            "UPDATE test.load SET k = k + 1, pad = REPEAT('{letter}', 200) \
             WHERE id BETWEEN {from} AND {}",
            from + 500
        );
        if conn.query_drop(q).await.is_err() {
            return; // the server was killed
        }
    }
}

async fn crash_at(label: &'static str, fraction_of_m: f64) -> Crash {
    let size = log_file_size();
    let cfg = ServerConfig::default()
        .log_file_size(&size)
        .buffer_pool_size(&size)
        .with_args(["--innodb-flush-log-at-trx-commit=2"]);
    let mut server = PrivateServer::start(cfg);
    let max_age = server.status_u64("Innodb_checkpoint_max_age").await;
    fill_table(server.opts()).await;

    let load = WriteLoad::start(server.opts(), 2);
    let stop = Arc::new(AtomicBool::new(false));
    let pumps: Vec<_> = (0..2)
        .map(|i| tokio::spawn(bulk_updater(server.opts(), i + 1, stop.clone())))
        .collect();

    let poll = tokio::sync::Mutex::new(Conn::new(server.opts()).await.expect("poll connection"));
    let target = (max_age as f64 * fraction_of_m) as u64;
    // The crash comes only once the target age is reached (the wait fails the test if it
    // never is), and no later than the look that saw it.
    let conn = &poll;
    let (age, dirty) = wait_for_async_every(
        Duration::from_secs(240),
        Duration::from_millis(20),
        format!("{label}: checkpoint age {target} ({fraction_of_m} of M) under the load"),
        || async move {
            let rows: Vec<(String, String)> = conn
                .lock()
                .await
                .query(
                    "SHOW GLOBAL STATUS WHERE Variable_name IN \
                     ('Innodb_checkpoint_age', 'Innodb_buffer_pool_pages_dirty')",
                )
                .await
                .expect("status");
            let get = |name: &str| {
                rows.iter()
                    .find(|(n, _)| n == name)
                    .and_then(|(_, v)| v.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            let (age, dirty) = (
                get("Innodb_checkpoint_age"),
                get("Innodb_buffer_pool_pages_dirty"),
            );
            (age >= target).then_some((age, dirty))
        },
    )
    .await;
    server.kill9();
    stop.store(true, Ordering::Relaxed);
    drop(poll);
    for p in pumps {
        let _ = p.await;
    }
    load.stop().await;

    let info = server.restart();
    let cal = calibrate_from_error_log(&info.log).unwrap_or_else(|e| {
        panic!(
            "{label}: the real recovery log does not calibrate: {e}\n{}",
            info.log
        )
    });
    // The whole log (install-time start, the loaded start, this recovery) gives the same.
    assert_eq!(
        calibrate_from_error_log(&server.error_log_text()).as_ref(),
        Ok(&cal),
        "{label}: the last recovery in the whole log must be this one"
    );
    Crash {
        label,
        max_age,
        age,
        dirty_pages: dirty,
        restart: info.elapsed,
        cal,
    }
}

fn mb(v: f64) -> String {
    format!("{:.1} MB", v / 1e6)
}

fn report(c: &Crash, calibrated: Option<&RecoveryModel>) {
    let default = RecoveryModel::default();
    let (est_default, _) = default.seconds(c.age, Some(c.dirty_pages), PAGE_READS_PER_S);
    let measured_s = c.restart.as_secs_f64();
    eprintln!(
        "[{}] checkpoint age before kill -9: {} ({:.0} % of M = {}); dirty pages {}",
        c.label,
        mb(c.age as f64),
        c.age as f64 * 100.0 / c.max_age as f64,
        mb(c.max_age as f64),
        c.dirty_pages
    );
    eprintln!(
        "[{}] error log: redo applied {} (LSN {} → {}), {} pages, {} batch(es), {:.0} s by the \
         log's 1-s timestamps ({} → {}), start-up {:?} s; slowest rate the log allows {}/s{}",
        c.label,
        mb(c.cal.redo_bytes as f64),
        c.cal.checkpoint_lsn,
        c.cal.end_lsn,
        c.cal.pages.map_or("?".to_string(), |p| p.to_string()),
        c.cal.batches,
        c.cal.seconds,
        c.cal.started_at.time(),
        c.cal.finished_at.time(),
        c.cal.startup_s,
        mb(c.cal.rate_bytes_per_s),
        if c.cal.coarse { " (coarse)" } else { "" }
    );
    eprintln!(
        "[{}] measured: restart to first query {:.2} s → {}/s of redo; default estimate {:.1} s \
         ({}/s, {})",
        c.label,
        measured_s,
        mb(c.cal.redo_bytes as f64 / measured_s),
        est_default,
        mb(default.rate_bytes_per_s),
        default.rate_source
    );
    if let Some(m) = calibrated {
        let (est, _) = m.seconds(c.age, Some(c.dirty_pages), PAGE_READS_PER_S);
        eprintln!(
            "[{}] estimate calibrated on the other crash: {est:.2} s ({}/s, {}) vs measured {:.2} s",
            c.label,
            mb(m.rate_bytes_per_s),
            m.rate_source,
            measured_s
        );
    }
}

fn check(c: &Crash) {
    assert_eq!(c.cal.server, "MariaDB");
    assert!(c.cal.redo_bytes > 0);
    // The redo applied is the checkpoint age at the kill, give or take what was written or
    // checkpointed in the few milliseconds between reading it and the kill.
    let (lo, hi) = (c.age as f64 * 0.7, c.age as f64 * 1.3 + 8e6);
    assert!(
        (lo..=hi).contains(&(c.cal.redo_bytes as f64)),
        "[{}] redo applied {} vs checkpoint age {}",
        c.label,
        c.cal.redo_bytes,
        c.age
    );
    assert!(
        c.cal.pages.is_some_and(|p| p > 0),
        "[{}] no page count",
        c.label
    );
    assert!(c.cal.rate_bytes_per_s > 0.0);
    assert!(c.cal.startup_s.is_some(), "[{}] no start-up time", c.label);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_crash_recovery_calibrates_and_is_estimated() {
    // One after the other: the timings are the point, and the machine is shared.
    let low = crash_at("~30 % of M", 0.30).await;
    let high = crash_at("~90 % of M", 0.90).await;
    check(&low);
    check(&high);
    assert!(high.cal.redo_bytes > low.cal.redo_bytes);

    let from_low = RecoveryModel::calibrated(&low.cal, "error.log (~30 % crash)");
    let from_high = RecoveryModel::calibrated(&high.cal, "error.log (~90 % crash)");
    report(&low, Some(&from_high));
    report(&high, Some(&from_low));
}
