//! The server's error log, read once per connection (a restart is a new connection): its last
//! crash recovery calibrates the recovery estimate. MySQL 8.0.22+ serves it over SQL
//! (`performance_schema.error_log`) to any host; otherwise it is the file `@@log_error`
//! (relative to `@@datadir`), read only when innodebt runs on the database host.
//!
//! "On the database host" is decided from what both sides can check: the connection is a
//! Unix socket, or the server's `@@hostname` is this machine's; and `@@datadir` exists here
//! as a directory. A TCP port forwarded from elsewhere, or a container's server, fails one of
//! these, and its log is not read (a file of the same name here would be another server's).
//!
//! On the host the running server's start is also timed, to the clock tick: its process start
//! (`/proc/<pid>/stat`, the pid from `@@pid_file`) to the pid file's modification time (the
//! server writes it after its storage engines are up, just before "ready for connections").
//! That times the last recovery when it was this start ([`innodebt_server::error_log::Calibration::
//! timed_by_process`] checks); the log's whole-second stamps cannot time a restart of a second.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mysql_async::Conn;

use innodebt_server::error_log::RecoveryLog;
use innodebt_server::flavor::{ERROR_LOG_FILE_SQL, ERROR_LOG_TABLE_SQL, Flavor};

use super::query::{rows, value_text};

/// The newest part of the file read: a crash recovery is a few hundred lines, and error logs
/// that are never rotated grow to gigabytes.
pub const TAIL_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the error log and finds its last crash recovery; never fails the connection.
pub(super) async fn read(conn: &mut Conn, flavor: &Flavor, limit: Duration) -> RecoveryLog {
    // Refused (privilege): the file may still be readable on this host.
    if flavor.has_error_log_table()
        && let Ok(rs) = rows(conn, ERROR_LOG_TABLE_SQL, limit).await
    {
        let cells: Vec<[String; 5]> = rs
            .iter()
            .map(|r| std::array::from_fn(|i| r.as_ref(i).and_then(value_text).unwrap_or_default()))
            .collect();
        let text =
            innodebt_server::error_log::lines_from_table(cells.iter().map(|[a, b, c, d, e]| {
                (a.as_str(), b.as_str(), c.as_str(), d.as_str(), e.as_str())
            }));
        return RecoveryLog::parsed("performance_schema.error_log", &text);
    }
    let socket = conn.opts().socket().is_some();
    let vars = match rows(conn, ERROR_LOG_FILE_SQL, limit).await {
        Ok(rs) => rs.first().map(|r| {
            let cell = |i| r.as_ref(i).and_then(value_text).unwrap_or_default();
            (cell(0), cell(1), cell(2), cell(3))
        }),
        Err(_) => None,
    };
    let Some((log_error, datadir, hostname, pid_file)) = vars else {
        return RecoveryLog::unread("the server did not say where its error log is (@@log_error)");
    };
    let local = local_hostname();
    tokio::task::spawn_blocking(move || {
        let log = read_file(&log_error, &datadir, &hostname, socket, local.as_deref());
        match time_process_start(&pid_file, &datadir) {
            Some((pid, restart_s)) if log.from.is_some() => log.timed_by_process(pid, restart_s),
            _ => log,
        }
    })
    .await
    .unwrap_or_else(|e| RecoveryLog::unread(format!("reading the error log failed: {e}")))
}

/// This machine's host name (`gethostname`), if it has one.
fn local_hostname() -> Option<String> {
    nix::unistd::gethostname()
        .ok()
        .map(|h| h.to_string_lossy().into_owned())
}

/// The error log file, when the server is on this host and the file is readable.
pub fn read_file(
    log_error: &str,
    datadir: &str,
    hostname: &str,
    socket: bool,
    local_hostname: Option<&str>,
) -> RecoveryLog {
    let name = log_error.trim();
    if name.is_empty() || name.eq_ignore_ascii_case("stderr") {
        return RecoveryLog::unread(
            "the server logs to stderr (@@log_error is empty), e.g. the systemd journal: \
             set log_error to a file to calibrate from it",
        );
    }
    let same_name = local_hostname.is_some_and(|l| short(l) == short(hostname));
    if !socket && !same_name {
        return RecoveryLog::unread(format!(
            "the server runs on {hostname}, not here: its error log is not readable from \
             this host (run innodebt there, or give --recovery-rate)"
        ));
    }
    if !Path::new(datadir).is_dir() {
        return RecoveryLog::unread(format!(
            "the server's datadir {datadir} is not on this host (a container or a forwarded \
             socket?): its error log is not readable from here"
        ));
    }
    let path = if Path::new(name).is_absolute() {
        PathBuf::from(name)
    } else {
        Path::new(datadir).join(name)
    };
    match tail(&path) {
        Ok(text) => RecoveryLog::parsed(path.display().to_string(), &text),
        Err(e) => RecoveryLog::unread(format!(
            "cannot read the error log {}: {e} (innodebt needs read access to it, e.g. the \
             server's group)",
            path.display()
        )),
    }
}

