//! Checkpoint age against the flush points as zones (below async, past async, past sync), and
//! when a change of zone counts as a crossing: going up counts at once (that is the news),
//! settling back down must hold [`ZONE_HOLD_S`] — checkpoint age wobbles around the async
//! point under steady load, and every wobble is not a crossing. The replay timeline's marks
//! and the "what if" crossings both count with this one rule, so they agree.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How long a lower zone must hold before it counts.
pub const ZONE_HOLD_S: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Zone {
    #[default]
    Below,
    PastAsync,
    PastSync,
}

impl Zone {
    /// The zone of `age` against the async and sync (MariaDB: M) points: the one rule the
    /// checkpoint-age severity (`redo.severity`), the timeline's moments and the what-if's
    /// crossings read. A point of 0 is a point not known, not a line every age is past: no
    /// async point, no zone; no sync point, nothing past it.
    pub fn of(age: u64, async_point: Option<u64>, sync_point: Option<u64>) -> Option<Zone> {
        let async_point = async_point.filter(|p| *p > 0)?;
        Some(match sync_point.filter(|p| *p > 0) {
            Some(sync) if age >= sync => Zone::PastSync,
            _ if age >= async_point => Zone::PastAsync,
            _ => Zone::Below,
        })
    }

    /// How bad the zone is: ok below async, warning past it, critical past sync.
    pub fn severity(self) -> crate::figures::Severity {
        use crate::figures::Severity;
        match self {
            Zone::Below => Severity::Ok,
            Zone::PastAsync => Severity::Warning,
            Zone::PastSync => Severity::Critical,
        }
    }
}

/// A counted change of zone: from, to, when the new zone began and at which sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneChange {
    pub from: Zone,
    pub to: Zone,
    pub since: DateTime<Utc>,
    pub sample: u64,
}

impl ZoneChange {
    /// Checkpoint age went from below the async point to past it — past the sync point too,
    /// when it jumped both between two samples: that crossed async as well. The timeline's
    /// moments and the what-if's crossing counts both read this, so they agree.
    pub fn crossed_async(&self) -> bool {
        self.from == Zone::Below && self.to > self.from
    }

    /// Checkpoint age rose past the sync (stall, M) point.
    pub fn crossed_sync(&self) -> bool {
        self.to == Zone::PastSync && self.from != Zone::PastSync
    }
}

/// The zone counted so far and a different one waiting to hold (what a capture's scanner
/// state stores).
pub type Pending = Option<(Zone, DateTime<Utc>, u64)>;

/// Sample `here` at `at` is in zone `now`: the change it completes, if any.
pub fn zone_step(
    zone: &mut Zone,
    pending: &mut Pending,
    now: Zone,
    at: DateTime<Utc>,
    here: u64,
) -> Option<ZoneChange> {
    if now == *zone {
        *pending = None;
        return None;
    }
    let (to, since, sample) = match *pending {
        Some((z, t, i)) if z == now => (z, t, i),
        _ => {
            *pending = Some((now, at, here));
            (now, at, here)
        }
    };
    let held = (at - since).num_milliseconds() as f64 / 1000.0 >= ZONE_HOLD_S;
    if to > *zone || held {
        let from = *zone;
        *zone = to;
        *pending = None;
        return Some(ZoneChange {
            from,
            to,
            since,
            sample,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zero or unknown point is no line: the severity and the moments once disagreed here
    /// (the zone called every age past a sync point of 0, the severity ignored it).
    #[test]
    fn a_zero_point_is_no_point() {
        assert_eq!(Zone::of(5, Some(10), Some(0)), Some(Zone::Below));
        assert_eq!(Zone::of(15, Some(10), Some(0)), Some(Zone::PastAsync));
        assert_eq!(Zone::of(15, Some(10), None), Some(Zone::PastAsync));
        assert_eq!(Zone::of(25, Some(10), Some(20)), Some(Zone::PastSync));
        assert_eq!(Zone::of(25, Some(0), Some(20)), None);
        assert_eq!(Zone::of(25, None, Some(20)), None);
    }

    /// A jump from below async straight past sync crosses both points: the timeline's moments
    /// and the what-if's counts read the same two answers (they disagreed when a fast load
    /// jumped both between two samples: the what-if counted an async crossing the timeline
    /// did not show).
    #[test]
    fn a_jump_past_sync_crossed_async_too() {
        let t = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).expect("a time");
        let (mut zone, mut pending) = (Zone::Below, None);
        let c = zone_step(&mut zone, &mut pending, Zone::PastSync, t, 1)
            .expect("a rise counts at once");
        assert!(c.crossed_async() && c.crossed_sync());
        let (mut zone, mut pending) = (Zone::Below, None);
        let c = zone_step(&mut zone, &mut pending, Zone::PastAsync, t, 1).expect("a rise");
        assert!(c.crossed_async() && !c.crossed_sync());
        let c = zone_step(&mut zone, &mut pending, Zone::PastSync, t, 2).expect("a rise");
        assert!(!c.crossed_async() && c.crossed_sync());
        let later = t + chrono::Duration::seconds(60);
        zone_step(&mut zone, &mut pending, Zone::Below, later, 3);
        let c = zone_step(
            &mut zone,
            &mut pending,
            Zone::Below,
            later + chrono::Duration::seconds(60),
            4,
        )
        .expect("a fall counts once it holds");
        assert!(!c.crossed_async() && !c.crossed_sync());
    }
}
