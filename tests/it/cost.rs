//! What polling costs the server, against private servers:
//! - with 1,500 sessions (150 in open write transactions, `max_connections` raised) the purge
//!   blocker is still named with user, host and statement — through performance_schema, and
//!   through the processlist by id for an account that may not read performance_schema — and
//!   its session is looked up once, not every tick;
//! - from a handful of sessions to 1,500 the status counters and INNODB_METRICS run once
//!   every tick; INNODB_TRX at most once — every tick with one open transaction, every other
//!   tick with 151 (`innodebt_poller::oldest`) — and never with the statement text
//!   (performance_schema's digests say what the server ran); between reads the blocker's age
//!   counts on;
//! - every sample records each statement it sent and its round trip; a tick sends them in one
//!   round trip (INNODB_TRX first, so its digest still counts its reads);
//! - the latency guard: a stalled server (our proxy stops forwarding) times a query out; on
//!   the new connection the tick is not retried at once, the samples say which source is
//!   slowed, and the cadence comes back step by step once the server answers fast.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::proxy::StallProxy;
use common::wait::duration_is_the_point_async;
use common::{PrivateServer, ServerConfig};
use innodebt::cli::{ConnectOptions, Endpoint};
use innodebt_engine::derive::Deriver;
use innodebt_poller::cadence::{BUDGET_SHARE, Cadenced, MAX_STRETCH, Slowed};
use innodebt_poller::connect;
use innodebt_poller::live::{self, ConnectFn, PollerCommand, PollerConfig, Session};
use innodebt_server::sample::{PollCost, SourceEvent, Statement};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, OptsBuilder};
use tokio::sync::mpsc;

const SESSIONS: usize = 1500;

async fn next(rx: &mut mpsc::Receiver<SourceEvent>) -> SourceEvent {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("an event within 30 s")
        .expect("poller alive")
}

/// The live poller on its own task: its handle, its events, and its command sender (kept
/// open for as long as the test holds it; these tests send nothing).
fn spawn_poller(
    opts: ConnectOptions,
    cfg: PollerConfig,
) -> (
    tokio::task::JoinHandle<()>,
    mpsc::Receiver<SourceEvent>,
    mpsc::Sender<PollerCommand>,
) {
    let (tx, rx) = mpsc::channel(256);
    let (cmd_tx, cmd_rx) = mpsc::channel::<PollerCommand>(4);
    let poller = tokio::spawn(live::run(None, connector(opts), cfg, tx, cmd_rx));
    (poller, rx, cmd_tx)
}

fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move { connect::connect(&opts).await.map_err(|e| e.to_string()) })
    })
}

/// The tick's stretch after one more sample, checked against the latency guard's rule
/// (`innodebt_poller::cadence`) with the round trip the sample reports: over the budget doubles it (up
/// to [`MAX_STRETCH`]), under half the budget halves it (`recovering`), in between keeps it.
/// Panics, naming the sample, when the step breaks the rule.
fn tick_step(before: u32, slowed: &[Slowed], interval: Duration) -> u32 {
    let budget_ms = interval.mul_f64(BUDGET_SHARE).as_millis() as u64;
    let interval_ms = interval.as_millis() as u64;
    let Some(tick) = slowed.iter().find(|s| s.source == Cadenced::Tick) else {
        // Not slowed: an answer within the budget at full cadence, or the last step back.
        assert!(
            before <= 2,
            "the cadence came back from {before}× at once, not step by step: {slowed:?}"
        );
        return 1;
    };
    assert!(!tick.timed_out, "the tick answered: {tick:?}");
    assert_eq!(tick.every_ms % interval_ms, 0, "{tick:?}");
    let now = u32::try_from(tick.every_ms / interval_ms).expect("a small stretch");
    let last_ms = tick.last_ms.expect("an answered tick has a round trip");
    // `recovering` is "under half the budget"; milliseconds blur only the edge.
    if last_ms * 2 + 2 < budget_ms {
        assert!(tick.recovering, "a {last_ms} ms answer is fast: {tick:?}");
    } else if last_ms * 2 >= budget_ms {
        assert!(
            !tick.recovering,
            "a {last_ms} ms answer is not fast: {tick:?}"
        );
    }
    let allowed: Vec<u32> = if tick.recovering {
        vec![(before / 2).max(1)]
    } else if last_ms > budget_ms {
        vec![(before * 2).min(MAX_STRETCH)]
    } else if last_ms == budget_ms {
        // Milliseconds hide which side of the budget it fell on.
        vec![before, (before * 2).min(MAX_STRETCH)]
    } else {
        vec![before]
    };
    assert!(
        allowed.contains(&now),
        "from {before}× with a {last_ms} ms answer (budget {budget_ms} ms) the tick is asked \
         every {now}×, not {allowed:?}: {slowed:?}"
    );
    now
}

