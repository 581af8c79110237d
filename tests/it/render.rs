//! Whole-screen render tests: deterministic `App` states built by feeding source events
//! through `App::update` with a fixed clock, drawn on `TestBackend`.
//!
//! - `render_<scenario>_<w>x<h>`: the plain text of the screen (layout), dark theme.
//! - `render_style_<theme>_<w>x<h>`: every row's characters over its style codes, with a
//!   legend of the codes (`common/snapshot.rs`), for the pressure scenario, every built-in
//!   theme and monochrome.
//! - A property test: any size from 1×1 to 300×100 and hostile data never panic.
//!
//! To add a scenario from a capture: turn it into `Vec<SourceEvent>` and call
//! [`app_from_events`], then [`screen`] / [`plain`].

use crate::common::builders;
use crate::common::snapshot;

use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use innodebt::app::{App, Msg};
use innodebt::theme::{Theme, builtin_names};
use innodebt_engine::figures::{Blocker, Figures, FlushSource, Severity};
use innodebt_poller::cadence::{Cadenced, Slowed};
use innodebt_server::innodb_status::InnodbStatus;
use innodebt_server::sample::{
    MetricValue, PollCost, Sample, ServerInfo, SourceEvent, Statement, StatementCost, TrxRow,
    UndoScan,
};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use snapshot::{plain, styled};

/// Snapshots live in the top-level `snapshots/` directory, named `render_*`.
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!(
            { snapshot_path => "../../snapshots", prepend_module_to_snapshot => false },
            { insta::assert_snapshot!($name, $value) }
        )
    };
}

const MIB: u64 = 1024 * 1024;
const PAGE: u64 = 16384;
const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

// ---------------------------------------------------------------------------
// Scenario builder
// ---------------------------------------------------------------------------

/// The wall clock of the first event in every scenario.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 9, 0, 0)
        .single()
        .expect("valid date")
}

pub fn at(secs: f64) -> DateTime<Utc> {
    t0() + chrono::Duration::milliseconds((secs * 1000.0) as i64)
}

/// Feeds `events` through `App::update` as the app would receive them — the clock ticks to
/// each event's own time first — then ticks to `now`. Interval 1 s.
pub fn app_from_events(events: Vec<SourceEvent>, now: DateTime<Utc>) -> App {
    let start = events.first().map(SourceEvent::at).unwrap_or_else(t0);
    let mut app = App::new(Duration::from_secs(1), start);
    for ev in events {
        app.update(Msg::Tick(ev.at()));
        app.update(Msg::Source(ev));
    }
    app.update(Msg::Tick(now));
    app
}

/// A key through `update`; replay loads run as the dashboard runs them (here, at once).
pub fn key(app: &mut App, c: char) {
    let cmds = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )));
    innodebt::dashboard::settle(app, cmds);
}

/// What the server is doing in one second of a scenario.
#[derive(Debug, Clone)]
pub struct Second {
    pub checkpoint_age: u64,
    pub redo_bytes: u64,
    pub history: u64,
    pub purged_records: u64,
    pub purged_undo_pages: u64,
    /// Rows updated + deleted.
    pub inflow: u64,
    /// Pages flushed by adaptive, LRU, sync, background, neighbor flushing.
    pub flush: [u64; 5],
    pub dirty_pages: u64,
    pub undo_pages: u64,
    pub undo_reads: u64,
    /// Age of the purge-blocking transaction, when there is one.
    pub blocker_age: Option<u64>,
    pub purge_state: &'static str,
    /// The per-tick round trip when the server is too slow for the latency guard, ms.
    pub slow_tick_ms: Option<u64>,
}

impl Default for Second {
    fn default() -> Self {
        Second {
            checkpoint_age: 20 * MIB,
            redo_bytes: 2 * MIB,
            history: 400,
            purged_records: 1200,
            purged_undo_pages: 40,
            inflow: 1200,
            flush: [0, 20, 0, 150, 0],
            dirty_pages: 4000,
            undo_pages: 235,
            undo_reads: 0,
            blocker_age: None,
            purge_state: "running",
            slow_tick_ms: None,
        }
    }
}

/// Which INNODB_METRICS counters are on (MariaDB's defaults are `false` for all three).
#[derive(Debug, Clone, Copy)]
pub struct Counters {
    pub flush_sources: bool,
    pub purge: bool,
    pub undo_size: bool,
}

impl Counters {
    pub const ALL_ON: Counters = Counters {
        flush_sources: true,
        purge: true,
        undo_size: true,
    };
    pub const DEFAULTS: Counters = Counters {
        flush_sources: false,
        purge: false,
        undo_size: false,
    };
}

/// `n` samples one second apart (the first at `t0() + 1 s`), counters integrated from what
/// each second does; `undo_scan_at`: the sample index that carries a residency scan.
pub fn samples(
    n: usize,
    counters: Counters,
    undo_scan_at: Option<usize>,
    second: impl Fn(usize) -> Second,
) -> Vec<SourceEvent> {
    let mut lsn: u64 = 48_000_000_000;
    let mut log_written: u64 = 40_000_000_000;
    let mut flushed = [5_000_000u64, 900_000, 300_000, 7_000_000, 10_000];
    let mut purged = (30_000_000u64, 9_000_000u64, 2_000_000u64);
    let mut handler = (55_000_000u64, 8_000_000u64);
    let mut undo_reads = 1_000u64;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let s = second(i);
        lsn += s.redo_bytes;
        log_written += s.redo_bytes;
        for (c, r) in flushed.iter_mut().zip(s.flush) {
            *c += r;
        }
        purged.0 += s.purged_records * 2 / 3;
        purged.1 += s.purged_records - s.purged_records * 2 / 3;
        purged.2 += s.purged_undo_pages;
        handler.0 += s.inflow * 3 / 4;
        handler.1 += s.inflow - s.inflow * 3 / 4;
        undo_reads += s.undo_reads;

        let secs = (i + 1) as f64;
        let mut sample = Sample::new(at(secs), 1000.0 + secs);
        sample.poll_ms = 3;
        let total: u64 = flushed.iter().sum();
        for (name, v) in [
            ("Uptime", 274_000 + i as u64),
            ("Innodb_lsn_current", lsn),
            ("Innodb_lsn_last_checkpoint", lsn - s.checkpoint_age),
            ("Innodb_checkpoint_age", s.checkpoint_age),
            ("Innodb_checkpoint_max_age", 80_819_529),
            ("Innodb_os_log_written", log_written),
            ("Innodb_history_list_length", s.history),
            ("Innodb_buffer_pool_pages_flushed", total),
            ("Innodb_buffer_pool_pages_LRU_flushed", flushed[1]),
            ("Innodb_buffer_pool_pages_dirty", s.dirty_pages),
            ("Innodb_buffer_pool_pages_data", 61_000),
            ("Innodb_buffer_pool_pages_free", 4_000),
            ("Innodb_buffer_pool_pages_total", 65_536),
            ("Innodb_buffer_pool_bytes_dirty", s.dirty_pages * PAGE),
            ("Handler_update", handler.0),
            ("Handler_delete", handler.1),
        ] {
            sample.status.insert(name.into(), v);
        }
        let metric = |count: u64, enabled: bool| MetricValue {
            count: count as i64,
            enabled,
        };
        for (name, v, on) in [
            ("trx_rseg_history_len", s.history, true),
            ("trx_rseg_current_size", s.undo_pages, counters.undo_size),
            ("purge_del_mark_records", purged.0, counters.purge),
            (
                "purge_upd_exist_or_extern_records",
                purged.1,
                counters.purge,
            ),
            ("purge_undo_log_pages", purged.2, counters.purge),
            (
                "buffer_flush_adaptive_total_pages",
                flushed[0],
                counters.flush_sources,
            ),
            ("buffer_LRU_batch_flush_total_pages", flushed[1], true),
            (
                "buffer_flush_sync_total_pages",
                flushed[2],
                counters.flush_sources,
            ),
            (
                "buffer_flush_background_total_pages",
                flushed[3],
                counters.flush_sources,
            ),
            (
                "buffer_flush_neighbor_total_pages",
                flushed[4],
                counters.flush_sources,
            ),
            ("buffer_page_read_undo_log", undo_reads, counters.undo_size),
        ] {
            // A disabled counter reads 0 on the server.
            sample
                .metrics
                .insert(name.into(), metric(if on { v } else { 0 }, on));
        }
        if let Some(age) = s.blocker_age {
            sample.trx.push(TrxRow {
                trx_id: "0".into(),
                host: Some("10.0.3.17:51234".into()),
                command: Some("Query".into()),
                query: Some(
                    "SELECT c.region, SUM(o.total) FROM orders o JOIN customers c ON c.id = \
                     o.customer_id WHERE o.created_at >= '2026-01-01' GROUP BY c.region"
                        .into(),
                ),
                ..builders::read_view(4242, age)
            });
        }
        if i % 10 == 0 || i + 1 == n {
            sample.innodb_status = Some(InnodbStatus {
                lsn: Some(lsn),
                checkpoint_lsn: Some(lsn - s.checkpoint_age),
                history_length: Some(s.history),
                purge_state: Some(s.purge_state.into()),
                ..InnodbStatus::default()
            });
        }
        sample.cost = Some(poll_cost(i, s.slow_tick_ms, sample.innodb_status.is_some()));
        if undo_scan_at == Some(i) {
            sample.undo_scan = Some(UndoScan {
                undo_pages_cached: s.undo_pages * 3 / 4,
                took_ms: 31,
            });
        }
        out.push(SourceEvent::Sample(Box::new(sample)));
    }
    out
}

