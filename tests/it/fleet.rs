//! The fleet view in tmux against three private MariaDB servers: one with a read view
//! blocking purge under write load, one killed (`kill -9`) mid-run. The blocked one sorts
//! first, the dead one shows DISCONNECTED while the other rows keep updating every second
//! (each server has its own poller, timeout and backoff), `/` filters, Enter opens the
//! six-panel dashboard of a server and Esc comes back. A second test reads servers through a
//! remote `innodebt serve` agent's `/events` instead of connecting — its `/metrics` target, a
//! `/probe?target=` one, and one the agent cannot reach — next to an agent that is not there.

use crate::common;

use std::time::{Duration, Instant};

use common::serve::Serve;
use common::tmux::Tmux;
use common::wait::{OnTimeout, wait_until_async};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};

/// The row of `name` on the fleet screen, split into its columns.
fn row<'a>(screen: &'a str, name: &str) -> Option<Vec<&'a str>> {
    screen
        .lines()
        .filter(|l| l.split_whitespace().nth(1) != Some("·"))
        .find(|l| l.split_whitespace().next() == Some(name))
        .map(|l| l.split_whitespace().collect())
}

/// The UPD column ("3s") of a row: seconds since its latest figures.
fn updated_s(screen: &str, name: &str) -> Option<u64> {
    row(screen, name)?.last()?.strip_suffix('s')?.parse().ok()
}

