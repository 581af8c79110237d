//! The whole derivation of a moment: refused sources named on the figures, verdicts that do
//! not blame purge for what an unseen read view may do, and a redo resize restarting the peak.

use chrono::{TimeZone, Utc};

use super::*;
use crate::figures::FigureId;
use innodebt_server::innodb_status::InnodbStatus;
use innodebt_server::sample::{SourceKind, Unavailable};

const DENIED: &str = "error 1227: Access denied; you need (at least one of) the PROCESS \
                      privilege(s) for this operation";

fn connected() -> Deriver {
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: ServerInfo::mariadb_10_11(&[
            ("innodb_log_file_size", "16777216".into()),
            ("innodb_purge_threads", "4".into()),
        ]),
    });
    d
}

fn refused(source: SourceKind) -> Unavailable {
    Unavailable {
        source,
        privilege: Some("PROCESS".into()),
        error: DENIED.into(),
    }
}

/// A USAGE-only poll: status readable, INNODB_METRICS / INNODB_TRX refused; SEIS tried
/// (and refused) only when `seis_tried`.
fn usage_sample(t: f64, seis_tried: bool) -> Sample {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time")
        + chrono::Duration::milliseconds((t * 1000.0) as i64);
    let mut s = Sample::new(at, t);
    for (k, v) in [
        ("Uptime", 100 + t as u64),
        ("Innodb_lsn_current", 5_000),
        ("Innodb_lsn_last_checkpoint", 4_000),
        ("Innodb_history_list_length", 10),
        ("Innodb_buffer_pool_pages_flushed", 100 + 10 * t as u64),
        // MariaDB answers this name in lower case.
        ("Innodb_buffer_pool_pages_lru_flushed", 50 + 5 * t as u64),
    ] {
        s.status.insert(k.into(), v);
    }
    s.unavailable = vec![
        refused(SourceKind::InnodbMetrics),
        refused(SourceKind::InnodbTrx),
    ];
    if seis_tried {
        s.unavailable.push(refused(SourceKind::InnodbStatus));
    }
    s
}

#[test]
fn a_refused_source_names_the_null_figures_it_leaves() {
    let mut d = connected();
    let _ = d.push_sample(&usage_sample(0.0, true));
    let f = d.push_sample(&usage_sample(1.0, false)).expect("figures");
    // Readable without PROCESS: not listed, not null.
    assert_eq!(f.redo.checkpoint_age_bytes, Some(1_000));
    assert_eq!(f.flush.by_source_pages_per_s.lru, Some(5.0));
    assert_eq!(f.missing_privilege(FigureId::CheckpointAge), None);
    // INNODB_METRICS: by source (but LRU), purge rates, undo.
    let metrics = f
        .refused(SourceKind::InnodbMetrics)
        .expect("metrics refused");
    assert!(metrics.figures.contains(&FigureId::FlushSync));
    assert!(!metrics.figures.contains(&FigureId::FlushLru));
    assert_eq!(
        metrics.reason(),
        "needs PROCESS privilege (GRANT PROCESS ON *.* TO the account)"
    );
    assert_eq!(
        f.privilege_note(&FigureId::FLUSH_BY_SOURCE).as_deref(),
        Some("needs PROCESS privilege")
    );
    // A counter unreadable is not a counter off: `m` could not switch it on.
    assert!(
        f.flush.disabled_counters.is_empty(),
        "{:?}",
        f.flush.disabled_counters
    );
    // INNODB_TRX: the blocker is unknown, not absent.
    assert_eq!(f.blocker, None);
    assert_eq!(f.missing_privilege(FigureId::Blocker), Some("PROCESS"));
    assert_eq!(
        f.privilege_note(&[FigureId::PurgeState, FigureId::Blocker])
            .as_deref(),
        Some("needs PROCESS privilege")
    );
    // SEIS was refused on the sample before and not asked since: still refused.
    let seis = f
        .refused(SourceKind::InnodbStatus)
        .expect("SEIS refusal stands");
    assert_eq!(
        seis.figures,
        vec![
            FigureId::PurgeState,
            FigureId::PurgeLagTrxNumbers,
            FigureId::PurgeLagSeconds,
            FigureId::PurgeLagSecondsFrom,
            FigureId::PurgeLagTransactions,
            FigureId::PurgeLagBasis,
            FigureId::PurgePace,
            FigureId::PurgePaceOver,
            FigureId::PurgeMoving,
            // The oldest dirty page's age is SEIS's `Pages flushed up to` here (its
            // INNODB_METRICS counter is off); the checkpoint candidate is MySQL 8's reading of
            // the same line, null on MariaDB whatever the privilege.
            FigureId::OldestPageAge,
            FigureId::CheckpointCandidateAge,
            // The wait array's threads come from SEIS too.
            FigureId::SeisRsegWaiters,
            FigureId::SeisTrxSysWaiters
        ]
    );
    assert!(
        f.warnings
            .iter()
            .any(|w| w.starts_with("SHOW ENGINE INNODB STATUS unavailable: needs the PROCESS"))
    );
}

