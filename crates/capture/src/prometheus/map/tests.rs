//! The exporter's names, samples and unknowns, and innodebt's own series standing in.
use super::*;

fn labels(name: &str, extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut l: BTreeMap<String, String> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    l.insert("__name__".into(), name.into());
    l
}

fn series(name: &str, extra: &[(&str, &str)], values: &[(f64, f64)]) -> Series {
    Series {
        metric: labels(name, extra),
        values: values.to_vec(),
    }
}

#[test]
fn exporter_names_map_to_the_servers_words() {
    let t = |n: &str, e: &[(&str, &str)]| target(&labels(n, e));
    let s = |n: &str| Some(Target::Status(n.into()));
    assert_eq!(
        t("mysql_global_status_innodb_lsn_current", &[]),
        s("Innodb_lsn_current")
    );
    assert_eq!(t("mysql_global_status_uptime", &[]), s("Uptime"));
    assert_eq!(
        t("mysql_global_status_buffer_pool_dirty_pages", &[]),
        s("Innodb_buffer_pool_pages_dirty")
    );
    assert_eq!(
        t(
            "mysql_global_status_buffer_pool_pages",
            &[("state", "free")]
        ),
        s("Innodb_buffer_pool_pages_free")
    );
    assert_eq!(
        t(
            "mysql_global_status_buffer_pool_page_changes_total",
            &[("operation", "lru_flushed")]
        ),
        s("Innodb_buffer_pool_pages_LRU_flushed")
    );
    assert_eq!(
        t(
            "mysql_global_status_handlers_total",
            &[("handler", "update")]
        ),
        s("Handler_update")
    );
    assert_eq!(
        t(
            "mysql_global_status_handlers_total",
            &[("handler", "read_rnd")]
        ),
        None
    );
    assert_eq!(t("mysql_global_status_aria_pagecache_reads", &[]), None);
    let m = |n: &'static str| Some(Target::Metric(n));
    assert_eq!(
        t(
            "mysql_info_schema_innodb_metrics_transaction_trx_rseg_history_len",
            &[]
        ),
        m("trx_rseg_history_len")
    );
    assert_eq!(
        t(
            "mysql_info_schema_innodb_metrics_purge_purge_del_mark_records_total",
            &[]
        ),
        m("purge_del_mark_records")
    );
    assert_eq!(
        t(
            "mysql_info_schema_innodb_metrics_buffer_buffer_LRU_batch_flush_total_pages_total",
            &[]
        ),
        m("buffer_LRU_batch_flush_total_pages")
    );
    assert_eq!(
        t(
            "mysql_info_schema_innodb_metrics_buffer_buffer_flush_sync_total_pages",
            &[]
        ),
        m("buffer_flush_sync_total_pages")
    );
    assert_eq!(
        t(
            "mysql_info_schema_innodb_metrics_buffer_page_read_total",
            &[("type", "undo_log")]
        ),
        m("buffer_page_read_undo_log")
    );
    // `buffer_flush_sync_pages` is not `buffer_flush_sync_total_pages`, nor any other.
    assert_eq!(
        t(
            "mysql_info_schema_innodb_metrics_buffer_buffer_flush_sync_pages",
            &[]
        ),
        None
    );
    assert_eq!(
        t("mysql_global_variables_innodb_log_file_size", &[]),
        Some(Target::Variable("innodb_log_file_size".into()))
    );
    assert_eq!(t("mysql_global_variables_aria_log_file_size", &[]), None);
    assert_eq!(t("mysql_version_info", &[]), Some(Target::Version));
    assert_eq!(
        t("innodebt_history_list_length", &[]),
        Some(Target::ServeSeries(ServeSeries::History))
    );
    // Every name `target` maps is asked for.
    let re = wanted_names();
    for n in [
        "|innodb_checkpoint_age|",
        "|buffer_pool_dirty_pages|",
        "|buffer_LRU_batch_flush_total_pages|",
        "|innodb_log_file_size|",
    ] {
        assert!(re.contains(n), "{n} not in {re}");
    }
}