/// The statements that ran on every tick, and how often each ran on one tick at most.
fn per_tick(costs: &[PollCost]) -> (BTreeSet<Statement>, BTreeMap<Statement, usize>) {
    let mut most = BTreeMap::new();
    let mut every: Option<BTreeSet<Statement>> = None;
    for c in costs {
        let mut this: BTreeMap<Statement, usize> = BTreeMap::new();
        for s in &c.statements {
            *this.entry(s.what).or_default() += 1;
        }
        for (what, n) in &this {
            let m = most.entry(*what).or_insert(0);
            *m = (*m).max(*n);
        }
        let keys: BTreeSet<Statement> = this.into_keys().collect();
        every = Some(match every {
            None => keys,
            Some(e) => e.intersection(&keys).copied().collect(),
        });
    }
    (every.unwrap_or_default(), most)
}

/// `ticks` polls at `cfg.interval` on a fresh session as `user`: each sample's cost and the
/// figures after each.
async fn poll_ticks(
    server: &PrivateServer,
    user: &str,
    password: Option<&str>,
    cfg: &PollerConfig,
    ticks: usize,
) -> (Vec<PollCost>, Vec<innodebt_engine::figures::Figures>) {
    let mut o = ConnectOptions::new(Endpoint::Socket(server.socket()));
    o.user = user.into();
    o.password = password.map(innodebt::cli::Secret::new);
    let conn = connect::connect(&o).await.expect("connect");
    let mut session = Session::open(conn, cfg).await.expect("session");
    let mut deriver = Deriver::new();
    deriver.push(&SourceEvent::Connected {
        at: chrono::Utc::now(),
        info: session.info.clone(),
    });
    let started = Instant::now();
    let (mut costs, mut figures) = (Vec::new(), Vec::new());
    for tick in 0..ticks {
        if tick > 0 {
            duration_is_the_point_async(
                cfg.interval,
                "the poller's cadence: what a tick reads depends on its interval",
            )
            .await;
        }
        let sample = session
            .poll(cfg, started, false, false)
            .await
            .expect("poll");
        costs.push(sample.cost.clone().expect("every sample records its cost"));
        figures.extend(deriver.push_sample(&sample));
    }
    (costs, figures)
}

