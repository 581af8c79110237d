//! What an import costs, for each source the release binary imports from:
//! - `innodebt import prometheus` against a real Prometheus: a day at 15 s and an hour at 1 s of
//!   mysqld_exporter series (the demo's real MariaDB 10.11 samples lap after lap, as the
//!   exporter names them: `tests/common/promdata.rs`), backfilled with `promtool tsdb
//!   create-blocks-from openmetrics`, served by `prometheus` on that TSDB;
//! - `innodebt import dolphie` of a Dolphie daemon's replay file: an hour and a day at Dolphie's
//!   default 1 s, made from a real recording (the pinned Dolphie from `.ci/run`'s virtualenv in
//!   daemon mode against a private MariaDB under write load, 60 s) lap after lap
//!   (`tests/common/dolphie.rs`), rows compressed as Dolphie does (level 9, the file's own
//!   dictionary). The recording and the files are kept under `target/import-bench/`
//!   (`--fresh` makes them again).
//!
//! Wall time, the process's CPU and its peak RSS (`VmHWM` from `/proc` until it exits), median
//! of `--runs=N` (default 3). Target: each ≤ 30 s, in memory that does not grow with the
//! window. `--only=prometheus` or `--only=dolphie` measures one source.
//!
//! `cargo bench --bench import`

#[path = "../tests/common/mod.rs"]
mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat, Utc};
use common::dolphie;
use common::machine::load_average;
use common::promdata;

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

/// The runs' columns: wall median / max, CPU median, peak RSS median / max, the target met.
fn cells(walls: &[f64], cpus: &[f64], rss: &[f64]) -> String {
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    format!(
        "{:.1} / {:.1} s | {:.1} s | {:.1} / {:.1} MiB | {}",
        median(walls.to_vec()),
        max(walls),
        median(cpus.to_vec()),
        median(rss.to_vec()),
        max(rss),
        if max(walls) <= TARGET_S { "✓" } else { "✗" }
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("--runs=").and_then(|n| n.parse().ok()))
        .unwrap_or(3);
    let only = args.iter().find_map(|a| a.strip_prefix("--only="));
    let fresh = args.iter().any(|a| a == "--fresh");
    println!(
        "import, {} binary, {runs} runs each; load average before: {}",
        // target/<profile>/innodebt: `cargo bench` builds release, `--profile dev` debug.
        Path::new(BIN)
            .parent()
            .and_then(Path::file_name)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        load_average()
    );
    if only.is_none_or(|o| o == "prometheus") {
        prometheus(runs);
    }
    if only.is_none_or(|o| o == "dolphie") {
        dolphie(runs, fresh);
    }
    println!();
    println!("load average after: {}", load_average());
}

fn prometheus(runs: usize) {
    let promtool = which("promtool");
    println!();
    println!("import prometheus");
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
            samples = innodebt_capture::open(&out)
                .expect("the import reads")
                .events
                .iter()
                .filter(|e| e.as_sample().is_some())
                .count();
            walls.push(cost.wall_s);
            cpus.push(cost.cpu_s);
            rss.push(cost.peak_rss_kib as f64 / 1024.0);
        }
        let points = series as u64 * (seconds / step);
        println!(
            "| {label} | {step} s | {series} | {points} | {samples} | {} |",
            cells(&walls, &cpus, &rss)
        );
    }
}

/// `target/import-bench/`, beside the binary's profile directory.
fn cache_dir() -> PathBuf {
    let dir = Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in target/PROFILE/")
        .join("import-bench");
    std::fs::create_dir_all(&dir).expect("create target/import-bench");
    dir
}

/// A real Dolphie recording of a private MariaDB under write load: 60 samples, at 1 s.
fn recording(fresh: bool) -> PathBuf {
    let kept = cache_dir().join("dolphie-recording.db");
    if kept.is_file() && !fresh {
        return kept;
    }
    let bin = dolphie::dolphie_bin("the Dolphie import bench")
        .expect("Dolphie: run .ci/run once, or set INNODEBT_DOLPHIE");
    let server = common::PrivateServer::start(common::ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let file = rt.block_on(async {
        let load = common::WriteLoad::start(server.opts(), 2);
        let file = dolphie::record(&bin, &server, dir.path(), 60).await;
        load.stop().await;
        file
    });
    std::fs::copy(&file, &kept).expect("keep the recording");
    kept
}

fn dolphie(runs: usize, fresh: bool) {
    let rec = recording(fresh);
    println!();
    println!(
        "import dolphie (from a real recording of {} KB)",
        std::fs::metadata(&rec).map_or(0, |m| m.len()) / 1000
    );
    println!();
    println!(
        "| file | rows | size | wall median / max | CPU median | peak RSS median / max | ≤ 30 s |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (label, seconds) in [("an hour at 1 s", 3_600i64), ("a day at 1 s", 86_400)] {
        let file = cache_dir().join(format!("dolphie-{seconds}s.db"));
        if fresh || !file.is_file() {
            let started = Instant::now();
            let made = dolphie::lengthen(&rec, &file, seconds, dolphie::DOLPHIE_LEVEL);
            eprintln!(
                "made {}: {} rows from laps of {} rows over {} s, in {:.0} s",
                file.display(),
                made.rows,
                made.lap_rows,
                made.lap_seconds,
                started.elapsed().as_secs_f64()
            );
        }
        let rows: i64 = rusqlite::Connection::open_with_flags(
            &file,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .and_then(|db| db.query_row("SELECT COUNT(*) FROM replay_data", [], |r| r.get(0)))
        .expect("count the rows");
        let size = std::fs::metadata(&file).map_or(0, |m| m.len());
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut walls, mut cpus, mut rss) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..runs {
            let out = dir.path().join(format!("run{run}.idbt"));
            let mut cmd = Command::new(BIN);
            cmd.args(["--no-defaults", "import", "dolphie"])
                .arg(&file)
                .arg("-o")
                .arg(&out);
            let cost =
                promdata::measured(&mut cmd).unwrap_or_else(|e| panic!("import failed: {e}"));
            walls.push(cost.wall_s);
            cpus.push(cost.cpu_s);
            rss.push(cost.peak_rss_kib as f64 / 1024.0);
            std::fs::remove_file(&out).ok();
        }
        println!(
            "| {label} | {rows} | {:.1} MB | {} |",
            size as f64 / 1e6,
            cells(&walls, &cpus, &rss)
        );
    }
}
