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
    /// The zone of `age` against the async and sync (MariaDB: M) points.
    pub fn of(age: u64, async_point: u64, sync_point: u64) -> Zone {
        if age >= sync_point {
            Zone::PastSync
        } else if age >= async_point {
            Zone::PastAsync
        } else {
            Zone::Below
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
