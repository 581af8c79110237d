//! Replay transport: position, play/pause, speed, seeking and notable moments over a capture
//! set. The set stays on disk and the app never reads it: a seek or a playback step is a
//! load the runner does off the update path (`replay::playhead`), and the window it loads —
//! exactly what a replay from the start, and live at the time, showed — comes back as a
//! message. Only the answer to the load the app is waiting for is shown.

use chrono::{DateTime, Utc};

use crate::data_view::moments::{Group, Moment};
pub use crate::replay::Recording;
use crate::replay::{Goto, LoadRequest};
use innodebt_engine::verdicts::whatif::WhatIfReport;

pub const MIN_SPEED: f64 = 0.25;
pub const MAX_SPEED: f64 = 1000.0;
const SPEEDS: [f64; 11] = [
    0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 1000.0,
];

/// Transport state.
#[derive(Debug)]
pub struct Replay {
    pub recording: Recording,
    /// The sample shown, or being loaded to be shown (a seek moves it at once).
    pub pos: u64,
    /// The sample the screen shows now (where `pos` goes back to when a load fails).
    shown: u64,
    pub playing: bool,
    pub speed: f64,
    /// Sample range chosen with --from/--to.
    pub first: u64,
    pub last: u64,
    /// Text typed after `g`.
    pub goto_input: Option<String>,
    /// Times of the first, current and last sample of the range (for the timeline).
    pub first_at: Option<DateTime<Utc>>,
    pub pos_at: Option<DateTime<Utc>>,
    pub last_at: Option<DateTime<Utc>>,
    /// Capture seconds from the sample shown to the next (playback pacing).
    next_gap_s: Option<f64>,
    /// The load the app waits for (its ticket), and the last ticket handed out.
    pending: Option<u64>,
    tickets: u64,
    /// The awaited load, when it is the `→` key's step: a second `→` before it arrives steps
    /// once more from the same sample (the position it will reach is not known yet).
    pending_steps: Option<(u64, u32)>,
    /// Whether any window was loaded yet.
    loaded: bool,
    /// Why the last seek could not be shown, if it could not.
    pub error: Option<String>,
    /// `--what-if`: the recording re-judged under another setting, drawn as a second set of
    /// lines on the checkpoint-age (redo) or history (purge lag) chart, its summary in the
    /// checkpoint or purge panel.
    pub what_if: Option<WhatIfReport>,
    /// Wall-clock time of the previous tick (playback pacing).
    pub(super) last_wall: Option<DateTime<Utc>>,
    /// Capture seconds owed to playback (wall time × speed not yet spent on samples).
    pub(super) play_debt_s: f64,
}

impl Replay {
    /// A replay of `recording`'s samples `first..=last` (clamped), at `first` once loaded.
    pub fn new(recording: Recording, first: u64, last: u64) -> Self {
        let last = last.min(recording.len().saturating_sub(1));
        let first = first.min(last);
        Replay {
            recording,
            pos: first,
            shown: first,
            playing: false,
            speed: 1.0,
            first,
            last,
            goto_input: None,
            first_at: None,
            pos_at: None,
            last_at: None,
            next_gap_s: None,
            pending: None,
            tickets: 0,
            pending_steps: None,
            loaded: false,
            error: None,
            what_if: None,
            last_wall: None,
            play_debt_s: 0.0,
        }
    }

    pub fn now(&self) -> Option<DateTime<Utc>> {
        self.pos_at
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.last
    }

    /// A load is on its way.
    pub fn loading(&self) -> bool {
        self.pending.is_some()
    }

    /// The load for `to`, which the app now waits for (an older one's answer is dropped).
    pub(super) fn request(&mut self, to: Goto) -> LoadRequest {
        if let Goto::Sample(p) = to {
            self.pos = p.clamp(self.first, self.last);
        }
        self.tickets += 1;
        self.pending = Some(self.tickets);
        self.pending_steps = match to {
            Goto::Step {
                from,
                budget_s,
                max,
            } if budget_s.is_infinite() => Some((from, max)),
            _ => None,
        };
        LoadRequest {
            ticket: self.tickets,
            to,
            first: self.first,
            last: self.last,
        }
    }

    /// The `→` steps awaited: from which sample, and how many.
    pub(super) fn pending_steps(&self) -> Option<(u64, u32)> {
        self.pending_steps
    }

    /// The first window is still to be asked for.
    pub(super) fn unloaded(&self) -> bool {
        !self.loaded && self.pending.is_none()
    }

