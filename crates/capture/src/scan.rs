//! Finding a capture's sections without decompressing them. A version 2 file is indexed from
//! its end: the last section summary, then each summary's pointer to the previous one (two
//! small reads per section). Anything the summaries do not cover — a format 1 file, the open
//! section of a file still being written, a stretch whose summaries are damaged — is walked
//! front to back: marker, then the zstd frame's block headers, then the next marker; damage is
//! stepped over by finding the next marker by its magic.

use chrono::{DateTime, Utc};

use super::format::{
    self, FrameLayout, INITIAL_TAG, LayoutError, MARKER_LEN, MARKER_TAG, MAX_SKIPPABLE, NOTE_TAG,
    Note, SKIPPABLE_HEAD, SKIPPABLE_MAGIC, STATE_TAG, SUMMARY_TAG, TRAILER_TAG, Trailer,
};
use std::sync::Arc;

use super::bytes::ScanWindow;
use super::format::SummaryLinks;

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

/// One section as found by the scan.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameInfo {
    pub frame_no: u32,
    /// Where the section's marker starts.
    pub offset: u64,
    /// Where its zstd frame starts.
    pub data_offset: u64,
    /// Where the zstd frame ends (the next frame starts; or where the file ended at the last
    /// scan).
    pub end: u64,
    /// Index (from 0) of its first record in the whole capture.
    pub first_record: u64,
    pub first_at: DateTime<Utc>,
    /// The zstd frame was ended (false for the section a writer is still filling).
    pub complete: bool,
    /// What is wrong with the section's bytes, if the scan could tell.
    pub damage: Option<String>,
    /// Where its state frame is (offset, length), when it has one (format 2).
    pub state_at: Option<(u64, u64)>,
    /// Its summary's JSON, when it has one (format 2; read by `replay`).
    pub summary: Option<Arc<[u8]>>,
}

/// Bytes between sections that are not a section: damage the scan stepped over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    pub at_byte: u64,
    /// Where the next intact section starts.
    pub resumes_at: u64,
    pub what: String,
}

pub struct Scan {
    pub frames: Vec<FrameInfo>,
    pub gaps: Vec<Gap>,
    pub trailer: Option<Trailer>,
    pub end: End,
    /// The readable part ends at damage (not where a writer stopped): what follows is lost.
    pub end_damaged: bool,
    /// The initial-state frame (offset, length) of a file continuing a rotation.
    pub initial_at: Option<(u64, u64)>,
    /// Bookmarks found between sections, in file order.
    pub notes: Vec<Note>,
}

enum Skippable {
    /// The input ends inside it.
    Cut,
    /// Not a skippable frame of ours (or an impossible size).
    NotOurs,
    Frame {
        payload: Vec<u8>,
        next: u64,
    },
}

fn skippable_at(w: &mut ScanWindow, pos: u64) -> Skippable {
    let head = w.bytes(pos, SKIPPABLE_HEAD).to_vec();
    let magic = SKIPPABLE_MAGIC.to_le_bytes();
    let n = head.len().min(4);
    if head[..n] != magic[..n] {
        return Skippable::NotOurs;
    }
    let Some(size) = format::le_u32(&head, 4) else {
        return Skippable::Cut;
    };
    let size = size as usize;
    if size > MAX_SKIPPABLE {
        return Skippable::NotOurs;
    }
    let payload = w.bytes(pos + SKIPPABLE_HEAD as u64, size).to_vec();
    if payload.len() < size {
        return Skippable::Cut;
    }
    Skippable::Frame {
        payload,
        next: pos + (SKIPPABLE_HEAD + size) as u64,
    }
}

