//! Runtime control end to end: the real binary in tmux against a private MariaDB. A key, a
//! typed value and a confirmation change the server's variable; a cancelled prompt does not.

use crate::common;

use std::time::Duration;

use common::tmux::Tmux;
use common::{PrivateServer, ServerConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_value_confirmed_changes_the_server_and_cancel_does_not() {
    let server = PrivateServer::start(ServerConfig::default());
    let before = server.var_u64("innodb_max_purge_lag").await;
    assert_eq!(before, 0);
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), 160, 50);
    // The audit log goes to the test's own state directory.
    tmux.type_text(&format!(
        "XDG_STATE_HOME={} {} --no-defaults -S {} -u root --interval 500ms",
        dir.path().display(),
        common::innodebt_bin().display(),
        server.socket().display()
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(20);
    tmux.wait_for("the dashboard", long, |s| s.contains("Checkpoint age"));

    // l → prompt with the current value → type 50000 → Enter → confirm shows the exact SQL.
    tmux.keys(&["l"]);
    // The prompt itself: "reading innodb_max_purge_lag …" shows while the facts load.
    tmux.wait_for("the value prompt", long, |s| {
        s.contains("type the new value")
    });
    for _ in 0..8 {
        tmux.keys(&["BSpace"]);
    }
    tmux.type_text("50000");
    tmux.keys(&["Enter"]);
    let confirm = tmux.wait_for("the confirmation", long, |s| {
        s.contains("SET GLOBAL innodb_max_purge_lag = 50000")
    });
    assert!(confirm.contains("No"), "{confirm}");
    tmux.keys(&["y"]);
    tmux.wait_for("the verified result", long, |s| s.contains("done"));
    assert_eq!(server.var_u64("innodb_max_purge_lag").await, 50000);
    tmux.keys(&["Escape"]);
    // Closed before the next key: ESC and `l` read together are Alt-l, not `l`.
    tmux.wait_for("the result closed", long, |s| !s.contains("done"));

    // Again, but cancel at the confirmation: nothing changes.
    tmux.keys(&["l"]);
    // The prompt itself: "reading innodb_max_purge_lag …" shows while the facts load.
    tmux.wait_for("the value prompt", long, |s| {
        s.contains("type the new value")
    });
    for _ in 0..8 {
        tmux.keys(&["BSpace"]);
    }
    tmux.type_text("7");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the confirmation", long, |s| {
        s.contains("SET GLOBAL innodb_max_purge_lag = 7")
    });
    tmux.keys(&["n"]);
    tmux.wait_for("the prompt closed", long, |s| {
        !s.contains("innodb_max_purge_lag = 7")
    });

    // Enter on the default answer (No) runs nothing either.
    tmux.keys(&["t"]);
    tmux.wait_for("the purge-threads confirmation", long, |s| {
        s.contains("SET GLOBAL innodb_purge_threads")
    });
    let threads = server.var_u64("innodb_purge_threads").await;
    tmux.keys(&["Enter"]);
    tmux.wait_for("the confirmation closed", long, |s| {
        !s.contains("SET GLOBAL innodb_purge_threads")
    });

    // A last confirmed change is the barrier: changes run one at a time, in order, and each
    // is audited when it has run, so once this one is done a cancelled one would show.
    tmux.keys(&["l"]);
    tmux.wait_for("the value prompt", long, |s| {
        s.contains("type the new value")
    });
    for _ in 0..8 {
        tmux.keys(&["BSpace"]);
    }
    tmux.type_text("60000");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the confirmation", long, |s| {
        s.contains("SET GLOBAL innodb_max_purge_lag = 60000")
    });
    tmux.keys(&["y"]);
    tmux.wait_for("the verified result", long, |s| s.contains("done"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the result closed", long, |s| !s.contains("done"));

    assert_eq!(server.var_u64("innodb_max_purge_lag").await, 60000);
    assert_eq!(server.var_u64("innodb_purge_threads").await, threads);
    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", long, |s| !s.contains("Checkpoint age"));
    let audit = std::fs::read_to_string(dir.path().join("innodebt/audit.log")).expect("audit log");
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(lines.len(), 2, "{audit}");
    assert!(lines[0].contains("innodb_max_purge_lag") && lines[0].contains("50000"));
    assert!(lines[1].contains("innodb_max_purge_lag") && lines[1].contains("60000"));
    server.sql("SET GLOBAL innodb_max_purge_lag = 0").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_refuses_changes() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), 160, 50);
    tmux.type_text(&format!(
        "{} --no-defaults -S {} -u root --read-only",
        common::innodebt_bin().display(),
        server.socket().display()
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(20);
    tmux.wait_for("the dashboard", long, |s| s.contains("Checkpoint age"));
    tmux.keys(&["t"]);
    tmux.wait_for("the refusal", long, |s| s.contains("read-only mode"));
    tmux.keys(&["Escape", "q"]);
    assert_eq!(server.var_u64("innodb_purge_threads").await, 4);
}
