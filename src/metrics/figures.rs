//! The derived figures for one moment: exactly the headless JSON contract (`--once --format
//! json`). Unknown figures are `None` → `null`, never a made-up 0.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::verdicts::{Recovery, Sizing, Verdict};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub server: ServerFigures,
    pub sampled_at: DateTime<Utc>,
    /// Seconds between the two samples the rates come from.
    pub interval_s: Option<f64>,
    pub redo: Redo,
    pub flush: Flush,
    pub history: History,
    pub purge: Purge,
    pub blocker: Option<Blocker>,
    pub dirty: Dirty,
    pub undo: Undo,
    /// What the figures mean, most severe first (`healthy` alone when nothing holds).
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// If the server crashed now: redo to apply and the estimated recovery time.
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// Peak checkpoint age over the session and the redo capacity that would keep it below
    /// the async point with headroom.
    #[serde(default)]
    pub sizing: Option<Sizing>,
    /// Every INNODB_METRICS counter the panels use that is switched off.
    #[serde(default)]
    pub metrics_off: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFigures {
    pub flavor: String,
    pub version: String,
    pub uptime_s: Option<u64>,
    /// Where we are connected (never credentials).
    pub label: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Redo {
    pub lsn: Option<u64>,
    pub checkpoint_lsn: Option<u64>,
    pub checkpoint_age_bytes: Option<u64>,
    pub capacity_bytes: Option<u64>,
    pub async_point_bytes: Option<u64>,
    /// On MariaDB this is the furious-flush point M (there is no separate sync point).
    pub sync_point_bytes: Option<u64>,
    /// What the sync line means on this flavour ("sync" or "furious flush (M)").
    pub sync_point_name: String,
    pub checkpoint_age_pct_of_capacity: Option<f64>,
    /// Redo bytes written per second (`Innodb_os_log_written` or LSN advance).
    pub written_bytes_per_s: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BySource {
    pub adaptive: Option<f64>,
    pub lru: Option<f64>,
    pub sync: Option<f64>,
    pub background: Option<f64>,
    pub neighbor: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Flush {
    pub total_pages_per_s: Option<f64>,
    pub by_source_pages_per_s: BySource,
    /// Flush-list flushing ≈ total − LRU, for when the per-source counters are off.
    pub flush_list_pages_per_s: Option<f64>,
    /// INNODB_METRICS counters this panel needs that are switched off.
    pub disabled_counters: Vec<String>,
    pub io_capacity: Option<u64>,
    pub io_capacity_max: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub length: Option<u64>,
    pub growth_per_s: Option<f64>,
    /// Seconds until `innodb_max_purge_lag` is reached at the current growth, when it is set.
    pub seconds_to_max_purge_lag: Option<f64>,
    /// History the oldest read view holds back (history now − history when it started).
    #[serde(default)]
    pub held_back: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Purge {
    /// Undo records purged per second (del-mark + update/extern).
    pub records_per_s: Option<f64>,
    pub undo_pages_per_s: Option<f64>,
    /// Rows updated + deleted per second: the records purge will have to process later.
    pub inflow_records_per_s: Option<f64>,
    /// The delay InnoDB's formula injects into each DML row now, µs (0 when lag is off).
    pub dml_delay_us: Option<u64>,
    pub state: Option<String>,
    pub threads: Option<u64>,
    pub batch_size: Option<u64>,
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay_us: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Blocker {
    pub trx_id: String,
    pub thread_id: Option<u64>,
    pub user: Option<String>,
    pub host: Option<String>,
    pub age_s: u64,
    pub state: String,
    pub query: Option<String>,
    pub isolation: Option<String>,
    pub command: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dirty {
    pub pages: Option<u64>,
    pub data_pages: Option<u64>,
    pub free_pages: Option<u64>,
    /// InnoDB's own ratio: dirty / (data + free) × 100.
    pub pct: Option<f64>,
    pub max_pct: Option<f64>,
    /// Effective low-water mark (MariaDB's 0 means "use max").
    pub lwm_pct: Option<f64>,
    pub bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Undo {
    pub size_bytes: Option<u64>,
    /// Undo pages read from disk per second: undo no longer cached.
    pub reads_per_s: Option<f64>,
    /// Undo pages in the buffer pool at the last residency scan.
    pub cached_pages: Option<u64>,
    pub resident_pct: Option<f64>,
    /// When the last residency scan ran.
    pub scanned_at: Option<DateTime<Utc>>,
}
