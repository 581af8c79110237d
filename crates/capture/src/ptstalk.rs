//! pt-stalk import: a directory written by `pt-stalk --dest DIR` becomes the same events a
//! live session would have produced, ready to replay, export or save as a capture.
//!
//! - `PREFIX-mysqladmin` (`mysqladmin ext -i1` tables) → one [`Sample`] per table with its
//!   numeric status values;
//! - `PREFIX-innodbstatus1` / `2` → SHOW ENGINE INNODB STATUS, parsed into the sample nearest
//!   in time (or a sample of its own when no status sample is near);
//! - `PREFIX-variables` → the server's variables and flavour; `PREFIX-hostname` → the label.
//!
//! Times: pt-stalk names files by the *local* time of the capturing machine
//! (`YYYY_MM_DD_HH_MM_SS`). The UTC offset comes from any `TS <epoch> <local time>` line of
//! the same capture (`-procstat`, `-df`, ...); without one, the prefix is taken as UTC and a
//! note says so. Samples follow each other by the `Uptime` step (1 s for `-i1`), or carry their
//! own `TS` line when the file has them. File names may carry an extra leading label or a
//! `.txt` suffix (`ptstalk-2018_03_05_13_24_55-innodbstatus1.txt`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Utc};

use super::format::Header;
use innodebt_server::flavor::{Flavor, VARIABLES};
use innodebt_server::innodb_status::{self, InnodbStatus};
use innodebt_server::sample::{Sample, ServerInfo, SourceEvent};
use innodebt_server::status_dump;

/// Why a directory could not be imported. Each message names the directory or file, what is
/// wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{dir}: cannot list the directory: {source} (check the path and the permissions)")]
    ReadDir {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: cannot read the file: {source} (check the permissions)")]
    ReadFile {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{dir}: no pt-stalk files here (names like 2024_01_31_12_00_00-mysqladmin): point at the directory pt-stalk --dest wrote"
    )]
    NoCapture { dir: String },
    #[error(
        "{dir} holds {count} pt-stalk captures: {list}; choose one with --prefix (for example --prefix {first})"
    )]
    SeveralPrefixes {
        dir: String,
        count: usize,
        list: String,
        first: String,
    },
    #[error("{dir}: no pt-stalk capture with prefix {prefix}; the directory holds: {found}")]
    UnknownPrefix {
        dir: String,
        prefix: String,
        found: String,
    },
    #[error(
        "{dir}: pt-stalk capture {prefix} is incomplete: {missing} (the directory holds only {found} for it); copy the whole pt-stalk directory"
    )]
    Incomplete {
        dir: String,
        prefix: String,
        missing: String,
        found: String,
    },
}

/// One mysqladmin table: its own `TS` time, if printed, and the numeric values.
type Table = (Option<DateTime<Utc>>, BTreeMap<String, u64>);

/// The files of one capture, by kind (`mysqladmin`, `innodbstatus1`, ...).
type Files = BTreeMap<String, PathBuf>;

/// Splits `[label]YYYY_MM_DD_HH_MM_SS-kind[.txt]` into (prefix, kind, local start time).
fn split_name(name: &str) -> Option<(String, String, NaiveDateTime)> {
    let base = name.strip_suffix(".txt").unwrap_or(name);
    let bytes = base.as_bytes();
    const STAMP: usize = 19; // 2024_01_31_12_00_00
    for start in 0..bytes.len().saturating_sub(STAMP) {
        let stamp = &bytes[start..start + STAMP];
        let shape = stamp.iter().enumerate().all(|(i, c)| {
            if matches!(i, 4 | 7 | 10 | 13 | 16) {
                *c == b'_'
            } else {
                c.is_ascii_digit()
            }
        });
        if !shape || bytes.get(start + STAMP) != Some(&b'-') {
            continue;
        }
        let stamp = base.get(start..start + STAMP)?;
        let kind = base.get(start + STAMP + 1..)?;
        let Ok(t) = NaiveDateTime::parse_from_str(stamp, "%Y_%m_%d_%H_%M_%S") else {
            continue;
        };
        if kind.is_empty() {
            return None;
        }
        return Some((base.get(..start + STAMP)?.to_string(), kind.to_string(), t));
    }
    None
}

