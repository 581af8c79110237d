//! "What if": the recorded samples re-judged under another setting, with the flavour's own
//! formulas — where the async and sync (MariaDB: M) points would have been, how long checkpoint
//! age spent past each and how often it crossed them (the replay timeline's rule,
//! [`super::zones`]), the crash recovery a crash at the worst moment would have cost, and the
//! DML delay writes would have paid under another `innodb_max_purge_lag(_delay)`.
//!
//! # The model and its limits (also in [`LIMITS`], printed with every result)
//! - The recorded checkpoint age is taken as is. A different redo size changes the age a
//!   workload reaches only through flushing (adaptive flushing starts later with a bigger
//!   log, and a smaller log forces flushing earlier); flushing is not modelled. With a smaller
//!   log the age is cut at the new stall point for the recovery estimate (writes wait there),
//!   and the time the recorded age spent past it is when writes would have stalled.
//! - The recorded history length is taken as is: a DML delay slows the writes that make
//!   history, which would slow its growth; that feedback is not modelled. The delay follows
//!   the flavour (`Flavor::dml_delay_us`, and MariaDB applies none while a read view blocks
//!   purge). Writes counted are the recorded updates + deletes (`Handler_update`,
//!   `Handler_delete`); inserts pay the delay too but are not counted, so the total writes
//!   would have waited is a lower bound.
//! - `innodb_io_capacity` has no model: it changes how fast pages are flushed, and a capture
//!   records only the outcome. `innodb_purge_threads` has one only where it gates the DML
//!   delay (MySQL ≥ 8.0.14: no delay while history ≤ threads × batch size); its effect on
//!   how fast purge runs is not modelled.
//!
//! Time is summed per sample over the interval since the previous one, at most
//! [`MAX_STEP_S`] (a gap in the recording is not time spent anywhere).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::RecoveryModel;
use super::layout::RedoLayout;
use super::recovery::DEFAULT_RATE_SOURCE;
use super::zones::{Pending, Zone, zone_step};

mod scenario;
use crate::figures::Figures;
use crate::units::duration;
use innodebt_server::flavor::Flavor;
use innodebt_server::sample::ServerInfo;
pub use scenario::{Scenario, Setting, WhatIfVariable, size_setting};

/// Longest interval one sample stands for.
pub const MAX_STEP_S: f64 = 30.0;

/// The model's limits, said with every result.
pub const LIMITS: &[&str] = &[
    "checkpoint age is the recorded one: a different redo size changes the age a workload \
     reaches only through flushing, which is not modelled",
    "with a smaller log the age is cut at the new stall point for the recovery estimate; the \
     time the recorded age spent past it is when writes would have stalled",
    "history length is the recorded one: a DML delay would slow the writes that make history; \
     that feedback is not modelled",
    "writes counted are recorded updates and deletes: inserts pay the delay too, so the time \
     writes would have waited is a lower bound",
];

/// Checkpoint age against one set of flush points over the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RedoOutcome {
    /// The capacity and points (the recorded ones: as last seen).
    pub capacity_bytes: Option<u64>,
    pub async_point_bytes: Option<u64>,
    /// MariaDB: M, past which flushing turns furious and user threads wait.
    pub sync_point_bytes: Option<u64>,
    pub peak_checkpoint_age_bytes: Option<u64>,
    pub peak_at: Option<DateTime<Utc>>,
    pub peak_pct_of_async: Option<f64>,
    pub seconds_past_async: f64,
    pub seconds_past_sync: f64,
    /// Crossings upward, counted as the replay timeline counts them.
    pub async_crossings: u32,
    pub sync_crossings: u32,
    pub first_async_crossing_at: Option<DateTime<Utc>>,
    /// A crash at the worst moment: the peak age (cut at the stall point) and that moment's
    /// dirty pages.
    pub recovery_at_worst_moment_s: Option<f64>,
    /// The dashboard's worst case: the most checkpoint age the server lets build up (5.7 and
    /// MariaDB < 10.5.7: `max_checkpoint_age`; elsewhere the stall line, MariaDB's M).
    pub worst_case_recovery_s: Option<f64>,
}

