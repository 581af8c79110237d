//! The capture file format (version 2; version 1 is still read): what the bytes are, and the
//! pieces both the writer and the reader agree on. Nothing here does I/O.
//!
//! A capture is a sequence of standard zstd frames, so `zstd -dc file` still prints every
//! record; innodebt's own bookkeeping lives in zstd *skippable* frames, which any zstd
//! decoder ignores.
//!
//! ```text
//! file    := header [initial] section*  [trailer]
//! header  := skippable frame { "INNODEBT" u16 version  u16 flags  u32 crc32(json)  json(Header) }
//! initial := skippable frame { "IDBI" u32 0  u32 crc32(body)  body }                (version 2)
//! section := marker zstd-frame [state summary]
//! marker  := skippable frame { "IDBF" u32 frame_no  u64 first_record  i64 first_at_µs  u32 crc32 }
//! state   := skippable frame { "IDBC" u32 frame_no  u32 crc32(body)  body }        (version 2)
//! summary := skippable frame { "IDBS" u32 frame_no  u32 crc32(json)  json(SectionSummary)  u32 frame_len }
//! trailer := skippable frame { "IDBZ" u64 records  u64 dropped  i64 finished_at_µs  u32 crc32 }
//! note    := skippable frame { "IDBN" u32 0  u32 crc32(json)  json(Note) }        (between sections)
//! skippable frame := u32 0x184D2A5D  u32 size  [size bytes]          (all integers little-endian)
//! zstd-frame decompresses to  record*
//! record  := u32 len  u32 crc32(payload)  payload = json(SourceEvent)
//! body    := zstd frame of { u32 json_len  json(checkpoint)  rows }
//! ```
//!
//! Why it is shaped like this:
//! - **Append-safe.** The writer flushes the zstd stream after every record, so each record
//!   ends on a zstd block boundary and is in the file as soon as `append` returns (and on the
//!   disk within `WriterOptions::sync_every`); a writer or machine that dies leaves a valid
//!   prefix plus at most one partial block, which the reader reports as `End::Truncated`
//!   after replaying every complete record.
//! - **Small.** One zstd stream per section keeps the compression context across records, so
//!   the repeated JSON keys and slowly moving numbers of consecutive samples cost a few bytes
//!   each. At the default level 9: ~140 B per sample (≈0.5 MB per hour at 1 s) polling a real
//!   MariaDB 10.11 under write load; ~240 B (0.86 MB per hour) for the noisier synthetic
//!   samples `tests/it/capture.rs` measures. Flushing per record costs ~20 % over one long stream.
//! - **Seekable and damage-bounded.** A section (zstd frame) ends every [`FRAME_RECORDS`]
//!   records. Its marker says which record and which time it starts with, and a damaged byte
//!   costs at most the rest of its section: the next marker is found by its magic.
//! - **Replayable in bounded memory** (version 2). After each section the writer stores what
//!   derivation knew at its end (the *state*: the deriver, the verdict engine, the moment
//!   scanner) and one row of chart values per sample, then a small *summary* (sample count,
//!   times, severities, notable moments) that points back to the previous summary. A reader
//!   walks the summaries from the end to index a week in milliseconds, and rebuilds the screen
//!   at any moment from one state, a few sections of rows and one decoded section. The
//!   optional *initial* state carries derivation over from the previous file of a rotation.
//! - **Notes travel without a new version.** A bookmark (`a` in the dashboard) is a *note*
//!   frame between sections: the live writer ends the open section to write one at once, and
//!   a finished file takes one just before its trailer (the trailer is written again after
//!   it). Every reader of format 2 steps over tagged frames it does not know (the scan's
//!   "extension" rule), so an older innodebt replays such a file as before, only without its
//!   notes; this one lists them.
//! - **Self-checking.** Every record, marker, state and summary carries a CRC-32; the header
//!   carries the format version and the trailer (written by a clean `finish`) the count of
//!   events the writer had to drop. No trailer means the writer did not finish.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use innodebt_server::sample::{ServerInfo, SourceEvent};

