//! `innodebt import prometheus` against a real Prometheus: a day at 15 s and an hour at 1 s of
//! mysqld_exporter series (the demo's real MariaDB 10.11 samples lap after lap, as the exporter
//! names them: `tests/common/promdata.rs`), backfilled with `promtool tsdb create-blocks-from
//! openmetrics`, served by `prometheus` on that TSDB. The release binary imports each window;
//! wall time and peak RSS (`wait4`), median of `--runs=N` (default 3). Target: each ≤ 30 s, in
//! memory that does not grow with the window.
//!
//! `cargo bench --bench import`

#[path = "../tests/common/laps.rs"]
mod laps;
#[path = "../tests/common/promdata.rs"]
mod promdata;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat, Utc};

const BIN: &str = env!("CARGO_BIN_EXE_innodebt");
const TARGET_S: f64 = 30.0;

fn which(name: &str) -> std::path::PathBuf {
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|f| f.is_file())
        })
        .unwrap_or_else(|| panic!("`{name}` not found: apt-get install prometheus"))
}

struct Prom {
    child: Child,
    addr: String,
}

impl Drop for Prom {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_prometheus(dir: &Path) -> Prom {
    let cfg = dir.join("prometheus.yml");
    std::fs::write(&cfg, "global:\n  scrape_interval: 15s\n").expect("config");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(which("prometheus"))
        .arg(format!("--config.file={}", cfg.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address={addr}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start prometheus");
    let p = Prom { child, addr };
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::net::TcpStream::connect(&p.addr).is_err() {
        assert!(Instant::now() < deadline, "prometheus did not listen");
        std::thread::sleep(Duration::from_millis(200));
    }
    p
}

fn stamp(t: i64) -> String {
    DateTime::<Utc>::from_timestamp(t, 0)
        .expect("time")
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .find_map(|a| a.strip_prefix("--runs=").and_then(|n| n.parse().ok()))
        .unwrap_or(3);
    let promtool = which("promtool");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "import prometheus, {} binary, {runs} runs each; load average before: {}",
        // target/<profile>/innodebt: `cargo bench` builds release, `--profile dev` debug.
        Path::new(BIN)
            .parent()
            .and_then(Path::file_name)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!();
    println!(
        "| window | step | series | points | samples | wall median / max | CPU median | peak RSS median / max | ≤ 30 s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let now = Utc::now().timestamp() / 60 * 60;
    for (label, seconds, step) in [("a day", 86_400u64, 15u64), ("an hour", 3_600, 1)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let start = now - 2 * 86_400 + if step == 1 { 86_400 } else { 0 };
        let text = dir.path().join("series.om");
        let series = promdata::openmetrics(&text, "db1:9104", start, seconds, step);
        promdata::backfill(&promtool, &text, &dir.path().join("data"));
        std::fs::remove_file(&text).ok();
        let prom = start_prometheus(dir.path());
        let (mut walls, mut cpus, mut rss) = (Vec::new(), Vec::new(), Vec::new());
        let mut samples = 0;
        for run in 0..runs {
            let out = dir.path().join(format!("run{run}.idbt"));
            let mut cmd = Command::new(BIN);
            cmd.args(["--no-defaults", "import", "prometheus"])
                .arg(format!("http://{}", prom.addr))
                .args(["--instance", "db1:9104", "--from", &stamp(start)])
                .args(["--to", &stamp(start + seconds as i64 - step as i64)])
                .args(["--step", &format!("{step}s"), "-o"])
                .arg(&out);
            // Prometheus may still be loading its blocks: the first answer decides.
            let deadline = Instant::now() + Duration::from_secs(120);
            let cost = loop {
                match promdata::measured(&mut cmd) {
                    Ok(r) => break r,
                    Err(e) if Instant::now() < deadline => {
                        let _ = std::fs::remove_file(&out);
                        if run > 0 {
                            panic!("import failed: {e}");
                        }
                        std::thread::sleep(Duration::from_millis(500));
                    }
                    Err(e) => panic!("import failed: {e}"),
                }
            };
            samples = innodebt::capture::open(&out)
                .expect("the import reads")
                .events
                .iter()
                .filter(|e| e.as_sample().is_some())
                .count();
            walls.push(cost.wall_s);
            cpus.push(cost.cpu_s);
            rss.push(cost.peak_rss_kib as f64 / 1024.0);
        }
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let points = series as u64 * (seconds / step);
        println!(
            "| {label} | {step} s | {series} | {points} | {samples} | {:.1} / {:.1} s | {:.1} s | {:.1} / {:.1} MiB | {} |",
            median(walls.clone()),
            max(&walls),
            median(cpus.clone()),
            median(rss.clone()),
            max(&rss),
            if max(&walls) <= TARGET_S {
                "✓"
            } else {
                "✗"
            }
        );
    }
}
