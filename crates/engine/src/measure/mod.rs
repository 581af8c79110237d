//! Pure derivation: raw samples in, measured [`Figures`] out. No I/O, no clock: the time of a
//! figure is the time of its sample, so live, replay and tests derive exactly the same
//! numbers. Judging them over time is `verdicts`' job; `derive` runs both.

pub mod counters;
pub mod minutes;
mod purge_lag;
pub mod rates;
mod rollback;
pub mod selfcost;
pub mod series;
mod slow;
mod state;

use chrono::{DateTime, Utc};

use crate::figures::{
    Blocker, BySource, Dirty, FigureId, Figures, Flush, FlushSource, History, LagSecondsFrom,
    OldestRw, Purge, Redo, ServerFigures, Undo, Unreadable, seconds_to_point,
};
use rates::{counter_rate, gauge_change, metric_rate, sum_known};
use slow::SlowCounters;
pub use state::MeasurerState;

use innodebt_server::blocker;
use innodebt_server::flavor::{self, Flavor, RegimeAge};
use innodebt_server::innodb_status::InnodbStatus;
use innodebt_server::sample::{
    Sample, ServerInfo, SourceEvent, SourceKind, TrxRow, Unavailable, UndoScan,
};

/// A transaction must be at least this old to be named as the purge blocker: autocommit
/// writes pass through INNODB_TRX for milliseconds and block nothing. The poller looks
/// sessions up from the same age.
pub const BLOCKER_MIN_AGE_S: u64 = innodebt_server::blocker::NAMED_FROM_AGE_S;

/// Holds what measuring needs between samples: the server, the previous sample, and the
/// slow-cadence facts (last SEIS, last residency scan) that later samples keep showing.
#[derive(Debug, Clone, Default)]
pub struct Measurer {
    /// Shared, not copied, with each sample's derivation (its variables change rarely).
    info: Option<std::sync::Arc<ServerInfo>>,
    prev: Option<Sample>,
    last_status: Option<(DateTime<Utc>, InnodbStatus)>,
    last_undo_scan: Option<(DateTime<Utc>, UndoScan)>,
    /// Slow-cadence sources (SEIS, the residency scan) refused on their last try: they are
    /// not asked every tick, so the refusal stands until one of them is read again.
    slow_refused: Vec<Unavailable>,
    /// Counters read on a slower cadence than the tick (MariaDB's session sums): the last
    /// reading, and the rate between the last two, which later samples keep showing.
    slow: SlowCounters,
    /// innodebt's own cost over the last minute.
    cost: selfcost::CostWindow,
}

impl Measurer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn info(&self) -> Option<&ServerInfo> {
        self.info.as_deref()
    }

    /// The server as described, shared.
    pub fn info_shared(&self) -> Option<std::sync::Arc<ServerInfo>> {
        self.info.clone()
    }

    /// Feed one source event; a sample yields its measured figures.
    pub fn push(&mut self, event: &SourceEvent) -> Option<Figures> {
        match event {
            SourceEvent::Connected { info, .. } => {
                // A (re)connection may hide a restart too short for Uptime to show:
                // rates start again from the next sample.
                self.info = Some(std::sync::Arc::new(info.clone()));
                self.prev = None;
                self.slow = SlowCounters::default();
                // A new session asks the slow sources again on its first poll.
                self.slow_refused.clear();
                None
            }
            SourceEvent::Variables { variables, .. } => {
                if let Some(info) = self.info.as_mut() {
                    std::sync::Arc::make_mut(info)
                        .variables
                        .extend(variables.clone());
                }
                None
            }
            SourceEvent::Sample(sample) => self.push_sample(sample),
            SourceEvent::Disconnected { .. } | SourceEvent::Audit(_) => None,
        }
    }

    /// The measured figures of one sample; `None` before the server is known.
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
            self.slow = SlowCounters::default();
        }
        self.slow.observe(sample);
        self.slow.observe_lsn(
            sample.mono_s,
            info.flavor.lsn_and_checkpoint(sample).map(|(lsn, _)| lsn),
        );
        if let Some(st) = &sample.innodb_status {
            self.slow.observe_purge_position(sample.mono_s, st);
            self.last_status = Some((sample.taken_at, st.clone()));
        }
        if let Some(waits) = &sample.waits {
            self.slow.waits.observe(info.flavor, sample.mono_s, waits);
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
            slow: &self.slow,
        };
        let mut figures = ctx.derive();
        figures.self_cost = self.cost.observe(sample);
        // Before the verdicts: an unseen blocker is not "no blocker".
        note_unavailable(&mut figures, &refused);
        self.prev = Some(sample.clone());
        Some(figures)
    }
}

