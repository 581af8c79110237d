//! Reading captures. [`open`] loads a whole file (fine up to a few hours); [`CaptureIndex`]
//! is the form for big files: one quick scan of the section markers (no decompression) gives
//! every section's offset, first record and first time, then [`CaptureIndex::read_frame`]
//! decodes any one section on demand. Both accept a file cut at any byte (a writer that died,
//! or one still writing) and report where the readable part ends; neither panics on any input.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use zstd::stream::raw::{DParameter, Decoder, InBuffer, Operation, OutBuffer};

use super::format::{
    self, FILE_MAGIC, FORMAT_VERSION, FrameLayout, HEADER_FIXED, Header, LayoutError, MARKER_TAG,
    MAX_HEADER_LEN, MAX_RECORD_LEN, RECORD_PREFIX, SKIPPABLE_HEAD, SKIPPABLE_MAGIC, TRAILER_TAG,
    Trailer, ZSTD_MAGIC,
};
use super::{CaptureError, shown};
use crate::sample::SourceEvent;

/// Largest zstd window accepted (8 MiB): the writer never needs more, and a damaged or hostile
/// frame header cannot make the reader allocate more.
const WINDOW_LOG_MAX: u32 = 23;
/// Skippable frames of our magic larger than this are damage, not a future extension.
const MAX_SKIPPABLE: usize = 1 << 20;

/// How the readable part of a capture ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The writer finished the file and every byte was read.
    Complete,
    /// Everything before `at_byte` was read; the rest is missing or damaged (`reason` says
    /// which, names the file and says what to do).
    Truncated { at_byte: u64, reason: String },
}

impl End {
    pub fn is_complete(&self) -> bool {
        matches!(self, End::Complete)
    }
}

/// A whole capture in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    pub path: PathBuf,
    pub header: Header,
    pub events: Vec<SourceEvent>,
    pub end: End,
    /// Present when the writer finished cleanly; holds the dropped-event count.
    pub trailer: Option<Trailer>,
}

/// Reads a whole capture. A cut or damaged file gives every event before the problem and an
/// [`End::Truncated`] saying where and why; only a file that is not a capture at all (empty,
/// foreign, newer format, damaged or cut header) is an error.
pub fn open(path: impl AsRef<Path>) -> Result<Capture, CaptureError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| CaptureError::Io {
        path: shown(path),
        action: "reading the capture",
        at_byte: 0,
        source: e,
    })?;
    from_bytes(&bytes, path)
}

/// [`open`] on bytes already in memory; `path` is only used in messages.
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Capture, CaptureError> {
    let name = shown(path);
    let (header, body) = read_header(bytes, &name)?;
    let scan = scan(&bytes[body..], body as u64, &name);
    let mut events = Vec::new();
    let first_gap = scan.gaps.first();
    let before_gap = first_gap.map_or(scan.frames.len(), |g| {
        scan.frames.partition_point(|f| f.offset < g.at_byte)
    });
    let mut end = match first_gap {
        Some(g) => {
            let later = scan.frames.len() - before_gap;
            End::Truncated {
                at_byte: g.at_byte,
                reason: format!(
                    "{name}: {}; events after it are not read ({later} later section(s) look intact — replay with the capture index to read them)",
                    g.what
                ),
            }
        }
        None => scan.end.clone(),
    };
    let mut decoder = None;
    for (k, f) in scan.frames[..before_gap].iter().enumerate() {
        let lo = usize::try_from(f.data_offset)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let hi = usize::try_from(f.end)
            .unwrap_or(usize::MAX)
            .min(bytes.len())
            .max(lo);
        let read = decode_frame(&mut decoder, &bytes[lo..hi], f.data_offset, f.first_record);
        let decoded = read.events.len();
        events.extend(read.events);
        let plain_cut = f.damage.is_none() && matches!(read.end, FrameEnd::Cut);
        let problem = match (&f.damage, read.end) {
            (Some(d), _) => Some((read.last_good.max(f.offset), d.clone())),
            (None, FrameEnd::Complete) => None,
            (None, FrameEnd::Cut) => Some((
                read.last_good.max(f.offset),
                format!(
                    "the file ends at byte {} inside section {} (the writer was stopped mid-write, or is still recording); {} events were read",
                    bytes.len(),
                    f.frame_no,
                    events.len()
                ),
            )),
            (None, FrameEnd::Damaged { at_byte, what }) => Some((at_byte, what)),
        };
        if let Some((at_byte, what)) = problem {
            let later = before_gap - k - 1;
            let rest = if later > 0 {
                format!(
                    "; {later} later section(s) look intact — replay with the capture index to read them"
                )
            } else {
                String::new()
            };
            let reason = if plain_cut {
                format!("{name}: {what}")
            } else {
                format!(
                    "{name}: {what} ({decoded} events of section {} were read){rest}",
                    f.frame_no
                )
            };
            end = End::Truncated { at_byte, reason };
            break;
        }
    }
    Ok(Capture {
        path: path.to_path_buf(),
        header,
        events,
        end,
        trailer: scan.trailer,
    })
}

