//! One `innodebt serve` for a fleet: 10, 100 and 1,000 targets at a 5 s interval, 1,000 with
//! 50 hung and 50 refusing, and 1,000 with the flight recorder; Debian's mysqld_exporter × 10
//! in the same run for comparison.
//!
//! `cargo bench --bench serve_scale` (options after `--`: `--seconds 60`, `--warmup 15`,
//! `--targets 10,100,1000`, `--hung 50`, `--refused 50`, `--exporters 10`,
//! `--max-disk 64` (MiB, the recording case), `--cases plain,hung,record,exporter`,
//! `--innodebt PATH` to measure another build of innodebt than the one cargo built).
//!
//! Every target is the same private MariaDB (max_connections raised) under its own name; the
//! hung ones are a second private server stopped with SIGSTOP when the window starts (open
//! connections, nothing answers), the refusing ones a port nothing listens on. Prometheus is
//! played by one thread: `/metrics` once a second and every target's `/probe` once per
//! interval, spread over it. Per case, over the window:
//! - client CPU: the process's utime + stime (`/proc`), as a share of one core;
//! - RSS: at the window's end (and its change over the window);
//! - server ms per second: the private server's own utime + stime over the window;
//! - scrape p50 / p99: `/probe` answers, connect to last byte (mysqld_exporter: `/metrics`);
//! - worst gap / interval: the longest time between two samples of any healthy target, from
//!   each target's `/events` after the window;
//! - the recording case: the recording directory's size against `--max-disk`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::fmt::Write as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;

use common::scale::{self, Targets};
use common::serve::{Serve, free_port, http_get};
use common::{PrivateServer, ServerConfig};

const INTERVAL: Duration = Duration::from_secs(5);

struct Args {
    seconds: u64,
    warmup: u64,
    targets: Vec<usize>,
    hung: usize,
    refused: usize,
    exporters: usize,
    max_disk_mib: u64,
    cases: Vec<String>,
    innodebt: std::path::PathBuf,
}

