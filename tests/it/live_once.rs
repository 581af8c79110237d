//! `--once --format json` against a private MariaDB under real write load: history grows
//! behind a REPEATABLE READ snapshot that names itself as the blocker, and clears after commit.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::wait::{duration_is_the_point_async, wait_for_async};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use serde_json::Value;

fn once(server: &PrivateServer, extra: &[&str]) -> Value {
    common::once_json(&server.conn_args(), extra)
}

fn u(v: &Value, path: &[&str]) -> Option<u64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_u64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_grows_behind_a_blocker_and_clears_after_commit() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 4, 200);
    load.wait_ops(100).await;
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let blocker_id = snapshot.thread_id();
    duration_is_the_point_async(
        Duration::from_secs(3),
        "the read view ages past 2 s, the age from which it is named the blocker",
    )
    .await;

    let first = once(&server, &[]);
    assert_eq!(first["server"]["flavor"], "mariadb");
    assert_eq!(first["schema_version"], 2, "the JSON shape's version");
    let h1 = u(&first, &["history", "length"]).expect("history length");
    assert_eq!(
        u(&first, &["blocker", "thread_id"]),
        Some(blocker_id),
        "blocker should be the snapshot's session: {}",
        first["blocker"]
    );
    assert!(u(&first, &["blocker", "age_s"]).unwrap_or(0) >= 2);
    // Named without joining the processlist: looked up by id.
    assert_eq!(first["blocker"]["user"], "root", "{}", first["blocker"]);
    assert!(
        first["purge"]["inflow_records_per_s"]
            .as_f64()
            .is_some_and(|r| r > 0.0)
    );
    assert!(u(&first, &["server", "uptime_s"]).is_some());
    // What the tick cost the server, measured by innodebt.
    let own = &first["self"];
    assert!(
        u(&first, &["self", "statements_per_tick"]).is_some_and(|n| n >= 3),
        "{own}"
    );
    assert!(
        own["server_ms_per_tick"]
            .as_f64()
            .is_some_and(|ms| ms > 0.0),
        "{own}"
    );
    assert!(own["server_ms_p95_1m"].as_f64().is_some(), "{own}");
    let names: Vec<&str> = own["by_statement"]
        .as_array()
        .expect("by_statement")
        .iter()
        .filter_map(|s| s["statement"].as_str())
        .collect();
    for wanted in ["SHOW GLOBAL STATUS", "INNODB_METRICS", "INNODB_TRX"] {
        assert!(names.contains(&wanted), "{wanted} in {names:?}");
    }
    assert!(
        own["measured"]
            .as_str()
            .is_some_and(|m| m.contains("round trip"))
    );
    // The redo figures are there and consistent.
    let age = u(&first, &["redo", "checkpoint_age_bytes"]).expect("checkpoint age");
    let async_point = u(&first, &["redo", "async_point_bytes"]).expect("async point");
    let sync_point = u(&first, &["redo", "sync_point_bytes"]).expect("sync point");
    let capacity = u(&first, &["redo", "capacity_bytes"]).expect("capacity");
    assert!(async_point < sync_point && sync_point < capacity);
    assert_eq!(capacity, 16 * 1024 * 1024);
    assert!(age > 0);
    assert!(first["history"]["growth_per_s"].as_f64().is_some());
    assert!(first["flush"]["total_pages_per_s"].as_f64().is_some());
    // Counters that are off by default are named, and their rates are null, not 0.
    assert!(first["purge"]["records_per_s"].is_null());
    let disabled = first["flush"]["disabled_counters"]
        .as_array()
        .expect("list");
    assert!(
        disabled
            .iter()
            .any(|c| c == "buffer_flush_adaptive_total_pages")
    );

    // History grows behind the view: the server shows it past the first look's.
    common::wait_for_history(&server, h1 + 1).await;
    let second = once(&server, &[]);
    let h2 = u(&second, &["history", "length"]).expect("history length");
    assert!(
        h2 > h1,
        "history should grow behind the snapshot: {h1} → {h2}"
    );
    assert!(second["history"]["growth_per_s"].as_f64().unwrap_or(0.0) > 0.0);

    snapshot.commit().await;
    // Purge catches up within seconds once the view is gone.
    let h3 = wait_for_async(
        Duration::from_secs(30),
        format!("--once to name no blocker and history below {h2} after the commit"),
        || {
            let v = once(&server, &[]);
            let h = u(&v, &["history", "length"]).unwrap_or(u64::MAX);
            std::future::ready((v["blocker"].is_null() && h < h2).then_some(h))
        },
    )
    .await;
    let stats = load.stop().await;
    assert!(stats.ops > 1000, "load ran: {stats:?}");
    assert!(h3 < h2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enabled_metrics_give_purge_and_flush_rates() {
    let server = PrivateServer::start(ServerConfig::default());
    for group in [
        "module_buffer",
        "module_purge",
        "module_log",
        "trx_rseg_current_size",
        "module_buffer_page",
    ] {
        server
            .sql(&format!("SET GLOBAL innodb_monitor_enable = '{group}'"))
            .await;
    }
    let load = WriteLoad::paced(server.opts(), 4, 200);
    load.wait_ops(100).await;
    let v = once(&server, &[]);
    load.stop().await;
    assert!(
        v["purge"]["records_per_s"].as_f64().is_some(),
        "{}",
        v["purge"]
    );
    assert!(v["purge"]["undo_pages_per_s"].as_f64().is_some());
    assert!(v["undo"]["size_bytes"].as_u64().is_some(), "{}", v["undo"]);
    assert!(
        v["flush"]["by_source_pages_per_s"]["adaptive"]
            .as_f64()
            .is_some()
    );
    assert!(
        v["flush"]["disabled_counters"]
            .as_array()
            .is_some_and(|a| a.is_empty())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_scan_only_when_asked() {
    let server = common::server::shared();
    let v = once(server, &[]);
    assert!(v["undo"]["cached_pages"].is_null());
    let v = once(server, &["--undo-scan-interval", "1s"]);
    assert!(
        v["undo"]["cached_pages"].as_u64().is_some(),
        "{}",
        v["undo"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_process_privilege_degrades_only_what_needs_it() {
    let server = PrivateServer::start(ServerConfig::default());
    server
        .sql("CREATE USER 'watcher'@'localhost' IDENTIFIED BY 'Wt-secret-4711'")
        .await;
    let out = Command::new(common::innodebt_bin())
        .args(["--no-defaults", "-S"])
        .arg(server.socket())
        .args([
            "-u",
            "watcher",
            "-pWt-secret-4711",
            "--once",
            "--format",
            "json",
            "--interval",
            "200ms",
        ])
        .output()
        .expect("run innodebt");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stdout.contains("Wt-secret-4711") && !stderr.contains("Wt-secret-4711"));
    let v: Value = serde_json::from_str(&stdout).expect("json");
    // SHOW GLOBAL STATUS needs no privilege: redo and history still come through.
    assert!(v["redo"]["checkpoint_age_bytes"].as_u64().is_some());
    assert!(v["history"]["length"].as_u64().is_some());
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("INNODB_TRX unavailable: needs the PROCESS privilege"),
        "{warnings}"
    );
    assert!(warnings.contains("INNODB_METRICS unavailable: needs the PROCESS privilege"));
}

#[test]
fn bad_credentials_fail_clearly_without_the_password() {
    let server = common::server::shared();
    let out = Command::new(common::innodebt_bin())
        .args(["--no-defaults", "-S"])
        .arg(server.socket())
        .args(["-u", "nobody", "-pWrong-Pass-99", "--once"])
        .output()
        .expect("run innodebt");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("access denied"), "{stderr}");
    assert!(!stderr.contains("Wrong-Pass-99"));
    assert!(out.stdout.is_empty());
}

/// The incident, for real: a REPEATABLE READ snapshot blocks purge under write load.
/// One `--once` (two samples a second apart) must name it — never answer "healthy" — from
/// what one look proves: purge's position stood still behind it while the trx id counter moved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_during_an_incident_names_the_blocker_not_healthy() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 3, 200);
    load.wait_ops(100).await;
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let blocker_id = snapshot.thread_id();
    let history_at_open = server.status_u64("Innodb_history_list_length").await;
    duration_is_the_point_async(
        Duration::from_secs(3),
        "the read view ages past 2 s, the age from which it is named the blocker",
    )
    .await;
    // The load commits past the view: purge falls behind it.
    common::wait_for_history(&server, history_at_open + 200).await;

    let v = once(&server, &[]);
    let kinds: Vec<&str> = v["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .filter_map(|k| k["kind"].as_str())
        .collect();
    assert_eq!(
        kinds.first(),
        Some(&"blocked_by_read_view"),
        "{}",
        v["verdicts"]
    );
    assert!(!kinds.contains(&"healthy"), "{kinds:?}");
    assert_eq!(v["verdicts"][0]["thread_id"].as_u64(), Some(blocker_id));
    assert_eq!(v["purge"]["blocked"], true);
    assert_eq!(v["purge"]["pace"].as_f64(), Some(0.0), "{}", v["purge"]);
    let lag = u(&v, &["purge", "lag_trx_numbers"]).expect("purge lag in transaction numbers");
    // Schema 2: the numbers under their own name, the transactions beside them.
    assert!(v["purge"].get("lag_trx").is_none(), "{}", v["purge"]);
    assert!(
        u(&v, &["purge", "lag_transactions"]).is_some_and(|t| t <= lag),
        "{}",
        v["purge"]
    );
    assert!(lag >= 100, "purge should stand well behind: {lag}");
    let message = v["verdicts"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("thread {blocker_id}")),
        "{message}"
    );

    snapshot.commit().await;
    // Once the view is gone purge catches up: the lag falls to a few transaction numbers and
    // no blocker is named.
    let after = wait_for_async(
        Duration::from_secs(45),
        format!("--once to name no blocker and a purge lag below {lag} after the commit"),
        || {
            let v = once(&server, &[]);
            let caught_up = v["blocker"].is_null()
                && u(&v, &["purge", "lag_trx_numbers"]).is_some_and(|l| l < lag);
            std::future::ready(caught_up.then_some(v))
        },
    )
    .await;
    load.stop().await;
    assert!(
        after["verdicts"]
            .as_array()
            .is_some_and(|vs| vs.iter().all(|v| v["kind"] != "blocked_by_read_view")),
        "{}",
        after["verdicts"]
    );
}

/// An idle server, one look: purge has caught up (SEIS), so `--once` may and does say healthy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_on_an_idle_server_is_healthy_because_purge_has_caught_up() {
    let server = PrivateServer::start(ServerConfig::default());
    let v = once(&server, &[]);
    assert_eq!(v["verdicts"][0]["kind"], "healthy", "{}", v["verdicts"]);
    assert!(
        u(&v, &["purge", "lag_trx_numbers"]).is_some_and(|l| l < 1_000),
        "{}",
        v["purge"]
    );
    assert_eq!(u(&v, &["purge", "open_rw_trx"]), Some(0));
}

/// One look at a lightly loaded 16 MiB redo: a smaller size would hold the peak it saw, but a
/// peak of seconds says nothing of tomorrow's batch job, so the advice to shrink waits for a
/// day of watching and the JSON says what was watched. Given a span it has watched
/// (`--sizing-span 0s`), the shrink is advised.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_withholds_a_shrink_until_the_peak_was_watched_long_enough() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 1, 50);
    load.wait_ops(50).await;
    let v = once(&server, &[]);
    let s = &v["sizing"];
    assert_eq!(s["current_capacity_bytes"].as_u64(), Some(16 << 20), "{s}");
    assert_eq!(s["shrink_withheld"], true, "{s}");
    assert_eq!(
        s["advised_capacity_bytes"], s["current_capacity_bytes"],
        "{s}"
    );
    assert_eq!(s["span_needed_s"].as_f64(), Some(86_400.0), "{s}");
    let span = s["span_s"].as_f64().expect("span_s");
    assert!((0.0..10.0).contains(&span), "{s}");
    assert!(
        s["span_from"]
            .as_str()
            .is_some_and(|t| t <= v["sampled_at"].as_str().unwrap_or_default()),
        "{s}"
    );
    let advice = s["advice"].as_str().unwrap_or_default();
    assert!(
        advice.contains("advice to shrink needs 24h of watching (or --sizing-span)"),
        "{advice}"
    );
    assert!(!advice.contains("headroom"), "{advice}");

    let v = once(&server, &["--sizing-span", "0s"]);
    load.stop().await;
    let s = &v["sizing"];
    assert_eq!(s["shrink_withheld"], false, "{s}");
    assert_eq!(s["span_needed_s"].as_f64(), Some(0.0), "{s}");
    assert!(
        s["advised_capacity_bytes"]
            .as_u64()
            .is_some_and(|a| a < 16 << 20),
        "{s}"
    );
    let advice = s["advice"].as_str().unwrap_or_default();
    assert!(advice.contains("still leaves 20 % headroom"), "{advice}");
}

