//! Every metric family innodebt writes, checked by Prometheus's own parsers in both formats:
//! one scrape with every table filled (the demo capture's figures, a blocker, innodebt's own
//! cost and state while down, every raw counter, the build and the process) goes through
//! `promtool check metrics` as the 0.0.4 text format and through `promtool tsdb
//! create-blocks-from openmetrics` (Prometheus's OpenMetrics parser) as OpenMetrics 1.0. Both
//! must carry every family of the tables, so a family added later is checked too.

use crate::common;

use common::serve::promtool;
use innodebt::openmetrics::exporter::{Build, COUNTERS, EXPORTER, Exporter};
use innodebt::openmetrics::{FIGURES, Format, Kind, OWN, PollingState, Scrape, scrape};
use innodebt_engine::measure::counters::Counters;

fn full_scrape(format: Format) -> String {
    let capture = innodebt_capture::reader::from_bytes(
        include_bytes!("../../demo/mariadb-10.11-blocker.idbt"),
        std::path::Path::new("demo"),
    )
    .expect("demo capture");
    let mut deriver = innodebt_engine::derive::Deriver::new();
    let mut figures = capture
        .events
        .iter()
        .filter_map(|ev| deriver.push(ev))
        .last()
        .expect("figures");
    // What this capture leaves unknown, set so that its family is written too.
    figures.history.seconds_to_max_purge_lag = Some(3600.0);
    figures.history.held_back = Some(1200);
    figures.undo.resident_pct = Some(12.5);
    figures
        .blocker
        .get_or_insert(innodebt_engine::figures::Blocker {
            thread_id: Some(42),
            age_s: 300,
            ..Default::default()
        });
    figures.self_cost = Some(innodebt_engine::figures::SelfCost {
        statements_per_tick: 3,
        server_ms_per_tick: 1.75,
        server_ms_p95_1m: Some(2.5),
        statements_max_1m: 5,
        measured: "round trips".into(),
        by_statement: Vec::new(),
        slowed: Vec::new(),
    });
    let counters = Counters {
        lsn_bytes: Some(123_456_789),
        pages_flushed: Some(5000),
        flushed_by_source: vec![
            ("adaptive", 10),
            ("lru", 20),
            ("sync", 0),
            ("background", 3),
            ("neighbor", 1),
        ],
        purged_records: Some(777),
        purged_undo_pages: Some(55),
    };
    let own = PollingState {
        up: true,
        scrape_duration_s: 0.0004,
        sample_age_s: Some(0.6),
        last_poll_s: Some(0.002),
        server_seconds_total: 1.5,
        polls_total: 42,
        last_error: None,
    };
    let me = Exporter {
        build: Build::current(),
        process: innodebt::serve::process::read(),
    };
    scrape(
        &Scrape {
            figures: Some(&figures),
            counters: Some(&counters),
            own: Some(&own),
            exporter: Some(&me),
        },
        format,
    )
}

