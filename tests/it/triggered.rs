//! Triggered capture against a real (private) MariaDB under write load: `record DIR --trigger`
//! writes one file per incident holding the `--before` window (samples from before the
//! blocker existed), the incident (a bookmark at its start) and the `--after` window; a
//! second trigger inside the cooldown makes no second file, one after it (no cooldown) its
//! own, and `--max-disk` then deletes the older; `--exec` sees the incident in its
//! environment and its failure is reported without holding polling up. Bad trigger input is a clear message.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use common::wait::{OnTimeout, wait_for, wait_until, wait_until_async};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use innodebt_capture as capture;
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::{Figures, VerdictKind};
use innodebt_server::sample::SourceEvent;

/// A running `innodebt record DIR --trigger …` and the lines it printed so far.
struct Recorder {
    child: Child,
    stderr: Arc<Mutex<Vec<String>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Recorder {
    fn start(server: &PrivateServer, dir: &Path, extra: &[&str]) -> Recorder {
        let mut child = Command::new(common::innodebt_bin())
            .args(server.conn_args())
            .args(["--no-defaults", "--interval", "300ms", "record"])
            .arg(dir)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the recorder");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&stderr);
        let pipe = child.stderr.take().expect("stderr");
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                lines.lock().expect("the stderr lines").push(line);
            }
        });
        let r = Recorder {
            child,
            stderr,
            reader,
        };
        r.wait_for("watching for", Duration::from_secs(20));
        r
    }

    fn text(&self) -> String {
        self.stderr.lock().expect("the stderr lines").join("\n")
    }

    /// Waits until a line contains `what`; fails with everything printed so far.
    fn wait_for(&self, what: &str, limit: Duration) -> String {
        let said = || format!("a line with {what:?}; the recorder said:\n{}", self.text());
        wait_for(limit, OnTimeout(said), || {
            self.stderr
                .lock()
                .expect("the stderr lines")
                .iter()
                .find(|l| l.contains(what))
                .cloned()
        })
    }

    /// Waits until `n` lines contain `what`.
    fn wait_count(&self, what: &str, n: usize, limit: Duration) {
        let said = || {
            format!(
                "{n} lines with {what:?}; the recorder said:\n{}",
                self.text()
            )
        };
        wait_until(limit, OnTimeout(said), || {
            self.text().matches(what).count() >= n
        });
    }

    /// SIGTERM, then the exit status and everything it printed.
    fn stop(self) -> String {
        let Recorder {
            mut child,
            stderr,
            reader,
        } = self;
        let ok = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok);
        let status = child.wait().expect("wait");
        // The reader thread drains the pipe to its end after the exit.
        reader.join().expect("the stderr reader");
        let text = stderr.lock().expect("the stderr lines").join("\n");
        assert!(status.success(), "{status}: {text}");
        text
    }
}

/// Counts the polls a recorder (or serve) makes of a private server, so a test waits for the
/// samples it needs rather than for a time: every tick asks `SHOW GLOBAL STATUS LIKE
/// 'Innodb\_%'` once, and on these servers nothing else asks SHOW STATUS but this probe, which
/// counts itself (a counter includes the statement that reads it). A few connect-time and
/// slow-cadence reads count too, so callers ask for a few more than the ticks they need.
struct Polls<'a> {
    server: &'a PrivateServer,
    base: u64,
    probes: AtomicU64,
}

impl<'a> Polls<'a> {
    async fn start(server: &'a PrivateServer) -> Polls<'a> {
        let base = server.status_u64("Com_show_status").await;
        Polls {
            server,
            base,
            probes: AtomicU64::new(0),
        }
    }

    async fn wait_for(&self, ticks: u64, what: &str) {
        wait_until_async(Duration::from_secs(60), what, || async {
            let now = self.server.status_u64("Com_show_status").await;
            let probes = self.probes.fetch_add(1, Ordering::SeqCst) + 1;
            now.saturating_sub(self.base + probes) >= ticks
        })
        .await;
    }
}

fn incident_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "idbt"))
        .collect();
    v.sort();
    v
}

/// Every sample of the file with its derived figures.
fn derived(file: &Path) -> Vec<Figures> {
    let cap = capture::open(file).expect("the incident file opens");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    assert!(
        matches!(cap.events.first(), Some(SourceEvent::Connected { .. })),
        "an incident file starts with the server's description"
    );
    let mut d = Deriver::new();
    cap.events.iter().filter_map(|e| d.push(e)).collect()
}