/// Where the next intact marker starts at or after `from` (by its magic, size, tag and CRC).
fn find_marker(w: &mut ScanWindow, from: u64) -> Option<u64> {
    let mut pattern = Vec::with_capacity(12);
    pattern.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    pattern.extend_from_slice(&(MARKER_LEN as u32).to_le_bytes());
    pattern.extend_from_slice(MARKER_TAG);
    w.find(from, &pattern, |w, hit| {
        let p = w.bytes(hit + SKIPPABLE_HEAD as u64, MARKER_LEN).to_vec();
        format::decode_marker(&p).is_some()
    })
}

/// Walks a zstd frame's header and block headers from `at` (see [`format::frame_layout`]),
/// offsets relative to `at`.
fn frame_layout(w: &mut ScanWindow, at: u64) -> Result<FrameLayout, LayoutError> {
    // The longest frame header: magic, descriptor, window, dictionary id, content size.
    let head = w.bytes(at, 18).to_vec();
    let first = format::frame_layout(&head)?;
    let mut layout = FrameLayout {
        header_len: first.header_len,
        block_ends: Vec::new(),
        complete_len: None,
    };
    if head.len() < first.header_len {
        return Ok(layout);
    }
    let checksum = head.get(4).is_some_and(|fhd| (fhd >> 2) & 1 == 1);
    let mut pos = first.header_len as u64;
    loop {
        let h = w.bytes(at + pos, 3).to_vec();
        if h.len() < 3 {
            return Ok(layout);
        }
        let h = u32::from(h[0]) | (u32::from(h[1]) << 8) | (u32::from(h[2]) << 16);
        let last = h & 1 == 1;
        let size = u64::from(h >> 3);
        let content = match (h >> 1) & 3 {
            0 | 2 => size,
            1 => 1,
            _ => return Err(LayoutError::Invalid("reserved block type")),
        };
        pos = pos.saturating_add(3).saturating_add(content);
        if at.saturating_add(pos) > w.end() {
            return Ok(layout);
        }
        layout
            .block_ends
            .push(usize::try_from(pos).unwrap_or(usize::MAX));
        if last {
            let end = pos + if checksum { 4 } else { 0 };
            if at.saturating_add(end) <= w.end() {
                layout.complete_len = Some(usize::try_from(end).unwrap_or(usize::MAX));
            }
            return Ok(layout);
        }
    }
}

/// Where the end mark starts when an intact one ends the file. A finished file's damage can
/// hide the sections' ends from the scan; the end mark still says the writer finished, how
/// many records it wrote and when, so the damage is bounded rather than read as a writer
/// that stopped.
fn end_mark(w: &mut ScanWindow) -> Option<u64> {
    let at = w
        .end()
        .checked_sub((SKIPPABLE_HEAD + format::TRAILER_LEN) as u64)?;
    match skippable_at(w, at) {
        Skippable::Frame { payload, next } if next == w.end() => {
            format::decode_trailer(&payload).map(|_| at)
        }
        _ => None,
    }
}

/// Damage at `pos`: skip to the next intact section marker, or the end mark (recording the
/// gap), or, when neither follows, end the capture there.
fn resync(
    w: &mut ScanWindow,
    pos: u64,
    name: &str,
    gaps: &mut Vec<Gap>,
    what: &str,
    mark: Option<u64>,
) -> Result<u64, End> {
    match find_marker(w, pos + 1).or(mark.filter(|m| *m > pos)) {
        Some(n) => {
            gaps.push(Gap {
                at_byte: pos,
                resumes_at: n,
                what: format!("damaged at byte {pos}: {what}"),
            });
            Ok(n)
        }
        None => Err(End::Truncated {
            at_byte: pos,
            reason: format!("{name}: damaged at byte {pos}: {what}; no intact section follows"),
        }),
    }
}

