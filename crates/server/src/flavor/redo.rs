//! The redo model: where LSN and checkpoint come from on this server, its redo capacity, and
//! the async and sync flush points (on MariaDB the furious-flush point `M`) by the server's own
//! arithmetic (`log_calc_max_ages` and successors; formulas in docs/flushing.md).

use serde::{Deserialize, Serialize};

use super::{Flavor, Readings, RedoModel, Variables};

/// The redo thresholds, all in bytes of LSN (checkpoint age).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedoPoints {
    /// The configured redo size the percentages are taken against.
    pub capacity: u64,
    /// Where the server starts flushing hard. MySQL 8.0+ acts before its
    /// `log_max_modified_age_async` counter: at that value minus the free-check margin.
    pub async_point: u64,
    /// Where user threads stall: MySQL 5.7 (and MariaDB before 10.5.7) sync flushing in the
    /// user threads; MySQL 8.0+ the free-check limit, where `log_free_check()` waits for the
    /// checkpoint; MariaDB ≥ 10.5.7 the furious-flush point `M`.
    pub sync_point: u64,
    /// MySQL 8.0+ only: what `log_max_modified_age_async` / `_sync` report, before the margin.
    pub counter_async: Option<u64>,
    pub counter_sync: Option<u64>,
    /// MySQL 8.0+ only: where the page cleaner turns to sync flushing and ignores
    /// `innodb_io_capacity` (age + margin past the counter's sync value).
    pub sync_flush: Option<u64>,
    /// The capacity `innodb_adaptive_flushing_lwm` is a percentage of (`buf0flu.cc
    /// af_get_pct_for_lsn` / `Adaptive_flush::get_pct_for_lsn`, MariaDB `af_needed_for_redo`):
    /// 5.7 and MySQL 8.0.11 `log_get_capacity()`; MySQL 8.0.13–8.0.29 the free-check capacity
    /// less the free-check margin (8.0.18+ `log_get_free_check_capacity`, our stall point);
    /// 8.0.30+ `limit_for_free_check` (the stall point too); MariaDB `log_sys.log_capacity`.
    pub lwm_base: u64,
    /// MySQL 5.7 and MariaDB before 10.5.7: `max_checkpoint_age`, where `log_checkpoint_margin`
    /// forces a synchronous checkpoint — the age can pass the sync point (user threads flush)
    /// up to here. `None` where the stall line is the most redo that builds up.
    pub max_checkpoint_age: Option<u64>,
}

impl RedoPoints {
    /// Points where the server acts at the values it reports (MySQL 5.7, MariaDB).
    fn plain(capacity: u64, async_point: u64, sync_point: u64, lwm_base: u64) -> RedoPoints {
        RedoPoints {
            capacity,
            async_point,
            sync_point,
            counter_async: None,
            counter_sync: None,
            sync_flush: None,
            lwm_base,
            max_checkpoint_age: None,
        }
    }

    /// The most checkpoint age the server lets build up before it forces a checkpoint: the
    /// recovery worst case. 5.7 / MariaDB < 10.5.7: `max_checkpoint_age` (`log0log.cc
    /// log_checkpoint_margin`), 6.7 % past the sync point; elsewhere the stall line.
    pub fn worst_case_age(&self) -> u64 {
        self.max_checkpoint_age.unwrap_or(self.sync_point)
    }
}

impl Flavor {
    /// Current LSN and checkpoint LSN from the cheapest source this sample has.
    pub fn lsn_and_checkpoint(&self, s: &impl Readings) -> Option<(u64, u64)> {
        let pair = |a: &str, b: &str| Some((s.status(a)?, s.status(b)?));
        pair(
            "Innodb_redo_log_current_lsn",
            "Innodb_redo_log_checkpoint_lsn",
        )
        .or_else(|| pair("Innodb_lsn_current", "Innodb_lsn_last_checkpoint"))
        .or_else(|| {
            let lsn = u64::try_from(s.metric("log_lsn_current")?).ok()?;
            let chk = u64::try_from(s.metric("log_lsn_last_checkpoint")?).ok()?;
            Some((lsn, chk))
        })
        .or_else(|| s.innodb_status_lsns())
    }

