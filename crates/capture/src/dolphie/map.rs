//! Dolphie rows → samples, purely: which part of a decoded replay row feeds which sample field,
//! what a row lacks (unknown, never zero), and the variable changes and restarts the rows make.
//! No SQLite here; `mod.rs` reads the file, this decides.
//!
//! A row (Dolphie 6.x, replay schema 2) is one JSON object per poll: `global_status` (SHOW
//! GLOBAL STATUS; Dolphie ≥ 6.17 asks for a fixed list of names, older ones kept every
//! counter), `global_variables` (SHOW GLOBAL VARIABLES, whole), `innodb_metrics` (`NAME →
//! COUNT` for a few INNODB_METRICS counters, `trx_rseg_history_len` among them) and
//! `processlist` (PROCESSLIST joined to INNODB_TRX, sessions running a statement only).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::Note;
use innodebt_server::flavor::{Flavor, FlavorKind, METRICS, STATUS, VARIABLES};
use innodebt_server::sample::{
    MetricValue, Sample, ServerInfo, SourceEvent, SourceKind, TrxRow, Unavailable,
};

/// Why the blocker can be unknown although the file has a processlist.
pub const IDLE_UNSEEN: &str = "not in Dolphie's file: Dolphie records only sessions running a statement, so an idle transaction holding a read view (the usual purge blocker) is absent";

/// What the figures need, in the DBA's words, and the fields any one of which provides it
/// (`s:` status, `m:` INNODB_METRICS, `v:` variable, as they stand after the mapping).
const NEEDS: &[(&str, &[&str])] = &[
    (
        "checkpoint age",
        &[
            "s:Innodb_lsn_last_checkpoint",
            "s:Innodb_redo_log_checkpoint_lsn",
        ],
    ),
    (
        "history list length",
        &["s:Innodb_history_list_length", "m:trx_rseg_history_len"],
    ),
    ("dirty pages", &["s:Innodb_buffer_pool_pages_dirty"]),
    ("pages flushed", &["s:Innodb_buffer_pool_pages_flushed"]),
    (
        "flush sources (adaptive, sync, LRU)",
        &["m:buffer_flush_adaptive_total_pages"],
    ),
    (
        "purge rate",
        &["m:purge_del_mark_records", "m:purge_undo_log_pages"],
    ),
    ("DML delay", &["m:purge_dml_delay_usec"]),
    ("undo size", &["m:trx_rseg_current_size"]),
    (
        "redo capacity",
        &["v:innodb_log_file_size", "v:innodb_redo_log_capacity"],
    ),
    ("innodb_io_capacity", &["v:innodb_io_capacity"]),
    ("innodb_max_purge_lag", &["v:innodb_max_purge_lag"]),
];

/// Figures no Dolphie file holds, whatever its version.
const NEVER: &[&str] = &[
    "idle transactions (the usual purge blocker: Dolphie records only sessions running a statement)",
    "open and read-write transaction counts",
];

/// One `variable_changes` row: Dolphie's record of a global variable changing at run time
/// (and of `Uptime` going back: a restart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub at: DateTime<Utc>,
    pub name: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

impl Change {
    /// The note on the timeline.
    pub fn note(&self) -> Note {
        let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
        let text = if self.name == "Uptime" {
            format!(
                "server restarted (Dolphie saw Uptime go from {} to {})",
                shown(&self.old),
                shown(&self.new)
            )
        } else {
            format!(
                "runtime change (recorded by Dolphie): {} {} → {}",
                self.name,
                shown(&self.old),
                shown(&self.new)
            )
        };
        Note::new(self.at, &text)
    }
}

/// The samples and their story, built row by row.
#[derive(Debug, Default)]
pub struct Mapped {
    pub info: Option<ServerInfo>,
    pub events: Vec<SourceEvent>,
    /// Figures the file does not provide: unknown throughout, never zero.
    pub unknown: Vec<&'static str>,
    pub samples: usize,
    /// Times the server restarted inside the file (uptime went back).
    pub restarts: usize,
    /// Whether dirty pages were computed from `Innodb_buffer_pool_bytes_dirty`.
    pub dirty_from_bytes: bool,
}

