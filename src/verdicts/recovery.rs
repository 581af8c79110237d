//! How long crash recovery would take if the server died now, and at the worst moment; and the
//! calibration of that estimate from a real recovery in a server's error log.
//!
//! # The model
//! `estimate_s = max(redo / rate, pages / page_reads_per_s)`
//!
//! - `redo` is the checkpoint age: the redo written since the last checkpoint, which recovery
//!   must parse and apply. The worst case is the most age the server lets build up: on MySQL
//!   5.7 and MariaDB before 10.5.7 `max_checkpoint_age` (`log0log.cc log_checkpoint_margin`
//!   forces a synchronous checkpoint only there; past the sync point, 6.7 % lower, user threads
//!   flush but the age still grows — `log_calc_max_ages`: sync = margin − margin/16); elsewhere
//!   the stall line (MySQL 8.0+'s free-check limit, MariaDB's `M`).
//! - `rate` is an all-in rate (parse, read the pages, apply) because that is what both the
//!   published figures and a calibration measure: the time of a whole recovery.
//! - The page term is a floor, not an addend: every dirty page carries redo newer than the
//!   checkpoint, so recovery must read at least those pages (pages changed after the checkpoint
//!   and flushed since add more), one random read each. It matters when the buffer pool holds
//!   many dirty pages on slow storage. The read rate defaults to the server's
//!   `innodb_io_capacity_max` (the IOPS the DBA told InnoDB the storage can do), else 2,000
//!   (InnoDB's default `innodb_io_capacity_max`), and can be set.
//! - Rolling back transactions open at the crash is not included: MySQL and MariaDB do it in
//!   the background after the server accepts connections.
//!
//! # The default rate
//! [`DEFAULT_RATE_BYTES_PER_S`] = 10 GB / 20 min ≈ 8.3 MB/s, the slow end of the published
//! field figures — an incident estimate should err long:
//! - MySQL bug #81648 (bugs.mysql.com, V. Tkachenko, 2016, MySQL 5.7.12): `kill -9` with ~10 GB
//!   un-checkpointed (LSN 504,334,603,435 → 514,865,113,030 = 10.5 GB); 5.7's log scan alone
//!   took 16.5 min, ~20 min in all (5.6: ~10 min) → 8.8 MB/s.
//! - Percona blog "What is a big innodb_log_file_size?" (2016-05-31) and "Need for parallel
//!   crash recovery in MySQL": crash recovery of ~25 GB of redo took 45 min → 9.3 MB/s.
//! - Percona blog "How long is recovery from 8G innodb_log_file" (2010-12-22, Percona Server
//!   5.5): 7 min 51 s and 9 min 23 s on flash, 14 min 57 s on RAID10, for at most 8 GB of redo
//!   → ≤ 8.9–17 MB/s.
//!
//! Modern servers are much faster (this project's lab, MariaDB 10.11: 48.7 MB in ~1 s, 191.8 MB
//! in ~4 s): calibrate from a real recovery with [`calibrate_from_error_log`] or set the rate.
//!
//! # Calibration
//! [`calibrate_from_error_log`] finds the last crash recovery in an error log and derives the
//! redo applied (end LSN − checkpoint LSN), the time it took (the log's own timestamps) and the
//! rate. The message texts are those of MariaDB 10.5+ `log0recv.cc` / `srv0start.cc` (checked
//! against 10.11.19's binary and a real recovery, `tests/it/recovery.rs`), MySQL 8.0 (`[MY-013086]
//! Starting to parse redo log at lsn = …, whereas checkpoint_lsn = …`, `[MY-012550] Doing
//! recovery: scanned up to log sequence number …`, `[MY-012535] Apply batch completed!`) and
//! MySQL 5.6/5.7 (`Log scan progressed past the checkpoint lsn …`).

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeDelta};
use serde::{Deserialize, Serialize};

use crate::figures::{Bound, Figures, Recovery};
use crate::units::bytes;

/// 10 GB in 20 minutes (see the module docs for the sources).
pub const DEFAULT_RATE_BYTES_PER_S: f64 = 10e9 / 1_200.0;
pub const DEFAULT_RATE_SOURCE: &str = "default (published field figures: ~10 GB in ~20 min)";
/// Page reads per second when neither the user nor `innodb_io_capacity_max` says.
pub const DEFAULT_PAGE_READS_PER_S: f64 = 2_000.0;

/// How recovery time is estimated: the all-in redo rate and the page-read rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryModel {
    pub rate_bytes_per_s: f64,
    /// Where the rate comes from, shown next to every estimate.
    pub rate_source: String,
    /// Pages recovery reads per second; `None`: the server's `innodb_io_capacity_max`, else
    /// [`DEFAULT_PAGE_READS_PER_S`].
    pub page_reads_per_s: Option<f64>,
}

impl Default for RecoveryModel {
    fn default() -> Self {
        Self::published_default()
    }
}