/// Walks from `from` to the end of the window, or until `stop` (the first section an
/// index from the end already holds).
pub fn forward(w: &mut ScanWindow, from: u64, stop: Option<u64>, name: &str) -> Scan {
    let mut frames: Vec<FrameInfo> = Vec::new();
    let mut gaps: Vec<Gap> = Vec::new();
    let mut trailer = None;
    let mut initial_at = None;
    let mut notes = Vec::new();
    let mut pos = from;
    let len = w.end();
    // Only a scan to the end of the file may resume at its end mark.
    let mark = if stop.is_none() { end_mark(w) } else { None };
    let mut end_damaged = false;
    let end = loop {
        if stop.is_some_and(|s| pos >= s) {
            break End::Complete;
        }
        if pos >= len {
            break match trailer {
                Some(_) => End::Complete,
                None => End::Truncated {
                    at_byte: len,
                    reason: format!(
                        "{name}: no end mark after byte {len}: the writer did not finish (it is still recording, or was stopped by a crash, a kill or a full disk); every complete event before it was read"
                    ),
                },
            };
        }
        if trailer.is_some() {
            break End::Truncated {
                at_byte: pos,
                reason: format!(
                    "{name}: unexpected bytes after the end mark at byte {pos}: ignored (the file was appended to by something else)"
                ),
            };
        }
        let damage = match skippable_at(w, pos) {
            // A frame running past an intact end mark is damage, not a writer cut short.
            Skippable::Cut if mark.is_some_and(|m| m > pos) => {
                Err("a frame runs past the end mark")
            }
            Skippable::Cut => {
                break End::Truncated {
                    at_byte: pos,
                    reason: format!(
                        "{name}: the file ends at byte {len} inside a section marker (the writer was stopped mid-write, or is still recording)"
                    ),
                };
            }
            Skippable::NotOurs => Err("no section marker where one should start"),
            Skippable::Frame { payload, next } => Ok((payload, next)),
        };
        let (payload, next) = match damage {
            Err(what) => match resync(w, pos, name, &mut gaps, what, mark) {
                Ok(n) => {
                    pos = n;
                    continue;
                }
                Err(end) => {
                    end_damaged = true;
                    break end;
                }
            },
            Ok(frame) => frame,
        };
        if let Some(t) = format::decode_trailer(&payload) {
            trailer = Some(t);
            pos = next;
            continue;
        }
        let frame_len = next - pos;
        if let Some((n, json)) = format::decode_summary(&payload) {
            if let Some(f) = frames.last_mut().filter(|f| f.frame_no == n) {
                f.summary = Some(Arc::from(json));
            }
            pos = next;
            continue;
        }
        if let Some((n, _)) = format::decode_tagged(&payload, STATE_TAG) {
            if let Some(f) = frames.last_mut().filter(|f| f.frame_no == n) {
                f.state_at = Some((pos, frame_len));
            }
            pos = next;
            continue;
        }
        if format::decode_tagged(&payload, INITIAL_TAG).is_some() {
            if frames.is_empty() {
                initial_at = Some((pos, frame_len));
            }
            pos = next;
            continue;
        }
        if let Some(note) = format::decode_note(&payload) {
            notes.push(note);
            pos = next;
            continue;
        }
        let Some(marker) = format::decode_marker(&payload) else {
            let ours = [
                MARKER_TAG,
                TRAILER_TAG,
                STATE_TAG,
                SUMMARY_TAG,
                INITIAL_TAG,
                NOTE_TAG,
            ]
            .iter()
            .any(|t| payload.starts_with(*t));
            if ours {
                // Ours but its checksum fails.
                match resync(
                    w,
                    pos,
                    name,
                    &mut gaps,
                    "a section frame fails its checksum",
                    mark,
                ) {
                    Ok(n) => {
                        pos = n;
                        continue;
                    }
                    Err(end) => {
                        end_damaged = true;
                        break end;
                    }
                }
            }
            // An extension from a later minor version: step over it.
            pos = next;
            continue;
        };
        let mut info = FrameInfo {
            frame_no: marker.frame_no,
            offset: pos,
            data_offset: next,
            end: len,
            first_record: marker.first_record,
            first_at: marker.first_at,
            complete: false,
            damage: None,
            state_at: None,
            summary: None,
        };
        let layout = frame_layout(w, next);
        if let Ok(l) = &layout
            && let Some(flen) = l.complete_len
        {
            let after = next + flen as u64;
            let rest = w.bytes(after, 4).to_vec();
            let magic = SKIPPABLE_MAGIC.to_le_bytes();
            if rest[..] == magic[..rest.len()] {
                info.complete = true;
                info.end = after;
                frames.push(info);
                pos = after;
                continue;
            }
        }
        // The frame runs to the end of the file (still being written, or cut), or its
        // block headers are damaged: a later marker, or the end mark, tells the two apart.
        match find_marker(w, next).or(mark.filter(|m| *m > next)) {
            Some(n) => {
                let follows = if Some(n) == mark {
                    "the end mark"
                } else {
                    "the next section"
                };
                info.end = n;
                info.damage = Some(match layout {
                    Err(LayoutError::Invalid(what)) => format!(
                        "damaged after byte {next}: the compressed data is not valid zstd ({what})"
                    ),
                    _ => format!(
                        "damaged after byte {next}: the compressed data does not end where {follows} starts (byte {n})"
                    ),
                });
                frames.push(info);
                pos = n;
            }
            None => {
                if let Ok(FrameLayout {
                    complete_len: Some(flen),
                    ..
                }) = layout
                {
                    // A whole frame, then bytes that are no section.
                    let after = next + flen as u64;
                    info.complete = true;
                    info.end = after;
                    frames.push(info);
                    end_damaged = true;
                    break End::Truncated {
                        at_byte: after,
                        reason: format!(
                            "{name}: damaged at byte {after}: expected a section marker; no intact section follows"
                        ),
                    };
                }
                let damaged = layout.is_err();
                if damaged {
                    info.damage = Some(format!(
                        "damaged after byte {next}: the compressed data is not valid zstd"
                    ));
                }
                frames.push(info);
                end_damaged = damaged;
                break End::Truncated {
                    at_byte: len,
                    reason: if damaged {
                        format!("{name}: the last section (from byte {pos}) is damaged")
                    } else {
                        format!(
                            "{name}: the last section (from byte {pos}) is still open: the writer did not finish (it is still recording, or was stopped)"
                        )
                    },
                };
            }
        }
    };
    if let Some(e) = w.error.take() {
        return Scan {
            frames,
            gaps,
            trailer,
            end: End::Truncated {
                at_byte: pos,
                reason: format!("{name}: reading failed at byte {pos}: {e}"),
            },
            end_damaged: false,
            initial_at,
            notes,
        };
    }
    Scan {
        frames,
        gaps,
        trailer,
        end,
        end_damaged,
        initial_at,
        notes,
    }
}

