//! The flight recorder of `innodebt serve --record-dir DIR`: a rolling capture per target in
//! `DIR/NAME/` (hourly files named by the time they start, each replayable on its own; see
//! `innodebt_capture::recorder`), every target's written by one [`Recorder`]. Files wholly
//! older than `--retain` go first; then, while the directory holds more than `--max-disk`, the
//! oldest closed file goes, whatever its target.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use innodebt_capture::disk_budget::create_private;
use innodebt_capture::{
    CaptureSender, FileSpec, Recorder, RecorderOptions, Recording, WriterOptions,
};

// The directory budget is the incident files' too: one implementation, in `capture`.
pub use innodebt_capture::disk_budget::{Budget, EXTENSION, Segment, segments, started_of};

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

/// How serve makes its files.
pub fn files() -> FileSpec {
    crate::replay::capture_files(WriterOptions {
        window_log: WINDOW_LOG,
        // The recorder's sync thread syncs; the writer never waits on the disk but to close
        // a file.
        sync_every: Duration::MAX,
        ..WriterOptions::default()
    })
}

/// The writer of every target's rolling capture.
pub fn start() -> Result<Recorder, String> {
    Recorder::start(RecorderOptions {
        queue: QUEUE,
        files: files(),
        report: Arc::new(|line| eprintln!("innodebt serve: recorder {line}")),
    })
    .map_err(|e| e.to_string())
}

/// Starts recording `target` under the budget's root (creating `ROOT/target`, mode 0700).
pub fn add(
    recorder: &Recorder,
    budget: &Arc<Budget>,
    target: &str,
) -> Result<CaptureSender, String> {
    let dir = budget.root.join(target);
    create_private(
        &dir,
        "recording directory",
        "check --record-dir and its permissions",
    )?;
    // The handle goes: the recorder finishes every file at shutdown.
    let (sender, _) = recorder
        .rolling(dir, Arc::clone(budget))
        .map_err(|e| e.to_string())?;
    Ok(sender)
}

/// A target's rolling capture as serve writes it, written here and now (tests, benches).
pub fn rolling(dir: PathBuf, budget: Arc<Budget>) -> Recording {
    Recording::rolling(dir, budget, &files())
}
