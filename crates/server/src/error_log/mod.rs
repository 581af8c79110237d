//! The server's error log, read for its last crash recovery: how much redo it applied and how
//! long that took. Pure text in, figures out (the reading itself is the source's:
//! `innodebt_poller::live::errlog`); odd lines are skipped, never a panic (`tests/it/parser_props.rs`).
//!
//! The message texts, as the servers print them:
//! - MariaDB 10.5+ (`storage/innobase/log/log0recv.cc`, `srv/srv0start.cc`): "InnoDB: Starting
//!   crash recovery from checkpoint LSN=…" (`recv_recovery_from_checkpoint_start`), "End of log at
//!   LSN=…", "To recover: N pages" / "To recover: LSN …/…; N pages", "Read redo log up to
//!   LSN=…", "Multi-batch recovery needed at LSN …", then "InnoDB: log sequence number …;
//!   transaction id …" (`srv_start`: InnoDB is up) and "mariadbd: ready for connections."
//!   (checked against 10.11.19's binary and real recoveries, `tests/it/recovery.rs`).
//! - MySQL 8.0 (`log0recv.cc`): `ER_IB_MSG_1261` "Starting to parse redo log at lsn = …, whereas
//!   checkpoint_lsn = …" (`recv_scan_log_recs`, checked in the mysql-server tree; MY-013086 in
//!   the log), then as real 8.0 logs print them (bug #103209's log, the samples in the tests):
//!   MY-012550 "Doing recovery: scanned up to log sequence number …", MY-012532 "Applying a
//!   batch of N redo log records ...", MY-012535 "Apply batch completed!", MY-012552 "Starting
//!   crash recovery."; 8.0.30+ also MY-013883 "The latest found checkpoint is at lsn = …".
//!   From anywhere on ≥ 8.0.22 the same lines come from `performance_schema.error_log`
//!   ([`lines_from_table`]).
//! - MySQL 5.6/5.7: "Log scan progressed past the checkpoint lsn …", "Doing recovery: scanned up
//!   to log sequence number …", "Starting an apply batch of log records to the database...",
//!   "Apply batch completed".

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeDelta};
use serde::{Deserialize, Serialize};

/// What reading a server's error log at connect found: where it was read and its last crash
/// recovery, or why there is none to use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryLog {
    /// The file read, or `performance_schema.error_log`; `None` when nothing could be read.
    pub from: Option<String>,
    /// The last crash recovery in it, or why there is none (not on this host, unreadable, no
    /// crash recovery, …) — a sentence for the DBA.
    pub found: Result<Calibration, String>,
    /// The crash recoveries before the last, newest first, back to the first one that can be
    /// timed ([`Calibration::untimed`]): it calibrates when the last cannot. At most
    /// [`MAX_EARLIER`]: a crash-looping server's log is not all kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<Calibration>,
}

/// How many recoveries before the last a [`RecoveryLog`] keeps.
pub const MAX_EARLIER: usize = 8;

/// The recovery a log calibrates from, and the newer ones passed over with why.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice<'a> {
    pub timed: Option<&'a Calibration>,
    /// Newest first.
    pub passed_over: Vec<(&'a Calibration, Untimed)>,
}

impl RecoveryLog {
    /// Nothing read, and why.
    pub fn unread(why: impl Into<String>) -> Self {
        RecoveryLog {
            from: None,
            found: Err(why.into()),
            earlier: Vec::new(),
        }
    }

    /// The text read from `from`, calibrated.
    pub fn parsed(from: impl Into<String>, text: &str) -> Self {
        let from = from.into();
        match recoveries_in_error_log(text) {
            Ok(mut all) => {
                let last = all.remove(0);
                let timed = all.iter().position(|c| c.untimed().is_none());
                all.truncate(timed.map_or(MAX_EARLIER, |i| i + 1).min(MAX_EARLIER));
                RecoveryLog {
                    from: Some(from),
                    found: Ok(last),
                    earlier: all,
                }
            }
            Err(e) => RecoveryLog {
                found: Err(format!("{from}: {e}")),
                from: Some(from),
                earlier: Vec::new(),
            },
        }
    }

