//! MySQL/Percona 8.0.0–8.0.29: which `log0chkp.cc` / `buf0flu.cc` redo arithmetic a release
//! runs, read in the source of tagged releases (each tree identified by its `Docs/INFO_SRC`).
//! Three arithmetics, split where function bodies change:
//!
//! - **8.0.11** (`mysql-server 8.0.11, log0chkp.cc log_calc_max_ages`): `lsn_capacity` = 90 %
//!   of the files, the counters 90 % of that less a concurrency margin without a 5 % term; the
//!   page cleaner acts at the bare counter (`log0log.ic log_get_max_modified_age_async`),
//!   sync flushing at `max_modified_age_sync` (`log_consider_sync_flush`), writes wait at
//!   `sn_limit_for_start` (`log_update_limits`); the lwm is a % of `log_get_capacity()`.
//! - **8.0.13–8.0.17** (`mysql-server 8.0.13, log0chkp.cc log_calc_max_ages`; the same bodies
//!   read in 8.0.14, 8.0.15, 8.0.16, 8.0.17): the capacities and margins of today (safety
//!   margin, 5 % extra margin, 5 % in `log_calc_concurrency_margin`), not aligned to blocks;
//!   `buf0flu.cc af_get_pct_for_lsn` subtracts the free-check margin itself (the counter
//!   `log_get_max_modified_age_async` returns stays bare), writes wait at `sn_limit_for_start`
//!   = checkpoint + free-check capacity − margin. `srv0mon.cc` has `log_free_space` and
//!   `log_concurrency_margin` from 8.0.13 on.
//! - **8.0.18–8.0.29** (`mysql-server 8.0.18, log0chkp.cc log_calc_max_ages /
//!   log_get_max_modified_age_async / log_get_free_check_capacity`; byte-identical in 8.0.19
//!   and 8.0.20, the same arithmetic in 8.0.21 and 8.0.28): the counters aligned up to
//!   512-byte blocks, the page cleaner at align_down(async − margin), writes at
//!   `log_get_free_check_capacity`, of which the lwm is a %.
//!
//! Not read from source: **8.0.12** (no tree stamped 8.0.12 was found) is taken as 8.0.11's,
//! the release before it, as an unnamed stored `log0chkp.cc` with 8.0.11's arithmetic
//! suggests; **8.0.22–8.0.27** and **8.0.29** are taken as 8.0.18's, the arithmetic both
//! 8.0.21 and 8.0.28 have (the Percona 8.0.29-21 sample's own `Max checkpoint age` and
//! `Checkpoint age target` agree with it, to the byte). 8.0.0–8.0.10 were milestones before
//! 8.0.11, the first GA: taken as 8.0.11's. docs/flushing.md has the table.

use super::redo::{
    LOG_BLOCK, LOG_BLOCK_DATA_SIZE, LOG_FILE_HDR_SIZE, RedoPoints, align_down, align_up, sn_to_lsn,
};
use super::{Flavor, RedoModel};

/// The MySQL/Percona 8.0 (before 8.0.30) redo arithmetic of a release, named by the first
/// release it was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mysql80Redo {
    /// 8.0.11 (8.0.0–8.0.12): [`mysql_8011_points_with`].
    V8011,
    /// 8.0.13–8.0.17: [`mysql_8013_points_with`].
    V8013,
    /// 8.0.18–8.0.29: [`mysql_80_points_with`].
    V8018,
}

/// The first release with `log0chkp.cc`'s new capacities and margins (8.0.13), and the first
/// with them aligned to blocks and `log_get_free_check_capacity` (8.0.18).
pub const MYSQL_80_NEW_MARGINS: (u32, u32, u32) = (8, 0, 13);
pub const MYSQL_80_ALIGNED: (u32, u32, u32) = (8, 0, 18);

/// The 8.0 GA releases before 8.0.30 whose source was not read: each is given the arithmetic
/// of the nearest releases read around it by [`Mysql80Redo::of`] (see the module's notes).
/// The milestones before 8.0.11 were not read either.
pub const MYSQL_80_NOT_READ: &[u32] = &[12, 22, 23, 24, 25, 26, 27, 29];

impl Mysql80Redo {
    /// The arithmetic of 8.0.`patch` (8.0.30+ is `RedoModel::Mysql8030`, not this).
    pub fn of(version: (u32, u32, u32)) -> Mysql80Redo {
        if version < MYSQL_80_NEW_MARGINS {
            Mysql80Redo::V8011
        } else if version < MYSQL_80_ALIGNED {
            Mysql80Redo::V8013
        } else {
            Mysql80Redo::V8018
        }
    }