    /// Takes the answer to load `ticket` when it is the one awaited (`false`: a stale answer, dropped).
    pub(super) fn answered(&mut self, ticket: u64) -> bool {
        if self.pending != Some(ticket) {
            return false;
        }
        self.pending = None;
        self.pending_steps = None;
        true
    }

    /// A window arrived: the transport follows it (the view is the app's).
    pub(super) fn shown(&mut self, w: &crate::replay::LoadedSample) {
        self.loaded = true;
        self.pos = w.pos;
        self.shown = w.pos;
        self.pos_at = w.at;
        self.first_at = w.first_at;
        self.last_at = w.last_at;
        self.next_gap_s = w.next_gap_s;
        self.error = None;
        // Damage found by this load (a section read for the first time) shows from now on.
        self.recording.damage.clone_from(&w.damage);
        self.recording.end_note.clone_from(&w.note);
    }

    /// A load failed: back to what the screen shows, stopped.
    pub(super) fn failed(&mut self, why: String) {
        self.pos = self.shown;
        self.playing = false;
        self.error = Some(why);
    }

    /// Seconds of capture time from the sample shown to the next.
    pub fn gap_to_next(&self) -> Option<f64> {
        self.next_gap_s.filter(|_| self.pos < self.last)
    }

    pub fn faster(&mut self) {
        self.speed = SPEEDS
            .iter()
            .copied()
            .find(|s| *s > self.speed)
            .unwrap_or(MAX_SPEED);
    }

    pub fn slower(&mut self) {
        self.speed = SPEEDS
            .iter()
            .rev()
            .copied()
            .find(|s| *s < self.speed)
            .unwrap_or(MIN_SPEED);
    }

    fn groups_in_range(&self) -> impl DoubleEndedIterator<Item = &Group> {
        self.recording
            .groups
            .iter()
            .filter(|g| g.first.sample >= self.first && g.first.sample <= self.last)
    }

    /// The next (or previous) group of notable moments starting strictly after (before) the
    /// current sample.
    pub fn moment(&self, forward: bool) -> Option<&Group> {
        if forward {
            self.groups_in_range().find(|g| g.first.sample > self.pos)
        } else {
            self.groups_in_range()
                .rev()
                .find(|g| g.first.sample < self.pos)
        }
    }

    /// The moment at the current position, for the status line (a bookmark first).
    pub fn moment_here(&self) -> Option<&Moment> {
        if let Some(b) = self
            .recording
            .bookmarks
            .iter()
            .find(|m| m.sample == self.pos)
        {
            return Some(b);
        }
        let all = self.recording.moments();
        let i = all.partition_point(|m| m.sample < self.pos);
        all[i..].iter().take_while(|m| m.sample == self.pos).last()
    }

    /// The group starting at the current position, when it holds repeats.
    pub fn group_here(&self) -> Option<&Group> {
        self.recording
            .groups
            .iter()
            .find(|g| g.first.sample == self.pos && g.count > 1)
    }
}

/// What `g` accepts: `HH:MM:SS` (the capture's day, UTC), RFC 3339, `+90s`/`+5m` offsets from
/// the start, or `-30s` from the current position. The time; the sample at or after it is
/// the loader's to find.
pub fn parse_goto(text: &str, replay: &Replay) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    let start = replay
        .first_at
        .ok_or("the replay's first sample is not loaded yet: try again in a moment")?;
    Ok(if let Some(off) = t.strip_prefix('+') {
        start + offset(off)?
    } else if let Some(off) = t.strip_prefix('-') {
        replay.now().unwrap_or(start) - offset(off)?
    } else if let Ok(ts) = DateTime::parse_from_rfc3339(t) {
        ts.with_timezone(&Utc)
    } else if let Ok(clock) = chrono::NaiveTime::parse_from_str(t, "%H:%M:%S")
        .or_else(|_| chrono::NaiveTime::parse_from_str(t, "%H:%M"))
    {
        let day = replay.now().unwrap_or(start).date_naive();
        day.and_time(clock).and_utc()
    } else {
        return Err(format!(
            "can't read \"{t}\" as a time: use HH:MM:SS, an RFC 3339 time, +90s / +5m from the start, or -30s"
        ));
    })
}

fn offset(s: &str) -> Result<chrono::Duration, String> {
    let d = crate::cli::parse_duration(s)?;
    chrono::Duration::from_std(d).map_err(|e| e.to_string())
}
