//! Pure parser of `SHOW ENGINE INNODB STATUS` text: the redo figures (LSNs, Percona checkpoint
//! ages), the undo figures (trx id counter, purge position, history list length), buffer pool
//! page counts and the transaction list.
//!
//! It owns no I/O and never panics: the input may be raw text, mysql-client `\G` output,
//! a table-wrapped cell (with `|` borders, maybe with literal `\n` escapes from batch mode),
//! CRLF text, or output cut short by the 1 MB status limit. Values that are not printed
//! stay `None`; nothing here is derived (the checkpoint age is only copied when printed).
//!
//! Formats checked against the server sources (`lock_print_info_summary`,
//! `trx_print_low`, `log_print`, XtraDB's `log_print` extras, `thd_security_context`):
//! - MySQL ≤ 5.1 built-in InnoDB prints LSNs and trx ids as two decimal halves
//!   (`"%lu %lu"`, high and low 32 bits);
//! - the InnoDB plugin, MySQL 5.5, XtraDB and MariaDB 5.5 print trx ids as one hex number
//!   (`TRX_ID_FMT "%llX"`), even when it has no letter (`Trx id counter 1007`); they also
//!   print the old `YYMMDD HH:MM:SS` header, which is how they are told apart;
//! - MySQL ≥ 5.6 / MariaDB ≥ 10.0 print decimal ids and a `YYYY-MM-DD` header;
//! - MariaDB ≥ 10.6 prints `---TRANSACTION (0x...)` for transactions without an id.

mod layout;
mod numbers;
mod semaphores;
mod transactions;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use layout::{collapse_ws, looks_escaped, select_block, strip_table_borders, unescape_batch};
use numbers::{first_u64, ids_are_hex, parse_id, parse_two_part};
use transactions::TrxBuilder;

pub use semaphores::SemaphoreWait;

const MONITOR_MARK: &str = "INNODB MONITOR OUTPUT";
const END_MARK: &str = "END OF INNODB MONITOR OUTPUT";
const MAX_SECTIONS: usize = 64;

/// What one `SHOW ENGINE INNODB STATUS` output says about redo and undo debt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InnodbStatus {
    /// Log sequence number
    pub lsn: Option<u64>,
    /// Log flushed up to
    pub log_flushed_lsn: Option<u64>,
    /// Pages flushed up to
    pub pages_flushed_lsn: Option<u64>,
    /// Last checkpoint at
    pub checkpoint_lsn: Option<u64>,
    /// Max checkpoint age (Percona/XtraDB)
    pub max_checkpoint_age: Option<u64>,
    /// Checkpoint age target (Percona/XtraDB)
    pub checkpoint_age_target: Option<u64>,
    /// Checkpoint age as printed (Percona/XtraDB); never computed here
    pub checkpoint_age: Option<u64>,
    /// History list length
    pub history_length: Option<u64>,
    /// Trx id counter
    pub trx_id_counter: Option<u64>,
    /// Purge done for trx's n:o < X
    pub purge_done_trx: Option<u64>,
    /// undo n:o < Y
    pub purge_done_undo: Option<u64>,
    /// "running", "running but idle", "stopped", ... (MySQL ≥ 5.6, MariaDB)
    pub purge_state: Option<String>,
    /// "N read views open inside InnoDB"
    pub read_views_open: Option<u64>,
    /// Buffer pool size in pages (first block: the total when there are several instances)
    pub buffer_pool_pages: Option<u64>,
    /// Free buffers
    pub free_pages: Option<u64>,
    /// Database pages
    pub database_pages: Option<u64>,
    /// Modified db pages
    pub modified_pages: Option<u64>,
    /// `---TRANSACTION` entries of the TRANSACTIONS section, in printed order
    pub transactions: Vec<StatusTransaction>,
    /// The threads in the SEMAPHORES section's wait array, in printed order; `None` when
    /// the output had no SEMAPHORES section (an empty array is `Some` and empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semaphore_waits: Option<Vec<SemaphoreWait>>,
    /// Section headers seen (LOG, TRANSACTIONS, ...), in order, without repeats
    pub sections: Vec<String>,
    /// No `END OF INNODB MONITOR OUTPUT` marker: the output was cut short
    pub truncated: bool,
}