/// What a tick cost: the three per-tick statements (round trips as measured on MariaDB 10.11
/// under load), SEIS on its ticks; slowed by the latency guard when `slow_ms` is given.
fn poll_cost(i: usize, slow_ms: Option<u64>, seis: bool) -> PollCost {
    let jitter = (i % 5) as u64 * 20;
    let mut statements = vec![
        (Statement::GlobalStatus, 310 + jitter),
        (Statement::InnodbMetrics, 180),
        (
            Statement::InnodbTrx,
            slow_ms.map_or(140 + jitter, |ms| ms * 1000),
        ),
    ];
    if seis {
        statements.push((Statement::InnodbStatus, 450));
    }
    PollCost {
        statements: statements
            .into_iter()
            .map(|(what, us)| StatementCost { what, us })
            .collect(),
        slowed: slow_ms
            .map(|ms| Slowed {
                source: Cadenced::Tick,
                every_ms: 4000,
                last_ms: Some(ms),
                timed_out: false,
                recovering: false,
            })
            .into_iter()
            .collect(),
    }
}

pub fn connected(info: ServerInfo) -> SourceEvent {
    SourceEvent::Connected { at: t0(), info }
}

/// Integer triangle wave 0 → `amp` → 0 over `period` seconds.
fn tri(i: usize, period: usize, amp: u64) -> u64 {
    let p = i % period;
    let half = period / 2;
    let up = if p <= half { p } else { period - p };
    amp * up as u64 / half.max(1) as u64
}

const N: usize = 360;

fn healthy_second(i: usize) -> Second {
    Second {
        checkpoint_age: 18 * MIB + tri(i, 40, 8 * MIB),
        redo_bytes: 2 * MIB + tri(i, 30, MIB),
        history: 300 + tri(i, 20, 600),
        purged_records: 1100 + tri(i, 16, 300),
        purged_undo_pages: 30 + tri(i, 16, 20),
        inflow: 1150 + tri(i, 22, 250),
        flush: [
            tri(i, 50, 90),
            15 + tri(i, 9, 10),
            0,
            140 + tri(i, 24, 40),
            0,
        ],
        dirty_pages: 3800 + tri(i, 60, 900),
        undo_pages: 235 + tri(i, 30, 40),
        ..Second::default()
    }
}

pub fn healthy_events() -> Vec<SourceEvent> {
    let mut ev = vec![connected(builders::mariadb(&[]))];
    ev.extend(samples(N, Counters::ALL_ON, Some(N - 131), healthy_second));
    ev
}

fn last_time() -> DateTime<Utc> {
    at(N as f64)
}

pub fn healthy() -> App {
    app_from_events(healthy_events(), last_time())
}

/// Checkpoint age past the async point, a report holding a read view for 61 s, history
/// growing 1.5k/s towards `innodb_max_purge_lag`, purge starved.
pub fn pressure() -> App {
    let block_from = N - 61;
    let mut ev = vec![connected(builders::mariadb(&[
        ("innodb_max_purge_lag", "100000"),
        ("innodb_max_purge_lag_delay", "2000"),
    ]))];
    ev.extend(samples(N, Counters::ALL_ON, None, |i| {
        let blocked = i >= block_from;
        let k = i.saturating_sub(block_from) as u64;
        Second {
            checkpoint_age: 40 * MIB + (32 * MIB) * i as u64 / N as u64 + tri(i, 14, 2 * MIB),
            redo_bytes: 5 * MIB + tri(i, 10, MIB),
            history: if blocked {
                400 + 1500 * (k + 1)
            } else {
                300 + tri(i, 20, 600)
            },
            purged_records: if blocked { 0 } else { 1400 + tri(i, 12, 200) },
            purged_undo_pages: if blocked { 0 } else { 45 },
            inflow: 1500 + tri(i, 8, 100),
            flush: [
                0,
                25,
                if i % 7 == 0 { 420 } else { 0 },
                160 + tri(i, 18, 40),
                0,
            ],
            dirty_pages: 5200 + 3000 * i as u64 / N as u64,
            undo_pages: if blocked { 235 + 72 * (k + 1) } else { 235 },
            blocker_age: blocked.then_some(k + 1),
            purge_state: if blocked {
                "running but idle"
            } else {
                "running"
            },
            ..Second::default()
        }
    }));
    app_from_events(ev, last_time())
}

pub fn disconnected() -> App {
    let mut ev = healthy_events();
    ev.push(SourceEvent::Disconnected {
        since: at(N as f64 + 2.0),
        retry_in_ms: 3000,
        error: "Lost connection to MySQL server during query (os error 104: Connection reset by peer)\n   at the poller"
            .into(),
    });
    app_from_events(ev, at(N as f64 + 3.0))
}

pub fn stale() -> App {
    app_from_events(healthy_events(), at(N as f64 + 12.0))
}

/// MariaDB's defaults: flush-by-source, purge and undo-size counters off.
pub fn counters_off() -> App {
    let mut ev = vec![connected(builders::mariadb(&[]))];
    ev.extend(samples(N, Counters::DEFAULTS, None, healthy_second));
    app_from_events(ev, last_time())
}

pub fn waiting() -> App {
    app_from_events(vec![connected(builders::mariadb(&[]))], at(0.5))
}

pub fn zoomed() -> App {
    let mut app = pressure();
    key(&mut app, '1');
    app
}

