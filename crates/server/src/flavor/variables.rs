//! What the purge and dirty-page variables do on this flavour (the DML delay of
//! `innodb_max_purge_lag`, MariaDB's `lwm = 0`), and how they can be changed: dynamic or
//! not, ranges where the server has no SYSTEM_VARIABLES table, privileges, and keeping a
//! change across restarts.

use super::{Flavor, FlavorKind};

/// The `trx_purge_dml_delay` variants, by flavour and release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmlDelayRule {
    /// MySQL 5.x and 8.0.0–8.0.13, MariaDB before MDEV-29401: (ratio − 0.5) × 10000 µs.
    Classic,
    /// MySQL / Percona ≥ 8.0.14: (ratio − 0.9995) × 10000 µs, only while history exceeds
    /// `innodb_purge_threads` × `innodb_purge_batch_size`.
    Mysql8014,
    /// MariaDB with MDEV-29401: 10000 × history / lag − 5000 µs, set only after a purge
    /// batch that handled undo pages (0 while a read view blocks purge).
    MariadbAfterProgress,
}

/// Transaction numbers one committed read-write transaction takes from the trx id counter,
/// and whether an INSERT-only one leaves history ([`Flavor::trx_numbers_per_commit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrxNumbers {
    /// A transaction that only inserted.
    pub insert_only: u64,
    /// One that updated or deleted: its id and its commit number.
    pub with_update: u64,
    /// Whether an INSERT-only transaction adds an undo log to history (purge has work for it).
    pub insert_only_in_history: bool,
}

/// What a version table says about a variable where the server has no
/// `information_schema.SYSTEM_VARIABLES` to ask (MySQL, Percona).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariableSpec {
    pub dynamic: bool,
    pub min: u64,
    pub max: u64,
}

impl Flavor {
    /// The low-water mark of dirty-page flushing, `None` when it is off: `lwm = 0` means "no
    /// low-water mark, nothing until the max" on every flavour (MySQL `buf0flu.cc
    /// af_get_pct_for_dirty`, MariaDB `buf0flu.cc af_get_pct_for_dirty`: both test
    /// `srv_max_dirty_pages_pct_lwm == 0` first), and MySQL 5.7's default lwm is 0.
    pub fn effective_dirty_lwm(&self, lwm: f64) -> Option<f64> {
        (lwm > 0.0).then_some(lwm)
    }

    /// Which `trx_purge_dml_delay` arithmetic this server runs (see [`DmlDelayRule`]).
    pub fn dml_delay_rule(&self) -> DmlDelayRule {
        let v = (self.major, self.minor, self.patch);
        match self.kind {
            FlavorKind::Mariadb if self.mariadb_delays_only_after_progress() => {
                DmlDelayRule::MariadbAfterProgress
            }
            FlavorKind::Mariadb => DmlDelayRule::Classic,
            // The 8.0 manual (innodb-purge-configuration): "As of MySQL 8.0.14, the purge lag
            // delay is calculated by the following revised formula … 0.9995"; the same
            // function carries the `history > threads × batch` gate in the 8.4 tree.
            _ if v >= (8, 0, 14) => DmlDelayRule::Mysql8014,
            _ => DmlDelayRule::Classic,
        }
    }

    /// MariaDB computes the delay inside `trx_purge()` and sets it only after a batch that
    /// handled undo pages (MDEV-29401, commit 4a668c1892, first in 10.6.13 / 10.8.8 / 10.9.6 /
    /// 10.10.4 / 10.11.3 / 11.0.2 of May 2023; 10.5 and 10.7 keep `trx_purge_dml_delay`).
    fn mariadb_delays_only_after_progress(&self) -> bool {
        let (ma, mi, pa) = (self.major, self.minor, self.patch);
        match (ma, mi) {
            (10, 6) => pa >= 13,
            (10, 8) => pa >= 8,
            (10, 9) => pa >= 6,
            (10, 10) => pa >= 4,
            (10, 11) => pa >= 3,
            (11, 0) => pa >= 2,
            _ => (ma, mi) >= (11, 1),
        }
    }