/// The running server's pid and the seconds from its process start to its pid file, when both
/// are readable here (Linux `/proc`; only called once the server is known to be on this host).
pub fn time_process_start(pid_file: &str, datadir: &str) -> Option<(u32, f64)> {
    let name = pid_file.trim();
    let path = if Path::new(name).is_absolute() {
        PathBuf::from(name)
    } else {
        Path::new(datadir).join(name)
    };
    let pid: u32 = std::fs::read_to_string(&path).ok()?.trim().parse().ok()?;
    let written = std::fs::metadata(&path).ok()?.modified().ok()?;
    let started = process_started(pid)?;
    // Both ends are read to the clock tick (10 ms): a file written within a tick of the start
    // can read as written a little before it.
    let s = match written.duration_since(started) {
        Ok(d) => d.as_secs_f64(),
        Err(e) if e.duration() <= TICK_SLACK => 0.0,
        Err(_) => return None,
    };
    Some((pid, s))
}

/// How far a pid file may seem to predate its process: two clock ticks at 100 Hz.
const TICK_SLACK: Duration = Duration::from_millis(20);

/// When process `pid` started, by the wall clock: its start in clock ticks after boot
/// (`/proc/<pid>/stat` field 22) against the time since boot now (`/proc/uptime`).
fn process_started(pid: u32) -> Option<std::time::SystemTime> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields count after the last ')'.
    let after_comm = &stat[stat.rfind(')')? + 1..];
    let ticks: u64 = after_comm.split_whitespace().nth(19)?.parse().ok()?;
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .filter(|h| *h > 0)?;
    let now = std::time::SystemTime::now();
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let age = uptime - ticks as f64 / hz as f64;
    (age.is_finite() && age >= 0.0)
        .then(|| now.checked_sub(Duration::from_secs_f64(age)))
        .flatten()
}

/// `db1.example.com` and `db1` are the same host.
fn short(host: &str) -> &str {
    host.split('.').next().unwrap_or(host)
}

fn tail(path: &Path) -> std::io::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    if len > TAIL_BYTES {
        f.seek(SeekFrom::Start(len - TAIL_BYTES))?;
    }
    let mut buf = Vec::new();
    f.take(TAIL_BYTES).read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_host_stderr_and_a_missing_datadir_are_said() {
        let dir = std::env::temp_dir();
        let d = dir.to_string_lossy();
        let why = |l: RecoveryLog| l.found.expect_err("not read");
        assert!(why(read_file("", &d, "h", true, Some("h"))).contains("stderr"));
        assert!(why(read_file("x.err", &d, "db9", false, Some("here"))).contains("runs on db9"));
        assert!(
            why(read_file("x.err", "/no/such/datadir", "h", true, Some("h")))
                .contains("not on this host")
        );
        // Same host by name (short names match), relative to the datadir, but missing.
        let e = why(read_file(
            "no-such-innodebt.err",
            &d,
            "h.example.com",
            false,
            Some("h"),
        ));
        assert!(e.contains("cannot read the error log"), "{e}");
        assert!(e.contains("no-such-innodebt.err"), "{e}");
    }

    #[test]
    fn the_running_process_is_timed_from_its_start_to_its_pid_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path().to_string_lossy().into_owned();
        // This test's own process, started before the file is written.
        std::fs::write(
            dir.path().join("me.pid"),
            format!("{}\n", std::process::id()),
        )
        .expect("write pid file");
        let (pid, s) = time_process_start("me.pid", &d).expect("timed");
        assert_eq!(pid, std::process::id());
        assert!((0.0..3_600.0).contains(&s), "{s}");
        // No pid file, or not a pid in it: not timed.
        assert_eq!(time_process_start("none.pid", &d), None);
        std::fs::write(dir.path().join("bad.pid"), "x").expect("write");
        assert_eq!(time_process_start("bad.pid", &d), None);
    }
}