/// The server answers the per-tick statements slower than the budget: polled every 4 s.
pub fn server_slow() -> App {
    let mut ev = vec![connected(builders::mariadb(&[]))];
    ev.extend(samples(N, Counters::ALL_ON, None, |i| Second {
        slow_tick_ms: (i + 5 >= N).then_some(310),
        ..healthy_second(i)
    }));
    app_from_events(ev, last_time())
}

pub fn help() -> App {
    let mut app = healthy();
    key(&mut app, '?');
    app
}

pub fn confirm() -> App {
    let mut app = healthy();
    key(&mut app, 'u');
    app
}

/// Frozen at the end of the healthy run while live polling carries on (into a blocked
/// state the frozen screen must not show), recording, on a read-only connection.
pub fn frozen_recording() -> App {
    let mut app = healthy();
    key(&mut app, 'p');
    app.recording = Some("/var/tmp/innodebt-db1-20260314.cap".into());
    app.set_feed(innodebt::app::Feed::Server { read_only: true });
    // More live samples arrive after the freeze.
    let more = samples(N + 20, Counters::ALL_ON, None, |i| Second {
        history: 50_000 + i as u64,
        ..healthy_second(i)
    });
    for ev in more.into_iter().skip(N) {
        app.update(Msg::Tick(ev.at()));
        app.update(Msg::Source(ev));
    }
    app
}

pub fn scenarios() -> Vec<(&'static str, App)> {
    vec![
        ("healthy", healthy()),
        ("pressure", pressure()),
        ("disconnected", disconnected()),
        ("stale", stale()),
        ("counters_off", counters_off()),
        ("waiting", waiting()),
        ("zoomed", zoomed()),
        ("help", help()),
        ("server_slow", server_slow()),
        ("confirm", confirm()),
        ("frozen_recording", frozen_recording()),
    ]
}

// ---------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------

pub fn screen(app: &App, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(|f| innodebt::render::render(f, app, theme))
        .expect("draw");
    term.backend().buffer().clone()
}

fn themes() -> Vec<Theme> {
    let mut t: Vec<Theme> = builtin_names()
        .iter()
        .map(|n| Theme::builtin(n).expect("built-in theme"))
        .collect();
    t.push(Theme::monochrome());
    t
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[test]
fn layout_of_every_scenario() {
    let theme = Theme::default();
    for (name, app) in scenarios() {
        for (w, h) in SIZES {
            snapshot!(
                format!("render_{name}_{w}x{h}"),
                plain(&screen(&app, &theme, w, h))
            );
        }
    }
}

/// `app`'s styled screen in every theme at every size, as `{prefix}_{theme}_{w}x{h}`.
fn snapshot_every_theme(prefix: &str, app: &App) {
    for theme in themes() {
        for (w, h) in SIZES {
            snapshot!(
                format!("{prefix}_{}_{w}x{h}", theme.name()),
                styled(&screen(app, &theme, w, h))
            );
        }
    }
}

#[test]
fn styles_of_every_theme() {
    snapshot_every_theme("render_style", &pressure());
}

#[test]
fn too_small() {
    let text = plain(&screen(&healthy(), &Theme::default(), 60, 20));
    assert!(
        text.contains("terminal too small (need 80×24, have 60×20)"),
        "{text}"
    );
    snapshot!("render_too_small_60x20", text);
}

#[test]
fn scenario_facts() {
    let theme = Theme::default();
    let p = plain(&screen(&pressure(), &theme, 200, 60));
    assert!(p.contains("past async"), "{p}");
    assert!(p.contains("furious flush (M)"), "{p}");
    assert!(p.contains("thread 4242"), "{p}");
    let s = plain(&screen(&stale(), &theme, 80, 24));
    assert!(s.contains("STALE 12s"), "{s}");
    let d = plain(&screen(&disconnected(), &theme, 80, 24));
    assert!(d.contains("DISCONNECTED · retry in 2s"), "{d}");
    let c = plain(&screen(&counters_off(), &theme, 200, 60));
    assert!(c.contains("off — press m to enable"), "{c}");
    assert!(c.contains("flush-list ≈"), "{c}");
    let f = plain(&screen(&frozen_recording(), &theme, 80, 24));
    for badge in ["FROZEN", "REC", "READ-ONLY"] {
        assert!(f.contains(badge), "{badge}: {f}");
    }
    // Frozen: the history of the live samples after the freeze (50k+) is not shown.
    assert!(!f.contains("50.0k"), "{f}");
    // Monochrome still says past async with a symbol.
    let m = plain(&screen(&pressure(), &Theme::monochrome(), 80, 24));
    assert!(m.contains('▲'), "{m}");
}

// ---------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------

/// Strings a server (or a hostile user name, query or error) could hand us.
const HOSTILE: &[&str] = &[
    "",
    "\u{1b}[2J\u{1b}[31mred\u{1b}]0;pwned\u{7}",
    "line1\nline2\r\n\tTabbed",
    "日本語のクエリ🙂🙂🙂 SELECT ＊ ＦＲＯＭ ｔ",
    "\u{202e}gnp.exe\u{200b}\u{feff}",
    "e\u{301}\u{301}\u{301}\u{301} combining",
    "\u{0}\u{7}\u{8}\u{7f}\u{9b}31m",
];

fn long_hostile() -> String {
    format!("{}{}", "SELECT ".repeat(2000), "x".repeat(10_000))
}

fn hostile_app(s: &str, variant: u8) -> App {
    let info = ServerInfo {
        label: format!("{s}:3306{s}"),
        version: format!("{s}-MariaDB{s}"),
        ..builders::mariadb(&[
            ("innodb_max_purge_lag", "1"),
            ("innodb_max_dirty_pages_pct", "NaN"),
            ("innodb_max_dirty_pages_pct_lwm", "inf"),
            ("innodb_io_capacity", "18446744073709551615"),
        ])
    };
    let mut ev = vec![connected(info)];
    let mut more = samples(30, Counters::ALL_ON, Some(3), |i| Second {
        checkpoint_age: if i % 2 == 0 { 200 * MIB } else { 0 },
        history: u64::MAX / 4 + i as u64,
        blocker_age: Some(u64::MAX / 2),
        ..Second::default()
    });
    for e in &mut more {
        if let SourceEvent::Sample(sample) = e
            && let Some(t) = sample.trx.first_mut()
        {
            t.user = Some(s.to_string());
            t.host = Some(s.to_string());
            t.query = Some(s.to_string());
            t.trx_id = s.to_string();
            t.thread_id = Some(u64::MAX);
        }
    }
    ev.extend(more);
    ev.push(SourceEvent::Disconnected {
        since: at(31.0),
        retry_in_ms: u64::MAX,
        error: s.to_string(),
    });
    let mut app = app_from_events(ev, at(32.0));
    app.recording = Some(s.to_string());
    app.set_feed(innodebt::app::Feed::Server { read_only: true });
    if let Some(f) = app.live.latest.as_mut() {
        hostile_figures(f, s, variant);
    }
    match variant % 5 {
        1 => key(&mut app, '?'),
        2 => key(&mut app, 'u'),
        3 => {
            app.overlay = Some(innodebt::app::Overlay::Notice {
                title: s.to_string(),
                lines: vec![s.to_string(); 3],
            })
        }
        4 => key(&mut app, '4'),
        _ => {}
    }
    app
}

/// Figures no sane server sends: NaN and infinite rates, the largest numbers, the age far
/// past the capacity.
fn hostile_figures(f: &mut Figures, s: &str, variant: u8) {
    let weird = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1e300,
        1e300,
        -0.0,
    ];
    let x = weird[variant as usize % weird.len()];
    f.server.label = s.to_string();
    f.redo.checkpoint_age_bytes = Some(u64::MAX);
    f.redo.capacity_bytes = Some(if variant.is_multiple_of(2) {
        1
    } else {
        u64::MAX
    });
    f.redo.async_point_bytes = Some(u64::MAX - 1);
    f.redo.sync_point_bytes = Some(0);
    f.redo.sync_point_name = s.to_string();
    f.redo.checkpoint_age_pct_of_capacity = Some(x);
    f.redo.written_bytes_per_s = Some(x);
    f.flush.total_pages_per_s = Some(x);
    f.flush.by_source_pages_per_s.sync = Some(x);
    f.flush.flush_list_pages_per_s = Some(x);
    f.flush.disabled_counters = vec![s.to_string(), "buffer_flush_sync_total_pages".into()];
    f.flush.sources_off = vec![FlushSource::Sync, FlushSource::Lru];
    f.redo.severity = Some(Severity::Critical);
    f.dirty.severity = Some(Severity::Warning);
    f.history.growth_per_s = Some(x);
    f.history.seconds_to_max_purge_lag = Some(x);
    f.purge.records_per_s = Some(x);
    f.purge.state = Some(s.to_string());
    f.purge.dml_delay_us = Some(u64::MAX);
    f.dirty.pct = Some(x);
    f.dirty.max_pct = Some(x);
    f.dirty.lwm_pct = Some(-x);
    f.dirty.bytes = Some(u64::MAX);
    f.undo.resident_pct = Some(x);
    f.undo.reads_per_s = Some(x);
    f.undo.scanned_at = Some(DateTime::<Utc>::MAX_UTC);
    f.blocker = Some(Blocker {
        trx_id: s.into(),
        user: Some(s.into()),
        age_s: u64::MAX,
        state: s.into(),
        query: Some(s.into()),
        isolation: Some(s.into()),
        command: Some(s.into()),
        ..Blocker::default()
    });
    f.warnings = vec![s.to_string()];
}