    /// The last crash recovery in the log.
    pub fn calibration(&self) -> Option<&Calibration> {
        self.found.as_ref().ok()
    }

    /// The newest recovery that can be timed, and those after it that cannot.
    pub fn choice(&self) -> Choice<'_> {
        let mut passed_over = Vec::new();
        for c in self.calibration().into_iter().chain(&self.earlier) {
            match c.untimed() {
                None => {
                    return Choice {
                        timed: Some(c),
                        passed_over,
                    };
                }
                Some(why) => passed_over.push((c, why)),
            }
        }
        Choice {
            timed: None,
            passed_over,
        }
    }

    /// The running server's process `pid` took `restart_s` from its start to its pid file:
    /// kept when that process is the one whose recovery the log holds.
    pub fn timed_by_process(mut self, pid: u32, restart_s: f64) -> Self {
        if let Ok(c) = self.found.as_mut() {
            c.timed_by_process(pid, restart_s);
        }
        self
    }
}

/// The least redo a recovery must have applied to calibrate. A restart is start-up plus redo
/// application, and the log's whole seconds cannot split a restart of under a second, so the
/// model takes half of it as redo (the engine's `RecoverySplit`). That errs by at most half
/// either way once the apply is at least half the start-up; with less it errs long without
/// bound (2.9 kB of redo in a 0.13 s restart made 45 kB/s, 138 s for 6.3 MB). The floor is
/// where the apply stands out of start-up's own spread from one restart to the next: on
/// MariaDB 10.11 here, host-timed restarts after 4 or 8 MB of redo fell among those after next
/// to none, after 16 MB they cleared them in two runs of three, after 24 MB in all (BENCHMARKS.md,
/// "What a recovery must be to calibrate"). Under one tick of logged apply the host's timing is
/// needed as well ([`Calibration::untimed`]).
pub const MIN_CALIBRATION_REDO_BYTES: u64 = 16_000_000;

/// Why a crash recovery cannot calibrate: its apply time cannot be told from start-up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Untimed {
    #[error(
        "{} of redo is too little to time: start-up hides the apply of less than {}; a crash \
         with more redo will calibrate",
        size_words(*redo_bytes),
        size_words(MIN_CALIBRATION_REDO_BYTES)
    )]
    TooLittleRedo { redo_bytes: u64 },
    #[error(
        "{} of redo applied within one tick of the log's {}timestamps and the host did not time \
         the restart (the server running now is another start): too short to time",
        size_words(*redo_bytes),
        if *resolution_s >= 1.0 { "whole-second " } else { "" }
    )]
    TooShort { redo_bytes: u64, resolution_s: f64 },
}

/// "2,898 bytes" under a megabyte, else "53.6 MB" (decimal, as the recovery benchmarks give
/// sizes): a size said so that a small one does not read as nothing.
pub fn size_words(bytes: u64) -> String {
    if bytes >= 1_000_000 {
        return format!("{:.1} MB", bytes as f64 / 1e6);
    }
    let digits = bytes.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out} bytes")
}

impl Calibration {
    /// Why this recovery cannot calibrate, if it cannot: too little redo (under
    /// [`MIN_CALIBRATION_REDO_BYTES`]), or over within one tick of the log's timestamps with no
    /// timing by the host to bound it (a log of whole seconds then says only "under a second").
    pub fn untimed(&self) -> Option<Untimed> {
        if self.redo_bytes < MIN_CALIBRATION_REDO_BYTES {
            return Some(Untimed::TooLittleRedo {
                redo_bytes: self.redo_bytes,
            });
        }
        (self.seconds < self.timestamp_resolution_s && self.process_restart_s.is_none()).then_some(
            Untimed::TooShort {
                redo_bytes: self.redo_bytes,
                resolution_s: self.timestamp_resolution_s,
            },
        )
    }

    /// "at least 1603 pages": MariaDB's "To recover: N pages" counts the pages still to do in
    /// the current batch, so the largest seen is a lower bound of the recovery's pages.
    pub fn pages_words(&self) -> Option<String> {
        self.pages.map(|p| format!("at least {p} pages"))
    }

