//! Replay of a 24-hour capture at 1 s: file size, time to the first frame, time to stream in
//! the rest (with the notable-moment scan), and the cost of seeking anywhere.
//!
//! `cargo bench --bench replay` — the capture is made from the shipped demo's real MariaDB
//! samples, cycled over 86,400 seconds with advancing LSNs and counters.

use std::time::{Duration, Instant};

use innodebt::app::{App, Msg, Recording, Replay, moments};
use innodebt::capture::{self, CaptureIndex, CaptureWriter, Header};
use innodebt::sample::SourceEvent;
use innodebt::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const SECONDS: usize = 86_400;

fn demo() -> Vec<SourceEvent> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    capture::open(path).expect("demo capture").events
}

/// A day of samples: the demo's real samples, repeated, with time and cumulative counters
/// moving on so rates and checkpoint age stay realistic.
fn day(path: &std::path::Path) -> u64 {
    let events = demo();
    let connected = events
        .iter()
        .find(|e| matches!(e, SourceEvent::Connected { .. }))
        .cloned()
        .expect("connected");
    let samples: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            SourceEvent::Sample(s) => Some((**s).clone()),
            _ => None,
        })
        .collect();
    let first = samples[0].clone();
    let last = samples[samples.len() - 1].clone();
    let t0 = first.taken_at;
    let mut header = Header::new(t0, None, false);
    header.interval_ms = Some(1000);
    let mut w = CaptureWriter::create(path, &header).expect("create");
    w.append(&connected).expect("append");
    for i in 0..SECONDS {
        let lap = (i / samples.len()) as u64;
        let mut s = samples[i % samples.len()].clone();
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
            *u = 1000 + i as u64;
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

fn render(app: &App, term: &mut Terminal<TestBackend>, theme: &Theme) {
    term.draw(|f| innodebt::ui::render(f, app, theme))
        .expect("draw");
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("day.idbt");
    let made = Instant::now();
    let bytes = day(&path);
    println!(
        "24 h capture at 1 s: {:.1} MB ({:.2} MB per hour), written in {:.1} s",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / 24.0,
        made.elapsed().as_secs_f64()
    );
    let theme = Theme::default();
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");

    // What `innodebt replay FILE` does: index, first section, first frame on screen.
    let start = Instant::now();
    let index = CaptureIndex::open(&path).expect("index");
    let first = index.read_frame(0).expect("first section").events;
    let rec = Recording::new(first, "day.idbt".into(), None);
    let end = rec.len() - 1;
    let mut app = App::replaying(Replay::new(rec, Vec::new(), 0, end), Duration::from_secs(1));
    render(&app, &mut term, &theme);
    let first_frame = start.elapsed();
    println!(
        "first frame on screen: {:.0} ms (index {} sections)",
        first_frame.as_secs_f64() * 1e3,
        index.frames().len()
    );

    // The rest streams in (the loader thread's work, here inline) with the moment scan.
    let t = Instant::now();
    let mut scanner = moments::Scanner::default();
    if let Some(r) = app.replay.as_ref() {
        r.recording.events.iter().for_each(|e| scanner.feed(e));
    }
    for i in 1..index.frames().len() {
        let events = index.read_frame(i).expect("section").events;
        events.iter().for_each(|e| scanner.feed(e));
        app.update(Msg::ReplayChunk {
            events,
            end_note: None,
        });
    }
    let found = scanner.finish();
    let n_moments = found.len();
    app.update(Msg::ReplayMoments(found));
    let samples = app.replay.as_ref().map(|r| r.recording.len()).unwrap_or(0);
    println!(
        "whole day streamed in: {:.2} s ({samples} samples, {n_moments} notable moments)",
        t.elapsed().as_secs_f64()
    );

    // Seeking anywhere rebuilds the chart span (up to an hour of samples) and draws.
    let mut times = Vec::new();
    let mut pos = 12_345usize;
    for _ in 0..20 {
        pos = (pos * 7919 + 104_729) % samples;
        let t = Instant::now();
        app.seek(pos);
        render(&app, &mut term, &theme);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "seek anywhere + draw: mean {mean:.0} ms, max {:.0} ms over {} seeks",
        times[times.len() - 1],
        times.len()
    );
    // One step forward during playback is incremental.
    let t = Instant::now();
    for _ in 0..100 {
        app.update(Msg::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Right,
            crossterm::event::KeyModifiers::NONE,
        )));
    }
    println!(
        "step with → (incremental): {:.2} ms per step",
        t.elapsed().as_secs_f64() * 1e3 / 100.0
    );
}