#[test]
fn a_slow_source_read_again_clears_its_refusal() {
    let mut d = connected();
    let _ = d.push_sample(&usage_sample(0.0, true));
    let mut read = usage_sample(1.0, false);
    read.innodb_status = Some(InnodbStatus {
        purge_state: Some("running".into()),
        ..InnodbStatus::default()
    });
    let f = d.push_sample(&read).expect("figures");
    assert!(f.refused(SourceKind::InnodbStatus).is_none());
    let f = d.push_sample(&usage_sample(2.0, false)).expect("figures");
    assert!(f.refused(SourceKind::InnodbStatus).is_none());
    assert_eq!(f.purge.state.as_deref(), Some("running"));
    // A reconnection asks again from scratch.
    let _ = d.push_sample(&usage_sample(3.0, true));
    let mut d2 = d.clone();
    d2.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: d.info().cloned().expect("info"),
    });
    let f = d2.push_sample(&usage_sample(4.0, false)).expect("figures");
    assert!(f.refused(SourceKind::InnodbStatus).is_none());
}

#[test]
fn growing_history_with_an_unseen_blocker_is_not_blamed_on_purge() {
    let mut d = connected();
    let mut last = None;
    for t in 0..30 {
        let mut s = usage_sample(f64::from(t), t == 0);
        s.status
            .insert("Innodb_history_list_length".into(), 1_000 + 400 * t as u64);
        last = d.push_sample(&s);
    }
    let f = last.expect("figures");
    let v = f
        .verdicts
        .iter()
        .find(|v| v.message.contains("grows"))
        .unwrap_or_else(|| panic!("growing history is a finding: {:?}", f.verdicts));
    assert!(
        v.message
            .contains("whether a read view blocks purge is unknown")
            && v.message.contains("INNODB_TRX needs PROCESS privilege"),
        "{}",
        v.message
    );
    assert!(
        f.verdicts
            .iter()
            .all(|v| !v.message.contains("no read view blocking purge")),
        "{:?}",
        f.verdicts
    );
}

#[test]
fn nothing_refused_nothing_listed() {
    let mut d = connected();
    let mut s = usage_sample(0.0, false);
    s.unavailable.clear();
    let f = d.push_sample(&s).expect("figures");
    assert!(f.unavailable.is_empty());
    assert_eq!(f.privilege_note(&[FigureId::Blocker]), None);
}

fn mariadb(log_file_size_mib: u64) -> SourceEvent {
    SourceEvent::Connected {
        at: Utc
            .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
            .single()
            .unwrap(),
        info: ServerInfo::mariadb_10_11(&[
            (
                "innodb_log_file_size",
                (log_file_size_mib << 20).to_string(),
            ),
            ("innodb_page_size", "16384".into()),
        ]),
    }
}

fn sample(t: i64, uptime: u64, age: u64) -> SourceEvent {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .unwrap()
        + chrono::Duration::seconds(t);
    let mut s = Sample::new(at, t as f64);
    s.status.insert("Uptime".into(), uptime);
    s.status
        .insert("Innodb_lsn_current".into(), 1_000_000_000 + age);
    s.status
        .insert("Innodb_lsn_last_checkpoint".into(), 1_000_000_000);
    SourceEvent::Sample(Box::new(s))
}

