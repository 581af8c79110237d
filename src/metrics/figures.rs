//! The derived figures for one moment: exactly the headless JSON contract (`--once --format
//! json`). Unknown figures are `None` → `null`, never a made-up 0.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::sample::{SourceKind, Unavailable};
use crate::verdicts::{Recovery, Sizing, Verdict};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub server: ServerFigures,
    pub sampled_at: DateTime<Utc>,
    /// Seconds between the two samples the rates come from.
    pub interval_s: Option<f64>,
    pub redo: Redo,
    pub flush: Flush,
    pub history: History,
    pub purge: Purge,
    pub blocker: Option<Blocker>,
    pub dirty: Dirty,
    pub undo: Undo,
    /// What the figures mean, most severe first (`healthy` alone when nothing holds).
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// If the server crashed now: redo to apply and the estimated recovery time.
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// Peak checkpoint age over the session and the redo capacity that would keep it below
    /// the async point with headroom.
    #[serde(default)]
    pub sizing: Option<Sizing>,
    /// Every INNODB_METRICS counter the panels use that is switched off.
    #[serde(default)]
    pub metrics_off: Vec<String>,
    /// Every source the server refused (or could not give), the privilege that would unlock
    /// it, and which of the figures above are `null` because of it.
    #[serde(default)]
    pub unavailable: Vec<Unreadable>,
    pub warnings: Vec<String>,
}

/// A source that could not be read, and what that leaves unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unreadable {
    pub source: SourceKind,
    /// The statement or table, as the DBA would run it (`SHOW ENGINE INNODB STATUS`).
    pub what: String,
    /// The privilege that would unlock it (`PROCESS`), when the server said access denied.
    pub privilege: Option<String>,
    /// The server's own words.
    pub error: String,
    /// The figures (JSON paths: `purge.state`, `blocker`, `flush.by_source_pages_per_s.sync`)
    /// that are `null` because of it.
    pub figures: Vec<String>,
}

impl Unreadable {
    /// `needs PROCESS privilege (GRANT PROCESS ON *.* TO the account)`, else the server's error.
    pub fn reason(&self) -> String {
        match &self.privilege {
            Some(p) => format!("needs {p} privilege (GRANT {p} ON *.* TO the account)"),
            None => self.error.clone(),
        }
    }
}

/// The figures (JSON paths) each source feeds. A figure fed by several sources is listed
/// under each: it is attributed to a refused source only when it really came out `null`.
pub fn figures_fed_by(source: SourceKind) -> &'static [&'static str] {
    const REDO_LSN: [&str; 5] = [
        "redo.lsn",
        "redo.checkpoint_lsn",
        "redo.checkpoint_age_bytes",
        "redo.checkpoint_age_pct_of_capacity",
        "redo.written_bytes_per_s",
    ];
    match source {
        SourceKind::GlobalStatus => &[
            "server.uptime_s",
            REDO_LSN[0],
            REDO_LSN[1],
            REDO_LSN[2],
            REDO_LSN[3],
            REDO_LSN[4],
            "flush.total_pages_per_s",
            "flush.by_source_pages_per_s.lru",
            "flush.flush_list_pages_per_s",
            "history.length",
            "history.growth_per_s",
            "purge.inflow_records_per_s",
            "purge.dml_delay_us",
            "purge.dml_delay_applied_us",
            "dirty.pages",
            "dirty.data_pages",
            "dirty.free_pages",
            "dirty.pct",
            "dirty.bytes",
        ],
        SourceKind::InnodbMetrics => &[
            REDO_LSN[0],
            REDO_LSN[1],
            REDO_LSN[2],
            REDO_LSN[3],
            REDO_LSN[4],
            "flush.by_source_pages_per_s.adaptive",
            "flush.by_source_pages_per_s.lru",
            "flush.by_source_pages_per_s.sync",
            "flush.by_source_pages_per_s.background",
            "flush.by_source_pages_per_s.neighbor",
            "flush.flush_list_pages_per_s",
            "history.length",
            "history.growth_per_s",
            "purge.records_per_s",
            "purge.undo_pages_per_s",
            "undo.size_bytes",
            "undo.reads_per_s",
            "undo.resident_pct",
        ],
        SourceKind::InnodbTrx => &["blocker", "history.held_back"],
        SourceKind::InnodbStatus => &[
            "purge.state",
            REDO_LSN[0],
            REDO_LSN[1],
            REDO_LSN[2],
            REDO_LSN[3],
            "history.length",
        ],
        SourceKind::UndoScan => &["undo.cached_pages", "undo.resident_pct", "undo.scanned_at"],
        SourceKind::Variables => &[
            "redo.capacity_bytes",
            "redo.async_point_bytes",
            "redo.sync_point_bytes",
            "flush.io_capacity",
            "flush.io_capacity_max",
            "purge.threads",
            "purge.batch_size",
            "purge.max_purge_lag",
            "purge.max_purge_lag_delay_us",
            "dirty.max_pct",
            "dirty.lwm_pct",
        ],
    }
}

