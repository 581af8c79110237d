//! Figures by name: [`FigureId`] names one figure of [`Figures`](super::Figures), so a renamed
//! field breaks the build (or the test below), not a string nobody checks. Its JSON path is
//! what `unavailable[].figures` lists.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Figures;
use innodebt_server::sample::SourceKind;

/// Declares [`FigureId`] with each figure's JSON path, unit and accessor, in one table: the
/// registry the trigger grammar, compare, the exports, the OpenMetrics families and the fleet
/// row look figures up in (a figure added here is known to all of them, and
/// `tests/it/registry.rs` fails until each has said what it does with it).
macro_rules! figure_ids {
    ($($variant:ident => $path:literal, $unit:ident, $get:expr;)*) => {
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

            /// What the figure counts.
            pub fn unit(self) -> Unit {
                match self {
                    $(FigureId::$variant => Unit::$unit,)*
                }
            }

            /// The figure's value as a number (a flag as 0 or 1); `None` while it is unknown
            /// (by [`FigureId::unknown_rule`]) or when it is no number (text, a time, a record).
            pub fn number(self, f: &Figures) -> Option<f64> {
                let get: fn(&Figures) -> Option<f64> = match self {
                    $(FigureId::$variant => $get,)*
                };
                get(f).filter(|v| v.is_finite())
            }
        }
    };
}

/// What a figure counts, as its name in the registry says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    BytesPerSecond,
    Pages,
    PagesPerSecond,
    /// 0–100.
    Percent,
    /// Undo logs, records, transactions, threads.
    Count,
    CountPerSecond,
    Seconds,
    Microseconds,
    /// A log sequence number: a position, not an amount.
    Lsn,
    /// A dimensionless ratio (purge's pace: 1 keeps up).
    Ratio,
    /// true/false (as a number: 1/0).
    Flag,
    /// Words: a severity, a state, a regime.
    Text,
    /// A point in time.
    Time,
    /// Several fields about one session (the blocker, the holder of history).
    Record,
}

impl Unit {
    /// A number a threshold can compare (text, times and records are not).
    pub fn is_number(self) -> bool {
        !matches!(self, Unit::Text | Unit::Time | Unit::Record)
    }
}

/// What makes a figure unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownRule {
    /// `null` in the figures: not read, not computable from what was read.
    Null,
    /// Absent means none when `SourceKind` was read (no blocker: an age of 0); unknown only
    /// when that source was refused (no blocker seen is no proof of none).
    AbsentIsNone(SourceKind),
}

fn u(v: Option<u64>) -> Option<f64> {
    v.map(|v| v as f64)
}

fn flag(v: Option<bool>) -> Option<f64> {
    v.map(|b| f64::from(u8::from(b)))
}

fn none(_: &Figures) -> Option<f64> {
    None
}

