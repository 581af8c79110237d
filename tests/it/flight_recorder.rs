//! The flight recorder of `innodebt serve --record-dir` under a long synthetic run: three days
//! of samples (a changing server, a disconnect gap, a variable change) through the same
//! rolling writer `serve` uses. It never holds more than `--max-disk`, keeps what `--retain`
//! asks when the disk allows, rotates on the hour with sortable names, and its directory
//! replays with `innodebt replay DIR` (each file also on its own).

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use innodebt::serve::recorder::{self, Budget, segments};
use innodebt_server::sample::{Sample, ServerInfo, SourceEvent};

fn server() -> ServerInfo {
    common::builders::mariadb(&[("innodb_log_file_size", "16777216")])
}

/// Sample `i` of a server under a wavy write load (values that don't compress to nothing).
fn sample(start: DateTime<Utc>, i: u64, step_s: u64) -> Sample {
    let at = start + chrono::Duration::seconds((i * step_s) as i64);
    let mut s = Sample::new(at, (i * step_s) as f64);
    let wave = (i as f64 / 37.0).sin().abs();
    let noise = (i.wrapping_mul(2_654_435_761) >> 7) % 997;
    let lsn = 1_000_000_000 + i * 50_000 + noise * 13;
    for (k, v) in [
        ("Uptime", 1_000 + i * step_s),
        ("Innodb_lsn_current", lsn),
        (
            "Innodb_lsn_last_checkpoint",
            lsn - (wave * 9_000_000.0) as u64 - noise,
        ),
        (
            "Innodb_history_list_length",
            500 + (wave * 40_000.0) as u64 + noise,
        ),
        ("Innodb_buffer_pool_pages_flushed", i * 40 + noise),
        ("Innodb_buffer_pool_pages_dirty", 300 + noise),
        ("Innodb_buffer_pool_pages_data", 1_800 + noise / 3),
        ("Innodb_buffer_pool_pages_free", 200),
        ("Innodb_os_log_written", i * 50_000 + noise),
        ("Handler_update", i * 300 + noise),
        ("Handler_delete", i * 7),
    ] {
        s.status.insert(k.to_string(), v);
    }
    s.poll_ms = 2 + (noise % 5) as u32;
    s
}

/// Feeds `hours` of samples every `step_s` seconds (with a 5-minute outage in the middle
/// and a variable change); checks the disk after every event batch.
fn run(dir: &Path, budget: &std::sync::Arc<Budget>, hours: u64, step_s: u64) -> DateTime<Utc> {
    let start = Utc
        .with_ymd_and_hms(2025, 3, 1, 10, 17, 5)
        .single()
        .expect("a valid start time");
    let mut rolling = recorder::rolling(dir.join("db1"), std::sync::Arc::clone(budget));
    std::fs::create_dir_all(dir.join("db1")).expect("create db1/");
    rolling
        .append(&SourceEvent::Connected {
            at: start,
            info: server(),
        })
        .expect("append the connection");
    let n = hours * 3600 / step_s;
    let mut last = start;
    for i in 0..n {
        let s = sample(start, i, step_s);
        last = s.taken_at;
        if i == n / 2 {
            rolling
                .append(&SourceEvent::Disconnected {
                    since: s.taken_at,
                    retry_in_ms: 5_000,
                    error: "connection lost".into(),
                })
                .expect("append the disconnection");
            rolling
                .append(&SourceEvent::Connected {
                    at: s.taken_at + chrono::Duration::seconds(300),
                    info: server(),
                })
                .expect("append the reconnection");
        }
        if i == 2 * n / 3 {
            rolling
                .append(&SourceEvent::Variables {
                    at: s.taken_at,
                    variables: [("innodb_max_purge_lag".to_string(), "100000".to_string())].into(),
                })
                .expect("append the variable change");
        }
        rolling
            .append(&SourceEvent::Sample(Box::new(s)))
            .expect("append a sample");
        if i % 200 == 0 {
            let used = budget.used();
            assert!(
                used <= budget.max_disk,
                "after sample {i}: {used} bytes on disk, more than --max-disk {}",
                budget.max_disk
            );
        }
    }
    rolling.close().expect("finish the last file");
    last
}

fn replay_json(path: &Path) -> serde_json::Value {
    let out = Command::new(common::innodebt_bin())
        .args(["replay"])
        .arg(path)
        .args(["--once", "--format", "json"])
        .output()
        .expect("run innodebt replay");
    assert!(
        out.status.success(),
        "replay {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("replay --once JSON")
}

#[test]
fn the_disk_limit_holds_over_three_days_and_the_files_replay() {
    let dir = tempfile::tempdir().unwrap();
    let max_disk = 1_500_000;
    let budget = Budget::new(
        dir.path().to_path_buf(),
        Some(Duration::from_secs(48 * 3600)),
        max_disk,
    );
    let last = run(dir.path(), &budget, 72, 5);
    let files = segments(&dir.path().join("db1"));
    let used: u64 = files.iter().map(|f| f.bytes).sum();
    assert!(used <= max_disk, "{used} > {max_disk}");
    assert!(
        budget.deleted() > 10,
        "old files were deleted: {}",
        budget.deleted()
    );
    assert!(files.len() >= 4, "{files:?}");
    // Names sort in time order and no file spans two hours.
    for pair in files.windows(2) {
        assert!(pair[0].started < pair[1].started, "{pair:?}");
    }
    // The directory replays up to the last sample; the oldest file replays on its own.
    let v = replay_json(&dir.path().join("db1"));
    let at = DateTime::parse_from_rfc3339(v["sampled_at"].as_str().unwrap()).unwrap();
    assert_eq!(at, last);
    assert_eq!(v["server"]["version"], common::builders::MARIADB_VERSION);
    let first = replay_json(&files[0].path);
    assert!(first["history"]["length"].as_u64().is_some(), "{first}");
    // A variable change (after the reconnect) still holds in the files written after it.
    assert_eq!(v["purge"]["max_purge_lag"], 100_000, "{}", v["purge"]);
}

#[test]
fn retention_keeps_the_last_two_days_when_the_disk_allows() {
    let dir = tempfile::tempdir().unwrap();
    let budget = Budget::new(
        dir.path().to_path_buf(),
        Some(Duration::from_secs(48 * 3600)),
        500 << 20,
    );
    let last = run(dir.path(), &budget, 60, 30);
    let files = segments(&dir.path().join("db1"));
    let oldest = files.first().unwrap().started;
    let kept = last - oldest;
    assert!(
        kept >= chrono::Duration::hours(48) && kept <= chrono::Duration::hours(50),
        "kept {kept:?} ({} files)",
        files.len()
    );
    // Hourly files: about one per hour kept.
    assert!((48..=51).contains(&files.len()), "{}", files.len());
}
