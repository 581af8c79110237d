//! Recording: the one path from a source's events to capture files. A [`Recording`] is where
//! one source's events go — one file ([`Recording::file`]: `record`, the dashboard's
//! `--record`, an incident) or a rolling capture in a directory under a disk [`Budget`]
//! ([`Recording::rolling`]: serve's flight recorder). A [`Recorder`] writes any number of
//! recordings on one thread behind one bounded queue, and syncs them on another, so the
//! poller (or the dashboard) never waits on the disk and the thread count stays fixed at a
//! thousand targets: a [`CaptureSender`] hands an event over without blocking, or drops it
//! and counts it (the count ends up in the file's trailer). [`FileSpec`] is how every file is
//! made — the writer's options and the hook that stores a replay's state after each section —
//! so a file written here and one an import writes directly are the same.
//!
//! A rolling capture has one file per UTC hour (sooner when a file would take more than its
//! share of the budget), named by the UTC time of its first event
//! (`20250301T140000.000Z.idbt`), so name order is time order and a replay of the directory
//! plays them in sequence. A file rotated on the hour carries the hook's state over (verdicts,
//! peaks and trends go on across the hour as in one long file); the first file, and one
//! started after a write error, begin with the server's description — so each one replays on
//! its own.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::{DateTime, Timelike, Utc};

use super::disk_budget::{Budget, NAME_FORMAT, unused_path};
use super::format::{Header, Note};
use super::writer::{CaptureWriter, SectionHook, WriteSummary, WriterOptions};
use super::{CaptureError, shown};
use innodebt_server::sample::{ServerInfo, SourceEvent};

/// Makes the hook each new file starts with (innodebt's: the replay's derivation).
pub type HookFactory = Arc<dyn Fn() -> Box<dyn SectionHook> + Send + Sync>;

/// Where a recorder says what went wrong with a rolling capture (it goes on with a new file).
pub type Report = Arc<dyn Fn(String) + Send + Sync>;

/// How every file is made: the writer's options and the hook stored beside its events.
#[derive(Clone, Default)]
pub struct FileSpec {
    pub opts: WriterOptions,
    pub hook: Option<HookFactory>,
}

impl std::fmt::Debug for FileSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSpec")
            .field("opts", &self.opts)
            .field("hook", &self.hook.is_some())
            .finish()
    }
}

impl FileSpec {
    /// Creates `path` (mode 0600; an existing file is an error unless `opts.overwrite`) with
    /// a fresh hook and writes the header.
    pub fn create(
        &self,
        path: impl AsRef<Path>,
        header: &Header,
    ) -> Result<CaptureWriter, CaptureError> {
        let hook = self.hook.as_ref().map(|make| make());
        CaptureWriter::create_hooked(path, header, self.opts.clone(), hook, false)
    }
}

enum Place {
    /// One file, created with the recording.
    File,
    /// Rolling files in `dir`, under `budget`.
    Rolling { dir: PathBuf, budget: Arc<Budget> },
}

/// Where one source's events go: one file, or a rolling capture (see the module docs).
/// Every `append` leaves replayable files behind.
pub struct Recording {
    place: Place,
    spec: FileSpec,
    current: Option<(CaptureWriter, DateTime<Utc>)>,
    /// The server as last described (with every variable change since), for the head of
    /// each new rolling file.
    server: Option<ServerInfo>,
    /// Events dropped before they reached the recording, not yet in a file's trailer.
    dropped: u64,
    /// What the files finished so far hold.
    done: WriteSummary,
    /// The single file's path, or the rolling capture's directory.
    path: PathBuf,
}

impl Recording {
    /// Creates `path` now (so "exists" or "permission denied" reach the user at once).
    pub fn file(
        path: impl AsRef<Path>,
        header: &Header,
        spec: &FileSpec,
    ) -> Result<Recording, CaptureError> {
        let path = path.as_ref().to_path_buf();
        let writer = spec.create(&path, header)?;
        Ok(Recording {
            place: Place::File,
            spec: spec.clone(),
            current: Some((writer, header.started_at)),
            server: header.server.clone(),
            dropped: 0,
            done: empty_summary(&path),
            path,
        })
    }