#[test]
fn a_restart_with_another_redo_size_is_noted_and_restarts_the_peak() {
    let mut d = Deriver::new();
    d.push(&mariadb(16));
    for t in 0..5 {
        // A 10 MiB peak at 16 MiB.
        let f = d.push(&sample(t, 100 + t as u64, 10 << 20)).unwrap();
        assert!(f.warnings.iter().all(|w| !w.contains("redo capacity")));
    }
    assert!(d.redo_resized().is_none());
    d.push(&mariadb(32));
    let f = d.push(&sample(20, 1, 2 << 20)).unwrap();
    let r = d.redo_resized().expect("the resize is noticed");
    assert_eq!((r.from_bytes, r.to_bytes), (16 << 20, 32 << 20));
    assert_eq!(
        r.summary(),
        "redo capacity changed 16.0 MiB → 32.0 MiB at 12:00:20 UTC"
    );
    assert!(
        f.warnings
            .iter()
            .any(|w| w.starts_with(&r.summary()) && w.contains("innodb_log_file_size")),
        "{:?}",
        f.warnings
    );
    // The 10 MiB peak was at the old size: the new peak is the 2 MiB since the restart.
    let sizing = f.sizing.expect("sizing");
    assert_eq!(sizing.peak_checkpoint_age_bytes, 2 << 20);
    assert_eq!(sizing.current_capacity_bytes, Some(32 << 20));
    // The same size after a plain reconnect is no resize.
    d.push(&mariadb(32));
    d.push(&sample(30, 11, 1 << 20));
    assert_eq!(d.redo_resized().map(|r| r.to_bytes), Some(32 << 20));
    assert_eq!(d.redo_resized().map(|r| r.at.timestamp() % 60), Some(20));
}

// ---------------------------------------------------------------------------------------
// Each judgement once, on the figures: panels, plans and the verdicts show the same answer.

/// MariaDB 10.11, 16 MiB of redo (async ≈ 10.7 MiB, M ≈ 12.3 MiB), max purge lag 5,000
/// (delay cap 2,000 µs).
/// `--sizing-span` is the reader's: a deriver restored from a checkpoint (a replay) keeps the
/// span it watched and judges with the span it is given, not the writer's.
#[test]
fn the_sizing_span_is_the_readers_setting() {
    let span = std::time::Duration::from_secs(60);
    let mut d = Deriver::new().with_sizing_span(span);
    d.push(&mariadb(16));
    // A 1 MiB peak on 16 MiB: a smaller size would hold it.
    let mut last = None;
    for t in 0..=30 {
        last = d.push(&sample(t, 100 + t as u64, 1 << 20));
    }
    let s = last.and_then(|f| f.sizing).expect("sizing");
    assert!(s.shrink_withheld, "{}", s.advice);
    assert_eq!((s.span_s, s.span_needed_s), (30.0, 60.0));
    assert!(s.advice.contains("needs 1m of watching"), "{}", s.advice);
    let start = s.span_from;

    let ahead = |d: &mut Deriver| {
        let mut last = None;
        for t in 31..=60 {
            last = d.push(&sample(t, 100 + t as u64, 1 << 20));
        }
        last.and_then(|f| f.sizing).expect("sizing")
    };
    let restore = |d: &Deriver| {
        Deriver::restore(
            d.state(),
            RecoveryModel::published_default(),
            d.engine_points(),
        )
        .expect("restore")
    };
    // Restored without the reader's span: the default day.
    let s = ahead(&mut restore(&d));
    assert!(s.shrink_withheld);
    assert_eq!(
        (s.span_from, s.span_s, s.span_needed_s),
        (start, 60.0, 86_400.0)
    );
    // With it: a minute watched, the shrink is advised.
    let mut again = restore(&d);
    again.set_sizing_span(span);
    let s = ahead(&mut again);
    assert!(!s.shrink_withheld, "{}", s.advice);
    assert_eq!((s.span_from, s.span_s), (start, 60.0));
    assert!(s.advised_capacity_bytes < 16 << 20);
    assert_eq!(s, ahead(&mut d));
}

