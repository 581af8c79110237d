//! Accounts of our own on a private server, and running the binary as one of them.
//!
//! - [`Account::create`]: `CREATE USER name@'%'` with a password and the grants given
//!   (`""` for USAGE only), over root on the private server's socket.
//! - [`Account::tcp_args`]: the mysql-client flags that log in as it over TCP.
//! - [`ask_purge_lag`]: in a dashboard running in tmux, `l`, a value, up to the confirmation.
//! - [`run`] / [`run_with`]: the `innodebt` binary, its exit code and output as text.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

use mysql_async::{Opts, OptsBuilder};

use super::PrivateServer;
use super::tmux::Tmux;

/// A login on a private server.
#[derive(Debug, Clone)]
pub struct Account {
    pub user: String,
    pub password: String,
}

impl Account {
    /// Creates `user@'%'` identified by `password` and grants `grants` on `*.*` (e.g.
    /// `"PROCESS, SELECT"`; empty for USAGE only). Panics with the server's error.
    pub async fn create(
        server: &PrivateServer,
        user: &str,
        password: &str,
        grants: &str,
    ) -> Account {
        let q = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
        server
            .sql(&format!(
                "CREATE USER '{}'@'%' IDENTIFIED BY '{}'",
                q(user),
                q(password)
            ))
            .await;
        if !grants.is_empty() {
            server
                .sql(&format!("GRANT {grants} ON *.* TO '{}'@'%'", q(user)))
                .await;
        }
        Account {
            user: user.to_string(),
            password: password.to_string(),
        }
    }

    /// `-h HOST -P PORT -u USER`: where and who, without the password.
    pub fn target(&self, server: &PrivateServer, host: &str) -> Vec<String> {
        [
            "-h",
            host,
            "-P",
            &server.port().to_string(),
            "-u",
            &self.user,
        ]
        .map(String::from)
        .to_vec()
    }

    /// `--no-defaults -h 127.0.0.1 -P PORT -u USER -pPASSWORD --ssl-mode DISABLED`.
    pub fn tcp_args(&self, server: &PrivateServer) -> Vec<String> {
        let mut args = vec!["--no-defaults".to_string()];
        args.extend(self.target(server, "127.0.0.1"));
        args.push(format!("-p{}", self.password));
        args.extend(["--ssl-mode", "DISABLED"].map(String::from));
        args
    }

    /// `mysql_async` options logging in as this account over TCP.
    pub fn opts(&self, server: &PrivateServer) -> Opts {
        OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(server.port())
            .prefer_socket(false)
            .user(Some(self.user.clone()))
            .pass(Some(self.password.clone()))
            .into()
    }
}

/// What a run of the binary gave.
#[derive(Debug, Clone)]
pub struct Run {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from_output(out: std::process::Output) -> Run {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Panics with both streams unless the run exited 0.
    pub fn ok(self, what: &str) -> Run {
        assert_eq!(
            self.code,
            Some(0),
            "{what} failed:\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// stdout as JSON; panics with the text when it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr: {}", self.stdout, self.stderr))
    }
}

/// Runs `innodebt ARGS` with stdin closed.
pub fn run<S: AsRef<str>>(args: &[S]) -> Run {
    run_with(args, &[], None)
}

/// Runs `innodebt ARGS` with extra environment variables, in `cwd` when given.
pub fn run_with<S: AsRef<str>>(args: &[S], env: &[(&str, &str)], cwd: Option<&Path>) -> Run {
    let mut cmd = Command::new(super::innodebt_bin());
    cmd.args(args.iter().map(AsRef::as_ref))
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    Run::from_output(cmd.output().expect("run innodebt"))
}

/// Every figure path (`purge.state`, `blocker`) whose value is `null` in a headless JSON
/// object, leaves only; arrays (verdicts, warnings) are not figures and are skipped.
pub fn null_figures(v: &serde_json::Value) -> Vec<String> {
    fn walk(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Null => out.push(path.to_string()),
            serde_json::Value::Object(map) => {
                for (k, x) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(x, &p, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, "", &mut out);
    out
}

/// In a dashboard running in `tmux`: `l`, replaces the prompt's value with `value`, Enter,
/// and waits for the confirmation that shows the exact SQL; returns that screen.
pub fn ask_purge_lag(tmux: &Tmux, value: u64) -> String {
    let long = std::time::Duration::from_secs(20);
    tmux.keys(&["l"]);
    tmux.wait_for("the value prompt", long, |s| {
        s.contains("innodb_max_purge_lag")
    });
    for _ in 0..12 {
        tmux.keys(&["BSpace"]);
    }
    tmux.type_text(&value.to_string());
    tmux.keys(&["Enter"]);
    let sql = format!("SET GLOBAL innodb_max_purge_lag = {value}");
    tmux.wait_for("the confirmation", long, |s| s.contains(&sql))
}
