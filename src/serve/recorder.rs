//! The flight recorder of `innodebt serve --record-dir DIR`: a rolling capture per target in
//! `DIR/NAME/`, in the ordinary capture format, one file per hour (sooner when a file would
//! take more than its share of `--max-disk`). File names are the UTC time of their first
//! event (`20250301T140000.000Z.idbt`), so name order is time order and `innodebt replay
//! DIR/NAME` plays them in sequence. A file rotated on the hour carries the derivation over
//! (verdicts, peaks and trends go on across the hour as in one long file) and holds the
//! server's description in that carried state; the first file, and one started after a
//! write error, begin with the server's description — so each one replays on its own. Files
//! wholly older than `--retain` go first; then, while the directory holds more than
//! `--max-disk`, the oldest closed file goes, whatever its target.
//!
//! [`Recorders`] writes every target's recording on one thread (and syncs on another): the
//! thread count and the queue stay fixed at a thousand targets.

use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{DateTime, Timelike, Utc};

use innodebt_capture::budget::{NAME_FORMAT, create_private, unused_path};
use innodebt_capture::{CaptureError, CaptureWriter, Header, WriterOptions};
use innodebt_server::sample::{ServerInfo, SourceEvent};

// The directory budget is the incident files' too: one implementation, in `capture`.
pub use innodebt_capture::budget::{Budget, EXTENSION, Segment, segments, started_of};

/// Events queued for the writer thread, all targets together, before the pollers' copies are
/// dropped (counted, into the file's trailer). A thousand targets at 5 s make 200 a second:
/// 4,096 is 20 s of a writer that stopped, and a writer that far behind is stuck, not slow.
const QUEUE: usize = 4096;
/// A 4 KiB zstd window per open file, not a capture's 2 MiB (~8 MB): serve keeps one file
/// open per target, a thousand of them at fleet scale, and the stream's workspace grows with
/// the window. A sample is about 2 KiB of JSON and most like the one before it, which the
/// window still reaches, so a wider one barely compresses better (BENCHMARKS.md, serve's
/// design choices).
const WINDOW_LOG: u32 = 12;
/// How often the sync thread makes the files written since its last round durable. The
/// writer never waits on the disk: one `fdatasync` per file and second from the writer thread
/// is 200 a second at 1,000 targets, more than one thread's worth on a slow disk.
const SYNC_EVERY: Duration = Duration::from_secs(1);
/// Threads that close the files at shutdown (each close syncs).
const CLOSERS: usize = 8;

/// What a target's feed shares with the writer thread.
#[derive(Debug, Default)]
struct Slot {
    /// Events the queue had no room for since the writer last looked.
    dropped: AtomicU64,
    /// The target stopped: its file is closed.
    gone: AtomicBool,
}

/// Targets added and not yet picked up by the writer thread, with their feed ids.
type Added = Arc<Mutex<Vec<(usize, Rolling, Arc<Slot>)>>>;

enum Msg {
    Event(usize, SourceEvent),
    /// A feed was dropped: close the files of gone targets.
    Gone,
    Finish,
}

/// The poller's end: hands events to the writer thread without ever blocking.
#[derive(Debug)]
pub struct Feed {
    id: usize,
    tx: SyncSender<Msg>,
    slot: Arc<Slot>,
}

