//! Proves the integration-test harness in `tests/common`: a private server
//! starts with a small redo log, a write load drives checkpoint age and a held
//! snapshot drives history, and `kill9` + `restart` runs crash recovery.

use crate::common;

use std::time::{Duration, Instant};

use common::wait::{wait_for_async, wait_until_async};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};

#[test]
fn missing_binary_is_a_clear_failure() {
    let err = common::find_binary(&["innodebt-no-such-mariadbd", "innodebt-no-such-mysqld"])
        .expect_err("a binary that does not exist");
    assert!(err.contains("innodebt-no-such-mariadbd"), "{err}");
    assert!(err.contains("apt-get install mariadb-server"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_server_starts_with_small_redo_log() {
    let t = Instant::now();
    let server = PrivateServer::start(ServerConfig::default());
    eprintln!(
        "private server ready in {:?} (spawn to first query {:?})",
        t.elapsed(),
        server.last_start().elapsed
    );

    assert_eq!(
        server.var_u64("innodb_log_file_size").await,
        16 * 1024 * 1024
    );
    let rows = server.sql("SELECT VERSION(), @@datadir, @@port").await;
    let (version, datadir, port): (String, String, u16) = mysql_async::from_row(rows[0].clone());
    assert!(version.contains("MariaDB"), "{version}");
    assert_eq!(
        std::path::Path::new(&datadir),
        server.datadir().as_path(),
        "the server must run on its own datadir"
    );
    assert_eq!(port, server.port());

    // TCP works too and really is TCP.
    let mut conn = mysql_async::Conn::new(server.tcp_opts())
        .await
        .expect("connect over TCP");
    use mysql_async::prelude::Queryable;
    let tcp_port: Option<u16> = conn.query_first("SELECT @@port").await.unwrap();
    assert_eq!(tcp_port, Some(server.port()));
    let host: Option<String> = conn
        .query_first("SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
        .await
        .unwrap();
    let host = host.unwrap_or_default();
    // A TCP client shows as `host:port`, a socket client as plain `localhost`.
    assert!(
        host.contains(':'),
        "tcp_opts must not switch to the socket: {host}"
    );
    conn.disconnect().await.unwrap();

    let args = server.conn_args();
    assert_eq!(args[0], "-S");
    assert_eq!(std::path::Path::new(&args[1]), server.socket());
    assert!(common::innodebt_bin().exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkpoint_age_climbs_under_write_load() {
    let server = PrivateServer::start(ServerConfig::default());
    let max_age = server.status_u64("Innodb_checkpoint_max_age").await;
    assert!(max_age > 0);

    let load = WriteLoad::start(server.opts(), 4);
    let srv = &server;
    let reached = wait_for_async(
        Duration::from_secs(15),
        "checkpoint age at 30 % of Innodb_checkpoint_max_age under the load",
        || async move {
            let age = srv.status_u64("Innodb_checkpoint_age").await;
            let share = age as f64 / max_age as f64;
            (share >= 0.3).then_some(share)
        },
    )
    .await;
    let stats = load.stop().await;
    eprintln!(
        "checkpoint age reached {:.0}% of max age {max_age}; load: {:.0} ops/s, {} errors",
        reached * 100.0,
        stats.ops_per_sec(),
        stats.errors
    );
    assert_eq!(stats.errors, 0, "{:?}", stats.last_error);
    assert!(stats.inserts > 0 && stats.updates > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_grows_behind_snapshot_and_falls_after_commit() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 4, 200);
    load.wait_ops(100).await;

    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let trx = server
        .sql(&format!(
            "SELECT trx_state FROM information_schema.INNODB_TRX \
             WHERE trx_mysql_thread_id = {}",
            snapshot.thread_id()
        ))
        .await;
    assert_eq!(trx.len(), 1, "the snapshot must show in INNODB_TRX");

    let start = server.status_u64("Innodb_history_list_length").await;
    let srv = &server;
    let history = || async move { srv.status_u64("Innodb_history_list_length").await };
    let peak = wait_for_async(
        Duration::from_secs(10),
        format!("history to grow by 500 from {start} behind the snapshot"),
        || async move { Some(history().await).filter(|h| *h >= start + 500) },
    )
    .await;

    snapshot.commit().await;
    let committed = Instant::now();
    let now = wait_for_async(
        Duration::from_secs(20),
        format!("history to fall to half of {peak} after the commit"),
        || async move { Some(history().await).filter(|h| h * 2 <= peak) },
    )
    .await;
    let stats = load.stop().await;
    eprintln!(
        "history {start} -> {peak} behind the snapshot, {now} {:?} after commit; load {:.0} ops/s",
        committed.elapsed(),
        stats.ops_per_sec()
    );
    assert_eq!(stats.errors, 0, "{:?}", stats.last_error);
}

/// `kill9` under load, then `restart`: crash recovery runs and is logged.
///
/// Error-log lines of a MariaDB 10.11 crash recovery (10.11.19, seen here and
/// in the lab; `N` = a number), in the order printed:
///
/// - `InnoDB: Starting crash recovery from checkpoint LSN=N` — only when there
///   is redo past the checkpoint; absent after a clean shutdown, and absent
///   when the checkpoint had caught up before the kill.
/// - `InnoDB: End of log at LSN=N` — printed on every start; with the line
///   above, `end - checkpoint` is the redo that recovery parsed.
/// - `InnoDB: N transaction(s) which must be rolled back or cleaned up in total
///   N row operations to undo` and `InnoDB: Trx id counter is N` — when
///   transactions were open at the kill.
/// - `InnoDB: To recover: N pages` — pages the redo is applied to.
/// - `InnoDB: Starting in background the rollback of recovered transactions`,
///   then (possibly after `ready for connections`)
///   `InnoDB: Rolled back recovered transaction N` per transaction and
///   `InnoDB: Rollback of non-prepared transactions completed`.
/// - `InnoDB: log sequence number N; transaction id N` — InnoDB start-up done
///   (every start); then `mariadbd: ready for connections.` ends the start.
///
/// Present in the 10.11 binary for long or large recoveries, not seen at these
/// sizes: `InnoDB: Read redo log up to LSN=N`, `InnoDB: To recover: LSN N/N;
/// N pages` (progress), `InnoDB: Parsed redo log up to LSN=N; to recover: N
/// pages`, `InnoDB: Multi-batch recovery needed at LSN N`. 10.11 prints no
/// "crash recovery finished" line, and `innodb_force_recovery` appears only
/// in failure advice. Each line is prefixed by `YYYY-MM-DD hh:mm:ss 0 [Note] `.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill9_then_restart_runs_crash_recovery() {
    let mut server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::start(server.opts(), 4);
    // The load writes redo past the checkpoint for recovery to apply.
    let srv = &server;
    let age = wait_for_async(
        Duration::from_secs(30),
        "the load's redo 256 KiB past the checkpoint",
        || async move {
            let age = srv.status_u64("Innodb_checkpoint_age").await;
            (age >= 256 << 10).then_some(age)
        },
    )
    .await;
    let before = load.stats();
    assert!(before.ops > 0);

    server.kill9();
    wait_until_async(
        Duration::from_secs(5),
        "the load to notice the crash (errors)",
        || std::future::ready(load.stats().errors > 0),
    )
    .await;

    let info = server.restart();
    let recovery: Vec<&str> = info
        .log
        .lines()
        .filter(|l| {
            l.contains("crash recovery") || l.contains("recover") || l.contains("End of log")
        })
        .collect();
    eprintln!(
        "checkpoint age before kill -9: {age} bytes; ready again in {:?}; recovery lines:\n{}",
        info.elapsed,
        recovery.join("\n")
    );
    let from = lsn_after(&info.log, "Starting crash recovery from checkpoint LSN=");
    let end = lsn_after(&info.log, "End of log at LSN=");
    assert!(
        from.is_some() && end.is_some(),
        "no crash-recovery lines in the log:\n{}",
        info.log
    );
    assert!(
        end > from,
        "recovery must have redo to apply: {from:?}..{end:?}"
    );
    assert!(info.log.contains("InnoDB: To recover: "), "{}", info.log);

    // The load reconnects by itself and keeps writing.
    let after_restart = load.stats().ops;
    wait_until_async(
        Duration::from_secs(10),
        "the load to resume: 100 more statements after the restart",
        || std::future::ready(load.stats().ops >= after_restart + 100),
    )
    .await;
    let stats = load.stop().await;
    assert!(stats.ops >= after_restart + 100, "{stats:?}");
    let rows: Vec<mysql_async::Row> = server.sql("SELECT COUNT(*) FROM test.load").await;
    let count: u64 = rows[0].get(0).unwrap();
    assert!(count > 0);

    // A clean shutdown leaves nothing to recover.
    server.stop();
    let clean = server.restart();
    assert!(
        !clean.log.contains("Starting crash recovery"),
        "clean restart must not recover:\n{}",
        clean.log
    );
}

fn lsn_after(log: &str, marker: &str) -> Option<u64> {
    let rest = &log[log.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
