//! `fleet --prometheus URL`: every instance a real Prometheus holds, ranked nearest breach
//! first, read with a fixed number of queries however many instances there are. The fleet is
//! 212 mysqld_exporter instances backfilled with promtool (`common::promdata`: the demo's real
//! MariaDB 10.11 samples, each instance at its own phase), one of whose series stopped six
//! minutes before the look (stale) and one whose scrapes fail (dead). `--at` looks at the past,
//! one row agrees with the one-server look at the same instance, Enter opens that instance's
//! dashboard from the same Prometheus, and a Prometheus that goes away takes every row down
//! with it (a refusing or silent one: `live_prometheus`).

use crate::common;

use std::process::{Command, Output};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use common::promdata::{self, Ending};
use common::serve::{Prometheus, http_get, promtool_bin};
use serde_json::Value;

const STEP_S: i64 = 15;
const LIVE: usize = 210;
const STALE_FOR_S: i64 = 360;
const DEAD_FOR_S: i64 = 120;

fn innodebt(args: &[&str]) -> Output {
    Command::new(common::innodebt_bin())
        .arg("--no-defaults")
        .args(args)
        .output()
        .expect("run innodebt")
}

fn stamp(t: i64) -> String {
    DateTime::<Utc>::from_timestamp(t, 0)
        .expect("time")
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The fleet in a Prometheus: `LIVE` instances, `db-stale:9104` and `db-dead:9104`, ten
/// minutes at 15 s ending at the returned unix time.
fn backfilled_fleet() -> (Prometheus, i64) {
    let end = (Utc::now().timestamp() - 120) / STEP_S * STEP_S;
    let mut instances: Vec<(String, Ending)> = (0..LIVE)
        .map(|k| (format!("db{k:03}:9104"), Ending::Live))
        .collect();
    instances.push(("db-stale:9104".into(), Ending::Stale(STALE_FOR_S)));
    instances.push(("db-dead:9104".into(), Ending::Dead(DEAD_FOR_S)));
    let dir = tempfile::tempdir().expect("tempdir");
    let text = dir.path().join("fleet.om");
    promdata::fleet_openmetrics(&text, &instances, end, 600, STEP_S as u64);
    let tsdb = tempfile::tempdir().expect("tempdir");
    promdata::backfill(&promtool_bin(), &text, &tsdb.path().join("data"));
    let prom = Prometheus::start_with_config(tsdb, "global:\n  scrape_interval: 15s\n");
    (prom, end)
}

fn fleet_json(url: &str, extra: &[&str]) -> Value {
    let mut args = vec!["fleet", "--prometheus", url, "--step", "15s", "--once"];
    args.extend_from_slice(&["--format", "json"]);
    args.extend_from_slice(extra);
    let out = innodebt(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "fleet --prometheus --once failed: {}\nstdout: {stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn server<'a>(fleet: &'a Value, name: &str) -> &'a Value {
    fleet["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no row {name} in {fleet}"))
}

/// The rank the fleet orders by: critical, warning, down, unknown or waiting, ok.
fn rank(s: &Value) -> u8 {
    match (s["state"].as_str(), s["severity"].as_str()) {
        (Some("up"), Some("critical")) => 0,
        (Some("up"), Some("warning")) => 1,
        (Some("down"), _) => 2,
        (Some("up"), Some("ok")) => 4,
        _ => 3,
    }
}

/// Prometheus's own count of the query API requests it has answered.
fn queries_answered(prom: &Prometheus) -> u64 {
    let body = http_get(prom.addr, "/metrics", &[]).body;
    body.lines()
        .filter(|l| l.starts_with("prometheus_http_requests_total{"))
        .filter(|l| l.contains("handler=\"/api/v1/query"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

#[test]
fn two_hundred_instances_ranked_with_the_stale_and_the_dead_named() {
    let (prom, end) = backfilled_fleet();
    let url = format!("http://{}", prom.addr);
    let before = queries_answered(&prom);
    let fleet = fleet_json(&url, &["--at", &stamp(end)]);
    let asked = queries_answered(&prom) - before;
    let servers = fleet["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), LIVE + 2, "{fleet}");
    // One query for every instance's series and one inventory, not one per instance.
    assert!(
        asked <= 2,
        "{asked} queries for {} instances",
        servers.len()
    );
    assert!(
        fleet["via"]
            .as_str()
            .is_some_and(|v| v.contains("Prometheus") && v.contains(&url)),
        "{fleet}"
    );
    assert_eq!(fleet["sampled_at"], format!("{}.000Z", &stamp(end)[..19]));

    let dead = server(&fleet, "db-dead:9104");
    assert_eq!(dead["state"], "down", "{dead}");
    assert!(
        dead["error"]
            .as_str()
            .is_some_and(|e| e.contains("up is 0")),
        "{dead}"
    );
    let stale = server(&fleet, "db-stale:9104");
    assert_eq!(stale["state"], "down", "{stale}");
    let said = stale["error"].as_str().unwrap_or_default();
    let stopped = DateTime::<Utc>::from_timestamp(end - STALE_FOR_S, 0).expect("time");
    assert!(
        said.contains("stale: no series since")
            && said.contains(&stopped.format("%H:%M:%S").to_string()),
        "{stale}"
    );

    // Every live instance is judged, and the order is nearest breach first.
    let live: Vec<&Value> = servers
        .iter()
        .filter(|s| {
            s["name"].as_str().is_some_and(|n| {
                n.starts_with("db0") || n.starts_with("db1") || n.starts_with("db2")
            })
        })
        .collect();
    assert_eq!(live.len(), LIVE);
    for s in &live {
        assert_eq!(s["state"], "up", "{s}");
        assert!(s["history_length"].as_f64().is_some(), "{s}");
        assert!(s["checkpoint_age_pct_of_async"].as_f64().is_some(), "{s}");
    }
    let ranks: Vec<u8> = servers.iter().map(rank).collect();
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "not nearest breach first: {ranks:?}"
    );
    let attention = servers
        .iter()
        .filter(|s| s["needs_attention"] == true)
        .count();
    assert!(
        attention >= 3,
        "the demo's phases put some instances near a breach: {attention}"
    );

    // A row says what the one-server look at that instance says at the same moment.
    let name = live[0]["name"].as_str().expect("name");
    let out = innodebt(&[
        "--prometheus",
        &url,
        "--instance",
        name,
        "--step",
        "15s",
        "--at",
        &stamp(end),
        "--once",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let one: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        one["history"]["length"].as_f64(),
        live[0]["history_length"].as_f64(),
        "{one}"
    );
    // The row's verdict: the first of the most severe.
    let kind = one["verdicts"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["severity"] == live[0]["severity"]))
        .and_then(|v| v["kind"].as_str())
        .map(str::to_string);
    assert_eq!(
        kind.as_deref(),
        live[0]["verdict"].as_str(),
        "one server's worst verdict against its row: {one}"
    );

    // --at before the stale instance stopped: it was up then.
    let earlier = fleet_json(&url, &["--at", &stamp(end - STALE_FOR_S - 60)]);
    assert_eq!(
        server(&earlier, "db-stale:9104")["state"],
        "up",
        "{earlier}"
    );

    // As text for a ticket: the count, the source, the reasons.
    let out = innodebt(&[
        "fleet",
        "--prometheus",
        &url,
        "--step",
        "15s",
        "--at",
        &stamp(end),
        "--once",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains("212 servers") && l.contains("via Prometheus")),
        "{text}"
    );
    assert!(
        text.contains("db-dead:9104: Prometheus cannot scrape it"),
        "{text}"
    );

    // On screen: the rows, then Enter opens the top instance's dashboard from Prometheus.
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = common::tmux::Tmux::start(dir.path(), 160, 40);
    tmux.type_text(&format!(
        "{} --no-defaults fleet --prometheus {url} --step 15s --at {}",
        common::innodebt_bin().display(),
        stamp(end)
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(40);
    let screen = tmux.wait_for("the fleet from Prometheus", long, |s| {
        s.contains("212 servers") && s.contains("as at")
    });
    assert!(screen.contains("via Prometheus"), "{screen}");
    let top = servers[0]["name"].as_str().expect("name");
    tmux.keys(&["Enter"]);
    // The moment looked at is that moment's, not a stale now: once its window is read, the
    // header's data time is the moment's.
    let moment = DateTime::<Utc>::from_timestamp(end, 0).expect("time");
    let data_at = format!("data {}", moment.format("%H:%M:%S UTC"));
    let dashboard = tmux.wait_for("the top instance's dashboard at the moment", long, |s| {
        s.contains(&format!("{top} via Prometheus"))
            && s.contains("READ-ONLY")
            && s.contains(&data_at)
    });
    assert!(!dashboard.contains("STALE"), "{dashboard}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("back to the fleet", long, |s| s.contains("212 servers"));
    tmux.keys(&["q"]);
    quit(&tmux, long);

    // Live (no --at): a look per step; when Prometheus goes, every row goes down naming it.
    tmux.type_text(&format!(
        "{} --no-defaults fleet --prometheus {url} --step 2s --query-timeout 10s",
        common::innodebt_bin().display()
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the live fleet", long, |s| {
        s.contains("212 servers") && s.contains("2 disconnected") && !s.contains("as at")
    });
    drop(prom);
    // Rows may go stale first on a loaded machine; the look that fails then names Prometheus.
    tmux.wait_for("every row down, naming Prometheus", long, |s| {
        s.contains("212 disconnected") && s.contains("Prometheus did not answer")
    });
    tmux.keys(&["q"]);
    quit(&tmux, long);
}

/// Waits until the screen that `q` quit has given the terminal back to the shell.
fn quit(tmux: &common::tmux::Tmux, timeout: Duration) {
    let deadline = std::time::Instant::now() + timeout;
    while tmux.alternate_on() {
        assert!(
            std::time::Instant::now() < deadline,
            "the fleet did not quit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_fleet_from_prometheus_mixes_with_no_other() {
    // What would mix two fleets is refused before anything is asked.
    let out = innodebt(&[
        "fleet",
        "--prometheus",
        "http://p:9090",
        "-h",
        "db1",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-h with fleet --prometheus"));
}
