//! Debian's mysqld_exporter against a private server, set up as a DBA does: an account of its
//! own (it wants a password in its my.cnf) and that my.cnf. The Prometheus import test and the
//! serve-at-scale bench run it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::PrivateServer;

/// The exporter's binary (Debian names it `prometheus-mysqld-exporter`).
pub fn bin() -> PathBuf {
    super::find_binary(&["prometheus-mysqld-exporter", "mysqld_exporter"]).unwrap_or_else(|_| {
        panic!(
            "mysqld_exporter not found: apt-get install prometheus-mysqld-exporter (.ci/run installs it)"
        )
    })
}

/// The exporter's account on `server`, with the grants its collectors need.
pub async fn create_account(server: &PrivateServer) {
    server
        .sql("CREATE USER IF NOT EXISTS exporter@'127.0.0.1' IDENTIFIED BY 'exp-secret'")
        .await;
    server
        .sql("GRANT PROCESS, REPLICATION CLIENT, SELECT ON *.* TO exporter@'127.0.0.1'")
        .await;
}

/// `dir/exporter.cnf` logging in to `server` with that account.
pub fn write_cnf(dir: &Path, server: &PrivateServer) -> PathBuf {
    let cnf = dir.join("exporter.cnf");
    std::fs::write(
        &cnf,
        format!(
            "[client]\nuser=exporter\npassword=exp-secret\nhost=127.0.0.1\nport={}\n",
            server.port()
        ),
    )
    .expect("write exporter.cnf");
    cnf
}

/// Debian's mysqld_exporter against `server`, with the InnoDB collectors on.
pub struct Exporter {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Exporter {
    pub async fn start(server: &PrivateServer) -> Exporter {
        let bin = bin();
        create_account(server).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let cnf = write_cnf(dir.path(), server);
        let port = super::serve::free_port();
        let log = std::fs::File::create(dir.path().join("exporter.log")).expect("log");
        let child = Command::new(bin)
            .arg(format!("--config.my-cnf={}", cnf.display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .args([
                "--collect.global_status",
                "--collect.global_variables",
                "--collect.info_schema.innodb_metrics",
                "--collect.engine_innodb_status",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start mysqld_exporter");
        let e = Exporter {
            child,
            port,
            _dir: dir,
        };
        super::wait::wait_until(
            Duration::from_secs(30),
            super::wait::OnTimeout(|| {
                format!(
                    "mysqld_exporter to report mysql_up 1: {}",
                    std::fs::read_to_string(e._dir.path().join("exporter.log")).unwrap_or_default()
                )
            }),
            || {
                std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
                    && super::serve::http_get(e.addr().parse().expect("addr"), "/metrics", &[])
                        .body
                        .contains("mysql_up 1")
            },
        );
        e
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