/// The families a text declares (`# TYPE NAME ...`).
fn declared(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_family_passes_prometheus_parsers_in_both_formats() {
    let text = full_scrape(Format::Prometheus);
    promtool(&["check", "metrics"], Some(&text));
    let om = full_scrape(Format::OpenMetrics);
    assert!(om.ends_with("# EOF\n"));
    // The backfill parser wants a timestamp on every sample: give them all one.
    let now = chrono::Utc::now().timestamp() - 60;
    let stamped: String = om
        .lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("{l}\n")
            } else {
                format!("{l} {now}\n")
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scrape.om");
    std::fs::write(&file, &stamped).unwrap();
    let blocks = dir.path().join("blocks");
    promtool(
        &[
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            file.to_str().unwrap(),
            blocks.to_str().unwrap(),
        ],
        None,
    );
    std::fs::create_dir_all(blocks.join("wal")).unwrap();
    let dumped = promtool(&["tsdb", "dump", blocks.to_str().unwrap()], None);

    let (in_text, in_om) = (declared(&text), declared(&om));
    let sample_name = |name: &str, kind: Kind| match kind {
        Kind::Info => format!("{name}_info"),
        Kind::Counter => format!("{name}_total"),
        _ => name.to_string(),
    };
    let mut families: Vec<(&str, Kind)> = OWN.iter().map(|f| (f.name, f.kind)).collect();
    families.extend(COUNTERS.iter().map(|f| (f.name, f.kind)));
    families.extend(EXPORTER.iter().map(|f| (f.name, f.kind)));
    families.extend(FIGURES.iter().map(|f| (f.name, f.kind)));
    let mut missing = Vec::new();
    for (name, kind) in families {
        // innodebt_last_error is present only while down (checked below).
        if name == "innodebt_last_error" {
            continue;
        }
        let sample = sample_name(name, kind);
        if !in_om.contains(&name.to_string())
            || !in_text.contains(&sample)
            || !dumped.contains(&format!("__name__=\"{sample}\""))
                && !dumped.contains(&format!("{sample}{{"))
        {
            missing.push(name);
        }
    }
    // Figures this capture leaves unknown are absent by design; everything else is checked.
    let unknown_here = [
        "innodebt_counter_async_point_bytes",
        "innodebt_counter_sync_point_bytes",
        "innodebt_sync_flush_point_bytes",
        "innodebt_flush_pages_per_second",
        "innodebt_purge_records_per_second",
        "innodebt_purge_undo_pages_per_second",
        "innodebt_innodb_metrics_off",
        "innodebt_source_unavailable",
        // No performance_schema waits and trx_undo_slots_used off in this capture.
        "innodebt_rollback_segment_latch_wait_seconds_per_second",
        "innodebt_rollback_segment_latch_acquisitions_per_second",
        "innodebt_trx_sys_mutex_wait_seconds_per_second",
        "innodebt_undo_slots_used",
    ];
    let unexpected: Vec<&&str> = missing
        .iter()
        .filter(|m| !unknown_here.contains(m))
        .collect();
    assert!(
        unexpected.is_empty(),
        "not in both formats: {unexpected:?}\n{text}"
    );
    for must in [
        "innodebt_lsn_bytes_total 123456789",
        "innodebt_flushed_pages_total{source=\"lru\"} 20",
        "process_cpu_seconds_total",
        "innodebt_build_info{version=",
    ] {
        assert!(text.contains(must), "{must}: {text}");
    }
    assert!(
        om.contains("# TYPE innodebt_lsn_bytes counter\n# UNIT innodebt_lsn_bytes bytes\n"),
        "{om}"
    );
    assert!(om.contains("# TYPE innodebt_build info\n"), "{om}");

    // Down: the last error as an info, in both formats, through the same parsers.
    let down = PollingState {
        up: false,
        last_error: Some("connection refused by \"db1\"\\n".into()),
        ..PollingState::default()
    };
    let only_down = Scrape {
        own: Some(&down),
        ..Scrape::default()
    };
    let text = scrape(&only_down, Format::Prometheus);
    promtool(&["check", "metrics"], Some(&text));
    assert!(text.contains("innodebt_last_error_info{error="), "{text}");
}

/// The tests' reader of the exposition (`common::openmetrics`), checked on its own.
#[test]
fn the_test_reader_reads_what_innodebt_writes() {
    let text = "# TYPE innodebt_verdict stateset\n\
                innodebt_verdict{innodebt_verdict=\"healthy\"} 0\n\
                innodebt_verdict{innodebt_verdict=\"blocked_by_read_view\"} 1\n\
                innodebt_up 1\n\
                innodebt_seconds_to_stall_point +Inf\n\
                innodebt_purge_blocker_info{user=\"a\\\"b\",host=\"x\\\\y\"} 1 1700000000.5\n\
                # EOF\n";
    let s = crate::common::openmetrics::parse(text).unwrap();
    assert_eq!(s.value("innodebt_up"), Some(1.0));
    assert_eq!(
        s.states_on("innodebt_verdict"),
        vec!["blocked_by_read_view"]
    );
    assert_eq!(
        s.value("innodebt_seconds_to_stall_point"),
        Some(f64::INFINITY)
    );
    let b = s.all("innodebt_purge_blocker_info").next().unwrap();
    assert_eq!(b.label("user"), Some("a\"b"));
    assert_eq!(b.label("host"), Some("x\\y"));
}

#[test]
fn the_test_reader_names_malformed_lines() {
    for bad in [
        "innodebt_up",
        "innodebt_up abc",
        "x{a=\"1} 2",
        "x{a=1} 2",
        "{} 1",
    ] {
        let e = crate::common::openmetrics::parse(bad).unwrap_err();
        assert!(e.starts_with("line 1: "), "{bad}: {e}");
    }
}
