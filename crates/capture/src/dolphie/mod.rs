//! Dolphie import: the replay file a Dolphie daemon (or `--record`) wrote becomes the events a
//! live session would have recorded, so `replay`, `compare` and `--what-if` work on an
//! incident innodebt did not record.
//!
//! The file is SQLite (Dolphie's replay schema 2, read from Dolphie 6.18.0's ReplayManager):
//! `metadata` (one row: `schema_version`, `host`, `port`, `host_distro`, `connection_source`,
//! `dolphie_version`, `compression_dict`), `replay_data` (`id`, `timestamp`, `data`: one
//! poll, JSON, zstd-compressed against `compression_dict` once Dolphie has built it, plainly
//! before), `variable_changes` (`timestamp`, `variable_name`, `old_value`, `new_value`).
//! `map` turns rows into samples (pure); here: opening, checking, decompressing, the times.
//!
//! Rows are read one at a time and their events set aside in a [`EventSpill`] (a temporary
//! file) until the whole file has been read: the header says what the file held, which only
//! its last row settles. Memory stays flat however long the recording.

pub mod map;
mod row;

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use rusqlite::{Connection, OpenFlags, OptionalExtension};

pub use map::{Change, Mapped, Mapper};
use row::Unpacker;

use super::format::{Header, Note};
use super::spill::{EventSpill, SpilledEvents};

/// The replay schema this importer reads (Dolphie 6.x writes 2 up to 6.18.0 at least).
pub const SCHEMA_VERSION: i64 = 2;
/// The Dolphie that stamped rows in UTC first; older ones wrote the recording machine's
/// local time (read from its ReplayManager, 6.16.0 vs 6.17.0).
const UTC_FROM: (u32, u32) = (6, 17);

/// Why an import could not be made. Each message names the problem and what to do.
#[derive(Debug, thiserror::Error)]
pub enum DolphieError {
    #[error(
        "{path}: no such file: give the path of a Dolphie replay file (REPLAY_DIR/HOST_PORT/daemon.db)"
    )]
    Missing { path: String },
    #[error("{path}: cannot read it: {why} (check the path and the permissions)")]
    Unreadable { path: String, why: String },
    #[error(
        "{path} is not a SQLite file ({why}): give a replay file Dolphie wrote with --daemon or --record"
    )]
    NotSqlite { path: String, why: String },
    #[error(
        "{path} is a SQLite database but not a Dolphie replay file (it has no {missing} table): give a file Dolphie wrote with --daemon or --record"
    )]
    NotDolphie { path: String, missing: String },
    #[error(
        "{path} is damaged or cut short ({why}): copy the whole file again (with its -wal file if the daemon was running)"
    )]
    Corrupt { path: String, why: String },
    #[error(
        "{path} uses Dolphie replay schema version {found}; this innodebt reads version {SCHEMA_VERSION} (Dolphie 6.x): replay it with the Dolphie that wrote it, or import a file of schema {SCHEMA_VERSION}"
    )]
    Schema { path: String, found: String },
    #[error(
        "{path} was recorded from {source_kind}, not from a MySQL or MariaDB server: it holds no InnoDB figures to import"
    )]
    NotMysql { path: String, source_kind: String },
    #[error(
        "{path} holds no recorded rows{why}: let Dolphie record for a while, then import again"
    )]
    Empty { path: String, why: String },
    #[error(
        "cannot hold the imported events in a temporary file: {0} (check that $TMPDIR is writable and has room)"
    )]
    Scratch(std::io::Error),
}

type Result<T> = std::result::Result<T, DolphieError>;