/// The DML delay over the window under one purge-lag setting.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PurgeOutcome {
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay_us: Option<u64>,
    /// Time writes paid a delay.
    pub seconds_delayed: f64,
    /// Time the formula's delay was armed but the flavour did not apply it (MariaDB while a
    /// read view blocks purge).
    pub seconds_armed_not_applied: f64,
    pub peak_delay_us: u64,
    pub first_delay_at: Option<DateTime<Utc>>,
    /// Σ delay × rows updated or deleted: what writers would have waited in all (a lower
    /// bound: inserts are not counted).
    pub writes_waited_s: f64,
}

/// A scenario's result next to the recording's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIfReport {
    pub scenario: Scenario,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub samples: u64,
    /// Redo, when the scenario changes the redo size.
    pub redo: Option<Compared<RedoOutcome>>,
    /// The DML delay, when the scenario changes the purge lag or delay.
    pub purge: Option<Compared<PurgeOutcome>>,
    pub recovery_rate_source: String,
    /// What the sync line is called on this flavour (MariaDB: `furious flush (M)`).
    pub sync_point_name: String,
    /// One line per part, in the DBA's words.
    pub summary: Vec<String>,
    pub limits: Vec<String>,
}

impl WhatIfReport {
    /// The summary's redo line, when the scenario changes the redo size.
    pub fn redo_summary(&self) -> Option<&str> {
        self.redo.as_ref()?;
        self.summary.first().map(String::as_str)
    }

    /// The summary's purge line (the DML delay writes would have paid), when the scenario
    /// changes the purge lag, its delay or the purge threads. It follows the redo line.
    pub fn purge_summary(&self) -> Option<&str> {
        self.purge.as_ref()?;
        let i = usize::from(self.redo.is_some());
        self.summary.get(i).map(String::as_str)
    }

    /// The purge line in a few words, for a narrow panel: "max_purge_lag = 5000: never
    /// delayed (armed 1m 13s while purge was blocked)".
    pub fn purge_short(&self) -> Option<String> {
        let w = &self.purge.as_ref()?.what_if;
        let label = self.scenario.label_purge().replace("innodb_", "");
        let armed = w.seconds_armed_not_applied;
        let what = match (w.seconds_delayed > 0.0, armed > 0.0) {
            (false, false) => "writes never delayed".to_string(),
            (false, true) => format!(
                "never delayed (armed {} while purge was blocked)",
                secs(armed)
            ),
            (true, _) => format!(
                "writes delayed {}, ≥ {:.1} s waited",
                secs(w.seconds_delayed),
                w.writes_waited_s
            ),
        };
        Some(format!("{label}: {what}"))
    }

