//! `history_held_by_open_writes`: purge has caught up, yet history stays. MariaDB frees the
//! history purge has processed one rollback segment at a time, and since MDEV-32050 skips a
//! segment that is referenced (in use by an open transaction, or already chosen for the next
//! one) or whose last writer the purge view does not see (`trx0purge.cc
//! purge_sys_t::iterator::free_history_rseg`: `if (rseg_ref >= rseg.REF ||
//! !purge_sys.sees(rseg.needs_purge)) goto func_exit`). The purge view sees no writer newer
//! than the oldest open read-write transaction, and segments are handed out in turn
//! (`trx_assign_rseg_low`), so once every segment has been written since that transaction
//! began, **one** open read-write transaction — a write, or a locking read — keeps any
//! history from being freed; only segments last written before it still are. History then
//! grows one per commit while purge keeps pace (measured on 10.11.19: the same with 1, 8 or
//! 128 open; back to 0 within a second of the commit). Before MDEV-32050 only the segments
//! open transactions were using were held (`trx_purge_truncate_rseg_history` freed a
//! segment's history only if `!rseg.is_referenced()`), which history barely shows
//! ([`Flavor::history_waits_for_open_writes`]). Neither a read view nor purge's speed is the
//! cause; committing that transaction is the cure.
//!
//! [`Flavor::history_waits_for_open_writes`]: innodebt_server::flavor::Flavor::history_waits_for_open_writes

use crate::units::{count, duration};

use super::purge::{Context, caught_up};
use super::{Finding, Severity};

pub(crate) fn history_held_by_open_writes(c: &Context) -> Option<Finding> {
    if !c.flavor.history_waits_for_open_writes() || c.judged.blocked != Some(false) {
        return None;
    }
    let f = c.f;
    let history = f.history.length.filter(|h| *h >= c.th.history_held_min)?;
    let open = f.purge.open_rw_trx.filter(|n| *n > 0)?;
    // In the Purge panel's unit (transactions).
    let lag = f.purge.lag_in_transactions()?;
    if caught_up(f, c.th) != Some(true) {
        return None;
    }
    // Falling history is being freed: nothing is held.
    if c.judged
        .history_growth_per_s
        .is_some_and(|g| g <= -c.th.growth_min_per_s)
    {
        return None;
    }
    let oldest = f.purge.oldest_rw.as_ref();
    let who = oldest.map_or_else(
        || format!("{} read-write transactions are open", count(open as f64)),
        |o| {
            let session = o
                .thread_id
                .map_or_else(|| format!("trx {}", o.trx_id), |id| format!("thread {id}"));
            let others = match open {
                1 => String::new(),
                n => format!(" (one of {} open)", count(n as f64)),
            };
            format!(
                "the read-write transaction of {session}{others} has been open {}",
                duration(o.age_s)
            )
        },
    );
    // K kills the session the history panel names (the oldest read view); say K only when
    // that is this transaction, else the statement to run.
    let thread = oldest.and_then(|o| o.thread_id);
    let kill = match (thread, f.blocker.as_ref().and_then(|b| b.thread_id)) {
        (Some(t), Some(b)) if t == b => "kill it with K".to_string(),
        (Some(t), _) => format!("KILL {t}"),
        (None, _) => "kill it".to_string(),
    };
    let message = format!(
        "history {} is not freed while purge has caught up ({lag} behind): \
         {who}, and InnoDB frees no rollback segment's history whose last writer is newer \
         than the oldest open read-write transaction — by now every segment it hands out. \
         It falls once that transaction commits — commit it, or {kill}; more purge threads \
         will not help.",
        count(history as f64),
    );
    Some(Finding {
        severity: if history >= c.th.history_critical {
            Severity::Critical
        } else {
            Severity::Warning
        },
        message,
        thread_id: thread,
    })
}
