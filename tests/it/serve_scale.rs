//! One `innodebt serve` with 100 targets at a 5 s interval — 80 on a private server, 10 on a
//! second one that is then frozen (SIGSTOP: connections open, nothing answers), 10 on a port
//! nothing listens on — scraped as Prometheus would (`/metrics` each second, every target's
//! `/probe` once per interval). The healthy targets' samples never slip (gaps ≤ 1.5 ×
//! interval, from their `/events`), the frozen and refused ones read as down without delaying
//! the others, scrapes stay fast, and memory is small per target and flat in time — with
//! every target recorded (the flight recorder) within a small `--max-disk`.
//!
//! The bounds are for the debug build on a shared two-core machine; the release figures at
//! 1,000 targets are `benches/serve_scale.rs`'s (BENCHMARKS.md).

use crate::common;

use std::time::Duration;

use chrono::Utc;

use common::scale::{self, Targets};
use common::serve::{Serve, free_port};
use common::wait::wait_until;
use common::{PrivateServer, ServerConfig};

const INTERVAL: Duration = Duration::from_secs(5);
/// Prometheus's scrape interval for each target's `/probe`.
const SCRAPE_EVERY: Duration = Duration::from_secs(5);
/// Scrape answers, 99th percentile: the debug build on a busy shared machine; a scrape that
/// waited on a poll would take seconds (the release build's own bound is 5 ms at 1,000
/// targets, BENCHMARKS.md).
const SCRAPE_P99: Duration = Duration::from_millis(250);
/// RSS at the end of the window, and what it may grow by over its last half, per target. In
/// the first two minutes the bounded buffers still fill (two minutes of compressed events for
/// `/events`, the recorder's 16 KiB zstd window), so the growth bound is loose; flat over
/// minutes at 1,000 targets is the benchmark's figure.
const RSS_PER_TARGET_KIB: u64 = 400;
const RSS_BASE_KIB: u64 = 40 << 10;
const GROWTH_PER_TARGET_KIB: u64 = 32;
/// The recording's budget: a 64 KiB file per target open at once, and room to rotate.
const MAX_DISK: &str = "8MiB";
const MAX_DISK_BYTES: u64 = 8 << 20;

fn serve(server: &PrivateServer, config: &std::path::Path, extra: &[&str]) -> Serve {
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    Serve::start(&scale::serve_args(server, config, &extra))
}

fn connected(serve: &Serve) -> usize {
    serve.log().matches(": connected (").count()
}

fn up(serve: &Serve, target: &str) -> Option<f64> {
    scale::value(
        &serve.get(&format!("/probe?target={target}")).body,
        "innodebt_up",
    )
}

#[test]
fn a_hundred_recorded_targets_with_hung_and_refusing_ones_keep_their_cadence() {
    let healthy = PrivateServer::start(ServerConfig {
        max_connections: 400,
        ..ServerConfig::default()
    });
    let frozen = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("targets.toml");
    let targets: Targets = scale::write_config(
        &config,
        (healthy.port(), 80),
        (frozen.port(), 10),
        (free_port(), 10),
    );
    let rec = dir.path().join("rec");
    let rec_arg = rec.display().to_string();
    let mut serve = serve(
        &healthy,
        &config,
        &["--record-dir", &rec_arg, "--max-disk", MAX_DISK],
    );
    let pid = serve.child.id();
    wait_until(
        Duration::from_secs(60),
        "all 90 reachable targets connected",
        || connected(&serve) >= 90,
    );
    // Freeze the second server: its 10 targets' polls and reconnections hang from here on.
    let frozen_pid = frozen.pid().expect("the second server's pid");
    // SAFETY: kill(2) on the private server this test started.
    unsafe { libc::kill(frozen_pid as i32, libc::SIGSTOP) };
    let since = Utc::now();
    let window = Duration::from_secs(30);
    let scrapes = scale::scrape(
        serve.addr,
        &targets,
        (SCRAPE_EVERY, window),
        pid,
        Some(&rec),
    );
    let rss_end = scale::rss_kib(pid);
    let mut worst = (Duration::ZERO, String::new(), 0);
    for t in &targets.healthy {
        let (gap, n) = scale::worst_gap(serve.addr, t, since);
        if gap >= worst.0 {
            worst = (gap, t.clone(), n);
        }
    }
    let hung_up: Vec<Option<f64>> = targets.hung.iter().map(|t| up(&serve, t)).collect();
    let refused_up: Vec<Option<f64>> = targets.refused.iter().map(|t| up(&serve, t)).collect();
    // SAFETY: as above.
    unsafe { libc::kill(frozen_pid as i32, libc::SIGCONT) };
    let log = serve.log();
    serve.terminate();

    let (p50, p99) = (scrapes.probe_pct(0.5), scrapes.probe_pct(0.99));
    let half = scrapes.rss.len() / 2;
    let (mid, last) = (scrapes.rss[half], *scrapes.rss.last().unwrap());
    let most = scrapes.disk.iter().copied().max().unwrap_or(0);
    eprintln!(
        "100 targets at 5 s: scrape p50 {p50:?} p99 {p99:?}; worst gap {:?} ({}); RSS {rss_end} KiB \
         ({mid} KiB mid-window); recording {most} bytes; {} probes; RSS each second {:?}",
        worst.0,
        worst.1,
        scrapes.probe.len(),
        scrapes.rss
    );
    assert!(scrapes.failed.is_empty(), "{:?}", &scrapes.failed[..]);
    assert!(
        scrapes.probe.len() >= 20 * 28,
        "{} probes in {window:?}",
        scrapes.probe.len()
    );
    assert!(
        p99 <= SCRAPE_P99,
        "scrape p50 {p50:?}, p99 {p99:?} over {} probes",
        scrapes.probe.len()
    );
    assert!(
        worst.0 <= INTERVAL.mul_f64(1.5),
        "{} went {:?} without a sample ({} samples since the freeze) while 10 targets hung",
        worst.1,
        worst.0,
        worst.2
    );
    assert!(
        hung_up.iter().all(|u| *u == Some(0.0)),
        "the frozen server's targets: {hung_up:?}\n{log}"
    );
    assert!(
        refused_up.iter().all(|u| *u == Some(0.0)),
        "the closed port's targets: {refused_up:?}"
    );
    assert!(
        log.matches("hung0").count() >= 10 && log.contains("refused"),
        "the log names the down targets:\n{log}"
    );
    assert!(
        most <= MAX_DISK_BYTES && most > 0,
        "the recording held {most} bytes (--max-disk {MAX_DISK}): {:?}",
        scrapes.disk
    );
    let recorded = std::fs::read_dir(&rec).map(|d| d.count()).unwrap_or(0);
    assert_eq!(recorded, 100, "a recording directory per target");
    let n = targets.len() as u64;
    assert!(
        rss_end <= RSS_BASE_KIB + n * RSS_PER_TARGET_KIB,
        "RSS {rss_end} KiB for {n} targets"
    );
    assert!(
        last.saturating_sub(mid) <= n * GROWTH_PER_TARGET_KIB,
        "RSS grew {mid} → {last} KiB over the last {}s of the window: {:?}",
        scrapes.rss.len() - half,
        scrapes.rss
    );
}
