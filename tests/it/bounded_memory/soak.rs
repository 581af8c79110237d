//! Soak: 500,000 samples through the live path — a producer task (the poller's place) sends
//! `SourceEvent`s over the same bounded channel as `run::live` (256) into `App::update`
//! (derivation via `DataView` → `Deriver` → verdicts), a copy of every event goes to a real
//! capture writer behind its bounded channel, and the screen is drawn on a `TestBackend`
//! every 1,000 samples. Resident memory is read from `/proc/self/status` every 50,000
//! samples and must plateau after the warm-up; the chart series stay capped; every event is
//! either in the capture or counted as dropped; rates never go negative or spike across
//! the disconnects, server restarts and `FLUSH STATUS` resets the feed contains.
//!
//! RSS and the live heap are the process's: the test runs the soak in a process of its own,
//! this test binary started again for this one test, while the other tests go on beside it
//! (a target of its own would wait for every other test binary to finish). The counting
//! allocator below is the whole binary's; only that process reads it. `benches/soak.rs` runs
//! the same driver in release (`cargo bench --bench soak`) and prints the figures.
#![allow(dead_code)] // the bench includes this file and uses only the driver

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use innodebt::app::data_view::SERIES_POINTS;
use innodebt::app::{App, DataView, Msg};
use innodebt::theme::Theme;
use innodebt_capture::{CaptureIndex, Header, WriteSummary, WriterOptions};
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_server::sample::SourceEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc;

/// The poller → app channel, as `run::live::spawn_poller` makes it.
pub const EVENT_CHANNEL: usize = 256;
/// The app → capture-writer channel, as `run::record` makes it.
pub const RECORDER_CHANNEL: usize = 1024;

// The simulated server: a MariaDB 10.11 from the demo capture under load waves, a reporting
// job's read view, crashes and `FLUSH STATUS` now and then (`feed::Plan::soak`).
use crate::common::feed;
use feed::{DML_PER_S, FLUSH_PER_S, PURGE_PER_S, REDO_PER_S};

#[derive(Debug, Clone)]
pub struct SoakConfig {
    pub samples: usize,
    pub checkpoint_every: usize,
    pub draw_every: usize,
    pub width: u16,
    pub height: u16,
    pub capture: PathBuf,
    /// The recorder's zstd level (the product records at 9).
    pub zstd_level: i32,
    /// Run the capture writer's thread under `SCHED_IDLE`: see [`writer_on_spare_cpu`].
    pub writer_on_spare_cpu: bool,
}

impl SoakConfig {
    pub fn new(capture: PathBuf) -> Self {
        SoakConfig {
            samples: 500_000,
            checkpoint_every: 50_000,
            draw_every: 1_000,
            width: 200,
            height: 60,
            capture,
            zstd_level: WriterOptions::default().level,
            writer_on_spare_cpu: false,
        }
    }
}

/// Memory and progress after `samples` samples.
#[derive(Debug, Clone, Copy)]
pub struct Checkpoint {
    pub samples: usize,
    pub heap_kib: u64,
    pub rss_kib: u64,
    pub hwm_kib: u64,
    pub elapsed: Duration,
}

#[derive(Debug)]
pub struct SoakReport {
    pub checkpoints: Vec<Checkpoint>,
    /// Events the producer sent (samples, connects, disconnects, variable changes).
    pub events_sent: u64,
    pub samples_seen: u64,
    pub frames: u64,
    /// The most events ever waiting in the poller → app channel.
    pub max_queued: usize,
    pub writer: WriteSummary,
    /// Drops the sender counted (the writer's channel was full).
    pub dropped_at_send: u64,
    /// The longest any chart series got.
    pub longest_series: usize,
    pub elapsed: Duration,
    /// Time spent in `App::update` (derivation) and in drawing.
    pub update_time: Duration,
    pub draw_time: Duration,
    /// Rate checks done (one per derived rate per sample).
    pub rates_checked: u64,
    pub disconnects: u64,
    pub restarts: u64,
}