/// Every capture in the directory: prefix → (local start, files).
fn list_captures(dir: &Path) -> Result<BTreeMap<String, (NaiveDateTime, Files)>, ImportError> {
    let entries = std::fs::read_dir(dir).map_err(|e| ImportError::ReadDir {
        dir: dir.display().to_string(),
        source: e,
    })?;
    let mut out: BTreeMap<String, (NaiveDateTime, Files)> = BTreeMap::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if let Some((prefix, kind, t)) = split_name(name) {
            out.entry(prefix)
                .or_insert_with(|| (t, Files::new()))
                .1
                .insert(kind, entry.path());
        }
    }
    Ok(out)
}

fn read_text(path: &Path) -> Result<String, ImportError> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| ImportError::ReadFile {
            path: path.display().to_string(),
            source: e,
        })
}

/// `TS 1520256295.005 2018-03-05 13:24:55` → (UTC time, local time printed beside it).
fn parse_ts(ts: &str) -> Option<(DateTime<Utc>, Option<NaiveDateTime>)> {
    let mut parts = ts.split_whitespace();
    let epoch = parts.next()?;
    let (secs, frac) = epoch.split_once('.').unwrap_or((epoch, ""));
    let secs: i64 = secs.parse().ok()?;
    let digits: String = frac.chars().take(9).filter(char::is_ascii_digit).collect();
    let nanos: u32 = if digits.is_empty() {
        0
    } else {
        format!("{digits:0<9}").parse().ok()?
    };
    let utc = DateTime::<Utc>::from_timestamp(secs, nanos)?;
    let local = match (parts.next(), parts.next()) {
        (Some(d), Some(t)) => {
            NaiveDateTime::parse_from_str(&format!("{d} {t}"), "%Y-%m-%d %H:%M:%S").ok()
        }
        _ => None,
    };
    Some((utc, local))
}

/// Zones run from UTC−12 to UTC+14; anything past a day is not a time zone.
const MAX_UTC_OFFSET_S: i64 = 24 * 3600;

/// The capture machine's UTC offset (local − UTC), from the first `TS` line with a local time
/// in any of the capture's files, rounded to 15 minutes.
fn utc_offset(files: &Files) -> Option<Duration> {
    for path in files.values() {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]).into_owned();
        for line in head.lines() {
            // `-output` lines read "2024_01_31_12_00_00 Loop start: TS ...": take any TS.
            let Some(idx) = line.find("TS ") else {
                continue;
            };
            if idx > 0 && !line[..idx].ends_with(' ') {
                continue;
            }
            if let Some((utc, Some(local))) = parse_ts(&line[idx + 3..]) {
                let secs = (local - utc.naive_utc()).num_seconds();
                // Real zones are within a day of UTC; further apart, the line is damaged.
                if secs.abs() > MAX_UTC_OFFSET_S {
                    continue;
                }
                let quarter = 900;
                let rounded = (secs as f64 / quarter as f64).round() as i64 * quarter;
                return Some(Duration::seconds(rounded));
            }
        }
    }
    None
}

/// The local time in a SEIS header: `2024-01-31 12:00:00 0x7f.. INNODB MONITOR OUTPUT`
/// (MySQL ≥ 5.6) or `180305 13:24:56 INNODB MONITOR OUTPUT` (older).
fn seis_time(text: &str) -> Option<NaiveDateTime> {
    let line = text.lines().find(|l| {
        l.contains("INNODB MONITOR OUTPUT") && !l.contains("END OF INNODB MONITOR OUTPUT")
    })?;
    let mut words = line.split_whitespace();
    let (date, time) = (words.next()?, words.next()?);
    let date = NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(date, "%y%m%d"))
        .ok()?;
    let time = chrono::NaiveTime::parse_from_str(time, "%H:%M:%S").ok()?;
    Some(date.and_time(time))
}

