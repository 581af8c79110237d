//! Redo sizing advice from the checkpoint age the server actually reached.
//!
//! The advised capacity is the smallest whose async point sits [`HEADROOM`] (20 %) above the
//! peak checkpoint age seen: adaptive flushing then has room before it works hard, and no more
//! redo than needed waits for recovery. The flavour's own formula (async point as a function
//! of capacity, [`Flavor::redo_points_at_capacity`]) is inverted numerically by a binary
//! search over whole MiB per file, so the fixed offsets of each formula (headers, page margins,
//! MySQL 8.0.30's 32-file overhead) are honoured rather than approximated by a ratio.
//!
//! Rounding: up to a multiple of 1/16 of the power of two below the size, at least 1 MiB
//! (300 MiB → 304 MiB, 1.1 GiB → 1152 MiB). Whole MiB are valid everywhere: a multiple of every
//! page size and log block, of MariaDB's 4096-byte `innodb_log_file_size` block, and of what
//! MySQL's `innodb_redo_log_capacity` / `innodb_log_file_size` accept. The result is clamped to
//! the range the variable accepts ([`Flavor::redo_capacity_range`]).
//!
//! Evidence: the peak is only what innodebt watched (this session, a capture from its start,
//! or since a redo resize). Server uptime proves nothing of it, since no status variable
//! keeps the highest checkpoint age. A peak that reached the advised headroom is evidence for
//! growing on its own; advice to shrink waits until the span watched covers the workload's
//! cycle ([`DEFAULT_SPAN_S`], `--sizing-span`): a quiet hour says nothing of tonight's batch.
//!
//! The "one hour of redo writes" rule is shown for comparison, with why it misleads.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::figures::{Figures, Sizing};
use crate::units::{bytes, duration, span as span_words};
use innodebt_server::flavor::Flavor;

use super::layout::RedoLayout;
use super::recovery::RecoveryModel;

/// The advised async point is this much above the peak checkpoint age.
pub const HEADROOM: f64 = 1.2;

/// The span advice to shrink needs by default, seconds: a day, the usual cycle of a
/// workload's batch jobs and backups.
pub const DEFAULT_SPAN_S: f64 = 86_400.0;

const MIB: u64 = 1024 * 1024;

/// The highest checkpoint age seen since the engine started, and over how long it was watched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PeakTracker {
    peak: Option<(u64, DateTime<Utc>)>,
    /// The first sample with a checkpoint age: where the span watched starts.
    #[serde(default)]
    since: Option<DateTime<Utc>>,
    /// Seconds of checkpoint age watched since then: the samples' intervals. The gap of a
    /// restart or a reconnection (no interval) was not watched, so it does not count.
    #[serde(default)]
    watched_s: f64,
}

impl PeakTracker {
    /// One sample at `at`, `interval_s` after the one before (`None` across a gap).
    pub(crate) fn observe(&mut self, at: DateTime<Utc>, age: Option<u64>, interval_s: Option<f64>) {
        let Some(age) = age else {
            return;
        };
        if self.since.is_some() {
            self.watched_s += interval_s
                .filter(|i| i.is_finite() && *i > 0.0)
                .unwrap_or(0.0);
        } else {
            self.since = Some(at);
        }
        if self.peak.is_none_or(|(p, _)| age > p) {
            self.peak = Some((age, at));
        }
    }

    pub(crate) fn peak(&self) -> Option<(u64, DateTime<Utc>)> {
        self.peak
    }
}

