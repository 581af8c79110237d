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
    MetricValue, PollCost, Sample, ServerInfo, SourceEvent, SourceKind, Statement, StatementCost,
    TrxRow, Unavailable, UndoScan,
};
use crate::source::cadence::{Cadenced, Guard, Outcome};
use crate::source::flavor::{Flavor, STATUS};
use crate::source::oldest::Oldest;
use crate::source::sessions::{SessionInfo, Sessions};

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

/// SHOW ENGINE INNODB STATUS transactions kept in a live sample: the oldest, as many as
/// INNODB_TRX gives. Nothing derives a figure from them; they are there for the record.
const SEIS_TRANSACTIONS_KEPT: usize = 5;

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
    fn lost(self) -> Result<(u16, String), String> {
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
        Err(_) => Err(QueryError::TimedOut(format!(
            "query timed out after {:.1}s (--query-timeout): the server or the network stopped \
             answering; it will be asked again only after a pause, then at a slower pace",
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
    /// When each source is due, and which ones the server was too slow for. Handed from one
    /// connection to the next, so a source that timed out is not asked again at once.
    guard: Guard,
    /// The sessions behind the oldest transactions (user, host, command), by thread id.
    sessions: Sessions,
    /// The oldest transactions last read, and when INNODB_TRX is due again.
    oldest: Oldest,
    /// performance_schema.threads refused us (privilege): look sessions up in the
    /// processlist by id instead.
    threads_refused: bool,
    /// Statements sent since the last sample, with their round trips.
    spent: Vec<StatementCost>,
    /// Readings of the session sums on this connection: the first two come on the first two
    /// ticks (uptime at once, the rows/s adding history after one interval), then their cadence.
    sums_read: u8,
}

impl Session {
    /// Reads the variables and detects the flavour — once per connection.
    pub async fn open(mut conn: Conn, cfg: &PollerConfig) -> Result<Session, String> {
        let variables = read_variables(
            &mut conn,
            &crate::source::flavor::variables_sql(),
            cfg.query_timeout,
        )
        .await
        .map_err(|e| match e {
            QueryError::Server { message, .. } => {
                format!("could not read server variables: {message}")
            }
            QueryError::Lost(m) | QueryError::TimedOut(m) => {
                format!("connection lost while reading variables: {m}")
            }
        })?;
        let version = variables.get("version").cloned().unwrap_or_default();
        let comment = variables
            .get("version_comment")
            .cloned()
            .unwrap_or_default();
        let flavor = Flavor::from_variables(&variables);
        let mut variables = variables;
        variables.extend(read_only_answers(&mut conn, &flavor, cfg.query_timeout).await);
        let mut guard = Guard::new(cfg.interval);
        // The variables were just read: next due one cadence from now.
        guard.record(
            Cadenced::Variables,
            cfg.variables_every,
            Instant::now(),
            Outcome::Answered(Duration::ZERO),
        );
        Ok(Session {
            conn,
            info: ServerInfo {
                label: cfg.label.clone(),
                version,
                version_comment: comment,
                flavor,
                variables,
            },
            guard,
            sessions: Sessions::default(),
            oldest: Oldest::default(),
            threads_refused: false,
            spent: Vec::new(),
            sums_read: 0,
        })
    }

    /// Carries the latency guard over from the previous connection.
    pub fn keep_guard(&mut self, guard: Guard) {
        self.guard = guard;
    }

    pub fn into_guard(self) -> Guard {
        self.guard
    }

    /// Whether the per-tick statements are due (the latency guard may have stretched them).
    pub fn tick_due(&self, interval: Duration) -> bool {
        self.guard.due(Cadenced::Tick, interval, Instant::now())
    }

    /// Runs one statement, timing its round trip into this poll's cost.
    async fn ask(
        &mut self,
        what: Statement,
        sql: &str,
        limit: Duration,
    ) -> Result<Vec<Row>, QueryError> {
        let begun = Instant::now();
        let result = rows(&mut self.conn, sql, limit).await;
        self.spent.push(StatementCost {
            what,
            us: u64::try_from(begun.elapsed().as_micros()).unwrap_or(u64::MAX),
        });
        result
    }

    /// One slow-cadence source through the guard: its round trip (or its timeout) sets when
    /// it is due next. `costly`: a periodic source held to its share of the server's time.
    async fn ask_guarded(
        &mut self,
        source: Cadenced,
        every: Duration,
        what: Statement,
        sql: &str,
        limit: Duration,
        costly: bool,
    ) -> Result<Vec<Row>, QueryError> {
        let begun = Instant::now();
        let result = self.ask(what, sql, limit).await;
        let outcome = match &result {
            Err(QueryError::TimedOut(_)) => Outcome::TimedOut,
            _ => Outcome::Answered(begun.elapsed()),
        };
        if costly {
            self.guard.record_costly(source, every, begun, outcome);
        } else {
            self.guard.record(source, every, begun, outcome);
        }
        result
    }

    pub fn flavor(&self) -> Flavor {
        self.info.flavor
    }

    /// One poll. `Err` means the connection is lost; a refused source is recorded in the
    /// sample's `unavailable` list and the rest still comes through. `force_slow` asks the
    /// slow-cadence sources too (`--once`).
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
        self.guard.set_interval(cfg.interval);

        // The per-tick statements, guarded together: a sample is all of them or none.
        let tick_started = Instant::now();
        let tick = self
            .poll_tick(&mut sample, flavor, t, cfg.interval, force_slow)
            .await;
        let outcome = match &tick {
            Err(QueryError::TimedOut(_)) => Outcome::TimedOut,
            _ => Outcome::Answered(tick_started.elapsed()),
        };
        self.guard
            .record(Cadenced::Tick, cfg.interval, tick_started, outcome);
        if let Err(e) = tick {
            return Err(e.lost().err().unwrap_or_default());
        }

        self.name_sessions(&mut sample, cfg).await?;

        let now = Instant::now();
        let early = self.sums_read < 2;
        if let Some(sql) = flavor.session_sums_sql()
            && (force_slow
                || early
                || self
                    .guard
                    .due(Cadenced::SessionSums, cfg.variables_every, now))
        {
            self.sums_read = self.sums_read.saturating_add(1);
            match self
                .ask_guarded(
                    Cadenced::SessionSums,
                    cfg.variables_every,
                    Statement::SessionSums,
                    &sql,
                    t,
                    true,
                )
                .await
            {
                Ok(rs) => read_status(&rs, &mut sample),
                Err(e) => self.note(&mut sample, SourceKind::GlobalStatus, e)?,
            }
        }

        if force_slow
            || self.guard.due(
                Cadenced::InnodbStatus,
                cfg.innodb_status_every,
                Instant::now(),
            )
        {
            match self
                .ask_guarded(
                    Cadenced::InnodbStatus,
                    cfg.innodb_status_every,
                    Statement::InnodbStatus,
                    "SHOW ENGINE INNODB STATUS",
                    t,
                    // Where it carries the LSN (MySQL < 8.0.30) its cadence rules.
                    !flavor.lsn_needs_innodb_status(),
                )
                .await
            {
                Ok(rs) => {
                    // The text is moved out of the row, not copied (~100 KB with 500 open
                    // transactions), and only the oldest transactions are kept.
                    sample.innodb_status = rs
                        .into_iter()
                        .next()
                        .and_then(|mut r| r.take::<Option<Vec<u8>>, _>(2).flatten())
                        .map(|bytes| {
                            let txt = String::from_utf8(bytes).unwrap_or_else(|e| {
                                String::from_utf8_lossy(e.as_bytes()).into_owned()
                            });
                            innodb_status::parse_keeping(&txt, SEIS_TRANSACTIONS_KEPT)
                        });
                }
                Err(e) => self.note(&mut sample, SourceKind::InnodbStatus, e)?,
            }
        }

        let scan_due = cfg
            .undo_scan_every
            .is_some_and(|every| self.guard.due(Cadenced::UndoScan, every, Instant::now()));
        if undo_scan_now || scan_due {
            let every = cfg.undo_scan_every.unwrap_or(cfg.interval);
            let scan_started = Instant::now();
            // The scan walks the whole buffer pool; give it more room than a cheap query.
            match self
                .ask_guarded(
                    Cadenced::UndoScan,
                    every,
                    Statement::UndoScan,
                    flavor.undo_scan_sql(),
                    t.saturating_mul(6),
                    false,
                )
                .await
            {
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
        sample.cost = Some(PollCost {
            statements: std::mem::take(&mut self.spent),
            slowed: self.guard.slowed(),
        });
        sample.poll_ms = u32::try_from(begun.elapsed().as_millis()).unwrap_or(u32::MAX);
        Ok(sample)
    }

    /// Status counters, INNODB_METRICS and the oldest transactions (read when due, see
    /// [`Oldest`]; carried with their ages counted on otherwise, or always with `force`).
    /// `Err` only when the connection is lost or a statement timed out; refusals go into
    /// the sample.
    async fn poll_tick(
        &mut self,
        sample: &mut Sample,
        flavor: Flavor,
        t: Duration,
        interval: Duration,
        force: bool,
    ) -> Result<(), QueryError> {
        let every_tick = Instant::now();
        match self
            .ask(Statement::GlobalStatus, &flavor.status_sql(), t)
            .await
        {
            Ok(rs) => read_status(&rs, sample),
            Err(e) => refused(sample, SourceKind::GlobalStatus, e)?,
        }
        match self
            .ask(Statement::InnodbMetrics, &flavor.metrics_sql(), t)
            .await
        {
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
            Err(e) => refused(sample, SourceKind::InnodbMetrics, e)?,
        }
        let now = Instant::now();
        self.oldest.every_tick_took(now - every_tick);
        if !force && !self.oldest.due(interval, now) {
            sample.trx = self.oldest.carried(now);
            return Ok(());
        }
        match self.ask(Statement::InnodbTrx, flavor.trx_sql(), t).await {
            Ok(rs) => {
                sample.trx = rs.iter().map(trx_row).collect();
                // No row: none open (but ours).
                let open = flavor
                    .trx_counted()
                    .then(|| rs.first().and_then(|r| number(r, 5)).unwrap_or(0));
                self.oldest
                    .read(sample.trx.clone(), open, now, now.elapsed());
            }
            Err(e) => refused(sample, SourceKind::InnodbTrx, e)?,
        }
        Ok(())
    }

    /// Names the sessions behind the oldest transactions: at most one lookup by id per tick,
    /// only for the transaction that may hold purge back, when it is new or its lookup stale
    /// ([`Sessions::wanted`]); everything else comes from what was looked up before.
    async fn name_sessions(
        &mut self,
        sample: &mut Sample,
        cfg: &PollerConfig,
    ) -> Result<(), String> {
        let wanted = self.sessions.wanted(&sample.trx, Instant::now());
        if let Some(id) = wanted
            && self
                .guard
                .due(Cadenced::SessionLookup, cfg.interval, Instant::now())
        {
            let flavor = self.info.flavor;
            let threads =
                !self.threads_refused && self.info.var("performance_schema") == Some("ON");
            let sql = flavor.session_sql(id, threads);
            let asked = Instant::now();
            match self
                .ask_guarded(
                    Cadenced::SessionLookup,
                    cfg.interval,
                    Statement::SessionLookup,
                    &sql,
                    cfg.query_timeout,
                    false,
                )
                .await
            {
                Ok(rs) => {
                    let found = rs.first().map(|r| SessionInfo {
                        user: text(r, 0),
                        host: text(r, 1),
                        command: text(r, 2),
                        info: text(r, 3),
                    });
                    self.sessions.learn(id, found, asked, asked.elapsed());
                }
                // No SELECT on performance_schema: the processlist by id next tick.
                Err(QueryError::Server { .. }) if threads => self.threads_refused = true,
                Err(e) => self.note(sample, SourceKind::InnodbTrx, e)?,
            }
        }
        self.sessions.fill(&mut sample.trx);
        Ok(())
    }

    /// Variables changed since the last read, if it is time to look (or `force`).
    pub async fn changed_variables(
        &mut self,
        cfg: &PollerConfig,
        force: bool,
    ) -> Result<Option<BTreeMap<String, String>>, String> {
        if !force
            && !self
                .guard
                .due(Cadenced::Variables, cfg.variables_every, Instant::now())
        {
            return Ok(None);
        }
        let sql = self.info.flavor.variables_sql();
        let read = self
            .ask_guarded(
                Cadenced::Variables,
                cfg.variables_every,
                Statement::Variables,
                &sql,
                cfg.query_timeout,
                true,
            )
            .await;
        match read {
            Ok(rs) => {
                let changed: BTreeMap<_, _> = variables_from(&rs)
                    .into_iter()
                    .filter(|(k, v)| self.info.variables.get(k) != Some(v))
                    .collect();
                self.info.variables.extend(changed.clone());
                Ok((!changed.is_empty()).then_some(changed))
            }
            Err(e) => e.lost().map(|_| None),
        }
    }

    fn note(&self, sample: &mut Sample, source: SourceKind, e: QueryError) -> Result<(), String> {
        refused(sample, source, e).map_err(|e| e.lost().err().unwrap_or_default())
    }
}

/// A refused source goes into the sample; a lost connection or a timeout is passed on.
fn refused(sample: &mut Sample, source: SourceKind, e: QueryError) -> Result<(), QueryError> {
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

/// Status rows into the sample, only the names the figures use (MariaDB's per-tick
/// statement returns every `Innodb_%` counter; the server may change their case).
fn read_status(rs: &[Row], sample: &mut Sample) {
    for r in rs {
        if let (Some(name), Some(v)) = (text(r, 0), number(r, 1))
            && STATUS.iter().any(|s| s.eq_ignore_ascii_case(&name))
        {
            sample.status.insert(name, v);
        }
    }
}

/// One INNODB_TRX row (the flavour's `trx_sql` column order); the session's user, host,
/// command and statement come from [`Sessions`].
fn trx_row(r: &Row) -> TrxRow {
    TrxRow {
        trx_id: text(r, 0).unwrap_or_default(),
        state: text(r, 1).unwrap_or_default(),
        age_s: number(r, 2).unwrap_or(0),
        isolation: text(r, 3),
        thread_id: number(r, 4).filter(|id| *id > 0),
        ..TrxRow::default()
    }
}

async fn read_variables(
    conn: &mut Conn,
    flavor_sql: &str,
    limit: Duration,
) -> Result<BTreeMap<String, String>, QueryError> {
    Ok(variables_from(&rows(conn, flavor_sql, limit).await?))
}

/// The server's own `READ_ONLY` for the probed variables (MariaDB), as `<name>.read_only`.
/// Best effort: without an answer the flavour's version table decides.
async fn read_only_answers(
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
            .map(|(k, v)| (crate::source::flavor::read_only_key(&k), v))
            .collect(),
        Err(_) => BTreeMap::new(),
    }
}

fn variables_from(rs: &[Row]) -> BTreeMap<String, String> {
    rs.iter()
        .filter_map(|r| Some((text(r, 0)?.to_ascii_lowercase(), text(r, 1)?)))
        .collect()
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
    // The latency guard outlives a lost connection: what timed out waits on the next one too.
    let mut kept_guard: Option<Guard> = None;

    loop {
        let Some(s) = session.as_mut() else {
            let since = *down_since.get_or_insert_with(Utc::now);
            match connect().await {
                Ok(conn) => match Session::open(conn, &cfg).await {
                    Ok(mut s) => {
                        if let Some(g) = kept_guard.take() {
                            s.keep_guard(g);
                        }
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
            // The latency guard stretched the tick: skip it unless the DBA asked for something.
            if !s.tick_due(cfg.interval) && !undo_scan_now && !refresh_vars {
                continue;
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
            kept_guard = session.take().map(Session::into_guard);
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
