//! Replay of long captures through the real binary, for captures of 1 hour, 24 hours and 7
//! days at 1 s: file size; `innodebt replay FILE --once --at T` wall time and peak RSS at
//! points spread over the file; the dashboard (`innodebt replay FILE` in a 200×60 tmux pane)
//! — time to the first frame, peak RSS once open, seek + draw time and peak RSS after seeking
//! from end to end, CPU while paused. Anchor: `zstd -dc FILE` (decompressing the whole file,
//! the least a replay that reads it all must pay), measured in the same run.
//!
//! `cargo bench --bench replay` (all three), or `cargo bench --bench replay -- 1h 24h`.
//! Captures are written into a temporary directory, deleted at the end.
//!
//! The samples are the shipped demo's real MariaDB 10.11 samples, repeated, with time and
//! cumulative counters moving on so rates, checkpoint age and the blocker stay realistic.

#[path = "../tests/common/tmux.rs"]
mod tmux;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use innodebt::capture::{self, Header};
use innodebt::sample::SourceEvent;

const BIN: &str = env!("CARGO_BIN_EXE_innodebt");

fn demo() -> Vec<SourceEvent> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    capture::open(path).expect("demo capture").events
}

/// `seconds` samples at 1 s: the demo's real samples, repeated, with time and cumulative
/// counters moving on lap by lap. Returns the file's size.
fn write_capture(path: &Path, seconds: u64) -> u64 {
    let events = demo();
    let connected = events
        .iter()
        .find(|e| matches!(e, SourceEvent::Connected { .. }))
        .cloned()
        .expect("connected");
    let samples: Vec<_> = events
        .iter()
        .filter_map(|e| e.as_sample().cloned())
        .collect();
    let first = samples[0].clone();
    let last = samples[samples.len() - 1].clone();
    let t0 = first.taken_at;
    let mut header = Header::new(t0, None, false);
    header.interval_ms = Some(1000);
    let mut w = innodebt::replay::create_writer(path, &header, Default::default()).expect("create");
    w.append(&connected).expect("append");
    let n = samples.len() as u64;
    for i in 0..seconds {
        let lap = i / n;
        let mut s = samples[(i % n) as usize].clone();
        s.taken_at = t0 + chrono::Duration::seconds(i as i64);
        s.mono_s = i as f64;
        // Cumulative counters grow lap by lap (never reset): add the lap's growth.
        for (k, v) in s.status.iter_mut() {
            if let (Some(a), Some(b)) = (first.status.get(k), last.status.get(k))
                && b > a
                && k != "Innodb_history_list_length"
                && !k.contains("pages_dirty")
                && !k.contains("pages_data")
                && !k.contains("pages_free")
                && k != "Uptime"
            {
                *v += lap * (b - a);
            }
        }
        if let Some(u) = s.status.get_mut("Uptime") {
            *u = 1000 + i;
        }
        for (k, m) in s.metrics.iter_mut() {
            if let (Some(a), Some(b)) = (first.metrics.get(k), last.metrics.get(k))
                && b.count > a.count
                && !k.contains("history")
                && !k.contains("current_size")
            {
                m.count += lap as i64 * (b.count - a.count);
            }
        }
        w.append(&SourceEvent::Sample(Box::new(s))).expect("append");
    }
    w.finish().expect("finish").bytes
}

/// Runs a command to its end: wall time and the child's peak RSS (KiB).
#[allow(clippy::zombie_processes)] // reaped by `wait4`, which also gives its peak RSS
fn run_measured(cmd: &mut Command) -> (Duration, u64, bool) {
    let started = Instant::now();
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain wait4 on our own child; `usage` is a valid out-pointer.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let took = started.elapsed();
    assert_eq!(rc, pid, "wait4");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (took, usage.ru_maxrss as u64, ok)
}

fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    n(11) + n(12)
}

