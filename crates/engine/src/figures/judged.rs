//! What the figures mean, as data: how bad (one [`Severity`] for panels and verdicts alike),
//! the verdicts that hold, the crash-recovery estimate and the redo sizing advice. Judged by
//! `verdicts`; carried on the figures so every reader shows the same judgement.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

/// How bad a figure or a verdict is: the one scale panels and verdicts share. Orders
/// `ok < unknown < warning < critical`, so `max` picks the worst — and a server that cannot
/// be judged sorts above a healthy one. `unknown` is only ever a verdict's: a figure whose
/// severity is unknown is `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Ok,
    Unknown,
    Warning,
    Critical,
}

impl Severity {
    /// Every severity, least severe first.
    pub const ALL: [Severity; 4] = [
        Severity::Ok,
        Severity::Unknown,
        Severity::Warning,
        Severity::Critical,
    ];

    /// A severity by its name (`critical`), as JSON and the OpenMetrics StateSet write it.
    pub fn from_name(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The worst severity among `verdicts`: the one judgement of a sample every reader shows
    /// (the exporter's StateSet, the fleet row, timelines, the CSV's `severity`, `check`).
    /// `None` only where nothing was judged (derive always gives `healthy` or `unknown`).
    pub fn worst_of(verdicts: &[Verdict]) -> Option<Severity> {
        verdicts.iter().map(|v| v.severity).max()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Unknown => "unknown",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// What a verdict is about. Serialised in snake_case (`blocked_by_read_view`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// An old read view keeps purge from removing history newer than it.
    BlockedByReadView,
    /// `innodb_max_purge_lag` delays (or is armed to delay) DML while purge is blocked.
    PurgeLagTrap,
    /// No blocker, yet history grows: purge removes less than the writes add.
    PurgeTooSlow,
    /// Purge has caught up, yet history stays high: MariaDB frees a rollback segment's
    /// processed history only once the purge view sees its last writer, and that view stops
    /// at the oldest open read-write transaction (`trx0purge.cc
    /// purge_sys_t::iterator::free_history_rseg`, MDEV-32050).
    HistoryHeldByOpenWrites,
    /// Checkpoint age past the async/sync point, or dirty pages past their maximum.
    FlushPressure,
    /// Writes queue on the latches of too few rollback segments (fewer than the open write
    /// transactions, waiting a measurable share of their time).
    RollbackSegmentContention,
    /// Not enough data to say "healthy": still watching, no fresh data, or a figure a rule
    /// needs is unreadable. [`Verdict::missing`] says which.
    Unknown,
    /// None of the above, and every rule had the data to say so.
    Healthy,
}

impl VerdictKind {
    /// Every kind: the rules' ([`VerdictKind::JUDGED`]), then `unknown` and `healthy`. The
    /// exporter's StateSet names these; the one list (a kind added here shows everywhere).
    pub const ALL: [VerdictKind; 8] = [
        VerdictKind::BlockedByReadView,
        VerdictKind::PurgeLagTrap,
        VerdictKind::PurgeTooSlow,
        VerdictKind::HistoryHeldByOpenWrites,
        VerdictKind::FlushPressure,
        VerdictKind::RollbackSegmentContention,
        VerdictKind::Unknown,
        VerdictKind::Healthy,
    ];

    /// The kinds a rule finds (what the verdict engine tracks and a trigger may name), in the
    /// order ties of severity are shown: every kind but `unknown` (what no rule could judge)
    /// and `healthy` (what holds when nothing else does).
    pub const JUDGED: [VerdictKind; 6] = [
        VerdictKind::ALL[0],
        VerdictKind::ALL[1],
        VerdictKind::ALL[2],
        VerdictKind::ALL[3],
        VerdictKind::ALL[4],
        VerdictKind::ALL[5],
    ];

    /// A kind by its name (`blocked_by_read_view`).
    pub fn from_name(name: &str) -> Option<VerdictKind> {
        VerdictKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::BlockedByReadView => "blocked_by_read_view",
            VerdictKind::PurgeLagTrap => "purge_lag_trap",
            VerdictKind::PurgeTooSlow => "purge_too_slow",
            VerdictKind::HistoryHeldByOpenWrites => "history_held_by_open_writes",
            VerdictKind::FlushPressure => "flush_pressure",
            VerdictKind::RollbackSegmentContention => "rollback_segment_contention",
            VerdictKind::Unknown => "unknown",
            VerdictKind::Healthy => "healthy",
        }
    }

    /// The kind in the DBA's words, as the verdict line and `--format text` say it:
    /// `blocked by read view`.
    pub fn words(self) -> String {
        self.as_str().replace('_', " ")
    }
}

/// One verdict as shown to the DBA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    pub severity: Severity,
    /// When the condition began (sample time).
    pub since: DateTime<Utc>,
    /// What is wrong, with the figures, and what to do.
    pub message: String,
    /// The session to act on (commit / kill with `K`), for read-view verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<u64>,
    /// The condition no longer holds on this sample; the verdict stays for the hysteresis's
    /// leave time and its message says so (it never describes an older sample as now).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clearing: bool,
    /// For `unknown` verdicts: what is missing, each named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<Missing>,
}

