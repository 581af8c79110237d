//! A capture opened for random access: its section table, found without decompressing
//! anything (see `scan`), and any section's events, state or summary read on demand. A week
//! at 1 s (~1,000 sections) is indexed in milliseconds and held in a few hundred kilobytes.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::bytes::{ScanWindow, Source};
use super::format::{self, HEADER_FIXED, Header, MAX_HEADER_LEN, Note, SKIPPABLE_HEAD, Trailer};
use super::reader::{FrameEnd, FrameEvents, decode_frame, read_header};
use super::scan::{self, End, FrameInfo, Gap};
use super::{CaptureError, shown};

#[derive(Debug)]
pub struct CaptureIndex {
    path: PathBuf,
    src: Source,
    header: Header,
    version: u16,
    body_start: u64,
    frames: Vec<FrameInfo>,
    gaps: Vec<Gap>,
    trailer: Option<Trailer>,
    end: End,
    end_damaged: bool,
    initial_at: Option<(u64, u64)>,
    notes: Vec<Note>,
}

impl CaptureIndex {
    /// Reads the header and finds every section (see the module docs); decode sections with
    /// [`read_frame`](Self::read_frame).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CaptureError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| CaptureError::Io {
            path: shown(path),
            action: "opening the capture",
            at_byte: 0,
            source: e,
        })?;
        Self::from_source(Source::File(Arc::new(file)), path)
    }

    /// [`open`](Self::open) on bytes in memory (the built-in demo); `name` is for messages.
    pub fn from_bytes(bytes: &[u8], name: &Path) -> Result<Self, CaptureError> {
        Self::from_source(Source::Memory(Arc::from(bytes)), name)
    }

    pub fn from_source(src: Source, path: &Path) -> Result<Self, CaptureError> {
        let name = shown(path);
        let io = |action, at_byte, source| CaptureError::Io {
            path: name.clone(),
            action,
            at_byte,
            source,
        };
        let len = src.len().map_err(|e| io("looking at the capture", 0, e))?;
        let head = src
            .read_vec(0, SKIPPABLE_HEAD)
            .map_err(|e| io("reading the header", 0, e))?;
        let size = format::le_u32(&head, 4)
            .map_or(0, |s| s as usize)
            .clamp(HEADER_FIXED, MAX_HEADER_LEN as usize);
        let prefix = src
            .read_vec(0, SKIPPABLE_HEAD + size)
            .map_err(|e| io("reading the header", 0, e))?;
        let (header, body) = read_header(&prefix, &name)?;
        let version = format::le_u16(&prefix, 16).unwrap_or(1);
        let body = body as u64;
        let mut w = ScanWindow::new(&src, len);
        let chained = if version >= 2 {
            scan::backward(&mut w, body)
        } else {
            None
        };
        let s = match chained {
            Some(chain) => {
                // Only what lies before the chain (an initial state, damaged sections): read
                // no further ahead than that.
                let ahead =
                    usize::try_from(chain.stop.saturating_sub(body)).unwrap_or(ScanWindow::CHUNK);
                let chunk = std::mem::replace(
                    &mut w.chunk,
                    ahead.clamp(ScanWindow::HOP, ScanWindow::CHUNK),
                );
                let before = scan::forward(&mut w, body, Some(chain.stop), &name);
                w.chunk = chunk;
                let after = scan::forward(&mut w, chain.tail_from, None, &name);
                let mut frames = before.frames;
                frames.extend(chain.frames);
                frames.extend(after.frames);
                let mut gaps = before.gaps;
                gaps.extend(after.gaps);
                let mut notes = before.notes;
                notes.extend(chain.notes);
                notes.extend(after.notes);
                scan::Scan {
                    frames,
                    gaps,
                    trailer: after.trailer,
                    end: after.end,
                    end_damaged: after.end_damaged,
                    initial_at: before.initial_at,
                    notes,
                }
            }
            None => scan::forward(&mut w, body, None, &name),
        };
        Ok(CaptureIndex {
            path: path.to_path_buf(),
            src,
            header,
            version,
            body_start: body,
            frames: s.frames,
            gaps: s.gaps,
            trailer: s.trailer,
            end: s.end,
            end_damaged: s.end_damaged,
            initial_at: s.initial_at,
            notes: s.notes,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The capture format version of the file.
    pub fn version(&self) -> u16 {
        self.version
    }

    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames
    }

    pub fn trailer(&self) -> Option<&Trailer> {
        self.trailer.as_ref()
    }

    /// The bookmarks in the file, in file order.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Whether the capture is a file on disk (the built-in demo is in memory).
    pub fn is_file(&self) -> bool {
        matches!(self.src, Source::File(_))
    }

    /// Damaged stretches between sections that the scan stepped over.
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps
    }

    /// How the file ended at the last scan (a section's own damage shows in `read_frame`).
    pub fn end(&self) -> &End {
        &self.end
    }

    /// Whether [`end`](Self::end) is damage (what follows it is lost) rather than a writer
    /// that stopped or is still writing.
    pub fn end_damaged(&self) -> bool {
        self.end_damaged && !self.end.is_complete()
    }

    /// The section holding time `t`: the last one starting at or before it (the first section
    /// for times before the capture).
    pub fn frame_at(&self, t: DateTime<Utc>) -> Option<usize> {
        if self.frames.is_empty() {
            return None;
        }
        let after = self.frames.partition_point(|f| f.first_at <= t);
        Some(after.saturating_sub(1))
    }

    /// The section holding record `n` (counted from 0 over the whole capture).
    pub fn frame_of_record(&self, n: u64) -> Option<usize> {
        let after = self.frames.partition_point(|f| f.first_record <= n);
        after.checked_sub(1)
    }

    fn frame(&self, i: usize) -> Result<&FrameInfo, CaptureError> {
        self.frames.get(i).ok_or_else(|| CaptureError::NoFrame {
            path: shown(&self.path),
            index: i,
            count: self.frames.len(),
        })
    }

    fn read(&self, action: &'static str, at: u64, len: usize) -> Result<Vec<u8>, CaptureError> {
        self.src.read_vec(at, len).map_err(|e| CaptureError::Io {
            path: shown(&self.path),
            action,
            at_byte: at,
            source: e,
        })
    }

    /// Decodes one section. The last section of a file still being written is read up to
    /// the current end of the file.
    pub fn read_frame(&self, i: usize) -> Result<FrameEvents, CaptureError> {
        self.read_frame_until(i, None)
    }

    /// Like [`read_frame`](Self::read_frame), stopping after `limit` samples when given (the
    /// events then end [`End::Complete`] as far as they go).
    pub fn read_frame_until(
        &self,
        i: usize,
        limit: Option<u64>,
    ) -> Result<FrameEvents, CaptureError> {
        let name = shown(&self.path);
        let f = self.frame(i)?;
        let end = if f.complete || f.damage.is_some() {
            f.end
        } else {
            self.src.len().unwrap_or(f.end)
        };
        let len = usize::try_from(end.saturating_sub(f.data_offset)).unwrap_or(0);
        let data = self.read("reading a section", f.data_offset, len)?;
        let got = data.len();
        let read = decode_frame(&mut None, &data, f.data_offset, f.first_record, limit);
        let damaged = f.damage.is_some() || matches!(read.end, FrameEnd::Damaged { .. });
        let end = match (&f.damage, read.end) {
            (None, FrameEnd::Complete | FrameEnd::Limit) => End::Complete,
            // The decoder's own words say where, closer than the scan could.
            (_, FrameEnd::Damaged { at_byte, what }) => End::Truncated {
                at_byte,
                reason: format!("{name}: section {}: {what}", f.frame_no),
            },
            (Some(d), _) => End::Truncated {
                at_byte: read.last_good,
                reason: format!("{name}: section {}: {d}", f.frame_no),
            },
            (None, FrameEnd::Cut) => End::Truncated {
                at_byte: read.last_good,
                reason: format!(
                    "{name}: section {} is still open at byte {} (the writer is still recording, or was stopped)",
                    f.frame_no,
                    f.data_offset + got as u64
                ),
            },
        };
        Ok(FrameEvents {
            first_record: f.first_record,
            events: read.events,
            end,
            damaged,
        })
    }

    fn tagged(&self, (at, len): (u64, u64), tag: &[u8; 4], what: &str) -> Result<Vec<u8>, String> {
        let len = usize::try_from(len).map_err(|_| format!("its {what} is impossibly large"))?;
        let bytes = self
            .read("reading a section state", at, len)
            .map_err(|e| e.to_string())?;
        let payload = bytes
            .get(SKIPPABLE_HEAD..)
            .ok_or_else(|| format!("its {what} is cut"))?;
        let (_, body) = format::decode_tagged(payload, tag)
            .ok_or_else(|| format!("its {what} fails its checksum"))?;
        Ok(body.to_vec())
    }

    /// The body of the state stored after section `i` (for `replay` to decode); `Ok(None)`
    /// when it has none (format 1, or a section the writer did not finish).
    pub fn read_state_body(&self, i: usize) -> Result<Option<Vec<u8>>, String> {
        let f = self.frame(i).map_err(|e| e.to_string())?;
        let Some(at) = f.state_at else {
            return Ok(None);
        };
        self.tagged(at, format::STATE_TAG, "state")
            .map(Some)
            .map_err(|e| format!("{}: section {}: {e}", shown(&self.path), f.frame_no))
    }

    /// Whether the file continues a rotation (holds an initial state).
    pub fn has_initial(&self) -> bool {
        self.initial_at.is_some()
    }

    /// The body of the initial state of a file that continues a rotation, if it has one.
    pub fn read_initial_body(&self) -> Result<Option<Vec<u8>>, String> {
        let Some(at) = self.initial_at else {
            return Ok(None);
        };
        self.tagged(at, format::INITIAL_TAG, "initial state")
            .map(Some)
            .map_err(|e| format!("{}: {e}", shown(&self.path)))
    }

    /// Picks up what a writer appended since the last scan; returns how many sections were
    /// rescanned or added (the last section is always rescanned).
    pub fn refresh(&mut self) -> Result<usize, CaptureError> {
        if self.trailer.is_some() {
            return Ok(0);
        }
        let from = self.frames.last().map_or(self.body_start, |f| f.offset);
        let len = self.src.len().map_err(|e| CaptureError::Io {
            path: shown(&self.path),
            action: "looking at the capture",
            at_byte: from,
            source: e,
        })?;
        let mut w = ScanWindow::new(&self.src, len);
        let s = scan::forward(&mut w, from, None, &shown(&self.path));
        let kept = self.frames.partition_point(|f| f.offset < from);
        self.frames.truncate(kept);
        self.frames.extend(s.frames);
        self.gaps.retain(|g| g.at_byte < from);
        self.gaps.extend(s.gaps);
        self.trailer = s.trailer;
        self.end = s.end;
        self.end_damaged = s.end_damaged;
        if from == self.body_start && s.initial_at.is_some() {
            self.initial_at = s.initial_at;
        }
        Ok(self.frames.len() - kept)
    }
}
