//! Purge's lag counted once, checked on a private MariaDB: `Trx id counter` moves two numbers
//! per committed read-write transaction (its id and its commit number share the counter:
//! MariaDB `trx0sys.h trx_sys_t::get_new_trx_id` / `assign_new_trx_no`, mysql-server
//! `trx0sys.ic trx_sys_allocate_trx_id_or_no`), so "behind N" is numbers, not transactions;
//! and `purge.lag_s` — how long ago purge's position was the newest commit — grows with the
//! time a read view holds purge, and falls once it commits.

use crate::common;

use std::cell::Cell;
use std::time::{Duration, Instant};

use chrono::Utc;
use common::wait::{
    OnTimeout, duration_is_the_point_async, wait_for_async_every, wait_until_async,
};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::{Figures, LagSecondsFrom};
use innodebt_poller::live::{PollerConfig, Session};
use innodebt_server::sample::SourceEvent;
use mysql_async::Conn;
use mysql_async::prelude::Queryable;

/// The project's poller and derivation on one connection, SEIS read on every tick (the
/// dashboard reads it every 10 s; here the counter's readings come a second apart).
struct Poll {
    session: Session,
    cfg: PollerConfig,
    deriver: Deriver,
    started: Instant,
    /// (seconds since start, purge.lag_trx_numbers, purge.lag_s) of every tick, for the failure text.
    seen: Vec<(f64, Option<u64>, Option<f64>)>,
}

impl Poll {
    async fn open(server: &PrivateServer) -> Poll {
        let cfg = PollerConfig {
            label: "private test server".into(),
            ..PollerConfig::default()
        };
        let conn = Conn::new(server.opts()).await.expect("connect");
        let session = Session::open(conn, &cfg).await.expect("open a session");
        let mut deriver = Deriver::new();
        deriver.push(&SourceEvent::Connected {
            at: Utc::now(),
            info: session.info.clone(),
        });
        Poll {
            session,
            cfg,
            deriver,
            started: Instant::now(),
            seen: Vec::new(),
        }
    }

    async fn tick(&mut self) -> Figures {
        let sample = self
            .session
            .poll(&self.cfg, self.started, true, false)
            .await
            .expect("poll");
        let f = self.deriver.push_sample(&sample).expect("figures");
        self.seen.push((
            self.started.elapsed().as_secs_f64(),
            f.purge.lag_trx_numbers,
            f.purge.lag_s,
        ));
        f
    }
}

/// `Trx id counter` and `Purge done for trx's n:o <`, through the project's SEIS parser.
async fn counter_and_purged(conn: &mut Conn) -> (u64, u64) {
    let row: Option<(String, String, String)> = conn
        .query_first("SHOW ENGINE INNODB STATUS")
        .await
        .expect("SHOW ENGINE INNODB STATUS");
    let (_, _, text) = row.expect("one row");
    let st = innodebt_server::innodb_status::parse(&text);
    (
        st.trx_id_counter.expect("Trx id counter"),
        st.purge_done_trx.expect("Purge done for trx's n:o"),
    )
}

/// 300 autocommit INSERTs move the counter by 2 × 300, plus what InnoDB's own internal
/// transactions take meanwhile (the persistent-statistics recalculation of the growing
/// table: at most one per table every 10 s, `dict_stats_process_entry_from_recalc_pool`;
/// measured 202 for 100 INSERTs). Tolerance: never less than 2 a commit (each takes exactly
/// two), at most 2 a commit + 5 % (those internal transactions), which 3 numbers a commit
/// (or 1) would break.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_autocommit_insert_takes_two_transaction_numbers() {
    const N: u64 = 300;
    let server = PrivateServer::start(ServerConfig::default());
    let mut conn = Conn::new(server.opts()).await.expect("connect");
    conn.query_drop("CREATE DATABASE IF NOT EXISTS test")
        .await
        .expect("create database");
    conn.query_drop(
        "CREATE TABLE test.numbers (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB",
    )
    .await
    .expect("create table");
    // The CREATE's own transactions (a new table's persistent statistics) are done: their
    // row is saved.
    let srv = &server;
    wait_until_async(
        Duration::from_secs(10),
        "the new table's statistics saved in mysql.innodb_table_stats",
        || async move {
            let saved = srv
                .sql(
                    "SELECT 1 FROM mysql.innodb_table_stats \
                     WHERE database_name = 'test' AND table_name = 'numbers'",
                )
                .await;
            !saved.is_empty()
        },
    )
    .await;
    let (before, _) = counter_and_purged(&mut conn).await;
    for i in 0..N {
        conn.exec_drop("INSERT INTO test.numbers (v) VALUES (?)", (i,))
            .await
            .expect("insert");
    }
    let (after, _) = counter_and_purged(&mut conn).await;
    let moved = after - before;
    assert!(
        (2 * N..=2 * N + N / 10).contains(&moved),
        "{N} autocommit INSERTs moved Trx id counter by {moved} (from {before} to {after}); \
         expected 2 a commit, {}..={}",
        2 * N,
        2 * N + N / 10
    );
    drop(conn);
    // Caught up, purge's position is the counter itself: behind 0 numbers, 0 s.
    let (opts, last) = (&server.opts(), &Cell::new((0, 0)));
    wait_until_async(
        Duration::from_secs(30),
        OnTimeout(|| {
            let (counter, purged) = last.get();
            format!("purge to reach the counter at rest: {purged} < {counter}")
        }),
        || async move {
            let mut conn = Conn::new(opts.clone()).await.expect("connect");
            let (counter, purged) = counter_and_purged(&mut conn).await;
            let _ = conn.disconnect().await;
            last.set((counter, purged));
            purged == counter
        },
    )
    .await;
}