    /// The `innodb_max_purge_lag` the scenario sets (0 is off: no line to draw).
    pub fn max_purge_lag(&self) -> Option<u64> {
        self.scenario.max_purge_lag.filter(|l| *l > 0)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compared<T> {
    pub recorded: T,
    pub what_if: T,
}

/// Checkpoint age against fixed or per-sample points, accumulated sample by sample.
#[derive(Debug, Clone, Default)]
struct RedoTrack {
    out: RedoOutcome,
    zone: Zone,
    pending: Pending,
    worst: Option<(u64, Option<u64>)>,
    /// The most age the server lets build up (`RedoPoints::worst_case_age`).
    worst_age: Option<u64>,
    samples: u64,
}

/// The redo lines one side is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Points {
    pub capacity: u64,
    pub async_point: u64,
    pub stall: u64,
    /// Where a checkpoint is forced: 5.7's `max_checkpoint_age`, else the stall line.
    pub worst: u64,
}

impl RedoTrack {
    fn observe(&mut self, f: &Figures, points: Points, dt: f64) {
        let Points {
            capacity,
            async_point: a,
            stall: s,
            worst,
        } = points;
        let o = &mut self.out;
        o.capacity_bytes = Some(capacity);
        o.async_point_bytes = Some(a);
        o.sync_point_bytes = Some(s);
        self.worst_age = Some(worst);
        let here = self.samples;
        self.samples += 1;
        let Some(age) = f.redo.checkpoint_age_bytes else {
            return;
        };
        if o.peak_checkpoint_age_bytes.is_none_or(|p| age > p) {
            o.peak_checkpoint_age_bytes = Some(age);
            o.peak_at = Some(f.sampled_at);
            o.peak_pct_of_async = (a > 0).then(|| age as f64 * 100.0 / a as f64);
        }
        // The zones by the one rule (`Zone::of`: a point of 0 is no line).
        if let Some(now) = Zone::of(age, Some(a), Some(s)) {
            if now >= Zone::PastAsync {
                o.seconds_past_async += dt;
            }
            if now == Zone::PastSync {
                o.seconds_past_sync += dt;
            }
            if let Some(c) = zone_step(&mut self.zone, &mut self.pending, now, f.sampled_at, here) {
                if c.crossed_async() {
                    o.async_crossings += 1;
                    o.first_async_crossing_at.get_or_insert(c.since);
                }
                if c.crossed_sync() {
                    o.sync_crossings += 1;
                }
            }
        }
        // The worst moment: the most redo to apply (cut where the server forces a checkpoint),
        // with its pages.
        let cut = age.min(worst);
        if self.worst.is_none_or(|(w, _)| cut > w) {
            self.worst = Some((cut, f.dirty.pages));
        }
    }

    fn finish(mut self, model: &RecoveryModel, page_reads: f64) -> RedoOutcome {
        if let Some((redo, pages)) = self.worst {
            self.out.recovery_at_worst_moment_s = Some(model.seconds(redo, pages, page_reads).0);
        }
        if let Some(w) = self.worst_age {
            let pages = self.worst.and_then(|w| w.1);
            self.out.worst_case_recovery_s = Some(model.seconds(w, pages, page_reads).0);
        }
        self.out
    }
}

/// The purge settings one side is judged with.
#[derive(Debug, Clone, Copy)]
struct PurgeKnobs {
    lag: Option<u64>,
    cap: Option<u64>,
    threads: Option<u64>,
}

#[derive(Debug, Clone, Default)]
struct PurgeTrack {
    out: PurgeOutcome,
}

impl PurgeTrack {
    fn observe(&mut self, flavor: Flavor, f: &Figures, variables: PurgeKnobs, dt: f64) {
        let PurgeKnobs { lag, cap, threads } = variables;
        let o = &mut self.out;
        o.max_purge_lag = lag;
        o.max_purge_lag_delay_us = cap;
        let (Some(h), Some(lag)) = (f.history.length, lag) else {
            return;
        };
        let delay = flavor.dml_delay_us(h, lag, cap.unwrap_or(0), threads, f.purge.batch_size);
        if delay == 0 {
            return;
        }
        let applied = if f.purge.blocked == Some(true) && !flavor.purge_lag_delays_while_blocked() {
            o.seconds_armed_not_applied += dt;
            0
        } else {
            delay
        };
        if applied == 0 {
            return;
        }
        o.seconds_delayed += dt;
        o.peak_delay_us = o.peak_delay_us.max(applied);
        o.first_delay_at.get_or_insert(f.sampled_at);
        let rows = f.purge.inflow_records_per_s.unwrap_or(0.0).max(0.0) * dt;
        o.writes_waited_s += applied as f64 * rows / 1e6;
    }
}

/// Re-judges samples under a [`Scenario`], one at a time.
#[derive(Debug, Clone)]
pub struct WhatIf {
    scenario: Scenario,
    flavor: Flavor,
    layout: RedoLayout,
    model: RecoveryModel,
    page_reads: Option<f64>,
    recorded_redo: RedoTrack,
    what_if_redo: RedoTrack,
    recorded_purge: PurgeTrack,
    what_if_purge: PurgeTrack,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
    samples: u64,
}

impl WhatIf {
    /// A scenario on the server `info` describes (the capture's).
    pub fn new(scenario: Scenario, info: &ServerInfo, model: RecoveryModel) -> WhatIf {
        WhatIf {
            scenario,
            flavor: info.flavor,
            layout: RedoLayout::from_info(info),
            model,
            page_reads: None,
            recorded_redo: RedoTrack::default(),
            what_if_redo: RedoTrack::default(),
            recorded_purge: PurgeTrack::default(),
            what_if_purge: PurgeTrack::default(),
            from: None,
            to: None,
            samples: 0,
        }
    }