/// Parses the header frame; returns it and where the body starts.
fn read_header(b: &[u8], name: &str) -> Result<(Header, usize), CaptureError> {
    if b.is_empty() {
        return Err(CaptureError::Empty {
            path: name.to_string(),
        });
    }
    let truncated = |needed: usize| CaptureError::HeaderTruncated {
        path: name.to_string(),
        len: b.len() as u64,
        needed: needed as u64,
    };
    let magic = SKIPPABLE_MAGIC.to_le_bytes();
    let head_len = b.len().min(4);
    let ours_so_far = b[..head_len] == magic[..head_len]
        && b.get(8..).is_none_or(|p| {
            let n = p.len().min(FILE_MAGIC.len());
            p[..n] == FILE_MAGIC[..n]
        });
    if !ours_so_far {
        return Err(CaptureError::Foreign {
            path: name.to_string(),
            found: describe_start(b),
        });
    }
    let Some(size) = format::le_u32(b, 4) else {
        return Err(truncated(SKIPPABLE_HEAD + HEADER_FIXED));
    };
    let size = size as usize;
    if b.len() < SKIPPABLE_HEAD + 10 {
        return Err(truncated(SKIPPABLE_HEAD + size.max(HEADER_FIXED)));
    }
    let version = format::le_u16(b, 16).unwrap_or(0);
    if version > FORMAT_VERSION {
        return Err(CaptureError::FutureVersion {
            path: name.to_string(),
            version,
            supported: FORMAT_VERSION,
            tool: env!("CARGO_PKG_VERSION"),
        });
    }
    let bad = |at_byte: usize, what: String| CaptureError::BadHeader {
        path: name.to_string(),
        at_byte: at_byte as u64,
        what,
    };
    if version == 0 {
        return Err(bad(16, "format version 0 does not exist".to_string()));
    }
    if size < HEADER_FIXED || size > MAX_HEADER_LEN as usize {
        return Err(bad(4, format!("a header of {size} bytes is impossible")));
    }
    let end = SKIPPABLE_HEAD + size;
    if b.len() < end {
        return Err(truncated(end));
    }
    let crc = format::le_u32(b, 20).unwrap_or(0);
    let json = &b[SKIPPABLE_HEAD + HEADER_FIXED..end];
    if crc32fast::hash(json) != crc {
        return Err(bad(
            SKIPPABLE_HEAD + HEADER_FIXED,
            "its checksum does not match".to_string(),
        ));
    }
    let header: Header = serde_json::from_slice(json).map_err(|e| {
        bad(
            SKIPPABLE_HEAD + HEADER_FIXED,
            format!("it passes its checksum but cannot be read ({e})"),
        )
    })?;
    Ok((header, end))
}