/// What the file held, ready to write.
pub struct Imported {
    pub header: Header,
    /// In order, read back from the temporary file they waited in.
    pub events: SpilledEvents,
    /// When the first sample was taken.
    pub first_sample: DateTime<Utc>,
    /// Dolphie's `variable_changes`, as notes at their moment.
    pub notes: Vec<Note>,
    pub samples: usize,
    /// The resolution, in whole seconds.
    pub interval_s: u64,
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// The SQLite error's words, and whether it says the file is damaged or cut.
fn classify(path: &Path, e: rusqlite::Error) -> DolphieError {
    use rusqlite::ffi::ErrorCode;
    let why = e.to_string();
    let code = match &e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    };
    match code {
        Some(ErrorCode::NotADatabase) => DolphieError::NotSqlite {
            path: shown(path),
            why,
        },
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::SystemIoFailure) => DolphieError::Corrupt {
            path: shown(path),
            why,
        },
        _ => DolphieError::Unreadable {
            path: shown(path),
            why,
        },
    }
}

/// `2026-11-26 13:38:49` as Dolphie wrote it: UTC from 6.17 on, the machine's local time
/// before (read here in this machine's zone, which the header then says).
fn row_time(stamp: &str, utc: bool) -> Option<DateTime<Utc>> {
    let naive = NaiveDateTime::parse_from_str(stamp.trim(), "%Y-%m-%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(stamp.trim(), "%Y-%m-%d %H:%M:%S%.f"))
        .ok()?;
    if utc {
        Some(naive.and_utc())
    } else {
        chrono::Local
            .from_local_datetime(&naive)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
    }
}

fn version_at_least(version: &str, (major, minor): (u32, u32)) -> bool {
    let mut parts = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (a, b) >= (major, minor)
}

struct Meta {
    host: String,
    port: String,
    distro: String,
    dolphie_version: String,
    dict: Option<Vec<u8>>,
}

fn metadata(path: &Path, db: &Connection) -> Result<Meta> {
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut st| {
            st.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| classify(path, e))?;
    for wanted in ["metadata", "replay_data"] {
        if !tables.iter().any(|t| t == wanted) {
            return Err(DolphieError::NotDolphie {
                path: shown(path),
                missing: wanted.into(),
            });
        }
    }
    let row = db
        .query_row(
            "SELECT schema_version, host, port, host_distro, connection_source, dolphie_version, compression_dict FROM metadata LIMIT 1",
            [],
            |r| {
                let text = |i: usize| -> rusqlite::Result<String> {
                    Ok(match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Null => String::new(),
                        rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                        rusqlite::types::ValueRef::Real(f) => f.to_string(),
                        rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                            String::from_utf8_lossy(t).into_owned()
                        }
                    })
                };
                Ok((
                    text(0)?,
                    Meta {
                        host: text(1)?,
                        port: text(2)?,
                        distro: text(3)?,
                        dolphie_version: text(5)?,
                        dict: r.get::<_, Option<Vec<u8>>>(6)?,
                    },
                    text(4)?,
                ))
            },
        )
        .optional()
        .map_err(|e| match e {
            rusqlite::Error::SqliteFailure(..) => classify(path, e),
            other => DolphieError::NotDolphie {
                path: shown(path),
                missing: format!("readable metadata ({other})"),
            },
        })?;
    let Some((schema, meta, source)) = row else {
        return Err(DolphieError::NotDolphie {
            path: shown(path),
            missing: "metadata row in its metadata".into(),
        });
    };
    if schema.trim() != SCHEMA_VERSION.to_string() {
        return Err(DolphieError::Schema {
            path: shown(path),
            found: if schema.is_empty() {
                "(none)".into()
            } else {
                schema
            },
        });
    }
    if !source.is_empty() && !source.eq_ignore_ascii_case("mysql") {
        return Err(DolphieError::NotMysql {
            path: shown(path),
            source_kind: source,
        });
    }
    Ok(meta)
}

