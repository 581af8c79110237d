//! Test data built in one place: the MariaDB server the tests without a server talk about,
//! and a transaction holding a read view. `mod common` has it as `common::builders`; a test or
//! bench that needs no server includes it alone (`#[path = "common/builders.rs"] mod builders;`).
#![allow(dead_code)]

use std::collections::BTreeMap;

use innodebt_server::flavor::Flavor;
use innodebt_server::sample::{Sample, ServerInfo, SourceKind, TrxRow, Unavailable};

pub const MARIADB_LABEL: &str = "db1.example.com:3306";
pub const MARIADB_VERSION: &str = "10.11.6-MariaDB-0+deb12u1-log";
pub const MARIADB_COMMENT: &str = "Debian 12";

/// MariaDB 10.11 with a 96 MiB redo log and a 1 GiB buffer pool — the variables the derivation
/// reads, at the server's defaults — with `overrides` over them.
pub fn mariadb(overrides: &[(&str, &str)]) -> ServerInfo {
    let mut variables: BTreeMap<String, String> = [
        ("version", MARIADB_VERSION),
        ("version_comment", MARIADB_COMMENT),
        ("hostname", "db1"),
        ("port", "3306"),
        ("innodb_page_size", "16384"),
        ("innodb_log_file_size", "100663296"),
        ("innodb_log_buffer_size", "16777216"),
        ("innodb_thread_concurrency", "0"),
        ("innodb_buffer_pool_size", "1073741824"),
        ("innodb_io_capacity", "200"),
        ("innodb_io_capacity_max", "2000"),
        ("innodb_max_dirty_pages_pct", "90.000000"),
        ("innodb_max_dirty_pages_pct_lwm", "0.000000"),
        ("innodb_purge_threads", "4"),
        ("innodb_purge_batch_size", "1000"),
        ("innodb_max_purge_lag", "0"),
        ("innodb_max_purge_lag_delay", "0"),
        ("innodb_undo_tablespaces", "0"),
        ("innodb_flush_log_at_trx_commit", "1"),
        ("innodb_adaptive_flushing_lwm", "10.000000"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in overrides {
        variables.insert((*k).to_string(), (*v).to_string());
    }
    ServerInfo {
        label: MARIADB_LABEL.into(),
        version: MARIADB_VERSION.into(),
        version_comment: MARIADB_COMMENT.into(),
        flavor: Flavor::from_variables(&variables),
        variables,
        recovery_log: None,
    }
}

/// `info` as a server of another version says it is (`8.0.36`, `MySQL Community Server -
/// GPL`); the flavour is detected again, `innodb_redo_log_capacity` counting as on a server.
pub fn as_version(mut info: ServerInfo, version: &str, comment: &str) -> ServerInfo {
    info.version = version.into();
    info.version_comment = comment.into();
    info.variables.insert("version".into(), version.into());
    info.variables
        .insert("version_comment".into(), comment.into());
    info.flavor = Flavor::from_variables(&info.variables);
    info
}

/// A REPEATABLE READ transaction, `age_s` old, of `report@localhost` idle in thread `thread_id`
/// having changed nothing: a read view that holds purge back.
pub fn read_view(thread_id: u64, age_s: u64) -> TrxRow {
    TrxRow {
        trx_id: format!("{}", 421_000_000 + thread_id),
        state: "RUNNING".into(),
        age_s,
        isolation: Some("REPEATABLE READ".into()),
        thread_id: Some(thread_id),
        user: Some("report".into()),
        host: Some("localhost".into()),
        command: Some("Sleep".into()),
        query: None,
        rows_modified: Some(0),
    }
}

/// `s` as an account without PROCESS reads it on MariaDB: INNODB_METRICS, INNODB_TRX, SHOW
/// ENGINE INNODB STATUS and the undo residency scan (INNODB_BUFFER_PAGE) are all refused
/// with the server's "Access denied" — a real server never denies one and grants another.
pub fn without_process(s: &mut Sample) {
    s.metrics.clear();
    s.trx.clear();
    s.trx_open = None;
    s.trx_rw = None;
    s.innodb_status = None;
    s.undo_scan = None;
    for source in [
        SourceKind::InnodbMetrics,
        SourceKind::InnodbTrx,
        SourceKind::InnodbStatus,
        SourceKind::UndoScan,
    ] {
        s.unavailable.retain(|u| u.source != source);
        s.unavailable.push(Unavailable {
            source,
            privilege: Some("PROCESS".into()),
            error: "Access denied; you need (at least one of) the PROCESS privilege(s) for \
                    this operation"
                .into(),
        });
    }
}