/// Server names in table order (not the detail line, `name · source · …`).
fn order(screen: &str, names: &[&str]) -> Vec<String> {
    screen
        .lines()
        .filter(|l| l.split_whitespace().nth(1) != Some("·"))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| names.contains(w))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fleet_sorts_by_breach_survives_a_dead_server_and_opens_a_dashboard() {
    let alpha = PrivateServer::start(ServerConfig::default());
    let bravo = PrivateServer::start(ServerConfig::default());
    let mut charlie = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(bravo.opts(), 2, 200);
    let snapshot = BlockingSnapshot::open(bravo.opts()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fleet.toml");
    let mut toml = String::new();
    for (name, s, group) in [
        ("alpha", &alpha, "eu"),
        ("bravo", &bravo, "eu"),
        ("charlie", &charlie, "us"),
    ] {
        toml.push_str(&format!(
            "[targets.{name}]\nhost = \"127.0.0.1\"\nport = {}\nuser = \"root\"\ngroup = \"{group}\"\ntags = [\"t-{name}\"]\n",
            s.port()
        ));
    }
    std::fs::write(&config, toml).unwrap();
    let tmux = Tmux::start(dir.path(), 160, 30);
    tmux.type_text(&format!(
        "{} --no-defaults --interval 1s fleet --timeout 2s --config {}",
        common::innodebt_bin().display(),
        config.display()
    ));
    tmux.keys(&["Enter"]);
    let names = ["alpha", "bravo", "charlie"];
    let long = Duration::from_secs(40);
    // Grouping is on with groups in the config; flat order is what "nearest breach" means.
    tmux.wait_for("the fleet table", long, |s| s.contains("innodebt fleet"));
    tmux.keys(&["g"]);
    let screen = tmux.wait_for("bravo blocked, first", long, |s| {
        row(s, "bravo").is_some_and(|r| r.join(" ").contains("blocked by read view"))
            && row(s, "alpha").is_some_and(|r| r.contains(&"healthy"))
            && row(s, "charlie").is_some_and(|r| r.contains(&"healthy"))
    });
    assert_eq!(
        order(&screen, &names),
        ["bravo", "alpha", "charlie"],
        "{screen}"
    );
    let blocker = row(&screen, "bravo").unwrap().join(" ");
    assert!(
        blocker.contains(&format!("#{}", snapshot.thread_id())),
        "{screen}"
    );

    charlie.kill9();
    let killed_at = Instant::now();
    let screen = tmux.wait_for("charlie DISCONNECTED", long, |s| {
        row(s, "charlie").is_some_and(|r| r.contains(&"DISCONNECTED"))
    });
    let noticed = killed_at.elapsed();
    assert!(
        noticed < Duration::from_secs(10),
        "noticed after {noticed:?}"
    );
    assert_eq!(
        order(&screen, &names),
        ["bravo", "charlie", "alpha"],
        "{screen}"
    );
    // The others keep updating every second while charlie is retried in the background:
    // every look finds both fresh, until each server has answered five more of its poller's
    // ticks (one `SHOW GLOBAL STATUS` a tick, counted at the server less this probe's own).
    async fn polled(server: &PrivateServer) -> u64 {
        server.status_u64("Com_show_status").await
    }
    let from = [polled(&alpha).await, polled(&bravo).await];
    let probes = &std::cell::Cell::new(0u64);
    let (a, b, t) = (&alpha, &bravo, &tmux);
    wait_until_async(
        long,
        OnTimeout(|| {
            format!(
                "five ticks of alpha and bravo while charlie is down; screen is:\n{}",
                t.screen()
            )
        }),
        || async move {
            let s = t.screen();
            for live in ["alpha", "bravo"] {
                let age = updated_s(&s, live).unwrap_or(99);
                assert!(
                    age <= 2,
                    "{live} not updated for {age}s while charlie is down:\n{s}"
                );
            }
            assert!(
                row(&s, "charlie").is_some_and(|r| r.contains(&"DISCONNECTED")),
                "{s}"
            );
            probes.set(probes.get() + 1);
            let ticks = [polled(a).await - from[0], polled(b).await - from[1]];
            ticks.iter().all(|n| n.saturating_sub(probes.get()) >= 5)
        },
    )
    .await;
    // The detail line of the selected dead row says why.
    tmux.keys(&["Home", "Down"]);
    tmux.wait_for("charlie's reason", long, |s| {
        s.contains("charlie · 127.0.0.1:") && s.contains("DISCONNECTED: ")
    });

    // Filter: only alpha left; Esc brings all back.
    tmux.type_text("/tag:t-alpha");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("filtered", long, |s| s.contains("filter “tag:t-alpha”"));
    assert_eq!(order(&s, &names), ["alpha"], "{s}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("unfiltered", long, |s| order(s, &names).len() == 3);

    // Enter on bravo (first row): its six-panel dashboard with the blocker; Esc back.
    tmux.keys(&["Home", "Enter"]);
    let dash = tmux.wait_for("bravo's dashboard", long, |s| {
        s.contains("Checkpoint age")
            && s.contains("History list length")
            && s.contains("Undo residency")
    });
    assert!(dash.contains(&bravo.port().to_string()), "{dash}");
    tmux.wait_for("the blocker in bravo's dashboard", long, |s| {
        s.contains(&snapshot.thread_id().to_string())
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("back to the fleet", long, |s| s.contains("innodebt fleet"));
    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", long, |s| !s.contains("innodebt fleet"));
    snapshot.commit().await;
    load.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fleet_reads_a_server_through_a_serve_agent() {
    let server = PrivateServer::start(ServerConfig::default());
    let agent = Serve::start(&common::serve::serve_args(
        &server,
        &["--probe-allow", "127.0.0.1"],
    ));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fleet.toml");
    let dead = common::serve::free_port();
    let no_server = common::serve::free_port();
    std::fs::write(
        &config,
        format!(
            "[targets.remote]\nagent = \"http://{a}/metrics\"\n\n\
             [targets.probed]\nagent = \"http://{a}/probe?target=127.0.0.1:{port}\"\n\n\
             [targets.unreached]\nagent = \"http://{a}/probe?target=127.0.0.1:{no_server}\"\n\n\
             [targets.gone]\nagent = \"http://127.0.0.1:{dead}/metrics\"\n",
            a = agent.addr,
            port = server.port(),
        ),
    )
    .unwrap();
    let tmux = Tmux::start(dir.path(), 160, 30);
    tmux.type_text(&format!(
        "{} --no-defaults --interval 1s fleet --config {}",
        common::innodebt_bin().display(),
        config.display()
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(30);
    let s = tmux.wait_for("the agent's rows", long, |s| {
        ["remote", "probed"]
            .iter()
            .all(|n| row(s, n).is_some_and(|r| r.contains(&"healthy")))
            && ["unreached", "gone"]
                .iter()
                .all(|n| row(s, n).is_some_and(|r| r.contains(&"DISCONNECTED")))
    });
    assert!(updated_s(&s, "remote").is_some_and(|a| a <= 2), "{s}");
    // Each down row's detail line says why: the agent's own error for the server it cannot
    // reach, the HTTP error for the agent that is not there.
    for (name, why) in [
        ("unreached", format!("nothing listens on port {no_server}")),
        ("gone", "cannot connect".to_string()),
    ] {
        tmux.type_text(&format!("/{name}"));
        tmux.keys(&["Enter"]);
        tmux.wait_for(&format!("{name}'s reason"), long, |s| {
            s.contains(&format!("{name} · agent")) && s.contains(&why)
        });
        tmux.keys(&["Escape"]);
        tmux.wait_for("the filter cleared", long, |s| {
            ["remote", "probed", "unreached", "gone"]
                .iter()
                .all(|n| row(s, n).is_some())
        });
    }
    // Enter on the agent's row: the six panels from the agent's /events (no MySQL
    // connection from here); Esc back.
    tmux.keys(&["End", "Enter"]);
    let dash = tmux.wait_for("the agent row's dashboard", long, |s| {
        s.contains("Checkpoint age") && s.contains("Undo residency") && s.contains("MariaDB")
    });
    assert!(dash.contains(&server.port().to_string()), "{dash}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("back to the fleet", long, |s| s.contains("innodebt fleet"));
    // The agent's /events refuses a bad cursor and names what it wants.
    let bad = agent.get("/events?after=x");
    assert_eq!(bad.status, 400, "{}", bad.body);
    tmux.keys(&["q"]);
}

/// `fleet --once`: one look at every server, nearest breach first, as JSON for a script and as
/// text for a ticket; a server that does not answer is in the list as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fleet_once_lists_every_server_nearest_breach_first() {
    let alpha = PrivateServer::start(ServerConfig::default());
    let bravo = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(bravo.opts(), 2, 200);
    let snapshot = BlockingSnapshot::open(bravo.opts()).await;
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_port = dead.local_addr().unwrap().port();
    drop(dead);
    let hosts = [
        format!("127.0.0.1:{}", alpha.port()),
        format!("127.0.0.1:{}", bravo.port()),
        format!("127.0.0.1:{dead_port}"),
    ];
    let run = |format: &str| {
        let mut cmd = std::process::Command::new(common::innodebt_bin());
        cmd.args(["--no-defaults", "-u", "root", "--interval", "1s", "fleet"]);
        for h in &hosts {
            cmd.args(["-h", h]);
        }
        cmd.args(["--timeout", "2s", "--once", "--format", format]);
        cmd.output().expect("run innodebt fleet --once")
    };
    // The blocker's verdict needs its history trend watched; wait until a look shows it.
    let json = common::wait::wait_for(
        Duration::from_secs(90),
        "bravo's blocker in a fleet --once",
        || {
            let out = run("json");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let first = &v["servers"][0];
            (first["verdict"] == "blocked_by_read_view").then_some(v)
        },
    );
    let servers = json["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 3, "{json}");
    assert_eq!(servers[0]["name"], hosts[1], "{json}");
    assert_eq!(
        servers[0]["blocker_thread_id"],
        snapshot.thread_id(),
        "{json}"
    );
    assert_eq!(servers[0]["needs_attention"], true, "{json}");
    // The dead one is named as not answering, ahead of the healthy one.
    assert_eq!(servers[1]["name"], hosts[2], "{json}");
    assert_eq!(servers[1]["state"], "down", "{json}");
    assert!(
        servers[1]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{json}"
    );
    assert_eq!(servers[2]["name"], hosts[0], "{json}");
    assert_eq!(servers[2]["state"], "up", "{json}");
    assert_eq!(servers[2]["severity"], "ok", "{json}");

    let out = run("text");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("3 servers") && lines[0].contains("1 not answering"),
        "{text}"
    );
    assert!(lines[1].starts_with("SERVER"), "{text}");
    assert!(
        lines[3].starts_with(&hosts[2]) && lines[3].contains("down"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}: ", hosts[2])),
        "the dead server's reason: {text}"
    );
    snapshot.commit().await;
    load.stop().await;
}
