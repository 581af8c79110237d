//! The rollback-segment figures of one sample: the segments writers share (the flavour's
//! arithmetic over the variables), the undo slots, and the latch waits — rates between the
//! last two readings of performance_schema's wait summary, read on its own cost-held cadence
//! and carried between, or the threads the last SEIS found in its wait array.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Context;
use crate::figures::Rollback;
use innodebt_server::flavor::{self, Flavor};
use innodebt_server::sample::{ServerInfo, WaitSum};

/// A rate older than this says nothing about now (the summary is read every few seconds).
const FRESH_S: f64 = 120.0;

/// One class of latch (the rollback segments', the trx-sys mutex): acquisitions and seconds
/// spent acquiring, per second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct WaitRate {
    pub(super) per_s: f64,
    pub(super) s_per_s: f64,
}

/// The last wait-summary reading and the rates between the last two.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct WaitRates {
    last: Option<(f64, BTreeMap<String, WaitSum>)>,
    /// When the rates were found (the newer reading's time), and them.
    rates: Option<(f64, WaitRate, WaitRate)>,
}

impl WaitRates {
    /// Takes one reading. Rates sum the instruments read both times whose totals did not go
    /// back (a restart, TRUNCATE of the summary): a newly enabled instrument adds nothing
    /// until its second reading.
    pub(super) fn observe(&mut self, flavor: Flavor, mono_s: f64, now: &BTreeMap<String, WaitSum>) {
        if let Some((at, prev)) = &self.last {
            let dt = mono_s - at;
            if dt.is_nan() || dt <= 0.0 {
                return;
            }
            let rate = |names: &[&str]| {
                let mut r = WaitRate::default();
                for n in names {
                    if let (Some(p), Some(c)) = (prev.get(*n), now.get(*n))
                        && c.count >= p.count
                        && c.timer_ps >= p.timer_ps
                    {
                        r.per_s += (c.count - p.count) as f64 / dt;
                        r.s_per_s += (c.timer_ps - p.timer_ps) as f64 / 1e12 / dt;
                    }
                }
                r
            };
            self.rates = Some((
                mono_s,
                rate(flavor.rseg_wait_instruments()),
                rate(flavor.trx_sys_wait_instruments()),
            ));
        }
        self.last = Some((mono_s, now.clone()));
    }

    fn at(&self, mono_s: f64) -> Option<(WaitRate, WaitRate)> {
        self.rates
            .filter(|(at, _, _)| mono_s - at <= FRESH_S)
            .map(|(_, r, t)| (r, t))
    }
}

/// Whether this flavour's latch instruments count, as the poller found them: `None` when it
/// did not say (performance_schema unreadable, a capture from before).
pub(super) fn instrumented(flavor: Flavor, info: &ServerInfo) -> Option<bool> {
    if info
        .var("performance_schema")
        .is_some_and(|v| !v.eq_ignore_ascii_case("ON"))
    {
        return Some(false);
    }
    let answers: Vec<bool> = flavor
        .rseg_instruments()
        .iter()
        .filter_map(|i| info.var(&flavor::instrument_key(i)))
        .map(|v| v.eq_ignore_ascii_case("YES"))
        .collect();
    (!answers.is_empty()).then(|| answers.iter().any(|y| *y))
}

impl Context<'_> {
    pub(super) fn rollback(&self) -> Rollback {
        let f = self.flavor;
        let layout = f.rseg_layout(self.info, self.cur.status("Innodb_undo_tablespaces_active"));
        let metric = |n: &str| self.cur.metric(n).and_then(|v| u64::try_from(v).ok());
        let rates = self.slow.waits.at(self.cur.mono_s);
        let seis = self
            .last_status
            .filter(|_| f.seis_lists_latch_waits())
            .and_then(|st| st.semaphore_waits.as_ref())
            .map(|cells| {
                let n = |named: fn(&str) -> bool| {
                    cells.iter().filter(|c| named(&c.latch)).count() as u64
                };
                (n(Flavor::seis_names_rseg), n(Flavor::seis_names_trx_sys))
            });
        Rollback {
            segments: layout.map(|l| l.segments),
            segments_setting: layout.and_then(|l| l.setting),
            undo_tablespaces: layout.and_then(|l| l.undo_tablespaces),
            segments_fixed: layout.is_some_and(|l| l.fixed),
            way_out: layout.map(|l| f.rseg_way_out(&l).words(&f)),
            undo_slots_used: metric("trx_undo_slots_used"),
            undo_slots_cached: metric("trx_undo_slots_cached"),
            instrumented: instrumented(f, self.info),
            rseg_waits_per_s: rates.map(|(r, _)| r.per_s),
            rseg_wait_s_per_s: rates.map(|(r, _)| r.s_per_s),
            trx_sys_waits_per_s: rates.map(|(_, t)| t.per_s),
            trx_sys_wait_s_per_s: rates.map(|(_, t)| t.s_per_s),
            seis_rseg_waiters: seis.map(|(r, _)| r),
            seis_trx_sys_waiters: seis.map(|(_, t)| t),
            // Judged by the verdicts.
            severity: None,
        }
    }
}