    /// A rolling capture in `dir` (which must exist): its files rotate on the hour and at the
    /// budget's file limit, and the budget deletes old ones.
    pub fn rolling(dir: PathBuf, budget: Arc<Budget>, spec: &FileSpec) -> Recording {
        budget.rolling(true);
        Recording {
            done: empty_summary(&dir),
            path: dir.clone(),
            place: Place::Rolling { dir, budget },
            spec: spec.clone(),
            current: None,
            server: None,
            dropped: 0,
        }
    }

    /// The file, or the rolling capture's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn is_file(&self) -> bool {
        matches!(self.place, Place::File)
    }

    /// Counts events the caller could not hand over (they go into a trailer).
    pub fn note_dropped(&mut self, n: u64) {
        self.dropped += n;
    }

    /// Events written so far.
    pub fn written(&self) -> u64 {
        self.done.records + self.current.as_ref().map_or(0, |(w, _)| w.records())
    }

    /// Appends one event; a rolling capture first rotates when the hour changed or the file
    /// is full. An [`CaptureError::Encode`] skips (and counts) only that event.
    pub fn append(&mut self, ev: &SourceEvent) -> Result<(), CaptureError> {
        if let Place::Rolling { budget, .. } = &self.place {
            let at = ev.at();
            ev.describe(&mut self.server);
            budget.seen(at);
            let limit = budget.file_limit();
            let rotate = match &self.current {
                None => true,
                Some((w, started)) => hour_of(*started) != hour_of(at) || w.bytes() >= limit,
            };
            if rotate {
                self.open(at, ev)?;
            }
        }
        let dropped = std::mem::take(&mut self.dropped);
        let w = self.writer()?;
        w.note_dropped(dropped);
        w.append(ev)
    }

    /// Writes a bookmark now (into the open file of a rolling capture).
    pub fn add_note(&mut self, note: &Note) -> Result<(), CaptureError> {
        self.writer()?.add_note(note)
    }

    fn writer(&mut self) -> Result<&mut CaptureWriter, CaptureError> {
        let path = shown(&self.path);
        self.current
            .as_mut()
            .map(|(w, _)| w)
            .ok_or_else(|| CaptureError::Failed {
                path,
                first: "no file is open".to_string(),
            })
    }

    /// A second descriptor of the open file, for syncing it from another thread.
    fn file_handle(&self) -> Option<File> {
        self.current.as_ref().and_then(|(w, _)| w.file_handle())
    }

    /// Starts the rolling capture's next file at `at`.
    fn open(&mut self, at: DateTime<Utc>, first: &SourceEvent) -> Result<(), CaptureError> {
        let Place::Rolling { dir, budget } = &self.place else {
            return Ok(());
        };
        let path = unused_path(dir, &at.format(NAME_FORMAT).to_string());
        let header = Header::new(at, self.server.clone(), false);
        let (mut writer, carried) = match self.current.take() {
            Some((w, _)) => {
                let old = w.path().to_path_buf();
                let rotated = w.rotate(&path, &header);
                budget.closed(&old);
                let (summary, next) = rotated?;
                add(&mut self.done, &summary);
                (next, true)
            }
            None => (self.spec.create(&path, &header)?, false),
        };
        budget.opened(&path);
        // Each file replays on its own: a fresh one begins with the server's description
        // (a rotated one carries it in its initial state).
        if !carried
            && !matches!(first, SourceEvent::Connected { .. })
            && let Some(info) = &self.server
        {
            writer.append(&SourceEvent::Connected {
                at,
                info: info.clone(),
            })?;
        }
        self.current = Some((writer, at));
        // Room for the new file: old and surplus files go now.
        budget.enforce();
        Ok(())
    }

    /// Finishes the open file (its trailer, a sync); a rolling capture starts a new one with
    /// its next event.
    pub fn close(&mut self) -> Result<(), CaptureError> {
        let Some((mut w, _)) = self.current.take() else {
            return Ok(());
        };
        w.note_dropped(std::mem::take(&mut self.dropped));
        let path = w.path().to_path_buf();
        let finished = w.finish();
        if let Place::Rolling { budget, .. } = &self.place {
            budget.closed(&path);
        }
        add(&mut self.done, &finished?);
        Ok(())
    }

    /// Finishes the open file; what the recording's files hold together (a single file's
    /// summary is that file's).
    pub fn finish(mut self) -> Result<WriteSummary, CaptureError> {
        self.close()?;
        Ok(self.done.clone())
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if let Place::Rolling { budget, .. } = &self.place {
            budget.rolling(false);
        }
    }
}