fn judged_server() -> Deriver {
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc
            .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
            .single()
            .expect("time"),
        info: ServerInfo::mariadb_10_11(&[
            ("innodb_log_file_size", (16u64 << 20).to_string()),
            ("innodb_page_size", "16384".into()),
            ("innodb_max_purge_lag", "5000".into()),
            ("innodb_max_purge_lag_delay", "2000".into()),
            ("innodb_max_dirty_pages_pct", "90".into()),
        ]),
    });
    d
}

/// History `history`, checkpoint age `age` bytes, dirty `dirty_pct` % and, if given, a
/// REPEATABLE READ transaction `view_age_s` old, idle in its session.
fn moment(t: i64, history: u64, age: u64, dirty_pct: u64, view_age_s: Option<u64>) -> Sample {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time")
        + chrono::Duration::seconds(t);
    let mut s = Sample::new(at, t as f64);
    for (k, v) in [
        ("Uptime", 1_000 + t as u64),
        ("Innodb_lsn_current", 1_000_000_000 + age),
        ("Innodb_lsn_last_checkpoint", 1_000_000_000),
        ("Innodb_history_list_length", history),
        ("Innodb_buffer_pool_pages_dirty", dirty_pct),
        ("Innodb_buffer_pool_pages_data", 90),
        ("Innodb_buffer_pool_pages_free", 10),
    ] {
        s.status.insert(k.into(), v);
    }
    if let Some(age_s) = view_age_s {
        s.trx.push(innodebt_server::sample::TrxRow {
            trx_id: "421".into(),
            state: "RUNNING".into(),
            age_s,
            isolation: Some("REPEATABLE READ".into()),
            thread_id: Some(42),
            user: Some("report".into()),
            host: Some("app1".into()),
            command: Some("Sleep".into()),
            ..Default::default()
        });
    }
    s
}

/// The `blocked_by_read_view` verdict of `f`; a panic naming the verdicts there are.
fn blocked_verdict(f: &Figures) -> &crate::figures::Verdict {
    f.verdicts
        .iter()
        .find(|v| v.kind == crate::figures::VerdictKind::BlockedByReadView)
        .unwrap_or_else(|| panic!("blocked verdict: {:?}", f.verdicts))
}

#[test]
fn history_growth_is_one_figure_for_the_panel_the_verdict_and_the_plans() {
    let mut d = judged_server();
    let mut f = None;
    // History grows 200/s on average, in alternating steps of 50 and 350: the last sample's
    // change (+350/s) is not the growth a DBA should be shown.
    for t in 0..30 {
        let history = 3_000 + 200 * t as u64 + if t % 2 == 1 { 150 } else { 0 };
        f = d.push_sample(&moment(t, history, 1 << 20, 10, Some(100 + t as u64)));
    }
    let f = f.expect("figures");
    let growth = f.history.growth_per_s.expect("growth");
    assert!(
        (growth - 200.0).abs() < 20.0,
        "smoothed, not this tick's +350/s: {growth}"
    );
    let blocked = blocked_verdict(&f);
    assert!(
        blocked.message.contains(&format!("{growth:+.0}/s")),
        "the verdict cites the growth the panel shows ({growth:+.0}/s): {}",
        blocked.message
    );
    assert_eq!(f.purge.blocked, Some(true));
    // History (~9,000) is past innodb_max_purge_lag: the formula arms a delay that MariaDB
    // does not apply while purge is blocked.
    assert_eq!(f.history.seconds_to_max_purge_lag, Some(0.0));
    assert!(f.purge.dml_delay_us.is_some_and(|d| d > 0), "{:?}", f.purge);
    assert_eq!(f.purge.dml_delay_applied_us, Some(0));
}