impl Feed {
    /// Queues `ev` for the target's recording (moved: the poller's copy is not needed after).
    pub fn send(&self, ev: SourceEvent) {
        match self.tx.try_send(Msg::Event(self.id, ev)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.slot.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.slot.gone.store(true, Ordering::Relaxed);
        // When the queue is full the writer finds the flag on its next idle look.
        let _ = self.tx.try_send(Msg::Gone);
    }
}

/// Every target's recording: one writer thread (encoding, the section states, compression)
/// and one thread that syncs, whatever the number of targets.
pub struct Recorders {
    budget: Arc<Budget>,
    tx: SyncSender<Msg>,
    new: Added,
    next_id: std::sync::atomic::AtomicUsize,
    join: Mutex<Option<JoinHandle<u64>>>,
}

impl Recorders {
    pub fn start(budget: &Arc<Budget>) -> Result<Recorders, String> {
        let (tx, rx) = sync_channel(QUEUE);
        let new = Arc::new(Mutex::new(Vec::new()));
        let syncs = Arc::new(Syncs::default());
        let mut writer = Writer {
            new: Arc::clone(&new),
            targets: HashMap::new(),
            syncs: Arc::clone(&syncs),
        };
        let join = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || writer.run(rx))
            .map_err(|e| format!("cannot start the recorder thread: {e}"))?;
        std::thread::Builder::new()
            .name("recorder-sync".into())
            .spawn(move || syncs.run())
            .map_err(|e| format!("cannot start the recorder's sync thread: {e}"))?;
        Ok(Recorders {
            budget: Arc::clone(budget),
            tx,
            new,
            next_id: Default::default(),
            join: Mutex::new(Some(join)),
        })
    }

    /// Starts recording `target` under the budget's root (creating `ROOT/target`, mode 0700).
    pub fn add(&self, target: &str) -> Result<Feed, String> {
        let dir = self.budget.root.join(target);
        create_private(
            &dir,
            "recording directory",
            "check --record-dir and its permissions",
        )?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot::default());
        let rolling = Rolling::new(dir, Arc::clone(&self.budget));
        self.new
            .lock()
            .map_err(|_| "the recorder failed".to_string())?
            .push((id, rolling, Arc::clone(&slot)));
        Ok(Feed {
            id,
            tx: self.tx.clone(),
            slot,
        })
    }

    /// Targets recorded since the start.
    pub fn targets(&self) -> usize {
        self.next_id.load(Ordering::Relaxed)
    }

    /// Writes out what is queued and finishes every file; returns the events written.
    pub fn finish(&self) -> Result<u64, String> {
        let Some(join) = self.join.lock().ok().and_then(|mut j| j.take()) else {
            return Ok(0);
        };
        let _ = self.tx.send(Msg::Finish);
        join.join()
            .map_err(|_| "the recorder thread failed".to_string())
    }
}

/// The writer thread's targets.
struct Writer {
    new: Added,
    targets: HashMap<usize, (Rolling, Arc<Slot>)>,
    syncs: Arc<Syncs>,
}