/// The blocker: a REPEATABLE READ snapshot over TCP as `reporter`, then a long statement.
async fn open_blocker(server: &PrivateServer) -> Conn {
    let opts = OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(server.port())
        .prefer_socket(false)
        .user(Some("reporter"))
        .pass(Some("r3port"));
    let mut c = Conn::new(opts).await.expect("reporter connects");
    for q in [
        "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
        "START TRANSACTION WITH CONSISTENT SNAPSHOT",
        "SELECT COUNT(*) FROM test.load",
    ] {
        c.query_drop(q).await.expect(q);
    }
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_blocker_is_named_among_1500_sessions_with_one_lookup() {
    let server = PrivateServer::start(
        ServerConfig {
            max_connections: u32::try_from(SESSIONS + 100).expect("fits"),
            ..ServerConfig::default()
        }
        .with_args(["--performance-schema=ON", "--open-files-limit=8000"]),
    );
    for q in [
        "CREATE DATABASE test",
        "CREATE TABLE test.load (id INT PRIMARY KEY, k INT) ENGINE=InnoDB",
        "INSERT INTO test.load VALUES (1, 1), (2, 2)",
        "CREATE TABLE test.hold (id INT PRIMARY KEY) ENGINE=InnoDB",
        "CREATE USER reporter@'%' IDENTIFIED BY 'r3port'",
        "GRANT SELECT ON test.* TO reporter@'%'",
        // PROCESS only: INNODB_TRX and the processlist, not performance_schema.
        "CREATE USER watcher@'%' IDENTIFIED BY 'w4tch'",
        "GRANT PROCESS ON *.* TO watcher@'%'",
    ] {
        server.sql(q).await;
    }
    // The blocker first, so that it is the oldest transaction.
    let mut blocker = open_blocker(&server).await;
    let blocker_id: u64 = blocker
        .query_first("SELECT CONNECTION_ID()")
        .await
        .expect("id")
        .expect("row");
    let statement = tokio::spawn(async move {
        let _ = blocker
            .query_drop("SELECT SLEEP(600) /* nightly report */")
            .await;
        blocker
    });

    let cfg = PollerConfig {
        interval: Duration::from_millis(300),
        label: "private".into(),
        ..PollerConfig::default()
    };
    duration_is_the_point_async(
        Duration::from_secs(2),
        "the blocker's transaction ages past 2 s, the age from which it is named",
    )
    .await;
    // A handful of sessions first: what runs every tick, and at most how often per tick.
    let (few, _) = poll_ticks(&server, "root", None, &cfg, 12).await;
    let (every_few, most_few) = per_tick(&few);
    let trx_reads = |costs: &[PollCost]| {
        costs
            .iter()
            .filter(|c| c.statements.iter().any(|s| s.what == Statement::InnodbTrx))
            .count()
    };
    // One open transaction (the blocker's): INNODB_TRX on every tick.
    assert_eq!(trx_reads(&few), few.len(), "{few:?}");
    let mut client_reads = few.len();

    let held = common::idle_sessions(server.opts(), "test.hold", 0, SESSIONS).await;
    let open: Vec<mysql_async::Row> = server
        .sql("SELECT COUNT(*) FROM information_schema.PROCESSLIST")
        .await;
    let sessions: u64 = open[0].get(0).expect("count");
    assert!(sessions > SESSIONS as u64, "{sessions} sessions open");

    let accounts = [
        ("root", None, "performance_schema.threads"),
        ("watcher", Some("w4tch"), "the processlist by id"),
    ];
    for (user, password, via) in accounts {
        let (costs, figures) = poll_ticks(&server, user, password, &cfg, 12).await;
        let (every, most) = per_tick(&costs);
        // The status counters and INNODB_METRICS on every tick, whatever the sessions.
        let tick: BTreeSet<Statement> = [Statement::GlobalStatus, Statement::InnodbMetrics].into();
        assert!(
            every.is_superset(&tick) && every_few.is_superset(&tick),
            "{user}: every tick at 1,500 sessions {every:?}, at a handful {every_few:?}"
        );
        for what in [
            Statement::GlobalStatus,
            Statement::InnodbMetrics,
            Statement::InnodbTrx,
            Statement::SessionLookup,
        ] {
            assert!(
                most.get(&what).copied().unwrap_or(0) <= 1
                    && most_few.get(&what).copied().unwrap_or(0) <= 1,
                "{user}: {what:?} more than once on a tick: {most:?} / {most_few:?}"
            );
        }
        assert!(
            costs[0]
                .statements
                .iter()
                .any(|s| s.what == Statement::InnodbTrx),
            "{user}: the first tick reads the oldest transactions"
        );
        // 151 open transactions: INNODB_TRX every ⌈151 / 100⌉ = 2 ticks (a tick slower than
        // the interval on a loaded machine may read once more).
        let reads = trx_reads(&costs);
        client_reads += reads;
        assert!(
            (costs.len() / 2..=costs.len() * 2 / 3).contains(&reads),
            "{user}: INNODB_TRX on {reads} of {} ticks with 151 open transactions",
            costs.len()
        );
        let lookups = costs
            .iter()
            .flat_map(|c| &c.statements)
            .filter(|s| s.what == Statement::SessionLookup)
            .count();
        let f = figures.last().expect("figures");
        let b = f.blocker.as_ref().expect("the blocker is named");
        assert_eq!(b.thread_id, Some(blocker_id), "{user}");
        assert_eq!(b.user.as_deref(), Some("reporter"), "{user} via {via}");
        assert!(
            b.host
                .as_deref()
                .is_some_and(|h| h.starts_with("127.0.0.1") || h.starts_with("localhost")),
            "{user} via {via}: host {:?}",
            b.host
        );
        assert!(
            b.query
                .as_deref()
                .is_some_and(|q| q.contains("nightly report")),
            "{user} via {via}: statement {:?}",
            b.query
        );
        // Read or carried, the blocker's age never goes back.
        let ages: Vec<u64> = figures
            .iter()
            .filter_map(|f| f.blocker.as_ref().map(|b| b.age_s))
            .collect();
        assert!(
            ages.len() >= 10 && ages.windows(2).all(|w| w[0] <= w[1]),
            "{user}: blocker ages {ages:?}"
        );
        // Only the blocker's session is looked up, once — not the other old transactions.
        // root: in performance_schema.threads. watcher may not read performance_schema: one
        // refused there, then one in the processlist by id.
        let expected = if password.is_none() { 1 } else { 2 };
        assert_eq!(
            lookups, expected,
            "{user}: the blocker's session is looked up once, not every tick"
        );
        let c = f.self_cost.as_ref().expect("self cost in the figures");
        assert!(
            c.statements_per_tick >= 2 && c.server_ms_per_tick > 0.0,
            "{c:?}"
        );
        assert!(c.server_ms_p95_1m.is_some());
    }
    // What the server ran, by digest: INNODB_TRX never with the statement text, and as often
    // as the samples say. The tick sends INNODB_TRX first in one multi-statement query with
    // the status counters and INNODB_METRICS, and MariaDB 10.11 counts each of the three
    // statements under the first one's digest: three per read.
    let digests = server
        .sql(
            "SELECT DIGEST_TEXT, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest \
             WHERE DIGEST_TEXT LIKE '%INNODB_TRX%'",
        )
        .await;
    let mut server_reads = 0u64;
    for r in &digests {
        let text: String = r.get(0).expect("digest text");
        let n: u64 = r.get(1).expect("count");
        assert!(
            !text.to_ascii_lowercase().contains("trx_query"),
            "INNODB_TRX read with the statement text: {text}"
        );
        if text.contains("ORDER BY") {
            server_reads += n;
        }
    }
    assert_eq!(
        server_reads,
        3 * client_reads as u64,
        "INNODB_TRX's digest as the server counted it vs the reads the samples recorded"
    );
    statement.abort();
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_server_is_polled_less_often_not_retried_at_once() {
    let server = PrivateServer::start(ServerConfig::default());
    let proxy = StallProxy::start(server.port());
    let mut o = ConnectOptions::new(Endpoint::Tcp {
        host: "127.0.0.1".into(),
        port: proxy.port(),
    });
    o.connect_timeout = Duration::from_secs(2);
    let interval = Duration::from_millis(200);
    let cfg = PollerConfig {
        interval,
        query_timeout: Duration::from_millis(800),
        label: "proxy".into(),
        ..PollerConfig::default()
    };
    let (poller, mut rx, _commands) = spawn_poller(o, cfg);
    // Healthy: an answering server is never called timed out, and the tick's cadence follows
    // its measured round trips (a loaded machine answers over the budget, and the guard is
    // right to slow it: what the test holds the guard to is the rule, not the machine's speed).
    let mut stretch = 1;
    let mut healthy = 0;
    while healthy < 3 {
        if let SourceEvent::Sample(s) = next(&mut rx).await {
            let slowed = s.cost.expect("cost").slowed;
            assert!(slowed.iter().all(|s| !s.timed_out), "{slowed:?}");
            stretch = tick_step(stretch, &slowed, interval);
            healthy += 1;
        }
    }

    // Stall past the query timeout: the query times out, the connection is given up.
    let paused_at = Instant::now();
    proxy.pause();
    loop {
        if let SourceEvent::Disconnected { error, .. } = next(&mut rx).await {
            assert!(error.contains("timed out"), "{error}");
            break;
        }
    }
    proxy.resume();
    // Reconnected: the timed-out tick waits its longest period, not one interval.
    loop {
        if matches!(next(&mut rx).await, SourceEvent::Connected { .. }) {
            break;
        }
    }
    let first = loop {
        if let SourceEvent::Sample(s) = next(&mut rx).await {
            break s;
        }
    };
    // The timed-out tick started after the pause; it is held off for its longest period
    // from then (without the guard the next sample would come right after reconnecting,
    // about a query timeout after the pause).
    let waited = paused_at.elapsed();
    let held_off = interval * MAX_STRETCH;
    assert!(
        waited + interval * 2 >= held_off,
        "polled {waited:?} after the stall began: a timed-out source must not be retried at \
         once (held off {held_off:?} from the tick that timed out)"
    );
    let slowed = first.cost.expect("cost").slowed;
    assert!(
        slowed.iter().any(|s| s.source == Cadenced::Tick),
        "the sample says polling is slowed: {slowed:?}"
    );
    // The first answer after the time-out steps down from the longest period, never further.
    let mut stretch = tick_step(MAX_STRETCH, &slowed, interval);
    // Fast answers bring the cadence back step by step (each halves the period, never back
    // at once); slow ones hold it or slow it again. The steps follow the round trips this
    // machine gave, sample by sample, for as many samples as the way back takes when every
    // answer is fast (16 → 1 in four), and more while the answers are slow.
    let mut slow_answers = 0;
    let mut samples = 0;
    while stretch > 1 && samples < 12 {
        if let SourceEvent::Sample(s) = next(&mut rx).await {
            let slowed = s.cost.expect("cost").slowed;
            let before = stretch;
            stretch = tick_step(stretch, &slowed, interval);
            if stretch >= before {
                slow_answers += 1;
            }
            samples += 1;
        }
    }
    eprintln!(
        "the tick's cadence after the stall: {stretch}× after {samples} samples, \
         {slow_answers} of them answered too slowly to step back"
    );
    assert!(
        stretch == 1 || slow_answers > 0,
        "only slow answers keep the cadence slowed ({stretch}×)"
    );
    poller.abort();
    drop(proxy);
}

/// A tick's statements go in one round trip (one command on the wire, counted by our proxy),
/// INNODB_TRX included when due; the sample still records each statement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tick_sends_its_statements_in_one_round_trip() {
    let server = PrivateServer::start(ServerConfig::default());
    let proxy = StallProxy::start(server.port());
    let o = ConnectOptions::new(Endpoint::Tcp {
        host: "127.0.0.1".into(),
        port: proxy.port(),
    });
    // Nothing on a slower cadence falls inside the counted ticks.
    let cfg = PollerConfig {
        interval: Duration::from_millis(200),
        innodb_status_every: Duration::from_secs(3600),
        variables_every: Duration::from_secs(3600),
        label: "proxy".into(),
        ..PollerConfig::default()
    };
    let (poller, mut rx, _commands) = spawn_poller(o, cfg);
    let mut samples = Vec::new();
    let mut counted_from = None;
    while samples.len() < 12 {
        if let SourceEvent::Sample(s) = next(&mut rx).await {
            // The first ticks read the session sums too: count the ticks after the third.
            if samples.len() == 2 {
                counted_from = Some(proxy.commands_to_server());
            }
            samples.push(s);
        }
    }
    let commands = proxy.commands_to_server() - counted_from.expect("counted");
    poller.abort();
    let statements: Vec<Vec<Statement>> = samples[3..]
        .iter()
        .map(|s| {
            let cost = s.cost.as_ref().expect("cost");
            cost.statements.iter().map(|c| c.what).collect()
        })
        .collect();
    let ticks = statements.len() as u64;
    let trx_reads = statements
        .iter()
        .filter(|s| s.contains(&Statement::InnodbTrx))
        .count() as u64;
    assert!(
        statements
            .iter()
            .all(|s| s.starts_with(&[Statement::GlobalStatus, Statement::InnodbMetrics])),
        "{statements:?}"
    );
    assert!(trx_reads > 0, "{statements:?}");
    // One command a tick, not one per statement (two or three a tick before); give or take
    // one at either end, as the poller may be a tick ahead of the samples read.
    assert!(
        (ticks - 1..=ticks + 1).contains(&commands),
        "{commands} commands in {ticks} ticks ({trx_reads} INNODB_TRX reads): {statements:?}"
    );
}