#[test]
fn seconds_to_the_purge_lag_follow_the_growth_shown() {
    let mut d = judged_server();
    let mut f = None;
    for t in 0..30 {
        f = d.push_sample(&moment(t, 1_000 + 50 * t as u64, 1 << 20, 10, None));
    }
    let f = f.expect("figures");
    // 2,450 now, +50/s: 5,000 in 51 s.
    let growth = f.history.growth_per_s.expect("growth");
    let left = f
        .history
        .seconds_to_max_purge_lag
        .expect("seconds to the lag");
    assert!((left - (5_000.0 - 2_450.0) / growth).abs() < 1e-6, "{left}");
    assert_eq!(f.purge.blocked, Some(false), "no read view, no block");
}

#[test]
fn a_read_view_history_passes_is_not_a_block_and_writes_pay_the_delay() {
    let mut d = judged_server();
    let mut f = None;
    // The view is old, but history falls 300/s: purge passes it (it started after the undo
    // that is left).
    for t in 0..30 {
        f = d.push_sample(&moment(t, 20_000 - 300 * t as u64, 1 << 20, 10, Some(500)));
    }
    let f = f.expect("figures");
    assert_eq!(f.purge.blocked, Some(false));
    assert_eq!(f.purge.dml_delay_applied_us, f.purge.dml_delay_us);
    assert!(
        f.verdicts
            .iter()
            .all(|v| v.kind != crate::figures::VerdictKind::BlockedByReadView)
    );
}

#[test]
fn an_unreadable_innodb_trx_leaves_blocked_unknown() {
    let mut d = connected();
    let _ = d.push_sample(&usage_sample(0.0, false));
    let f = d.push_sample(&usage_sample(1.0, false)).expect("figures");
    assert_eq!(f.purge.blocked, None, "an unseen blocker is not no blocker");
    let json = serde_json::to_value(&f).expect("json");
    assert!(json["purge"]["blocked"].is_null());
    let trx = f
        .refused(SourceKind::InnodbTrx)
        .expect("INNODB_TRX refused");
    assert!(
        trx.figures.contains(&FigureId::PurgeBlocked),
        "{:?}",
        trx.figures
    );
}

#[test]
fn checkpoint_and_dirty_severity_are_the_flush_verdicts_own() {
    use crate::figures::{Severity, VerdictKind};
    let flush = |f: &Figures| {
        f.verdicts
            .iter()
            .find(|v| v.kind == VerdictKind::FlushPressure)
            .map(|v| v.severity)
    };
    let points = innodebt_server::flavor::mariadb_points(16 << 20, 16384, (10, 11));
    let mut d = judged_server();
    let mut f = None;
    for t in 0..3 {
        f = d.push_sample(&moment(t, 10, points.async_point + 1, 10, None));
    }
    let f = f.expect("figures");
    assert_eq!(f.redo.severity, Some(Severity::Warning));
    assert_eq!(flush(&f), Some(Severity::Warning));
    assert_eq!(f.dirty.severity, Some(Severity::Ok));
    let mut f = None;
    for t in 3..6 {
        f = d.push_sample(&moment(t, 10, points.sync_point, 95, None));
    }
    let f = f.expect("figures");
    assert_eq!(f.redo.severity, Some(Severity::Critical));
    assert_eq!(f.dirty.severity, Some(Severity::Warning));
    assert_eq!(flush(&f), Some(Severity::Critical));
    let json = serde_json::to_value(&f).expect("json");
    assert_eq!(json["redo"]["severity"], "critical");
    assert_eq!(json["dirty"]["severity"], "warning");

    // No redo size known: no flush points, so no "below async" either.
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: ServerInfo::mariadb_10_11(&[]),
    });
    let f = d
        .push_sample(&moment(0, 10, 1 << 20, 10, None))
        .expect("figures");
    assert_eq!(f.redo.async_point_bytes, None);
    assert_eq!(f.redo.severity, None);
    assert_eq!(f.dirty.severity, None, "innodb_max_dirty_pages_pct unknown");
}

