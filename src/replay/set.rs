//! What a replay opens: one capture, or a directory of them (a flight recorder's hourly
//! files), as one sequence of samples numbered from 0. Opening reads the section summaries
//! only; sections that have none the reader can trust (format 1, the open end of a file
//! still being written, damage, another derivation version) are derived once, at open, into
//! scratch storage. Then the screen at any sample is rebuilt from the state before its
//! section, a few sections of rows and that one section's events (see `window`).
//!
//! Each file starts from its own initial derivation: fresh, or the one a rotation carried
//! over (so a recorder's hourly files replay exactly as one long file, and two separate
//! recordings in one directory do not mix their peaks).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::damage::{Damage, Lost, Until};
use super::summary::{
    self, BUCKET_SAMPLES, Checkpoint, Initial, SectionState, SectionSummary, StoredState,
    Summarizer,
};
use crate::data_view::moments::{Moment, MomentKind, peak_moment};
use innodebt_capture::spill::Spill;
use innodebt_capture::{CaptureIndex, End, FrameInfo, Note};
use innodebt_engine::derive::DERIVATION_VERSION;
use innodebt_engine::verdicts::{EnginePoints, RecoveryModel, Severity};

/// Section states kept decoded (rows for charts and the engine, the checkpoint).
const STATE_CACHE: usize = 24;
/// Initial states of rotated files kept decoded (each holds the verdict engine's series,
/// hundreds of kilobytes: a week of hourly files must not hold 168 of them).
const INITIAL_CACHE: usize = 4;

/// Where a section's end state is.
#[derive(Debug, Clone, Copy)]
enum StateLoc {
    /// In the capture, written by a build with this derivation version.
    Stored,
    /// Derived at open into the scratch storage.
    Spilled((u64, u64)),
}

#[derive(Debug)]
pub(crate) struct Section {
    /// Index into the file's frames.
    pub frame: usize,
    /// Index of its first sample in the set, and its samples.
    pub first: u64,
    pub samples: u64,
    pub first_at: Option<DateTime<Utc>>,
    pub last_at: Option<DateTime<Utc>>,
    state: StateLoc,
}

#[derive(Debug)]
pub(crate) struct SetFile {
    pub index: CaptureIndex,
    /// Index of its first sample in the set.
    pub base: u64,
    /// Index of its first sample in its derivation chain (0 unless rotated).
    chain_base: u64,
    /// Whether it starts from the initial state it stores (else from a fresh derivation).
    carried: bool,
    pub sections: Vec<Section>,
}

impl SetFile {
    fn samples(&self) -> u64 {
        self.sections.iter().map(|s| s.samples).sum()
    }

    /// A chain-relative sample index to the set's.
    fn global(&self, chain: u64) -> u64 {
        if chain >= self.chain_base {
            self.base + (chain - self.chain_base)
        } else {
            self.base.saturating_sub(self.chain_base - chain)
        }
    }
}

/// A replay's captures; see the module docs.
#[derive(Debug)]
pub struct CaptureSet {
    name: String,
    pub(crate) files: Vec<SetFile>,
    pub(crate) recovery: RecoveryModel,
    /// `--sizing-span`: like `recovery`, the reader's, applied to every restored view.
    pub(crate) sizing_span: std::time::Duration,
    spill: Spill,
    cache: VecDeque<((usize, usize), Arc<StoredState>)>,
    initials: VecDeque<(usize, Arc<Initial>)>,
    moments: Vec<Moment>,
    severity: Vec<(u64, Option<Severity>)>,
    notes: Vec<String>,
    /// Stretches of samples lost to damage, in the order they were found.
    lost: Vec<Lost>,
    peak: Option<(u64, DateTime<Utc>, u64)>,
    /// Bookmarks added during this replay (those in the files are in their indexes).
    added: Vec<Note>,
}

