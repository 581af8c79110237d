//! How long crash recovery would take if the server died now, and at the worst moment, and
//! where the rate that says so comes from: `--recovery-rate`, else this server's own last
//! crash recovery in its error log (read by the source at connect; parsed in `error_log`),
//! else the default for its flavour and version (`innodebt_server::flavor::RecoveryDefault`, each
//! figure cited there).
//!
//! # The model
//! `estimate_s = startup + max(redo / rate, pages / page_reads_per_s)`
//!
//! - `redo` is the checkpoint age: the redo written since the last checkpoint, which recovery
//!   must parse and apply. The worst case is the most age the server lets build up: on MySQL
//!   5.7 and MariaDB before 10.5.7 `max_checkpoint_age` (`log0log.cc log_checkpoint_margin`
//!   forces a synchronous checkpoint only there; past the sync point, 6.7 % lower, user threads
//!   flush but the age still grows — `log_calc_max_ages`: sync = margin − margin/16); elsewhere
//!   the stall line (MySQL 8.0+'s free-check limit, MariaDB's `M`).
//! - `rate` is an all-in rate (parse, read the pages, apply) because that is what both the
//!   published figures and a calibration measure: the time of a whole recovery.
//! - `startup` is the rest of a restart (process start, buffer pool, the first query): what a
//!   DBA waits for is the server taking queries again. Measured on MariaDB 10.11 here; the
//!   published 5.x figures are minutes long and leave it out.
//! - The page term is a floor, not an addend: every dirty page carries redo newer than the
//!   checkpoint, so recovery must read at least those pages (pages changed after the checkpoint
//!   and flushed since add more), one random read each. It matters when the buffer pool holds
//!   many dirty pages on slow storage. The read rate defaults to the server's
//!   `innodb_io_capacity_max` (the IOPS the DBA told InnoDB the storage can do), else 2,000
//!   (InnoDB's default `innodb_io_capacity_max`), and can be set. A rate calibrated from the
//!   server's own recovery already holds that recovery's page reads, and the IOPS guess is
//!   weaker evidence than it: then only a read rate the DBA sets makes the floor (measured
//!   here: 1,000 dirty pages at 64M took well under the 0.5 s that 2,000 reads/s say).
//! - Rolling back transactions open at the crash is not included: MySQL and MariaDB do it in
//!   the background after the server accepts connections.
//!
//! # Calibration from the server's own log
//! The newest crash recovery in the log that can be timed gives the redo it applied (end LSN −
//! checkpoint LSN), how long applying it took and how long the whole restart took, by the log's
//! own timestamps; when that recovery's process is the server running now, the host times the
//! restart to 10 ms (process start to pid file, `innodebt_poller::live::errlog`). The model is then
//! `startup` = restart − redo application and `rate` = redo ÷ redo application. MariaDB (and
//! MySQL 5.6) print whole seconds, so a span logged as `s` seconds took anywhere in
//! `(s − 1, s + 1)`; redo application cannot outlast the restart around it. Each is taken at the
//! middle of what is left ([`RecoverySplit`]), which keeps the worst error smallest, and the
//! estimate carries the range the ends give. On a quiet machine a 200 MB recovery is about a second: the whole-second
//! stamps cannot split it, but the host-timed restart bounds it, and for a second crash 1.5×
//! the first the split's worst error is a quarter of the estimate. MySQL 5.7+'s microsecond
//! timestamps measure both outright.
//!
//! A recovery whose apply cannot be told from start-up does not calibrate
//! ([`Calibration::untimed`]): under [`MIN_CALIBRATION_REDO_BYTES`] of redo, or over within one
//! tick of the log's timestamps when the host did not time the restart. An earlier recovery in
//! the same log that can be timed is taken instead, else the flavour's default; either way the
//! estimate says which recovery was passed over and why, and the figures carry the evidence.

use serde::{Deserialize, Serialize};

