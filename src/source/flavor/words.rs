//! What the redo flush points are called on each flavour, in the words a DBA reads on the
//! checkpoint gauge and chart; `--once --format text` reads the same words (MariaDB's async
//! and furious flush (M); MySQL 8.0+'s flushing starts, sync flush and stall).

use super::{Flavor, FlavorKind, RedoModel};

/// Names of the checkpoint-age lines: long where there is room, short on a crowded gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointWords {
    /// Where flushing starts (`async_point_bytes`): `async` where the server acts at the
    /// async point it reports; MySQL 8.0+ acts a concurrency margin before its counter
    /// (`log_get_max_modified_age_async`), so the counter's name would mislead there.
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
        let comment = if flavor == FlavorKind::Mariadb.as_str() {
            "MariaDB"
        } else {
            ""
        };
        Flavor::detect(version, comment, false).point_words()
    }
}

impl Flavor {
    pub fn point_words(&self) -> PointWords {
        match self.redo {
            RedoModel::Mysql80 | RedoModel::Mysql8030 => PointWords {
                flushing_starts: "flushing starts",
                flushing_starts_short: "flush start",
                sync_flush: Some("sync flush"),
                stall: "stall — writes wait",
                stall_short: "stall",
                below_flushing: "below flushing start",
                past_flushing: "past flushing start",
                past_stall: "past stall — writes wait",
            },
            RedoModel::Mariadb => PointWords {
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
        assert_eq!(m8.flushing_starts, "flushing starts");
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
