//! What to ask the server, by name: the variables, status counters and INNODB_METRICS
//! counters the figures need (asking by name is several times cheaper than reading all), and
//! the statements that read them on this flavour.

use super::{Flavor, FlavorKind, RedoModel};

/// Variables read at connect and re-read on a slow cadence. Only these, by name: reading all
/// of SHOW GLOBAL VARIABLES costs ~13 ms of server time.
pub const VARIABLES: &[&str] = &[
    "version",
    "version_comment",
    "hostname",
    "port",
    "innodb_page_size",
    "innodb_log_file_size",
    "innodb_log_files_in_group",
    "innodb_redo_log_capacity",
    "innodb_log_buffer_size",
    "innodb_thread_concurrency",
    "innodb_buffer_pool_size",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_max_dirty_pages_pct",
    "innodb_max_dirty_pages_pct_lwm",
    "innodb_purge_threads",
    "innodb_purge_batch_size",
    "innodb_max_purge_lag",
    "innodb_max_purge_lag_delay",
    "innodb_undo_tablespaces",
    "innodb_rollback_segments",
    "innodb_undo_logs",
    "innodb_flush_log_at_trx_commit",
    "innodb_adaptive_flushing",
    "innodb_adaptive_flushing_lwm",
    "performance_schema",
];

/// Variables whose `READ_ONLY` the poller asks `information_schema.SYSTEM_VARIABLES` for
/// where the server has that table (MariaDB), instead of trusting a version table. Stored in
/// the server's variables as `<name>.read_only` ("YES" / "NO").
pub const READ_ONLY_PROBED: &[&str] = &["innodb_purge_threads"];

/// The key under which [`READ_ONLY_PROBED`] answers are kept among the variables.
pub fn read_only_key(variable: &str) -> String {
    format!("{variable}.read_only")
}

/// SHOW GLOBAL STATUS names wanted every tick (asked for by name: ~1.7 ms vs ~8 ms for all).
pub const STATUS: &[&str] = &[
    "Uptime",
    "Innodb_lsn_current",
    "Innodb_lsn_last_checkpoint",
    "Innodb_checkpoint_age",
    "Innodb_checkpoint_max_age",
    "Innodb_redo_log_current_lsn",
    "Innodb_redo_log_checkpoint_lsn",
    "Innodb_redo_log_capacity_resized",
    "Innodb_os_log_written",
    "Innodb_history_list_length",
    "Innodb_buffer_pool_pages_flushed",
    "Innodb_buffer_pool_pages_LRU_flushed",
    "Innodb_buffer_pool_pages_dirty",
    "Innodb_buffer_pool_pages_data",
    "Innodb_buffer_pool_pages_free",
    "Innodb_buffer_pool_pages_total",
    "Innodb_buffer_pool_bytes_dirty",
    "Innodb_buffer_pool_reads",
    "Innodb_max_trx_id",
    "Innodb_purge_trx_id",
    "Innodb_undo_tablespaces_active",
    "Handler_update",
    "Handler_delete",
];

/// INNODB_METRICS counters the panels use. Most are off by default.
pub const METRICS: &[&str] = &[
    "trx_rseg_history_len",
    "trx_rseg_current_size",
    "purge_del_mark_records",
    "purge_upd_exist_or_extern_records",
    "purge_undo_log_pages",
    "purge_invoked",
    "purge_dml_delay_usec",
    "purge_stop_count",
    "purge_resume_count",
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_sync_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_neighbor_total_pages",
    "buffer_LRU_batch_flush_total_pages",
    "buffer_page_read_undo_log",
    "log_lsn_current",
    "log_lsn_last_checkpoint",
    "log_max_modified_age_async",
    "log_max_modified_age_sync",
];

/// INNODB_METRICS counters read where the server has them switched on, never switched on by
/// innodebt nor listed as off: the undo log slots in use and cached over every rollback
/// segment (`srv0mon.cc MONITOR_NUM_UNDO_SLOT_USED` / `_CACHED`; on MariaDB 10.11 `cached`
/// counts by default, `used` does not).
pub const RSEG_METRICS: &[&str] = &["trx_undo_slots_used", "trx_undo_slots_cached"];

