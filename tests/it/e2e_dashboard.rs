//! The real binary in tmux against a private MariaDB: it shows the server's values, `?` opens
//! help, `p` freezes (its help lists the frozen display's keys only), a resize re-lays out, `q`
//! exits and the shell is usable (not stuck in the alternate screen).

use crate::common;

use std::time::Duration;

use common::tmux::Tmux;
use common::wait::wait_until;
use common::{PrivateServer, ServerConfig};

fn command_line(server: &PrivateServer, extra: &str) -> String {
    format!(
        "{} --no-defaults -S {} -u root --interval 500ms {extra}",
        common::innodebt_bin().display(),
        server.socket().display()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_keys_resize_and_quit() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), 200, 60);
    tmux.type_text(&command_line(&server, ""));
    tmux.keys(&["Enter"]);

    let long = Duration::from_secs(20);
    // The header names the server before the first sample: wait for the sample, whose
    // values are the server's own — its 16 MiB redo log.
    let screen = tmux.wait_for("the first sample with the server's redo log", long, |s| {
        s.contains("MariaDB")
            && s.contains("Checkpoint age")
            && (s.contains("16.0 MiB") || s.contains("16 MiB"))
    });
    assert!(tmux.alternate_on(), "dashboard uses the alternate screen");
    for title in [
        "Flush sources",
        "History list length",
        "Purge",
        "Dirty pages",
        "Undo residency",
    ] {
        assert!(screen.contains(title), "missing panel {title}:\n{screen}");
    }

    tmux.keys(&["?"]);
    tmux.wait_for("the help overlay", long, |s| {
        s.contains("freeze the display")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("help closed", long, |s| !s.contains("freeze the display"));

    // Frozen: its own keys; a change waits for `p` again, and says so.
    tmux.keys(&["p"]);
    tmux.wait_for("the frozen display", long, |s| {
        s.contains("FROZEN") && s.contains("p unfreeze")
    });
    tmux.keys(&["?"]);
    let help = tmux.wait_for("the frozen display's help", long, |s| {
        s.contains("unfreeze: the live figures again")
    });
    for live_only in ["innodb_purge_threads", "refresh interval", "undo pages"] {
        assert!(
            !help.contains(live_only),
            "{live_only} listed while frozen:\n{help}"
        );
    }
    // One key at a time: Esc and a letter at once read as Alt and the letter.
    tmux.keys(&["Escape"]);
    tmux.wait_for("help closed", long, |s| !s.contains("unfreeze: the live"));
    tmux.keys(&["t"]);
    tmux.wait_for("why t waits", long, |s| s.contains("the display is frozen"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the notice closed", long, |s| {
        !s.contains("the display is frozen")
    });
    tmux.keys(&["p"]);
    tmux.wait_for("live again", long, |s| {
        !s.contains("FROZEN") && s.contains("p freeze")
    });

    tmux.resize(80, 24);
    // The compact layout: every panel and, on the last of the 24 rows, the footer under the
    // grid's bottom border (a layout taller than the pane would have pushed it off).
    tmux.wait_for("the 80x24 layout", long, |s| {
        let rows: Vec<&str> = s.lines().collect();
        [
            "1 Checkpoint",
            "2 Flush",
            "3 History",
            "4 Purge",
            "5 Dirty",
            "6 Undo",
        ]
        .iter()
        .all(|t| s.contains(t))
            && rows.len() == 24
            && rows[22].starts_with('└')
            && rows[23].contains("? help")
    });

    tmux.resize(60, 20);
    tmux.wait_for("the too-small message", long, |s| {
        s.contains("terminal too small")
    });
    tmux.resize(120, 40);
    tmux.wait_for("the layout again", long, |s| s.contains("Checkpoint age"));

    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", long, |s| !s.contains("Checkpoint age"));
    assert!(!tmux.alternate_on(), "left the alternate screen");
    tmux.type_text("echo shell-is-$((40+2))");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the shell to answer", long, |s| s.contains("shell-is-42"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_and_sighup_restore_the_terminal() {
    let server = PrivateServer::start(ServerConfig::default());
    for signal in ["TERM", "HUP"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let tmux = Tmux::start(dir.path(), 120, 40);
        let pidfile = dir.path().join("pid");
        tmux.type_text(&common::tmux::with_pidfile(
            &command_line(&server, ""),
            &pidfile,
        ));
        tmux.keys(&["Enter"]);
        tmux.wait_for("the dashboard", Duration::from_secs(20), |s| {
            s.contains("Checkpoint age")
        });
        let pid = std::fs::read_to_string(&pidfile).expect("pid");
        let status = std::process::Command::new("kill")
            .args([format!("-{signal}"), pid.trim().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        tmux.wait_for("the shell back", Duration::from_secs(10), |s| {
            !s.contains("Checkpoint age")
        });
        assert!(
            !tmux.alternate_on(),
            "SIG{signal} left the alternate screen"
        );
        tmux.type_text("echo alive-$((1+1))");
        tmux.keys(&["Enter"]);
        tmux.wait_for("the shell to answer", Duration::from_secs(10), |s| {
            s.contains("alive-2")
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_while_the_dashboard_runs_then_replay_it() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("live.idbt");
    let tmux = Tmux::start(dir.path(), 120, 40);
    tmux.type_text(&command_line(
        &server,
        &format!("--record {}", file.display()),
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(20);
    tmux.wait_for("the REC badge", long, |s| {
        s.contains("REC") && s.contains("Checkpoint age")
    });
    // The samples the checks below count, in the recording before the quit.
    common::recorded::wait_for_samples(&file, 3, long);
    tmux.keys(&["q"]);
    let after = tmux.wait_for("the summary", long, |s| s.contains("recorded"));
    assert!(after.contains("live.idbt"), "{after}");
    let cap = innodebt_capture::open(&file).expect("capture");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    let samples = cap
        .events
        .iter()
        .filter(|e| matches!(e, innodebt_server::sample::SourceEvent::Sample(_)))
        .count();
    assert!(samples >= 3, "{samples}");

    // The same dashboard, fed from the file.
    tmux.type_text(&format!(
        "{} replay {}",
        common::innodebt_bin().display(),
        file.display()
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the replay", long, |s| {
        s.contains("REPLAY") && s.contains("Checkpoint age")
    });
    tmux.keys(&["Right", "Right"]);
    tmux.wait_for("the position moved", long, |s| {
        s.contains("+1s/") || s.contains("+2s/")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the shell", long, |s| !s.contains("REPLAY"));
}

/// The terminal hangs up under a recording dashboard and the SIGHUP does not get through
/// (blocked here, as when the screen loop is busy): innodebt notices the hang-up itself and
/// exits within seconds with its capture finished. It used to spin on the dead terminal —
/// reads returning nothing, forever — at most of a core, deaf even to SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dashboard_whose_terminal_goes_away_exits_and_finishes_its_capture() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("gone.idbt");
    let tmux = Tmux::start(dir.path(), 120, 40);
    let pidfile = dir.path().join("pid");
    let dashboard = command_line(&server, &format!("--record {}", file.display()));
    // perl blocks SIGHUP and execs: a blocked signal stays blocked across exec.
    tmux.type_text(&format!(
        "perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGHUP)); exec @ARGV' {}",
        common::tmux::with_pidfile(&dashboard, &pidfile)
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the dashboard", Duration::from_secs(20), |s| {
        s.contains("Checkpoint age")
    });
    let pid = std::fs::read_to_string(&pidfile).expect("pid");
    let pid = pid.trim().to_string();
    // The terminal goes: the tmux server and its panes.
    drop(tmux);
    let gone_at = std::time::Instant::now();
    // Killed if it outlives the wait, so a failing test leaves no dashboard behind.
    struct KillOnDrop<'a>(&'a str);
    impl Drop for KillOnDrop<'_> {
        fn drop(&mut self) {
            if std::path::Path::new(&format!("/proc/{}", self.0)).exists() {
                let _ = std::process::Command::new("kill")
                    .args(["-9", self.0])
                    .status();
            }
        }
    }
    let _leftover = KillOnDrop(&pid);
    wait_until(
        Duration::from_secs(15),
        "innodebt to exit after its terminal went away",
        || !std::path::Path::new(&format!("/proc/{pid}")).exists(),
    );
    let cap = innodebt_capture::open(&file).expect("capture");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    eprintln!(
        "exited {:?} after the terminal went away",
        gone_at.elapsed()
    );
}