    /// Whether `innodb_max_purge_lag` delays DML even while a read view stops purge. MySQL
    /// (5.6–8.x) and MariaDB before MDEV-29401 compute it at the start of every purge batch
    /// whatever the batch achieves; newer MariaDB sets it to 0 when a batch handled no
    /// pages (measured on 10.11: armed, not applied, while a view blocks purge).
    pub fn purge_lag_delays_while_blocked(&self) -> bool {
        self.dml_delay_rule() != DmlDelayRule::MariadbAfterProgress
    }

    /// Whether SHOW ENGINE INNODB STATUS prints "Trx read view will not see …" under each
    /// transaction that holds a read view, so that a listed transaction without the line
    /// holds none. Seen on MariaDB 10.11.19 (an open INSERT listed without it, an open SELECT
    /// with it). MySQL 8.4 no longer prints the line for any transaction: there, and where
    /// unverified, its absence proves nothing.
    pub fn seis_lists_read_views(&self) -> bool {
        self.kind == FlavorKind::Mariadb
    }

    /// Whether an open read-write transaction keeps purge from freeing the history it has
    /// processed in every rollback segment: MariaDB frees a segment's history only once the
    /// purge view sees the segment's last writer and no transaction references it
    /// (`trx0purge.cc purge_sys_t::iterator::free_history_rseg`, MDEV-32050; the
    /// `history_held_by_open_writes` verdict), so segments written since the oldest open
    /// read-write transaction began stay — soon all of them. MDEV-32050's fix versions:
    /// 10.6.16, 10.10.7, 10.11.6, 11.0.4, 11.1.3, 11.2.2 (10.7–10.9 had ended). Before it,
    /// MariaDB's `trx_purge_truncate_history` freed a segment's history up to the purged number
    /// only if no transaction referenced the segment and purge had passed its last writer
    /// (`!rseg.is_referenced() && rseg.needs_purge <= head.trx_no`, MariaDB 11.0.2
    /// `trx0purge.cc`; `needs_purge` is the last writer's id + 1): an open writer held its own
    /// segment's history, and under steady writes the segments written since purge's
    /// position stayed until purge passed them — which the history length barely shows.
    /// MySQL's checks only the purged number (`undo_trx_no >= limit->trx_no`).
    pub fn history_waits_for_open_writes(&self) -> bool {
        if self.kind != FlavorKind::Mariadb {
            return false;
        }
        let p = self.patch;
        match (self.major, self.minor) {
            (10, 6) => p >= 16,
            (10, 10) => p >= 7,
            (10, 11) => p >= 6,
            (11, 0) => p >= 4,
            (11, 1) => p >= 3,
            (11, 2) => p >= 2,
            v => v >= (11, 3),
        }
    }

    /// What one committed read-write transaction takes from the trx id counter SEIS prints,
    /// and whether it leaves history for purge. Ids and commit numbers come from the same
    /// counter on every flavour (mysql-server 8.x `trx0sys.ic trx_sys_allocate_trx_id_or_no`,
    /// behind both `trx_sys_allocate_trx_id` and `trx_sys_allocate_trx_no`; 5.7
    /// `trx_sys_get_new_trx_id` for both; MariaDB `trx0sys.h trx_sys_t::get_new_trx_id` and
    /// `assign_new_trx_no`), but not every transaction takes a commit number:
    /// - MySQL/Percona 5.7 and 8.x (`mysql-server 5.7.30` and `8.0.18`, `trx0trx.cc
    ///   trx_write_serialisation_history`): a commit number only with update undo
    ///   (`trx_serialisation_number_get` under `if (trx->rsegs.m_redo.update_undo …)`; 8.0.31
    ///   `trx_sys_allocate_trx_no` in `trx_add_to_serialisation_list`), and only update undo
    ///   goes to history — insert undo is freed or cached at commit (`trx_undo_insert_cleanup`).
    ///   An INSERT-only transaction takes 1 number and adds nothing to history; one that
    ///   updated or deleted takes 2 and adds an undo log. So does MariaDB before 10.3, which
    ///   still had the insert undo log.
    /// - MariaDB ≥ 10.3 (`MariaDB 10.11.18, trx0trx.cc trx_t::write_serialisation_history`:
    ///   `assign_new_trx_no` for any undo; MDEV-12288 removed the insert undo log): every
    ///   read-write transaction takes 2 and adds its undo log to history. Measured on MariaDB
    ///   10.11.19: 100 autocommit INSERTs moved the counter 202.
    pub fn trx_numbers_per_commit(&self) -> TrxNumbers {
        if self.is_mariadb() && (self.major, self.minor) >= (10, 3) {
            TrxNumbers {
                insert_only: 2,
                with_update: 2,
                insert_only_in_history: true,
            }
        } else {
            TrxNumbers {
                insert_only: 1,
                with_update: 2,
                insert_only_in_history: false,
            }
        }
    }

