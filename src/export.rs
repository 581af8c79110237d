//! Export of the derived figures: the events go through the same [`Deriver`] as the
//! dashboard, and each sample's [`Figures`] become one flat CSV row (RFC 3339 time, an empty
//! cell for anything unknown) for a spreadsheet or a plotting script, or one JSON line (the
//! `--once --format json` object). Each CSV row carries the sample's judgement as the verdicts
//! made it: `severity` (the worst) and `verdicts` (their kinds, most severe first). Bookmarks
//! ride on the sample at or after their time: the CSV's last column `notes` (several joined
//! with ` | `), the JSON's `notes` array. The `csv` crate writes (and quotes) the CSV.

use std::io::{self, Write};

use chrono::SecondsFormat;

use innodebt_capture::format::Note;
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::{FigureId, Figures};
use innodebt_server::sample::SourceEvent;

/// A cell's text from the figures.
type Cell = fn(&Figures) -> String;

fn int(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Fixed decimals without trailing zeros (`12.5`, `3`, `0.125`); non-finite → empty.
fn num(v: Option<f64>, decimals: usize) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return String::new();
    };
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" { "0".to_string() } else { s }
}

/// How a column reads the figures: a figure of the registry ([`FigureId::number`]; whole, or
/// with this many decimals), or a cell of its own (times, text, what is no figure).
enum Col {
    Figure(FigureId, Option<usize>),
    /// A figure of the registry that is words (`purge.state`).
    Words(FigureId, Cell),
    Cell(Cell),
}

impl Col {
    fn cell(&self, f: &Figures) -> String {
        match self {
            // Whole numbers as integers (an LSN is far below 2^53).
            Col::Figure(id, None) => id
                .number(f)
                .map(|v| format!("{}", v as u64))
                .unwrap_or_default(),
            Col::Figure(id, Some(d)) => num(id.number(f), *d),
            Col::Words(_, c) | Col::Cell(c) => c(f),
        }
    }
}

/// The figures of the registry the CSV leaves out, and why: a figure added to `FigureId` is
/// a column or listed here (`tests/it/registry.rs`). Columns are not added lightly: the
/// header is what spreadsheets and scripts read.
pub const NOT_IN_CSV: &[(FigureId, &str)] = &[
    (FigureId::ServerUptime, "the server's, not the debt's"),
    (FigureId::AdaptiveLwm, "a line fixed by the settings"),
    (
        FigureId::CheckpointAgeSeverity,
        "judged into severity and verdicts",
    ),
    (FigureId::FlushRegime, "words"),
    (FigureId::IoCapacity, "a setting"),
    (FigureId::IoCapacityMax, "a setting"),
    (
        FigureId::HistoryHeldBy,
        "a record; verdicts names the holder's kind",
    ),
    (FigureId::PurgeThreads, "a setting"),
    (FigureId::PurgeBatchSize, "a setting"),
    (FigureId::MaxPurgeLag, "a setting"),
    (FigureId::MaxPurgeLagDelay, "a setting"),
    (
        FigureId::PurgeBlocked,
        "judged into verdicts (blocked_by_read_view)",
    ),
    (FigureId::PurgeLagTrxNumbers, "not yet a column"),
    (FigureId::PurgeLagSeconds, "not yet a column"),
    (FigureId::PurgeLagSecondsFrom, "words"),
    (FigureId::PurgeLagTransactions, "not yet a column"),
    (FigureId::PurgeLagBasis, "words"),
    (FigureId::PurgePace, "not yet a column"),
    (FigureId::PurgePaceOver, "the window of purge.pace"),
    (FigureId::PurgeMoving, "judged into verdicts"),
    (FigureId::OpenTrx, "not yet a column"),
    (FigureId::OpenRwTrx, "not yet a column"),
    (FigureId::OldestRw, "a record"),
    (FigureId::DirtyDataPages, "a term of dirty_pct"),
    (FigureId::DirtyFreePages, "a term of dirty_pct"),
    (FigureId::DirtyBytes, "dirty_pages times the page size"),
    (FigureId::DirtyLwmPct, "a setting"),
    (FigureId::DirtySeverity, "judged into severity and verdicts"),
    (FigureId::UndoScannedAt, "a time"),
    (FigureId::RollbackSegments, "not yet a column"),
    (FigureId::RollbackSegmentsSetting, "a setting"),
    (FigureId::UndoTablespaces, "a setting"),
    (FigureId::UndoSlotsUsed, "not yet a column"),
    (FigureId::UndoSlotsCached, "not yet a column"),
    (FigureId::WaitsInstrumented, "a property of the server"),
    (FigureId::RsegWaits, "not yet a column"),
    (FigureId::RsegWaitTime, "not yet a column"),
    (FigureId::TrxSysWaits, "not yet a column"),
    (FigureId::TrxSysWaitTime, "not yet a column"),
    (FigureId::SeisRsegWaiters, "not yet a column"),
    (FigureId::SeisTrxSysWaiters, "not yet a column"),
    (
        FigureId::RollbackSeverity,
        "judged into severity and verdicts",
    ),
];