figure_ids! {
    ServerUptime => "server.uptime_s", Seconds, |f| u(f.server.uptime_s);
    RedoLsn => "redo.lsn", Lsn, |f| u(f.redo.lsn);
    RedoCheckpointLsn => "redo.checkpoint_lsn", Lsn, |f| u(f.redo.checkpoint_lsn);
    CheckpointAge => "redo.checkpoint_age_bytes", Bytes, |f| u(f.redo.checkpoint_age_bytes);
    CheckpointAgePct => "redo.checkpoint_age_pct_of_capacity", Percent,
        |f| f.redo.checkpoint_age_pct_of_capacity;
    RedoWritten => "redo.written_bytes_per_s", BytesPerSecond, |f| f.redo.written_bytes_per_s;
    RedoCapacity => "redo.capacity_bytes", Bytes, |f| u(f.redo.capacity_bytes);
    AdaptiveLwm => "redo.adaptive_lwm_bytes", Bytes, |f| u(f.redo.adaptive_lwm_bytes);
    AsyncPoint => "redo.async_point_bytes", Bytes, |f| u(f.redo.async_point_bytes);
    SyncPoint => "redo.sync_point_bytes", Bytes, |f| u(f.redo.sync_point_bytes);
    CheckpointAgeSeverity => "redo.severity", Text, none;
    FlushRegime => "redo.flush_regime", Text, none;
    FlushTotal => "flush.total_pages_per_s", PagesPerSecond, |f| f.flush.total_pages_per_s;
    FlushAdaptive => "flush.by_source_pages_per_s.adaptive", PagesPerSecond,
        |f| f.flush.by_source_pages_per_s.adaptive;
    FlushLru => "flush.by_source_pages_per_s.lru", PagesPerSecond,
        |f| f.flush.by_source_pages_per_s.lru;
    FlushSync => "flush.by_source_pages_per_s.sync", PagesPerSecond,
        |f| f.flush.by_source_pages_per_s.sync;
    FlushBackground => "flush.by_source_pages_per_s.background", PagesPerSecond,
        |f| f.flush.by_source_pages_per_s.background;
    FlushNeighbor => "flush.by_source_pages_per_s.neighbor", PagesPerSecond,
        |f| f.flush.by_source_pages_per_s.neighbor;
    FlushList => "flush.flush_list_pages_per_s", PagesPerSecond, |f| f.flush.flush_list_pages_per_s;
    IoCapacity => "flush.io_capacity", Count, |f| u(f.flush.io_capacity);
    IoCapacityMax => "flush.io_capacity_max", Count, |f| u(f.flush.io_capacity_max);
    HistoryLength => "history.length", Count, |f| u(f.history.length);
    HistoryGrowth => "history.growth_per_s", CountPerSecond, |f| f.history.growth_per_s;
    HistoryHeldBack => "history.held_back", Count, |f| u(f.history.held_back);
    HistoryHeldBy => "history.held_by", Record, none;
    PurgeRecords => "purge.records_per_s", CountPerSecond, |f| f.purge.records_per_s;
    PurgeUndoPages => "purge.undo_pages_per_s", PagesPerSecond, |f| f.purge.undo_pages_per_s;
    PurgeInflow => "purge.inflow_records_per_s", CountPerSecond, |f| f.purge.inflow_records_per_s;
    DmlDelay => "purge.dml_delay_us", Microseconds, |f| u(f.purge.dml_delay_us);
    DmlDelayApplied => "purge.dml_delay_applied_us", Microseconds,
        |f| u(f.purge.dml_delay_applied_us);
    PurgeState => "purge.state", Text, none;
    PurgeThreads => "purge.threads", Count, |f| u(f.purge.threads);
    PurgeBatchSize => "purge.batch_size", Count, |f| u(f.purge.batch_size);
    MaxPurgeLag => "purge.max_purge_lag", Count, |f| u(f.purge.max_purge_lag);
    MaxPurgeLagDelay => "purge.max_purge_lag_delay_us", Microseconds,
        |f| u(f.purge.max_purge_lag_delay_us);
    PurgeBlocked => "purge.blocked", Flag, |f| flag(f.purge.blocked);
    PurgeLagTrxNumbers => "purge.lag_trx_numbers", Count, |f| u(f.purge.lag_trx_numbers);
    PurgeLagSeconds => "purge.lag_s", Seconds, |f| f.purge.lag_s;
    PurgeLagSecondsFrom => "purge.lag_s_from", Text, none;
    PurgeLagTransactions => "purge.lag_transactions", Count, |f| u(f.purge.lag_transactions);
    PurgeLagBasis => "purge.lag_transactions_basis", Text, none;
    PurgePace => "purge.pace", Ratio, |f| f.purge.pace;
    PurgePaceOver => "purge.pace_over_s", Seconds, |f| f.purge.pace_over_s;
    PurgeMoving => "purge.moving", Flag, |f| flag(f.purge.moving);
    OpenTrx => "purge.open_trx", Count, |f| u(f.purge.open_trx);
    OpenRwTrx => "purge.open_rw_trx", Count, |f| u(f.purge.open_rw_trx);
    OldestRw => "purge.oldest_rw", Record, none;
    // The blocker's number is its age (`Figures::blocker_age_s`: 0 when none was seen).
    Blocker => "blocker", Seconds, |f| u(f.blocker_age_s());
    DirtyPages => "dirty.pages", Pages, |f| u(f.dirty.pages);
    DirtyDataPages => "dirty.data_pages", Pages, |f| u(f.dirty.data_pages);
    DirtyFreePages => "dirty.free_pages", Pages, |f| u(f.dirty.free_pages);
    DirtyPct => "dirty.pct", Percent, |f| f.dirty.pct;
    DirtyBytes => "dirty.bytes", Bytes, |f| u(f.dirty.bytes);
    DirtyMaxPct => "dirty.max_pct", Percent, |f| f.dirty.max_pct;
    // A low-water mark that is off is the setting's 0 (`dirty.lwm_off`), not unknown.
    DirtyLwmPct => "dirty.lwm_pct", Percent,
        |f| f.dirty.lwm_pct.or(f.dirty.lwm_off.then_some(0.0));
    DirtySeverity => "dirty.severity", Text, none;
    UndoSize => "undo.size_bytes", Bytes, |f| u(f.undo.size_bytes);
    UndoReads => "undo.reads_per_s", PagesPerSecond, |f| f.undo.reads_per_s;
    UndoCachedPages => "undo.cached_pages", Pages, |f| u(f.undo.cached_pages);
    UndoResidentPct => "undo.resident_pct", Percent, |f| f.undo.resident_pct;
    UndoScannedAt => "undo.scanned_at", Time, none;
    RollbackSegments => "rollback.segments", Count, |f| u(f.rollback.segments);
    RollbackSegmentsSetting => "rollback.segments_setting", Count,
        |f| u(f.rollback.segments_setting);
    UndoTablespaces => "rollback.undo_tablespaces", Count, |f| u(f.rollback.undo_tablespaces);
    UndoSlotsUsed => "rollback.undo_slots_used", Count, |f| u(f.rollback.undo_slots_used);
    UndoSlotsCached => "rollback.undo_slots_cached", Count, |f| u(f.rollback.undo_slots_cached);
    WaitsInstrumented => "rollback.instrumented", Flag, |f| flag(f.rollback.instrumented);
    RsegWaits => "rollback.rseg_waits_per_s", CountPerSecond, |f| f.rollback.rseg_waits_per_s;
    // Seconds waited per second: how many threads wait at any moment, on average.
    RsegWaitTime => "rollback.rseg_wait_s_per_s", Ratio, |f| f.rollback.rseg_wait_s_per_s;
    TrxSysWaits => "rollback.trx_sys_waits_per_s", CountPerSecond,
        |f| f.rollback.trx_sys_waits_per_s;
    TrxSysWaitTime => "rollback.trx_sys_wait_s_per_s", Ratio, |f| f.rollback.trx_sys_wait_s_per_s;
    SeisRsegWaiters => "rollback.seis_rseg_waiters", Count, |f| u(f.rollback.seis_rseg_waiters);
    SeisTrxSysWaiters => "rollback.seis_trx_sys_waiters", Count,
        |f| u(f.rollback.seis_trx_sys_waiters);
    RollbackSeverity => "rollback.severity", Text, none;
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

    /// What makes this figure unknown.
    pub fn unknown_rule(self) -> UnknownRule {
        match self {
            FigureId::Blocker => UnknownRule::AbsentIsNone(SourceKind::InnodbTrx),
            _ => UnknownRule::Null,
        }
    }

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
                PurgeLagTrxNumbers,
                PurgeLagSeconds,
                PurgeLagSecondsFrom,
                PurgeLagTransactions,
                PurgeLagBasis,
                PurgePace,
                PurgePaceOver,
                PurgeMoving,
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

    /// Each accessor reads its own field: a distinct number written at the figure's JSON path
    /// comes back from [`FigureId::number`]; unset, every figure is unknown but the blocker's
    /// age (no blocker seen with INNODB_TRX readable is none: 0).
    #[test]
    fn every_number_is_read_from_its_own_path() {
        let empty = Figures::default();
        for id in FigureId::ALL {
            let want = match id.unknown_rule() {
                UnknownRule::AbsentIsNone(_) => Some(0.0),
                UnknownRule::Null => None,
            };
            assert_eq!(id.number(&empty), want, "{id:?} on empty figures");
        }
        let f = Figures {
            blocker: Some(Blocker::default()),
            ..Figures::default()
        };
        let mut json = serde_json::to_value(&f).expect("figures serialise");
        let numbers: Vec<FigureId> = FigureId::ALL
            .iter()
            .copied()
            .filter(|id| id.unit().is_number())
            .collect();
        for (i, id) in numbers.iter().enumerate() {
            let value = match (id.unit(), *id) {
                (Unit::Flag, _) => serde_json::json!(i % 2 == 0),
                (_, FigureId::Blocker) => continue,
                _ => serde_json::json!(1000 + i),
            };
            *json.pointer_mut(&id.pointer()).expect("path") = value;
        }
        json["blocker"]["age_s"] = serde_json::json!(77);
        let f: Figures = serde_json::from_value(json).expect("figures back");
        for (i, id) in numbers.iter().enumerate() {
            let want = match (id.unit(), *id) {
                (Unit::Flag, _) => f64::from(u8::from(i % 2 == 0)),
                (_, FigureId::Blocker) => 77.0,
                _ => (1000 + i) as f64,
            };
            assert_eq!(id.number(&f), Some(want), "{id:?} reads another field");
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