/// INNODB_METRICS counters of the oldest dirty page's modification, read where the server has
/// them switched on (module_log) and never listed as off: what the flush regime is judged on
/// ([`Flavor::oldest_page_metric`] says which this server has; SEIS `Pages flushed up to` is
/// the fallback).
pub const OLDEST_PAGE_METRICS: &[&str] =
    &["log_lsn_buf_pool_oldest", "log_lsn_buf_pool_oldest_approx"];

/// The `innodb_monitor_enable` names that switch on what [`METRICS`] needs.
pub const MONITOR_GROUPS: &[&str] = &[
    "module_buffer",
    "module_purge",
    "module_log",
    "trx_rseg_current_size",
    "module_buffer_page",
];

/// The oldest transactions, INNODB_TRX alone (joining the processlist built every session
/// on every tick: 22 ms at 1,500 sessions, 279 ms at 5,000 on MariaDB 10.11). Alone it grows
/// with open transactions, not sessions, whatever the columns and the LIMIT (the server
/// copies every transaction before sorting): with 500 open, 0.60 ms for `COUNT(*)`, 0.66 ms
/// for these columns, 0.85 ms with the statement text (`trx_query`; even `trx_query IS NOT
/// NULL` costs as much) — so the text is left out, and the blocker's statement comes from
/// its session, looked up by id ([`Flavor::session_sql`]). The last column counts the open
/// transactions (`COUNT(*) OVER ()`, +0.17 ms at 500), which sets how often this is read
/// (`innodebt_poller::oldest`), and the next the read-write ones — on MariaDB ≥ 10.6.16 one of them
/// keeps purge from freeing any history (`trx0purge.cc free_history_rseg`). MariaDB gives a
/// read-only transaction the id 0. Our own session is left out.
const TRX_SQL: &str = "SELECT CAST(t.trx_id AS CHAR), t.trx_state, \
     GREATEST(0, TIMESTAMPDIFF(SECOND, t.trx_started, NOW())), t.trx_isolation_level, \
     t.trx_mysql_thread_id, COUNT(*) OVER (), SUM(t.trx_id <> 0) OVER () \
     FROM information_schema.INNODB_TRX t \
     WHERE t.trx_mysql_thread_id <> CONNECTION_ID() \
     ORDER BY t.trx_started, t.trx_mysql_thread_id LIMIT 5";

/// [`TRX_SQL`] for MySQL and Percona 8.0+: a read-only transaction shows a made-up id at or
/// above 2^48 (`trx0trx.h trx_get_id_for_print`: the trx's address | `max_trx_id + 1`).
const TRX_SQL_MYSQL: &str = "SELECT CAST(t.trx_id AS CHAR), t.trx_state, \
     GREATEST(0, TIMESTAMPDIFF(SECOND, t.trx_started, NOW())), t.trx_isolation_level, \
     t.trx_mysql_thread_id, COUNT(*) OVER (), SUM(t.trx_id < 281474976710656) OVER () \
     FROM information_schema.INNODB_TRX t \
     WHERE t.trx_mysql_thread_id <> CONNECTION_ID() \
     ORDER BY t.trx_started, t.trx_mysql_thread_id LIMIT 5";

/// [`TRX_SQL`] for servers without window functions (MySQL < 8.0, MariaDB < 10.2): no count;
/// its round trip sets the cadence instead.
const TRX_SQL_UNCOUNTED: &str = "SELECT CAST(t.trx_id AS CHAR), t.trx_state, \
     GREATEST(0, TIMESTAMPDIFF(SECOND, t.trx_started, NOW())), t.trx_isolation_level, \
     t.trx_mysql_thread_id \
     FROM information_schema.INNODB_TRX t \
     WHERE t.trx_mysql_thread_id <> CONNECTION_ID() \
     ORDER BY t.trx_started, t.trx_mysql_thread_id LIMIT 5";

/// The status counters that sum every session's status (MariaDB's SHOW STATUS computes them
/// by walking every connection: 3.2 ms at 5,000 sessions for `Handler_update` alone), read on
/// the variables' cadence instead of every tick; `Uptime` rides along.
pub const SESSION_SUMS: &[&str] = &["Uptime", "Handler_update", "Handler_delete"];