    /// This flavour's delay formula in words, for `innodb_max_purge_lag = lag`.
    pub fn dml_delay_formula(&self, lag: u64) -> String {
        match self.dml_delay_rule() {
            DmlDelayRule::Classic => format!("(history/{lag} − 0.5) × 10 ms"),
            DmlDelayRule::Mysql8014 => format!(
                "(history/{lag} − 0.9995) × 10 ms, once history also exceeds \
                 innodb_purge_threads × innodb_purge_batch_size"
            ),
            DmlDelayRule::MariadbAfterProgress => format!(
                "(history/{lag} − 0.5) × 10 ms, set after each purge batch that removed history"
            ),
        }
    }

    /// The delay InnoDB gives each DML row, in µs, by this flavour's own arithmetic:
    /// `history` undo logs against `max_purge_lag`, clamped to `max_delay_us` — so a cap of
    /// 0 means no delay at all, on every flavour (MySQL Bug #72269: `if (delay >
    /// srv_max_purge_lag_delay) delay = srv_max_purge_lag_delay`; MariaDB's `trx_purge()`
    /// skips throttling when `srv_max_purge_lag_delay` is 0). `purge_threads` ×
    /// `purge_batch_size` gate MySQL ≥ 8.0.14; unknown, the gate is taken as passed.
    pub fn dml_delay_us(
        &self,
        history: u64,
        max_purge_lag: u64,
        max_delay_us: u64,
        purge_threads: Option<u64>,
        purge_batch_size: Option<u64>,
    ) -> u64 {
        if max_purge_lag == 0 || max_delay_us == 0 || history <= max_purge_lag {
            return 0;
        }
        let delay = match self.dml_delay_rule() {
            // trx0purge.cc trx_purge_dml_delay (5.x, 8.0.0–8.0.13; MariaDB ≤ 10.5, 10.7):
            // float ratio, (ratio − .5) × 10000.
            DmlDelayRule::Classic => {
                let ratio = history as f32 / max_purge_lag as f32;
                ((f64::from(ratio) - 0.5) * 10_000.0) as u64
            }
            // trx0purge.cc trx_purge_dml_delay (8.0.14+, 8.4): only while
            // history > srv_n_purge_threads × srv_purge_batch_size; (ratio − 0.9995) × 10000.
            DmlDelayRule::Mysql8014 => {
                let gate = purge_threads
                    .unwrap_or(0)
                    .saturating_mul(purge_batch_size.unwrap_or(0));
                if history <= gate {
                    return 0;
                }
                let ratio = history as f32 / max_purge_lag as f32;
                ((f64::from(ratio) - 0.9995) * 10_000.0) as u64
            }
            // trx0purge.cc trx_purge (MariaDB, MDEV-29401): integer
            // 10000 × history / lag − 5000.
            DmlDelayRule::MariadbAfterProgress => {
                (10_000u64.saturating_mul(history) / max_purge_lag).saturating_sub(5_000)
            }
        };
        delay.min(max_delay_us)
    }

    /// Whether `innodb_purge_threads` can be changed without a restart. `read_only` is the
    /// server's own answer, `information_schema.SYSTEM_VARIABLES.READ_ONLY` (MariaDB; "NO" on
    /// 10.11 here), which wins. Without it: read-only on MySQL 5.7 / 8.x
    /// (`PLUGIN_VAR_READONLY`; SET PERSIST_ONLY); on MariaDB read-only through 10.6
    /// (`PLUGIN_VAR_READONLY` in 10.5's `ha_innodb.cc`) and dynamic from 10.7, whose
    /// `innodb_purge_threads` update hook calls `srv0srv.cc srv_update_purge_thread_count`
    /// (HammerDB's MariaDB purge option needs it "in 10.7.1 and above"; that release is
    /// theirs, not read from the server tree's history). MariaDB Enterprise 10.5 and 10.6
    /// have it too; they answer through SYSTEM_VARIABLES like every MariaDB ≥ 10.1.
    pub fn purge_threads_dynamic(&self, read_only: Option<&str>) -> bool {
        match read_only {
            Some(ro) => ro.trim().eq_ignore_ascii_case("NO"),
            None => self.is_mariadb() && (self.major, self.minor) >= (10, 7),
        }
    }

