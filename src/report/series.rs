//! The chart series of a report, bounded whatever the capture's length: the window is cut into
//! [`BUCKETS`] stretches of time and each keeps the lowest and the highest value it saw (with
//! their times), so a week draws its peaks and troughs as faithfully as a few minutes, which
//! keep every sample (a stretch then holds one).

use chrono::{DateTime, Utc};

use innodebt_engine::figures::Figures;

/// Stretches a chart's window is cut into: more than the pixels a chart line has.
pub const BUCKETS: usize = 720;

/// One value per sample, bucketed by time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Track {
    /// Per bucket: (time, value) of its lowest and of its highest point.
    buckets: Vec<Option<[(f64, f64); 2]>>,
    /// The highest point of all, and the last.
    peak: Option<(f64, f64)>,
    last: Option<f64>,
}

impl Track {
    fn push(&mut self, bucket: usize, t: f64, v: Option<f64>) {
        let Some(v) = v.filter(|v| v.is_finite()) else {
            return;
        };
        if self.buckets.len() <= bucket {
            self.buckets.resize(bucket + 1, None);
        }
        let b = &mut self.buckets[bucket];
        match b {
            None => *b = Some([(t, v), (t, v)]),
            Some([lo, hi]) => {
                if v < lo.1 {
                    *lo = (t, v);
                }
                if v > hi.1 {
                    *hi = (t, v);
                }
            }
        }
        if self.peak.is_none_or(|(_, p)| v > p) {
            self.peak = Some((t, v));
        }
        self.last = Some(v);
    }

    /// The points to draw, in time order (seconds from the window's start, value).
    pub fn points(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(self.buckets.len() * 2);
        for [lo, hi] in self.buckets.iter().flatten() {
            let pair = if lo.0 <= hi.0 { [lo, hi] } else { [hi, lo] };
            out.push(*pair[0]);
            if pair[1] != pair[0] {
                out.push(*pair[1]);
            }
        }
        out
    }

    /// The highest value seen and when (seconds from the window's start).
    pub fn peak(&self) -> Option<(f64, f64)> {
        self.peak
    }

    pub fn last(&self) -> Option<f64> {
        self.last
    }

    pub fn is_empty(&self) -> bool {
        self.peak.is_none()
    }
}

/// Every series the report's charts draw; the values are the figures' own (the dashboard's
/// chart values, `data_view::rows::chart_values`, and the points it draws across them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesId {
    CheckpointAge,
    AdaptiveLwm,
    AsyncPoint,
    SyncPoint,
    HistoryLength,
    MaxPurgeLag,
    Purged,
    Inflow,
    FlushTotal,
    FlushAdaptive,
    FlushLru,
    FlushSync,
    FlushBackground,
    FlushNeighbor,
    IoCapacity,
    IoCapacityMax,
    DirtyPct,
    DirtyMaxPct,
    DirtyLwmPct,
    Recovery,
    RecoveryWorst,
}

impl SeriesId {
    pub const ALL: [SeriesId; 21] = [
        SeriesId::CheckpointAge,
        SeriesId::AdaptiveLwm,
        SeriesId::AsyncPoint,
        SeriesId::SyncPoint,
        SeriesId::HistoryLength,
        SeriesId::MaxPurgeLag,
        SeriesId::Purged,
        SeriesId::Inflow,
        SeriesId::FlushTotal,
        SeriesId::FlushAdaptive,
        SeriesId::FlushLru,
        SeriesId::FlushSync,
        SeriesId::FlushBackground,
        SeriesId::FlushNeighbor,
        SeriesId::IoCapacity,
        SeriesId::IoCapacityMax,
        SeriesId::DirtyPct,
        SeriesId::DirtyMaxPct,
        SeriesId::DirtyLwmPct,
        SeriesId::Recovery,
        SeriesId::RecoveryWorst,
    ];