/// The first bytes of a foreign file, for the message.
fn describe_start(b: &[u8]) -> String {
    if format::le_u32(b, 0) == Some(ZSTD_MAGIC) {
        return "a plain zstd frame (a compressed file, but not a capture)".to_string();
    }
    let head = &b[..b.len().min(8)];
    if head.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        format!("the text {:?}", String::from_utf8_lossy(head))
    } else {
        let hex: Vec<String> = head.iter().map(|c| format!("{c:02x}")).collect();
        format!("the bytes {}", hex.join(" "))
    }
}

/// One section as found by the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameInfo {
    pub frame_no: u32,
    /// Where the section's marker starts.
    pub offset: u64,
    /// Where its zstd frame starts.
    pub data_offset: u64,
    /// Where the next section starts (or where the file ended at the last scan).
    pub end: u64,
    /// Index (from 0) of its first record in the whole capture.
    pub first_record: u64,
    pub first_at: DateTime<Utc>,
    /// The zstd frame was ended (false for the section a writer is still filling).
    pub complete: bool,
    /// What is wrong with the section's bytes, if the scan could tell.
    pub damage: Option<String>,
}

/// The events of one section.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameEvents {
    pub first_record: u64,
    pub events: Vec<SourceEvent>,
    pub end: End,
}

/// Bytes between sections that are not a section: damage the scan stepped over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    pub at_byte: u64,
    /// Where the next intact section starts.
    pub resumes_at: u64,
    pub what: String,
}

struct Scan {
    frames: Vec<FrameInfo>,
    gaps: Vec<Gap>,
    trailer: Option<Trailer>,
    end: End,
}

enum Skippable<'a> {
    /// The input ends inside it.
    Cut,
    /// Not a skippable frame of ours (or an impossible size).
    NotOurs,
    Frame {
        payload: &'a [u8],
        next: usize,
    },
}

fn skippable_at(b: &[u8], pos: usize) -> Skippable<'_> {
    let rest = &b[pos.min(b.len())..];
    let magic = SKIPPABLE_MAGIC.to_le_bytes();
    let n = rest.len().min(4);
    if rest[..n] != magic[..n] {
        return Skippable::NotOurs;
    }
    let Some(size) = format::le_u32(rest, 4) else {
        return Skippable::Cut;
    };
    let size = size as usize;
    if size > MAX_SKIPPABLE {
        return Skippable::NotOurs;
    }
    match rest.get(SKIPPABLE_HEAD..SKIPPABLE_HEAD + size) {
        Some(payload) => Skippable::Frame {
            payload,
            next: pos + SKIPPABLE_HEAD + size,
        },
        None => Skippable::Cut,
    }
}

/// Damage at `pos`: skip to the next intact section marker (recording the gap), or, when none
/// follows, end the capture there.
fn resync(
    b: &[u8],
    pos: usize,
    at: impl Fn(usize) -> u64,
    name: &str,
    gaps: &mut Vec<Gap>,
    what: &str,
) -> Result<usize, End> {
    match format::find_marker(b, pos + 1) {
        Some(n) => {
            gaps.push(Gap {
                at_byte: at(pos),
                resumes_at: at(n),
                what: format!("damaged at byte {}: {what}", at(pos)),
            });
            Ok(n)
        }
        None => Err(End::Truncated {
            at_byte: at(pos),
            reason: format!(
                "{name}: damaged at byte {}: {what}; no intact section follows",
                at(pos)
            ),
        }),
    }
}