fn list_kinds(files: &Files) -> String {
    files.keys().cloned().collect::<Vec<_>>().join(", ")
}

/// Imports one pt-stalk capture from `dir`. `prefix` picks one when the directory holds
/// several (the full prefix, or its `YYYY_MM_DD_HH_MM_SS` part).
pub fn import_dir(
    dir: impl AsRef<Path>,
    prefix: Option<&str>,
) -> Result<(Header, Vec<SourceEvent>), ImportError> {
    let dir = dir.as_ref();
    let shown_dir = dir.display().to_string();
    let mut captures = list_captures(dir)?;
    if captures.is_empty() {
        return Err(ImportError::NoCapture { dir: shown_dir });
    }
    let names: Vec<String> = captures.keys().cloned().collect();
    let chosen = match prefix {
        Some(p) => names
            .iter()
            .find(|n| n.as_str() == p)
            .or_else(|| {
                let mut ends = names.iter().filter(|n| n.ends_with(p));
                match (ends.next(), ends.next()) {
                    (Some(n), None) => Some(n),
                    _ => None,
                }
            })
            .cloned()
            .ok_or_else(|| ImportError::UnknownPrefix {
                dir: shown_dir.clone(),
                prefix: p.to_string(),
                found: names.join(", "),
            })?,
        None if names.len() == 1 => names[0].clone(),
        None => {
            return Err(ImportError::SeveralPrefixes {
                dir: shown_dir,
                count: names.len(),
                list: names.join(", "),
                first: names[0].clone(),
            });
        }
    };
    let Some((local_start, files)) = captures.remove(&chosen) else {
        return Err(ImportError::NoCapture { dir: shown_dir });
    };
    let seis_kinds: Vec<&String> = files
        .keys()
        .filter(|k| k.starts_with("innodbstatus"))
        .collect();
    if !files.contains_key("mysqladmin") && seis_kinds.is_empty() {
        return Err(ImportError::Incomplete {
            dir: shown_dir,
            prefix: chosen.clone(),
            missing: format!("{chosen}-mysqladmin and {chosen}-innodbstatus1/2 are both missing"),
            found: list_kinds(&files),
        });
    }

    let mut notes = Vec::new();
    let offset = utc_offset(&files);
    if offset.is_none() {
        notes.push(
            "no TS line tells the capture machine's time zone: file-name times are taken as UTC"
                .to_string(),
        );
    }
    let offset = offset.unwrap_or_else(Duration::zero);
    // Checked: a local time at the edge of the date range must not panic the import.
    let to_utc = |local: NaiveDateTime| local.checked_sub_signed(offset).unwrap_or(local).and_utc();
    let start = to_utc(local_start);

    // Status samples.
    let mut samples: Vec<Sample> = Vec::new();
    let mut step_s = 1i64;
    if let Some(path) = files.get("mysqladmin") {
        let tables = status_dump::parse_mysqladmin_samples(&read_text(path)?);
        let mut tables: Vec<Table> = tables
            .into_iter()
            .map(|t| {
                let ts = t.ts.as_deref().and_then(parse_ts).map(|(utc, _)| utc);
                let values = t
                    .values
                    .into_iter()
                    .filter_map(|(n, v)| Some((n, v.trim().parse::<u64>().ok()?)))
                    .collect();
                (ts, values)
            })
            .filter(|(_, v): &Table| !v.is_empty())
            .collect();
        // pt-stalk stopped mid-table: the last one is short.
        if tables.len() > 1
            && let (Some(first), Some(last)) = (tables.first(), tables.last())
            && last.1.len() * 10 < first.1.len() * 9
        {
            notes.push(format!(
                "{chosen}-mysqladmin: the last table is cut short ({} of {} values): left out",
                last.1.len(),
                first.1.len()
            ));
            tables.pop();
        }
        step_s = uptime_step(&tables.iter().map(|(_, v)| v).collect::<Vec<_>>());
        for (i, (ts, status)) in tables.into_iter().enumerate() {
            let offset_s = i64::try_from(i).unwrap_or(i64::MAX).saturating_mul(step_s);
            let at = ts.unwrap_or(start + Duration::seconds(offset_s));
            let mut s = Sample::new(at, 0.0);
            s.status = status;
            samples.push(s);
        }
        if samples.is_empty() {
            notes.push(format!(
                "{chosen}-mysqladmin holds no mysqladmin extended-status table: no status samples"
            ));
        }
    } else {
        notes.push(format!(
            "{chosen}-mysqladmin is missing: samples come only from SHOW ENGINE INNODB STATUS (no rates)"
        ));
    }

    // SHOW ENGINE INNODB STATUS snapshots.
    let tolerance = Duration::seconds((step_s * 3 / 2).max(2));
    for kind in &seis_kinds {
        let Some(path) = files.get(*kind) else {
            continue;
        };
        let text = read_text(path)?;
        let status = innodb_status::parse(&text);
        if is_empty_status(&status) {
            notes.push(format!(
                "{chosen}-{kind} holds no SHOW ENGINE INNODB STATUS output (was PROCESS missing?)"
            ));
            continue;
        }
        let at = seis_time(&text).map(to_utc).unwrap_or_else(|| {
            if kind.as_str() == "innodbstatus1" {
                start
            } else {
                samples.last().map_or(start, |s| s.taken_at)
            }
        });
        attach_status(&mut samples, status, at, tolerance);
    }
    if samples.is_empty() {
        return Err(ImportError::Incomplete {
            dir: shown_dir,
            prefix: chosen.clone(),
            missing: "neither -mysqladmin nor -innodbstatus1/2 holds anything readable".to_string(),
            found: list_kinds(&files),
        });
    }
    samples.sort_by_key(|s| s.taken_at);
    let first_at = samples[0].taken_at;
    for s in &mut samples {
        s.mono_s = (s.taken_at - first_at).num_microseconds().unwrap_or(0) as f64 / 1e6;
    }

    let info = server_info(&files, &chosen, &mut notes)?;
    let header = Header {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: first_at,
        server: Some(info.clone()),
        keep_queries: false,
        interval_ms: u64::try_from(step_s).ok().map(|s| s * 1000),
        origin: format!("pt-stalk {chosen}"),
        notes,
    };
    let mut events = Vec::with_capacity(samples.len() + 1);
    events.push(SourceEvent::Connected { at: first_at, info });
    events.extend(
        samples
            .into_iter()
            .map(|s| SourceEvent::Sample(Box::new(s))),
    );
    Ok((header, events))
}

