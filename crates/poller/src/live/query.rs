//! The poller's queries: one statement with a timeout, its errors sorted into lost
//! connection, timeout and refused source, and rows read into the sample.

use std::collections::BTreeMap;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row, Value};
use tokio::time::timeout;

use innodebt_server::flavor::{Flavor, STATUS};
use innodebt_server::sample::{Sample, SourceKind, TrxRow, Unavailable};

/// Why a query failed: the server said no (connection fine), or the connection is gone.
#[derive(Debug)]
pub(super) enum QueryError {
    Server {
        code: u16,
        message: String,
    },
    Lost(String),
    /// No answer within `--query-timeout`: the connection is given up too (the reply may
    /// still come), and the latency guard holds the source back.
    TimedOut(String),
}

impl QueryError {
    /// The message when this error ends the session; `None` when only the source refused.
    pub(super) fn lost(self) -> Result<(u16, String), String> {
        match self {
            QueryError::Server { code, message } => Ok((code, message)),
            QueryError::Lost(m) | QueryError::TimedOut(m) => Err(m),
        }
    }
}

/// Server errors that end the session rather than refuse one query: the connection was
/// killed (1927 ER_CONNECTION_KILLED, 1317 ER_QUERY_INTERRUPTED on a killed connection) or the
/// server is shutting down (1053 ER_SERVER_SHUTDOWN). Treating them as "this source refused"
/// would poll a dead connection once more before noticing.
pub(super) const SESSION_ENDING_CODES: [u16; 3] = [1927, 1317, 1053];

pub(super) fn classify(e: mysql_async::Error) -> QueryError {
    match e {
        mysql_async::Error::Server(s) if SESSION_ENDING_CODES.contains(&s.code) => {
            QueryError::Lost(format!("error {}: {}", s.code, s.message))
        }
        mysql_async::Error::Server(s) => QueryError::Server {
            code: s.code,
            message: s.message,
        },
        // mysql_async words an I/O error twice ("Input/output error: Input/output error:
        // Broken pipe"): say what it means once, with the OS's reason.
        mysql_async::Error::Io(mysql_async::IoError::Io(e)) => QueryError::Lost(format!(
            "connection lost (server gone or network broken): {e}"
        )),
        other => QueryError::Lost(format!("connection lost: {other}")),
    }
}

pub(super) async fn rows(
    conn: &mut Conn,
    sql: &str,
    limit: Duration,
) -> Result<Vec<Row>, QueryError> {
    match timeout(limit, conn.query::<Row, _>(sql)).await {
        Ok(r) => r.map_err(classify),
        Err(_) => Err(timed_out(limit)),
    }
}

/// Statements joined by `;` in one round trip: the server runs them in turn and sends each
/// result as it ends. Each one's rows with its share of the round trip (from the end of the
/// result before to the end of its own); only the rows `keep(statement, row)` wants are kept,
/// the others are dropped as they are read. `Err(QueryError::Server)` when any of them was
/// refused: mysql_async reports a refusal of statement k+1 while it reads the end of k's
/// rows, so the caller cannot tell which, and asks them one at a time instead.
pub(super) async fn batch(
    conn: &mut Conn,
    joined: &str,
    statements: usize,
    limit: Duration,
    keep: impl Fn(usize, &Row) -> bool + Send,
) -> Result<Vec<(Vec<Row>, Duration)>, QueryError> {
    let work = async {
        let mut mark = std::time::Instant::now();
        let mut result = conn.query_iter(joined).await.map_err(classify)?;
        let mut out = Vec::with_capacity(statements);
        while out.len() < statements {
            let i = out.len();
            // A row dropped at once frees its values before the next row asks for the same
            // sizes, which the allocator then hands back from its per-thread cache: collecting
            // MariaDB's ~110 status rows to read 20 kept them all alive and made the slow path
            // of malloc the largest single cost of `serve` at 1,000 targets.
            let rows = result
                .reduce(Vec::new(), |mut kept, row| {
                    if keep(i, &row) {
                        kept.push(row);
                    }
                    kept
                })
                .await
                .map_err(classify)?;
            let now = std::time::Instant::now();
            out.push((rows, now - mark));
            mark = now;
        }
        // Nothing follows unless a statement returned more than one result: read it off.
        result.drop_result().await.map_err(classify)?;
        Ok(out)
    };
    match timeout(limit, work).await {
        Ok(r) => r,
        Err(_) => Err(timed_out(limit)),
    }
}

