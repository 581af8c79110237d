//! The flight recorder of `innodebt serve --record-dir DIR`: a rolling capture per target in
//! `DIR/NAME/`, in the ordinary capture format, one file per hour (sooner when a file would
//! take more than its share of `--max-disk`). File names are the UTC time of their first
//! event (`20250301T140000.000Z.idbt`), so name order is time order and `innodebt replay
//! DIR/NAME` plays them in sequence. A file rotated on the hour carries the derivation over
//! (verdicts, peaks and trends go on across the hour as in one long file) and holds the
//! server's description in that carried state; the first file, and one started after a
//! write error, begin with the server's description — so each one replays on its own. Files wholly older than `--retain` go first; then, while the
//! directory holds more than `--max-disk`, the oldest closed file goes, whatever its target.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Timelike, Utc};

use crate::capture::{CaptureError, CaptureWriter, Header, WriterOptions};
use crate::sample::{ServerInfo, SourceEvent};

pub const EXTENSION: &str = "idbt";
const NAME_FORMAT: &str = "%Y%m%dT%H%M%S%.3fZ";
/// A file never grows past this share of `--max-disk` divided among the open files, so
/// deleting closed files can always bring the total back under the limit.
const SHARE: u64 = 4;
const MIN_FILE_BYTES: u64 = 64 * 1024;
/// Events queued for the writer thread before the poller's copies are dropped (counted).
const QUEUE: usize = 1024;

/// Disk limits shared by every target's recorder.
#[derive(Debug)]
pub struct Budget {
    pub root: PathBuf,
    pub retain: Duration,
    pub max_disk: u64,
    shared: Mutex<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// Files being written: never deleted.
    open: HashSet<PathBuf>,
    recorders: u64,
    /// The newest event time any recorder has seen: "now" for retention.
    newest: Option<DateTime<Utc>>,
    deleted: u64,
}

/// One file in the recorder's directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub path: PathBuf,
    pub started: DateTime<Utc>,
    pub bytes: u64,
}

impl Budget {
    pub fn new(root: PathBuf, retain: Duration, max_disk: u64) -> Arc<Budget> {
        Arc::new(Budget {
            root,
            retain,
            max_disk,
            shared: Mutex::new(Shared::default()),
        })
    }

    /// Files deleted so far (retention and disk limit).
    pub fn deleted(&self) -> u64 {
        self.shared.lock().map(|s| s.deleted).unwrap_or(0)
    }

    fn file_limit(&self) -> u64 {
        let open = self.shared.lock().map(|s| s.recorders.max(1)).unwrap_or(1);
        (self.max_disk / (SHARE * open)).max(MIN_FILE_BYTES)
    }

    /// Total bytes of every recorder file now.
    pub fn used(&self) -> u64 {
        segments_under(&self.root).iter().map(|s| s.bytes).sum()
    }

    /// Deletes expired files, then the oldest closed ones while over `max_disk`.
    pub fn enforce(&self) {
        let Ok(mut shared) = self.shared.lock() else {
            return;
        };
        let mut all = segments_under(&self.root);
        if let Some(newest) = shared.newest {
            let cutoff = newest - chrono::Duration::from_std(self.retain).unwrap_or_default();
            // A file is expired when the next one of its target starts before the cutoff.
            let mut expired = Vec::new();
            for pair in all.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                if a.path.parent() == b.path.parent()
                    && b.started < cutoff
                    && !shared.open.contains(&a.path)
                {
                    expired.push(a.path.clone());
                }
            }
            for p in &expired {
                if std::fs::remove_file(p).is_ok() {
                    shared.deleted += 1;
                }
            }
            all.retain(|s| !expired.contains(&s.path));
        }
        // An open file may still grow to its limit: count it at that size, so the total
        // stays under `max_disk` until the next rotation too.
        let limit = (self.max_disk / (SHARE * shared.recorders.max(1))).max(MIN_FILE_BYTES);
        let mut total: u64 = all
            .iter()
            .map(|s| {
                if shared.open.contains(&s.path) {
                    s.bytes.max(limit)
                } else {
                    s.bytes
                }
            })
            .sum();
        let mut by_age = all;
        by_age.sort_by_key(|s| s.started);
        for s in by_age {
            if total <= self.max_disk {
                break;
            }
            if shared.open.contains(&s.path) {
                continue;
            }
            if std::fs::remove_file(&s.path).is_ok() {
                total = total.saturating_sub(s.bytes);
                shared.deleted += 1;
            }
        }
    }
}