/// Under write load, a read view held for `hold` seconds leaves purge's position where the
/// counter stood when it opened: `purge.lag_s` is that hold (within the SEIS cadence of 1 s
/// and a tick: ±3 s), grows second for second while it is held, is found between two of the
/// counter's readings (they began before the view), and the transactions estimate is the
/// numbers over two. After the commit purge catches up and the lag falls under 3 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lag_seconds_grow_with_the_time_a_read_view_holds_purge() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let mut poll = Poll::open(&server).await;
    // Counter readings from before the view: the lag is found between two of them.
    for _ in 0..4 {
        poll.tick().await;
        duration_is_the_point_async(
            Duration::from_secs(1),
            "the counter's readings a second apart: the lag in seconds lies between two",
        )
        .await;
    }
    let view = BlockingSnapshot::open(server.opts()).await;
    let opened = Instant::now();

    let mut seen = Vec::new();
    for hold in [5.0, 12.0] {
        while opened.elapsed().as_secs_f64() < hold {
            poll.tick().await;
            duration_is_the_point_async(
                Duration::from_millis(500),
                "the poller's cadence while the view is held for its seconds",
            )
            .await;
        }
        let f = poll.tick().await;
        let held = opened.elapsed().as_secs_f64();
        let p = &f.purge;
        let lag_s = p.lag_s.expect("purge.lag_s under a held read view");
        assert_eq!(p.lag_s_from, Some(LagSecondsFrom::Readings), "{p:?}");
        assert!(
            (lag_s - held).abs() <= 3.0,
            "a read view held {held:.1} s: purge.lag_s {lag_s:.1} (numbers {:?}); ticks \
             (s, numbers, lag_s): {:?}",
            p.lag_trx_numbers,
            poll.seen
        );
        let numbers = p.lag_trx_numbers.expect("numbers behind");
        assert_eq!(p.lag_transactions, Some(numbers / 2), "{p:?}");
        assert!(
            p.lag_transactions_basis
                .as_deref()
                .is_some_and(|b| b.contains("2 transaction numbers per committed")),
            "{p:?}"
        );
        seen.push((held, lag_s));
    }
    let grew = seen[1].1 - seen[0].1;
    let held_more = seen[1].0 - seen[0].0;
    assert!(
        (grew - held_more).abs() <= 3.0,
        "held {held_more:.1} s longer, lag grew {grew:.1} s: {seen:?}"
    );

    view.commit().await;
    // Ticks at the same cadence until purge has caught up.
    let poll = &tokio::sync::Mutex::new(poll);
    wait_for_async_every(
        Duration::from_secs(30),
        Duration::from_millis(500),
        OnTimeout(|| {
            let seen = poll.try_lock().map(|p| format!("{:?}", p.seen));
            format!(
                "purge to catch up after the commit (lag under 3 s): ticks (s, numbers, lag_s): {}",
                seen.unwrap_or_default()
            )
        }),
        || async move {
            let f = poll.lock().await.tick().await;
            f.purge.lag_s.is_some_and(|s| s < 3.0).then_some(())
        },
    )
    .await;
    load.stop().await;
}

/// History held by open writes, on a private MariaDB ≥ 10.6.16 (MDEV-32050): several sessions
/// each hold an open write while others commit; once history has piled up, `--once` names the
/// oldest writer in its verdict, and `history.held_by` — what the History panel draws — names
/// the same session, with the verdict's severity and how many are open, never "no blocker".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_by_names_the_open_writer_the_verdict_names() {
    const WRITERS: u64 = 8;
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 3, 400);
    load.wait_ops(100).await;
    let mut writers = Vec::new();
    for _ in 0..WRITERS {
        writers.push(BlockingSnapshot::open_writer(server.opts()).await);
    }
    // History piles up behind the open writers.
    common::wait_for_history(&server, 12_000).await;
    let v = common::once_json(&server.conn_args(), &[]);
    load.stop().await;
    // Each writer did one INSERT, no consistent read: SHOW ENGINE INNODB STATUS lists them
    // without a read view, so none is a read view's blocker, however old.
    assert!(v["blocker"].is_null(), "blocker: {}", v["blocker"]);
    let verdict = &v["verdicts"][0];
    assert_eq!(
        verdict["kind"], "history_held_by_open_writes",
        "{}",
        v["verdicts"]
    );
    let held = &v["history"]["held_by"];
    assert_eq!(held["by"], "open_writes", "{held}");
    assert_eq!(held["thread_id"], verdict["thread_id"], "{held}");
    assert_eq!(
        held["thread_id"].as_u64(),
        Some(writers[0].thread_id()),
        "{held}"
    );
    assert_eq!(held["severity"], verdict["severity"], "{held}");
    assert!(
        held["open"].as_u64().is_some_and(|n| n >= WRITERS),
        "{held}"
    );
    for w in writers {
        w.commit().await;
    }
}
