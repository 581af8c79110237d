//! Writing captures: [`CaptureWriter`] appends events (and bookmarks) to a file (see `format`
//! for the bytes); `recorder` runs them on one thread behind a bounded queue.
//!
//! A [`SectionHook`] (innodebt's is `replay::Summarizer`, made for every file by the
//! `recorder::FileSpec` that `replay::capture_files` gives) sees every event as a reader will decode it and, after each
//! section, gives the state and summary the writer stores after it, so a replay of any length
//! reads only the sections it shows. [`CaptureWriter::rotate`] ends a file and goes on in the
//! next one with the hook carried over (a flight recorder's hourly files replay as one).

use std::borrow::Cow;
use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;

use super::format::{
    self, FRAME_RECORDS, Header, MAX_RECORD_LEN, MAX_SECTION_RECORDS, Marker, Note, RECORD_PREFIX,
    SECTION_BYTES, Trailer, event_time,
};
use super::{CaptureError, digest, shown};
use innodebt_server::sample::SourceEvent;

/// How a capture is written.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    /// Replace an existing file (otherwise creating it fails with [`CaptureError::Exists`]).
    pub overwrite: bool,
    /// Records per zstd frame: the unit of seeking and of loss after damage (at most
    /// [`MAX_SECTION_RECORDS`]).
    pub frame_records: u32,
    /// zstd level (−7..=19). 9 writes a realistic 1 s capture at ~0.86 MB per hour for
    /// ~0.07 ms of CPU per event; 3: ~1.15 MB, 19: ~0.71 MB but ~1.5 ms per event.
    pub level: i32,
    /// At most this long between `fdatasync`s, so a machine crash loses at most this much.
    pub sync_every: Duration,
    /// log2 of the zstd window at levels ≥ 7 (its match tables get a half and a quarter as
    /// many entries): 21 (~8 MB per open file) for one capture; a recorder of a thousand
    /// targets keeps a thousand open (it takes 12, ~66 KB, see `serve::recorder`).
    pub window_log: u32,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            overwrite: false,
            frame_records: FRAME_RECORDS,
            level: 9,
            sync_every: Duration::from_secs(1),
            window_log: 21,
        }
    }
}

/// What a writer stores beside the events, made by a layer that knows what they mean (the
/// replay's derivation). It sees each event exactly as a reader will decode it.
pub trait SectionHook: Send + std::fmt::Debug {
    fn event(&mut self, event: &SourceEvent);
    /// The section `frame_no` ended: its state frame's body, and its summary as a JSON object
    /// (the writer sets the links: `frame_no`, `marker_at`, `prev_summary_at`, `state_at`).
    fn end_section(&mut self, frame_no: u32) -> (Vec<u8>, serde_json::Value);
    /// The initial frame's body of the next file of a rotation: where the hook stands.
    fn carry(&self) -> Vec<u8>;
}

/// What a finished capture holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteSummary {
    pub path: PathBuf,
    pub records: u64,
    /// Events not written: the channel was full (the disk was too slow) or an event could
    /// not be encoded.
    pub dropped: u64,
    pub frames: u32,
    pub bytes: u64,
}

/// A file with a running byte count, for positions in error messages.
struct Counted {
    file: File,
    written: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

enum Sink {
    /// Between frames: the next record starts a new section.
    Idle(Counted),
    Frame(zstd::stream::write::Encoder<'static, Counted>),
    /// After an I/O error or `finish`.
    Gone,
}

/// Appends events to one capture file. Every `append` leaves a replayable file behind.
pub struct CaptureWriter {
    path: PathBuf,
    sink: Sink,
    opts: WriterOptions,
    keep_queries: bool,
    records: u64,
    in_frame: u32,
    frames: u32,
    dropped: u64,
    last_sync: Instant,
    failed: Option<String>,
    hook: Option<Box<dyn SectionHook>>,
    /// Where the open section's marker starts, and its decoded bytes so far.
    section_at: u64,
    section_bytes: usize,
    last_summary_at: Option<u64>,
}

impl CaptureWriter {
    /// Creates `path` (mode 0600; an existing file is an error) and writes the header.
    pub fn create(path: impl AsRef<Path>, header: &Header) -> Result<Self, CaptureError> {
        Self::create_with(path, header, WriterOptions::default())
    }

    pub fn create_with(
        path: impl AsRef<Path>,
        header: &Header,
        opts: WriterOptions,
    ) -> Result<Self, CaptureError> {
        Self::create_hooked(path, header, opts, None, false)
    }

