//! `fleet --prometheus` at fleet scale: a real Prometheus scraping 1,000 instances every 15 s,
//! read by the fleet view — once with mysqld_exporter-shaped series, once with `innodebt serve`'s.
//!
//! `cargo bench --bench fleet_prometheus` (options after `--`: `--only exporter|serve`,
//! `--instances 1000`, `--runs 3`, `--refreshes 4`, `--hold SECONDS` to keep each Prometheus
//! up afterwards, `--innodebt PATH`).
//!
//! - exporter: one thread of this bench plays 1,000 mysqld_exporters (`common::promdata`: the
//!   demo's real MariaDB 10.11 samples as mysqld_exporter 0.14's series, each instance at its
//!   own phase), scraped through one `/probe?target=` address as Prometheus scrapes a
//!   blackbox-style exporter, so each has its own `instance` label.
//! - serve: one `innodebt serve` with 1,000 targets (one private MariaDB under 1,000 names),
//!   polling every 15 s, scraped through its `/probe`.
//!
//! Per source, once Prometheus holds six scrapes of every instance:
//! - `--once` JSON: wall time of `fleet --prometheus URL --once --format json` (every run),
//!   with the rows it judged;
//! - first screen: from Enter to a full fleet screen in a 200×50 tmux pane (the header counts
//!   every instance and no visible row is waiting);
//! - per refresh, over `--refreshes` intervals of the same TUI: query API requests (Prometheus's
//!   own `prometheus_http_requests_total`) and the process's CPU (`/proc` utime + stime) as a
//!   share of one core;
//! - peak RSS: the TUI's `VmHWM` at the end.

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::promdata::{self, ExporterPages};
use common::scale;
use common::serve::{Prometheus, Serve, http_get};
use common::tmux::{Tmux, with_pidfile};
use common::{PrivateServer, ServerConfig};

const STEP: Duration = Duration::from_secs(15);
/// Scrapes of every instance Prometheus holds before the fleet is read: the first look's span.
const SCRAPES_BEFORE: usize = 6;

struct Args {
    only: Option<String>,
    instances: usize,
    runs: usize,
    refreshes: u32,
    /// Seconds to keep each source's Prometheus up after its measures, to look at it by hand.
    hold: u64,
    innodebt: std::path::PathBuf,
}

fn args() -> Args {
    let mut a = Args {
        only: None,
        instances: 1000,
        runs: 3,
        refreshes: 4,
        hold: 0,
        innodebt: common::innodebt_bin(),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let (flag, inline) = match argv[i].split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (argv[i].clone(), None),
        };
        if flag == "--bench" {
            i += 1;
            continue;
        }
        let v = match inline {
            Some(v) => v,
            None => {
                i += 1;
                argv.get(i)
                    .cloned()
                    .unwrap_or_else(|| panic!("{flag} needs a value"))
            }
        };
        let num = |what: &str| -> u64 {
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{what} N, not {v}"))
        };
        match flag.as_str() {
            "--only" => {
                assert!(
                    v == "exporter" || v == "serve",
                    "--only exporter or --only serve, not {v}"
                );
                a.only = Some(v.clone());
            }
            "--instances" => a.instances = num("--instances") as usize,
            "--runs" => a.runs = num("--runs").max(1) as usize,
            "--refreshes" => a.refreshes = num("--refreshes").max(1) as u32,
            "--hold" => a.hold = num("--hold"),
            "--innodebt" => a.innodebt = v.clone().into(),
            other => panic!("unknown option {other}"),
        }
        i += 1;
    }
    a
}

/// What one source measured.
struct Measured {
    source: &'static str,
    once_wall_s: Vec<f64>,
    once_judged: String,
    first_screen_s: f64,
    queries_per_refresh: f64,
    first_look_queries: u64,
    cpu_pct: f64,
    peak_rss_mib: f64,
}

/// A thread answering `/probe?target=dbNNNN` with that instance's exporter page at the current
/// step (counted from `t0`, one per scrape interval).
fn play_exporters(pages: Arc<ExporterPages>, t0: Instant) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let pages = pages.clone();
            std::thread::spawn(move || answer_scrapes(stream, &pages, t0));
        }
    });
    addr
}

/// Answers the scrapes on one connection (Prometheus keeps it open between scrapes).
fn answer_scrapes(stream: TcpStream, pages: &ExporterPages, t0: Instant) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut out = stream;
    loop {
        let mut request = String::new();
        if reader.read_line(&mut request).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header.trim().is_empty() {
                break;
            }
        }
        let k = request
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.split_once("target=db"))
            .and_then(|(_, n)| n.split(['&', ' ']).next()?.parse::<usize>().ok());
        let Some(k) = k else {
            let _ = out.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
            continue;
        };
        let step = t0.elapsed().as_secs() / STEP.as_secs();
        let body = pages.page(k, step);
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(body.as_bytes()).is_err() {
            return;
        }
    }
}

