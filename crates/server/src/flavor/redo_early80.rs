//! MySQL 8.0 before the 2020 rewrite of `log0chkp.cc` (8.0.11–8.0.19): another redo arithmetic
//! than 8.0.20–8.0.29 (`redo.rs`). `log_calc_max_ages` takes 90 % of the files' capacity, the
//! concurrency margin has no 5 %-of-redo term, the page cleaner acts at the counters themselves
//! (`log_get_max_modified_age_async` returns `max_modified_age_async`), sync flushing starts at
//! `max_modified_age_sync` (`log_consider_sync_flush`), and writes wait at `sn_limit_for_start`
//! (`log_update_limits`, checked by `log_free_check`).
//!
//! Where the line falls: the 8.0.18–8.0.19 INNODB_METRICS listing (the Percona sample corpus)
//! has no `log_concurrency_margin` / `log_free_space` counters, which came with the rewritten
//! margins (`log_calc_concurrency_margin`'s `MONITOR_LOG_CONCURRENCY_MARGIN`, `log0write.cc`'s
//! `MONITOR_LOG_FREE_SPACE`); the 2020 `log0chkp.cc` (with 8.0.21's `log_persist_disable`) has
//! them. So 8.0.20 is the first release on the new side — inferred from the source and the
//! samples, not from the tree's tags (its history could not be brought here).

use super::redo::{
    LOG_BLOCK, LOG_BLOCK_DATA_SIZE, LOG_FILE_HDR_SIZE, RedoPoints, align_down,
    mysql_80_points_with, sn_to_lsn,
};
use super::{Flavor, RedoModel};

/// The first MySQL/Percona 8.0 release with the rewritten `log0chkp.cc` margins.
pub const MYSQL_80_REWRITE: (u32, u32, u32) = (8, 0, 20);

/// `log0chkp.cc log_calc_max_ages` (8.0.11–8.0.19) with `log_calc_safe_concurrency_margin`
/// (4 pages × (10 + `innodb_thread_concurrency`) + 8 pages, at most half the capacity):
/// `lsn_capacity` = align_down(0.9 × (files × (size − header))); `limit` (=
/// `max_checkpoint_age`) = align_down(0.9 × (lsn_capacity − margin)); async = limit − limit/8,
/// sync = limit − limit/16. Writes wait once the sn passes `sn_limit_for_start` = checkpoint +
/// `sn_capacity` − 2 blocks − margin (`log_update_limits`), as an age in LSN bytes.
pub fn mysql_80_early_points_with(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> RedoPoints {
    let (lsn_capacity, margin, limit) = early_limit(file_size, files, page, thread_concurrency);
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
        // `af_get_pct_for_lsn`: lwm % of `log_get_capacity()`, the 90 % `lsn_capacity`.
        lwm_base: lsn_capacity,
        max_checkpoint_age: None,
    }
}

/// (`lsn_capacity`, concurrency margin, `max_checkpoint_age`) of `log_calc_max_ages`.
fn early_limit(file_size: u64, files: u64, page: u64, thread_concurrency: u64) -> (u64, u64, u64) {
    let real = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    let lsn_capacity = align_down((real as f64 * 0.9) as u64, LOG_BLOCK);
    let safe = 4 * page * (10 + thread_concurrency) + 8 * page;
    // `log_calc_concurrency_margin`: at most half the capacity, aligned up.
    let margin = if safe > lsn_capacity / 2 {
        (lsn_capacity / 2).div_ceil(LOG_BLOCK) * LOG_BLOCK
    } else {
        safe
    };
    let limit = align_down(
        (lsn_capacity.saturating_sub(margin) as f64 * 0.9) as u64,
        LOG_BLOCK,
    );
    (lsn_capacity, margin, limit)
}

/// 8.0.11–8.0.19 `max_checkpoint_age_async` = limit − limit/32 (what Percona prints as
/// `Checkpoint age target`).
pub fn mysql_80_early_checkpoint_age_target(file_size: u64, files: u64, page: u64) -> u64 {
    let (_, _, limit) = early_limit(file_size, files, page, 0);
    limit - limit / 32
}

impl Flavor {
    /// Whether this MySQL/Percona 8.0 predates the 2020 `log0chkp.cc` margins.
    pub fn before_80_rewrite(&self) -> bool {
        self.redo == RedoModel::Mysql80 && (self.major, self.minor, self.patch) < MYSQL_80_REWRITE
    }

    /// MySQL 8.0.0–8.0.29 points by the side of the rewrite this release is on.
    pub(super) fn mysql_80(&self, file_size: u64, files: u64, page: u64, tc: u64) -> RedoPoints {
        if self.before_80_rewrite() {
            mysql_80_early_points_with(file_size, files, page, tc)
        } else {
            mysql_80_points_with(file_size, files, page, tc)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    /// `log0chkp.cc log_calc_max_ages` (8.0.11–8.0.19) at 2 × 48 MiB: lsn_capacity =
    /// align_down(0.9 × 100,659,200) = 90,593,280; margin 786,432; limit = align_down(0.9 ×
    /// 89,806,848) = 80,825,856; async 70,722,624, sync 75,774,240 (`log_consider_sync_flush`).
    /// `log_update_limits`: sn_capacity 87,762,240 − 1,024 − 786,432 = 86,974,784 sn =
    /// 89,780,428 LSN bytes (`log_translate_sn_to_lsn`): async 70.7, sync 75.8, capacity ~89.8 MB.
    #[test]
    fn mysql_80_before_the_rewrite_by_the_source() {
        let p = mysql_80_early_points_with(48 * MIB, 2, 16384, 0);
        assert_eq!(p.async_point, 70_722_624);
        assert_eq!(p.sync_flush, Some(75_774_240));
        assert_eq!(p.counter_sync, Some(75_774_240));
        assert_eq!(p.sync_point, 89_780_428);
        assert_eq!(p.lwm_base, 90_593_280);
        assert_eq!(
            mysql_80_early_checkpoint_age_target(48 * MIB, 2, 16384),
            78_300_048
        );
    }

    /// The release picks the side: 8.0.19 the old arithmetic, 8.0.20 the new one.
    #[test]
    fn the_rewrite_splits_80_at_8_0_20() {
        let old = Flavor::detect("8.0.19", "MySQL Community Server - GPL", false);
        let new = Flavor::detect("8.0.20", "MySQL Community Server - GPL", false);
        assert!(old.before_80_rewrite() && !new.before_80_rewrite());
        assert_eq!(
            old.redo_points_at_capacity(96 * MIB, 16384, 2, 0)
                .async_point,
            70_722_624
        );
        assert_eq!(
            new.redo_points_at_capacity(96 * MIB, 16384, 2, 0)
                .async_point,
            69_818_368
        );
        let percona = Flavor::detect("8.0.29-21", "Percona Server (GPL), Release 21", false);
        assert!(!percona.before_80_rewrite());
    }
}
