//! A directory of capture files kept under a disk budget: the flight recorder's
//! (`serve --record-dir`, `--max-disk`, `--retain`) and the incident files' (`--trigger`,
//! `--max-disk` / `--incident-max-disk`). Files are named by the UTC time they start, so name
//! order is time order; they sit in the directory itself or one level below it (one
//! subdirectory per target). Files being written are never deleted; the newest file stays too
//! (the one just finished is never the one to go).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Utc};

pub const EXTENSION: &str = "idbt";
/// A rolling file's name: `20250301T140000.000Z.idbt`.
pub const NAME_FORMAT: &str = "%Y%m%dT%H%M%S%.3fZ";
/// An incident file's name starts `20251123T180102Z-`.
const SECONDS_FORMAT: &str = "%Y%m%dT%H%M%SZ";
/// A rolling file never grows past this share of `max_disk` divided among the rolling writers,
/// so deleting closed files can always bring the total back under the limit.
const SHARE: u64 = 4;
const MIN_FILE_BYTES: u64 = 64 * 1024;

/// Disk limits shared by every writer of one directory.
#[derive(Debug)]
pub struct Budget {
    pub root: PathBuf,
    /// A file goes once the next file of its directory started longer ago than this.
    pub retain: Option<Duration>,
    pub max_disk: u64,
    shared: Mutex<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// Files being written: never deleted.
    open: HashSet<PathBuf>,
    /// Writers that rotate at [`Budget::file_limit`].
    rolling: u64,
    /// The newest event time any writer has seen: "now" for retention.
    newest: Option<DateTime<Utc>>,
    deleted: u64,
}

/// One capture file under the budget's root.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub path: PathBuf,
    pub started: DateTime<Utc>,
    pub bytes: u64,
}

impl Budget {
    pub fn new(root: PathBuf, retain: Option<Duration>, max_disk: u64) -> Arc<Budget> {
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

    /// Total bytes of every file under the budget now.
    pub fn used(&self) -> u64 {
        segments_under(&self.root).iter().map(|s| s.bytes).sum()
    }

    /// `path` is being written: it is never deleted until [`Budget::closed`].
    pub fn opened(&self, path: &Path) {
        if let Ok(mut s) = self.shared.lock() {
            s.open.insert(path.to_path_buf());
        }
    }

    pub fn closed(&self, path: &Path) {
        if let Ok(mut s) = self.shared.lock() {
            s.open.remove(path);
        }
    }

    /// A writer that rotates at [`Budget::file_limit`] starts (`false`: it stopped).
    pub fn rolling(&self, started: bool) {
        if let Ok(mut s) = self.shared.lock() {
            s.rolling = if started {
                s.rolling + 1
            } else {
                s.rolling.saturating_sub(1)
            };
        }
    }

    /// Where a rolling writer starts a new file.
    pub fn file_limit(&self) -> u64 {
        let rolling = self.shared.lock().map(|s| s.rolling).unwrap_or(1);
        self.limit(rolling)
    }

    fn limit(&self, rolling: u64) -> u64 {
        (self.max_disk / (SHARE * rolling.max(1))).max(MIN_FILE_BYTES)
    }

    /// An event at `at` was written: the clock retention counts by.
    pub fn seen(&self, at: DateTime<Utc>) {
        if let Ok(mut s) = self.shared.lock() {
            s.newest = Some(s.newest.map_or(at, |n| n.max(at)));
        }
    }

    /// Deletes expired files, then the oldest closed ones while over `max_disk`; returns what
    /// went.
    pub fn enforce(&self) -> Vec<Segment> {
        let Ok(mut shared) = self.shared.lock() else {
            return Vec::new();
        };
        let mut all = segments_under(&self.root);
        let mut gone = Vec::new();
        if let (Some(newest), Some(retain)) = (shared.newest, self.retain) {
            let cutoff = newest - chrono::Duration::from_std(retain).unwrap_or_default();
            // A file is expired when the next one of its directory starts before the cutoff.
            let expired: Vec<Segment> = all
                .windows(2)
                .filter(|p| {
                    p[0].path.parent() == p[1].path.parent()
                        && p[1].started < cutoff
                        && !shared.open.contains(&p[0].path)
                })
                .map(|p| p[0].clone())
                .collect();
            for s in expired {
                all.retain(|a| a.path != s.path);
                if std::fs::remove_file(&s.path).is_ok() {
                    gone.push(s);
                }
            }
        }
        // A rolling writer's open file may still grow to its limit: count it at that size,
        // so the total stays under `max_disk` until the next rotation too.
        let reserve = if shared.rolling > 0 {
            self.limit(shared.rolling)
        } else {
            0
        };
        let mut total: u64 = all
            .iter()
            .map(|s| {
                if shared.open.contains(&s.path) {
                    s.bytes.max(reserve)
                } else {
                    s.bytes
                }
            })
            .sum();
        let mut by_age = all;
        by_age.sort_by(|a, b| (a.started, &a.path).cmp(&(b.started, &b.path)));
        by_age.pop(); // the newest stays
        for s in by_age {
            if total <= self.max_disk {
                break;
            }
            if shared.open.contains(&s.path) {
                continue;
            }
            if std::fs::remove_file(&s.path).is_ok() {
                total = total.saturating_sub(s.bytes);
                gone.push(s);
            }
        }
        shared.deleted += gone.len() as u64;
        gone
    }
}

/// The capture files of one directory, oldest first (by name).
pub fn segments(dir: &Path) -> Vec<Segment> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Segment> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let started = started_of(&path)?;
            let meta = e.metadata().ok().filter(|m| m.is_file())?;
            Some(Segment {
                path,
                started,
                bytes: meta.len(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The root's own files, then each subdirectory's, each group oldest first.
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
    let mut out = segments(root);
    out.extend(dirs.iter().flat_map(|d| segments(d)));
    out
}

/// The start time a file's name carries (a rolling file's or an incident's).
pub fn started_of(path: &Path) -> Option<DateTime<Utc>> {
    if path.extension()? != EXTENSION {
        return None;
    }
    let stem = path.file_stem()?.to_str()?;
    let stem = stem.split('-').next()?; // a slug or a collision suffix
    NaiveDateTime::parse_from_str(stem, NAME_FORMAT)
        .or_else(|_| NaiveDateTime::parse_from_str(stem, SECONDS_FORMAT))
        .ok()
        .map(|t| t.and_utc())
}

/// `dir/NAME.idbt`, or `dir/NAME-1.idbt`, `-2`… when that is taken.
pub fn unused_path(dir: &Path, name: &str) -> PathBuf {
    let mut path = dir.join(format!("{name}.{EXTENSION}"));
    let mut n = 1;
    while path.exists() {
        path = dir.join(format!("{name}-{n}.{EXTENSION}"));
        n += 1;
    }
    path
}

/// Creates `dir` and its parents, mode 0700; the error names the `what` and the fix.
pub fn create_private(dir: &Path, what: &str, check: &str) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("{}: cannot create the {what}: {e} ({check})", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, name: &str, bytes: usize) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, vec![0u8; bytes]).unwrap();
        p
    }