/// The notes among the skippable frames in `from..to` (what lies between two sections).
fn notes_between(w: &mut ScanWindow, mut from: u64, to: u64, out: &mut Vec<Note>) {
    while from < to {
        let Skippable::Frame { payload, next } = skippable_at(w, from) else {
            return;
        };
        if let Some(n) = format::decode_note(&payload) {
            out.push(n);
        }
        from = next;
    }
}

/// A summary frame as the index keeps it: its links and its JSON.
type Found = (SummaryLinks, Arc<[u8]>);

/// The summary frame starting at `at` and its length, if intact.
fn summary_at(w: &mut ScanWindow, at: u64) -> Option<(Found, u64)> {
    let Skippable::Frame { payload, next } = skippable_at(w, at) else {
        return None;
    };
    let (_, json) = format::decode_summary(&payload)?;
    let links = serde_json::from_slice(json).ok()?;
    Some(((links, Arc::from(json)), next - at))
}

/// The last intact summary frame ending at or before `end` (searched backwards by its tag).
fn last_summary(w: &mut ScanWindow, body: u64, end: u64) -> Option<(u64, u64, Found)> {
    // It is usually within the last few kilobytes (only the trailer follows): look there
    // first, then further back in growing steps, so opening a small file reads little of it.
    let mut back: u64 = 64 << 10;
    let head = SKIPPABLE_HEAD as u64;
    let mut hi = end;
    loop {
        let lo = hi.saturating_sub(back).max(body);
        back = (back * 2).min(1 << 20);
        let chunk = w.bytes(lo, (hi - lo) as usize).to_vec();
        let mut i = chunk.len();
        while let Some(p) = chunk[..i].windows(4).rposition(|t| t == SUMMARY_TAG) {
            let tag_at = lo + p as u64;
            if tag_at >= body + head
                && let Some((s, flen)) = summary_at(w, tag_at - head)
                && tag_at - head + flen <= end
            {
                return Some((tag_at - head, flen, s));
            }
            // Look again before this one.
            i = p + 3;
            if i < 4 {
                break;
            }
        }
        if lo == body {
            return None;
        }
        // Overlap so a tag across the chunk edge is seen.
        hi = lo + 3;
    }
}

