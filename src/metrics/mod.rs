//! Pure derivation: raw samples in, [`Figures`] out. No I/O, no clock: the time of a figure is
//! the time of its sample, so live, replay and tests derive exactly the same numbers.

pub mod figures;
pub mod rates;
pub mod series;

use chrono::{DateTime, Utc};

pub use figures::*;
use rates::{counter_rate, gauge_change, metric_rate, sum_known};

use crate::innodb_status::InnodbStatus;
use crate::sample::{Sample, ServerInfo, SourceEvent, SourceKind, TrxRow, Unavailable, UndoScan};
use crate::source::flavor::{self, Flavor};
use crate::verdicts::{EngineConfig, RecoveryModel, RedoLayout, VerdictEngine};

/// A transaction must be at least this old to be named as the purge blocker: autocommit
/// writes pass through INNODB_TRX for milliseconds and block nothing.
pub const BLOCKER_MIN_AGE_S: u64 = 2;

/// Holds what derivation needs between samples: the server, the previous sample, the
/// slow-cadence facts (last SEIS, last residency scan) that later samples keep showing, and
/// the verdict engine that reads the figures over time.
#[derive(Debug, Clone)]
pub struct Deriver {
    info: Option<ServerInfo>,
    prev: Option<Sample>,
    last_status: Option<(DateTime<Utc>, InnodbStatus)>,
    last_undo_scan: Option<(DateTime<Utc>, UndoScan)>,
    /// Slow-cadence sources (SEIS, the residency scan) refused on their last try: they are
    /// not asked every tick, so the refusal stands until one of them is read again.
    slow_refused: Vec<Unavailable>,
    recovery: RecoveryModel,
    /// Keyed by the redo layout and the last known capacity: either changing restarts it.
    engine: Option<((RedoLayout, Option<u64>), VerdictEngine)>,
    /// Redo capacity of the previous figures, to notice a resize.
    last_capacity: Option<u64>,
    redo_resized: Option<RedoResize>,
}

/// The redo capacity changed under us: a restart with another `innodb_log_file_size` (or
/// `innodb_redo_log_capacity`), or a resize at runtime. Peak checkpoint age and the sizing
/// advice start again from here, so they never mix the two sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct RedoResize {
    /// Time of the first sample with the new capacity.
    pub at: DateTime<Utc>,
    pub from_bytes: u64,
    pub to_bytes: u64,
}

impl RedoResize {
    /// "redo capacity changed 16.0 MiB → 32.0 MiB at 12:00:03 UTC".
    pub fn summary(&self) -> String {
        format!(
            "redo capacity changed {} → {} at {}",
            crate::output::bytes(self.from_bytes),
            crate::output::bytes(self.to_bytes),
            self.at.format("%H:%M:%S UTC")
        )
    }
}

impl Default for Deriver {
    fn default() -> Self {
        Deriver::with_recovery(RecoveryModel::published_default())
    }
}

impl Deriver {
    pub fn new() -> Self {
        Self::default()
    }

    /// A deriver whose recovery estimates use `model` (`--recovery-rate`, a calibration).
    pub fn with_recovery(recovery: RecoveryModel) -> Self {
        Deriver {
            info: None,
            prev: None,
            last_status: None,
            last_undo_scan: None,
            slow_refused: Vec::new(),
            recovery,
            engine: None,
            last_capacity: None,
            redo_resized: None,
        }
    }

    /// The latest redo resize seen, if any.
    pub fn redo_resized(&self) -> Option<&RedoResize> {
        self.redo_resized.as_ref()
    }

    /// Verdicts, recovery and sizing for one sample's figures. The engine restarts when the
    /// redo layout or capacity changes (a restart with another log size, a runtime resize), so
    /// peak and sizing never mix two sizes.
    fn assess(&mut self, figures: &mut Figures, info: &ServerInfo, t_s: f64) {
        let layout = RedoLayout::from_info(info);
        let key = (layout, self.last_capacity);
        if self.engine.as_ref().is_none_or(|(k, _)| *k != key) {
            let cfg = EngineConfig {
                recovery: self.recovery.clone(),
                layout,
                ..EngineConfig::default()
            };
            self.engine = Some((key, VerdictEngine::new(cfg)));
        }
        let Some((_, engine)) = self.engine.as_mut() else {
            return;
        };
        let a = engine.observe(t_s, figures, info.flavor);
        figures.verdicts = a.verdicts;
        figures.recovery = a.recovery;
        figures.sizing = a.sizing;
        figures.history.held_back = a.purge.held_back;
    }

