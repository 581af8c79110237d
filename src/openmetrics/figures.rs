//! Which family carries each figure of the registry ([`FigureId`]), or why none does: a
//! figure added to the registry fails `tests/it/registry.rs` until it is exported or listed
//! here as deliberately not, so the exporter cannot silently fall behind the JSON.

use super::parse::Scrape;
use crate::figures::{FigureId, Unit};

/// Each figure the exporter carries and its family (in the family's unit: a percentage as a
/// 0–1 ratio, microseconds as seconds). The flush sources share one family by label.
pub const EXPORTED: &[(FigureId, &str)] = &[
    (FigureId::ServerUptime, "innodebt_uptime_seconds"),
    (FigureId::CheckpointAge, "innodebt_checkpoint_age_bytes"),
    (FigureId::CheckpointAgePct, "innodebt_checkpoint_age_ratio"),
    (
        FigureId::RedoWritten,
        "innodebt_redo_written_bytes_per_second",
    ),
    (FigureId::RedoCapacity, "innodebt_redo_capacity_bytes"),
    (
        FigureId::AdaptiveLwm,
        "innodebt_adaptive_flushing_lwm_bytes",
    ),
    (FigureId::AsyncPoint, "innodebt_async_point_bytes"),
    (FigureId::SyncPoint, "innodebt_stall_point_bytes"),
    (FigureId::FlushRegime, "innodebt_flush_regime"),
    (
        FigureId::FlushTotal,
        "innodebt_flush_total_pages_per_second",
    ),
    (FigureId::FlushAdaptive, "innodebt_flush_pages_per_second"),
    (FigureId::FlushLru, "innodebt_flush_pages_per_second"),
    (FigureId::FlushSync, "innodebt_flush_pages_per_second"),
    (FigureId::FlushBackground, "innodebt_flush_pages_per_second"),
    (FigureId::FlushNeighbor, "innodebt_flush_pages_per_second"),
    (FigureId::HistoryLength, "innodebt_history_list_length"),
    (
        FigureId::HistoryGrowth,
        "innodebt_history_growth_per_second",
    ),
    (FigureId::HistoryHeldBack, "innodebt_history_held_back"),
    (FigureId::PurgeRecords, "innodebt_purge_records_per_second"),
    (
        FigureId::PurgeUndoPages,
        "innodebt_purge_undo_pages_per_second",
    ),
    (
        FigureId::PurgeInflow,
        "innodebt_purge_inflow_records_per_second",
    ),
    (FigureId::DmlDelay, "innodebt_dml_delay_seconds"),
    (
        FigureId::DmlDelayApplied,
        "innodebt_dml_delay_applied_seconds",
    ),
    (FigureId::PurgeThreads, "innodebt_purge_threads"),
    (FigureId::MaxPurgeLag, "innodebt_max_purge_lag"),
    (FigureId::PurgeLagTrx, "innodebt_purge_lag_trx_numbers"),
    (FigureId::PurgeLagSeconds, "innodebt_purge_lag_seconds"),
    (
        FigureId::PurgeLagTransactions,
        "innodebt_purge_lag_transactions",
    ),
    (FigureId::Blocker, "innodebt_purge_blocker_age_seconds"),
    (FigureId::DirtyPages, "innodebt_dirty_pages"),
    (FigureId::DirtyPct, "innodebt_dirty_pages_ratio"),
    (FigureId::DirtyBytes, "innodebt_dirty_bytes"),
    (FigureId::DirtyMaxPct, "innodebt_dirty_pages_max_ratio"),
    (FigureId::DirtyLwmPct, "innodebt_dirty_pages_lwm_ratio"),
    (FigureId::UndoSize, "innodebt_undo_size_bytes"),
    (FigureId::UndoReads, "innodebt_undo_reads_pages_per_second"),
    (FigureId::UndoResidentPct, "innodebt_undo_resident_ratio"),
    (FigureId::RollbackSegments, "innodebt_rollback_segments"),
    (
        FigureId::RsegWaitTime,
        "innodebt_rollback_segment_latch_wait_seconds_per_second",
    ),
    (
        FigureId::RsegWaits,
        "innodebt_rollback_segment_latch_acquisitions_per_second",
    ),
    (
        FigureId::TrxSysWaitTime,
        "innodebt_trx_sys_mutex_wait_seconds_per_second",
    ),
    (FigureId::UndoSlotsUsed, "innodebt_undo_slots_used"),
];