fn empty_summary(path: &Path) -> WriteSummary {
    WriteSummary {
        path: path.to_path_buf(),
        records: 0,
        dropped: 0,
        frames: 0,
        bytes: 0,
    }
}

fn add(total: &mut WriteSummary, file: &WriteSummary) {
    total.records += file.records;
    total.dropped += file.dropped;
    total.frames += file.frames;
    total.bytes += file.bytes;
}

/// The UTC hour an instant falls in (rolling files rotate on the hour).
fn hour_of(t: DateTime<Utc>) -> (i64, u32) {
    (t.timestamp().div_euclid(86_400), t.hour())
}

/// How often the sync thread makes the files written since its last round durable. The
/// writer never waits on the disk: one `fdatasync` per file and second from the writer thread
/// is 200 a second at 1,000 targets, more than one thread's worth on a slow disk.
const SYNC_EVERY: Duration = Duration::from_secs(1);
/// How often the writer looks for recordings whose senders are gone without saying so (their
/// last word found the queue full).
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// Threads that close the files at the end (each close syncs).
const CLOSERS: usize = 8;

/// What a recording's senders share with the writer thread.
#[derive(Debug, Default)]
struct Slot {
    /// Events the queue had no room for, all told.
    dropped: AtomicU64,
    /// Messages queued and not yet taken by the writer.
    queued: AtomicU64,
    /// Every sender is gone: the recording is finished once its queued events are written.
    gone: AtomicBool,
    /// The file failed: nothing more reaches it.
    failed: AtomicBool,
}

enum Msg {
    Event(usize, SourceEvent),
    Note(usize, Note),
    /// The recording's senders are gone: finish it.
    Gone(usize),
    Finish,
}

/// What a recording's finish returns to its [`WriterHandle`].
type Done = SyncSender<Result<WriteSummary, CaptureError>>;

/// A recording the writer thread has not picked up yet, with what it writes first.
struct Added {
    id: usize,
    recording: Recording,
    slot: Arc<Slot>,
    done: Done,
    backlog: Vec<SourceEvent>,
}

/// The source's end of a recording. `send` never blocks; clones share the recording, which
/// is finished once the last clone is dropped.
#[derive(Debug, Clone)]
pub struct CaptureSender {
    link: Arc<Link>,
}

#[derive(Debug)]
struct Link {
    id: usize,
    tx: SyncSender<Msg>,
    slot: Arc<Slot>,
}

impl Drop for Link {
    fn drop(&mut self) {
        self.slot.gone.store(true, Ordering::Relaxed);
        // When the queue is full the writer finds the flag on its next look.
        self.enqueue(Msg::Gone(self.id));
    }
}

impl Link {
    fn queue(&self, msg: Msg) -> bool {
        !self.slot.failed.load(Ordering::Relaxed) && self.enqueue(msg)
    }

    fn enqueue(&self, msg: Msg) -> bool {
        // Counted before it is sent: the writer may take it at once.
        self.slot.queued.fetch_add(1, Ordering::Relaxed);
        match self.tx.try_send(msg) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.slot.queued.fetch_sub(1, Ordering::Relaxed);
                false
            }
        }
    }
}

impl CaptureSender {
    /// Hands the event to the writer thread; `false` when it had to be dropped (the queue is
    /// full because the disk is slow, or the file failed) — it is counted either way.
    pub fn send(&self, event: SourceEvent) -> bool {
        let sent = self.link.queue(Msg::Event(self.link.id, event));
        if !sent {
            self.link.slot.dropped.fetch_add(1, Ordering::Relaxed);
        }
        sent
    }