/// The format version this build writes and the newest it reads.
pub const FORMAT_VERSION: u16 = 2;
/// The zstd skippable-frame magic innodebt uses (any of 0x184D2A50..=0x184D2A5F is skippable).
pub const SKIPPABLE_MAGIC: u32 = 0x184D_2A5D;
/// A standard zstd frame starts with this.
pub const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// First bytes of the header payload.
pub const FILE_MAGIC: &[u8; 8] = b"INNODEBT";
pub const MARKER_TAG: &[u8; 4] = b"IDBF";
pub const TRAILER_TAG: &[u8; 4] = b"IDBZ";
pub const STATE_TAG: &[u8; 4] = b"IDBC";
pub const SUMMARY_TAG: &[u8; 4] = b"IDBS";
pub const INITIAL_TAG: &[u8; 4] = b"IDBI";
pub const NOTE_TAG: &[u8; 4] = b"IDBN";
/// A note longer than this is cut (a bookmark is a line, not a document).
pub const MAX_NOTE_CHARS: usize = 500;
/// Records per zstd frame (10 minutes at 1 s).
pub const FRAME_RECORDS: u32 = 600;
/// The writer never puts more records in a section; a section holding more is damage or
/// forged, and the reader stops decoding it there (a hand-made section of millions of copies
/// of one record cannot make a replay hold millions of events).
pub const MAX_SECTION_RECORDS: u32 = 3_600;
/// The writer ends a section once its decoded records pass this many bytes.
pub const SECTION_BYTES: usize = 16 << 20;
/// A section decoding to more than this is not one the writer made (see [`SECTION_BYTES`]
/// and [`MAX_RECORD_LEN`]).
pub const MAX_SECTION_BYTES: usize = 48 << 20;
/// No record innodebt writes comes near this; a bigger length is damage.
pub const MAX_RECORD_LEN: u32 = 16 << 20;
/// Skippable frames of ours larger than this are damage, not a state however big.
pub const MAX_SKIPPABLE: usize = 64 << 20;
/// The header is a few KB; a bigger one is damage.
pub const MAX_HEADER_LEN: u32 = 4 << 20;
/// Record framing: `u32 len`, `u32 crc`.
pub const RECORD_PREFIX: usize = 8;
/// Skippable frame head: magic and size.
pub const SKIPPABLE_HEAD: usize = 8;
/// Marker payload: tag, frame number, first record, first time, crc.
pub const MARKER_LEN: usize = 4 + 4 + 8 + 8 + 4;
/// Trailer payload: tag, records, dropped, finished time, crc.
pub const TRAILER_LEN: usize = 4 + 8 + 8 + 8 + 4;
/// Fixed part of the header payload before the JSON: magic, version, flags, crc.
pub const HEADER_FIXED: usize = 8 + 2 + 2 + 4;

/// What a capture says about itself, written once at the start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The innodebt version that wrote the file.
    pub tool_version: String,
    /// When recording started.
    pub started_at: DateTime<Utc>,
    /// The server as first seen (`None` when recording began before the first connection).
    #[serde(default)]
    pub server: Option<ServerInfo>,
    /// Whether query texts were kept verbatim (otherwise reduced to digests). Passwords are
    /// never kept either way.
    #[serde(default)]
    pub keep_queries: bool,
    /// The poll interval when recording started, in milliseconds.
    #[serde(default)]
    pub interval_ms: Option<u64>,
    /// Where the events come from: `live`, `pt-stalk PREFIX`, ...
    #[serde(default)]
    pub origin: String,
    /// Anything a reader should know about how the events were made (an import's gaps, ...).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Header {
    /// A header for a live recording, stamped with this build's version.
    pub fn new(started_at: DateTime<Utc>, server: Option<ServerInfo>, keep_queries: bool) -> Self {
        Header {
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at,
            server,
            keep_queries,
            interval_ms: None,
            origin: "live".to_string(),
            notes: Vec::new(),
        }
    }
}

/// What a cleanly finished file says at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    pub records: u64,
    /// Events the writer had to drop because the disk could not keep up.
    pub dropped: u64,
    pub finished_at: DateTime<Utc>,
}

/// The start of a section, as written in its marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    pub frame_no: u32,
    /// Index (from 0) of the section's first record in the whole file.
    pub first_record: u64,
    pub first_at: DateTime<Utc>,
}

/// A bookmark: a DBA's words at a moment ("deploy 4.2 started").
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Note {
    pub at: DateTime<Utc>,
    pub text: String,
}

