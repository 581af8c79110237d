//! Rollback segments on this flavour: how many a write transaction can be given, whether that
//! number can change and how, and the latches writers queue on when there are too few — the
//! performance_schema instruments (each flavour has its own names) and the words SHOW ENGINE
//! INNODB STATUS uses for them in its SEMAPHORES section.
//!
//! Every write transaction is given one rollback segment, round robin, and takes that
//! segment's latch to get an undo log slot and again at commit to put its log on the history
//! list (MySQL `trx0trx.cc trx_assign_rseg_durable` / 5.7 `get_next_redo_rseg`, MariaDB
//! `trx0trx.cc trx_assign_rseg_low`); with fewer segments than concurrent writers, writers
//! share latches and queue on them.

use super::{Flavor, FlavorKind, Variables};

/// The most rollback segments per tablespace on every flavour (`TRX_SYS_N_RSEGS`, MySQL 8
/// `FSP_MAX_ROLLBACK_SEGMENTS`): 128. MariaDB ≥ 10.5 always uses exactly these:
/// `trx0trx.cc trx_assign_rseg_low` picks `rseg_slot++ % TRX_SYS_N_RSEGS` (`trx0sys.h`).
pub const MAX_ROLLBACK_SEGMENTS: u64 = 128;

/// MySQL 5.7 reserves rollback segments 1–32 for temporary tables (`srv_tmp_undo_logs`, in
/// ibtmp1); slot 0 is in the system tablespace (the 5.7 manual, `innodb_rollback_segments`).
const MYSQL_57_TEMP_RSEGS: u64 = 32;

/// The performance_schema wait instruments on a rollback segment's latch, every name this
/// flavour has had (a name the server lacks simply returns no row): MariaDB ≥ 10.6
/// `trx_rseg_t::init` → `latch.SRW_LOCK_INIT(trx_rseg_latch_key)`; MariaDB 10.2–10.5 and MySQL
/// 5.7 `sync0sync.cc LATCH_ADD_MUTEX(REDO_RSEG, …, redo_rseg_mutex_key)`; MySQL 8
/// `ha_innodb.cc all_innodb_mutexes`: `undo_space_rseg_mutex` (segments in undo tablespaces)
/// and `trx_sys_rseg_mutex` (in the system tablespace). Temporary-table segments
/// (`noredo_rseg_mutex`, `temp_space_rseg_mutex`) are left out: they serve no durable write.
const MARIADB_RSEG_WAITS: &[&str] = &[
    "wait/synch/rwlock/innodb/trx_rseg_latch",
    "wait/synch/mutex/innodb/redo_rseg_mutex",
];
const MYSQL_RSEG_WAITS: &[&str] = &[
    "wait/synch/mutex/innodb/undo_space_rseg_mutex",
    "wait/synch/mutex/innodb/trx_sys_rseg_mutex",
    "wait/synch/mutex/innodb/redo_rseg_mutex",
];

/// The trx-sys mutex every write transaction also takes (its id, the read-write list, the
/// commit's serialisation number): `trx_sys_mutex` on every flavour (MariaDB 10.11
/// `trx_sys_mutex_key`), and the newer MySQL 8 trees' `trx_sys_serialisation_mutex`, which took
/// the commit's serialisation over (`ha_innodb.cc all_innodb_mutexes`; an older server simply
/// has no such instrument and returns no row for it).
const MARIADB_TRX_SYS_WAITS: &[&str] = &["wait/synch/mutex/innodb/trx_sys_mutex"];
const MYSQL_TRX_SYS_WAITS: &[&str] = &[
    "wait/synch/mutex/innodb/trx_sys_mutex",
    "wait/synch/mutex/innodb/trx_sys_serialisation_mutex",
];

/// The key under which the poller keeps whether a wait instrument is counting (enabled and
/// timed in `setup_instruments`, with the `global_instrumentation` consumer on): "YES"/"NO".
pub fn instrument_key(instrument: &str) -> String {
    format!("{instrument}.timed")
}

/// How many rollback segments write transactions are spread over, and the settings that say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RsegLayout {
    /// Segments a write transaction can be given now.
    pub segments: u64,
    /// The setting per tablespace (`innodb_rollback_segments`; MariaDB < 10.5
    /// `innodb_undo_logs`), `None` where the count is fixed.
    pub setting: Option<u64>,
    /// Undo tablespaces the segments live in (0: the system tablespace).
    pub undo_tablespaces: Option<u64>,
    /// MariaDB ≥ 10.5: always 128, no variable changes it.
    pub fixed: bool,
}