/// One `---TRANSACTION` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusTransaction {
    /// The id as printed: decimal, hex, two halves (`0 1234`) or a MariaDB pointer
    /// (`0x7f...`, printed in parentheses, kept without them)
    pub trx_id: Option<String>,
    /// "ACTIVE", "ACTIVE (PREPARED)", "not started", "COMMITTED IN MEMORY", ...
    pub state: Option<String>,
    /// "ACTIVE 123 sec"
    pub active_s: Option<u64>,
    /// MySQL/MariaDB thread id
    pub thread_id: Option<u64>,
    pub user: Option<String>,
    pub host: Option<String>,
    /// "Trx read view will not see trx with id >= ..." was printed for it
    pub has_read_view: bool,
    /// The query line(s) after the thread line, if any (first 1,000 chars)
    pub query: Option<String>,
}

/// Parses one `SHOW ENGINE INNODB STATUS` output. When the text holds several, the first
/// complete one is used (or the first one, marked truncated, when none is complete).
pub fn parse(text: &str) -> InnodbStatus {
    parse_keeping(text, usize::MAX)
}

/// [`parse`], keeping only the `keep` oldest transactions (by `ACTIVE n sec`, in printed
/// order): the server prints every open transaction — 500 of them are ~100 KB of text and
/// as much again parsed — and the live poller needs none of them but the oldest.
pub fn parse_keeping(text: &str, keep: usize) -> InnodbStatus {
    let unescaped;
    let text = if looks_escaped(text) {
        unescaped = unescape_batch(text);
        unescaped.as_str()
    } else {
        text
    };
    let all: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let (block, truncated) = select_block(&all);
    let header = block
        .first()
        .filter(|l| l.contains(MONITOR_MARK) && !l.contains(END_MARK))
        .copied();
    let lines = strip_table_borders(block);
    let norm: Vec<Cow<str>> = lines.iter().map(|l| collapse_ws(l)).collect();

    let mut st = InnodbStatus {
        truncated,
        ..InnodbStatus::default()
    };
    let hex_ids = ids_are_hex(header, &norm);
    let mut trx: Option<TrxBuilder> = None;
    let mut cells = semaphores::Cells::default();

    for (i, (raw, line)) in lines.iter().zip(norm.iter()).enumerate() {
        let is_header = is_section_header(&norm, i);
        if is_header || line.starts_with(END_MARK) {
            if let Some(b) = trx.take() {
                push_kept(&mut st.transactions, b.finish(), keep);
            }
            // Real outputs have about ten sections; the cap keeps hostile input linear.
            if is_header
                && st.sections.len() < MAX_SECTIONS
                && !st.sections.iter().any(|s| s == line)
            {
                st.sections.push(line.to_string());
            }
            if is_header && line == "SEMAPHORES" && st.semaphore_waits.is_none() {
                st.semaphore_waits = Some(Vec::new());
            }
            continue;
        }
        if st.sections.last().is_some_and(|s| s == "SEMAPHORES")
            && let Some(waits) = st.semaphore_waits.as_mut()
        {
            cells.take_line(waits, line);
        }
        if let Some(rest) = line.strip_prefix("---TRANSACTION") {
            if let Some(b) = trx.take() {
                push_kept(&mut st.transactions, b.finish(), keep);
            }
            trx = Some(TrxBuilder::new(rest));
            continue;
        }
        if let Some(b) = trx.as_mut()
            && b.take_line(raw, line)
        {
            continue;
        }
        parse_field(&mut st, line, hex_ids);
    }
    if let Some(b) = trx.take() {
        push_kept(&mut st.transactions, b.finish(), keep);
    }
    st
}

