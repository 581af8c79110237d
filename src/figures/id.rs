//! Figures by name: [`FigureId`] names one figure of [`Figures`](super::Figures), so a renamed
//! field breaks the build (or the test below), not a string nobody checks. Its JSON path is
//! what `unavailable[].figures` lists.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::sample::SourceKind;

/// Declares [`FigureId`] with the JSON path of each, in one table.
macro_rules! figure_ids {
    ($($variant:ident => $path:literal,)*) => {
        /// One figure, by name. [`FigureId::path`] is its place in the JSON.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum FigureId {
            $($variant,)*
        }

        impl FigureId {
            /// Every figure id, in declaration order.
            pub const ALL: &[FigureId] = &[$(FigureId::$variant,)*];

            /// The figure's JSON path: `redo.checkpoint_age_bytes`.
            pub fn path(self) -> &'static str {
                match self {
                    $(FigureId::$variant => $path,)*
                }
            }
        }
    };
}

figure_ids! {
    ServerUptime => "server.uptime_s",
    RedoLsn => "redo.lsn",
    RedoCheckpointLsn => "redo.checkpoint_lsn",
    CheckpointAge => "redo.checkpoint_age_bytes",
    CheckpointAgePct => "redo.checkpoint_age_pct_of_capacity",
    RedoWritten => "redo.written_bytes_per_s",
    RedoCapacity => "redo.capacity_bytes",
    AdaptiveLwm => "redo.adaptive_lwm_bytes",
    AsyncPoint => "redo.async_point_bytes",
    SyncPoint => "redo.sync_point_bytes",
    CheckpointAgeSeverity => "redo.severity",
    FlushRegime => "redo.flush_regime",
    FlushTotal => "flush.total_pages_per_s",
    FlushAdaptive => "flush.by_source_pages_per_s.adaptive",
    FlushLru => "flush.by_source_pages_per_s.lru",
    FlushSync => "flush.by_source_pages_per_s.sync",
    FlushBackground => "flush.by_source_pages_per_s.background",
    FlushNeighbor => "flush.by_source_pages_per_s.neighbor",
    FlushList => "flush.flush_list_pages_per_s",
    IoCapacity => "flush.io_capacity",
    IoCapacityMax => "flush.io_capacity_max",
    HistoryLength => "history.length",
    HistoryGrowth => "history.growth_per_s",
    HistoryHeldBack => "history.held_back",
    HistoryHeldBy => "history.held_by",
    PurgeRecords => "purge.records_per_s",
    PurgeUndoPages => "purge.undo_pages_per_s",
    PurgeInflow => "purge.inflow_records_per_s",
    DmlDelay => "purge.dml_delay_us",
    DmlDelayApplied => "purge.dml_delay_applied_us",
    PurgeState => "purge.state",
    PurgeThreads => "purge.threads",
    PurgeBatchSize => "purge.batch_size",
    MaxPurgeLag => "purge.max_purge_lag",
    MaxPurgeLagDelay => "purge.max_purge_lag_delay_us",
    PurgeBlocked => "purge.blocked",
    PurgeLagTrx => "purge.lag_trx",
    PurgeLagSeconds => "purge.lag_s",
    PurgeLagSecondsFrom => "purge.lag_s_from",
    PurgeLagTransactions => "purge.lag_transactions",
    PurgeLagBasis => "purge.lag_transactions_basis",
    PurgePace => "purge.pace",
    PurgePaceOver => "purge.pace_over_s",
    OpenTrx => "purge.open_trx",
    OpenRwTrx => "purge.open_rw_trx",
    OldestRw => "purge.oldest_rw",
    Blocker => "blocker",
    DirtyPages => "dirty.pages",
    DirtyDataPages => "dirty.data_pages",
    DirtyFreePages => "dirty.free_pages",
    DirtyPct => "dirty.pct",
    DirtyBytes => "dirty.bytes",
    DirtyMaxPct => "dirty.max_pct",
    DirtyLwmPct => "dirty.lwm_pct",
    DirtySeverity => "dirty.severity",
    UndoSize => "undo.size_bytes",
    UndoReads => "undo.reads_per_s",
    UndoCachedPages => "undo.cached_pages",
    UndoResidentPct => "undo.resident_pct",
    UndoScannedAt => "undo.scanned_at",
    RollbackSegments => "rollback.segments",
    RollbackSegmentsSetting => "rollback.segments_setting",
    UndoTablespaces => "rollback.undo_tablespaces",
    UndoSlotsUsed => "rollback.undo_slots_used",
    UndoSlotsCached => "rollback.undo_slots_cached",
    WaitsInstrumented => "rollback.instrumented",
    RsegWaits => "rollback.rseg_waits_per_s",
    RsegWaitTime => "rollback.rseg_wait_s_per_s",
    TrxSysWaits => "rollback.trx_sys_waits_per_s",
    TrxSysWaitTime => "rollback.trx_sys_wait_s_per_s",
    SeisRsegWaiters => "rollback.seis_rseg_waiters",
    SeisTrxSysWaiters => "rollback.seis_trx_sys_waiters",
    RollbackSeverity => "rollback.severity",
}

impl FigureId {
    /// The flush rate of each source, as the flush panel lists them.
    pub const FLUSH_BY_SOURCE: [FigureId; 5] = [
        FigureId::FlushAdaptive,
        FigureId::FlushLru,
        FigureId::FlushSync,
        FigureId::FlushBackground,
        FigureId::FlushNeighbor,
    ];

    pub fn from_path(path: &str) -> Option<FigureId> {
        FigureId::ALL.iter().copied().find(|f| f.path() == path)
    }

