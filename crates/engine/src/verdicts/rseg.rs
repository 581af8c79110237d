//! `rollback_segment_contention`: writes queue on too few rollback segments. Every write
//! transaction is handed one segment in turn and takes that segment's latch to get an undo
//! log slot and again at commit (MySQL `trx0trx.cc trx_assign_rseg_durable`,
//! `trx_write_serialisation_history`; MariaDB `trx_assign_rseg_low`, `trx_undo_assign`); with
//! fewer segments than concurrent writers they share latches — the founding write-ups' single
//! rollback segment serialised every transaction, and raising the count fixed it.
//!
//! The rule needs both halves:
//! - **writes queue**: the segments' latches cost at least [`Thresholds::rseg_wait_min`]
//!   seconds of waiting per second (half a thread, on average, always waiting) and at least
//!   [`Thresholds::rseg_wait_share`] of the open writers' time (10 %: a tenth of the write
//!   sessions' time lost to one latch class) — performance_schema's `SUM_TIMER_WAIT`, which
//!   times every acquisition (an uncontended one costs nanoseconds: 64 writers at 11,000
//!   inserts/s on 128 segments, MariaDB 10.11 here, spent 0.006 s/s); where performance_schema
//!   does not count them, SHOW ENGINE INNODB STATUS finding at least
//!   [`Thresholds::seis_rseg_waiters`] threads asleep on a segment latch in its wait array
//!   (a thread sleeps there only after spinning);
//! - **too few segments**: fewer segments than open read-write transactions (the INNODB_TRX
//!   count), so writers must share. With 128 segments and 64 writers it never fires.
//!
//! The way out is the flavour's ([`RsegWayOut`]): `SET GLOBAL innodb_rollback_segments` on
//! MySQL 8, a restart on 5.7 and MariaDB < 10.5, nothing on MariaDB ≥ 10.5 (128, fixed).
//!
//! [`RsegWayOut`]: innodebt_server::flavor::RsegWayOut

use crate::figures::{Figures, Rollback};
use crate::units::count;

use super::{Finding, Severity, Thresholds};

/// Whether writes queue on too few segments: `Some(true)` / `Some(false)`, `None` while the
/// waits or the segment count are unknown.
pub(crate) fn contended(r: &Rollback, open_rw: Option<u64>, th: &Thresholds) -> Option<bool> {
    let segments = r.segments?;
    let queueing = match (r.rseg_wait_s_per_s, r.seis_rseg_waiters) {
        (Some(wait), _) => {
            wait >= th.rseg_wait_min
                && open_rw.is_none_or(|w| wait >= th.rseg_wait_share * w as f64)
        }
        (None, Some(waiters)) => waiters >= th.seis_rseg_waiters,
        (None, None) => return None,
    };
    let few = open_rw.is_none_or(|w| segments < w);
    Some(queueing && few)
}

pub(crate) fn rollback_segment_contention(f: &Figures, th: &Thresholds) -> Option<Finding> {
    let r = &f.rollback;
    if contended(r, f.purge.open_rw_trx, th) != Some(true) {
        return None;
    }
    let segments = r.segments?;
    let evidence = match r.rseg_wait_s_per_s {
        Some(wait) => format!(
            "{wait:.2} s/s waiting on their latches ({}/s acquired)",
            count(r.rseg_waits_per_s.unwrap_or(0.0))
        ),
        None => format!(
            "{} threads asleep on their latches in SHOW ENGINE INNODB STATUS",
            r.seis_rseg_waiters.unwrap_or(0)
        ),
    };
    let writers = f
        .purge
        .open_rw_trx
        .map(|w| format!(" for {w} open write transactions"))
        .unwrap_or_default();
    let way_out = r.way_out.as_deref().unwrap_or("more rollback segments");
    Some(Finding {
        severity: Severity::Warning,
        message: format!(
            "writes queue on {segments} rollback segment{}{writers}: {evidence} — {way_out}",
            if segments == 1 { "" } else { "s" }
        ),
        thread_id: None,
    })
}
