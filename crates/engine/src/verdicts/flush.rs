//! Flush judgements: checkpoint age against the adaptive-flushing lwm, the async and sync
//! points, dirty pages against `innodb_max_dirty_pages_pct` — as severities and the flush
//! regime carried on the figures (the panels show them) and as the `flush_pressure` verdict.
//! On MariaDB the sync line is `M`, where flushing turns furious and user threads wait
//! (`log_t::set_capacity`); what the page cleaner does in each stretch, and the wording, come
//! from the [`Flavor`] (`buf0flu.cc`, docs/flushing.md).

use serde::{Deserialize, Serialize};

use crate::figures::{Dirty, Figures, Redo};
use crate::units::bytes;
use innodebt_server::flavor::{Flavor, FlushRegime, RegimeAge, RegimeAges, RegimeLines};

use super::zones::Zone;
use super::{Finding, Severity};

/// How bad flushing stands in one sample (no hysteresis: the panels show it as it is).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct FlushJudgement {
    /// Checkpoint age: ok below async, warning past async, critical past sync (M).
    pub checkpoint_age: Option<Severity>,
    /// Dirty pages: warning at or past `innodb_max_dirty_pages_pct`.
    pub dirty: Option<Severity>,
    /// What the page cleaner does for redo at this age (`Flavor::flush_regime`).
    #[serde(default)]
    pub regime: Option<FlushRegime>,
    /// Which age the line that decided the regime was judged on.
    #[serde(default)]
    pub regime_age: Option<RegimeAge>,
}

pub(crate) fn judge(f: &Figures, flavor: Flavor) -> FlushJudgement {
    let regime = regime(&f.redo, flavor);
    FlushJudgement {
        checkpoint_age: checkpoint_age(&f.redo),
        dirty: dirty(&f.dirty),
        regime: regime.map(|(r, _)| r),
        regime_age: regime.map(|(_, a)| a),
    }
}

/// Unknown while the checkpoint age or the async / stall points are; each line judged on the
/// age the flavour's server judges it on (the oldest dirty page's where read, else the
/// nearest stand-in that is never smaller, and which one is said). `innodb_adaptive_flushing`
/// unknown counts as ON, its default.
fn regime(r: &Redo, flavor: Flavor) -> Option<(FlushRegime, RegimeAge)> {
    let ages = RegimeAges {
        checkpoint: r.checkpoint_age_bytes?,
        oldest_page: r.oldest_page_age_bytes,
        checkpoint_candidate: r.checkpoint_candidate_age_bytes,
    };
    let lines = RegimeLines {
        lwm: r.adaptive_lwm_bytes,
        async_point: r.async_point_bytes.filter(|p| *p > 0)?,
        sync_flush: r.sync_flush_bytes,
        stall: r.sync_point_bytes.filter(|p| *p > 0)?,
        adaptive: r.adaptive_flushing.unwrap_or(true),
    };
    Some(flavor.flush_regime(ages, lines))
}

/// Unknown while the age or the points are (no points: nothing to say "below" of): the
/// zone's severity ([`Zone::of`], the timeline's and the what-if's rule too).
fn checkpoint_age(r: &Redo) -> Option<Severity> {
    Zone::of(
        r.checkpoint_age_bytes?,
        r.async_point_bytes,
        r.sync_point_bytes,
    )
    .map(Zone::severity)
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
        } else if let (Some(FlushRegime::SyncFlush), Some(sync_flush)) =
            (j.regime, r.sync_flush_bytes)
        {
            // MySQL 8.0+ past sync flushing (`log0chkp.cc log_consider_sync_flush`): the page
            // cleaner no longer holds to innodb_io_capacity; writes have not stalled yet. The
            // regime decides it, as the checkpoint panel's regime line says it.
            reasons.push(format!(
                "checkpoint age {} is past sync flushing {}{of_capacity}: the page cleaner \
                 flushes regardless of innodb_io_capacity; writes stall at {}",
                bytes(age),
                bytes(sync_flush),
                bytes(r.sync_point_bytes.unwrap_or_default())
            ));
        } else {
            // Past the async point each flavour's page cleaner does something else
            // (`Flavor::past_async_effect`): MariaDB flushes ahead counted as background,
            // MySQL at full adaptive pace. MySQL 8.0.13+ acts a margin before its counter:
            // the point is named as the panel names it.
            let words = flavor.point_words();
            let point = match words.sync_flush {
                Some(_) => format!("the {} point", words.flushing_starts),
                None => "the async point".to_string(),
            };
            let at = bytes(r.async_point_bytes.unwrap_or_default());
            match (j.regime, j.regime_age.and_then(|a| r.age_bytes(a))) {
                // MySQL judges its async point on the oldest dirty page's age, which is
                // younger: the page cleaner has not turned to flushing hard (the regime says
                // what it does), the checkpoint lags behind the flushing.
                (Some(regime), Some(cleaner)) if regime < FlushRegime::PastAsync => {
                    reasons.push(format!(
                        "checkpoint age {} is past {point} {at}{of_capacity}, the oldest dirty \
                         page's age {} is not: the checkpoint lags behind the flushing, and \
                         the page cleaner has not turned to flushing hard",
                        bytes(age),
                        bytes(cleaner)
                    ));
                }
                _ => reasons.push(format!(
                    "checkpoint age {} is past {point} {at}{of_capacity}: {}",
                    bytes(age),
                    flavor.past_async_effect(r.adaptive_flushing.unwrap_or(true))
                )),
            }
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
