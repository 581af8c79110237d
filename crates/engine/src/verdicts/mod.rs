//! Verdicts: what the figures mean for a DBA in an incident, and what to do about it.
//!
//! Owns the diagnosis layer on top of [`crate::measure`]: one [`Figures`] per sample goes into
//! [`VerdictEngine::observe`] with its monotonic time, and an [`Assessment`] comes out — the
//! verdicts that hold (purge blocked by a read view, purge too slow, the purge-lag trap, flush
//! pressure, or healthy), the crash-recovery estimate, the redo sizing advice, and the
//! judgements the figures carry for every reader (checkpoint-age and dirty-page severity,
//! whether purge is blocked, the history growth and what writes pay). Pure: no I/O,
//! no clock; the time of everything is the sample's time, so a recorded `Vec<Figures>` replays
//! into exactly the same verdicts ([`VerdictEngine::replay`]).
//!
//! # Hysteresis
//! A verdict must not flap tick to tick. Each kind enters only after its condition held on
//! [`Hysteresis::enter_samples`] consecutive samples (2) spanning at least
//! [`Hysteresis::enter_min_s`] (0.9 s: "two samples a second apart" with room for poll jitter),
//! and leaves only after the condition was false on every sample for
//! [`Hysteresis::leave_s`] (5 s). While it is leaving it keeps its last message and severity.
//! `since` is the sample time at which the condition began (the first sample of the streak that
//! entered), not the moment the hysteresis confirmed it; a verdict whose severity changes while
//! active keeps its `since`.

mod flush;
mod healthy;
mod layout;
mod open_writes;
mod purge;
pub mod recovery;
mod rseg;
pub mod sizing;
pub mod staleness;
mod state;
mod unknown;
pub mod whatif;
pub mod zones;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::figures::Figures;
pub use crate::figures::{Bound, Missing, Recovery, Severity, Sizing, Verdict, VerdictKind};
use crate::measure::minutes::MinuteMeans;
use crate::measure::series::Series;
use innodebt_server::flavor::Flavor;

pub use flush::FlushJudgement;
pub use layout::RedoLayout;
pub use purge::PurgeJudgement;
pub use recovery::{
    Calibration, CalibrationError, RateOrigin, RecoveryModel, calibrate_from_error_log,
};
pub use state::{ENGINE_SERIES, EnginePoints, EngineState, series_inputs};
pub use unknown::{severity_without_fresh_data, without_fresh_data};

/// The kinds the engine tracks, in the order ties of severity are shown.
const TRACKED: [VerdictKind; 6] = VerdictKind::JUDGED;

/// Everything the engine says about one sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    pub at: DateTime<Utc>,
    /// Most severe first; `healthy` alone when nothing else holds.
    pub verdicts: Vec<Verdict>,
    /// Whether a read view blocks purge, the history growth, the lag and the delay paid.
    pub purge: PurgeJudgement,
    /// Checkpoint-age and dirty-page severities.
    pub flush: FlushJudgement,
    /// Writes queue on too few rollback segments (`warning`), or not; `null` unknown.
    #[serde(default)]
    pub rollback: Option<Severity>,
    pub recovery: Option<Recovery>,
    pub sizing: Option<Sizing>,
}

impl Assessment {
    /// The worst severity among the verdicts ([`Severity::worst_of`]; there is always one).
    pub fn severity(&self) -> Severity {
        Severity::worst_of(&self.verdicts).unwrap_or(Severity::Unknown)
    }

    pub fn get(&self, kind: VerdictKind) -> Option<&Verdict> {
        self.verdicts.iter().find(|v| v.kind == kind)
    }
}

/// Enter/leave rules shared by every verdict kind (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hysteresis {
    /// Consecutive samples the condition must hold before the verdict shows.
    pub enter_samples: u32,
    /// …and the time those samples must span, seconds.
    pub enter_min_s: f64,
    /// Seconds the condition must stay false before the verdict goes.
    pub leave_s: f64,
}

