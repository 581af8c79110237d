//! Notable moments in a recorded session — where a triaging DBA wants to jump: checkpoint
//! age crossing the async or sync point, the history peak, purge stopping, a blocker
//! appearing or clearing, a disconnect, a runtime change, a verdict changing. Pure: the
//! [`Scanner`] reads each event with the figures the dashboard derived from it, keeps a
//! small serialisable state (so a capture can store it with each section) and gives the
//! moments as it finds them. [`group`] folds repeats of one kind into one timeline mark.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::DataView;
use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::VerdictKind;
use innodebt_engine::verdicts::zones::{Zone, zone_step};
use innodebt_server::sample::SourceEvent;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// A bookmark a DBA added (`a`): never stored among the scanned moments, merged in by
    /// the replay from the capture's notes.
    Note,
}

impl MomentKind {
    /// One-letter mark on the timeline bar; kinds with one mark are one family.
    pub fn mark(self) -> char {
        match self {
            MomentKind::AsyncCrossed | MomentKind::SyncCrossed | MomentKind::BackBelowAsync => 'R',
            MomentKind::HistoryPeak => 'H',
            MomentKind::PurgeStopped | MomentKind::PurgeResumed => 'P',
            MomentKind::BlockerAppeared | MomentKind::BlockerCleared => 'B',
            MomentKind::Disconnected | MomentKind::Reconnected => 'D',
            MomentKind::RuntimeChange => 'C',
            MomentKind::Verdict => 'V',
            MomentKind::Note => '*',
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    /// Index of the sample it belongs to, counted over every sample of the capture.
    pub sample: u64,
    pub at: DateTime<Utc>,
    pub kind: MomentKind,
    pub label: String,
}

/// What the scanner remembers of the previous figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Prev {
    verdicts: Vec<VerdictKind>,
    blocker: Option<u64>,
}

/// Everything the scanner remembers between events: what a checkpoint stores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScanState {
    zone: Zone,
    /// A different zone, when it was first seen and at which sample, waiting to hold.
    pending: Option<(Zone, DateTime<Utc>, u64)>,
    /// Samples seen (the next sample's index).
    samples: u64,
    prev: Option<Prev>,
    /// Purge stood still while history grew, and has not moved since.
    purge_stopped: bool,
    down: bool,
    /// Highest history length so far: sample, time, length (the first sample reaching it).
    peak: Option<(u64, DateTime<Utc>, u64)>,
}

/// Finds moments event by event. Feed every event, with the figures it gave if any.
#[derive(Debug, Clone, Default)]
pub struct Scanner {
    s: ScanState,
    out: Vec<Moment>,
}

impl Scanner {
    pub fn from_state(s: ScanState) -> Self {
        Scanner { s, out: Vec::new() }
    }

    pub fn state(&self) -> ScanState {
        self.s.clone()
    }

    /// Index the next sample will have.
    pub fn samples(&self) -> u64 {
        self.s.samples
    }

    /// The highest history length seen: (sample, time, length).
    pub fn peak(&self) -> Option<(u64, DateTime<Utc>, u64)> {
        self.s.peak
    }

    /// The moments found since the last call, in the order found.
    pub fn take(&mut self) -> Vec<Moment> {
        std::mem::take(&mut self.out)
    }

