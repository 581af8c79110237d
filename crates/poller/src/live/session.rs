//! One connected session of the poller: what it knows about the server and how one tick
//! reads it into a sample, each source on its own cadence.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use mysql_async::{Conn, Row};

use crate::cadence::{Cadenced, Guard, Outcome, WAITS_SHARE};
use crate::oldest::Oldest;
use crate::sessions::{SessionInfo, Sessions};
use innodebt_server::flavor::Flavor;
use innodebt_server::innodb_status;
use innodebt_server::sample::{
    PollCost, Sample, ServerInfo, SourceKind, Statement, StatementCost, UndoScan,
};

use super::query::*;
use super::*;

/// Statement texts of one connection.
struct Texts {
    status: Arc<str>,
    metrics: Arc<str>,
    /// The every-tick statements in one round trip, and after INNODB_TRX when it is due.
    tick: Arc<str>,
    tick_trx: Arc<str>,
    session_sums: Option<Arc<str>>,
    variables: Arc<str>,
}

impl Texts {
    fn new(flavor: &Flavor) -> Self {
        let (status, metrics) = (flavor.status_sql(), flavor.metrics_sql());
        Texts {
            tick: format!("{status};\n{metrics}").into(),
            tick_trx: format!("{};\n{status};\n{metrics}", flavor.trx_sql()).into(),
            status: status.into(),
            metrics: metrics.into(),
            session_sums: flavor.session_sums_sql().map(Into::into),
            variables: flavor.variables_sql().into(),
        }
    }
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
    /// The per-tick and cadenced statements' texts, built once per connection (the flavour
    /// does not change on it): not a format of dozens of quoted names per poll.
    sql: Texts,
    /// Readings of the session sums on this connection: the first two come on the first two
    /// ticks (uptime at once, the rows/s adding history after one interval), then their cadence.
    sums_read: u8,
    /// The tick's statements go in one round trip until the server refuses one of them (a
    /// missing privilege): then one at a time on this connection, each refusal its own.
    batching: bool,
}

impl Session {
    /// Reads the variables and detects the flavour — once per connection.
    pub async fn open(mut conn: Conn, cfg: &PollerConfig) -> Result<Session, String> {
        let variables = read_variables(
            &mut conn,
            &innodebt_server::flavor::variables_sql(),
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
        // Once per connection: a restarted server is a new connection, read again.
        let recovery_log = Some(Box::new(
            super::errlog::read(&mut conn, &flavor, cfg.query_timeout).await,
        ));
        let pfs = variables
            .get("performance_schema")
            .is_some_and(|v| v.eq_ignore_ascii_case("ON"));
        variables.extend(instrument_answers(&mut conn, &flavor, pfs, cfg.query_timeout).await);
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
                recovery_log,
            },
            guard,
            sessions: Sessions::default(),
            oldest: Oldest::default(),
            threads_refused: false,
            spent: Vec::new(),
            sql: Texts::new(&flavor),
            sums_read: 0,
            batching: true,
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
        self.spend(what, begun.elapsed());
        result
    }

    /// A statement's time on the wire, into this poll's cost.
    fn spend(&mut self, what: Statement, took: Duration) {
        self.spent.push(StatementCost {
            what,
            us: u64::try_from(took.as_micros()).unwrap_or(u64::MAX),
        });
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
        if let Some(sql) = self.sql.session_sums.clone()
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

        self.poll_waits(&mut sample, cfg.interval, t, force_slow)
            .await?;

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
        if self.batching {
            // Decided before asking, so INNODB_TRX rides in the same round trip: the cadence
            // reads earlier ticks' round trips, with a tenth of an interval of slack.
            let trx_due = force || self.oldest.due(interval, every_tick);
            match self
                .tick_in_one(sample, flavor, t, trx_due, every_tick)
                .await
            {
                Err(QueryError::Server { .. }) => self.batching = false,
                done => return done,
            }
        }
        match self
            .ask(Statement::GlobalStatus, &Arc::clone(&self.sql.status), t)
            .await
        {
            Ok(rs) => read_status(&rs, sample),
            Err(e) => refused(sample, SourceKind::GlobalStatus, e)?,
        }
        match self
            .ask(Statement::InnodbMetrics, &Arc::clone(&self.sql.metrics), t)
            .await
        {
            Ok(rs) => read_metrics(&rs, sample),
            Err(e) => refused(sample, SourceKind::InnodbMetrics, e)?,
        }
        let now = Instant::now();
        self.oldest.every_tick_took(now - every_tick);
        if !force && !self.oldest.due(interval, now) {
            self.carry_trx(sample, now);
            return Ok(());
        }
        match self.ask(Statement::InnodbTrx, flavor.trx_sql(), t).await {
            Ok(rs) => self.read_trx(&rs, sample, flavor, now, now.elapsed()),
            Err(e) => refused(sample, SourceKind::InnodbTrx, e)?,
        }
        Ok(())
    }