    pub fn info(&self) -> Option<&ServerInfo> {
        self.info.as_ref()
    }

    /// Notices a changed redo capacity (the engine restarts on it in [`Self::assess`]) and
    /// says so in the figures' warnings from then on.
    fn note_redo_resize(&mut self, figures: &mut Figures) {
        let now = figures.redo.capacity_bytes;
        if let (Some(from), Some(to)) = (self.last_capacity, now)
            && from != to
        {
            self.redo_resized = Some(RedoResize {
                at: figures.sampled_at,
                from_bytes: from,
                to_bytes: to,
            });
        }
        self.last_capacity = now.or(self.last_capacity);
        if let Some(r) = &self.redo_resized {
            let variable = self
                .info
                .as_ref()
                .map_or("the redo size variable", |i| i.flavor.redo_size_variable());
            figures.warnings.push(format!(
                "{} ({variable}): peak checkpoint age and sizing advice count from then",
                r.summary()
            ));
        }
    }

    /// Feed one source event; a sample yields its figures.
    pub fn push(&mut self, event: &SourceEvent) -> Option<Figures> {
        match event {
            SourceEvent::Connected { info, .. } => {
                // A (re)connection may hide a restart too short for Uptime to show:
                // rates start again from the next sample.
                self.info = Some(info.clone());
                self.prev = None;
                // A new session asks the slow sources again on its first poll.
                self.slow_refused.clear();
                None
            }
            SourceEvent::Variables { variables, .. } => {
                if let Some(info) = self.info.as_mut() {
                    info.variables.extend(variables.clone());
                }
                None
            }
            SourceEvent::Sample(sample) => self.push_sample(sample),
            SourceEvent::Disconnected { .. } | SourceEvent::Audit(_) => None,
        }
    }

    pub fn push_sample(&mut self, sample: &Sample) -> Option<Figures> {
        let info = self.info.clone()?;
        if self
            .prev
            .as_ref()
            .is_some_and(|p| restarted_between(p, sample))
        {
            // Every rate restarts from a fresh baseline.
            self.prev = None;
            self.last_undo_scan = None;
        }
        if let Some(st) = &sample.innodb_status {
            self.last_status = Some((sample.taken_at, st.clone()));
        }
        if let Some(scan) = sample.undo_scan {
            self.last_undo_scan = Some((sample.taken_at, scan));
        }
        let refused = self.refused(sample);
        let ctx = Context {
            info: &info,
            flavor: info.flavor,
            prev: self.prev.as_ref(),
            cur: sample,
            last_status: self.last_status.as_ref().map(|(_, s)| s),
            last_undo_scan: self.last_undo_scan,
            refused: &refused,
        };
        let mut figures = ctx.derive();
        self.note_redo_resize(&mut figures);
        // Before the verdicts: an unseen blocker is not "no blocker".
        figures.note_unavailable(&refused);
        self.assess(&mut figures, &info, sample.mono_s);
        self.prev = Some(sample.clone());
        Some(figures)
    }
}

impl Deriver {
    /// The sources refused for this sample: its own refusals, plus a slow source's last
    /// refusal while it has not been read again.
    fn refused(&mut self, sample: &Sample) -> Vec<Unavailable> {
        let slow = |k: SourceKind| matches!(k, SourceKind::InnodbStatus | SourceKind::UndoScan);
        self.slow_refused.retain(|u| match u.source {
            SourceKind::InnodbStatus => sample.innodb_status.is_none(),
            _ => sample.undo_scan.is_none(),
        });
        for u in sample.unavailable.iter().filter(|u| slow(u.source)) {
            self.slow_refused.retain(|old| old.source != u.source);
            self.slow_refused.push(u.clone());
        }
        let mut all = sample.unavailable.clone();
        for u in &self.slow_refused {
            if !all.iter().any(|a| a.source == u.source) {
                all.push(u.clone());
            }
        }
        all
    }
}