#[test]
fn every_scenario_at_every_small_size() {
    // Exhaustive over the smallest sizes, where layouts break first.
    let theme = Theme::monochrome();
    let apps: Vec<App> = scenarios().into_iter().map(|(_, a)| a).collect();
    for w in 1..=24u16 {
        for h in 1..=12u16 {
            for app in &apps {
                screen(app, &theme, w, h);
            }
        }
    }
    for (w, h) in [(80, 24), (81, 25), (79, 24), (80, 23), (120, 35), (160, 45)] {
        for app in &apps {
            screen(app, &theme, w, h);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn never_panics(
        w in 1u16..=300,
        h in 1u16..=100,
        which in 0usize..HOSTILE.len() + 1,
        variant in 0u8..30,
        dark in any::<bool>(),
    ) {
        let s = HOSTILE.get(which).map(|s| s.to_string()).unwrap_or_else(long_hostile);
        let app = hostile_app(&s, variant);
        let theme = if dark { Theme::default() } else { Theme::monochrome() };
        let buf = screen(&app, &theme, w, h);
        // No escape character ever reaches the screen.
        let esc = '\u{1b}';
        let text = plain(&buf);
        prop_assert!(!text.contains(esc), "escape character on screen");
        // NaN, ±inf and huge values never show as `NaN`, `inf` or a negative rate (from the
        // supported 80×24 up: narrower popups break words such as `information_schema`).
        if w >= 80 && h >= 24 {
            let bad = broken_numbers(&text);
            prop_assert!(bad.is_empty(), "{bad:?} on screen:\n{text}");
        }
    }
}

/// Every weird value (NaN, ±inf, ±1e300, -0.0) with every hostile string, every popup, at
/// 80×24 and 200×60: no `NaN`, `inf` or negative rate on screen.
#[test]
fn weird_numbers_never_reach_the_screen() {
    let strings: Vec<String> = HOSTILE
        .iter()
        .map(|s| s.to_string())
        .chain([long_hostile()])
        .collect();
    for s in &strings {
        for variant in 0u8..30 {
            let app = hostile_app(s, variant);
            for (w, h) in SIZES {
                let text = plain(&screen(&app, &Theme::default(), w, h));
                let bad = broken_numbers(&text);
                assert!(
                    bad.is_empty(),
                    "variant {variant}, {w}x{h}: {bad:?}\n{text}"
                );
            }
        }
    }
}

/// Words on screen that are a broken number: `NaN`, `inf`/`-inf`/`infinity` (with or without a
/// unit), or a negative rate (`-5/s`) — except a growth, which may fall.
fn broken_numbers(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || "│┃|()[]{},;:=".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        for (i, w) in words.iter().enumerate() {
            let lower = w.to_lowercase();
            let core = lower.trim_start_matches(['+', '-', '~', '≈', '>', '<']);
            let word_is = |stem: &str| {
                core.strip_prefix(stem)
                    .is_some_and(|rest| !rest.starts_with(char::is_alphabetic))
            };
            let negative_rate = lower.starts_with('-')
                && lower[1..].starts_with(|c: char| c.is_ascii_digit())
                && (lower.contains("/s") || words.get(i + 1).is_some_and(|n| n.starts_with("/s")))
                && !(i > 0 && words[i - 1].eq_ignore_ascii_case("growth"));
            if word_is("nan") || word_is("inf") || word_is("infinity") || negative_rate {
                bad.push(format!("{w:?} in {line:?}"));
            }
        }
    }
    bad
}

#[test]
fn the_broken_number_check_sees_broken_numbers() {
    assert!(broken_numbers("growth +7.0/s  inflow 3/s  info").is_empty());
    assert!(broken_numbers("growth -7.0/s").is_empty());
    for shown in [
        "rate NaN/s",
        "inf MiB",
        "age -inf",
        "purged -3/s",
        "x Infinity%",
    ] {
        assert_eq!(broken_numbers(shown).len(), 1, "{shown}");
    }
}

// ---------------------------------------------------------------------------
// The real recorded sequence: the shipped demo capture, recorded by innodebt from MariaDB
// 10.11 under write load while a REPEATABLE READ transaction blocked purge.
// ---------------------------------------------------------------------------

fn demo_events() -> Vec<SourceEvent> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    let cap = innodebt_capture::open(path).expect("the demo capture reads");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    cap.events
}

/// The live dashboard as it looked at the first recorded moment with checkpoint age past the
/// async point while the report session had been blocking purge for 20 s or more.
fn recorded_blocker_past_async() -> App {
    let events = demo_events();
    let mut deriver = innodebt_engine::derive::Deriver::new();
    let end = events
        .iter()
        .position(|e| {
            deriver.push(e).is_some_and(|f| {
                f.blocker.as_ref().is_some_and(|b| b.age_s >= 20)
                    && f.redo.checkpoint_age_bytes > f.redo.async_point_bytes
            })
        })
        .expect("a moment past async with a blocker");
    let now = events[end].at();
    let app = app_from_events(events[..=end].to_vec(), now);
    let f = app.live.latest.clone().expect("figures");
    let (age, async_point) = (
        f.redo.checkpoint_age_bytes.expect("age"),
        f.redo.async_point_bytes.expect("async"),
    );
    assert!(age > async_point, "past async: {age} vs {async_point}");
    assert!(f.blocker.is_some(), "a purge blocker");
    app
}

