//! The redo model: where LSN and checkpoint come from on this server, its redo capacity, and
//! the async and sync flush points (on MariaDB the furious-flush point `M`) by the server's own
//! arithmetic (`log_calc_max_ages` and successors; formulas in METRICS.md).

use serde::{Deserialize, Serialize};

use super::{Flavor, RedoModel};
use crate::sample::{Sample, ServerInfo};

/// The redo thresholds, all in bytes of LSN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedoPoints {
    /// The configured redo size the percentages are taken against.
    pub capacity: u64,
    /// Adaptive flushing starts working hard here.
    pub async_point: u64,
    /// Sync flushing (stalls) — on MariaDB the furious-flush point `M`, where user threads wait.
    pub sync_point: u64,
}

impl Flavor {
    /// Current LSN and checkpoint LSN from the cheapest source this sample has.
    pub fn lsn_and_checkpoint(&self, s: &Sample) -> Option<(u64, u64)> {
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
        .or_else(|| {
            let st = s.innodb_status.as_ref()?;
            Some((st.lsn?, st.checkpoint_lsn?))
        })
    }

    /// Capacity and the async/sync points from the server's variables (formulas in METRICS.md).
    pub fn redo_points(&self, info: &ServerInfo, latest: Option<&Sample>) -> Option<RedoPoints> {
        let page = info.var_u64("innodb_page_size").unwrap_or(16384);
        match self.redo {
            RedoModel::Mysql8030 => {
                let cap = latest
                    .and_then(|s| s.status("Innodb_redo_log_capacity_resized"))
                    .filter(|c| *c > 0)
                    .or_else(|| info.var_u64("innodb_redo_log_capacity"))?;
                Some(mysql_8030_points(cap))
            }
            RedoModel::Mysql80 => {
                let size = info.var_u64("innodb_log_file_size")?;
                let files = info.var_u64("innodb_log_files_in_group").unwrap_or(2);
                Some(mysql_80_points(size, files, page))
            }
            RedoModel::Mysql57 => {
                let size = info.var_u64("innodb_log_file_size")?;
                let files = info.var_u64("innodb_log_files_in_group").unwrap_or(2);
                let tc = info.var_u64("innodb_thread_concurrency").unwrap_or(0);
                Some(mysql_57_points(size, files, page, tc))
            }
            RedoModel::Mariadb => {
                let size = info.var_u64("innodb_log_file_size")?;
                Some(mariadb_points(size, page, (self.major, self.minor)))
            }
        }
    }

    /// What the DBA changes to resize redo on this flavour.
    pub fn redo_size_variable(&self) -> &'static str {
        match self.redo {
            RedoModel::Mysql8030 => "innodb_redo_log_capacity",
            RedoModel::Mysql57 | RedoModel::Mysql80 => {
                "innodb_log_file_size × innodb_log_files_in_group"
            }
            RedoModel::Mariadb => "innodb_log_file_size",
        }
    }

    /// MariaDB names its furious-flush point `M`, not "sync": say so where it is drawn.
    pub fn sync_point_name(&self) -> &'static str {
        if self.is_mariadb() {
            "furious flush (M)"
        } else {
            "sync"
        }
    }

    /// The redo points this server would have at `capacity` bytes of redo, its other settings
    /// unchanged: `page` size, `files` in the group (5.7 / 8.0 < .30: capacity = files × file
    /// size) and `thread_concurrency` (5.7). Sizing inverts this numerically.
    pub fn redo_points_at_capacity(
        &self,
        capacity: u64,
        page: u64,
        files: u64,
        thread_concurrency: u64,
    ) -> RedoPoints {
        let files = files.max(1);
        match self.redo {
            RedoModel::Mysql8030 => mysql_8030_points(capacity),
            RedoModel::Mysql80 => mysql_80_points(capacity / files, files, page),
            RedoModel::Mysql57 => {
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
            RedoModel::Mysql57 | RedoModel::Mysql80 => (files.max(1) * 4 * MIB, 512 * GIB),
            RedoModel::Mariadb => (4 * MIB, 512 * GIB),
        }
    }

    /// How many files the size variable multiplies by: `innodb_log_file_size` is per file on
    /// MySQL 5.7 / 8.0 < .30 (× `innodb_log_files_in_group`); one setting elsewhere.
    pub fn redo_size_files(&self, files_in_group: u64) -> u64 {
        match self.redo {
            RedoModel::Mysql57 | RedoModel::Mysql80 => files_in_group.max(1),
            RedoModel::Mysql8030 | RedoModel::Mariadb => 1,
        }
    }

    /// What happens to writes past the sync line, in the DBA's words.
    pub fn sync_point_effect(&self) -> &'static str {
        if self.is_mariadb() {
            "furious flushing past M: user threads wait for the page cleaner"
        } else {
            "sync flushing: writes stall until the checkpoint advances"
        }
    }
}

