//! Record and replay's storage half: the versioned capture file of [`SourceEvent`]s
//! (`format`), its writer (`writer`, with the hook a replay's derivation plugs into to store
//! per-section states and summaries), recording — one file or a rolling capture, written on
//! one thread behind a bounded queue (`recorder`) — the reader of one
//! section or a whole file (`reader`), the index that finds every section without
//! decompressing (`index`, `scan`, `bytes`), scratch storage (`spill`), query digests
//! (`digest`), pt-stalk, Prometheus and Dolphie import (`ptstalk`, `prometheus`, `dolphie`) and
//! directories of capture files under a disk budget (`disk_budget`).
//! What the stored states mean, and replaying with them, is `replay`'s.
//!
//! [`SourceEvent`]: innodebt_server::sample::SourceEvent

mod bytes;
pub mod digest;
pub mod disk_budget;
pub mod dolphie;
pub mod format;
mod index;
pub mod notes;
pub mod prometheus;
pub mod ptstalk;
pub mod reader;
pub mod recorder;
mod scan;
pub mod spill;
pub mod writer;

use std::path::Path;

pub use bytes::Source;
pub use format::Note;
pub use format::{FORMAT_VERSION, Header, Trailer};
pub use index::CaptureIndex;
pub use ptstalk::{ImportError, import_dir};
pub use reader::{Capture, FrameEvents, open};
pub use recorder::{
    CaptureSender, FileSpec, Recorder, RecorderOptions, Recording, WriterHandle, spawn_writer,
};
pub use scan::{End, FrameInfo, Gap};
pub use writer::{CaptureWriter, SectionHook, WriteSummary, WriterOptions};

/// What can go wrong with a capture file. Every message names the file, where in it, what is
/// wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(
        "{path}: {action} failed at byte {at_byte}: {source} (check the path, the free space and the permissions)"
    )]
    Io {
        path: String,
        action: &'static str,
        at_byte: u64,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} already exists: choose another file name, or ask to overwrite it")]
    Exists { path: String },
    #[error(
        "{path} is empty (0 bytes): the recording wrote nothing, or this is not a capture; record again"
    )]
    Empty { path: String },
    #[error(
        "{path} is not an innodebt capture (it starts with {found}): open a file written by innodebt's recorder"
    )]
    Foreign { path: String, found: String },
    #[error(
        "{path} uses capture format version {version}, newer than this innodebt {tool} reads (up to {supported}): upgrade innodebt to replay it"
    )]
    FutureVersion {
        path: String,
        version: u16,
        supported: u16,
        tool: &'static str,
    },
    #[error("{path}: the header is damaged at byte {at_byte}: {what}; the file cannot be replayed")]
    BadHeader {
        path: String,
        at_byte: u64,
        what: String,
    },
    #[error(
        "{path}: the file ends at byte {len}, inside its header ({needed} bytes): the recording stopped before any event was written; nothing to replay"
    )]
    HeaderTruncated { path: String, len: u64, needed: u64 },
    #[error(
        "{path}: event #{record} cannot be stored: {what} (the event is skipped; please report this as a bug)"
    )]
    Encode {
        path: String,
        record: u64,
        what: String,
    },
    #[error(
        "{path}: the writer already failed ({first}); nothing more is written — record to another file"
    )]
    Failed { path: String, first: String },
    #[error(
        "{path}: section {index} does not exist (the index holds {count}); refresh the index or pick a section below {count}"
    )]
    NoFrame {
        path: String,
        index: usize,
        count: usize,
    },
    #[error(
        "{path} has no end mark: it is still being written (or its writer was stopped); a note cannot be added to it — notes go into a recording while it runs, or into a finished file"
    )]
    Unfinished { path: String },
    #[error(
        "{path}: the writer thread stopped unexpectedly ({what}); the file holds what was written before"
    )]
    WriterThread { path: String, what: String },
    #[error(
        "the capture writer thread stopped unexpectedly ({what}); the files hold what was written before"
    )]
    RecorderThread { what: String },
    #[error(
        "cannot start the {what} thread: {source} (the system is short of threads or memory: check ulimit -u)"
    )]
    Thread {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
}

pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