/// Walks the body (`b` starts at absolute offset `base`) from marker to marker, hopping over
/// each zstd frame by its block headers. Damage is stepped over by finding the next marker.
fn scan(b: &[u8], base: u64, name: &str) -> Scan {
    let at = |rel: usize| base + rel as u64;
    let mut frames: Vec<FrameInfo> = Vec::new();
    let mut gaps: Vec<Gap> = Vec::new();
    let mut trailer = None;
    let mut pos = 0usize;
    let end = loop {
        if pos >= b.len() {
            break match trailer {
                Some(_) => End::Complete,
                None => End::Truncated {
                    at_byte: at(b.len()),
                    reason: format!(
                        "{name}: no end mark after byte {}: the writer did not finish (it is still recording, or was stopped by a crash, a kill or a full disk); every complete event before it was read",
                        at(b.len())
                    ),
                },
            };
        }
        if trailer.is_some() {
            break End::Truncated {
                at_byte: at(pos),
                reason: format!(
                    "{name}: unexpected bytes after the end mark at byte {}: ignored (the file was appended to by something else)",
                    at(pos)
                ),
            };
        }
        let (payload, next) = match skippable_at(b, pos) {
            Skippable::Cut => {
                break End::Truncated {
                    at_byte: at(pos),
                    reason: format!(
                        "{name}: the file ends at byte {} inside a section marker (the writer was stopped mid-write, or is still recording)",
                        at(b.len())
                    ),
                };
            }
            Skippable::NotOurs => {
                match resync(
                    b,
                    pos,
                    at,
                    name,
                    &mut gaps,
                    "no section marker where one should start",
                ) {
                    Ok(n) => {
                        pos = n;
                        continue;
                    }
                    Err(end) => break end,
                }
            }
            Skippable::Frame { payload, next } => (payload, next),
        };
        if let Some(t) = format::decode_trailer(payload) {
            trailer = Some(t);
            pos = next;
            continue;
        }
        let Some(marker) = format::decode_marker(payload) else {
            if payload.starts_with(MARKER_TAG) || payload.starts_with(TRAILER_TAG) {
                // Ours but its checksum fails.
                match resync(
                    b,
                    pos,
                    at,
                    name,
                    &mut gaps,
                    "a section marker fails its checksum",
                ) {
                    Ok(n) => {
                        pos = n;
                        continue;
                    }
                    Err(end) => break end,
                }
            }
            // An extension from a later minor version: step over it.
            pos = next;
            continue;
        };
        let mut info = FrameInfo {
            frame_no: marker.frame_no,
            offset: at(pos),
            data_offset: at(next),
            end: at(b.len()),
            first_record: marker.first_record,
            first_at: marker.first_at,
            complete: false,
            damage: None,
        };
        let layout = format::frame_layout(&b[next..]);
        if let Ok(l) = &layout
            && let Some(len) = l.complete_len
        {
            let after = next + len;
            let rest = &b[after..];
            let magic = SKIPPABLE_MAGIC.to_le_bytes();
            if rest[..rest.len().min(4)] == magic[..rest.len().min(4)] {
                info.complete = true;
                info.end = at(after);
                frames.push(info);
                pos = after;
                continue;
            }
        }
        // The frame runs to the end of the file (still being written, or cut), or its
        // block headers are damaged: a later marker tells the two apart.
        match format::find_marker(b, next) {
            Some(n) => {
                info.end = at(n);
                info.damage = Some(match layout {
                    Err(LayoutError::Invalid(w)) => format!(
                        "damaged after byte {}: the compressed data is not valid zstd ({w})",
                        at(next)
                    ),
                    _ => format!(
                        "damaged after byte {}: the compressed data does not end where the next section starts (byte {})",
                        at(next),
                        at(n)
                    ),
                });
                frames.push(info);
                pos = n;
            }
            None => {
                if let Ok(FrameLayout {
                    complete_len: Some(len),
                    ..
                }) = layout
                {
                    // A whole frame, then bytes that are no section.
                    info.complete = true;
                    info.end = at(next + len);
                    frames.push(info);
                    break End::Truncated {
                        at_byte: at(next + len),
                        reason: format!(
                            "{name}: damaged at byte {}: expected a section marker; no intact section follows",
                            at(next + len)
                        ),
                    };
                }
                let damaged = layout.is_err();
                if damaged {
                    info.damage = Some(format!(
                        "damaged after byte {}: the compressed data is not valid zstd",
                        at(next)
                    ));
                }
                frames.push(info);
                break End::Truncated {
                    at_byte: at(b.len()),
                    reason: if damaged {
                        format!(
                            "{name}: the last section (from byte {}) is damaged",
                            at(pos)
                        )
                    } else {
                        format!(
                            "{name}: the last section (from byte {}) is still open: the writer did not finish (it is still recording, or was stopped)",
                            at(pos)
                        )
                    },
                };
            }
        }
    };
    Scan {
        frames,
        gaps,
        trailer,
        end,
    }
}

