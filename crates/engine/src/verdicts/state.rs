//! The engine's state as a replay checkpoint stores it. Everything but the series is kept as
//! is; the history and the purge and inflow rates are stored as their lengths only, because
//! their points are the engine's per-sample inputs ([`series_inputs`]) that the capture keeps
//! next to every sample anyway: the newest `len` finite inputs before the checkpoint are
//! exactly the points. The redo write rate's hour is kept whole: it is 61 minute sums, not
//! points (its series length is always 0).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::sizing::PeakTracker;
use super::{
    EngineConfig, HISTORY_POINTS, HISTORY_SPAN_S, Hysteresis, RecoveryModel, RedoLayout,
    Thresholds, Track, VerdictEngine, hour_of_writes, trend_rates,
};
use crate::figures::Figures;
use crate::measure::minutes::MinuteMeans;
use crate::measure::series::Series;

/// The engine's inputs per sample: history length, purge records/s, rows written/s (inflow),
/// redo bytes written/s — in this order everywhere. The first three are series of points; the
/// last is kept as minute sums ([`MinuteMeans`]) and has no points.
pub const ENGINE_SERIES: usize = 4;

/// Each series' points, oldest first (time, value).
pub type EnginePoints = [Vec<(f64, f64)>; ENGINE_SERIES];

/// What the engine adds to its series for one sample's figures (`None`: no point).
pub fn series_inputs(f: &Figures) -> [Option<f64>; ENGINE_SERIES] {
    [
        f.history.length.map(|h| h as f64),
        f.purge.records_per_s,
        f.purge.inflow_records_per_s,
        f.redo.written_bytes_per_s,
    ]
}

/// The engine between two samples, without its recovery model and sizing span (settings of
/// the reader, applied again on restore: nothing the engine remembers depends on them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineState {
    hysteresis: Hysteresis,
    thresholds: Thresholds,
    layout: RedoLayout,
    peak: PeakTracker,
    tracks: [Track; 6],
    healthy_since: Option<DateTime<Utc>>,
    #[serde(default)]
    unknown_since: Option<DateTime<Utc>>,
    last_t: Option<f64>,
    last_blocker_t: Option<f64>,
    /// Points in each series (see [`ENGINE_SERIES`]) and the time of the newest, to check
    /// a rebuild against.
    series: [(usize, Option<f64>); ENGINE_SERIES],
    /// The redo write rate's last hour, as minute sums.
    #[serde(default = "hour_of_writes")]
    written: MinuteMeans,
}

impl EngineState {
    /// How many points each series holds: how many stored inputs a restore needs.
    pub fn series_len(&self) -> [usize; ENGINE_SERIES] {
        self.series.map(|(n, _)| n)
    }
}

impl VerdictEngine {
    /// The series of points; the redo write rate's minute sums have none (`None`).
    fn series(&self) -> [Option<&Series>; ENGINE_SERIES] {
        [
            Some(&self.history),
            Some(&self.purge_rate),
            Some(&self.inflow_rate),
            None,
        ]
    }

    /// Each series' points, oldest first.
    pub fn series_points(&self) -> EnginePoints {
        self.series()
            .map(|s| s.map(|s| s.points().collect()).unwrap_or_default())
    }

    pub fn state(&self) -> EngineState {
        EngineState {
            hysteresis: self.cfg.hysteresis,
            thresholds: self.cfg.thresholds,
            layout: self.cfg.layout,
            peak: self.peak.clone(),
            tracks: self.tracks.clone(),
            healthy_since: self.healthy_since,
            unknown_since: self.unknown_since,
            last_t: self.last_t,
            last_blocker_t: self.last_blocker_t,
            series: self
                .series()
                .map(|s| s.map_or((0, None), |s| (s.len(), s.last().map(|p| p.0)))),
            written: self.written_rate.clone(),
        }
    }

    /// The engine back from a checkpoint and the points of its series (oldest first, as many
    /// as [`EngineState::series_len`] says). Points that do not fit the state are refused.
    /// The sizing span is the default until [`VerdictEngine::set_sizing_span`].
    pub fn restore(
        state: EngineState,
        recovery: RecoveryModel,
        points: EnginePoints,
    ) -> Result<Self, String> {
        for (i, (p, (n, last))) in points.iter().zip(state.series).enumerate() {
            if p.len() != n || p.last().map(|p| p.0) != last {
                return Err(format!(
                    "engine series {i}: {} points ending at {:?} where the checkpoint holds {n} ending at {last:?}",
                    p.len(),
                    p.last().map(|p| p.0)
                ));
            }
        }
        let [h, pr, inf, _no_points] = points;
        Ok(VerdictEngine {
            cfg: EngineConfig {
                hysteresis: state.hysteresis,
                thresholds: state.thresholds,
                recovery,
                layout: state.layout,
                sizing_span_s: super::sizing::DEFAULT_SPAN_S,
            },
            history: Series::from_points_spanning(HISTORY_POINTS, HISTORY_SPAN_S, h),
            purge_rate: trend_rates(&state.thresholds, pr),
            inflow_rate: trend_rates(&state.thresholds, inf),
            written_rate: state.written,
            peak: state.peak,
            tracks: state.tracks,
            healthy_since: state.healthy_since,
            unknown_since: state.unknown_since,
            last_t: state.last_t,
            last_blocker_t: state.last_blocker_t,
        })
    }
}
