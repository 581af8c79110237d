//! What measuring remembers between samples, as a replay checkpoint stores it: the server,
//! the previous sample, the last SEIS and undo scan, standing refusals, the slow-cadence
//! counters and the last minute of innodebt's own cost.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::selfcost::CostWindow;
use super::{Measurer, SlowCounters};
use innodebt_server::innodb_status::InnodbStatus;
use innodebt_server::sample::{Sample, ServerInfo, Unavailable, UndoScan};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasurerState {
    info: Option<ServerInfo>,
    prev: Option<Sample>,
    last_status: Option<(DateTime<Utc>, InnodbStatus)>,
    last_undo_scan: Option<(DateTime<Utc>, UndoScan)>,
    slow_refused: Vec<Unavailable>,
    slow: SlowCounters,
    cost: CostWindow,
}

impl Measurer {
    pub fn state(&self) -> MeasurerState {
        MeasurerState {
            info: self.info.as_deref().cloned(),
            prev: self.prev.clone(),
            last_status: self.last_status.clone(),
            last_undo_scan: self.last_undo_scan,
            slow_refused: self.slow_refused.clone(),
            slow: self.slow.clone(),
            cost: self.cost.clone(),
        }
    }

    pub fn restore(state: MeasurerState) -> Self {
        Measurer {
            info: state.info.map(std::sync::Arc::new),
            prev: state.prev,
            last_status: state.last_status,
            last_undo_scan: state.last_undo_scan,
            slow_refused: state.slow_refused,
            slow: state.slow,
            cost: state.cost,
        }
    }
}
