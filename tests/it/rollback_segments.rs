//! Rollback segments: the segments writers share and whether they queue on them. Live on a
//! private MariaDB under 64 write sessions with the latch instruments on (the figures move;
//! 128 segments raise no alarm), and from recorded MySQL samples for the low counts MariaDB
//! cannot have: the verdict, its way out (`SET GLOBAL innodb_rollback_segments` behind the
//! confirmation on MySQL 8, a restart on 5.7), confirm-no runs nothing.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{TimeZone, Utc};
use common::builders;
use common::{PrivateServer, ServerConfig, WriteLoad};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use innodebt::app::{App, Command, Msg, Overlay};
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::{Figures, Severity, VerdictKind};
use innodebt_server::sample::{Sample, ServerInfo, SourceEvent, WaitSum};
use serde_json::Value;

const RSEG_LATCH: &str = "wait/synch/rwlock/innodb/trx_rseg_latch";
const TRX_SYS: &str = "wait/synch/mutex/innodb/trx_sys_mutex";

fn f64_at(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

/// 64 autocommit writers on MariaDB 10.11, `trx_rseg_latch` and `trx_sys_mutex` instrumented:
/// each look sees the latches acquired (non-zero rates: the totals rose between its two
/// readings), the 128 fixed segments, and no contention verdict (64 writers < 128 segments).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latch_waits_move_under_64_writers_and_128_segments_raise_no_alarm() {
    let cfg = ServerConfig {
        max_connections: 100,
        ..ServerConfig::default()
    }
    .with_args([
        "--performance-schema=ON".to_string(),
        format!("--performance-schema-instrument={RSEG_LATCH}=ON"),
        format!("--performance-schema-instrument={TRX_SYS}=ON"),
    ]);
    let server = PrivateServer::start(cfg);
    let load = WriteLoad::start(server.opts(), 64);
    load.wait_ops(2_000).await;

    let mut totals = Vec::new();
    for look in 0..2 {
        let f = common::once_json(&server.conn_args(), &[]);
        let r = &f["rollback"];
        assert_eq!(r["segments"], 128, "{r}");
        assert_eq!(r["segments_fixed"], true, "{r}");
        assert_eq!(r["instrumented"], true, "{r}");
        assert!(
            r["way_out"]
                .as_str()
                .is_some_and(|w| w.contains("fixes rollback segments at 128")),
            "{r}"
        );
        for path in [
            "rseg_waits_per_s",
            "rseg_wait_s_per_s",
            "trx_sys_waits_per_s",
        ] {
            assert!(
                f64_at(r, &[path]).is_some_and(|v| v > 0.0),
                "look {look}: {path} should be non-zero under 64 writers: {r}"
            );
        }
        assert_eq!(r["severity"], "ok", "look {look}: {r}");
        let kinds: Vec<&str> = f["verdicts"]
            .as_array()
            .expect("verdicts")
            .iter()
            .filter_map(|v| v["kind"].as_str())
            .collect();
        assert!(
            !kinds.contains(&"rollback_segment_contention"),
            "no false alarm with 128 segments: {kinds:?} {r}"
        );
        // The server's own totals, read beside innodebt's: rising between the looks.
        let rows = server
            .sql(&format!(
                "SELECT COUNT_STAR FROM performance_schema.events_waits_summary_global_by_event_name \
                 WHERE EVENT_NAME = '{RSEG_LATCH}'"
            ))
            .await;
        let n: u64 = rows
            .first()
            .and_then(|r| r.get::<u64, _>(0))
            .expect("COUNT_STAR");
        totals.push(n);
    }
    assert!(totals[1] > totals[0], "latch acquisitions rise: {totals:?}");
    let stats = load.stop().await;
    assert!(stats.ops > 2_000, "{stats:?}");

    // The text says the same.
    let out = std::process::Command::new(common::innodebt_bin())
        .args(server.conn_args())
        .args([
            "--no-defaults",
            "--once",
            "--format",
            "text",
            "--interval",
            "1s",
        ])
        .output()
        .expect("run innodebt");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("rollback "))
        .unwrap_or_else(|| panic!("a rollback line: {text}"));
    assert!(line.contains("segments 128 (fixed)"), "{line}");
}

fn at(t: f64) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time")
        + chrono::Duration::milliseconds((t * 1000.0) as i64)
}

/// A MySQL 8.0.36 server with `innodb_rollback_segments = per` over 2 undo tablespaces and
/// the rseg / trx-sys mutex instruments counting.
fn mysql8(per: u64) -> ServerInfo {
    let per = per.to_string();
    builders::as_version(
        builders::mariadb(&[
            ("innodb_redo_log_capacity", "104857600"),
            ("innodb_rollback_segments", &per),
            ("innodb_undo_tablespaces", "2"),
            ("performance_schema", "ON"),
            ("wait/synch/mutex/innodb/undo_space_rseg_mutex.timed", "YES"),
            ("wait/synch/mutex/innodb/trx_sys_mutex.timed", "YES"),
        ]),
        "8.0.36",
        "MySQL Community Server - GPL",
    )
}