#[test]
fn recorded_mariadb_sequence_every_theme() {
    let app = recorded_blocker_past_async();
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &Theme::default(), w, h));
        assert!(text.contains("report@localhost"), "{text}");
        assert!(text.contains("blocked by read view"), "{text}");
        if w >= 200 {
            assert!(text.contains("past async"), "{text}");
        }
        snapshot!(format!("render_recorded_{w}x{h}"), text);
        for theme in themes() {
            snapshot!(
                format!("render_recorded_style_{}_{w}x{h}", theme.name()),
                styled(&screen(&app, &theme, w, h))
            );
        }
    }
}

#[test]
fn replay_screen_with_timeline() {
    use innodebt::app::{Recording, Replay, moments};
    let rec = Recording::from_events(
        &demo_events(),
        "mariadb-10.11-blocker.idbt",
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("the demo opens for replay");
    let last = rec.len() - 1;
    let mut app =
        innodebt::dashboard::replay_now(Replay::new(rec, 0, last), Duration::from_secs(1));
    // Jump to the first notable moment after the blocker appeared.
    for _ in 0..20 {
        key(&mut app, 'n');
        let here = app.replay().and_then(|r| r.moment_here().map(|m| m.kind));
        if here == Some(moments::MomentKind::BlockerAppeared) {
            break;
        }
    }
    let r = app.replay().expect("replaying");
    assert_eq!(
        r.moment_here().map(|m| m.kind),
        Some(moments::MomentKind::BlockerAppeared)
    );
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &Theme::default(), w, h));
        assert!(text.contains("REPLAY"), "{text}");
        snapshot!(format!("render_replay_{w}x{h}"), text);
    }
}

/// A damaged capture replayed (the demo with random bytes over its middle): the header says
/// so with a DAMAGED badge that an 80-column bar keeps, and, where there is room, what the
/// damage cost.
#[test]
fn a_damaged_capture_is_marked_in_the_header() {
    use innodebt::app::{Recording, Replay};
    let dir = tempfile::tempdir().expect("tempdir");
    let file = crate::common::damage::damaged_demo(dir.path());
    let set = innodebt::replay::CaptureSet::open_file(
        &file,
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("the damaged copy opens");
    let rec = Recording::new(set);
    let last = rec.len() - 1;
    let app = innodebt::dashboard::replay_now(Replay::new(rec, 0, last), Duration::from_secs(1));
    let header = |w: u16| {
        plain(&screen(&app, &Theme::default(), w, 24))
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let narrow = header(80);
    assert!(
        narrow.contains("REPLAY") && narrow.contains("DAMAGED"),
        "{narrow}"
    );
    let wide = header(200);
    assert!(
        wide.contains("DAMAGED") && wide.contains("damaged: 1m37s of 3m30s could be read"),
        "{wide}"
    );
    // An intact capture has no badge.
    let intact = Recording::from_events(
        &demo_events(),
        "mariadb-10.11-blocker.idbt",
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("the demo opens for replay");
    let last = intact.len() - 1;
    let app = innodebt::dashboard::replay_now(Replay::new(intact, 0, last), Duration::from_secs(1));
    let top = plain(&screen(&app, &Theme::default(), 80, 24));
    assert!(!top.contains("DAMAGED"), "{top}");
}

/// The demo replayed with a what-if of `variable = value` over the whole of it (the report
/// set on the replay, and a copy).
fn demo_what_if(
    variable: &str,
    value: u64,
) -> (
    innodebt::app::Replay,
    innodebt_engine::verdicts::whatif::WhatIfReport,
) {
    use innodebt::app::{Recording, Replay};
    let rec = Recording::from_events(
        &demo_events(),
        "mariadb-10.11-blocker.idbt",
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("the demo opens for replay");
    let last = rec.len() - 1;
    let report = rec
        .with_set(|set| {
            innodebt::postmortem::what_if(
                set,
                innodebt::postmortem::CaptureWindow { first: 0, last },
                &[(variable.to_string(), value)],
                innodebt_engine::verdicts::RecoveryModel::published_default(),
            )
        })
        .expect("the set")
        .expect("what-if on the demo");
    let mut replay = Replay::new(rec, 0, last);
    replay.what_if = Some(report.clone());
    (replay, report)
}

/// `replay --what-if innodb_log_file_size=20M`: the what-if's points as a second pair of
/// lines on the checkpoint-age chart, labelled "what if", and its summary in the panel.
#[test]
fn replay_with_a_what_if_draws_its_lines() {
    let (replay, _) = demo_what_if("innodb_log_file_size", 20 * 1024 * 1024);
    let mut app = innodebt::dashboard::replay_now(replay, Duration::from_secs(1));
    let cmds = app.seek(60);
    innodebt::dashboard::settle(&mut app, cmds);
    let (w, h) = (200, 60);
    let text = plain(&screen(&app, &Theme::default(), w, h));
    assert!(text.contains("what if: async"), "{text}");
    assert!(
        text.contains("what if innodb_log_file_size = 20M:"),
        "{text}"
    );
    snapshot!(format!("render_replay_what_if_{w}x{h}"), text);
}

/// `replay --what-if innodb_max_purge_lag=5000`: its lag as a second, dim line on the history
/// chart, and the delay writes would have paid in the purge panel (MariaDB: armed, never
/// applied while the read view blocks purge).
#[test]
fn replay_with_a_purge_what_if_draws_its_lag() {
    let (replay, report) = demo_what_if("innodb_max_purge_lag", 5000);
    let said = report.purge_summary().expect("a purge line").to_string();
    let short = report.purge_short().expect("a short form");
    assert_eq!(
        short,
        "max_purge_lag = 5000: never delayed (armed 1m 13s while purge was blocked)"
    );
    let mut app = innodebt::dashboard::replay_now(replay, Duration::from_secs(1));
    let cmds = app.seek(90);
    innodebt::dashboard::settle(&mut app, cmds);
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &Theme::default(), w, h));
        // The purge panel's rows (the right column), joined as one text.
        let shown: String = text
            .lines()
            .flat_map(|l| l.rsplit('│').nth(1))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        if h >= 60 {
            assert!(text.contains("what if: max_purge_lag 5000"), "{text}");
            // The whole summary, wrapped.
            let whole = format!("what if {}", said.trim_start_matches("with "));
            assert!(shown.contains(&whole), "{said}\n{text}");
        } else {
            // Too little room for it whole: the short form, whole.
            assert!(shown.contains(&format!("what if {short}")), "{text}");
        }
        snapshot!(format!("render_replay_what_if_purge_{w}x{h}"), text);
    }
}

/// `?` in a replay (and `--demo`, which is one) lists the replay's table, and no key of a
/// live server's that is not one of a replay's too.
#[test]
fn help_in_a_replay_lists_the_replay_keys() {
    use innodebt::app::{Recording, Replay};
    use innodebt::keymap::{LIVE, REPLAY};
    let rec = Recording::from_events(
        &demo_events(),
        "mariadb-10.11-blocker.idbt",
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("the demo opens for replay");
    let last = rec.len() - 1;
    let mut app =
        innodebt::dashboard::replay_now(Replay::new(rec, 0, last), Duration::from_secs(1));
    key(&mut app, '?');
    let text = plain(&screen(&app, &Theme::default(), 200, 60));
    let replay = REPLAY.listing().rows;
    for r in LIVE.listing().rows.iter().chain(&replay) {
        let row = format!("{}  ", r.label());
        let shown = text.lines().any(|l| l.contains(&row) && l.contains(r.help));
        assert_eq!(
            shown,
            replay.contains(r),
            "`{}` ({}) in a replay's help:\n{text}",
            r.label(),
            r.help
        );
    }
    snapshot!("render_replay_help_200x60", text);
}

// ---------------------------------------------------------------------------
// The screen tells the whole story: the verdict never cut where it matters, charts that
// fill their width and say why they are empty, the whole server label, neighbor flushing
// within the other sources, MySQL 8's flush points in its own words.
// ---------------------------------------------------------------------------

/// The rows of the screen as text.
fn rows(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn a_long_blocker_verdict_wraps_and_points_to_v() {
    let theme = Theme::default();
    let app = pressure();
    // 200 columns: two lines hold the whole verdict, the way out included.
    let wide = plain(&screen(&app, &theme, 200, 60));
    let verdict = rows(&wide)[1..3].join(" ");
    assert!(
        verdict.contains("commit or kill it (K, asks first)"),
        "{verdict}"
    );
    assert!(!verdict.contains("full text"), "{verdict}");
    // 80 columns: two lines, the second ends with the key that shows it whole, and all six
    // panels still show.
    let narrow = plain(&screen(&app, &theme, 80, 24));
    let r = rows(&narrow);
    assert!(r[1].contains("blocked by read view"), "{narrow}");
    assert!(r[2].trim_end().ends_with("… v full text"), "{narrow}");
    for title in [
        "1 Checkpoint age",
        "2 Flush sources",
        "3 History list length",
        "4 Purge",
        "5 Dirty pages",
        "6 Undo residency",
    ] {
        assert!(narrow.contains(title), "{title}:\n{narrow}");
    }
    // The checkpoint chart keeps its place under the two-line verdict.
    assert!(narrow.contains("-5m"), "{narrow}");
}

/// A short verdict keeps one line and gives the panels the row back.
#[test]
fn a_short_verdict_keeps_one_line() {
    let text = plain(&screen(&counters_off(), &Theme::default(), 200, 60));
    let r = rows(&text);
    assert!(r[1].contains("healthy"), "{text}");
    assert!(r[2].starts_with('┌'), "{text}");
}

pub fn verdicts_overlay() -> App {
    let mut app = pressure();
    key(&mut app, 'v');
    app
}

#[test]
fn the_v_overlay_shows_every_verdict_in_full() {
    let theme = Theme::default();
    let app = verdicts_overlay();
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &theme, w, h));
        assert!(text.contains("Verdicts"), "{text}");
        for what in [
            "▲ blocked by read view",
            "warning · since 09:05:01",
            "▲ flush pressure",
            "commit or kill it (K, asks first)",
            "any key closes",
        ] {
            assert!(text.contains(what), "{w}x{h} {what}:\n{text}");
        }
        snapshot!(format!("render_verdicts_{w}x{h}"), text);
    }
}