    /// The redo points the scenario's capacity gives on this server.
    pub fn points(&self) -> Option<Points> {
        let cap = self.scenario.redo_capacity?;
        let p = self.flavor.redo_points_at_capacity(
            cap,
            self.layout.page_size,
            self.layout.files_in_group,
            self.layout.thread_concurrency,
        );
        Some(Points {
            capacity: p.capacity,
            async_point: p.async_point,
            stall: p.sync_point,
            worst: p.worst_case_age(),
        })
    }

    /// One recorded sample's figures.
    pub fn observe(&mut self, f: &Figures) {
        let dt = f
            .interval_s
            .filter(|d| d.is_finite() && *d > 0.0)
            .map_or(0.0, |d| d.min(MAX_STEP_S));
        self.from.get_or_insert(f.sampled_at);
        self.to = Some(f.sampled_at);
        self.samples += 1;
        if self.page_reads.is_none() {
            self.page_reads = Some(self.model.page_reads(f).0);
        }
        if let Some(points) = self.points() {
            self.what_if_redo.observe(f, points, dt);
            let r = &f.redo;
            match (r.capacity_bytes, r.async_point_bytes, r.sync_point_bytes) {
                (Some(capacity), Some(async_point), Some(stall)) => {
                    let worst = r.worst_case_age_bytes().unwrap_or(stall);
                    let p = Points {
                        capacity,
                        async_point,
                        stall,
                        worst,
                    };
                    self.recorded_redo.observe(f, p, dt)
                }
                _ => self.recorded_redo.samples += 1,
            }
        }
        if self.scenario.changes_purge() {
            let recorded = PurgeKnobs {
                lag: f.purge.max_purge_lag,
                cap: f.purge.max_purge_lag_delay_us,
                threads: f.purge.threads,
            };
            self.recorded_purge.observe(self.flavor, f, recorded, dt);
            let what_if = PurgeKnobs {
                lag: self.scenario.max_purge_lag.or(recorded.lag),
                cap: self.scenario.max_purge_lag_delay.or(recorded.cap),
                threads: self.scenario.purge_threads.or(recorded.threads),
            };
            self.what_if_purge.observe(self.flavor, f, what_if, dt);
        }
    }