/// Reads the whole file and builds the capture's header, events and notes.
pub fn import(path: &Path) -> Result<Imported> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(DolphieError::Missing { path: shown(path) });
        }
        Err(e) => {
            return Err(DolphieError::Unreadable {
                path: shown(path),
                why: e.to_string(),
            });
        }
        Ok(m) if !m.is_file() => {
            return Err(DolphieError::Unreadable {
                path: shown(path),
                why: "not a regular file".into(),
            });
        }
        Ok(m) if m.len() == 0 => {
            return Err(DolphieError::NotSqlite {
                path: shown(path),
                why: "it is empty".into(),
            });
        }
        Ok(_) => {}
    }
    // Read-only: a daemon may still be writing it, and an import must never change it.
    let db = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| classify(path, e))?;
    let meta = metadata(path, &db)?;
    // A cut file often opens and even answers the first queries: ask SQLite to check every
    // page before trusting any row (a second or so for a day of rows).
    let check: String = db
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    if check != "ok" {
        return Err(DolphieError::Corrupt {
            path: shown(path),
            why: check,
        });
    }

    let utc = version_at_least(&meta.dolphie_version, UTC_FROM);
    let dict = meta.dict.as_deref().filter(|d| !d.is_empty());
    let mut unpack = Unpacker::new(dict).ok_or_else(|| DolphieError::Corrupt {
        path: shown(path),
        why: "its compression dictionary is unusable".into(),
    })?;
    let label = format!("dolphie {}:{}", meta.host, meta.port);
    let mut mapper = Mapper::new(&label);
    let (mut unreadable, mut rows, mut badtime) = (0usize, 0usize, 0usize);
    // The spacing of consecutive readable rows, counted: its median is the resolution.
    let mut gaps: BTreeMap<i64, usize> = BTreeMap::new();
    let mut last_stamp: Option<i64> = None;
    let mut spill = EventSpill::new().map_err(DolphieError::Scratch)?;
    let (mut first_event, mut first_sample) = (None, None);
    {
        let mut st = db
            .prepare("SELECT timestamp, data FROM replay_data ORDER BY id")
            .map_err(|e| classify(path, e))?;
        let mut it = st.query([]).map_err(|e| classify(path, e))?;
        while let Some(r) = it.next().map_err(|e| classify(path, e))? {
            rows += 1;
            let stamp: Option<String> = r.get(0).ok();
            let Some(at) = stamp.as_deref().and_then(|s| row_time(s, utc)) else {
                badtime += 1;
                continue;
            };
            let blob = match r.get_ref(1) {
                Ok(rusqlite::types::ValueRef::Blob(b)) => b,
                _ => &[],
            };
            let Some(data) = unpack.decode(blob) else {
                unreadable += 1;
                continue;
            };
            mapper.push(at, &data);
            for ev in mapper.take_events() {
                first_event.get_or_insert(ev.at());
                if let Some(s) = ev.as_sample() {
                    first_sample.get_or_insert(s.taken_at);
                }
                spill.push(&ev).map_err(DolphieError::Scratch)?;
            }
            let t = at.timestamp();
            if let Some(g) = last_stamp.map(|l| t - l).filter(|g| *g > 0) {
                *gaps.entry(g).or_default() += 1;
            }
            last_stamp = Some(t);
        }
    }
    let mapped = mapper.finish();
    let Some(first_sample) = first_sample.filter(|_| mapped.samples > 0) else {
        let why = match (rows, unreadable + badtime) {
            (0, _) => String::new(),
            (n, bad) if bad == n => format!(" it can read ({n} rows, none decodable)"),
            (n, _) => format!(" with InnoDB figures ({n} rows)"),
        };
        return Err(DolphieError::Empty {
            path: shown(path),
            why,
        });
    };

    let changes = variable_changes(path, &db, utc)?;
    let notes: Vec<Note> = changes.iter().map(Change::note).collect();

    // The resolution: the median spacing of the rows, in whole seconds (Dolphie's
    // --refresh-interval; rows are stamped to the second).
    let middle = gaps.values().sum::<usize>() / 2;
    let interval_s = gaps
        .iter()
        .scan(0, |seen, (gap, n)| {
            *seen += n;
            Some((*seen, *gap))
        })
        .find(|(seen, _)| *seen > middle)
        .map_or(1, |(_, gap)| gap)
        .max(1) as u64;

    let mut summary = format!(
        "imported from Dolphie at {interval_s} s: {} (Dolphie {}, {}{})",
        meta.host_port(),
        if meta.dolphie_version.is_empty() {
            "version unknown"
        } else {
            &meta.dolphie_version
        },
        if meta.distro.is_empty() {
            "server kind unknown"
        } else {
            &meta.distro
        },
        if utc {
            ""
        } else {
            "; rows stamped in the recording machine's local time, read in this machine's zone"
        }
    );
    if !mapped.unknown.is_empty() {
        summary.push_str("; unknown (not in the file): ");
        summary.push_str(&mapped.unknown.join(", "));
    }
    let mut header_notes = vec![summary];
    if mapped.dirty_from_bytes {
        header_notes.push(
            "dirty pages = Innodb_buffer_pool_bytes_dirty ÷ innodb_page_size (exact without ROW_FORMAT=COMPRESSED tables)".into(),
        );
    }
    if mapped.restarts > 0 {
        header_notes.push(format!(
            "the server restarted {} time(s) in the file (Uptime went back)",
            mapped.restarts
        ));
    }
    if unreadable + badtime > 0 {
        header_notes.push(format!(
            "{} of {rows} rows could not be read and were skipped (a row Dolphie could not finish writing, or a damaged one)",
            unreadable + badtime
        ));
    }
    let started_at = first_event.unwrap_or(first_sample);
    let header = Header {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at,
        server: mapped.info.clone(),
        keep_queries: false,
        interval_ms: Some(interval_s * 1000),
        origin: format!("dolphie {}", meta.host_port()),
        notes: header_notes,
    };
    Ok(Imported {
        header,
        samples: mapped.samples,
        events: spill.into_events().map_err(DolphieError::Scratch)?,
        first_sample,
        notes,
        interval_s,
    })
}