/// Adds `t`, then drops the youngest when over `keep` (an unknown age counts as youngest;
/// of equals, the one printed last).
fn push_kept(kept: &mut Vec<StatusTransaction>, t: StatusTransaction, keep: usize) {
    kept.push(t);
    if kept.len() > keep {
        // The server lists the newest first: of transactions as old to the second, the one
        // printed first is the youngest (INNODB_TRX's oldest rows are the ones kept).
        let youngest = kept
            .iter()
            .enumerate()
            .min_by_key(|(_, t)| t.active_s)
            .map(|(i, _)| i);
        if let Some(i) = youngest {
            kept.remove(i);
        }
    }
}

/// Reads one whitespace-normalised line into the figure it names, keeping the first value.
fn parse_field(st: &mut InnodbStatus, line: &str, hex_ids: bool) {
    // Order matters where one prefix starts another ("Checkpoint age target" / "Checkpoint age").
    let lsn_fields: [(&str, &mut Option<u64>); 7] = [
        ("Log sequence number ", &mut st.lsn),
        ("Log flushed up to ", &mut st.log_flushed_lsn),
        ("Pages flushed up to ", &mut st.pages_flushed_lsn),
        ("Last checkpoint at ", &mut st.checkpoint_lsn),
        ("Max checkpoint age ", &mut st.max_checkpoint_age),
        ("Checkpoint age target ", &mut st.checkpoint_age_target),
        ("Checkpoint age ", &mut st.checkpoint_age),
    ];
    for (prefix, slot) in lsn_fields {
        if let Some(rest) = line.strip_prefix(prefix) {
            set_once(slot, parse_two_part(rest));
            return;
        }
    }
    let count_fields: [(&str, &mut Option<u64>); 5] = [
        ("History list length ", &mut st.history_length),
        ("Buffer pool size ", &mut st.buffer_pool_pages),
        ("Free buffers ", &mut st.free_pages),
        ("Database pages ", &mut st.database_pages),
        ("Modified db pages ", &mut st.modified_pages),
    ];
    for (prefix, slot) in count_fields {
        if let Some(rest) = line.strip_prefix(prefix) {
            set_once(slot, first_u64(rest));
            return;
        }
    }
    if let Some(rest) = line.strip_prefix("Trx id counter ") {
        set_once(&mut st.trx_id_counter, parse_id(rest, hex_ids));
    } else if let Some(rest) = line.strip_prefix("Purge done for trx's n:o < ") {
        if st.purge_done_trx.is_some() || st.purge_done_undo.is_some() {
            return;
        }
        let (trx_part, after) = rest.split_once("undo n:o <").unwrap_or((rest, ""));
        let (undo_part, state) = match after.split_once("state:") {
            Some((u, s)) => (u, Some(s.trim())),
            None => (after, None),
        };
        st.purge_done_trx = parse_id(trx_part, hex_ids);
        st.purge_done_undo = parse_id(undo_part, hex_ids);
        st.purge_state = state.filter(|s| !s.is_empty()).map(str::to_string);
    } else if let Some(n) = line.strip_suffix(" read views open inside InnoDB") {
        set_once(&mut st.read_views_open, first_u64(n));
    }
}

fn set_once(slot: &mut Option<u64>, value: Option<u64>) {
    if slot.is_none() {
        *slot = value;
    }
}

/// A section header is a line of capitals between two dash lines.
fn is_section_header(norm: &[Cow<str>], i: usize) -> bool {
    let dashes = |j: Option<usize>| {
        j.and_then(|j| norm.get(j))
            .is_some_and(|l| l.len() >= 3 && l.bytes().all(|b| b == b'-'))
    };
    let Some(line) = norm.get(i) else {
        return false;
    };
    dashes(i.checked_sub(1))
        && dashes(i.checked_add(1))
        && !line.starts_with('-')
        && line.len() <= 80
        && !line.chars().any(|c| c.is_lowercase())
        && line.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2
}

#[cfg(test)]
mod tests;