impl Note {
    /// A note with its text trimmed, one line, at most [`MAX_NOTE_CHARS`].
    pub fn new(at: DateTime<Utc>, text: &str) -> Note {
        let line: String = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(MAX_NOTE_CHARS)
            .collect();
        Note { at, text: line }
    }
}

/// A note frame's bytes.
pub fn encode_note(note: &Note) -> Result<Vec<u8>, serde_json::Error> {
    Ok(encode_tagged(NOTE_TAG, 0, &serde_json::to_vec(note)?))
}

/// A note frame's payload back, if it is one, its CRC holds and its JSON reads.
pub fn decode_note(p: &[u8]) -> Option<Note> {
    let (_, body) = decode_tagged(p, NOTE_TAG)?;
    serde_json::from_slice(body).ok()
}

/// The time an event happened (what seeking by time uses).
pub fn event_time(event: &SourceEvent) -> DateTime<Utc> {
    match event {
        SourceEvent::Connected { at, .. } | SourceEvent::Variables { at, .. } => *at,
        SourceEvent::Sample(s) => s.taken_at,
        SourceEvent::Disconnected { since, .. } => *since,
        SourceEvent::Audit(a) => a.at,
    }
}

pub fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

/// Microseconds since the epoch back to a time; out-of-range values (damage) are refused.
pub fn from_micros(us: i64) -> Option<DateTime<Utc>> {
    DateTime::<Utc>::from_timestamp_micros(us)
}