/// What keeps a rule from judging (the reason of an `unknown` verdict).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Missing {
    /// The rule needs this much data and has seen that much (the history trend: 10 s).
    WatchingFor { have_s: f64, need_s: f64 },
    /// No sample arrived for this long (STALE or DISCONNECTED).
    NoData { for_s: f64 },
    /// A figure the rule needs is unknown, and why (a counter off, a missing privilege).
    Unreadable { figure: String, because: String },
}

/// Which term of the model set an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Redo to apply ÷ rate.
    Redo,
    /// Dirty pages ÷ page-read rate.
    Pages,
}

/// Crash recovery if the server died now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recovery {
    /// The checkpoint age: redo written since the last checkpoint.
    pub redo_to_apply_bytes: u64,
    pub estimate_s: f64,
    /// At the sync point (MariaDB: `M`), the most redo the flusher lets build up.
    pub worst_case_s: Option<f64>,
    pub worst_case_redo_bytes: Option<u64>,
    pub rate_bytes_per_s: f64,
    pub rate_source: String,
    /// Seconds of the restart outside redo application, in the estimate.
    #[serde(default)]
    pub startup_s: f64,
    /// Dirty pages now: a lower bound on the pages recovery must read.
    pub pages_to_read: Option<u64>,
    pub page_reads_per_s: f64,
    pub page_read_source: String,
    pub bound_by: Bound,
    /// The lowest and highest estimate the calibrating recovery's timestamps allow (a log of
    /// whole seconds leaves the split of a short restart open); `None` when not calibrated.
    #[serde(default)]
    pub estimate_range_s: Option<(f64, f64)>,
    /// Where the rate comes from, as a word (`rate_source` says it in full).
    #[serde(default)]
    pub rate_origin: RateOrigin,
    /// The crash recovery the rate was calibrated from: `null` unless `rate_origin` is
    /// `calibrated`.
    #[serde(default)]
    pub calibration: Option<RecoveryEvidence>,
    /// Why the rate is the default rather than this server's own (the error log unread, no
    /// crash recovery in it, or none that can be timed); `null` when calibrated or given.
    #[serde(default)]
    pub not_calibrated: Option<String>,
    /// Crash recoveries in the log too small or too short to time, newest first: newer than
    /// the calibrating one, or every one when none calibrates.
    #[serde(default)]
    pub passed_over: Vec<PassedOver>,
}

/// Where the rate of a recovery estimate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateOrigin {
    /// Not chosen yet: the server's log or its flavour's default will say.
    #[default]
    Automatic,
    /// `--recovery-rate`: wins over everything.
    Given,
    /// This server's own crash recovery in its error log.
    Calibrated,
    /// The flavour's default (no readable log, no crash recovery in it, or none to time).
    Default,
}