enum FrameEnd {
    /// The zstd frame ended properly.
    Complete,
    /// The input ends inside the frame.
    Cut,
    /// The bytes are not what the writer wrote.
    Damaged { at_byte: u64, what: String },
}

struct FrameRead {
    events: Vec<SourceEvent>,
    /// Absolute end of the block that completed the last whole record (or `base`).
    last_good: u64,
    end: FrameEnd,
}

/// Records accumulating from the decompressed stream.
struct Records {
    buf: Vec<u8>,
    head: usize,
    next: u64,
}

impl Records {
    /// Takes decompressed bytes; completes as many records as they allow.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SourceEvent>) -> Result<usize, String> {
        self.buf.extend_from_slice(bytes);
        let mut done = 0;
        loop {
            let avail = &self.buf[self.head..];
            let (Some(len), Some(crc)) = (format::le_u32(avail, 0), format::le_u32(avail, 4))
            else {
                break;
            };
            if len > MAX_RECORD_LEN {
                return Err(format!(
                    "event #{} claims {len} bytes, more than any event innodebt writes",
                    self.next
                ));
            }
            let Some(payload) = avail.get(RECORD_PREFIX..RECORD_PREFIX + len as usize) else {
                break;
            };
            if crc32fast::hash(payload) != crc {
                return Err(format!("event #{} fails its checksum (CRC-32)", self.next));
            }
            let event: SourceEvent = serde_json::from_slice(payload).map_err(|e| {
                format!(
                    "event #{} passes its checksum but is not an event this innodebt understands ({e})",
                    self.next
                )
            })?;
            out.push(event);
            self.head += RECORD_PREFIX + len as usize;
            self.next += 1;
            done += 1;
        }
        if self.head > 0 && self.head * 2 >= self.buf.len() {
            self.buf.drain(..self.head);
            self.head = 0;
        }
        Ok(done)
    }

    fn pending(&self) -> bool {
        self.buf.len() > self.head
    }
}

