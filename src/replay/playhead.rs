//! The replay's loader: it owns the capture set and where the replay stands in it, and does
//! every read the screen asks for — a window at a sample or a time, or playback's next
//! samples. The app never reads: it asks with a [`LoadRequest`] (a command), the dashboard
//! runs [`Loader::load`] on a blocking thread, and the [`LoadedSample`] comes back as a message.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use super::{CaptureSet, Cursor};
use crate::data_view::DataView;

/// Where a load goes; every position is clamped to the request's range.
#[derive(Debug, Clone, PartialEq)]
pub enum Goto {
    /// Sample `n`.
    Sample(u64),
    /// The first sample at or after a time (`g`).
    Time(DateTime<Utc>),
    /// Playback: on from sample `from`, as many samples as `budget_s` seconds of capture
    /// time pay for, at most `max` (a key's single step: one, with an unbounded budget).
    Step { from: u64, budget_s: f64, max: u32 },
}

/// One load the app asked for. `ticket` names it: the app applies only the answer to the
/// load it is waiting for, so a slow answer to an older request is dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadRequest {
    pub ticket: u64,
    pub to: Goto,
    /// The replay's range (`--from` / `--to`).
    pub first: u64,
    pub last: u64,
}

/// The screen at the sample a load reached.
#[derive(Debug)]
pub struct LoadedSample {
    /// The sample shown.
    pub pos: u64,
    pub view: DataView,
    /// Its time, and the times of the range's first and last samples (for the timeline).
    pub at: Option<DateTime<Utc>>,
    pub first_at: Option<DateTime<Utc>>,
    pub last_at: Option<DateTime<Utc>>,
    /// Seconds of capture time to the next sample (`None` at the end of the range).
    pub next_gap_s: Option<f64>,
    /// Capture seconds a step spent (0 for a seek).
    pub spent_s: f64,
    /// What the reader has found wrong with the capture so far (a damaged section is found
    /// when it is first read): [`Recording::damage`](super::Recording) and `end_note`.
    pub damage: Option<String>,
    pub note: Option<String>,
}

#[derive(Debug)]
struct Playhead {
    set: CaptureSet,
    /// The view last loaded and the cursor to step on from it.
    at: Option<(DataView, Cursor)>,
}

/// A handle on the replay's loader, shared by the app (which only hands it on) and the thread
/// that loads. One load runs at a time.
#[derive(Debug, Clone)]
pub struct Loader(Arc<Mutex<Playhead>>);

impl Loader {
    pub fn new(set: CaptureSet) -> Self {
        Loader(Arc::new(Mutex::new(Playhead { set, at: None })))
    }

    /// Does the reading `req` asks for. Blocks on file reads: never call it on the UI task.
    pub fn load(&self, req: &LoadRequest) -> Result<LoadedSample, String> {
        self.with_playhead(|p| p.load(req))?
    }

    /// Work on the set itself before the screen starts (a what-if, a sample's time).
    pub fn with_set<R>(&self, f: impl FnOnce(&mut CaptureSet) -> R) -> Result<R, String> {
        self.with_playhead(|p| f(&mut p.set))
    }

    fn with_playhead<R>(&self, f: impl FnOnce(&mut Playhead) -> R) -> Result<R, String> {
        let mut p = self.0.lock().map_err(|_| {
            "the replay's loader failed on an earlier read; open the capture again".to_string()
        })?;
        Ok(f(&mut p))
    }
}

impl Playhead {
    fn load(&mut self, req: &LoadRequest) -> Result<LoadedSample, String> {
        let (first, last) = (req.first.min(req.last), req.last);
        let mut spent_s = 0.0;
        match req.to {
            Goto::Sample(pos) => self.seek(pos.clamp(first, last))?,
            Goto::Time(t) => {
                let pos = self.set.index_at(t).clamp(first, last);
                self.seek(pos)?;
            }
            Goto::Step {
                from,
                budget_s,
                max,
            } => spent_s = self.step(from.clamp(first, last), budget_s, max, last)?,
        }
        let at = self.shown_at();
        let next_gap_s = self.gap_to_next(last);
        let first_at = self.set.sample_time(first);
        let last_at = self.set.sample_time(last);
        let (view, cursor) = self.at.as_ref().ok_or("nothing to show there")?;
        Ok(LoadedSample {
            pos: cursor.pos(),
            view: view.clone(),
            at,
            first_at,
            last_at,
            next_gap_s,
            spent_s,
            damage: self.set.damage().map(|d| d.summary()),
            note: self.set.note_details(),
        })
    }

    fn seek(&mut self, pos: u64) -> Result<(), String> {
        self.at = None;
        self.at = Some(self.set.view_at(pos, true)?);
        Ok(())
    }

    fn pos(&self) -> Option<u64> {
        self.at.as_ref().map(|(_, c)| c.pos())
    }

    /// The time of the sample shown: its figures' (once the server is known), else its row's.
    fn shown_at(&mut self) -> Option<DateTime<Utc>> {
        let (view, cursor) = self.at.as_ref()?;
        let pos = cursor.pos();
        view.latest
            .as_ref()
            .map(|f| f.sampled_at)
            .filter(|_| view.samples_seen > 0)
            .or_else(|| self.set.sample_time(pos))
    }

    fn gap_to_next(&mut self, last: u64) -> Option<f64> {
        let pos = self.pos().filter(|p| *p < last)?;
        let a = self.shown_at()?;
        let b = self.set.sample_time(pos + 1)?;
        Some(((b - a).num_milliseconds() as f64 / 1000.0).max(0.0))
    }

    /// Steps on from `from` (loading it first unless it is where the last load stopped);
    /// returns the capture seconds spent.
    fn step(&mut self, from: u64, budget_s: f64, max: u32, last: u64) -> Result<f64, String> {
        if self.pos() != Some(from) {
            self.seek(from)?;
        }
        let mut spent = 0.0;
        for _ in 0..max {
            let Some(gap) = self.gap_to_next(last) else {
                break;
            };
            if spent + gap > budget_s {
                break;
            }
            let Playhead { set, at } = self;
            let Some((view, cursor)) = at.as_mut() else {
                break;
            };
            match set.step(view, cursor) {
                Ok(true) => spent += gap,
                Ok(false) => break,
                Err(e) => {
                    self.at = None;
                    return Err(e);
                }
            }
        }
        Ok(spent)
    }
}
