//! Reading captures: the header, the records of one section, and [`open`], which loads a
//! whole file (for tests, small files and conversions; replays use
//! [`CaptureIndex`](super::CaptureIndex) and read only what they show). Everything accepts a
//! file cut at any byte (a writer that died, or one still writing) and reports where the
//! readable part ends; nothing panics on any input, and no section — however it was forged —
//! decodes to more than [`MAX_SECTION_RECORDS`] events or [`MAX_SECTION_BYTES`] bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use zstd::stream::raw::{DParameter, Decoder, InBuffer, Operation, OutBuffer};

use super::bytes::{ScanWindow, Source};
use super::format::{
    self, FILE_MAGIC, FORMAT_VERSION, HEADER_FIXED, Header, LayoutError, MAX_HEADER_LEN,
    MAX_RECORD_LEN, MAX_SECTION_BYTES, MAX_SECTION_RECORDS, RECORD_PREFIX, SKIPPABLE_HEAD,
    SKIPPABLE_MAGIC, Trailer, ZSTD_MAGIC,
};
use super::scan::{self, End};
use super::{CaptureError, shown};
use innodebt_server::sample::SourceEvent;

/// Largest zstd window accepted (8 MiB): the writer never needs more, and a damaged or hostile
/// frame header cannot make the reader allocate more.
const WINDOW_LOG_MAX: u32 = 23;

/// A whole capture in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    pub path: PathBuf,
    pub header: Header,
    pub events: Vec<SourceEvent>,
    pub end: End,
    /// Present when the writer finished cleanly; holds the dropped-event count.
    pub trailer: Option<Trailer>,
    /// Bookmarks, in file order.
    pub notes: Vec<super::format::Note>,
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
    let src = Source::Memory(Arc::from(bytes));
    let mut window = ScanWindow::new(&src, bytes.len() as u64);
    let scan = scan::forward(&mut window, body as u64, None, &name);
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
        let read = decode_frame(
            &mut decoder,
            &bytes[lo..hi],
            f.data_offset,
            f.first_record,
            None,
        );
        let decoded = read.events.len();
        events.extend(read.events);
        let plain_cut = f.damage.is_none() && matches!(read.end, FrameEnd::Cut);
        let problem = match (&f.damage, read.end) {
            (_, FrameEnd::Damaged { at_byte, what }) => Some((at_byte, what)),
            (Some(d), _) => Some((read.last_good.max(f.offset), d.clone())),
            (None, FrameEnd::Complete | FrameEnd::Limit) => None,
            (None, FrameEnd::Cut) => Some((
                read.last_good.max(f.offset),
                format!(
                    "the file ends at byte {} inside section {} (the writer was stopped mid-write, or is still recording); {} events were read",
                    bytes.len(),
                    f.frame_no,
                    events.len()
                ),
            )),
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
        notes: scan.notes,
    })
}

/// Parses the header frame; returns it and where the body starts.
pub(crate) fn read_header(b: &[u8], name: &str) -> Result<(Header, usize), CaptureError> {
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

/// The events of one section.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameEvents {
    pub first_record: u64,
    pub events: Vec<SourceEvent>,
    pub end: End,
    /// The section stops at damage (its later records are lost), not where a writer stopped.
    pub damaged: bool,
}

pub(crate) enum FrameEnd {
    /// The zstd frame ended properly.
    Complete,
    /// Decoding stopped after the records asked for.
    Limit,
    /// The input ends inside the frame.
    Cut,
    /// The bytes are not what the writer wrote.
    Damaged { at_byte: u64, what: String },
}

pub(crate) struct FrameRead {
    pub events: Vec<SourceEvent>,
    /// Absolute end of the block that completed the last whole record (or `base`).
    pub last_good: u64,
    pub end: FrameEnd,
}

/// Records accumulating from the decompressed stream.
struct Records {
    buf: Vec<u8>,
    head: usize,
    next: u64,
    /// Records, samples and decoded bytes so far in this section.
    count: u32,
    samples: u64,
    bytes: usize,
    /// Stop after this many samples (a seek needs only the start of a section).
    limit: Option<u64>,
}

impl Records {
    fn full(&self) -> bool {
        self.limit.is_some_and(|l| self.samples >= l)
    }

    /// Takes decompressed bytes; completes as many records as they allow.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SourceEvent>) -> Result<usize, String> {
        self.bytes = self.bytes.saturating_add(bytes.len());
        if self.bytes > MAX_SECTION_BYTES {
            return Err(format!(
                "the section decodes to more than {} MiB, more than innodebt writes in one (the rest of it is skipped)",
                MAX_SECTION_BYTES >> 20
            ));
        }
        self.buf.extend_from_slice(bytes);
        let mut done = 0;
        loop {
            if self.full() {
                break;
            }
            if self.count >= MAX_SECTION_RECORDS {
                return Err(format!(
                    "the section holds more than {MAX_SECTION_RECORDS} events, more than innodebt writes in one (the rest of it is skipped)"
                ));
            }
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
            self.samples += u64::from(matches!(event, SourceEvent::Sample(_)));
            out.push(event);
            self.head += RECORD_PREFIX + len as usize;
            self.next += 1;
            self.count += 1;
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
pub(crate) fn decode_frame(
    decoder: &mut Option<Decoder<'static>>,
    data: &[u8],
    base: u64,
    first_record: u64,
    limit: Option<u64>,
) -> FrameRead {
    let mut read = FrameRead {
        events: Vec::new(),
        last_good: base,
        end: FrameEnd::Cut,
    };
    let damaged = |at_byte: u64, what: String| FrameEnd::Damaged { at_byte, what };
    // Blocks before a damaged block header still decode: damage costs the rest of the
    // section, not all of it.
    let (layout, invalid) = match format::frame_layout_before_damage(data) {
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
    // Where the damaged block header is: the decode stops there, whole records kept.
    let stop = invalid.map(|what| {
        let at = layout
            .block_ends
            .last()
            .copied()
            .unwrap_or(layout.header_len);
        let at_byte = base + at as u64;
        damaged(
            at_byte,
            format!("damaged at byte {at_byte}: not valid zstd ({what})"),
        )
    });
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
        count: 0,
        samples: 0,
        bytes: 0,
        limit,
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
            if records.full() {
                read.end = FrameEnd::Limit;
                return read;
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
    if let Some(stop) = stop {
        read.end = stop;
        return read;
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
        use chrono::Utc;
        let m = Marker {
            frame_no: 0,
            first_record: 0,
            first_at: Utc::now(),
        };
        assert_eq!(format::encode_marker(&m).len(), SKIPPABLE_HEAD + MARKER_LEN);
        assert_eq!(TRAILER_LEN, 32);
    }
}
