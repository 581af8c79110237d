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

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

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

/// The server prints at most 1024 bytes of a query; keep the first 1,000 chars.
const QUERY_MAX_CHARS: usize = 1000;
const MONITOR_MARK: &str = "INNODB MONITOR OUTPUT";
const END_MARK: &str = "END OF INNODB MONITOR OUTPUT";
const MAX_SECTIONS: usize = 64;

/// Parses one `SHOW ENGINE INNODB STATUS` output. When the text holds several, the first
/// complete one is used (or the first one, marked truncated, when none is complete).
pub fn parse(text: &str) -> InnodbStatus {
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

    for (i, (raw, line)) in lines.iter().zip(norm.iter()).enumerate() {
        let is_header = is_section_header(&norm, i);
        if is_header || line.starts_with(END_MARK) {
            if let Some(b) = trx.take() {
                st.transactions.push(b.finish());
            }
            // Real outputs have about ten sections; the cap keeps hostile input linear.
            if is_header
                && st.sections.len() < MAX_SECTIONS
                && !st.sections.iter().any(|s| s == line)
            {
                st.sections.push(line.to_string());
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("---TRANSACTION") {
            if let Some(b) = trx.take() {
                st.transactions.push(b.finish());
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
        st.transactions.push(b.finish());
    }
    st
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

/// Accumulates one `---TRANSACTION` entry while its lines go by.
struct TrxBuilder {
    trx: StatusTransaction,
    phase: TrxPhase,
    query: String,
    query_chars: usize,
}

#[derive(PartialEq)]
enum TrxPhase {
    /// Before the thread line: lock counts, tables in use.
    Head,
    /// After the thread line: lines are query text until a known line.
    Query,
    /// Read view, lock waits and lock lists.
    Tail,
}

impl TrxBuilder {
    /// `rest` is the normalised header after `---TRANSACTION`.
    fn new(rest: &str) -> Self {
        let rest = rest.trim();
        let (id, after) = rest.split_once(',').unwrap_or((rest, ""));
        let id = id.trim();
        let id = id
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(id)
            .trim();
        let (state, active_s) = parse_trx_state(after.trim());
        TrxBuilder {
            trx: StatusTransaction {
                trx_id: (!id.is_empty()).then(|| id.to_string()),
                state,
                active_s,
                ..StatusTransaction::default()
            },
            phase: TrxPhase::Head,
            query: String::new(),
            query_chars: 0,
        }
    }

    /// Takes a line belonging to this transaction; `false` leaves it to the field parser.
    fn take_line(&mut self, raw: &str, line: &str) -> bool {
        if line.starts_with("Trx read view will not see") {
            self.trx.has_read_view = true;
            self.phase = TrxPhase::Tail;
            return true;
        }
        if self.phase == TrxPhase::Head
            && let Some(rest) = line
                .strip_prefix("MySQL thread id ")
                .or_else(|| line.strip_prefix("MariaDB thread id "))
        {
            self.take_thread_line(rest);
            self.phase = TrxPhase::Query;
            return true;
        }
        if self.phase == TrxPhase::Query {
            if ends_query(line) {
                self.phase = TrxPhase::Tail;
                return false;
            }
            self.push_query_line(raw.trim_end());
            return true;
        }
        false
    }

    /// `rest`: "11, OS thread handle 1405, query id 903279 localhost root updating".
    fn take_thread_line(&mut self, rest: &str) {
        self.trx.thread_id = first_u64(rest);
        if let Some((_, after)) = rest.split_once("query id ") {
            let tokens: Vec<&str> = after.split_whitespace().skip(1).collect();
            let (host, user) = host_and_user(&tokens);
            self.trx.host = host;
            self.trx.user = user;
        }
    }

    fn push_query_line(&mut self, raw: &str) {
        if self.query_chars >= QUERY_MAX_CHARS {
            return;
        }
        if !self.query.is_empty() {
            self.query.push('\n');
            self.query_chars += 1;
        }
        for c in raw.chars() {
            if self.query_chars >= QUERY_MAX_CHARS {
                break;
            }
            self.query.push(c);
            self.query_chars += 1;
        }
    }

    fn finish(mut self) -> StatusTransaction {
        let q = self.query.trim();
        if !q.is_empty() {
            self.trx.query = Some(q.to_string());
        }
        self.trx
    }
}

/// `"ACTIVE 12 sec starting index read, thread declared..."` → ("ACTIVE", 12).
fn parse_trx_state(s: &str) -> (Option<String>, Option<u64>) {
    const KNOWN: [&str; 5] = [
        "not started",
        "COMMITTED IN MEMORY",
        "forced rollback done",
        "forced rollback",
        "ACTIVE (PREPARED)",
    ];
    for k in KNOWN {
        if let Some(rest) = s.strip_prefix(k) {
            let secs = if k.starts_with("ACTIVE") {
                seconds(rest)
            } else {
                None
            };
            return (Some(k.to_string()), secs);
        }
    }
    if let Some(rest) = s.strip_prefix("ACTIVE") {
        return (Some("ACTIVE".to_string()), seconds(rest));
    }
    let first = s.split(',').next().unwrap_or("").trim();
    if first.is_empty() {
        (None, None)
    } else {
        (Some(first.chars().take(64).collect()), None)
    }
}

/// `" 12 sec ..."` → 12.
fn seconds(s: &str) -> Option<u64> {
    let mut it = s.split_whitespace();
    let n = it.next()?.parse().ok()?;
    it.next().filter(|w| w.starts_with("sec")).map(|_| n)
}

/// Tokens after "query id N": `[host [ip]] [user] [state...]`. The server prints host, ip,
/// user and state each only when set, so this guesses from the token shapes.
fn host_and_user(tokens: &[&str]) -> (Option<String>, Option<String>) {
    let t0 = tokens.first().copied();
    let t1 = tokens.get(1).copied();
    let t2 = tokens.get(2).copied();
    let owned = |t: Option<&str>| t.map(str::to_string);
    match t0 {
        Some(h) if is_ip(h) => (owned(Some(h)), owned(t1)),
        Some(h) if t1.is_some_and(is_ip) => (owned(Some(h)), owned(t2)),
        Some(h) if h == "localhost" || (h.contains('.') && !h.ends_with('.')) => {
            (owned(Some(h)), owned(t1))
        }
        _ => (None, None),
    }
}

fn is_ip(s: &str) -> bool {
    let v4 = {
        let parts: Vec<&str> = s.split('.').collect();
        parts.len() == 4 && parts.iter().all(|p| p.parse::<u8>().is_ok())
    };
    let v6 = s.contains(':')
        && s.len() >= 2
        && s.chars()
            .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
    v4 || v6
}

/// A line that cannot be query text: the next part of the transaction or of the output.
fn ends_query(line: &str) -> bool {
    const PREFIXES: [&str; 13] = [
        "---",
        "===",
        "Trx read view",
        "Trx #rec lock waits",
        "Trx total ",
        "TABLE LOCK ",
        "RECORD LOCKS ",
        "Record lock,",
        "mysql tables in use ",
        "LOCK WAIT",
        "MySQL thread id ",
        "MariaDB thread id ",
        END_MARK,
    ];
    if PREFIXES.iter().any(|p| line.starts_with(p)) {
        return true;
    }
    // "2 lock struct(s), heap size 1136, ..."
    let mut it = line.split_whitespace();
    it.next()
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        && it.next() == Some("lock")
        && it.next().is_some_and(|w| w.starts_with("struct"))
}

/// Picks the lines of the first complete monitor output; the first output when none is
/// complete; the whole text when no header is found.
fn select_block<'a, 'b>(lines: &'b [&'a str]) -> (&'b [&'a str], bool) {
    let is_start = |l: &str| l.contains(MONITOR_MARK) && !l.contains(END_MARK);
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines.get(i).is_some_and(|l| is_start(l)))
        .collect();
    for (k, &s) in starts.iter().enumerate() {
        let next = starts.get(k + 1).copied().unwrap_or(lines.len());
        let end = (s..next).find(|&i| lines.get(i).is_some_and(|l| l.contains(END_MARK)));
        if let Some(e) = end {
            return (lines.get(s..=e).unwrap_or(lines), false);
        }
    }
    match starts.first() {
        Some(&s) => {
            let next = starts.get(1).copied().unwrap_or(lines.len());
            (lines.get(s..next).unwrap_or(lines), true)
        }
        None => (lines, !lines.iter().any(|l| l.contains(END_MARK))),
    }
}

/// When most lines are wrapped in table borders (`| ... |`), strips them.
fn strip_table_borders<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let non_empty = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let bordered = lines
        .iter()
        .filter(|l| {
            let t = l.trim();
            t.len() >= 2 && t.starts_with('|') && t.ends_with('|')
        })
        .count();
    if non_empty == 0 || bordered * 2 <= non_empty {
        return lines.to_vec();
    }
    lines
        .iter()
        .map(|l| {
            let t = l.trim();
            let t = t.strip_prefix('|').unwrap_or(t);
            let t = t.strip_suffix('|').unwrap_or(t);
            t.strip_prefix(' ').unwrap_or(t).trim_end()
        })
        .collect()
}

/// mysql batch mode (`-B`, `-e` into a pipe) prints the whole status on one line with `\n`
/// escapes. A few escapes inside a query don't count: escapes must outnumber real newlines.
fn looks_escaped(text: &str) -> bool {
    let escaped = text.matches("\\n").count();
    let real = text.matches('\n').count();
    escaped >= 3 && escaped > real
}

/// Undoes mysql's batch-mode escaping (`\n`, `\t`, `\r`, `\0`, `\\`).
fn unescape_batch(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
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

/// Whether single-number trx ids are hex (InnoDB plugin, MySQL 5.5, XtraDB, MariaDB 5.5)
/// rather than decimal (MySQL ≥ 5.6, MariaDB ≥ 10.0). Those two families also differ in
/// the header's timestamp: `111010  9:56:19` versus `2019-07-08 14:30:01 7fe6628b9700`.
fn ids_are_hex(header: Option<&str>, norm: &[Cow<str>]) -> bool {
    if let Some(h) = header {
        let before = h.split(MONITOR_MARK).next().unwrap_or("");
        for tok in before.split_whitespace() {
            let digits = tok.bytes().filter(u8::is_ascii_digit).count();
            if digits == 8 && tok.len() == 10 && tok.bytes().filter(|&b| b == b'-').count() == 2 {
                return false;
            }
            if digits == 6 && tok.len() == 6 {
                return true;
            }
        }
    }
    // No usable header (a fragment): MySQL ≥ 5.6 prints the purge state; old servers often
    // give themselves away with a hex letter.
    let mut hex_letter = false;
    for l in norm {
        if let Some(rest) = l.strip_prefix("Purge done for trx's n:o < ") {
            if rest.contains("state:") {
                return false;
            }
            hex_letter |= rest.split_whitespace().any(has_hex_letter);
        } else if let Some(rest) = l.strip_prefix("Trx id counter ") {
            hex_letter |= rest.split_whitespace().any(has_hex_letter);
        }
    }
    hex_letter
}

fn has_hex_letter(tok: &str) -> bool {
    tok.bytes().all(|b| b.is_ascii_hexdigit()) && tok.bytes().any(|b| b.is_ascii_alphabetic())
}

/// An LSN or age: one decimal number, or two decimal halves (high, low 32 bits) as printed
/// by MySQL ≤ 5.1's built-in InnoDB (`Log sequence number 0 1234567`).
fn parse_two_part(s: &str) -> Option<u64> {
    let mut it = s.split_whitespace();
    let a = decimal(it.next()?)?;
    match it.next().and_then(decimal) {
        Some(b) => combine(a, b),
        None => Some(a),
    }
}

/// A trx or undo number: two halves (`0 418256672`, decimal; hex when a half has a hex
/// letter), or one number, hex when it has a letter or when `hex_ids`.
fn parse_id(s: &str, hex_ids: bool) -> Option<u64> {
    let mut it = s.split_whitespace();
    let a = it.next()?;
    if let Some(b) = it
        .next()
        .filter(|b| b.bytes().all(|c| c.is_ascii_hexdigit()))
    {
        if let (Some(x), Some(y)) = (decimal(a), decimal(b)) {
            return combine(x, y);
        }
        if let (Some(x), Some(y)) = (hex(a), hex(b)) {
            return combine(x, y);
        }
    }
    if let Some(h) = a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
        return hex(h);
    }
    if hex_ids || has_hex_letter(a) {
        hex(a)
    } else {
        decimal(a)
    }
}

fn combine(high: u64, low: u64) -> Option<u64> {
    high.checked_mul(1 << 32)?.checked_add(low)
}

fn decimal(tok: &str) -> Option<u64> {
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    tok.parse().ok()
}

fn hex(tok: &str) -> Option<u64> {
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(tok, 16).ok()
}

/// First token as a decimal number, a trailing `,` or `;` allowed.
fn first_u64(s: &str) -> Option<u64> {
    let tok = s.split_whitespace().next()?;
    decimal(tok.trim_end_matches([',', ';']))
}

/// Trims and collapses runs of spaces and tabs so `Log flushed up to   123` and
/// `Buffer pool size\t8064` match their single-spaced prefixes.
fn collapse_ws(s: &str) -> Cow<'_, str> {
    let clean = !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.contains("  ")
        && !s.contains(|c: char| c.is_whitespace() && c != ' ');
    if clean {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MYSQL50: &str = "\
=====================================
060815 22:00:08 INNODB MONITOR OUTPUT
=====================================
------------
TRANSACTIONS
------------
Trx id counter 0 418256672
Purge done for trx's n:o < 0 418256427 undo n:o < 0 0
History list length 68
LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 0 0, not started, process no 15072, OS thread id 1309149536
MySQL thread id 7292664, query id 62690007 localhost baron
SHOW /*!5 ENGINE */ INNODB STATUS
---TRANSACTION 0 418256671, ACTIVE 1 sec, process no 26479, OS thread id 1167968576 fetching rows
mysql tables in use 1, locked 0
MySQL thread id 8561, query id 79637659 linux.example.com 192.168.33.253 app Sending data
SELECT *
FROM t
Trx read view will not see trx with id >= 0 418256672, sees < 0 418256427
--------
FILE I/O
--------
---
LOG
---
Log sequence number 17 3726916467
Log flushed up to   17 3726916467
Last checkpoint at  17 3717618537
----------------------
BUFFER POOL AND MEMORY
----------------------
Buffer pool size   131072
Free buffers       99
Database pages     110571
Modified db pages  3939
--------------
ROW OPERATIONS
--------------
3 read views open inside InnoDB
----------------------------
END OF INNODB MONITOR OUTPUT
============================
";

    #[test]
    fn two_part_numbers() {
        let st = parse(MYSQL50);
        assert_eq!(st.lsn, Some(17 * (1u64 << 32) + 3_726_916_467));
        assert_eq!(st.log_flushed_lsn, st.lsn);
        assert_eq!(st.checkpoint_lsn, Some(17 * (1u64 << 32) + 3_717_618_537));
        assert_eq!(st.trx_id_counter, Some(418_256_672));
        assert_eq!(st.purge_done_trx, Some(418_256_427));
        assert_eq!(st.purge_done_undo, Some(0));
        assert_eq!(st.purge_state, None);
        assert_eq!(st.history_length, Some(68));
        assert_eq!(st.buffer_pool_pages, Some(131_072));
        assert_eq!(st.free_pages, Some(99));
        assert_eq!(st.database_pages, Some(110_571));
        assert_eq!(st.modified_pages, Some(3939));
        assert_eq!(st.read_views_open, Some(3));
        assert!(!st.truncated);
        assert_eq!(
            st.sections,
            [
                "TRANSACTIONS",
                "FILE I/O",
                "LOG",
                "BUFFER POOL AND MEMORY",
                "ROW OPERATIONS"
            ]
        );
    }

    #[test]
    fn transactions_old_format() {
        let st = parse(MYSQL50);
        assert_eq!(st.transactions.len(), 2);
        let [a, b] = st.transactions.as_slice() else {
            panic!("two transactions expected");
        };
        assert_eq!(a.trx_id.as_deref(), Some("0 0"));
        assert_eq!(a.state.as_deref(), Some("not started"));
        assert_eq!(a.thread_id, Some(7_292_664));
        assert_eq!(a.host.as_deref(), Some("localhost"));
        assert_eq!(a.user.as_deref(), Some("baron"));
        assert_eq!(
            a.query.as_deref(),
            Some("SHOW /*!5 ENGINE */ INNODB STATUS")
        );
        assert!(!a.has_read_view);
        assert_eq!(b.trx_id.as_deref(), Some("0 418256671"));
        assert_eq!(b.state.as_deref(), Some("ACTIVE"));
        assert_eq!(b.active_s, Some(1));
        assert_eq!(b.host.as_deref(), Some("linux.example.com"));
        assert_eq!(b.user.as_deref(), Some("app"));
        assert_eq!(b.query.as_deref(), Some("SELECT *\nFROM t"));
        assert!(b.has_read_view);
    }

    #[test]
    fn hex_ids_with_old_header() {
        // InnoDB plugin / 5.5: hex ids, even without a letter.
        let text = "=====================================\n\
            120206 10:00:00 INNODB MONITOR OUTPUT\n\
            =====================================\n\
            Trx id counter 1007\n\
            Purge done for trx's n:o < 1F69D12D8 undo n:o < 0\n";
        let st = parse(text);
        assert_eq!(st.trx_id_counter, Some(0x1007));
        assert_eq!(st.purge_done_trx, Some(0x1F69D12D8));
        assert_eq!(st.purge_done_undo, Some(0));
        assert!(st.truncated);
    }

    #[test]
    fn hex_ids_without_header() {
        let st = parse("Trx id counter 8A3C\nPurge done for trx's n:o < 8A30 undo n:o < 0\n");
        assert_eq!(st.trx_id_counter, Some(0x8A3C));
        assert_eq!(st.purge_done_trx, Some(0x8A30));
        let st = parse("Trx id counter 0 A3F2\n");
        assert_eq!(st.trx_id_counter, Some(0xA3F2));
    }

    #[test]
    fn decimal_ids_with_new_header_and_purge_state() {
        let text = "2019-07-08 14:30:01 0x7fe6628b9700 INNODB MONITOR OUTPUT\n\
            Trx id counter 42325\n\
            Purge done for trx's n:o < 42300 undo n:o < 0 state: running but idle\n";
        let st = parse(text);
        assert_eq!(st.trx_id_counter, Some(42_325));
        assert_eq!(st.purge_done_trx, Some(42_300));
        assert_eq!(st.purge_state.as_deref(), Some("running but idle"));
        // Without a header the purge state alone says "decimal".
        let st = parse(
            "Trx id counter 1007\nPurge done for trx's n:o < 1004 undo n:o < 0 state: stopped\n",
        );
        assert_eq!(st.trx_id_counter, Some(1007));
        assert_eq!(st.purge_state.as_deref(), Some("stopped"));
    }

    #[test]
    fn crlf_and_tabs() {
        let text = MYSQL50
            .replace('\n', "\r\n")
            .replace("Buffer pool size   ", "Buffer pool size\t");
        let st = parse(&text);
        assert_eq!(st, parse(MYSQL50));
    }

    #[test]
    fn mysql_client_vertical_output() {
        let text = format!(
            "mysql> SHOW ENGINE INNODB STATUS\\G\n\
             *************************** 1. row ***************************\n  \
             Type: InnoDB\n  Name: \nStatus: \n{MYSQL50}1 row in set (0.00 sec)\n"
        );
        assert_eq!(parse(&text), parse(MYSQL50));
    }

    #[test]
    fn table_wrapped_with_escapes() {
        let body = MYSQL50.replace('\n', "\\n");
        let text = format!(
            "+--------+------+--------+\n| Type   | Name | Status |\n+--------+------+--------+\n\
             | InnoDB |      | \\n{body} |\n+--------+------+--------+\n"
        );
        assert_eq!(parse(&text), parse(MYSQL50));
        // Batch (tab) form.
        let text = format!("Type\tName\tStatus\nInnoDB\t\t\\n{body}\n");
        assert_eq!(parse(&text), parse(MYSQL50));
    }

    #[test]
    fn table_wrapped_every_line() {
        let text: String = MYSQL50.lines().map(|l| format!("| {l:<60} |\n")).collect();
        assert_eq!(parse(&text), parse(MYSQL50));
    }

    #[test]
    fn first_complete_output_wins() {
        let cut = MYSQL50.split("---\nLOG").next().unwrap_or("");
        let second = MYSQL50.replace("Log sequence number 17", "Log sequence number 18");
        let st = parse(&format!("{cut}\n{second}\n{MYSQL50}"));
        assert_eq!(st.lsn, Some(18 * (1u64 << 32) + 3_726_916_467));
        assert!(!st.truncated);
        // Only incomplete outputs: the first, marked truncated.
        let st = parse(&format!("{cut}\n{cut}"));
        assert!(st.truncated);
        assert_eq!(st.history_length, Some(68));
    }

    #[test]
    fn truncated_output() {
        let cut = MYSQL50.split("--------------\nROW").next().unwrap_or("");
        let st = parse(cut);
        assert!(st.truncated);
        assert_eq!(st.lsn, parse(MYSQL50).lsn);
        assert_eq!(st.read_views_open, None);
    }

    #[test]
    fn percona_and_mysql8_log_lines() {
        let text = "---\nLOG\n---\n\
            Log sequence number          32368884\n\
            Log buffer assigned up to    32368884\n\
            Log flushed up to            32368880\n\
            Added dirty pages up to      32368884\n\
            Pages flushed up to          32298273\n\
            Last checkpoint at           32298270\n\
            Max checkpoint age    434154333\n\
            Checkpoint age target 420587011\n\
            Modified age          8899922\n\
            Checkpoint age        8899914\n";
        let st = parse(text);
        assert_eq!(st.lsn, Some(32_368_884));
        assert_eq!(st.log_flushed_lsn, Some(32_368_880));
        assert_eq!(st.pages_flushed_lsn, Some(32_298_273));
        assert_eq!(st.checkpoint_lsn, Some(32_298_270));
        assert_eq!(st.max_checkpoint_age, Some(434_154_333));
        assert_eq!(st.checkpoint_age_target, Some(420_587_011));
        assert_eq!(st.checkpoint_age, Some(8_899_914));
        assert_eq!(st.sections, ["LOG"]);
    }

    #[test]
    fn mariadb_pointer_ids_and_thread_lines() {
        let text = "------------\nTRANSACTIONS\n------------\n\
            ---TRANSACTION (0x78d93821fa80), not started\n\
            0 lock struct(s), heap size 1128, 0 row lock(s)\n\
            ---TRANSACTION 125587, ACTIVE (PREPARED) 3 sec fetching rows\n\
            mysql tables in use 5, locked 5\n\
            351 lock struct(s), heap size 41080, 17224 row lock(s)\n\
            MariaDB thread id 418, OS thread handle 132874375390784, query id 19199809 127.0.0.1 shopper_3 Sending data\n\
            \x20   INSERT INTO t\n\
            \x20     VALUES (1)\n\
            Trx read view will not see trx with id >= 125588, sees < 125482\n\
            ---TRANSACTION 125580, ACTIVE 0 sec\n\
            MySQL thread id 9, OS thread handle 1, query id 5 Waiting for master to send event\n\
            ------- TRX HAS BEEN WAITING 0 SEC FOR THIS LOCK TO BE GRANTED:\n";
        let st = parse(text);
        let [a, b, c] = st.transactions.as_slice() else {
            panic!("three transactions expected: {:?}", st.transactions);
        };
        assert_eq!(a.trx_id.as_deref(), Some("0x78d93821fa80"));
        assert_eq!(a.state.as_deref(), Some("not started"));
        assert_eq!(a.thread_id, None);
        assert_eq!(b.trx_id.as_deref(), Some("125587"));
        assert_eq!(b.state.as_deref(), Some("ACTIVE (PREPARED)"));
        assert_eq!(b.active_s, Some(3));
        assert_eq!(b.thread_id, Some(418));
        assert_eq!(b.host.as_deref(), Some("127.0.0.1"));
        assert_eq!(b.user.as_deref(), Some("shopper_3"));
        assert_eq!(b.query.as_deref(), Some("INSERT INTO t\n      VALUES (1)"));
        assert!(b.has_read_view);
        assert_eq!(c.thread_id, Some(9));
        assert_eq!(c.host, None);
        assert_eq!(c.user, None);
        assert_eq!(c.query, None);
    }

    #[test]
    fn host_ip_user_shapes() {
        let h = |s: &str| host_and_user(&s.split_whitespace().collect::<Vec<_>>());
        let some = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
        assert_eq!(h("upload 10.0.0.1 admin"), some("upload", "admin"));
        assert_eq!(
            h("10.0.0.1 foozle Sending data"),
            some("10.0.0.1", "foozle")
        );
        assert_eq!(h("localhost root updating"), some("localhost", "root"));
        assert_eq!(h("localhost 127.0.0.1 root"), some("localhost", "root"));
        assert_eq!(h("db.example.com ::1 app"), some("db.example.com", "app"));
        assert_eq!(h("Has read all relay log"), (None, None));
        assert_eq!(h(""), (None, None));
    }

    #[test]
    fn query_is_capped() {
        let long = "x".repeat(3000);
        let text = format!(
            "---TRANSACTION 1, ACTIVE 5 sec\nMySQL thread id 1, query id 2 localhost u\n{long}\n{long}\n"
        );
        let st = parse(&text);
        let q = st
            .transactions
            .first()
            .and_then(|t| t.query.clone())
            .unwrap_or_default();
        assert_eq!(q.chars().count(), QUERY_MAX_CHARS);
    }

    #[test]
    fn many_headers_stay_linear() {
        let text: String = (0..50_000).map(|i| format!("---\nSECTION {i}\n")).collect();
        let st = parse(&text);
        assert_eq!(st.sections.len(), MAX_SECTIONS);
    }

    #[test]
    fn garbage_does_not_panic() {
        for s in [
            "",
            "\n\n",
            "---TRANSACTION",
            "---TRANSACTION (",
            "---TRANSACTION ,ACTIVE",
            "Log sequence number 99999999999999999999 1",
            "Log sequence number 4294967296000 4294967295",
            "Purge done for trx's n:o < ",
            "Purge done for trx's n:o < undo n:o < state:",
            "\\n\\n\\n\\",
            "---\nÉ\n---",
            "INNODB MONITOR OUTPUT",
            "END OF INNODB MONITOR OUTPUT\nINNODB MONITOR OUTPUT",
            "MySQL thread id ,",
        ] {
            let _ = parse(s);
        }
        assert_eq!(
            parse("Log sequence number 4294967296000 4294967295").lsn,
            None
        );
    }
}
