//! What the screen shows: the latest figures and the bounded chart series, built by feeding
//! source events through the pure [`Deriver`]. A frozen display is simply a clone of this.

use chrono::{DateTime, Utc};

use crate::metrics::series::Series;
use crate::metrics::{Deriver, Figures};
use crate::sample::{ServerInfo, SourceEvent};

/// Chart series kept for the longest chart window (1 h) at 1 s; faster intervals keep a
/// shorter span rather than more memory.
pub const SERIES_POINTS: usize = 3600;

/// Per-source flush series, in legend order.
pub const FLUSH_SOURCES: [&str; 5] = ["adaptive", "lru", "sync", "background", "neighbor"];

#[derive(Debug, Clone)]
pub struct Charts {
    pub checkpoint_age: Series,
    pub history_length: Series,
    pub purge_records: Series,
    pub purge_inflow: Series,
    pub undo_pages_purged: Series,
    pub dirty_pct: Series,
    /// Indexed like [`FLUSH_SOURCES`].
    pub flush: [Series; 5],
    pub flush_total: Series,
    /// Undo size in bytes (`trx_rseg_current_size` × page size), for the undo panel's chart.
    pub undo_size: Series,
}

impl Default for Charts {
    fn default() -> Self {
        let s = || Series::new(SERIES_POINTS);
        Charts {
            checkpoint_age: s(),
            history_length: s(),
            purge_records: s(),
            purge_inflow: s(),
            undo_pages_purged: s(),
            dirty_pct: s(),
            flush: [s(), s(), s(), s(), s()],
            flush_total: s(),
            undo_size: s(),
        }
    }
}

impl Charts {
    fn push(&mut self, t: f64, f: &Figures) {
        self.checkpoint_age
            .push(t, f.redo.checkpoint_age_bytes.map(|v| v as f64));
        self.history_length
            .push(t, f.history.length.map(|v| v as f64));
        self.purge_records.push(t, f.purge.records_per_s);
        self.purge_inflow.push(t, f.purge.inflow_records_per_s);
        self.undo_pages_purged.push(t, f.purge.undo_pages_per_s);
        self.dirty_pct.push(t, f.dirty.pct);
        let by = &f.flush.by_source_pages_per_s;
        for (series, v) in
            self.flush
                .iter_mut()
                .zip([by.adaptive, by.lru, by.sync, by.background, by.neighbor])
        {
            series.push(t, v);
        }
        self.flush_total.push(t, f.flush.total_pages_per_s);
        self.undo_size.push(t, f.undo.size_bytes.map(|v| v as f64));
    }
}

/// Connection state as the header shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    Connecting,
    Connected,
    Disconnected {
        since: DateTime<Utc>,
        retry_at: DateTime<Utc>,
        error: String,
    },
}

#[derive(Debug, Clone)]
pub struct DataView {
    pub deriver: Deriver,
    pub latest: Option<Figures>,
    /// Monotonic time of the latest sample (chart x axis).
    pub latest_t: f64,
    pub charts: Charts,
    pub link: Link,
    pub samples_seen: u64,
}

impl Default for DataView {
    fn default() -> Self {
        DataView {
            deriver: Deriver::new(),
            latest: None,
            latest_t: 0.0,
            charts: Charts::default(),
            link: Link::Connecting,
            samples_seen: 0,
        }
    }
}

impl DataView {
    /// An empty view whose figures come from `deriver` (e.g. with `--recovery-rate`).
    pub fn new(deriver: Deriver) -> Self {
        DataView {
            deriver,
            ..DataView::default()
        }
    }

    pub fn info(&self) -> Option<&ServerInfo> {
        self.deriver.info()
    }

    /// Feed one event received at `now`; returns true when what is on screen changed.
    pub fn ingest(&mut self, event: &SourceEvent, now: DateTime<Utc>) -> bool {
        match event {
            SourceEvent::Disconnected {
                since,
                retry_in_ms,
                error,
            } => {
                let retry =
                    chrono::Duration::milliseconds(i64::try_from(*retry_in_ms).unwrap_or(0));
                self.link = Link::Disconnected {
                    since: *since,
                    retry_at: now + retry,
                    error: error.clone(),
                };
                true
            }
            SourceEvent::Connected { .. } => {
                self.deriver.push(event);
                self.link = Link::Connected;
                true
            }
            SourceEvent::Sample(sample) => {
                let Some(figures) = self.deriver.push(event) else {
                    return false;
                };
                self.link = Link::Connected;
                self.latest_t = sample.mono_s;
                self.charts.push(sample.mono_s, &figures);
                self.latest = Some(figures);
                self.samples_seen += 1;
                true
            }
            SourceEvent::Variables { .. } => {
                self.deriver.push(event);
                true
            }
            SourceEvent::Audit(_) => false,
        }
    }
}
