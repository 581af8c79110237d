//! Record and replay against a real (private) MariaDB: what the live derivation showed for a
//! moment is exactly what `replay --once --at` prints for it; headless recording stops
//! cleanly on SIGTERM; a recorder killed with -9 leaves a readable capture; a real pt-stalk
//! capture imports.

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::wait::duration_is_the_point_async;
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use innodebt::cli::{ConnectOptions, Endpoint};
use innodebt_capture::{self as capture, Header};
use innodebt_engine::derive::Deriver;
use innodebt_poller::connect;
use innodebt_poller::live::{PollerConfig, Session};
use innodebt_server::sample::SourceEvent;
use serde_json::Value;

fn replay_once_at(file: &std::path::Path, at: &str) -> Value {
    let out = Command::new(common::innodebt_bin())
        .arg("replay")
        .arg(file)
        .args(["--once", "--format", "json", "--at", at])
        .output()
        .expect("run innodebt replay");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_moment_equals_the_live_figures() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 3, 200);
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let opts = ConnectOptions::new(Endpoint::Socket(server.socket()));
    let cfg = PollerConfig {
        interval: Duration::from_millis(500),
        label: opts.label(),
        ..PollerConfig::default()
    };
    let conn = connect::connect(&opts).await.expect("connect");
    let mut session = Session::open(conn, &cfg).await.expect("session");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("live.idbt");
    let mut writer = innodebt::replay::create_writer(
        &file,
        &Header::new(chrono::Utc::now(), None, false),
        Default::default(),
    )
    .expect("create");
    let connected = SourceEvent::Connected {
        at: chrono::Utc::now(),
        info: session.info.clone(),
    };
    writer.append(&connected).expect("append");
    let mut live = Deriver::new();
    live.push(&connected);
    let started = Instant::now();
    let mut shown = Vec::new();
    for i in 0..8 {
        duration_is_the_point_async(
            cfg.interval,
            "the poller's cadence: the rates the replay must match are over its interval",
        )
        .await;
        let sample = session
            .poll(&cfg, started, i == 0, false)
            .await
            .expect("poll");
        let event = SourceEvent::Sample(Box::new(sample.clone()));
        writer.append(&event).expect("append");
        let figures = live.push(&event).expect("figures");
        shown.push((
            sample.taken_at,
            innodebt::output::json_value(&figures).expect("json"),
        ));
    }
    writer.finish().expect("finish");
    snapshot.commit().await;
    load.stop().await;

    for (at, live_json) in [&shown[3], &shown[7]] {
        let replayed = replay_once_at(&file, &at.to_rfc3339());
        same_figures(&replayed, live_json, "");
    }
    let last = &shown[7].1;
    assert!(
        last["blocker"]["thread_id"].as_u64().is_some(),
        "{}",
        last["blocker"]
    );
    assert!(last["verdicts"].as_array().is_some_and(|v| !v.is_empty()));
    // What each tick cost the server is part of the raw sample: the replay shows it too
    // (equal above, and present, not null on both sides).
    assert!(
        last["self"]["statements_per_tick"]
            .as_u64()
            .is_some_and(|n| n >= 3),
        "{}",
        last["self"]
    );
    let replayed = replay_once_at(&file, &shown[7].0.to_rfc3339());
    assert!(replayed["self"]["server_ms_p95_1m"].as_f64().is_some());
}