    /// Hands a bookmark to the writer thread; `false` when the writer is behind or failed
    /// (the caller says the note was not saved).
    pub fn send_note(&self, note: Note) -> bool {
        self.link.queue(Msg::Note(self.link.id, note))
    }

    /// Events dropped so far.
    pub fn dropped(&self) -> u64 {
        self.link.slot.dropped.load(Ordering::Relaxed)
    }

    /// The recording's file failed: nothing more reaches it.
    pub fn writer_failed(&self) -> bool {
        self.link.slot.failed.load(Ordering::Relaxed)
    }
}

/// One recording's outcome. Drop every [`CaptureSender`] of it: the writer writes what is
/// queued, the trailer, and syncs; then [`WriterHandle::join`] returns the summary.
pub struct WriterHandle {
    path: PathBuf,
    rx: Receiver<Result<WriteSummary, CaptureError>>,
    /// The recorder started for this recording alone ([`spawn_writer`]): finished with it.
    own: Option<Recorder>,
}

impl WriterHandle {
    /// Waits for the recording to finish (blocking: from async code, call it in
    /// `spawn_blocking`).
    pub fn join(self) -> Result<WriteSummary, CaptureError> {
        let stopped = |what: String| CaptureError::WriterThread {
            path: shown(&self.path),
            what,
        };
        // A recorder of its own is finished first: that writes out what the queue holds
        // even when the senders' last word found it full.
        let finished = self.own.as_ref().map(Recorder::finish);
        match self.rx.recv() {
            Ok(r) => r,
            Err(_) => Err(match finished {
                Some(Err(e)) => stopped(e.to_string()),
                _ => stopped("it ended without finishing the file".to_string()),
            }),
        }
    }
}

/// How a [`Recorder`] writes.
#[derive(Clone)]
pub struct RecorderOptions {
    /// Events queued for the writer thread, every recording together, before senders drop.
    pub queue: usize,
    /// How every file is made (the recorder's sync thread syncs: the writer never waits).
    pub files: FileSpec,
    /// What went wrong with a rolling capture.
    pub report: Report,
}

/// Every recording's writer: one thread that encodes, compresses and writes (with the
/// hooks' derivation), and one that syncs, whatever the number of recordings.
pub struct Recorder {
    tx: SyncSender<Msg>,
    new: Arc<Mutex<Vec<Added>>>,
    next_id: AtomicUsize,
    files: FileSpec,
    join: Mutex<Option<JoinHandle<u64>>>,
}

impl Recorder {
    pub fn start(opts: RecorderOptions) -> Result<Recorder, CaptureError> {
        let (tx, rx) = sync_channel(opts.queue.max(1));
        let new = Arc::new(Mutex::new(Vec::new()));
        let syncs = Arc::new(Syncs::default());
        let mut writer = Writer {
            new: Arc::clone(&new),
            entries: HashMap::new(),
            syncs: Arc::clone(&syncs),
            report: opts.report,
        };
        let thread = |what: &'static str| move |source| CaptureError::Thread { what, source };
        let join = std::thread::Builder::new()
            .name("capture-writer".into())
            .spawn(move || writer.run(rx))
            .map_err(thread("capture writer"))?;
        std::thread::Builder::new()
            .name("capture-sync".into())
            .spawn(move || syncs.run())
            .map_err(thread("capture sync"))?;
        let mut files = opts.files;
        // The sync thread syncs (see `SYNC_EVERY`); the writer waits on the disk only to
        // close a file.
        files.opts.sync_every = Duration::MAX;
        Ok(Recorder {
            tx,
            new,
            next_id: AtomicUsize::new(0),
            files,
            join: Mutex::new(Some(join)),
        })
    }

    /// Creates `path` now (so "exists" or "permission denied" reach the user at once) and
    /// records into it, `backlog` first.
    pub fn file(
        &self,
        path: impl AsRef<Path>,
        header: &Header,
        backlog: Vec<SourceEvent>,
    ) -> Result<(CaptureSender, WriterHandle), CaptureError> {
        let recording = Recording::file(path, header, &self.files)?;
        self.add(recording, backlog)
    }