impl Hysteresis {
    /// None: what one sample shows holds at once and goes at once (`--once`).
    pub fn one_shot() -> Self {
        Hysteresis {
            enter_samples: 1,
            enter_min_s: 0.0,
            leave_s: 0.0,
        }
    }
}

impl Default for Hysteresis {
    fn default() -> Self {
        Hysteresis {
            enter_samples: 2,
            enter_min_s: 0.9,
            leave_s: 5.0,
        }
    }
}

/// Thresholds of the purge and flush rules. Defaults are documented on each field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Window of the smoothed history growth, seconds (20 s: long enough to ride over purge
    /// batches and 1 s counter jitter, short enough to notice a new blocker within the window).
    pub trend_window_s: f64,
    /// The growth needs points spanning at least this much of the window, seconds (10 s).
    pub trend_min_span_s: f64,
    /// History "grows steadily" at or above this smoothed rate, undo logs/s (1/s: history
    /// counts transactions, so even a slow leak of one per second is a day's 86,400).
    pub growth_min_per_s: f64,
    /// A read view is named as the blocker once it holds back this much history (1,000 undo
    /// logs ≈ 0.7 s of the 1,500 tps lab load), or history grows steadily behind it.
    pub held_back_min: u64,
    /// Purge verdicts turn critical at this history length (1,000,000 undo logs).
    pub history_critical: u64,
    /// A blocker turns critical once it holds back this much history (100,000; the lab's 60 s
    /// snapshot at 1,500 tps held back ~89,000).
    pub held_back_critical: u64,
    /// A history this long is a debt already (100,000 undo logs: purge turns I/O-bound as
    /// undo falls out of the buffer pool); below it, growth is only an alarm when it reaches
    /// a consequence within [`Self::consequence_horizon_s`].
    pub history_large: u64,
    /// How far ahead a growing history's consequence counts (3,600 s).
    pub consequence_horizon_s: f64,
    /// Purge standing still at least this many transaction numbers behind the counter, with
    /// a read view open, is blocked by it (100: about 50 write transactions committed past
    /// it; at rest the counter runs 1–2 ahead).
    pub lag_trx_stuck_min: u64,
    /// Purge "stands still" below this pace (its position's advance over the counter's; 0.1;
    /// measured 0.00 behind a read view, MariaDB 10.11 at 3,000 commits/s).
    pub pace_stuck: f64,
    /// Purge has caught up at most this many transaction numbers behind the counter (10,000:
    /// purge keeping up at 3,000 commits/s ran 4,900 behind, at most 7,700)…
    pub lag_trx_caught_up: u64,
    /// …while keeping at least this pace (0.5: purge keeping up measured 0.99–1.02 over 28 s
    /// windows and down to 0.88 over one second on a loaded machine; a read view stops it
    /// at 0.00).
    pub pace_keeps_up: f64,
    /// History that stays at or above this while purge has caught up and read-write
    /// transactions are open is held by them (10,000: a few seconds of commits — purge
    /// keeping up on its own held at most ~1 s of them).
    pub history_held_min: u64,
    /// Writes queue on the rollback segments' latches from this many seconds of waiting per
    /// second (0.5: half a thread always waiting; see `verdicts/rseg.rs`)…
    pub rseg_wait_min: f64,
    /// …that are also at least this share of the open writers' time (0.1).
    pub rseg_wait_share: f64,
    /// …or, without performance_schema, this many threads asleep on a segment latch in one
    /// SHOW ENGINE INNODB STATUS (3).
    pub seis_rseg_waiters: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            trend_window_s: 20.0,
            trend_min_span_s: 10.0,
            growth_min_per_s: 1.0,
            held_back_min: 1_000,
            history_critical: 1_000_000,
            held_back_critical: 100_000,
            history_large: 100_000,
            consequence_horizon_s: 3_600.0,
            lag_trx_stuck_min: 100,
            pace_stuck: 0.1,
            lag_trx_caught_up: 10_000,
            pace_keeps_up: 0.5,
            history_held_min: 10_000,
            rseg_wait_min: 0.5,
            rseg_wait_share: 0.1,
            seis_rseg_waiters: 3,
        }
    }
}