    /// Capacity and the async/sync points from the server's variables (docs/flushing.md).
    /// MariaDB ≥ 10.5.7 reports its `M` as `Innodb_checkpoint_max_age`: that wins over the
    /// formula (which stays the cross-check), and async is `M − M/8` as the server computes it.
    pub fn redo_points(
        &self,
        info: &impl Variables,
        latest: Option<&impl Readings>,
    ) -> Option<RedoPoints> {
        let page = info.var_u64("innodb_page_size").unwrap_or(16384);
        let tc = info.var_u64("innodb_thread_concurrency").unwrap_or(0);
        let files = || info.var_u64("innodb_log_files_in_group").unwrap_or(2);
        match self.redo {
            RedoModel::Mysql8030 => {
                let cap = latest
                    .and_then(|s| s.status("Innodb_redo_log_capacity_resized"))
                    .filter(|c| *c > 0)
                    .or_else(|| info.var_u64("innodb_redo_log_capacity"))?;
                Some(mysql_8030_points_with(cap, page, tc))
            }
            RedoModel::Mysql80 => {
                let size = info.var_u64("innodb_log_file_size")?;
                Some(self.mysql_80(size, files(), page, tc))
            }
            RedoModel::Mysql57 => {
                let size = info.var_u64("innodb_log_file_size")?;
                Some(mysql_57_points(size, files(), page, tc))
            }
            RedoModel::MariadbLegacy => {
                let size = info.var_u64("innodb_log_file_size")?;
                Some(mysql_57_points(
                    size,
                    self.redo_size_files(files()),
                    page,
                    tc,
                ))
            }
            RedoModel::Mariadb => {
                let size = info.var_u64("innodb_log_file_size")?;
                let formula = mariadb_points(size, page, (self.major, self.minor));
                let reported = latest
                    .and_then(|s| s.status("Innodb_checkpoint_max_age"))
                    .filter(|m| *m > 0);
                Some(match reported {
                    Some(m) => RedoPoints::plain(size, m - m / 8, m, formula.lwm_base),
                    None => formula,
                })
            }
        }
    }

    /// MariaDB's M is its `Innodb_checkpoint_max_age`; the formula stays the cross-check, and
    /// a disagreement is said, not hidden.
    pub fn redo_formula_disagreement(
        &self,
        info: &impl Variables,
        s: &impl Readings,
    ) -> Option<String> {
        if self.redo != RedoModel::Mariadb {
            return None;
        }
        let reported = s.status("Innodb_checkpoint_max_age").filter(|m| *m > 0)?;
        let size = info.var_u64("innodb_log_file_size")?;
        let page = info.var_u64("innodb_page_size").unwrap_or(16384);
        let formula = mariadb_points(size, page, (self.major, self.minor)).sync_point;
        (formula != reported).then(|| {
            format!(
                "Innodb_checkpoint_max_age {reported} differs from log_t::set_capacity's \
                 {formula} for innodb_log_file_size {size}: showing the server's M"
            )
        })
    }