pub use crate::figures::RateOrigin;
use crate::figures::{Bound, Figures, PassedOver, Recovery, RecoveryEvidence};
pub use innodebt_server::error_log::{
    Calibration, CalibrationError, MIN_CALIBRATION_REDO_BYTES, RecoveryLog, Untimed,
    calibrate_from_error_log,
};
use innodebt_server::flavor::RecoveryDefault;
use innodebt_server::sample::ServerInfo;

/// The model before the server is known ([`RecoveryModel::for_server`] replaces it): MySQL
/// 5.7's published figure, the slowest of the defaults.
pub const DEFAULT_RATE_BYTES_PER_S: f64 =
    innodebt_server::flavor::MYSQL_57_RECOVERY.rate_bytes_per_s;
pub const DEFAULT_RATE_SOURCE: &str =
    "default rate before the server is known (MySQL bug #81648: 10.5 GB in ~20 min on 5.7)";
/// Page reads per second when neither the user nor `innodb_io_capacity_max` says.
pub const DEFAULT_PAGE_READS_PER_S: f64 = 2_000.0;

/// How recovery time is estimated: the all-in redo rate, the fixed start-up and the page-read
/// rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryModel {
    pub rate_bytes_per_s: f64,
    /// Where the rate comes from, shown next to every estimate.
    pub rate_source: String,
    /// Pages recovery reads per second (`--recovery-page-reads`); `None`: the server's
    /// `innodb_io_capacity_max`, else [`DEFAULT_PAGE_READS_PER_S`].
    pub page_reads_per_s: Option<f64>,
    /// Seconds of a restart outside redo application.
    #[serde(default)]
    pub startup_s: f64,
    #[serde(default)]
    pub origin: RateOrigin,
    /// The calibrating recovery, with what its timestamps leave open.
    #[serde(default)]
    pub split: Option<RecoverySplit>,
    /// The calibrating recovery as evidence (the figures' `recovery.calibration`).
    #[serde(default)]
    pub calibration: Option<RecoveryEvidence>,
    /// Why the rate is the flavour's default, when the server's log was read.
    #[serde(default)]
    pub not_calibrated: Option<String>,
    /// The log's recoveries that could not be timed, newest first.
    #[serde(default)]
    pub passed_over: Vec<PassedOver>,
}

/// A real recovery's restart as start-up plus redo application, each as the range the evidence
/// allows: a timestamp of whole seconds puts an event anywhere in its second, so a difference of
/// `n` such stamps is anywhere in `(n − 1, n + 1)` — wider than a whole restart on a quiet
/// machine. The host's own timing of the restart (process start to pid file, to 10 ms) narrows
/// the whole, and redo application cannot outlast the restart around it. Taking the middle of
/// each range keeps the worst error smallest; [`RecoverySplit::range`] gives the estimates the
/// ends would give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoverySplit {
    pub redo_bytes: u64,
    /// Redo application: the crash-recovery start to InnoDB up (MySQL: the last apply batch).
    pub redo_s: (f64, f64),
    /// The whole restart to "ready for connections", when the log or the host timed it.
    pub restart_s: Option<(f64, f64)>,
}

impl RecoverySplit {
    /// One clock tick (`CLK_TCK` = 100) of the process start time.
    const PROCESS_TICK_S: f64 = 0.01;

    pub fn of(c: &Calibration) -> Self {
        let res = c.timestamp_resolution_s;
        let window = |n: f64, w: f64| ((n - w).max(0.0), n + w);
        let restart = match (c.process_restart_s, c.restart_s) {
            (Some(p), _) => Some(window(p, Self::PROCESS_TICK_S)),
            (None, Some(l)) => Some(window(l, res)),
            (None, None) => None,
        };
        let mut redo = window(c.seconds, res);
        let restart = restart.map(|(lo, hi)| {
            redo.1 = redo.1.min(hi);
            (lo.max(redo.0), hi)
        });
        RecoverySplit {
            redo_bytes: c.redo_bytes,
            redo_s: redo,
            restart_s: restart,
        }
    }