fn timing_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn wait_lines(path: &Path, at_least: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let l = timing_lines(path);
        if l.len() >= at_least || Instant::now() > deadline {
            return l;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn field(line: &str, name: &str) -> Option<f64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

fn unix_ns() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_nanos() as f64)
}

struct Row {
    label: &'static str,
    samples: u64,
    bytes: u64,
    written_s: f64,
    zstd_ms: f64,
    once_ms_max: f64,
    once_ms_mean: f64,
    once_rss_kib: u64,
    first_frame_ms: f64,
    first_frame_main_ms: f64,
    rss_open_kib: u64,
    seek_ms_mean: f64,
    seek_ms_max: f64,
    seeks: usize,
    hwm_kib: u64,
    cpu_paused_pct: f64,
}

fn measure(dir: &Path, label: &'static str, seconds: u64) -> Row {
    let file = dir.join(format!("{label}.idbt"));
    let t = Instant::now();
    let bytes = write_capture(&file, seconds);
    let written_s = t.elapsed().as_secs_f64();
    eprintln!(
        "{label}: {:.1} MB written in {written_s:.0} s",
        bytes as f64 / 1e6
    );

    // The anchor: decompress everything (what any whole-file replay must at least do).
    let (zstd, _, ok) = run_measured(Command::new("zstd").args(["-dc", "-q"]).arg(&file));
    assert!(ok, "zstd -dc failed");

    // --once --at anywhere.
    let mut once = Vec::new();
    let mut once_rss = 0;
    for frac in [0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 0.999_999] {
        let at = format!("+{}s", ((seconds - 1) as f64 * frac) as u64);
        let (took, rss, ok) = run_measured(
            Command::new(BIN)
                .arg("replay")
                .arg(&file)
                .args(["--once", "--format", "json", "--at", &at]),
        );
        assert!(ok, "--once --at {at} failed");
        once.push(took.as_secs_f64() * 1e3);
        once_rss = once_rss.max(rss);
    }

    // The dashboard in a real terminal.
    let tdir = tempfile::tempdir_in(dir).expect("tempdir");
    let times = tdir.path().join("timings");
    let pidfile = tdir.path().join("pid");
    let term = tmux::Tmux::start(tdir.path(), 200, 60);
    let cmd = format!(
        "env INNODEBT_TIMINGS={} {BIN} replay {}",
        times.display(),
        file.display()
    );
    let spawned = unix_ns();
    term.type_text(&tmux::with_pidfile(&cmd, &pidfile));
    term.keys(&["Enter"]);
    let first = wait_lines(&times, 1);
    let line = first.first().cloned().unwrap_or_default();
    let first_frame_ms = (field(&line, "frame_unix_ns").unwrap_or(0.0) - spawned) / 1e6;
    let first_frame_main_ms = field(&line, "since_start_ms").unwrap_or(f64::NAN);
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .ok()
        .and_then(|p| p.trim().parse().ok())
        .expect("the dashboard's pid");
    std::thread::sleep(Duration::from_millis(500));
    let rss_open_kib = proc_status(pid, "VmHWM:");

    // Seek from end to end: `g` +offset, Enter; then End, Home and the moments.
    let mut seeks = Vec::new();
    let steps = 20u64;
    let mut seek = |keys: &[&str], text: Option<&str>| {
        if let Some(t) = text {
            term.keys(&["g"]);
            term.type_text(t);
            std::thread::sleep(Duration::from_millis(150));
        }
        let before = timing_lines(&times).len();
        term.keys(keys);
        let after = wait_lines(&times, before + 1);
        if let Some(ms) = after.last().and_then(|l| field(l, "key_to_frame_ms")) {
            seeks.push(ms);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    for i in 0..=steps {
        let at = format!("+{}s", (seconds - 1) * i / steps);
        seek(&["Enter"], Some(&at));
    }
    seek(&["Home"], None);
    seek(&["End"], None);
    for _ in 0..5 {
        seek(&["N"], None);
    }
    seek(&["Home"], None);
    for _ in 0..5 {
        seek(&["n"], None);
    }
    let hwm_kib = proc_status(pid, "VmHWM:");

    // Paused: the loop only wakes for its clock.
    std::thread::sleep(Duration::from_secs(1));
    let c0 = cpu_ticks(pid);
    let w0 = Instant::now();
    std::thread::sleep(Duration::from_secs(10));
    let cpu_s = (cpu_ticks(pid) - c0) as f64 / 100.0;
    let cpu_paused_pct = 100.0 * cpu_s / w0.elapsed().as_secs_f64();
    term.keys(&["q"]);
    std::thread::sleep(Duration::from_millis(300));
    let _ = std::fs::remove_file(&file);

    let n = seeks.len().max(1) as f64;
    Row {
        label,
        samples: seconds,
        bytes,
        written_s,
        zstd_ms: zstd.as_secs_f64() * 1e3,
        once_ms_max: once.iter().copied().fold(0.0, f64::max),
        once_ms_mean: once.iter().sum::<f64>() / once.len() as f64,
        once_rss_kib: once_rss,
        first_frame_ms,
        first_frame_main_ms,
        rss_open_kib,
        seek_ms_mean: seeks.iter().sum::<f64>() / n,
        seek_ms_max: seeks.iter().copied().fold(0.0, f64::max),
        seeks: seeks.len(),
        hwm_kib,
        cpu_paused_pct,
    }
}

fn machine() -> String {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{cores} cores, load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

fn main() {
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let lengths: Vec<(&'static str, u64)> = [("1h", 3_600), ("24h", 86_400), ("7d", 604_800)]
        .into_iter()
        .filter(|(l, _)| wanted.is_empty() || wanted.iter().any(|w| w == l))
        .collect();
    let dir: PathBuf = std::env::temp_dir();
    let dir = tempfile::tempdir_in(dir).expect("tempdir");
    let before = machine();
    let rows: Vec<Row> = lengths
        .iter()
        .map(|(label, s)| measure(dir.path(), label, *s))
        .collect();
    let after = machine();
    let mib = |k: u64| k as f64 / 1024.0;
    println!();
    println!("innodebt replay, captures at 1 s ({BIN})");
    println!("machine: {before} before, {after} after");
    println!();
    println!(
        "| capture | samples | size (MB/h) | `zstd -dc` whole file | `--once --at` mean / max (7 points) | `--once` peak RSS | first frame (from spawn / from main) | RSS open | seek + draw mean / max ({} seeks) | peak RSS after seeking end to end | CPU paused |",
        rows.first().map_or(0, |r| r.seeks)
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.1} MB ({:.2}) | {:.0} ms | {:.0} / {:.0} ms | {:.1} MiB | {:.0} / {:.0} ms | {:.1} MiB | {:.1} / {:.1} ms | {:.1} MiB | {:.2} % |",
            r.label,
            r.samples,
            r.bytes as f64 / 1e6,
            r.bytes as f64 / 1e6 / (r.samples as f64 / 3600.0),
            r.zstd_ms,
            r.once_ms_mean,
            r.once_ms_max,
            mib(r.once_rss_kib),
            r.first_frame_ms,
            r.first_frame_main_ms,
            mib(r.rss_open_kib),
            r.seek_ms_mean,
            r.seek_ms_max,
            mib(r.hwm_kib),
            r.cpu_paused_pct,
        );
    }
    println!();
    for r in &rows {
        println!(
            "{}: written in {:.0} s; `--once --at` is {:.1}× faster than decompressing the whole file",
            r.label,
            r.written_s,
            r.zstd_ms / r.once_ms_max.max(1e-9)
        );
    }
    println!();
    println!(
        "targets: peak RSS ≤ 64 MiB and flat; --once --at ≤ 300 ms; first frame ≤ 100 ms; seek + draw ≤ 50 ms; CPU paused ≤ 1 %"
    );
}
