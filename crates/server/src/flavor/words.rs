//! What the redo flush points are called on each flavour, in the words a DBA reads on the
//! checkpoint gauge and chart (`--once --format text` says the same): the adaptive-flushing
//! lwm (where redo-driven flushing starts, `buf0flu.cc`), the async point (MySQL 8.0+: "flush
//! hard", a margin before its counter), MySQL 8.0+'s sync flushing, the stall point by its name.

use super::{Flavor, FlavorKind, RedoModel};

/// Names of the checkpoint-age lines: long where there is room, short on a crowded gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointWords {
    /// Where redo-driven flushing starts with `innodb_adaptive_flushing=ON`
    /// (`adaptive_lwm_bytes`): `innodb_adaptive_flushing_lwm` % of the capacity.
    pub lwm: &'static str,
    pub lwm_short: &'static str,
    /// Where the page cleaner flushes hard (`async_point_bytes`; with adaptive flushing OFF,
    /// where it starts): `async` where the server acts at the async point it reports; MySQL
    /// 8.0.20+ acts a concurrency margin before its counter (`log_get_max_modified_age_async`),
    /// so the counter's name would mislead there. (Not "flushing starts": that is the lwm.)
    pub flushing_starts: &'static str,
    pub flushing_starts_short: &'static str,
    /// MySQL 8.0+ only (`sync_flush_bytes`): the page cleaner ignores `innodb_io_capacity`
    /// from here (`log_sync_flush_lsn` / `log_consider_sync_flush` in `log0chkp.cc`).
    pub sync_flush: Option<&'static str>,
    /// Where user threads wait (`sync_point_bytes`): 5.7's sync point; MySQL 8.0+'s
    /// free-check limit (`log_free_check_capacity`); MariaDB's furious-flush point M.
    pub stall: &'static str,
    pub stall_short: &'static str,
    /// The state below the first line, past it and past the stall line (the redo severity
    /// ok / warning / critical, as judged with the figures).
    pub below_flushing: &'static str,
    pub past_flushing: &'static str,
    pub past_stall: &'static str,
}

impl PointWords {
    /// The words for a server known only by what its figures carry (`server.flavor`: mysql,
    /// mariadb or percona; `server.version`): a replay, the headless text. The words do not
    /// depend on what detection from the version alone cannot tell (8.0 before or after .30).
    pub fn of_server(flavor: &str, version: &str) -> PointWords {
        Flavor::of_server(flavor, version).point_words()
    }
}

impl Flavor {
    /// The flavour of a server known only by what its figures carry (`server.flavor`: mysql,
    /// mariadb or percona; `server.version`): a replay, the headless text.
    pub fn of_server(flavor: &str, version: &str) -> Flavor {
        let comment = if flavor == FlavorKind::Mariadb.as_str() {
            "MariaDB"
        } else {
            ""
        };
        Flavor::detect(version, comment, false)
    }
}

impl Flavor {
    pub fn point_words(&self) -> PointWords {
        match self.redo {
            RedoModel::Mysql80 | RedoModel::Mysql8030 => PointWords {
                lwm: "adaptive lwm",
                lwm_short: "lwm",
                flushing_starts: "flush hard",
                flushing_starts_short: "flush hard",
                sync_flush: Some("sync flush"),
                stall: "stall — writes wait",
                stall_short: "stall",
                below_flushing: "below flush hard",
                past_flushing: "past flush hard",
                past_stall: "past stall — writes wait",
            },
            RedoModel::Mariadb => PointWords {
                lwm: "adaptive lwm",
                lwm_short: "lwm",
                flushing_starts: "async",
                flushing_starts_short: "async",
                sync_flush: None,
                stall: "furious flush (M)",
                stall_short: "M",
                below_flushing: "below async",
                past_flushing: "past async",
                past_stall: "past M",
            },
            RedoModel::Mysql57 | RedoModel::MariadbLegacy => PointWords {
                lwm: "adaptive lwm",
                lwm_short: "lwm",
                flushing_starts: "async",
                flushing_starts_short: "async",
                sync_flush: None,
                stall: "sync",
                stall_short: "sync",
                below_flushing: "below async",
                past_flushing: "past async",
                past_stall: "past sync",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mysql_8_is_not_called_async() {
        let m8 = Flavor::detect("8.0.36", "MySQL Community Server - GPL", true).point_words();
        // Flushing starts at the lwm (`Adaptive_flush::get_pct_for_lsn`), not here.
        assert_eq!(m8.flushing_starts, "flush hard");
        assert_eq!(m8.lwm_short, "lwm");
        assert_eq!(m8.sync_flush, Some("sync flush"));
        assert!(m8.stall.starts_with("stall"));
        let m57 = Flavor::detect("5.7.44-log", "MySQL Community Server (GPL)", false).point_words();
        assert_eq!((m57.flushing_starts, m57.stall), ("async", "sync"));
        let maria = Flavor::detect("10.11.6-MariaDB", "", false).point_words();
        assert_eq!((maria.stall, maria.stall_short), ("furious flush (M)", "M"));
        assert_eq!(maria.sync_flush, None);
        // Figures carry the flavour's name apart from the version string.
        assert_eq!(PointWords::of_server("mariadb", "10.11.6"), maria);
        assert_eq!(PointWords::of_server("mysql", "8.4.2"), m8);
        assert_eq!(PointWords::of_server("percona", "5.7.44-48"), m57);
    }
}
