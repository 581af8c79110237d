//! What measuring keeps from the sources read on a slower cadence than the tick: `Uptime` and
//! MariaDB's session-summed `Handler_*` counters (every ~10 s), the LSN where only SEIS has it,
//! and purge's position from SEIS — the last reading, and the rate or pace between the last
//! two, which later samples keep showing.

use super::purge_lag::{self, CounterReadings};
use super::rates::counter_rate;
use crate::figures::LagSecondsFrom;
use innodebt_server::innodb_status::InnodbStatus;
use innodebt_server::sample::Sample;

/// `Uptime` and `Handler_update`/`Handler_delete` where they are not read every tick, and
/// purge's position from SEIS (read every ~10 s).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub(super) struct SlowCounters {
    /// (mono_s, Uptime) of the last sample that carried it.
    pub(super) uptime: Option<(f64, u64)>,
    /// (mono_s, Handler_update + Handler_delete) of the last sample that carried them.
    pub(super) changes: Option<(f64, u64)>,
    /// Rows updated + deleted per second between the last two readings.
    pub(super) inflow: Option<f64>,
    /// (mono_s, LSN) of the last sample that carried an LSN (where only SEIS has it, that
    /// is its slower cadence).
    pub(super) lsn: Option<(f64, u64)>,
    /// Redo generated per second: the LSN's advance between the last two readings.
    pub(super) lsn_rate: Option<f64>,
    /// (mono_s, trx id counter, purge done below) of the last SEIS that printed both.
    pub(super) purge_position: Option<(f64, u64, u64)>,
    /// Purge's position's advance over the counter's between the last two of those, and
    /// when the older of the two was read (mono_s).
    pub(super) purge_pace: Option<(f64, f64)>,
    /// (mono_s, trx id counter) of the last SEIS reads, oldest first: the counter's own
    /// pace, to tell how long ago it stood where purge stands.
    pub(super) counter_readings: CounterReadings,
    /// performance_schema's latch waits (read every few seconds while they count).
    pub(super) waits: super::rollback::WaitRates,
}

impl SlowCounters {
    pub(super) fn observe(&mut self, s: &Sample) {
        if let Some(up) = s.status("Uptime") {
            self.uptime = Some((s.mono_s, up));
        }
        if let (Some(u), Some(d)) = (s.status("Handler_update"), s.status("Handler_delete")) {
            let now = (s.mono_s, u.saturating_add(d));
            self.inflow = self
                .changes
                .and_then(|prev| counter_rate(Some(prev.1), Some(now.1), now.0 - prev.0));
            self.changes = Some(now);
        }
    }

    pub(super) fn observe_lsn(&mut self, mono_s: f64, lsn: Option<u64>) {
        let Some(lsn) = lsn else { return };
        match self.lsn {
            // The same reading again, or time not advancing: keep the last rate.
            Some(prev) if mono_s <= prev.0 => return,
            Some(prev) => self.lsn_rate = counter_rate(Some(prev.1), Some(lsn), mono_s - prev.0),
            None => {}
        }
        self.lsn = Some((mono_s, lsn));
    }

    /// Purge's position from one SEIS: how far it moved since the last one for each
    /// transaction number the counter moved. When nothing committed in between, a purge
    /// caught up has nothing to move for (no pace), one behind that moved is catching up (no
    /// pace either), and one behind that stood still has a pace of 0: nothing stops a purge
    /// with work left but a read view it cannot pass — what one look at a quiet server proves.
    pub(super) fn observe_purge_position(&mut self, mono_s: f64, st: &InnodbStatus) {
        let (Some(counter), Some(done)) = (st.trx_id_counter, st.purge_done_trx) else {
            return;
        };
        if let Some((at, prev_counter, prev_done)) = self.purge_position {
            if mono_s <= at {
                return;
            }
            self.purge_pace = if counter > prev_counter {
                let pace = done.saturating_sub(prev_done) as f64 / (counter - prev_counter) as f64;
                Some((pace, at))
            } else if done == prev_done && done < counter {
                Some((0.0, at))
            } else {
                None
            };
        }
        self.purge_position = Some((mono_s, counter, done));
        purge_lag::remember(&mut self.counter_readings, mono_s, counter);
    }

    /// How long ago purge's position (of a recent SEIS read) was the newest commit, from the
    /// counter's readings.
    pub(super) fn purge_lag_s_at(&self, mono_s: f64) -> Option<(f64, LagSecondsFrom)> {
        let (_, _, done) = self.purge_position_at(mono_s)?;
        purge_lag::seconds_behind(&self.counter_readings, done)
    }

    /// Purge's position while its SEIS read is recent (SEIS is read every ~10 s; a position
    /// older than a minute says nothing about now).
    pub(super) fn purge_position_at(&self, mono_s: f64) -> Option<(f64, u64, u64)> {
        const FRESH_S: f64 = 60.0;
        self.purge_position
            .filter(|(at, _, _)| mono_s - at <= FRESH_S)
    }

    /// The redo rate of the last two LSN readings while the last one is recent (SEIS is read
    /// every ~10 s where it is the only LSN source); older, unknown.
    pub(super) fn lsn_rate_at(&self, mono_s: f64) -> Option<f64> {
        const FRESH_S: f64 = 120.0;
        self.lsn
            .filter(|(at, _)| mono_s - at <= FRESH_S)
            .and(self.lsn_rate)
    }

    /// Uptime now: read this tick, else the last reading plus the time since.
    pub(super) fn uptime_at(&self, mono_s: f64) -> Option<u64> {
        self.uptime
            .map(|(at, up)| up + (mono_s - at).max(0.0).round() as u64)
    }
}