/// What walking the summaries back from the end found.
pub struct Chain {
    /// The sections, in file order.
    pub frames: Vec<FrameInfo>,
    /// The first chained section's marker: what lies before it (an initial state, sections
    /// whose summaries are damaged) is the caller's to scan.
    pub stop: u64,
    /// Where the last summary ends: what follows is the caller's to scan.
    pub tail_from: u64,
    /// Bookmarks between the chained sections.
    pub notes: Vec<Note>,
}

/// Sections found by walking the summaries back from the end. A broken link stops the walk;
/// the caller scans what lies before and after.
pub fn backward(w: &mut ScanWindow, body: u64) -> Option<Chain> {
    let (at, flen, last) = last_summary(w, body, w.end())?;
    // Summaries are small and far apart: read just around each.
    let chunk = std::mem::replace(&mut w.chunk, ScanWindow::HOP);
    let found = walk_back(w, at, flen, last);
    // A section's summary is normally followed by the next marker; anything between is a
    // note (or an extension of a later version).
    let mut notes = Vec::new();
    for pair in found.windows(2) {
        let ((_, summary_end), (next, _)) = (&pair[0], &pair[1]);
        if *summary_end < next.offset {
            notes_between(w, *summary_end, next.offset, &mut notes);
        }
    }
    w.chunk = chunk;
    let stop = found.first().map(|f| f.0.offset)?;
    Some(Chain {
        frames: found.into_iter().map(|(f, _)| f).collect(),
        stop,
        tail_from: at + flen,
        notes,
    })
}

/// The chain of summaries from the one at `at` (`flen` bytes) back, in file order, each
/// section with where its summary ends.
fn walk_back(
    w: &mut ScanWindow,
    mut at: u64,
    mut flen: u64,
    (mut s, mut json): Found,
) -> Vec<(FrameInfo, u64)> {
    let mut found = Vec::new();
    loop {
        let marker = w
            .bytes(s.marker_at + SKIPPABLE_HEAD as u64, MARKER_LEN)
            .to_vec();
        let Some(m) = format::decode_marker(&marker).filter(|m| m.frame_no == s.frame_no) else {
            break;
        };
        let data = s.marker_at + (SKIPPABLE_HEAD + MARKER_LEN) as u64;
        let end = s.state_at.map_or(at, |(o, _)| o);
        if end < data {
            break;
        }
        let prev = s.prev_summary_at;
        found.push((
            FrameInfo {
                frame_no: m.frame_no,
                offset: s.marker_at,
                data_offset: data,
                end,
                first_record: m.first_record,
                first_at: m.first_at,
                complete: true,
                damage: None,
                state_at: s.state_at,
                summary: Some(json),
            },
            at + flen,
        ));
        match prev {
            Some(p) if p < at => match summary_at(w, p) {
                Some(((ps, pj), plen)) => {
                    at = p;
                    flen = plen;
                    s = ps;
                    json = pj;
                }
                None => break,
            },
            _ => break,
        }
    }
    found.reverse();
    found
}
