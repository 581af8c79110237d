//! TLS against a private MariaDB serving certificates this test generates with `openssl`:
//! every `--ssl-mode`, through the library (`innodebt_poller::connect`) and through the binary
//! (`--once`). An encrypted session is proven by the server: `Ssl_cipher` of the session, or
//! the server's `Ssl_finished_accepts` counter moving when the binary connected. A wrong CA, a
//! certificate for another name (or for none), an account that requires TLS, a server that
//! requires it and a server without TLS each fail with a message that names the problem and
//! what to do, and their own exit code.

use crate::common;

use std::path::Path;

use common::accounts::{Account, Run, run};
use common::certs::{Certs, OTHER_NAME, ServerCert};
use common::{PrivateServer, ServerConfig};
use innodebt::cli::{ConnectOptions, Endpoint, Secret, SslMode};
use innodebt_poller::connect::{ConnectError, Transport, connect_with_transport};
use mysql_async::prelude::Queryable;

use SslMode::{Disabled, Preferred, Required, VerifyCa, VerifyIdentity};

const PASSWORD: &str = "Tls-pw-31x";

/// A server presenting `cert`, with `have_ssl` checked (a build without TLS is a failure
/// with a hint, not a skip), and two accounts: `tls_any` and `tls_only` (REQUIRE SSL).
async fn tls_server(certs: &Certs, cert: ServerCert) -> (PrivateServer, Account, Account) {
    let server = PrivateServer::start(ServerConfig::default().with_args(certs.server_args(cert)));
    let have_ssl = server.sql("SHOW GLOBAL VARIABLES LIKE 'have_ssl'").await;
    let value: String = have_ssl.first().and_then(|r| r.get(1)).unwrap_or_default();
    assert_eq!(
        value,
        "YES",
        "mariadbd did not enable TLS with the generated certificates (have_ssl = {value:?}); \
         it needs a TLS-enabled build (Debian's mariadb-server is): error log:\n{}",
        server.error_log_tail(20)
    );
    let any = Account::create(&server, "tls_any", PASSWORD, "PROCESS").await;
    let only = Account::create(&server, "tls_only", PASSWORD, "PROCESS").await;
    server.sql("ALTER USER 'tls_only'@'%' REQUIRE SSL").await;
    (server, any, only)
}

/// One account dialling one host name of a private server.
struct Client<'a> {
    server: &'a PrivateServer,
    host: &'a str,
    account: &'a Account,
}

impl Client<'_> {
    fn opts(&self, mode: SslMode, ca: Option<&Path>) -> ConnectOptions {
        let mut o = ConnectOptions::new(Endpoint::Tcp {
            host: self.host.to_string(),
            port: self.server.port(),
        });
        o.user = self.account.user.clone();
        o.password = Some(Secret::new(self.account.password.clone()));
        o.ssl_mode = mode;
        o.ssl_ca = ca.map(Path::to_path_buf);
        o
    }

    /// Connects through the library; `Ok` carries the session's `Ssl_cipher` ("" if plain).
    async fn cipher(
        &self,
        mode: SslMode,
        ca: Option<&Path>,
    ) -> Result<(Transport, String), ConnectError> {
        let (mut conn, transport) = connect_with_transport(&self.opts(mode, ca)).await?;
        let row: Option<(String, String)> = conn
            .query_first("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            .await
            .expect("SHOW SESSION STATUS");
        let _ = conn.disconnect().await;
        Ok((transport, row.map(|(_, c)| c).unwrap_or_default()))
    }

    /// Connects, and the server says the session is encrypted.
    async fn encrypted(&self, mode: SslMode, ca: Option<&Path>) {
        let what = format!("{mode:?} to {} as {}", self.host, self.account.user);
        match self.cipher(mode, ca).await {
            Ok((transport, cipher)) => {
                assert_eq!(transport, Transport::TcpTls, "{what}");
                assert!(!cipher.is_empty(), "{what}: Ssl_cipher is empty");
            }
            Err(e) => panic!("{what}: {e}"),
        }
    }

    /// Fails to connect; the error, which never shows the password.
    async fn refused(&self, mode: SslMode, ca: Option<&Path>) -> ConnectError {
        let what = format!("{mode:?} to {} as {}", self.host, self.account.user);
        match self.cipher(mode, ca).await {
            Ok((t, c)) => panic!("{what} should fail, connected ({t:?}, cipher {c:?})"),
            Err(e) => {
                assert!(
                    !e.to_string().contains(PASSWORD),
                    "{what}: the message shows the password: {e}"
                );
                e
            }
        }
    }

    /// `innodebt --once` with `flags`; its output never shows the password.
    fn once(&self, flags: &[&str]) -> Run {
        let mut args = vec!["--no-defaults".to_string()];
        args.extend(self.account.target(self.server, self.host));
        args.push(format!("--password={}", self.account.password));
        args.extend(["--once", "--format", "json", "--interval", "200ms"].map(String::from));
        args.extend(flags.iter().map(|f| f.to_string()));
        let out = run(&args);
        assert!(
            !out.stdout.contains(PASSWORD) && !out.stderr.contains(PASSWORD),
            "{flags:?}: the output shows the password:\n{}\n{}",
            out.stdout,
            out.stderr
        );
        out
    }
}