/// Equal JSON, numbers equal to 1e-9 relative (the capture stores times to the µs, so a
/// rate's last digits may differ).
fn same_figures(a: &Value, b: &Value, path: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                "{path}: {x} vs {y}"
            );
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys_x: Vec<_> = x.keys().collect();
            let keys_y: Vec<_> = y.keys().collect();
            assert_eq!(keys_x, keys_y, "{path}");
            for (k, v) in x {
                same_figures(v, &y[k], &format!("{path}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{path}");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same_figures(p, q, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(a, b, "{path}"),
    }
}

#[test]
fn headless_record_stops_cleanly_on_sigterm_and_survives_kill_9() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    for (signal, complete) in [("-TERM", true), ("-KILL", false)] {
        let file = dir.path().join(format!("rec{signal}.idbt"));
        let child = Command::new(common::innodebt_bin())
            .args(server.conn_args())
            .args(["--no-defaults", "--interval", "200ms", "record"])
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn recorder");
        // The capture is flushed after every record: what is written so far reads.
        common::recorded::wait_for_samples(&file, 3, Duration::from_secs(20));
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let out = child.wait_with_output().expect("wait");
        let cap = capture::open(&file).expect("the capture opens");
        let samples = cap
            .events
            .iter()
            .filter(|e| matches!(e, SourceEvent::Sample(_)))
            .count();
        assert!(samples >= 3, "{signal}: {samples} samples");
        assert_eq!(cap.end.is_complete(), complete, "{signal}: {:?}", cap.end);
        if complete {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(String::from_utf8_lossy(&out.stderr).contains("recorded"));
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // And it replays headless up to its last complete record.
        let v = replay_once_at(&file, "+0s");
        assert_eq!(v["server"]["flavor"], "mariadb");
    }
}

#[test]
fn record_with_a_duration_then_export_csv() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("d.idbt");
    let out = Command::new(common::innodebt_bin())
        .args(server.conn_args())
        .args(["--no-defaults", "--interval", "250ms", "record"])
        .arg(&file)
        .args(["--duration", "2s"])
        .output()
        .expect("record");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = Command::new(common::innodebt_bin())
        .arg("export")
        .arg(&file)
        .args(["--format", "csv"])
        .output()
        .expect("export");
    let text = String::from_utf8_lossy(&csv.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("time,"), "{}", lines[0]);
    // One row per sample the capture holds. How many 2 s hold at 250 ms is the machine's
    // speed (on a loaded machine the latency guard stretches the cadence), so the count is
    // read from the capture, not assumed.
    let cap = capture::open(&file).expect("the recording reads back");
    let mut deriver = Deriver::new();
    let samples = cap.events.iter().filter_map(|ev| deriver.push(ev)).count();
    assert!(samples >= 1, "the recording holds samples: {:?}", cap.end);
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    assert_eq!(lines.len() - 1, samples, "one row per sample:\n{text}");
    // `-o` writes the same CSV to a new file, 0600 like the capture.
    let csv_file = dir.path().join("d.csv");
    let to_file = Command::new(common::innodebt_bin())
        .arg("export")
        .arg(&file)
        .args(["--format", "csv", "-o"])
        .arg(&csv_file)
        .output()
        .expect("export -o");
    assert!(to_file.status.success(), "{to_file:?}");
    assert_eq!(std::fs::read_to_string(&csv_file).expect("csv"), text);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&csv_file).expect("meta").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    // Refuses to overwrite an existing capture.
    let again = Command::new(common::innodebt_bin())
        .args(server.conn_args())
        .args(["--no-defaults", "record"])
        .arg(&file)
        .args(["--duration", "1s"])
        .output()
        .expect("record");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
}

