//! One gate for what a test needs from the machine (a sample file, a tool, a server).
//! In CI — the environment variable `CI` set, whatever its value — a missing piece is a
//! failure. On a workstation the test says loudly, on stderr, what did not run.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// True when running in CI: `CI` is set (GitHub, GitLab and `.ci/run` set it).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// `what` is missing: panics in CI with `what` and `fix`; elsewhere prints a loud note that
/// `skipped` did not run and returns `None`, so the caller can `let Some(x) = … else { return }`.
pub fn missing<T>(what: &str, fix: &str, skipped: &str) -> Option<T> {
    if in_ci() {
        panic!("{what} in CI: {fix}");
    }
    // Straight to stderr: libtest captures eprintln! of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n*** NOTE: {what} ({fix}): {skipped} did NOT run ***\n"
    );
    None
}

/// Where the recorded sample corpus is: `INNODEBT_SAMPLES` when set, else the copy in the
/// repository (`tests/data/samples`), so a fresh clone runs every corpus test.
pub fn samples_path() -> PathBuf {
    std::env::var_os("INNODEBT_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/samples"))
}

/// The recorded sample corpus ([`samples_path`]), or `None` after [`missing`] when its
/// `index.tsv` is absent.
pub fn samples_dir(skipped: &str) -> Option<PathBuf> {
    let dir = samples_path();
    if dir.join("index.tsv").is_file() {
        return Some(dir);
    }
    missing(
        &format!("sample corpus not found at {}", dir.display()),
        "unset INNODEBT_SAMPLES to use the copy in tests/data/samples, or point it at a corpus",
        skipped,
    )
}

/// A file of the corpus, read; a missing or unreadable file fails the test (the corpus is
/// there, so a file it lists must be too).
pub fn sample_bytes(dir: &Path, file: &str) -> Vec<u8> {
    let path = dir.join(file);
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("corpus file {} unreadable: {e}", path.display()))
}
