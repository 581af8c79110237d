//! How long crash recovery would take if the server died now, and at the worst moment, and
//! where the rate that says so comes from: `--recovery-rate`, else this server's own last
//! crash recovery in its error log (read by the source at connect; parsed in `error_log`),
//! else the default for its flavour and version (`source::flavor::RecoveryDefault`, each
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
//! The last crash recovery in the log gives the redo it applied (end LSN − checkpoint LSN) and
//! how long applying it took by the log's own timestamps. MariaDB (and MySQL 5.6) print whole
//! seconds, so a recovery logged as `s` seconds took anywhere in `(s − 1, s + 1)`: the rate is
//! the one of that window nearest the flavour's default (the default when it fits the window,
//! else the window's edge). A recovery of many seconds thus sets the rate by itself; one of a
//! second or two only bounds it, and the rate source says so. MySQL 5.7+'s microsecond
//! timestamps measure it outright.

use serde::{Deserialize, Serialize};

pub use crate::error_log::{Calibration, CalibrationError, calibrate_from_error_log};
use crate::figures::{Bound, Figures, Recovery};
use crate::sample::ServerInfo;
use crate::source::flavor::RecoveryDefault;

/// The model before the server is known ([`RecoveryModel::for_server`] replaces it): MySQL
/// 5.7's published figure, the slowest of the defaults.
pub const DEFAULT_RATE_BYTES_PER_S: f64 = crate::source::flavor::MYSQL_57_RECOVERY.rate_bytes_per_s;
pub const DEFAULT_RATE_SOURCE: &str =
    "default rate before the server is known (MySQL bug #81648: 10.5 GB in ~20 min on 5.7)";
/// Page reads per second when neither the user nor `innodb_io_capacity_max` says.
pub const DEFAULT_PAGE_READS_PER_S: f64 = 2_000.0;

/// Where the rate of a model comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateOrigin {
    /// Not chosen yet: the server's log or its flavour's default will say.
    #[default]
    Automatic,
    /// `--recovery-rate`: wins over everything.
    Given,
    /// This server's last crash recovery in its error log.
    Calibrated,
    /// The flavour's default (no readable log, or no crash recovery in it).
    Default,
}

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
        }
    }

    /// The model for this server: a given rate stays; else its error log's last crash
    /// recovery, calibrated against its flavour's default; else that default, with why the
    /// log did not say. The page-read setting is kept.
    pub fn for_server(&self, info: &ServerInfo) -> RecoveryModel {
        if self.origin == RateOrigin::Given {
            return self.clone();
        }
        let d = info.flavor.recovery_default();
        let series = info.flavor.series();
        let mut m = match info.recovery_log.as_ref().map(|l| &l.found) {
            Some(Ok(c)) => Self::calibrated(c, &d, &series),
            Some(Err(why)) => {
                let mut m = Self::flavour_default(&d, &series);
                m.rate_source.push_str(&format!("; not calibrated: {why}"));
                m
            }
            None => Self::flavour_default(&d, &series),
        };
        m.page_reads_per_s = self.page_reads_per_s;
        m
    }

    /// The rate of a real recovery: of the durations its timestamps allow, the one nearest
    /// the default `d` (see the module docs). Said as "calibrated from this server's recovery
    /// of 2026-11-20: 782.2 MB in 21 s → 37.2 MB/s".
    pub fn calibrated(c: &Calibration, d: &RecoveryDefault, series: &str) -> Self {
        let res = c.timestamp_resolution_s;
        let (lo, hi) = ((c.seconds - res).max(0.0), c.seconds + res);
        let by_default = c.redo_bytes as f64 / d.rate_bytes_per_s;
        let took = by_default.clamp(lo, hi);
        let rate = if took > 0.0 {
            c.redo_bytes as f64 / took
        } else {
            d.rate_bytes_per_s
        };
        let seconds = if res >= 1.0 {
            format!("{:.0} s", c.seconds)
        } else {
            format!("{:.2} s", c.seconds)
        };
        let mut source = format!(
            "calibrated from this server's recovery of {}: {} in {seconds}",
            c.started_at.format("%Y-%m-%d"),
            mb(c.redo_bytes as f64)
        );
        if took == by_default && res >= 1.0 {
            // The log's whole seconds cannot tell this recovery from the default's pace.
            source.push_str(&format!(
                ", too short for the log's whole-second timestamps: the default for {series} \
                 fits it ({}/s)",
                mb(d.rate_bytes_per_s)
            ));
        } else if c.coarse {
            source.push_str(&format!(
                " → {}/s at least: too short for the log's whole-second timestamps to time",
                mb(rate)
            ));
        } else {
            source.push_str(&format!(" → {}/s", mb(rate)));
        }
        RecoveryModel {
            rate_bytes_per_s: rate,
            rate_source: source,
            page_reads_per_s: None,
            startup_s: d.startup_s,
            origin: RateOrigin::Calibrated,
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
        })
    }
}

#[cfg(test)]
mod tests;
