//! MySQL 5.7 / 8.0 / 8.0.30+ / 8.4 · Percona · MariaDB: which SQL to run, which redo formulas
//! apply and what the variables do. This directory is the ONLY place that knows how servers differ;
//! everything else asks the [`Flavor`] it was handed. Here: what the server is (detection);
//! `sql` what to ask it, `redo` its redo capacity and flush points (`redo80`: MySQL
//! 8.0.0–8.0.29 by release), `variables` what its purge and dirty-page settings do and how they
//! can be changed; `words` what the redo points are called;
//! `flushing` what the page cleaner does for redo at an age (`innodb_adaptive_flushing[_lwm]`);
//! `recovery` how fast it recovers from a crash when its own error log cannot say.
//! `rseg` how many rollback segments writers share, how to get more, and the latches they
//! queue on.

mod flushing;
mod recovery;
mod redo;
mod redo80;
mod rseg;
mod sql;
mod variables;
mod words;

use serde::{Deserialize, Serialize};

pub use flushing::{
    DEFAULT_ADAPTIVE_FLUSHING_LWM_PCT, FlushRegime, RegimeAge, RegimeAges, RegimeLines,
};
pub use recovery::{
    ERROR_LOG_FILE_SQL, ERROR_LOG_TABLE_SQL, MARIADB_105_RECOVERY, MYSQL_56_RECOVERY,
    MYSQL_57_RECOVERY, MYSQL_80_RECOVERY, RecoveryDefault,
};
pub use redo::{
    RedoPoints, mariadb_points, mysql_57_max_checkpoint_age, mysql_57_points, mysql_8030_points,
    mysql_8030_points_with,
};
pub use redo80::{
    MYSQL_80_ALIGNED, MYSQL_80_NEW_MARGINS, MYSQL_80_NOT_READ, Mysql80Redo, mysql_80_points,
    mysql_80_points_with, mysql_8011_points_with, mysql_8013_points_with,
};
pub use rseg::{MAX_ROLLBACK_SEGMENTS, RsegLayout, RsegWayOut, SeisLatch, instrument_key};
pub use sql::{
    METRICS, MONITOR_GROUPS, OLDEST_PAGE_METRICS, READ_ONLY_PROBED, RSEG_METRICS, SESSION_SUMS,
    STATUS, VARIABLES, read_only_key, variables_sql,
};
pub use variables::{DmlDelayRule, TrxNumbers, VariableSpec};
pub use words::PointWords;

/// What a flavour's rules read of a server's settings: its global variables by name.
/// `sample::ServerInfo` implements it; a trait, so this room stays below `sample` (whose
/// `ServerInfo` holds a [`Flavor`]) and the two do not import each other.
pub trait Variables {
    fn var(&self, name: &str) -> Option<&str>;

    /// A numeric variable; `innodb_max_dirty_pages_pct` style decimals are accepted.
    fn var_f64(&self, name: &str) -> Option<f64> {
        self.var(name).and_then(|v| v.trim().parse::<f64>().ok())
    }

    fn var_u64(&self, name: &str) -> Option<u64> {
        self.var(name).and_then(|v| v.trim().parse::<u64>().ok())
    }
}

/// What a flavour's rules read of one sample: status counters, InnoDB metrics and the LSN
/// pair of SHOW ENGINE INNODB STATUS. `sample::Sample` implements it (see [`Variables`]).
pub trait Readings {
    fn status(&self, name: &str) -> Option<u64>;
    /// An enabled `INNODB_METRICS` counter.
    fn metric(&self, name: &str) -> Option<i64>;
    /// `Log sequence number` and `Last checkpoint at` from SHOW ENGINE INNODB STATUS.
    fn innodb_status_lsns(&self) -> Option<(u64, u64)>;
}

impl Variables for std::collections::BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<&str> {
        self.get(name).map(String::as_str)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlavorKind {
    Mysql,
    Mariadb,
    Percona,
}

impl FlavorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FlavorKind::Mysql => "mysql",
            FlavorKind::Mariadb => "mariadb",
            FlavorKind::Percona => "percona",
        }
    }

    /// The product as a DBA names it in a header: `MariaDB`, `MySQL`, `Percona`.
    pub fn product(self) -> &'static str {
        match self {
            FlavorKind::Mysql => "MySQL",
            FlavorKind::Mariadb => "MariaDB",
            FlavorKind::Percona => "Percona",
        }
    }
}