    /// The JSON pointer of the figure (`/redo/checkpoint_age_bytes`).
    pub fn pointer(self) -> String {
        format!("/{}", self.path().replace('.', "/"))
    }

    /// The figures each source feeds. A figure fed by several sources is listed under each:
    /// it is attributed to a refused source only when it really came out `null`.
    pub fn fed_by(source: SourceKind) -> &'static [FigureId] {
        use FigureId::*;
        match source {
            SourceKind::GlobalStatus => &[
                ServerUptime,
                RedoLsn,
                RedoCheckpointLsn,
                CheckpointAge,
                CheckpointAgePct,
                RedoWritten,
                FlushTotal,
                FlushLru,
                FlushList,
                HistoryLength,
                HistoryGrowth,
                PurgeInflow,
                DmlDelay,
                DmlDelayApplied,
                DirtyPages,
                DirtyDataPages,
                DirtyFreePages,
                DirtyPct,
                DirtyBytes,
                CheckpointAgeSeverity,
                FlushRegime,
                DirtySeverity,
            ],
            SourceKind::InnodbMetrics => &[
                RedoLsn,
                RedoCheckpointLsn,
                CheckpointAge,
                CheckpointAgePct,
                RedoWritten,
                FlushAdaptive,
                FlushLru,
                FlushSync,
                FlushBackground,
                FlushNeighbor,
                FlushList,
                HistoryLength,
                HistoryGrowth,
                PurgeRecords,
                PurgeUndoPages,
                UndoSize,
                UndoReads,
                UndoResidentPct,
                CheckpointAgeSeverity,
                FlushRegime,
                UndoSlotsUsed,
                UndoSlotsCached,
            ],
            SourceKind::InnodbTrx => &[
                Blocker,
                HistoryHeldBack,
                HistoryHeldBy,
                PurgeBlocked,
                OpenTrx,
                OpenRwTrx,
                OldestRw,
            ],
            SourceKind::InnodbStatus => &[
                PurgeState,
                PurgeLagTrx,
                PurgeLagSeconds,
                PurgeLagSecondsFrom,
                PurgeLagTransactions,
                PurgeLagBasis,
                PurgePace,
                PurgePaceOver,
                RedoLsn,
                RedoCheckpointLsn,
                CheckpointAge,
                CheckpointAgePct,
                HistoryLength,
                CheckpointAgeSeverity,
                FlushRegime,
                SeisRsegWaiters,
                SeisTrxSysWaiters,
            ],
            SourceKind::UndoScan => &[UndoCachedPages, UndoResidentPct, UndoScannedAt],
            SourceKind::Variables => &[
                RedoCapacity,
                AdaptiveLwm,
                AsyncPoint,
                SyncPoint,
                IoCapacity,
                IoCapacityMax,
                PurgeThreads,
                PurgeBatchSize,
                MaxPurgeLag,
                MaxPurgeLagDelay,
                DirtyMaxPct,
                DirtyLwmPct,
                CheckpointAgeSeverity,
                FlushRegime,
                DirtySeverity,
                RollbackSegments,
                RollbackSegmentsSetting,
                UndoTablespaces,
                WaitsInstrumented,
            ],
            SourceKind::Waits => &[
                RsegWaits,
                RsegWaitTime,
                TrxSysWaits,
                TrxSysWaitTime,
                RollbackSeverity,
            ],
        }
    }
}

impl std::fmt::Display for FigureId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.path())
    }
}

/// In JSON a figure id is its path, as it always was.
impl Serialize for FigureId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.path())
    }
}

impl<'de> Deserialize<'de> for FigureId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let path = String::deserialize(d)?;
        FigureId::from_path(&path)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown figure {path:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{Blocker, Figures};

    #[test]
    fn every_figure_id_resolves_in_the_json() {
        // All optional figures present, so a path through an object reaches its leaf.
        let f = Figures {
            blocker: Some(Blocker::default()),
            ..Figures::default()
        };
        let json = serde_json::to_value(&f).expect("figures serialise");
        for id in FigureId::ALL {
            assert!(
                json.pointer(&id.pointer()).is_some(),
                "{id:?} names {:?}, which the JSON of Figures does not have",
                id.path()
            );
        }
    }

    #[test]
    fn ids_round_trip_as_their_paths() {
        let paths: Vec<&str> = FigureId::ALL.iter().map(|f| f.path()).collect();
        let unique: std::collections::BTreeSet<&str> = paths.iter().copied().collect();
        assert_eq!(unique.len(), paths.len(), "two ids share a path");
        for id in FigureId::ALL {
            let json = serde_json::to_string(id).expect("serialise");
            assert_eq!(json, format!("\"{}\"", id.path()));
            let back: FigureId = serde_json::from_str(&json).expect("deserialise");
            assert_eq!(back, *id);
        }
        assert!(serde_json::from_str::<FigureId>("\"redo.nope\"").is_err());
    }

    #[test]
    fn every_source_feeds_known_figures() {
        for s in SourceKind::ALL {
            assert!(!FigureId::fed_by(s).is_empty(), "{s:?} feeds nothing");
        }
        assert_eq!(
            FigureId::fed_by(SourceKind::InnodbTrx)
                .iter()
                .map(|f| f.path())
                .collect::<Vec<_>>(),
            [
                "blocker",
                "history.held_back",
                "history.held_by",
                "purge.blocked",
                "purge.open_trx",
                "purge.open_rw_trx",
                "purge.oldest_rw"
            ]
        );
    }
}
