//! Replay transport: position, play/pause, speed, seeking and notable moments over a capture
//! held in memory. Seeking rebuilds the displayed [`DataView`] from the events before the new
//! position (at most the chart span), so the screen is exactly what live showed then.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::moments::Moment;
use super::view::{DataView, SERIES_POINTS};
use crate::metrics::Deriver;
use crate::sample::SourceEvent;
use crate::verdicts::RecoveryModel;

pub const MIN_SPEED: f64 = 0.25;
pub const MAX_SPEED: f64 = 1000.0;
const SPEEDS: [f64; 11] = [
    0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 1000.0,
];

/// A capture loaded for replay.
#[derive(Debug, Clone)]
pub struct Recording {
    pub events: Arc<Vec<SourceEvent>>,
    /// Index into `events` of every sample, in order.
    pub samples: Vec<usize>,
    /// What the source says about how the file ended ("truncated at byte 1234: …").
    pub end_note: Option<String>,
    /// The file (or directory) name for the header.
    pub name: String,
    /// How recovery estimates are made when re-deriving (`--recovery-rate`).
    pub recovery: RecoveryModel,
}

impl Recording {
    pub fn new(events: Vec<SourceEvent>, name: String, end_note: Option<String>) -> Self {
        let samples = events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, SourceEvent::Sample(_)))
            .map(|(i, _)| i)
            .collect();
        Recording {
            events: Arc::new(events),
            samples,
            end_note,
            name,
            recovery: RecoveryModel::published_default(),
        }
    }

    /// Appends events loaded later (a big file streams in section by section).
    pub fn extend(&mut self, more: Vec<SourceEvent>) {
        let events = Arc::make_mut(&mut self.events);
        let base = events.len();
        self.samples.extend(
            more.iter()
                .enumerate()
                .filter(|(_, e)| matches!(e, SourceEvent::Sample(_)))
                .map(|(i, _)| base + i),
        );
        events.extend(more);
    }

    pub fn sample_time(&self, i: usize) -> Option<(DateTime<Utc>, f64)> {
        match self.events.get(*self.samples.get(i)?)? {
            SourceEvent::Sample(s) => Some((s.taken_at, s.mono_s)),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The sample at or just after `t`.
    pub fn index_at(&self, t: DateTime<Utc>) -> usize {
        let idx = self.samples.partition_point(|i| match self.events.get(*i) {
            Some(SourceEvent::Sample(s)) => s.taken_at < t,
            _ => true,
        });
        idx.min(self.len().saturating_sub(1))
    }

    /// The view as live showed it at sample `pos`: replays the chart span before it.
    pub fn view_at(&self, pos: usize) -> DataView {
        self.view_at_span(pos, SERIES_POINTS)
    }

    /// Like [`Recording::view_at`], re-deriving only the last `span` samples (the chart
    /// window): seeking a day-long capture stays instant.
    pub fn view_at_span(&self, pos: usize, span: usize) -> DataView {
        let mut view = DataView::new(Deriver::with_recovery(self.recovery.clone()));
        let Some(&end) = self.samples.get(pos) else {
            return view;
        };
        let start_sample = pos.saturating_sub(span.clamp(1, SERIES_POINTS));
        let start = self.samples.get(start_sample).copied().unwrap_or(0);
        // The server identity (and variable changes) from before the span still apply.
        let connected = self.events[..start]
            .iter()
            .rposition(|e| matches!(e, SourceEvent::Connected { .. }));
        if let Some(c) = connected {
            for ev in &self.events[c..start] {
                if matches!(
                    ev,
                    SourceEvent::Connected { .. } | SourceEvent::Variables { .. }
                ) {
                    feed(&mut view, ev);
                }
            }
        }
        for ev in &self.events[start..=end] {
            feed(&mut view, ev);
        }
        view
    }
}

fn feed(view: &mut DataView, ev: &SourceEvent) {
    view.ingest(ev, ev.at());
}

/// Transport state.
#[derive(Debug, Clone)]
pub struct Replay {
    pub recording: Recording,
    pub pos: usize,
    pub playing: bool,
    pub speed: f64,
    pub moments: Vec<Moment>,
    /// Sample range chosen with --from/--to.
    pub first: usize,
    pub last: usize,
    /// Text typed after `g`.
    pub goto_input: Option<String>,
}

impl Replay {
    pub fn new(recording: Recording, moments: Vec<Moment>, first: usize, last: usize) -> Self {
        let last = last.min(recording.len().saturating_sub(1));
        let first = first.min(last);
        Replay {
            recording,
            pos: first,
            playing: false,
            speed: 1.0,
            moments,
            first,
            last,
            goto_input: None,
        }
    }

    pub fn now(&self) -> Option<DateTime<Utc>> {
        self.recording.sample_time(self.pos).map(|(t, _)| t)
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.last
    }

    /// Seconds of capture time from the current sample to the next.
    pub fn gap_to_next(&self) -> Option<f64> {
        let (_, a) = self.recording.sample_time(self.pos)?;
        let (_, b) = self.recording.sample_time(self.pos + 1)?;
        Some((b - a).max(0.0))
    }

    pub fn step(&mut self, forward: bool) -> bool {
        let next = if forward {
            (self.pos + 1).min(self.last)
        } else {
            self.pos.saturating_sub(1).max(self.first)
        };
        let moved = next != self.pos;
        self.pos = next;
        moved
    }

    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.clamp(self.first, self.last);
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

    /// The next (or previous) notable moment strictly after (before) the current sample.
    pub fn moment(&self, forward: bool) -> Option<&Moment> {
        let in_range = |m: &&Moment| m.sample >= self.first && m.sample <= self.last;
        if forward {
            self.moments
                .iter()
                .filter(in_range)
                .find(|m| m.sample > self.pos)
        } else {
            self.moments
                .iter()
                .filter(in_range)
                .rev()
                .find(|m| m.sample < self.pos)
        }
    }

    /// The moment at the current position, for the status line.
    pub fn moment_here(&self) -> Option<&Moment> {
        self.moments.iter().rev().find(|m| m.sample == self.pos)
    }
}

/// What `g` accepts: `HH:MM:SS` (the capture's day, UTC), RFC 3339, `+90s`/`+5m` offsets from
/// the start, or `-30s` from the current position.
pub fn parse_goto(text: &str, replay: &Replay) -> Result<usize, String> {
    let t = text.trim();
    let rec = &replay.recording;
    let start = rec
        .sample_time(replay.first)
        .map(|(t, _)| t)
        .ok_or("the capture has no samples")?;
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
    Ok(rec.index_at(target).clamp(replay.first, replay.last))
}

fn offset(s: &str) -> Result<chrono::Duration, String> {
    let d = crate::cli::parse_duration(s)?;
    chrono::Duration::from_std(d).map_err(|e| e.to_string())
}
