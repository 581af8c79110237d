//! The dashboard itself fails: a panic inside a render (the `INNODEBT_FAILPOINT` test hook),
//! and kill -9 while it records. SIGTERM/SIGHUP are in `tests/e2e_dashboard.rs`.

use chrono::Utc;
use innodebt_server::sample::SourceEvent;

use super::{
    SCREEN_WAIT, capture_events, header, read_pid, recording_dashboard, replay_json_at,
    shown_uptime,
};
use crate::common::recorded;
use crate::common::{PrivateServer, ServerConfig};

fn samples(events: &[SourceEvent]) -> Vec<&innodebt_server::sample::Sample> {
    events.iter().filter_map(SourceEvent::as_sample).collect()
}

#[test]
fn panic_inside_a_render_restores_the_terminal_and_keeps_the_capture() {
    let server = PrivateServer::start(ServerConfig::default());
    let (_dir, tmux, file, command) =
        recording_dashboard(server.conn_args(), "300ms", "panic.idbt");
    tmux.type_text(&format!(
        "RUST_BACKTRACE=0 INNODEBT_FAILPOINT=panic-in-render {}; echo exit=$?",
        command
    ));
    tmux.keys(&["Enter"]);
    // (`exit=$?` on the command line has no digits; the shell's answer has.)
    let after = tmux.wait_for("the shell after the panic", SCREEN_WAIT, |s| {
        !super::numbers_after(s, "exit=").is_empty()
    });
    assert!(!tmux.alternate_on(), "left the alternate screen:\n{after}");
    // Printed after the restore (so on the main screen) and readable: with raw mode still
    // on, each line would start where the previous one ended.
    let lines: Vec<&str> = after.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("thread 'main'") && l.contains("panicked at")),
        "{after}"
    );
    assert!(
        lines.iter().any(|l| l
            .starts_with("INNODEBT_FAILPOINT=panic-in-render: a deliberate panic inside a render")),
        "the panic message on its own line:\n{after}"
    );
    assert!(
        lines.iter().any(
            |l| l.starts_with("innodebt: the dashboard stopped on an internal error")
                && l.contains("the capture was finished")
        ),
        "{after}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("innodebt: recorded")),
        "{after}"
    );
    let code: i32 = super::numbers_after(&after, "exit=")
        .first()
        .map(|c| *c as i32)
        .expect("exit code");
    assert_ne!(code, 0, "a panic is a failure");

    // Raw mode is off: the terminal is back in canonical mode with echo (bash keeps the
    // settings a job that exits normally leaves behind, so stty sees ours).
    tmux.type_text(
        "clear; printf 'tty:%s\\n' \"$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ')\"",
    );
    tmux.keys(&["Enter"]);
    let tty = tmux.wait_for("stty's answer", SCREEN_WAIT, |s| {
        s.lines().any(|l| l.starts_with("tty:") && !l.contains('%'))
    });
    assert!(
        tty.lines().any(|l| l.trim_end() == "tty:icanon echo"),
        "cooked mode with echo:\n{tty}"
    );

    // The capture: finished (trailer written), every sample shown before the panic in it.
    let (events, end) = capture_events(&file);
    assert!(end.is_complete(), "{end:?}");
    let recorded = samples(&events);
    assert!(recorded.len() >= 3, "{} samples", recorded.len());
    let last = recorded.last().expect("a sample").taken_at;
    let v = replay_json_at(&file, &last.to_rfc3339());
    assert_eq!(v["server"]["flavor"], "mariadb");
}

#[test]
fn kill_9_of_a_recording_dashboard_leaves_a_readable_capture() {
    let server = PrivateServer::start(ServerConfig::default());
    let (dir, tmux, file, command) =
        recording_dashboard(server.conn_args(), "200ms", "killed.idbt");
    let pidfile = dir.path().join("pid");
    tmux.type_text(&crate::common::tmux::with_pidfile(&command, &pidfile));
    tmux.keys(&["Enter"]);
    let first = tmux.wait_for("the recording dashboard", SCREEN_WAIT, |s| {
        header(s).contains("REC") && header(s).contains("data ")
    });
    let uptime = shown_uptime(&first);
    tmux.wait_for("a few samples", SCREEN_WAIT, |s| {
        shown_uptime(s).is_some_and(|u| Some(&u) != uptime.as_ref())
    });
    // The samples the checks below count, in the recording before the kill.
    recorded::wait_for_samples(&file, 5, SCREEN_WAIT);
    let pid = read_pid(&pidfile);
    let status = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let killed_at = Utc::now();
    // Raw mode is left on by a kill -9 (nothing can restore it), so the shell's "Killed"
    // lands wherever the cursor was and may wrap: look across line ends.
    tmux.wait_for("the shell reports the kill", SCREEN_WAIT, |s| {
        s.replace('\n', "").contains("Killed")
    });

    // Readable up to its last record: the samples up to the kill are all there.
    let (events, end) = capture_events(&file);
    assert!(!end.is_complete(), "no trailer after kill -9: {end:?}");
    assert!(matches!(
        events.first(),
        Some(SourceEvent::Connected { .. })
    ));
    let recorded = samples(&events);
    assert!(recorded.len() >= 5, "{} samples", recorded.len());
    let last = recorded.last().expect("a sample").taken_at;
    let lag = (killed_at - last).num_milliseconds();
    // At 200 ms, every sample but the one in flight was written.
    assert!(lag < 1500, "the last sample is {lag} ms before the kill");
    let v = replay_json_at(&file, &last.to_rfc3339());
    assert_eq!(v["server"]["flavor"], "mariadb");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}