/// 30 s into a session: the charts span what was sampled, not a sliver at the right of a
/// 5-minute axis.
pub fn early() -> App {
    let mut ev = vec![connected(builders::mariadb(&[]))];
    ev.extend(samples(30, Counters::ALL_ON, None, healthy_second));
    app_from_events(ev, at(30.0))
}

#[test]
fn charts_fill_their_width_before_the_window_does() {
    let theme = Theme::default();
    let app = early();
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &theme, w, h));
        // The axis says how far back the data goes (first sample 1 s, last 30 s).
        assert!(text.contains("-29s"), "{w}x{h}:\n{text}");
        assert!(!text.contains("-5m "), "{w}x{h}:\n{text}");
        snapshot!(format!("render_early_{w}x{h}"), text.clone());
    }
    // The checkpoint-age series starts at the chart's left edge: on some row of its plot
    // (`│96 MiB│…`, `│      │…`), the first column right of the y axis has a braille dot.
    let text = plain(&screen(&app, &theme, 200, 60));
    let left_edge: Vec<char> = rows(&text)
        .into_iter()
        .take(30)
        .filter_map(|l| {
            let chars: Vec<char> = l.chars().collect();
            (chars.first() == Some(&'│') && chars.get(7) == Some(&'│'))
                .then(|| chars.get(8).copied())
                .flatten()
        })
        .collect();
    assert!(
        left_edge
            .iter()
            .any(|c| ('\u{2801}'..='\u{28ff}').contains(c)),
        "no data at the left edge of the checkpoint chart ({left_edge:?}):\n{text}"
    );
}

/// An account without PROCESS: INNODB_METRICS, INNODB_TRX, SHOW ENGINE INNODB STATUS and the
/// residency scan refused, as a real server refuses them together; the panels that need them
/// say so.
pub fn privilege_missing() -> App {
    let mut ev = vec![connected(builders::mariadb(&[]))];
    let mut more = samples(N, Counters::ALL_ON, None, healthy_second);
    for e in &mut more {
        if let SourceEvent::Sample(s) = e {
            builders::without_process(s);
        }
    }
    ev.extend(more);
    app_from_events(ev, last_time())
}

#[test]
fn an_empty_chart_says_why() {
    let theme = Theme::default();
    // Counters off (MariaDB's defaults): the key that enables them, and the scan never run.
    let off = plain(&screen(&counters_off(), &theme, 200, 60));
    assert!(
        off.contains(
            "undo size: INNODB_METRICS counter off — press m to enable · residency never \
             scanned — press u"
        ),
        "{off}"
    );
    // A series missing beside others: named on the chart, the others still drawn.
    assert!(
        off.contains("purged: INNODB_METRICS counter off — press m to enable"),
        "{off}"
    );
    // No axis of a chart without data.
    assert!(!off.contains("0 B"), "{off}");
    // A missing privilege.
    let app = privilege_missing();
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &theme, w, h));
        if h >= 60 {
            assert!(
                text.contains("undo size: needs PROCESS privilege"),
                "{text}"
            );
            assert!(text.contains("purged: needs PROCESS privilege"), "{text}");
            assert!(!text.contains("0 B"), "{text}");
        }
        snapshot!(format!("render_privilege_missing_{w}x{h}"), text);
    }
    // The first sample: nothing to draw yet.
    let mut ev = vec![connected(builders::mariadb(&[]))];
    ev.extend(samples(1, Counters::ALL_ON, None, healthy_second));
    let first = plain(&screen(&app_from_events(ev, at(1.0)), &theme, 200, 60));
    assert!(first.contains("no samples yet"), "{first}");
}

/// A 70-character host name in the header at 200 columns: whole.
#[test]
fn a_long_server_label_is_whole_at_200_columns() {
    let label = "db-primary-eu-west-1a.orders-cluster.prod.internal.example.com:3306";
    assert!(label.len() >= 66, "{}", label.len());
    let info = ServerInfo {
        label: label.into(),
        ..builders::mariadb(&[])
    };
    let mut ev = vec![connected(info)];
    ev.extend(samples(N, Counters::ALL_ON, Some(N - 131), healthy_second));
    let app = app_from_events(ev, last_time());
    let theme = Theme::default();
    let wide = plain(&screen(&app, &theme, 200, 60));
    let header = rows(&wide)[0];
    assert!(header.contains(label), "{header}");
    assert!(header.contains("MariaDB 10.11.6"), "{header}");
    snapshot!("render_long_label_200x60", wide);
    // Narrow: the label shrinks (to 40 columns at least) rather than push the flavour out.
    let narrow = plain(&screen(&app, &theme, 80, 24));
    let header = rows(&narrow)[0];
    assert!(
        header.contains("db-primary-eu-west-1a.orders-cluster.pr"),
        "{header}"
    );
    assert!(header.contains('…'), "{header}");
    assert!(header.contains("MariaDB 10.11.6"), "{header}");
    snapshot!("render_long_label_80x24", narrow);
}

