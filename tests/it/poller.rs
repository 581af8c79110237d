//! The live poller against a private server that dies and comes back: it reports
//! `Disconnected` with a capped retry, reconnects by itself, and rates restart from fresh
//! baselines (no negative values, no spikes).

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{PrivateServer, ServerConfig, WriteLoad};
use innodebt::cli::{ConnectOptions, Endpoint};
use innodebt_engine::derive::Deriver;
use innodebt_poller::connect;
use innodebt_poller::live::{self, BACKOFF_CAP, ConnectFn, PollerCommand, PollerConfig};
use innodebt_server::sample::SourceEvent;
use tokio::sync::mpsc;

fn options(server: &PrivateServer) -> ConnectOptions {
    ConnectOptions::new(Endpoint::Socket(server.socket()))
}

fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move { connect::connect(&opts).await.map_err(|e| e.to_string()) })
    })
}

/// The live poller on `server` at `interval`: its task, its events and its commands.
fn start_poller(
    server: &PrivateServer,
    interval: Duration,
) -> (
    tokio::task::JoinHandle<()>,
    mpsc::Receiver<SourceEvent>,
    mpsc::Sender<PollerCommand>,
) {
    let cfg = PollerConfig {
        interval,
        label: "private".into(),
        ..PollerConfig::default()
    };
    let (tx, rx) = mpsc::channel(64);
    let (cmd_tx, cmd_rx) = mpsc::channel::<PollerCommand>(4);
    let poller = tokio::spawn(live::run(None, connector(options(server)), cfg, tx, cmd_rx));
    (poller, rx, cmd_tx)
}