    /// This series' value in one sample's figures.
    fn value(self, f: &Figures) -> Option<f64> {
        let by = &f.flush.by_source_pages_per_s;
        let n = |v: Option<u64>| v.map(|v| v as f64);
        match self {
            SeriesId::CheckpointAge => n(f.redo.checkpoint_age_bytes),
            // The low-water mark means nothing with adaptive flushing off.
            SeriesId::AdaptiveLwm => {
                n(f.redo.adaptive_lwm_bytes).filter(|_| f.redo.adaptive_flushing != Some(false))
            }
            SeriesId::AsyncPoint => n(f.redo.async_point_bytes),
            SeriesId::SyncPoint => n(f.redo.sync_point_bytes),
            SeriesId::HistoryLength => n(f.history.length),
            // 0 is off: no line to draw.
            SeriesId::MaxPurgeLag => n(f.purge.max_purge_lag.filter(|l| *l > 0)),
            SeriesId::Purged => f.purge.records_per_s,
            SeriesId::Inflow => f.purge.inflow_records_per_s,
            SeriesId::FlushTotal => f.flush.total_pages_per_s,
            SeriesId::FlushAdaptive => by.adaptive,
            SeriesId::FlushLru => by.lru,
            SeriesId::FlushSync => by.sync,
            SeriesId::FlushBackground => by.background,
            SeriesId::FlushNeighbor => by.neighbor,
            SeriesId::IoCapacity => n(f.flush.io_capacity),
            SeriesId::IoCapacityMax => n(f.flush.io_capacity_max),
            SeriesId::DirtyPct => f.dirty.pct,
            SeriesId::DirtyMaxPct => f.dirty.max_pct,
            SeriesId::DirtyLwmPct => f.dirty.lwm_pct.filter(|_| !f.dirty.lwm_off),
            SeriesId::Recovery => f.recovery.as_ref().map(|r| r.estimate_s),
            SeriesId::RecoveryWorst => f.recovery.as_ref().and_then(|r| r.worst_case_s),
        }
    }
}

/// The time axis every chart of one report shares: the window, from its first to its last
/// sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    pub start: DateTime<Utc>,
    pub span_s: f64,
}

impl Axis {
    pub fn new(start: DateTime<Utc>, end: DateTime<Utc>) -> Axis {
        Axis {
            start,
            span_s: secs_between(start, end),
        }
    }

    /// Seconds from the start to `t` (negative before it).
    pub fn at(&self, t: DateTime<Utc>) -> f64 {
        (t - self.start).num_milliseconds() as f64 / 1000.0
    }

    /// The time `s` seconds after the start.
    pub fn time(&self, s: f64) -> DateTime<Utc> {
        self.start + chrono::Duration::milliseconds((s * 1000.0).round() as i64)
    }

    fn bucket(&self, s: f64) -> usize {
        if self.span_s <= 0.0 {
            return 0;
        }
        let b = (s / self.span_s * BUCKETS as f64).floor();
        (b.max(0.0) as usize).min(BUCKETS - 1)
    }
}

pub fn secs_between(a: DateTime<Utc>, b: DateTime<Utc>) -> f64 {
    ((b - a).num_milliseconds() as f64 / 1000.0).max(0.0)
}

/// Every series of a window.
#[derive(Debug, Clone, PartialEq)]
pub struct Tracks {
    pub axis: Axis,
    tracks: Vec<Track>,
}

impl Tracks {
    pub fn new(axis: Axis) -> Tracks {
        Tracks {
            axis,
            tracks: vec![Track::default(); SeriesId::ALL.len()],
        }
    }

    pub fn observe(&mut self, f: &Figures) {
        let t = self.axis.at(f.sampled_at);
        let b = self.axis.bucket(t);
        for (id, track) in SeriesId::ALL.iter().zip(&mut self.tracks) {
            track.push(b, t, id.value(f));
        }
    }

    pub fn get(&self, id: SeriesId) -> &Track {
        &self.tracks[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_bucket_keeps_its_lowest_and_highest_point_in_time_order() {
        let mut t = Track::default();
        for (s, v) in [(0.0, 5.0), (0.1, 9.0), (0.2, 1.0), (0.3, 4.0)] {
            t.push(0, s, Some(v));
        }
        t.push(1, 2.0, Some(f64::NAN));
        t.push(2, 3.0, Some(7.0));
        assert_eq!(t.points(), [(0.1, 9.0), (0.2, 1.0), (3.0, 7.0)]);
        assert_eq!(t.peak(), Some((0.1, 9.0)));
        assert_eq!(t.last(), Some(7.0));
    }

    #[test]
    fn every_time_of_the_window_has_a_bucket() {
        let start = Utc.timestamp_opt(1_800_000_000, 0).unwrap();
        let axis = Axis::new(start, start + chrono::Duration::seconds(100));
        assert_eq!(axis.bucket(-1.0), 0);
        assert_eq!(axis.bucket(0.0), 0);
        assert_eq!(axis.bucket(100.0), BUCKETS - 1);
        assert_eq!(axis.bucket(50.0), BUCKETS / 2);
    }
}