#[test]
fn neighbor_flushing_is_counted_within_the_sources() {
    let app = healthy();
    let theme = Theme::default();
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &theme, w, h));
        assert!(text.contains("↳ ━ of which neighbors"), "{text}");
        // Never listed as a source of its own beside the others.
        assert!(!text.contains("━ neighbor "), "{text}");
    }
}

/// MySQL 8.0.30 with a 100 MiB `innodb_redo_log_capacity` (the version and the capacity of
/// the corpus's MySQL 8.0.30 server): status names as MySQL has them, no MariaDB ones.
pub fn mysql_8030() -> App {
    let version = "8.0.30";
    let comment = "MySQL Community Server - GPL";
    let mut info = builders::mariadb(&[
        ("innodb_redo_log_capacity", "104857600"),
        ("innodb_max_dirty_pages_pct_lwm", "10.000000"),
    ]);
    info.variables.remove("innodb_log_file_size");
    let info = builders::as_version(info, version, comment);
    let mut ev = vec![connected(info)];
    let mut more = samples(N, Counters::ALL_ON, None, |i| Second {
        // Past the flush-hard point (72.3 MiB) and the sync-flush point, below the stall.
        checkpoint_age: 60 * MIB + (19 * MIB) * i as u64 / N as u64,
        ..healthy_second(i)
    });
    for e in &mut more {
        if let SourceEvent::Sample(s) = e {
            for (maria, mysql) in [
                ("Innodb_lsn_current", "Innodb_redo_log_current_lsn"),
                (
                    "Innodb_lsn_last_checkpoint",
                    "Innodb_redo_log_checkpoint_lsn",
                ),
            ] {
                if let Some(v) = s.status.remove(maria) {
                    s.status.insert(mysql.into(), v);
                }
            }
            s.status.remove("Innodb_checkpoint_age");
            s.status.remove("Innodb_checkpoint_max_age");
        }
    }
    ev.extend(more);
    app_from_events(ev, last_time())
}

#[test]
fn mysql_8_checkpoint_panel_in_its_own_words() {
    let app = mysql_8030();
    let f = app.live.latest.as_ref().expect("figures");
    let r = &f.redo;
    let (age, start, sync_flush, stall) = (
        r.checkpoint_age_bytes.expect("age"),
        r.async_point_bytes.expect("flush hard"),
        r.sync_flush_bytes.expect("sync flush"),
        r.sync_point_bytes.expect("stall"),
    );
    assert!(start < sync_flush && sync_flush < stall, "{r:?}");
    assert!(age > sync_flush && age < stall, "{r:?}");
    let theme = Theme::default();
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &theme, w, h));
        assert!(text.contains("flush hard 72.3 MiB"), "{w}x{h}:\n{text}");
        // Where the stall and sync-flush lines share a chart row, the stall is named.
        assert!(
            text.contains("stall — writes wait 83.4 MiB"),
            "{w}x{h}:\n{text}"
        );
        if h >= 60 {
            // Past sync flushing (77.8 MiB), below the stall: the panel and the verdict say so.
            assert!(text.contains("past sync flush"), "{text}");
            assert!(text.contains("is past sync flushing 77.8 MiB"), "{text}");
            assert!(text.contains("sync flush 77.8 MiB"), "{text}");
            assert!(
                text.contains("counters say async 77.5 MiB · sync 83.1 MiB"),
                "{text}"
            );
            // MySQL 8.0.13+ flushes hard a margin before its async counter: never called async alone.
            assert!(!text.contains("past async"), "{text}");
            assert!(!text.contains("async 72.3"), "{text}");
        }
        snapshot!(format!("render_mysql_8030_{w}x{h}"), text);
    }
    snapshot_every_theme("render_mysql_8030_style", &app);
}

/// More verdicts than 80×24 holds: the overlay cuts them above a `…` and still says how to
/// close it.
#[test]
fn the_v_overlay_fits_80x24_with_many_verdicts() {
    let mut app = verdicts_overlay();
    if let Some(f) = app.live.latest.as_mut() {
        let v = f.verdicts[0].clone();
        f.verdicts = vec![v; 5];
    }
    let text = plain(&screen(&app, &Theme::default(), 80, 24));
    assert!(text.contains("any key closes"), "{text}");
    assert!(text.contains("│ …"), "{text}");
    // Three of them whole at 200×60.
    if let Some(f) = app.live.latest.as_mut() {
        f.verdicts.truncate(3);
    }
    let tall = plain(&screen(&app, &Theme::default(), 200, 60));
    assert_eq!(tall.matches("warning · since").count(), 3, "{tall}");
    assert!(!tall.contains("│ …"), "{tall}");
}

// ---------------------------------------------------------------------------
// The compare screen: the demo (purge blocked by a read view) against a server at rest.
// ---------------------------------------------------------------------------

/// `innodebt compare demo.idbt at-rest.idbt` on a terminal: both whole, the demo's real
/// capture against the synthetic healthy server's (another server: the screen warns).
pub fn comparing() -> App {
    use innodebt::postmortem::CaptureWindow;
    let model = innodebt_engine::verdicts::RecoveryModel::published_default();
    let capture = |events: &[SourceEvent], name: &str| {
        let start = events.first().map(SourceEvent::at).unwrap_or_default();
        let header = innodebt_capture::Header::new(start, None, true);
        innodebt::replay::temp_capture(name, &header, events, model.clone())
    };
    let mut demo = capture(&demo_events(), "mariadb-10.11-blocker.idbt").expect("the demo opens");
    let mut rest = capture(&healthy_events(), "at-rest.idbt").expect("the capture at rest opens");
    let (dw, rw) = (
        CaptureWindow {
            first: 0,
            last: demo.len() - 1,
        },
        CaptureWindow {
            first: 0,
            last: rest.len() - 1,
        },
    );
    let view = innodebt::postmortem::compare_view(&mut demo, dw, &mut rest, rw).expect("compare");
    App::comparing(view, t0())
}

fn press(app: &mut App, code: KeyCode) -> Vec<innodebt::app::Command> {
    app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

#[test]
fn compare_screen_shows_both_timelines_and_the_ranked_differences() {
    let app = comparing();
    let c = app.compare().expect("comparing");
    let first = &c.comparison.ranked[0];
    assert!(
        ["blocker age", "history length", "undo size"].contains(&first.name.as_str()),
        "{first:?}"
    );
    // The demo's blocker is among the incident's marks, and none is the baseline's.
    assert!(
        c.incident.marks.iter().any(|m| m.mark == 'B'),
        "{:?}",
        c.incident.marks
    );
    assert!(!c.baseline.marks.iter().any(|m| m.mark == 'B'));
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &Theme::default(), w, h));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("COMPARE"), "{text}");
        assert!(text.contains("different servers"), "{text}");
        // One bar per side, the incident's above; both start in the same column.
        let bar_of = |side: &str| {
            let i = lines
                .iter()
                .position(|l| l.contains(&format!("│{side}")))
                .unwrap_or_else(|| panic!("no {side} line:\n{text}"));
            lines[i + 1]
        };
        let (inc, base) = (bar_of("incident"), bar_of("baseline"));
        let start = |l: &str| l.chars().position(|ch| "─┄━RHPBDCV*".contains(ch));
        assert_eq!(start(inc), start(base), "{inc}\n{base}");
        // The demo's blocker and its verdicts are marked (at 80 columns the blocker shares its
        // column with the verdicts it brought, which hold more moments and take the mark);
        // the server at rest has no blocker.
        assert!(inc.contains('V') && inc.contains('━'), "{inc}");
        assert!(!base.contains('B'), "{base}");
        // The first difference, selected, at the top of the list.
        let row = lines
            .iter()
            .find(|l| l.contains("▶ "))
            .expect("a selected row");
        assert!(
            row.contains(&format!("1 [{:>4.1}] {}", first.score, first.name)),
            "{row}"
        );
        snapshot!(format!("render_compare_{w}x{h}"), text);
    }
    // Colours: the selected row, the verdict shading and the marks.
    snapshot!(
        "render_compare_style_dark_80x24",
        styled(&screen(&app, &Theme::default(), 80, 24))
    );
}