    /// The releases it was read in, as docs and notes say them.
    pub fn releases(self) -> &'static str {
        match self {
            Mysql80Redo::V8011 => "8.0.11",
            Mysql80Redo::V8013 => "8.0.13–8.0.17",
            Mysql80Redo::V8018 => "8.0.18–8.0.29",
        }
    }

    /// The points of this arithmetic.
    pub fn points_with(
        self,
        file_size: u64,
        files: u64,
        page: u64,
        thread_concurrency: u64,
    ) -> RedoPoints {
        match self {
            Mysql80Redo::V8011 => {
                mysql_8011_points_with(file_size, files, page, thread_concurrency)
            }
            Mysql80Redo::V8013 => {
                mysql_8013_points_with(file_size, files, page, thread_concurrency)
            }
            Mysql80Redo::V8018 => mysql_80_points_with(file_size, files, page, thread_concurrency),
        }
    }

    /// `max_checkpoint_age_async` (what Percona 8.0 prints as `Checkpoint age target`).
    pub fn checkpoint_age_target(self, file_size: u64, files: u64, page: u64) -> u64 {
        match self {
            Mysql80Redo::V8011 => {
                let (_, _, limit) = limit_8011(file_size, files, page, 0);
                limit - limit / 32
            }
            Mysql80Redo::V8013 | Mysql80Redo::V8018 => {
                let (_, limit) = capacities(file_size, files, page);
                let target = limit - limit / 32;
                if self == Mysql80Redo::V8018 {
                    align_up(target, LOG_BLOCK)
                } else {
                    target
                }
            }
        }
    }
}

impl Flavor {
    /// Which 8.0 (before 8.0.30) redo arithmetic this server runs; `None` on other models.
    pub fn mysql_80_redo(&self) -> Option<Mysql80Redo> {
        (self.redo == RedoModel::Mysql80)
            .then(|| Mysql80Redo::of((self.major, self.minor, self.patch)))
    }

    /// Whether this 8.0 release's own `log0chkp.cc` was read (`false`: its points are those of
    /// the nearest releases read, [`MYSQL_80_NOT_READ`]); `None` on other models.
    pub fn mysql_80_redo_read(&self) -> Option<bool> {
        self.mysql_80_redo().map(|_| {
            (self.major, self.minor) == (8, 0)
                && (11..30).contains(&self.patch)
                && !MYSQL_80_NOT_READ.contains(&self.patch)
        })
    }

    /// MySQL 8.0.0–8.0.29 points by this release's arithmetic.
    pub(super) fn mysql_80(&self, file_size: u64, files: u64, page: u64, tc: u64) -> RedoPoints {
        Mysql80Redo::of((self.major, self.minor, self.patch))
            .points_with(file_size, files, page, tc)
    }
}