fn timed_out(limit: Duration) -> QueryError {
    QueryError::TimedOut(format!(
        "query timed out after {:.1}s (--query-timeout): the server or the network stopped \
         answering; it will be asked again only after a pause, then at a slower pace",
        limit.as_secs_f64()
    ))
}

/// A result value as text (numbers and strings alike; `NULL` is `None`).
pub fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Double(d) => Some(d.to_string()),
        other => Some(other.as_sql(true)),
    }
}

/// A column as text, whatever type the server sent.
pub(super) fn text(row: &Row, idx: usize) -> Option<String> {
    row.as_ref(idx).and_then(value_text)
}

pub(super) fn number(row: &Row, idx: usize) -> Option<u64> {
    parsed(row, idx)
}

/// A column parsed as a number. The text protocol sends bytes: they are parsed where they lie,
/// not copied into a `String` first (at 1,000 targets that copy was one allocation in ten).
fn parsed<T: std::str::FromStr>(row: &Row, idx: usize) -> Option<T> {
    match row.as_ref(idx)? {
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        other => value_text(other)?.trim().parse().ok(),
    }
}

/// "Access denied; you need (at least one of) the PROCESS privilege(s)" → `PROCESS`.
pub(super) fn missing_privilege(code: u16, message: &str) -> Option<String> {
    if code != 1227 && code != 1142 && code != 1044 {
        return None;
    }
    let after = message.split("the ").nth(1)?;
    let name = after.split(" privilege").next()?.trim();
    (!name.is_empty() && name.len() < 64).then(|| name.to_string())
}

/// A refused source goes into the sample; a lost connection or a timeout is passed on.
pub(super) fn refused(
    sample: &mut Sample,
    source: SourceKind,
    e: QueryError,
) -> Result<(), QueryError> {
    match e {
        QueryError::Server { code, message } => {
            sample.unavailable.push(Unavailable {
                source,
                privilege: missing_privilege(code, &message),
                error: format!("error {code}: {message}"),
            });
            Ok(())
        }
        lost => Err(lost),
    }
}

/// INNODB_METRICS rows (name, count, enabled) into the sample.
pub(super) fn read_metrics(rs: &[Row], sample: &mut Sample) {
    for r in rs {
        let name = text(r, 0);
        let count = parsed::<i64>(r, 1);
        let enabled = number(r, 2).is_some_and(|e| e != 0);
        if let (Some(name), Some(count)) = (name, count) {
            sample.metrics.insert(
                name,
                innodebt_server::sample::MetricValue { count, enabled },
            );
        }
    }
}

/// Status rows into the sample, only the names the figures use (MariaDB's per-tick
/// statement returns every `Innodb_%` counter; the server may change their case).
pub(super) fn read_status(rs: &[Row], sample: &mut Sample) {
    for r in rs.iter().filter(|r| wanted_status(r)) {
        if let (Some(name), Some(v)) = (text(r, 0), number(r, 1)) {
            sample.status.insert(name, v);
        }
    }
}

/// Whether a status row is one the figures use. Most of MariaDB's ~110 rows are not: they are
/// told apart on the name's bytes, unconverted.
pub(super) fn wanted_status(r: &Row) -> bool {
    let ours = |name: &[u8]| {
        STATUS
            .iter()
            .any(|s| s.as_bytes().eq_ignore_ascii_case(name))
    };
    match r.as_ref(0) {
        Some(Value::Bytes(name)) => ours(name),
        Some(other) => value_text(other).is_some_and(|t| ours(t.as_bytes())),
        None => false,
    }
}