const UNDO_SCAN_SQL: &str = "SELECT COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE_LRU \
     WHERE PAGE_TYPE = 'UNDO_LOG'";

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The variables by name (read before the flavour is known).
pub fn variables_sql() -> String {
    format!(
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ({})",
        quoted_list(VARIABLES)
    )
}

impl Flavor {
    pub fn variables_sql(&self) -> String {
        variables_sql()
    }

    /// The per-tick status counters. MariaDB prunes SHOW STATUS by name only for `LIKE`: any
    /// `WHERE` computes every variable first, and the per-session ones sum every connection
    /// (0.35 ms at 10 sessions, 11.6 ms at 5,000 for our 22 names). `LIKE 'Innodb\_%'` reads
    /// only InnoDB's global counters and stays flat (0.23–0.27 ms at 10 and 5,000); the poller
    /// keeps the names in [`STATUS`]. MySQL and Percona keep the list by name (not measured
    /// here: no such server in the lab).
    pub fn status_sql(&self) -> String {
        if self.is_mariadb() {
            "SHOW GLOBAL STATUS LIKE 'Innodb\\_%'".to_string()
        } else {
            format!(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ({})",
                quoted_list(STATUS)
            )
        }
    }

    /// The per-session sums ([`SESSION_SUMS`]) on their slower cadence, where the per-tick
    /// statement leaves them out (MariaDB).
    pub fn session_sums_sql(&self) -> Option<String> {
        self.is_mariadb().then(|| {
            format!(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ({})",
                quoted_list(SESSION_SUMS)
            )
        })
    }

    /// One session by id: user, host, command, statement. performance_schema.threads when it
    /// is on (0.08 ms at 10 sessions, 1.3–1.7 ms at 5,000 on MariaDB 10.11, which has no index
    /// on the id), else the processlist (0.24 → 11.7 ms). Asked only when the purge blocker
    /// changes, then on a slow cadence (`innodebt_poller::sessions`).
    pub fn session_sql(&self, thread_id: u64, performance_schema: bool) -> String {
        if performance_schema {
            format!(
                "SELECT PROCESSLIST_USER, PROCESSLIST_HOST, PROCESSLIST_COMMAND, \
                 LEFT(PROCESSLIST_INFO, 1000) FROM performance_schema.threads \
                 WHERE PROCESSLIST_ID = {thread_id}"
            )
        } else {
            format!(
                "SELECT USER, HOST, COMMAND, LEFT(INFO, 1000) FROM information_schema.PROCESSLIST \
                 WHERE ID = {thread_id}"
            )
        }
    }

    /// MariaDB ≥ 10.5 renamed the column to `ENABLED` (1/0); MySQL keeps `STATUS`.
    pub fn metrics_sql(&self) -> String {
        let enabled = if self.is_mariadb() && (self.major, self.minor) >= (10, 5) {
            "ENABLED = 1"
        } else {
            "STATUS = 'enabled'"
        };
        format!(
            "SELECT NAME, COUNT, {enabled} FROM information_schema.INNODB_METRICS WHERE NAME IN ({},{},{})",
            quoted_list(METRICS),
            quoted_list(RSEG_METRICS),
            quoted_list(OLDEST_PAGE_METRICS)
        )
    }

    /// `VARIABLE_NAME, READ_ONLY` of [`READ_ONLY_PROBED`], where the server describes its
    /// variables in `information_schema.SYSTEM_VARIABLES` (MariaDB ≥ 10.1).
    pub fn read_only_sql(&self) -> Option<String> {
        self.has_system_variables_table().then(|| {
            let upper: Vec<String> = READ_ONLY_PROBED
                .iter()
                .map(|v| v.to_ascii_uppercase())
                .collect();
            let names: Vec<&str> = upper.iter().map(String::as_str).collect();
            format!(
                "SELECT VARIABLE_NAME, READ_ONLY FROM information_schema.SYSTEM_VARIABLES \
                 WHERE VARIABLE_NAME IN ({})",
                quoted_list(&names)
            )
        })
    }

    /// Whether [`Flavor::trx_sql`] counts the open transactions (its sixth column): where the
    /// server has window functions (MariaDB ≥ 10.2, MySQL ≥ 8.0).
    pub fn trx_counted(&self) -> bool {
        if self.is_mariadb() {
            (self.major, self.minor) >= (10, 2)
        } else {
            self.major >= 8
        }
    }

