//! Derivation scenarios from hand-built sample sequences: counter resets, server restarts,
//! disabled counters, the blocker rule. No server needed.

use crate::common::builders;

use chrono::{TimeZone, Utc};
use innodebt_engine::derive::Deriver;
use innodebt_server::sample::{MetricValue, Sample, ServerInfo, SourceEvent, TrxRow};

/// A 64 MiB redo log, the purge lag armed at 1,000 with a 2 ms cap; purge batches small enough
/// (4 × 300) that MySQL ≥ 8.0.14 delays at the histories these tests use.
fn info() -> ServerInfo {
    builders::mariadb(&[
        ("innodb_log_file_size", "67108864"),
        ("innodb_max_purge_lag", "1000"),
        ("innodb_max_purge_lag_delay", "2000"),
        ("innodb_purge_batch_size", "300"),
    ])
}

fn sample(t: f64, uptime: u64, flushed: u64, history: u64, purged: i64) -> Sample {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time")
        + chrono::Duration::milliseconds((t * 1000.0) as i64);
    let mut s = Sample::new(at, t);
    for (k, v) in [
        ("Uptime", uptime),
        ("Innodb_lsn_current", 1_000_000 + flushed * 100),
        ("Innodb_lsn_last_checkpoint", 1_000_000),
        ("Innodb_buffer_pool_pages_flushed", flushed),
        ("Innodb_history_list_length", history),
        ("Innodb_buffer_pool_pages_dirty", 100),
        ("Innodb_buffer_pool_pages_data", 900),
        ("Innodb_buffer_pool_pages_free", 100),
    ] {
        s.status.insert(k.into(), v);
    }
    s.metrics.insert(
        "purge_del_mark_records".into(),
        MetricValue {
            count: purged,
            enabled: true,
        },
    );
    s.metrics.insert(
        "purge_upd_exist_or_extern_records".into(),
        MetricValue {
            count: 0,
            enabled: true,
        },
    );
    s.metrics.insert(
        "buffer_flush_adaptive_total_pages".into(),
        MetricValue {
            count: 0,
            enabled: false,
        },
    );
    s
}

fn deriver() -> Deriver {
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected {
        at: Utc::now(),
        info: info(),
    });
    d
}

#[test]
fn rates_history_growth_and_dml_delay() {
    let mut d = deriver();
    assert!(d.push_sample(&sample(0.0, 100, 1000, 1000, 50)).is_some());
    let f = d
        .push_sample(&sample(2.0, 102, 1400, 3000, 250))
        .expect("figures");
    assert_eq!(f.interval_s, Some(2.0));
    assert_eq!(f.flush.total_pages_per_s, Some(200.0));
    assert_eq!(f.history.length, Some(3000));
    assert_eq!(f.history.growth_per_s, Some(1000.0));
    assert_eq!(f.purge.records_per_s, Some(100.0));
    // HLL 3000 / lag 1000 = 3 → (3 − 0.5)·10000 = 25000 µs, capped at 2000.
    assert_eq!(f.purge.dml_delay_us, Some(2000));
    // No read view blocks purge: writes pay it.
    assert_eq!(f.purge.dml_delay_applied_us, Some(2000));
    // 100 dirty / (900 data + 100 free).
    assert_eq!(f.dirty.pct, Some(10.0));
    // lwm 0 is "no low-water mark" (buf0flu.cc af_get_pct_for_dirty, every flavour): off.
    assert_eq!(f.dirty.lwm_pct, None);
    assert!(f.dirty.lwm_off);
    assert_eq!(f.redo.checkpoint_age_bytes, Some(140_000));
    // A counter that is off is null and named, never 0.
    assert_eq!(f.flush.by_source_pages_per_s.adaptive, None);
    assert!(
        f.flush
            .disabled_counters
            .contains(&"buffer_flush_adaptive_total_pages".to_string())
    );
    assert!(
        f.warnings
            .iter()
            .any(|w| w.contains("buffer_flush_adaptive_total_pages"))
    );
}

#[test]
fn flush_status_reset_gives_unknown_not_negative() {
    let mut d = deriver();
    d.push_sample(&sample(0.0, 100, 1_000_000, 10, 5_000_000));
    // FLUSH STATUS / re-enabled metrics: counters restart near zero.
    let f = d
        .push_sample(&sample(1.0, 101, 40, 10, 3))
        .expect("figures");
    assert_eq!(f.flush.total_pages_per_s, None);
    assert_eq!(f.purge.records_per_s, None);
    // And the next interval is a normal rate from the new baseline, not a spike.
    let f = d
        .push_sample(&sample(2.0, 102, 140, 10, 13))
        .expect("figures");
    assert_eq!(f.flush.total_pages_per_s, Some(100.0));
    assert_eq!(f.purge.records_per_s, Some(10.0));
}

