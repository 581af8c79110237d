//! The fleet view reads a remote `innodebt serve` that is behind `--web-config` (https with a
//! private CA, bcrypt basic auth) as Prometheus would: the CA from `agent_ssl_ca`, the
//! password from `agent_password_file` or `INNODEBT_AGENT_PASSWORD` (fleet's
//! `--agent-ssl-ca`/`--agent-user` as defaults). A wrong password and a wrong CA are rows
//! that say why they are down, and the good row's dashboard comes over https too.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::certs::Certs;
use common::serve::{Serve, serve_args};
use common::tmux::Tmux;
use common::{PrivateServer, ServerConfig};

const PASSWORD: &str = "fleet-agent-pw";

fn row<'a>(screen: &'a str, name: &str) -> Option<Vec<&'a str>> {
    screen
        .lines()
        .filter(|l| l.split_whitespace().nth(1) != Some("·"))
        .find(|l| l.split_whitespace().next() == Some(name))
        .map(|l| l.split_whitespace().collect())
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write a test file");
    p
}

#[test]
fn fleet_reads_an_agent_over_https_with_basic_auth() {
    let server = PrivateServer::start(ServerConfig::default());
    let certs = Certs::generate();
    let (cert, key) = certs.localhost_cert_and_key();
    let dir = tempfile::tempdir().unwrap();
    let hash = bcrypt::hash(PASSWORD, 10).unwrap();
    let web = write(
        dir.path(),
        "web-config.yml",
        &format!(
            "tls_server_config:\n  cert_file: {}\n  key_file: {}\n\
             basic_auth_users:\n  fleet: '{hash}'\n",
            cert.display(),
            key.display()
        ),
    );
    let agent = Serve::start(&serve_args(
        &server,
        &["--web-config", &web.display().to_string()],
    ));
    let good_pw = write(dir.path(), "good.pw", &format!("{PASSWORD}\n"));
    let bad_pw = write(dir.path(), "bad.pw", "not-the-password\n");
    let url = format!("https://127.0.0.1:{}/metrics", agent.addr.port());
    let ca = certs.ca();
    let wrong_ca = certs.wrong_ca();
    let config = write(
        dir.path(),
        "fleet.toml",
        &format!(
            "[targets.good]\nagent = \"{url}\"\nagent_ssl_ca = \"{ca}\"\nagent_user = \"fleet\"\n\
             agent_password_file = \"{good}\"\n\n\
             [targets.badpw]\nagent = \"{url}\"\nagent_ssl_ca = \"{ca}\"\nagent_user = \"fleet\"\n\
             agent_password_file = \"{bad}\"\n\n\
             [targets.wrongca]\nagent = \"{url}\"\nagent_ssl_ca = \"{wrong}\"\n\n\
             [targets.viaenv]\nagent = \"{url}\"\n",
            ca = ca.display(),
            good = good_pw.display(),
            bad = bad_pw.display(),
            wrong = wrong_ca.display(),
        ),
    );
    let tmux = Tmux::start(dir.path(), 200, 30);
    // viaenv has no agent_* keys: the fleet flags and the environment give them; the
    // password is never on the command line.
    tmux.type_text(&format!(
        "INNODEBT_AGENT_PASSWORD={PASSWORD} {} --no-defaults --interval 1s fleet --config {} \
         --agent-ssl-ca {} --agent-user fleet",
        common::innodebt_bin().display(),
        config.display(),
        ca.display()
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(40);
    let s = tmux.wait_for("the agent rows", long, |s| {
        ["good", "viaenv"]
            .iter()
            .all(|n| row(s, n).is_some_and(|r| r.contains(&"healthy")))
            && ["badpw", "wrongca"]
                .iter()
                .all(|n| row(s, n).is_some_and(|r| r.contains(&"DISCONNECTED")))
    });
    assert!(!s.contains(PASSWORD), "{s}");
    // Each down row's detail line says why: the agent refused the user, or the certificate
    // is not the CA's.
    let detail = |name: &str, why: &'static [&'static str]| {
        tmux.type_text(&format!("/{name}"));
        tmux.keys(&["Enter"]);
        let s = tmux.wait_for(&format!("{name}'s reason"), long, |s| {
            s.contains(&format!("{name} · agent")) && why.iter().any(|w| s.contains(w))
        });
        // Esc clears the filter; the next key waits for it (an Esc and a `/` read together
        // are Alt+/ to the terminal).
        tmux.keys(&["Escape"]);
        tmux.wait_for("the filter cleared", long, |s| {
            ["good", "viaenv", "badpw", "wrongca"]
                .iter()
                .all(|n| row(s, n).is_some())
        });
        s
    };
    detail("badpw", &["HTTP 401", "refused this user"]);
    detail("wrongca", &["UnknownIssuer", "invalid peer certificate"]);
    // The good row's dashboard: the six panels from the agent's /events over https.
    tmux.type_text("/good");
    tmux.keys(&["Enter"]);
    tmux.wait_for("filtered to good", long, |s| {
        row(s, "good").is_some() && row(s, "badpw").is_none()
    });
    tmux.keys(&["Home", "Enter"]);
    let dash = tmux.wait_for("the https agent row's dashboard", long, |s| {
        s.contains("Checkpoint age") && s.contains("Undo residency") && s.contains("MariaDB")
    });
    assert!(dash.contains(&server.port().to_string()), "{dash}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("back to the fleet", long, |s| s.contains("innodebt fleet"));
    tmux.keys(&["Escape", "q"]);
    drop(tmux);
    // Without credentials the agent answers 401, and the fleet says what to set.
    let noauth = write(
        dir.path(),
        "noauth.toml",
        &format!(
            "[targets.noauth]\nagent = \"{url}\"\nagent_ssl_ca = \"{}\"\n",
            ca.display()
        ),
    );
    let second = dir.path().join("second");
    std::fs::create_dir(&second).unwrap();
    let t2 = Tmux::start(&second, 200, 30);
    t2.type_text(&format!(
        "{} --no-defaults --interval 1s fleet --config {}",
        common::innodebt_bin().display(),
        noauth.display()
    ));
    t2.keys(&["Enter"]);
    t2.keys(&["Home"]);
    t2.wait_for("the no-credentials reason", long, |s| {
        s.contains("HTTP 401") && s.contains("agent_user")
    });
    t2.keys(&["q"]);
}
