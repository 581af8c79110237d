//! Scratch storage for what a replay derives itself (the states of a format 1 capture, a
//! pt-stalk import): in memory while small, then in an unnamed temporary file, so a long old
//! capture costs disk, not memory; and an import's events held back until its header is known
//! ([`EventSpill`]). Nothing is left behind: the files are unlinked at creation.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use innodebt_server::sample::SourceEvent;

/// Kept in memory up to this many bytes.
const IN_MEMORY: usize = 4 << 20;

#[derive(Debug, Default)]
pub struct Spill {
    mem: Vec<u8>,
    file: Option<File>,
    len: u64,
}

/// A new private file in the temporary directory (`$TMPDIR`), still named, mode 0600.
pub fn temp_path(what: &str) -> io::Result<(PathBuf, File)> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    for _ in 0..16 {
        let name = format!(
            "innodebt-{what}-{}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        );
        let path = dir.join(name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free temporary file name"))
}

/// An unnamed private temporary file (created, then unlinked at once).
pub fn temp_file(what: &str) -> io::Result<File> {
    let (path, file) = temp_path(what)?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

impl Spill {
    /// Stores `bytes`; returns where (offset, length).
    pub fn push(&mut self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        let at = self.len;
        if self.file.is_none() && self.mem.len() + bytes.len() > IN_MEMORY {
            let mut f = temp_file("replay-index")?;
            f.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some(f);
        }
        match &self.file {
            Some(f) => f.write_all_at(bytes, at)?,
            None => self.mem.extend_from_slice(bytes),
        }
        self.len += bytes.len() as u64;
        Ok((at, bytes.len() as u64))
    }

    pub fn read(&self, (at, len): (u64, u64)) -> io::Result<Vec<u8>> {
        let n = usize::try_from(len).map_err(io::Error::other)?;
        match &self.file {
            Some(f) => {
                let mut v = vec![0u8; n];
                f.read_exact_at(&mut v, at)?;
                Ok(v)
            }
            None => {
                let start = usize::try_from(at).map_err(io::Error::other)?;
                self.mem
                    .get(start..start + n)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| io::Error::other("outside the replay's scratch data"))
            }
        }
    }
}

/// Events set aside until what must precede them is known: a Dolphie import's header says
/// what the whole file held, so its events wait here while the rows are read, then go to the
/// capture in order. Length-prefixed JSON, zstd-compressed (level 1), in an unnamed temporary
/// file: a long file costs disk, not memory.
pub struct EventSpill {
    enc: zstd::stream::Encoder<'static, io::BufWriter<File>>,
    buf: Vec<u8>,
    len: usize,
}

impl EventSpill {
    pub fn new() -> io::Result<EventSpill> {
        let file = temp_file("import")?;
        Ok(EventSpill {
            enc: zstd::stream::Encoder::new(io::BufWriter::new(file), 1)?,
            buf: Vec::new(),
            len: 0,
        })
    }

    pub fn push(&mut self, event: &SourceEvent) -> io::Result<()> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, event)?;
        let n = u32::try_from(self.buf.len()).map_err(io::Error::other)?;
        self.enc.write_all(&n.to_le_bytes())?;
        self.enc.write_all(&self.buf)?;
        self.len += 1;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The events in the order they were pushed.
    pub fn into_events(self) -> io::Result<SpilledEvents> {
        let mut file = self
            .enc
            .finish()?
            .into_inner()
            .map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        Ok(SpilledEvents {
            dec: zstd::stream::Decoder::new(file)?,
            buf: Vec::new(),
            left: self.len,
        })
    }
}

/// What an [`EventSpill`] held, read back one event at a time.
pub struct SpilledEvents {
    dec: zstd::stream::Decoder<'static, io::BufReader<File>>,
    buf: Vec<u8>,
    left: usize,
}

impl SpilledEvents {
    fn read_one(&mut self) -> io::Result<SourceEvent> {
        let mut n = [0u8; 4];
        self.dec.read_exact(&mut n)?;
        self.buf.resize(u32::from_le_bytes(n) as usize, 0);
        self.dec.read_exact(&mut self.buf)?;
        Ok(serde_json::from_slice(&self.buf)?)
    }
}

impl Iterator for SpilledEvents {
    type Item = io::Result<SourceEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(self.read_one())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}
