//! Notable moments in a recorded session — where a triaging DBA wants to jump: checkpoint
//! age crossing the async or sync point, the history peak, purge stopping, a blocker
//! appearing or clearing, a disconnect, a runtime change, a verdict changing. Pure: one pass
//! over the events through the same [`Deriver`] the dashboard uses.

use chrono::{DateTime, Utc};

use crate::metrics::{Deriver, Figures};
use crate::sample::SourceEvent;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MomentKind {
    AsyncCrossed,
    SyncCrossed,
    BackBelowAsync,
    HistoryPeak,
    PurgeStopped,
    PurgeResumed,
    BlockerAppeared,
    BlockerCleared,
    Disconnected,
    Reconnected,
    RuntimeChange,
    Verdict,
}

impl MomentKind {
    /// One-letter mark on the timeline bar.
    pub fn mark(self) -> char {
        match self {
            MomentKind::AsyncCrossed | MomentKind::SyncCrossed | MomentKind::BackBelowAsync => 'R',
            MomentKind::HistoryPeak => 'H',
            MomentKind::PurgeStopped | MomentKind::PurgeResumed => 'P',
            MomentKind::BlockerAppeared | MomentKind::BlockerCleared => 'B',
            MomentKind::Disconnected | MomentKind::Reconnected => 'D',
            MomentKind::RuntimeChange => 'C',
            MomentKind::Verdict => 'V',
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Moment {
    /// Index into the capture's samples.
    pub sample: usize,
    pub at: DateTime<Utc>,
    pub kind: MomentKind,
    pub label: String,
}

/// Purge counts as stopped after this many consecutive samples with no purge progress
/// while history grows.
const PURGE_STOP_SAMPLES: usize = 3;

/// Checkpoint age zones: a crossing counts once the new zone held this long (checkpoint
/// age oscillates around the async point under steady load; every wobble is not a moment).
const ZONE_HOLD_S: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
enum Zone {
    #[default]
    Below,
    PastAsync,
    PastSync,
}

#[derive(Default)]
struct Scan {
    zone: Zone,
    /// A different zone and when it was first seen, waiting to hold.
    pending: Option<(Zone, DateTime<Utc>, usize)>,
    deriver: Deriver,
    samples: usize,
    prev: Option<Figures>,
    idle_run: usize,
    purge_stopped: bool,
    down: bool,
    peak: Option<(usize, DateTime<Utc>, u64)>,
    out: Vec<Moment>,
}

impl Scan {
    fn redo_zone(&mut self, f: &Figures, at: DateTime<Utc>) {
        let r = &f.redo;
        let (Some(age), Some(a), Some(s)) = (
            r.checkpoint_age_bytes,
            r.async_point_bytes,
            r.sync_point_bytes,
        ) else {
            return;
        };
        let now = if age >= s {
            Zone::PastSync
        } else if age >= a {
            Zone::PastAsync
        } else {
            Zone::Below
        };
        if now == self.zone {
            self.pending = None;
            return;
        }
        // Going up is reported at once (that is the news); settling back down must hold.
        let (zone, since, sample) = match self.pending {
            Some((z, t, i)) if z == now => (z, t, i),
            _ => {
                self.pending = Some((now, at, self.samples.saturating_sub(1)));
                (now, at, self.samples.saturating_sub(1))
            }
        };
        let held = (at - since).num_milliseconds() as f64 / 1000.0 >= ZONE_HOLD_S;
        if zone > self.zone || held {
            let (kind, label) = match zone {
                Zone::PastSync => (
                    MomentKind::SyncCrossed,
                    format!("checkpoint age crossed the {} point", r.sync_point_name),
                ),
                Zone::PastAsync if self.zone == Zone::Below => (
                    MomentKind::AsyncCrossed,
                    "checkpoint age crossed the async point".to_string(),
                ),
                Zone::PastAsync => (
                    MomentKind::BackBelowAsync,
                    format!("checkpoint age back below the {} point", r.sync_point_name),
                ),
                Zone::Below => (
                    MomentKind::BackBelowAsync,
                    "checkpoint age back below the async point".to_string(),
                ),
            };
            self.out.push(Moment {
                sample,
                at: since,
                kind,
                label,
            });
            self.zone = zone;
            self.pending = None;
        }
    }

    fn verdict_change(&mut self, f: &Figures, prev: Option<&Figures>, at: DateTime<Utc>) {
        let kinds = |f: &Figures| f.verdicts.iter().map(|v| v.kind).collect::<Vec<_>>();
        let before = prev.map(kinds).unwrap_or_default();
        for v in &f.verdicts {
            if !before.contains(&v.kind) && prev.is_some() {
                self.push(
                    MomentKind::Verdict,
                    at,
                    format!("verdict: {}", v.kind.as_str().replace('_', " ")),
                );
            }
        }
    }

    fn push(&mut self, kind: MomentKind, at: DateTime<Utc>, label: String) {
        self.out.push(Moment {
            sample: self.samples.saturating_sub(1),
            at,
            kind,
            label,
        });
    }

    fn event(&mut self, ev: &SourceEvent) {
        match ev {
            SourceEvent::Disconnected { since, error, .. } if !self.down => {
                self.down = true;
                self.push(
                    MomentKind::Disconnected,
                    *since,
                    format!("disconnected: {error}"),
                );
            }
            SourceEvent::Connected { at, .. } if self.down => {
                self.down = false;
                self.push(MomentKind::Reconnected, *at, "reconnected".into());
            }
            SourceEvent::Audit(a) => self.push(
                MomentKind::RuntimeChange,
                a.at,
                format!(
                    "{}: {} → {} ({})",
                    a.action,
                    a.old_value.as_deref().unwrap_or("?"),
                    a.new_value.as_deref().unwrap_or("?"),
                    a.result
                ),
            ),
            _ => {}
        }
        if let Some(f) = self.deriver.push(ev) {
            self.samples += 1;
            self.figures(&f);
            self.prev = Some(f);
        }
    }

    fn figures(&mut self, f: &Figures) {
        let at = f.sampled_at;
        let prev = self.prev.take();
        self.redo_zone(f, at);
        self.verdict_change(f, prev.as_ref(), at);

        let blocker = f.blocker.as_ref().and_then(|b| b.thread_id);
        let prev_blocker = prev
            .as_ref()
            .and_then(|p| p.blocker.as_ref().and_then(|b| b.thread_id));
        if blocker != prev_blocker {
            if let Some(id) = prev_blocker {
                self.push(
                    MomentKind::BlockerCleared,
                    at,
                    format!("blocker thread {id} gone"),
                );
            }
            if let (Some(id), Some(b)) = (blocker, &f.blocker) {
                self.push(
                    MomentKind::BlockerAppeared,
                    at,
                    format!(
                        "blocker thread {id} {}@{}",
                        b.user.as_deref().unwrap_or("?"),
                        b.host.as_deref().unwrap_or("?")
                    ),
                );
            }
        }

        if let Some(h) = f.history.length
            && self.peak.is_none_or(|(_, _, p)| h > p)
        {
            self.peak = Some((self.samples.saturating_sub(1), at, h));
        }

        let progress = f.purge.undo_pages_per_s.or(f.purge.records_per_s);
        let growing = f.history.growth_per_s.is_some_and(|g| g > 0.0);
        match progress {
            Some(p) if p <= 0.0 && growing => {
                self.idle_run += 1;
                if self.idle_run == PURGE_STOP_SAMPLES && !self.purge_stopped {
                    self.purge_stopped = true;
                    self.push(
                        MomentKind::PurgeStopped,
                        at,
                        "purge stopped while history grows".into(),
                    );
                }
            }
            Some(p) if p > 0.0 => {
                self.idle_run = 0;
                if self.purge_stopped {
                    self.purge_stopped = false;
                    self.push(MomentKind::PurgeResumed, at, "purge resumed".into());
                }
            }
            _ => {}
        }
    }
}

/// Finds moments while a capture streams in (a big file loads section by section).
#[derive(Default)]
pub struct Scanner(Scan);

impl Scanner {
    pub fn feed(&mut self, ev: &SourceEvent) {
        self.0.event(ev);
    }

    pub fn finish(self) -> Vec<Moment> {
        finish(self.0)
    }
}

/// All notable moments, in time order.
pub fn find(events: &[SourceEvent]) -> Vec<Moment> {
    let mut scan = Scanner::default();
    for ev in events {
        scan.feed(ev);
    }
    scan.finish()
}

fn finish(mut scan: Scan) -> Vec<Moment> {
    if let Some((sample, at, h)) = scan.peak
        && h > 0
    {
        scan.out.push(Moment {
            sample,
            at,
            kind: MomentKind::HistoryPeak,
            label: format!("history peak {h}"),
        });
    }
    scan.out.sort_by_key(|m| (m.sample, m.at));
    scan.out
}
