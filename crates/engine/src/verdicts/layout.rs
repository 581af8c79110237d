//! The server settings the redo formulas need besides the capacity (page size, files in the
//! group, thread concurrency), shared by the sizing advice and the what-if model.

use serde::{Deserialize, Serialize};

use innodebt_server::sample::ServerInfo;

/// Server settings the redo formulas need besides the capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedoLayout {
    pub page_size: u64,
    /// `innodb_log_files_in_group` (MySQL 5.7 / 8.0 < .30).
    pub files_in_group: u64,
    /// `innodb_thread_concurrency` (MySQL 5.7's margin).
    pub thread_concurrency: u64,
}

impl Default for RedoLayout {
    fn default() -> Self {
        RedoLayout {
            page_size: 16_384,
            files_in_group: 2,
            thread_concurrency: 0,
        }
    }
}

impl RedoLayout {
    /// From the server's variables, with InnoDB's defaults where one is missing.
    pub fn from_info(info: &ServerInfo) -> Self {
        let d = RedoLayout::default();
        RedoLayout {
            page_size: info.var_u64("innodb_page_size").unwrap_or(d.page_size),
            files_in_group: info
                .var_u64("innodb_log_files_in_group")
                .unwrap_or(d.files_in_group),
            thread_concurrency: info
                .var_u64("innodb_thread_concurrency")
                .unwrap_or(d.thread_concurrency),
        }
    }
}