    /// Takes the host's timing of the running server's start (`pid`, `restart_s` from the
    /// process start to its pid file) when that start is this recovery: the same process id
    /// on the log's last start line, and a duration the log's own stamps allow (within one
    /// tick of them either way). Anything else is another start, and is left out.
    pub fn timed_by_process(&mut self, pid: u32, restart_s: f64) {
        let fits_log = self
            .restart_s
            .is_none_or(|logged| (restart_s - logged).abs() <= self.timestamp_resolution_s + 0.05);
        if self.last_start
            && self.pid == Some(pid)
            && restart_s.is_finite()
            && restart_s > 0.0
            && fits_log
        {
            self.process_restart_s = Some(restart_s);
        }
    }
}

/// `performance_schema.error_log` rows (`UNIX_TIMESTAMP(LOGGED)`, `PRIO`, `ERROR_CODE`,
/// `SUBSYSTEM`, `DATA`) as the lines MySQL writes to its error log file
/// (`2025-03-01T10:00:00.100000Z 0 [Note] [MY-012550] [InnoDB] …`), for the same parser. A row
/// whose time does not read is written without one (the parser skips untimed lines' times).
pub fn lines_from_table<'a>(
    rows: impl IntoIterator<Item = (&'a str, &'a str, &'a str, &'a str, &'a str)>,
) -> String {
    let mut out = String::new();
    for (logged, prio, code, subsystem, data) in rows {
        let at = logged
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite())
            .and_then(|s| {
                let whole = s.floor();
                let micros = ((s - whole) * 1e6).round() as u32;
                chrono::DateTime::from_timestamp(whole as i64, micros.min(999_999) * 1_000)
            })
            .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.6fZ ").to_string())
            .unwrap_or_default();
        // One line per row: a message with newlines would otherwise start lines of its own.
        let data = data.replace(['\n', '\r'], " ");
        out.push_str(&format!("{at}0 [{prio}] [{code}] [{subsystem}] {data}\n"));
    }
    out
}

/// A real crash recovery read from an error log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// "MariaDB" or "MySQL" (by the messages found).
    pub server: String,
    pub checkpoint_lsn: u64,
    /// Where the redo ended (MariaDB `End of log at LSN=`; MySQL the last `scanned up to`).
    pub end_lsn: u64,
    pub redo_bytes: u64,
    /// A lower bound of the pages the redo was applied to: the largest MariaDB's `To recover:
    /// N pages` said. Those lines count the pages still to do in the current batch (at its
    /// start and every 15 s), so the recovery touched at least this many; `None` on MySQL.
    pub pages: Option<u64>,
    /// Recovery batches (more than one when the redo did not fit the buffer pool).
    pub batches: u32,
    /// The first recovery line (checkpoint found) and the line that ended redo application
    /// (MariaDB: `log sequence number …; transaction id …`; MySQL: the last `Apply batch
    /// completed`; else `ready for connections`). Local time as the log prints it.
    pub started_at: NaiveDateTime,
    pub finished_at: NaiveDateTime,
    pub seconds: f64,
    /// 1 s for MariaDB's and MySQL 5.6's whole-second timestamps, 1 µs for MySQL 5.7+.
    pub timestamp_resolution_s: f64,
    /// From the server's start line to `ready for connections` by the log's timestamps, when
    /// both are in the log: the whole restart.
    pub restart_s: Option<f64>,
    /// The process id the start line gives ("… as process N").
    #[serde(default)]
    pub pid: Option<u32>,
    /// The server version the start line gives ("Starting MariaDB 10.11.19-MariaDB…", "mysqld
    /// (mysqld 8.0.36) starting"), for the flavour's default when read without a server.
    #[serde(default)]
    pub version: Option<String>,
    /// This recovery's start is the last start in the log: if its process still runs, it is
    /// the running server.
    #[serde(default)]
    pub last_start: bool,
    /// The same restart timed by the host, to its clock tick: from the running process's
    /// start (`/proc/<pid>/stat`) to its pid file (written just before "ready for
    /// connections"). Set by the source ([`Calibration::timed_by_process`]) only when this
    /// recovery's process is the server running now.
    #[serde(default)]
    pub process_restart_s: Option<f64>,
    /// `redo_bytes / (seconds + timestamp_resolution_s)`: whole-second timestamps put the
    /// true duration anywhere in `seconds ± 1`, so this is the slowest rate the log allows —
    /// estimates made with it err long, never short.
    pub rate_bytes_per_s: f64,
    /// The recovery lasted under five ticks of the log's timestamps: the rate is a rough lower
    /// bound. Calibrate from a recovery that took several seconds (a larger checkpoint age).
    pub coarse: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalibrationError {
    #[error(
        "no crash recovery in this error log (MariaDB prints \"InnoDB: Starting crash recovery from checkpoint LSN=\", MySQL \"checkpoint lsn\" / \"checkpoint_lsn =\"): a clean shutdown leaves nothing to recover — use the log of a start after a crash"
    )]
    NoCrashRecovery,
    #[error(
        "the crash recovery from checkpoint LSN {checkpoint_lsn} has no end LSN (\"End of log at LSN=\" or \"scanned up to log sequence number\"): the log is cut short — use the complete error log"
    )]
    NoEndLsn { checkpoint_lsn: u64 },
    #[error(
        "the crash recovery from checkpoint LSN {checkpoint_lsn} does not finish in this log (no \"log sequence number …; transaction id\", \"Apply batch completed\" or \"ready for connections\" line): wait until the server has started, or use the complete log"
    )]
    Unfinished { checkpoint_lsn: u64 },
    #[error(
        "the crash-recovery lines carry no timestamps: calibration needs the server's own error-log timestamps (a journal export without them will not do; read the error log file)"
    )]
    NoTimestamps,
}