/// Whether the server restarted between two samples: Uptime advanced less than the time that
/// passed (a plain "Uptime went down" misses a short-lived server that was down briefly).
/// Time going backwards (a new source) also counts: there is no baseline to compare with.
pub fn restarted_between(prev: &Sample, cur: &Sample) -> bool {
    let elapsed = cur.mono_s - prev.mono_s;
    if elapsed.is_nan() || elapsed <= 0.0 {
        return true;
    }
    match (prev.status("Uptime"), cur.status("Uptime")) {
        // Uptime has 1 s resolution and polls take time: allow 1.5 s of slack.
        (Some(p), Some(n)) => (n as f64) + 1.5 < p as f64 + elapsed,
        _ => false,
    }
}

/// Everything one derivation reads.
struct Context<'a> {
    info: &'a ServerInfo,
    flavor: Flavor,
    prev: Option<&'a Sample>,
    cur: &'a Sample,
    last_status: Option<&'a InnodbStatus>,
    last_undo_scan: Option<(DateTime<Utc>, UndoScan)>,
    /// Sources refused for this moment (see [`Deriver::refused`]).
    refused: &'a [Unavailable],
}

impl Context<'_> {
    fn dt(&self) -> Option<f64> {
        self.prev
            .map(|p| self.cur.mono_s - p.mono_s)
            .filter(|dt| *dt > 0.0)
    }

    fn status_rate(&self, name: &str) -> Option<f64> {
        counter_rate(
            self.prev.and_then(|p| p.status(name)),
            self.cur.status(name),
            self.dt()?,
        )
    }

    fn metric_rate(&self, name: &str) -> Option<f64> {
        metric_rate(
            self.prev.and_then(|p| p.metric(name)),
            self.cur.metric(name),
            self.dt()?,
        )
    }

    fn derive(&self) -> Figures {
        let mut warnings = Vec::new();
        let redo = self.redo(&mut warnings);
        let flush = self.flush();
        let history = self.history();
        let blocker = find_blocker(&self.cur.trx);
        let purge = self.purge(history.length, blocker.is_some());
        let dirty = self.dirty();
        let undo = self.undo();
        warnings.extend(self.refused.iter().map(describe_unavailable));
        let off = disabled_metrics(self.cur);
        if !off.is_empty() {
            warnings.push(format!(
                "INNODB_METRICS counters off (their figures show as null, not 0): {} — enable with SET GLOBAL innodb_monitor_enable = '<group>' for each of {} (key m in the dashboard)",
                off.join(", "),
                flavor::MONITOR_GROUPS.join(", ")
            ));
        }
        Figures {
            server: ServerFigures {
                flavor: self.flavor.kind.as_str().to_string(),
                version: self.info.version.clone(),
                uptime_s: self.cur.status("Uptime"),
                label: self.info.label.clone(),
            },
            sampled_at: self.cur.taken_at,
            interval_s: self.dt(),
            redo,
            flush,
            blocker,
            history,
            purge,
            dirty,
            undo,
            verdicts: Vec::new(),
            recovery: None,
            sizing: None,
            metrics_off: off.iter().map(|m| m.to_string()).collect(),
            unavailable: Vec::new(),
            warnings,
        }
    }

    fn redo(&self, warnings: &mut Vec<String>) -> Redo {
        let points = self.flavor.redo_points(self.info, Some(self.cur));
        let pair = self.flavor.lsn_and_checkpoint(self.cur).or_else(|| {
            // Where LSN only comes from SEIS (slow cadence), show its last reading.
            let st = self.last_status?;
            Some((st.lsn?, st.checkpoint_lsn?))
        });
        if pair.is_none() {
            warnings.push(
                "checkpoint age unknown: no LSN source readable (needs PROCESS for SHOW ENGINE INNODB STATUS, or module_log metrics)"
                    .to_string(),
            );
        }
        let age = pair.map(|(lsn, chk)| lsn.saturating_sub(chk));
        let capacity = points.map(|p| p.capacity);
        let written = self.status_rate("Innodb_os_log_written").or_else(|| {
            let prev = self.prev.and_then(|p| self.flavor.lsn_and_checkpoint(p))?;
            counter_rate(Some(prev.0), pair.map(|p| p.0), self.dt()?)
        });
        Redo {
            lsn: pair.map(|p| p.0),
            checkpoint_lsn: pair.map(|p| p.1),
            checkpoint_age_bytes: age,
            capacity_bytes: capacity,
            async_point_bytes: points.map(|p| p.async_point),
            sync_point_bytes: points.map(|p| p.sync_point),
            sync_point_name: self.flavor.sync_point_name().to_string(),
            checkpoint_age_pct_of_capacity: pct(age, capacity),
            written_bytes_per_s: written,
        }
    }

    fn flush(&self) -> Flush {
        let names = [
            ("buffer_flush_adaptive_total_pages", "adaptive"),
            ("buffer_flush_sync_total_pages", "sync"),
            ("buffer_flush_background_total_pages", "background"),
            ("buffer_flush_neighbor_total_pages", "neighbor"),
            ("buffer_LRU_batch_flush_total_pages", "lru"),
        ];
        // Off means present and switched off: an unreadable table (no PROCESS) or a counter this
        // server lacks is not something `m` could switch on.
        let disabled_counters = names
            .iter()
            .filter(|(metric, _)| self.cur.metrics.get(*metric).is_some_and(|m| !m.enabled))
            .map(|(metric, _)| (*metric).to_string())
            .collect::<Vec<_>>();
        let lru = self
            .metric_rate("buffer_LRU_batch_flush_total_pages")
            .or_else(|| self.status_rate("Innodb_buffer_pool_pages_LRU_flushed"));
        let total = self.status_rate("Innodb_buffer_pool_pages_flushed");
        let flush_list = match (total, lru) {
            (Some(t), Some(l)) => Some((t - l).max(0.0)),
            _ => None,
        };
        Flush {
            total_pages_per_s: total,
            by_source_pages_per_s: BySource {
                adaptive: self.metric_rate("buffer_flush_adaptive_total_pages"),
                lru,
                sync: self.metric_rate("buffer_flush_sync_total_pages"),
                background: self.metric_rate("buffer_flush_background_total_pages"),
                neighbor: self.metric_rate("buffer_flush_neighbor_total_pages"),
            },
            flush_list_pages_per_s: flush_list,
            // LRU has a status-variable fallback; don't list its metric as missing then.
            disabled_counters: disabled_counters
                .into_iter()
                .filter(|m| !(m == "buffer_LRU_batch_flush_total_pages" && lru.is_some()))
                .collect(),
            io_capacity: self.info.var_u64("innodb_io_capacity"),
            io_capacity_max: self.info.var_u64("innodb_io_capacity_max"),
        }
    }

    fn history_length(&self, s: &Sample) -> Option<u64> {
        s.status("Innodb_history_list_length")
            .or_else(|| {
                s.metric("trx_rseg_history_len")
                    .and_then(|v| u64::try_from(v).ok())
            })
            .or_else(|| s.innodb_status.as_ref().and_then(|st| st.history_length))
    }

    fn history(&self) -> History {
        let length = self
            .history_length(self.cur)
            .or_else(|| self.last_status.and_then(|st| st.history_length));
        let growth = gauge_change(
            self.prev.and_then(|p| self.history_length(p)),
            self.history_length(self.cur),
            self.dt().unwrap_or(0.0),
        );
        let lag = self.info.var_u64("innodb_max_purge_lag").filter(|l| *l > 0);
        let seconds_to_lag = match (length, growth, lag) {
            (Some(len), _, Some(lag)) if len >= lag => Some(0.0),
            (Some(len), Some(g), Some(lag)) if g > 0.0 => Some((lag - len) as f64 / g),
            _ => None,
        };
        History {
            length,
            growth_per_s: growth,
            seconds_to_max_purge_lag: seconds_to_lag,
            held_back: None,
        }
    }

    fn purge(&self, history: Option<u64>, blocked: bool) -> Purge {
        let records = sum_known(&[
            self.metric_rate("purge_del_mark_records"),
            self.metric_rate("purge_upd_exist_or_extern_records"),
        ]);
        let lag = self.info.var_u64("innodb_max_purge_lag");
        let max_delay = self.info.var_u64("innodb_max_purge_lag_delay");
        let dml_delay = match (history, lag) {
            (Some(h), Some(l)) => Some(self.flavor.dml_delay_us(h, l, max_delay.unwrap_or(0))),
            _ => None,
        };
        let applied = match dml_delay {
            Some(_) if blocked && !self.flavor.purge_lag_delays_while_blocked() => Some(0),
            d => d,
        };
        Purge {
            records_per_s: records,
            undo_pages_per_s: self.metric_rate("purge_undo_log_pages"),
            inflow_records_per_s: sum_known(&[
                self.status_rate("Handler_update"),
                self.status_rate("Handler_delete"),
            ]),
            dml_delay_us: dml_delay,
            dml_delay_applied_us: applied,
            state: self.last_status.and_then(|st| st.purge_state.clone()),
            threads: self.info.var_u64("innodb_purge_threads"),
            batch_size: self.info.var_u64("innodb_purge_batch_size"),
            max_purge_lag: lag,
            max_purge_lag_delay_us: max_delay,
        }
    }

    fn dirty(&self) -> Dirty {
        let s = self.cur;
        let pages = s.status("Innodb_buffer_pool_pages_dirty");
        let data = s.status("Innodb_buffer_pool_pages_data");
        let free = s.status("Innodb_buffer_pool_pages_free");
        let ratio = match (pages, data, free) {
            (Some(d), Some(a), Some(f)) if a + f > 0 => Some(d as f64 * 100.0 / (a + f) as f64),
            _ => None,
        };
        let max = self.info.var_f64("innodb_max_dirty_pages_pct");
        let lwm = self
            .info
            .var_f64("innodb_max_dirty_pages_pct_lwm")
            .map(|l| self.flavor.effective_dirty_lwm(l, max.unwrap_or(l)));
        let page = self.info.var_u64("innodb_page_size").unwrap_or(16384);
        Dirty {
            pages,
            data_pages: data,
            free_pages: free,
            pct: ratio,
            max_pct: max,
            lwm_pct: lwm,
            bytes: s
                .status("Innodb_buffer_pool_bytes_dirty")
                .or_else(|| pages.map(|p| p * page)),
        }
    }

    fn undo(&self) -> Undo {
        let page = self.info.var_u64("innodb_page_size").unwrap_or(16384);
        let size_pages = self
            .cur
            .metric("trx_rseg_current_size")
            .and_then(|v| u64::try_from(v).ok());
        let cached = self.last_undo_scan.map(|(_, s)| s.undo_pages_cached);
        Undo {
            size_bytes: size_pages.map(|p| p * page),
            reads_per_s: self.metric_rate("buffer_page_read_undo_log"),
            cached_pages: cached,
            resident_pct: match (cached, size_pages) {
                (Some(c), Some(s)) if s > 0 => Some((c as f64 * 100.0 / s as f64).min(100.0)),
                _ => None,
            },
            scanned_at: self.last_undo_scan.map(|(at, _)| at),
        }
    }
}

