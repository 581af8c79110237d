//! Where a capture's bytes are read from: a file (read at offsets, never loaded whole) or
//! bytes in memory (the built-in demo), and a small moving window over either for scans that
//! walk a file front to back.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub enum Source {
    File(Arc<File>),
    Memory(Arc<[u8]>),
}

impl Source {
    pub fn len(&self) -> io::Result<u64> {
        match self {
            Source::File(f) => f.metadata().map(|m| m.len()),
            Source::Memory(b) => Ok(b.len() as u64),
        }
    }

    pub fn is_empty(&self) -> io::Result<bool> {
        self.len().map(|n| n == 0)
    }

    /// Fills `buf` from `offset`, stopping early at the end; returns the bytes read.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        match self {
            Source::File(f) => {
                let mut got = 0;
                while got < buf.len() {
                    match f.read_at(&mut buf[got..], offset + got as u64) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(got)
            }
            Source::Memory(b) => {
                let start = usize::try_from(offset).unwrap_or(usize::MAX).min(b.len());
                let n = buf.len().min(b.len() - start);
                buf[..n].copy_from_slice(&b[start..start + n]);
                Ok(n)
            }
        }
    }

    /// Up to `len` bytes from `offset` (fewer at the end).
    pub fn read_vec(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut v = vec![0u8; len];
        let n = self.read_at(&mut v, offset)?;
        v.truncate(n);
        Ok(v)
    }
}

/// Reads a source through a buffer of [`ScanWindow::CHUNK`] bytes (more when one piece asked for
/// is bigger), so walking a file front to back costs few reads and bounded memory. Hopping
/// backwards (summary to summary) reads [`ScanWindow::HOP`] bytes at a time instead.
pub struct ScanWindow<'a> {
    src: &'a Source,
    /// Bytes read ahead of what is asked.
    pub chunk: usize,
    /// The end of the readable part (the file's length when the scan started).
    end: u64,
    buf: Vec<u8>,
    at: u64,
    pub error: Option<io::Error>,
}

impl<'a> ScanWindow<'a> {
    pub const CHUNK: usize = 1 << 20;
    pub const HOP: usize = 4 << 10;

    pub fn new(src: &'a Source, end: u64) -> Self {
        ScanWindow {
            src,
            chunk: Self::CHUNK,
            end,
            buf: Vec::new(),
            at: 0,
            error: None,
        }
    }

    pub fn end(&self) -> u64 {
        self.end
    }

    /// The bytes `[pos, pos + n)`, or fewer when the readable part ends first.
    pub fn bytes(&mut self, pos: u64, n: usize) -> &[u8] {
        let want_end = pos.saturating_add(n as u64).min(self.end);
        let have = pos >= self.at && want_end <= self.at + self.buf.len() as u64;
        if !have && pos < self.end {
            let len = usize::try_from(self.end - pos)
                .unwrap_or(usize::MAX)
                .min(n.max(self.chunk));
            match self.src.read_vec(pos, len) {
                Ok(v) => {
                    self.buf = v;
                    self.at = pos;
                }
                Err(e) => {
                    self.buf.clear();
                    self.at = pos;
                    self.error.get_or_insert(e);
                }
            }
        }
        if pos < self.at || pos >= self.at + self.buf.len() as u64 {
            return &[];
        }
        let from = (pos - self.at) as usize;
        let to = (want_end.saturating_sub(self.at) as usize).min(self.buf.len());
        &self.buf[from..to.max(from)]
    }

    /// Where `pattern` next occurs at or after `from` and `check` accepts it.
    pub fn find(
        &mut self,
        from: u64,
        pattern: &[u8],
        check: impl Fn(&mut Self, u64) -> bool,
    ) -> Option<u64> {
        let mut at = from;
        while at < self.end {
            let chunk = self.bytes(at, Self::CHUNK).to_vec();
            if chunk.len() < pattern.len() {
                return None;
            }
            let mut rel = 0;
            while let Some(p) = chunk[rel..]
                .windows(pattern.len())
                .position(|w| w == pattern)
            {
                let hit = at + (rel + p) as u64;
                if check(self, hit) {
                    return Some(hit);
                }
                rel += p + 1;
            }
            // Overlap so a pattern across the chunk edge is not missed.
            at += (chunk.len() - pattern.len() + 1) as u64;
        }
        None
    }
}