impl CaptureSet {
    /// An empty set named `name`; add files in replay order.
    pub fn new(name: String, recovery: RecoveryModel) -> Self {
        CaptureSet {
            name,
            files: Vec::new(),
            recovery,
            sizing_span: std::time::Duration::from_secs_f64(
                innodebt_engine::verdicts::sizing::DEFAULT_SPAN_S,
            ),
            spill: Spill::default(),
            cache: VecDeque::new(),
            initials: VecDeque::new(),
            moments: Vec::new(),
            severity: Vec::new(),
            notes: Vec::new(),
            lost: Vec::new(),
            peak: None,
            added: Vec::new(),
        }
    }

    /// One capture file.
    pub fn open_file(path: &Path, recovery: RecoveryModel) -> Result<Self, String> {
        let index = CaptureIndex::open(path).map_err(|e| e.to_string())?;
        let mut set = CaptureSet::new(path.display().to_string(), recovery);
        set.add(index)?;
        Ok(set)
    }

    /// A capture held in memory (the built-in demo).
    pub fn from_bytes(bytes: &[u8], name: &str, recovery: RecoveryModel) -> Result<Self, String> {
        let index = CaptureIndex::from_bytes(bytes, Path::new(name)).map_err(|e| e.to_string())?;
        let mut set = CaptureSet::new(name.to_string(), recovery);
        set.add(index)?;
        Ok(set)
    }

