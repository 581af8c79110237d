//! What a source's events add up to on screen: the latest figures, the link state and the
//! bounded chart series, built by feeding events through the pure [`Deriver`] (a frozen
//! display is simply a clone of a [`DataView`]). Also what a replay needs to rebuild that
//! anywhere in a capture without reading it all: the per-sample [`rows`] of chart values,
//! the view's state for checkpoints ([`ViewState`]) and the notable [`moments`].

pub mod moments;
pub mod rows;
mod state;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::{Figures, FlushSource};
use innodebt_engine::measure::series::Series;
use innodebt_server::sample::{ServerInfo, SourceEvent};
pub use rows::{CHART_COLUMNS, Row};
pub use state::ViewState;

/// Chart series kept for the longest chart window (1 h) at 1 s; faster intervals keep a
/// shorter span rather than more memory.
pub const SERIES_POINTS: usize = 3600;

#[derive(Debug, Clone)]
pub struct Charts {
    pub checkpoint_age: Series,
    pub history_length: Series,
    pub purge_records: Series,
    pub purge_inflow: Series,
    pub undo_pages_purged: Series,
    pub dirty_pct: Series,
    /// Indexed like [`FlushSource::ALL`]: see [`Charts::flush`].
    pub flush: [Series; 5],
    pub flush_total: Series,
    /// Undo size in bytes (`trx_rseg_current_size` × page size), for the undo panel's chart.
    pub undo_size: Series,
}

impl Default for Charts {
    fn default() -> Self {
        Charts::with_capacity(SERIES_POINTS)
    }
}

impl Charts {
    /// Charts keeping at most `points` per series.
    pub fn with_capacity(points: usize) -> Self {
        let s = || Series::new(points);
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

    /// Every series, in the order of [`rows::chart_values`].
    pub fn series(&self) -> [&Series; CHART_COLUMNS] {
        let [a, l, s, b, n] = &self.flush;
        [
            &self.checkpoint_age,
            &self.history_length,
            &self.purge_records,
            &self.purge_inflow,
            &self.undo_pages_purged,
            &self.dirty_pct,
            a,
            l,
            s,
            b,
            n,
            &self.flush_total,
            &self.undo_size,
        ]
    }

    /// Every series, in the order of [`rows::chart_values`].
    pub fn series_mut(&mut self) -> [&mut Series; CHART_COLUMNS] {
        let [a, l, s, b, n] = &mut self.flush;
        [
            &mut self.checkpoint_age,
            &mut self.history_length,
            &mut self.purge_records,
            &mut self.purge_inflow,
            &mut self.undo_pages_purged,
            &mut self.dirty_pct,
            a,
            l,
            s,
            b,
            n,
            &mut self.flush_total,
            &mut self.undo_size,
        ]
    }

    /// The pages/s series of one flush source.
    pub fn flush(&self, source: FlushSource) -> &Series {
        let i = FlushSource::ALL
            .iter()
            .position(|s| *s == source)
            .unwrap_or_default();
        &self.flush[i]
    }

    /// One sample's chart values (a NaN is no point).
    pub fn push_values(&mut self, t: f64, values: &[f64; CHART_COLUMNS]) {
        for (series, v) in self.series_mut().into_iter().zip(values) {
            series.push(t, Some(*v));
        }
    }

    fn push(&mut self, t: f64, f: &Figures) {
        self.push_values(t, &rows::chart_values(f));
    }
}

/// Connection state as the header shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Link {
    Connecting,
    Connected,
    Disconnected {
        since: DateTime<Utc>,
        retry_at: DateTime<Utc>,
        error: String,
    },
}

/// What one event did to a [`DataView`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Something on screen changed.
    pub changed: bool,
    /// A sample gave new figures.
    pub figures: bool,
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
        self.step(event, now).changed
    }

    /// [`DataView::ingest`], also saying whether the event was a sample that gave figures
    /// (then in [`DataView::latest`]).
    pub fn step(&mut self, event: &SourceEvent, now: DateTime<Utc>) -> Step {
        let before = self.samples_seen;
        let changed = self.apply(event, now);
        Step {
            changed,
            figures: self.samples_seen != before,
        }
    }

    fn apply(&mut self, event: &SourceEvent, now: DateTime<Utc>) -> bool {
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