/// Decodes one zstd frame (`data` starts at absolute offset `base`), feeding it block by block
/// so the end of the last complete record is known to the block.
fn decode_frame(
    decoder: &mut Option<Decoder<'static>>,
    data: &[u8],
    base: u64,
    first_record: u64,
) -> FrameRead {
    let mut read = FrameRead {
        events: Vec::new(),
        last_good: base,
        end: FrameEnd::Cut,
    };
    let damaged = |at_byte: u64, what: String| FrameEnd::Damaged { at_byte, what };
    let layout = match format::frame_layout(data) {
        Ok(l) => l,
        Err(LayoutError::NotZstd) => {
            read.end = damaged(
                base,
                format!("damaged at byte {base}: no zstd frame where section data should start"),
            );
            return read;
        }
        Err(LayoutError::Invalid(w)) => {
            read.end = damaged(
                base,
                format!("damaged at byte {base}: not valid zstd ({w})"),
            );
            return read;
        }
    };
    let mut ends: Vec<usize> = Vec::with_capacity(layout.block_ends.len() + 2);
    if layout.header_len <= data.len() {
        ends.push(layout.header_len);
        ends.extend(layout.block_ends.iter().copied());
        if let Some(len) = layout.complete_len
            && ends.last().is_some_and(|l| *l < len)
        {
            ends.push(len);
        }
    }
    // One decoder serves every frame of a read (creating one costs more than a small frame).
    let decoder = match decoder {
        Some(d) => match d.reinit() {
            Ok(()) => d,
            Err(e) => {
                read.end = damaged(base, format!("cannot reset the zstd decoder: {e}"));
                return read;
            }
        },
        None => match new_decoder() {
            Ok(d) => decoder.insert(d),
            Err(e) => {
                read.end = damaged(base, format!("cannot start a zstd decoder: {e}"));
                return read;
            }
        },
    };
    let mut records = Records {
        buf: Vec::new(),
        head: 0,
        next: first_record,
    };
    let mut out: Vec<u8> = Vec::with_capacity(1 << 17);
    let mut prev = 0usize;
    for end in ends {
        let chunk_at = base + prev as u64;
        let input = &data[prev..end];
        let mut inb = InBuffer::around(input);
        let mut completed = 0;
        loop {
            out.clear();
            let before = inb.pos();
            let produced = {
                let mut ob = OutBuffer::around(&mut out);
                if let Err(e) = decoder.run(&mut inb, &mut ob) {
                    read.end = damaged(
                        chunk_at,
                        format!(
                            "damaged at byte {chunk_at}: the compressed data does not decode ({e})"
                        ),
                    );
                    return read;
                }
                ob.pos()
            };
            match records.feed(&out[..produced.min(out.len())], &mut read.events) {
                Ok(n) => completed += n,
                Err(what) => {
                    let at = read.last_good;
                    read.end = damaged(at, format!("damaged after byte {at}: {what}"));
                    return read;
                }
            }
            let input_done = inb.pos() >= input.len();
            if input_done && produced < out.capacity() {
                break;
            }
            if produced == 0 && inb.pos() == before {
                break;
            }
        }
        if completed > 0 {
            read.last_good = base + end as u64;
        }
        prev = end;
    }
    read.end = match layout.complete_len {
        Some(_) if records.pending() => {
            let at = read.last_good;
            damaged(
                at,
                format!(
                    "damaged after byte {at}: the section ends inside event #{}",
                    records.next
                ),
            )
        }
        Some(_) => FrameEnd::Complete,
        None => FrameEnd::Cut,
    };
    read
}

fn new_decoder() -> std::io::Result<Decoder<'static>> {
    let mut d = Decoder::new()?;
    d.set_parameter(DParameter::WindowLogMax(WINDOW_LOG_MAX))?;
    Ok(d)
}

/// A capture opened for random access: the section table from one quick scan, and the file.
#[derive(Debug)]
pub struct CaptureIndex {
    path: PathBuf,
    file: File,
    header: Header,
    body_start: u64,
    frames: Vec<FrameInfo>,
    gaps: Vec<Gap>,
    trailer: Option<Trailer>,
    end: End,
}

impl CaptureIndex {
    /// Reads the header and the section markers only (a 24-hour capture at 1 s is indexed in
    /// milliseconds); decode sections with [`read_frame`](Self::read_frame).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CaptureError> {
        let path = path.as_ref();
        let name = shown(path);
        let io = |action, source| CaptureError::Io {
            path: name.clone(),
            action,
            at_byte: 0,
            source,
        };
        let file = File::open(path).map_err(|e| io("opening the capture", e))?;
        let bytes = std::fs::read(path).map_err(|e| io("reading the capture", e))?;
        let (header, body) = read_header(&bytes, &name)?;
        let s = scan(&bytes[body..], body as u64, &name);
        Ok(CaptureIndex {
            path: path.to_path_buf(),
            file,
            header,
            body_start: body as u64,
            frames: s.frames,
            gaps: s.gaps,
            trailer: s.trailer,
            end: s.end,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames
    }

    pub fn trailer(&self) -> Option<&Trailer> {
        self.trailer.as_ref()
    }

    /// Damaged stretches between sections that the scan stepped over.
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps
    }

