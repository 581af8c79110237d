//! The one place that maps the derived figures to metric families: name (with its unit),
//! type, help and how to read it. A family that carries a figure of the registry
//! ([`FigureId`]) names it and reads it through the registry's accessor and unknown rule, so
//! the value is the one the JSON, the CSV, the trigger and the fleet row read; the rest read
//! [`Figures`] themselves. Adding a figure to the metrics is one line here. Unknown figures
//! give no sample (absent, never a made-up 0).

use super::family::{Family, Kind, Labels, Read, gauge};
use innodebt_engine::figures::{FigureId, Figures};
use innodebt_engine::figures::{Severity, VerdictKind};
use innodebt_server::flavor::FlushRegime;

/// A gauge of one figure of the registry (in the family's unit: a percentage as a 0–1 ratio,
/// microseconds as seconds).
const fn figure(
    name: &'static str,
    unit: &'static str,
    help: &'static str,
    id: FigureId,
) -> Family<Figures> {
    Family {
        name,
        unit,
        kind: Kind::Gauge,
        help,
        read: Read::Figure(id),
    }
}

fn n(v: Option<u64>) -> Option<f64> {
    v.map(|v| v as f64)
}

/// A percentage figure as a 0–1 ratio.
fn ratio(pct: Option<f64>) -> Option<f64> {
    pct.map(|p| p / 100.0)
}

/// Every verdict kind a StateSet names.
pub const VERDICT_STATES: [VerdictKind; 8] = VerdictKind::ALL;

pub const SEVERITY_STATES: [Severity; 4] = Severity::ALL;

fn verdict_states(f: &Figures) -> Vec<(Labels, f64)> {
    if f.verdicts.is_empty() {
        // No judgement yet: a StateSet with every state false says nothing untrue.
        return Vec::new();
    }
    VERDICT_STATES
        .iter()
        .map(|k| {
            let on = f.verdicts.iter().any(|v| v.kind == *k);
            (
                vec![("innodebt_verdict", k.as_str().to_string())],
                f64::from(u8::from(on)),
            )
        })
        .collect()
}

fn severity_states(f: &Figures) -> Vec<(Labels, f64)> {
    let Some(worst) = f.severity() else {
        return Vec::new();
    };
    SEVERITY_STATES
        .iter()
        .map(|s| {
            (
                vec![("innodebt_severity", s.as_str().to_string())],
                f64::from(u8::from(*s == worst)),
            )
        })
        .collect()
}

/// The flush regime as a StateSet (`redo.flush_regime`); nothing while it is unknown.
fn flush_regime_states(f: &Figures) -> Vec<(Labels, f64)> {
    let Some(now) = f.redo.flush_regime else {
        return Vec::new();
    };
    FlushRegime::ALL
        .iter()
        .map(|r| {
            (
                vec![("innodebt_flush_regime", r.as_str().to_string())],
                f64::from(u8::from(*r == now)),
            )
        })
        .collect()
}

fn server_info(f: &Figures) -> Vec<(Labels, f64)> {
    vec![(
        vec![
            ("flavor", f.server.flavor.clone()),
            ("version", f.server.version.clone()),
            ("stall_point", f.redo.sync_point_name.clone()),
        ],
        1.0,
    )]
}

fn blocker_info(f: &Figures) -> Vec<(Labels, f64)> {
    let Some(b) = &f.blocker else {
        return Vec::new();
    };
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    vec![(
        vec![
            ("trx_id", b.trx_id.clone()),
            (
                "thread_id",
                b.thread_id.map(|t| t.to_string()).unwrap_or_default(),
            ),
            ("user", opt(&b.user)),
            ("host", opt(&b.host)),
            ("isolation", opt(&b.isolation)),
        ],
        1.0,
    )]
}

fn counters_off(f: &Figures) -> Vec<(Labels, f64)> {
    f.metrics_off
        .iter()
        .map(|c| (vec![("counter", c.clone())], 1.0))
        .collect()
}

fn sources_refused(f: &Figures) -> Vec<(Labels, f64)> {
    f.unavailable
        .iter()
        .map(|u| {
            (
                vec![
                    ("source", u.what.clone()),
                    ("privilege", u.privilege.clone().unwrap_or_default()),
                ],
                1.0,
            )
        })
        .collect()
}