    /// Creates a file with `hook` storing a state and summary after every section; `carried`
    /// first stores where the hook stands (the file then replays as the continuation of the
    /// previous one).
    pub fn create_hooked(
        path: impl AsRef<Path>,
        header: &Header,
        opts: WriterOptions,
        hook: Option<Box<dyn SectionHook>>,
        carried: bool,
    ) -> Result<Self, CaptureError> {
        let path = path.as_ref().to_path_buf();
        let io_err = |action, at_byte, source| CaptureError::Io {
            path: shown(&path),
            action,
            at_byte,
            source,
        };
        let mut oo = OpenOptions::new();
        oo.write(true).mode(0o600);
        if opts.overwrite {
            oo.create(true).truncate(true);
        } else {
            oo.create_new(true);
        }
        let file = match oo.open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(CaptureError::Exists { path: shown(&path) });
            }
            Err(e) => return Err(io_err("creating the capture", 0, e)),
        };
        // An overwritten file keeps its old mode; captures name servers and sessions.
        file.set_permissions(Permissions::from_mode(0o600))
            .map_err(|e| io_err("setting mode 0600 on the capture", 0, e))?;
        let bytes = format::encode_header(header).map_err(|e| CaptureError::Encode {
            path: shown(&path),
            record: 0,
            what: format!("header: {e}"),
        })?;
        let mut out = Counted { file, written: 0 };
        out.write_all(&bytes)
            .and_then(|()| out.file.sync_data())
            .map_err(|e| io_err("writing the header", 0, e))?;
        if let Some(h) = hook.as_ref().filter(|_| carried) {
            let at = out.written;
            out.write_all(&format::encode_tagged(format::INITIAL_TAG, 0, &h.carry()))
                .map_err(|e| io_err("writing the initial state", at, e))?;
        }
        // Best effort: make the new name itself survive a machine crash.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(CaptureWriter {
            path,
            sink: Sink::Idle(out),
            opts: WriterOptions {
                frame_records: opts.frame_records.clamp(1, MAX_SECTION_RECORDS),
                ..opts
            },
            keep_queries: header.keep_queries,
            records: 0,
            in_frame: 0,
            frames: 0,
            dropped: 0,
            last_sync: Instant::now(),
            failed: None,
            hook,
            section_at: 0,
            section_bytes: 0,
            last_summary_at: None,
        })
    }

    /// Finishes this file and starts `path` (the same options), carrying the hook over: a
    /// replay of both files shows what one file would have shown.
    pub fn rotate(
        mut self,
        path: impl AsRef<Path>,
        header: &Header,
    ) -> Result<(WriteSummary, CaptureWriter), CaptureError> {
        let opts = self.opts.clone();
        let done = self.finish_keeping()?;
        let hook = self.hook.take();
        let carried = hook.is_some();
        let next = Self::create_hooked(path, header, opts, hook, carried)?;
        Ok((done, next))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    /// Bytes on disk so far.
    pub fn bytes(&self) -> u64 {
        match &self.sink {
            Sink::Idle(c) => c.written,
            Sink::Frame(e) => e.get_ref().written,
            Sink::Gone => 0,
        }
    }

    /// A second descriptor of the file, for syncing it from another thread (`None` once
    /// finished).
    pub fn file_handle(&self) -> Option<File> {
        match &self.sink {
            Sink::Idle(c) => c.file.try_clone().ok(),
            Sink::Frame(e) => e.get_ref().file.try_clone().ok(),
            Sink::Gone => None,
        }
    }

    /// Counts events the caller could not hand over (they go into the trailer).
    pub fn note_dropped(&mut self, n: u64) {
        self.dropped += n;
    }

    /// Appends one event (query texts digested unless the header says keep them; secrets
    /// always). When this returns, the event is in the file and survives the writer's death.
    pub fn append(&mut self, event: &SourceEvent) -> Result<(), CaptureError> {
        if let Some(first) = &self.failed {
            return Err(CaptureError::Failed {
                path: shown(&self.path),
                first: first.clone(),
            });
        }
        let event = scrub(event, self.keep_queries);
        let record = format::encode_record(&event).map_err(|e| self.encode_error(e.to_string()))?;
        if record.len() - RECORD_PREFIX > MAX_RECORD_LEN as usize {
            return Err(self.encode_error(format!(
                "{} bytes is more than a record may hold ({MAX_RECORD_LEN})",
                record.len()
            )));
        }
        // The hook sees what a reader will decode, so replays match to the bit.
        let decoded = match self.hook {
            Some(_) => Cow::Owned(
                serde_json::from_slice::<SourceEvent>(&record[RECORD_PREFIX..])
                    .map_err(|e| self.encode_error(format!("it does not read back ({e})")))?,
            ),
            None => event,
        };
        let result = self.write_record(&record, &decoded);
        if let Err(e) = &result {
            self.failed = Some(e.to_string());
        }
        result
    }

    fn encode_error(&mut self, what: String) -> CaptureError {
        self.dropped += 1;
        CaptureError::Encode {
            path: shown(&self.path),
            record: self.records,
            what,
        }
    }

    fn write_record(&mut self, record: &[u8], event: &SourceEvent) -> Result<(), CaptureError> {
        let at = self.bytes();
        if let Sink::Idle(_) = self.sink {
            let Sink::Idle(mut out) = std::mem::replace(&mut self.sink, Sink::Gone) else {
                return Ok(());
            };
            self.section_at = out.written;
            self.section_bytes = 0;
            let marker = format::encode_marker(&Marker {
                frame_no: self.frames,
                first_record: self.records,
                first_at: event_time(event),
            });
            out.write_all(&marker)
                .map_err(|e| self.io_error("writing a section marker", at, e))?;
            // Levels above 19 want windows larger than the reader accepts.
            let level = self.opts.level.clamp(-7, 19);
            let mut encoder = zstd::stream::write::Encoder::new(out, level)
                .map_err(|e| self.io_error("starting a zstd frame", at, e))?;
            if level >= 7 {
                // A section is ~2 MB of JSON: a bigger window or bigger match tables buy
                // nothing and cost memory (level 9's own are ~28 MB; these ~8 MB).
                use zstd::stream::raw::CParameter;
                let w = self.opts.window_log.clamp(10, 21);
                let tuned = encoder
                    .window_log(w)
                    .and_then(|()| encoder.set_parameter(CParameter::HashLog(w - 1)))
                    .and_then(|()| encoder.set_parameter(CParameter::ChainLog(w - 2)));
                tuned.map_err(|e| self.io_error("setting up zstd", at, e))?;
            }
            self.sink = Sink::Frame(encoder);
            self.frames += 1;
            self.in_frame = 0;
        }
        let Sink::Frame(enc) = &mut self.sink else {
            return Err(CaptureError::Failed {
                path: shown(&self.path),
                first: "the file was already finished".to_string(),
            });
        };
        // Flushing ends the zstd block: the record is decodable from the file right away.
        let written = enc.write_all(record).and_then(|()| enc.flush());
        written.map_err(|e| self.io_error("writing an event", at, e))?;
        if let Some(h) = self.hook.as_mut() {
            h.event(event);
        }
        self.records += 1;
        self.in_frame += 1;
        self.section_bytes += record.len();
        if self.in_frame >= self.opts.frame_records || self.section_bytes >= SECTION_BYTES {
            self.end_frame()?;
        }
        if self.last_sync.elapsed() >= self.opts.sync_every {
            self.sync()?;
        }
        Ok(())
    }

    fn io_error(&self, action: &'static str, at_byte: u64, source: io::Error) -> CaptureError {
        CaptureError::Io {
            path: shown(&self.path),
            action,
            at_byte,
            source,
        }
    }

    fn end_frame(&mut self) -> Result<(), CaptureError> {
        if let Sink::Frame(_) = self.sink {
            let Sink::Frame(enc) = std::mem::replace(&mut self.sink, Sink::Gone) else {
                return Ok(());
            };
            let at = enc.get_ref().written;
            let mut out = enc
                .finish()
                .map_err(|e| self.io_error("ending a zstd frame", at, e))?;
            let frame_no = self.frames - 1;
            if let Some((body, mut summary)) = self.hook.as_mut().map(|h| h.end_section(frame_no)) {
                let state_at = out.written;
                let state = format::encode_tagged(format::STATE_TAG, frame_no, &body);
                out.write_all(&state)
                    .map_err(|e| self.io_error("writing a section state", state_at, e))?;
                let links = format::SummaryLinks {
                    frame_no,
                    marker_at: self.section_at,
                    prev_summary_at: self.last_summary_at,
                    state_at: Some((state_at, state.len() as u64)),
                };
                if let (Some(obj), Ok(serde_json::Value::Object(l))) =
                    (summary.as_object_mut(), serde_json::to_value(&links))
                {
                    obj.extend(l);
                }
                let summary_at = out.written;
                let json = serde_json::to_vec(&summary).map_err(|e| CaptureError::Encode {
                    path: shown(&self.path),
                    record: self.records,
                    what: format!("section summary: {e}"),
                })?;
                out.write_all(&format::encode_summary(frame_no, &json))
                    .map_err(|e| self.io_error("writing a section summary", summary_at, e))?;
                self.last_summary_at = Some(summary_at);
            }
            self.sink = Sink::Idle(out);
        }
        Ok(())
    }

    /// Writes a bookmark now: the open section ends (with its state and summary) so the note
    /// frame can follow it, and the file is synced — a note survives a crash right after.
    pub fn add_note(&mut self, note: &Note) -> Result<(), CaptureError> {
        if let Some(first) = &self.failed {
            return Err(CaptureError::Failed {
                path: shown(&self.path),
                first: first.clone(),
            });
        }
        let bytes = format::encode_note(note).map_err(|e| CaptureError::Encode {
            path: shown(&self.path),
            record: self.records,
            what: format!("note: {e}"),
        })?;
        self.end_frame()?;
        let at = self.bytes();
        let Sink::Idle(out) = &mut self.sink else {
            return Err(CaptureError::Failed {
                path: shown(&self.path),
                first: "the file was already finished".to_string(),
            });
        };
        let written = out.write_all(&bytes);
        written.map_err(|e| self.io_error("writing a note", at, e))?;
        self.sync()
    }

    /// Forces everything written so far to the disk.
    pub fn sync(&mut self) -> Result<(), CaptureError> {
        let at = self.bytes();
        let file = match &self.sink {
            Sink::Idle(c) => &c.file,
            Sink::Frame(e) => &e.get_ref().file,
            Sink::Gone => return Ok(()),
        };
        file.sync_data()
            .map_err(|e| self.io_error("syncing the capture to disk", at, e))?;
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Ends the last frame, writes the trailer (records and dropped count) and syncs.
    pub fn finish(mut self) -> Result<WriteSummary, CaptureError> {
        self.finish_keeping()
    }

    fn finish_keeping(&mut self) -> Result<WriteSummary, CaptureError> {
        if let Some(first) = self.failed.take() {
            return Err(CaptureError::Failed {
                path: shown(&self.path),
                first,
            });
        }
        self.end_frame()?;
        let at = self.bytes();
        let Sink::Idle(mut out) = std::mem::replace(&mut self.sink, Sink::Gone) else {
            return Ok(self.summary(at));
        };
        let trailer = format::encode_trailer(&Trailer {
            records: self.records,
            dropped: self.dropped,
            finished_at: Utc::now(),
        });
        out.write_all(&trailer)
            .and_then(|()| out.file.sync_data())
            .map_err(|e| self.io_error("writing the end mark", at, e))?;
        Ok(self.summary(out.written))
    }

    fn summary(&self, bytes: u64) -> WriteSummary {
        WriteSummary {
            path: self.path.clone(),
            records: self.records,
            dropped: self.dropped,
            frames: self.frames,
            bytes,
        }
    }
}

/// The event as it may be stored: query texts digested (unless kept), secrets always.
pub fn scrub(event: &SourceEvent, keep_queries: bool) -> Cow<'_, SourceEvent> {
    let SourceEvent::Sample(sample) = event else {
        return Cow::Borrowed(event);
    };
    let changes = |q: &Option<String>| {
        q.as_deref()
            .is_some_and(|q| digest::redact(q, keep_queries) != q)
    };
    let trx_changes = sample.trx.iter().any(|t| changes(&t.query));
    let status_changes = sample
        .innodb_status
        .as_ref()
        .is_some_and(|st| st.transactions.iter().any(|t| changes(&t.query)));
    if !trx_changes && !status_changes {
        return Cow::Borrowed(event);
    }
    let mut sample = sample.clone();
    let fix = |q: &mut Option<String>| {
        if let Some(text) = q.as_mut() {
            *text = digest::redact(text, keep_queries);
        }
    };
    sample.trx.iter_mut().for_each(|t| fix(&mut t.query));
    if let Some(st) = sample.innodb_status.as_mut() {
        st.transactions.iter_mut().for_each(|t| fix(&mut t.query));
    }
    Cow::Owned(SourceEvent::Sample(sample))
}
