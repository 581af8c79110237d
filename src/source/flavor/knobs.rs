//! What the purge and dirty-page knobs do on this flavour (the DML delay of
//! `innodb_max_purge_lag`, MariaDB's `lwm = 0`), and how they can be changed: dynamic or
//! not, ranges where the server has no SYSTEM_VARIABLES table, privileges, and keeping a
//! change across restarts.

use super::{Flavor, FlavorKind};

/// What a version table says about a knob where the server has no
/// `information_schema.SYSTEM_VARIABLES` to ask (MySQL, Percona).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnobSpec {
    pub dynamic: bool,
    pub min: u64,
    pub max: u64,
}

impl Flavor {
    /// MariaDB's `innodb_max_dirty_pages_pct_lwm = 0` means "use the max".
    pub fn effective_dirty_lwm(&self, lwm: f64, max: f64) -> f64 {
        if self.is_mariadb() && lwm == 0.0 {
            max
        } else {
            lwm
        }
    }

    /// Whether `innodb_max_purge_lag` delays DML even while a read view stops purge.
    /// MySQL (5.6–8.x) does; MariaDB 10.11 was measured not to (METRICS.md).
    pub fn purge_lag_delays_while_blocked(&self) -> bool {
        !self.is_mariadb()
    }

    /// The delay InnoDB computes per DML row (`trx_purge_dml_delay`), in µs.
    pub fn dml_delay_us(&self, history: u64, max_purge_lag: u64, max_delay_us: u64) -> u64 {
        if max_purge_lag == 0 || history <= max_purge_lag {
            return 0;
        }
        let ratio = history as f64 / max_purge_lag as f64;
        let delay = ((ratio - 0.5) * 10_000.0).max(0.0) as u64;
        if max_delay_us > 0 {
            delay.min(max_delay_us)
        } else {
            delay
        }
    }

    /// Whether `innodb_purge_threads` can be changed without a restart (METRICS.md knob table:
    /// read-only on MySQL 5.7 / 8.x, dynamic on MariaDB 10.11+).
    pub fn purge_threads_dynamic(&self) -> bool {
        self.is_mariadb() && (self.major, self.minor) >= (10, 11)
    }

    /// MariaDB (≥ 10.1) describes every variable in `information_schema.SYSTEM_VARIABLES`
    /// (`READ_ONLY`, `NUMERIC_MIN_VALUE`, `NUMERIC_MAX_VALUE`): ask it rather than a table.
    pub fn has_system_variables_table(&self) -> bool {
        self.is_mariadb() && (self.major, self.minor) >= (10, 1)
    }

    /// The version table for the purge knobs on MySQL / Percona (METRICS.md "Runtime knobs";
    /// the MySQL manual's ranges). `None` for MariaDB (ask SYSTEM_VARIABLES) and unknown names.
    pub fn knob_spec(&self, variable: &str) -> Option<KnobSpec> {
        if self.is_mariadb() {
            return None;
        }
        let spec = |dynamic, min, max| Some(KnobSpec { dynamic, min, max });
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

    #[test]
    fn dml_delay_formula() {
        let f = Flavor::detect("5.7.44", "MySQL", false);
        assert_eq!(f.dml_delay_us(1000, 0, 0), 0);
        assert_eq!(f.dml_delay_us(1000, 1000, 0), 0);
        // ratio 2 → (2 − 0.5)·10000 = 15000, capped at 2000
        assert_eq!(f.dml_delay_us(2000, 1000, 2000), 2000);
        assert_eq!(f.dml_delay_us(2000, 1000, 0), 15000);
    }
}