#[test]
fn samples_variables_restarts_and_unknowns() {
    let t0 = 1_800_000_000.0;
    let pts = |vals: &[f64]| -> Vec<(f64, f64)> {
        vals.iter()
            .enumerate()
            .map(|(i, v)| (t0 + i as f64, *v))
            .collect()
    };
    let input = vec![
        series(
            "mysql_version_info",
            &[
                ("version", "10.11.19-MariaDB-0+deb12u1"),
                ("version_comment", "Debian 12"),
            ],
            &pts(&[1.0, 1.0, 1.0, 1.0]),
        ),
        series(
            "mysql_global_status_uptime",
            &[],
            &pts(&[100.0, 101.0, 3.0, 4.0]),
        ),
        series(
            "mysql_global_status_innodb_lsn_current",
            &[],
            &pts(&[5000.0, 6000.0, 7000.0, 9000.0]),
        ),
        series(
            "mysql_global_status_innodb_lsn_last_checkpoint",
            &[],
            &pts(&[4000.0, 4000.0, 4000.0, 8000.0]),
        ),
        series(
            "mysql_global_status_innodb_history_list_length",
            &[],
            &pts(&[10.0, 20.0, 30.0, 40.0]),
        ),
        series(
            "mysql_global_variables_innodb_log_file_size",
            &[],
            &pts(&[1.6777216e7; 4]),
        ),
        series(
            "mysql_global_variables_innodb_max_purge_lag",
            &[],
            &pts(&[0.0, 0.0, 1000.0, 1000.0]),
        ),
    ];
    let m = map(&input, "prometheus db:9104");
    assert_eq!(m.samples, 4);
    assert_eq!(m.restarts, 1);
    assert!(m.info.flavor.is_mariadb());
    assert_eq!(m.info.var_u64("innodb_log_file_size"), Some(16_777_216));
    assert_eq!(m.info.var_u64("innodb_max_purge_lag"), Some(0));
    assert!(m.unknown.contains(&"dirty pages"));
    assert!(!m.unknown.contains(&"checkpoint age"));
    assert!(!m.unknown.contains(&"history list length"));
    let samples: Vec<&Sample> = m.events.iter().filter_map(|e| e.as_sample()).collect();
    assert_eq!(samples[1].mono_s, 1.0);
    assert_eq!(samples[3].status("Innodb_history_list_length"), Some(40));
    // No dirty-page series: unknown, not zero.
    assert_eq!(samples[0].status("Innodb_buffer_pool_pages_dirty"), None);
    // No transactions in the exporter: the blocker is unknown, said as a source refused.
    assert_eq!(samples[0].unavailable[0].source, SourceKind::InnodbTrx);
    let changes: Vec<_> = m
        .events
        .iter()
        .filter_map(|e| match e {
            SourceEvent::Variables { variables, .. } => Some(variables.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0].get("innodb_max_purge_lag").map(String::as_str),
        Some("1000")
    );
    let connects = m
        .events
        .iter()
        .filter(|e| matches!(e, SourceEvent::Connected { .. }))
        .count();
    assert_eq!(connects, 2, "the restart is a new connection");
}

/// Two points of serve's series, 10 s apart.
fn two(a: f64, b: f64) -> Vec<(f64, f64)> {
    let t0 = 1_800_000_000.0;
    vec![(t0, a), (t0 + 10.0, b)]
}

/// serve's series of one server: its description, checkpoint age, history and redo capacity.
fn serves_server() -> Vec<Series> {
    vec![
        series(
            "innodebt_server_info",
            &[("flavor", "mariadb"), ("version", "10.11.19")],
            &two(1.0, 1.0),
        ),
        series("innodebt_checkpoint_age_bytes", &[], &two(1000.0, 1500.0)),
        series("innodebt_history_list_length", &[], &two(5.0, 7.0)),
        series("innodebt_redo_capacity_bytes", &[], &two(1e8, 1e8)),
    ]
}

#[test]
fn innodebts_own_series_stand_in() {
    let mut input = serves_server();
    input.extend([
        series(
            "innodebt_redo_written_bytes_per_second",
            &[],
            &two(100.0, 100.0),
        ),
        series(
            "innodebt_purge_blocker_info",
            &[("trx_id", "42"), ("thread_id", "9"), ("user", "app")],
            &two(1.0, 1.0),
        ),
        series("innodebt_purge_blocker_age_seconds", &[], &two(30.0, 40.0)),
    ]);
    let m = map(&input, "x");
    assert!(m.info.flavor.is_mariadb());
    assert_eq!(m.info.var_u64("innodb_log_file_size"), Some(100_000_000));
    assert!(!m.unknown.iter().any(|u| u.contains("blocker")));
    let samples: Vec<&Sample> = m.events.iter().filter_map(|e| e.as_sample()).collect();
    let (a, b) = (
        m.info.flavor.lsn_and_checkpoint(samples[0]).unwrap(),
        m.info.flavor.lsn_and_checkpoint(samples[1]).unwrap(),
    );
    assert_eq!((a.0 - a.1, b.0 - b.1), (1000, 1500));
    assert_eq!(b.0 - a.0, 1000, "100 B/s for 10 s");
    assert_eq!(samples[1].trx[0].thread_id, Some(9));
    assert_eq!(samples[1].trx[0].age_s, 40);
    assert!(samples[1].unavailable.is_empty());
}

/// serve with no read view blocking purge exports the blocker's age as 0 and no info series:
/// nothing blocks (a known answer), not a blocker unknown; without the age, it is unknown.
#[test]
fn serves_zero_blocker_age_says_none_blocks() {
    let base = serves_server();
    let mut with_age = base.clone();
    with_age.push(series(
        "innodebt_purge_blocker_age_seconds",
        &[],
        &two(0.0, 0.0),
    ));
    let m = map(&with_age, "x");
    assert!(!m.unknown.iter().any(|u| u.contains("blocker")));
    let samples: Vec<&Sample> = m.events.iter().filter_map(|e| e.as_sample()).collect();
    assert!(
        samples
            .iter()
            .all(|s| s.trx.is_empty() && s.unavailable.is_empty())
    );
    let m = map(&base, "x");
    assert!(m.unknown.iter().any(|u| u.contains("blocker")));
    let samples: Vec<&Sample> = m.events.iter().filter_map(|e| e.as_sample()).collect();
    assert_eq!(samples[0].unavailable[0].source, SourceKind::InnodbTrx);
}

#[test]
fn variables_in_the_servers_own_words() {
    // mysqld_exporter turns ON/OFF into 1/0 and prints doubles bare: given back as the
    // server's SHOW GLOBAL VARIABLES says them, so compare sees one setting, not two.
    assert_eq!(variable_words("innodb_adaptive_flushing", 1.0), "ON");
    assert_eq!(variable_words("performance_schema", 0.0), "OFF");
    assert_eq!(
        variable_words("innodb_max_dirty_pages_pct", 90.0),
        "90.000000"
    );
    assert_eq!(variable_words("innodb_io_capacity", 200.0), "200");
}