    /// The oldest transactions, with the number open where the server can count them.
    pub fn trx_sql(&self) -> &'static str {
        match self.kind {
            _ if !self.trx_counted() => TRX_SQL_UNCOUNTED,
            FlavorKind::Mariadb => TRX_SQL,
            _ => TRX_SQL_MYSQL,
        }
    }

    /// Whether an INNODB_TRX `trx_id` is a read-write transaction's: MariaDB shows read-only
    /// ones as 0, MySQL as a made-up id at or above 2^48 (see [`TRX_SQL_MYSQL`]).
    pub fn is_read_write_trx_id(&self, trx_id: &str) -> bool {
        match trx_id.trim().parse::<u64>() {
            Ok(0) | Err(_) => false,
            Ok(id) => self.kind == FlavorKind::Mariadb || id < 1 << 48,
        }
    }

    pub fn undo_scan_sql(&self) -> &'static str {
        UNDO_SCAN_SQL
    }

    /// Whether SHOW ENGINE INNODB STATUS is needed every slow tick for LSN/checkpoint: only
    /// where neither status variables nor metrics carry them. It is always taken on its own
    /// slow cadence for the purge state, which nothing cheaper exposes.
    pub fn lsn_needs_innodb_status(&self) -> bool {
        matches!(self.redo, RedoModel::Mysql57 | RedoModel::Mysql80)
            && self.kind == FlavorKind::Mysql
    }

    /// A predicate on INNODB_METRICS that is true for a counter that is counting (column
    /// `ENABLED` on MariaDB ≥ 10.5, `STATUS` elsewhere — as in [`Flavor::metrics_sql`]).
    pub fn metric_enabled_predicate(&self) -> &'static str {
        if self.is_mariadb() && (self.major, self.minor) >= (10, 5) {
            "ENABLED = 1"
        } else {
            "STATUS = 'enabled'"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mariadb_status_per_tick_reads_only_innodbs_global_counters() {
        let m = Flavor::detect("10.11.19-MariaDB", "", false);
        assert_eq!(m.status_sql(), "SHOW GLOBAL STATUS LIKE 'Innodb\\_%'");
        let sums = m
            .session_sums_sql()
            .expect("MariaDB reads the session sums apart");
        assert!(sums.contains("'Handler_update'") && sums.contains("'Uptime'"));
        // Every per-tick name but the session sums starts with Innodb_ (the LIKE covers them).
        for name in STATUS {
            assert!(
                name.starts_with("Innodb_") || SESSION_SUMS.contains(name),
                "{name} would be lost on MariaDB"
            );
        }
        let o = Flavor::detect("8.0.36", "MySQL Community Server - GPL", true);
        assert!(o.status_sql().contains("'Handler_update'"));
        assert_eq!(o.session_sums_sql(), None);
        assert!(!m.trx_sql().contains("PROCESSLIST"), "no join per tick");
        assert!(
            !m.trx_sql().contains("trx_query"),
            "no statement text from INNODB_TRX"
        );
        assert!(m.trx_sql().contains("COUNT(*) OVER ()"));
        assert!(o.trx_sql().contains("COUNT(*) OVER ()"));
        let old = Flavor::detect("5.7.44", "MySQL Community Server - GPL", true);
        assert!(
            !old.trx_sql().contains("OVER"),
            "no window functions before 8.0"
        );
        assert!(
            !Flavor::detect("10.1.48-MariaDB", "", false)
                .trx_sql()
                .contains("OVER")
        );
        assert!(
            m.session_sql(42, true)
                .contains("performance_schema.threads")
        );
        assert!(m.session_sql(42, false).ends_with("WHERE ID = 42"));
    }

    #[test]
    fn metrics_column_per_flavour() {
        let m = Flavor::detect("10.11.19-MariaDB", "", false);
        assert!(m.metrics_sql().contains("ENABLED = 1"));
        let o = Flavor::detect("8.0.36", "MySQL Community Server - GPL", true);
        assert!(o.metrics_sql().contains("STATUS = 'enabled'"));
    }
}