    #[test]
    fn both_names_carry_their_start() {
        let t = |p: &str| started_of(Path::new(p)).map(|t| t.to_rfc3339());
        assert_eq!(
            t("db1/20250301T140000.250Z.idbt").as_deref(),
            Some("2025-03-01T14:00:00.250+00:00")
        );
        assert_eq!(
            t("20250301T140000.250Z-1.idbt").as_deref(),
            Some("2025-03-01T14:00:00.250+00:00")
        );
        assert_eq!(
            t("20251123T180102Z-blocked_by_read_view.idbt").as_deref(),
            Some("2025-11-23T18:01:02+00:00")
        );
        assert_eq!(t("notes.idbt"), None);
        assert_eq!(t("20251123T180102Z-history.txt"), None);
    }

    #[test]
    fn over_the_limit_the_oldest_closed_files_go_and_the_newest_stays() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("db1");
        std::fs::create_dir(&sub).unwrap();
        let oldest = file(dir.path(), "20250101T000000Z-history.idbt", 1000);
        let older = file(&sub, "20250102T000000Z-history.idbt", 1000);
        let newest = file(dir.path(), "20250103T000000Z-history.idbt", 1000);
        // Not a capture this budget named: neither counted nor deleted.
        let mine = file(dir.path(), "mine.idbt", 5000);
        let budget = Budget::new(dir.path().to_path_buf(), None, 2000);
        budget.opened(&oldest);
        // The oldest is being written: the next oldest goes instead.
        let gone = budget.enforce();
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].path, older);
        assert!(oldest.exists() && newest.exists() && mine.exists());
        assert!(budget.enforce().is_empty());
        // Past the limit with nothing else to delete: the newest stays.
        budget.closed(&oldest);
        let small = Budget::new(dir.path().to_path_buf(), None, 1);
        let gone: Vec<PathBuf> = small.enforce().into_iter().map(|s| s.path).collect();
        assert_eq!(gone, vec![oldest]);
        assert!(newest.exists());
        assert_eq!(small.deleted(), 1);
    }

    #[test]
    fn retention_deletes_a_file_once_its_successor_is_older_than_retain() {
        let dir = tempfile::tempdir().unwrap();
        let a = file(dir.path(), "20250101T000000.000Z.idbt", 10);
        let b = file(dir.path(), "20250101T010000.000Z.idbt", 10);
        let c = file(dir.path(), "20250101T020000.000Z.idbt", 10);
        let budget = Budget::new(
            dir.path().to_path_buf(),
            Some(Duration::from_secs(3600)),
            u64::MAX,
        );
        let at = |h: u32| started_of(&c).unwrap() + chrono::Duration::hours(h as i64);
        budget.seen(at(0));
        assert!(
            budget.enforce().is_empty(),
            "b starts exactly at the cutoff"
        );
        let gone_at = |h| {
            budget.seen(at(h));
            budget
                .enforce()
                .into_iter()
                .map(|s| s.path)
                .collect::<Vec<_>>()
        };
        assert_eq!(gone_at(1), vec![a]);
        assert_eq!(gone_at(2), vec![b]);
        // The last file has no successor: it stays, however old.
        assert!(gone_at(48).is_empty() && c.exists());
    }

    #[test]
    fn a_taken_name_gets_a_suffix() {
        let dir = tempfile::tempdir().unwrap();
        let first = unused_path(dir.path(), "20250101T000000Z-x");
        std::fs::write(&first, b"").unwrap();
        let second = unused_path(dir.path(), "20250101T000000Z-x");
        assert_eq!(
            second.file_name().unwrap(),
            "20250101T000000Z-x-1.idbt",
            "{first:?}"
        );
    }
}