    /// The restart and its redo application, each the middle of its range; without a timed
    /// restart, `startup_s` is added to the redo.
    pub fn middle(&self, startup_s: f64) -> (f64, f64) {
        let redo = (self.redo_s.0 + self.redo_s.1) / 2.0;
        match self.restart_s {
            Some((lo, hi)) => {
                let restart = (lo + hi) / 2.0;
                (restart, redo.min(restart))
            }
            None => (startup_s + redo, redo),
        }
    }

    /// The lowest and highest estimate for `redo` bytes the ranges allow: the restart scaled
    /// by its redo part, `restart + redo_s × (redo / redo_bytes − 1)`, at the ranges' ends.
    pub fn range(&self, redo: u64, startup_s: f64) -> (f64, f64) {
        let k = redo as f64 / self.redo_bytes.max(1) as f64;
        let (r_lo, r_hi) = self.redo_s;
        let (lo, hi) = match self.restart_s {
            Some((t_lo, t_hi)) if k >= 1.0 => (t_lo + r_lo * (k - 1.0), t_hi + r_hi * (k - 1.0)),
            Some((t_lo, t_hi)) => (t_lo + r_hi * (k - 1.0), t_hi + r_lo * (k - 1.0)),
            None => (startup_s + r_lo * k, startup_s + r_hi * k),
        };
        (lo.max(0.0), hi.max(0.0))
    }
}

impl Default for RecoveryModel {
    fn default() -> Self {
        Self::published_default()
    }
}

/// "782.2 MB": recovery sizes and rates in decimal megabytes, as the benchmarks give them.
fn mb(v: f64) -> String {
    format!("{:.1} MB", v / 1e6)
}

impl RecoveryModel {
    /// The model before the server is known: [`Self::for_server`] picks the server's own.
    pub fn published_default() -> Self {
        RecoveryModel {
            rate_bytes_per_s: DEFAULT_RATE_BYTES_PER_S,
            rate_source: DEFAULT_RATE_SOURCE.to_string(),
            page_reads_per_s: None,
            startup_s: 0.0,
            origin: RateOrigin::Automatic,
            split: None,
            calibration: None,
            not_calibrated: None,
            passed_over: Vec::new(),
        }
    }

    /// The default of one server kind, said as such: "default rate for MariaDB 10.11:
    /// 80.0 MB/s (this project's measured MariaDB 10.11 recoveries)".
    pub fn flavour_default(d: &RecoveryDefault, series: &str) -> Self {
        RecoveryModel {
            rate_bytes_per_s: d.rate_bytes_per_s,
            rate_source: format!(
                "default rate for {series}: {}/s ({})",
                mb(d.rate_bytes_per_s),
                d.basis
            ),
            page_reads_per_s: None,
            startup_s: d.startup_s,
            origin: RateOrigin::Default,
            split: None,
            calibration: None,
            not_calibrated: None,
            passed_over: Vec::new(),
        }
    }

    /// The model for this server: a given rate stays; else its error log's newest crash
    /// recovery that can be timed, calibrated against its flavour's default; else that
    /// default, with why the log did not say. The page-read setting is kept.
    pub fn for_server(&self, info: &ServerInfo) -> RecoveryModel {
        if self.origin == RateOrigin::Given {
            return self.clone();
        }
        let d = info.flavor.recovery_default();
        let series = info.flavor.series();
        let mut m = match info.recovery_log.as_deref() {
            Some(log) => Self::from_log(log, &d, &series),
            None => Self::flavour_default(&d, &series),
        };
        m.page_reads_per_s = self.page_reads_per_s;
        m
    }

