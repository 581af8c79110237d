//! What the page cleaner does for redo at an age, by this flavour's `buf0flu.cc`: where
//! redo-driven flushing starts (`innodb_adaptive_flushing_lwm`), whether
//! `innodb_adaptive_flushing` is on, what each stretch of age is called and counted as — and
//! which age each line is judged on.
//!
//! - MySQL 5.7 `af_get_pct_for_lsn`, 8.0 `Adaptive_flush::get_pct_for_lsn` (and MariaDB before
//!   10.5.7, whose page cleaner is 5.7's): below lwm % of the capacity the age adds nothing to
//!   the flush rate; with adaptive flushing ON it adds from lwm on and grows with age/async;
//!   OFF, nothing until the async point. The pages count as `buffer_flush_adaptive_*`.
//! - MariaDB ≥ 10.5.7 `buf_flush_page_cleaner`: below lwm (`af_needed_for_redo`: age > lwm % of
//!   `log_sys.log_capacity`) the page cleaner does nothing for redo; from lwm, adaptive flushing
//!   (`page_cleaner_flush_pages_recommendation`, counted adaptive) or, adaptive OFF,
//!   `innodb_io_capacity` pages a second (counted background); past async `buf_flush_ahead`
//!   sets `buf_flush_async_lsn` and the page cleaner flushes to it at `innodb_io_capacity_max`
//!   (counted background); past M `buf_flush_sync_lsn` makes it furious (counted sync).
//!
//! The age: every page cleaner judges its lwm and adaptive rate on the age of the oldest dirty
//! page — current LSN − its oldest modification (mysql-server 5.7.30 and 8.0.18 `buf0flu.cc
//! page_cleaner_flush_pages_recommendation`: `cur_lsn − buf_pool_get_oldest_modification[_approx]()`;
//! MariaDB 10.11.18 `buf0flu.cc af_needed_for_redo(oldest_lsn)`), never more than the checkpoint
//! age. The other lines follow their own code: MariaDB's flush-ahead (async) and furious (M)
//! points the checkpoint age (`mtr0mtr.cc log_close`: `lsn − log_sys.last_checkpoint_lsn`);
//! MySQL 8's stall the checkpoint age (`log_free_check`), its sync flushing the age of
//! `available_for_checkpoint_lsn` (`log0chkp.cc log_consider_sync_flush`); MySQL 5.7's sync
//! point the oldest page's (`log0log.cc log_checkpoint_margin`: `log->lsn − oldest_lsn`), its
//! `max_checkpoint_age` the checkpoint age.

use serde::{Deserialize, Serialize};

use super::{Flavor, RedoModel, RedoPoints, Variables};

/// `innodb_adaptive_flushing_lwm` when the server does not say (the default everywhere).
pub const DEFAULT_ADAPTIVE_FLUSHING_LWM_PCT: f64 = 10.0;

/// The regime redo-driven flushing is in, lowest age first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushRegime {
    /// Age below the lwm: no redo-driven flushing (MySQL: no redo-age term).
    BelowLwm,
    /// Adaptive flushing from the lwm, growing with age/async.
    Adaptive,
    /// `innodb_adaptive_flushing=OFF`, below async (MariaDB: past its lwm).
    AdaptiveOff,
    /// Past the async point (MySQL 8.0+: where the page cleaner flushes hard).
    PastAsync,
    /// MySQL 8.0+: past sync flushing, `innodb_io_capacity` ignored.
    SyncFlush,
    /// Past the stall line: sync point, free-check limit, M.
    PastStall,
}

impl FlushRegime {
    pub const ALL: [FlushRegime; 6] = [
        FlushRegime::BelowLwm,
        FlushRegime::Adaptive,
        FlushRegime::AdaptiveOff,
        FlushRegime::PastAsync,
        FlushRegime::SyncFlush,
        FlushRegime::PastStall,
    ];

    /// The JSON / exporter state name.
    pub fn as_str(self) -> &'static str {
        match self {
            FlushRegime::BelowLwm => "below_lwm",
            FlushRegime::Adaptive => "adaptive",
            FlushRegime::AdaptiveOff => "adaptive_off",
            FlushRegime::PastAsync => "past_async",
            FlushRegime::SyncFlush => "sync_flush",
            FlushRegime::PastStall => "past_stall",
        }
    }
}