/// Seconds between tables: the median `Uptime` step (1 for `mysqladmin -i1`).
fn uptime_step(tables: &[&BTreeMap<String, u64>]) -> i64 {
    let mut steps: Vec<u64> = tables
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (w[0].get("Uptime")?, w[1].get("Uptime")?);
            b.checked_sub(*a)
        })
        .collect();
    steps.sort_unstable();
    steps
        .get(steps.len() / 2)
        .and_then(|s| i64::try_from(*s).ok())
        .filter(|s| (1..=3600).contains(s))
        .unwrap_or(1)
}

fn is_empty_status(st: &InnodbStatus) -> bool {
    st.sections.is_empty() && st.lsn.is_none() && st.history_length.is_none()
}

/// Puts a SEIS into the nearest sample without one when it is close enough; otherwise it
/// becomes a sample of its own.
fn attach_status(
    samples: &mut Vec<Sample>,
    status: InnodbStatus,
    at: DateTime<Utc>,
    tolerance: Duration,
) {
    let nearest = samples
        .iter_mut()
        .filter(|s| s.innodb_status.is_none() && !s.status.is_empty())
        .min_by_key(|s| (s.taken_at - at).abs());
    match nearest {
        Some(s) if (s.taken_at - at).abs() <= tolerance => s.innodb_status = Some(status),
        _ => {
            let mut s = Sample::new(at, 0.0);
            s.innodb_status = Some(status);
            samples.push(s);
        }
    }
}