/// The figures the CSV has a column for, with the column's name.
pub fn csv_figures() -> Vec<(FigureId, &'static str)> {
    COLUMNS
        .iter()
        .filter_map(|(name, c)| match c {
            Col::Figure(id, _) | Col::Words(id, _) => Some((*id, *name)),
            Col::Cell(_) => None,
        })
        .collect()
}

/// The columns, in order: name and how to read it.
const COLUMNS: &[(&str, Col)] = &[
    (
        "time",
        Col::Cell(|f| f.sampled_at.to_rfc3339_opts(SecondsFormat::Millis, true)),
    ),
    ("interval_s", Col::Cell(|f| num(f.interval_s, 3))),
    ("lsn", Col::Figure(FigureId::RedoLsn, None)),
    (
        "checkpoint_lsn",
        Col::Figure(FigureId::RedoCheckpointLsn, None),
    ),
    (
        "checkpoint_age_bytes",
        Col::Figure(FigureId::CheckpointAge, None),
    ),
    (
        "redo_capacity_bytes",
        Col::Figure(FigureId::RedoCapacity, None),
    ),
    (
        "checkpoint_age_pct",
        Col::Figure(FigureId::CheckpointAgePct, Some(2)),
    ),
    ("async_point_bytes", Col::Figure(FigureId::AsyncPoint, None)),
    ("sync_point_bytes", Col::Figure(FigureId::SyncPoint, None)),
    (
        "redo_written_bytes_per_s",
        Col::Figure(FigureId::RedoWritten, Some(1)),
    ),
    (
        "flush_total_pages_per_s",
        Col::Figure(FigureId::FlushTotal, Some(2)),
    ),
    (
        "flush_adaptive_pages_per_s",
        Col::Figure(FigureId::FlushAdaptive, Some(2)),
    ),
    (
        "flush_lru_pages_per_s",
        Col::Figure(FigureId::FlushLru, Some(2)),
    ),
    (
        "flush_sync_pages_per_s",
        Col::Figure(FigureId::FlushSync, Some(2)),
    ),
    (
        "flush_background_pages_per_s",
        Col::Figure(FigureId::FlushBackground, Some(2)),
    ),
    (
        "flush_neighbor_pages_per_s",
        Col::Figure(FigureId::FlushNeighbor, Some(2)),
    ),
    (
        "flush_list_pages_per_s",
        Col::Figure(FigureId::FlushList, Some(2)),
    ),
    ("history_length", Col::Figure(FigureId::HistoryLength, None)),
    (
        "history_growth_per_s",
        Col::Figure(FigureId::HistoryGrowth, Some(2)),
    ),
    (
        "history_held_back",
        Col::Figure(FigureId::HistoryHeldBack, None),
    ),
    (
        "seconds_to_max_purge_lag",
        Col::Cell(|f| num(f.history.seconds_to_max_purge_lag, 1)),
    ),
    (
        "purge_records_per_s",
        Col::Figure(FigureId::PurgeRecords, Some(2)),
    ),
    (
        "purge_undo_pages_per_s",
        Col::Figure(FigureId::PurgeUndoPages, Some(2)),
    ),
    (
        "purge_inflow_records_per_s",
        Col::Figure(FigureId::PurgeInflow, Some(2)),
    ),
    ("dml_delay_us", Col::Figure(FigureId::DmlDelay, None)),
    (
        "dml_delay_applied_us",
        Col::Figure(FigureId::DmlDelayApplied, None),
    ),
    (
        "purge_state",
        Col::Words(FigureId::PurgeState, |f| {
            f.purge.state.clone().unwrap_or_default()
        }),
    ),
    ("dirty_pages", Col::Figure(FigureId::DirtyPages, None)),
    ("dirty_pct", Col::Figure(FigureId::DirtyPct, Some(2))),
    ("dirty_max_pct", Col::Figure(FigureId::DirtyMaxPct, Some(2))),
    ("undo_size_bytes", Col::Figure(FigureId::UndoSize, None)),
    (
        "undo_reads_per_s",
        Col::Figure(FigureId::UndoReads, Some(2)),
    ),
    (
        "undo_cached_pages",
        Col::Figure(FigureId::UndoCachedPages, None),
    ),
    (
        "undo_resident_pct",
        Col::Figure(FigureId::UndoResidentPct, Some(2)),
    ),
    (
        "blocker_thread_id",
        Col::Cell(|f| int(f.blocker.as_ref().and_then(|b| b.thread_id))),
    ),
    // The registry's blocker figure is its age: 0 when INNODB_TRX was read and nothing
    // blocks, empty when it could not be read.
    ("blocker_age_s", Col::Figure(FigureId::Blocker, None)),
    (
        "blocker_trx_id",
        Col::Cell(|f| {
            f.blocker
                .as_ref()
                .map(|b| b.trx_id.clone())
                .unwrap_or_default()
        }),
    ),
    (
        "severity",
        Col::Cell(|f| {
            f.severity()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default()
        }),
    ),
    (
        "verdicts",
        Col::Cell(|f| {
            let kinds: Vec<&str> = f.verdicts.iter().map(|v| v.kind.as_str()).collect();
            kinds.join(" ")
        }),
    ),
];

