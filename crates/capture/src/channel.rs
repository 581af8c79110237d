//! The writer on its own thread: [`spawn_writer`] starts a [`CaptureWriter`] behind a
//! bounded channel so the poller (or the dashboard) never waits on the disk; a full channel
//! drops the event and counts it, and the count ends up in the file's trailer. Bookmarks go
//! down the same channel ([`CaptureSender::send_note`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use super::format::{Header, Note};
use super::writer::{CaptureWriter, SectionHook, WriteSummary, WriterOptions};
use super::{CaptureError, shown};
use innodebt_server::sample::SourceEvent;

#[derive(Debug, Default)]
struct Shared {
    dropped: AtomicU64,
    failed: AtomicBool,
}

/// What goes down the writer channel.
#[derive(Debug)]
enum Item {
    Event(SourceEvent),
    Note(Note),
}

/// The poller's end of the writer channel. `send` never blocks.
#[derive(Debug, Clone)]
pub struct CaptureSender {
    tx: SyncSender<Item>,
    shared: Arc<Shared>,
}

impl CaptureSender {
    /// Hands the event to the writer thread; `false` when it had to be dropped (the channel
    /// is full because the disk is slow, or the writer failed) — it is counted either way.
    pub fn send(&self, event: SourceEvent) -> bool {
        match self.tx.try_send(Item::Event(event)) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Hands a bookmark to the writer thread; `false` when the writer is behind or failed
    /// (the caller says the note was not saved).
    pub fn send_note(&self, note: Note) -> bool {
        self.tx.try_send(Item::Note(note)).is_ok()
    }

    /// Events dropped so far.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// The writer thread stopped on an error: nothing more reaches the file.
    pub fn writer_failed(&self) -> bool {
        self.shared.failed.load(Ordering::Relaxed)
    }
}

/// The writer thread. Drop every [`CaptureSender`] to shut it down: it drains what is
/// queued, writes the trailer and syncs; then [`WriterHandle::join`] returns the summary.
pub struct WriterHandle {
    path: PathBuf,
    join: JoinHandle<Result<WriteSummary, CaptureError>>,
}

impl WriterHandle {
    /// Waits for the thread (blocking: from async code, call it in `spawn_blocking`).
    pub fn join(self) -> Result<WriteSummary, CaptureError> {
        match self.join.join() {
            Ok(r) => r,
            Err(panic) => Err(CaptureError::WriterThread {
                path: shown(&self.path),
                what: panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panicked".to_string()),
            }),
        }
    }

    pub fn is_finished(&self) -> bool {
        self.join.is_finished()
    }
}

/// Creates the file now (so "exists" or "permission denied" reach the user at once) and
/// starts the writer thread behind a channel of `capacity` events.
pub fn spawn_writer(
    path: impl AsRef<Path>,
    header: &Header,
    capacity: usize,
) -> Result<(CaptureSender, WriterHandle), CaptureError> {
    spawn_writer_with(path, header, capacity, WriterOptions::default())
}

pub fn spawn_writer_with(
    path: impl AsRef<Path>,
    header: &Header,
    capacity: usize,
    opts: WriterOptions,
) -> Result<(CaptureSender, WriterHandle), CaptureError> {
    spawn_writer_hooked(path, header, capacity, opts, None)
}

/// [`spawn_writer_with`] with a [`SectionHook`].
pub fn spawn_writer_hooked(
    path: impl AsRef<Path>,
    header: &Header,
    capacity: usize,
    opts: WriterOptions,
    hook: Option<Box<dyn SectionHook>>,
) -> Result<(CaptureSender, WriterHandle), CaptureError> {
    let writer = CaptureWriter::create_hooked(path.as_ref(), header, opts, hook, false)?;
    let (tx, rx) = sync_channel(capacity.max(1));
    let shared = Arc::new(Shared::default());
    let thread_shared = Arc::clone(&shared);
    let join = std::thread::Builder::new()
        .name("capture-writer".to_string())
        .spawn(move || writer_loop(writer, rx, thread_shared))
        .map_err(|e| CaptureError::Io {
            path: shown(path.as_ref()),
            action: "starting the writer thread",
            at_byte: 0,
            source: e,
        })?;
    Ok((
        CaptureSender { tx, shared },
        WriterHandle {
            path: path.as_ref().to_path_buf(),
            join,
        },
    ))
}

fn writer_loop(
    mut writer: CaptureWriter,
    rx: Receiver<Item>,
    shared: Arc<Shared>,
) -> Result<WriteSummary, CaptureError> {
    while let Ok(item) = rx.recv() {
        let written = match item {
            Item::Event(event) => writer.append(&event),
            Item::Note(note) => writer.add_note(&note),
        };
        match written {
            Ok(()) => {}
            // One odd event (counted as dropped) must not end the recording.
            Err(CaptureError::Encode { .. }) => {}
            Err(e) => {
                shared.failed.store(true, Ordering::Relaxed);
                // Returning drops the receiver: every later send fails (and counts) at once.
                return Err(e);
            }
        }
    }
    writer.note_dropped(shared.dropped.load(Ordering::Relaxed));
    writer.finish()
}
