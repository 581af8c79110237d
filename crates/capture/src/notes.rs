//! Bookmarks added to a finished capture (a replay's `a`): the note frame goes where the
//! trailer was and the trailer is written again after it, in one positioned write, so the
//! file still ends with its end mark and every reader of format 2 replays it (an older one
//! steps over the note). A file without a trailer is refused: a writer may still be
//! appending to it.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::format::{self, Note, SKIPPABLE_HEAD, SKIPPABLE_MAGIC, TRAILER_LEN};
use super::{CaptureError, shown};

/// Stores `note` in the finished capture at `path`.
pub fn append_note(path: &Path, note: &Note) -> Result<(), CaptureError> {
    let io = |action, at_byte, source| CaptureError::Io {
        path: shown(path),
        action,
        at_byte,
        source,
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| io("opening the capture to add a note", 0, e))?;
    let len = file
        .metadata()
        .map_err(|e| io("looking at the capture", 0, e))?
        .len();
    let mut head = vec![0u8; SKIPPABLE_HEAD + format::HEADER_FIXED];
    file.read_exact_at(&mut head, 0)
        .map_err(|e| io("reading the header", 0, e))?;
    if format::le_u32(&head, 0) != Some(SKIPPABLE_MAGIC)
        || &head[SKIPPABLE_HEAD..SKIPPABLE_HEAD + 8] != format::FILE_MAGIC
    {
        return Err(CaptureError::Foreign {
            path: shown(path),
            found: "something else".into(),
        });
    }
    let tail_len = (SKIPPABLE_HEAD + TRAILER_LEN) as u64;
    let at = len.checked_sub(tail_len).ok_or_else(|| unfinished(path))?;
    let mut tail = vec![0u8; tail_len as usize];
    file.read_exact_at(&mut tail, at)
        .map_err(|e| io("reading the end mark", at, e))?;
    let trailer_ok = format::le_u32(&tail, 0) == Some(SKIPPABLE_MAGIC)
        && format::le_u32(&tail, 4) == Some(TRAILER_LEN as u32)
        && format::decode_trailer(&tail[SKIPPABLE_HEAD..]).is_some();
    if !trailer_ok {
        return Err(unfinished(path));
    }
    let mut bytes = format::encode_note(note).map_err(|e| CaptureError::Encode {
        path: shown(path),
        record: 0,
        what: format!("note: {e}"),
    })?;
    bytes.extend_from_slice(&tail);
    file.write_all_at(&bytes, at)
        .and_then(|()| file.sync_data())
        .map_err(|e| io("writing the note", at, e))
}

fn unfinished(path: &Path) -> CaptureError {
    CaptureError::Unfinished { path: shown(path) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CaptureWriter, Header};
    use chrono::{DateTime, Utc};
    use innodebt_server::sample::{Sample, SourceEvent};

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + s, 0).unwrap()
    }

    fn sample(s: i64) -> SourceEvent {
        SourceEvent::Sample(Box::new(Sample::new(t(s), s as f64)))
    }

    /// What an innodebt before notes does with such a file: its scan steps over tagged frames
    /// it does not know. Simulated by renaming the note tag to one no build knows.
    #[test]
    fn a_reader_that_knows_no_notes_replays_the_file_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.idbt");
        let mut w = CaptureWriter::create(&path, &Header::new(t(0), None, false)).unwrap();
        for s in 0..6 {
            w.append(&sample(s)).unwrap();
            if s == 2 {
                w.add_note(&Note::new(t(2), "x")).unwrap();
            }
        }
        w.finish().unwrap();
        append_note(&path, &Note::new(t(5), "y")).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let mut renamed = 0;
        for i in 0..bytes.len() - 4 {
            if &bytes[i..i + 4] == format::NOTE_TAG {
                bytes[i..i + 4].copy_from_slice(b"IDBQ");
                renamed += 1;
            }
        }
        assert_eq!(renamed, 2);
        let cap = crate::reader::from_bytes(&bytes, &path).unwrap();
        assert!(cap.end.is_complete(), "{:?}", cap.end);
        assert!(cap.notes.is_empty());
        assert_eq!(cap.events.len(), 6);
    }
}
