//! The deriver's state as a replay checkpoint stores it: what measuring remembers, the redo
//! capacity seen, and the verdict engine's state. The recovery model and the sizing span are
//! settings of whoever reads the capture, applied again on restore (nothing remembered
//! depends on them).

use serde::{Deserialize, Serialize};

use super::{Deriver, RedoResize};
use crate::measure::{Measurer, MeasurerState};
use crate::verdicts::{
    ENGINE_SERIES, EnginePoints, EngineState, Hysteresis, RecoveryModel, RedoLayout, VerdictEngine,
};

/// Bump when what derivation computes or remembers changes: checkpoints stored by another
/// version are then not trusted, and a replay derives those files from their start instead.
/// `tests/it/replay_window.rs` pins a fingerprint of the demo's states to this number.
pub const DERIVATION_VERSION: u32 = 16;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeriverState {
    measurer: MeasurerState,
    engine: Option<(RedoLayout, Option<u64>, EngineState)>,
    last_capacity: Option<u64>,
    redo_resized: Option<RedoResize>,
}

impl DeriverState {
    /// How many points each engine series holds (zeros without an engine).
    pub fn series_len(&self) -> [usize; ENGINE_SERIES] {
        self.engine
            .as_ref()
            .map_or([0; ENGINE_SERIES], |(_, _, e)| e.series_len())
    }
}

impl Deriver {
    pub fn state(&self) -> DeriverState {
        DeriverState {
            measurer: self.measurer.state(),
            engine: self
                .engine
                .as_ref()
                .map(|((layout, cap), e)| (*layout, *cap, e.state())),
            last_capacity: self.last_capacity,
            redo_resized: self.redo_resized.clone(),
        }
    }

    /// A deriver back from a checkpoint, its engine's series given as their points (see
    /// [`VerdictEngine::restore`]), estimating recovery with `recovery`; the sizing span is the
    /// default until [`Deriver::set_sizing_span`].
    pub fn restore(
        state: DeriverState,
        recovery: RecoveryModel,
        series: EnginePoints,
    ) -> Result<Self, String> {
        let engine = match state.engine {
            Some((layout, cap, e)) => Some((
                (layout, cap),
                VerdictEngine::restore(e, recovery.clone(), series)?,
            )),
            None if series.iter().any(|s| !s.is_empty()) => {
                return Err("series points for a deriver without a verdict engine".into());
            }
            None => None,
        };
        Ok(Deriver {
            measurer: Measurer::restore(state.measurer),
            recovery,
            hysteresis: Hysteresis::default(),
            sizing_span_s: crate::verdicts::sizing::DEFAULT_SPAN_S,
            engine,
            last_capacity: state.last_capacity,
            redo_resized: state.redo_resized,
        })
    }

    /// The verdict engine's series points, oldest first (empty without an engine).
    pub fn engine_points(&self) -> EnginePoints {
        match &self.engine {
            Some((_, e)) => e.series_points(),
            None => EnginePoints::default(),
        }
    }
}