    pub fn finish(self) -> WhatIfReport {
        let page_reads = self
            .page_reads
            .unwrap_or(super::recovery::DEFAULT_PAGE_READS_PER_S);
        let rate = rate_name(&self.model);
        let redo = self.scenario.redo_capacity.map(|_| Compared {
            recorded: self.recorded_redo.finish(&self.model, page_reads),
            what_if: self.what_if_redo.finish(&self.model, page_reads),
        });
        let purge = self.scenario.changes_purge().then_some(Compared {
            recorded: self.recorded_purge.out,
            what_if: self.what_if_purge.out,
        });
        let mut summary = Vec::new();
        if let Some(r) = &redo {
            summary.push(redo_line(&self.scenario, self.flavor, r, &rate));
        }
        if let Some(p) = &purge {
            summary.push(purge_line(&self.scenario, self.flavor, p));
        }
        WhatIfReport {
            scenario: self.scenario,
            from: self.from,
            to: self.to,
            samples: self.samples,
            redo,
            purge,
            recovery_rate_source: self.model.rate_source.clone(),
            sync_point_name: self.flavor.sync_point_name().to_string(),
            summary,
            limits: LIMITS.iter().map(|l| l.to_string()).collect(),
        }
    }
}

/// What the sizing advice says of its advised size, by this model with the one moment it has
/// (the peak): "with 304M: async never reached (peak at 83 % of its async point); worst
/// recovery 3s (default rate)".
pub fn peak_line(
    label: &str,
    peak: u64,
    async_point: u64,
    recovery_s: f64,
    model: &RecoveryModel,
) -> String {
    let pct = if async_point > 0 {
        format!(
            " (peak at {:.0} % of its async point)",
            peak as f64 * 100.0 / async_point as f64
        )
    } else {
        String::new()
    };
    let reached = if peak < async_point {
        format!("async never reached{pct}")
    } else {
        format!("async still reached{pct}")
    };
    format!(
        "with {label}: {reached}; worst recovery {} ({})",
        secs(recovery_s),
        rate_name(model)
    )
}

/// `default rate`, `--recovery-rate`, `calibrated rate`: how a summary names the rate.
pub fn rate_name(model: &RecoveryModel) -> String {
    if model.rate_source == DEFAULT_RATE_SOURCE {
        "default rate".into()
    } else if model.rate_source.starts_with("calibrated") {
        "calibrated rate".into()
    } else {
        model.rate_source.clone()
    }
}

fn secs(s: f64) -> String {
    duration(s.round() as u64)
}

/// "with 4G: async never reached; worst recovery 41 s (default rate)".
fn redo_line(s: &Scenario, flavor: Flavor, r: &Compared<RedoOutcome>, rate: &str) -> String {
    let w = &r.what_if;
    let sync = flavor.sync_point_name();
    let reached = if w.async_crossings == 0 && w.seconds_past_async == 0.0 {
        format!(
            "async never reached{}",
            w.peak_pct_of_async
                .map(|p| format!(" (peak at {p:.0} % of its async point)"))
                .unwrap_or_default()
        )
    } else {
        format!(
            "past async {} in {} crossing(s), past {sync} {}",
            secs(w.seconds_past_async),
            w.async_crossings,
            secs(w.seconds_past_sync)
        )
    };
    let recorded = &r.recorded;
    let was = format!(
        "recorded: past async {} in {} crossing(s), past {sync} {}",
        secs(recorded.seconds_past_async),
        recorded.async_crossings,
        secs(recorded.seconds_past_sync)
    );
    let recovery = w
        .recovery_at_worst_moment_s
        .map(|x| format!("; worst recovery {} ({rate})", secs(x)))
        .unwrap_or_default();
    format!(
        "with {}: {reached}{recovery} — {was}",
        s.label_redo().unwrap_or_else(|| s.label.clone())
    )
}

fn purge_line(s: &Scenario, flavor: Flavor, p: &Compared<PurgeOutcome>) -> String {
    let w = &p.what_if;
    let label = s.label_purge();
    let armed = if w.seconds_armed_not_applied > 0.0 {
        format!(
            "; armed but not applied for {} while a read view blocked purge ({} does not \
             delay then)",
            secs(w.seconds_armed_not_applied),
            flavor.display_name()
        )
    } else {
        String::new()
    };
    let what = if w.seconds_delayed == 0.0 {
        format!("writes never delayed{armed}")
    } else {
        format!(
            "writes delayed for {} (up to {} µs per row), ≥ {:.1} s waited in all{armed}",
            secs(w.seconds_delayed),
            w.peak_delay_us,
            w.writes_waited_s
        )
    };
    let r = &p.recorded;
    format!(
        "with {label}: {what} — recorded: delayed {}, ≥ {:.1} s waited",
        secs(r.seconds_delayed),
        r.writes_waited_s
    )
}

#[cfg(test)]
mod tests;