impl Writer {
    fn run(&mut self, rx: Receiver<Msg>) -> u64 {
        loop {
            match rx.recv_timeout(Duration::from_secs(10)) {
                Ok(Msg::Event(id, ev)) => self.append(id, &ev),
                Ok(Msg::Gone) | Err(RecvTimeoutError::Timeout) => self.close_gone(),
                Ok(Msg::Finish) | Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.syncs.stop();
        let mut all: Vec<Rolling> = self.targets.drain().map(|(_, (r, _))| r).collect();
        if let Ok(mut new) = self.new.lock() {
            all.extend(new.drain(..).map(|(_, r, _)| r));
        }
        let written = all.iter().map(|r| r.written).sum();
        // Each close syncs its file: a few at a time, not a thousand one after another.
        let chunk = all.len().div_ceil(CLOSERS).max(1);
        std::thread::scope(|s| {
            for part in all.chunks_mut(chunk) {
                s.spawn(move || part.iter_mut().for_each(Rolling::close));
            }
        });
        written
    }

    fn append(&mut self, id: usize, ev: &SourceEvent) {
        if !self.targets.contains_key(&id)
            && let Ok(mut new) = self.new.lock()
        {
            for (i, r, slot) in new.drain(..) {
                self.targets.insert(i, (r, slot));
            }
        }
        let Some((rolling, slot)) = self.targets.get_mut(&id) else {
            return;
        };
        rolling.dropped += slot.dropped.swap(0, Ordering::Relaxed);
        if let Err(e) = rolling.append(ev) {
            eprintln!("innodebt serve: recorder {}: {e}", rolling.dir.display());
            // Start a new file with the next event rather than stop recording.
            rolling.close();
        }
        if let Some((w, _)) = &rolling.current {
            self.syncs.dirty(id, w);
        }
    }

    fn close_gone(&mut self) {
        let gone: Vec<usize> = self
            .targets
            .iter()
            .filter(|(_, (_, slot))| slot.gone.load(Ordering::Relaxed))
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            if let Some((mut r, _)) = self.targets.remove(&id) {
                r.close();
            }
        }
    }
}

/// Files written since the sync thread's last round, by feed id (a duplicate of the file's
/// descriptor: the writer may rotate or close its own meanwhile).
#[derive(Default)]
struct Syncs {
    dirty: Mutex<(HashMap<usize, File>, bool)>,
    wake: Condvar,
}

impl Syncs {
    fn dirty(&self, id: usize, w: &CaptureWriter) {
        let Ok(mut d) = self.dirty.lock() else {
            return;
        };
        if let std::collections::hash_map::Entry::Vacant(v) = d.0.entry(id)
            && let Some(f) = w.file_handle()
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

/// The rolling capture of one target.
pub struct Rolling {
    dir: PathBuf,
    budget: Arc<Budget>,
    current: Option<(CaptureWriter, DateTime<Utc>)>,
    /// The server as last described (with every variable change since), for the head of
    /// each new file.
    server: Option<ServerInfo>,
    written: u64,
    /// Events the queue dropped, not yet counted in a file's trailer.
    dropped: u64,
}

impl Rolling {
    /// A writer of the budget's: its files rotate at the budget's file limit.
    pub fn new(dir: PathBuf, budget: Arc<Budget>) -> Rolling {
        budget.rolling(true);
        Rolling {
            dir,
            budget,
            current: None,
            server: None,
            written: 0,
            dropped: 0,
        }
    }

    /// Appends one event, rotating first when the hour changed or the file is full.
    pub fn append(&mut self, ev: &SourceEvent) -> Result<(), CaptureError> {
        let at = ev.at();
        ev.describe(&mut self.server);
        self.budget.seen(at);
        let rotate = match &self.current {
            None => true,
            Some((w, started)) => {
                hour_of(*started) != hour_of(at) || w.bytes() >= self.budget.file_limit()
            }
        };
        if rotate {
            self.open(at, ev)?;
        }
        if let Some((w, _)) = self.current.as_mut() {
            w.note_dropped(std::mem::take(&mut self.dropped));
            w.append(ev)?;
            self.written += 1;
        }
        Ok(())
    }

    fn open(&mut self, at: DateTime<Utc>, first: &SourceEvent) -> Result<(), CaptureError> {
        let path = unused_path(&self.dir, &at.format(NAME_FORMAT).to_string());
        let header = Header::new(at, self.server.clone(), false);
        let (mut writer, carried) = match self.current.take() {
            Some((w, _)) => {
                let old = w.path().to_path_buf();
                let rotated = w.rotate(&path, &header);
                self.budget.closed(&old);
                (rotated?.1, true)
            }
            None => (
                crate::replay::create_writer(
                    &path,
                    &header,
                    WriterOptions {
                        window_log: WINDOW_LOG,
                        // The recorders' sync thread syncs (see `SYNC_EVERY`); the writer never
                        // waits on the disk but to close a file.
                        sync_every: Duration::MAX,
                        ..WriterOptions::default()
                    },
                )?,
                false,
            ),
        };
        self.budget.opened(&path);
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
        self.budget.enforce();
        Ok(())
    }

    /// Finishes the current file (trailer, sync).
    pub fn close(&mut self) {
        if let Some((w, _)) = self.current.take() {
            let path = w.path().to_path_buf();
            if let Err(e) = w.finish() {
                eprintln!("innodebt serve: recorder: {e}");
            }
            self.budget.closed(&path);
        }
    }
}

impl Drop for Rolling {
    fn drop(&mut self) {
        self.budget.rolling(false);
    }
}

/// The UTC hour an instant falls in (files rotate on the hour).
fn hour_of(t: DateTime<Utc>) -> (i64, u32) {
    (t.timestamp().div_euclid(86_400), t.hour())
}
