//! What polling costs the server, against private servers:
//! - with 1,500 sessions (150 in open write transactions, `max_connections` raised) the purge
//!   blocker is still named with user, host and statement — through performance_schema, and
//!   through the processlist by id for an account that may not read performance_schema — and
//!   its session is looked up once, not every tick;
//! - every sample records each statement it sent and its round trip;
//! - the latency guard: a stalled server (our proxy stops forwarding) times a query out; on
//!   the new connection the tick is not retried at once, the samples say which source is
//!   slowed, and the cadence comes back step by step once the server answers fast.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::proxy::StallProxy;
use common::{PrivateServer, ServerConfig};
use innodebt::cli::{ConnectOptions, Endpoint};
use innodebt::derive::Deriver;
use innodebt::sample::{SourceEvent, Statement};
use innodebt::source::cadence::{Cadenced, MAX_STRETCH};
use innodebt::source::connect;
use innodebt::source::live::{self, ConnectFn, PollerCommand, PollerConfig, Session};
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

fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move { connect::connect(&opts).await.map_err(|e| e.to_string()) })
    })
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
            .query_drop("SELECT SLEEP(60) /* nightly report */")
            .await;
        blocker
    });

    let held = common::idle_sessions(server.opts(), "test.hold", 0, SESSIONS).await;
    let open: Vec<mysql_async::Row> = server
        .sql("SELECT COUNT(*) FROM information_schema.PROCESSLIST")
        .await;
    let sessions: u64 = open[0].get(0).expect("count");
    assert!(sessions > SESSIONS as u64, "{sessions} sessions open");
    tokio::time::sleep(Duration::from_secs(2)).await;

    let cfg = PollerConfig {
        interval: Duration::from_millis(300),
        label: "private".into(),
        ..PollerConfig::default()
    };
    let accounts = [
        ("root", None, "performance_schema.threads"),
        ("watcher", Some("w4tch"), "the processlist by id"),
    ];
    for (user, password, via) in accounts {
        let mut o = ConnectOptions::new(Endpoint::Socket(server.socket()));
        o.user = user.into();
        o.password = password.map(innodebt::cli::Secret::new);
        let conn = connect::connect(&o).await.expect("connect");
        let mut session = Session::open(conn, &cfg).await.expect("session");
        let mut deriver = Deriver::new();
        deriver.push(&SourceEvent::Connected {
            at: chrono::Utc::now(),
            info: session.info.clone(),
        });
        let started = Instant::now();
        let mut lookups = 0;
        let mut figures = None;
        for tick in 0..8 {
            if tick > 0 {
                tokio::time::sleep(cfg.interval).await;
            }
            let sample = session
                .poll(&cfg, started, false, false)
                .await
                .expect("poll");
            let cost = sample.cost.clone().expect("every sample records its cost");
            assert!(!cost.statements.is_empty());
            lookups += cost
                .statements
                .iter()
                .filter(|s| s.what == Statement::SessionLookup)
                .count();
            let per_tick = cost
                .statements
                .iter()
                .filter(|s| {
                    matches!(
                        s.what,
                        Statement::GlobalStatus | Statement::InnodbMetrics | Statement::InnodbTrx
                    )
                })
                .count();
            assert_eq!(per_tick, 3, "{user}: {:?}", cost.statements);
            figures = deriver.push_sample(&sample);
        }
        let f = figures.expect("figures");
        let b = f.blocker.expect("the blocker is named");
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
        // Only the blocker's session is looked up, once — not the other old transactions.
        // root: in performance_schema.threads. watcher may not read performance_schema: one
        // refused there, then one in the processlist by id.
        let expected = if password.is_none() { 1 } else { 2 };
        assert_eq!(
            lookups, expected,
            "{user}: the blocker's session is looked up once, not every tick"
        );
        let c = f.self_cost.expect("self cost in the figures");
        assert!(
            c.statements_per_tick >= 3 && c.server_ms_per_tick > 0.0,
            "{c:?}"
        );
        assert!(c.server_ms_p95_1m.is_some());
    }
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
    let (tx, mut rx) = mpsc::channel(256);
    let (_cmd_tx, cmd_rx) = mpsc::channel::<PollerCommand>(4);
    let poller = tokio::spawn(live::run(None, connector(o), cfg, tx, cmd_rx));
    // Healthy: samples at the interval, nothing slowed.
    let mut healthy = 0;
    while healthy < 3 {
        if let SourceEvent::Sample(s) = next(&mut rx).await {
            let cost = s.cost.expect("cost");
            assert!(cost.slowed.is_empty(), "{:?}", cost.slowed);
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
    // Fast answers bring the cadence back step by step.
    let back = Instant::now();
    loop {
        if let SourceEvent::Sample(s) = next(&mut rx).await
            && s.cost.expect("cost").slowed.is_empty()
        {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(20),
            "cadence never came back"
        );
    }
    poller.abort();
    drop(proxy);
}