impl SoakReport {
    pub fn samples_per_s(&self) -> f64 {
        self.samples_seen as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn peak_hwm_kib(&self) -> u64 {
        self.checkpoints
            .iter()
            .map(|c| c.hwm_kib)
            .max()
            .unwrap_or(0)
    }
}

/// The system allocator, counting the bytes allocated and not yet freed: unlike RSS, the
/// live heap does not move with the allocator's caching, so growth there is our own.
struct CountingAlloc;

static LIVE_HEAP: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`; only a counter is added.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` hold for `System` too.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE_HEAP.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc`/`realloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE_HEAP.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and `new_size` is the caller's valid size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE_HEAP.fetch_add(new_size, Ordering::Relaxed);
            LIVE_HEAP.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: CountingAlloc = CountingAlloc;

/// Bytes allocated by Rust code (and not freed) right now, in KiB. The zstd C library
/// allocates with `malloc` directly and is only in RSS.
pub fn live_heap_kib() -> u64 {
    LIVE_HEAP.load(Ordering::Relaxed) as u64 / 1024
}

/// `VmRSS` and `VmHWM` of this process, in KiB.
pub fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

// ---------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------

/// The rates this soak checks: never negative, never above what the simulated server does
/// (but for its poll times' jitter, under a millisecond a second).
fn check_rates(f: &Figures) -> u64 {
    let mut checked = 0;
    for (what, v, max) in [
        ("redo written", f.redo.written_bytes_per_s, REDO_PER_S),
        ("pages flushed", f.flush.total_pages_per_s, FLUSH_PER_S),
        ("DML inflow", f.purge.inflow_records_per_s, DML_PER_S),
        ("purge", f.purge.records_per_s, PURGE_PER_S),
    ] {
        if let Some(v) = v {
            assert!(
                v.is_finite() && v >= 0.0 && v <= max as f64 * 1.001,
                "{what} rate {v} at {} is outside 0..={max}: a reset made a spike or a negative",
                f.sampled_at
            );
            checked += 1;
        }
    }
    checked
}

/// Puts this process's capture-writer thread under `SCHED_IDLE` (`chrt --idle`): it runs
/// only on CPU no other thread of the machine wants.
///
/// The producer here outruns the writer by design (it sends a day's samples a second), so
/// the writer always has a full channel and would take a whole core for the soak's whole
/// run, whatever it is given — and drop the rest, counted. In the test suite that core is
/// taken from the other tests: a sixth of the suite's CPU, spent on copies the soak does
/// not need all of. Under `SCHED_IDLE` it records what spare CPU allows, and every event
/// is still recorded or counted as dropped; alone (the bench) it gets its core as before.
fn writer_on_spare_cpu() {
    // The thread names itself once it runs: wait for that, not only for the spawn.
    let tid = crate::common::wait::wait_for(
        Duration::from_secs(10),
        "a thread named capture-writer in /proc/self/task",
        || {
            std::fs::read_dir("/proc/self/task")
                .ok()?
                .filter_map(Result::ok)
                .find(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| c.trim() == "capture-writer")
                })
                .map(|t| t.file_name().to_string_lossy().into_owned())
        },
    );
    let out = std::process::Command::new("chrt")
        .args(["--idle", "--pid", "0", &tid])
        .output()
        .expect("chrt (util-linux) runs");
    assert!(
        out.status.success(),
        "chrt --idle --pid 0 {tid}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn key(app: &mut App, c: char) {
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )));
}

fn longest_series(view: &DataView) -> usize {
    let c = &view.charts;
    [
        &c.checkpoint_age,
        &c.history_length,
        &c.purge_records,
        &c.purge_inflow,
        &c.undo_pages_purged,
        &c.dirty_pct,
        &c.flush_total,
        &c.undo_size,
    ]
    .into_iter()
    .chain(c.flush.iter())
    .map(|s| s.len())
    .max()
    .unwrap_or(0)
}

