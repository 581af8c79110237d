//! The live poller: one tokio task owns one connection and emits [`SourceEvent`]s. It never
//! touches the terminal. Ticks are skipped (not queued) when the server is slow, every query
//! has a timeout, and a lost connection is retried with a capped backoff.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row, Value};
use tokio::sync::mpsc;
use tokio::time::{MissedTickBehavior, timeout};

use crate::innodb_status;
use crate::sample::{
    MetricValue, Sample, ServerInfo, SourceEvent, SourceKind, TrxRow, Unavailable, UndoScan,
};
use crate::source::flavor::{Flavor, VARIABLES};

/// Opens a fresh connection (the poller reconnects through this). The error text must
/// already be user-facing and free of credentials.
pub type ConnectFn =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Conn, String>> + Send>> + Send + Sync>;

#[derive(Debug, Clone)]
pub struct PollerConfig {
    pub interval: Duration,
    /// SHOW ENGINE INNODB STATUS cadence (it takes the lock-sys latch; keep it slow).
    pub innodb_status_every: Duration,
    /// The full undo-residency scan; `None` = only on request.
    pub undo_scan_every: Option<Duration>,
    pub query_timeout: Duration,
    pub variables_every: Duration,
    /// Where we connect, for the header (never credentials).
    pub label: String,
}

impl Default for PollerConfig {
    fn default() -> Self {
        PollerConfig {
            interval: Duration::from_secs(1),
            innodb_status_every: Duration::from_secs(10),
            undo_scan_every: None,
            query_timeout: Duration::from_secs(5),
            variables_every: Duration::from_secs(10),
            label: String::new(),
        }
    }
}

/// Requests from the app to the poller.
#[derive(Debug, Clone, PartialEq)]
pub enum PollerCommand {
    SetInterval(Duration),
    UndoScanNow,
    RefreshVariables,
}

pub const BACKOFF_START: Duration = Duration::from_millis(250);
pub const BACKOFF_CAP: Duration = Duration::from_secs(5);

/// Capped exponential backoff: 250 ms, 500 ms, 1 s, … never above [`BACKOFF_CAP`].
pub fn backoff(attempt: u32) -> Duration {
    BACKOFF_START
        .saturating_mul(1u32 << attempt.min(16))
        .min(BACKOFF_CAP)
}

/// Why a query failed: the server said no (connection fine), or the connection is gone.
#[derive(Debug)]
enum QueryError {
    Server { code: u16, message: String },
    Lost(String),
}

/// Server errors that end the session rather than refuse one query: the connection was
/// killed (1927 ER_CONNECTION_KILLED, 1317 ER_QUERY_INTERRUPTED on a killed connection) or the
/// server is shutting down (1053 ER_SERVER_SHUTDOWN). Treating them as "this source refused"
/// would poll a dead connection once more before noticing.
const SESSION_ENDING_CODES: [u16; 3] = [1927, 1317, 1053];