fn pct(part: Option<u64>, whole: Option<u64>) -> Option<f64> {
    match (part, whole) {
        (Some(p), Some(w)) if w > 0 => Some(p as f64 * 100.0 / w as f64),
        _ => None,
    }
}

/// Whether this transaction keeps a read view open: REPEATABLE READ / SERIALIZABLE keep
/// theirs to commit; READ COMMITTED only while a statement runs.
fn holds_read_view(t: &TrxRow) -> bool {
    let iso = t.isolation.as_deref().unwrap_or("REPEATABLE READ");
    let running_statement = t.command.as_deref().is_some_and(|c| c != "Sleep");
    match iso {
        "REPEATABLE READ" | "SERIALIZABLE" => true,
        _ => running_statement,
    }
}

/// The oldest transaction that holds a read view long enough to matter for purge.
pub fn find_blocker(trx: &[TrxRow]) -> Option<Blocker> {
    trx.iter()
        .filter(|t| t.age_s >= BLOCKER_MIN_AGE_S && holds_read_view(t))
        .max_by_key(|t| t.age_s)
        .map(|t| Blocker {
            trx_id: t.trx_id.clone(),
            thread_id: t.thread_id,
            user: t.user.clone(),
            host: t.host.clone(),
            age_s: t.age_s,
            state: t.state.clone(),
            query: t.query.clone(),
            isolation: t.isolation.clone(),
            command: t.command.clone(),
        })
}

