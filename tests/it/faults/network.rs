//! A server that stops answering (a proxy of ours that stops forwarding, sockets kept open)
//! and a server that is not there at all.

use std::time::{Duration, Instant};

use super::{
    SCREEN_WAIT, dashboard_command, header, numbers_after, run_innodebt, shown_uptime, strings,
};
use crate::common::proxy::StallProxy;
use crate::common::tmux::Tmux;
use crate::common::wait::wait_until;
use crate::common::{PrivateServer, ServerConfig};

/// The age in the STALE badge, in seconds (`STALE 4s`), if shown.
fn stale_age(screen: &str) -> Option<u64> {
    numbers_after(header(screen), "STALE ").first().copied()
}

/// The verdict line: the row under the header.
fn verdict_line(screen: &str) -> &str {
    screen.lines().nth(1).unwrap_or_default()
}

/// While no data arrives the verdict line is the `unknown` "no data" verdict, never a green
/// check from the last sample.
fn assert_no_data_verdict(screen: &str) {
    let line = verdict_line(screen);
    assert!(
        !line.contains("✓") && !line.contains("healthy"),
        "healthy shown without data:\n{screen}"
    );
    assert!(
        line.contains("? unknown") && line.contains("no data for"),
        "the verdict should say no data is coming:\n{screen}"
    );
}

#[test]
fn stalled_server_goes_stale_then_times_out_and_polling_resumes() {
    let server = PrivateServer::start(ServerConfig::default());
    let proxy = StallProxy::start(server.port());
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), 160, 45);
    let mut args = proxy.conn_args();
    // STALE shows after 2.5 s without data at this interval; the query gives up at 6 s.
    args.extend(strings(&[
        "--interval",
        "500ms",
        "--query-timeout",
        "6s",
        "--connect-timeout",
        "3s",
    ]));
    tmux.type_text(&dashboard_command(&args));
    tmux.keys(&["Enter"]);
    // An idle server whose purge has caught up is healthy while data comes in…
    tmux.wait_for("live data and a healthy verdict", SCREEN_WAIT, |s| {
        header(s).contains("data ") && verdict_line(s).contains("✓ healthy")
    });

    proxy.pause();
    let paused_at = Instant::now();
    let first = tmux.wait_for("the STALE badge", SCREEN_WAIT, |s| stale_age(s).is_some());
    let first_age = stale_age(&first).unwrap_or_default();
    // …and never while none does: the verdict says for how long nothing is known.
    assert_no_data_verdict(&first);
    // The screen keeps redrawing while the poller waits: the age advances.
    let later = tmux.wait_for("the STALE age to advance", SCREEN_WAIT, |s| {
        stale_age(s).is_some_and(|a| a >= first_age + 2)
    });
    assert!(
        later.contains("Checkpoint age"),
        "panels still drawn:\n{later}"
    );
    assert_no_data_verdict(&later);

    // The poll gives up at --query-timeout and the poller says why.
    let down = tmux.wait_for("DISCONNECTED after the query timeout", SCREEN_WAIT, |s| {
        header(s).contains("DISCONNECTED")
    });
    assert_no_data_verdict(&down);
    let timed_out_after = paused_at.elapsed();
    assert!(
        header(&down).contains("query timed out after 6.0s"),
        "the reason is the query timeout:\n{down}"
    );
    assert!(
        timed_out_after >= Duration::from_secs(5) && timed_out_after < Duration::from_secs(15),
        "timed out after {timed_out_after:?}, not at --query-timeout"
    );
    // Reconnect attempts through the stalled proxy wait for --connect-timeout each time.
    let attempts_before = proxy.accepted();
    wait_until(SCREEN_WAIT, "a reconnect attempt", || {
        proxy.accepted() > attempts_before
    });

    proxy.resume();
    let resumed_at = Instant::now();
    let back = tmux.wait_for("fresh data after resume", SCREEN_WAIT, |s| {
        let h = header(s);
        !h.contains("DISCONNECTED") && !h.contains("STALE") && h.contains("data ")
    });
    let recovered_in = resumed_at.elapsed();
    assert!(
        !verdict_line(&back).contains("no data for"),
        "fresh data, fresh verdict:\n{back}"
    );
    let uptime = shown_uptime(&back);
    assert!(uptime.is_some(), "{back}");
    tmux.wait_for("values moving again", SCREEN_WAIT, |s| {
        shown_uptime(s).is_some_and(|u| Some(u) != uptime)
    });
    eprintln!(
        "stall: STALE at {first_age}s, DISCONNECTED after {timed_out_after:?}, \
         fresh again {recovered_in:?} after resume"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", SCREEN_WAIT, |s| {
        !s.contains("Checkpoint age")
    });
}