/// Runs the soak. Call inside a multi-threaded tokio runtime (the dashboard's own shape).
pub async fn run(cfg: SoakConfig) -> SoakReport {
    let started = Instant::now();
    let mut sim = feed::Feed::new(feed::Plan::soak());
    let SourceEvent::Connected { at, info } = sim.connected() else {
        unreachable!("a feed starts connected")
    };
    let header = Header::new(at, Some(info), false);
    let opts = WriterOptions {
        level: cfg.zstd_level,
        ..WriterOptions::default()
    };
    let (recorder, writer) = innodebt_capture::spawn_writer(
        &cfg.capture,
        &header,
        RECORDER_CHANNEL,
        &innodebt::replay::capture_files(opts),
    )
    .expect("create the capture");
    if cfg.writer_on_spare_cpu {
        writer_on_spare_cpu();
    }

    // The poller's place: a task feeding the bounded channel, waiting when it is full.
    let (tx, mut rx) = mpsc::channel::<SourceEvent>(EVENT_CHANNEL);
    let samples = cfg.samples;
    let producer = tokio::spawn(async move {
        let mut sent = 0u64;
        let mut buf = Vec::with_capacity(4);
        if tx.send(sim.connected()).await.is_err() {
            return (sent, sim);
        }
        sent += 1;
        for _ in 0..samples {
            sim.next_events(&mut buf);
            for ev in buf.drain(..) {
                if tx.send(ev).await.is_err() {
                    return (sent, sim);
                }
                sent += 1;
            }
        }
        (sent, sim)
    });

    let theme = Theme::default();
    let mut terminal =
        Terminal::new(TestBackend::new(cfg.width, cfg.height)).expect("test terminal");
    let mut app = App::new(Duration::from_secs(1), Utc::now());
    app.live = DataView::new(Deriver::new());
    app.recording = Some(cfg.capture.display().to_string());
    let mut report = SoakReport {
        checkpoints: Vec::new(),
        events_sent: 0,
        samples_seen: 0,
        frames: 0,
        max_queued: 0,
        writer: WriteSummary {
            path: cfg.capture.clone(),
            records: 0,
            dropped: 0,
            frames: 0,
            bytes: 0,
        },
        dropped_at_send: 0,
        longest_series: 0,
        elapsed: Duration::ZERO,
        update_time: Duration::ZERO,
        draw_time: Duration::ZERO,
        rates_checked: 0,
        disconnects: 0,
        restarts: 0,
    };
    // The tui loop's source arm: a copy to the recorder (never blocking), then update.
    while let Some(ev) = rx.recv().await {
        report.max_queued = report.max_queued.max(rx.len());
        recorder.send(ev.clone());
        let at = ev.at();
        let is_sample = matches!(ev, SourceEvent::Sample(_));
        let update_started = Instant::now();
        app.update(Msg::Tick(at));
        app.update(Msg::Source(ev));
        report.update_time += update_started.elapsed();
        if !is_sample {
            continue;
        }
        report.samples_seen += 1;
        let n = report.samples_seen as usize;
        if let Some(f) = &app.live.latest {
            report.rates_checked += check_rates(f);
        }
        // A DBA at work: freeze and thaw the display, switch the chart window, zoom.
        match n % 100_000 {
            20_000 | 20_500 => key(&mut app, 'p'),
            40_000 => key(&mut app, 'w'),
            60_000 => key(&mut app, '3'),
            61_000 => key(&mut app, '3'),
            _ => {}
        }
        if n.is_multiple_of(cfg.draw_every) {
            let draw_started = Instant::now();
            terminal
                .draw(|f| innodebt::render::render(f, &app, &theme))
                .expect("draw");
            app.needs_draw = false;
            report.frames += 1;
            report.draw_time += draw_started.elapsed();
            report.longest_series = report.longest_series.max(longest_series(&app.live));
        }
        if n.is_multiple_of(cfg.checkpoint_every) {
            let (rss_kib, hwm_kib) = memory_kib();
            report.checkpoints.push(Checkpoint {
                samples: n,
                heap_kib: live_heap_kib(),
                rss_kib,
                hwm_kib,
                elapsed: started.elapsed(),
            });
        }
    }
    let (sent, sim) = producer.await.expect("producer task");
    report.events_sent = sent;
    report.disconnects = sim.disconnects;
    report.restarts = sim.restarts;
    report.dropped_at_send = recorder.dropped();
    drop(recorder);
    report.writer = tokio::task::spawn_blocking(move || writer.join())
        .await
        .expect("writer join")
        .expect("the capture writer finished cleanly");
    report.elapsed = started.elapsed();
    report
}

/// The capture is complete and readable, holds what the writer said and marks the
/// disconnects it got.
pub fn check_capture(path: &Path, report: &SoakReport) {
    let index = CaptureIndex::open(path).expect("index the soak capture");
    assert!(index.end().is_complete(), "{:?}", index.end());
    let trailer = index.trailer().expect("a trailer");
    assert_eq!(trailer.records, report.writer.records);
    assert_eq!(trailer.dropped, report.writer.dropped);
    let last = index.frames().len().checked_sub(1).expect("sections");
    let frame = index.read_frame(last).expect("the last section decodes");
    assert!(frame.end.is_complete(), "{:?}", frame.end);
    assert!(!frame.events.is_empty());
}