/// The header row's names, in column order (the figures', then `notes`).
pub fn csv_columns() -> Vec<&'static str> {
    let mut names: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
    names.push("notes");
    names
}

/// Hands each row the notes it carries: those at or before its time not given yet; the last
/// row also takes any left (a note after the last sample).
struct NotesByRow<'a> {
    notes: &'a [Note],
    next: usize,
}

impl<'a> NotesByRow<'a> {
    fn new(notes: &'a [Note]) -> Self {
        NotesByRow { notes, next: 0 }
    }

    fn take(&mut self, f: &Figures, last: bool) -> &'a [Note] {
        let from = self.next;
        while self.next < self.notes.len() && (last || self.notes[self.next].at <= f.sampled_at) {
            self.next += 1;
        }
        &self.notes[from..self.next]
    }
}

fn header<W: Write>(out: &mut csv::Writer<W>) -> csv::Result<()> {
    out.write_record(csv_columns())
}

fn row<W: Write>(out: &mut csv::Writer<W>, figures: &Figures, notes: &[Note]) -> csv::Result<()> {
    let texts: Vec<&str> = notes.iter().map(|n| n.text.as_str()).collect();
    let cells = COLUMNS
        .iter()
        .map(|(_, col)| col.cell(figures))
        .chain([texts.join(" | ")]);
    out.write_record(cells)
}

/// Writes a header row and one row per sample (events other than samples update the server
/// facts, as they do live). Returns the number of data rows.
pub fn export_csv<'a, I, W>(events: I, out: W) -> io::Result<u64>
where
    I: IntoIterator<Item = &'a SourceEvent>,
    W: Write,
{
    let mut out = csv::Writer::from_writer(out);
    header(&mut out)?;
    let mut deriver = Deriver::new();
    let mut rows = 0;
    for event in events {
        if let Some(figures) = deriver.push(event) {
            row(&mut out, &figures, &[])?;
            rows += 1;
        }
    }
    out.flush()?;
    Ok(rows)
}

