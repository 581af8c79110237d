//! Dolphie replay files: the real Dolphie (the version `.ci/run` pins, in its virtualenv)
//! recording a private server in daemon mode ([`Daemon`], [`record`]), and [`lengthen`], which
//! makes a file of any length from a short real recording, for what an import costs.
//!
//! A lengthened file is the recording lap after lap, as the server would have gone on: the
//! same SQLite schema and metadata row (compression dictionary included), every row's JSON
//! kept as Dolphie wrote it except that counters go on from where the last lap left them
//! (each by its own growth over the recording, every LSN by the redo growth), `Uptime` and
//! the row's time move on by the lap's length, and gauges take the recording's values. Rows
//! are compressed against the file's own dictionary, as Dolphie 6.18 does (zstd level 9 by
//! default; a lower level only makes the file a little larger).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use chrono::NaiveDateTime;
use serde_json::Value;

use super::server::PrivateServer;
use super::{gate, laps};

/// Dolphie's own compression level (ReplayManager.COMPRESSION_LEVEL in 6.18).
pub const DOLPHIE_LEVEL: i32 = 9;

/// Where Dolphie is: `INNODEBT_DOLPHIE` (which `.ci/run` exports), or the virtualenv `.ci/run`
/// makes under the repository's `target/`, by the same rule.
pub fn dolphie_bin(skipped: &str) -> Option<PathBuf> {
    let bin = std::env::var_os("INNODEBT_DOLPHIE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/dolphie-venv/bin/dolphie")
        });
    if bin.is_file() {
        return Some(bin);
    }
    gate::missing(
        &format!("Dolphie not found at {}", bin.display()),
        "run .ci/run once (it makes the virtualenv and pip-installs the pinned dolphie), or set INNODEBT_DOLPHIE to a dolphie executable",
        skipped,
    )
}

/// The real Dolphie in daemon mode against `server`, every file of its own in `dir`: its
/// config, the client credentials, its log and the replay directory (HOME too, so nothing
/// of the machine's is read or written).
pub struct Daemon {
    child: Child,
    dir: PathBuf,
    /// The replay file it writes.
    pub file: PathBuf,
}