/// MariaDB ≥ 10.6.16 frees no history while a read-write transaction is open, even one
/// without a read view that purge passes (`trx0purge.cc free_history_rseg`): history grows
/// one per commit while purge keeps pace. `--once` names that transaction — not a read view,
/// not a slow purge — and after its commit history falls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_names_an_open_writer_holding_history_while_purge_keeps_pace() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 3, 400);
    load.wait_ops(100).await;
    let writer = BlockingSnapshot::open_writer(server.opts()).await;
    let writer_id = writer.thread_id();
    let srv = &server;
    // History piles up behind the open writer.
    common::wait_for_history(srv, 12_000).await;

    let v = once(&server, &[]);
    eprintln!("purge {}", v["purge"]);
    let first = &v["verdicts"][0];
    assert_eq!(
        first["kind"], "history_held_by_open_writes",
        "{}",
        v["verdicts"]
    );
    assert_eq!(first["thread_id"].as_u64(), Some(writer_id));
    assert_eq!(v["purge"]["blocked"], false, "{}", v["purge"]);
    assert!(
        v["purge"]["pace"].as_f64().is_some_and(|p| p >= 0.5),
        "purge keeps pace: {}",
        v["purge"]
    );
    assert!(u(&v, &["purge", "open_rw_trx"]).is_some_and(|n| n >= 1));
    assert_eq!(
        v["purge"]["oldest_rw"]["thread_id"].as_u64(),
        Some(writer_id),
        "{}",
        v["purge"]
    );

    writer.commit().await;
    // Purge takes history below 1,000 once the writer commits.
    common::wait_for_purge(srv, 1_000).await;
    let after = once(&server, &[]);
    load.stop().await;
    assert!(
        after["verdicts"].as_array().is_some_and(|vs| vs
            .iter()
            .all(|v| v["kind"] != "history_held_by_open_writes")),
        "{}",
        after["verdicts"]
    );
}
