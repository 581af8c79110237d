//! Replay of long captures through the real release binary (`innodebt replay`), for captures
//! of 1 hour, 24 hours and 7 days at 1 s, against the targets in BENCHMARKS.md:
//! - the dashboard (`innodebt replay FILE` in a 200×60 tmux pane): time from exec to the first
//!   frame, peak RSS (VmHWM) once open and after seeking from end to end, seek + draw time
//!   (key read → frame written, timed inside the binary through `INNODEBT_TIMINGS`), CPU while
//!   paused (utime + stime over 10 s);
//! - `innodebt replay FILE --once --format json --at T` at seven points spread over the file:
//!   wall time and peak RSS;
//! - `innodebt export FILE --from T --to T+1h`: one hour's figures from the middle of the file;
//! - the same week as a flight recorder's directory of 168 hourly files (written by the real
//!   recorder, `serve::recorder::rolling`): `--once --at` and the hour's export from it;
//! - the anchor: `zstd -dc FILE`, decompressing the whole file.
//!
//! `cargo bench --bench replay --features bench-timings` (all three), or `-- 1h 24h`; `-- --runs=5` for more dashboard
//! runs (default 3; `--once` runs 5 times per point). Every figure is the median of its runs.
//! The captures are written once and kept under `target/replay-bench/` (named by generator,
//! format and derivation version, so a change to any of them writes them again).
//!
//! The samples are the shipped demo's real MariaDB 10.11 samples lap after lap
//! (`tests/common/laps.rs`): gauges as the demo had them, counters and LSNs going on, so every
//! figure stays one a server can show (`tests/it/replay_bench_data.rs` checks the file).

#[path = "../tests/common/laps.rs"]
mod laps;
#[path = "../tests/common/machine.rs"]
mod machine;
#[path = "../tests/common/tmux.rs"]
mod tmux;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use innodebt_capture::format::FORMAT_VERSION;
use innodebt_engine::derive::DERIVATION_VERSION;

const BIN: &str = env!("CARGO_BIN_EXE_innodebt");
/// Bump when `events` changes what it generates.
const GENERATOR: u32 = 3;

const TARGET_RSS_MIB: f64 = 64.0;
const TARGET_ONCE_MS: f64 = 300.0;
const TARGET_FIRST_FRAME_MS: f64 = 100.0;
const TARGET_SEEK_MS: f64 = 50.0;
const TARGET_CPU_PCT: f64 = 1.0;

use laps::{events, write_file};
use machine::load_average as load;

/// The same samples as a flight recorder's directory: one file per UTC hour, by the recorder.
fn write_dir(dir: &Path, seconds: u64) {
    use innodebt::serve::recorder::{self, Budget};
    let root = dir.parent().expect("parent").to_path_buf();
    let budget = Budget::new(root, Some(Duration::from_secs(30 * 86_400)), 1 << 40);
    std::fs::create_dir_all(dir).expect("mkdir");
    let mut rolling = recorder::rolling(dir.to_path_buf(), budget);
    events(seconds, |ev| rolling.append(ev).expect("record"));
    rolling.close().expect("finish the last file");
}

fn du(path: &Path) -> u64 {
    if path.is_dir() {
        std::fs::read_dir(path)
            .map(|d| d.flatten().map(|e| du(&e.path())).sum())
            .unwrap_or(0)
    } else {
        std::fs::metadata(path).map_or(0, |m| m.len())
    }
}

/// `target/replay-bench/`, beside the binary's `release/`.
fn cache_dir() -> PathBuf {
    let target = Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in target/PROFILE/");
    let dir = target.join("replay-bench");
    std::fs::create_dir_all(&dir).expect("create target/replay-bench");
    dir
}

/// The capture `label` (a file, or a recorder's directory when `hourly`), written unless the
/// cache holds it for this generator, format and derivation; stale versions are removed.
fn cached(label: &str, seconds: u64, hourly: bool) -> PathBuf {
    let dir = cache_dir();
    let kind = if hourly { "hourly" } else { "file" };
    let stem = format!("{label}-{kind}-");
    let name = format!("{stem}g{GENERATOR}-f{FORMAT_VERSION}-d{DERIVATION_VERSION}");
    let path = dir.join(if hourly {
        name.clone()
    } else {
        format!("{name}.idbt")
    });
    for stale in std::fs::read_dir(&dir).expect("list cache").flatten() {
        let p = stale.path();
        let n = stale.file_name().to_string_lossy().into_owned();
        if n.starts_with(&stem) && p != path {
            let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
        }
    }
    if path.exists() {
        return path;
    }
    let tmp = dir.join(format!("{name}.partial"));
    let _ = std::fs::remove_dir_all(&tmp).or_else(|_| std::fs::remove_file(&tmp));
    let t = Instant::now();
    if hourly {
        write_dir(&tmp, seconds);
    } else {
        write_file(&tmp, seconds);
    }
    std::fs::rename(&tmp, &path).expect("rename into the cache");
    eprintln!(
        "{label} ({kind}): {:.1} MB written in {:.0} s, kept in {}",
        du(&path) as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        path.display()
    );
    path
}