/// Second `t` of 32 open writers whose rollback-segment latches cost `wait_s` seconds per
/// second (40,000 acquisitions/s).
fn writers(t: f64, wait_s: f64) -> Sample {
    let mut s = Sample::new(at(t), t);
    s.status.insert("Uptime".into(), 1000 + t as u64);
    s.status.insert("Innodb_undo_tablespaces_active".into(), 2);
    s.status.insert("Innodb_history_list_length".into(), 100);
    s.trx_open = Some(32);
    s.trx_rw = Some(32);
    let sum = |count: f64, secs: f64| WaitSum {
        count: count as u64,
        timer_ps: (secs * 1e12) as u64,
    };
    s.waits = Some(BTreeMap::from([
        (
            "wait/synch/mutex/innodb/undo_space_rseg_mutex".to_string(),
            sum(40_000.0 * t, wait_s * t),
        ),
        (
            "wait/synch/mutex/innodb/trx_sys_mutex".to_string(),
            sum(20_000.0 * t, 0.05 * t),
        ),
    ]));
    s
}

fn derive(info: ServerInfo, wait_s: f64) -> Vec<Figures> {
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected { at: at(0.0), info });
    (0..4)
        .filter_map(|t| d.push_sample(&writers(f64::from(t), wait_s)))
        .collect()
}

/// MySQL 8 with `innodb_rollback_segments = 1` (2 segments over 2 undo tablespaces) under 32
/// writers waiting 6 s/s on them: the verdict, naming the count, the evidence and the
/// dynamic variable's way out.
#[test]
fn mysql_8_with_two_segments_under_32_writers_queues() {
    let fs = derive(mysql8(1), 6.0);
    let last = fs.last().expect("figures");
    let r = &last.rollback;
    assert_eq!((r.segments, r.segments_setting), (Some(2), Some(1)));
    assert_eq!(r.rseg_wait_s_per_s.map(|s| s.round()), Some(6.0));
    assert_eq!(r.rseg_waits_per_s.map(|s| s.round()), Some(40_000.0));
    assert_eq!(r.severity, Some(Severity::Warning));
    let v = last
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::RollbackSegmentContention)
        .expect("the verdict holds");
    assert_eq!(v.severity, Severity::Warning);
    for words in [
        "writes queue on 2 rollback segments for 32 open write transactions",
        "6.00 s/s waiting",
        "SET GLOBAL innodb_rollback_segments = 128",
    ] {
        assert!(v.message.contains(words), "{words:?} in {}", v.message);
    }
    // Below the thresholds (0.5 s/s, a tenth of the writers' time): no verdict, ok.
    let calm = derive(mysql8(1), 0.2);
    let last = calm.last().expect("figures");
    assert_eq!(last.rollback.severity, Some(Severity::Ok));
    assert!(
        last.verdicts
            .iter()
            .all(|v| v.kind != VerdictKind::RollbackSegmentContention)
    );
    // The same waits on 256 segments (128 × 2): more segments than writers, no alarm.
    let many = derive(mysql8(128), 6.0);
    assert_eq!(many.last().map(|f| f.rollback.segments), Some(Some(256)));
    assert_eq!(
        many.last().and_then(|f| f.rollback.severity),
        Some(Severity::Ok)
    );
}

fn key(app: &mut App, c: char) -> Vec<Command> {
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )))
}

/// The app after four samples of MySQL 8 with two rollback segments (one per undo
/// tablespace) and writers queueing on them, its clock at `now_s`.
fn writers_queueing_on_mysql8(now_s: f64) -> App {
    let mut app = App::new(Duration::from_secs(1), at(now_s));
    app.update(Msg::Source(SourceEvent::Connected {
        at: at(0.0),
        info: mysql8(1),
    }));
    for t in 0..4 {
        app.update(Msg::Source(SourceEvent::Sample(Box::new(writers(
            f64::from(t),
            6.0,
        )))));
    }
    app
}

/// `R` on that server asks to `SET GLOBAL innodb_rollback_segments = 128`; No runs nothing,
/// Yes runs exactly what was shown.
#[test]
fn r_asks_before_set_global_innodb_rollback_segments_and_no_runs_nothing() {
    let mut app = writers_queueing_on_mysql8(0.0);
    assert!(key(&mut app, 'R').is_empty(), "only a confirmation");
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("a confirmation: {:?}", app.overlay);
    };
    assert!(!c.yes_selected, "the default answer is No");
    let sql = c.sql.clone().expect("the SQL is shown");
    assert_eq!(sql, "SET GLOBAL innodb_rollback_segments = 128");
    assert!(
        c.lines
            .iter()
            .any(|l| l.contains("Writers share 2 rollback segments")),
        "{:?}",
        c.lines
    );
    assert!(key(&mut app, 'n').is_empty(), "No runs nothing");
    assert!(app.overlay.is_none());
    key(&mut app, 'R');
    match key(&mut app, 'y').as_slice() {
        [Command::Execute(plan)] => assert_eq!(plan.sql_text(), sql),
        other => panic!("one Execute: {other:?}"),
    }
}

