//! Render time per frame at 200×60 with full 3,600-point series (the 1 h window, so every
//! point is inside it and downsampling is exercised). Not a test: run with
//! `cargo bench --bench render`; prints mean and p99 for the whole draw (render + diff on
//! `TestBackend`) and for `render::render` alone.

#[path = "../tests/common/builders.rs"]
mod builders;

use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use innodebt::app::{App, ChartWindow, Msg};
use innodebt::theme::Theme;
use innodebt_server::sample::{MetricValue, Sample, SourceEvent, TrxRow};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const POINTS: usize = 3600;
const FRAMES: usize = 400;

fn app() -> App {
    let t0 = Utc
        .with_ymd_and_hms(2026, 3, 14, 9, 0, 0)
        .single()
        .expect("valid date");
    let info = builders::mariadb(&[
        ("innodb_max_dirty_pages_pct_lwm", "10"),
        ("innodb_max_purge_lag", "100000"),
        ("innodb_max_purge_lag_delay", "2000"),
    ]);
    let mut app = App::new(Duration::from_secs(1), t0);
    app.window = ChartWindow::OneHour;
    app.update(Msg::Source(SourceEvent::Connected { at: t0, info }));
    // Noisy, deterministic values so every chart has a line in every column.
    let wave = |i: usize, p: usize, a: u64| (i * 7919 % p) as u64 * a / p as u64;
    let mut c = [0u64; 12];
    for i in 0..POINTS {
        let at = t0 + chrono::Duration::seconds(i as i64 + 1);
        let mut s = Sample::new(at, i as f64 + 1.0);
        for (k, r) in c.iter_mut().zip([
            3_000_000 + wave(i, 97, 2_000_000),
            150 + wave(i, 13, 300),
            20 + wave(i, 7, 30),
            wave(i, 11, 500),
            100 + wave(i, 17, 100),
            wave(i, 5, 20),
            800 + wave(i, 19, 800),
            300 + wave(i, 23, 300),
            20 + wave(i, 29, 30),
            900 + wave(i, 31, 700),
            300 + wave(i, 37, 200),
            wave(i, 41, 3),
        ]) {
            *k += r;
        }
        let age = 20_000_000 + wave(i, 61, 60_000_000);
        let lsn = 1_000_000_000 + c[0];
        for (name, v) in [
            ("Uptime", 1000 + i as u64),
            ("Innodb_lsn_current", lsn),
            ("Innodb_lsn_last_checkpoint", lsn - age),
            ("Innodb_os_log_written", c[0]),
            ("Innodb_history_list_length", 1000 + wave(i, 173, 90_000)),
            (
                "Innodb_buffer_pool_pages_flushed",
                c[1] + c[2] + c[3] + c[4] + c[5],
            ),
            ("Innodb_buffer_pool_pages_LRU_flushed", c[2]),
            ("Innodb_buffer_pool_pages_dirty", 2000 + wave(i, 83, 8000)),
            ("Innodb_buffer_pool_pages_data", 61_000),
            ("Innodb_buffer_pool_pages_free", 4_000),
            ("Handler_update", c[9]),
            ("Handler_delete", c[10]),
        ] {
            s.status.insert(name.into(), v);
        }
        for (name, v) in [
            ("trx_rseg_current_size", 235 + wave(i, 89, 4000)),
            ("purge_del_mark_records", c[6]),
            ("purge_upd_exist_or_extern_records", c[7]),
            ("purge_undo_log_pages", c[8]),
            ("buffer_flush_adaptive_total_pages", c[1]),
            ("buffer_LRU_batch_flush_total_pages", c[2]),
            ("buffer_flush_sync_total_pages", c[3]),
            ("buffer_flush_background_total_pages", c[4]),
            ("buffer_flush_neighbor_total_pages", c[5]),
            ("buffer_page_read_undo_log", c[11]),
        ] {
            s.metrics.insert(
                name.into(),
                MetricValue {
                    count: v as i64,
                    enabled: true,
                },
            );
        }
        s.trx.push(TrxRow {
            host: Some("10.0.3.17".into()),
            command: Some("Query".into()),
            query: Some("SELECT region, SUM(total) FROM orders GROUP BY region".into()),
            ..builders::read_view(42, 61)
        });
        app.update(Msg::Tick(at));
        app.update(Msg::Source(SourceEvent::Sample(Box::new(s))));
    }
    assert_eq!(app.view().charts.checkpoint_age.len(), POINTS);
    app
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
    println!(
        "{what:<28} mean {:>7.3} ms   p99 {:>7.3} ms   ({} frames)",
        mean.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        times.len()
    );
}

fn main() {
    let app = app();
    let theme = Theme::default();
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("test backend");
    // Warm up (layout cache, allocations).
    for _ in 0..20 {
        term.draw(|f| innodebt::render::render(f, &app, &theme))
            .expect("draw");
    }
    let mut draw = Vec::with_capacity(FRAMES);
    let mut render = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        let t = Instant::now();
        term.draw(|f| innodebt::render::render(f, black_box(&app), &theme))
            .expect("draw");
        draw.push(t.elapsed());
        let mut frame = term.get_frame();
        let t = Instant::now();
        innodebt::render::render(&mut frame, black_box(&app), &theme);
        render.push(t.elapsed());
    }
    // Per panel, to see where the time goes.
    let area = ratatui::layout::Rect::new(0, 2, 200, 57);
    let mut per_panel = Vec::new();
    for (panel, rect) in innodebt::render::grid(area) {
        let mut times = Vec::with_capacity(FRAMES);
        for _ in 0..FRAMES {
            let mut frame = term.get_frame();
            let t = Instant::now();
            innodebt::render::render_panel(&mut frame, rect, panel, black_box(&app), &theme);
            times.push(t.elapsed());
        }
        per_panel.push((panel.title(), times));
    }
    println!(
        "200×60, {POINTS}-point series, 1 h window, theme {}",
        theme.name()
    );
    report("render::render", render);
    report("terminal.draw (render+diff)", draw);
    for (title, times) in per_panel {
        report(&format!("  {title}"), times);
    }
}