#[test]
fn once_through_a_stalled_proxy_exits_with_a_timeout_not_a_hang() {
    let server = PrivateServer::start(ServerConfig::default());
    let proxy = StallProxy::start(server.port());

    // Stalled before connecting: the handshake never comes.
    proxy.pause();
    let mut args = proxy.conn_args();
    args.extend(strings(&["--once", "--connect-timeout", "1s"]));
    let started = Instant::now();
    let out = run_innodebt(&args);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(17), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "no answer from 127.0.0.1:{} within 1s",
            proxy.port()
        )) && stderr.contains("--connect-timeout"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(out.stdout.is_empty());

    // Stalled after connecting: the second poll times out.
    proxy.resume();
    let mut args = proxy.conn_args();
    args.extend(strings(&[
        "--once",
        "--format",
        "json",
        "--interval",
        "3s",
        "--query-timeout",
        "1s",
    ]));
    let child = std::process::Command::new(crate::common::innodebt_bin())
        .arg("--no-defaults")
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn innodebt");
    let started = Instant::now();
    // The first poll is done when the server has sent something and then gone quiet for
    // half a second (the next poll is 3 s away).
    let (mut last, mut quiet_checks) = (0, 0);
    wait_until(SCREEN_WAIT, "the first poll", || {
        let now = proxy.bytes_from_server();
        quiet_checks = if now > 0 && now == last {
            quiet_checks + 1
        } else {
            0
        };
        last = now;
        quiet_checks >= 5
    });
    proxy.pause();
    eprintln!("first poll: {last} bytes from the server");
    let out = child.wait_with_output().expect("wait");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("timed out after 1.0s") && stderr.contains("--query-timeout"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(out.stdout.is_empty(), "no half-made figures on stdout");
}

#[test]
fn nothing_listening_at_start_up_is_a_clear_exit_in_every_mode() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("never.idbt");
    let target = strings(&["-h", "127.0.0.1", "-P", &port.to_string(), "-u", "root"]);
    for mode in [
        strings(&["--once"]),
        strings(&["record", &file.display().to_string()]),
    ] {
        let args: Vec<String> = target.iter().chain(&mode).cloned().collect();
        let started = Instant::now();
        let out = run_innodebt(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(10), "{mode:?}: {stderr}");
        assert!(
            stderr.contains(&format!("127.0.0.1:{port} refused"))
                && stderr.contains("Check that mysqld is running"),
            "{mode:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(out.stdout.is_empty(), "{mode:?}");
        assert!(started.elapsed() < Duration::from_secs(5), "{mode:?}");
    }
    assert!(!file.exists(), "no capture is created without a server");

    // The dashboard, on a terminal (without one it says so before connecting), connects
    // before it takes the screen: the same message and code, not a retry screen.
    let tmux = Tmux::start(dir.path(), 160, 45);
    let err = dir.path().join("dashboard.err");
    tmux.type_text(&format!(
        "{} 2>{}; echo exit=$?",
        dashboard_command(&target),
        err.display()
    ));
    tmux.keys(&["Enter"]);
    let after = tmux.wait_for("the shell after the dashboard", SCREEN_WAIT, |s| {
        !numbers_after(s, "exit=").is_empty()
    });
    assert_eq!(numbers_after(&after, "exit="), [10], "{after}");
    let stderr = std::fs::read_to_string(&err).expect("the dashboard's stderr");
    assert!(
        stderr.contains(&format!("127.0.0.1:{port} refused"))
            && stderr.contains("Check that mysqld is running"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(!tmux.alternate_on(), "the screen was never taken");
}