/// Which redo-capacity arithmetic the server uses (`log_calc_max_ages` and successors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedoModel {
    /// MySQL/Percona ≤ 5.7: N files of `innodb_log_file_size`.
    Mysql57,
    /// MySQL/Percona 8.0.0–8.0.29 (three arithmetics by release: 8.0.11, 8.0.13–8.0.17,
    /// 8.0.18–8.0.29, [`Flavor::mysql_80_redo`]).
    Mysql80,
    /// MySQL/Percona ≥ 8.0.30 and 8.4+: `innodb_redo_log_capacity`.
    Mysql8030,
    /// MariaDB ≥ 10.5.7 (MDEV-23855): one `ib_logfile0`; no separate sync point.
    Mariadb,
    /// MariaDB 10.2–10.5.6: `log_set_capacity`, the MySQL 5.7 arithmetic with a real sync
    /// point (`innodb_log_files_in_group` files up to 10.4, one file in 10.5).
    MariadbLegacy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flavor {
    pub kind: FlavorKind,
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    pub redo: RedoModel,
}

/// `10.11.19-MariaDB-0+deb12u1` → (10, 11, 19).
pub fn parse_version(version: &str) -> (u32, u32, u32) {
    let mut parts = version
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u32>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

impl Flavor {
    /// Detect once per connection. `has_redo_log_capacity`: the variable exists (MySQL ≥ 8.0.30
    /// is recognised by that, not by parsing versions).
    pub fn detect(version: &str, version_comment: &str, has_redo_log_capacity: bool) -> Flavor {
        let (major, minor, patch) = parse_version(version);
        let kind = if version.contains("MariaDB") || version_comment.contains("MariaDB") {
            FlavorKind::Mariadb
        } else if version_comment.contains("Percona") {
            FlavorKind::Percona
        } else {
            FlavorKind::Mysql
        };
        let redo = match kind {
            FlavorKind::Mariadb if (major, minor, patch) < (10, 5, 7) => RedoModel::MariadbLegacy,
            FlavorKind::Mariadb => RedoModel::Mariadb,
            _ if has_redo_log_capacity => RedoModel::Mysql8030,
            _ if major >= 8 => RedoModel::Mysql80,
            _ => RedoModel::Mysql57,
        };
        Flavor {
            kind,
            major,
            minor,
            patch,
            redo,
        }
    }

    /// Detect from the server's variables (`version`, `version_comment`, and whether
    /// `innodb_redo_log_capacity` exists).
    pub fn from_variables(vars: &std::collections::BTreeMap<String, String>) -> Flavor {
        let get = |k: &str| vars.get(k).map(String::as_str).unwrap_or_default();
        Flavor::detect(
            get("version"),
            get("version_comment"),
            vars.contains_key("innodb_redo_log_capacity"),
        )
    }

    pub fn is_mariadb(&self) -> bool {
        self.kind == FlavorKind::Mariadb
    }

    /// "MariaDB 10.11.19", "MySQL 8.0.36", "Percona Server 8.0.32": for messages.
    pub fn display_name(&self) -> String {
        let name = match self.kind {
            FlavorKind::Mysql => "MySQL",
            FlavorKind::Mariadb => "MariaDB",
            FlavorKind::Percona => "Percona Server",
        };
        format!("{name} {}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let m = Flavor::detect("10.11.19-MariaDB-0+deb12u1", "Debian 12", false);
        assert_eq!(
            (m.kind, m.redo, m.major, m.minor),
            (FlavorKind::Mariadb, RedoModel::Mariadb, 10, 11)
        );
        let p = Flavor::detect("8.0.32-24", "Percona Server (GPL), Release 24", true);
        assert_eq!(
            (p.kind, p.redo),
            (FlavorKind::Percona, RedoModel::Mysql8030)
        );
        let o = Flavor::detect("8.0.28", "MySQL Community Server - GPL", false);
        assert_eq!((o.kind, o.redo), (FlavorKind::Mysql, RedoModel::Mysql80));
        let f = Flavor::detect("5.7.44-log", "MySQL Community Server (GPL)", false);
        assert_eq!(f.redo, RedoModel::Mysql57);
        let n = Flavor::detect("8.4.3", "MySQL Community Server - GPL", true);
        assert_eq!(n.redo, RedoModel::Mysql8030);
    }
}