fn describe_unavailable(u: &Unavailable) -> String {
    match &u.privilege {
        Some(p) => format!(
            "{} unavailable: needs the {p} privilege (GRANT {p} ON *.* TO the account)",
            u.source.describe()
        ),
        None => format!("{} unavailable: {}", u.source.describe(), u.error),
    }
}

/// Names of INNODB_METRICS counters wanted but off in this sample.
pub fn disabled_metrics(sample: &Sample) -> Vec<&'static str> {
    flavor::METRICS
        .iter()
        .copied()
        .filter(|m| sample.metrics.get(*m).is_some_and(|v| !v.enabled))
        .collect()
}

#[cfg(test)]
mod redo_resize_tests {

    use chrono::TimeZone;

    use super::*;

    fn mariadb(log_file_size_mib: u64) -> SourceEvent {
        SourceEvent::Connected {
            at: Utc
                .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
                .single()
                .unwrap(),
            info: ServerInfo::mariadb_10_11(&[
                (
                    "innodb_log_file_size",
                    (log_file_size_mib << 20).to_string(),
                ),
                ("innodb_page_size", "16384".into()),
            ]),
        }
    }

    fn sample(t: i64, uptime: u64, age: u64) -> SourceEvent {
        let at = Utc
            .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
            .single()
            .unwrap()
            + chrono::Duration::seconds(t);
        let mut s = Sample::new(at, t as f64);
        s.status.insert("Uptime".into(), uptime);
        s.status
            .insert("Innodb_lsn_current".into(), 1_000_000_000 + age);
        s.status
            .insert("Innodb_lsn_last_checkpoint".into(), 1_000_000_000);
        SourceEvent::Sample(Box::new(s))
    }

