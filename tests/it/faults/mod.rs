//! Faults injected for real, end to end: the real binary (in tmux where it is the
//! dashboard) against private MariaDB servers that get killed with -9, restarted with another
//! redo size, stalled behind a proxy of ours, filled up to max_connections, or whose account
//! password changes; and a dashboard that panics inside a render or is killed while recording.
//!
//! A module per family of faults; the poller-level kill -9, the plain SIGTERM/SIGHUP terminal
//! restore and the headless recorder's kill -9 are covered by `poller`, `e2e_dashboard` and
//! `record_replay`.

mod access;
mod crash;
mod network;
mod terminal;

use crate::common;
use crate::common::wait::wait_until;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use innodebt_capture as capture;
use innodebt_server::sample::SourceEvent;
use serde_json::Value;

/// Long enough for a loaded 2-core CI machine, short enough to fail a hang quickly.
const SCREEN_WAIT: Duration = Duration::from_secs(30);

/// A runtime of its own for the async helpers (write load, SQL): its workers keep the load
/// going while the test thread blocks on tmux and on server restarts.
fn background_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// The shell command that starts the dashboard with `args` (no option files).
fn dashboard_command(args: &[String]) -> String {
    format!(
        "{} --no-defaults {}",
        common::innodebt_bin().display(),
        args.join(" ")
    )
}

/// A temp dir, a 160×45 tmux pane in it, and the command line of a dashboard against `conn`
/// polling every `interval` and recording to `<dir>/<name>` (returned too).
fn recording_dashboard(
    conn: Vec<String>,
    interval: &str,
    name: &str,
) -> (tempfile::TempDir, common::tmux::Tmux, PathBuf, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join(name);
    let tmux = common::tmux::Tmux::start(dir.path(), 160, 45);
    let mut args = conn;
    args.extend(strings(&["--interval", interval, "--record"]));
    args.push(file.display().to_string());
    let command = dashboard_command(&args);
    (dir, tmux, file, command)
}

/// Runs the binary to completion (no terminal) and returns its output.
fn run_innodebt(args: &[String]) -> Output {
    Command::new(common::innodebt_bin())
        .arg("--no-defaults")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run innodebt")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// The first (header) line of a screen.
fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
}

/// Every number written as `{marker}N` on the screen (`retry in 3s` → 3 for "retry in ").
fn numbers_after(screen: &str, marker: &str) -> Vec<u64> {
    screen
        .match_indices(marker)
        .filter_map(|(i, _)| {
            let digits: String = screen[i + marker.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

/// The value of `up …` in the header (the server's uptime as shown), to see data move.
fn shown_uptime(screen: &str) -> Option<String> {
    let h = header(screen);
    let at = h.find(" up ")?;
    Some(
        h[at + 4..]
            .split("  ")
            .next()
            .unwrap_or_default()
            .trim()
            .to_string(),
    )
}

/// Reads a capture and returns its events; panics with the reader's message.
fn capture_events(file: &Path) -> (Vec<SourceEvent>, capture::End) {
    let cap = capture::open(file)
        .unwrap_or_else(|e| panic!("capture {} unreadable: {e}", file.display()));
    (cap.events, cap.end)
}

/// `innodebt replay FILE --once --format json --at AT`, parsed.
fn replay_json_at(file: &Path, at: &str) -> Value {
    let out = run_innodebt(&[
        "replay".into(),
        file.display().to_string(),
        "--once".into(),
        "--format".into(),
        "json".into(),
        "--at".into(),
        at.into(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "replay --once --at {at} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The pid written to `pidfile` (see `common::tmux::with_pidfile`).
fn read_pid(pidfile: &Path) -> i32 {
    wait_until(SCREEN_WAIT, "the pid file", || {
        std::fs::read_to_string(pidfile).is_ok_and(|s| s.trim().parse::<i32>().is_ok())
    });
    std::fs::read_to_string(pidfile)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .expect("pid")
}