impl Figures {
    /// Fills [`Figures::unavailable`] from the sources refused for this moment: each names
    /// the figures it leaves `null`.
    pub fn note_unavailable(&mut self, refused: &[Unavailable]) {
        if refused.is_empty() {
            self.unavailable.clear();
            return;
        }
        let json = serde_json::to_value(&*self).unwrap_or_default();
        let is_null = |path: &str| {
            let pointer = format!("/{}", path.replace('.', "/"));
            json.pointer(&pointer)
                .is_none_or(serde_json::Value::is_null)
        };
        self.unavailable = refused
            .iter()
            .map(|u| Unreadable {
                source: u.source,
                what: u.source.describe().to_string(),
                privilege: u.privilege.clone(),
                error: u.error.clone(),
                figures: figures_fed_by(u.source)
                    .iter()
                    .filter(|f| is_null(f))
                    .map(|f| (*f).to_string())
                    .collect(),
            })
            .collect();
    }

    /// The privilege whose absence keeps `figure` (a JSON path, or a prefix of some:
    /// `flush.by_source_pages_per_s`) unknown.
    pub fn missing_privilege(&self, figure: &str) -> Option<&str> {
        let under = |f: &str| {
            f == figure
                || f.strip_prefix(figure)
                    .is_some_and(|rest| rest.starts_with('.'))
        };
        self.unavailable
            .iter()
            .filter(|u| u.figures.iter().any(|f| under(f)))
            .find_map(|u| u.privilege.as_deref())
    }

    /// Why `source` gave nothing for these figures, when it was refused.
    pub fn refused(&self, source: SourceKind) -> Option<&Unreadable> {
        self.unavailable.iter().find(|u| u.source == source)
    }

