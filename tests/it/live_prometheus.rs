//! One server's figures straight from Prometheus (`--prometheus URL --instance NAME`), with no
//! connection to the server: a private MariaDB under write load with a read view holding purge
//! back, scraped every second by Debian's mysqld_exporter or by `innodebt serve` into a real
//! Prometheus. `--once` from Prometheus agrees with the direct `--once` at the same moment
//! (history and checkpoint age within 10 %), names the blocker where the series carry it
//! (serve's), looks back to `--at`, and `check` works the same way; a Prometheus that refuses
//! or does not answer is named, never shown as a healthy server.

use crate::common;

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use common::mysqld_exporter::Exporter;
use common::serve::{Prometheus, Serve, serve_args};
use common::wait::{wait_for, wait_until_async};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use serde_json::Value;

fn innodebt(args: &[&str]) -> Output {
    Command::new(common::innodebt_bin())
        .arg("--no-defaults")
        .args(args)
        .output()
        .expect("run innodebt")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `--prometheus URL --instance NAME --step 1s --once --format json EXTRA`, parsed.
fn prom_once(url: &str, instance: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "--prometheus",
        url,
        "--instance",
        instance,
        "--step",
        "1s",
        "--once",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = innodebt(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "--prometheus --once failed: {}\nstdout: {stdout}",
        stderr(&out)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

/// The newest scrape Prometheus holds of `series` (unix seconds).
fn newest_scrape(prom: &Prometheus, series: &str) -> Option<f64> {
    let r = prom.query(
        &format!("timestamp({series})"),
        Utc::now().timestamp_millis() as f64 / 1000.0,
    );
    r.as_array()?.first()?["value"][1].as_str()?.parse().ok()
}

/// Waits until Prometheus has scraped `series` after `after` (unix seconds).
async fn scraped_after(prom: &Prometheus, series: &str, after: f64) {
    wait_until_async(
        Duration::from_secs(60),
        format!("a scrape of {series} after {after}"),
        || std::future::ready(newest_scrape(prom, series).is_some_and(|t| t > after)),
    )
    .await;
}

/// `a` within 10 % of `b`, or within `floor` of it for figures near zero.
fn close(what: &str, a: f64, b: f64, floor: f64) {
    assert!(
        (a - b).abs() <= (b.abs() * 0.10).max(floor),
        "{what}: from Prometheus {a}, direct {b}"
    );
}

/// History piled up behind a read view, then the load stopped, so history holds still while
/// both sides look: the exporter's series give what the direct look gives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exporters_series_give_what_the_direct_look_gives() {
    let server = PrivateServer::start(ServerConfig::default());
    let exporter = Exporter::start(&server).await;
    let prom = Prometheus::start(&[("mysql", "/metrics", vec![exporter.addr()])]);
    let url = format!("http://{}", prom.addr);
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let blocker = BlockingSnapshot::open(server.opts()).await;
    wait_until_async(
        Duration::from_secs(60),
        "history to pile up behind the read view",
        || async { server.status_u64("Innodb_history_list_length").await >= 2_000 },
    )
    .await;
    load.stop().await;
    let stopped = Utc::now().timestamp_millis() as f64 / 1000.0;
    scraped_after(&prom, "mysql_up", stopped + 1.0).await;

    let from_prom = prom_once(&url, &exporter.addr(), &[]);
    let direct = common::once_json(&server.conn_args(), &[]);
    let history = |v: &Value| num(v, &["history", "length"]).expect("history.length");
    close(
        "history length",
        history(&from_prom),
        history(&direct),
        50.0,
    );
    let age = |v: &Value| num(v, &["redo", "checkpoint_age_bytes"]).expect("checkpoint age");
    close(
        "checkpoint age",
        age(&from_prom),
        age(&direct),
        // The page cleaner moves it between the two looks: a MiB either way.
        1_048_576.0,
    );
    assert!(
        from_prom["server"]["version"]
            .as_str()
            .is_some_and(|v| v.contains("MariaDB")),
        "{}",
        from_prom["server"]
    );
    // Nothing commits now, and purge stands still behind the view: one direct look proves
    // the block. The exporter's series carry no transactions: never "healthy" either.
    let kinds = |v: &Value| -> Vec<String> {
        v["verdicts"]
            .as_array()
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| v["kind"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        kinds(&direct).iter().any(|k| k == "blocked_by_read_view"),
        "{}",
        direct["verdicts"]
    );
    assert!(
        !kinds(&from_prom).iter().any(|k| k == "healthy"),
        "{}",
        from_prom["verdicts"]
    );
    blocker.commit().await;
}

/// serve's series carry the blocker: `--once` and `check` from Prometheus name it; `--at`
/// looks back to before the read view opened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_series_name_the_blocker_and_at_looks_back() {
    let server = PrivateServer::start(ServerConfig::default());
    let mut serve = Serve::start(&serve_args(&server, &[]));
    let instance = serve.addr.to_string();
    let prom = Prometheus::start(&[("innodebt", "/metrics", vec![instance.clone()])]);
    let url = format!("http://{}", prom.addr);
    let load = WriteLoad::paced(server.opts(), 2, 200);
    // Samples from before the read view, for --at to look back to.
    wait_until_async(
        Duration::from_secs(60),
        "five scrapes of serve before the read view",
        || {
            let r = prom.query(
                "count_over_time(innodebt_up[10m])",
                Utc::now().timestamp_millis() as f64 / 1000.0,
            );
            let n = r
                .as_array()
                .and_then(|a| a.first())
                .and_then(|s| s["value"][1].as_str().and_then(|v| v.parse::<f64>().ok()));
            std::future::ready(n.is_some_and(|n| n >= 5.0))
        },
    )
    .await;
    let before = Utc::now();
    let blocker = BlockingSnapshot::open(server.opts()).await;
    let thread = blocker.thread_id();
    // Until serve's series show the blocker, Prometheus has scraped them, and the verdict
    // has watched history long enough to name it.
    let blocked = |v: &Value| {
        v["verdicts"]
            .as_array()
            .is_some_and(|vs| vs.iter().any(|v| v["kind"] == "blocked_by_read_view"))
    };
    let named = wait_for(
        Duration::from_secs(90),
        "the blocker named from Prometheus",
        || {
            let v = prom_once(&url, &instance, &[]);
            (num(&v, &["blocker", "thread_id"]) == Some(thread as f64) && blocked(&v)).then_some(v)
        },
    );
    assert!(num(&named, &["history", "length"]).is_some_and(|h| h > 0.0));

    let check = innodebt(&[
        "check",
        "--prometheus",
        &url,
        "--instance",
        &instance,
        "--step",
        "1s",
        "-w",
        "blocked_by_read_view",
    ]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(1), "{said}{}", stderr(&check));
    assert!(said.starts_with("INNODEBT WARNING"), "{said}");

    // The fleet from the same Prometheus: the instance's row names the blocker's thread, and
    // (once its look spans the verdicts' trend) needs attention.
    let fleet_row = || {
        let fleet = innodebt(&[
            "fleet",
            "--prometheus",
            &url,
            "--step",
            "1s",
            "--once",
            "--format",
            "json",
        ]);
        let rows: Value = serde_json::from_slice(&fleet.stdout)
            .unwrap_or_else(|e| panic!("fleet --once ({e}): {}", stderr(&fleet)));
        rows["servers"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["name"] == instance.as_str()))
            .cloned()
            .unwrap_or_else(|| panic!("no row {instance}: {rows}"))
    };
    let row = wait_for(
        Duration::from_secs(60),
        "the fleet's row naming the blocker",
        || Some(fleet_row()).filter(|r| r["needs_attention"] == true),
    );
    assert_eq!(row["state"], "up", "{row}");
    assert_eq!(
        row["blocker_thread_id"].as_f64(),
        Some(thread as f64),
        "{row}"
    );
    assert!(
        row["blocker_age_s"].as_f64().is_some_and(|a| a > 0.0),
        "{row}"
    );
    assert_eq!(row["verdict"], "blocked_by_read_view", "{row}");

    let at = before.to_rfc3339_opts(SecondsFormat::Millis, true);
    let earlier = prom_once(&url, &instance, &["--at", &at]);
    assert!(earlier["blocker"].is_null(), "{}", earlier["blocker"]);
    assert!(
        earlier["sampled_at"]
            .as_str()
            .is_some_and(|t| t <= at.as_str()),
        "{} at {at}",
        earlier["sampled_at"]
    );
    blocker.commit().await;
    load.stop().await;
    serve.terminate();
}

/// A one-shot HTTP server answering 401.
fn answer_401() -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let handle = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("accept");
        conn.set_read_timeout(Some(Duration::from_secs(10))).ok();
        let mut buf = vec![0u8; 8192];
        let _ = conn.read(&mut buf);
        let body = "Unauthorized\n";
        let _ = write!(
            conn,
            "HTTP/1.1 401 Unauthorized\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    (url, handle)
}

#[test]
fn a_refusing_or_silent_prometheus_is_named_not_shown_healthy() {
    // One server and the fleet alike: exit 1, the reason on stderr, nothing on stdout.
    for what in [&["--instance", "db:9104"][..], &["fleet"][..]] {
        let run = |url: &str, extra: &[&str]| {
            let mut args: Vec<&str> = match what {
                ["fleet"] => vec!["fleet", "--prometheus", url],
                _ => [&["--prometheus", url][..], what].concat(),
            };
            args.extend_from_slice(extra);
            args.push("--once");
            innodebt(&args)
        };
        let (url, server) = answer_401();
        let out = run(&url, &[]);
        server.join().expect("the 401 server");
        assert_eq!(out.status.code(), Some(1), "{what:?}");
        let msg = stderr(&out);
        assert!(
            msg.contains("answered 401") && msg.contains("--basic-auth-file"),
            "{what:?}: {msg}"
        );
        assert!(
            out.stdout.is_empty(),
            "{what:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );

        // Accepts and never answers: the query timeout names it.
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let started = std::time::Instant::now();
        let out = run(&url, &["--query-timeout", "2s"]);
        assert_eq!(out.status.code(), Some(1), "{what:?}");
        let msg = stderr(&out);
        assert!(msg.contains("no answer within 2.0 s"), "{what:?}: {msg}");
        assert!(out.stdout.is_empty(), "{what:?}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        drop(listener);
    }

    // check: UNKNOWN with the reason on the status line.
    let (url, server) = answer_401();
    let out = innodebt(&["check", "--prometheus", &url, "--instance", "db:9104"]);
    server.join().expect("the 401 server");
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(
        said.starts_with("INNODEBT UNKNOWN") && said.contains("401"),
        "{said}"
    );
}

/// The dashboard fed by Prometheus: its header names the instance and its source, it is
/// read-only (no connection to change anything through), and when the series stop — the
/// exporter is gone, Prometheus marks them stale — it goes STALE instead of showing the last
/// figures as now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_from_prometheus_names_its_source_and_goes_stale() {
    let server = PrivateServer::start(ServerConfig::default());
    let exporter = Exporter::start(&server).await;
    let instance = exporter.addr();
    let prom = Prometheus::start(&[("mysql", "/metrics", vec![instance.clone()])]);
    let url = format!("http://{}", prom.addr);
    scraped_after(
        &prom,
        "mysql_up",
        Utc::now().timestamp_millis() as f64 / 1000.0 + 2.0,
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = common::tmux::Tmux::start(dir.path(), 160, 40);
    tmux.type_text(&format!(
        "{} --no-defaults --prometheus {url} --instance {instance} --step 1s",
        common::innodebt_bin().display()
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(40);
    let screen = tmux.wait_for("the server's figures from Prometheus", long, |s| {
        s.contains(&format!("{instance} via Prometheus")) && s.contains("16.0 MiB")
    });
    assert!(screen.contains("READ-ONLY"), "{screen}");
    // Its help lists no key that would steer a poll it does not own; such a key says why.
    tmux.keys(&["?"]);
    let help = tmux.wait_for("the help", long, |s| s.contains("every key"));
    for steers in ["refresh interval", "undo pages", "innodb_purge_threads"] {
        assert!(!help.contains(steers), "{steers} listed:\n{help}");
    }
    // One key at a time: Esc and a letter at once read as Alt and the letter.
    tmux.keys(&["Escape"]);
    tmux.wait_for("help closed", long, |s| !s.contains("every key"));
    tmux.keys(&["+"]);
    tmux.wait_for("why + does nothing", long, |s| {
        s.contains("come from Prometheus")
    });
    tmux.keys(&["Escape"]);
    drop(exporter);
    tmux.wait_for("STALE once the series stop", long, |s| s.contains("STALE"));
    tmux.keys(&["q"]);
}