    /// MariaDB (≥ 10.1) describes every variable in `information_schema.SYSTEM_VARIABLES`
    /// (`READ_ONLY`, `NUMERIC_MIN_VALUE`, `NUMERIC_MAX_VALUE`): ask it rather than a table.
    pub fn has_system_variables_table(&self) -> bool {
        self.is_mariadb() && (self.major, self.minor) >= (10, 1)
    }

    /// The version table for the purge variables on MySQL / Percona (`docs/metrics-sources.md`,
    /// "Purge variables": `ha_innodb.cc` and the MySQL manual's ranges). `None` for MariaDB (ask
    /// SYSTEM_VARIABLES) and unknown names.
    pub fn variable_spec(&self, variable: &str) -> Option<VariableSpec> {
        if self.is_mariadb() {
            return None;
        }
        let spec = |dynamic, min, max| Some(VariableSpec { dynamic, min, max });
        match variable {
            "innodb_purge_threads" => spec(false, 1, 32),
            "innodb_max_purge_lag" => spec(true, 0, 4_294_967_295),
            "innodb_max_purge_lag_delay" => spec(true, 0, 10_000_000),
            "innodb_purge_batch_size" => spec(true, 1, 5000),
            _ => None,
        }
    }

    /// MySQL / Percona 8.0+ have `SET PERSIST` and `SET PERSIST_ONLY` (mysqld-auto.cnf).
    pub fn has_set_persist(&self) -> bool {
        !self.is_mariadb() && self.major >= 8
    }