/// Everything the engine is configured with.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    pub hysteresis: Hysteresis,
    pub thresholds: Thresholds,
    pub recovery: RecoveryModel,
    /// Server settings sizing needs besides the capacity (page size, files in group, …).
    pub layout: RedoLayout,
    /// Seconds of watching advice to shrink the redo needs (`--sizing-span`; a setting of
    /// the reader, like `recovery`).
    pub sizing_span_s: f64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            hysteresis: Hysteresis::default(),
            thresholds: Thresholds::default(),
            recovery: RecoveryModel::default(),
            layout: RedoLayout::default(),
            sizing_span_s: sizing::DEFAULT_SPAN_S,
        }
    }
}

/// Points kept per series: two hours at 1 Hz. History is looked up at the blocker's start, so
/// older blockers get a lower bound ("≥").
const HISTORY_POINTS: usize = 7_200;
/// …and two hours at any interval (a slower poll keeps fewer points, not a longer past).
const HISTORY_SPAN_S: f64 = 7_200.0;
/// Purge and inflow rates: at most an hour at 1 Hz, and only the trend window's
/// ([`trend_rates`]).
const RATE_POINTS: usize = 3_600;
/// The redo write rate is averaged over the last hour, to the minute ([`hour_of_writes`]).
const HOUR_MINUTES: u32 = 60;

/// A verdict kind's hysteresis state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Track {
    /// First sample (monotonic s, wall time) of the current streak of "condition holds".
    streak_start: Option<(f64, DateTime<Utc>)>,
    streak_len: u32,
    active_since: Option<DateTime<Utc>>,
    /// First sample of the current "condition false" streak while active.
    clear_start: Option<f64>,
    last: Option<Finding>,
    /// When the condition last held (the time `last` describes).
    #[serde(default)]
    last_at: Option<DateTime<Utc>>,
}

impl Track {
    /// Feeds one sample; returns whether the verdict is shown now.
    fn update(
        &mut self,
        t: f64,
        at: DateTime<Utc>,
        finding: Option<Finding>,
        h: &Hysteresis,
    ) -> bool {
        match finding {
            Some(found) => {
                self.clear_start = None;
                self.streak_len = self.streak_len.saturating_add(1);
                let (start_t, start_at) = *self.streak_start.get_or_insert((t, at));
                if self.active_since.is_none()
                    && self.streak_len >= h.enter_samples.max(1)
                    && t - start_t >= h.enter_min_s
                {
                    self.active_since = Some(start_at);
                }
                self.last = Some(found);
                self.last_at = Some(at);
            }
            None => {
                self.streak_len = 0;
                self.streak_start = None;
                if self.active_since.is_some() {
                    let since = *self.clear_start.get_or_insert(t);
                    if t - since >= h.leave_s {
                        self.active_since = None;
                        self.clear_start = None;
                        self.last = None;
                        self.last_at = None;
                    }
                } else {
                    self.last = None;
                    self.last_at = None;
                }
            }
        }
        self.active_since.is_some()
    }

    /// The verdict shown for an active track at `t`. While the condition is gone but the
    /// leave time has not passed, it says so and quotes the last sample that had it, with
    /// that sample's time — never an older sample's figures as if they were now — and is at
    /// most a warning (the panels already show the figures back below the line).
    fn verdict(&self, kind: VerdictKind, t: f64, h: &Hysteresis) -> Option<Verdict> {
        let (since, last) = (self.active_since?, self.last.as_ref()?);
        let (severity, message, clearing) = match (self.clear_start, self.last_at) {
            (Some(gone), Some(last_at)) => (
                last.severity.min(Severity::Warning),
                format!(
                    "clearing {:.0}/{:.0} s — last seen {}: {}",
                    (t - gone).max(0.0).floor(),
                    h.leave_s,
                    last_at.format("%H:%M:%S"),
                    last.message
                ),
                true,
            ),
            _ => (last.severity, last.message.clone(), false),
        };
        Some(Verdict {
            kind,
            severity,
            since,
            message,
            thread_id: last.thread_id,
            clearing,
            missing: Vec::new(),
        })
    }
}

