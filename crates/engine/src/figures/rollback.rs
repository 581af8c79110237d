//! The rollback segments writers share and the evidence that they queue on them: the
//! segment count and how it can change, the undo log slots in use, and the waits on the
//! segments' latches and the trx-sys mutex (performance_schema where it counts them, else the
//! threads SHOW ENGINE INNODB STATUS finds in its wait array).

use serde::{Deserialize, Serialize};

use super::Severity;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rollback {
    /// Rollback segments write transactions are spread over, round robin (MySQL 8:
    /// `innodb_rollback_segments` × active undo tablespaces; MariaDB ≥ 10.5: 128).
    pub segments: Option<u64>,
    /// The setting per tablespace (`innodb_rollback_segments`; MariaDB < 10.5
    /// `innodb_undo_logs`); `null` where the count is fixed.
    pub segments_setting: Option<u64>,
    pub undo_tablespaces: Option<u64>,
    /// MariaDB ≥ 10.5: 128 segments, no variable changes it.
    pub segments_fixed: bool,
    /// What gives writers more segments on this server, in words.
    pub way_out: Option<String>,
    /// INNODB_METRICS `trx_undo_slots_used` / `trx_undo_slots_cached`, where counting.
    pub undo_slots_used: Option<u64>,
    pub undo_slots_cached: Option<u64>,
    /// The latch instruments count (performance_schema on, an instrument enabled and timed,
    /// `global_instrumentation` on); `null` when the server did not say.
    pub instrumented: Option<bool>,
    /// Acquisitions of the rollback-segment latches per second (every one the instrument
    /// times, waited for or not).
    pub rseg_waits_per_s: Option<f64>,
    /// Seconds spent acquiring them per second: on average, how many threads are waiting
    /// for a rollback segment's latch at any moment.
    pub rseg_wait_s_per_s: Option<f64>,
    pub trx_sys_waits_per_s: Option<f64>,
    pub trx_sys_wait_s_per_s: Option<f64>,
    /// Threads the last SHOW ENGINE INNODB STATUS found waiting on a rollback segment's latch
    /// / on the trx-sys mutex in its wait array (where performance_schema does not count).
    pub seis_rseg_waiters: Option<u64>,
    pub seis_trx_sys_waiters: Option<u64>,
    /// Writes queue on too few segments: `warning`; else `ok`; `null` while the waits or
    /// the segment count are unknown. Judged with the verdicts.
    pub severity: Option<Severity>,
}

impl Rollback {
    /// The latch waits as the panel and text say them: `latch 0.01 s/s (110k/s)`, or the
    /// wait array's count, or that the instruments do not count; `None` when nothing is known
    /// about them.
    pub fn waits_words(&self) -> Option<String> {
        match (self.rseg_wait_s_per_s, self.rseg_waits_per_s) {
            (Some(s), Some(n)) => Some(format!("latch {s:.2} s/s ({}/s)", crate::units::count(n))),
            _ => match self.seis_rseg_waiters {
                Some(w) => Some(format!("{w} waiting (SEIS)")),
                None if self.instrumented == Some(false) => Some("latch not instrumented".into()),
                None => None,
            },
        }
    }
}