#[test]
fn dirty_pages_against_a_zero_maximum_are_no_warning() {
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: ServerInfo::mariadb_10_11(&[("innodb_max_dirty_pages_pct", "0".into())]),
    });
    let f = d
        .push_sample(&moment(0, 10, 1 << 20, 5, None))
        .expect("figures");
    assert_eq!(f.dirty.severity, Some(crate::figures::Severity::Ok));
}

#[test]
fn flush_sources_off_are_named_once() {
    use crate::figures::FlushSource;
    use innodebt_server::sample::MetricValue;
    let mut d = judged_server();
    let off = MetricValue {
        count: 0,
        enabled: false,
    };
    let mut s = moment(0, 10, 1 << 20, 10, None);
    s.metrics
        .insert("buffer_flush_sync_total_pages".into(), off);
    s.metrics
        .insert("buffer_LRU_batch_flush_total_pages".into(), off);
    let mut later = moment(1, 10, 1 << 20, 10, None);
    later.metrics = s.metrics.clone();
    for (x, lru) in [(&mut s, 100), (&mut later, 150)] {
        x.status
            .insert("Innodb_buffer_pool_pages_LRU_flushed".into(), lru);
    }
    let _ = d.push_sample(&s);
    let f = d.push_sample(&later).expect("figures");
    // LRU's rate comes from SHOW GLOBAL STATUS: its counter being off loses nothing.
    assert_eq!(f.flush.by_source_pages_per_s.lru, Some(50.0));
    assert_eq!(f.flush.sources_off, vec![FlushSource::Sync]);
    assert_eq!(
        f.flush.disabled_counters,
        vec!["buffer_flush_sync_total_pages"]
    );
}

#[test]
fn no_history_growth_spans_a_restart() {
    let mut d = judged_server();
    for t in 0..25 {
        let _ = d.push_sample(&moment(t, 1_000 + 500 * t as u64, 1 << 20, 10, None));
    }
    // A restart: history starts again from a few hundred and is flat.
    let mut after = Vec::new();
    for t in 30..45 {
        let mut s = moment(t, 300, 1 << 20, 10, None);
        s.status.insert("Uptime".into(), (t - 29) as u64);
        after.push(d.push_sample(&s).expect("figures"));
    }
    assert_eq!(after[0].interval_s, None, "a fresh baseline");
    assert_eq!(
        after[0].history.growth_per_s, None,
        "no growth across the gap"
    );
    assert!(
        after
            .iter()
            .skip(1)
            .all(|f| f.history.growth_per_s == Some(0.0)),
        "only the flat history since the restart: {:?}",
        after
            .iter()
            .map(|f| f.history.growth_per_s)
            .collect::<Vec<_>>()
    );
}

/// `history.held_by` is what the verdicts name, in their severity: the read view of
/// `blocked_by_read_view` (or of `purge.blocked` before its hysteresis lets it in, at the
/// warning it starts from), else the oldest writer of `history_held_by_open_writes`.
#[test]
fn held_by_names_what_the_verdict_names() {
    use crate::figures::{Blocker, OldestRw, Verdict};
    let verdict = |kind, severity| Verdict {
        kind,
        severity,
        since: Utc::now(),
        message: String::new(),
        thread_id: None,
        clearing: false,
        missing: Vec::new(),
    };
    let mut f = Figures {
        blocker: Some(Blocker {
            trx_id: "421".into(),
            thread_id: Some(42),
            age_s: 61,
            ..Blocker::default()
        }),
        ..Figures::default()
    };
    f.purge.oldest_rw = Some(OldestRw {
        trx_id: "90210".into(),
        thread_id: Some(6028),
        age_s: 95,
    });
    f.purge.open_rw_trx = Some(50);
    // An old view purge passes, nothing judged: nothing holds history.
    f.purge.blocked = Some(false);
    assert_eq!(held_by(&f), None);
    // Blocked, the verdict not in yet: the view, at warning.
    f.purge.blocked = Some(true);
    assert_eq!(
        held_by(&f).map(|h| (h.thread_id(), h.severity())),
        Some((Some(42), Severity::Warning))
    );
    // The verdict in, critical: its severity.
    f.verdicts = vec![verdict(VerdictKind::BlockedByReadView, Severity::Critical)];
    assert_eq!(held_by(&f).map(|h| h.severity()), Some(Severity::Critical));
    // Open writes: the oldest writer, how many are open, the verdict's severity.
    f.purge.blocked = Some(false);
    f.verdicts = vec![verdict(
        VerdictKind::HistoryHeldByOpenWrites,
        Severity::Warning,
    )];
    assert_eq!(
        held_by(&f),
        Some(HeldBy::OpenWrites {
            trx_id: Some("90210".into()),
            thread_id: Some(6028),
            age_s: Some(95),
            open: Some(50),
            severity: Severity::Warning,
        })
    );
    // A verdict on its way out names nothing now.
    f.verdicts[0].clearing = true;
    assert_eq!(held_by(&f), None);
}