/// A Prometheus scraping `names` at `probe` (`/probe?target=NAME`, each its own `instance`)
/// every 15 s as job `job`.
fn prometheus(job: &str, probe: SocketAddr, names: &[String]) -> Prometheus {
    let targets = names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let config = format!(
        "global:\n  scrape_interval: 15s\n  scrape_timeout: 10s\nscrape_configs:\n  \
         - job_name: {job}\n    metrics_path: /probe\n    static_configs:\n      \
         - targets: [{targets}]\n    relabel_configs:\n      \
         - source_labels: [__address__]\n        target_label: __param_target\n      \
         - source_labels: [__address__]\n        target_label: instance\n      \
         - target_label: __address__\n        replacement: {probe}\n"
    );
    Prometheus::start_with_config(tempfile::tempdir().expect("tempdir"), &config)
}

/// Waits until Prometheus holds `SCRAPES_BEFORE` successful scrapes of each of `n` instances.
fn wait_for_history(prom: &Prometheus, job: &str, n: usize) {
    let query = format!("count(count_over_time(up{{job=\"{job}\"}}[10m]) >= {SCRAPES_BEFORE})");
    common::wait::wait_until(
        Duration::from_secs(STEP.as_secs() * (SCRAPES_BEFORE as u64 + 6)),
        common::wait::OnTimeout(|| {
            format!(
                "{n} instances with {SCRAPES_BEFORE} scrapes: {}",
                prom.query(&query, now_unix())
            )
        }),
        || {
            prom.query(&query, now_unix())[0]["value"][1]
                .as_str()
                .and_then(|v| v.parse::<usize>().ok())
                .is_some_and(|c| c >= n)
        },
    );
}

fn now_unix() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