fn blocked_by(f: &Figures, thread: u64) -> bool {
    f.blocker.as_ref().and_then(|b| b.thread_id) == Some(thread)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocker_under_load_makes_one_file_with_before_incident_and_after() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 3, 200);
    let dir = tempfile::tempdir().expect("tempdir");
    let incidents = dir.path().join("incidents");
    let env_out = dir.path().join("exec.env");
    let exec = format!("env | grep ^INNODEBT_ > '{}'", env_out.display());
    let polls = Polls::start(&server).await;
    let rec = Recorder::start(
        &server,
        &incidents,
        &[
            "--trigger",
            "blocked_by_read_view",
            "--before",
            "6s",
            "--after",
            "3s",
            "--cooldown",
            "120s",
            "--exec",
            &exec,
        ],
    );
    // The --before window (6 s at 300 ms: 20 ticks) fills with the server under load and no
    // blocker.
    polls
        .wait_for(23, "the recorder's samples to fill the --before window")
        .await;
    let blocker_opened: DateTime<Utc> = Utc::now();
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let thread = snapshot.thread_id();
    let line = rec.wait_for("incident: blocked_by_read_view", Duration::from_secs(60));
    assert!(line.contains("writing"), "{line}");
    // The incident lasts: samples with the blocker (2 s at 300 ms).
    let polls = Polls::start(&server).await;
    polls
        .wait_for(7, "the recorder's samples with the blocker")
        .await;
    let committed = Utc::now();
    snapshot.commit().await;
    rec.wait_for("incident file done", Duration::from_secs(30));

    // A second blocker inside the cooldown: reported, not a second file.
    let second = BlockingSnapshot::open(server.opts()).await;
    rec.wait_for("inside the cooldown", Duration::from_secs(60));
    second.commit().await;
    let said = rec.stop();
    load.stop().await;

    let files = incident_files(&incidents);
    assert_eq!(files.len(), 1, "{files:?}\n{said}");
    let name = files[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(name.ends_with("-blocked_by_read_view.idbt"), "{name}");

    let figures = derived(&files[0]);
    let times: Vec<_> = figures.iter().map(|f| f.sampled_at).collect();
    // Before: samples from before the blocker's transaction existed, without it.
    let before: Vec<_> = figures
        .iter()
        .filter(|f| f.sampled_at < blocker_opened)
        .collect();
    assert!(
        before.len() >= 3,
        "{} samples before the blocker opened at {blocker_opened}; first sample {:?}",
        before.len(),
        times.first()
    );
    assert!(before.iter().all(|f| !blocked_by(f, thread)));
    // The incident: the blocker is seen, and the verdict holds.
    assert!(figures.iter().any(|f| blocked_by(f, thread)));
    assert!(figures.iter().any(|f| {
        f.verdicts
            .iter()
            .any(|v| v.kind == VerdictKind::BlockedByReadView)
    }));
    // After: the blocker is gone and the file goes on for about --after past the last hold.
    let after: Vec<_> = figures
        .iter()
        .filter(|f| f.sampled_at > committed)
        .collect();
    assert!(after.len() >= 5, "{} samples after the commit", after.len());
    let tail = after.last().unwrap();
    assert!(!blocked_by(tail, thread));
    assert!(
        (tail.sampled_at - committed).num_milliseconds() >= 2_500,
        "the after window ends {} ms after the commit",
        (tail.sampled_at - committed).num_milliseconds()
    );
    let cap = capture::open(&files[0]).unwrap();
    assert_eq!(cap.notes.len(), 1, "the incident's start is a bookmark");
    assert!(
        cap.notes[0]
            .text
            .starts_with("incident: blocked_by_read_view — ")
            && cap.notes[0].text.contains(&thread.to_string()),
        "{:?}",
        cap.notes
    );
    assert!(
        cap.header
            .notes
            .iter()
            .any(|n| n.contains("triggered capture: blocked_by_read_view")),
        "{:?}",
        cap.header.notes
    );

    // --exec ran with the incident in its environment.
    let env = std::fs::read_to_string(&env_out).expect("the --exec command ran");
    let var = |k: &str| {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k} not in --exec's environment:\n{env}"))
            .to_string()
    };
    assert_eq!(PathBuf::from(var("INNODEBT_FILE")), files[0]);
    assert_eq!(var("INNODEBT_VERDICT"), "blocked_by_read_view");
    assert!(var("INNODEBT_MESSAGE").contains(&thread.to_string()));
    let started: DateTime<Utc> = var("INNODEBT_STARTED_AT").parse().expect("RFC 3339");
    assert!(started > blocker_opened && started < committed);
    // The file holds the --before window (6 s) before the verdict turned on, not more.
    let span = (started - times[0]).num_milliseconds();
    assert!(
        (5_000..=6_600).contains(&span),
        "the file starts {span} ms before the incident"
    );
    assert!(said.contains("1 incident file(s) written"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_slow_exec_never_holds_polling_up_and_each_incident_has_its_file() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let polls = Polls::start(&server).await;
    let rec = Recorder::start(
        &server,
        dir.path(),
        &[
            "--trigger",
            "blocker_age>=1s",
            "--before",
            "2s",
            "--after",
            "2s",
            "--cooldown",
            "0s",
            "--max-disk",
            "1K",
            "--exec",
            "sleep 3; echo pager unreachable >&2; exit 3",
        ],
    );
    // The --before window (2 s at 300 ms: 7 ticks) fills with samples without a blocker.
    polls
        .wait_for(10, "the recorder's samples to fill the --before window")
        .await;
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let line = rec.wait_for("failed", Duration::from_secs(30));
    assert!(
        line.contains("--exec for")
            && line.contains("exit status: 3")
            && line.contains("pager unreachable"),
        "{line}"
    );
    snapshot.commit().await;
    rec.wait_for("incident file done", Duration::from_secs(30));
    // No cooldown: the next blocker is an incident of its own, in a file of its own.
    let again = BlockingSnapshot::open(server.opts()).await;
    rec.wait_count("incident: blocker_age>=1s", 2, Duration::from_secs(30));
    again.commit().await;
    rec.wait_count("incident file done", 2, Duration::from_secs(30));
    let said = rec.stop();
    assert_eq!(
        said.matches("incident: blocker_age>=1s").count(),
        2,
        "{said}"
    );
    // --max-disk 1K: the first file went when the second was done; the newest always stays.
    assert!(
        said.contains("--max-disk: deleted the oldest incident file"),
        "{said}"
    );
    let files = incident_files(dir.path());
    assert_eq!(files.len(), 1, "{files:?}\n{said}");
    let name = files[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(name.ends_with("-blocker_ageGE1s.idbt"), "{name}");
    // Polling went on at its interval while the command slept 3 s.
    let times: Vec<_> = derived(&files[0]).iter().map(|f| f.sampled_at).collect();
    let widest = times
        .windows(2)
        .map(|w| (w[1] - w[0]).num_milliseconds())
        .max()
        .unwrap();
    assert!(times.len() >= 12, "{} samples", times.len());
    assert!(widest < 1_000, "a {widest} ms gap between samples");
}

/// `--exec-timeout`: a command still running past it is killed, said on stderr, and the
/// incident's file is written all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exec_past_its_time_limit_is_killed_and_said() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("finished");
    // The touch is a grandchild's (a subshell), so only killing the command's whole process
    // group stops it; left alone it touches the marker 5 s after the incident.
    let exec = format!("(sleep 5; touch '{}') & wait", marker.display());
    let rec = Recorder::start(
        &server,
        dir.path(),
        &[
            "--trigger",
            "blocker_age>=1s",
            "--before",
            "2s",
            "--after",
            "2s",
            "--exec",
            &exec,
            "--exec-timeout",
            "2s",
        ],
    );
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    rec.wait_for("incident: blocker_age>=1s", Duration::from_secs(30));
    let started = Instant::now();
    let line = rec.wait_for("killed", Duration::from_secs(15));
    assert!(!marker.exists(), "the command finished before its limit");
    assert!(
        line.contains("--exec for")
            && line.contains("still running after 2s: killed (--exec-timeout)"),
        "{line}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    snapshot.commit().await;
    rec.wait_for("incident file done", Duration::from_secs(30));
    let said = rec.stop();
    assert_eq!(incident_files(dir.path()).len(), 1, "{said}");
    // Killed with what it started: no process that could touch the marker is left (the
    // command's shell and subshell name it on their command lines, and so would the touch).
    // A subshell the kill missed touches the marker before it ends: the check below sees it.
    let named = marker.display().to_string();
    common::wait::wait_until(
        Duration::from_secs(15),
        common::wait::OnTimeout(|| {
            format!(
                "the command's processes gone; still there: {:?}",
                processes_naming(&named)
            )
        }),
        || processes_naming(&named).is_empty(),
    );
    assert!(
        !marker.exists(),
        "the command's subshell ran on past its limit"
    );
}

/// The processes whose command line contains `needle`.
fn processes_naming(needle: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

#[test]
fn bad_trigger_input_is_a_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().join("x");
    let d = d.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["record", d, "--trigger", "blocked"],
            "--trigger \"blocked\" is neither a verdict kind (blocked_by_read_view, purge_lag_trap, purge_too_slow, history_held_by_open_writes, flush_pressure, rollback_segment_contention) nor a threshold",
        ),
        (
            &["record", d, "--trigger", "history>lots"],
            "--trigger \"history>lots\": \"lots\" is not a number (e.g. history>1000000)",
        ),
        (
            &["record", d, "--trigger", "checkpoint_age_pct=80"],
            "compare with >, >=, < or <=",
        ),
        (
            &["record", d, "--before", "5m"],
            "--before goes with --trigger KIND",
        ),
        (
            &["record", d, "--max-disk", "1G"],
            "--max-disk goes with --trigger KIND",
        ),
        (
            &["record", d, "--trigger", "history>1", "--before", "2h"],
            "at most 1h",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--trigger", "history>1"],
            "--trigger under serve writes one directory per target: add --incident-dir DIR",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--incident-dir", d],
            "--incident-dir goes with --trigger KIND",
        ),
        (
            &[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--trigger",
                "purge_lag",
                "--incident-dir",
                d,
            ],
            "neither a verdict kind",
        ),
        (
            &[
                "record",
                d,
                "--trigger",
                "history>1",
                "--exec-timeout",
                "5s",
            ],
            "--exec-timeout goes with --exec CMD",
        ),
        (
            &[
                "record",
                d,
                "--trigger",
                "history>1",
                "--exec",
                "true",
                "--exec-timeout",
                "0s",
            ],
            "is zero",
        ),
    ];
    for (args, want) in cases {
        let out = Command::new(common::innodebt_bin())
            .args(["--no-defaults", "-S", "/nonexistent/innodebt-test.sock"])
            .args(*args)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A file where the directory should be.
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let out = Command::new(common::innodebt_bin())
        .args([
            "--no-defaults",
            "-S",
            "/nonexistent/innodebt-test.sock",
            "record",
        ])
        .arg(&file)
        .args(["--trigger", "history>1"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is a file") && err.contains("name a directory"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_captures_incidents_per_target() {
    use common::serve::{Serve, serve_args};
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let incidents = dir.path().join("incidents");
    let incidents_arg = incidents.to_str().unwrap().to_string();
    let polls = Polls::start(&server).await;
    let mut serve = Serve::start(&serve_args(
        &server,
        &[
            "--trigger",
            "blocker_age>=2s",
            "--incident-dir",
            &incidents_arg,
            "--before",
            "8s",
            "--after",
            "2s",
            "--cooldown",
            "0s",
        ],
    ));
    assert!(
        serve
            .log()
            .contains("every target watches for blocker_age>=2s"),
        "{}",
        serve.log()
    );
    // Samples (1 s apart) from before the blocker, inside the --before window.
    polls
        .wait_for(5, "serve's samples from before the blocker")
        .await;
    let opened = Utc::now();
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let thread = snapshot.thread_id();
    wait_until_async(Duration::from_secs(30), "serve's incident line", || {
        std::future::ready(serve.log().contains("local: incident: blocker_age>=2s"))
    })
    .await;
    snapshot.commit().await;
    wait_until_async(
        Duration::from_secs(30),
        "serve's incident file done",
        || std::future::ready(serve.log().contains("local: incident file done")),
    )
    .await;
    assert!(serve.terminate().success(), "{}", serve.log());
    let files = incident_files(&incidents.join("local"));
    assert_eq!(files.len(), 1, "{files:?}\n{}", serve.log());
    let figures = derived(&files[0]);
    assert!(
        figures
            .iter()
            .any(|f| f.sampled_at < opened && f.blocker.is_none())
    );
    assert!(figures.iter().any(|f| blocked_by(f, thread)));
    assert!(figures.last().is_some_and(|f| f.blocker.is_none()));
}