pub fn print_report(r: &SoakReport) {
    println!(
        "soak: {} samples ({} events) in {:.1} s = {:.0} samples/s; {} frames drawn",
        r.samples_seen,
        r.events_sent,
        r.elapsed.as_secs_f64(),
        r.samples_per_s(),
        r.frames
    );
    println!(
        "per sample {:.1} µs in App::update (derivation, verdicts, charts); per frame {:.2} ms drawing",
        r.update_time.as_secs_f64() * 1e6 / r.samples_seen.max(1) as f64,
        r.draw_time.as_secs_f64() * 1e3 / r.frames.max(1) as f64,
    );
    println!(
        "{:>9} {:>10} {:>10} {:>10} {:>8}",
        "samples", "heap MiB", "RSS MiB", "HWM MiB", "s"
    );
    for c in &r.checkpoints {
        println!(
            "{:>9} {:>10.2} {:>10.1} {:>10.1} {:>8.1}",
            c.samples,
            c.heap_kib as f64 / 1024.0,
            c.rss_kib as f64 / 1024.0,
            c.hwm_kib as f64 / 1024.0,
            c.elapsed.as_secs_f64()
        );
    }
    println!(
        "peak RSS (VmHWM) {:.1} MiB; event queue max {} of {EVENT_CHANNEL}; longest chart series {} of {SERIES_POINTS}",
        r.peak_hwm_kib() as f64 / 1024.0,
        r.max_queued,
        r.longest_series
    );
    println!(
        "capture: {} records, {} dropped (writer channel {RECORDER_CHANNEL} full), {} bytes, {} sections",
        r.writer.records, r.writer.dropped, r.writer.bytes, r.writer.frames
    );
}

/// After the warm-up memory may move by the queues' fill (up to 256 + 1,024 events of a few
/// KiB each) and allocator noise only; a structure that kept something per sample would add
/// tens of MiB over 400,000 samples.
const WARM_UP: usize = 100_000;
const PLATEAU_KIB: u64 = 8 * 1024;

/// Set in the soak's own process (see the top of this file).
const IN_OWN_PROCESS: &str = "INNODEBT_SOAK_IN_OWN_PROCESS";
const THIS_TEST: &str = "bounded_memory::soak::half_a_million_samples_in_bounded_memory";

#[test]
fn half_a_million_samples_in_bounded_memory() {
    if std::env::var_os(IN_OWN_PROCESS).is_some() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        return runtime.block_on(soak_in_this_process());
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([THIS_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(IN_OWN_PROCESS, "1")
        .output()
        .expect("the test binary starts again for the soak");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the soak's process failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // It ran, and ran this test only (a filter that matched nothing would pass too).
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "the soak's process ran no test:\n{stdout}\n{stderr}"
    );
}

async fn soak_in_this_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = SoakConfig {
        // Unoptimised zstd at level 9 would take a whole core from the path under test in
        // this debug build; the bench records at the product's level 9.
        zstd_level: 1,
        writer_on_spare_cpu: true,
        ..SoakConfig::new(dir.path().join("soak.idbt"))
    };
    let report = run(cfg.clone()).await;
    print_report(&report);

    assert_eq!(report.samples_seen, cfg.samples as u64);
    assert_eq!(report.restarts, 10);
    assert!(report.rates_checked > 3 * cfg.samples as u64, "{report:?}");
    // The queue to the app is bounded by construction; the writer's too: whatever it could
    // not take is counted, nothing vanishes.
    assert!(report.max_queued <= EVENT_CHANNEL, "{report:?}");
    assert_eq!(
        report.writer.records + report.writer.dropped,
        report.events_sent,
        "every event is either recorded or counted as dropped"
    );
    assert!(report.writer.records > 0);
    check_capture(&cfg.capture, &report);
    // Charts keep their horizon, not the run.
    assert_eq!(report.longest_series, SERIES_POINTS);

    let warm = report
        .checkpoints
        .iter()
        .find(|c| c.samples == WARM_UP)
        .copied()
        .expect("a checkpoint at the end of the warm-up");
    for c in report.checkpoints.iter().filter(|c| c.samples > WARM_UP) {
        for (what, at_warm, now) in [
            ("live heap", warm.heap_kib, c.heap_kib),
            ("RSS", warm.rss_kib, c.rss_kib),
        ] {
            assert!(
                now <= at_warm + PLATEAU_KIB,
                "{what} grew from {at_warm} KiB at {} samples to {now} KiB at {}: something \
                 keeps every sample",
                warm.samples,
                c.samples
            );
        }
    }
}