/// Sizing advice for the peak seen so far; `None` before any checkpoint age above zero.
/// A shrink is withheld (the current size stays the advice) until the span watched reaches
/// `span_needed_s`.
pub(crate) fn advise(
    peak: &PeakTracker,
    f: &Figures,
    flavor: Flavor,
    layout: &RedoLayout,
    model: &RecoveryModel,
    mean_written_per_s: Option<f64>,
    span_needed_s: f64,
) -> Option<Sizing> {
    let (peak_age, peak_at) = peak.peak().filter(|(p, _)| *p > 0)?;
    let target = (peak_age as f64 * HEADROOM).ceil() as u64;
    let current = f.redo.capacity_bytes;
    let span_s = peak.watched_s;
    let fits = advised_capacity(flavor, layout, target);
    let shrink_withheld = current.is_some_and(|cur| fits < cur) && span_s < span_needed_s;
    // Withheld, the advice is the size there is: no reader takes a size from too short a span.
    let advised = match current {
        Some(cur) if shrink_withheld => cur,
        _ => fits,
    };
    let points = |cap: u64| {
        flavor.redo_points_at_capacity(
            cap,
            layout.page_size,
            layout.files_in_group,
            layout.thread_concurrency,
        )
    };
    let at_advised = points(advised);
    let (page_reads, _) = model.page_reads(f);
    let pages = f.dirty.pages;
    // The worst case is the most age the server lets build up (`RedoPoints::worst_case_age`:
    // 5.7's `max_checkpoint_age`, else the stall line).
    let worst_at = |age: u64| model.seconds(age, pages, page_reads).0;
    let worst_advised = worst_at(at_advised.worst_case_age());
    let worst_now = f.redo.worst_case_age_bytes().map(worst_at);
    let peak_pct = f
        .redo
        .async_point_bytes
        .filter(|a| *a > 0)
        .map(|a| peak_age as f64 * 100.0 / a as f64);
    let variable = flavor.redo_size_variable().to_string();
    let n = flavor.redo_size_files(layout.files_in_group);
    let setting = if n > 1 {
        format!(
            "innodb_log_file_size = {} (× {n} files = {})",
            size_setting(advised / n),
            size_setting(advised)
        )
    } else {
        format!("{variable} = {}", size_setting(advised))
    };

    let pct = peak_pct
        .map(|p| format!(" ({p:.0} % of the async point)"))
        .unwrap_or_default();
    let watched = if span_s > 0.0 {
        format!("over the {} watched", span_words(span_s))
    } else {
        "in one sample".to_string()
    };
    let recovery_change = match worst_now {
        Some(now) => format!(
            "worst-case recovery {} → {}",
            duration(now.round() as u64),
            duration(worst_advised.round() as u64)
        ),
        None => format!(
            "worst-case recovery {}",
            duration(worst_advised.round() as u64)
        ),
    };
    let mut advice = match current {
        Some(_) if shrink_withheld => format!(
            "Peak checkpoint age {} {watched}{pct}; advice to shrink needs {} of watching (or \
             --sizing-span), so that the peak covers the workload's cycle (a nightly batch, a \
             weekly report): {} to go. Until then keep {setting}.",
            bytes(peak_age),
            span_words(span_needed_s),
            span_words((span_needed_s - span_s).ceil()),
        ),
        Some(cur) if advised > cur => format!(
            "Peak checkpoint age {} {watched}{pct}: grow to {setting} (now {}) so the async point ({}) sits \
             20 % above the peak; {recovery_change}.",
            bytes(peak_age),
            bytes(cur),
            bytes(at_advised.async_point)
        ),
        Some(cur) if advised < cur => format!(
            "Peak checkpoint age {} {watched}{pct}: {setting} (now {}) still leaves 20 % headroom above the \
             peak at the async point ({}); {recovery_change}.",
            bytes(peak_age),
            bytes(cur),
            bytes(at_advised.async_point)
        ),
        Some(_) => format!(
            "Peak checkpoint age {} {watched}{pct}: the current size fits ({setting}); {recovery_change}.",
            bytes(peak_age)
        ),
        None => format!(
            "Peak checkpoint age {} {watched}: {setting} puts the async point ({}) 20 % above it; \
             {recovery_change}.",
            bytes(peak_age),
            bytes(at_advised.async_point)
        ),
    };
    let (min, max) = flavor.redo_capacity_range(layout.files_in_group);
    if !shrink_withheld {
        let (peak_s, _) = model.seconds(peak_age, pages, page_reads);
        let what_if = super::whatif::peak_line(
            &size_setting(advised),
            peak_age,
            at_advised.async_point,
            peak_s,
            model,
        );
        advice.push_str(&format!(" What if: {what_if}."));
        if peak_pct.is_some_and(|p| p >= 98.0) {
            advice.push_str(
                " The flusher held checkpoint age at the async point, so the real need may be \
                 larger: check the peak again after resizing.",
            );
        }
        if advised >= max && at_advised.async_point < target {
            advice.push_str(" Even the largest size the variable accepts stays below that target.");
        }
        if advised <= min {
            advice.push_str(" That is the smallest size the variable accepts.");
        }
    }

    let hour = mean_written_per_s
        .filter(|r| r.is_finite() && *r >= 0.0)
        .map(|r| (r * 3600.0) as u64);
    let hour_recovery = hour
        .filter(|h| *h > 0)
        .map(|h| {
            let cap = h.clamp(min, max);
            format!(
                " (worst-case recovery at that size: {})",
                duration(worst_at(points(cap).worst_case_age()).round() as u64)
            )
        })
        .unwrap_or_default();
    let note = match hour {
        Some(h) => format!(
            "One hour of redo writes would be {}{hour_recovery}: that rule sizes for write volume, \
             not for the checkpoint age the flusher actually lets build up, so it can be far \
             larger than needed — and recovery time grows with it.",
            bytes(h)
        ),
        None => "The \"one hour of redo writes\" rule sizes for write volume, not for the \
                 checkpoint age the flusher actually lets build up, so it can be far larger than \
                 needed — and recovery time grows with it."
            .to_string(),
    };

    Some(Sizing {
        peak_checkpoint_age_bytes: peak_age,
        peak_at,
        peak_pct_of_async: peak_pct,
        current_capacity_bytes: current,
        advised_capacity_bytes: advised,
        advised_async_point_bytes: at_advised.async_point,
        variable,
        setting,
        hour_of_writes_bytes: hour,
        worst_case_recovery_s_at_advised: worst_advised,
        worst_case_recovery_s_now: worst_now,
        span_from: peak.since.unwrap_or(peak_at),
        span_s,
        span_needed_s,
        shrink_withheld,
        advice,
        note,
    })
}