/// Which age the line that decided the regime was judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegimeAge {
    /// The oldest dirty page's: what the page cleaner judges (the lwm, adaptive flushing;
    /// MySQL's async point, 5.7's sync point).
    OldestPage,
    /// MySQL 8.0+: SEIS `Pages flushed up to`, which is `available_for_checkpoint_lsn` there
    /// (`log0log.cc log_print`): what sync flushing is judged on, and where the oldest page's
    /// counter is unread its stand-in — at most the flush-order lag older than the oldest
    /// page, so the age is never smaller.
    CheckpointCandidate,
    /// The checkpoint age, as the server judges that line (MariaDB's async and M, MySQL 8's
    /// stall).
    Checkpoint,
    /// The checkpoint age standing in for the oldest page's, which was unread: never smaller,
    /// so the regime may read higher than the server's.
    CheckpointStandIn,
}

impl RegimeAge {
    /// The JSON / exporter name.
    pub fn as_str(self) -> &'static str {
        match self {
            RegimeAge::OldestPage => "oldest_page",
            RegimeAge::CheckpointCandidate => "checkpoint_candidate",
            RegimeAge::Checkpoint => "checkpoint",
            RegimeAge::CheckpointStandIn => "checkpoint_stand_in",
        }
    }

    /// What the regime's words say it was judged on (before the age, where one follows).
    pub fn words(self) -> &'static str {
        match self {
            RegimeAge::OldestPage => "oldest dirty page",
            RegimeAge::CheckpointCandidate => "oldest dirty page ≤",
            RegimeAge::Checkpoint => "checkpoint age",
            RegimeAge::CheckpointStandIn => "judged on checkpoint age: oldest dirty page unread",
        }
    }
}

/// The ages a sample gives, in LSN bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegimeAges {
    /// Current LSN − last checkpoint.
    pub checkpoint: u64,
    /// Current LSN − the oldest dirty page's modification (0 with nothing dirty).
    pub oldest_page: Option<u64>,
    /// MySQL 8.0+: current LSN − `available_for_checkpoint_lsn` (SEIS `Pages flushed up to`).
    pub checkpoint_candidate: Option<u64>,
}

impl RegimeAges {
    /// Only the checkpoint age is known.
    pub fn checkpoint_only(checkpoint: u64) -> RegimeAges {
        RegimeAges {
            checkpoint,
            ..RegimeAges::default()
        }
    }

    /// The age the page cleaner judges and what it is: the oldest page's, else the nearest
    /// stand-in that is never smaller; at most the checkpoint age either way.
    pub fn page_cleaner(&self) -> (u64, RegimeAge) {
        let (age, from) = match (self.oldest_page, self.checkpoint_candidate) {
            (Some(a), _) => (a, RegimeAge::OldestPage),
            (None, Some(a)) => (a, RegimeAge::CheckpointCandidate),
            (None, None) => (self.checkpoint, RegimeAge::CheckpointStandIn),
        };
        (age.min(self.checkpoint), from)
    }
}

/// Where the ages stand against the lines the regime is decided by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegimeLines {
    pub lwm: Option<u64>,
    pub async_point: u64,
    pub sync_flush: Option<u64>,
    pub stall: u64,
    /// `innodb_adaptive_flushing` (ON unless the server says OFF).
    pub adaptive: bool,
}

impl Flavor {
    /// MariaDB ≥ 10.5.7 has its own page cleaner; every other flavour runs 5.7's rules.
    fn mariadb_page_cleaner(&self) -> bool {
        self.redo == RedoModel::Mariadb
    }

    /// `innodb_adaptive_flushing_lwm` as the server has it (a whole percentage on MySQL, a
    /// double on MariaDB), else the default 10.
    pub fn adaptive_lwm_pct(&self, info: &impl Variables) -> f64 {
        info.var_f64("innodb_adaptive_flushing_lwm")
            .filter(|p| p.is_finite() && *p >= 0.0)
            .unwrap_or(DEFAULT_ADAPTIVE_FLUSHING_LWM_PCT)
    }