/// A command run to its end: wall time, CPU time (user + system) and peak RSS (KiB).
struct Ran {
    wall_ms: f64,
    cpu_ms: f64,
    rss_kib: u64,
}

#[allow(clippy::zombie_processes)] // reaped by `wait4`, which also gives its usage
fn run_measured(cmd: &mut Command) -> Ran {
    let started = Instant::now();
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
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
    assert!(ok, "{cmd:?} failed");
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    Ran {
        wall_ms: ms(took),
        cpu_ms: tv(usage.ru_utime) + tv(usage.ru_stime),
        rss_kib: usage.ru_maxrss as u64,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the dashboard is running")
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the dashboard's stat");
    // Fields after the command (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    n(11) + n(12)
}

/// CPU share of one core the process used over `secs`.
fn cpu_pct(pid: u32, secs: u64) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let c0 = cpu_ticks(pid);
    let w0 = Instant::now();
    std::thread::sleep(Duration::from_secs(secs));
    let used = (cpu_ticks(pid) - c0) as f64 / hz;
    100.0 * used / w0.elapsed().as_secs_f64()
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn wait_lines(path: &Path, at_least: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let l = lines(path);
        if l.len() >= at_least {
            return l;
        }
        assert!(
            Instant::now() < deadline,
            "the dashboard did not draw within 60 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn field(line: &str, name: &str) -> Option<f64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

/// One dashboard session.
struct Dashboard {
    first_frame_ms: f64,
    first_frame_cpu_ms: f64,
    rss_open_kib: u64,
    cpu_open_pct: f64,
    seeks_ms: Vec<f64>,
    seeks_cpu_ms: Vec<f64>,
    /// What each seek was (`g +3600s`, `End`, `n`).
    seeks_what: Vec<String>,
    hwm_kib: u64,
    cpu_paused_pct: f64,
    /// What the header said after `n` (a moment group's count shows there).
    moment_line: String,
}

fn dashboard(file: &Path, seconds: u64, scratch: &Path) -> Dashboard {
    let dir = tempfile::tempdir_in(scratch).expect("tempdir");
    let times = dir.path().join("timings");
    let pidfile = dir.path().join("pid");
    let t0file = dir.path().join("t0");
    let term = tmux::Tmux::start(dir.path(), 200, 60);
    // The shell writes its pid and the time just before it execs the binary.
    term.type_text(&format!(
        "sh -c 'echo $$ > {}; date +%s%N > {}; exec env INNODEBT_TIMINGS={} {BIN} replay {}'",
        pidfile.display(),
        t0file.display(),
        times.display(),
        file.display()
    ));
    term.keys(&["Enter"]);
    let first = wait_lines(&times, 1);
    let t0: f64 = std::fs::read_to_string(&t0file)
        .expect("exec time")
        .trim()
        .parse()
        .expect("exec time");
    let first_frame_ms = (field(&first[0], "frame_unix_ns").expect("frame time") - t0) / 1e6;
    let first_frame_cpu_ms = field(&first[0], "cpu_ms").expect("first frame's CPU");
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .ok()
        .and_then(|p| p.trim().parse().ok())
        .expect("the dashboard's pid");
    // Open and paused: nothing more to read or derive.
    std::thread::sleep(Duration::from_secs(1));
    let rss_open_kib = proc_status(pid, "VmHWM:");
    let cpu_open_pct = cpu_pct(pid, 5);

    // Seek from end to end: `g` +offset Enter over the file; Home, End; the moment groups.
    let mut seeks_ms = Vec::new();
    let mut seeks_cpu_ms = Vec::new();
    let mut seeks_what = Vec::new();
    let mut seek = |keys: &[&str], typed: Option<&str>| {
        if let Some(t) = typed {
            term.keys(&["g"]);
            term.type_text(t);
            // Past the frame limit (15/s), so the Enter's frame is drawn at once.
            std::thread::sleep(Duration::from_millis(150));
        }
        let before = lines(&times).len();
        term.keys(keys);
        let after = wait_lines(&times, before + 1);
        let line = after.last().expect("the seek's frame");
        seeks_ms.push(field(line, "key_to_frame_ms").expect("the seek's time"));
        seeks_cpu_ms.push(field(line, "cpu_ms").expect("the seek's CPU"));
        seeks_what.push(match typed {
            Some(t) => format!("g {t}"),
            None => keys.join(" "),
        });
        std::thread::sleep(Duration::from_millis(100));
    };
    let steps = 20u64;
    for i in 0..=steps {
        seek(
            &["Enter"],
            Some(&format!("+{}s", (seconds - 1) * i / steps)),
        );
    }
    for i in (0..steps).rev().step_by(3) {
        seek(
            &["Enter"],
            Some(&format!("+{}s", (seconds - 1) * i / steps)),
        );
    }
    seek(&["End"], None);
    seek(&["Home"], None);
    seek(&["n"], None);
    let moment_line = term
        .screen()
        .lines()
        .find(|l| l.contains("REPLAY"))
        .unwrap_or_default()
        .trim()
        .to_string();
    for _ in 0..4 {
        seek(&["n"], None);
    }
    seek(&["End"], None);
    for _ in 0..5 {
        seek(&["N"], None);
    }
    let hwm_kib = proc_status(pid, "VmHWM:");
    std::thread::sleep(Duration::from_secs(1));
    let cpu_paused_pct = cpu_pct(pid, 10);
    term.keys(&["q"]);
    let gone = Instant::now() + Duration::from_secs(5);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    Dashboard {
        first_frame_ms,
        first_frame_cpu_ms,
        rss_open_kib,
        cpu_open_pct,
        seeks_ms,
        seeks_cpu_ms,
        seeks_what,
        hwm_kib,
        cpu_paused_pct,
        moment_line,
    }
}

/// Per command, the median wall and CPU time of `repeat` runs; the peak RSS of them all.
struct Headless {
    wall_ms: Vec<f64>,
    cpu_ms: Vec<f64>,
    rss_kib: u64,
}

fn headless(commands: &[Vec<String>], repeat: usize) -> Headless {
    let mut h = Headless {
        wall_ms: Vec::new(),
        cpu_ms: Vec::new(),
        rss_kib: 0,
    };
    for args in commands {
        let runs: Vec<Ran> = (0..repeat)
            .map(|_| run_measured(Command::new(BIN).args(args)))
            .collect();
        h.wall_ms
            .push(median(runs.iter().map(|r| r.wall_ms).collect()));
        h.cpu_ms
            .push(median(runs.iter().map(|r| r.cpu_ms).collect()));
        h.rss_kib = runs.iter().map(|r| r.rss_kib).fold(h.rss_kib, u64::max);
    }
    h
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

struct Row {
    label: String,
    samples: u64,
    bytes: u64,
    zstd_ms: f64,
    headless: Queries,
    tui: Vec<Dashboard>,
}

/// `--once --at` at seven points, and one hour's export from the middle.
struct Queries {
    once: Headless,
    export: Headless,
}

fn once_points(seconds: u64) -> Vec<u64> {
    [0.0, 0.17, 0.33, 0.5, 0.67, 0.83, 1.0]
        .iter()
        .map(|f| ((seconds - 1) as f64 * f) as u64)
        .collect()
}

fn queries(path: &Path, seconds: u64) -> Queries {
    let p = path.display().to_string();
    let once: Vec<Vec<String>> = once_points(seconds)
        .iter()
        .map(|at| {
            ["replay", &p, "--once", "--format", "json", "--at"]
                .iter()
                .map(|s| s.to_string())
                .chain([format!("+{at}s")])
                .collect()
        })
        .collect();
    let mid = seconds.saturating_sub(3600) / 2;
    let export = vec![
        "export".to_string(),
        p,
        format!("--from=+{mid}s"),
        format!("--to=+{}s", mid + 3599),
        "--format=csv".into(),
    ];
    Queries {
        once: headless(&once, 5),
        export: headless(&[export], 3),
    }
}

fn measure(label: &str, seconds: u64, runs: usize, scratch: &Path) -> Row {
    let file = cached(label, seconds, false);
    let zstd_ms = median(
        (0..3)
            .map(|_| run_measured(Command::new("zstd").args(["-dc", "-q"]).arg(&file)).wall_ms)
            .collect(),
    );
    let headless = queries(&file, seconds);
    let tui = (0..runs)
        .map(|_| dashboard(&file, seconds, scratch))
        .collect();
    Row {
        label: label.to_string(),
        samples: seconds,
        bytes: du(&file),
        zstd_ms,
        headless,
        tui,
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn check(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗ MISSED" }
}

/// The dashboard's figures over its runs.
struct Tui {
    first_ms: f64,
    first_cpu_ms: f64,
    open_kib: u64,
    seeks: Vec<f64>,
    seek_cpu_ms: f64,
    hwm_kib: u64,
    cpu_open: f64,
    cpu_paused: f64,
}

impl Tui {
    fn of(runs: &[Dashboard]) -> Tui {
        Tui {
            first_ms: median(runs.iter().map(|d| d.first_frame_ms).collect()),
            first_cpu_ms: median(runs.iter().map(|d| d.first_frame_cpu_ms).collect()),
            open_kib: runs.iter().map(|d| d.rss_open_kib).max().unwrap_or(0),
            seeks: runs.iter().flat_map(|d| d.seeks_ms.clone()).collect(),
            seek_cpu_ms: median(runs.iter().flat_map(|d| d.seeks_cpu_ms.clone()).collect()),
            hwm_kib: runs.iter().map(|d| d.hwm_kib).max().unwrap_or(0),
            cpu_open: median(runs.iter().map(|d| d.cpu_open_pct).collect()),
            cpu_paused: median(runs.iter().map(|d| d.cpu_paused_pct).collect()),
        }
    }
}

fn main() {
    // The dashboard's key-to-frame times come from the binary's own hook, which a release build
    // has only with this feature.
    if !cfg!(feature = "bench-timings") {
        eprintln!("run it as: cargo bench --bench replay --features bench-timings");
        std::process::exit(2);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("--runs=")?.parse().ok())
        .unwrap_or(3);
    let wanted: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let lengths: Vec<(&str, u64)> = [("1h", 3_600), ("24h", 86_400), ("7d", 604_800)]
        .into_iter()
        .filter(|(l, _)| wanted.is_empty() || wanted.iter().any(|w| w == l))
        .collect();
    let scratch = tempfile::tempdir().expect("tempdir");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load_before = load();
    let rows: Vec<Row> = lengths
        .iter()
        .map(|(label, s)| measure(label, *s, runs, scratch.path()))
        .collect();
    // The week again as a flight recorder's hourly files.
    let hourly = lengths.iter().find(|(l, _)| *l == "7d").map(|(_, s)| {
        let dir = cached("7d", *s, true);
        let files = std::fs::read_dir(&dir).map_or(0, |d| d.count());
        (du(&dir), files, queries(&dir, *s))
    });
    let load_after = load();
    let tuis: Vec<Tui> = rows.iter().map(|r| Tui::of(&r.tui)).collect();

    println!();
    println!("innodebt replay, captures at 1 s ({BIN})");
    println!(
        "{cores} cores, load average {load_before} before, {load_after} after; medians of {runs} dashboard runs, of 5 runs per `--once` point, of 3 exports"
    );
    println!();
    println!("The dashboard (`innodebt replay FILE`, 200×60 tmux pane):");
    println!();
    println!(
        "| capture | samples | file | first frame, exec → drawn (CPU) | peak RSS open | seek + draw median / p95 / max (CPU median) | peak RSS after seeking end to end | CPU paused: open / after seeking |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (r, t) in rows.iter().zip(&tuis) {
        println!(
            "| {} | {} | {:.1} MB | {:.0} ms ({:.0} ms) | {:.1} MiB | {:.1} / {:.1} / {:.1} ms ({:.1} ms; {} seeks) | {:.1} MiB | {:.2} % / {:.2} % |",
            r.label,
            r.samples,
            r.bytes as f64 / 1e6,
            t.first_ms,
            t.first_cpu_ms,
            mib(t.open_kib),
            median(t.seeks.clone()),
            percentile(t.seeks.clone(), 0.95),
            max(&t.seeks),
            t.seek_cpu_ms,
            t.seeks.len(),
            mib(t.hwm_kib),
            t.cpu_open,
            t.cpu_paused,
        );
    }
    println!();
    println!("Headless:");
    println!();
    println!(
        "| capture | `zstd -dc` whole file | `--once --at`, 7 points: mean / max (max CPU) | `--once` peak RSS | export 1 h from the middle (CPU) | export peak RSS |"
    );
    println!("|---|---|---|---|---|---|");
    let headless_row = |label: &str, zstd: String, q: &Queries| {
        println!(
            "| {label} | {zstd} | {:.0} / {:.0} ms ({:.0} ms) | {:.1} MiB | {:.0} ms ({:.0} ms) | {:.1} MiB |",
            mean(&q.once.wall_ms),
            max(&q.once.wall_ms),
            max(&q.once.cpu_ms),
            mib(q.once.rss_kib),
            q.export.wall_ms[0],
            q.export.cpu_ms[0],
            mib(q.export.rss_kib),
        );
    };
    for r in &rows {
        headless_row(&r.label, format!("{:.0} ms", r.zstd_ms), &r.headless);
    }
    if let Some((bytes, files, q)) = &hourly {
        headless_row(
            &format!("7d as {files} hourly files ({:.1} MB)", *bytes as f64 / 1e6),
            "—".into(),
            q,
        );
    }
    println!();
    for r in &rows {
        println!(
            "{} `--once --at` per point, wall (CPU) ms: {}",
            r.label,
            once_points(r.samples)
                .iter()
                .enumerate()
                .map(|(i, at)| format!(
                    "+{at}s {:.0} ({:.0})",
                    r.headless.once.wall_ms[i], r.headless.once.cpu_ms[i]
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for r in &rows {
        let mut all: Vec<(f64, f64, &str)> = r
            .tui
            .iter()
            .flat_map(|d| {
                d.seeks_ms
                    .iter()
                    .zip(&d.seeks_cpu_ms)
                    .zip(&d.seeks_what)
                    .map(|((w, c), k)| (*w, *c, k.as_str()))
            })
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!(
            "{} slowest seeks, wall (CPU): {}; most CPU a seek took: {:.1} ms",
            r.label,
            all.iter()
                .take(5)
                .map(|(w, c, k)| format!("{k} {w:.0} ms ({c:.1} ms)"))
                .collect::<Vec<_>>()
                .join(", "),
            all.iter().map(|a| a.1).fold(0.0, f64::max)
        );
    }
    for r in &rows {
        if let Some(d) = r.tui.first() {
            println!(
                "{} header after `n` from the start: {}",
                r.label, d.moment_line
            );
        }
    }

    // Against the targets.
    println!();
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    println!("| target | {} | met |", labels.join(" | "));
    println!("|---|{}---|", "---|".repeat(labels.len()));
    let line = |what: &str, limit: f64, v: Vec<f64>, unit: &str| {
        let ok = v.iter().all(|x| *x <= limit);
        println!(
            "| {what} ≤ {limit} {unit} | {} | {} |",
            v.iter()
                .map(|x| format!("{x:.2} {unit}"))
                .collect::<Vec<_>>()
                .join(" | "),
            check(ok)
        );
    };
    let peak: Vec<f64> = tuis
        .iter()
        .map(|t| mib(t.open_kib.max(t.hwm_kib)))
        .collect();
    line("dashboard peak RSS", TARGET_RSS_MIB, peak.clone(), "MiB");
    line(
        "`--once --at` peak RSS",
        TARGET_RSS_MIB,
        rows.iter().map(|r| mib(r.headless.once.rss_kib)).collect(),
        "MiB",
    );
    line(
        "`--once --at`, slowest point",
        TARGET_ONCE_MS,
        rows.iter().map(|r| max(&r.headless.once.wall_ms)).collect(),
        "ms",
    );
    line(
        "first frame",
        TARGET_FIRST_FRAME_MS,
        tuis.iter().map(|t| t.first_ms).collect(),
        "ms",
    );
    line(
        "seek + draw, median",
        TARGET_SEEK_MS,
        tuis.iter().map(|t| median(t.seeks.clone())).collect(),
        "ms",
    );
    line(
        "seek + draw, slowest",
        TARGET_SEEK_MS,
        tuis.iter().map(|t| max(&t.seeks)).collect(),
        "ms",
    );
    line(
        "CPU paused",
        TARGET_CPU_PCT,
        tuis.iter().map(|t| t.cpu_open.max(t.cpu_paused)).collect(),
        "%",
    );
    if let Some((_, _, q)) = &hourly {
        println!(
            "7 d as hourly files: `--once --at` slowest point {:.0} ms {}, peak RSS {:.1} MiB {}",
            max(&q.once.wall_ms),
            check(max(&q.once.wall_ms) <= TARGET_ONCE_MS),
            mib(q.once.rss_kib),
            check(mib(q.once.rss_kib) <= TARGET_RSS_MIB)
        );
    }
    if peak.len() > 1 {
        println!(
            "dashboard peak RSS {}: {}",
            labels.join(" → "),
            peak.iter()
                .map(|p| format!("{p:.1}"))
                .collect::<Vec<_>>()
                .join(" → ")
        );
    }
}
