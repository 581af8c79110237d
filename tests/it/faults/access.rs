//! The server refuses us: max_connections reached (at start-up and when the dashboard's
//! connection is killed while the server is full), and the account's password changed
//! mid-session.

use std::time::{Duration, Instant};

use innodebt_poller::live::BACKOFF_CAP;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, OptsBuilder};

use super::{
    SCREEN_WAIT, background_runtime, dashboard_command, header, numbers_after, run_innodebt,
    strings,
};
use crate::common::tmux::Tmux;
use crate::common::wait::{OnTimeout, wait_for_async_every, wait_until, wait_until_async};
use crate::common::{PrivateServer, ServerConfig};

/// Client flags for `user` with `password` over the server's socket.
fn account_args(server: &PrivateServer, user: &str, password: &str) -> Vec<String> {
    strings(&[
        "-S",
        &server.socket().display().to_string(),
        "-u",
        user,
        &format!("-p{password}"),
    ])
}

/// Connections as `user` (no password) until the server says "Too many connections", once
/// the server's only other sessions are the `others` that stay: a session just closed frees
/// its slot a moment later.
async fn fill_up(server: &PrivateServer, user: &str, others: u64) -> Vec<Conn> {
    let opts = OptsBuilder::from_opts(server.opts()).user(Some(user));
    let first = tokio::sync::Mutex::new(Conn::new(opts.clone()).await.expect("a first filler"));
    let probe = &first;
    wait_until_async(
        Duration::from_secs(10),
        format!("the sessions that closed gone: {others} besides the first filler"),
        || async move {
            let row: Option<(String, u64)> = probe
                .lock()
                .await
                .query_first("SHOW GLOBAL STATUS LIKE 'Threads_connected'")
                .await
                .expect("Threads_connected");
            row.is_some_and(|(_, n)| n == others + 1)
        },
    )
    .await;
    let mut held = vec![first.into_inner()];
    loop {
        match Conn::new(opts.clone()).await {
            Ok(c) => held.push(c),
            Err(mysql_async::Error::Server(e)) if e.code == 1040 => return held,
            Err(e) => panic!("filler connection {}: {e}", held.len() + 1),
        }
        assert!(held.len() <= 100, "max_connections never reached");
    }
}

/// The `information_schema.PROCESSLIST` id of `user`'s only session.
async fn session_of(root: &mut Conn, user: &str) -> u64 {
    let ids: Vec<u64> = root
        .query(format!(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = '{user}'"
        ))
        .await
        .expect("PROCESSLIST");
    assert_eq!(ids.len(), 1, "one session of {user}: {ids:?}");
    ids[0]
}

async fn status(root: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, u64)> = root
        .query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    row.unwrap_or_else(|| panic!("{name} missing")).1
}

async fn root(server: &PrivateServer) -> Conn {
    Conn::new(server.opts()).await.expect("root connection")
}

/// One more connection as `user` in the slot a KILL is freeing (the victim's thread may
/// take a moment to end).
async fn take_freed_slot(server: &PrivateServer, user: &str) -> Conn {
    let opts = OptsBuilder::from_opts(server.opts()).user(Some(user));
    let opts = &opts;
    wait_for_async_every(
        Duration::from_millis(200),
        Duration::from_millis(5),
        format!("a connection as {user} in the freed slot"),
        || async move { Conn::new(opts.clone()).await.ok() },
    )
    .await
}

/// Watches the header while the dashboard is down, until its retry countdown shows the
/// backoff at its cap (0.25+0.5+1+2+4 s, then 5 s): it stays up, says `why`, and the countdown
/// never passes the cap. Returns every screen seen.
fn watch_while_down(tmux: &Tmux, why: &str) -> Vec<String> {
    let cap = BACKOFF_CAP.as_secs();
    let mut screens = Vec::new();
    wait_until(
        SCREEN_WAIT,
        OnTimeout(|| {
            format!(
                "the retry countdown at its {cap}s cap; screen is:\n{}",
                tmux.screen()
            )
        }),
        || {
            let s = tmux.screen();
            let h = header(&s);
            assert!(h.contains("DISCONNECTED") && h.contains(why), "{s}");
            assert!(s.contains("Checkpoint age"), "the dashboard stays up:\n{s}");
            let countdown = numbers_after(h, "retry in ");
            for n in &countdown {
                assert!(*n <= cap, "countdown {n}s above the cap:\n{s}");
            }
            screens.push(s);
            countdown.contains(&cap)
        },
    );
    screens
}

