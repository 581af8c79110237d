//! `flush_pressure`: checkpoint age against the async and sync points, dirty pages against
//! `innodb_max_dirty_pages_pct`. On MariaDB the sync line is `M`, where flushing turns furious
//! and user threads wait (`log_t::set_capacity`, METRICS.md); the wording comes from the
//! [`Flavor`].

use crate::metrics::Figures;
use crate::output::bytes;
use crate::source::flavor::Flavor;

use super::{Finding, Severity};

pub(crate) fn flush_pressure(f: &Figures, flavor: Flavor) -> Option<Finding> {
    let mut severity = None;
    let mut reasons = Vec::new();
    let r = &f.redo;
    if let Some(age) = r.checkpoint_age_bytes {
        let of_capacity = r
            .checkpoint_age_pct_of_capacity
            .map(|p| format!(", {p:.0} % of capacity"))
            .unwrap_or_default();
        match (r.async_point_bytes, r.sync_point_bytes) {
            (_, Some(sync)) if sync > 0 && age >= sync => {
                severity = Some(Severity::Critical);
                reasons.push(format!(
                    "checkpoint age {} is past the {} point {}{of_capacity}: {}",
                    bytes(age),
                    if r.sync_point_name.is_empty() {
                        flavor.sync_point_name()
                    } else {
                        &r.sync_point_name
                    },
                    bytes(sync),
                    flavor.sync_point_effect()
                ));
            }
            (Some(async_point), _) if async_point > 0 && age >= async_point => {
                severity = Some(Severity::Warning);
                reasons.push(format!(
                    "checkpoint age {} is past the async point {}{of_capacity}: adaptive flushing \
                     working hard",
                    bytes(age),
                    bytes(async_point)
                ));
            }
            _ => {}
        }
    }
    if let (Some(pct), Some(max)) = (f.dirty.pct, f.dirty.max_pct)
        && max > 0.0
        && pct >= max
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
