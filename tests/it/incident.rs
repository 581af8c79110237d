//! After an incident, against real MariaDB captures: `compare` ranks what explains the demo's
//! incident (a read view blocking purge) first against the same setup at rest, and warns that
//! the captures come from different servers; `replay --what-if` on a capture whose checkpoint
//! age crossed the async point finds, at the recorded size, the crossings the capture's own
//! timeline shows, and none with a log large enough. Bad input says what is wrong.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{PrivateServer, ServerConfig, WriteLoad};
use innodebt::data_view::moments::MomentKind;
use innodebt::replay::CaptureSet;
use innodebt_engine::verdicts::RecoveryModel;
use serde_json::Value;

const DEMO: &str = "demo/mariadb-10.11-blocker.idbt";

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO)
}

fn innodebt(args: &[&str]) -> std::process::Output {
    Command::new(common::innodebt_bin())
        .args(args)
        .output()
        .expect("run innodebt")
}

fn json_of(out: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "innodebt failed: {}\nstdout: {stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// `innodebt record FILE --duration DUR` against `server`, off the async runtime's threads.
async fn record(server: &PrivateServer, file: &Path, duration: &str) {
    let mut args = server.conn_args();
    args.extend(
        [
            "--no-defaults",
            "--interval",
            "1s",
            "record",
            &file.to_string_lossy(),
            "--duration",
            duration,
        ]
        .map(String::from),
    );
    let out = tokio::task::spawn_blocking(move || {
        Command::new(common::innodebt_bin())
            .args(&args)
            .output()
            .expect("run innodebt record")
    })
    .await
    .expect("join");
    assert!(
        out.status.success(),
        "record failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The demo's server settings (demo/record-demo.sh), so only the load and the blocker differ.
fn demo_like() -> ServerConfig {
    ServerConfig::default()
        .log_file_size("16M")
        .buffer_pool_size("32M")
        .with_args([
            "--innodb-flush-log-at-trx-commit=2",
            "--innodb-io-capacity=100",
            "--innodb-io-capacity-max=200",
            "--innodb-monitor-enable=module_buffer,module_purge,module_log,trx_rseg_current_size,module_buffer_page",
        ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_ranks_the_blocker_and_history_first_against_the_server_at_rest() {
    let server = PrivateServer::start(demo_like());
    let dir = tempfile::tempdir().expect("tempdir");
    let rest = dir.path().join("rest.idbt");
    record(&server, &rest, "15s").await;

    let demo = demo();
    let out = innodebt(&[
        "compare",
        &demo.to_string_lossy(),
        &rest.to_string_lossy(),
        "--format",
        "json",
    ]);
    let c = json_of(&out);
    let ranked = c["ranked"].as_array().expect("ranked");
    let names: Vec<&str> = ranked.iter().filter_map(|r| r["name"].as_str()).collect();
    let debt = [
        "blocker age",
        "history length",
        "history held back by the oldest read view",
        "history growth",
        "undo size",
    ];
    assert!(
        names.iter().take(3).all(|n| debt.contains(n)),
        "top 3 not blocker/history figures: {names:?}"
    );
    let first_two = &names[..2];
    assert!(
        first_two.contains(&"history length") || first_two.contains(&"blocker age"),
        "{names:?}"
    );
    // The incident held the blocked verdict; the baseline never did.
    let blocked = c["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .find(|v| v["kind"] == "blocked_by_read_view")
        .expect("blocked_by_read_view in the incident");
    assert!(blocked["incident"]["seconds"].as_f64().unwrap_or(0.0) > 60.0);
    assert_eq!(blocked["baseline"]["seconds"].as_f64(), Some(0.0));
    // The demo was recorded on another machine's server: warned, and still compared.
    let warnings = c["warnings"].to_string();
    assert!(warnings.contains("different servers"), "{warnings}");
    assert!(c["baseline"]["samples"].as_u64().unwrap_or(0) >= 10);

    // Text: the same first line, the warning on stderr; a range of one capture works too.
    let out = innodebt(&[
        "compare",
        &format!("{}@+40s..+150s", demo.display()),
        &format!("{}@..+30s", demo.display()),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("(111 samples"), "{text}");
    let first = text
        .lines()
        .find(|l| l.trim_start().starts_with("1. "))
        .expect("a ranked line");
    assert!(debt.iter().any(|d| first.contains(d)), "{first}");

    // The compare screen over the same two captures: the same ranking, first row selected,
    // the demo's blocker marked on the incident's timeline.
    let model = RecoveryModel::published_default();
    let mut inc = CaptureSet::open_file(&demo, model.clone()).expect("open the demo");
    let mut base = CaptureSet::open_file(&rest, model).expect("open the capture at rest");
    let all = |s: &CaptureSet| innodebt::postmortem::CaptureWindow {
        first: 0,
        last: s.len() - 1,
    };
    let (iw, bw) = (all(&inc), all(&base));
    let view = innodebt::postmortem::compare_view(&mut inc, iw, &mut base, bw).expect("compare");
    let shown: Vec<&str> = view
        .comparison
        .ranked
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(shown, names, "the screen ranks as the JSON does");
    let app = innodebt::app::App::comparing(view, chrono::Utc::now());
    let mut term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("test backend");
    term.draw(|f| innodebt::render::render(f, &app, &innodebt::theme::Theme::default()))
        .expect("draw");
    let buf = term.backend().buffer().clone();
    let rows: Vec<String> = buf
        .content
        .chunks(80)
        .map(|r| r.iter().map(|c| c.symbol()).collect())
        .collect();
    let selected = rows
        .iter()
        .find(|r| r.contains("▶ "))
        .expect("a selected row");
    assert!(selected.contains(names[0]), "{selected}");
    let bar = rows
        .iter()
        .position(|r| r.contains("│incident"))
        .and_then(|i| rows.get(i + 1))
        .expect("the incident's timeline");
    assert!(bar.contains('B'), "{bar}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_if_on_a_capture_past_async() {
    // 8 MiB of redo under write load: checkpoint age runs past the async point.
    let server = PrivateServer::start(ServerConfig::default().log_file_size("8M"));
    const LOAD_FOR: Duration = Duration::from_secs(300);
    let load = WriteLoad::start_for(server.opts(), 8, LOAD_FOR);
    load.wait_ops(100).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // How soon the load takes the age past async, and for how long, is the machine's speed
    // (a suite running beside it slows the load): a capture of 30 s that shows no time past
    // async is taken again while the load runs, before the test gives up.
    let loaded = std::time::Instant::now();
    let mut attempt = 0;
    let (file, set, shown, at_recorded) = loop {
        attempt += 1;
        let file = dir.path().join(format!("busy{attempt}.idbt"));
        record(&server, &file, "30s").await;
        // What the capture's own timeline shows: its async crossings.
        let set = CaptureSet::open_file(&file, RecoveryModel::published_default()).expect("open");
        let shown = set
            .moments()
            .iter()
            .filter(|m| m.kind == MomentKind::AsyncCrossed)
            .count() as u64;
        let at_recorded = json_of(&innodebt(&[
            "replay",
            &file.to_string_lossy(),
            "--what-if",
            "innodb_log_file_size=8M",
            "--format",
            "json",
        ]));
        let past = at_recorded["redo"]["recorded"]["seconds_past_async"]
            .as_f64()
            .unwrap_or(0.0);
        if shown > 0 && past > 0.0 {
            break (file, set, shown, at_recorded);
        }
        assert!(
            loaded.elapsed() + Duration::from_secs(40) < LOAD_FOR,
            "in {attempt} captures of 30 s the load never kept checkpoint age past async \
             (last: {shown} crossings, {past} s past): the test proves nothing"
        );
    };
    load.stop().await;
    assert!(set.len() >= 25);

    let path = file.to_string_lossy();
    let redo = &at_recorded["redo"];
    assert_eq!(redo["what_if"]["async_crossings"].as_u64(), Some(shown));
    assert_eq!(redo["recorded"]["async_crossings"].as_u64(), Some(shown));
    assert_eq!(
        redo["what_if"]["seconds_past_async"],
        redo["recorded"]["seconds_past_async"]
    );
    assert_eq!(
        redo["what_if"]["async_point_bytes"],
        redo["recorded"]["async_point_bytes"]
    );
    assert!(
        redo["what_if"]["seconds_past_async"]
            .as_f64()
            .unwrap_or(0.0)
            > 0.0
    );

    // 1 GiB: the recorded ages never reach its async point.
    let big = json_of(&innodebt(&[
        "--once",
        "replay",
        &path,
        "--what-if",
        "innodb_log_file_size=1G",
        "--format",
        "json",
    ]));
    // With --once the figures of the last moment carry the what-if as `what_if`.
    assert!(big["redo"]["checkpoint_age_bytes"].as_u64().is_some());
    let w = &big["what_if"]["redo"]["what_if"];
    assert_eq!(w["seconds_past_async"].as_f64(), Some(0.0));
    assert_eq!(w["async_crossings"].as_u64(), Some(0));
    let summary = big["what_if"]["summary"][0].as_str().unwrap_or_default();
    assert!(
        summary.starts_with("with innodb_log_file_size = 1G: async never reached"),
        "{summary}"
    );
    assert!(
        big["what_if"]["limits"]
            .to_string()
            .contains("not modelled")
    );
}

#[test]
fn bad_input_says_what_is_wrong() {
    let demo = demo();
    let d = demo.to_string_lossy();
    let cases: &[(&[&str], &str)] = &[
        (
            &["replay", &d, "--what-if", "innodb_bogus=1"],
            "unknown variable \"innodb_bogus\"",
        ),
        (
            &["replay", &d, "--what-if", "innodb_io_capacity=4000"],
            "no model for innodb_io_capacity",
        ),
        (
            &["replay", &d, "--what-if", "innodb_purge_threads=8"],
            "no model for innodb_purge_threads",
        ),
        (
            &["replay", &d, "--what-if", "innodb_redo_log_capacity=4G"],
            "sizes redo with innodb_log_file_size",
        ),
        (
            &["replay", &d, "--what-if", "innodb_log_file_size"],
            "VAR=VALUE",
        ),
        (&["compare", &d, "nowhere.idbt"], "nowhere.idbt"),
        (&["compare", &format!("{d}@14:00"), &d], "FROM..TO"),
        (
            &["compare", &format!("{d}@+100s..+10s"), &d],
            "ends before it starts",
        ),
    ];
    for (args, needle) in cases {
        let out = innodebt(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The real binary on a terminal (tmux, 80×24): `compare` without `--format` opens the compare
/// screen; Enter shows the first difference in detail, Esc closes it, `q` quits back to the
/// shell. The same command with `--format text` still prints the report.
#[test]
fn compare_on_a_terminal_opens_the_screen() {
    use common::tmux::Tmux;
    let long = Duration::from_secs(20);
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = demo();
    let command = format!(
        "{} compare {}@+40s..+150s {}@..+30s",
        common::innodebt_bin().display(),
        demo.display(),
        demo.display()
    );
    let tmux = Tmux::start(dir.path(), 80, 24);
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the compare screen", long, |s| {
        s.contains("COMPARE") && s.contains("differences, most likely explanation first")
    });
    assert!(screen.contains("▶  1 ["), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the detail", long, |s| {
        s.contains("median") && s.contains("Enter or Esc closes")
    });
    tmux.keys(&["Escape"]);
    // Seen closed, the Esc was read on its own: a q sent with it unread would read as Alt-q.
    tmux.wait_for("the detail closed", long, |s| {
        !s.contains("Enter or Esc closes")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", long, |s| !s.contains("COMPARE"));
    tmux.type_text(&format!("clear; {command} --format text | head -3"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the report", long, |s| {
        s.contains("incident: ") && s.contains("baseline: ") && !s.contains("COMPARE")
    });
}

/// A time on the command line is checked one way for every command that reads a capture
/// (replay, export, compare, what-if): outside the capture is an error naming what it holds
/// (the demo: 3m29s from 21:19:11), a range that ends before it starts is one too — never the
/// first or last sample printed with exit 0. A time within a sample of either end is its end.
#[test]
fn times_outside_a_capture_and_reversed_ranges_are_refused_alike() {
    let demo = demo();
    let d = demo.to_string_lossy();
    let holds = format!("{d} holds 2026-11-21 21:19:11 → 21:22:40 UTC (3m29s)");
    let reversed = "--from +3m (21:22:11) is after --to +1m (21:20:11): the range ends before \
                    it starts; give them in time order";
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["replay", &d, "--once", "--at", "2020-01-01T00:00:00Z"],
            &[
                "--at 2020-01-01 00:00:00 UTC is before the capture: ",
                &holds,
                "give a time inside it (e.g. +1m40s or 21:20:51)",
            ],
        ),
        (
            &["replay", &d, "--once", "--format", "json", "--at", "+10m"],
            &["--at +10m (21:29:11) is after the capture: ", &holds],
        ),
        (
            &["export", &d, "--from", "+10m"],
            &["--from +10m (21:29:11) is after the capture: ", &holds],
        ),
        (
            &["replay", &d, "--once", "--from", "+3m", "--to", "+1m"],
            &[reversed],
        ),
        (&["export", &d, "--from", "+3m", "--to", "+1m"], &[reversed]),
        (
            &[
                "replay",
                &d,
                "--what-if",
                "innodb_log_file_size=1G",
                "--format",
                "json",
                "--from",
                "+3m",
                "--to",
                "+1m",
            ],
            &[reversed],
        ),
        (
            &["compare", &format!("{d}@+3m..+1m"), &d],
            &[
                "@+3m..+1m: FROM +3m (21:22:11) is after TO +1m (21:20:11): the range ends before it starts",
            ],
        ),
        (
            &["compare", &format!("{d}@+10m.."), &d],
            &[
                "@+10m..: FROM +10m (21:29:11) is after the capture: ",
                &holds,
            ],
        ),
        (
            &["compare", &d, &format!("{d}@..2020-01-01T00:00:00Z")],
            &["TO 2020-01-01 00:00:00 UTC is before the capture: ", &holds],
        ),
    ];
    for (args, needles) in cases {
        let out = innodebt(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a report");
        for needle in *needles {
            assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
        }
    }
    // The example the message gives is inside; a clock time within the second before the
    // first sample (21:19:11.945) and an offset a second past the last are the ends.
    for (at, sampled) in [
        ("+1m40s", "2026-11-21T21:20:51"),
        ("21:19:11", "2026-11-21T21:19:11"),
        ("+3m30s", "2026-11-21T21:22:40"),
    ] {
        let j = json_of(&innodebt(&[
            "replay", &d, "--once", "--format", "json", "--at", at,
        ]));
        let got = j["sampled_at"].as_str().unwrap_or_default();
        assert!(got.starts_with(sampled), "--at {at}: {got}");
    }
}

/// `compare` ranks only sides with enough samples for their medians and spreads: one sample
/// (the last, which `FILE@+3m25s..` holds five of) is refused with how many it holds and a
/// wider window to give, which is then compared.
#[test]
fn a_window_too_small_to_compare_is_refused() {
    let demo = demo();
    let d = demo.to_string_lossy();
    for (args, which, held) in [
        (
            vec![format!("{d}@+3m25s.."), d.to_string()],
            "the incident window",
            "holds 5 samples (21:22:36 → 21:22:40): too few to compare",
        ),
        (
            vec![d.to_string(), format!("{d}@+1m..+1m")],
            "the baseline window",
            "holds 1 sample (21:20:11): too few to compare",
        ),
    ] {
        let mut argv = vec!["compare".to_string()];
        argv.extend(args);
        argv.extend(["--format".into(), "json".into()]);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let out = innodebt(&argv);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(out.stdout.is_empty(), "{argv:?} ranked a report");
        assert!(err.contains(which) && err.contains(held), "{err}");
        assert!(err.contains("needs at least 10"), "{err}");
        let wider = err
            .split("widen it, e.g. ")
            .nth(1)
            .map(str::trim)
            .unwrap_or_else(|| panic!("no wider window suggested: {err}"));
        let mut again = argv.clone();
        let side = if which.contains("incident") { 1 } else { 2 };
        again[side] = wider;
        let c = json_of(&innodebt(&again));
        assert!(c["ranked"].as_array().is_some_and(|r| !r.is_empty()), "{c}");
    }
}