/// One log line with the time of the nearest timestamped line at or before it.
struct Line<'a> {
    text: &'a str,
    at: Option<NaiveDateTime>,
    fraction: bool,
}

/// Finds the last crash recovery in a MariaDB 10.5+ or MySQL 5.6–8.x error log and measures it.
pub fn calibrate_from_error_log(text: &str) -> Result<Calibration, CalibrationError> {
    recoveries_in_error_log(text).map(|mut all| all.remove(0))
}

/// Every crash recovery in the log, measured, newest first (never empty); the error is why
/// there is none, as the newest start that tried says it.
pub fn recoveries_in_error_log(text: &str) -> Result<Vec<Calibration>, CalibrationError> {
    let mut at = None;
    let mut fraction = false;
    let lines: Vec<Line> = text
        .lines()
        .map(|l| {
            if let Some((t, frac)) = parse_timestamp(l) {
                at = Some(t);
                fraction = frac;
            }
            Line {
                text: l,
                at,
                fraction,
            }
        })
        .collect();
    // Each server start begins a segment; a log without start lines is one segment.
    let mut starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| is_start_line(l.text))
        .map(|(i, _)| i)
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut first_error = None;
    let mut found = Vec::new();
    for (k, &start) in starts.iter().enumerate().rev() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        match segment(&lines[start..end], k + 1 == starts.len()) {
            Ok(Some(c)) => found.push(c),
            Ok(None) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if found.is_empty() {
        return Err(first_error.unwrap_or(CalibrationError::NoCrashRecovery));
    }
    Ok(found)
}

fn is_start_line(l: &str) -> bool {
    // MariaDB ≥ 10.4 "Starting MariaDB 10.11.19-… as process N"; MySQL and older MariaDB
    // "mysqld (mysqld 8.0.36) starting as process N".
    l.contains(" as process ")
        && (l.contains("Starting MariaDB") || l.contains("starting as process"))
}

