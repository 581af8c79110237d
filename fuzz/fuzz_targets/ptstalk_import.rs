//! The pt-stalk importer on an arbitrary directory. The input is a list of files in the
//! `head`/`tail` multi-file layout (see `innodebt_fuzz::split_files`), written into a fresh
//! directory; then the import runs (with every prefix when there are several), and what it
//! imports is saved as a capture and read back: nothing may be lost on the way.
#![no_main]

use std::path::Path;

use innodebt_capture::reader::from_bytes;
use innodebt_capture::writer::{WriterOptions, scrub};
use innodebt_capture::{CaptureWriter, ImportError, import_dir};
use libfuzzer_sys::fuzz_target;

fn import_and_save(dir: &Path, prefix: Option<&str>, out: &Path) {
    let (header, events) = match import_dir(dir, prefix) {
        Ok(imported) => imported,
        Err(ImportError::SeveralPrefixes { .. }) => panic!("asked for one prefix, got several"),
        Err(_) => return,
    };
    // The fastest zstd level: the round trip, not the compression, is under test.
    let opts = WriterOptions {
        overwrite: true,
        level: 1,
        ..WriterOptions::default()
    };
    let mut writer = CaptureWriter::create_with(out, &header, opts).expect("a scratch capture");
    for e in &events {
        writer.append(e).expect("an imported event is written");
    }
    writer.finish().expect("the capture is finished");
    let bytes = std::fs::read(out).expect("the capture reads back");
    let cap = from_bytes(&bytes, out).expect("a capture just written opens");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    let stored: Vec<_> = events
        .iter()
        .map(|e| scrub(e, header.keep_queries).into_owned())
        .collect();
    assert_eq!(cap.events, stored, "the saved import reads back different");
    assert_eq!(cap.header, header);
}

fuzz_target!(|data: &[u8]| {
    let root = innodebt_fuzz::scratch_dir();
    let dir = root.join("d");
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::create_dir(&dir).is_err() {
        return;
    }
    for (name, contents) in innodebt_fuzz::split_files(data, "2024_01_31_12_00_00-mysqladmin") {
        let _ = std::fs::write(dir.join(name), contents);
    }
    let out = root.join("import.idbt");
    match import_dir(&dir, None) {
        Err(ImportError::SeveralPrefixes { list, .. }) => {
            for prefix in list.split(", ") {
                import_and_save(&dir, Some(prefix), &out);
            }
        }
        _ => import_and_save(&dir, None, &out),
    }
});