/// `mysql-server 8.0.11, log0chkp.cc log_calc_max_ages` with `log_calc_safe_concurrency_margin`
/// (4 pages × (10 + `innodb_thread_concurrency`) + 8 pages, at most half the capacity):
/// `lsn_capacity` = align_down(0.9 × (files × (size − header))); `limit` (=
/// `max_checkpoint_age`) = align_down(0.9 × (lsn_capacity − margin)); async = limit − limit/8,
/// sync = limit − limit/16. The page cleaner acts at async itself (`log0log.ic
/// log_get_max_modified_age_async`), sync flushing past sync (`log_consider_sync_flush`).
/// Writes wait once the sn passes `sn_limit_for_start` = checkpoint + `sn_capacity` − 2 blocks
/// − margin (`log_update_limits`), as an age in LSN bytes. The lwm is a % of
/// `log_get_capacity()` = `lsn_capacity` (`buf0flu.cc af_get_pct_for_lsn`).
pub fn mysql_8011_points_with(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> RedoPoints {
    let (lsn_capacity, margin, limit) = limit_8011(file_size, files, page, thread_concurrency);
    let sn_capacity = lsn_capacity / LOG_BLOCK * LOG_BLOCK_DATA_SIZE;
    let counter_async = limit - limit / 8;
    let counter_sync = limit - limit / 16;
    let stall_sn = sn_capacity.saturating_sub(2 * LOG_BLOCK + margin);
    RedoPoints {
        capacity: files.saturating_mul(file_size),
        async_point: counter_async,
        sync_point: sn_to_lsn(stall_sn),
        counter_async: Some(counter_async),
        counter_sync: Some(counter_sync),
        sync_flush: Some(counter_sync),
        lwm_base: lsn_capacity,
        max_checkpoint_age: None,
    }
}

/// (`lsn_capacity`, concurrency margin, `max_checkpoint_age`) of 8.0.11's `log_calc_max_ages`.
fn limit_8011(file_size: u64, files: u64, page: u64, thread_concurrency: u64) -> (u64, u64, u64) {
    let real = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    let lsn_capacity = align_down((real as f64 * 0.9) as u64, LOG_BLOCK);
    let safe = 4 * page * (10 + thread_concurrency) + 8 * page;
    // `log_calc_concurrency_margin`: at most half the capacity, aligned up.
    let margin = if safe > lsn_capacity / 2 {
        align_up(lsn_capacity / 2, LOG_BLOCK)
    } else {
        safe
    };
    let limit = align_down(
        (lsn_capacity.saturating_sub(margin) as f64 * 0.9) as u64,
        LOG_BLOCK,
    );
    (lsn_capacity, margin, limit)
}

/// (`lsn_capacity_for_writer`, `lsn_capacity_for_free_check`) of 8.0.13+'s
/// `log_calc_max_ages`: the files less their headers (`lsn_real_capacity`), less a safety
/// margin of min(10 %, 256 × 4 pages), aligned down; less 5 % (`extra_margin`).
fn capacities(file_size: u64, files: u64, page: u64) -> (u64, u64) {
    let real = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    let safety = ((0.1 * real as f64) as u64).min(256 * 4 * page);
    let writer = align_down(real.saturating_sub(safety), LOG_BLOCK);
    let extra = align_down((writer as f64 * 0.05) as u64, LOG_BLOCK);
    (writer, writer - extra)
}

/// 8.0.13+'s margins and points; `aligned`: 8.0.18+ (the counters aligned up, the page
/// cleaner's and the writers' limits aligned down to 512-byte blocks).
fn new_margins(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
    aligned: bool,
) -> RedoPoints {
    let (writer, limit) = capacities(file_size, files, page);
    let up = |v: u64| if aligned { align_up(v, LOG_BLOCK) } else { v };
    let down = |v: u64| if aligned { align_down(v, LOG_BLOCK) } else { v };
    let counter_async = up(limit - limit / 8);
    let counter_sync = up(limit - limit / 16);
    // `log_calc_concurrency_margin`, capped at `max_concurrency_margin`; `log_free_check_margin`
    // adds the dict-persist margin, which no variable shows (taken as 0), and is an sn amount
    // the server turns into LSN bytes with `log_translate_sn_to_lsn`.
    let concurrency = (4 * page * (10 + thread_concurrency)
        + 8 * page
        + align_down((0.05 * writer as f64) as u64, LOG_BLOCK))
    .min(align_up(writer / 2, LOG_BLOCK));
    let margin = sn_to_lsn(concurrency);
    let free_check = down(limit.saturating_sub(margin));
    RedoPoints {
        capacity: files.saturating_mul(file_size),
        async_point: down(counter_async.saturating_sub(margin)),
        sync_point: free_check,
        counter_async: Some(counter_async),
        counter_sync: Some(counter_sync),
        sync_flush: Some(counter_sync.saturating_sub(margin)),
        lwm_base: free_check,
        max_checkpoint_age: None,
    }
}

/// `mysql-server 8.0.13, log0chkp.cc log_calc_max_ages / log_update_limits` and `buf0flu.cc
/// af_get_pct_for_lsn` (the same in 8.0.14–8.0.17): the counters = free-check capacity less
/// 1/8 and 1/16, not aligned. The page cleaner flushes hard at async − margin and takes the
/// lwm as a % of free-check capacity − margin (`af_get_pct_for_lsn` subtracts
/// `log_translate_sn_to_lsn(log_free_check_margin())` itself); sync flushing starts when age +
/// margin passes sync (`log_consider_sync_flush`); writes wait at `sn_limit_for_start` =
/// checkpoint + free-check capacity − margin, in sn (`log_update_limits`, `log_free_check`):
/// as an age in LSN bytes, free-check − margin, within a few bytes by where the checkpoint
/// falls in its block.
pub fn mysql_8013_points_with(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> RedoPoints {
    new_margins(file_size, files, page, thread_concurrency, false)
}

/// `mysql-server 8.0.18, log0chkp.cc log_calc_max_ages` (the counters aligned up to 512),
/// `log_calc_concurrency_margin`, `log_free_check_margin` (in LSN bytes), and the limits the
/// server acts at: the page cleaner at `log_get_max_modified_age_async` = align_down(async −
/// margin), sync flushing when age + margin > sync (`log_consider_sync_flush`; 8.0.28
/// `log_sync_flush_lsn`), writes at `log_get_free_check_capacity` = align_down(free-check −
/// margin) (`log_update_limits_low`), of which `buf0flu.cc af_get_pct_for_lsn` (8.0.21+
/// `Adaptive_flush::get_pct_for_lsn`) takes the lwm %. The same in 8.0.19–8.0.21 and 8.0.28.
pub fn mysql_80_points_with(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> RedoPoints {
    new_margins(file_size, files, page, thread_concurrency, true)
}

/// 8.0.18–8.0.29 with the defaults (16 KiB pages, `innodb_thread_concurrency` 0).
pub fn mysql_80_points(file_size: u64, files: u64, page: u64) -> RedoPoints {
    mysql_80_points_with(file_size, files, page, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    fn mysql(version: &str) -> Flavor {
        Flavor::detect(version, "MySQL Community Server - GPL", false)
    }

    /// (release, async counter, sync counter, flush hard, sync flush, stall, lwm base,
    /// checkpoint age target) at one size, 16 KiB pages, `innodb_thread_concurrency` 0.
    type Row = (&'static str, u64, u64, u64, u64, u64, u64, u64);

    fn check(file_size: u64, rows: &[Row]) {
        for &(v, ca, cs, hard, sync_flush, stall, lwm_base, target) in rows {
            let f = mysql(v);
            let p = f.redo_points_at_capacity(2 * file_size, 16384, 2, 0);
            let got = (
                p.counter_async,
                p.counter_sync,
                p.async_point,
                p.sync_flush,
                p.sync_point,
                p.lwm_base,
            );
            let want = (Some(ca), Some(cs), hard, Some(sync_flush), stall, lwm_base);
            assert_eq!(got, want, "{v} at 2 × {} MiB", file_size / MIB);
            let redo = f.mysql_80_redo().expect("8.0");
            assert_eq!(
                redo.checkpoint_age_target(file_size, 2, 16384),
                target,
                "{v}"
            );
        }
    }

    /// 2 × 48 MiB, per release range, by the source:
    /// - `mysql-server 8.0.11, log0chkp.cc log_calc_max_ages`: lsn_capacity = align_down(0.9 ×
    ///   100,659,200) = 90,593,280; margin 786,432 (`log_calc_safe_concurrency_margin`); limit
    ///   = align_down(0.9 × 89,806,848) = 80,825,856; async 70,722,624, sync 75,774,240 (where
    ///   `log_consider_sync_flush` starts); `log_update_limits`: sn_capacity 87,762,240 −
    ///   1,024 − 786,432 = 86,974,784 sn = 89,780,428 LSN bytes; target limit − limit/32.
    /// - `mysql-server 8.0.13, log0chkp.cc log_calc_max_ages` (also 8.0.14–8.0.17): real
    ///   100,659,200, safety 10,065,920, writer 90,593,280, extra 4,529,664, free-check
    ///   86,063,616; counters 75,305,664 / 80,684,640 not aligned; margin
    ///   (`log_calc_concurrency_margin`) 655,360 + 131,072 + 4,529,664 = 5,316,096 sn =
    ///   5,487,580 LSN bytes; `buf0flu.cc af_get_pct_for_lsn` flushes hard at 75,305,664 −
    ///   5,487,580 and takes the lwm of 86,063,616 − 5,487,580 = 80,576,036; target
    ///   83,374,128.
    /// - `mysql-server 8.0.18, log0chkp.cc log_calc_max_ages / log_get_max_modified_age_async
    ///   / log_get_free_check_capacity` (also 8.0.19–8.0.21, 8.0.28): counters aligned up to
    ///   75,305,984 / 80,685,056; flush hard at align_down(75,305,984 − 5,487,580) =
    ///   69,818,368; writes wait at align_down(80,576,036) = 80,576,000, the lwm's base;
    ///   target align_up(83,374,128) = 83,374,592 (what Percona 8.0.29 prints).
    #[test]
    fn mysql_80_points_per_release_range_at_2_x_48_mib() {
        let early: Row = (
            "8.0.11", 70_722_624, 75_774_240, 70_722_624, 75_774_240, 89_780_428, 90_593_280,
            78_300_048,
        );
        let unaligned = |v| -> Row {
            (
                v,
                75_305_664,
                80_684_640,
                75_305_664 - 5_487_580,
                80_684_640 - 5_487_580,
                80_576_036,
                80_576_036,
                83_374_128,
            )
        };
        let aligned = |v| -> Row {
            (
                v,
                75_305_984,
                80_685_056,
                69_818_368,
                80_685_056 - 5_487_580,
                80_576_000,
                80_576_000,
                83_374_592,
            )
        };
        assert_eq!(sn_to_lsn(5_316_096), 5_487_580);
        check(
            48 * MIB,
            &[
                early,
                unaligned("8.0.13"),
                unaligned("8.0.17"),
                aligned("8.0.18"),
                aligned("8.0.20"),
                aligned("8.0.28"),
            ],
        );
    }

    /// 2 × 256 MiB, where the safety margin is capped at 256 × 4 pages:
    /// - 8.0.11: lsn_capacity = align_down(0.9 × 536,866,816) = 483,180,032; limit =
    ///   align_down(0.9 × (483,180,032 − 786,432)) = 434,153,984; async 379,884,736, sync
    ///   407,019,360; stall 482,367,180; target 420,586,672.
    /// - 8.0.13+: safety min(53,686,681, 16,777,216) = 16,777,216; writer 520,089,600; extra
    ///   26,004,480; free-check 494,085,120; margin 655,360 + 131,072 + 26,004,480 =
    ///   26,790,912 sn = 27,655,132 LSN bytes. 8.0.13: counters 432,324,480 / 463,204,800,
    ///   stall and lwm base 466,429,988, target 478,644,960. 8.0.18: counters aligned up to
    ///   432,324,608 / 463,204,864; flush hard align_down(404,669,476) = 404,669,440; stall
    ///   and lwm base align_down(466,429,988) = 466,429,952; target 478,645,248.
    #[test]
    fn mysql_80_points_per_release_range_at_2_x_256_mib() {
        assert_eq!(sn_to_lsn(26_790_912), 27_655_132);
        check(
            256 * MIB,
            &[
                (
                    "8.0.11",
                    379_884_736,
                    407_019_360,
                    379_884_736,
                    407_019_360,
                    482_367_180,
                    483_180_032,
                    420_586_672,
                ),
                (
                    "8.0.15",
                    432_324_480,
                    463_204_800,
                    432_324_480 - 27_655_132,
                    463_204_800 - 27_655_132,
                    466_429_988,
                    466_429_988,
                    478_644_960,
                ),
                (
                    "8.0.19",
                    432_324_608,
                    463_204_864,
                    404_669_440,
                    463_204_864 - 27_655_132,
                    466_429_952,
                    466_429_952,
                    478_645_248,
                ),
            ],
        );
    }

    /// The release picks the arithmetic by what the tagged trees hold: 8.0.11 the 0.9 model,
    /// 8.0.13–8.0.17 the new margins unaligned, 8.0.18 on aligned; the releases not read take
    /// their nearest neighbours' (8.0.12 → 8.0.11's; 8.0.22–8.0.27, 8.0.29 → 8.0.18's) and
    /// say so. Percona follows MySQL (Percona 8.0.13-4 and 8.0.18-9 read the same).
    #[test]
    fn each_release_runs_the_arithmetic_its_source_has() {
        for (v, want, read) in [
            ("8.0.11", Mysql80Redo::V8011, true),
            ("8.0.12", Mysql80Redo::V8011, false),
            ("8.0.13", Mysql80Redo::V8013, true),
            ("8.0.17", Mysql80Redo::V8013, true),
            ("8.0.18", Mysql80Redo::V8018, true),
            ("8.0.19", Mysql80Redo::V8018, true),
            ("8.0.20", Mysql80Redo::V8018, true),
            ("8.0.21", Mysql80Redo::V8018, true),
            ("8.0.22", Mysql80Redo::V8018, false),
            ("8.0.27", Mysql80Redo::V8018, false),
            ("8.0.28", Mysql80Redo::V8018, true),
            ("8.0.29", Mysql80Redo::V8018, false),
        ] {
            let f = mysql(v);
            assert_eq!(f.mysql_80_redo(), Some(want), "{v}");
            assert_eq!(f.mysql_80_redo_read(), Some(read), "{v}");
        }
        let percona = Flavor::detect("8.0.15-6", "Percona Server (GPL), Release 6", false);
        assert_eq!(percona.mysql_80_redo(), Some(Mysql80Redo::V8013));
        assert_eq!(Flavor::detect("8.0.36", "", true).mysql_80_redo(), None);
    }
}