/// What gives writers more rollback segments on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RsegWayOut {
    /// MySQL / Percona 8.0+: `innodb_rollback_segments` is dynamic
    /// (`innodb_rollback_segments_update` → `trx_rseg_adjust_rollback_segments` creates the
    /// missing segments online, WL#9507).
    SetGlobal { to: u64 },
    /// MySQL 8.0.14+ already at 128 per tablespace: another undo tablespace adds 128.
    AddUndoTablespace,
    /// The setting only takes effect at startup: MySQL 5.7 and MariaDB < 10.5 create segments
    /// in `trx_sys_create_rsegs` at startup only; a runtime SET only limits which of those
    /// are handed out.
    Restart { variable: &'static str, to: u64 },
    /// MariaDB ≥ 10.5: 128, fixed.
    Fixed,
}

impl RsegWayOut {
    /// The way out in words, for the verdict and the panel.
    pub fn words(self, flavor: &Flavor) -> String {
        match self {
            RsegWayOut::SetGlobal { to } => format!(
                "SET GLOBAL innodb_rollback_segments = {to} (dynamic on {}; key R)",
                flavor.display_name()
            ),
            RsegWayOut::AddUndoTablespace => "innodb_rollback_segments is at its 128: \
                 CREATE UNDO TABLESPACE adds 128 more"
                .to_string(),
            RsegWayOut::Restart { variable, to } => format!(
                "{} creates segments only at startup: {}",
                flavor.display_name(),
                flavor.restart_only_hint(variable, to)
            ),
            RsegWayOut::Fixed => format!(
                "{} fixes rollback segments at 128 (TRX_SYS_N_RSEGS): no setting adds more; \
                 fewer concurrent writers (a connection pool) queue less",
                flavor.display_name()
            ),
        }
    }
}

impl Flavor {
    /// Whether the rollback segment count is fixed at 128 (MariaDB ≥ 10.5, which deprecated
    /// `innodb_undo_logs` and always spreads writers over all of `TRX_SYS_N_RSEGS`).
    pub fn rseg_count_fixed(&self) -> bool {
        self.is_mariadb() && (self.major, self.minor) >= (10, 5)
    }