    pub fn feed(&mut self, ev: &SourceEvent, figures: Option<&Figures>) {
        match ev {
            SourceEvent::Disconnected { since, error, .. } if !self.s.down => {
                self.s.down = true;
                self.push(
                    MomentKind::Disconnected,
                    *since,
                    format!("disconnected: {error}"),
                );
            }
            SourceEvent::Connected { at, .. } if self.s.down => {
                self.s.down = false;
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
        if matches!(ev, SourceEvent::Sample(_)) {
            self.s.samples += 1;
            if let Some(f) = figures {
                self.figures(f);
                self.s.prev = Some(Prev {
                    verdicts: f.verdicts.iter().map(|v| v.kind).collect(),
                    blocker: f.blocker.as_ref().and_then(|b| b.thread_id),
                });
            }
        }
    }

    /// Every moment found, the history peak last, in time order (a whole scan's end).
    pub fn finish(mut self) -> Vec<Moment> {
        if let Some(m) = peak_moment(self.s.peak) {
            self.out.push(m);
        }
        self.out.sort_by_key(|m| (m.sample, m.at));
        self.out
    }

    /// Index of the current sample (the last one fed).
    fn here(&self) -> u64 {
        self.s.samples.saturating_sub(1)
    }

    fn push(&mut self, kind: MomentKind, at: DateTime<Utc>, label: String) {
        self.out.push(Moment {
            sample: self.here(),
            at,
            kind,
            label,
        });
    }

    fn redo_zone(&mut self, f: &Figures, at: DateTime<Utc>) {
        let r = &f.redo;
        let Some(now) = r
            .checkpoint_age_bytes
            .and_then(|age| Zone::of(age, r.async_point_bytes, r.sync_point_bytes))
        else {
            return;
        };
        let here = self.here();
        let Some(change) = zone_step(&mut self.s.zone, &mut self.s.pending, now, at, here) else {
            return;
        };
        // Straight from below async to past sync between two samples: async was crossed too
        // (one judgement with the what-if's counts, `ZoneChange::crossed_async`).
        if change.crossed_async() && change.crossed_sync() {
            self.out.push(Moment {
                sample: change.sample,
                at: change.since,
                kind: MomentKind::AsyncCrossed,
                label: "checkpoint age crossed the async point".to_string(),
            });
        }
        let (kind, label) = match change.to {
            Zone::PastSync => (
                MomentKind::SyncCrossed,
                format!("checkpoint age crossed the {} point", r.sync_point_name),
            ),
            Zone::PastAsync if change.from == Zone::Below => (
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
            sample: change.sample,
            at: change.since,
            kind,
            label,
        });
    }

    fn figures(&mut self, f: &Figures) {
        let at = f.sampled_at;
        let prev = self.s.prev.take();
        self.redo_zone(f, at);
        if let Some(p) = &prev {
            // "Unknown" (still watching after a start or a reconnection) marks nothing.
            for v in f.verdicts.iter().filter(|v| v.kind != VerdictKind::Unknown) {
                if !p.verdicts.contains(&v.kind) {
                    self.push(
                        MomentKind::Verdict,
                        at,
                        format!("verdict: {}", v.kind.as_str().replace('_', " ")),
                    );
                }
            }
        }

        let blocker = f.blocker.as_ref().and_then(|b| b.thread_id);
        let prev_blocker = prev.as_ref().and_then(|p| p.blocker);
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
            && self.s.peak.is_none_or(|(_, _, p)| h > p)
        {
            self.s.peak = Some((self.here(), at, h));
        }

        // Whether purge moves is derive's judgement (`purge.moving`, what the Purge panel's
        // "not moving" and the verdicts read); a moment marks where it turns.
        let growing = f.history.growth_per_s.is_some_and(|g| g > 0.0);
        match f.purge.moving {
            Some(false) if growing && !self.s.purge_stopped => {
                self.s.purge_stopped = true;
                self.push(
                    MomentKind::PurgeStopped,
                    at,
                    "purge stopped while history grows".into(),
                );
            }
            Some(true) if self.s.purge_stopped => {
                self.s.purge_stopped = false;
                self.push(MomentKind::PurgeResumed, at, "purge resumed".into());
            }
            _ => {}
        }
    }
}

/// The history-peak moment for a peak (none for an empty history).
pub fn peak_moment(peak: Option<(u64, DateTime<Utc>, u64)>) -> Option<Moment> {
    let (sample, at, h) = peak.filter(|(_, _, h)| *h > 0)?;
    Some(Moment {
        sample,
        at,
        kind: MomentKind::HistoryPeak,
        label: format!("history peak {h}"),
    })
}

/// All notable moments of events held in memory, in time order, derived the way the
/// dashboard derives them.
pub fn find(events: &[SourceEvent]) -> Vec<Moment> {
    let mut view = DataView::default();
    let mut scan = Scanner::default();
    for ev in events {
        let step = view.step(ev, ev.at());
        scan.feed(ev, view.latest.as_ref().filter(|_| step.figures));
    }
    scan.finish()
}

/// Moments of one family closer than this share of the capture's length to the previous
/// one join its group: a job that stops purge every ten minutes all day is one mark, not
/// 144, while the moments of a short capture stay apart.
pub const GROUP_SHARE: i64 = 100;

/// The grouping gap for a capture lasting `span_s` seconds (see [`GROUP_SHARE`]).
pub fn group_gap_s(span_s: i64) -> i64 {
    (span_s / GROUP_SHARE).max(1)
}

/// Repeats of one family folded into one timeline mark.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub mark: char,
    /// The first moment, and the sample of the last.
    pub first: Moment,
    pub last_sample: u64,
    pub last_at: DateTime<Utc>,
    /// Moments it holds.
    pub count: usize,
}

/// Groups moments (in time order) family by family: a moment joins the open group of its
/// family when it comes within `gap_s` seconds of that group's last moment. Groups come out
/// ordered by their first moment.
pub fn group(moments: &[Moment], gap_s: i64) -> Vec<Group> {
    let mut open: Vec<Group> = Vec::new();
    let mut done: Vec<Group> = Vec::new();
    for m in moments {
        let mark = m.kind.mark();
        // Each bookmark is a mark of its own: its words are the point.
        let joins = |g: &Group| g.mark == mark && m.kind != MomentKind::Note;
        match open.iter_mut().position(|g| joins(g)) {
            Some(i) if (m.at - open[i].last_at).num_seconds() <= gap_s => {
                let g = &mut open[i];
                g.count += 1;
                g.last_sample = g.last_sample.max(m.sample);
                g.last_at = g.last_at.max(m.at);
            }
            found => {
                if let Some(i) = found {
                    done.push(open.swap_remove(i));
                }
                open.push(Group {
                    mark,
                    first: m.clone(),
                    last_sample: m.sample,
                    last_at: m.at,
                    count: 1,
                });
            }
        }
    }
    done.extend(open);
    done.sort_by_key(|g| (g.first.sample, g.first.at));
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(sample: u64, minute: i64, kind: MomentKind) -> Moment {
        Moment {
            sample,
            at: DateTime::<Utc>::from_timestamp(1_700_000_000 + minute * 60, 0).unwrap(),
            kind,
            label: format!("{kind:?} {sample}"),
        }
    }

    #[test]
    fn a_day_of_periodic_purge_stops_is_one_group() {
        let mut all = Vec::new();
        for i in 0..144 {
            all.push(m(i * 600, i as i64 * 10, MomentKind::PurgeStopped));
            all.push(m(
                i * 600 + 120,
                i as i64 * 10 + 2,
                MomentKind::PurgeResumed,
            ));
        }
        // A blocker in the middle does not split the purge group, and stands alone.
        all.push(m(40_000, 667, MomentKind::BlockerAppeared));
        all.sort_by_key(|m| m.sample);
        // A day: repeats ten minutes apart fold (the gap is 864 s).
        let groups = group(&all, group_gap_s(86_400));
        assert_eq!(groups.len(), 2, "{groups:#?}");
        assert_eq!((groups[0].mark, groups[0].count), ('P', 288));
        assert_eq!(groups[0].first.sample, 0);
        assert_eq!(groups[0].last_sample, 143 * 600 + 120);
        assert_eq!((groups[1].mark, groups[1].count), ('B', 1));
    }

    #[test]
    fn a_long_gap_starts_a_new_group() {
        let all = vec![
            m(0, 0, MomentKind::AsyncCrossed),
            m(10, 29, MomentKind::BackBelowAsync),
            m(20, 60, MomentKind::AsyncCrossed),
        ];
        // Three hours: the gap is 108 s — 29 minutes apart is too far.
        assert_eq!(group(&all, group_gap_s(3 * 3600)).len(), 3);
        // A week: the gap is 100 minutes.
        let groups = group(&all, group_gap_s(7 * 86_400));
        assert_eq!(
            groups
                .iter()
                .map(|g| (g.first.sample, g.count))
                .collect::<Vec<_>>(),
            vec![(0, 3)]
        );
    }
}