/// Builds [`Mapped`] one decoded row at a time, so a day of rows is never held decoded.
#[derive(Debug)]
pub struct Mapper {
    label: String,
    out: Mapped,
    have: BTreeSet<String>,
    current: BTreeMap<String, String>,
    first: Option<DateTime<Utc>>,
    last_uptime: Option<u64>,
    /// Seconds since the first row, summed from Dolphie's own poll intervals where it
    /// records them (rows are stamped in whole seconds).
    mono: f64,
    last_at: Option<DateTime<Utc>>,
}

fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f.round() as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "ON" } else { "OFF" }.into()),
        _ => None,
    }
}

fn text_field(row: &Value, key: &str) -> Option<String> {
    row.get(key)
        .and_then(as_text)
        .filter(|s| !s.trim().is_empty())
}

/// The relevant variables of a row (lower-case names, as innodebt keeps them).
fn variables(row: &Value) -> BTreeMap<String, String> {
    let Some(vars) = row.get("global_variables").and_then(Value::as_object) else {
        return BTreeMap::new();
    };
    vars.iter()
        .filter_map(|(k, v)| {
            let name = k.to_ascii_lowercase();
            VARIABLES
                .contains(&name.as_str())
                .then(|| Some((name, as_text(v)?)))
                .flatten()
        })
        .collect()
}

/// Processlist rows with a transaction, oldest first (INNODB_TRX's order). Dolphie does not
/// record the transaction id nor the isolation level: both stay unknown.
fn transactions(row: &Value) -> Vec<TrxRow> {
    let Some(list) = row.get("processlist").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut trx: Vec<TrxRow> = list
        .iter()
        .filter_map(|t| {
            let state = text_field(t, "trx_state")?;
            if state == "N/A" {
                return None;
            }
            Some(TrxRow {
                trx_id: String::new(),
                state,
                age_s: t.get("trx_time").and_then(as_u64).unwrap_or(0),
                isolation: None,
                thread_id: t.get("id").and_then(as_u64),
                user: text_field(t, "user"),
                host: text_field(t, "host"),
                command: text_field(t, "command"),
                query: text_field(t, "query"),
                rows_modified: t.get("trx_rows_modified").and_then(as_u64),
            })
        })
        .collect();
    trx.sort_by_key(|t| std::cmp::Reverse(t.age_s));
    trx
}

impl Mapper {
    /// `label` names the source in the server info (`dolphie HOST:PORT`).
    pub fn new(label: &str) -> Mapper {
        Mapper {
            label: label.to_string(),
            out: Mapped::default(),
            have: BTreeSet::new(),
            current: BTreeMap::new(),
            first: None,
            last_uptime: None,
            mono: 0.0,
            last_at: None,
        }
    }

