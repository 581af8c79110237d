//! Record and replay's storage half: the versioned capture file of [`SourceEvent`]s
//! (`format`), the writer task fed by a bounded channel (`writer`), the reader with its
//! fast index for big files (`reader`), query digests (`digest`), pt-stalk import
//! (`ptstalk`) and CSV export of the derived figures (`export`).
//!
//! [`SourceEvent`]: crate::sample::SourceEvent

pub mod digest;
pub mod export;
pub mod format;
pub mod ptstalk;
pub mod reader;
pub mod writer;

use std::path::Path;

pub use export::export_csv;
pub use format::{FORMAT_VERSION, Header, Trailer};
pub use ptstalk::{ImportError, import_dir};
pub use reader::{Capture, CaptureIndex, End, FrameEvents, FrameInfo, Gap, open};
pub use writer::{
    CaptureSender, CaptureWriter, WriteSummary, WriterHandle, WriterOptions, spawn_writer,
    spawn_writer_with,
};

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
        "{path}: the writer thread stopped unexpectedly ({what}); the file holds what was written before"
    )]
    WriterThread { path: String, what: String },
}

pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