    /// Judges sizing with the reader's `--sizing-span` (what was watched comes from the
    /// capture, from its first sample).
    pub fn with_sizing_span(mut self, span: std::time::Duration) -> Self {
        self.sizing_span = span;
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Samples in the whole set.
    pub fn len(&self) -> u64 {
        self.files.last().map_or(0, |f| f.base + f.samples())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Files in replay order.
    pub fn files(&self) -> impl Iterator<Item = &CaptureIndex> {
        self.files.iter().map(|f| &f.index)
    }

    /// The first sample of every section, in order.
    pub fn section_starts(&self) -> impl Iterator<Item = u64> + '_ {
        self.files
            .iter()
            .flat_map(|f| f.sections.iter().map(|s| s.first))
    }

    /// Notable moments of the whole set, in time order, the history peak included.
    pub fn moments(&self) -> &[Moment] {
        &self.moments
    }

    /// Worst verdict severity by stretch: each entry holds from its first sample to the next
    /// entry's (`None`: no figures there).
    pub fn severity(&self) -> &[(u64, Option<Severity>)] {
        &self.severity
    }

    /// What the reader found wrong or worth saying (cut files, damage, overlapping files),
    /// as one line.
    pub fn note(&self) -> Option<String> {
        let notes = self.notes();
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// What the reader found wrong or worth saying, one item each: what damage cost first
    /// (see [`damage`](Self::damage)), then the rest (cut files, overlapping files, what made
    /// a triggered capture). Every reader of a capture reports these words.
    pub fn notes(&self) -> Vec<String> {
        let mut all = self
            .damage()
            .map(|d| d.lines(&self.name))
            .unwrap_or_default();
        all.extend(self.notes.iter().cloned());
        all
    }

    /// [`note`](Self::note) without what damage cost in all (the dashboard shows that apart,
    /// beside its DAMAGED badge): each lost stretch, then the rest.
    pub fn note_details(&self) -> Option<String> {
        let notes: Vec<String> = self
            .lost
            .iter()
            .map(super::damage::Lost::words)
            .chain(self.notes.iter().cloned())
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// What damage cost the samples read so far (a damaged section is found when it is
    /// read: at open for those without a summary this build trusts, else when first shown).
    pub fn damage(&self) -> Option<Damage<'_>> {
        if self.lost.is_empty() {
            return None;
        }
        let (first, last) = self.span().unwrap_or_else(|| {
            let t = self.lost[0].after;
            (t, t)
        });
        Some(Damage {
            lost: &self.lost,
            first,
            last,
        })
    }

    /// The times of the first and last samples read.
    pub fn span(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let sections = || self.files.iter().flat_map(|f| f.sections.iter());
        let first = sections().find_map(|s| s.first_at.filter(|_| s.samples > 0))?;
        let last = self
            .files
            .iter()
            .rev()
            .flat_map(|f| f.sections.iter().rev())
            .filter(|s| s.samples > 0)
            .find_map(|s| s.last_at)?;
        Some((first, last))
    }

    /// Counts a stretch lost to damage, once per section however often it is read.
    pub(crate) fn lose(&mut self, lost: Lost) {
        if !self.lost.iter().any(|l| l.key == lost.key) {
            self.lost.push(lost);
        }
    }

    /// The last sample read before section `k` of file `f`, or when the file's recording
    /// started.
    pub(crate) fn read_before(&self, f: usize, k: usize) -> DateTime<Utc> {
        let file = &self.files[f];
        file.sections[..k.min(file.sections.len())]
            .iter()
            .rev()
            .find_map(|s| s.last_at)
            .unwrap_or(file.index.header().started_at)
    }

    /// The first time known after section `k` of file `f` (which damage cut short): the next
    /// section's start, else the end mark.
    pub(crate) fn known_after(&self, f: usize, k: usize) -> Until {
        let index = &self.files[f].index;
        match index.frames().get(k + 1) {
            Some(next) => Until::Sample(next.first_at),
            None => index
                .trailer()
                .map_or(Until::Unknown, |t| Until::EndMark(t.finished_at)),
        }
    }

    pub fn push_note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// Adds the next file: reads its summaries, derives what it lacks.
    pub fn add(&mut self, index: CaptureIndex) -> Result<(), String> {
        let f = self.files.len();
        // A rotated file whose first section was summarised by this build carries a state
        // made by this build too (one writer wrote both): where its chain starts is in that
        // summary, and the state itself is read when a replay first needs it.
        let first_sample = index
            .frames()
            .first()
            .filter(|_| index.has_initial())
            .and_then(trusted_summary)
            .map(|s| s.first_sample);
        let (chain_base, carried) = match first_sample {
            Some(first) => (first, true),
            None => match decode_initial(&index) {
                Ok(Some(i)) => {
                    let first = i.first_sample;
                    self.initials.push_back((f, Arc::new(i)));
                    (first, true)
                }
                Ok(None) => (0, false),
                Err(note) => {
                    self.note_once(note);
                    (0, false)
                }
            },
        };
        // Damage at the end of the scan is counted once the sections before it are read.
        let end_lost = match index.end() {
            End::Truncated { reason, .. } if index.end_damaged() => Some(reason.clone()),
            End::Truncated { reason, .. } => {
                self.notes.push(reason.clone());
                None
            }
            End::Complete => None,
        };
        // What made a triggered capture (`trigger::files`), or an import at a coarser
        // resolution with figures it lacks (`capture::prometheus`), in its header.
        self.notes.extend(
            index
                .header()
                .notes
                .iter()
                .filter(|n| {
                    n.starts_with("triggered capture:") || n.starts_with("imported from Prometheus")
                })
                .cloned(),
        );
        if let Some(prev) = self.files.last()
            && let (Some(end), Some(start)) = (
                prev.sections.last().and_then(|s| s.last_at),
                index.frames().first().map(|f| f.first_at),
            )
            && start < end
        {
            self.notes.push(format!(
                "{} starts at {} before {} ends ({}): the files overlap; they are replayed one after the other",
                index.path().display(),
                start.format("%Y-%m-%d %H:%M:%S"),
                prev.index.path().display(),
                end.format("%H:%M:%S")
            ));
        }
        let base = self.len();
        let frames = index.frames().len();
        self.files.push(SetFile {
            index,
            base,
            chain_base,
            carried,
            sections: Vec::with_capacity(frames),
        });
        for k in 0..frames {
            self.add_section(f, k)?;
        }
        self.lose_gaps(f, end_lost);
        if let Some(m) = peak_moment(self.peak) {
            self.moments.retain(|m| m.kind != MomentKind::HistoryPeak);
            self.moments.push(m);
        }
        self.moments.sort_by_key(|m| (m.sample, m.at));
        Ok(())
    }

    /// Counts what the scan of file `f` stepped over (damage between sections) and, when the
    /// scan ended at damage, what followed it.
    fn lose_gaps(&mut self, f: usize, end: Option<String>) {
        let file = &self.files[f];
        let index = &file.index;
        let mut found = Vec::new();
        for g in index.gaps() {
            // The sections before the gap (by where they start) and the one it resumes at.
            let before = index.frames().partition_point(|fr| fr.offset < g.at_byte);
            let after = self.read_before(f, before);
            let until = match index.frames().iter().find(|fr| fr.offset >= g.resumes_at) {
                Some(next) => Until::Sample(next.first_at),
                None => index
                    .trailer()
                    .map_or(Until::Unknown, |t| Until::EndMark(t.finished_at)),
            };
            found.push(Lost {
                what: format!("{}: {}", index.path().display(), g.what),
                after,
                until,
                key: (f, None),
            });
        }
        if let Some(what) = end {
            found.push(Lost {
                what,
                after: self.read_before(f, file.sections.len()),
                until: Until::Unknown,
                key: (f, None),
            });
        }
        // Several gaps of one file are several stretches: only a section's own damage is
        // counted once however often it is read.
        self.lost.extend(found);
    }

    /// The derivation file `f` starts from: fresh, or the state a rotation carried over.
    fn initial(&mut self, f: usize) -> Arc<Initial> {
        if !self.files[f].carried {
            return Arc::new(fresh_initial());
        }
        if let Some(i) = self.initials.iter().position(|(key, _)| *key == f)
            && let Some((_, hit)) = self.initials.remove(i)
        {
            self.initials.push_back((f, Arc::clone(&hit)));
            return hit;
        }
        let initial = Arc::new(match decode_initial(&self.files[f].index) {
            Ok(Some(i)) => i,
            Ok(None) => fresh_initial(),
            Err(note) => {
                self.note_once(note);
                fresh_initial()
            }
        });
        self.initials.push_back((f, Arc::clone(&initial)));
        if self.initials.len() > INITIAL_CACHE {
            self.initials.pop_front();
        }
        initial
    }

    fn add_section(&mut self, f: usize, k: usize) -> Result<(), String> {
        let file = &self.files[f];
        let frame = &file.index.frames()[k];
        let trusted =
            trusted_summary(frame).filter(|_| frame.state_at.is_some() && frame.damage.is_none());
        let (summary, state) = match trusted {
            Some(s) => (s, StateLoc::Stored),
            None => {
                let (summary, state) = self.derive_section(f, k)?;
                (summary, StateLoc::Spilled(self.spill_state(&state)?))
            }
        };
        let file = &self.files[f];
        let first = file.base + file.samples();
        let to_global = |chain: u64| file.global(chain);
        for m in &summary.moments {
            let mut m = m.clone();
            m.sample = to_global(m.sample);
            self.moments.push(m);
        }
        if let Some((s, at, h)) = summary.history_peak
            && self.peak.is_none_or(|(_, _, p)| h > p)
        {
            self.peak = Some((to_global(s), at, h));
        }
        let mut idx = summary.first_sample;
        let end = summary.first_sample + summary.samples;
        for c in summary.severity.chars() {
            let g = to_global(idx);
            if self
                .severity
                .last()
                .is_none_or(|(_, s)| *s != summary::severity_of(c))
            {
                self.severity.push((g, summary::severity_of(c)));
            }
            idx = ((idx / BUCKET_SAMPLES) + 1) * BUCKET_SAMPLES;
            idx = idx.min(end);
        }
        self.files[f].sections.push(Section {
            frame: k,
            first,
            samples: summary.samples,
            first_at: summary.first_at,
            last_at: summary.last_at,
            state,
        });
        Ok(())
    }

    /// Derives section `k` of file `f` from the state before it.
    fn derive_section(
        &mut self,
        f: usize,
        k: usize,
    ) -> Result<(SectionSummary, SectionState), String> {
        let (checkpoint, engine) = self.start_state(f, k)?;
        let mut summarizer = Summarizer::resume(&checkpoint, engine)?;
        let file = &self.files[f];
        let frame_no = file.index.frames()[k].frame_no;
        let mut damaged = None;
        match file.index.read_frame(k) {
            Ok(read) => {
                read.events.iter().for_each(|e| summarizer.feed(e));
                match read.end {
                    End::Truncated { reason, .. } if read.damaged => damaged = Some(reason),
                    End::Truncated { reason, .. } => self.note_once(reason),
                    End::Complete => {}
                }
            }
            Err(e) => self.note_once(e.to_string()),
        }
        let (state, summary) = summarizer.end_section(frame_no);
        if let Some(what) = damaged {
            // Sections before this one in the file are in place already (`add` goes in order).
            let after = summary.last_at.unwrap_or_else(|| self.read_before(f, k));
            let until = self.known_after(f, k);
            self.lose(Lost {
                what,
                after,
                until,
                key: (f, Some(k)),
            });
        }
        Ok((summary, state))
    }

    fn spill_state(&mut self, state: &SectionState) -> Result<(u64, u64), String> {
        self.spill
            .push(&summary::encode_state(state))
            .map_err(|e| format!("cannot keep the replay's scratch data: {e}"))
    }

    fn read_spilled(&self, at: (u64, u64)) -> Result<StoredState, String> {
        let body = self
            .spill
            .read(at)
            .map_err(|e| format!("cannot read the replay's scratch data: {e}"))?;
        summary::decode_state(&body).map_err(|e| format!("the replay's scratch data: {e}"))
    }

    /// Adds a note unless it is there already.
    pub(crate) fn note_once(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The decoded end state of section `k` of file `f`.
    pub(crate) fn state(&mut self, f: usize, k: usize) -> Result<Arc<StoredState>, String> {
        if let Some(i) = self.cache.iter().position(|(key, _)| *key == (f, k)) {
            let hit = self.cache.remove(i).map(|(_, s)| s);
            if let Some(s) = hit {
                self.cache.push_back(((f, k), Arc::clone(&s)));
                return Ok(s);
            }
        }
        let file = self.files.get(f).ok_or("no such file in the replay")?;
        let section = file
            .sections
            .get(k)
            .ok_or("no such section in the replay")?;
        let state = match section.state {
            StateLoc::Stored => match file
                .index
                .read_state_body(section.frame)
                .and_then(|b| b.map(|b| summary::decode_state(&b)).transpose())
            {
                Ok(Some(s)) => s,
                found => {
                    // Damaged (or otherwise unusable): derive it again from the one before.
                    let why = match found {
                        Err(e) => e,
                        Ok(_) => {
                            format!("{}: section {k} has no state", file.index.path().display())
                        }
                    };
                    self.note_once(format!("{why}; derived again from the events"));
                    let (_, state) = self.derive_section(f, k)?;
                    let at = self.spill_state(&state)?;
                    self.files[f].sections[k].state = StateLoc::Spilled(at);
                    self.read_spilled(at)?
                }
            },
            StateLoc::Spilled(at) => self.read_spilled(at)?,
        };
        let state = Arc::new(state);
        self.cache.push_back(((f, k), Arc::clone(&state)));
        if self.cache.len() > STATE_CACHE {
            self.cache.pop_front();
        }
        Ok(state)
    }

    /// Derivation at the start of section `k` of file `f`: checkpoint and engine series points.
    pub(crate) fn start_state(
        &mut self,
        f: usize,
        k: usize,
    ) -> Result<(Checkpoint, EnginePoints), String> {
        if k == 0 {
            let i = self.initial(f);
            return Ok((i.checkpoint.clone(), i.engine.clone()));
        }
        let checkpoint = self.state(f, k - 1)?.checkpoint()?;
        if !checkpoint.trusted() {
            return Err(format!(
                "{}: section {} holds a state of another derivation version",
                self.files[f].index.path().display(),
                k - 1
            ));
        }
        let need = checkpoint.view.deriver.series_len();
        let mut got: EnginePoints = Default::default();
        let done = |got: &EnginePoints| got.iter().zip(need).all(|(g, n)| g.len() >= n);
        let mut j = k;
        while j > 0 && !done(&got) {
            j -= 1;
            let state = self.state(f, j)?;
            for row in state.rows.iter().rev() {
                for (s, g) in got.iter_mut().enumerate() {
                    if g.len() < need[s]
                        && let Some(p) = row.engine_point(s)
                    {
                        g.push(p);
                    }
                }
            }
        }
        let initial = self.initial(f);
        for (s, g) in got.iter_mut().enumerate() {
            let from = &initial.engine[s];
            let missing = need[s].saturating_sub(g.len());
            g.extend(from.iter().rev().take(missing));
            g.reverse();
        }
        Ok((checkpoint, got))
    }

    /// Where sample `pos` is: file, section, sample within the section.
    pub(crate) fn locate(&self, pos: u64) -> Option<(usize, usize, u64)> {
        let f = self
            .files
            .partition_point(|f| f.base <= pos)
            .checked_sub(1)?;
        let file = &self.files[f];
        let k = file
            .sections
            .partition_point(|s| s.first <= pos)
            .checked_sub(1)?;
        let s = &file.sections[k];
        (pos < s.first + s.samples).then_some((f, k, pos - s.first))
    }

    /// The time of sample `pos`.
    pub fn sample_time(&mut self, pos: u64) -> Option<DateTime<Utc>> {
        let (f, k, r) = self.locate(pos)?;
        let state = self.state(f, k).ok()?;
        state.rows.get(usize::try_from(r).ok()?).map(|row| row.at)
    }

    /// Every bookmark, the files' and those added during this replay, in time order.
    pub fn bookmarks(&self) -> Vec<Note> {
        let mut all: Vec<Note> = self
            .files
            .iter()
            .flat_map(|f| f.index.notes().iter().cloned())
            .chain(self.added.iter().cloned())
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// Shows a bookmark from now on (storing it in a file is the caller's: see
    /// [`file_for`](Self::file_for)).
    pub fn add_bookmark(&mut self, note: Note) {
        self.added.push(note);
    }

    /// The file on disk a bookmark at `t` belongs in: the last one starting at or before
    /// it (`None` for the built-in demo, which is in memory).
    pub fn file_for(&self, t: DateTime<Utc>) -> Option<&Path> {
        let starts = |f: &SetFile| f.index.frames().first().map(|fr| fr.first_at);
        let file = self
            .files
            .iter()
            .rev()
            .find(|f| starts(f).is_some_and(|s| s <= t))
            .or(self.files.first())?;
        file.index.is_file().then(|| file.index.path())
    }

    /// The first sample at or after `t` (the last sample when `t` is after them all).
    pub fn index_at(&mut self, t: DateTime<Utc>) -> u64 {
        let mut found = None;
        'files: for (f, file) in self.files.iter().enumerate() {
            for (k, s) in file.sections.iter().enumerate() {
                if s.samples > 0 && s.last_at.is_some_and(|last| last >= t) {
                    found = Some((f, k, s.first));
                    break 'files;
                }
            }
        }
        let Some((f, k, first)) = found else {
            return self.len().saturating_sub(1);
        };
        let within = match self.state(f, k) {
            Ok(s) => s
                .rows
                .iter()
                .position(|r| r.at >= t)
                .unwrap_or(s.rows.len().saturating_sub(1)) as u64,
            Err(_) => 0,
        };
        first + within
    }
}

/// A file's initial state, decoded: `Ok(None)` when it has none, `Err` a note saying why it
/// cannot be continued from (the file is then replayed from its own start).
fn decode_initial(index: &CaptureIndex) -> Result<Option<Initial>, String> {
    let body = index
        .read_initial_body()
        .map_err(|e| format!("{e}; replayed from its own start"))?;
    let Some(body) = body else {
        return Ok(None);
    };
    let initial = summary::decode_initial(&body).map_err(|e| {
        format!(
            "{}: initial state: {e}; replayed from its own start",
            index.path().display()
        )
    })?;
    if !initial.checkpoint.trusted() {
        return Err(format!(
            "{}: continues a recording made by another innodebt version; replayed from its own start",
            index.path().display()
        ));
    }
    Ok(Some(initial))
}

/// A section's summary, when this build can trust it.
fn trusted_summary(frame: &FrameInfo) -> Option<SectionSummary> {
    frame
        .summary
        .as_ref()
        .and_then(|json| serde_json::from_slice::<SectionSummary>(json).ok())
        .filter(|s| s.derivation == DERIVATION_VERSION)
}

fn fresh_initial() -> Initial {
    Initial {
        checkpoint: Checkpoint::fresh(),
        first_sample: 0,
        engine: Default::default(),
    }
}