/// MariaDB: `R` says the segments are fixed at 128, and nothing is planned.
#[test]
fn r_on_mariadb_says_segments_are_fixed() {
    let mut app = App::new(Duration::from_secs(1), at(0.0));
    let info = builders::mariadb(&[]);
    app.update(Msg::Source(SourceEvent::Connected { at: at(0.0), info }));
    let mut s = Sample::new(at(0.0), 0.0);
    s.status.insert("Uptime".into(), 10);
    app.update(Msg::Source(SourceEvent::Sample(Box::new(s))));
    assert!(key(&mut app, 'R').is_empty());
    let shown = format!("{:?}", app.overlay);
    assert!(shown.contains("fixed at 128"), "{shown}");
    assert!(!matches!(app.overlay, Some(Overlay::Confirm(_))));
}

/// MySQL 5.7 without performance_schema: four threads asleep on a rollback segment's mutex
/// in SEIS's wait array, 16 writers on 2 segments (`innodb_rollback_segments = 34`, 32 of
/// them for temporary tables) → the verdict, whose way out is a restart.
#[test]
fn mysql_57_seis_wait_array_on_trx0rseg_queues_and_needs_a_restart() {
    let info = builders::as_version(
        builders::mariadb(&[
            ("innodb_rollback_segments", "34"),
            ("innodb_undo_tablespaces", "0"),
            ("performance_schema", "OFF"),
        ]),
        "5.7.44",
        "MySQL Community Server (GPL)",
    );
    let cell = "--Thread 139 has waited at trx0trx.cc line 1185 for 0.00 seconds the semaphore:\n\
                Mutex at 0x7f0 created file trx0rseg.cc line 200, lock var 1\n\
                waiters flag 1\n";
    let seis = format!(
        "=====================================\n\
         2026-11-01 12:00:00 INNODB MONITOR OUTPUT\n\
         =====================================\n\
         ----------\n\
         SEMAPHORES\n\
         ----------\n\
         OS WAIT ARRAY INFO: reservation count 120\n\
         {}\
         OS WAIT ARRAY INFO: signal count 100\n\
         ------------\n\
         TRANSACTIONS\n\
         ------------\n\
         Trx id counter 5000\n\
         Purge done for trx's n:o < 4990 undo n:o < 0 state: running\n\
         History list length 10\n\
         ----------------------------\n\
         END OF INNODB MONITOR OUTPUT\n\
         ============================\n",
        cell.repeat(4)
    );
    let mut d = Deriver::new();
    d.push(&SourceEvent::Connected { at: at(0.0), info });
    let mut last = None;
    for t in 0..3 {
        let mut s = Sample::new(at(f64::from(t)), f64::from(t));
        s.status.insert("Uptime".into(), 1000 + t as u64);
        s.trx_open = Some(16);
        s.trx_rw = Some(16);
        s.innodb_status = Some(innodebt_server::innodb_status::parse(&seis));
        last = d.push_sample(&s);
    }
    let f = last.expect("figures");
    assert_eq!(f.rollback.segments, Some(2));
    assert_eq!(f.rollback.seis_rseg_waiters, Some(4));
    assert_eq!(f.rollback.instrumented, Some(false));
    let v = f
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::RollbackSegmentContention)
        .expect("the verdict holds");
    assert!(v.message.contains("4 threads asleep"), "{}", v.message);
    assert!(
        v.message.contains("creates segments only at startup")
            && v.message.contains("innodb_rollback_segments = 128"),
        "{}",
        v.message
    );
}

/// The screen of that MySQL 8 server at 80×24 and 200×60: the verdict line names the queue and
/// `R`; the Undo panel's rseg line carries the segments and the latch waits.
#[test]
fn render_writers_queueing_on_two_segments() {
    let app = writers_queueing_on_mysql8(3.0);
    let theme = innodebt::theme::Theme::builtin("dark").expect("dark theme");
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let text = common::snapshot::plain(&crate::render::screen(&app, &theme, w, h));
        assert!(text.contains("rseg 2"), "{text}");
        assert!(text.contains("latch 6.00 s/s"), "{text}");
        insta::with_settings!(
            { snapshot_path => "../../snapshots", prepend_module_to_snapshot => false },
            { insta::assert_snapshot!(format!("render_rseg_contention_{w}x{h}"), text) }
        );
    }
}