    /// How the file ended at the last scan (a section's own damage shows in `read_frame`).
    pub fn end(&self) -> &End {
        &self.end
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

    /// Decodes one section. The last section of a file still being written is read up to
    /// the current end of the file.
    pub fn read_frame(&self, i: usize) -> Result<FrameEvents, CaptureError> {
        let name = shown(&self.path);
        let Some(f) = self.frames.get(i) else {
            return Err(CaptureError::NoFrame {
                path: name,
                index: i,
                count: self.frames.len(),
            });
        };
        let end = if f.complete || f.damage.is_some() {
            f.end
        } else {
            self.file.metadata().map(|m| m.len()).unwrap_or(f.end)
        };
        let len = usize::try_from(end.saturating_sub(f.data_offset)).unwrap_or(0);
        let mut data = vec![0u8; len];
        let got =
            read_at_most(&self.file, &mut data, f.data_offset).map_err(|e| CaptureError::Io {
                path: name.clone(),
                action: "reading a section",
                at_byte: f.data_offset,
                source: e,
            })?;
        data.truncate(got);
        let read = decode_frame(&mut None, &data, f.data_offset, f.first_record);
        let end = match (&f.damage, read.end) {
            (None, FrameEnd::Complete) => End::Complete,
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
            (None, FrameEnd::Damaged { at_byte, what }) => End::Truncated {
                at_byte,
                reason: format!("{name}: section {}: {what}", f.frame_no),
            },
        };
        Ok(FrameEvents {
            first_record: f.first_record,
            events: read.events,
            end,
        })
    }

    /// Picks up what a writer appended since the last scan; returns how many sections were
    /// rescanned or added (the open last section is always rescanned).
    pub fn refresh(&mut self) -> Result<usize, CaptureError> {
        let name = shown(&self.path);
        let from = match self.frames.last() {
            Some(f) if !f.complete && f.damage.is_none() => f.offset,
            Some(f) => f.end,
            None => self.body_start,
        };
        if self.trailer.is_some() {
            return Ok(0);
        }
        let len = self
            .file
            .metadata()
            .map_err(|e| CaptureError::Io {
                path: name.clone(),
                action: "looking at the capture",
                at_byte: from,
                source: e,
            })?
            .len();
        let mut tail = vec![0u8; usize::try_from(len.saturating_sub(from)).unwrap_or(0)];
        let got = read_at_most(&self.file, &mut tail, from).map_err(|e| CaptureError::Io {
            path: name.clone(),
            action: "reading the capture's new part",
            at_byte: from,
            source: e,
        })?;
        tail.truncate(got);
        let s = scan(&tail, from, &name);
        let kept = self.frames.partition_point(|f| f.offset < from);
        self.frames.truncate(kept);
        self.frames.extend(s.frames);
        self.gaps.retain(|g| g.at_byte < from);
        self.gaps.extend(s.gaps);
        self.trailer = s.trailer;
        self.end = s.end;
        Ok(self.frames.len() - kept)
    }
}

/// `read_exact_at` that stops early at the end of the file instead of failing.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_foreign_starts() {
        assert_eq!(describe_start(b"hello world"), "the text \"hello wo\"");
        assert!(describe_start(&[0x28, 0xb5, 0x2f, 0xfd, 0]).contains("zstd"));
        assert_eq!(describe_start(&[1, 2]), "the bytes 01 02");
    }

    #[test]
    fn marker_constants_agree() {
        use super::super::format::{MARKER_LEN, Marker, TRAILER_LEN};
        let m = Marker {
            frame_no: 0,
            first_record: 0,
            first_at: Utc::now(),
        };
        assert_eq!(format::encode_marker(&m).len(), SKIPPABLE_HEAD + MARKER_LEN);
        assert_eq!(TRAILER_LEN, 32);
    }
}