    /// The variable that sets the rollback segments, where one does.
    pub fn rseg_variable(&self) -> Option<&'static str> {
        match self.kind {
            FlavorKind::Mariadb if self.rseg_count_fixed() => None,
            FlavorKind::Mariadb => Some("innodb_undo_logs"),
            _ => Some("innodb_rollback_segments"),
        }
    }

    /// The rollback segments write transactions are spread over, from the variables and the
    /// active undo tablespaces (`Innodb_undo_tablespaces_active`, MySQL ≥ 8.0.14). `None`
    /// when the server did not say.
    pub fn rseg_layout(
        &self,
        info: &impl Variables,
        undo_active: Option<u64>,
    ) -> Option<RsegLayout> {
        let undo_var = info.var_u64("innodb_undo_tablespaces");
        if self.rseg_count_fixed() {
            return Some(RsegLayout {
                segments: MAX_ROLLBACK_SEGMENTS,
                setting: None,
                undo_tablespaces: undo_var,
                fixed: true,
            });
        }
        let setting = self
            .rseg_variable()
            .and_then(|v| info.var_u64(v))
            .or_else(|| info.var_u64("innodb_rollback_segments"))?;
        let (segments, spaces) = match self.kind {
            // 8.0+: `innodb_rollback_segments` per undo tablespace, transactions spread over
            // every active one (`trx0trx.cc get_next_redo_rseg_from_undo_spaces`).
            _ if !self.is_mariadb() && self.major >= 8 => {
                let spaces = undo_active.or(undo_var).unwrap_or(2).max(1);
                (setting.saturating_mul(spaces), Some(spaces))
            }
            // 5.7: slot 0 (system tablespace) and 33.. for writes, 1–32 temporary; the
            // system one goes unused once undo tablespaces exist.
            FlavorKind::Mysql | FlavorKind::Percona => {
                let spaces = undo_var.unwrap_or(0);
                let n = if setting <= MYSQL_57_TEMP_RSEGS + 1 {
                    1
                } else if spaces > 0 {
                    setting - MYSQL_57_TEMP_RSEGS - 1
                } else {
                    setting - MYSQL_57_TEMP_RSEGS
                };
                (n, Some(spaces))
            }
            // MariaDB 10.2–10.4: `trx_assign_rseg_low` picks `rseg_slot++ % srv_undo_logs`.
            FlavorKind::Mariadb => (setting, undo_var),
        };
        Some(RsegLayout {
            segments: segments.max(1),
            setting: Some(setting),
            undo_tablespaces: spaces,
            fixed: false,
        })
    }

    /// What gives writers more rollback segments here.
    pub fn rseg_way_out(&self, layout: &RsegLayout) -> RsegWayOut {
        if layout.fixed {
            return RsegWayOut::Fixed;
        }
        let variable = self.rseg_variable().unwrap_or("innodb_rollback_segments");
        if !self.is_mariadb() && self.major >= 8 {
            match layout.setting {
                Some(s) if s < MAX_ROLLBACK_SEGMENTS => RsegWayOut::SetGlobal {
                    to: MAX_ROLLBACK_SEGMENTS,
                },
                _ => RsegWayOut::AddUndoTablespace,
            }
        } else {
            RsegWayOut::Restart {
                variable,
                to: MAX_ROLLBACK_SEGMENTS,
            }
        }
    }

    /// The rollback-segment latch instruments to read on this flavour.
    pub fn rseg_wait_instruments(&self) -> &'static [&'static str] {
        if self.is_mariadb() {
            MARIADB_RSEG_WAITS
        } else {
            MYSQL_RSEG_WAITS
        }
    }

    /// The trx-sys mutex instruments to read on this flavour.
    pub fn trx_sys_wait_instruments(&self) -> &'static [&'static str] {
        if self.is_mariadb() {
            MARIADB_TRX_SYS_WAITS
        } else {
            MYSQL_TRX_SYS_WAITS
        }
    }

    /// Every wait instrument the rollback-segment figures read.
    pub fn rseg_instruments(&self) -> Vec<&'static str> {
        let mut all = self.rseg_wait_instruments().to_vec();
        all.extend_from_slice(self.trx_sys_wait_instruments());
        all
    }

    /// Which instruments count (enabled and timed, with the `global_instrumentation` consumer
    /// on): one statement, asked only where `performance_schema = ON`. Answers
    /// `NAME, ENABLED, TIMED`; the consumer's row comes back as `global_instrumentation`.
    pub fn instruments_sql(&self) -> String {
        format!(
            "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments \
             WHERE NAME IN ({}) UNION ALL SELECT NAME, ENABLED, 'YES' \
             FROM performance_schema.setup_consumers WHERE NAME = 'global_instrumentation'",
            quoted(&self.rseg_instruments())
        )
    }

    /// The waits of the given instruments since startup: `EVENT_NAME, COUNT_STAR,
    /// SUM_TIMER_WAIT` (picoseconds). The summary walks every instrument instance (3.3 ms on
    /// MariaDB 10.11 here, against 0.3 ms for `setup_instruments`), so the poller asks it only
    /// while an instrument counts, and on a cost-held cadence.
    pub fn waits_sql(&self, instruments: &[&str]) -> String {
        format!(
            "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM \
             performance_schema.events_waits_summary_global_by_event_name \
             WHERE EVENT_NAME IN ({})",
            quoted(instruments)
        )
    }

    /// Whether SHOW ENGINE INNODB STATUS lists the threads waiting on a latch: MariaDB 10.6
    /// removed InnoDB's sync wait array (MDEV-21452; on 10.11 here the SEMAPHORES section is
    /// empty under 64 writers), so there an empty list says nothing.
    pub fn seis_lists_latch_waits(&self) -> bool {
        !(self.is_mariadb() && (self.major, self.minor) >= (10, 6))
    }

    /// What a SEIS SEMAPHORES wait cell's latch line (`sync0arr.cc sync_array_cell_print`) is
    /// on, as the rollback-segment figures count it, or `None`. The latch's name decides where
    /// the server prints one (`sync0sync.cc sync_mutex_to_string`: `Mutex TRX_SYS_RSEG created
    /// trx0rseg.cc:237`): a persistent segment's mutex (5.7 / MariaDB 10.2–10.5 `REDO_RSEG`;
    /// MySQL 8 `TRX_SYS_RSEG` in the system tablespace, `UNDO_SPACE_RSEG` in undo tablespaces,
    /// `mysql-server 8.0.18, trx0rseg.cc trx_rseg_mem_create`) or the `RSEGS` latch over a
    /// tablespace's list of them is a rollback segment; `TRX_SYS` (and `TRX_SYS_…` but
    /// segments) the trx-sys mutex. A temporary tablespace's segment (8.0 `TEMP_SPACE_RSEG`,
    /// 5.7 `NOREDO_RSEG`) is neither: it serves no durable write, and the server's own list
    /// of segments leaves it out (MariaDB 10.11.18 `trx0sys.h`: `rseg_array` holds the
    /// persistent ones, `temp_rsegs` apart). Without a name (5.6), the file the latch was
    /// created in: `trx0rseg.cc` or `trx0sys.cc`.
    pub fn seis_latch(cell: &str) -> Option<SeisLatch> {
        let named = cell
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| {
                w.len() > 2
                    && w.contains('_')
                    && w.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    || *w == "RSEGS"
            });
        match named {
            Some("TEMP_SPACE_RSEG" | "NOREDO_RSEG") => None,
            Some(n) if n.ends_with("_RSEG") || n == "RSEGS" => Some(SeisLatch::RollbackSegment),
            Some(n) if n == "TRX_SYS" || n.starts_with("TRX_SYS_") => Some(SeisLatch::TrxSys),
            Some(_) => None,
            None if cell.contains("trx0rseg") => Some(SeisLatch::RollbackSegment),
            None if cell.contains("trx0sys") => Some(SeisLatch::TrxSys),
            None => None,
        }
    }

    /// Whether a SEIS wait cell is on a persistent rollback segment's latch ([`Self::seis_latch`]).
    pub fn seis_names_rseg(cell: &str) -> bool {
        Self::seis_latch(cell) == Some(SeisLatch::RollbackSegment)
    }

    /// …or on the trx-sys mutex, never both.
    pub fn seis_names_trx_sys(cell: &str) -> bool {
        Self::seis_latch(cell) == Some(SeisLatch::TrxSys)
    }
}

