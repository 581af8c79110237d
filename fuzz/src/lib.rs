//! What the fuzz targets share: a scratch directory, and one fuzz input turned into several
//! named files. The layout is the one `head`/`tail` print for several files, so inputs stay readable:
//!
//! ```text
//! ==> 2024_01_31_12_00_00-mysqladmin <==
//! ...contents...
//! ==> 2024_01_31_12_00_00-innodbstatus1 <==
//! ...contents...
//! ```
//!
//! Bytes before the first header form a file with the default name. Names that could leave
//! the directory (empty, `.`, `..`, holding `/` or NUL) are skipped.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// At most this many files per input (a directory of thousands is not more interesting).
pub const MAX_FILES: usize = 16;
/// Longest file name kept (bytes); longer ones are cut.
pub const MAX_NAME: usize = 100;

const HEADER: &[u8] = b"==> ";
const HEADER_END: &[u8] = b" <==";

/// Splits `data` into (file name, contents). Names may be any bytes, not only UTF-8.
pub fn split_files<'a>(data: &'a [u8], default_name: &'a str) -> Vec<(&'a OsStr, &'a [u8])> {
    let starts: Vec<usize> = (0..data.len())
        .filter(|&i| (i == 0 || data[i - 1] == b'\n') && data[i..].starts_with(HEADER))
        .collect();
    let mut files = Vec::new();
    let first = starts.first().copied().unwrap_or(data.len());
    if first > 0 {
        files.push((OsStr::new(default_name), &data[..first]));
    }
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(data.len());
        let chunk = &data[start + HEADER.len()..end];
        let (line, contents) = match chunk.iter().position(|&b| b == b'\n') {
            Some(nl) => (&chunk[..nl], &chunk[nl + 1..]),
            None => (chunk, &chunk[chunk.len()..]),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let name = line.strip_suffix(HEADER_END).unwrap_or(line);
        let name = &name[..name.len().min(MAX_NAME)];
        let escapes = name.is_empty()
            || name == b"."
            || name == b".."
            || name.contains(&b'/')
            || name.contains(&0);
        if !escapes {
            files.push((OsStr::from_bytes(name), contents));
        }
    }
    files.truncate(MAX_FILES);
    files
}

/// A scratch directory for the whole fuzzing process, in memory (`/dev/shm`) when there is
/// one: targets write files on every run, and the capture writer syncs them to disk.
pub fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .expect("a scratch directory")
    })
    .path()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_named_files() {
        let data = b"lead\n==> a <==\none\n==> b\ntwo\n==> ../x <==\nno\n==> c <==";
        let files = split_files(data, "default");
        let got: Vec<(&[u8], &[u8])> = files.iter().map(|(n, c)| (n.as_bytes(), *c)).collect();
        assert_eq!(
            got,
            vec![
                (&b"default"[..], &b"lead\n"[..]),
                (b"a", b"one\n"),
                (b"b", b"two\n"),
                (b"c", b""),
            ]
        );
    }
}