/// Like [`export_csv`] for figures already derived (a replay's window of a capture), with
/// the bookmarks of that window (in time order).
pub fn export_csv_figures<I, W>(figures: I, notes: &[Note], out: W) -> io::Result<u64>
where
    I: IntoIterator<Item = io::Result<Figures>>,
    W: Write,
{
    let mut out = csv::Writer::from_writer(out);
    header(&mut out)?;
    let rows = each_with_notes(figures, notes, |f, n| Ok(row(&mut out, f, n)?))?;
    out.flush()?;
    Ok(rows)
}

/// JSON Lines: one `--once --format json` object per sample, with `notes` (`[{at, text}]`)
/// on the samples that carry any.
pub fn export_json_figures<I, W>(figures: I, notes: &[Note], mut out: W) -> io::Result<u64>
where
    I: IntoIterator<Item = io::Result<Figures>>,
    W: Write,
{
    let rows = each_with_notes(figures, notes, |f, n| {
        let mut v = crate::output::json_value(f).map_err(io::Error::other)?;
        if let (Some(obj), false) = (v.as_object_mut(), n.is_empty()) {
            obj.insert(
                "notes".into(),
                serde_json::to_value(n).map_err(io::Error::other)?,
            );
        }
        serde_json::to_writer(&mut out, &v).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })?;
    out.flush()?;
    Ok(rows)
}

/// Calls `each` for every figures row with its notes; returns the rows.
fn each_with_notes<I>(
    figures: I,
    notes: &[Note],
    mut each: impl FnMut(&Figures, &[Note]) -> io::Result<()>,
) -> io::Result<u64>
where
    I: IntoIterator<Item = io::Result<Figures>>,
{
    let mut by_row = NotesByRow::new(notes);
    let mut rows = 0;
    let mut it = figures.into_iter().peekable();
    while let Some(f) = it.next() {
        let f = f?;
        let last = it.peek().is_none();
        each(&f, by_row.take(&f, last))?;
        rows += 1;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(num(Some(12.5), 2), "12.5");
        assert_eq!(num(Some(3.0), 2), "3");
        assert_eq!(num(Some(-0.0001), 2), "0");
        assert_eq!(num(Some(f64::NAN), 2), "");
        assert_eq!(num(None, 2), "");
    }

    #[test]
    fn notes_ride_on_the_sample_at_or_after_them() {
        let t = |s: i64| chrono::DateTime::from_timestamp(1_700_000_000 + s, 0).unwrap();
        let rows: Vec<io::Result<Figures>> = (0..3)
            .map(|s| {
                Ok(Figures {
                    sampled_at: t(s * 10),
                    ..Figures::default()
                })
            })
            .collect();
        let notes = [
            Note::new(t(0), "at the first"),
            Note::new(t(5), "between, \"quoted\""),
            Note::new(t(10), "on the second"),
            Note::new(t(99), "after the last"),
        ];
        let mut csv = Vec::new();
        let clone = |r: &[io::Result<Figures>]| -> Vec<io::Result<Figures>> {
            r.iter().map(|f| Ok(f.as_ref().unwrap().clone())).collect()
        };
        assert_eq!(
            export_csv_figures(clone(&rows), &notes, &mut csv).unwrap(),
            3
        );
        let text = String::from_utf8(csv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(",notes"));
        assert!(lines[1].ends_with(",at the first"), "{}", lines[1]);
        assert!(
            lines[2].ends_with(",\"between, \"\"quoted\"\" | on the second\""),
            "{}",
            lines[2]
        );
        assert!(lines[3].ends_with(",after the last"), "{}", lines[3]);
        let mut json = Vec::new();
        export_json_figures(clone(&rows), &notes, &mut json).unwrap();
        let values: Vec<serde_json::Value> = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(values.len(), 3);
        assert_eq!(values[1]["notes"][0]["text"], "between, \"quoted\"");
        assert_eq!(values[1]["notes"][1]["text"], "on the second");
        assert!(values[0]["redo"].is_object());
        assert_eq!(values[0]["schema_version"], crate::output::SCHEMA_VERSION);
    }
}