/// A server under an INSERT-only load, SEIS read every 10 s: the counter runs 1,000 numbers
/// ahead each read, purge's position stands, history stays 0 (`flavor` says what that means).
fn insert_only_load(version: &str, comment: &str) -> Figures {
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: ServerInfo {
            version: version.into(),
            version_comment: comment.into(),
            flavor: innodb_flavor(version, comment),
            ..ServerInfo::mariadb_10_11(&[("innodb_log_file_size", "50331648".into())])
        },
    });
    let mut last = None;
    for i in 0..6u64 {
        let t = 10.0 * i as f64;
        let mut s = usage_sample(t, false);
        s.unavailable.clear();
        s.status.insert("Innodb_history_list_length".into(), 0);
        s.innodb_status = Some(InnodbStatus {
            trx_id_counter: Some(50_000 + 1_000 * i),
            purge_done_trx: Some(50_000),
            history_length: Some(0),
            ..InnodbStatus::default()
        });
        last = d.push_sample(&s);
    }
    last.expect("figures")
}

fn innodb_flavor(version: &str, comment: &str) -> innodebt_server::flavor::Flavor {
    innodebt_server::flavor::Flavor::detect(version, comment, false)
}

/// mysql-server 5.7.30 / 8.0.18 `trx0trx.cc trx_write_serialisation_history`: an INSERT-only
/// transaction takes an id but no commit number and leaves nothing in history, so purge's
/// position stays while the counter runs — with history 0 purge has nothing to do: no lag in
/// transactions or seconds, no pace of 0 to call "not moving". MariaDB 10.11.18
/// (`trx_t::write_serialisation_history`: every read-write transaction in history) is judged
/// as before on the same readings.
#[test]
fn an_insert_only_mysql_load_shows_no_purge_lag_history_does_not_have() {
    let f = insert_only_load("8.0.36", "MySQL Community Server - GPL");
    let p = &f.purge;
    assert_eq!(
        p.lag_trx_numbers,
        Some(5_000),
        "the numbers are the server's"
    );
    assert_eq!(p.lag_transactions, Some(0));
    assert_eq!(p.lag_s, Some(0.0));
    assert_eq!(p.pace, None);
    assert_ne!(p.moving, Some(false));
    assert_eq!(p.lag_words().as_deref(), Some("caught up"));
    let basis = p.lag_transactions_basis.as_deref().unwrap_or_default();
    assert!(basis.starts_with("at most the history length"), "{basis}");

    let m = insert_only_load("10.11.19-MariaDB", "");
    let p = &m.purge;
    assert_eq!(p.lag_trx_numbers, Some(5_000));
    assert_eq!(p.lag_transactions, Some(2_500));
    assert_eq!(p.pace, Some(0.0));
    assert_eq!(p.moving, Some(false));
    assert!(p.lag_s.is_some_and(|s| s >= 50.0), "{:?}", p.lag_s);
}