    /// What the DBA changes to resize redo on this flavour.
    pub fn redo_size_variable(&self) -> &'static str {
        match self.redo {
            RedoModel::Mysql8030 => "innodb_redo_log_capacity",
            RedoModel::MariadbLegacy if (self.major, self.minor) >= (10, 5) => {
                "innodb_log_file_size"
            }
            RedoModel::Mysql57 | RedoModel::Mysql80 | RedoModel::MariadbLegacy => {
                "innodb_log_file_size × innodb_log_files_in_group"
            }
            RedoModel::Mariadb => "innodb_log_file_size",
        }
    }

    /// The name of the point where user threads stall, as this flavour has it: MariaDB's
    /// furious-flush point `M`; MySQL 8.0+'s free-check limit ("stall"); "sync" where the sync
    /// point itself stalls writes (MySQL 5.7, MariaDB before 10.5.7).
    pub fn sync_point_name(&self) -> &'static str {
        match self.redo {
            RedoModel::Mariadb => "furious flush (M)",
            RedoModel::Mysql80 | RedoModel::Mysql8030 => "stall",
            RedoModel::Mysql57 | RedoModel::MariadbLegacy => "sync",
        }
    }

    /// The redo points this server would have at `capacity` bytes of redo, its other settings
    /// unchanged: `page` size, `files` in the group (5.7 / 8.0 < .30: capacity = files × file
    /// size) and `thread_concurrency`. Sizing inverts this numerically.
    pub fn redo_points_at_capacity(
        &self,
        capacity: u64,
        page: u64,
        files: u64,
        thread_concurrency: u64,
    ) -> RedoPoints {
        let files = self.redo_size_files(files);
        match self.redo {
            RedoModel::Mysql8030 => mysql_8030_points_with(capacity, page, thread_concurrency),
            RedoModel::Mysql80 => self.mysql_80(capacity / files, files, page, thread_concurrency),
            RedoModel::Mysql57 | RedoModel::MariadbLegacy => {
                mysql_57_points(capacity / files, files, page, thread_concurrency)
            }
            RedoModel::Mariadb => mariadb_points(capacity, page, (self.major, self.minor)),
        }
    }

    /// The range the size variable accepts, as total capacity in bytes: `innodb_redo_log_capacity`
    /// 8 MiB–128 GiB; `innodb_log_file_size` ≥ 4 MiB per file with the group ≤ 512 GiB (5.7/8.0);
    /// MariaDB ≥ 4 MiB (`SYSTEM_VARIABLES.NUMERIC_MIN_VALUE` on 10.11; block size 4096, so any
    /// whole number of MiB is accepted).
    pub fn redo_capacity_range(&self, files: u64) -> (u64, u64) {
        const MIB: u64 = 1024 * 1024;
        const GIB: u64 = 1024 * MIB;
        match self.redo {
            RedoModel::Mysql8030 => (8 * MIB, 128 * GIB),
            RedoModel::Mysql57 | RedoModel::Mysql80 | RedoModel::MariadbLegacy => {
                (self.redo_size_files(files) * 4 * MIB, 512 * GIB)
            }
            RedoModel::Mariadb => (4 * MIB, 512 * GIB),
        }
    }

    /// How many files the size variable multiplies by: `innodb_log_file_size` is per file on
    /// MySQL 5.7 / 8.0 < .30 and MariaDB ≤ 10.4 (× `innodb_log_files_in_group`); one file on
    /// MariaDB 10.5+ (the group setting is ignored there) and one setting on MySQL 8.0.30+.
    pub fn redo_size_files(&self, files_in_group: u64) -> u64 {
        match self.redo {
            RedoModel::MariadbLegacy if (self.major, self.minor) >= (10, 5) => 1,
            RedoModel::Mysql57 | RedoModel::Mysql80 | RedoModel::MariadbLegacy => {
                files_in_group.max(1)
            }
            RedoModel::Mysql8030 | RedoModel::Mariadb => 1,
        }
    }

    /// What happens to writes past the stall line, in the DBA's words for this flavour.
    pub fn sync_point_effect(&self) -> &'static str {
        match self.redo {
            RedoModel::Mariadb => {
                "furious flushing past M (buf_flush_sync_lsn): user threads wait for the page \
                 cleaner, counted as sync flushing"
            }
            RedoModel::Mysql80 | RedoModel::Mysql8030 => {
                "past the free-check limit every write waits for the checkpoint to advance \
                 (from the sync-flush point on, the page cleaner already ignores innodb_io_capacity)"
            }
            RedoModel::Mysql57 | RedoModel::MariadbLegacy => {
                "user threads flush synchronously (counted as sync flushing) and writes stall \
                 until the checkpoint advances; at max_checkpoint_age a synchronous checkpoint \
                 (log_checkpoint_margin)"
            }
        }
    }
}

pub(super) const LOG_FILE_HDR_SIZE: u64 = 2048;
pub(super) const LOG_BLOCK: u64 = 512;
/// A 512-byte log block carries 12 bytes of header and 4 of trailer around its data.
const LOG_BLOCK_HDR_SIZE: u64 = 12;
pub(super) const LOG_BLOCK_DATA_SIZE: u64 = 496;

pub(super) fn align_down(v: u64, to: u64) -> u64 {
    v - v % to
}

pub(super) fn align_up(v: u64, to: u64) -> u64 {
    v.div_ceil(to) * to
}