fn args() -> Args {
    let mut a = Args {
        seconds: 60,
        warmup: 15,
        targets: vec![10, 100, 1000],
        hung: 50,
        refused: 50,
        exporters: 10,
        max_disk_mib: 64,
        cases: ["plain", "hung", "record", "exporter"]
            .map(String::from)
            .to_vec(),
        innodebt: common::innodebt_bin(),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let v = argv.get(i + 1).cloned().unwrap_or_default();
        let num = |what: &str| -> u64 {
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{what} N"))
        };
        match argv[i].as_str() {
            "--seconds" => a.seconds = num("--seconds"),
            "--warmup" => a.warmup = num("--warmup"),
            "--hung" => a.hung = num("--hung") as usize,
            "--refused" => a.refused = num("--refused") as usize,
            "--exporters" => a.exporters = num("--exporters") as usize,
            "--max-disk" => a.max_disk_mib = num("--max-disk"),
            "--targets" => {
                a.targets = v
                    .split(',')
                    .map(|n| n.trim().replace('_', "").parse().expect("--targets N,N"))
                    .collect()
            }
            "--cases" => a.cases = v.split(',').map(str::to_string).collect(),
            "--innodebt" => a.innodebt = v.clone().into(),
            "--bench" => {
                i += 1;
                continue;
            }
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    assert!(
        a.seconds <= 110,
        "--seconds at most 110: the gaps come from /events, which holds two minutes"
    );
    a
}

/// One row of the table.
struct Row {
    case: String,
    targets: usize,
    cpu_pct: f64,
    rss_mib: f64,
    rss_change_mib: f64,
    server_ms_per_s: f64,
    p50: Duration,
    p99: Duration,
    worst_gap: Option<f64>,
    note: String,
}

fn serve(a: &Args, server: &PrivateServer, config: &std::path::Path, extra: &[String]) -> Serve {
    Serve::start_bin(
        &a.innodebt,
        &common::scale::serve_args(server, config, extra),
    )
}

fn wait_connected(serve: &Serve, n: usize) {
    common::wait::wait_until(
        Duration::from_secs(120),
        common::wait::OnTimeout(|| {
            let log = serve.log();
            format!(
                "{n} targets connected (only {}): {}",
                log.matches(": connected (").count(),
                log.lines().rev().take(5).collect::<Vec<_>>().join("\n")
            )
        }),
        || serve.log().matches(": connected (").count() >= n,
    );
}

#[allow(clippy::too_many_arguments)]
fn run_case(
    a: &Args,
    case: &str,
    main: &PrivateServer,
    frozen: &PrivateServer,
    (healthy, hung, refused): (usize, usize, usize),
    record: Option<u64>,
) -> Row {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("targets.toml");
    let targets: Targets = scale::write_config(
        &config,
        (main.port(), healthy),
        (frozen.port(), hung),
        (free_port(), refused),
    );
    let rec_dir = dir.path().join("rec");
    let extra: Vec<String> = match record {
        Some(mib) => vec![
            "--record-dir".into(),
            rec_dir.display().to_string(),
            "--max-disk".into(),
            format!("{mib}MiB"),
        ],
        None => Vec::new(),
    };
    let mut s = serve(a, main, &config, &extra);
    let pid = s.child.id();
    wait_connected(&s, healthy + hung);
    common::wait::duration_is_the_point(Duration::from_secs(a.warmup), "the warm-up");
    let frozen_pid = frozen.pid().expect("pid");
    if hung > 0 {
        // SAFETY: kill(2) on the private server this bench started.
        unsafe { libc::kill(frozen_pid as i32, libc::SIGSTOP) };
    }
    let since = Utc::now();
    let main_pid = main.pid().expect("pid");
    let (cpu0, srv0, rss0, t0) = (
        scale::cpu_s(pid),
        scale::cpu_s(main_pid),
        scale::rss_kib(pid),
        Instant::now(),
    );
    let mut max_disk_seen = 0u64;
    let scrapes = scale::scrape(
        s.addr,
        &targets,
        (INTERVAL, Duration::from_secs(a.seconds)),
        pid,
        record.map(|_| rec_dir.as_path()),
    );
    let wall = t0.elapsed().as_secs_f64();
    let (cpu1, srv1, rss1) = (
        scale::cpu_s(pid),
        scale::cpu_s(main_pid),
        scale::rss_kib(pid),
    );
    if record.is_some() {
        max_disk_seen = scrapes.disk.iter().copied().max().unwrap_or(0);
    }
    let mut worst = Duration::ZERO;
    for t in &targets.healthy {
        worst = worst.max(scale::worst_gap(s.addr, t, since).0);
    }
    let down = targets
        .hung
        .iter()
        .chain(&targets.refused)
        .filter(|t| {
            scale::value(&s.get(&format!("/probe?target={t}")).body, "innodebt_up") == Some(0.0)
        })
        .count();
    if hung > 0 {
        // SAFETY: as above.
        unsafe { libc::kill(frozen_pid as i32, libc::SIGCONT) };
    }
    s.terminate();
    let mut note = String::new();
    if hung + refused > 0 {
        let _ = write!(
            note,
            "{down} of {} hung/refusing read as down",
            hung + refused
        );
    }
    if let Some(mib) = record {
        let _ = write!(
            note,
            "recording: at most {:.1} MiB on disk (--max-disk {mib} MiB)",
            max_disk_seen as f64 / 1048576.0
        );
    }
    if !scrapes.failed.is_empty() {
        let _ = write!(note, "; {} scrapes failed", scrapes.failed.len());
    }
    Row {
        case: case.to_string(),
        targets: targets.len(),
        cpu_pct: (cpu1 - cpu0) / wall * 100.0,
        rss_mib: rss1 as f64 / 1024.0,
        rss_change_mib: (rss1 as f64 - rss0 as f64) / 1024.0,
        server_ms_per_s: (srv1 - srv0) / wall * 1000.0,
        p50: scrapes.probe_pct(0.5),
        p99: scrapes.probe_pct(0.99),
        worst_gap: Some(worst.as_secs_f64() / INTERVAL.as_secs_f64()),
        note,
    }
}

/// mysqld_exporter × n, each on `server`, with the InnoDB collectors, each scraped once a second.
fn exporters(a: &Args, server: &PrivateServer, n: usize) -> Row {
    let bin = common::mysqld_exporter::bin();
    let dir = tempfile::tempdir().expect("tempdir");
    let cnf = common::mysqld_exporter::write_cnf(dir.path(), server);
    let mut children: Vec<(Child, u16)> = (0..n)
        .map(|_| {
            let port = free_port();
            let child = Command::new(&bin)
                .arg(format!("--config.my-cnf={}", cnf.display()))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                .args([
                    "--collect.global_status",
                    "--collect.global_variables",
                    "--collect.info_schema.innodb_metrics",
                    "--collect.engine_innodb_status",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start mysqld_exporter");
            (child, port)
        })
        .collect();
    let addr =
        |port: u16| -> std::net::SocketAddr { format!("127.0.0.1:{port}").parse().expect("addr") };
    for (_, port) in &children {
        common::wait::wait_until(
            Duration::from_secs(30),
            format!("mysqld_exporter on port {port} to report mysql_up 1"),
            || {
                std::net::TcpStream::connect(addr(*port)).is_ok()
                    && http_get(addr(*port), "/metrics", &[])
                        .body
                        .contains("mysql_up 1")
            },
        );
    }
    common::wait::duration_is_the_point(Duration::from_secs(a.warmup.min(5)), "the warm-up");
    let pids: Vec<u32> = children.iter().map(|(c, _)| c.id()).collect();
    let main_pid = server.pid().expect("pid");
    let cpu = || pids.iter().map(|p| scale::cpu_s(*p)).sum::<f64>();
    let rss = || pids.iter().map(|p| scale::rss_kib(*p)).sum::<u64>();
    let (cpu0, srv0, rss0, t0) = (cpu(), scale::cpu_s(main_pid), rss(), Instant::now());
    let mut lat = Vec::new();
    while t0.elapsed() < Duration::from_secs(a.seconds) {
        let at = Instant::now();
        for (_, port) in &children {
            let s = Instant::now();
            let r = http_get(addr(*port), "/metrics", &[]);
            lat.push(s.elapsed());
            assert_eq!(r.status, 200);
        }
        common::wait::duration_is_the_point_since(
            at,
            Duration::from_secs(1),
            "a scrape a second, as Prometheus scrapes",
        );
    }
    let wall = t0.elapsed().as_secs_f64();
    let (cpu1, srv1, rss1) = (cpu(), scale::cpu_s(main_pid), rss());
    for (c, _) in &mut children {
        let _ = c.kill();
        let _ = c.wait();
    }
    Row {
        case: format!("mysqld_exporter {} × {n}", exporter_version(&bin)),
        targets: n,
        cpu_pct: (cpu1 - cpu0) / wall * 100.0,
        rss_mib: rss1 as f64 / 1024.0,
        rss_change_mib: (rss1 as f64 - rss0 as f64) / 1024.0,
        server_ms_per_s: (srv1 - srv0) / wall * 1000.0,
        p50: scale::percentile(&lat, 0.5),
        p99: scale::percentile(&lat, 0.99),
        worst_gap: None,
        note: "one process per server, scraped once a second (`/metrics`)".into(),
    }
}

fn exporter_version(bin: &std::path::Path) -> String {
    let out = Command::new(bin).arg("--version").output();
    let text = out
        .map(|o| {
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        })
        .unwrap_or_default();
    text.split_whitespace()
        .skip_while(|w| *w != "version")
        .nth(1)
        .unwrap_or("?")
        .to_string()
}

fn table(rows: &[Row]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "| case | targets | client CPU (% of a core): total / per target | RSS MiB: total / per target (change over the window) | server ms per s: total / per target | scrape p50 / p99 | worst gap / interval | notes |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|");
    for r in rows {
        let n = r.targets.max(1) as f64;
        let _ = writeln!(
            o,
            "| {} | {} | {:.2} % / {:.4} % | {:.1} / {:.3} ({:+.1}) | {:.1} / {:.2} | {:.2} / {:.2} ms | {} | {} |",
            r.case,
            r.targets,
            r.cpu_pct,
            r.cpu_pct / n,
            r.rss_mib,
            r.rss_mib / n,
            r.rss_change_mib,
            r.server_ms_per_s,
            r.server_ms_per_s / n,
            r.p50.as_secs_f64() * 1000.0,
            r.p99.as_secs_f64() * 1000.0,
            r.worst_gap.map_or("—".to_string(), |g| format!("{g:.2}")),
            r.note
        );
    }
    o
}

fn main() {
    let a = args();
    let most = a.targets.iter().copied().max().unwrap_or(0);
    let main_server = PrivateServer::start(ServerConfig {
        max_connections: u32::try_from(most + 200).unwrap_or(u32::MAX),
        ..ServerConfig::default()
    });
    let frozen = PrivateServer::start(ServerConfig {
        max_connections: u32::try_from(a.hung + 50).unwrap_or(u32::MAX),
        ..ServerConfig::default()
    });
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(common::mysqld_exporter::create_account(&main_server));
    let mut rows = Vec::new();
    let has = |c: &str| a.cases.iter().any(|x| x == c);
    if has("plain") {
        for &n in &a.targets {
            rows.push(run_case(
                &a,
                &format!("innodebt serve, {n} targets"),
                &main_server,
                &frozen,
                (n, 0, 0),
                None,
            ));
            eprintln!("{}", table(&rows));
        }
    }
    if has("hung") {
        let healthy = most - a.hung - a.refused;
        rows.push(run_case(
            &a,
            &format!(
                "innodebt serve, {most} targets: {} hung, {} refusing",
                a.hung, a.refused
            ),
            &main_server,
            &frozen,
            (healthy, a.hung, a.refused),
            None,
        ));
        eprintln!("{}", table(&rows));
    }
    if has("record") {
        rows.push(run_case(
            &a,
            &format!("innodebt serve, {most} targets, recording"),
            &main_server,
            &frozen,
            (most, 0, 0),
            Some(a.max_disk_mib),
        ));
        eprintln!("{}", table(&rows));
    }
    if has("exporter") {
        rows.push(exporters(&a, &main_server, a.exporters));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "# innodebt serve at fleet scale\n\nMariaDB {}; {} cores; interval 5 s; window {} s after {} s warm-up; load average at the end: {}\n",
        common::binaries().version,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
        a.seconds,
        a.warmup,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("{}", table(&rows));
}