#[test]
fn bad_capture_files_get_one_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.idbt");
    std::fs::write(&empty, b"").expect("write");
    let foreign = dir.path().join("foreign.idbt");
    std::fs::write(&foreign, b"SELECT 1;\n").expect("write");
    for (file, says) in [(&empty, "empty"), (&foreign, "not an innodebt capture")] {
        let out = Command::new(common::innodebt_bin())
            .arg("replay")
            .arg(file)
            .args(["--once"])
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            err.contains(says) && err.contains(&file.display().to_string()),
            "{err}"
        );
        assert!(!err.contains("panicked"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_pt_stalk_capture_imports_and_replays() {
    let pt_stalk = common::find_binary(&["pt-stalk"]);
    let Ok(pt_stalk) = pt_stalk else {
        common::gate::missing::<()>(
            "pt-stalk is not installed",
            "apt-get install percona-toolkit",
            "import of a fresh pt-stalk capture",
        );
        return;
    };
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let dir = tempfile::tempdir().expect("tempdir");
    let dest = dir.path().join("stalk");
    let out = Command::new(pt_stalk)
        .args(["--no-stalk", "--iterations=1", "--run-time=5", "--sleep=0"])
        // pt-stalk cancels a collection (leaving only `disk-space`) when the
        // disk is over 95 % full or under 100 MB + 20 MB free; a CI runner's
        // disk can be: the capture itself is a few hundred kB.
        .args(["--disk-pct-free=0", "--disk-bytes-free=1"])
        .arg(format!("--dest={}", dest.display()))
        .arg(format!(
            "--log={}",
            dir.path().join("pt-stalk.log").display()
        ))
        .arg(format!(
            "--pid={}",
            dir.path().join("pt-stalk.pid").display()
        ))
        .arg("--")
        .arg(format!("--socket={}", server.socket().display()))
        .arg("--user=root")
        .stdin(Stdio::null())
        .output()
        .expect("run pt-stalk");
    load.stop().await;
    assert!(
        dest.is_dir(),
        "pt-stalk wrote nothing: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stalk_log = std::fs::read_to_string(dir.path().join("pt-stalk.log")).unwrap_or_default();
    let file = dir.path().join("imported.idbt");
    let imp = Command::new(common::innodebt_bin())
        .args(["import", "pt-stalk"])
        .arg(&dest)
        .arg("-o")
        .arg(&file)
        .output()
        .expect("import");
    assert!(
        imp.status.success(),
        "{}\npt-stalk log:\n{stalk_log}",
        String::from_utf8_lossy(&imp.stderr)
    );
    let v = replay_once_at(&file, "+2s");
    assert_eq!(v["server"]["flavor"], "mariadb");
    assert!(v["history"]["length"].as_u64().is_some(), "{v}");
    assert!(v["redo"]["checkpoint_age_bytes"].as_u64().is_some(), "{v}");
}

/// The demo with 4 KiB of random bytes over its middle (as `dd conv=notrunc` leaves it):
/// every reader says what damage cost, in the same words — `replay --once` on stderr and in
/// its JSON (`capture_notes`), `export`, `compare` and `replay --what-if` — how much of the
/// capture could be read, where the damage is and which stretch of time it took (up to the
/// writer's end mark). A time in the lost stretch is refused like any time after the capture.
#[test]
fn a_damaged_capture_says_what_it_lost_in_every_reader() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = common::damage::damaged_demo(dir.path());
    let f = file.to_string_lossy();
    let run = |args: &[&str]| {
        let out = Command::new(common::innodebt_bin())
            .args(args)
            .output()
            .expect("run innodebt");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {err}");
        (String::from_utf8_lossy(&out.stdout).into_owned(), err)
    };
    let notes_of = |err: &str| -> Vec<String> {
        err.lines()
            .filter_map(|l| l.strip_prefix("innodebt: note: "))
            .map(String::from)
            .collect()
    };

    let (json, err) = run(&["replay", &f, "--once", "--format", "json"]);
    let notes = notes_of(&err);
    assert_eq!(
        notes.first().map(String::as_str),
        Some(format!("{f}: damaged: 1m37s of 3m30s could be read").as_str()),
        "{err}"
    );
    assert!(
        notes.iter().any(
            |n| n.starts_with(&format!("{f}: section 0: damaged at byte "))
                && n.ends_with(
                    "the samples after 21:20:48 up to the end mark at 21:22:41 (1m53s) are lost"
                )
        ),
        "{err}"
    );
    let j: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(j["capture_notes"], serde_json::json!(notes));
    // What it shows is the last sample read.
    assert!(
        j["sampled_at"]
            .as_str()
            .is_some_and(|t| t.starts_with("2026-11-21T21:20:48")),
        "{}",
        j["sampled_at"]
    );

    let (_, err) = run(&["replay", &f, "--once"]);
    assert_eq!(notes_of(&err), notes, "replay --once as text");
    let (csv, err) = run(&["export", &f]);
    assert_eq!(notes_of(&err), notes, "export");
    assert_eq!(
        csv.lines().count(),
        1 + 98,
        "a header and the 98 samples read"
    );
    let (_, err) = run(&[
        "replay",
        &f,
        "--what-if",
        "innodb_log_file_size=1G",
        "--format",
        "json",
    ]);
    assert_eq!(notes_of(&err), notes, "replay --what-if");
    let (json, _) = run(&["compare", &format!("{f}@..+30s"), &f, "--format", "json"]);
    let c: Value = serde_json::from_str(&json).expect("JSON");
    let expected: Vec<String> = ["incident", "baseline"]
        .iter()
        .flat_map(|side| notes.iter().map(move |n| format!("{side} capture: {n}")))
        .collect();
    assert_eq!(c["warnings"], serde_json::json!(expected));

    let out = Command::new(common::innodebt_bin())
        .args(["replay", &f, "--once", "--at", "+2m"])
        .output()
        .expect("run innodebt");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--at +2m (21:21:11) is after what can be read of the capture: ")
            && err
                .contains("21:19:11 → 21:20:48 UTC (1m37s; damaged: 1m37s of 3m30s could be read)"),
        "{err}"
    );
}