/// The crash recovery of one server start, if it had one.
fn segment(lines: &[Line], last_start: bool) -> Result<Option<Calibration>, CalibrationError> {
    let mut server = "";
    let mut checkpoint: Option<u64> = None;
    let mut started_at = None;
    let mut end_exact = None;
    let mut end_seen: Option<u64> = None;
    let mut pages: Option<u64> = None;
    let mut multi_batch = 0u32;
    let mut apply_batches = 0u32;
    let mut innodb_ready = None;
    let mut apply_done = None;
    let mut ready = None;
    let mut fraction = false;
    // MySQL prints its checkpoint on every start; these lines say this one is a crash.
    let crashed = lines.iter().any(|l| {
        l.text.contains("Database was not shutdown normally")
            || l.text.contains("Starting crash recovery")
    });
    for l in lines {
        let t = l.text;
        let checkpoint_here = num_after(t, "Starting crash recovery from checkpoint LSN=")
            .map(|n| (n, "MariaDB"))
            .or_else(|| {
                num_after(t, "Log scan progressed past the checkpoint lsn ").map(|n| (n, "MySQL"))
            })
            .or_else(|| num_after(t, "whereas checkpoint_lsn = ").map(|n| (n, "MySQL")))
            .or_else(|| {
                num_after(t, "The latest found checkpoint is at lsn = ").map(|n| (n, "MySQL"))
            });
        if let Some((n, who)) = checkpoint_here {
            if checkpoint.is_none() {
                started_at = l.at;
            }
            // MySQL 8.0.30+ prints the checkpoint twice; keep one.
            checkpoint = Some(n);
            server = who;
            fraction |= l.fraction;
            continue;
        }
        if checkpoint.is_none() {
            continue;
        }
        fraction |= l.fraction;
        if let Some(n) = num_after(t, "End of log at LSN=") {
            end_exact = Some(n);
        }
        for marker in [
            "Read redo log up to LSN=",
            "Parsed redo log up to LSN=",
            "Doing recovery: scanned up to log sequence number ",
        ] {
            if let Some(n) = num_after(t, marker) {
                end_seen = end_seen.max(Some(n));
            }
        }
        if let Some(rest) = after(t, "To recover: LSN ")
            && let Some((_, end)) = rest.split_once('/')
        {
            end_seen = end_seen.max(leading_number(end));
        }
        if t.contains("ecover: ") && t.contains(" pages") {
            pages = pages.max(number_before(t, " pages"));
        }
        if t.contains("Multi-batch recovery needed") {
            multi_batch += 1;
        }
        if t.contains("Applying a batch of") || t.contains("Starting an apply batch") {
            apply_batches += 1;
        }
        if t.contains("Apply batch completed") {
            apply_done = l.at;
        }
        if t.contains("InnoDB: ")
            && t.contains("log sequence number ")
            && t.contains("transaction id")
        {
            innodb_ready = l.at;
            end_seen = end_seen.max(num_after(t, "log sequence number "));
        }
        if t.contains("ready for connections") {
            ready = l.at;
            break;
        }
    }
    let Some(checkpoint_lsn) = checkpoint else {
        return Ok(None);
    };
    let Some(end_lsn) = end_exact.or(end_seen) else {
        return if crashed {
            Err(CalibrationError::NoEndLsn { checkpoint_lsn })
        } else {
            Ok(None)
        };
    };
    if end_lsn <= checkpoint_lsn {
        // MySQL 8 prints the checkpoint on every start: nothing past it, nothing recovered.
        return Ok(None);
    }
    let finished = if server == "MariaDB" {
        innodb_ready.or(ready)
    } else {
        apply_done.or(ready)
    };
    let (Some(started_at), Some(finished_at)) = (started_at, finished) else {
        return Err(if started_at.is_none() {
            CalibrationError::NoTimestamps
        } else {
            CalibrationError::Unfinished { checkpoint_lsn }
        });
    };
    let resolution = if fraction { 1e-6 } else { 1.0 };
    let seconds = secs(finished_at - started_at).max(0.0);
    let started_line = lines.first().filter(|l| is_start_line(l.text));
    let restart_s = match (started_line, ready) {
        (Some(first), Some(ready)) => first.at.map(|s| secs(ready - s).max(0.0)),
        _ => None,
    };
    let pid = started_line
        .and_then(|l| num_after(l.text, " as process "))
        .and_then(|n| u32::try_from(n).ok());
    let version = started_line.and_then(|l| {
        let v = after(l.text, "Starting MariaDB ").or_else(|| after(l.text, "(mysqld "))?;
        let v = v.split([' ', ')']).next().filter(|v| !v.is_empty())?;
        Some(v.to_string())
    });
    let redo_bytes = end_lsn - checkpoint_lsn;
    Ok(Some(Calibration {
        server: server.to_string(),
        checkpoint_lsn,
        end_lsn,
        redo_bytes,
        pages,
        batches: if server == "MariaDB" {
            multi_batch + 1
        } else {
            apply_batches.max(1)
        },
        started_at,
        finished_at,
        seconds,
        timestamp_resolution_s: resolution,
        restart_s,
        pid,
        version,
        last_start,
        process_restart_s: None,
        rate_bytes_per_s: redo_bytes as f64 / (seconds + resolution),
        coarse: seconds < 5.0 * resolution,
    }))
}

