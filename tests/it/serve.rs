//! `innodebt serve` with real parts: a private MariaDB under write load with a read view
//! blocking purge, `innodebt serve` polling it (and recording it), and Debian's real
//! Prometheus scraping `/metrics` and `/probe`. A PromQL query returns the same checkpoint
//! age and history as `--once --format json` for that moment (within one tick); `promtool
//! check metrics` accepts the output; the recording replays and exports to OpenMetrics that
//! `promtool tsdb create-blocks-from openmetrics` loads.
//!
//! Faults injected for real: a probe of a port nothing listens on, a server behind a proxy
//! that stalls, a malformed config, a port already taken, hostile HTTP requests.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::serve::{Prometheus, Serve, http_raw, metric, promtool};
use common::wait::{OnTimeout, wait_for, wait_until};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use serde_json::Value;

/// Every (time, value) Prometheus stored for `series` in the `span_s` seconds before `end`.
fn points(p: &Prometheus, series: &str, end: f64, span_s: u32) -> Vec<(f64, f64)> {
    let result = p.query(&format!("{series}[{span_s}s]"), end);
    let values = result[0]["values"].as_array().cloned().unwrap_or_default();
    values
        .iter()
        .filter_map(|v| {
            let t = v[0].as_f64()?;
            let x = v[1].as_str()?.parse::<f64>().ok()?;
            Some((t, x))
        })
        .collect()
}