#[test]
fn compare_keys_move_the_selection_and_open_the_detail() {
    let mut app = comparing();
    let n = app.compare().map_or(0, |c| c.comparison.ranked.len());
    assert!(n > 12, "{n} differences: too few to page");
    let selected = |app: &App| app.compare().map(|c| c.selected);
    let detail = |app: &App| {
        app.compare()
            .and_then(|c| c.detail.as_ref().map(|d| d.title.clone()))
    };
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(selected(&app), Some(2));
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(selected(&app), Some(1));
    press(&mut app, KeyCode::PageDown);
    assert_eq!(selected(&app), Some(11));
    press(&mut app, KeyCode::End);
    assert_eq!(selected(&app), Some(n - 1));
    press(&mut app, KeyCode::Down);
    assert_eq!(selected(&app), Some(n - 1), "past the end");
    press(&mut app, KeyCode::PageUp);
    assert_eq!(selected(&app), Some(n - 11));
    press(&mut app, KeyCode::Home);
    assert_eq!(selected(&app), Some(0));
    press(&mut app, KeyCode::Up);
    assert_eq!(selected(&app), Some(0), "before the start");
    // Enter: the first difference in detail; it follows the selection; Esc closes.
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    let title = detail(&app).expect("a detail");
    assert!(title.starts_with("1. "), "{title}");
    press(&mut app, KeyCode::Down);
    assert!(detail(&app).is_some_and(|t| t.starts_with("2. ")));
    press(&mut app, KeyCode::Esc);
    assert_eq!(detail(&app), None);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert_eq!(detail(&app), None, "Enter closes it too");
    // Dashboard keys do nothing here; `?` lists the compare keys; q quits.
    press(&mut app, KeyCode::Char('p'));
    press(&mut app, KeyCode::Char('1'));
    assert!(!app.is_frozen() && app.zoom.is_none() && app.overlay.is_none());
    key(&mut app, '?');
    let help = plain(&screen(&app, &Theme::default(), 80, 24));
    assert!(help.contains("previous / next difference"), "{help}");
    assert!(!help.contains("play / pause"), "{help}");
    press(&mut app, KeyCode::Esc);
    assert_eq!(
        press(&mut app, KeyCode::Char('q')),
        vec![innodebt::app::Command::Quit]
    );
}

/// Enter on the first difference: both sides' median, p95 and max, the verdict time behind
/// it and what it means, whole at either size.
#[test]
fn compare_detail_of_the_first_difference() {
    let mut app = comparing();
    press(&mut app, KeyCode::Enter);
    let d = app
        .compare()
        .and_then(|c| c.detail.clone())
        .expect("a detail");
    let f = app
        .compare()
        .and_then(|c| {
            c.comparison
                .figures
                .iter()
                .find(|f| d.title.contains(&f.name))
                .cloned()
        })
        .expect("a figure first");
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &Theme::default(), w, h));
        for row in ["median", "p95", "max"] {
            assert!(text.contains(&format!("│ {row} ")), "{row}:\n{text}");
        }
        assert!(text.contains("in the incident vs"), "{text}");
        assert!(text.contains("Enter or Esc closes"), "{text}");
        assert!(!text.contains("more lines"), "cut at {w}x{h}:\n{text}");
        snapshot!(format!("render_compare_detail_{w}x{h}"), text);
    }
    assert!(f.incident.max > f.baseline.max, "{f:?}");
}

/// The compare screen, and its detail open on every difference, at any size: no panic.
#[test]
fn compare_screen_at_any_size() {
    let mut app = comparing();
    let n = app.compare().map_or(0, |c| c.comparison.ranked.len());
    let sizes = [1, 2, 10, 40, 79, 80, 81, 120, 300];
    let heights = [1, 3, 10, 23, 24, 25, 39, 40, 41, 100];
    for w in sizes {
        for h in heights {
            screen(&app, &Theme::default(), w, h);
        }
    }
    press(&mut app, KeyCode::Enter);
    for _ in 0..n {
        for (w, h) in [(80, 24), (80, 40), (200, 60), (300, 100)] {
            let text = plain(&screen(&app, &Theme::default(), w, h));
            assert!(text.contains("Enter or Esc closes") || text.contains("more lines"));
        }
        press(&mut app, KeyCode::Down);
    }
}

/// The demo with its checkpoint falling 5 MB further behind every second from sample 100 (what
/// the replay benchmark's old generator did): the age passes the 16 MiB log, which no server
/// shows. The age is unknown (n/a, no gauge, no severity), the panel says it is suspect and
/// why, and the JSON names it.
#[test]
fn an_age_past_the_log_is_drawn_as_suspect() {
    let mut events = demo_events();
    let mut n = 0u64;
    let mut end = 0;
    for (i, ev) in events.iter_mut().enumerate() {
        let SourceEvent::Sample(s) = ev else { continue };
        n += 1;
        if n < 100 {
            continue;
        }
        let drift = (n - 99) * 5_000_000;
        for k in [
            "Innodb_lsn_current",
            "Innodb_os_log_written",
            "Innodb_checkpoint_age",
        ] {
            if let Some(v) = s.status.get_mut(k) {
                *v += drift;
            }
        }
        if let Some(m) = s.metrics.get_mut("log_lsn_current") {
            m.count += drift as i64;
        }
        s.innodb_status = None;
        end = i;
        if n == 130 {
            break;
        }
    }
    let now = events[end].at();
    let app = app_from_events(events[..=end].to_vec(), now);
    let f = app.live.latest.clone().expect("figures");
    let s = f
        .suspect(innodebt_engine::figures::FigureId::CheckpointAge)
        .expect("the age is suspect");
    assert!(
        s.reason
            .contains("is more than the redo log holds (16.0 MiB)"),
        "{}",
        s.reason
    );
    // Unknown to every judgement: no severity, no flush regime, no sizing from it.
    assert_eq!(f.redo.checkpoint_age_bytes, None);
    assert_eq!(f.redo.severity, None);
    let json = serde_json::to_value(&f).expect("json");
    assert_eq!(
        json["suspect"][0]["figure"], "redo.checkpoint_age_bytes",
        "{json}"
    );
    assert!(json["redo"]["checkpoint_age_bytes"].is_null(), "{json}");
    for (w, h) in SIZES {
        let text = plain(&screen(&app, &Theme::default(), w, h));
        if h >= 60 {
            assert!(text.contains("age suspect: checkpoint age"), "{text}");
        }
        snapshot!(format!("render_suspect_age_{w}x{h}"), text);
    }
    snapshot!(
        "render_suspect_age_style_200x60",
        styled(&screen(&app, &Theme::default(), 200, 60))
    );
}