fn secs(d: TimeDelta) -> f64 {
    d.num_microseconds()
        .map_or(d.num_seconds() as f64, |us| us as f64 / 1e6)
}

fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.find(marker).map(|i| &line[i + marker.len()..])
}

fn leading_number(s: &str) -> Option<u64> {
    let digits: &str = &s[..s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len())];
    digits.parse().ok()
}

fn num_after(line: &str, marker: &str) -> Option<u64> {
    leading_number(after(line, marker)?)
}

/// The number that ends just before `marker` (`"To recover: 1603 pages"` → 1603).
fn number_before(line: &str, marker: &str) -> Option<u64> {
    let head = &line[..line.find(marker)?];
    let start = head
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    head[start..].parse().ok()
}

/// The timestamp a line starts with, and whether it has a fraction of a second:
/// `2016-05-30T18:19:04.035978Z` / `…+08:00` (MySQL 5.7+, converted to UTC),
/// `2024-01-07  9:42:10` (MariaDB, hour space-padded; MySQL 5.6) and `120314 11:03:18` (old).
fn parse_timestamp(line: &str) -> Option<(NaiveDateTime, bool)> {
    let s = line.trim_start();
    let b = s.as_bytes();
    if b.len() >= 19 && b.get(10) == Some(&b'T') {
        let base = NaiveDateTime::parse_from_str(s.get(..19)?, "%Y-%m-%dT%H:%M:%S").ok()?;
        let mut rest = &s[19..];
        let mut at = base;
        let mut fraction = false;
        if let Some(frac) = rest.strip_prefix('.') {
            let n = frac
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(frac.len());
            let digits = &frac[..n];
            if !digits.is_empty() {
                let padded: String = digits
                    .chars()
                    .chain(std::iter::repeat('0'))
                    .take(9)
                    .collect();
                let nanos: i64 = padded.parse().ok()?;
                at += TimeDelta::nanoseconds(nanos);
                fraction = true;
            }
            rest = &frac[n..];
        }
        if let Some(sign) = rest.chars().next().filter(|c| *c == '+' || *c == '-') {
            let hh: i64 = rest.get(1..3)?.parse().ok()?;
            let mm: i64 = rest.get(4..6)?.parse().ok()?;
            let offset = TimeDelta::minutes(hh * 60 + mm);
            at = if sign == '+' {
                at - offset
            } else {
                at + offset
            };
        }
        return Some((at, fraction));
    }
    let mut words = s.split_whitespace();
    let (date, time) = (words.next()?, words.next()?);
    let date = match date.len() {
        10 => NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?,
        6 if date.bytes().all(|c| c.is_ascii_digit()) => {
            NaiveDate::parse_from_str(date, "%y%m%d").ok()?
        }
        _ => return None,
    };
    let mut hms = time.split(':').map(|p| p.parse::<u32>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() {
        return None;
    }
    Some((date.and_time(NaiveTime::from_hms_opt(h, m, sec)?), false))
}

#[cfg(test)]
mod tests;