    /// One decoded row, recorded at `at`.
    pub fn push(&mut self, at: DateTime<Utc>, row: &Value) {
        let vars = variables(row);
        for k in vars.keys() {
            self.have.insert(format!("v:{k}"));
        }
        let info = match &self.out.info {
            None => {
                let info = ServerInfo {
                    label: self.label.clone(),
                    version: vars.get("version").cloned().unwrap_or_default(),
                    version_comment: vars.get("version_comment").cloned().unwrap_or_default(),
                    flavor: Flavor::from_variables(&vars),
                    variables: vars.clone(),
                    // A Dolphie file holds no error log.
                    recovery_log: None,
                };
                self.current = vars;
                self.out.events.push(SourceEvent::Connected {
                    at,
                    info: info.clone(),
                });
                self.out.info = Some(info.clone());
                info
            }
            Some(info) => {
                let changed: BTreeMap<String, String> = vars
                    .into_iter()
                    .filter(|(k, v)| self.current.get(k) != Some(v))
                    .collect();
                if !changed.is_empty() {
                    self.current.extend(changed.clone());
                    self.out.events.push(SourceEvent::Variables {
                        at,
                        variables: changed,
                    });
                }
                info.clone()
            }
        };

        let status = self.status(row, info.flavor);
        let uptime = status.get("Uptime").copied();
        if let (Some(before), Some(now)) = (self.last_uptime, uptime)
            && now < before
        {
            self.out.restarts += 1;
            let mut again = info.clone();
            again.variables = self.current.clone();
            self.out
                .events
                .push(SourceEvent::Connected { at, info: again });
        }
        self.last_uptime = uptime.or(self.last_uptime);

        let mut metrics = BTreeMap::new();
        if let Some(m) = row.get("innodb_metrics").and_then(Value::as_object) {
            for (name, v) in m {
                let Some(known) = METRICS.iter().find(|k| **k == name.as_str()) else {
                    continue;
                };
                let Some(count) = v.as_i64().or_else(|| v.as_f64().map(|f| f.round() as i64))
                else {
                    continue;
                };
                self.have.insert(format!("m:{known}"));
                // Dolphie reads COUNT only; the counters it asks for are on by default.
                metrics.insert(
                    known.to_string(),
                    MetricValue {
                        count,
                        enabled: true,
                    },
                );
            }
        }
        if status.is_empty() && metrics.is_empty() {
            return;
        }
        for k in status.keys() {
            self.have.insert(format!("s:{k}"));
        }

        let first = *self.first.get_or_insert(at);
        let by_stamp = (at - first).num_milliseconds() as f64 / 1000.0;
        // Dolphie ≥ 6.17 records the seconds since its previous poll: rows stamped in whole
        // seconds then still give rates over the true interval. A gap (a restart, a skipped
        // row) puts the sum behind the stamps: the stamps win past 2 s.
        let interval = row
            .get("global_status")
            .and_then(|g| g.get("replay_polling_interval"))
            .and_then(Value::as_f64)
            .filter(|s| *s > 0.0 && *s < 3600.0);
        self.mono = match (self.last_at, interval) {
            (None, _) => 0.0,
            (Some(_), Some(dt)) if (self.mono + dt - by_stamp).abs() <= 2.0 => self.mono + dt,
            _ => by_stamp,
        };
        self.last_at = Some(at);

        let mut s = Sample::new(at, self.mono);
        s.status = status;
        s.metrics = metrics;
        s.trx = transactions(row);
        s.unavailable.push(Unavailable {
            source: SourceKind::InnodbTrx,
            privilege: None,
            error: IDLE_UNSEEN.into(),
        });
        self.out.events.push(SourceEvent::Sample(Box::new(s)));
        self.out.samples += 1;
    }

    /// The status counters innodebt reads, as the server would have reported them.
    fn status(&mut self, row: &Value, flavor: Flavor) -> BTreeMap<String, u64> {
        let mut status: BTreeMap<String, u64> = BTreeMap::new();
        if let Some(g) = row.get("global_status").and_then(Value::as_object) {
            for (k, v) in g {
                if let (Some(name), Some(n)) =
                    (STATUS.iter().find(|s| **s == k.as_str()), as_u64(v))
                {
                    status.insert(name.to_string(), n);
                }
            }
        }
        // Where the server has no Innodb_lsn_current (MySQL), Dolphie stores
        // Innodb_os_log_written under that name: bytes written since start, not an LSN.
        if flavor.kind == FlavorKind::Mysql {
            status.remove("Innodb_lsn_current");
        }
        // MariaDB computes Innodb_checkpoint_age as Innodb_lsn_current minus
        // Innodb_lsn_last_checkpoint from the same read of log_sys
        // (srv_export_innodb_status, storage/innobase/srv/srv0srv.cc): the checkpoint LSN
        // Dolphie does not ask for is exactly their difference.
        if !status.contains_key("Innodb_lsn_last_checkpoint")
            && let (Some(lsn), Some(age)) = (
                status.get("Innodb_lsn_current").copied(),
                status.get("Innodb_checkpoint_age").copied(),
            )
            && age <= lsn
        {
            status.insert("Innodb_lsn_last_checkpoint".into(), lsn - age);
        }
        // Dolphie ≥ 6.17 asks for the dirty bytes, not the dirty pages: the server sums the
        // flush list's pages at their size (buf_pool.flush_list_bytes), so ÷ innodb_page_size
        // is the page count wherever no table is ROW_FORMAT=COMPRESSED.
        if !status.contains_key("Innodb_buffer_pool_pages_dirty")
            && let Some(bytes) = status.get("Innodb_buffer_pool_bytes_dirty").copied()
        {
            let page = self
                .current
                .get("innodb_page_size")
                .and_then(|p| p.parse::<u64>().ok())
                .filter(|p| *p > 0)
                .unwrap_or(16384);
            status.insert("Innodb_buffer_pool_pages_dirty".into(), bytes / page);
            self.out.dirty_from_bytes = true;
        }
        status
    }

