//! Flush judgements: checkpoint age against the async and sync points, dirty pages against
//! `innodb_max_dirty_pages_pct` — as severities carried on the figures (the panels show them)
//! and as the `flush_pressure` verdict. On MariaDB the sync line is `M`, where flushing turns
//! furious and user threads wait (`log_t::set_capacity`, METRICS.md); the wording comes from
//! the [`Flavor`].

use serde::{Deserialize, Serialize};

use crate::figures::{Dirty, Figures, Redo};
use crate::source::flavor::Flavor;
use crate::units::bytes;

use super::{Finding, Severity};

/// How bad flushing stands in one sample (no hysteresis: the panels show it as it is).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct FlushJudgement {
    /// Checkpoint age: ok below async, warning past async, critical past sync (M).
    pub checkpoint_age: Option<Severity>,
    /// Dirty pages: warning at or past `innodb_max_dirty_pages_pct`.
    pub dirty: Option<Severity>,
}

pub(crate) fn judge(f: &Figures) -> FlushJudgement {
    FlushJudgement {
        checkpoint_age: checkpoint_age(&f.redo),
        dirty: dirty(&f.dirty),
    }
}

/// Unknown while the age or the points are (no points: nothing to say "below" of).
fn checkpoint_age(r: &Redo) -> Option<Severity> {
    let age = r.checkpoint_age_bytes?;
    let async_point = r.async_point_bytes.filter(|p| *p > 0)?;
    Some(match r.sync_point_bytes.filter(|p| *p > 0) {
        Some(sync) if age >= sync => Severity::Critical,
        _ if age >= async_point => Severity::Warning,
        _ => Severity::Ok,
    })
}

/// At the max InnoDB flushes hard: a warning, not an outage. A max of 0 (flush as hard as
/// it can all the time) is no line to be past.
fn dirty(d: &Dirty) -> Option<Severity> {
    let (pct, max) = (d.pct?, d.max_pct?);
    Some(if max > 0.0 && pct >= max {
        Severity::Warning
    } else {
        Severity::Ok
    })
}

pub(crate) fn flush_pressure(f: &Figures, flavor: Flavor, j: &FlushJudgement) -> Option<Finding> {
    let mut severity = None;
    let mut reasons = Vec::new();
    let r = &f.redo;
    if let (Some(age), Some(sev @ (Severity::Warning | Severity::Critical))) =
        (r.checkpoint_age_bytes, j.checkpoint_age)
    {
        let of_capacity = r
            .checkpoint_age_pct_of_capacity
            .map(|p| format!(", {p:.0} % of capacity"))
            .unwrap_or_default();
        severity = Some(sev);
        if sev == Severity::Critical {
            reasons.push(format!(
                "checkpoint age {} is past the {} point {}{of_capacity}: {}",
                bytes(age),
                if r.sync_point_name.is_empty() {
                    flavor.sync_point_name()
                } else {
                    &r.sync_point_name
                },
                bytes(r.sync_point_bytes.unwrap_or_default()),
                flavor.sync_point_effect()
            ));
        } else if let Some(sync_flush) = r.sync_flush_bytes.filter(|p| age >= *p) {
            // MySQL 8.0+ past sync flushing (`log0chkp.cc log_consider_sync_flush`): the page
            // cleaner no longer holds to innodb_io_capacity; writes have not stalled yet.
            reasons.push(format!(
                "checkpoint age {} is past sync flushing {}{of_capacity}: the page cleaner \
                 flushes regardless of innodb_io_capacity; writes stall at {}",
                bytes(age),
                bytes(sync_flush),
                bytes(r.sync_point_bytes.unwrap_or_default())
            ));
        } else {
            // MySQL 8.0+ acts a concurrency margin before its async counter: that point is
            // "where flushing starts" there, as the panel calls it (`Flavor::point_words`).
            let point = match flavor.point_words() {
                w if w.sync_flush.is_some() => format!("where {}", w.flushing_starts),
                _ => "the async point".to_string(),
            };
            reasons.push(format!(
                "checkpoint age {} is past {point} {}{of_capacity}: adaptive flushing working \
                 hard",
                bytes(age),
                bytes(r.async_point_bytes.unwrap_or_default())
            ));
        }
    }
    if let (Some(Severity::Warning), Some(pct), Some(max)) = (j.dirty, f.dirty.pct, f.dirty.max_pct)
    {
        severity = severity.max(Some(Severity::Warning));
        reasons.push(format!(
            "dirty pages {pct:.1} % ≥ innodb_max_dirty_pages_pct {max:.0} %: flushing is not \
             keeping up with the writes"
        ));
    }
    Some(Finding {
        severity: severity?,
        message: format!("{}.", reasons.join("; ")),
        thread_id: None,
    })
}