impl Meta {
    fn host_port(&self) -> String {
        match (self.host.is_empty(), self.port.is_empty()) {
            (true, _) => "host unknown".into(),
            (false, true) => self.host.clone(),
            (false, false) => format!("{}:{}", self.host, self.port),
        }
    }
}

/// Dolphie's `variable_changes`, oldest first (a file without the table has none).
fn variable_changes(path: &Path, db: &Connection, utc: bool) -> Result<Vec<Change>> {
    let has: bool = db
        .query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'variable_changes'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| classify(path, e))?;
    if !has {
        return Ok(Vec::new());
    }
    let mut st = db
        .prepare(
            "SELECT timestamp, variable_name, old_value, new_value FROM variable_changes ORDER BY timestamp, id",
        )
        .map_err(|e| classify(path, e))?;
    let text = |v: rusqlite::types::ValueRef<'_>| -> Option<String> {
        match v {
            rusqlite::types::ValueRef::Null => None,
            rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
            rusqlite::types::ValueRef::Real(f) => Some(f.to_string()),
            rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                Some(String::from_utf8_lossy(t).into_owned())
            }
        }
    };
    let rows = st
        .query_map([], |r| {
            Ok((
                text(r.get_ref(0)?),
                text(r.get_ref(1)?),
                text(r.get_ref(2)?),
                text(r.get_ref(3)?),
            ))
        })
        .map_err(|e| classify(path, e))?;
    let mut out = Vec::new();
    for r in rows {
        let (stamp, name, old, new) = r.map_err(|e| classify(path, e))?;
        let (Some(at), Some(name)) = (stamp.as_deref().and_then(|s| row_time(s, utc)), name) else {
            continue;
        };
        out.push(Change { at, name, old, new });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_times() {
        assert!(version_at_least("6.18.0", UTC_FROM));
        assert!(version_at_least("6.17.0", UTC_FROM));
        assert!(!version_at_least("6.16.0", UTC_FROM));
        assert!(!version_at_least("", UTC_FROM));
        assert!(version_at_least("7.0", UTC_FROM));
        let t = row_time("2026-11-26 13:38:49", true).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-26T13:38:49+00:00");
        assert!(row_time("yesterday", true).is_none());
    }
}