impl Daemon {
    /// At Dolphie's default refresh interval, 1 s.
    pub async fn start(bin: &Path, server: &PrivateServer, dir: &Path) -> Daemon {
        server
            .sql("CREATE USER IF NOT EXISTS dolphie@'127.0.0.1' IDENTIFIED BY 'dolphie-pw'")
            .await;
        server
            .sql("GRANT ALL PRIVILEGES ON *.* TO dolphie@'127.0.0.1'")
            .await;
        let cnf = dir.join("client.cnf");
        std::fs::write(
            &cnf,
            format!(
                "[client]\nuser=dolphie\npassword=dolphie-pw\nhost=127.0.0.1\nport={}\n",
                server.port()
            ),
        )
        .expect("write client.cnf");
        let config = dir.join("dolphie.cnf");
        std::fs::write(&config, "[dolphie]\n").expect("write dolphie.cnf");
        let replay = dir.join("replay");
        let log = std::fs::File::create(dir.join("dolphie.out")).expect("log");
        let child = Command::new(bin)
            .env("HOME", dir)
            .env_remove("DOLPHIE_CONFIG")
            .arg("--daemon")
            .arg("--replay-dir")
            .arg(&replay)
            .arg("--daemon-log-file")
            .arg(dir.join("daemon.log"))
            .arg("--config-file")
            .arg(&config)
            .arg("--mycnf-file")
            .arg(&cnf)
            .args(["--host", "127.0.0.1", "--port", &server.port().to_string()])
            .args(["--refresh-interval", "1"])
            // Never asks the web for a newer version: loopback, nothing listens there.
            .args(["--pypi-repo", "http://127.0.0.1:9/"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("start dolphie");
        let file = replay
            .join(format!("127.0.0.1_{}", server.port()))
            .join("daemon.db");
        Daemon {
            child,
            dir: dir.to_path_buf(),
            file,
        }
    }

    pub fn log(&self) -> String {
        log_in(&self.dir)
    }

    /// Waits until Dolphie's file holds `n` samples (a row each poll: a second apart, two on a
    /// loaded machine); how many it holds.
    #[track_caller]
    pub fn wait_for_rows(&self, n: u64) -> u64 {
        super::wait::wait_for(
            Duration::from_secs(30 + 3 * n),
            super::wait::OnTimeout(|| {
                format!(
                    "Dolphie's file to hold {n} samples (it holds {:?}): {}",
                    rows(&self.file),
                    self.log()
                )
            }),
            || rows(&self.file).filter(|r| *r >= n),
        )
    }

    /// SIGTERM, as a service manager stops it: Dolphie closes the file (rollback journal).
    pub fn stop(&mut self) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        // On a timeout the panic drops the daemon, which kills it.
        let dir = self.dir.clone();
        super::wait::wait_until(
            Duration::from_secs(30),
            super::wait::OnTimeout(|| format!("dolphie to end on SIGTERM: {}", log_in(&dir))),
            || matches!(self.child.try_wait(), Ok(Some(_))),
        );
    }
}

/// Dolphie's output and its daemon log, in `dir`.
fn log_in(dir: &Path) -> String {
    format!(
        "{}\n{}",
        std::fs::read_to_string(dir.join("dolphie.out")).unwrap_or_default(),
        std::fs::read_to_string(dir.join("daemon.log")).unwrap_or_default()
    )
}

/// The samples (rows) Dolphie's replay file holds so far; `None` while it cannot be read (not
/// there yet, or Dolphie is writing it). A read takes a shared lock for a moment, which
/// Dolphie's writer waits out (Python's sqlite3 waits up to 5 s by default).
pub fn rows(file: &Path) -> Option<u64> {
    let db =
        rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .ok()?;
    let n: i64 = db
        .query_row("SELECT COUNT(*) FROM replay_data", [], |r| r.get(0))
        .ok()?;
    u64::try_from(n).ok()
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A real recording of `server` under `load`'s writes: Dolphie in daemon mode until its file
/// holds `samples` rows, then stopped; the closed file's path (in `dir`).
pub async fn record(bin: &Path, server: &PrivateServer, dir: &Path, samples: u64) -> PathBuf {
    let mut daemon = Daemon::start(bin, server, dir).await;
    daemon.wait_for_rows(samples);
    daemon.stop();
    daemon.file.clone()
}

/// Levels Dolphie records besides those of [`laps`] (a lap takes the recording's own).
const STATUS_GAUGES: &[&str] = &[
    "Innodb_buffer_pool_bytes_data",
    "Max_used_connections",
    "Open_tables",
    "Threads_cached",
    "Threads_connected",
    "Threads_running",
    "wsrep_cluster_size",
];
const METRIC_GAUGES: &[&str] = &["ibuf_size"];

fn is_gauge(section: &str, name: &str) -> bool {
    let (ours, theirs) = match section {
        "global_status" => (STATUS_GAUGES, laps::STATUS_GAUGES),
        _ => (METRIC_GAUGES, laps::METRIC_GAUGES),
    };
    ours.contains(&name) || theirs.contains(&name)
}

/// What [`lengthen`] wrote.
pub struct Lengthened {
    pub rows: u64,
    pub bytes: u64,
    /// Rows and seconds of the recording one lap is.
    pub lap_rows: usize,
    pub lap_seconds: i64,
}

const STAMP: &str = "%Y-%m-%d %H:%M:%S";

fn whole(v: &Value) -> Option<u64> {
    v.as_u64()
}

/// Every integer counter of `section` (a JSON object) in `first` and `last`: its growth.
fn growth(first: &Value, last: &Value, section: &str) -> BTreeMap<String, u64> {
    let (Some(a), Some(b)) = (
        first.get(section).and_then(Value::as_object),
        last.get(section).and_then(Value::as_object),
    ) else {
        return BTreeMap::new();
    };
    let redo = match (
        a.get("Innodb_lsn_current").and_then(whole),
        b.get("Innodb_lsn_current").and_then(whole),
    ) {
        (Some(x), Some(y)) => y.saturating_sub(x),
        _ => 0,
    };
    a.iter()
        .filter(|(k, _)| !is_gauge(section, k) && k.as_str() != "Uptime")
        .filter_map(|(k, x)| {
            let (x, y) = (whole(x)?, b.get(k).and_then(whole)?);
            let g = if k.to_ascii_lowercase().contains("lsn") {
                redo
            } else {
                y.saturating_sub(x)
            };
            Some((k.clone(), g))
        })
        .collect()
}

fn advance(row: &mut Value, section: &str, by: &BTreeMap<String, u64>, laps: u64) {
    if let Some(obj) = row.get_mut(section).and_then(Value::as_object_mut) {
        for (k, g) in by {
            if let Some(v) = obj.get_mut(k)
                && let Some(n) = v.as_u64()
            {
                *v = Value::from(n + g * laps);
            }
        }
    }
}

/// Writes `dst`: `seconds` of rows made from the Dolphie replay file `src` (see the module
/// docs), compressed at `level` against `src`'s dictionary.
pub fn lengthen(src: &Path, dst: &Path, seconds: i64, level: i32) -> Lengthened {
    let db = rusqlite::Connection::open_with_flags(src, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("open the recording");
    let dict: Vec<u8> = db
        .query_row("SELECT compression_dict FROM metadata", [], |r| r.get(0))
        .expect("a recording with its compression dictionary");
    let mut with_dict = zstd::bulk::Decompressor::with_dictionary(&dict).expect("dictionary");
    let mut plain = zstd::bulk::Decompressor::new().expect("zstd");
    // Each row's time, JSON, and its bytes if Dolphie wrote it before it had a dictionary.
    let mut rows: Vec<(NaiveDateTime, Value, Option<Vec<u8>>)> = Vec::new();
    {
        let mut st = db
            .prepare("SELECT timestamp, data FROM replay_data ORDER BY id")
            .expect("rows");
        let mut it = st.query([]).expect("rows");
        while let Some(r) = it.next().expect("a row") {
            let stamp: String = r.get(0).expect("timestamp");
            let blob: Vec<u8> = r.get(1).expect("data");
            // Rows before Dolphie built its dictionary are compressed without one.
            let (json, undictionaried) = match with_dict.decompress(&blob, 64 << 20) {
                Ok(j) if serde_json::from_slice::<Value>(&j).is_ok() => (j, None),
                _ => (
                    plain
                        .decompress(&blob, 64 << 20)
                        .expect("a row zstd can read"),
                    Some(blob),
                ),
            };
            let at = NaiveDateTime::parse_from_str(&stamp, STAMP).expect("a Dolphie timestamp");
            let row = serde_json::from_slice(&json).expect("a JSON row");
            rows.push((at, row, undictionaried));
        }
    }
    assert!(
        rows.len() >= 10,
        "too short a recording: {} rows",
        rows.len()
    );
    let (first, last) = (&rows[0], &rows[rows.len() - 1]);
    // A lap is as long as its rows' times say, or as its Uptime says where a loaded machine
    // stretched one poll between reading Uptime and stamping the row: the next lap's Uptime
    // must never go back.
    let uptime = |row: &Value| row.pointer("/global_status/Uptime").and_then(whole);
    let uptime_span = match (uptime(&first.1), uptime(&last.1)) {
        (Some(a), Some(b)) => i64::try_from(b.saturating_sub(a)).unwrap_or(0),
        _ => 0,
    };
    let lap_seconds = (last.0 - first.0).num_seconds().max(uptime_span) + 1;
    let status = growth(&first.1, &last.1, "global_status");
    let metrics = growth(&first.1, &last.1, "innodb_metrics");

    // The recording's own schema (its CREATE statements) and metadata row.
    let _ = std::fs::remove_file(dst);
    let out = rusqlite::Connection::open(dst).expect("create the file");
    // Dolphie's page size and auto-vacuum; no journal while writing a scratch file.
    out.execute_batch(
        "PRAGMA page_size = 16384; PRAGMA auto_vacuum = FULL; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;",
    )
    .expect("pragmas");
    let schema: Vec<String> = db
        .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .expect("schema");
    for sql in &schema {
        out.execute(sql, []).expect("create");
    }
    drop(db);
    out.execute("ATTACH DATABASE ?1 AS src", [src.to_string_lossy()])
        .expect("attach");
    out.execute_batch(
        "INSERT INTO metadata SELECT * FROM src.metadata; DETACH DATABASE src; BEGIN;",
    )
    .expect("metadata");
    let mut comp = zstd::bulk::Compressor::with_dictionary(level, &dict).expect("compressor");
    let mut n = 0u64;
    {
        let mut ins = out
            .prepare("INSERT INTO replay_data (timestamp, data) VALUES (?1, ?2)")
            .expect("insert");
        'laps: for lap in 0u64.. {
            for (at, row, undictionaried) in &rows {
                let shift = lap as i64 * lap_seconds;
                if (*at - first.0).num_seconds() + shift >= seconds {
                    break 'laps;
                }
                let mut row = row.clone();
                advance(&mut row, "global_status", &status, lap);
                advance(&mut row, "innodb_metrics", &metrics, lap);
                if let Some(up) = row.pointer_mut("/global_status/Uptime")
                    && let Some(u) = up.as_u64()
                {
                    *up = Value::from(u + shift as u64);
                }
                let stamp = (*at + chrono::Duration::seconds(shift))
                    .format(STAMP)
                    .to_string();
                // The first lap's first rows as Dolphie wrote them, before its dictionary.
                let blob = match undictionaried.as_ref().filter(|_| lap == 0) {
                    Some(b) => b.clone(),
                    None => comp
                        .compress(&serde_json::to_vec(&row).expect("json"))
                        .expect("compress"),
                };
                ins.execute(rusqlite::params![stamp, blob]).expect("insert");
                n += 1;
            }
        }
    }
    out.execute_batch("COMMIT;").expect("commit");
    drop(out);
    Lengthened {
        rows: n,
        bytes: std::fs::metadata(dst).map(|m| m.len()).unwrap_or(0),
        lap_rows: rows.len(),
        lap_seconds,
    }
}