    /// Records into rolling files in `dir` (which must exist) under `budget`.
    pub fn rolling(
        &self,
        dir: PathBuf,
        budget: Arc<Budget>,
    ) -> Result<(CaptureSender, WriterHandle), CaptureError> {
        let recording = Recording::rolling(dir, budget, &self.files);
        self.add(recording, Vec::new())
    }

    fn add(
        &self,
        recording: Recording,
        backlog: Vec<SourceEvent>,
    ) -> Result<(CaptureSender, WriterHandle), CaptureError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot::default());
        let (done, rx) = sync_channel(1);
        let path = recording.path().to_path_buf();
        // Beside the queue, not in it: adding never fails for a full queue, and the backlog
        // is not copied.
        self.new
            .lock()
            .map_err(|_| CaptureError::WriterThread {
                path: shown(&path),
                what: "it failed before this recording".to_string(),
            })?
            .push(Added {
                id,
                recording,
                slot: Arc::clone(&slot),
                done,
                backlog,
            });
        let link = Link {
            id,
            tx: self.tx.clone(),
            slot,
        };
        Ok((
            CaptureSender {
                link: Arc::new(link),
            },
            WriterHandle {
                path,
                rx,
                own: None,
            },
        ))
    }

    /// Recordings added since the start.
    pub fn recordings(&self) -> usize {
        self.next_id.load(Ordering::Relaxed)
    }

    /// Writes out what is queued and finishes every file; returns the events written.
    pub fn finish(&self) -> Result<u64, CaptureError> {
        let Some(join) = self.join.lock().ok().and_then(|mut j| j.take()) else {
            return Ok(0);
        };
        let _ = self.tx.send(Msg::Finish);
        join.join().map_err(|panic| CaptureError::RecorderThread {
            what: panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panicked".to_string()),
        })
    }
}

/// A recorder of its own for one file, behind a queue of `capacity` events: `record` and the
/// dashboard's `--record`.
pub fn spawn_writer(
    path: impl AsRef<Path>,
    header: &Header,
    capacity: usize,
    files: &FileSpec,
) -> Result<(CaptureSender, WriterHandle), CaptureError> {
    let recorder = Recorder::start(RecorderOptions {
        queue: capacity,
        files: files.clone(),
        // A single file's errors come back through its handle.
        report: Arc::new(|_| {}),
    })?;
    let (sender, mut handle) = recorder.file(path, header, Vec::new())?;
    handle.own = Some(recorder);
    Ok((sender, handle))
}

/// A recording on the writer thread.
struct Entry {
    recording: Recording,
    slot: Arc<Slot>,
    /// The slot's drop count already handed to the recording.
    dropped_seen: u64,
    done: Done,
}

/// The writer thread's recordings.
struct Writer {
    new: Arc<Mutex<Vec<Added>>>,
    entries: HashMap<usize, Entry>,
    syncs: Arc<Syncs>,
    report: Report,
}