/// The latch a SEIS wait cell counts on ([`Flavor::seis_latch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeisLatch {
    RollbackSegment,
    TrxSys,
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(
        version: &str,
        comment: &str,
        vars: &[(&str, &str)],
    ) -> (Flavor, std::collections::BTreeMap<String, String>) {
        let f = Flavor::detect(version, comment, version.starts_with("8."));
        let vars = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        (f, vars)
    }

    /// MariaDB ≥ 10.5: `trx_assign_rseg_low` picks `rseg_slot++ % TRX_SYS_N_RSEGS`; there is
    /// no variable, whatever `innodb_undo_tablespaces` says.
    #[test]
    fn mariadb_fixes_128() {
        let (f, i) = info("10.11.19-MariaDB", "", &[("innodb_undo_tablespaces", "3")]);
        let l = f.rseg_layout(&i, None).expect("known");
        assert_eq!((l.segments, l.setting, l.fixed), (128, None, true));
        assert_eq!(l.undo_tablespaces, Some(3));
        assert_eq!(f.rseg_way_out(&l), RsegWayOut::Fixed);
        assert!(
            f.rseg_way_out(&l)
                .words(&f)
                .contains("fixes rollback segments at 128")
        );
        assert_eq!(f.rseg_variable(), None);
        assert!(!f.seis_lists_latch_waits(), "no sync array since 10.6");
        assert!(f.rseg_wait_instruments()[0].ends_with("rwlock/innodb/trx_rseg_latch"));
        let old = info("10.4.34-MariaDB", "", &[("innodb_undo_logs", "4")]);
        let l = old.0.rseg_layout(&old.1, None).expect("known");
        assert_eq!((l.segments, l.fixed), (4, false));
        assert!(matches!(
            old.0.rseg_way_out(&l),
            RsegWayOut::Restart {
                variable: "innodb_undo_logs",
                to: 128
            }
        ));
    }

    /// MySQL 8: per undo tablespace (`innodb_rollback_segments_update` is the dynamic
    /// variable's update hook), over the active undo tablespaces.
    #[test]
    fn mysql_8_multiplies_by_active_undo_tablespaces() {
        let (f, i) = info(
            "8.0.36",
            "MySQL Community Server - GPL",
            &[
                ("innodb_rollback_segments", "2"),
                ("innodb_undo_tablespaces", "2"),
            ],
        );
        let l = f.rseg_layout(&i, Some(2)).expect("known");
        assert_eq!(
            (l.segments, l.setting, l.undo_tablespaces),
            (4, Some(2), Some(2))
        );
        assert_eq!(f.rseg_way_out(&l), RsegWayOut::SetGlobal { to: 128 });
        let l = f.rseg_layout(&i, Some(3)).expect("known");
        assert_eq!(l.segments, 6);
        let (f, i) = info("8.4.3", "MySQL", &[("innodb_rollback_segments", "128")]);
        let l = f.rseg_layout(&i, Some(2)).expect("known");
        assert_eq!(l.segments, 256);
        assert_eq!(f.rseg_way_out(&l), RsegWayOut::AddUndoTablespace);
        assert!(
            f.rseg_wait_instruments()
                .contains(&"wait/synch/mutex/innodb/undo_space_rseg_mutex")
        );
        let (f, i) = info("8.0.36", "MySQL", &[]);
        assert_eq!(f.rseg_layout(&i, Some(2)), None, "not said: unknown");
    }

    /// MySQL 5.7 (manual, `innodb_rollback_segments`): 1 in the system tablespace, 32 for
    /// temporary tables; more only above 33; the system one unused once undo tablespaces exist.
    #[test]
    fn mysql_57_reserves_32_for_temporary_tables() {
        let cases = [
            ("1", "0", 1),
            ("33", "0", 1),
            ("34", "0", 2),
            ("128", "0", 96),
            ("128", "2", 95),
        ];
        for (n, spaces, want) in cases {
            let (f, i) = info(
                "5.7.44",
                "MySQL Community Server (GPL)",
                &[
                    ("innodb_rollback_segments", n),
                    ("innodb_undo_tablespaces", spaces),
                ],
            );
            let l = f.rseg_layout(&i, None).expect("known");
            assert_eq!(l.segments, want, "{n} with {spaces} undo tablespaces");
            assert!(matches!(f.rseg_way_out(&l), RsegWayOut::Restart { .. }));
        }
    }

    /// `sync0arr.cc sync_array_cell_print` + `sync0sync.cc sync_mutex_to_string` print the
    /// latch's name; `mysql-server 8.0.18, trx0rseg.cc trx_rseg_mem_create` creates
    /// `TEMP_SPACE_RSEG` / `UNDO_SPACE_RSEG` / `TRX_SYS_RSEG` (all in trx0rseg.cc), 5.7.30
    /// `REDO_RSEG` / `NOREDO_RSEG`; `TRX_SYS` is the trx-sys mutex. Each cell counts once, and
    /// a temporary tablespace's segment not at all.
    #[test]
    fn seis_cells_name_their_latch() {
        let cases = [
            (
                "Mutex at 0x7f, Mutex REDO_RSEG created trx0rseg.cc:206, lock var 1",
                Some(SeisLatch::RollbackSegment),
            ),
            (
                "Mutex at 0x7f, Mutex TRX_SYS_RSEG created trx0rseg.cc:237, lock var 1",
                Some(SeisLatch::RollbackSegment),
            ),
            (
                "Mutex at 0x7f, Mutex UNDO_SPACE_RSEG created trx0rseg.cc:235, lock var 1",
                Some(SeisLatch::RollbackSegment),
            ),
            (
                "Mutex at 0x7f, Mutex TEMP_SPACE_RSEG created trx0rseg.cc:233, lock var 1",
                None,
            ),
            (
                "Mutex at 0x7f, Mutex NOREDO_RSEG created trx0rseg.cc:208, lock var 1",
                None,
            ),
            (
                "Mutex at 0x7f, Mutex TRX_SYS created trx0sys.cc:480, lock var 1",
                Some(SeisLatch::TrxSys),
            ),
            (
                "Mutex at 0x7f created file trx0rseg.cc line 200",
                Some(SeisLatch::RollbackSegment),
            ),
            (
                "Mutex at 0x7f created file trx0sys.cc line 1",
                Some(SeisLatch::TrxSys),
            ),
            (
                "X-lock on RW-latch at 0x7f created in file dict0dict.cc",
                None,
            ),
        ];
        for (cell, want) in cases {
            assert_eq!(Flavor::seis_latch(cell), want, "{cell}");
            let counted = u8::from(Flavor::seis_names_rseg(cell))
                + u8::from(Flavor::seis_names_trx_sys(cell));
            assert_eq!(
                counted,
                u8::from(want.is_some()),
                "{cell}: counted once at most"
            );
        }
    }
}