    /// The privilege `SET GLOBAL` needs.
    pub fn set_global_privilege(&self) -> &'static str {
        if self.has_set_persist() {
            "SYSTEM_VARIABLES_ADMIN (or SUPER)"
        } else {
            "SUPER"
        }
    }

    /// The privileges `SET PERSIST_ONLY` of a read-only variable needs (MySQL 8+).
    pub fn persist_only_privilege(&self) -> &'static str {
        "SYSTEM_VARIABLES_ADMIN and PERSIST_RO_VARIABLES_ADMIN"
    }

    /// The privilege `KILL` of another account's session needs (one's own needs none).
    pub fn kill_privilege(&self) -> &'static str {
        match self.kind {
            FlavorKind::Mariadb if (self.major, self.minor) >= (10, 5) => {
                "CONNECTION ADMIN (or SUPER)"
            }
            FlavorKind::Mariadb => "SUPER",
            _ if self.major >= 8 => "CONNECTION_ADMIN (or SUPER)",
            _ => "SUPER",
        }
    }

    /// How to keep a runtime change across restarts on this flavour.
    pub fn keep_after_restart_hint(&self, variable: &str, value: u64) -> String {
        if self.has_set_persist() {
            "SET PERSIST would also write it to mysqld-auto.cnf (offered as the alternative)"
                .to_string()
        } else if self.is_mariadb() {
            format!(
                "MariaDB has no SET PERSIST: add `{variable} = {value}` under [mysqld] in my.cnf to keep it"
            )
        } else {
            format!("add `{variable} = {value}` under [mysqld] in my.cnf to keep it")
        }
    }

    /// How to change a variable the running server will not take.
    pub fn restart_only_hint(&self, variable: &str, value: u64) -> String {
        if self.has_set_persist() {
            format!("SET PERSIST_ONLY {variable} = {value} stores it for the next restart")
        } else if self.is_mariadb() {
            format!("set `{variable} = {value}` under [mysqld] in my.cnf and restart")
        } else {
            format!(
                "set `{variable} = {value}` under [mysqld] in my.cnf and restart \
                 ({} has no SET PERSIST_ONLY)",
                self.display_name()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flavor(version: &str, comment: &str) -> Flavor {
        Flavor::detect(version, comment, false)
    }

    /// MySQL 5.7 `trx0purge.cc trx_purge_dml_delay`: (ratio − .5) × 10000, then
    /// `if (delay > srv_max_purge_lag_delay) delay = srv_max_purge_lag_delay`.
    #[test]
    fn classic_delay_is_clamped_and_a_zero_cap_means_no_delay() {
        let f = flavor("5.7.44", "MySQL");
        assert_eq!(f.dml_delay_rule(), DmlDelayRule::Classic);
        assert_eq!(f.dml_delay_us(1000, 0, 2000, None, None), 0, "lag off");
        assert_eq!(
            f.dml_delay_us(1000, 1000, 2000, None, None),
            0,
            "ratio not > 1"
        );
        // ratio 2 → (2 − 0.5)·10000 = 15000, capped at 2000 / 20000.
        assert_eq!(f.dml_delay_us(2000, 1000, 2000, None, None), 2000);
        assert_eq!(f.dml_delay_us(2000, 1000, 20_000, None, None), 15_000);
        // Bug #72269: a cap of 0 clamps every delay to 0; it is not "no cap".
        assert_eq!(f.dml_delay_us(2000, 1000, 0, None, None), 0);
        assert_eq!(f.dml_delay_us(1_000_000, 1000, 0, None, None), 0);
    }

    /// MySQL ≥ 8.0.14 `trx0purge.cc trx_purge_dml_delay` (8.4 tree): only while
    /// `rseg_history_len > srv_n_purge_threads * srv_purge_batch_size`, then
    /// (ratio − 0.9995) × 10000, clamped to the cap.
    #[test]
    fn mysql_8014_gate_and_formula() {
        let old = flavor("8.0.13", "MySQL Community Server - GPL");
        assert_eq!(old.dml_delay_rule(), DmlDelayRule::Classic);
        let f = flavor("8.4.3", "MySQL Community Server - GPL");
        assert_eq!(f.dml_delay_rule(), DmlDelayRule::Mysql8014);
        let p = flavor("8.0.32-24", "Percona Server (GPL), Release 24");
        assert_eq!(p.dml_delay_rule(), DmlDelayRule::Mysql8014);
        // ratio 2 → (2 − 0.9995)·10000 = 10005 (float arithmetic as the server's).
        assert_eq!(
            f.dml_delay_us(2000, 1000, 50_000, Some(4), Some(300)),
            10_005
        );
        assert_eq!(
            old.dml_delay_us(2000, 1000, 50_000, Some(4), Some(300)),
            15_000
        );
        // History 1,100 is over the lag (1,000) but not over 4 × 300 = 1,200: no delay.
        assert_eq!(f.dml_delay_us(1100, 1000, 50_000, Some(4), Some(300)), 0);
        assert_eq!(
            old.dml_delay_us(1100, 1000, 50_000, Some(4), Some(300)),
            6000
        );
        // Just over the lag and the gate: about the 5 µs minimum of the revised formula
        // (float ratio 1.0001 → 6 µs, as the server computes it).
        assert_eq!(
            f.dml_delay_us(10_001, 10_000, 50_000, Some(4), Some(300)),
            6
        );
        assert_eq!(
            f.dml_delay_us(2000, 1000, 0, Some(4), Some(300)),
            0,
            "cap 0"
        );
    }

    /// MariaDB `trx0purge.cc trx_purge` after MDEV-29401 (10.6.13, 10.11.3, 11.0.2 …):
    /// `delay = n_pages_handled ? srv_max_purge_lag : 0`, then no throttle when
    /// `delay >= history_size` or `srv_max_purge_lag_delay == 0`, else
    /// `std::min(max_delay, 10000 * history_size / delay - 5000)`.
    #[test]
    fn mariadb_after_mdev_29401() {
        for (v, rule) in [
            ("10.5.27-MariaDB", DmlDelayRule::Classic),
            ("10.6.12-MariaDB", DmlDelayRule::Classic),
            ("10.6.13-MariaDB", DmlDelayRule::MariadbAfterProgress),
            ("10.7.8-MariaDB", DmlDelayRule::Classic),
            ("10.11.2-MariaDB", DmlDelayRule::Classic),
            ("10.11.3-MariaDB", DmlDelayRule::MariadbAfterProgress),
            (
                "10.11.19-MariaDB-0+deb12u1",
                DmlDelayRule::MariadbAfterProgress,
            ),
            ("11.0.1-MariaDB", DmlDelayRule::Classic),
            ("11.0.2-MariaDB", DmlDelayRule::MariadbAfterProgress),
            ("11.4.3-MariaDB", DmlDelayRule::MariadbAfterProgress),
        ] {
            let f = flavor(v, "");
            assert_eq!(f.dml_delay_rule(), rule, "{v}");
            assert_eq!(
                f.purge_lag_delays_while_blocked(),
                rule == DmlDelayRule::Classic,
                "{v}"
            );
        }
        let m = flavor("10.11.19-MariaDB-0+deb12u1", "");
        // 10000 × 3001 / 1000 − 5000 = 25010 (integer), capped.
        assert_eq!(
            m.dml_delay_us(3001, 1000, 100_000, Some(4), Some(300)),
            25_010
        );
        assert_eq!(m.dml_delay_us(3001, 1000, 2000, Some(4), Some(300)), 2000);
        assert_eq!(
            m.dml_delay_us(3001, 1000, 0, Some(4), Some(300)),
            0,
            "cap 0"
        );
        assert_eq!(
            m.dml_delay_us(1000, 1000, 2000, None, None),
            0,
            "lag ≥ history"
        );
    }

    /// `trx0trx.cc trx_write_serialisation_history`: mysql-server 5.7.30 and 8.0.18 give a
    /// commit number (and a history entry) only to a transaction with update undo, so an
    /// INSERT-only one takes 1 number; MariaDB 10.11.18 (`trx_t::write_serialisation_history`,
    /// `assign_new_trx_no` for any undo) gives every read-write transaction 2, as MariaDB
    /// before 10.3 (its insert undo log) did not.
    #[test]
    fn trx_numbers_per_commit_follow_the_serialisation() {
        for v in ["5.7.44", "8.0.18", "8.0.36", "8.4.3", "10.2.44-MariaDB"] {
            let n = flavor(v, "").trx_numbers_per_commit();
            assert_eq!(
                (n.insert_only, n.with_update, n.insert_only_in_history),
                (1, 2, false),
                "{v}"
            );
        }
        let p = flavor("8.0.32-24", "Percona Server (GPL), Release 24").trx_numbers_per_commit();
        assert_eq!(p.insert_only, 1);
        for v in ["10.3.39-MariaDB", "10.11.19-MariaDB", "11.4.3-MariaDB"] {
            let n = flavor(v, "").trx_numbers_per_commit();
            assert_eq!(
                (n.insert_only, n.with_update, n.insert_only_in_history),
                (2, 2, true),
                "{v}"
            );
        }
    }

    /// `af_get_pct_for_dirty` (MySQL and MariaDB `buf0flu.cc`): lwm 0 = no low-water mark.
    #[test]
    fn lwm_zero_is_off_on_every_flavour() {
        for v in ["5.7.44", "8.0.36", "10.11.19-MariaDB"] {
            let f = flavor(v, "");
            assert_eq!(f.effective_dirty_lwm(0.0), None, "{v}");
            assert_eq!(f.effective_dirty_lwm(10.0), Some(10.0), "{v}");
        }
    }

    #[test]
    fn purge_threads_dynamic_asks_the_server_first() {
        let m = flavor("10.11.19-MariaDB", "");
        assert!(m.purge_threads_dynamic(Some("NO")));
        assert!(!m.purge_threads_dynamic(Some("YES")));
        // Without SYSTEM_VARIABLES: dynamic on MariaDB from 10.7
        // (`srv_update_purge_thread_count`), read-only in 10.5 / 10.6
        // (`PLUGIN_VAR_READONLY`), never on MySQL.
        assert!(flavor("10.7.1-MariaDB", "").purge_threads_dynamic(None));
        assert!(flavor("11.4.2-MariaDB", "").purge_threads_dynamic(None));
        assert!(!flavor("10.6.18-MariaDB", "").purge_threads_dynamic(None));
        assert!(!flavor("10.5.27-MariaDB", "").purge_threads_dynamic(None));
        assert!(!flavor("10.4.34-MariaDB", "").purge_threads_dynamic(None));
        assert!(!flavor("8.0.36", "MySQL").purge_threads_dynamic(None));
        assert!(
            m.read_only_sql()
                .is_some_and(|q| q.contains("'INNODB_PURGE_THREADS'"))
        );
        assert_eq!(flavor("8.0.36", "MySQL").read_only_sql(), None);
    }
}
