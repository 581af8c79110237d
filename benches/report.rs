//! What `innodebt report` costs, through the real release binary: the built-in demo's page and
//! the page of a 24-hour capture at 1 s (the demo's real MariaDB 10.11 samples lap after lap,
//! `tests/common/laps.rs`, written once under `target/report-bench/`). Wall time, the
//! process's CPU and its peak RSS (`VmHWM` from `/proc` until it exits), median of `--runs=N`
//! (default 3). Targets: the demo's page in ≤ 1 s; the day's in ≤ 10 s and ≤ 128 MB.
//!
//! `cargo bench --bench report`

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

use common::machine::load_average;
use common::promdata::{Cost, measured};

const BIN: &str = env!("CARGO_BIN_EXE_innodebt");
const DAY_S: u64 = 86_400;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs `innodebt report INPUT -o OUT` `runs` times: the median wall, CPU and peak RSS.
fn report(input: &str, out: &Path, runs: usize) -> (f64, f64, f64) {
    let costs: Vec<Cost> = (0..runs)
        .map(|_| {
            let _ = std::fs::remove_file(out);
            measured(
                Command::new(BIN)
                    .args(["--no-defaults", "report", input, "-o"])
                    .arg(out),
            )
            .unwrap_or_else(|e| panic!("innodebt report {input}: {e}"))
        })
        .collect();
    assert!(out.is_file(), "no page written for {input}");
    (
        median(costs.iter().map(|c| c.wall_s).collect()),
        median(costs.iter().map(|c| c.cpu_s).collect()),
        median(
            costs
                .iter()
                .map(|c| c.peak_rss_kib as f64 / 1024.0)
                .collect(),
        ),
    )
}

fn main() {
    let runs: usize = std::env::args()
        .find_map(|a| a.strip_prefix("--runs=")?.parse().ok())
        .unwrap_or(3);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-bench");
    std::fs::create_dir_all(&dir).expect("target/report-bench");
    let day = dir.join("day-at-1s.idbt");
    if !day.is_file() {
        eprintln!("writing a 24 h capture at 1 s to {} …", day.display());
        common::laps::write_file(&day, DAY_S);
    }
    let day_mb = std::fs::metadata(&day).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    println!("load average before: {}", load_average());
    println!("| page | capture | wall | CPU | peak RSS | target |");
    println!("|---|---|---|---|---|---|");
    let demo = common::laps::demo_path();
    let (w, c, r) = report(demo, &dir.join("demo.html"), runs);
    println!("| the demo | 3m 29s at 1 s | {w:.2} s | {c:.2} s | {r:.1} MiB | ≤ 1 s |");
    let (w, c, r) = report(
        day.to_str().expect("a UTF-8 path"),
        &dir.join("day.html"),
        runs,
    );
    println!(
        "| a day | 24 h at 1 s ({day_mb:.1} MB) | {w:.2} s | {c:.2} s | {r:.1} MiB | ≤ 10 s, ≤ 128 MB |"
    );
    println!("load average after: {}", load_average());
}