/// The capture files of one target directory, oldest first (by name).
pub fn segments(dir: &Path) -> Vec<Segment> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Segment> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let started = started_of(&path)?;
            let bytes = e.metadata().ok()?.len();
            Some(Segment {
                path,
                started,
                bytes,
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Every target's files, grouped by directory, each group oldest first.
fn segments_under(root: &Path) -> Vec<Segment> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.iter().flat_map(|d| segments(d)).collect()
}

/// The start time a recorder file's name carries.
pub fn started_of(path: &Path) -> Option<DateTime<Utc>> {
    if path.extension()? != EXTENSION {
        return None;
    }
    let stem = path.file_stem()?.to_str()?;
    let stem = stem.split('-').next()?; // a collision suffix
    let naive = NaiveDateTime::parse_from_str(stem, NAME_FORMAT).ok()?;
    Some(naive.and_utc())
}

/// The poller's end: hands copies of events to the writer thread without ever blocking.
#[derive(Debug, Clone)]
pub struct Feed {
    tx: SyncSender<SourceEvent>,
    dropped: Arc<AtomicU64>,
}

impl Feed {
    pub fn send(&self, ev: &SourceEvent) {
        match self.tx.try_send(ev.clone()) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// The writer thread of one target; join it after dropping every [`Feed`].
pub struct Recorder {
    pub dir: PathBuf,
    join: JoinHandle<Result<u64, CaptureError>>,
}

impl Recorder {
    /// Waits for the thread to write out what is queued; returns the events written.
    pub fn finish(self) -> Result<u64, String> {
        match self.join.join() {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(_) => Err(format!(
                "{}: the recorder thread failed",
                self.dir.display()
            )),
        }
    }
}

/// Starts recording `target` under the budget's root (creating `ROOT/target`, mode 0700).
pub fn start(budget: &Arc<Budget>, target: &str) -> Result<(Feed, Recorder), String> {
    let dir = budget.root.join(target);
    create_dir_private(&dir)?;
    let (tx, rx) = sync_channel(QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    if let Ok(mut s) = budget.shared.lock() {
        s.recorders += 1;
    }
    let thread_budget = Arc::clone(budget);
    let thread_dir = dir.clone();
    let join = std::thread::Builder::new()
        .name(format!("recorder-{target}"))
        .spawn(move || {
            let mut rolling = Rolling::new(thread_dir, Arc::clone(&thread_budget));
            let result = rolling.run(rx);
            if let Ok(mut s) = thread_budget.shared.lock() {
                s.recorders = s.recorders.saturating_sub(1);
            }
            result
        })
        .map_err(|e| format!("cannot start the recorder thread: {e}"))?;
    Ok((Feed { tx, dropped }, Recorder { dir, join }))
}

fn create_dir_private(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| {
            format!(
                "{}: cannot create the recording directory: {e} (check --record-dir and its permissions)",
                dir.display()
            )
        })
}

/// The rolling capture of one target.
pub struct Rolling {
    dir: PathBuf,
    budget: Arc<Budget>,
    current: Option<(CaptureWriter, DateTime<Utc>)>,
    /// The server as last described (with every variable change since), for the head of
    /// each new file.
    server: Option<ServerInfo>,
    written: u64,
}

impl Rolling {
    pub fn new(dir: PathBuf, budget: Arc<Budget>) -> Rolling {
        Rolling {
            dir,
            budget,
            current: None,
            server: None,
            written: 0,
        }
    }

    fn run(&mut self, rx: Receiver<SourceEvent>) -> Result<u64, CaptureError> {
        while let Ok(ev) = rx.recv() {
            if let Err(e) = self.append(&ev) {
                eprintln!("innodebt serve: recorder {}: {e}", self.dir.display());
                // Start a new file with the next event rather than stop recording.
                self.close();
            }
        }
        self.close();
        Ok(self.written)
    }

    /// Appends one event, rotating first when the hour changed or the file is full.
    pub fn append(&mut self, ev: &SourceEvent) -> Result<(), CaptureError> {
        let at = ev.at();
        match ev {
            SourceEvent::Connected { info, .. } => self.server = Some(info.clone()),
            SourceEvent::Variables { variables, .. } => {
                if let Some(s) = self.server.as_mut() {
                    s.variables.extend(variables.clone());
                }
            }
            _ => {}
        }
        if let Ok(mut s) = self.budget.shared.lock() {
            s.newest = Some(s.newest.map_or(at, |n| n.max(at)));
        }
        let rotate = match &self.current {
            None => true,
            Some((w, started)) => {
                hour_of(*started) != hour_of(at) || w.bytes() >= self.budget.file_limit()
            }
        };
        if rotate {
            self.open(at, ev)?;
        }
        if let Some((w, _)) = self.current.as_mut() {
            w.append(ev)?;
            self.written += 1;
        }
        Ok(())
    }

    fn open(&mut self, at: DateTime<Utc>, first: &SourceEvent) -> Result<(), CaptureError> {
        let stamp = at.format(NAME_FORMAT).to_string();
        let mut path = self.dir.join(format!("{stamp}.{EXTENSION}"));
        let mut n = 1;
        while path.exists() {
            path = self.dir.join(format!("{stamp}-{n}.{EXTENSION}"));
            n += 1;
        }
        let header = Header::new(at, self.server.clone(), false);
        let (mut writer, carried) = match self.current.take() {
            Some((w, _)) => {
                let old = w.path().to_path_buf();
                let rotated = w.rotate(&path, &header);
                if let Ok(mut s) = self.budget.shared.lock() {
                    s.open.remove(&old);
                }
                (rotated?.1, true)
            }
            None => (
                crate::replay::create_writer(&path, &header, WriterOptions::default())?,
                false,
            ),
        };
        if let Ok(mut s) = self.budget.shared.lock() {
            s.open.insert(path.clone());
        }
        // Each file replays on its own: a fresh one begins with the server's description
        // (a rotated one carries it in its initial state).
        if !carried
            && !matches!(first, SourceEvent::Connected { .. })
            && let Some(info) = &self.server
        {
            writer.append(&SourceEvent::Connected {
                at,
                info: info.clone(),
            })?;
        }
        self.current = Some((writer, at));
        // Room for the new file: old and surplus files go now.
        self.budget.enforce();
        Ok(())
    }

    /// Finishes the current file (trailer, sync).
    pub fn close(&mut self) {
        if let Some((w, _)) = self.current.take() {
            let path = w.path().to_path_buf();
            if let Err(e) = w.finish() {
                eprintln!("innodebt serve: recorder: {e}");
            }
            if let Ok(mut s) = self.budget.shared.lock() {
                s.open.remove(&path);
            }
        }
    }
}

/// The UTC hour an instant falls in (files rotate on the hour).
fn hour_of(t: DateTime<Utc>) -> (i64, u32) {
    (t.timestamp().div_euclid(86_400), t.hour())
}
