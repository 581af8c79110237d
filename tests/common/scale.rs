//! Many targets in one `innodebt serve`, and how it holds up: the servers file of N names for
//! one private server (plus names for a hung server and for a closed port), a scraper that
//! reads it as Prometheus does, each target's sample gaps from `/events`, and a process's CPU
//! and RSS from `/proc`. Shared by `tests/it/serve_scale.rs` and `benches/serve_scale.rs`.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::serve::http_get;
use super::server::PrivateServer;

/// The names of a scale run's targets, by what their server does.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    pub healthy: Vec<String>,
    pub hung: Vec<String>,
    pub refused: Vec<String>,
}

impl Targets {
    pub fn all(&self) -> impl Iterator<Item = &String> {
        self.healthy.iter().chain(&self.hung).chain(&self.refused)
    }

    pub fn len(&self) -> usize {
        self.healthy.len() + self.hung.len() + self.refused.len()
    }
}

/// Writes a servers file: `healthy` names for 127.0.0.1:`port`, `hung` for `hung_port`,
/// `refused` for `refused_port` (nothing listens there), all as root; /metrics off.
pub fn write_config(
    path: &Path,
    (port, healthy): (u16, usize),
    (hung_port, hung): (u16, usize),
    (refused_port, refused): (u16, usize),
) -> Targets {
    let mut t = Targets::default();
    let mut toml = String::from("[serve]\nmetrics_target = false\n\n");
    for (kind, port, n, names) in [
        ("db", port, healthy, &mut t.healthy),
        ("hung", hung_port, hung, &mut t.hung),
        ("refused", refused_port, refused, &mut t.refused),
    ] {
        for i in 0..n {
            let name = format!("{kind}{i:04}");
            toml.push_str(&format!(
                "[targets.{name}]\nhost = \"127.0.0.1\"\nport = {port}\nuser = \"root\"\n\n"
            ));
            names.push(name);
        }
    }
    std::fs::write(path, toml).expect("write the servers file");
    t
}

/// utime + stime of a process, in seconds.
pub fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|i| f.get(*i).and_then(|v| v.parse::<f64>().ok()))
        .sum();
    // SAFETY: sysconf has no memory effects.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks / hz.max(1.0)
}

/// Resident set size of a process (VmRSS), in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// What a scrape window saw.
#[derive(Debug, Default)]
pub struct Scrapes {
    /// `/probe?target=` answers' times (connect to last byte).
    pub probe: Vec<Duration>,
    /// `/metrics` answers' times.
    pub metrics: Vec<Duration>,
    /// Answers that were not 200.
    pub failed: Vec<String>,
    /// The RSS (KiB) of `pid` each second.
    pub rss: Vec<u64>,
    /// The bytes under the watched directory each second.
    pub disk: Vec<u64>,
}

impl Scrapes {
    pub fn probe_pct(&self, p: f64) -> Duration {
        percentile(&self.probe, p)
    }
}

pub fn percentile(v: &[Duration], p: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    if v.is_empty() {
        return Duration::ZERO;
    }
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

/// Scrapes like Prometheus for `window`: `/metrics` once a second, and every target's
/// `/probe` once per `every` (whole seconds), the targets spread evenly over it. Also
/// records `pid`'s RSS (and the size of `dir`, if given) each second.
pub fn scrape(
    addr: SocketAddr,
    targets: &Targets,
    (every, window): (Duration, Duration),
    pid: u32,
    dir: Option<&Path>,
) -> Scrapes {
    let names: Vec<&String> = targets.all().collect();
    let slots = every.as_secs().max(1) as usize;
    let mut out = Scrapes::default();
    let started = Instant::now();
    let mut tick = 0usize;
    while started.elapsed() < window {
        let at = Instant::now();
        let mut get = |path: &str, into_probe: bool| {
            let t0 = Instant::now();
            let r = http_get(addr, path, &[("Accept", "text/plain")]);
            let took = t0.elapsed();
            if into_probe {
                out.probe.push(took);
            } else {
                out.metrics.push(took);
            }
            if r.status != 200 {
                out.failed.push(format!("{path}: {} {}", r.status, r.body));
            }
        };
        get("/metrics", false);
        for (i, n) in names.iter().enumerate() {
            if i % slots == tick % slots {
                get(&format!("/probe?target={n}"), true);
            }
        }
        out.rss.push(rss_kib(pid));
        if let Some(d) = dir {
            out.disk.push(disk_bytes(d));
        }
        tick += 1;
        super::wait::duration_is_the_point_since(
            at,
            Duration::from_secs(1),
            "a scrape a second, as Prometheus scrapes",
        );
    }
    out
}

/// The sample times of `target` that `/events` still holds (its last two minutes).
pub fn sample_times(addr: SocketAddr, target: &str) -> Vec<DateTime<Utc>> {
    let r = http_get(addr, &format!("/events?target={target}&after=0"), &[]);
    assert_eq!(r.status, 200, "/events of {target}: {}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body)
        .unwrap_or_else(|e| panic!("/events of {target} is not JSON ({e}): {}", r.body));
    v["events"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|e| e["event"] == "sample")
                .filter_map(|e| e["taken_at"].as_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The longest time between two samples of `target` taken at or after `since` (from `since`
/// to its first one too), and how many there were.
pub fn worst_gap(addr: SocketAddr, target: &str, since: DateTime<Utc>) -> (Duration, usize) {
    let times: Vec<DateTime<Utc>> = sample_times(addr, target)
        .into_iter()
        .filter(|t| *t >= since)
        .collect();
    let mut worst = Duration::ZERO;
    let mut prev = since;
    for t in &times {
        worst = worst.max((*t - prev).to_std().unwrap_or_default());
        prev = *t;
    }
    worst = worst.max((Utc::now() - prev).to_std().unwrap_or_default());
    (worst, times.len())
}

/// A value of one family in an exposition (the first sample line of `name`).
pub fn value(body: &str, name: &str) -> Option<f64> {
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| {
            l.strip_prefix(name)
                .is_some_and(|r| r.starts_with(' ') || r.starts_with('{'))
        })
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// A bytes total of every file under `dir`.
pub fn disk_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => disk_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// `innodebt serve`'s command line for a scale run: every target of `config` through
/// `server`'s TCP connection flags, at a 5 s interval, on a port of its own, then `extra`.
pub fn serve_args(server: &PrivateServer, config: &Path, extra: &[String]) -> Vec<String> {
    let mut args = server.tcp_conn_args();
    args.extend(
        [
            "--no-defaults",
            "--interval",
            "5s",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--config",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.push(config.display().to_string());
    args.extend(extra.iter().cloned());
    args
}