    /// The checkpoint age redo-driven flushing starts at: lwm % of the capacity this flavour
    /// takes it of ([`RedoPoints::lwm_base`]; `af_get_pct_for_lsn`, `af_needed_for_redo`).
    pub fn adaptive_lwm_bytes(&self, info: &impl Variables, points: &RedoPoints) -> u64 {
        (self.adaptive_lwm_pct(info) * points.lwm_base as f64 / 100.0) as u64
    }

    /// `innodb_adaptive_flushing`: `None` when the server did not say.
    pub fn adaptive_flushing(info: &impl Variables) -> Option<bool> {
        match info.var("innodb_adaptive_flushing")?.trim() {
            v if v.eq_ignore_ascii_case("ON") || v == "1" => Some(true),
            v if v.eq_ignore_ascii_case("OFF") || v == "0" => Some(false),
            _ => None,
        }
    }

    /// The INNODB_METRICS counter holding the oldest dirty page's modification (0 with nothing
    /// dirty): MySQL 8.0.13+ `log_lsn_buf_pool_oldest_approx` (mysql-server 8.0.13 and 8.0.18
    /// `srv0mon.cc`: `buf_pool_get_oldest_modification_approx()`, what the page cleaner reads;
    /// 8.0.13 dropped `log_lsn_buf_pool_oldest`); MySQL 5.7 and 8.0.11 (8.0.12 taken as it) and
    /// MariaDB `log_lsn_buf_pool_oldest` (MariaDB 10.11.18: `buf_pool.get_oldest_modification(0)`).
    pub fn oldest_page_metric(&self) -> &'static str {
        match self.redo {
            RedoModel::Mysql8030 => "log_lsn_buf_pool_oldest_approx",
            RedoModel::Mysql80 if (self.major, self.minor, self.patch) >= (8, 0, 13) => {
                "log_lsn_buf_pool_oldest_approx"
            }
            _ => "log_lsn_buf_pool_oldest",
        }
    }

    /// What SEIS `Pages flushed up to` is on this server (`log0log.cc log_print`): the oldest
    /// dirty page's modification (or the current LSN with nothing dirty) on MySQL 5.7
    /// (`log_buf_pool_get_oldest_modification`) and MariaDB (10.11.18:
    /// `buf_pool.get_oldest_modification(lsn)`); MySQL 8.0+ prints the checkpointer's
    /// candidate there, `available_for_checkpoint_lsn` (mysql-server 8.0.18, 8.0.31).
    pub fn pages_flushed_up_to(&self) -> RegimeAge {
        match self.redo {
            RedoModel::Mysql80 | RedoModel::Mysql8030 => RegimeAge::CheckpointCandidate,
            RedoModel::Mysql57 | RedoModel::MariadbLegacy | RedoModel::Mariadb => {
                RegimeAge::OldestPage
            }
        }
    }

    /// The regime at these ages, each line judged on the age the server judges it on (the
    /// module's notes): the page cleaner's lwm and adaptive rate on the oldest dirty page's;
    /// MariaDB's async and M on the checkpoint age; MySQL 5.7's async and sync on the oldest
    /// page's; MySQL 8's async on the oldest page's, sync flushing on
    /// `available_for_checkpoint_lsn`'s, the stall on the checkpoint age. MySQL with adaptive
    /// OFF flushes nothing for redo below async (`get_pct_for_lsn`); MariaDB with it OFF still
    /// flushes from lwm, at io_capacity. With the regime, the age the line that decided it was
    /// judged on.
    pub fn flush_regime(&self, ages: RegimeAges, l: RegimeLines) -> (FlushRegime, RegimeAge) {
        let cleaner = ages.page_cleaner();
        let checkpoint = (ages.checkpoint, RegimeAge::Checkpoint);
        let (async_age, stall_age) = match self.redo {
            RedoModel::Mariadb => (checkpoint, checkpoint),
            RedoModel::Mysql57 | RedoModel::MariadbLegacy => (cleaner, cleaner),
            RedoModel::Mysql80 | RedoModel::Mysql8030 => (cleaner, checkpoint),
        };
        // `available_for_checkpoint_lsn` lies between the checkpoint and the oldest page;
        // unread, the oldest page's age stands in (below it by at most the flush-order lag).
        let sync_flush_age = match ages.checkpoint_candidate {
            Some(c) => (
                c.max(cleaner.0).min(ages.checkpoint),
                RegimeAge::CheckpointCandidate,
            ),
            None => cleaner,
        };
        let past_lwm = l.lwm.is_some_and(|lwm| cleaner.0 >= lwm);
        if stall_age.0 >= l.stall {
            (FlushRegime::PastStall, stall_age.1)
        } else if l.sync_flush.is_some_and(|p| sync_flush_age.0 >= p) {
            (FlushRegime::SyncFlush, sync_flush_age.1)
        } else if async_age.0 >= l.async_point {
            (FlushRegime::PastAsync, async_age.1)
        } else if !l.adaptive && (past_lwm || !self.mariadb_page_cleaner()) {
            (FlushRegime::AdaptiveOff, cleaner.1)
        } else if past_lwm {
            (FlushRegime::Adaptive, cleaner.1)
        } else {
            (FlushRegime::BelowLwm, cleaner.1)
        }
    }

    /// The regime in the checkpoint panel's words (`lwm_pct` as the server has it).
    pub fn flush_regime_words(&self, r: FlushRegime, lwm_pct: f64) -> String {
        let maria = self.mariadb_page_cleaner();
        let w = self.point_words();
        match r {
            FlushRegime::BelowLwm if maria => {
                format!("age below lwm ({lwm_pct:.0} %): no redo-driven flushing")
            }
            FlushRegime::BelowLwm => {
                format!("age below lwm ({lwm_pct:.0} %): no redo-age flushing")
            }
            FlushRegime::Adaptive => format!("adaptive flushing from {lwm_pct:.0} % (lwm)"),
            FlushRegime::AdaptiveOff if maria => {
                "adaptive off: io_capacity flushing from lwm".to_string()
            }
            FlushRegime::AdaptiveOff => {
                format!(
                    "adaptive off: flushing from the {} point",
                    w.flushing_starts
                )
            }
            FlushRegime::PastAsync if maria => {
                "past async: flushing ahead at io_capacity_max".into()
            }
            FlushRegime::PastAsync => w.past_flushing.to_string(),
            FlushRegime::SyncFlush => "past sync flush".to_string(),
            FlushRegime::PastStall => w.past_stall.to_string(),
        }
    }

    /// What the page cleaner does past the async point and what it counts it as — what the
    /// flush verdict says there (`adaptive`: `innodb_adaptive_flushing`).
    pub fn past_async_effect(&self, adaptive: bool) -> &'static str {
        match (self.mariadb_page_cleaner(), adaptive) {
            (true, _) => {
                "the page cleaner flushes ahead to the async target at innodb_io_capacity_max \
                 (buf_flush_ahead), counted as background flushing, not adaptive"
            }
            (false, true) => {
                "adaptive flushing at full pace, up to innodb_io_capacity_max (counted as \
                 adaptive flushing)"
            }
            (false, false) => {
                "innodb_adaptive_flushing is OFF: the page cleaner flushes by redo age from \
                 here, up to innodb_io_capacity_max (counted as adaptive flushing)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flavor::{mariadb_points, mysql_57_points, mysql_8030_points};

    /// A server's variables, as `sample::ServerInfo` holds them.
    fn vars(pairs: &[(&str, String)]) -> std::collections::BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    const MIB: u64 = 1024 * 1024;

    fn lines(p: &RedoPoints, lwm: u64, adaptive: bool) -> RegimeLines {
        RegimeLines {
            lwm: Some(lwm),
            async_point: p.async_point,
            sync_flush: p.sync_flush,
            stall: p.sync_point,
            adaptive,
        }
    }

    /// 5.7 `af_get_pct_for_lsn`: af_lwm = lwm × `log_get_capacity()` / 100, the group capacity
    /// after its 10 % safety: 2 × 48 MiB → 90,593,280, so 10 % = 9,059,328.
    #[test]
    fn mysql_57_lwm_is_ten_percent_of_log_get_capacity() {
        let f = Flavor::detect("5.7.44-log", "MySQL Community Server (GPL)", false);
        let info = vars(&[]);
        let p = mysql_57_points(48 * MIB, 2, 16384, 0);
        assert_eq!(p.lwm_base, 90_593_280);
        assert_eq!(f.adaptive_lwm_bytes(&info, &p), 9_059_328);
        let on = lines(&p, 9_059_328, true);
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(9_000_000), on).0,
            FlushRegime::BelowLwm
        );
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(9_059_328), on).0,
            FlushRegime::Adaptive
        );
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(p.async_point), on)
                .0,
            FlushRegime::PastAsync
        );
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(p.sync_point), on)
                .0,
            FlushRegime::PastStall
        );
        // OFF: nothing for redo until async (`age < max_async_age && !srv_adaptive_flushing`).
        let off = lines(&p, 9_059_328, false);
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(1), off).0,
            FlushRegime::AdaptiveOff
        );
        assert_eq!(
            f.flush_regime_words(FlushRegime::AdaptiveOff, 10.0),
            "adaptive off: flushing from the async point"
        );
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(p.async_point), off)
                .0,
            FlushRegime::PastAsync
        );
    }

    /// The lwm at 2 × 48 MiB and `innodb_adaptive_flushing_lwm` 10, per release range, by
    /// `buf0flu.cc af_get_pct_for_lsn` (`af_lwm = lwm × capacity / 100`):
    /// - `mysql-server 5.7.30` and `8.0.11`: of `log_get_capacity()` = 90,593,280 → 9,059,328;
    /// - `mysql-server 8.0.13` (to 8.0.17): of `lsn_capacity_for_free_check −
    ///   log_translate_sn_to_lsn(log_free_check_margin())` = 86,063,616 − 5,487,580 =
    ///   80,576,036 → 8,057,603;
    /// - `mysql-server 8.0.18` (to 8.0.29; `Adaptive_flush::get_pct_for_lsn` from 8.0.21): of
    ///   `log_get_free_check_capacity(*log_sys)` = align_down(80,576,036, 512) = 80,576,000 →
    ///   8,057,600 — not of `lsn_real_capacity` (100,659,200 → 10,065,920).
    #[test]
    fn mysql_lwm_per_release_range_at_2_x_48_mib() {
        let info = vars(&[("innodb_adaptive_flushing_lwm", "10".into())]);
        for (v, lwm) in [
            ("5.7.30", 9_059_328),
            ("8.0.11", 9_059_328),
            ("8.0.13", 8_057_603),
            ("8.0.17", 8_057_603),
            ("8.0.18", 8_057_600),
            ("8.0.21", 8_057_600),
            ("8.0.29", 8_057_600),
        ] {
            let f = Flavor::detect(v, "MySQL Community Server - GPL", false);
            let p = f.redo_points_at_capacity(96 * MIB, 16384, 2, 0);
            assert_eq!(f.adaptive_lwm_bytes(&info, &p), lwm, "{v}");
        }
        // 8.0.18+: the lwm's base is the stall point itself, as on 8.0.30+.
        let f = Flavor::detect("8.0.18", "MySQL Community Server - GPL", false);
        let p = f.redo_points_at_capacity(96 * MIB, 16384, 2, 0);
        assert_eq!(p.lwm_base, p.sync_point);
    }

    /// 8.0.30+ `Adaptive_flush::get_pct_for_lsn`: lwm % of `limit_for_free_check` (the stall).
    #[test]
    fn mysql_8030_lwm_is_of_the_free_check_limit() {
        let f = Flavor::detect("8.0.36", "MySQL Community Server - GPL", true);
        let p = mysql_8030_points(100 * MIB);
        let info = vars(&[("innodb_adaptive_flushing_lwm", "20".into())]);
        assert_eq!(f.adaptive_lwm_bytes(&info, &p), 87_417_344 / 5);
        let on = lines(&p, 87_417_344 / 5, true);
        assert_eq!(
            f.flush_regime(
                RegimeAges::checkpoint_only(p.sync_flush.expect("8.0") + 1),
                on
            )
            .0,
            FlushRegime::SyncFlush
        );
        assert!(
            f.flush_regime_words(FlushRegime::Adaptive, 20.0)
                .contains("20 %")
        );
    }

    /// MariaDB `af_needed_for_redo`: age > lwm % of `log_sys.log_capacity` (64 MiB − 12 KiB,
    /// less 10 % = 60,386,919); OFF it still flushes from lwm, at io_capacity, counted
    /// background; past async it flushes ahead, counted background.
    #[test]
    fn mariadb_follows_its_own_page_cleaner() {
        let f = Flavor::detect("10.11.19-MariaDB", "", false);
        let p = mariadb_points(64 * MIB, 16384, (10, 11));
        assert_eq!(p.lwm_base, 60_386_919);
        let info = vars(&[]);
        let lwm = f.adaptive_lwm_bytes(&info, &p);
        assert_eq!(lwm, 6_038_691);
        let off = lines(&p, lwm, false);
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(lwm - 1), off).0,
            FlushRegime::BelowLwm
        );
        assert_eq!(
            f.flush_regime(RegimeAges::checkpoint_only(lwm), off).0,
            FlushRegime::AdaptiveOff
        );
        assert!(f.past_async_effect(true).contains("background"));
        assert!(
            f.flush_regime_words(FlushRegime::BelowLwm, 10.0)
                .contains("no redo-driven flushing")
        );
    }

    /// MariaDB 10.11.18 `buf0flu.cc af_needed_for_redo(oldest_lsn)`: the lwm on the oldest dirty
    /// page's age; `mtr0mtr.cc log_close`: flush-ahead (async) and furious (M) on the
    /// checkpoint age. Seen on 10.11 under load: checkpoint age 10.8 MiB past the 5.8 MiB lwm
    /// (64 MiB log) while the page cleaner flushed nothing — its oldest page was younger.
    #[test]
    fn mariadb_judges_the_lwm_on_the_oldest_page_and_async_on_the_checkpoint() {
        let f = Flavor::detect("10.11.19-MariaDB", "", false);
        let p = mariadb_points(64 * MIB, 16384, (10, 11));
        let lwm = f.adaptive_lwm_bytes(&vars(&[]), &p);
        assert_eq!(lwm, 6_038_691, "5.8 MiB");
        let on = lines(&p, lwm, true);
        let busy = RegimeAges {
            checkpoint: 10_800 * 1024,
            oldest_page: Some(2 * MIB),
            checkpoint_candidate: None,
        };
        assert_eq!(
            f.flush_regime(busy, on),
            (FlushRegime::BelowLwm, RegimeAge::OldestPage)
        );
        assert_eq!(busy.page_cleaner(), (2 * MIB, RegimeAge::OldestPage));
        // Without the oldest page's age, the checkpoint age stands in, and says so.
        let unread = RegimeAges::checkpoint_only(10_800 * 1024);
        assert_eq!(
            f.flush_regime(unread, on),
            (FlushRegime::Adaptive, RegimeAge::CheckpointStandIn)
        );
        // Past async on the checkpoint age: flush-ahead, however young the oldest page.
        let ahead = RegimeAges {
            checkpoint: p.async_point,
            ..busy
        };
        assert_eq!(
            f.flush_regime(ahead, on),
            (FlushRegime::PastAsync, RegimeAge::Checkpoint)
        );
        let furious = RegimeAges {
            checkpoint: p.sync_point,
            ..busy
        };
        assert_eq!(
            f.flush_regime(furious, on),
            (FlushRegime::PastStall, RegimeAge::Checkpoint)
        );
    }

    /// mysql-server 8.0.18 `buf0flu.cc page_cleaner_flush_pages_recommendation` (lwm and
    /// async on `cur_lsn − buf_pool_get_oldest_modification_approx()`), `log0chkp.cc
    /// log_consider_sync_flush` (sync flushing on `available_for_checkpoint_lsn`'s age) and
    /// `log_free_check` (the stall on the checkpoint age), at 2 × 48 MiB: async 69,818,368,
    /// sync flush 75,197,476, stall 80,576,000.
    #[test]
    fn mysql_80_judges_each_line_on_its_own_age() {
        let f = Flavor::detect("8.0.28", "MySQL Community Server - GPL", false);
        let p = f.redo_points_at_capacity(96 * MIB, 16384, 2, 0);
        let on = lines(&p, 8_057_600, true);
        let ages = |checkpoint, oldest, candidate| RegimeAges {
            checkpoint,
            oldest_page: oldest,
            checkpoint_candidate: candidate,
        };
        // Checkpoint past async, the oldest page not: adaptive, not flushing hard.
        assert_eq!(
            f.flush_regime(ages(72_000_000, Some(30_000_000), None), on),
            (FlushRegime::Adaptive, RegimeAge::OldestPage)
        );
        assert_eq!(
            f.flush_regime(ages(72_000_000, Some(70_000_000), None), on),
            (FlushRegime::PastAsync, RegimeAge::OldestPage)
        );
        // Sync flushing on the checkpoint candidate's age (SEIS Pages flushed up to).
        assert_eq!(
            f.flush_regime(ages(78_000_000, Some(74_000_000), Some(76_000_000)), on),
            (FlushRegime::SyncFlush, RegimeAge::CheckpointCandidate)
        );
        // Writes wait on the checkpoint age, however young the oldest page.
        assert_eq!(
            f.flush_regime(ages(80_576_000, Some(1_000_000), None), on),
            (FlushRegime::PastStall, RegimeAge::Checkpoint)
        );
        // Only SEIS read: the candidate stands in for the page cleaner's age, and says so.
        let seis_only = ages(72_000_000, None, Some(30_000_000));
        assert_eq!(
            seis_only.page_cleaner(),
            (30_000_000, RegimeAge::CheckpointCandidate)
        );
        assert_eq!(
            f.flush_regime(seis_only, on),
            (FlushRegime::Adaptive, RegimeAge::CheckpointCandidate)
        );
        assert_eq!(f.oldest_page_metric(), "log_lsn_buf_pool_oldest_approx");
        assert_eq!(f.pages_flushed_up_to(), RegimeAge::CheckpointCandidate);
    }

    /// mysql-server 5.7.30 `log0log.cc log_checkpoint_margin`: sync flushing by the user
    /// threads when `log->lsn − oldest_lsn` (the oldest modification) passes
    /// `max_modified_age_sync`; only `max_checkpoint_age` is a checkpoint age. SEIS `Pages
    /// flushed up to` is the oldest page there (`log_buf_pool_get_oldest_modification`).
    #[test]
    fn mysql_57_judges_its_sync_point_on_the_oldest_page() {
        let f = Flavor::detect("5.7.44-log", "MySQL Community Server (GPL)", false);
        let p = mysql_57_points(48 * MIB, 2, 16384, 0);
        let on = lines(&p, 9_059_328, true);
        let young = RegimeAges {
            checkpoint: p.sync_point + 1,
            oldest_page: Some(p.async_point - 1),
            checkpoint_candidate: None,
        };
        assert_eq!(f.flush_regime(young, on).0, FlushRegime::Adaptive);
        assert_eq!(f.oldest_page_metric(), "log_lsn_buf_pool_oldest");
        assert_eq!(f.pages_flushed_up_to(), RegimeAge::OldestPage);
        let m = Flavor::detect("8.0.11", "MySQL Community Server - GPL", false);
        assert_eq!(m.oldest_page_metric(), "log_lsn_buf_pool_oldest");
    }

    #[test]
    fn adaptive_flushing_reads_on_and_off() {
        let on = vars(&[("innodb_adaptive_flushing", "ON".into())]);
        let off = vars(&[("innodb_adaptive_flushing", "OFF".into())]);
        assert_eq!(Flavor::adaptive_flushing(&on), Some(true));
        assert_eq!(Flavor::adaptive_flushing(&off), Some(false));
        assert_eq!(Flavor::adaptive_flushing(&vars(&[])), None);
    }
}