const LOG_FILE_HDR_SIZE: u64 = 2048;
const LOG_BLOCK: u64 = 512;

fn align_down(v: u64, to: u64) -> u64 {
    v - v % to
}

/// MySQL 5.7 `log_calc_max_ages`.
pub fn mysql_57_points(
    file_size: u64,
    files: u64,
    page: u64,
    thread_concurrency: u64,
) -> RedoPoints {
    let mut cap = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    cap -= cap / 10;
    let free = 4 * page * (10 + thread_concurrency) + 8 * page;
    let mut margin = cap.saturating_sub(free);
    margin -= margin / 10;
    RedoPoints {
        capacity: files.saturating_mul(file_size),
        async_point: margin - margin / 8,
        sync_point: margin - margin / 16,
    }
}

/// MySQL 8.0.0–8.0.29 `log_calc_max_ages`.
pub fn mysql_80_points(file_size: u64, files: u64, page: u64) -> RedoPoints {
    let real = files.saturating_mul(file_size.saturating_sub(LOG_FILE_HDR_SIZE));
    let safety = (real / 10).min(1024 * page);
    let writer = real - safety;
    let f = writer - writer * 5 / 100;
    RedoPoints {
        capacity: files.saturating_mul(file_size),
        async_point: f - f / 8,
        sync_point: f - f / 16,
    }
}

/// MySQL ≥ 8.0.30 (`log0files_capacity.cc`): 32 files, hard → soft logical capacity, with the
/// server's own alignment to 512-byte log blocks.
pub fn mysql_8030_points(capacity: u64) -> RedoPoints {
    const LOG_N_FILES: u64 = 32;
    const OVERHEAD: u64 = (LOG_N_FILES - 1) * LOG_FILE_HDR_SIZE + 128 * 1024;
    let lsn_capacity = (capacity * (LOG_N_FILES - 2) / LOG_N_FILES).saturating_sub(OVERHEAD);
    let next_file_margin = capacity / LOG_N_FILES * 10 / 100;
    let hard = align_down(lsn_capacity.saturating_sub(next_file_margin), LOG_BLOCK);
    let soft = align_down((hard as f64 * 0.95).floor() as u64, LOG_BLOCK);
    RedoPoints {
        capacity,
        async_point: soft - soft / 8,
        sync_point: align_down(soft - soft / 16, LOG_BLOCK),
    }
}

/// MariaDB ≥ 10.5.7 `log_t::set_capacity`: async = M − M/8; "sync" is M itself.
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
    RedoPoints {
        capacity: file_size,
        async_point: m - m / 8,
        sync_point: m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    #[test]
    fn mysql_8030_at_100_mib_matches_the_server() {
        let p = mysql_8030_points(100 * MIB);
        assert_eq!(p.async_point, 81_281_088);
        assert_eq!(p.sync_point, 87_086_592);
        assert_eq!(p.capacity, 104_857_600);
    }

    #[test]
    fn mariadb_64_mib_matches_measured_checkpoint_max_age() {
        // Measured on 10.11: Innodb_checkpoint_max_age = 53,640,439 and
        // log_max_modified_age_async = 46,935,385 at a 64 MiB log.
        let p = mariadb_points(64 * MIB, 16384, (10, 11));
        assert_eq!(p.sync_point, 53_640_439);
        assert_eq!(p.async_point, 46_935_385);
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

    #[test]
    fn mysql_80_by_hand() {
        // 2 × 48 MiB: real = 100,659,200; safety = min(10,065,920, 16 MiB) = 10,065,920.
        let p = mysql_80_points(48 * MIB, 2, 16384);
        let writer: u64 = 100_659_200 - 10_065_920; // 90,593,280
        let f = writer - writer * 5 / 100; // 86,063,616
        assert_eq!(f, 86_063_616);
        assert_eq!(p.async_point, 86_063_616 - 10_757_952);
        assert_eq!(p.sync_point, 86_063_616 - 5_378_976);
    }
}