/// The smallest valid capacity (rounded, clamped) whose async point is at least `target`.
pub fn advised_capacity(flavor: Flavor, layout: &RedoLayout, target_async: u64) -> u64 {
    let n = flavor.redo_size_files(layout.files_in_group);
    let (min, max) = flavor.redo_capacity_range(layout.files_in_group);
    let async_at = |per_file_mib: u64| {
        flavor
            .redo_points_at_capacity(
                per_file_mib * MIB * n,
                layout.page_size,
                layout.files_in_group,
                layout.thread_concurrency,
            )
            .async_point
    };
    // Binary search over whole MiB per file: the async point never falls as capacity grows.
    let (mut lo, mut hi) = ((min / n).div_ceil(MIB), (max / n) / MIB);
    if async_at(hi) < target_async {
        return hi * MIB * n;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if async_at(mid) >= target_async {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let per_file = round_up(lo * MIB).min((max / n) / MIB * MIB);
    per_file * n
}

/// Up to a multiple of 1/16 of the power of two at or below `v`, at least 1 MiB.
fn round_up(v: u64) -> u64 {
    if v == 0 {
        return MIB;
    }
    let pow2 = 1u64 << (63 - v.leading_zeros());
    let unit = (pow2 / 16).max(MIB);
    v.div_ceil(unit) * unit
}

/// `304M`, `2G`: how a DBA writes it in my.cnf or SET GLOBAL.
fn size_setting(v: u64) -> String {
    const GIB: u64 = 1024 * MIB;
    if v >= GIB && v.is_multiple_of(GIB) {
        format!("{}G", v / GIB)
    } else {
        format!("{}M", v.div_ceil(MIB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(round_up(5 * MIB), 5 * MIB);
        assert_eq!(round_up(5 * MIB + 1), 6 * MIB);
        assert_eq!(round_up(300 * MIB), 304 * MIB);
        assert_eq!(round_up(1100 * MIB), 1152 * MIB);
        assert_eq!(size_setting(304 * MIB), "304M");
        assert_eq!(size_setting(2048 * MIB), "2G");
    }
}