fn skippable(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SKIPPABLE_HEAD + payload.len());
    out.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    // Payloads are bounded by MAX_HEADER_LEN or fixed sizes, far below u32::MAX.
    out.extend_from_slice(
        &u32::try_from(payload.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(payload);
    out
}

/// The header frame's bytes.
pub fn encode_header(header: &Header) -> Result<Vec<u8>, serde_json::Error> {
    let json = serde_json::to_vec(header)?;
    let mut payload = Vec::with_capacity(HEADER_FIXED + json.len());
    payload.extend_from_slice(FILE_MAGIC);
    payload.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    payload.extend_from_slice(&0u16.to_le_bytes());
    payload.extend_from_slice(&crc32fast::hash(&json).to_le_bytes());
    payload.extend_from_slice(&json);
    Ok(skippable(&payload))
}

pub fn encode_marker(m: &Marker) -> Vec<u8> {
    let mut p = Vec::with_capacity(MARKER_LEN);
    p.extend_from_slice(MARKER_TAG);
    p.extend_from_slice(&m.frame_no.to_le_bytes());
    p.extend_from_slice(&m.first_record.to_le_bytes());
    p.extend_from_slice(&micros(m.first_at).to_le_bytes());
    let crc = crc32fast::hash(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    skippable(&p)
}

pub fn encode_trailer(t: &Trailer) -> Vec<u8> {
    let mut p = Vec::with_capacity(TRAILER_LEN);
    p.extend_from_slice(TRAILER_TAG);
    p.extend_from_slice(&t.records.to_le_bytes());
    p.extend_from_slice(&t.dropped.to_le_bytes());
    p.extend_from_slice(&micros(t.finished_at).to_le_bytes());
    let crc = crc32fast::hash(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    skippable(&p)
}

/// One record's bytes inside the decompressed stream.
pub fn encode_record(event: &SourceEvent) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = vec![0u8; RECORD_PREFIX];
    serde_json::to_writer(&mut out, event)?;
    let len = out.len() - RECORD_PREFIX;
    let crc = crc32fast::hash(&out[RECORD_PREFIX..]);
    out[0..4].copy_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
    out[4..8].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

pub fn le_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

pub fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

pub fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

pub fn le_i64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// A marker payload (after the skippable head), if it is one and its CRC holds.
pub fn decode_marker(p: &[u8]) -> Option<Marker> {
    if p.len() != MARKER_LEN || &p[0..4] != MARKER_TAG {
        return None;
    }
    let crc = le_u32(p, MARKER_LEN - 4)?;
    if crc32fast::hash(&p[..MARKER_LEN - 4]) != crc {
        return None;
    }
    Some(Marker {
        frame_no: le_u32(p, 4)?,
        first_record: le_u64(p, 8)?,
        first_at: from_micros(le_i64(p, 16)?)?,
    })
}

/// A trailer payload, if it is one and its CRC holds.
pub fn decode_trailer(p: &[u8]) -> Option<Trailer> {
    if p.len() != TRAILER_LEN || &p[0..4] != TRAILER_TAG {
        return None;
    }
    let crc = le_u32(p, TRAILER_LEN - 4)?;
    if crc32fast::hash(&p[..TRAILER_LEN - 4]) != crc {
        return None;
    }
    Some(Trailer {
        records: le_u64(p, 4)?,
        dropped: le_u64(p, 12)?,
        finished_at: from_micros(le_i64(p, 20)?)?,
    })
}

/// The fields of a section summary the index needs to walk from summary to summary (the rest
/// of the summary is the replay's business).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryLinks {
    pub frame_no: u32,
    /// Where the section's marker starts.
    pub marker_at: u64,
    /// Where the previous section's summary frame starts.
    pub prev_summary_at: Option<u64>,
    /// Where the section's state frame starts, and its length.
    pub state_at: Option<(u64, u64)>,
}

/// A tagged frame (state, summary, initial state): the tag, a number (the section's, or 0),
/// a CRC-32 of the body, the body.
pub fn encode_tagged(tag: &[u8; 4], frame_no: u32, body: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(12 + body.len());
    p.extend_from_slice(tag);
    p.extend_from_slice(&frame_no.to_le_bytes());
    p.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    p.extend_from_slice(body);
    skippable(&p)
}

/// A summary frame: a tagged frame whose payload ends with the whole frame's length, so a
/// reader can find the summary's start from its end.
pub fn encode_summary(frame_no: u32, json: &[u8]) -> Vec<u8> {
    let mut body = json.to_vec();
    let total = SKIPPABLE_HEAD + 12 + json.len() + 4;
    body.extend_from_slice(&u32::try_from(total).unwrap_or(u32::MAX).to_le_bytes());
    encode_tagged(SUMMARY_TAG, frame_no, &body)
}

/// A tagged frame's number and body, if `p` (a skippable payload) is one with this tag and
/// its CRC holds.
pub fn decode_tagged<'a>(p: &'a [u8], tag: &[u8; 4]) -> Option<(u32, &'a [u8])> {
    if p.get(0..4)? != tag {
        return None;
    }
    let frame_no = le_u32(p, 4)?;
    let crc = le_u32(p, 8)?;
    let body = &p[12..];
    (crc32fast::hash(body) == crc).then_some((frame_no, body))
}

/// A summary frame's number and JSON (without the length at its end).
pub fn decode_summary(p: &[u8]) -> Option<(u32, &[u8])> {
    let (n, body) = decode_tagged(p, SUMMARY_TAG)?;
    let json = body.get(..body.len().checked_sub(4)?)?;
    Some((n, json))
}

/// Where a zstd frame's pieces are, found by reading its headers only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameLayout {
    /// Bytes of the frame header (magic included), i.e. where the first block starts.
    pub header_len: usize,
    /// End offset (relative to the frame start) of each block, in order.
    pub block_ends: Vec<usize>,
    /// Total length including the checksum, when the last block was reached.
    pub complete_len: Option<usize>,
}

/// Why a frame's layout could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// Not a zstd frame start.
    NotZstd,
    /// A reserved bit or block type is set: the bytes are not a valid frame.
    Invalid(&'static str),
}

/// Walks a zstd frame's header and block headers (RFC 8878 §3.1.1) without decompressing.
/// Stops at the end of `b` (the frame is then incomplete) or after the last block.
pub fn frame_layout(b: &[u8]) -> Result<FrameLayout, LayoutError> {
    match frame_layout_before_damage(b)? {
        (layout, None) => Ok(layout),
        (_, Some(what)) => Err(LayoutError::Invalid(what)),
    }
}