/// A quiet server: nothing commits, a read view is open, history holds at 3,000 and purge
/// stands 6,000 transaction numbers behind in two SEIS reads. Nothing stops a purge with work
/// left but a view it cannot pass: one look names the blocker, never "purge has caught up".
/// Caught up on the same quiet server (position at the counter), purge has no pace.
#[test]
fn purge_standing_still_behind_on_a_quiet_server_is_blocked() {
    let look = |behind: u64| {
        let mut d = judged_server();
        let mut last = None;
        for t in 0..3 {
            let mut s = moment(t, 3_000, 1 << 20, 10, Some(30 + t as u64));
            s.innodb_status = Some(InnodbStatus {
                trx_id_counter: Some(90_000),
                purge_done_trx: Some(90_000 - behind),
                history_length: Some(3_000),
                ..InnodbStatus::default()
            });
            last = d.push_sample(&s);
        }
        last.expect("figures")
    };
    let f = look(6_000);
    assert_eq!(f.purge.pace, Some(0.0));
    assert_eq!(f.purge.moving, Some(false));
    assert_eq!(f.purge.blocked, Some(true));
    let blocked = blocked_verdict(&f);
    assert!(
        blocked.message.contains("thread 42") && blocked.message.contains("purge stands still"),
        "{}",
        blocked.message
    );
    assert!(
        f.verdicts
            .iter()
            .all(|v| v.kind != crate::figures::VerdictKind::Healthy),
        "{:?}",
        f.verdicts
    );

    let f = look(0);
    assert_eq!(f.purge.pace, None);
    assert_eq!(f.purge.blocked, Some(false));
}

/// Where the oldest dirty page's age comes from, by flavour: INNODB_METRICS
/// `log_lsn_buf_pool_oldest_approx` on MySQL 8.0.13+ (mysql-server 8.0.18 `srv0mon.cc`,
/// `buf_pool_get_oldest_modification_approx()`: 0 with nothing dirty), SEIS `Pages flushed up
/// to` on MariaDB (10.11.18 `log0log.cc log_print`: the oldest page) — on MySQL 8.0 that line
/// is `available_for_checkpoint_lsn` (mysql-server 8.0.18 `log_print`), the checkpoint
/// candidate. The regime names the age it was judged on.
#[test]
fn the_oldest_dirty_pages_age_comes_from_the_flavours_source() {
    use innodebt_server::flavor::RegimeAge;
    use innodebt_server::sample::MetricValue;
    let seis = || InnodbStatus {
        lsn: Some(5_000),
        checkpoint_lsn: Some(4_000),
        pages_flushed_lsn: Some(4_800),
        ..InnodbStatus::default()
    };
    let mut d = connected();
    let mut s = usage_sample(0.0, false);
    s.innodb_status = Some(seis());
    let f = d.push_sample(&s).expect("figures");
    assert_eq!(f.redo.oldest_page_age_bytes, Some(200));
    assert_eq!(f.redo.checkpoint_candidate_age_bytes, None);
    assert_eq!(f.redo.flush_regime_age, Some(RegimeAge::OldestPage));

    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: ServerInfo {
            version: "8.0.28".into(),
            version_comment: "MySQL Community Server - GPL".into(),
            flavor: innodb_flavor("8.0.28", "MySQL Community Server - GPL"),
            ..ServerInfo::mariadb_10_11(&[("innodb_log_file_size", "50331648".into())])
        },
    });
    let mut s = usage_sample(0.0, false);
    s.unavailable.clear();
    s.innodb_status = Some(seis());
    let f = d.push_sample(&s).expect("figures");
    assert_eq!(f.redo.oldest_page_age_bytes, None);
    assert_eq!(f.redo.checkpoint_candidate_age_bytes, Some(200));
    assert_eq!(
        f.redo.flush_regime_age,
        Some(RegimeAge::CheckpointCandidate)
    );
    let mut s = usage_sample(1.0, false);
    s.unavailable.clear();
    s.metrics.insert(
        "log_lsn_buf_pool_oldest_approx".into(),
        MetricValue {
            count: 0,
            enabled: true,
        },
    );
    let f = d.push_sample(&s).expect("figures");
    assert_eq!(f.redo.oldest_page_age_bytes, Some(0), "0: nothing dirty");
    assert_eq!(f.redo.flush_regime_age, Some(RegimeAge::OldestPage));
}