impl Writer {
    fn run(&mut self, rx: Receiver<Msg>) -> u64 {
        let mut looked = Instant::now();
        loop {
            match rx.recv_timeout(LOOK_EVERY) {
                Ok(Msg::Event(id, ev)) => self.write(id, |r| r.append(&ev)),
                Ok(Msg::Note(id, note)) => self.write(id, |r| r.add_note(&note)),
                Ok(Msg::Gone(id)) => {
                    self.pick_up();
                    self.close(id);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Ok(Msg::Finish) | Err(RecvTimeoutError::Disconnected) => break,
            }
            if looked.elapsed() >= LOOK_EVERY {
                self.close_gone();
                looked = Instant::now();
            }
        }
        self.syncs.stop();
        self.pick_up();
        let mut all: Vec<Entry> = self.entries.drain().map(|(_, e)| e).collect();
        let written = all.iter().map(|e| e.recording.written()).sum();
        // Each close syncs its file: a few at a time, not a thousand one after another.
        let chunk = all.len().div_ceil(CLOSERS).max(1);
        let report = &self.report;
        std::thread::scope(|s| {
            for part in all.chunks_mut(chunk) {
                s.spawn(move || {
                    for e in part {
                        finish(e, report);
                    }
                });
            }
        });
        written
    }

    /// A message of recording `id` was taken off the queue.
    fn taken(&self, id: usize) {
        if let Some(e) = self.entries.get(&id) {
            e.slot.queued.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Recordings added since the last look, their backlogs written.
    fn pick_up(&mut self) {
        let added = match self.new.lock() {
            Ok(mut new) => std::mem::take(&mut *new),
            Err(_) => return,
        };
        for a in added {
            self.entries.insert(
                a.id,
                Entry {
                    recording: a.recording,
                    slot: a.slot,
                    dropped_seen: 0,
                    done: a.done,
                },
            );
            for ev in a.backlog {
                self.write_one(a.id, |r| r.append(&ev));
            }
        }
    }

    fn write(&mut self, id: usize, op: impl FnOnce(&mut Recording) -> Result<(), CaptureError>) {
        if !self.entries.contains_key(&id) {
            self.pick_up();
        }
        self.taken(id);
        self.write_one(id, op);
    }

    fn write_one(
        &mut self,
        id: usize,
        op: impl FnOnce(&mut Recording) -> Result<(), CaptureError>,
    ) {
        let Some(e) = self.entries.get_mut(&id) else {
            return;
        };
        let dropped = e.slot.dropped.load(Ordering::Relaxed);
        e.recording
            .note_dropped(dropped.saturating_sub(e.dropped_seen));
        e.dropped_seen = dropped;
        let err = match op(&mut e.recording) {
            Ok(()) => {
                self.syncs.dirty(id, &e.recording);
                return;
            }
            // One odd event (counted as dropped) must not end the recording.
            Err(CaptureError::Encode { .. }) => return,
            Err(err) => err,
        };
        if !e.recording.is_file() {
            (self.report)(format!("{}: {err}", e.recording.path().display()));
            // Start a new file with the next event rather than stop recording.
            if let Err(err) = e.recording.close() {
                (self.report)(err.to_string());
            }
            return;
        }
        // A single file that failed is done: its handle says why.
        e.slot.failed.store(true, Ordering::Relaxed);
        if let Some(e) = self.entries.remove(&id) {
            let _ = e.done.try_send(Err(err));
        }
    }

    fn close(&mut self, id: usize) {
        if let Some(mut e) = self.entries.remove(&id) {
            finish(&mut e, &self.report);
        }
    }

    /// Finishes the recordings whose senders are gone and whose events are all written.
    fn close_gone(&mut self) {
        self.pick_up();
        let gone: Vec<usize> = self
            .entries
            .iter()
            .filter(|(_, e)| {
                e.slot.gone.load(Ordering::Relaxed) && e.slot.queued.load(Ordering::Relaxed) == 0
            })
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.close(id);
        }
    }
}

/// Finishes an entry's recording, with the drops its senders counted last, and hands the
/// outcome to its handle (a rolling capture's failure is reported too: nobody may wait for it).
fn finish(e: &mut Entry, report: &Report) {
    let dropped = e.slot.dropped.load(Ordering::Relaxed);
    e.recording
        .note_dropped(dropped.saturating_sub(e.dropped_seen));
    e.dropped_seen = dropped;
    let done = e.recording.close().map(|()| e.recording.done.clone());
    if let (Err(err), false) = (&done, e.recording.is_file()) {
        report(err.to_string());
    }
    let _ = e.done.try_send(done);
}

/// Files written since the sync thread's last round, by recording (a duplicate of the file's
/// descriptor: the writer may rotate or close its own meanwhile).
#[derive(Default)]
struct Syncs {
    dirty: Mutex<(HashMap<usize, File>, bool)>,
    wake: Condvar,
}

impl Syncs {
    fn dirty(&self, id: usize, r: &Recording) {
        let Ok(mut d) = self.dirty.lock() else {
            return;
        };
        if let std::collections::hash_map::Entry::Vacant(v) = d.0.entry(id)
            && let Some(f) = r.file_handle()
        {
            v.insert(f);
        }
    }

    fn stop(&self) {
        if let Ok(mut d) = self.dirty.lock() {
            d.1 = true;
        }
        self.wake.notify_all();
    }

    /// A round a second: every file written since the last one is synced (on a disk slower
    /// than the writes the rounds lengthen, each file still synced once a round).
    fn run(&self) {
        loop {
            let files = {
                let Ok(d) = self.dirty.lock() else {
                    return;
                };
                let Ok((mut d, _)) = self.wake.wait_timeout_while(d, SYNC_EVERY, |d| !d.1) else {
                    return;
                };
                if d.1 {
                    return;
                }
                std::mem::take(&mut d.0)
            };
            for f in files.into_values() {
                let _ = f.sync_data();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use innodebt_server::sample::Sample;

    fn at(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_750_000_000 + s, 0).unwrap()
    }

    fn sample(s: i64) -> SourceEvent {
        SourceEvent::Sample(Box::new(Sample::new(at(s), s as f64)))
    }

    fn recorder(queue: usize) -> Recorder {
        Recorder::start(RecorderOptions {
            queue,
            files: FileSpec::default(),
            report: Arc::new(|line| panic!("reported: {line}")),
        })
        .unwrap()
    }

    /// Files of one recorder finish on their own as their senders go, each with every event
    /// sent to it, however the sends and the goings interleave.
    #[test]
    fn each_file_finishes_when_its_senders_go() {
        let dir = tempfile::tempdir().unwrap();
        let rec = recorder(64);
        let header = Header::new(at(0), None, false);
        let (a, a_done) = rec
            .file(dir.path().join("a.idbt"), &header, Vec::new())
            .unwrap();
        let backlog: Vec<SourceEvent> = (0..3).map(sample).collect();
        let (b, b_done) = rec
            .file(dir.path().join("b.idbt"), &header, backlog)
            .unwrap();
        let b_too = b.clone();
        for s in 3..10 {
            assert!(a.send(sample(s)));
            assert!(b.send(sample(s)));
        }
        assert!(b.send_note(Note::new(at(9), "here")));
        drop(a);
        let a = a_done.join().unwrap();
        assert_eq!((a.records, a.dropped), (7, 0));
        // A clone keeps the file open.
        drop(b);
        assert!(b_too.send(sample(10)));
        drop(b_too);
        let b = b_done.join().unwrap();
        assert_eq!(b.records, 11);
        let read = crate::open(dir.path().join("b.idbt")).unwrap();
        assert_eq!(read.events, (0..11).map(sample).collect::<Vec<_>>());
        assert_eq!(read.notes, vec![Note::new(at(9), "here")]);
        assert_eq!(rec.finish().unwrap(), 0, "nothing left open");
    }

    /// A rolling capture through the recorder: one file per hour, what they hold together.
    #[test]
    fn a_rolling_capture_rotates_on_the_hour() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("db1");
        std::fs::create_dir(&target).unwrap();
        let budget = Budget::new(dir.path().to_path_buf(), None, u64::MAX);
        let rec = recorder(4096);
        let (tx, done) = rec.rolling(target.clone(), Arc::clone(&budget)).unwrap();
        for s in (0..7200).step_by(60) {
            assert!(tx.send(sample(s)));
        }
        drop(tx);
        let summary = done.join().unwrap();
        assert_eq!(summary.records, 120);
        let files = crate::disk_budget::segments(&target);
        assert!((2..=3).contains(&files.len()), "{files:?}");
        assert_eq!(rec.finish().unwrap(), 0);
    }

    /// What the recorder still holds at its end is written and finished.
    #[test]
    fn finishing_the_recorder_finishes_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let rec = recorder(64);
        let header = Header::new(at(0), None, false);
        let (tx, done) = rec
            .file(dir.path().join("c.idbt"), &header, Vec::new())
            .unwrap();
        for s in 0..5 {
            assert!(tx.send(sample(s)));
        }
        assert_eq!(rec.finish().unwrap(), 5);
        assert_eq!(done.join().unwrap().records, 5);
        // The writer is gone: a send is dropped and counted.
        assert!(!tx.send(sample(5)));
        assert_eq!(tx.dropped(), 1);
        assert!(
            crate::open(dir.path().join("c.idbt"))
                .unwrap()
                .end
                .is_complete()
        );
    }
}