/// What a rule found in one sample, before hysteresis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Finding {
    pub severity: Severity,
    pub message: String,
    pub thread_id: Option<u64>,
}

/// Feeds on one [`Figures`] per sample and keeps the bounded state the verdicts need.
#[derive(Debug, Clone)]
pub struct VerdictEngine {
    cfg: EngineConfig,
    history: Series,
    purge_rate: Series,
    inflow_rate: Series,
    written_rate: MinuteMeans,
    peak: sizing::PeakTracker,
    tracks: [Track; 6],
    healthy_since: Option<DateTime<Utc>>,
    /// Since when the verdict has been `unknown` (what is missing may change meanwhile).
    unknown_since: Option<DateTime<Utc>>,
    last_t: Option<f64>,
    /// When a blocker was last seen: growth within the trend window after it is its doing.
    last_blocker_t: Option<f64>,
}

impl Default for VerdictEngine {
    fn default() -> Self {
        Self::new(EngineConfig::default())
    }
}

impl VerdictEngine {
    pub fn new(cfg: EngineConfig) -> Self {
        VerdictEngine {
            history: Series::spanning(HISTORY_POINTS, HISTORY_SPAN_S),
            purge_rate: trend_rates(&cfg.thresholds, []),
            inflow_rate: trend_rates(&cfg.thresholds, []),
            written_rate: hour_of_writes(),
            peak: sizing::PeakTracker::default(),
            tracks: Default::default(),
            healthy_since: None,
            unknown_since: None,
            last_t: None,
            last_blocker_t: None,
            cfg,
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Replaces the recovery model (e.g. after calibrating from an error log); the state is kept.
    pub fn set_recovery_model(&mut self, model: RecoveryModel) {
        self.cfg.recovery = model;
    }

    /// Sets the span advice to shrink needs; what was watched is kept.
    pub fn set_sizing_span(&mut self, span_s: f64) {
        self.cfg.sizing_span_s = span_s;
    }

    /// Forgets everything observed (a replay seek, another server).
    pub fn reset(&mut self) {
        *self = Self::new(self.cfg.clone());
    }

    /// The samples from now on are not comparable with those before (a restart, a
    /// reconnection: the rates start again): the history trend, and what a read view held
    /// back, start again too — a growth never spans the gap.
    pub fn new_baseline(&mut self) {
        self.history = Series::spanning(HISTORY_POINTS, HISTORY_SPAN_S);
        self.last_blocker_t = None;
    }

    /// Feeds one sample taken at monotonic time `t_s` (seconds, any origin) and assesses it.
    /// Time going backwards restarts the state, like [`Series`].
    pub fn observe(&mut self, t_s: f64, f: &Figures, flavor: Flavor) -> Assessment {
        if self.last_t.is_some_and(|last| t_s < last) {
            self.reset();
        }
        self.last_t = Some(t_s);
        if f.blocker.is_some() {
            self.last_blocker_t = Some(t_s);
        }
        let at = f.sampled_at;

        // The same inputs a replay checkpoint stores per sample to rebuild these series.
        let [history, purge, inflow, written] = series_inputs(f);
        self.history.push(t_s, history);
        self.purge_rate.push(t_s, purge);
        self.inflow_rate.push(t_s, inflow);
        self.written_rate.push(t_s, written);
        self.peak
            .observe(at, f.redo.checkpoint_age_bytes, f.interval_s);

        let th = self.cfg.thresholds;
        let trend = purge::trend(&self.history, t_s, f, &th);
        let judged = purge::judge(f, &trend, &th, flavor);
        let flush_judged = flush::judge(f, flavor);
        let ctx = purge::Context {
            f,
            flavor,
            th: &th,
            trend: &trend,
            judged: &judged,
            purge_avg: mean_since(&self.purge_rate, t_s - th.trend_window_s),
            inflow_avg: mean_since(&self.inflow_rate, t_s - th.trend_window_s),
            blocker_recent: self
                .last_blocker_t
                .is_some_and(|b| t_s - b < th.trend_window_s),
        };
        let findings = [
            purge::blocked_by_read_view(&ctx),
            purge::purge_lag_trap(&ctx),
            purge::purge_too_slow(&ctx),
            open_writes::history_held_by_open_writes(&ctx),
            flush::flush_pressure(f, flavor, &flush_judged),
            rseg::rollback_segment_contention(f, &th),
        ];

        let h = self.cfg.hysteresis;
        let mut verdicts = Vec::new();
        for ((kind, track), finding) in TRACKED.iter().zip(self.tracks.iter_mut()).zip(findings) {
            if track.update(t_s, at, finding, &h)
                && let Some(v) = track.verdict(*kind, t_s, &h)
            {
                verdicts.push(v);
            }
        }
        // What no rule could judge: never "healthy" without the data to say so.
        let missing = unknown::missing(f, &trend, &judged, &th);
        if missing.is_empty() {
            self.unknown_since = None;
        } else {
            let since = *self.unknown_since.get_or_insert(at);
            let (missing, sentences): (Vec<_>, Vec<_>) = missing.into_iter().unzip();
            verdicts.push(Verdict {
                kind: VerdictKind::Unknown,
                severity: Severity::Unknown,
                since,
                message: format!("{}.", sentences.join("; ")),
                thread_id: None,
                clearing: false,
                missing,
            });
        }
        // Most severe first; ties keep the TRACKED order (a stable sort).
        verdicts.sort_by_key(|v| std::cmp::Reverse(v.severity));
        if verdicts.is_empty() {
            let since = *self.healthy_since.get_or_insert(at);
            verdicts.push(Verdict {
                kind: VerdictKind::Healthy,
                severity: Severity::Ok,
                since,
                message: healthy::message(f, &judged, &flush_judged, &th),
                thread_id: None,
                clearing: false,
                missing: Vec::new(),
            });
        } else {
            self.healthy_since = None;
        }

        let recovery = self.cfg.recovery.estimate(f);
        let hour_rate = self.written_rate.mean_at(t_s);
        let sizing = sizing::advise(
            &self.peak,
            f,
            flavor,
            &self.cfg.layout,
            &self.cfg.recovery,
            hour_rate,
            self.cfg.sizing_span_s,
        );
        let rollback = rseg::contended(&f.rollback, f.purge.open_rw_trx, &th)
            .map(|c| if c { Severity::Warning } else { Severity::Ok });
        Assessment {
            at,
            verdicts,
            rollback,
            purge: judged,
            flush: flush_judged,
            recovery,
            sizing,
        }
    }

    /// Replays recorded figures in order; each sample's time is its `sampled_at` relative to
    /// the first one (the monotonic clock is not recorded in [`Figures`]).
    pub fn replay<'a, I>(&mut self, figures: I, flavor: Flavor) -> Vec<Assessment>
    where
        I: IntoIterator<Item = &'a Figures>,
    {
        let mut origin: Option<DateTime<Utc>> = None;
        figures
            .into_iter()
            .map(|f| {
                let start = *origin.get_or_insert(f.sampled_at);
                let t = (f.sampled_at - start).num_milliseconds() as f64 / 1000.0;
                self.observe(t, f, flavor)
            })
            .collect()
    }
}

/// The purge and inflow rates: only averaged over the trend window, so kept for twice its
/// length (the margin: rounding at the window's edge never drops a point the mean reads).
/// An hour of them was 1,440 points per server at 5 s that nothing read — 23 MB at 1,000
/// targets in `serve`.
fn trend_rates(th: &Thresholds, points: impl IntoIterator<Item = (f64, f64)>) -> Series {
    Series::from_points_spanning(RATE_POINTS, 2.0 * th.trend_window_s, points)
}

/// The redo write rate's last hour (the sizing rule's "one hour of redo writes"), kept as minute
/// sums: its points were 720 per server at 5 s, read only for their mean.
fn hour_of_writes() -> MinuteMeans {
    MinuteMeans::new(HOUR_MINUTES)
}

/// Mean of a series' values with `t >= since`.
fn mean_since(s: &Series, since: f64) -> Option<f64> {
    s.mean_since(since)
}

#[cfg(test)]
mod tests;