/// [`frame_layout`], keeping the blocks before a block header that is not valid (and saying
/// what is wrong with it): what a reader can still decode before damage. An invalid frame
/// header is still an error (nothing of the frame can be decoded).
pub fn frame_layout_before_damage(
    b: &[u8],
) -> Result<(FrameLayout, Option<&'static str>), LayoutError> {
    match le_u32(b, 0) {
        Some(ZSTD_MAGIC) => {}
        Some(_) => return Err(LayoutError::NotZstd),
        None => {
            // Too short to tell: a cut inside the magic still looks like a zstd start.
            let magic = ZSTD_MAGIC.to_le_bytes();
            return if magic.starts_with(b) {
                Ok((
                    FrameLayout {
                        header_len: 4 + 2,
                        block_ends: Vec::new(),
                        complete_len: None,
                    },
                    None,
                ))
            } else {
                Err(LayoutError::NotZstd)
            };
        }
    }
    let Some(&fhd) = b.get(4) else {
        return Ok((
            FrameLayout {
                header_len: 5,
                block_ends: Vec::new(),
                complete_len: None,
            },
            None,
        ));
    };
    if fhd & 0x08 != 0 {
        return Err(LayoutError::Invalid("reserved bit set in the frame header"));
    }
    let fcs_flag = fhd >> 6;
    let single_segment = (fhd >> 5) & 1 == 1;
    let checksum = (fhd >> 2) & 1 == 1;
    let dict_len = [0usize, 1, 2, 4][usize::from(fhd & 3)];
    let fcs_len = match fcs_flag {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let header_len = 5 + usize::from(!single_segment) + dict_len + fcs_len;
    let mut layout = FrameLayout {
        header_len,
        block_ends: Vec::new(),
        complete_len: None,
    };
    let mut pos = header_len;
    loop {
        let Some(h) = b.get(pos..pos + 3) else {
            return Ok((layout, None));
        };
        let h = u32::from(h[0]) | (u32::from(h[1]) << 8) | (u32::from(h[2]) << 16);
        let last = h & 1 == 1;
        let size = usize::try_from(h >> 3).unwrap_or(usize::MAX);
        let content = match (h >> 1) & 3 {
            0 | 2 => size,
            1 => 1,
            _ => return Ok((layout, Some("reserved block type"))),
        };
        pos = pos.saturating_add(3).saturating_add(content);
        if pos > b.len() {
            return Ok((layout, None));
        }
        layout.block_ends.push(pos);
        if last {
            let end = pos + if checksum { 4 } else { 0 };
            if end <= b.len() {
                layout.complete_len = Some(end);
            }
            return Ok((layout, None));
        }
    }
}

/// Where the next marker starts at or after `from`, found by its magic, size and tag and
/// checked by its CRC (used to resynchronise after damage).
pub fn find_marker(b: &[u8], from: usize) -> Option<usize> {
    let mut pattern = Vec::with_capacity(12);
    pattern.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    pattern.extend_from_slice(&(MARKER_LEN as u32).to_le_bytes());
    pattern.extend_from_slice(MARKER_TAG);
    let mut at = from;
    while at + pattern.len() <= b.len() {
        let rel = b[at..]
            .windows(pattern.len())
            .position(|w| w == pattern.as_slice())?;
        let start = at + rel;
        let payload = b.get(start + SKIPPABLE_HEAD..start + SKIPPABLE_HEAD + MARKER_LEN);
        if payload.and_then(decode_marker).is_some() {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_and_trailer_round_trip() {
        let at = from_micros(1_700_000_000_123_456).unwrap();
        let m = Marker {
            frame_no: 7,
            first_record: 4200,
            first_at: at,
        };
        let bytes = encode_marker(&m);
        assert_eq!(bytes.len(), SKIPPABLE_HEAD + MARKER_LEN);
        assert_eq!(decode_marker(&bytes[SKIPPABLE_HEAD..]), Some(m));
        assert_eq!(find_marker(&bytes, 0), Some(0));
        let mut bad = bytes.clone();
        bad[14] ^= 1;
        assert_eq!(decode_marker(&bad[SKIPPABLE_HEAD..]), None);
        let t = Trailer {
            records: 9,
            dropped: 2,
            finished_at: at,
        };
        let bytes = encode_trailer(&t);
        assert_eq!(decode_trailer(&bytes[SKIPPABLE_HEAD..]), Some(t));
    }

    #[test]
    fn layout_of_a_real_frame() {
        let data = zstd::encode_all(&b"hello hello hello hello"[..], 3).unwrap();
        let l = frame_layout(&data).unwrap();
        assert_eq!(l.complete_len, Some(data.len()));
        for cut in 0..data.len() {
            let l = frame_layout(&data[..cut]).unwrap();
            assert_eq!(l.complete_len, None, "cut {cut}");
        }
        assert_eq!(frame_layout(b"nope"), Err(LayoutError::NotZstd));
    }
}
