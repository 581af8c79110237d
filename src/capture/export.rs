//! CSV export of the derived figures: the events go through the same [`Deriver`] as the
//! dashboard, and each sample's [`Figures`] become one flat row (RFC 3339 time, an empty cell
//! for anything unknown) for a spreadsheet or a plotting script.

use std::io::{self, Write};

use chrono::SecondsFormat;

use crate::derive::Deriver;
use crate::figures::Figures;
use crate::sample::SourceEvent;

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

/// The columns, in order: name and how to read it.
const COLUMNS: &[(&str, Cell)] = &[
    ("time", |f| {
        f.sampled_at.to_rfc3339_opts(SecondsFormat::Millis, true)
    }),
    ("interval_s", |f| num(f.interval_s, 3)),
    ("lsn", |f| int(f.redo.lsn)),
    ("checkpoint_lsn", |f| int(f.redo.checkpoint_lsn)),
    ("checkpoint_age_bytes", |f| int(f.redo.checkpoint_age_bytes)),
    ("redo_capacity_bytes", |f| int(f.redo.capacity_bytes)),
    ("checkpoint_age_pct", |f| {
        num(f.redo.checkpoint_age_pct_of_capacity, 2)
    }),
    ("async_point_bytes", |f| int(f.redo.async_point_bytes)),
    ("sync_point_bytes", |f| int(f.redo.sync_point_bytes)),
    ("redo_written_bytes_per_s", |f| {
        num(f.redo.written_bytes_per_s, 1)
    }),
    ("flush_total_pages_per_s", |f| {
        num(f.flush.total_pages_per_s, 2)
    }),
    ("flush_adaptive_pages_per_s", |f| {
        num(f.flush.by_source_pages_per_s.adaptive, 2)
    }),
    ("flush_lru_pages_per_s", |f| {
        num(f.flush.by_source_pages_per_s.lru, 2)
    }),
    ("flush_sync_pages_per_s", |f| {
        num(f.flush.by_source_pages_per_s.sync, 2)
    }),
    ("flush_background_pages_per_s", |f| {
        num(f.flush.by_source_pages_per_s.background, 2)
    }),
    ("flush_neighbor_pages_per_s", |f| {
        num(f.flush.by_source_pages_per_s.neighbor, 2)
    }),
    ("flush_list_pages_per_s", |f| {
        num(f.flush.flush_list_pages_per_s, 2)
    }),
    ("history_length", |f| int(f.history.length)),
    ("history_growth_per_s", |f| num(f.history.growth_per_s, 2)),
    ("history_held_back", |f| int(f.history.held_back)),
    ("seconds_to_max_purge_lag", |f| {
        num(f.history.seconds_to_max_purge_lag, 1)
    }),
    ("purge_records_per_s", |f| num(f.purge.records_per_s, 2)),
    ("purge_undo_pages_per_s", |f| {
        num(f.purge.undo_pages_per_s, 2)
    }),
    ("purge_inflow_records_per_s", |f| {
        num(f.purge.inflow_records_per_s, 2)
    }),
    ("dml_delay_us", |f| int(f.purge.dml_delay_us)),
    ("dml_delay_applied_us", |f| {
        int(f.purge.dml_delay_applied_us)
    }),
    ("purge_state", |f| f.purge.state.clone().unwrap_or_default()),
    ("dirty_pages", |f| int(f.dirty.pages)),
    ("dirty_pct", |f| num(f.dirty.pct, 2)),
    ("dirty_max_pct", |f| num(f.dirty.max_pct, 2)),
    ("undo_size_bytes", |f| int(f.undo.size_bytes)),
    ("undo_reads_per_s", |f| num(f.undo.reads_per_s, 2)),
    ("undo_cached_pages", |f| int(f.undo.cached_pages)),
    ("undo_resident_pct", |f| num(f.undo.resident_pct, 2)),
    ("blocker_thread_id", |f| {
        int(f.blocker.as_ref().and_then(|b| b.thread_id))
    }),
    ("blocker_age_s", |f| {
        int(f.blocker.as_ref().map(|b| b.age_s))
    }),
    ("blocker_trx_id", |f| {
        f.blocker
            .as_ref()
            .map(|b| b.trx_id.clone())
            .unwrap_or_default()
    }),
];

/// The header row's names, in column order.
pub fn csv_columns() -> Vec<&'static str> {
    COLUMNS.iter().map(|(n, _)| *n).collect()
}

/// RFC 4180 quoting when the text needs it.
fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

fn header<W: Write>(out: &mut W) -> io::Result<()> {
    let mut line = csv_columns().join(",");
    line.push('\n');
    out.write_all(line.as_bytes())
}

fn row<W: Write>(out: &mut W, figures: &Figures) -> io::Result<()> {
    let cells: Vec<String> = COLUMNS
        .iter()
        .map(|(_, cell)| quote(&cell(figures)))
        .collect();
    let mut line = cells.join(",");
    line.push('\n');
    out.write_all(line.as_bytes())
}

/// Writes a header row and one row per sample (events other than samples update the server
/// facts, as they do live). Returns the number of data rows.
pub fn export_csv<'a, I, W>(events: I, mut out: W) -> io::Result<u64>
where
    I: IntoIterator<Item = &'a SourceEvent>,
    W: Write,
{
    header(&mut out)?;
    let mut deriver = Deriver::new();
    let mut rows = 0;
    for event in events {
        if let Some(figures) = deriver.push(event) {
            row(&mut out, &figures)?;
            rows += 1;
        }
    }
    out.flush()?;
    Ok(rows)
}

/// Like [`export_csv`] for figures already derived (a replay's window of a capture).
pub fn export_csv_figures<I, W>(figures: I, mut out: W) -> io::Result<u64>
where
    I: IntoIterator<Item = io::Result<Figures>>,
    W: Write,
{
    header(&mut out)?;
    let mut rows = 0;
    for f in figures {
        row(&mut out, &f?)?;
        rows += 1;
    }
    out.flush()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_quotes() {
        assert_eq!(num(Some(12.5), 2), "12.5");
        assert_eq!(num(Some(3.0), 2), "3");
        assert_eq!(num(Some(-0.0001), 2), "0");
        assert_eq!(num(Some(f64::NAN), 2), "");
        assert_eq!(num(None, 2), "");
        assert_eq!(quote("running but idle"), "running but idle");
        assert_eq!(quote("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
