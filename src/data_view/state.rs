//! A [`DataView`] between two events, minus its charts, as a replay checkpoint stores it.
//! The charts (and the verdict engine's series) are rebuilt from the stored rows instead.

use serde::{Deserialize, Serialize};

use super::{Charts, DataView, Link};
use innodebt_engine::derive::{Deriver, DeriverState};
use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::{EnginePoints, RecoveryModel};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewState {
    pub deriver: DeriverState,
    pub latest: Option<Figures>,
    pub latest_t: f64,
    pub link: Link,
    pub samples_seen: u64,
}

impl DataView {
    pub fn state(&self) -> ViewState {
        ViewState {
            deriver: self.deriver.state(),
            latest: self.latest.clone(),
            latest_t: self.latest_t,
            link: self.link.clone(),
            samples_seen: self.samples_seen,
        }
    }

    /// The view back from a checkpoint with `charts` (rebuilt by the caller) and the verdict
    /// engine's series points; recovery estimated with `recovery`.
    pub fn restore(
        state: ViewState,
        recovery: RecoveryModel,
        engine: EnginePoints,
        charts: Charts,
    ) -> Result<Self, String> {
        Ok(DataView {
            deriver: Deriver::restore(state.deriver, recovery, engine)?,
            latest: state.latest,
            latest_t: state.latest_t,
            charts,
            link: state.link,
            samples_seen: state.samples_seen,
        })
    }
}