    /// The tick's statements in one round trip: one packet each way and one wake-up, for
    /// innodebt and the server, instead of one per statement. INNODB_TRX, when due, goes
    /// first: performance_schema's digests show a batch under its first statement (MariaDB
    /// 10.11), so INNODB_TRX's digest still counts innodebt's reads of it. `Err(Server)`: the
    /// server refused one of them (a missing privilege), nothing was read into `sample`.
    async fn tick_in_one(
        &mut self,
        sample: &mut Sample,
        flavor: Flavor,
        t: Duration,
        trx_due: bool,
        begun: Instant,
    ) -> Result<(), QueryError> {
        let (sql, n) = if trx_due {
            (Arc::clone(&self.sql.tick_trx), 3)
        } else {
            (Arc::clone(&self.sql.tick), 2)
        };
        // The status statement follows INNODB_TRX when that is due.
        let status_at = usize::from(trx_due);
        let keep = |i: usize, row: &Row| i != status_at || wanted_status(row);
        let mut answers = batch(&mut self.conn, &sql, n, t, keep).await?.into_iter();
        let trx = if trx_due { answers.next() } else { None };
        let (status, status_took) = answers.next().unwrap_or_default();
        let (metrics, metrics_took) = answers.next().unwrap_or_default();
        let shares = [
            (Statement::GlobalStatus, status_took),
            (Statement::InnodbMetrics, metrics_took),
        ];
        let trx_share = trx.as_ref().map(|(_, took)| (Statement::InnodbTrx, *took));
        for (what, took) in shares.into_iter().chain(trx_share) {
            self.spend(what, took);
        }
        read_status(&status, sample);
        read_metrics(&metrics, sample);
        self.oldest.every_tick_took(status_took + metrics_took);
        match trx {
            Some((rows, took)) => self.read_trx(&rows, sample, flavor, begun, took),
            None => self.carry_trx(sample, begun + status_took + metrics_took),
        }
        Ok(())
    }

    /// A tick that does not read INNODB_TRX carries the rows last read.
    fn carry_trx(&self, sample: &mut Sample, now: Instant) {
        sample.trx = self.oldest.carried(now);
        (sample.trx_open, sample.trx_rw) = self.oldest.counts();
    }

    /// INNODB_TRX's rows (read at `at`, in `took`) into the sample and the cadence.
    fn read_trx(
        &mut self,
        rs: &[Row],
        sample: &mut Sample,
        flavor: Flavor,
        at: Instant,
        took: Duration,
    ) {
        sample.trx = rs.iter().map(trx_row).collect();
        // No row: none open (but ours).
        let counted = |col: usize| {
            flavor
                .trx_counted()
                .then(|| rs.first().and_then(|r| number(r, col)).unwrap_or(0))
        };
        let counts = (counted(5), counted(6));
        (sample.trx_open, sample.trx_rw) = counts;
        self.oldest.read(sample.trx.clone(), counts, at, took);
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
        let sql = Arc::clone(&self.sql.variables);
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
                let mut read = variables_from(&rs);
                // Whether the latch instruments count: one may have been switched on since.
                let flavor = self.info.flavor;
                let pfs = read
                    .get("performance_schema")
                    .is_some_and(|v| v.eq_ignore_ascii_case("ON"));
                if pfs {
                    let begun = Instant::now();
                    read.extend(
                        instrument_answers(&mut self.conn, &flavor, pfs, cfg.query_timeout).await,
                    );
                    self.spend(Statement::Waits, begun.elapsed());
                }
                let changed: BTreeMap<_, _> = read
                    .into_iter()
                    .filter(|(k, v)| self.info.variables.get(k) != Some(v))
                    .collect();
                self.info.variables.extend(changed.clone());
                Ok((!changed.is_empty()).then_some(changed))
            }
            Err(e) => e.lost().map(|_| None),
        }
    }

    /// The latch waits from performance_schema, only while one of the flavour's instruments
    /// counts, and held to [`WAITS_SHARE`] of the server's time (the summary walks every
    /// instrument instance). `force`: ask now (`--once`).
    async fn poll_waits(
        &mut self,
        sample: &mut Sample,
        interval: Duration,
        t: Duration,
        force: bool,
    ) -> Result<(), String> {
        let flavor = self.info.flavor;
        let counting = counting_instruments(&flavor, &self.info.variables);
        if counting.is_empty()
            || !(force || self.guard.due(Cadenced::Waits, interval, Instant::now()))
        {
            return Ok(());
        }
        let begun = Instant::now();
        let result = self
            .ask(Statement::Waits, &flavor.waits_sql(&counting), t)
            .await;
        let outcome = match &result {
            Err(QueryError::TimedOut(_)) => Outcome::TimedOut,
            _ => Outcome::Answered(begun.elapsed()),
        };
        self.guard
            .record_costly_share(Cadenced::Waits, interval, begun, outcome, WAITS_SHARE);
        match result {
            Ok(rs) => sample.waits = Some(wait_sums(&rs)),
            Err(e) => self.note(sample, SourceKind::Waits, e)?,
        }
        Ok(())
    }

    fn note(&self, sample: &mut Sample, source: SourceKind, e: QueryError) -> Result<(), String> {
        refused(sample, source, e).map_err(|e| e.lost().err().unwrap_or_default())
    }
}
