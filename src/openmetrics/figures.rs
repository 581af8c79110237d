//! Which family carries each figure of the registry ([`FigureId`]), or why none does: the
//! families name the figures they carry ([`FIGURES`]); a figure added to the registry fails
//! `tests/it/registry.rs` until a family carries it or it is listed here as deliberately not,
//! so the exporter cannot silently fall behind the JSON.

use super::families::FIGURES;
pub use super::family::in_family_unit;
use innodebt_engine::figures::FigureId;

/// A figure the exporter carries: its family, and the label that picks its sample where the
/// family holds several (the flush sources: `source="lru"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Carried {
    pub id: FigureId,
    pub family: &'static str,
    pub label: Option<(&'static str, &'static str)>,
}

/// Each figure the exporter carries, as the families name them ([`FIGURES`]): in the family's
/// unit (a percentage as a 0–1 ratio, microseconds as seconds), read by the registry's
/// accessor.
pub fn exported() -> Vec<Carried> {
    FIGURES
        .iter()
        .flat_map(|fam| {
            fam.read.figures().into_iter().map(|(id, label)| Carried {
                id,
                family: fam.name,
                label,
            })
        })
        .collect()
}

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
    (
        FigureId::FlushRegimeAge,
        "which age innodebt_flush_regime was judged on: words, in the JSON",
    ),
    (FigureId::OldestPageAge, "not yet a family"),
    (
        FigureId::CheckpointCandidateAge,
        "MySQL 8.0+ only, what sync flushing is judged on; not yet a family",
    ),
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

/// Where `id` is carried, when it is.
pub fn carried(id: FigureId) -> Option<Carried> {
    exported().into_iter().find(|c| c.id == id)
}