impl Measurer {
    /// The sources refused for this sample: its own refusals, plus a slow source's last
    /// refusal while it has not been read again.
    fn refused(&mut self, sample: &Sample) -> Vec<Unavailable> {
        let slow = |k: SourceKind| {
            matches!(
                k,
                SourceKind::InnodbStatus | SourceKind::UndoScan | SourceKind::Waits
            )
        };
        self.slow_refused.retain(|u| match u.source {
            SourceKind::InnodbStatus => sample.innodb_status.is_none(),
            SourceKind::Waits => sample.waits.is_none(),
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
    slow: &'a SlowCounters,
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
        let seis = self
            .last_status
            .filter(|_| self.flavor.seis_lists_read_views());
        let blocker = find_blocker(&self.cur.trx, seis);
        let purge = self.purge(history.length);
        let dirty = self.dirty();
        let undo = self.undo();
        let rollback = self.rollback();
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
                uptime_s: self.slow.uptime_at(self.cur.mono_s),
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
            rollback,
            verdicts: Vec::new(),
            recovery: None,
            sizing: None,
            metrics_off: off.iter().map(|m| m.to_string()).collect(),
            self_cost: None,
            unavailable: Vec::new(),
            suspect: Vec::new(),
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
        let (oldest_page_age, candidate_age) = self.oldest_page_ages(pair);
        let capacity = points.map(|p| p.capacity);
        // Redo generated = the LSN's advance. Innodb_os_log_written counts whole 512-byte
        // blocks and rewrites the last partial block on every write (MySQL/Percona), so it
        // overstates: it is only the fallback where no LSN is readable. Where the LSN comes
        // from SEIS alone (its slower cadence), the rate between its last two readings.
        let written = self
            .slow
            .lsn_rate_at(self.cur.mono_s)
            .or_else(|| self.status_rate("Innodb_os_log_written"));
        let async_point = points.map(|p| p.async_point);
        let lwm = points.map(|p| self.flavor.adaptive_lwm_bytes(self.info, &p));
        let sync_point = points.map(|p| p.sync_point);
        warnings.extend(self.flavor.redo_formula_disagreement(self.info, self.cur));
        Redo {
            lsn: pair.map(|p| p.0),
            checkpoint_lsn: pair.map(|p| p.1),
            checkpoint_age_bytes: age,
            capacity_bytes: capacity,
            adaptive_lwm_bytes: lwm,
            adaptive_lwm_pct: lwm.map(|_| self.flavor.adaptive_lwm_pct(self.info)),
            adaptive_flushing: Flavor::adaptive_flushing(self.info),
            async_point_bytes: async_point,
            sync_point_bytes: sync_point,
            sync_point_name: self.flavor.sync_point_name().to_string(),
            max_checkpoint_age_bytes: points.and_then(|p| p.max_checkpoint_age),
            counter_async_bytes: points.and_then(|p| p.counter_async),
            counter_sync_bytes: points.and_then(|p| p.counter_sync),
            sync_flush_bytes: points.and_then(|p| p.sync_flush),
            checkpoint_age_pct_of_capacity: pct(age, capacity),
            written_bytes_per_s: written,
            seconds_to_async_point: seconds_to_point(age, async_point, written),
            seconds_to_sync_point: seconds_to_point(age, sync_point, written),
            // Judged by the verdicts.
            severity: None,
            flush_regime: None,
            oldest_page_age_bytes: oldest_page_age,
            checkpoint_candidate_age_bytes: candidate_age,
            flush_regime_age: None,
        }
    }

    /// The oldest dirty page's age, and MySQL 8's checkpoint candidate's, each at most the
    /// checkpoint age: the flavour's INNODB_METRICS counter against this sample's LSN (0:
    /// nothing dirty), else the last SEIS's `Pages flushed up to` against its own LSN — which
    /// is the oldest page on MariaDB and 5.7, the checkpoint candidate on MySQL 8.0+
    /// (`Flavor::pages_flushed_up_to`). A `Pages flushed up to` below the SEIS's own
    /// checkpoint or past its LSN is a misread, not an age.
    fn oldest_page_ages(&self, pair: Option<(u64, u64)>) -> (Option<u64>, Option<u64>) {
        let Some((lsn, chk)) = pair else {
            return (None, None);
        };
        let checkpoint_age = lsn.saturating_sub(chk);
        let counted = self
            .cur
            .metric(self.flavor.oldest_page_metric())
            .and_then(|v| u64::try_from(v).ok())
            .map(|oldest| match oldest {
                0 => 0,
                o => lsn.saturating_sub(o).min(checkpoint_age),
            });
        let seis = self.last_status.and_then(|st| {
            let (seis_lsn, flushed) = (st.lsn?, st.pages_flushed_lsn?);
            let sane = flushed <= seis_lsn && st.checkpoint_lsn.is_none_or(|c| flushed >= c);
            sane.then(|| (seis_lsn - flushed).min(checkpoint_age))
        });
        match self.flavor.pages_flushed_up_to() {
            RegimeAge::OldestPage => (counted.or(seis), None),
            _ => (counted, seis),
        }
    }

    fn flush(&self) -> Flush {
        // In the order they are listed as off.
        let counters = [
            ("buffer_flush_adaptive_total_pages", FlushSource::Adaptive),
            ("buffer_flush_sync_total_pages", FlushSource::Sync),
            (
                "buffer_flush_background_total_pages",
                FlushSource::Background,
            ),
            ("buffer_flush_neighbor_total_pages", FlushSource::Neighbor),
            ("buffer_LRU_batch_flush_total_pages", FlushSource::Lru),
        ];
        let lru = self
            .metric_rate("buffer_LRU_batch_flush_total_pages")
            .or_else(|| self.status_rate("Innodb_buffer_pool_pages_LRU_flushed"));
        // Off means present and switched off: an unreadable table (no PROCESS) or a counter this
        // server lacks is not something `m` could switch on. LRU has a status-variable
        // fallback: not off while that gives its rate.
        let off: Vec<(&str, FlushSource)> = counters
            .into_iter()
            .filter(|(metric, _)| self.cur.metrics.get(*metric).is_some_and(|m| !m.enabled))
            .filter(|(_, source)| !(*source == FlushSource::Lru && lru.is_some()))
            .collect();
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
            disabled_counters: off.iter().map(|(m, _)| (*m).to_string()).collect(),
            io_capacity: self.info.var_u64("innodb_io_capacity"),
            io_capacity_max: self.info.var_u64("innodb_io_capacity_max"),
            sources_off: FlushSource::ALL
                .into_iter()
                .filter(|s| off.iter().any(|(_, o)| o == s))
                .collect(),
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
        // This sample's change; the verdicts smooth it and say when the lag is reached.
        History {
            length,
            growth_per_s: growth,
            seconds_to_max_purge_lag: None,
            held_back: None,
            held_by: None,
        }
    }

    fn purge(&self, history: Option<u64>) -> Purge {
        let records = sum_known(&[
            self.metric_rate("purge_del_mark_records"),
            self.metric_rate("purge_upd_exist_or_extern_records"),
        ]);
        let lag = self.info.var_u64("innodb_max_purge_lag");
        let max_delay = self.info.var_u64("innodb_max_purge_lag_delay");
        let threads = self.info.var_u64("innodb_purge_threads");
        let batch = self.info.var_u64("innodb_purge_batch_size");
        // An unknown cap is not "no cap": without it the delay is unknown.
        let dml_delay = match (history, lag, max_delay) {
            (Some(h), Some(l), Some(cap)) => {
                Some(self.flavor.dml_delay_us(h, l, cap, threads, batch))
            }
            (_, Some(0), _) => Some(0),
            _ => None,
        };
        // Purge's position and pace from SEIS, while its last read is recent.
        let position = self.slow.purge_position_at(self.cur.mono_s);
        let lag_numbers = position.map(|(_, counter, done)| counter.saturating_sub(done));
        let per_commit = self.flavor.trx_numbers_per_commit();
        let lag_transactions =
            lag_numbers.map(|n| purge_lag::transactions_behind(n, per_commit, history));
        // Where an INSERT-only transaction takes a number but leaves no history (MySQL), an
        // empty history means purge has nothing to do, however far the counter ran ahead of
        // its position: not behind, and a position that stands still is not a pace of 0.
        let nothing_to_purge = !per_commit.insert_only_in_history && history == Some(0);
        let pace = position
            .and(self.slow.purge_pace)
            .filter(|_| !nothing_to_purge);
        let lag_s = if nothing_to_purge && position.is_some() {
            Some((0.0, LagSecondsFrom::Readings))
        } else {
            self.slow.purge_lag_s_at(self.cur.mono_s)
        };
        Purge {
            records_per_s: records,
            undo_pages_per_s: self.metric_rate("purge_undo_log_pages"),
            // Where the poller reads these on a slower cadence (MariaDB: they sum every
            // session), the rate between the last two readings.
            inflow_records_per_s: sum_known(&[
                self.status_rate("Handler_update"),
                self.status_rate("Handler_delete"),
            ])
            .or(self.slow.inflow),
            dml_delay_us: dml_delay,
            // What writes pay unless purge is blocked; the verdicts judge that.
            dml_delay_applied_us: dml_delay,
            state: self.last_status.and_then(|st| st.purge_state.clone()),
            threads,
            threads_dynamic: Some(
                self.flavor.purge_threads_dynamic(
                    self.info
                        .var(&flavor::read_only_key("innodb_purge_threads")),
                ),
            ),
            batch_size: batch,
            max_purge_lag: lag,
            max_purge_lag_delay_us: max_delay,
            blocked: None,
            lag_trx_numbers: lag_numbers,
            lag_s: lag_s.map(|(s, _)| s),
            lag_s_from: lag_s.map(|(_, from)| from),
            lag_transactions: lag_transactions.as_ref().map(|(n, _)| *n),
            lag_transactions_basis: lag_transactions.map(|(_, basis)| basis),
            pace: pace.map(|(pace, _)| pace),
            pace_over_s: pace.map(|(_, from)| (self.cur.mono_s - from).max(0.0)),
            // Judged by the verdicts (with the lag's thresholds), written by derive.
            moving: None,
            open_trx: self.cur.trx_open,
            open_rw_trx: self.cur.trx_rw,
            oldest_rw: self
                .cur
                .trx
                .iter()
                .find(|t| self.flavor.is_read_write_trx_id(&t.trx_id))
                .map(|t| OldestRw {
                    trx_id: t.trx_id.clone(),
                    thread_id: t.thread_id,
                    age_s: t.age_s,
                }),
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
        let lwm_set = self.info.var_f64("innodb_max_dirty_pages_pct_lwm");
        let lwm = lwm_set.and_then(|l| self.flavor.effective_dirty_lwm(l));
        let page = self.info.var_u64("innodb_page_size").unwrap_or(16384);
        Dirty {
            pages,
            data_pages: data,
            free_pages: free,
            pct: ratio,
            max_pct: max,
            lwm_pct: lwm,
            lwm_off: lwm_set.is_some() && lwm.is_none(),
            bytes: s
                .status("Innodb_buffer_pool_bytes_dirty")
                .or_else(|| pages.map(|p| p * page)),
            // Judged by the verdicts.
            severity: None,
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

/// The oldest transaction that holds a read view long enough to matter for purge (the
/// judgement is [`blocker::purge_blocker`], which the poller uses to choose whom to name).
pub fn find_blocker(trx: &[TrxRow], seis: Option<&InnodbStatus>) -> Option<Blocker> {
    blocker::purge_blocker(trx, seis).map(|t| Blocker {
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

/// Fills [`Figures::unavailable`] from the sources refused for this moment: each names the
/// figures it leaves `null` (see [`name_null_figures`]).
fn note_unavailable(figures: &mut Figures, refused: &[Unavailable]) {
    figures.unavailable = refused
        .iter()
        .map(|u| Unreadable {
            source: u.source,
            what: u.source.describe().to_string(),
            privilege: u.privilege.clone(),
            error: u.error.clone(),
            figures: Vec::new(),
        })
        .collect();
    name_null_figures(figures);
}

/// Names, for each refused source, the figures it feeds that came out `null`. Called again
/// once the figures are judged, so a judgement a refusal leaves unknown is named too.
pub fn name_null_figures(figures: &mut Figures) {
    if figures.unavailable.is_empty() {
        return;
    }
    let mut sections = Vec::new();
    let mut named = Vec::with_capacity(figures.unavailable.len());
    for u in &figures.unavailable {
        let null: Vec<FigureId> = FigureId::fed_by(u.source)
            .iter()
            .copied()
            .filter(|f| is_null(figures, *f, &mut sections))
            .collect();
        named.push(null);
    }
    for (u, null) in figures.unavailable.iter_mut().zip(named) {
        u.figures = null;
    }
}

/// Whether `id` is `null` in the figures' JSON. Only the section it sits in (its path's first
/// part) is serialised, once per call of [`name_null_figures`]: serialising every figure for
/// the few a refused source feeds was most of a sample's cost when a source is refused for
/// good (a server read from Prometheus has no transactions).
fn is_null(
    figures: &Figures,
    id: FigureId,
    sections: &mut Vec<(&'static str, serde_json::Value)>,
) -> bool {
    let path = id.path();
    let (name, rest) = path.split_once('.').unwrap_or((path, ""));
    let at = match sections.iter().position(|(n, _)| *n == name) {
        Some(i) => i,
        None => {
            sections.push((name, section(figures, name)));
            sections.len() - 1
        }
    };
    let pointer = match rest {
        "" => String::new(),
        rest => format!("/{}", rest.replace('.', "/")),
    };
    sections[at]
        .1
        .pointer(&pointer)
        .is_none_or(serde_json::Value::is_null)
}

/// The JSON of one top-level part of the figures, as the whole figures' JSON holds it.
fn section(f: &Figures, name: &str) -> serde_json::Value {
    use serde_json::to_value;
    let v = match name {
        "server" => to_value(&f.server),
        "redo" => to_value(&f.redo),
        "flush" => to_value(&f.flush),
        "history" => to_value(&f.history),
        "purge" => to_value(&f.purge),
        "blocker" => to_value(&f.blocker),
        "dirty" => to_value(&f.dirty),
        "undo" => to_value(&f.undo),
        "rollback" => to_value(&f.rollback),
        "recovery" => to_value(&f.recovery),
        "sizing" => to_value(&f.sizing),
        // Any other part: from the whole (a new top-level part is still named right).
        _ => to_value(f).map(|all| all.get(name).cloned().unwrap_or_default()),
    };
    v.unwrap_or_default()
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
mod tests {
    use super::*;

    /// Each figure is `null` by its section alone exactly when it is `null` in the whole
    /// figures' JSON, with the figures empty, partly and fully known.
    #[test]
    fn a_figure_is_null_by_its_section_as_in_the_whole() {
        let empty = Figures::default();
        let mut some = Figures::default();
        some.redo.checkpoint_age_bytes = Some(1 << 20);
        some.history.length = Some(4000);
        some.blocker = Some(Blocker {
            trx_id: "42".into(),
            thread_id: Some(9),
            age_s: 30,
            ..Blocker::default()
        });
        for f in [&empty, &some] {
            let whole = serde_json::to_value(f).unwrap();
            let mut sections = Vec::new();
            for id in FigureId::ALL {
                let by_whole = whole
                    .pointer(&id.pointer())
                    .is_none_or(serde_json::Value::is_null);
                assert_eq!(is_null(f, *id, &mut sections), by_whole, "{}", id.path());
            }
        }
        assert!(!is_null(&some, FigureId::Blocker, &mut Vec::new()));
        assert!(is_null(&empty, FigureId::Blocker, &mut Vec::new()));
    }
}