/// The figures as metric families, in exposition order.
pub const FIGURES: &[Family<Figures>] = &[
    Family {
        name: "innodebt_server",
        unit: "",
        kind: Kind::Info,
        help: "The server polled: flavour, version and what its stall point is called",
        read: Read::Many(server_info),
    },
    figure(
        "innodebt_uptime_seconds",
        "seconds",
        "Server uptime",
        FigureId::ServerUptime,
    ),
    Family {
        name: "innodebt_verdict",
        unit: "",
        kind: Kind::StateSet,
        help: "What the figures mean: each verdict that holds now is 1",
        read: Read::Many(verdict_states),
    },
    Family {
        name: "innodebt_severity",
        unit: "",
        kind: Kind::StateSet,
        help: "The worst severity among the verdicts",
        read: Read::Many(severity_states),
    },
    figure(
        "innodebt_checkpoint_age_bytes",
        "bytes",
        "Checkpoint age: redo written since the last checkpoint (LSN - checkpoint LSN)",
        FigureId::CheckpointAge,
    ),
    figure(
        "innodebt_redo_capacity_bytes",
        "bytes",
        "Redo log capacity",
        FigureId::RedoCapacity,
    ),
    figure(
        "innodebt_adaptive_flushing_lwm_bytes",
        "bytes",
        "Checkpoint age at which redo-driven flushing starts with innodb_adaptive_flushing=ON: innodb_adaptive_flushing_lwm % of the capacity the flavour takes it of (buf0flu.cc)",
        FigureId::AdaptiveLwm,
    ),
    Family {
        name: "innodebt_flush_regime",
        unit: "",
        kind: Kind::StateSet,
        help: "What the page cleaner does for redo at this checkpoint age, by the flavour's rules",
        read: Read::States(FigureId::FlushRegime, flush_regime_states),
    },
    figure(
        "innodebt_async_point_bytes",
        "bytes",
        "Checkpoint age at which InnoDB flushes hard: the async point (MySQL 8.0.20+: the async counter minus the free-check margin)",
        FigureId::AsyncPoint,
    ),
    figure(
        "innodebt_stall_point_bytes",
        "bytes",
        "Checkpoint age at which user threads stall (MySQL 5.7 sync point; MySQL 8.0+ free-check limit; MariaDB furious flush point M)",
        FigureId::SyncPoint,
    ),
    gauge(
        "innodebt_sync_flush_point_bytes",
        "bytes",
        "MySQL 8.0+: checkpoint age at which the page cleaner turns to sync flushing and ignores innodb_io_capacity",
        |f| n(f.redo.sync_flush_bytes),
    ),
    gauge(
        "innodebt_counter_async_point_bytes",
        "bytes",
        "MySQL 8.0+: what log_max_modified_age_async reports (the server acts a concurrency margin earlier)",
        |f| n(f.redo.counter_async_bytes),
    ),
    gauge(
        "innodebt_counter_sync_point_bytes",
        "bytes",
        "MySQL 8.0+: what log_max_modified_age_sync reports",
        |f| n(f.redo.counter_sync_bytes),
    ),
    figure(
        "innodebt_checkpoint_age_ratio",
        "ratio",
        "Checkpoint age as a share of the redo capacity",
        FigureId::CheckpointAgePct,
    ),
    gauge(
        "innodebt_checkpoint_age_async_ratio",
        "ratio",
        "Checkpoint age as a share of the async point (1 = flushing hard)",
        |f| ratio(f.redo.pct_of_async()),
    ),
    figure(
        "innodebt_redo_written_bytes_per_second",
        "",
        "Redo generated per second (the LSN's advance)",
        FigureId::RedoWritten,
    ),
    gauge(
        "innodebt_seconds_to_async_point",
        "",
        "Seconds of redo writes at the current rate until checkpoint age reaches the async point if the checkpoint stopped advancing (0 once past it; absent while nothing is written)",
        |f| f.redo.seconds_to_async_point,
    ),
    gauge(
        "innodebt_seconds_to_stall_point",
        "",
        "Seconds of redo writes at the current rate until checkpoint age reaches the stall point if the checkpoint stopped advancing (0 once past it; absent while nothing is written)",
        |f| f.redo.seconds_to_sync_point,
    ),
    gauge(
        "innodebt_recovery_estimate_seconds",
        "seconds",
        "Estimated crash-recovery time if the server died now, to the first query: start-up plus redo at the rate of the server's last crash recovery in its error log, else its flavour's default (--recovery-rate overrides)",
        |f| f.recovery.as_ref().map(|r| r.estimate_s),
    ),
    gauge(
        "innodebt_recovery_worst_case_seconds",
        "seconds",
        "Estimated crash-recovery time at the stall point (the most redo the flusher lets build up)",
        |f| f.recovery.as_ref().and_then(|r| r.worst_case_s),
    ),
    gauge(
        "innodebt_checkpoint_age_peak_bytes",
        "bytes",
        "Peak checkpoint age since innodebt started polling (or since the redo size changed)",
        |f| {
            f.sizing
                .as_ref()
                .map(|s| s.peak_checkpoint_age_bytes as f64)
        },
    ),
    gauge(
        "innodebt_redo_advised_capacity_bytes",
        "bytes",
        "Redo capacity that would keep the peak checkpoint age below the async point with headroom",
        |f| f.sizing.as_ref().map(|s| s.advised_capacity_bytes as f64),
    ),
    figure(
        "innodebt_flush_total_pages_per_second",
        "",
        "Pages flushed per second, all sources",
        FigureId::FlushTotal,
    ),
    Family {
        name: "innodebt_flush_pages_per_second",
        unit: "",
        kind: Kind::Gauge,
        help: "Pages flushed per second by source (a source whose INNODB_METRICS counter is off is absent)",
        read: Read::Figures("source", &FigureId::FLUSH_BY_SOURCE),
    },
    Family {
        name: "innodebt_innodb_metrics_off",
        unit: "",
        kind: Kind::Gauge,
        help: "INNODB_METRICS counters the figures need that are switched off (their figures are absent)",
        read: Read::Many(counters_off),
    },
    Family {
        name: "innodebt_source_unavailable",
        unit: "",
        kind: Kind::Gauge,
        help: "Sources the server refused, with the privilege that would unlock them",
        read: Read::Many(sources_refused),
    },
    figure(
        "innodebt_history_list_length",
        "",
        "History list length: undo logs waiting for purge",
        FigureId::HistoryLength,
    ),
    figure(
        "innodebt_history_growth_per_second",
        "",
        "History list length change per second",
        FigureId::HistoryGrowth,
    ),
    gauge(
        "innodebt_history_seconds_to_max_purge_lag",
        "",
        "Seconds until the history list reaches innodb_max_purge_lag at the current growth (0 once past it; absent when the lag is off or history does not grow)",
        |f| f.history.seconds_to_max_purge_lag,
    ),
    figure(
        "innodebt_history_held_back",
        "",
        "History the oldest read view holds back (history now - history when it started)",
        FigureId::HistoryHeldBack,
    ),
    figure(
        "innodebt_purge_blocker_age_seconds",
        "seconds",
        "Age of the transaction whose read view blocks purge (0 when none)",
        FigureId::Blocker,
    ),
    gauge(
        "innodebt_purge_blocker_thread_id",
        "",
        "Processlist id of the session whose read view blocks purge (absent when none)",
        |f| n(f.blocker.as_ref().and_then(|b| b.thread_id)),
    ),
    Family {
        name: "innodebt_purge_blocker",
        unit: "",
        kind: Kind::Info,
        help: "The session whose read view blocks purge",
        read: Read::Many(blocker_info),
    },
    figure(
        "innodebt_purge_lag_seconds",
        "seconds",
        "How long ago purge's position was the newest commit: from SEIS's trx id counter readings (a lower bound when the counter stood still)",
        FigureId::PurgeLagSeconds,
    ),
    figure(
        "innodebt_purge_lag_transactions",
        "",
        "Committed read-write transactions purge is behind, at most: SEIS transaction numbers over the 2 each one takes (id and commit number; internal transactions take more)",
        FigureId::PurgeLagTransactions,
    ),
    figure(
        "innodebt_purge_lag_trx_numbers",
        "",
        "Transaction numbers purge is behind: SEIS Trx id counter minus Purge done for trx's n:o",
        FigureId::PurgeLagTrxNumbers,
    ),
    figure(
        "innodebt_purge_records_per_second",
        "",
        "Undo records purged per second",
        FigureId::PurgeRecords,
    ),
    figure(
        "innodebt_purge_undo_pages_per_second",
        "",
        "Undo log pages purged per second",
        FigureId::PurgeUndoPages,
    ),
    figure(
        "innodebt_purge_inflow_records_per_second",
        "",
        "Rows updated and deleted per second: the records purge will have to process",
        FigureId::PurgeInflow,
    ),
    figure(
        "innodebt_dml_delay_seconds",
        "seconds",
        "Delay InnoDB's purge-lag formula gives each DML row now (0 when innodb_max_purge_lag is off)",
        FigureId::DmlDelay,
    ),
    figure(
        "innodebt_dml_delay_applied_seconds",
        "seconds",
        "Delay writes actually pay now per row (MariaDB: 0 while a read view blocks purge)",
        FigureId::DmlDelayApplied,
    ),
    figure(
        "innodebt_max_purge_lag",
        "",
        "innodb_max_purge_lag (0 = off)",
        FigureId::MaxPurgeLag,
    ),
    figure(
        "innodebt_purge_threads",
        "",
        "innodb_purge_threads",
        FigureId::PurgeThreads,
    ),
    figure(
        "innodebt_dirty_pages",
        "",
        "Dirty pages in the buffer pool",
        FigureId::DirtyPages,
    ),
    figure(
        "innodebt_dirty_pages_ratio",
        "ratio",
        "Dirty pages / (data + free pages), InnoDB's own ratio",
        FigureId::DirtyPct,
    ),
    figure(
        "innodebt_dirty_pages_max_ratio",
        "ratio",
        "innodb_max_dirty_pages_pct as a ratio",
        FigureId::DirtyMaxPct,
    ),
    figure(
        "innodebt_dirty_pages_lwm_ratio",
        "ratio",
        "innodb_max_dirty_pages_pct_lwm as a ratio (0 = no low-water mark, off)",
        FigureId::DirtyLwmPct,
    ),
    figure(
        "innodebt_dirty_bytes",
        "bytes",
        "Dirty bytes in the buffer pool",
        FigureId::DirtyBytes,
    ),
    figure(
        "innodebt_undo_size_bytes",
        "bytes",
        "Undo tablespace size in use",
        FigureId::UndoSize,
    ),
    figure(
        "innodebt_undo_reads_pages_per_second",
        "",
        "Undo pages read from disk per second (undo no longer cached)",
        FigureId::UndoReads,
    ),
    figure(
        "innodebt_rollback_segments",
        "",
        "Rollback segments write transactions are spread over (MariaDB >= 10.5: 128, fixed)",
        FigureId::RollbackSegments,
    ),
    figure(
        "innodebt_rollback_segment_latch_wait_seconds_per_second",
        "",
        "Seconds spent acquiring the rollback segments' latches per second (performance_schema)",
        FigureId::RsegWaitTime,
    ),
    figure(
        "innodebt_rollback_segment_latch_acquisitions_per_second",
        "",
        "Rollback segment latch acquisitions per second (performance_schema)",
        FigureId::RsegWaits,
    ),
    figure(
        "innodebt_trx_sys_mutex_wait_seconds_per_second",
        "",
        "Seconds spent acquiring the trx-sys mutex per second (performance_schema)",
        FigureId::TrxSysWaitTime,
    ),
    figure(
        "innodebt_undo_slots_used",
        "",
        "Undo log slots in use over every rollback segment (INNODB_METRICS trx_undo_slots_used)",
        FigureId::UndoSlotsUsed,
    ),
    gauge(
        "innodebt_self_statements_per_tick",
        "",
        "Statements innodebt sent the server in its last tick (slow-cadence ones on the ticks they ran)",
        |f| {
            f.self_cost
                .as_ref()
                .map(|c| f64::from(c.statements_per_tick))
        },
    ),
    gauge(
        "innodebt_self_server_seconds_per_tick",
        "",
        "innodebt's own time on the server in its last tick: its statements' round trips added up",
        |f| f.self_cost.as_ref().map(|c| c.server_ms_per_tick / 1000.0),
    ),
    gauge(
        "innodebt_self_server_p95_seconds",
        "seconds",
        "95th percentile over the last minute of innodebt's own time on the server per tick",
        |f| {
            f.self_cost
                .as_ref()
                .and_then(|c| c.server_ms_p95_1m)
                .map(|ms| ms / 1000.0)
        },
    ),
    figure(
        "innodebt_undo_resident_ratio",
        "ratio",
        "Share of undo pages in the buffer pool at the last residency scan",
        FigureId::UndoResidentPct,
    ),
];