/// Prometheus's own count of the query API requests it answered.
fn queries_answered(prom: &Prometheus) -> u64 {
    http_get(prom.addr, "/metrics", &[])
        .body
        .lines()
        .filter(|l| l.starts_with("prometheus_http_requests_total{"))
        .filter(|l| l.contains("handler=\"/api/v1/query"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

fn fleet_args(url: &str) -> Vec<String> {
    [
        "--no-defaults",
        "fleet",
        "--prometheus",
        url,
        "--step",
        "15s",
    ]
    .map(String::from)
    .to_vec()
}

/// `fleet --once --format json`, `runs` times: the wall times, and what the last judged.
fn once_runs(a: &Args, url: &str) -> (Vec<f64>, String) {
    let mut walls = Vec::new();
    for _ in 0..a.runs {
        let mut cmd = Command::new(&a.innodebt);
        cmd.args(fleet_args(url))
            .args(["--once", "--format", "json"]);
        let cost = promdata::measured(&mut cmd).unwrap_or_else(|e| panic!("fleet --once: {e}"));
        walls.push(cost.wall_s);
    }
    let out = Command::new(&a.innodebt)
        .args(fleet_args(url))
        .args(["--once", "--format", "json"])
        .output()
        .expect("fleet --once");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "fleet --once is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let servers = v["servers"].as_array().cloned().unwrap_or_default();
    assert_eq!(servers.len(), a.instances, "every instance is a row");
    // Each row's verdict as the engine judged it (`unknown` names what the series lack).
    let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for s in &servers {
        let kind = match s["state"].as_str() {
            Some("up") => s["severity"].as_str().unwrap_or("none").to_string(),
            other => other.unwrap_or("none").to_string(),
        };
        *kinds.entry(kind).or_default() += 1;
    }
    let judged = kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ");
    (walls, judged)
}

/// The TUI in tmux: its first full screen, then `refreshes` intervals of queries and CPU.
fn tui(a: &Args, prom: &Prometheus, url: &str) -> (f64, u64, f64, f64, f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("pid");
    let tmux = Tmux::start(dir.path(), 200, 50);
    let command = std::iter::once(a.innodebt.display().to_string())
        .chain(fleet_args(url))
        .collect::<Vec<_>>()
        .join(" ");
    let before = queries_answered(prom);
    tmux.type_text(&with_pidfile(&command, &pidfile));
    let started = Instant::now();
    tmux.keys(&["Enter"]);
    let header = format!("{} servers", a.instances);
    let first_screen = loop {
        let screen = tmux.screen();
        let rows_judged = !screen.contains("waiting") && !screen.contains("no servers");
        if screen.contains(&header) && rows_judged {
            break started.elapsed().as_secs_f64();
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no full fleet screen in 120 s:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("pidfile")
        .trim()
        .parse()
        .expect("pid");
    let first_look = queries_answered(prom) - before;
    let (q0, cpu0, t0) = (queries_answered(prom), scale::cpu_s(pid), Instant::now());
    common::wait::duration_is_the_point(
        STEP * a.refreshes,
        "the refreshes whose queries and CPU are measured",
    );
    let (q1, cpu1, wall) = (
        queries_answered(prom),
        scale::cpu_s(pid),
        t0.elapsed().as_secs_f64(),
    );
    let refreshes = wall / STEP.as_secs_f64();
    let hwm = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
        .expect("VmHWM");
    tmux.keys(&["q"]);
    (
        first_screen,
        first_look,
        (q1 - q0) as f64 / refreshes,
        100.0 * (cpu1 - cpu0) / wall,
        hwm as f64 / 1024.0,
    )
}

fn measure(a: &Args, source: &'static str, prom: &Prometheus, job: &str) -> Measured {
    wait_for_history(prom, job, a.instances);
    let url = format!("http://{}", prom.addr);
    let (once_wall_s, once_judged) = once_runs(a, &url);
    let (first_screen_s, first_look_queries, queries_per_refresh, cpu_pct, peak_rss_mib) =
        tui(a, prom, &url);
    if a.hold > 0 {
        eprintln!(
            "{source}: first screen {first_screen_s:.2} s, {queries_per_refresh:.2} queries and \
             {cpu_pct:.2} % of a core per refresh, peak RSS {peak_rss_mib:.1} MiB; Prometheus at \
             {url} for {} s",
            a.hold
        );
        common::wait::duration_is_the_point(Duration::from_secs(a.hold), "--hold");
    }
    Measured {
        source,
        once_wall_s,
        once_judged,
        first_screen_s,
        queries_per_refresh,
        first_look_queries,
        cpu_pct,
        peak_rss_mib,
    }
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|k| format!("db{k:04}")).collect()
}

fn exporter(a: &Args) -> Measured {
    // Enough laps that no instance wraps round during the run (a wrap is a counter reset).
    let pages = Arc::new(ExporterPages::new(2 * 3600, STEP.as_secs()));
    let probe = play_exporters(pages, Instant::now());
    let prom = prometheus("mysql", probe, &names(a.instances));
    measure(a, "mysqld_exporter series", &prom, "mysql")
}

fn serve(a: &Args) -> Measured {
    let server = PrivateServer::start(ServerConfig {
        max_connections: u32::try_from(a.instances + 200).unwrap_or(u32::MAX),
        ..ServerConfig::default()
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("targets.toml");
    let targets = scale::write_config(&config, (server.port(), a.instances), (0, 0), (0, 0));
    let mut args = scale::serve_args(&server, &config, &[]);
    if let Some(i) = args.iter().position(|x| x == "--interval") {
        args[i + 1] = format!("{}s", STEP.as_secs());
    }
    let serve = Serve::start_bin(&a.innodebt, &args);
    let prom = prometheus("innodebt", serve.addr, &targets.healthy);
    let m = measure(a, "innodebt serve series", &prom, "innodebt");
    drop(serve);
    m
}

fn range(v: &[f64], unit: &str) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    if (hi - lo).abs() < 0.005 {
        format!("{lo:.2} {unit}")
    } else {
        format!("{lo:.2}–{hi:.2} {unit}")
    }
}

fn main() {
    let a = args();
    let mut done = Vec::new();
    if a.only.as_deref() != Some("serve") {
        done.push(exporter(&a));
    }
    if a.only.as_deref() != Some("exporter") {
        done.push(serve(&a));
    }
    let header: Vec<&str> = done.iter().map(|m| m.source).collect();
    println!(
        "\n{} instances, 15 s scrape interval, {} --once runs, {} refreshes measured\n",
        a.instances, a.runs, a.refreshes
    );
    println!("| | {} | target |", header.join(" | "));
    println!("|---|{}---|", "---|".repeat(done.len()));
    let row = |what: &str, f: &dyn Fn(&Measured) -> String, target: &str| {
        let cells: Vec<String> = done.iter().map(f).collect();
        println!("| {what} | {} | {target} |", cells.join(" | "));
    };
    row(
        "first full screen (TUI, 200×50)",
        &|m| format!("{:.2} s", m.first_screen_s),
        "≤ 3 s",
    );
    row(
        "`--once --format json`, wall",
        &|m| range(&m.once_wall_s, "s"),
        "≤ 3 s",
    );
    row(
        "rows of `--once` by severity",
        &|m| m.once_judged.clone(),
        "",
    );
    row(
        "queries, first look",
        &|m| m.first_look_queries.to_string(),
        "",
    );
    row(
        "queries per refresh",
        &|m| format!("{:.2}", m.queries_per_refresh),
        "≤ 20",
    );
    row(
        "CPU per refresh interval, share of a core",
        &|m| format!("{:.2} %", m.cpu_pct),
        "≤ 2 %",
    );
    row(
        "peak RSS (TUI)",
        &|m| format!("{:.1} MiB", m.peak_rss_mib),
        "≤ 61 MiB (64 MB)",
    );
}
