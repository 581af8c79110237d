//! How fast each server recovers from a crash when its own error log cannot say: the default
//! all-in redo rate and the fixed start-up around it, per flavour and version, each from the
//! best evidence there is (cited below; where none could be found, that is said).

use super::{Flavor, FlavorKind};

/// The default recovery model of one server kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecoveryDefault {
    /// Redo applied per second of recovery (parse, read the pages, apply).
    pub rate_bytes_per_s: f64,
    /// Start-up outside redo application (process start, buffer pool, undo, the first query),
    /// added to every estimate.
    pub startup_s: f64,
    /// Where the figure comes from, short, for the DBA.
    pub basis: &'static str,
}

/// MariaDB ≥ 10.5: this project's measured recoveries (BENCHMARKS.md, "Crash-recovery estimate
/// vs. measured recovery" and "Recovery estimated from the server's own error log", MariaDB
/// 10.11.19 on the lab VM, `kill -9` under write load, restart to first query). Ten recoveries
/// of 16.5–48.8 MB at 64M (0.66–1.42 s, load averages 4–16) and two at 256M (65.1 MB → 1.28 s,
/// 195.2 MB → 3.21 s): 0.55 s + redo / 80 MB/s comes within −23 %…+19 % of all twelve (the
/// minimax fit of the 64M ones alone, 0.59 s + redo / 88 MB/s, is within ±21 %). The 1G
/// recoveries ran at 37–45 MB/s under a load average of ~10 on 2 cores; those last long
/// enough for the error log's whole-second timestamps to calibrate, the short ones do not —
/// so the default follows the short ones. The recovery of 10.5 was rewritten (MDEV-12353 redo format, MDEV-21351 memory
/// for recovery), so the 5.x figures below do not apply.
pub const MARIADB_105_RECOVERY: RecoveryDefault = RecoveryDefault {
    rate_bytes_per_s: 80e6,
    startup_s: 0.55,
    basis: "this project's measured MariaDB 10.11 recoveries",
};

/// MySQL 5.7 and the InnoDB of MariaDB before 10.5: MySQL bug #81648 (bugs.mysql.com, V.
/// Tkachenko, 2016, 5.7.12): `kill -9` with 10.5 GB un-checkpointed (LSN 504,334,603,435 →
/// 514,865,113,030), ~20 min in all → 8.8 MB/s. Percona's "What is a big innodb_log_file_size?"
/// (2016-05-31): ~25 GB in 45 min → 9.3 MB/s. The start-up is not in the figures (minutes of
/// recovery hide it): none is added.
pub const MYSQL_57_RECOVERY: RecoveryDefault = RecoveryDefault {
    rate_bytes_per_s: 10.5e9 / 1_200.0,
    startup_s: 0.0,
    basis: "MySQL bug #81648: 10.5 GB in ~20 min on 5.7",
};

/// MySQL 5.6 (and 5.5): bug #81648's 5.6 run of the same 10.5 GB took "about 10 mins" →
/// 17.5 MB/s; Percona's "How long is recovery from 8G innodb_log_file" (2010-12-22, Percona
/// Server 5.5) 7 min 51 s to 14 min 57 s for at most 8 GB → ≤ 8.9–17 MB/s.
pub const MYSQL_56_RECOVERY: RecoveryDefault = RecoveryDefault {
    rate_bytes_per_s: 10.5e9 / 600.0,
    startup_s: 0.0,
    basis: "MySQL bug #81648: 10.5 GB in ~10 min on 5.6",
};

/// MySQL / Percona 8.0 and later: no published crash-recovery time with the redo it applied
/// could be found (searched: the MySQL server team's and Percona's blogs, bugs.mysql.com; the
/// 8.0 write-ups measure parse or apply phases only). Until one is, the 5.7 figure: 8.0 kept
/// 5.7's single-threaded apply (`recv_apply_hashed_log_recs`), and an incident estimate
/// should err long. Calibrate from the server's own log (`performance_schema.error_log`).
pub const MYSQL_80_RECOVERY: RecoveryDefault = RecoveryDefault {
    rate_bytes_per_s: MYSQL_57_RECOVERY.rate_bytes_per_s,
    startup_s: 0.0,
    basis: "no published MySQL 8 figure; MySQL 5.7's (bug #81648)",
};

/// Where the server writes its error log, what tells whether that is on this host, and its pid
/// file (whose time and process time its start).
pub const ERROR_LOG_FILE_SQL: &str = "SELECT @@log_error, @@datadir, @@hostname, @@pid_file";

/// MySQL 8.0.22+'s error log over SQL, oldest first, the time as Unix seconds (the session's
/// time zone cannot shift it). The table keeps the newest entries the server's
/// `performance_schema_error_size` allows (5 MB by default).
pub const ERROR_LOG_TABLE_SQL: &str = "SELECT UNIX_TIMESTAMP(LOGGED), PRIO, ERROR_CODE, \
     SUBSYSTEM, DATA FROM performance_schema.error_log ORDER BY LOGGED";

impl Flavor {
    /// The default recovery model of this server.
    pub fn recovery_default(&self) -> RecoveryDefault {
        let v = (self.major, self.minor);
        match self.kind {
            FlavorKind::Mariadb if v >= (10, 5) => MARIADB_105_RECOVERY,
            FlavorKind::Mariadb => MYSQL_57_RECOVERY,
            _ if self.major >= 8 => MYSQL_80_RECOVERY,
            _ if v >= (5, 7) => MYSQL_57_RECOVERY,
            _ => MYSQL_56_RECOVERY,
        }
    }

    /// "MariaDB 10.11": the series a default rate is for.
    pub fn series(&self) -> String {
        format!("{} {}.{}", self.kind.product(), self.major, self.minor)
    }

    /// Whether the server can serve its own error log over SQL
    /// (`performance_schema.error_log`, MySQL 8.0.22+).
    pub fn has_error_log_table(&self) -> bool {
        self.kind != FlavorKind::Mariadb && (self.major, self.minor, self.patch) >= (8, 0, 22)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_series_has_its_default() {
        let d = |v: &str, c: &str| Flavor::detect(v, c, false).recovery_default();
        assert_eq!(d("10.11.19-MariaDB", ""), MARIADB_105_RECOVERY);
        assert_eq!(d("10.4.30-MariaDB", ""), MYSQL_57_RECOVERY);
        assert_eq!(
            d("8.0.36", "MySQL Community Server - GPL"),
            MYSQL_80_RECOVERY
        );
        assert_eq!(
            d("5.7.44", "MySQL Community Server (GPL)"),
            MYSQL_57_RECOVERY
        );
        assert_eq!(
            d("5.6.51", "MySQL Community Server (GPL)"),
            MYSQL_56_RECOVERY
        );
        assert!((MYSQL_57_RECOVERY.rate_bytes_per_s - 8.75e6).abs() < 1.0);
        let m = Flavor::detect("8.0.22", "MySQL Community Server - GPL", false);
        assert!(m.has_error_log_table());
        assert!(!Flavor::detect("8.0.21", "MySQL", false).has_error_log_table());
        assert!(!Flavor::detect("11.4.2-MariaDB", "", false).has_error_log_table());
    }
}