/// One INNODB_TRX row (the flavour's `trx_sql` column order); the session's user, host,
/// command and statement come from [`Sessions`].
pub(super) fn trx_row(r: &Row) -> TrxRow {
    TrxRow {
        trx_id: text(r, 0).unwrap_or_default(),
        state: text(r, 1).unwrap_or_default(),
        age_s: number(r, 2).unwrap_or(0),
        isolation: text(r, 3),
        thread_id: number(r, 4).filter(|id| *id > 0),
        ..TrxRow::default()
    }
}

pub(super) async fn read_variables(
    conn: &mut Conn,
    flavor_sql: &str,
    limit: Duration,
) -> Result<BTreeMap<String, String>, QueryError> {
    Ok(variables_from(&rows(conn, flavor_sql, limit).await?))
}

/// The server's own `READ_ONLY` for the probed variables (MariaDB), as `<name>.read_only`.
/// Best effort: without an answer the flavour's version table decides.
pub(super) async fn read_only_answers(
    conn: &mut Conn,
    flavor: &Flavor,
    limit: Duration,
) -> BTreeMap<String, String> {
    let Some(sql) = flavor.read_only_sql() else {
        return BTreeMap::new();
    };
    match rows(conn, &sql, limit).await {
        Ok(rs) => variables_from(&rs)
            .into_iter()
            .map(|(k, v)| (innodebt_server::flavor::read_only_key(&k), v))
            .collect(),
        Err(_) => BTreeMap::new(),
    }
}

pub(super) fn variables_from(rs: &[Row]) -> BTreeMap<String, String> {
    rs.iter()
        .filter_map(|r| Some((text(r, 0)?.to_ascii_lowercase(), text(r, 1)?)))
        .collect()
}

/// Whether each of the flavour's latch instruments counts, as `<instrument>.timed` = YES/NO:
/// enabled and timed in `setup_instruments` with the `global_instrumentation` consumer on.
/// Asked only where `performance_schema = ON`; a refusal leaves them unsaid (unknown).
pub(super) async fn instrument_answers(
    conn: &mut Conn,
    flavor: &Flavor,
    performance_schema: bool,
    limit: Duration,
) -> BTreeMap<String, String> {
    if !performance_schema {
        return BTreeMap::new();
    }
    let Ok(rs) = rows(conn, &flavor.instruments_sql(), limit).await else {
        return BTreeMap::new();
    };
    let yes = |r: &Row, i: usize| text(r, i).is_some_and(|v| v.eq_ignore_ascii_case("YES"));
    let global = rs
        .iter()
        .any(|r| text(r, 0).as_deref() == Some("global_instrumentation") && yes(r, 1));
    rs.iter()
        .filter_map(|r| {
            let name = text(r, 0).filter(|n| n != "global_instrumentation")?;
            let on = global && yes(r, 1) && yes(r, 2);
            Some((
                innodebt_server::flavor::instrument_key(&name),
                if on { "YES" } else { "NO" }.to_string(),
            ))
        })
        .collect()
}

/// The instruments `variables` says count (see [`instrument_answers`]).
pub(super) fn counting_instruments(
    flavor: &Flavor,
    variables: &BTreeMap<String, String>,
) -> Vec<&'static str> {
    flavor
        .rseg_instruments()
        .into_iter()
        .filter(|i| {
            variables
                .get(&innodebt_server::flavor::instrument_key(i))
                .is_some_and(|v| v == "YES")
        })
        .collect()
}

/// The wait summary's rows: `EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT`.
pub(super) fn wait_sums(rs: &[Row]) -> BTreeMap<String, innodebt_server::sample::WaitSum> {
    rs.iter()
        .filter_map(|r| {
            Some((
                text(r, 0)?,
                innodebt_server::sample::WaitSum {
                    count: number(r, 1)?,
                    timer_ps: number(r, 2)?,
                },
            ))
        })
        .collect()
}