async fn next_event(rx: &mut mpsc::Receiver<SourceEvent>) -> SourceEvent {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("an event within 30 s")
        .expect("poller alive")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn survives_kill_9_and_restarts_rates() {
    let mut server = PrivateServer::start(ServerConfig::default());
    let (poller, mut rx, _cmd_tx) = start_poller(&server, Duration::from_millis(200));
    let load = WriteLoad::paced(server.opts(), 2, 200);

    let mut deriver = Deriver::new();
    let mut samples = 0;
    while samples < 5 {
        let ev = next_event(&mut rx).await;
        if deriver.push(&ev).is_some() {
            samples += 1;
        }
        assert!(!matches!(ev, SourceEvent::Disconnected { .. }), "{ev:?}");
    }

    server.kill9();
    let killed_at = Instant::now();
    let mut retries = Vec::new();
    loop {
        match next_event(&mut rx).await {
            SourceEvent::Disconnected {
                retry_in_ms, error, ..
            } => {
                assert!(!error.is_empty());
                retries.push(retry_in_ms);
                if retries.len() >= 3 {
                    break;
                }
            }
            other => {
                deriver.push(&other);
            }
        }
        assert!(killed_at.elapsed() < Duration::from_secs(30));
    }
    assert!(
        retries.iter().all(|r| *r <= BACKOFF_CAP.as_millis() as u64),
        "{retries:?}"
    );

    let ops_before_restart = load.stats().ops;
    server.restart();
    // Back by itself: Connected, then samples whose rates are what this server and load can
    // produce in an interval (a rate from a baseline taken before the crash is far beyond).
    let mut reconnected = false;
    let mut history_at_reconnect = None;
    let mut after = 0;
    while after < 5 {
        let ev = next_event(&mut rx).await;
        if matches!(ev, SourceEvent::Connected { .. }) {
            reconnected = true;
        }
        if let Some(f) = deriver.push(&ev) {
            if !reconnected {
                continue;
            }
            after += 1;
            let history = *history_at_reconnect.get_or_insert(f.history.length.unwrap_or(0));
            // Rows changed since the restart: the load's single-row statements, the history
            // from before the crash that purge now removes, the transactions recovery rolls
            // back (one per load connection).
            let rows = (load.stats().ops - ops_before_restart) + history + 2;
            let interval = f.interval_s.unwrap_or(0.0);
            let bounds = [
                // A row change writes well under 64 KiB of redo (a page split included).
                (
                    "redo bytes",
                    f.redo.written_bytes_per_s,
                    rows as f64 * 65_536.0,
                ),
                // Each changed row adds at most one record to history.
                ("history records", f.purge.inflow_records_per_s, rows as f64),
                // The page cleaner writes each dirty page of the 32 MiB pool (2,048 pages) at
                // most once a batch, one batch a second.
                (
                    "flushed pages",
                    f.flush.total_pages_per_s,
                    2_048.0 * (1.0 + interval),
                ),
            ];
            for (what, rate, most) in bounds {
                if let Some(rate) = rate {
                    assert!(
                        rate >= 0.0 && rate * interval <= most,
                        "{what} after restart: {rate}/s over {interval} s, at most {most}"
                    );
                }
            }
            if after == 1 {
                // The first sample after a restart has no baseline: no interval, no rates.
                assert!(f.interval_s.is_none(), "{:?}", f.interval_s);
            }
        }
    }
    assert!(reconnected);
    load.stop().await;
    poller.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interval_change_and_undo_scan_on_request() {
    let server = PrivateServer::start(ServerConfig::default());
    let (poller, mut rx, cmd_tx) = start_poller(&server, Duration::from_secs(5));
    // Connected + the immediate first tick.
    let mut got_sample = false;
    while !got_sample {
        got_sample = matches!(next_event(&mut rx).await, SourceEvent::Sample(_));
    }
    cmd_tx
        .send(PollerCommand::SetInterval(Duration::from_millis(100)))
        .await
        .expect("send");
    let t = Instant::now();
    let mut n = 0;
    while n < 5 {
        if let SourceEvent::Sample(s) = next_event(&mut rx).await {
            assert!(s.undo_scan.is_none(), "no scan unless asked");
            n += 1;
        }
    }
    assert!(
        t.elapsed() < Duration::from_secs(4),
        "faster interval took effect"
    );
    cmd_tx.send(PollerCommand::UndoScanNow).await.expect("send");
    let mut scanned = false;
    for _ in 0..10 {
        if let SourceEvent::Sample(s) = next_event(&mut rx).await
            && s.undo_scan.is_some()
        {
            scanned = true;
            break;
        }
    }
    assert!(scanned, "the scan ran on request");
    poller.abort();
}

/// The tick's one round trip drops MariaDB's status rows the figures don't use as it reads
/// them (`SHOW GLOBAL STATUS LIKE 'Innodb\_%'` returns ~110): every `Innodb_` counter of
/// `STATUS` the server has still arrives, nothing else does, and the statements beside it
/// in the batch (INNODB_TRX when due, INNODB_METRICS) keep all their rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tick_keeps_every_wanted_counter_and_the_other_statements_rows() {
    use innodebt_server::flavor::STATUS;
    use mysql_async::prelude::Queryable;
    let server = PrivateServer::start(ServerConfig::default());
    let mut writer = mysql_async::Conn::new(server.opts())
        .await
        .expect("connect");
    for q in [
        "CREATE DATABASE IF NOT EXISTS test",
        "CREATE TABLE test.held (id INT PRIMARY KEY) ENGINE=InnoDB",
        "START TRANSACTION",
        "INSERT INTO test.held VALUES (1)",
    ] {
        writer.query_drop(q).await.expect(q);
    }
    let all: Vec<(String, String)> = writer
        .query("SHOW GLOBAL STATUS LIKE 'Innodb\\_%'")
        .await
        .expect("status");
    let wanted: Vec<&str> = STATUS
        .iter()
        .copied()
        .filter(|s| s.starts_with("Innodb_"))
        .filter(|s| all.iter().any(|(n, _)| n.eq_ignore_ascii_case(s)))
        .collect();
    assert!(
        wanted.len() >= 10,
        "MariaDB has our Innodb_ counters: {wanted:?}"
    );
    assert!(
        all.len() > 2 * wanted.len(),
        "most rows are not ours: {}",
        all.len()
    );

    let (poller, mut rx, _cmd_tx) = start_poller(&server, Duration::from_millis(200));
    let mut samples = 0;
    while samples < 8 {
        let SourceEvent::Sample(s) = next_event(&mut rx).await else {
            continue;
        };
        samples += 1;
        for w in &wanted {
            assert!(
                s.status.keys().any(|k| k.eq_ignore_ascii_case(w)),
                "sample {samples}: {w} missing from {:?}",
                s.status.keys().collect::<Vec<_>>()
            );
        }
        for k in s.status.keys() {
            assert!(
                STATUS.iter().any(|n| n.eq_ignore_ascii_case(k)),
                "sample {samples}: {k} is not a counter the figures use"
            );
        }
        assert!(
            !s.trx.is_empty(),
            "sample {samples}: the open transaction is listed"
        );
        assert!(
            !s.metrics.is_empty(),
            "sample {samples}: INNODB_METRICS rows kept"
        );
    }
    poller.abort();
    writer.query_drop("ROLLBACK").await.expect("rollback");
}
