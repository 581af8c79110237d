//! The TRANSACTIONS section: one [`StatusTransaction`] per `---TRANSACTION` block — its id,
//! state and age, the session (thread id, host, user) and the statement text, which may run
//! over several lines and is cut at [`QUERY_MAX_CHARS`].

use super::numbers::first_u64;
use super::{END_MARK, StatusTransaction};

/// The server prints at most 1024 bytes of a query; keep the first 1,000 chars.
pub(super) const QUERY_MAX_CHARS: usize = 1000;

/// Accumulates one `---TRANSACTION` entry while its lines go by.
pub(super) struct TrxBuilder {
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
    pub(super) fn new(rest: &str) -> Self {
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
    pub(super) fn take_line(&mut self, raw: &str, line: &str) -> bool {
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

    pub(super) fn finish(mut self) -> StatusTransaction {
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
pub(super) fn host_and_user(tokens: &[&str]) -> (Option<String>, Option<String>) {
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
