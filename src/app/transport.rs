//! Replay transport: position, play/pause, speed, seeking and notable moments over a capture
//! set. The set stays on disk: seeking rebuilds the displayed [`DataView`] from the state
//! stored before the position's section (see `capture::window`), so the screen is exactly
//! what a replay from the start — and live at the time — showed, whatever the capture's
//! length; playing steps on event by event.

use chrono::{DateTime, Utc};

use super::view::DataView;
use crate::capture::Note;
use crate::replay::{CaptureSet, Cursor};
use crate::sample::SourceEvent;
use crate::verdicts::RecoveryModel;
use crate::verdicts::whatif::WhatIfReport;
use crate::view::moments::{self, Group, Moment, MomentKind};

pub const MIN_SPEED: f64 = 0.25;
pub const MAX_SPEED: f64 = 1000.0;
const SPEEDS: [f64; 11] = [
    0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 1000.0,
];

/// A capture (or a directory of them) opened for replay.
#[derive(Debug)]
pub struct Recording {
    pub set: CaptureSet,
    /// What the reader says about how the files ended ("truncated at byte 1234: …").
    pub end_note: Option<String>,
    /// The file (or directory) name for the header.
    pub name: String,
    /// Notable moments folded into timeline marks, bookmarks each a mark of its own.
    pub groups: Vec<Group>,
    /// The bookmarks as moments (on the sample at or after each), in time order.
    pub bookmarks: Vec<Moment>,
}

impl Recording {
    pub fn new(set: CaptureSet) -> Self {
        let mut r = Recording {
            end_note: set.note(),
            name: set.name().to_string(),
            groups: Vec::new(),
            bookmarks: Vec::new(),
            set,
        };
        r.regroup();
        r
    }

    /// Shows a new bookmark on the timeline and among the moments `n`/`N` reach.
    pub fn add_bookmark(&mut self, note: Note) {
        self.set.add_bookmark(note);
        self.regroup();
    }

    fn regroup(&mut self) {
        let set = &mut self.set;
        let span = match (
            set.sample_time(0),
            set.sample_time(set.len().saturating_sub(1)),
        ) {
            (Some(a), Some(b)) => (b - a).num_seconds(),
            _ => 0,
        };
        self.bookmarks = set
            .bookmarks()
            .into_iter()
            .map(|n| Moment {
                sample: set.index_at(n.at),
                at: n.at,
                kind: MomentKind::Note,
                label: format!("note: {}", n.text),
            })
            .collect();
        let mut all: Vec<Moment> = set.moments().to_vec();
        all.extend(self.bookmarks.iter().cloned());
        all.sort_by_key(|m| (m.at, m.sample));
        self.groups = moments::group(&all, moments::group_gap_s(span));
    }

    /// Events held in memory as a recording (tests, conversions): written to a private
    /// temporary capture first, like any other.
    pub fn from_events(
        events: &[SourceEvent],
        name: &str,
        recovery: RecoveryModel,
    ) -> Result<Self, String> {
        let header = crate::capture::Header::new(
            events.first().map(SourceEvent::at).unwrap_or_default(),
            None,
            true,
        );
        let set = crate::replay::temp_capture(name, &header, events, recovery)?;
        Ok(Recording::new(set))
    }

    /// Samples in the recording.
    pub fn len(&self) -> u64 {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Every notable moment, in time order.
    pub fn moments(&self) -> &[Moment] {
        self.set.moments()
    }
}

/// Transport state.
#[derive(Debug)]
pub struct Replay {
    pub recording: Recording,
    /// The sample shown.
    pub pos: u64,
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
    /// Monotonic seconds of the current and the next sample (playback pacing).
    pub(crate) pos_t: Option<f64>,
    pub(crate) cursor: Option<Cursor>,
    /// Why the last seek could not be shown, if it could not.
    pub error: Option<String>,
    /// `--what-if`: the recording re-judged under another setting, drawn as a second set of
    /// lines on the checkpoint-age (redo) or history (purge lag) chart, its summary in the
    /// checkpoint or purge panel.
    pub what_if: Option<WhatIfReport>,
}

impl Replay {
    pub fn new(mut recording: Recording, first: u64, last: u64) -> Self {
        let last = last.min(recording.len().saturating_sub(1));
        let first = first.min(last);
        let first_at = recording.set.sample_time(first);
        let last_at = recording.set.sample_time(last);
        Replay {
            recording,
            pos: first,
            playing: false,
            speed: 1.0,
            first,
            last,
            goto_input: None,
            first_at,
            pos_at: first_at,
            last_at,
            pos_t: None,
            cursor: None,
            error: None,
            what_if: None,
        }
    }

    pub fn now(&self) -> Option<DateTime<Utc>> {
        self.pos_at
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.last
    }

    /// The view at sample `pos` (clamped to the range); keeps the cursor for stepping on.
    pub fn view_at(&mut self, pos: u64) -> Result<DataView, String> {
        let pos = pos.clamp(self.first, self.last);
        let (view, cursor) = self.recording.set.view_at(pos, true)?;
        self.pos = cursor.pos();
        self.cursor = Some(cursor);
        self.error = None;
        self.shown(&view);
        Ok(view)
    }

    /// One sample forward into `view`; false at the end of the range.
    pub fn step_into(&mut self, view: &mut DataView) -> Result<bool, String> {
        if self.pos >= self.last {
            return Ok(false);
        }
        let Some(mut cursor) = self.cursor.take() else {
            *view = self.view_at(self.pos + 1)?;
            return Ok(true);
        };
        let moved = self.recording.set.step(view, &mut cursor);
        self.pos = cursor.pos();
        self.cursor = Some(cursor);
        self.shown(view);
        moved
    }

    fn shown(&mut self, view: &DataView) {
        self.pos_at = view
            .latest
            .as_ref()
            .map(|f| f.sampled_at)
            .filter(|_| view.samples_seen > 0)
            .or_else(|| self.recording.set.sample_time(self.pos));
        self.pos_t = Some(view.latest_t);
    }

    /// Seconds of capture time from the current sample to the next.
    pub fn gap_to_next(&mut self) -> Option<f64> {
        if self.pos >= self.last {
            return None;
        }
        let a = self.pos_at?;
        let b = self.recording.set.sample_time(self.pos + 1)?;
        Some(((b - a).num_milliseconds() as f64 / 1000.0).max(0.0))
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
/// the start, or `-30s` from the current position.
pub fn parse_goto(text: &str, replay: &mut Replay) -> Result<u64, String> {
    let t = text.trim();
    let start = replay.first_at.ok_or("the capture has no samples")?;
    let target = if let Some(off) = t.strip_prefix('+') {
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
    };
    Ok(replay
        .recording
        .set
        .index_at(target)
        .clamp(replay.first, replay.last))
}

fn offset(s: &str) -> Result<chrono::Duration, String> {
    let d = crate::cli::parse_duration(s)?;
    chrono::Duration::from_std(d).map_err(|e| e.to_string())
}
