//! `--ssl-cert`/`--ssl-key`: a private MariaDB serving the TLS harness's certificates, an
//! account created `REQUIRE SUBJECT` of a client certificate this test signs with the
//! harness's CA. Without the certificate the server refuses (18), with it the binary logs in
//! (also from one PEM holding both, and from an option file's `ssl-cert`/`ssl-key`), and a
//! missing file is named with its own exit code (24) before any connection.

use crate::common;

use std::path::Path;

use common::accounts::{Account, Run, run};
use common::certs::{Certs, ServerCert, sign_client_cert};
use common::{PrivateServer, ServerConfig};

const PASSWORD: &str = "Cert-pw-88z";
const SUBJECT: &str = "/CN=innodebt-client";

/// A client certificate for [`SUBJECT`] signed by the harness's CA: (cert, key, both in one).
fn client_cert(certs: &Certs, dir: &Path) -> [String; 3] {
    let ca = certs.ca();
    let ca_key = ca.with_file_name("ca-key.pem");
    sign_client_cert(dir, &ca, &ca_key, SUBJECT);
    let cert = std::fs::read_to_string(dir.join("client.pem")).expect("client.pem");
    let key = std::fs::read_to_string(dir.join("client-key.pem")).expect("client-key.pem");
    std::fs::write(dir.join("both.pem"), format!("{cert}{key}")).expect("write both.pem");
    ["client.pem", "client-key.pem", "both.pem"].map(|f| dir.join(f).display().to_string())
}

fn once(server: &PrivateServer, account: &Account, flags: &[&str]) -> Run {
    let mut args = vec!["--no-defaults".to_string()];
    args.extend(account.target(server, "127.0.0.1"));
    args.push(format!("--password={}", account.password));
    args.extend(["--once", "--format", "json"].map(String::from));
    args.extend(flags.iter().map(|f| f.to_string()));
    run(&args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificates_log_in_to_an_account_that_requires_one() {
    let certs = Certs::generate();
    let server = PrivateServer::start(
        ServerConfig::default().with_args(certs.server_args(ServerCert::Localhost)),
    );
    let account = Account::create(&server, "x509_user", PASSWORD, "PROCESS").await;
    server
        .sql(&format!(
            "ALTER USER 'x509_user'@'%' REQUIRE SUBJECT '{SUBJECT}'"
        ))
        .await;
    let dir = tempfile::tempdir().unwrap();
    let [cert, key, both] = client_cert(&certs, dir.path());
    let ca = certs.ca().display().to_string();

    let r = once(
        &server,
        &account,
        &["--ssl-mode", "VERIFY_CA", "--ssl-ca", &ca],
    );
    assert_eq!(
        r.code,
        Some(18),
        "no certificate must be refused:\n{}",
        r.stderr
    );

    let r = once(
        &server,
        &account,
        &[
            "--ssl-mode",
            "VERIFY_CA",
            "--ssl-ca",
            &ca,
            "--ssl-cert",
            &cert,
            "--ssl-key",
            &key,
        ],
    )
    .ok("--ssl-cert/--ssl-key");
    assert!(r.json().is_object());
    // REQUIRED (no server verification) still presents the certificate.
    once(
        &server,
        &account,
        &[
            "--ssl-mode",
            "REQUIRED",
            "--ssl-cert",
            &cert,
            "--ssl-key",
            &key,
        ],
    )
    .ok("REQUIRED with a client certificate");
    // One file with both, as the mysql client takes it.
    once(
        &server,
        &account,
        &["--ssl-mode", "REQUIRED", "--ssl-cert", &both],
    )
    .ok("one PEM");
    // From an option file, as [client] ssl-cert / ssl-key.
    let cnf = dir.path().join("my.cnf");
    std::fs::write(
        &cnf,
        format!("[client]\nssl-cert = {cert}\nssl-key = {key}\n"),
    )
    .unwrap();
    let mut args = vec![format!("--defaults-file={}", cnf.display())];
    args.extend(account.target(&server, "127.0.0.1"));
    args.push(format!("--password={}", account.password));
    args.extend(["--once", "--format", "json", "--ssl-mode", "REQUIRED"].map(String::from));
    run(&args).ok("ssl-cert in an option file");

    let missing = dir.path().join("nope.pem").display().to_string();
    let r = once(
        &server,
        &account,
        &["--ssl-mode", "REQUIRED", "--ssl-cert", &missing],
    );
    assert_eq!(r.code, Some(24), "{}", r.stderr);
    assert!(
        r.stderr.contains("--ssl-cert") && r.stderr.contains("nope.pem"),
        "{}",
        r.stderr
    );
}
