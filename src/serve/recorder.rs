//! The flight recorder of `innodebt serve --record-dir DIR`: a rolling capture per target in
//! `DIR/NAME/`, in the ordinary capture format, one file per hour (sooner when a file would
//! take more than its share of `--max-disk`). File names are the UTC time of their first
//! event (`20250301T140000.000Z.idbt`), so name order is time order and `innodebt replay
//! DIR/NAME` plays them in sequence. A file rotated on the hour carries the derivation over
//! (verdicts, peaks and trends go on across the hour as in one long file) and holds the
//! server's description in that carried state; the first file, and one started after a
//! write error, begin with the server's description — so each one replays on its own. Files wholly older than `--retain` go first; then, while the
//! directory holds more than `--max-disk`, the oldest closed file goes, whatever its target.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use chrono::{DateTime, Timelike, Utc};

use crate::capture::budget::{NAME_FORMAT, create_private, unused_path};
use crate::capture::{CaptureError, CaptureWriter, Header, WriterOptions};
use crate::sample::{ServerInfo, SourceEvent};

// The directory budget is the incident files' too: one implementation, in `capture`.
pub use crate::capture::budget::{Budget, EXTENSION, Segment, segments, started_of};

/// Events queued for the writer thread before the poller's copies are dropped (counted).
/// The queue's slots are allocated whole, per target: 64 is minutes of samples at any
/// interval, and a writer that far behind is stuck, not slow.
const QUEUE: usize = 64;
/// A 16 KiB zstd window (~0.1 MB with its tables and buffers) per open file, not a
/// capture's 2 MiB (~8 MB): serve keeps one file open per target, a thousand of them at fleet
/// scale. A sample is a few KiB and most like the one before it, so the window still reaches
/// the samples that compress it.
const WINDOW_LOG: u32 = 14;

/// The poller's end: hands copies of events to the writer thread without ever blocking.
#[derive(Debug, Clone)]
pub struct Feed {
    tx: SyncSender<SourceEvent>,
    dropped: Arc<AtomicU64>,
}

impl Feed {
    pub fn send(&self, ev: &SourceEvent) {
        match self.tx.try_send(ev.clone()) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// The writer thread of one target; join it after dropping every [`Feed`].
pub struct Recorder {
    pub dir: PathBuf,
    join: JoinHandle<Result<u64, CaptureError>>,
}

impl Recorder {
    /// Waits for the thread to write out what is queued; returns the events written.
    pub fn finish(self) -> Result<u64, String> {
        match self.join.join() {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(_) => Err(format!(
                "{}: the recorder thread failed",
                self.dir.display()
            )),
        }
    }
}

/// Starts recording `target` under the budget's root (creating `ROOT/target`, mode 0700).
pub fn start(budget: &Arc<Budget>, target: &str) -> Result<(Feed, Recorder), String> {
    let dir = budget.root.join(target);
    create_private(
        &dir,
        "recording directory",
        "check --record-dir and its permissions",
    )?;
    let (tx, rx) = sync_channel(QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    let mut rolling = Rolling::new(dir.clone(), Arc::clone(budget));
    let join = std::thread::Builder::new()
        .name(format!("recorder-{target}"))
        .spawn(move || rolling.run(rx))
        .map_err(|e| format!("cannot start the recorder thread: {e}"))?;
    Ok((Feed { tx, dropped }, Recorder { dir, join }))
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
        }
    }

    fn run(&mut self, rx: Receiver<SourceEvent>) -> Result<u64, CaptureError> {
        while let Ok(ev) = rx.recv() {
            if let Err(e) = self.append(&ev) {
                eprintln!("innodebt serve: recorder {}: {e}", self.dir.display());
                // Start a new file with the next event rather than stop recording.
                self.close();
            }
        }
        self.close();
        Ok(self.written)
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
