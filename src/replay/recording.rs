//! A capture opened for replay, as the screen needs it: its name, notes, notable moments,
//! bookmarks and severity stretches, read once when it opens (before the screen starts) and
//! then held in memory, and the [`Loader`] that does every later read off the UI task.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::playhead::Loader;
use super::set::CaptureSet;
use crate::data_view::moments::{self, Group, Moment, MomentKind};
use innodebt_capture::Note;
use innodebt_engine::verdicts::{RecoveryModel, Severity};
use innodebt_server::sample::SourceEvent;

/// Where a bookmark at a time would be stored: a file and when it starts.
#[derive(Debug)]
struct FileStart {
    /// `None`: not a file on disk (the built-in demo is in memory).
    path: Option<PathBuf>,
    starts: Option<DateTime<Utc>>,
}

/// A capture (or a directory of them) opened for replay.
#[derive(Debug)]
pub struct Recording {
    /// Reads the set; the app only hands it on to the runner.
    pub loader: Loader,
    /// What the reader says about the files (damage and what it cost, how they ended: "…
    /// is still open at byte 1234"), kept up to date as windows load.
    pub end_note: Option<String>,
    /// What damage cost, when samples were lost to it ("damaged: 1m37s of 3m30s could be
    /// read"): the header's DAMAGED badge.
    pub damage: Option<String>,
    /// The file (or directory) name for the header.
    pub name: String,
    /// Notable moments folded into timeline marks, bookmarks each a mark of its own.
    pub groups: Vec<Group>,
    /// The bookmarks as moments (on the sample at or after each), in time order.
    pub bookmarks: Vec<Moment>,
    moments: Vec<Moment>,
    severity: Vec<(u64, Option<Severity>)>,
    files: Vec<FileStart>,
    len: u64,
    /// Seconds from the first sample to the last (how close moments fold together).
    span_s: i64,
}

impl Recording {
    /// Reads what the screen holds of `set` (summaries and a few section states).
    pub fn new(mut set: CaptureSet) -> Self {
        let span_s = match (
            set.sample_time(0),
            set.sample_time(set.len().saturating_sub(1)),
        ) {
            (Some(a), Some(b)) => (b - a).num_seconds(),
            _ => 0,
        };
        let bookmarks = set
            .bookmarks()
            .into_iter()
            .map(|n| bookmark(&n, set.index_at(n.at)))
            .collect();
        let files = set
            .files()
            .map(|index| FileStart {
                path: index.is_file().then(|| index.path().to_path_buf()),
                starts: index.frames().first().map(|fr| fr.first_at),
            })
            .collect();
        let mut r = Recording {
            end_note: set.note_details(),
            damage: set.damage().map(|d| d.summary()),
            name: set.name().to_string(),
            groups: Vec::new(),
            bookmarks,
            moments: set.moments().to_vec(),
            severity: set.severity().to_vec(),
            files,
            len: set.len(),
            span_s,
            loader: Loader::new(set),
        };
        r.regroup();
        r
    }

    /// Shows a new bookmark, on sample `sample`, on the timeline and among the moments
    /// `n`/`N` reach.
    pub fn add_bookmark(&mut self, note: Note, sample: u64) {
        self.bookmarks.push(bookmark(&note, sample));
        self.bookmarks.sort_by_key(|m| (m.at, m.sample));
        self.regroup();
    }

    fn regroup(&mut self) {
        let mut all = self.moments.clone();
        all.extend(self.bookmarks.iter().cloned());
        all.sort_by_key(|m| (m.at, m.sample));
        self.groups = moments::group(&all, moments::group_gap_s(self.span_s));
    }

    /// Events held in memory as a recording (tests, conversions): written to a private
    /// temporary capture first, like any other.
    pub fn from_events(
        events: &[SourceEvent],
        name: &str,
        recovery: RecoveryModel,
    ) -> Result<Self, String> {
        let header = innodebt_capture::Header::new(
            events.first().map(SourceEvent::at).unwrap_or_default(),
            None,
            true,
        );
        let set = super::temp_capture(name, &header, events, recovery)?;
        Ok(Recording::new(set))
    }

    /// Work on the capture set itself, before the screen starts (a what-if, a sample's time).
    pub fn with_set<R>(&self, f: impl FnOnce(&mut CaptureSet) -> R) -> Result<R, String> {
        self.loader.with_set(f)
    }

    /// Samples in the recording.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every notable moment, in time order.
    pub fn moments(&self) -> &[Moment] {
        &self.moments
    }

    /// Worst verdict severity by stretch (see [`CaptureSet::severity`]).
    pub fn severity(&self) -> &[(u64, Option<Severity>)] {
        &self.severity
    }

    /// The file on disk a bookmark at `t` belongs in: the last one starting at or before
    /// it (`None` for the built-in demo, which is in memory).
    pub fn file_for(&self, t: DateTime<Utc>) -> Option<&Path> {
        self.files
            .iter()
            .rev()
            .find(|f| f.starts.is_some_and(|s| s <= t))
            .or(self.files.first())?
            .path
            .as_deref()
    }
}

fn bookmark(n: &Note, sample: u64) -> Moment {
    Moment {
        sample,
        at: n.at,
        kind: MomentKind::Note,
        label: format!("note: {}", n.text),
    }
}
