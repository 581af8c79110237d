//! innodebt's own cost to the server for one moment, as data (`self` in the JSON). Made by
//! `measure::selfcost` from the statements each sample records.

use serde::{Deserialize, Serialize};

use innodebt_server::sample::Slowed;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfCost {
    /// Statements this tick sent (slow-cadence ones included on the ticks they ran).
    pub statements_per_tick: u32,
    /// Their round trips added up, in ms.
    pub server_ms_per_tick: f64,
    /// 95th percentile of `server_ms_per_tick` over the last minute.
    pub server_ms_p95_1m: Option<f64>,
    /// The most statements one tick sent over the last minute (slow-cadence statements add
    /// to some ticks).
    pub statements_max_1m: u32,
    /// What the figures are: round trips measured by innodebt, not performance_schema.
    pub measured: String,
    pub by_statement: Vec<StatementMs>,
    /// Sources the latency guard asks less often because the server was slow to answer.
    pub slowed: Vec<Slowed>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatementMs {
    pub statement: String,
    pub ms: f64,
}
