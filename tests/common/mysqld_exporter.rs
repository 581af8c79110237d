//! Debian's mysqld_exporter against a private server, set up as a DBA does: an account of its
//! own (it wants a password in its my.cnf) and that my.cnf. The Prometheus import test and the
//! serve-at-scale bench run it.

use std::path::{Path, PathBuf};

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