/// The figures the exporter leaves out on purpose, and why.
pub const NOT_EXPORTED: &[(FigureId, &str)] = &[
    (
        FigureId::RedoLsn,
        "a position, not a level: the age and the write rate say what it means",
    ),
    (
        FigureId::RedoCheckpointLsn,
        "a position, not a level: the age says what it means",
    ),
    (
        FigureId::CheckpointAgeSeverity,
        "judged into innodebt_verdict (flush_pressure) and innodebt_severity",
    ),
    (FigureId::FlushList, "total minus LRU: both are families"),
    (FigureId::IoCapacity, "a server variable: mysqld_exporter's"),
    (
        FigureId::IoCapacityMax,
        "a server variable: mysqld_exporter's",
    ),
    (
        FigureId::HistoryHeldBy,
        "the holder is the verdict's: innodebt_verdict and innodebt_purge_blocker name it",
    ),
    (
        FigureId::PurgeState,
        "SEIS's free text: a label of changing text would make a series per state",
    ),
    (
        FigureId::PurgeBatchSize,
        "a server variable: mysqld_exporter's",
    ),
    (
        FigureId::MaxPurgeLagDelay,
        "a server variable: mysqld_exporter's",
    ),
    (
        FigureId::PurgeBlocked,
        "innodebt_verdict's blocked_by_read_view says it, after the hysteresis",
    ),
    (
        FigureId::PurgeLagSecondsFrom,
        "words about innodebt_purge_lag_seconds",
    ),
    (
        FigureId::PurgeLagBasis,
        "words about innodebt_purge_lag_transactions",
    ),
    (
        FigureId::PurgePace,
        "between two SEIS reads only; innodebt_purge_lag_trx_numbers over time shows it",
    ),
    (FigureId::PurgePaceOver, "the window of purge.pace"),
    (
        FigureId::PurgeMoving,
        "judged into innodebt_verdict (blocked_by_read_view, purge_too_slow)",
    ),
    (
        FigureId::OpenTrx,
        "a session count: mysqld_exporter's information_schema collectors have it",
    ),
    (
        FigureId::OpenRwTrx,
        "a session count: mysqld_exporter's information_schema collectors have it",
    ),
    (
        FigureId::OldestRw,
        "a session: a label per transaction would make a series per transaction",
    ),
    (
        FigureId::DirtyDataPages,
        "a term of innodebt_dirty_pages_ratio",
    ),
    (
        FigureId::DirtyFreePages,
        "a term of innodebt_dirty_pages_ratio",
    ),
    (
        FigureId::DirtySeverity,
        "judged into innodebt_verdict (flush_pressure) and innodebt_severity",
    ),
    (
        FigureId::UndoCachedPages,
        "innodebt_undo_resident_ratio carries it",
    ),
    (
        FigureId::UndoScannedAt,
        "a time: when the residency scan ran",
    ),
    (
        FigureId::RollbackSegmentsSetting,
        "a setting; innodebt_rollback_segments is what it gives",
    ),
    (
        FigureId::UndoTablespaces,
        "a term of innodebt_rollback_segments",
    ),
    (
        FigureId::UndoSlotsCached,
        "cached slots are free ones: innodebt_undo_slots_used is the load",
    ),
    (
        FigureId::WaitsInstrumented,
        "the latch families are absent when not instrumented",
    ),
    (
        FigureId::TrxSysWaits,
        "innodebt_trx_sys_mutex_wait_seconds_per_second is the cost",
    ),
    (
        FigureId::SeisRsegWaiters,
        "a fallback where performance_schema does not count: judged into innodebt_verdict",
    ),
    (
        FigureId::SeisTrxSysWaiters,
        "a fallback where performance_schema does not count",
    ),
    (
        FigureId::RollbackSeverity,
        "judged into innodebt_verdict (rollback_segment_contention) and innodebt_severity",
    ),
];

/// The family that carries `id`, when one does.
pub fn family_of(id: FigureId) -> Option<&'static str> {
    EXPORTED
        .iter()
        .find(|(f, _)| *f == id)
        .map(|(_, name)| *name)
}

/// A figure's value in its family's unit: a percentage as a 0–1 ratio, microseconds as
/// seconds (OpenMetrics' base units); the rest as the registry has it.
pub fn in_family_unit(id: FigureId, v: f64) -> f64 {
    match id.unit() {
        Unit::Percent => v / 100.0,
        Unit::Microseconds => v / 1e6,
        _ => v,
    }
}

/// A figure read back from a scrape of its family, in the registry's unit (the fleet's rows
/// from a remote agent); `None` when the family is absent (unknown) or there is none.
pub fn from_scrape(s: &Scrape, id: FigureId) -> Option<f64> {
    let v = s.value(family_of(id)?)?;
    Some(match id.unit() {
        Unit::Percent => v * 100.0,
        Unit::Microseconds => v * 1e6,
        _ => v,
    })
}