#[test]
fn server_restart_restarts_every_rate() {
    let mut d = deriver();
    d.push_sample(&sample(0.0, 5000, 1000, 10, 100));
    d.push_sample(&sample(1.0, 5001, 2000, 10, 200));
    // Uptime went down: a restart. Counters happen to be higher — still no rate.
    let f = d
        .push_sample(&sample(30.0, 3, 9000, 10, 900))
        .expect("figures");
    assert_eq!(f.interval_s, None);
    assert_eq!(f.flush.total_pages_per_s, None);
    assert_eq!(f.history.growth_per_s, None);
    let f = d
        .push_sample(&sample(31.0, 4, 9100, 10, 950))
        .expect("figures");
    assert_eq!(f.flush.total_pages_per_s, Some(100.0));
}

#[test]
fn blocker_is_the_oldest_read_view_old_enough_to_matter() {
    let trx = |id: &str, age: u64, iso: &str, cmd: &str, thread: u64| TrxRow {
        trx_id: id.into(),
        state: "RUNNING".into(),
        age_s: age,
        isolation: Some(iso.into()),
        thread_id: Some(thread),
        user: Some("app".into()),
        host: Some("10.0.0.7:5123".into()),
        command: Some(cmd.into()),
        query: None,
        rows_modified: Some(0),
    };
    let mut d = deriver();
    let mut s = sample(0.0, 100, 1, 1, 1);
    // An idle READ COMMITTED transaction holds no view; a young autocommit write is noise.
    s.trx = vec![
        trx("900", 600, "READ COMMITTED", "Sleep", 11),
        trx("421", 120, "REPEATABLE READ", "Sleep", 42),
        trx("950", 0, "REPEATABLE READ", "Query", 77),
    ];
    let f = d.push_sample(&s).expect("figures");
    let b = f.blocker.expect("blocker");
    assert_eq!(b.thread_id, Some(42));
    assert_eq!(b.age_s, 120);

    let mut s = sample(1.0, 101, 1, 1, 1);
    s.trx = vec![trx("950", 0, "REPEATABLE READ", "Query", 77)];
    assert!(d.push_sample(&s).expect("figures").blocker.is_none());
}

/// MariaDB 10.11 (measured, `docs/metrics-sources.md` "Purge variables") does not apply the purge-lag delay while a read view
/// blocks purge: the delay is armed, writes pay 0 now. MySQL applies it anyway.
#[test]
fn dml_delay_is_only_armed_on_mariadb_while_a_read_view_blocks_purge() {
    let blocked = |version: &str| {
        let mut d = Deriver::new();
        d.push(&SourceEvent::Connected {
            at: Utc::now(),
            info: builders::as_version(info(), version, ""),
        });
        d.push_sample(&sample(0.0, 100, 1000, 1000, 50));
        let mut s = sample(2.0, 102, 1400, 3000, 50);
        s.trx.push(builders::read_view(7, 60));
        d.push_sample(&s).expect("figures")
    };
    let mariadb = blocked(builders::MARIADB_VERSION);
    assert!(mariadb.blocker.is_some());
    assert_eq!(mariadb.purge.dml_delay_us, Some(2000));
    assert_eq!(mariadb.purge.dml_delay_applied_us, Some(0));
    let mysql = blocked("8.0.36");
    assert_eq!(mysql.purge.dml_delay_us, Some(2000));
    assert_eq!(mysql.purge.dml_delay_applied_us, Some(2000));
}

/// INNODB_TRX ages are whole seconds: when two transactions share the oldest age, the blocker
/// is the first row (the server sorted them oldest first), not whichever came last.
#[test]
fn a_tie_in_age_names_the_oldest_row() {
    let row = |thread: u64| TrxRow {
        trx_id: format!("{thread}"),
        state: "RUNNING".into(),
        age_s: 3,
        isolation: Some("REPEATABLE READ".into()),
        thread_id: Some(thread),
        ..TrxRow::default()
    };
    let b = innodebt_engine::measure::find_blocker(&[row(12), row(43), row(44)], None)
        .expect("a blocker");
    assert_eq!(b.thread_id, Some(12));
}