/// `log0log.h log_translate_sn_to_lsn`: data bytes (sn) to LSN bytes, block headers included.
pub(super) fn sn_to_lsn(sn: u64) -> u64 {
    sn / LOG_BLOCK_DATA_SIZE * LOG_BLOCK + sn % LOG_BLOCK_DATA_SIZE + LOG_BLOCK_HDR_SIZE
}

/// `log0log.h log_translate_lsn_to_sn`, for a data LSN.
fn lsn_to_sn(lsn: u64) -> u64 {
    lsn / LOG_BLOCK * LOG_BLOCK_DATA_SIZE + (lsn % LOG_BLOCK).saturating_sub(LOG_BLOCK_HDR_SIZE)
}

/// MySQL 5.7 `log0log.cc log_calc_max_ages`; also MariaDB 10.2–10.5.6 `log0log.cc
/// log_set_capacity`, the same arithmetic (one file from 10.5): the server acts at the
/// values it reports, and its sync point stalls user threads.
pub fn mysql_57_points(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> RedoPoints {
    let margin = mysql_57_max_checkpoint_age(file_size, files, page, thread_concurrency);
    // `log_sys->log_group_capacity`: what 5.7 `log_get_capacity()` returns to
    // `af_get_pct_for_lsn` (and MariaDB 10.2–10.5.6's `log_sys.log_capacity`).
    let group = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    RedoPoints {
        max_checkpoint_age: Some(margin),
        ..RedoPoints::plain(
            files.saturating_mul(file_size),
            margin - margin / 8,
            margin - margin / 16,
            group - group / 10,
        )
    }
}

/// `log_calc_max_ages`' margin = `max_checkpoint_age` (MySQL/Percona 5.x, MariaDB before
/// 10.5.7): what XtraDB prints as `Max checkpoint age`; its `Checkpoint age target` is
/// `max_checkpoint_age_async` = margin − margin/32.
pub fn mysql_57_max_checkpoint_age(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> u64 {
    let mut cap = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    cap -= cap / 10;
    let free = 4 * page * (10 + thread_concurrency) + 8 * page;
    let mut margin = cap.saturating_sub(free);
    margin -= margin / 10;
    margin
}

/// MySQL ≥ 8.0.30 with the defaults (16 KiB pages, `innodb_thread_concurrency` 0).
pub fn mysql_8030_points(capacity: u64) -> RedoPoints {
    mysql_8030_points_with(capacity, 16384, 0)
}

/// MySQL ≥ 8.0.30 and 8.4. `log0files_capacity.cc`: `hard_logical_capacity_for_physical`
/// (32 files, one kept free, headers and a 128 KiB safety margin out, 10 % of a file for
/// creating the next one early), `soft_logical_capacity_for_hard` (−5 % for the log writer),
/// `update_exposed` (adaptive flush min/max = the counters' async/sync). `log0chkp.cc`:
/// `log_concurrency_margin` (4 pages × (threads + 10) + 4 KiB + 5 % of soft) — the page
/// cleaner starts at async − margin (`log_files_capacity_get_limits`), sync flushing when
/// age + margin > sync (`log_sync_flush_lsn`), writes wait at soft − margin
/// (`log_free_check_capacity`). The dict-persist margin (no variable shows it) is taken as 0.
pub fn mysql_8030_points_with(capacity: u64, page: u64, thread_concurrency: u64) -> RedoPoints {
    const LOG_N_FILES: u64 = 32;
    const OVERHEAD: u64 = (LOG_N_FILES - 1) * LOG_FILE_HDR_SIZE + 2 * 65536;
    let free_file_ratio = (LOG_N_FILES - 2) as f64 / LOG_N_FILES as f64;
    let lsn_capacity = (capacity as f64 * free_file_ratio - OVERHEAD as f64).max(0.0) as u64;
    let file_size = align_down(capacity / LOG_N_FILES, page.max(1));
    let next_file_margin = align_up((0.1 * file_size as f64).ceil() as u64, LOG_BLOCK);
    let hard = align_down(lsn_capacity.saturating_sub(next_file_margin), LOG_BLOCK);
    let soft = align_down((hard as f64 * 0.95).floor() as u64, LOG_BLOCK);
    let counter_async = align_down(soft - soft / 8, LOG_BLOCK);
    let counter_sync = align_down((soft as f64 * (1.0 - 1.0 / 16.0)).floor() as u64, LOG_BLOCK);
    let concurrency = (4 * page * (thread_concurrency + 10)
        + 4096
        + align_down((0.05 * soft as f64) as u64, LOG_BLOCK))
    .min(lsn_to_sn(align_down(
        (soft as f64 * 0.55) as u64,
        LOG_BLOCK,
    )));
    let margin = sn_to_lsn(concurrency);
    let free_check = align_down(soft.saturating_sub(margin), LOG_BLOCK);
    RedoPoints {
        capacity,
        async_point: align_down(counter_async.saturating_sub(margin), LOG_BLOCK),
        sync_point: free_check,
        counter_async: Some(counter_async),
        counter_sync: Some(counter_sync),
        sync_flush: Some(counter_sync.saturating_sub(margin)),
        // `Adaptive_flush::get_pct_for_lsn`: lwm % of `limit_for_free_check`
        // (`log_files_capacity_get_limits`).
        lwm_base: free_check,
        max_checkpoint_age: None,
    }
}

/// MariaDB ≥ 10.5.7 `log0log.cc log_t::set_capacity` (MDEV-23855): async = M − M/8; "sync"
/// is M itself, where `mtr0mtr.cc` makes user threads wait for furious flushing.
pub fn mariadb_points(file_size: u64, page: u64, version: (u32, u32)) -> RedoPoints {
    let header = if version >= (10, 8) {
        12 * 1024
    } else {
        2 * 1024
    };
    let cap = file_size.saturating_sub(header);
    let log_capacity = cap - cap / 10;
    let mut m = log_capacity.saturating_sub(48 * page);
    m -= m / 10;
    // `af_needed_for_redo` / `af_get_pct_for_lsn`: lwm % of `log_sys.log_capacity`.
    RedoPoints::plain(file_size, m - m / 8, m, log_capacity)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    /// `log0files_capacity.cc`: at 100 MiB hard = 97,781,760, soft = 92,892,672; the counters
    /// (`update_exposed`) align down to 512: async = align_down(soft − soft/8) = 81,281,024
    /// (81,281,088 before the alignment the server applies), sync = 87,086,592.
    #[test]
    fn mysql_8030_counters_at_100_mib_match_the_server() {
        let p = mysql_8030_points(100 * MIB);
        assert_eq!(p.counter_async, Some(81_281_024));
        assert_eq!(p.counter_sync, Some(87_086_592));
        assert_eq!(p.capacity, 104_857_600);
    }

    /// `log0chkp.cc log_concurrency_margin`: 4 × 16 KiB × 10 + 4 KiB + align_down(5 % of
    /// 92,892,672) = 5,303,808 data bytes = 5,474,908 LSN bytes (`log_translate_sn_to_lsn`).
    /// The page cleaner starts at align_down(81,281,024 − 5,474,908) = 75,805,696
    /// (`log_files_capacity_get_limits`), sync flushing at 87,086,592 − 5,474,908 (age +
    /// margin > sync, `log_sync_flush_lsn`), writes wait at align_down(soft − margin) =
    /// 87,417,344 (`log_free_check_capacity`).
    #[test]
    fn mysql_8030_acts_a_concurrency_margin_early() {
        assert_eq!(sn_to_lsn(5_303_808), 5_474_908);
        let p = mysql_8030_points(100 * MIB);
        assert_eq!(p.async_point, 75_805_696);
        assert_eq!(p.sync_flush, Some(87_086_592 - 5_474_908));
        assert_eq!(p.sync_point, 87_417_344);
        // innodb_thread_concurrency widens the margin: 4 pages per thread.
        let tc = mysql_8030_points_with(100 * MIB, 16384, 16);
        // 16 threads × 4 pages = 1,048,576 more data bytes ≈ 1,082,401 LSN bytes, to 512.
        let earlier = p.async_point - tc.async_point;
        assert!((1_081_000..=1_084_000).contains(&earlier), "{earlier}");
    }

    #[test]
    fn mariadb_64_mib_matches_measured_checkpoint_max_age() {
        // Measured on 10.11: Innodb_checkpoint_max_age = 53,640,439 and
        // log_max_modified_age_async = 46,935,385 at a 64 MiB log.
        let p = mariadb_points(64 * MIB, 16384, (10, 11));
        assert_eq!(p.sync_point, 53_640_439);
        assert_eq!(p.async_point, 46_935_385);
        assert_eq!(p.counter_async, None, "MariaDB acts at what it reports");
    }

    #[test]
    fn mariadb_96_mib_matches_this_machines_server() {
        // The shared server here runs 96 MiB and reports Innodb_checkpoint_max_age 80,819,529.
        assert_eq!(
            mariadb_points(96 * MIB, 16384, (10, 11)).sync_point,
            80_819_529
        );
    }

    #[test]
    fn mysql_57_by_hand() {
        // 2 × 48 MiB, 16 KiB pages, thread_concurrency 0.
        let cap = 2 * (48 * MIB - 2048); // 100,659,200
        let cap = cap - cap / 10; // 90,593,280
        let margin = cap - (4 * 16384 * 10 + 8 * 16384); // 89,806,848
        let margin = margin - margin / 10; // 80,826,164 (integer division)
        let p = mysql_57_points(48 * MIB, 2, 16384, 0);
        assert_eq!(margin, 80_826_164);
        assert_eq!(p.async_point, 80_826_164 - 10_103_270);
        assert_eq!(p.sync_point, 80_826_164 - 5_051_635);
        assert_eq!(p.capacity, 96 * MIB);
    }

    /// MariaDB ≥ 10.5.7: M is the server's `Innodb_checkpoint_max_age` when it gives one, the
    /// formula only where it does not; a disagreement becomes a warning.
    #[test]
    fn mariadb_m_is_the_servers_own() {
        /// A sample's status counters, nothing else.
        struct Status(std::collections::BTreeMap<String, u64>);
        impl Readings for Status {
            fn status(&self, name: &str) -> Option<u64> {
                self.0.get(name).copied()
            }
            fn metric(&self, _: &str) -> Option<i64> {
                None
            }
            fn innodb_status_lsns(&self) -> Option<(u64, u64)> {
                None
            }
        }
        let info: std::collections::BTreeMap<String, String> = [
            ("innodb_log_file_size", (64 * MIB).to_string()),
            ("innodb_page_size", "16384".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let f = Flavor::detect("10.11.19-MariaDB", "", false);
        let mut s = Status(Default::default());
        assert_eq!(
            f.redo_points(&info, Some(&s)).map(|p| p.sync_point),
            Some(53_640_439)
        );
        s.0.insert("Innodb_checkpoint_max_age".into(), 53_640_439);
        assert_eq!(f.redo_formula_disagreement(&info, &s), None);
        s.0.insert("Innodb_checkpoint_max_age".into(), 50_000_000);
        let p = f.redo_points(&info, Some(&s)).expect("points");
        assert_eq!(
            (p.sync_point, p.async_point),
            (50_000_000, 50_000_000 - 6_250_000)
        );
        let w = f.redo_formula_disagreement(&info, &s).expect("a warning");
        assert!(w.contains("53640439") && w.contains("50000000"), "{w}");
    }

    /// MariaDB 10.2–10.5.6 `log0log.cc log_set_capacity`: the 5.7 arithmetic, with a real
    /// sync point; `innodb_log_files_in_group` files up to 10.4, one file from 10.5.
    #[test]
    fn mariadb_before_10_5_7_uses_the_57_model() {
        let old = Flavor::detect("10.4.34-MariaDB", "", false);
        assert_eq!(old.redo, RedoModel::MariadbLegacy);
        assert_eq!(old.sync_point_name(), "sync");
        assert_eq!(
            old.redo_points_at_capacity(96 * MIB, 16384, 2, 0),
            mysql_57_points(48 * MIB, 2, 16384, 0)
        );
        let ten_five = Flavor::detect("10.5.6-MariaDB", "", false);
        assert_eq!(ten_five.redo, RedoModel::MariadbLegacy);
        assert_eq!(ten_five.redo_size_files(2), 1);
        assert_eq!(
            ten_five.redo_points_at_capacity(96 * MIB, 16384, 2, 0),
            mysql_57_points(96 * MIB, 1, 16384, 0)
        );
        let new = Flavor::detect("10.5.7-MariaDB", "", false);
        assert_eq!(new.redo, RedoModel::Mariadb);
    }
}
