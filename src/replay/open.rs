//! What `innodebt replay PATH` (and `--once`, `export`) opens: a capture file; a directory of
//! captures — a flight recorder's rotated files, or any set of captures — replayed in the
//! order they were started; or a pt-stalk directory, imported into a private temporary
//! capture first. Every case ends as a [`CaptureSet`] read through its index.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::set::CaptureSet;
use super::summary::Summarizer;
use innodebt_capture::format::{FILE_MAGIC, SKIPPABLE_MAGIC};
use innodebt_capture::spill::temp_path;
use innodebt_capture::{
    CaptureError, CaptureIndex, CaptureWriter, FileSpec, Header, ImportError, WriterOptions,
    import_dir,
};
use innodebt_engine::verdicts::RecoveryModel;
use innodebt_server::sample::SourceEvent;

/// How innodebt makes every capture file: `opts`, and after every section the state and
/// summary a replay needs (the recorders', the imports' and the temporary captures' alike).
pub fn capture_files(opts: WriterOptions) -> FileSpec {
    FileSpec {
        opts,
        hook: Some(Arc::new(|| Box::new(Summarizer::default()))),
    }
}

/// A capture file made as [`capture_files`] says, written here and now (an import's).
pub fn create_writer(
    path: impl AsRef<Path>,
    header: &Header,
    opts: WriterOptions,
) -> Result<CaptureWriter, CaptureError> {
    capture_files(opts).create(path, header)
}

/// Opens what `path` names for replay (see the module docs).
pub fn open_replay(path: &Path, recovery: RecoveryModel) -> Result<CaptureSet, String> {
    if !path.is_dir() {
        return CaptureSet::open_file(path, recovery);
    }
    let (found, skipped) = captures_in(path)?;
    if !found.is_empty() {
        let mut set = CaptureSet::new(path.display().to_string(), recovery);
        for note in skipped {
            set.push_note(note);
        }
        for index in found {
            set.add(index)?;
        }
        return Ok(set);
    }
    match import_dir(path, None) {
        Ok((header, events)) => {
            let name = path.display().to_string();
            temp_capture(&name, &header, &events, recovery)
        }
        Err(ImportError::NoCapture { .. }) => Err(nothing_here(path)),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether the file starts like a capture (our skippable magic, then "INNODEBT").
fn looks_like_capture(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head[0..4] == SKIPPABLE_MAGIC.to_le_bytes() && &head[8..16] == FILE_MAGIC)
}

/// The captures in `dir`, opened and in replay order (by start time, then name), and a note
/// for each one that could not be opened.
fn captures_in(dir: &Path) -> Result<(Vec<CaptureIndex>, Vec<String>), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot list the directory: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| looks_like_capture(p))
        .collect();
    paths.sort();
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    for p in paths {
        match CaptureIndex::open(&p) {
            Ok(index) => found.push(index),
            Err(e) => skipped.push(format!("skipped {e}")),
        }
    }
    found.sort_by(|a, b| {
        let start = |i: &CaptureIndex| {
            i.frames()
                .first()
                .map_or(i.header().started_at, |f| f.first_at)
        };
        (start(a), a.path()).cmp(&(start(b), b.path()))
    });
    Ok((found, skipped))
}

/// Why a directory cannot be replayed, naming what it does hold.
fn nothing_here(dir: &Path) -> String {
    let subdirs: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut msg = format!(
        "{}: no innodebt captures and no pt-stalk collection here",
        dir.display()
    );
    if subdirs.is_empty() {
        msg.push_str(
            ": point at a capture file, a directory of captures, or a pt-stalk --dest directory",
        );
    } else {
        let mut subdirs = subdirs;
        subdirs.sort();
        let shown: Vec<&str> = subdirs.iter().take(8).map(String::as_str).collect();
        msg.push_str(&format!(
            "; it has subdirectories ({}{}) — a flight recorder keeps one per server: replay {}",
            shown.join(", "),
            if subdirs.len() > 8 { ", …" } else { "" },
            dir.join(&subdirs[0]).display()
        ));
    }
    msg
}

/// Events written to a private temporary capture (unlinked once opened) and opened as a set
/// named `name`: how imports and in-memory recordings get the same index as files.
pub fn temp_capture(
    name: &str,
    header: &Header,
    events: &[SourceEvent],
    recovery: RecoveryModel,
) -> Result<CaptureSet, String> {
    let (path, _file) = temp_path("import").map_err(|e| {
        format!("cannot create a temporary capture in the temporary directory (set TMPDIR): {e}")
    })?;
    let written = (|| {
        let opts = WriterOptions {
            overwrite: true,
            ..WriterOptions::default()
        };
        let mut w = create_writer(&path, header, opts).map_err(|e| e.to_string())?;
        for ev in events {
            match w.append(ev) {
                Ok(()) | Err(CaptureError::Encode { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        w.finish().map_err(|e| e.to_string())?;
        CaptureIndex::open(&path).map_err(|e| e.to_string())
    })();
    let _ = std::fs::remove_file(&path);
    let mut set = CaptureSet::new(name.to_string(), recovery);
    set.add(written?)?;
    Ok(set)
}
