//! The capture reader on arbitrary bytes, both ways it is used: the whole-file reader
//! (`from_bytes`) and the index (`CaptureIndex`: section scan, any section decoded on demand,
//! `refresh` after the file grew). No panic, no hang, no huge allocation; and when the
//! whole-file reader says the file is complete, the index reads the same events.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use innodebt_capture::reader::from_bytes;
use innodebt_capture::{CaptureIndex, End};
use libfuzzer_sys::fuzz_target;

/// One scratch file per fuzzing process (the index needs a path).
fn scratch() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| innodebt_fuzz::scratch_dir().join("fuzz.idbt"))
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    let whole = from_bytes(data, path);
    if let Ok(cap) = &whole
        && let End::Truncated { at_byte, .. } = &cap.end
    {
        assert!(
            *at_byte <= data.len() as u64,
            "damage at {at_byte} past the end"
        );
    }

    // The index, on the same bytes written to a file: first half, then the rest appended
    // (a writer still recording), so `refresh` runs too.
    let half = data.len() / 2;
    if std::fs::write(path, &data[..half]).is_err() {
        return;
    }
    if let Ok(mut idx) = CaptureIndex::open(path) {
        if std::fs::write(path, data).is_err() {
            return;
        }
        let _ = idx.refresh();
        let _ = idx.frame_at(chrono::DateTime::<chrono::Utc>::MIN_UTC);
        let _ = idx.frame_of_record(u64::MAX);
    }
    let Ok(idx) = CaptureIndex::open(path) else {
        return;
    };
    let mut events = Vec::new();
    let mut all_complete = true;
    for i in 0..idx.frames().len() {
        match idx.read_frame(i) {
            Ok(f) => {
                all_complete &= f.end.is_complete();
                events.extend(f.events);
            }
            Err(_) => all_complete = false,
        }
    }
    let _ = idx.read_frame(idx.frames().len());
    if let Ok(cap) = whole
        && cap.end.is_complete()
    {
        assert!(
            all_complete,
            "the whole-file reader says complete, the index does not"
        );
        assert_eq!(
            events, cap.events,
            "the index reads other events than the whole-file reader"
        );
    }
});