/// Variables, version and flavour from `-variables`; the label from `-hostname`.
fn server_info(
    files: &Files,
    prefix: &str,
    notes: &mut Vec<String>,
) -> Result<ServerInfo, ImportError> {
    let mut variables = BTreeMap::new();
    if let Some(path) = files.get("variables") {
        for (name, value) in status_dump::parse_name_values(&read_text(path)?) {
            let name = name.to_ascii_lowercase();
            // Only the variables the dashboard reads (the rest hold paths and such); the first
            // occurrence is the global value (per-thread tables may follow).
            if VARIABLES.contains(&name.as_str()) {
                variables.entry(name).or_insert(value);
            }
        }
        if variables.is_empty() {
            notes.push(format!(
                "{prefix}-variables holds no variable the dashboard uses"
            ));
        }
    } else {
        notes.push(format!(
            "{prefix}-variables is missing: server version, flavour and redo size are unknown, so the async/sync points stay empty"
        ));
    }
    let version: String = variables.get("version").cloned().unwrap_or_default();
    let comment: String = variables
        .get("version_comment")
        .cloned()
        .unwrap_or_default();
    let flavor = Flavor::from_variables(&variables);
    let host = match files.get("hostname") {
        Some(path) => read_text(path)?.trim().to_string(),
        None => String::new(),
    };
    let host = if host.is_empty() {
        variables.get("hostname").cloned().unwrap_or_default()
    } else {
        host
    };
    let label = if host.is_empty() {
        format!("pt-stalk {prefix}")
    } else {
        format!("pt-stalk {prefix} on {host}")
    };
    Ok(ServerInfo {
        label,
        version,
        version_comment: comment,
        flavor,
        variables,
        recovery_log: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        let (p, k, t) = split_name("2026_11_21_20_34_37-innodbstatus1").unwrap();
        assert_eq!(
            (p.as_str(), k.as_str()),
            ("2026_11_21_20_34_37", "innodbstatus1")
        );
        assert_eq!(t.to_string(), "2026-11-21 20:34:37");
        let (p, k, _) = split_name("ptstalk-2018_03_05_13_24_55-innodbstatus2.txt").unwrap();
        assert_eq!(
            (p.as_str(), k.as_str()),
            ("ptstalk-2018_03_05_13_24_55", "innodbstatus2")
        );
        assert!(split_name("innotop-innodb-status-002.txt").is_none());
        assert!(split_name("2026_13_21_20_34_37-df").is_none());
        assert!(split_name("2026_11_21_20_34_37-").is_none());
        assert!(split_name("é2026_11_21_20_34_37-df").is_some());
    }

    #[test]
    fn ts_lines_and_seis_headers() {
        let (utc, local) = parse_ts("1795293278.013653773 2026-11-21 20:34:38").unwrap();
        assert_eq!(utc.timestamp(), 1_795_293_278);
        assert_eq!(utc.timestamp_subsec_nanos(), 13_653_773);
        assert_eq!(local.unwrap().to_string(), "2026-11-21 20:34:38");
        assert!(parse_ts("garbage").is_none());
        assert_eq!(
            seis_time("x\n180305 13:24:56 INNODB MONITOR OUTPUT\n")
                .unwrap()
                .to_string(),
            "2018-03-05 13:24:56"
        );
        assert_eq!(
            seis_time("2026-11-21 20:34:37 0x7f2c7c12a6c0 INNODB MONITOR OUTPUT")
                .unwrap()
                .to_string(),
            "2026-11-21 20:34:37"
        );
        assert!(seis_time("END OF INNODB MONITOR OUTPUT").is_none());
    }
}