#[test]
fn max_connections_reached_at_start_up_and_mid_session() {
    let rt = background_runtime();
    let server = PrivateServer::start(ServerConfig {
        // MariaDB's minimum.
        max_connections: 10,
        ..ServerConfig::default()
    });
    for q in [
        "CREATE USER 'watcher'@'localhost' IDENTIFIED BY 'Watch-4711'",
        "GRANT PROCESS ON *.* TO 'watcher'@'localhost'",
        "CREATE USER 'filler'@'localhost'",
    ] {
        rt.block_on(server.sql(q));
    }
    let watcher = account_args(&server, "watcher", "Watch-4711");
    let mut fillers = rt.block_on(fill_up(&server, "filler", 0));
    assert_eq!(
        fillers.len(),
        10,
        "PROCESS and USAGE get no extra connection"
    );

    // Start-up: one clear line and the "too many connections" exit code.
    let mut once = watcher.clone();
    once.push("--once".into());
    let out = run_innodebt(&once);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(25), "{stderr}");
    assert!(
        stderr.contains("has too many connections")
            && stderr.contains("raise max_connections")
            && stderr.contains("SHOW PROCESSLIST"),
        "{stderr}"
    );
    assert!(!stderr.contains("Watch-4711"));

    // Mid-session. Root holds an ordinary slot throughout (the extra one MariaDB keeps for
    // CONNECTION ADMIN is never needed); the dashboard takes one; fillers take the rest.
    rt.block_on(async {
        for c in fillers.drain(..) {
            c.disconnect().await.expect("disconnect a filler");
        }
    });
    let mut root = rt.block_on(root(&server));
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), 200, 45);
    let mut args = watcher.clone();
    args.extend(strings(&["--interval", "300ms"]));
    tmux.type_text(&dashboard_command(&args));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the dashboard", SCREEN_WAIT, |s| {
        header(s).contains("data ")
    });
    // Root and the dashboard stay.
    fillers = rt.block_on(fill_up(&server, "filler", 2));
    assert_eq!(
        fillers.len(),
        8,
        "root + the dashboard + 8 = max_connections"
    );

    // Root kills the dashboard's session and a filler takes the freed slot at once (the
    // poller waits 250 ms before it reconnects): the server is full when it tries.
    let attempts_before = rt.block_on(async {
        let poller = session_of(&mut root, "watcher").await;
        root.query_drop(format!("KILL CONNECTION {poller}"))
            .await
            .expect("KILL");
        fillers.push(take_freed_slot(&server, "filler").await);
        status(&mut root, "Connections").await
    });
    tmux.wait_for("the too-many-connections reason", SCREEN_WAIT, |s| {
        header(s).contains("too many connections (max_connections reached)")
    });
    let screens = watch_while_down(&tmux, "max_connections reached");
    let attempts = rt.block_on(status(&mut root, "Connections")) - attempts_before;
    // Connection attempts (root and the fillers stay connected meanwhile): backoff 0.25,
    // 0.5, 1, 2, 4 s gives a handful before it reaches its cap (~8 s), not hundreds.
    assert!(
        (3..=10).contains(&attempts),
        "{attempts} attempts before the backoff reached its cap"
    );
    assert!(screens.iter().all(|s| !s.contains("Watch-4711")));

    // Free two slots: it comes back by itself.
    rt.block_on(async {
        for c in fillers.drain(..2) {
            c.disconnect().await.expect("disconnect a filler");
        }
    });
    let freed = Instant::now();
    tmux.wait_for("reconnected by itself", SCREEN_WAIT, |s| {
        let h = header(s);
        !h.contains("DISCONNECTED") && h.contains("data ")
    });
    eprintln!(
        "max_connections: {attempts} refused attempts while full; back {:?} after slots freed",
        freed.elapsed()
    );
    tmux.keys(&["q"]);
    rt.block_on(async {
        for c in fillers {
            let _ = c.disconnect().await;
        }
        let _ = root.disconnect().await;
    });
}

#[test]
fn password_changed_mid_session() {
    let rt = background_runtime();
    let server = PrivateServer::start(ServerConfig::default());
    let (old, new) = ("Old-Secret-p1", "New-Secret-p2");
    for q in [
        format!("CREATE USER 'pw'@'localhost' IDENTIFIED BY '{old}'"),
        "GRANT PROCESS ON *.* TO 'pw'@'localhost'".to_string(),
    ] {
        rt.block_on(server.sql(&q));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), 200, 45);
    let mut args = account_args(&server, "pw", old);
    args.extend(strings(&["--interval", "300ms"]));
    tmux.type_text(&dashboard_command(&args));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the dashboard", SCREEN_WAIT, |s| {
        header(s).contains("data ")
    });

    rt.block_on(server.sql(&format!(
        "ALTER USER 'pw'@'localhost' IDENTIFIED BY '{new}'"
    )));
    let denied_before = rt.block_on(server.status_u64("Access_denied_errors"));
    rt.block_on(async {
        let mut root = root(&server).await;
        let session = session_of(&mut root, "pw").await;
        root.query_drop(format!("KILL CONNECTION {session}"))
            .await
            .expect("KILL");
        root.disconnect().await.expect("disconnect");
    });
    let first = tmux.wait_for("access denied on reconnect", SCREEN_WAIT, |s| {
        header(s).contains("access denied")
    });
    let h = header(&first);
    assert!(
        h.contains("access denied — password changed? Restart innodebt with the new one; retrying"),
        "says what happened and what to do:\n{first}"
    );
    let screens = watch_while_down(&tmux, "access denied");
    let attempts = rt.block_on(server.status_u64("Access_denied_errors")) - denied_before;
    assert!(
        (3..=10).contains(&attempts),
        "{attempts} denied attempts before the backoff reached its cap: retrying, not spinning"
    );
    for s in screens.iter().chain([&first]) {
        assert!(
            !s.contains(old) && !s.contains(new),
            "a password on screen:\n{s}"
        );
    }

    // The password is put back: it reconnects by itself.
    rt.block_on(server.sql(&format!(
        "ALTER USER 'pw'@'localhost' IDENTIFIED BY '{old}'"
    )));
    let back = tmux.wait_for("reconnected by itself", SCREEN_WAIT, |s| {
        let h = header(s);
        !h.contains("DISCONNECTED") && h.contains("data ")
    });
    assert!(!back.contains(old));
    eprintln!("password change: {attempts} denied attempts in ~8 s");
    tmux.keys(&["q"]);
}