    /// The events the rows made since the last call, oldest first: a long file's events are
    /// handed on as they come, not held.
    pub fn take_events(&mut self) -> Vec<SourceEvent> {
        std::mem::take(&mut self.out.events)
    }

    /// The samples (those not yet taken), and what the rows never held.
    pub fn finish(mut self) -> Mapped {
        self.out.unknown = NEEDS
            .iter()
            .filter(|(_, any)| !any.iter().any(|k| self.have.contains(*k)))
            .map(|(what, _)| *what)
            .chain(NEVER.iter().copied())
            .collect();
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + s, 0).unwrap()
    }

    fn row(lsn: u64, age: u64, history: i64, uptime: u64, batch: u64) -> Value {
        json!({
            "global_status": {
                "Uptime": uptime, "Innodb_lsn_current": lsn, "Innodb_checkpoint_age": age,
                "Innodb_buffer_pool_bytes_dirty": 16384 * 7, "Innodb_os_log_written": 5,
                "Queries": 10, "replay_polling_interval": 1.02, "wsrep_cluster_status": "Disconnected"
            },
            "global_variables": {
                "version": "10.11.19-MariaDB-0+deb12u1", "version_comment": "Debian 12",
                "innodb_log_file_size": 100663296, "innodb_purge_batch_size": batch,
                "innodb_page_size": 16384, "datadir": "/var/lib/mysql/"
            },
            "innodb_metrics": {"trx_rseg_history_len": history, "lock_deadlocks": 0},
            "processlist": [
                {"id": 7, "user": "app", "host": "10.0.0.1", "command": "Query", "query": "SELECT 1",
                 "trx_state": "RUNNING", "trx_time": 4, "trx_rows_modified": 0},
                {"id": 9, "user": "app", "host": "10.0.0.2", "command": "Query", "query": "SELECT 2",
                 "trx_state": "RUNNING", "trx_time": 40, "trx_rows_modified": 3},
                {"id": 8, "user": "batch", "command": "Query", "query": "SELECT 3",
                 "trx_state": "", "trx_time": null}
            ]
        })
    }

    #[test]
    fn a_mariadb_row_maps_to_the_sample_innodebt_would_have_polled() {
        let mut m = Mapper::new("dolphie db:3306");
        m.push(t(0), &row(1000, 100, 5, 50, 300));
        m.push(t(1), &row(2000, 300, 9, 51, 300));
        let out = m.finish();
        assert_eq!(out.samples, 2);
        let info = out.info.as_ref().unwrap();
        assert_eq!(info.flavor.kind, FlavorKind::Mariadb);
        assert_eq!(info.var("innodb_purge_batch_size"), Some("300"));
        assert!(
            info.var("datadir").is_none(),
            "only the variables innodebt reads"
        );
        let samples: Vec<&Sample> = out.events.iter().filter_map(|e| e.as_sample()).collect();
        let s = samples[1];
        assert_eq!(s.status("Innodb_lsn_last_checkpoint"), Some(1700));
        assert_eq!(s.status("Innodb_buffer_pool_pages_dirty"), Some(7));
        assert!(
            !s.status.contains_key("Queries") && !s.status.contains_key("wsrep_cluster_status")
        );
        assert_eq!(s.metric("trx_rseg_history_len"), Some(9));
        assert!((s.mono_s - 1.02).abs() < 1e-9, "{}", s.mono_s);
        // Oldest first, the row without a transaction left out; no id, no isolation.
        assert_eq!(
            s.trx.iter().map(|t| t.thread_id).collect::<Vec<_>>(),
            [Some(9), Some(7)]
        );
        assert_eq!(s.trx[0].trx_id, "");
        assert_eq!(s.trx[0].rows_modified, Some(3));
        assert!(
            s.unavailable
                .iter()
                .any(|u| u.source == SourceKind::InnodbTrx)
        );
        assert!(out.dirty_from_bytes);
        for lacking in ["pages flushed", "purge rate", "DML delay", "undo size"] {
            assert!(out.unknown.contains(&lacking), "{:?}", out.unknown);
        }
        for held in [
            "checkpoint age",
            "history list length",
            "dirty pages",
            "redo capacity",
        ] {
            assert!(!out.unknown.contains(&held), "{:?}", out.unknown);
        }
    }

    #[test]
    fn variable_changes_and_restarts_become_events() {
        let mut m = Mapper::new("dolphie db:3306");
        m.push(t(0), &row(1000, 100, 5, 50, 300));
        m.push(t(1), &row(1100, 100, 5, 51, 100));
        m.push(t(9), &row(50, 10, 0, 2, 100));
        let out = m.finish();
        assert_eq!(out.restarts, 1);
        let vars: Vec<&BTreeMap<String, String>> = out
            .events
            .iter()
            .filter_map(|e| match e {
                SourceEvent::Variables { variables, .. } => Some(variables),
                _ => None,
            })
            .collect();
        assert_eq!(vars.len(), 1);
        assert_eq!(
            vars[0].get("innodb_purge_batch_size").map(String::as_str),
            Some("100")
        );
        let connected = out
            .events
            .iter()
            .filter(|e| matches!(e, SourceEvent::Connected { .. }))
            .count();
        assert_eq!(connected, 2);
        // A gap of 8 s against a recorded interval of 1.02 s: the stamps win.
        let last = out
            .events
            .iter()
            .rev()
            .filter_map(|e| e.as_sample())
            .next()
            .unwrap();
        assert!((last.mono_s - 9.0).abs() < 1e-9, "{}", last.mono_s);
    }

    #[test]
    fn mysql_keeps_no_lsn_dolphie_made_from_bytes_written() {
        let mut r = row(1000, 100, 5, 50, 300);
        r["global_variables"]["version"] = json!("8.0.36");
        r["global_variables"]["version_comment"] = json!("MySQL Community Server - GPL");
        r["global_status"]
            .as_object_mut()
            .unwrap()
            .remove("Innodb_checkpoint_age");
        let mut m = Mapper::new("dolphie db:3306");
        m.push(t(0), &r);
        let out = m.finish();
        let s = out.events.iter().find_map(|e| e.as_sample()).unwrap();
        assert_eq!(s.status("Innodb_lsn_current"), None);
        assert_eq!(s.status("Innodb_lsn_last_checkpoint"), None);
        assert!(out.unknown.contains(&"checkpoint age"), "{:?}", out.unknown);
    }

    #[test]
    fn the_notes_say_what_changed() {
        let c = Change {
            at: t(3),
            name: "innodb_purge_batch_size".into(),
            old: Some("127".into()),
            new: Some("100".into()),
        };
        assert_eq!(
            c.note().text,
            "runtime change (recorded by Dolphie): innodb_purge_batch_size 127 → 100"
        );
        let r = Change {
            name: "Uptime".into(),
            ..c
        };
        assert!(r.note().text.starts_with("server restarted"));
    }
}
