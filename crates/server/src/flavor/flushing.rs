//! What the page cleaner does for redo at a checkpoint age, by this flavour's `buf0flu.cc`:
//! where redo-driven flushing starts (`innodb_adaptive_flushing_lwm`), whether
//! `innodb_adaptive_flushing` is on, and what each stretch of age is called and counted as.
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

/// Where a checkpoint age stands against the lines the regime is decided by.
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

    /// The regime at `age`. MySQL with adaptive OFF flushes nothing for redo below async
    /// (`get_pct_for_lsn`); MariaDB with it OFF still flushes from lwm, at io_capacity.
    pub fn flush_regime(&self, age: u64, l: RegimeLines) -> FlushRegime {
        let past_lwm = l.lwm.is_some_and(|lwm| age >= lwm);
        if age >= l.stall {
            FlushRegime::PastStall
        } else if l.sync_flush.is_some_and(|p| age >= p) {
            FlushRegime::SyncFlush
        } else if age >= l.async_point {
            FlushRegime::PastAsync
        } else if !l.adaptive && (past_lwm || !self.mariadb_page_cleaner()) {
            FlushRegime::AdaptiveOff
        } else if past_lwm {
            FlushRegime::Adaptive
        } else {
            FlushRegime::BelowLwm
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
        assert_eq!(f.flush_regime(9_000_000, on), FlushRegime::BelowLwm);
        assert_eq!(f.flush_regime(9_059_328, on), FlushRegime::Adaptive);
        assert_eq!(f.flush_regime(p.async_point, on), FlushRegime::PastAsync);
        assert_eq!(f.flush_regime(p.sync_point, on), FlushRegime::PastStall);
        // OFF: nothing for redo until async (`age < max_async_age && !srv_adaptive_flushing`).
        let off = lines(&p, 9_059_328, false);
        assert_eq!(f.flush_regime(1, off), FlushRegime::AdaptiveOff);
        assert_eq!(
            f.flush_regime_words(FlushRegime::AdaptiveOff, 10.0),
            "adaptive off: flushing from the async point"
        );
        assert_eq!(f.flush_regime(p.async_point, off), FlushRegime::PastAsync);
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
            f.flush_regime(p.sync_flush.expect("8.0") + 1, on),
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
        assert_eq!(f.flush_regime(lwm - 1, off), FlushRegime::BelowLwm);
        assert_eq!(f.flush_regime(lwm, off), FlushRegime::AdaptiveOff);
        assert!(f.past_async_effect(true).contains("background"));
        assert!(
            f.flush_regime_words(FlushRegime::BelowLwm, 10.0)
                .contains("no redo-driven flushing")
        );
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