/// `Ssl_finished_accepts`: TLS handshakes the server completed.
async fn tls_handshakes(server: &PrivateServer) -> u64 {
    server.status_u64("Ssl_finished_accepts").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ssl_mode_through_the_library() {
    let certs = Certs::generate();
    let (server, any, only) = tls_server(&certs, ServerCert::Localhost).await;
    let (ca, wrong) = (certs.ca(), certs.wrong_ca());
    let client = |host, account| Client {
        server: &server,
        host,
        account,
    };
    let c = client("127.0.0.1", &any);

    c.encrypted(Required, None).await;
    c.encrypted(Preferred, None).await;
    c.encrypted(VerifyCa, Some(&ca)).await;
    c.encrypted(VerifyIdentity, Some(&ca)).await;
    client("localhost", &any)
        .encrypted(VerifyIdentity, Some(&ca))
        .await;
    let (transport, cipher) = c.cipher(Disabled, None).await.expect("DISABLED connects");
    assert_eq!(transport, Transport::Tcp);
    assert_eq!(cipher, "", "DISABLED must not encrypt");

    // The wrong CA: certificate verification fails, naming the CA file and what to do.
    let e = c.refused(VerifyCa, Some(&wrong)).await;
    assert!(
        matches!(e, ConnectError::CertificateRejected { .. }),
        "{e:?}"
    );
    assert_eq!(e.exit_code(), 21);
    let msg = e.to_string();
    for part in [
        "failed verification",
        &wrong.display().to_string(),
        "--ssl-ca names the CA that signed",
        "--ssl-mode REQUIRED",
    ] {
        assert!(msg.contains(part), "{part}: {msg}");
    }
    assert_eq!(
        c.refused(VerifyIdentity, Some(&wrong)).await.exit_code(),
        21
    );

    // VERIFY_CA needs a CA file, and one that exists: said before touching the network.
    let e = c.refused(VerifyCa, None).await;
    assert!(matches!(e, ConnectError::CaRequired { .. }), "{e}");
    let missing = ca.with_file_name("no-such-ca.pem");
    let e = c.refused(VerifyCa, Some(&missing)).await.to_string();
    assert!(
        e.contains("no-such-ca.pem") && e.contains("does not exist"),
        "{e}"
    );

    // An account that requires TLS: DISABLED is access denied, and the message says TLS may
    // be why; REQUIRED logs in.
    let tls_only = client("127.0.0.1", &only);
    let e = tls_only.refused(Disabled, None).await;
    assert_eq!(e.exit_code(), 18, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("REQUIRE SSL") && msg.contains("try --ssl-mode REQUIRED"),
        "{msg}"
    );
    tls_only.encrypted(Required, None).await;

    // require_secure_transport: the same story for every account.
    server.sql("SET GLOBAL require_secure_transport = ON").await;
    let msg = c.refused(Disabled, None).await.to_string();
    assert!(
        msg.contains("require_secure_transport") && msg.contains("--ssl-mode REQUIRED"),
        "{msg}"
    );
    c.encrypted(Required, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ssl_mode_through_the_binary() {
    let certs = Certs::generate();
    let (server, any, only) = tls_server(&certs, ServerCert::Localhost).await;
    let ca = certs.ca().display().to_string();
    let wrong = certs.wrong_ca().display().to_string();
    let client = |host, account| Client {
        server: &server,
        host,
        account,
    };
    let c = client("127.0.0.1", &any);

    // Each run must have made (at least) one TLS handshake, or none for DISABLED.
    let cases: [(Client, Vec<&str>, bool); 7] = [
        (
            client("127.0.0.1", &any),
            vec!["--ssl-mode", "REQUIRED"],
            true,
        ),
        (client("127.0.0.1", &any), vec![], true),
        (
            client("127.0.0.1", &any),
            vec!["--ssl-mode", "VERIFY_CA", "--ssl-ca", &ca],
            true,
        ),
        (
            client("127.0.0.1", &any),
            vec!["--ssl-mode", "VERIFY_IDENTITY", "--ssl-ca", &ca],
            true,
        ),
        (
            client("localhost", &any),
            vec!["--ssl-mode", "VERIFY_IDENTITY", "--ssl-ca", &ca],
            true,
        ),
        (
            client("127.0.0.1", &only),
            vec!["--ssl-mode", "REQUIRED"],
            true,
        ),
        (
            client("127.0.0.1", &any),
            vec!["--ssl-mode", "DISABLED"],
            false,
        ),
    ];
    for (client, flags, tls) in &cases {
        let what = format!("{} as {} {flags:?}", client.host, client.account.user);
        let before = tls_handshakes(&server).await;
        let v = client.once(flags).ok(&what).json();
        assert_eq!(v["server"]["flavor"], "mariadb", "{what}");
        let after = tls_handshakes(&server).await;
        if *tls {
            assert!(
                after > before,
                "{what}: no TLS handshake ({before} → {after})"
            );
        } else {
            assert_eq!(after, before, "{what}: DISABLED made a TLS handshake");
        }
    }

    // The wrong CA: exit 21, one line naming the CA file and what to do.
    let out = c.once(&["--ssl-mode", "VERIFY_CA", "--ssl-ca", &wrong]);
    assert_eq!(out.code, Some(21), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    for part in [
        "failed verification against the CA file",
        wrong.as_str(),
        "--ssl-ca",
    ] {
        assert!(out.stderr.contains(part), "{part}: {}", out.stderr);
    }
    // VERIFY_CA without a CA file: exit 24, says to give one.
    let out = c.once(&["--ssl-mode", "VERIFY_CA"]);
    assert_eq!(out.code, Some(24), "{}", out.stderr);
    assert!(out.stderr.contains("give --ssl-ca FILE"), "{}", out.stderr);
    // A REQUIRE SSL account without TLS: access denied (18), TLS named as the likely cause.
    let out = client("127.0.0.1", &only).once(&["--ssl-mode", "DISABLED"]);
    assert_eq!(out.code, Some(18), "{}", out.stderr);
    assert!(
        out.stderr.contains("try --ssl-mode REQUIRED"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_for_another_name() {
    let certs = Certs::generate();
    let (server, any, _) = tls_server(&certs, ServerCert::OtherName).await;
    let ca = certs.ca();
    let c = Client {
        server: &server,
        host: "127.0.0.1",
        account: &any,
    };

    // VERIFY_IDENTITY checks the name: 127.0.0.1 is not on the certificate.
    let e = c.refused(VerifyIdentity, Some(&ca)).await;
    assert!(matches!(e, ConnectError::HostNameMismatch { .. }), "{e:?}");
    assert_eq!(e.exit_code(), 22);
    let msg = e.to_string();
    assert!(
        msg.contains("does not name that host")
            && msg.contains(OTHER_NAME)
            && msg.contains("VERIFY_CA"),
        "{msg}"
    );
    // VERIFY_CA checks the chain only: it connects although the name differs (the rustls
    // workaround in source::connect), and a wrong CA still fails.
    c.encrypted(VerifyCa, Some(&ca)).await;
    assert_eq!(
        c.refused(VerifyCa, Some(&certs.wrong_ca()))
            .await
            .exit_code(),
        21
    );

    let ca = ca.display().to_string();
    let before = tls_handshakes(&server).await;
    c.once(&["--ssl-mode", "VERIFY_CA", "--ssl-ca", &ca])
        .ok("VERIFY_CA through the binary");
    assert!(tls_handshakes(&server).await > before);
    let out = c.once(&["--ssl-mode", "VERIFY_IDENTITY", "--ssl-ca", &ca]);
    assert_eq!(out.code, Some(22), "{}", out.stderr);
    assert!(out.stderr.contains(OTHER_NAME), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_without_names() {
    // MySQL's auto-generated certificates look like this: a CN, no subjectAltName. rustls
    // checks names in the subjectAltName only, and mysql_async 0.37 cannot switch the name
    // check off, so VERIFY_CA cannot accept it: the message must say so and what works.
    let certs = Certs::generate();
    let (server, any, _) = tls_server(&certs, ServerCert::NoNames).await;
    let c = Client {
        server: &server,
        host: "127.0.0.1",
        account: &any,
    };
    let e = c.refused(VerifyCa, Some(&certs.ca())).await;
    assert!(
        matches!(e, ConnectError::HostNameMismatchVerifyCa { .. }),
        "{e:?}"
    );
    assert_eq!(e.exit_code(), 22);
    let msg = e.to_string();
    assert!(
        msg.contains("offers no name") && msg.contains("--ssl-mode REQUIRED"),
        "{msg}"
    );
    c.encrypted(Required, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_tls() {
    let server = PrivateServer::start(ServerConfig::default());
    let any = Account::create(&server, "plain_any", PASSWORD, "PROCESS").await;
    let c = Client {
        server: &server,
        host: "127.0.0.1",
        account: &any,
    };
    let e = c.refused(Required, None).await;
    assert!(matches!(e, ConnectError::ServerHasNoTls { .. }), "{e:?}");
    assert_eq!(e.exit_code(), 20);
    assert!(e.to_string().contains("have_ssl"), "{e}");
    // PREFERRED goes on unencrypted, as the mysql client does.
    let (transport, cipher) = c
        .cipher(Preferred, None)
        .await
        .expect("PREFERRED falls back to plain");
    assert_eq!((transport, cipher.as_str()), (Transport::Tcp, ""));
    let out = c.once(&["--ssl-mode", "REQUIRED"]);
    assert_eq!(out.code, Some(20), "{}", out.stderr);
    assert!(
        out.stderr.contains("does not support TLS"),
        "{}",
        out.stderr
    );
}