    /// The model an error log gives: calibrated from its newest recovery that can be timed
    /// (the newer ones passed over, and said so), else the default `d` of `series` with why.
    pub fn from_log(log: &RecoveryLog, d: &RecoveryDefault, series: &str) -> Self {
        let from = log.from.as_deref();
        let choice = log.choice();
        let passed_over: Vec<PassedOver> = choice
            .passed_over
            .iter()
            .map(|(c, why)| PassedOver {
                recovery: evidence(c, from),
                why: why.to_string(),
            })
            .collect();
        let n = choice.passed_over.len();
        let newest_passed = choice
            .passed_over
            .first()
            .map(|(c, why)| (c.started_at.format("%Y-%m-%d %H:%M:%S"), why));
        let mut m = match (choice.timed, &log.found) {
            (Some(c), _) => {
                let mut m = Self::calibrated(c, d);
                if let Some(e) = m.calibration.as_mut() {
                    e.from = from.map(str::to_string);
                }
                let passed = match &newest_passed {
                    Some((at, why)) if n == 1 => {
                        format!("; the later recovery of {at} is passed over: {why}")
                    }
                    Some((at, why)) => {
                        format!(
                            "; the {n} later recoveries are passed over, the last of {at}: {why}"
                        )
                    }
                    None => String::new(),
                };
                m.rate_source.push_str(&passed);
                m
            }
            (None, found) => {
                let why = match (&newest_passed, found) {
                    (Some((at, why)), _) => format!(
                        "{}: the last crash recovery ({at}): {why}{}",
                        from.unwrap_or("the error log"),
                        match n {
                            1 => String::new(),
                            n => format!(" (nor can the {} before it be timed)", n - 1),
                        }
                    ),
                    (None, Err(why)) => why.clone(),
                    // A recovery found is either timed or passed over: not reached.
                    (None, Ok(_)) => "no crash recovery in this error log can be timed".into(),
                };
                let mut m = Self::flavour_default(d, series);
                m.rate_source.push_str(&format!("; not calibrated: {why}"));
                m.not_calibrated = Some(why);
                m
            }
        };
        m.passed_over = passed_over;
        m
    }

    /// The model of a real recovery: its restart split into start-up and redo application
    /// ([`RecoverySplit`]), each the middle of what the evidence allows. Said as "calibrated
    /// from this server's recovery of 2026-11-20: 782.2 MB in 21 s, restart 22 s → 1.00 s
    /// start-up + 37.2 MB/s".
    pub fn calibrated(c: &Calibration, d: &RecoveryDefault) -> Self {
        let split = RecoverySplit::of(c);
        let (restart, redo_s) = split.middle(d.startup_s);
        let (rate, startup) = if redo_s > 0.0 {
            (c.redo_bytes as f64 / redo_s, restart - redo_s)
        } else {
            (d.rate_bytes_per_s, d.startup_s)
        };
        let whole = c.timestamp_resolution_s >= 1.0;
        let took = if whole {
            format!("{:.0} s", c.seconds)
        } else {
            format!("{:.2} s", c.seconds)
        };
        let restart_said = match (c.process_restart_s, c.restart_s) {
            (Some(p), _) => format!(", restart {p:.2} s (process start to pid file)"),
            (None, Some(l)) if whole => format!(", restart {l:.0} s"),
            (None, Some(l)) => format!(", restart {l:.2} s"),
            (None, None) => String::new(),
        };
        let mut source = format!(
            "calibrated from this server's recovery of {}: {} in {took}{restart_said} → \
             {startup:.2} s start-up + {}/s",
            c.started_at.format("%Y-%m-%d"),
            mb(c.redo_bytes as f64),
            mb(rate)
        );
        if whole {
            let (lo, hi) = split.redo_s;
            source.push_str(&format!(
                " (the log's whole-second timestamps put redo application anywhere in \
                 {lo:.2}–{hi:.2} s: the middle is taken)"
            ));
        }
        RecoveryModel {
            rate_bytes_per_s: rate,
            rate_source: source,
            page_reads_per_s: None,
            startup_s: startup,
            origin: RateOrigin::Calibrated,
            calibration: Some(evidence(c, None)),
            split: Some(split),
            not_calibrated: None,
            passed_over: Vec::new(),
        }
    }