    /// `needs PROCESS privilege` when a missing privilege keeps any of `figures` unknown:
    /// what a panel shows instead of a bare `n/a`.
    pub fn privilege_note(&self, figures: &[&str]) -> Option<String> {
        figures
            .iter()
            .find_map(|f| self.missing_privilege(f))
            .map(|p| format!("needs {p} privilege"))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFigures {
    pub flavor: String,
    pub version: String,
    pub uptime_s: Option<u64>,
    /// Where we are connected (never credentials).
    pub label: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Redo {
    pub lsn: Option<u64>,
    pub checkpoint_lsn: Option<u64>,
    pub checkpoint_age_bytes: Option<u64>,
    pub capacity_bytes: Option<u64>,
    pub async_point_bytes: Option<u64>,
    /// On MariaDB this is the furious-flush point M (there is no separate sync point).
    pub sync_point_bytes: Option<u64>,
    /// What the sync line means on this flavour ("sync" or "furious flush (M)").
    pub sync_point_name: String,
    pub checkpoint_age_pct_of_capacity: Option<f64>,
    /// Redo bytes written per second (`Innodb_os_log_written` or LSN advance).
    pub written_bytes_per_s: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BySource {
    pub adaptive: Option<f64>,
    pub lru: Option<f64>,
    pub sync: Option<f64>,
    pub background: Option<f64>,
    pub neighbor: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Flush {
    pub total_pages_per_s: Option<f64>,
    pub by_source_pages_per_s: BySource,
    /// Flush-list flushing ≈ total − LRU, for when the per-source counters are off.
    pub flush_list_pages_per_s: Option<f64>,
    /// INNODB_METRICS counters this panel needs that are switched off.
    pub disabled_counters: Vec<String>,
    pub io_capacity: Option<u64>,
    pub io_capacity_max: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub length: Option<u64>,
    pub growth_per_s: Option<f64>,
    /// Seconds until `innodb_max_purge_lag` is reached at the current growth, when it is set.
    pub seconds_to_max_purge_lag: Option<f64>,
    /// History the oldest read view holds back (history now − history when it started).
    #[serde(default)]
    pub held_back: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Purge {
    /// Undo records purged per second (del-mark + update/extern).
    pub records_per_s: Option<f64>,
    pub undo_pages_per_s: Option<f64>,
    /// Rows updated + deleted per second: the records purge will have to process later.
    pub inflow_records_per_s: Option<f64>,
    /// The delay InnoDB's formula gives each DML row now, µs (0 when lag is off).
    pub dml_delay_us: Option<u64>,
    /// What writes actually pay now, µs: the formula's delay, except on flavours that don't
    /// apply it while a read view blocks purge (MariaDB 10.11, measured) — there it is 0 and
    /// `dml_delay_us` is only armed.
    #[serde(default)]
    pub dml_delay_applied_us: Option<u64>,
    pub state: Option<String>,
    pub threads: Option<u64>,
    pub batch_size: Option<u64>,
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay_us: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Blocker {
    pub trx_id: String,
    pub thread_id: Option<u64>,
    pub user: Option<String>,
    pub host: Option<String>,
    pub age_s: u64,
    pub state: String,
    pub query: Option<String>,
    pub isolation: Option<String>,
    pub command: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dirty {
    pub pages: Option<u64>,
    pub data_pages: Option<u64>,
    pub free_pages: Option<u64>,
    /// InnoDB's own ratio: dirty / (data + free) × 100.
    pub pct: Option<f64>,
    pub max_pct: Option<f64>,
    /// Effective low-water mark (MariaDB's 0 means "use max").
    pub lwm_pct: Option<f64>,
    pub bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Undo {
    pub size_bytes: Option<u64>,
    /// Undo pages read from disk per second: undo no longer cached.
    pub reads_per_s: Option<f64>,
    /// Undo pages in the buffer pool at the last residency scan.
    pub cached_pages: Option<u64>,
    pub resident_pct: Option<f64>,
    /// When the last residency scan ran.
    pub scanned_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {

    use chrono::{TimeZone, Utc};

    use crate::innodb_status::InnodbStatus;
    use crate::metrics::Deriver;
    use crate::sample::{Sample, ServerInfo, SourceEvent, SourceKind, Unavailable};

    const DENIED: &str = "error 1227: Access denied; you need (at least one of) the PROCESS \
                          privilege(s) for this operation";

    fn connected() -> Deriver {
        let mut d = Deriver::new();
        d.push(&SourceEvent::Connected {
            at: Utc::now(),
            info: ServerInfo::mariadb_10_11(&[
                ("innodb_log_file_size", "16777216".into()),
                ("innodb_purge_threads", "4".into()),
            ]),
        });
        d
    }

    fn refused(source: SourceKind) -> Unavailable {
        Unavailable {
            source,
            privilege: Some("PROCESS".into()),
            error: DENIED.into(),
        }
    }

    /// A USAGE-only poll: status readable, INNODB_METRICS / INNODB_TRX refused; SEIS tried
    /// (and refused) only when `seis_tried`.
    fn usage_sample(t: f64, seis_tried: bool) -> Sample {
        let at = Utc
            .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
            .single()
            .expect("time")
            + chrono::Duration::milliseconds((t * 1000.0) as i64);
        let mut s = Sample::new(at, t);
        for (k, v) in [
            ("Uptime", 100 + t as u64),
            ("Innodb_lsn_current", 5_000),
            ("Innodb_lsn_last_checkpoint", 4_000),
            ("Innodb_history_list_length", 10),
            ("Innodb_buffer_pool_pages_flushed", 100 + 10 * t as u64),
            // MariaDB answers this name in lower case.
            ("Innodb_buffer_pool_pages_lru_flushed", 50 + 5 * t as u64),
        ] {
            s.status.insert(k.into(), v);
        }
        s.unavailable = vec![
            refused(SourceKind::InnodbMetrics),
            refused(SourceKind::InnodbTrx),
        ];
        if seis_tried {
            s.unavailable.push(refused(SourceKind::InnodbStatus));
        }
        s
    }

    #[test]
    fn a_refused_source_names_the_null_figures_it_leaves() {
        let mut d = connected();
        let _ = d.push_sample(&usage_sample(0.0, true));
        let f = d.push_sample(&usage_sample(1.0, false)).expect("figures");
        // Readable without PROCESS: not listed, not null.
        assert_eq!(f.redo.checkpoint_age_bytes, Some(1_000));
        assert_eq!(f.flush.by_source_pages_per_s.lru, Some(5.0));
        assert_eq!(f.missing_privilege("redo.checkpoint_age_bytes"), None);
        // INNODB_METRICS: by source (but LRU), purge rates, undo.
        let metrics = f
            .refused(SourceKind::InnodbMetrics)
            .expect("metrics refused");
        assert!(
            metrics
                .figures
                .contains(&"flush.by_source_pages_per_s.sync".to_string())
        );
        assert!(
            !metrics
                .figures
                .contains(&"flush.by_source_pages_per_s.lru".to_string())
        );
        assert_eq!(
            metrics.reason(),
            "needs PROCESS privilege (GRANT PROCESS ON *.* TO the account)"
        );
        assert_eq!(
            f.missing_privilege("flush.by_source_pages_per_s"),
            Some("PROCESS")
        );
        // A counter unreadable is not a counter off: `m` could not switch it on.
        assert!(
            f.flush.disabled_counters.is_empty(),
            "{:?}",
            f.flush.disabled_counters
        );
        // INNODB_TRX: the blocker is unknown, not absent.
        assert_eq!(f.blocker, None);
        assert_eq!(f.missing_privilege("blocker"), Some("PROCESS"));
        assert_eq!(
            f.privilege_note(&["purge.state", "blocker"]).as_deref(),
            Some("needs PROCESS privilege")
        );
        // SEIS was refused on the sample before and not asked since: still refused.
        let seis = f
            .refused(SourceKind::InnodbStatus)
            .expect("SEIS refusal stands");
        assert_eq!(seis.figures, vec!["purge.state".to_string()]);
        assert!(
            f.warnings
                .iter()
                .any(|w| w.starts_with("SHOW ENGINE INNODB STATUS unavailable: needs the PROCESS"))
        );
    }

    #[test]
    fn a_slow_source_read_again_clears_its_refusal() {
        let mut d = connected();
        let _ = d.push_sample(&usage_sample(0.0, true));
        let mut read = usage_sample(1.0, false);
        read.innodb_status = Some(InnodbStatus {
            purge_state: Some("running".into()),
            ..InnodbStatus::default()
        });
        let f = d.push_sample(&read).expect("figures");
        assert!(f.refused(SourceKind::InnodbStatus).is_none());
        let f = d.push_sample(&usage_sample(2.0, false)).expect("figures");
        assert!(f.refused(SourceKind::InnodbStatus).is_none());
        assert_eq!(f.purge.state.as_deref(), Some("running"));
        // A reconnection asks again from scratch.
        let _ = d.push_sample(&usage_sample(3.0, true));
        let mut d2 = d.clone();
        d2.push(&SourceEvent::Connected {
            at: Utc::now(),
            info: d.info().cloned().expect("info"),
        });
        let f = d2.push_sample(&usage_sample(4.0, false)).expect("figures");
        assert!(f.refused(SourceKind::InnodbStatus).is_none());
    }

    #[test]
    fn growing_history_with_an_unseen_blocker_is_not_blamed_on_purge() {
        let mut d = connected();
        let mut last = None;
        for t in 0..30 {
            let mut s = usage_sample(f64::from(t), t == 0);
            s.status
                .insert("Innodb_history_list_length".into(), 1_000 + 200 * t as u64);
            last = d.push_sample(&s);
        }
        let f = last.expect("figures");
        let v = f
            .verdicts
            .iter()
            .find(|v| v.message.contains("grows"))
            .unwrap_or_else(|| panic!("growing history is a finding: {:?}", f.verdicts));
        assert!(
            v.message
                .contains("whether a read view blocks purge is unknown")
                && v.message.contains("INNODB_TRX needs PROCESS privilege"),
            "{}",
            v.message
        );
        assert!(
            f.verdicts
                .iter()
                .all(|v| !v.message.contains("no read view blocking purge")),
            "{:?}",
            f.verdicts
        );
    }

    #[test]
    fn nothing_refused_nothing_listed() {
        let mut d = connected();
        let mut s = usage_sample(0.0, false);
        s.unavailable.clear();
        let f = d.push_sample(&s).expect("figures");
        assert!(f.unavailable.is_empty());
        assert_eq!(f.privilege_note(&["blocker"]), None);
    }
}