    #[test]
    fn a_restart_with_another_redo_size_is_noted_and_restarts_the_peak() {
        let mut d = Deriver::new();
        d.push(&mariadb(16));
        for t in 0..5 {
            // A 10 MiB peak at 16 MiB.
            let f = d.push(&sample(t, 100 + t as u64, 10 << 20)).unwrap();
            assert!(f.warnings.iter().all(|w| !w.contains("redo capacity")));
        }
        assert!(d.redo_resized().is_none());
        d.push(&mariadb(32));
        let f = d.push(&sample(20, 1, 2 << 20)).unwrap();
        let r = d.redo_resized().expect("the resize is noticed");
        assert_eq!((r.from_bytes, r.to_bytes), (16 << 20, 32 << 20));
        assert_eq!(
            r.summary(),
            "redo capacity changed 16.0 MiB → 32.0 MiB at 12:00:20 UTC"
        );
        assert!(
            f.warnings
                .iter()
                .any(|w| w.starts_with(&r.summary()) && w.contains("innodb_log_file_size")),
            "{:?}",
            f.warnings
        );
        // The 10 MiB peak was at the old size: the new peak is the 2 MiB since the restart.
        let sizing = f.sizing.expect("sizing");
        assert_eq!(sizing.peak_checkpoint_age_bytes, 2 << 20);
        assert_eq!(sizing.current_capacity_bytes, Some(32 << 20));
        // The same size after a plain reconnect is no resize.
        d.push(&mariadb(32));
        d.push(&sample(30, 11, 1 << 20));
        assert_eq!(d.redo_resized().map(|r| r.to_bytes), Some(32 << 20));
        assert_eq!(d.redo_resized().map(|r| r.at.timestamp() % 60), Some(20));
    }
}