impl RecoveryModel {
    pub fn published_default() -> Self {
        RecoveryModel {
            rate_bytes_per_s: DEFAULT_RATE_BYTES_PER_S,
            rate_source: DEFAULT_RATE_SOURCE.to_string(),
            page_reads_per_s: None,
        }
    }

    /// A rate the user gave (`--recovery-rate`). Non-positive or non-finite rates are refused.
    pub fn with_rate(rate_bytes_per_s: f64) -> Option<Self> {
        (rate_bytes_per_s.is_finite() && rate_bytes_per_s > 0.0).then(|| RecoveryModel {
            rate_bytes_per_s,
            rate_source: "--recovery-rate".to_string(),
            page_reads_per_s: None,
        })
    }

    /// The rate measured in a real recovery; `file_name` names the log it came from.
    pub fn calibrated(c: &Calibration, file_name: &str) -> Self {
        RecoveryModel {
            rate_bytes_per_s: c.rate_bytes_per_s,
            rate_source: format!(
                "calibrated from error log {file_name} ({} in {} s{})",
                bytes(c.redo_bytes),
                if c.timestamp_resolution_s >= 1.0 {
                    format!("{:.0}", c.seconds)
                } else {
                    format!("{:.2}", c.seconds)
                },
                if c.coarse {
                    "; coarse: too short for the log's timestamps"
                } else {
                    ""
                }
            ),
            page_reads_per_s: None,
        }
    }

    /// Sets the page-read rate (`--recovery-page-reads`); non-positive values are ignored.
    pub fn with_page_reads(mut self, per_s: f64) -> Self {
        if per_s.is_finite() && per_s > 0.0 {
            self.page_reads_per_s = Some(per_s);
        }
        self
    }

    /// The page-read rate for these figures and where it comes from.
    pub(crate) fn page_reads(&self, f: &Figures) -> (f64, String) {
        if let Some(r) = self.page_reads_per_s {
            return (r, "--recovery-page-reads".to_string());
        }
        match f.flush.io_capacity_max.filter(|c| *c > 0) {
            Some(c) => (c as f64, format!("innodb_io_capacity_max ({c})")),
            None => (
                DEFAULT_PAGE_READS_PER_S,
                "default 2000/s (InnoDB's default innodb_io_capacity_max)".to_string(),
            ),
        }
    }

    /// Seconds to recover `redo` bytes and read `pages` pages: the larger of the two terms,
    /// and which one it was.
    pub fn seconds(&self, redo: u64, pages: Option<u64>, page_reads_per_s: f64) -> (f64, Bound) {
        let redo_s = redo as f64 / self.rate_bytes_per_s.max(f64::MIN_POSITIVE);
        let pages_s = pages.map_or(0.0, |p| p as f64 / page_reads_per_s.max(f64::MIN_POSITIVE));
        if pages_s > redo_s {
            (pages_s, Bound::Pages)
        } else {
            (redo_s, Bound::Redo)
        }
    }

    /// The estimate for the moment these figures describe; `None` without a checkpoint age.
    pub fn estimate(&self, f: &Figures) -> Option<Recovery> {
        let redo = f.redo.checkpoint_age_bytes?;
        let pages = f.dirty.pages;
        let (page_reads, page_source) = self.page_reads(f);
        let (estimate_s, bound) = self.seconds(redo, pages, page_reads);
        let worst = f.redo.worst_case_age_bytes();
        Some(Recovery {
            redo_to_apply_bytes: redo,
            estimate_s,
            worst_case_redo_bytes: worst,
            worst_case_s: worst.map(|w| self.seconds(w.max(redo), pages, page_reads).0),
            rate_bytes_per_s: self.rate_bytes_per_s,
            rate_source: self.rate_source.clone(),
            pages_to_read: pages,
            page_reads_per_s: page_reads,
            page_read_source: page_source,
            bound_by: bound,
        })
    }
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
    /// Pages the redo was applied to (MariaDB `To recover: N pages`, the largest seen).
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
    /// From the server's start line to `ready for connections`, when both are in the log.
    pub startup_s: Option<f64>,
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
    for (k, &start) in starts.iter().enumerate().rev() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        match segment(&lines[start..end]) {
            Ok(Some(c)) => return Ok(c),
            Ok(None) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or(CalibrationError::NoCrashRecovery))
}

fn is_start_line(l: &str) -> bool {
    // MariaDB ≥ 10.4 "Starting MariaDB 10.11.19-… as process N"; MySQL and older MariaDB
    // "mysqld (mysqld 8.0.36) starting as process N".
    l.contains(" as process ")
        && (l.contains("Starting MariaDB") || l.contains("starting as process"))
}

/// The crash recovery of one server start, if it had one.
fn segment(lines: &[Line]) -> Result<Option<Calibration>, CalibrationError> {
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
    let startup_s = match (lines.first(), ready) {
        (Some(first), Some(ready)) if is_start_line(first.text) => {
            first.at.map(|s| secs(ready - s).max(0.0))
        }
        _ => None,
    };
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
        startup_s,
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
