//! A damaged copy of the built-in demo capture, as `dd` of 4 KiB of random bytes at half its
//! length (`conv=notrunc`) makes one: the bytes are pseudo-random but the same on every run,
//! so what the damage costs is the same too.

use std::path::{Path, PathBuf};

/// The demo (MariaDB 10.11, purge blocked: 3m29s of samples).
pub fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt")
}

/// A copy of the demo in `dir` with 4 KiB of pseudo-random bytes written over it at half its
/// length.
pub fn damaged_demo(dir: &Path) -> PathBuf {
    let mut bytes = std::fs::read(demo()).expect("read the demo");
    let mid = bytes.len() / 2;
    // xorshift64: random-looking bytes, the same ones every run.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for b in &mut bytes[mid..mid + 4096] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = (x >> 24) as u8;
    }
    let path = dir.join("damaged.idbt");
    std::fs::write(&path, &bytes).expect("write the damaged copy");
    path
}