    /// A rate the user gave (`--recovery-rate`). Non-positive or non-finite rates are refused.
    pub fn with_rate(rate_bytes_per_s: f64) -> Option<Self> {
        (rate_bytes_per_s.is_finite() && rate_bytes_per_s > 0.0).then(|| RecoveryModel {
            rate_bytes_per_s,
            rate_source: "--recovery-rate".to_string(),
            page_reads_per_s: None,
            startup_s: 0.0,
            origin: RateOrigin::Given,
            split: None,
            calibration: None,
            not_calibrated: None,
            passed_over: Vec::new(),
        })
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
        let (rate, source) = match f.flush.io_capacity_max.filter(|c| *c > 0) {
            Some(c) => (c as f64, format!("innodb_io_capacity_max ({c})")),
            None => (
                DEFAULT_PAGE_READS_PER_S,
                "default 2000/s (InnoDB's default innodb_io_capacity_max)".to_string(),
            ),
        };
        if self.origin == RateOrigin::Calibrated {
            return (
                rate,
                "not a floor: the calibrated rate includes this server's own page reads"
                    .to_string(),
            );
        }
        (rate, source)
    }

    /// Seconds until the server takes queries again after recovering `redo` bytes and reading
    /// `pages` pages: the start-up plus the larger of the two terms, and which one it was.
    pub fn seconds(&self, redo: u64, pages: Option<u64>, page_reads_per_s: f64) -> (f64, Bound) {
        let redo_s = redo as f64 / self.rate_bytes_per_s.max(f64::MIN_POSITIVE);
        let pages_s = pages.map_or(0.0, |p| p as f64 / page_reads_per_s.max(f64::MIN_POSITIVE));
        if pages_s > redo_s {
            (self.startup_s + pages_s, Bound::Pages)
        } else {
            (self.startup_s + redo_s, Bound::Redo)
        }
    }

    /// The estimate for the moment these figures describe; `None` without a checkpoint age.
    pub fn estimate(&self, f: &Figures) -> Option<Recovery> {
        let redo = f.redo.checkpoint_age_bytes?;
        let pages = f.dirty.pages;
        let (page_reads, page_source) = self.page_reads(f);
        let floor = self.origin != RateOrigin::Calibrated || self.page_reads_per_s.is_some();
        let floor_pages = pages.filter(|_| floor);
        let (estimate_s, bound) = self.seconds(redo, floor_pages, page_reads);
        let worst = f.redo.worst_case_age_bytes();
        let estimate_range_s = self
            .split
            .as_ref()
            .filter(|_| bound == Bound::Redo)
            .map(|s| s.range(redo, self.startup_s));
        Some(Recovery {
            redo_to_apply_bytes: redo,
            estimate_s,
            worst_case_redo_bytes: worst,
            worst_case_s: worst.map(|w| self.seconds(w.max(redo), floor_pages, page_reads).0),
            rate_bytes_per_s: self.rate_bytes_per_s,
            rate_source: self.rate_source.clone(),
            startup_s: self.startup_s,
            pages_to_read: pages,
            page_reads_per_s: page_reads,
            page_read_source: page_source,
            bound_by: bound,
            estimate_range_s,
            rate_origin: self.origin,
            calibration: self.calibration.clone(),
            not_calibrated: self.not_calibrated.clone(),
            passed_over: self.passed_over.clone(),
        })
    }
}

/// A recovery read from the log `from`, as the figures give it: what the log and the host
/// measured, and the ranges they leave ([`RecoverySplit`]).
pub fn evidence(c: &Calibration, from: Option<&str>) -> RecoveryEvidence {
    let split = RecoverySplit::of(c);
    RecoveryEvidence {
        from: from.map(str::to_string),
        started_at: c.started_at,
        finished_at: c.finished_at,
        checkpoint_lsn: c.checkpoint_lsn,
        end_lsn: c.end_lsn,
        redo_bytes: c.redo_bytes,
        pages_at_least: c.pages,
        batches: c.batches,
        logged_s: c.seconds,
        timestamp_resolution_s: c.timestamp_resolution_s,
        restart_logged_s: c.restart_s,
        restart_host_s: c.process_restart_s,
        redo_s: split.redo_s,
        restart_s: split.restart_s,
    }
}

#[cfg(test)]
mod tests;