/// A real crash recovery read from the server's error log: the evidence of a calibrated rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryEvidence {
    /// The error log read (a path, or `performance_schema.error_log`).
    pub from: Option<String>,
    /// The crash recovery's start and the end of its redo application, in the log's local
    /// time (MySQL 5.7+: UTC).
    pub started_at: NaiveDateTime,
    pub finished_at: NaiveDateTime,
    pub checkpoint_lsn: u64,
    pub end_lsn: u64,
    /// Redo applied: end LSN − checkpoint LSN.
    pub redo_bytes: u64,
    /// A lower bound of the pages it applied redo to: the largest MariaDB's "To recover: N
    /// pages" said (those count the pages left in the current batch); `null` on MySQL.
    pub pages_at_least: Option<u64>,
    pub batches: u32,
    /// Redo application by the log's timestamps, and their resolution (1 s on MariaDB and
    /// MySQL 5.6, 1 µs on MySQL 5.7+).
    pub logged_s: f64,
    pub timestamp_resolution_s: f64,
    /// The whole restart by the log (start line to "ready for connections") and by the host
    /// (process start to pid file, to 10 ms; only when that process runs now).
    pub restart_logged_s: Option<f64>,
    pub restart_host_s: Option<f64>,
    /// What the evidence leaves open: redo application and the whole restart, lowest and
    /// highest seconds.
    pub redo_s: (f64, f64),
    pub restart_s: Option<(f64, f64)>,
}

/// A crash recovery that did not calibrate, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassedOver {
    #[serde(flatten)]
    pub recovery: RecoveryEvidence,
    pub why: String,
}

/// Redo sizing advice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sizing {
    pub peak_checkpoint_age_bytes: u64,
    pub peak_at: DateTime<Utc>,
    /// The peak as a share of the current async point.
    pub peak_pct_of_async: Option<f64>,
    pub current_capacity_bytes: Option<u64>,
    pub advised_capacity_bytes: u64,
    pub advised_async_point_bytes: u64,
    /// The variable to change (`Flavor::redo_size_variable`).
    pub variable: String,
    /// The setting to write, e.g. `innodb_redo_log_capacity = 304M`.
    pub setting: String,
    /// The naive "one hour of redo writes" size: the mean write rate over the last hour, to the
    /// minute (the current minute and the 60 before it), × 3600.
    pub hour_of_writes_bytes: Option<u64>,
    /// Worst-case recovery (checkpoint age at the sync point) at the advised size: the price.
    pub worst_case_recovery_s_at_advised: f64,
    pub worst_case_recovery_s_now: Option<f64>,
    /// The first sample of the span the peak is from: what innodebt watched (a session, a
    /// capture from its start, or since a redo resize). Server uptime is no evidence of the
    /// peak: no status variable keeps the highest checkpoint age.
    #[serde(default)]
    pub span_from: DateTime<Utc>,
    /// Seconds watched since `span_from`: the samples' intervals, a restart's or a
    /// reconnection's gap left out.
    #[serde(default)]
    pub span_s: f64,
    /// The span advice to shrink needs (`--sizing-span`, by default a day).
    #[serde(default)]
    pub span_needed_s: f64,
    /// A smaller size would hold the peak so far, but `span_s` is short of `span_needed_s`:
    /// the advised size is the current one, and the advice says what is still needed. Advice
    /// to grow never waits.
    #[serde(default)]
    pub shrink_withheld: bool,
    pub advice: String,
    /// Why the one-hour rule misleads.
    pub note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judged_kinds_are_every_kind_but_unknown_and_healthy() {
        let rest: Vec<VerdictKind> = VerdictKind::ALL
            .into_iter()
            .filter(|k| !matches!(k, VerdictKind::Unknown | VerdictKind::Healthy))
            .collect();
        assert_eq!(rest, VerdictKind::JUDGED);
        for k in VerdictKind::ALL {
            assert_eq!(VerdictKind::from_name(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).expect("serialise");
            assert_eq!(json, format!("\"{}\"", k.as_str()));
        }
    }
}