fn classify(e: mysql_async::Error) -> QueryError {
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

async fn rows(conn: &mut Conn, sql: &str, limit: Duration) -> Result<Vec<Row>, QueryError> {
    match timeout(limit, conn.query::<Row, _>(sql)).await {
        Ok(r) => r.map_err(classify),
        Err(_) => Err(QueryError::Lost(format!(
            "query timed out after {:.1}s (--query-timeout): the server or the network stopped \
             answering",
            limit.as_secs_f64()
        ))),
    }
}

/// A result value as text (numbers and strings alike; `NULL` is `None`).
pub(crate) fn value_text(v: &Value) -> Option<String> {
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
fn text(row: &Row, idx: usize) -> Option<String> {
    row.as_ref(idx).and_then(value_text)
}

fn number(row: &Row, idx: usize) -> Option<u64> {
    text(row, idx).and_then(|t| t.trim().parse::<u64>().ok())
}

/// "Access denied; you need (at least one of) the PROCESS privilege(s)" → `PROCESS`.
fn missing_privilege(code: u16, message: &str) -> Option<String> {
    if code != 1227 && code != 1142 && code != 1044 {
        return None;
    }
    let after = message.split("the ").nth(1)?;
    let name = after.split(" privilege").next()?.trim();
    (!name.is_empty() && name.len() < 64).then(|| name.to_string())
}

/// One open connection with what we learnt about the server.
pub struct Session {
    conn: Conn,
    pub info: ServerInfo,
    last_status_at: Option<Instant>,
    last_undo_scan_at: Option<Instant>,
    last_variables_at: Instant,
}

impl Session {
    /// Reads the variables and detects the flavour — once per connection.
    pub async fn open(mut conn: Conn, cfg: &PollerConfig) -> Result<Session, String> {
        let variables =
            read_variables(&mut conn, cfg.query_timeout)
                .await
                .map_err(|e| match e {
                    QueryError::Server { message, .. } => {
                        format!("could not read server variables: {message}")
                    }
                    QueryError::Lost(m) => format!("connection lost while reading variables: {m}"),
                })?;
        let version = variables.get("version").cloned().unwrap_or_default();
        let comment = variables
            .get("version_comment")
            .cloned()
            .unwrap_or_default();
        let flavor = Flavor::from_variables(&variables);
        Ok(Session {
            conn,
            info: ServerInfo {
                label: cfg.label.clone(),
                version,
                version_comment: comment,
                flavor,
                variables,
            },
            last_status_at: None,
            last_undo_scan_at: None,
            last_variables_at: Instant::now(),
        })
    }

    pub fn flavor(&self) -> Flavor {
        self.info.flavor
    }

    /// One poll. `Err` means the connection is lost; a refused source is recorded in the
    /// sample's `unavailable` list and the rest still comes through.
    pub async fn poll(
        &mut self,
        cfg: &PollerConfig,
        started: Instant,
        force_slow: bool,
        undo_scan_now: bool,
    ) -> Result<Sample, String> {
        let begun = Instant::now();
        let mut sample = Sample::new(Utc::now(), started.elapsed().as_secs_f64());
        let flavor = self.info.flavor;
        let t = cfg.query_timeout;

        match rows(&mut self.conn, &flavor.status_sql(), t).await {
            Ok(rs) => {
                for r in rs {
                    if let (Some(name), Some(v)) = (text(&r, 0), number(&r, 1)) {
                        sample.status.insert(name, v);
                    }
                }
            }
            Err(e) => self.note(&mut sample, SourceKind::GlobalStatus, e)?,
        }

        match rows(&mut self.conn, &flavor.metrics_sql(), t).await {
            Ok(rs) => {
                for r in rs {
                    let name = text(&r, 0);
                    let count = text(&r, 1).and_then(|c| c.trim().parse::<i64>().ok());
                    let enabled = number(&r, 2).is_some_and(|e| e != 0);
                    if let (Some(name), Some(count)) = (name, count) {
                        sample.metrics.insert(name, MetricValue { count, enabled });
                    }
                }
            }
            Err(e) => self.note(&mut sample, SourceKind::InnodbMetrics, e)?,
        }

        match rows(&mut self.conn, flavor.trx_sql(), t).await {
            Ok(rs) => sample.trx = rs.iter().map(trx_row).collect(),
            Err(e) => self.note(&mut sample, SourceKind::InnodbTrx, e)?,
        }

        let status_due = self
            .last_status_at
            .is_none_or(|at| at.elapsed() >= cfg.innodb_status_every);
        if force_slow || status_due {
            self.last_status_at = Some(Instant::now());
            match rows(&mut self.conn, "SHOW ENGINE INNODB STATUS", t).await {
                Ok(rs) => {
                    sample.innodb_status = rs
                        .first()
                        .and_then(|r| text(r, 2))
                        .map(|txt| innodb_status::parse(&txt));
                }
                Err(e) => self.note(&mut sample, SourceKind::InnodbStatus, e)?,
            }
        }

        let scan_due = cfg.undo_scan_every.is_some_and(|every| {
            self.last_undo_scan_at
                .is_none_or(|at| at.elapsed() >= every)
        });
        if undo_scan_now || scan_due {
            self.last_undo_scan_at = Some(Instant::now());
            let scan_started = Instant::now();
            // The scan walks the whole buffer pool; give it more room than a cheap query.
            match rows(&mut self.conn, flavor.undo_scan_sql(), t.saturating_mul(6)).await {
                Ok(rs) => {
                    sample.undo_scan = rs.first().and_then(|r| number(r, 0)).map(|n| UndoScan {
                        undo_pages_cached: n,
                        took_ms: u64::try_from(scan_started.elapsed().as_millis())
                            .unwrap_or(u64::MAX),
                    })
                }
                Err(e) => self.note(&mut sample, SourceKind::UndoScan, e)?,
            }
        }
        sample.poll_ms = u32::try_from(begun.elapsed().as_millis()).unwrap_or(u32::MAX);
        Ok(sample)
    }

    /// Variables changed since the last read, if it is time to look (or `force`).
    pub async fn changed_variables(
        &mut self,
        cfg: &PollerConfig,
        force: bool,
    ) -> Result<Option<BTreeMap<String, String>>, String> {
        if !force && self.last_variables_at.elapsed() < cfg.variables_every {
            return Ok(None);
        }
        self.last_variables_at = Instant::now();
        match read_variables(&mut self.conn, cfg.query_timeout).await {
            Ok(vars) => {
                let changed: BTreeMap<_, _> = vars
                    .into_iter()
                    .filter(|(k, v)| self.info.variables.get(k) != Some(v))
                    .collect();
                self.info.variables.extend(changed.clone());
                Ok((!changed.is_empty()).then_some(changed))
            }
            Err(QueryError::Server { .. }) => Ok(None),
            Err(QueryError::Lost(m)) => Err(m),
        }
    }

    fn note(&self, sample: &mut Sample, source: SourceKind, e: QueryError) -> Result<(), String> {
        match e {
            QueryError::Lost(m) => Err(m),
            QueryError::Server { code, message } => {
                sample.unavailable.push(Unavailable {
                    source,
                    privilege: missing_privilege(code, &message),
                    error: format!("error {code}: {message}"),
                });
                Ok(())
            }
        }
    }
}

fn trx_row(r: &Row) -> TrxRow {
    TrxRow {
        trx_id: text(r, 0).unwrap_or_default(),
        state: text(r, 1).unwrap_or_default(),
        age_s: number(r, 2).unwrap_or(0),
        isolation: text(r, 3),
        thread_id: number(r, 4).filter(|id| *id > 0),
        user: text(r, 5),
        host: text(r, 6),
        command: text(r, 7),
        query: text(r, 8),
        rows_modified: number(r, 9),
    }
}

async fn read_variables(
    conn: &mut Conn,
    limit: Duration,
) -> Result<BTreeMap<String, String>, QueryError> {
    let sql = format!(
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ({})",
        VARIABLES
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let rs = rows(conn, &sql, limit).await?;
    Ok(rs
        .iter()
        .filter_map(|r| Some((text(r, 0)?.to_ascii_lowercase(), text(r, 1)?)))
        .collect())
}

/// The poller task. Starts from an open session when the caller already connected (so
/// start-up errors reach the user before the dashboard opens); reconnects by itself after.
pub async fn run(
    first: Option<Session>,
    connect: ConnectFn,
    mut cfg: PollerConfig,
    tx: mpsc::Sender<SourceEvent>,
    mut commands: mpsc::Receiver<PollerCommand>,
) {
    let started = Instant::now();
    let mut session = first;
    let mut attempt: u32 = 0;
    let mut down_since = None;
    let mut undo_scan_now = false;
    let mut refresh_vars = false;
    let mut announced = false;

    loop {
        let Some(s) = session.as_mut() else {
            let since = *down_since.get_or_insert_with(Utc::now);
            match connect().await {
                Ok(conn) => match Session::open(conn, &cfg).await {
                    Ok(s) => {
                        session = Some(s);
                        attempt = 0;
                        down_since = None;
                        announced = false;
                        continue;
                    }
                    Err(e) => report_down(&tx, since, attempt, e).await,
                },
                Err(e) => report_down(&tx, since, attempt, e).await,
            }
            if tx.is_closed() {
                return;
            }
            let wait = backoff(attempt);
            attempt = attempt.saturating_add(1);
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                cmd = commands.recv() => match cmd {
                    None => return,
                    Some(c) => apply(c, &mut cfg, &mut undo_scan_now, &mut refresh_vars),
                },
            }
            continue;
        };

        if !announced {
            announced = true;
            let event = SourceEvent::Connected {
                at: Utc::now(),
                info: s.info.clone(),
            };
            if tx.send(event).await.is_err() {
                return;
            }
        }

        let mut ticker = tokio::time::interval(cfg.interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let current_interval = cfg.interval;
        let lost = loop {
            tokio::select! {
                _ = ticker.tick() => {}
                cmd = commands.recv() => match cmd {
                    None => return,
                    Some(c) => {
                        apply(c, &mut cfg, &mut undo_scan_now, &mut refresh_vars);
                        if cfg.interval != current_interval {
                            break None; // re-arm the ticker with the new interval
                        }
                        if !undo_scan_now && !refresh_vars {
                            continue;
                        }
                    }
                },
            }
            match s.changed_variables(&cfg, refresh_vars).await {
                Ok(Some(variables)) => {
                    let ev = SourceEvent::Variables {
                        at: Utc::now(),
                        variables,
                    };
                    if tx.send(ev).await.is_err() {
                        return;
                    }
                }
                Ok(None) => {}
                Err(e) => break Some(e),
            }
            refresh_vars = false;
            match s.poll(&cfg, started, false, undo_scan_now).await {
                Ok(sample) => {
                    undo_scan_now = false;
                    if tx
                        .send(SourceEvent::Sample(Box::new(sample)))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                Err(e) => break Some(e),
            }
        };
        if let Some(e) = lost {
            session = None;
            down_since = Some(Utc::now());
            report_down(&tx, down_since.unwrap_or_else(Utc::now), 0, e).await;
            let wait = backoff(0);
            attempt = 1;
            tokio::time::sleep(wait).await;
        }
    }
}

fn apply(c: PollerCommand, cfg: &mut PollerConfig, undo_now: &mut bool, refresh: &mut bool) {
    match c {
        PollerCommand::SetInterval(d) => cfg.interval = d.max(Duration::from_millis(100)),
        PollerCommand::UndoScanNow => *undo_now = true,
        PollerCommand::RefreshVariables => *refresh = true,
    }
}

async fn report_down(
    tx: &mpsc::Sender<SourceEvent>,
    since: chrono::DateTime<Utc>,
    attempt: u32,
    error: String,
) {
    let retry_in = backoff(attempt);
    let _ = tx
        .send(SourceEvent::Disconnected {
            since,
            retry_in_ms: u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX),
            error,
        })
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_capped_not_floored() {
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(3), Duration::from_secs(2));
        assert_eq!(backoff(10), BACKOFF_CAP);
        assert_eq!(backoff(u32::MAX), BACKOFF_CAP);
    }

    #[test]
    fn a_killed_connection_is_lost_not_a_refused_source() {
        let server = |code: u16| {
            mysql_async::Error::Server(mysql_async::ServerError {
                code,
                message: "x".into(),
                state: "70100".into(),
            })
        };
        for code in SESSION_ENDING_CODES {
            assert!(
                matches!(classify(server(code)), QueryError::Lost(_)),
                "{code}"
            );
        }
        assert!(matches!(
            classify(server(1227)),
            QueryError::Server { code: 1227, .. }
        ));
        let io = mysql_async::Error::Io(mysql_async::IoError::Io(std::io::Error::from(
            std::io::ErrorKind::BrokenPipe,
        )));
        let QueryError::Lost(m) = classify(io) else {
            panic!("an I/O error is a lost connection");
        };
        assert!(
            m.starts_with("connection lost (server gone or network broken): "),
            "{m}"
        );
        assert!(!m.contains("Input/output error"), "{m}");
    }

    #[test]
    fn privilege_from_message() {
        assert_eq!(
            missing_privilege(
                1227,
                "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation"
            )
            .as_deref(),
            Some("PROCESS")
        );
        assert_eq!(missing_privilege(1054, "Unknown column"), None);
    }
}