#[test]
fn prometheus_scrapes_the_same_figures_as_once_json() {
    let server = PrivateServer::start(ServerConfig::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _in_rt = rt.enter();
    let load = WriteLoad::paced(server.opts(), 2, 200);
    rt.block_on(load.wait_ops(100));
    let snapshot = rt.block_on(BlockingSnapshot::open(server.opts()));
    let record = tempfile::tempdir().unwrap();
    let mut serve = Serve::start(&common::serve::serve_args(
        &server,
        &[
            "--record-dir",
            record.path().to_str().unwrap(),
            "--max-disk",
            "50MB",
            "--probe-allow",
            "127.0.0.1",
        ],
    ));
    let target = format!("127.0.0.1:{}", server.port());
    let prom = Prometheus::start(&[
        ("innodebt", "/metrics", vec![serve.addr.to_string()]),
        (
            "probe",
            &format!("/probe?target={target}"),
            vec![serve.addr.to_string()],
        ),
    ]);

    // Wait for Prometheus to hold a few fresh scrapes with the blocker in them.
    let verdict = || {
        let now = chrono::Utc::now().timestamp() as f64;
        prom.query(
            "innodebt_verdict{job=\"innodebt\",innodebt_verdict=\"blocked_by_read_view\"}",
            now,
        )
    };
    let logs = || {
        format!(
            "the blocked_by_read_view verdict in Prometheus: {}\nserve: {}\nprometheus: {}",
            verdict(),
            serve.log(),
            prom.log()
        )
    };
    wait_until(Duration::from_secs(60), OnTimeout(logs), || {
        verdict()[0]["value"][1] == "1"
    });

    let json = common::once_json(&server.tcp_conn_args(), &[]);
    let t = chrono::DateTime::parse_from_rfc3339(json["sampled_at"].as_str().unwrap())
        .unwrap()
        .timestamp_millis() as f64
        / 1000.0;
    // The scrapes to compare with are found by the LSN, which only grows: the last one
    // taken before the --once read and the first after it (Prometheus stores a scrape at the
    // scrape's time, the sample it read is older by up to an interval — more when a loaded
    // machine makes the latency guard stretch serve's cadence — so a window of wall-clock
    // time around the moment may hold neither).
    let lsn = json["redo"]["lsn"].as_f64().expect("the LSN in JSON");
    let lsn_series = "innodebt_lsn_bytes_total{job=\"innodebt\"}";
    let lsns = wait_for(
        Duration::from_secs(60),
        "Prometheus holds a scrape of a sample taken after the --once moment",
        || {
            let now = chrono::Utc::now().timestamp_millis() as f64 / 1000.0;
            let span = (now - t).ceil() as u32 + 30;
            let lsns = points(&prom, lsn_series, now, span);
            lsns.iter()
                .any(|(_, l)| *l >= lsn)
                .then_some((lsns, now, span))
        },
    );
    let (lsns, end, span) = lsns;
    let from = lsns
        .iter()
        .rposition(|(_, l)| *l <= lsn)
        .expect("a scrape before the --once moment");
    let to = from
        + lsns[from..]
            .iter()
            .position(|(_, l)| *l >= lsn)
            .expect("a scrape after the --once moment");
    let (from_ts, to_ts) = (lsns[from].0, lsns[to].0);
    for (series, path) in [
        (
            "innodebt_checkpoint_age_bytes",
            ["redo", "checkpoint_age_bytes"],
        ),
        ("innodebt_history_list_length", ["history", "length"]),
    ] {
        let want = json[path[0]][path[1]].as_f64().expect("figure in JSON");
        let around: Vec<f64> = points(&prom, &format!("{series}{{job=\"innodebt\"}}"), end, span)
            .into_iter()
            .filter(|(ts, _)| *ts >= from_ts && *ts <= to_ts)
            .map(|(_, v)| v)
            .collect();
        assert!(
            !around.is_empty(),
            "{series}: no scrape from {from_ts} to {to_ts} (the --once LSN {lsn} between)"
        );
        let (lo, hi) = around
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        // Between the scrapes either side of the moment. Under write load checkpoint age moves
        // in steps of several hundred kB between two polls a fraction of a second apart, so
        // allow 25 %: a wrong figure (another unit, another source) is off by far more. A
        // checkpoint in the window (a fall between two scrapes) may have taken the age
        // anywhere down to nothing at the moment --once read it.
        let fell = around.windows(2).any(|w| w[1] < w[0]);
        let floor = if fell && series == "innodebt_checkpoint_age_bytes" {
            0.0
        } else {
            lo * 0.75
        };
        assert!(
            want >= floor && want <= hi * 1.25,
            "{series}: --once said {want}, Prometheus had {around:?} around that moment"
        );
        assert!(want > 0.0, "{series} should have moved under load: {want}");
    }
    // The probe job sees the same server.
    let now = chrono::Utc::now().timestamp() as f64;
    let probe_up = prom.query("innodebt_up{job=\"probe\"}", now);
    assert_eq!(probe_up[0]["value"][1], "1", "{probe_up}");
    let blocker = prom.query("innodebt_purge_blocker_thread_id{job=\"innodebt\"}", now);
    assert_eq!(
        blocker[0]["value"][1].as_str(),
        Some(snapshot.thread_id().to_string().as_str()),
        "{blocker}"
    );

    // promtool accepts both formats' text.
    for accept in ["text/plain", "application/openmetrics-text; version=1.0.0"] {
        let r = serve.get_with("/metrics", &[("Accept", accept)]);
        assert_eq!(r.status, 200);
        assert!(
            r.header("content-type")
                .unwrap()
                .starts_with(accept.split(';').next().unwrap())
        );
        if accept == "text/plain" {
            promtool(&["check", "metrics"], Some(&r.body));
        } else {
            assert!(r.body.ends_with("# EOF\n"));
            assert!(r.body.contains("# TYPE innodebt_verdict stateset\n"));
            assert!(
                r.body
                    .contains("# UNIT innodebt_checkpoint_age_bytes bytes\n")
            );
        }
    }
    // INNODB_METRICS counters are off by default here: their figures are absent, not 0.
    let text = serve.get("/metrics").body;
    assert!(
        !text.contains("innodebt_purge_records_per_second"),
        "{text}"
    );
    assert!(text.contains("innodebt_innodb_metrics_off{counter=\"purge_del_mark_records\"} 1"));
    // innodebt's own cost per tick, as the dashboard shows it.
    let statements = metric(&text, "innodebt_self_statements_per_tick").expect("own cost");
    assert!(statements >= 2.0, "{text}");
    let own = metric(&text, "innodebt_self_server_seconds_per_tick").expect("own time");
    assert!(own > 0.0 && own < 1.0, "{own}");

    rt.block_on(snapshot.commit());
    drop(load);
    let status = serve.terminate();
    assert!(status.success(), "serve exit {status:?}: {}", serve.log());

    // The flight recorder: the local target and the probed one, each replayable.
    for dir in ["local", &target.replace(':', "_")] {
        let path = record.path().join(dir);
        let out = Command::new(common::innodebt_bin())
            .args([
                "replay",
                path.to_str().unwrap(),
                "--once",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "replay {dir}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["history"]["length"].as_u64().unwrap_or(0) > 0, "{v}");
    }
    // Export the recording as OpenMetrics and load it into a TSDB with promtool.
    let om = record.path().join("local.om");
    let out = Command::new(common::innodebt_bin())
        .args(["export", record.path().join("local").to_str().unwrap()])
        .args(["--format", "openmetrics", "-o", om.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&om).unwrap();
    assert!(text.ends_with("# EOF\n"));
    let blocks = record.path().join("blocks");
    promtool(
        &[
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            om.to_str().unwrap(),
            blocks.to_str().unwrap(),
        ],
        None,
    );
    // `tsdb dump` wants a whole TSDB directory (with a WAL), not just blocks.
    std::fs::create_dir_all(blocks.join("wal")).unwrap();
    let dumped = promtool(
        &[
            "tsdb",
            "dump",
            blocks.to_str().unwrap(),
            "--match",
            "innodebt_history_list_length",
        ],
        None,
    );
    assert!(
        dumped
            .lines()
            .filter(|l| l.contains("innodebt_history_list_length"))
            .count()
            >= 5,
        "the loaded blocks hold the history series: {dumped:.2000}"
    );
}

#[test]
fn a_stalled_server_never_holds_a_scrape() {
    let server = PrivateServer::start(ServerConfig::default());
    let proxy = common::proxy::StallProxy::start(server.port());
    let mut args = proxy.conn_args();
    args.extend(
        [
            "--no-defaults",
            "--interval",
            "1s",
            "--query-timeout",
            "2s",
            "serve",
            "--probe-allow",
            "127.0.0.1",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.extend(["--listen".into(), "127.0.0.1:0".into()]);
    let serve = Serve::start(&args);
    let up = || metric(&serve.get("/metrics").body, "innodebt_up");
    let logs = |what: &str| format!("innodebt_up 1 {what}: {}", serve.log());
    wait_until(
        Duration::from_secs(30),
        OnTimeout(|| logs("at start")),
        || up() == Some(1.0),
    );
    proxy.pause();
    // Every scrape answers at once, and within the staleness limit the target goes down.
    let down = wait_for(
        Duration::from_secs(15),
        OnTimeout(|| format!("innodebt_up 0 after the stall: {}", serve.log())),
        || {
            let r = serve.get("/metrics");
            assert!(
                r.took < Duration::from_millis(500),
                "a scrape took {:?}",
                r.took
            );
            (metric(&r.body, "innodebt_up") == Some(0.0)).then_some(r)
        },
    );
    assert!(
        !down.body.contains("innodebt_checkpoint_age_bytes"),
        "{}",
        down.body
    );
    assert!(
        down.body.contains("innodebt_last_error_info{error="),
        "{}",
        down.body
    );
    // A new target behind the stalled proxy: the scrape waits no longer than its timeout.
    let r = serve.get_with(
        &format!("/probe?target=127.0.0.1:{}", proxy.port()),
        &[("X-Prometheus-Scrape-Timeout-Seconds", "2")],
    );
    assert_eq!(r.status, 200);
    assert!(r.took < Duration::from_millis(2500), "took {:?}", r.took);
    assert_eq!(metric(&r.body, "innodebt_up"), Some(0.0), "{}", r.body);
    proxy.resume();
    wait_until(
        Duration::from_secs(30),
        OnTimeout(|| logs("again after the stall")),
        || up() == Some(1.0),
    );
}

#[test]
fn bad_input_gets_a_clear_answer() {
    // Nothing listens on the target port: up 0 and the reason, at once.
    let mut serve = Serve::start(&[
        "--no-defaults".into(),
        "-h".into(),
        "127.0.0.1".into(),
        "-P".into(),
        "1".into(),
        "serve".into(),
        "--listen".into(),
        "127.0.0.1:0".into(),
        "--probe-allow".into(),
        "127.0.0.1".into(),
    ]);
    let dead = common::serve::free_port();
    let r = serve.get(&format!("/probe?target=127.0.0.1:{dead}"));
    assert_eq!(r.status, 200);
    assert!(r.took < Duration::from_secs(6), "{:?}", r.took);
    assert_eq!(metric(&r.body, "innodebt_up"), Some(0.0), "{}", r.body);
    assert!(r.body.contains("refused"), "{}", r.body);
    for (path, status, words) in [
        ("/probe", 400, "missing ?target=NAME"),
        (
            "/probe?target=root:secret@db1",
            400,
            "credentials and paths don't go in a target",
        ),
        ("/probe?target=db%201", 400, "is not a host[:port]"),
        ("/nope", 404, "scrape /metrics or /probe?target=NAME"),
    ] {
        let r = serve.get(path);
        assert_eq!(r.status, status, "{path}: {}", r.body);
        assert!(r.body.contains(words), "{path}: {}", r.body);
    }
    assert!(!serve.log().contains("secret"), "{}", serve.log());
    // Hostile HTTP: wrong method, oversized head, a body, garbage; and a slow client that
    // never finishes its head does not hold up the others.
    let slow = std::net::TcpStream::connect(serve.addr).unwrap();
    let mut slow_w = slow.try_clone().unwrap();
    use std::io::Write;
    slow_w
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let post = http_raw(
        serve.addr,
        b"POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nab",
    );
    assert_eq!(post.status, 405);
    assert_eq!(
        post.header("allow").as_deref(),
        Some("GET, HEAD"),
        "{}",
        post.head
    );
    let huge = format!(
        "GET /metrics HTTP/1.1\r\nX-Big: {}\r\n\r\n",
        "a".repeat(10_000)
    );
    assert_eq!(http_raw(serve.addr, huge.as_bytes()).status, 431);
    assert_eq!(
        http_raw(serve.addr, b"\x16\x03\x01garbage\r\n\r\n").status,
        400
    );
    let ok = serve.get("/healthz");
    assert_eq!((ok.status, ok.body.as_str()), (200, "ok\n"));
    // The slow client is cut after the head deadline (10 s), as Go's servers cut it: closed.
    let mut slow_r = slow;
    slow_r
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut buf = String::new();
    use std::io::Read;
    assert!(
        slow_r.read_to_string(&mut buf).is_ok(),
        "still open after 15 s"
    );
    assert!(buf.is_empty(), "{buf}");
    let status = serve.terminate();
    assert!(status.success(), "{status:?}: {}", serve.log());

    // A port in use: a clear message and exit code 2.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = Command::new(common::innodebt_bin())
        .args([
            "--no-defaults",
            "-h",
            "127.0.0.1",
            "-P",
            "1",
            "serve",
            "--listen",
        ])
        .arg(format!("127.0.0.1:{port}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the port is already in use"), "{err}");
    // A malformed config: the file, the line, what is wrong.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("innodebt.toml");
    std::fs::write(&cfg, "[targets.db1]\nhost = \"db1\"\nprot = 3306\n").unwrap();
    let out = Command::new(common::innodebt_bin())
        .args([
            "--no-defaults",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--config",
        ])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("innodebt.toml: not valid") && err.contains("prot") && err.contains("line 3"),
        "{err}"
    );
}
