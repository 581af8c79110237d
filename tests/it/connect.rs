//! Connecting to a real server — a private MariaDB per test (its own socket and port, root
//! with no password; never the shared server) — and the messages when it goes wrong.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{PrivateServer, ServerConfig};

use innodebt::cli::{ConnectOptions, Endpoint, Environment, Secret, SslMode, parse_args};
use innodebt_poller::connect::{ConnectError, Transport, connect, connect_with_transport};
use mysql_async::prelude::Queryable;

fn tcp(port: u16) -> ConnectOptions {
    ConnectOptions::new(Endpoint::Tcp {
        host: "127.0.0.1".into(),
        port,
    })
}

async fn select_one(opts: &ConnectOptions) -> Result<(), ConnectError> {
    let mut conn = connect(opts).await?;
    let one: Option<i64> = conn.query_first("SELECT 1").await.expect("SELECT 1");
    assert_eq!(one, Some(1));
    conn.disconnect().await.expect("disconnect");
    Ok(())
}

/// A port nobody listens on: bind an ephemeral port, then free it.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[tokio::test]
async fn connects_over_tcp() {
    let server = common::server::shared();
    let opts = tcp(server.port());
    select_one(&opts).await.expect("TCP connection");
    let (conn, transport) = connect_with_transport(&opts).await.expect("connect");
    // PREFERRED: TLS when the server has it, plain otherwise.
    assert!(matches!(transport, Transport::Tcp | Transport::TcpTls));
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test]
async fn connects_over_the_servers_socket() {
    let server = common::server::shared();
    let rows = server.sql("SELECT @@socket").await;
    let socket: String = rows
        .first()
        .and_then(|r| r.get(0))
        .expect("server has a socket");
    assert_eq!(Path::new(&socket), server.socket());

    let opts = ConnectOptions::new(Endpoint::Socket(socket.clone().into()));
    assert_eq!(opts.label(), format!("localhost via socket {socket}"));
    select_one(&opts).await.expect("socket connection");
    let (conn, transport) = connect_with_transport(&opts).await.expect("connect");
    assert_eq!(transport, Transport::Socket);
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test]
async fn default_resolution_reaches_the_first_socket_that_exists() {
    // No flags, no option files, no MYSQL_* variables: the usual socket paths in order (here a
    // missing one, then the private server's), as the user named.
    let server = common::server::shared();
    let cli = parse_args(["innodebt", "--no-defaults", "-u", "root"]).expect("parse");
    let mut no_prompt = |_: &str| -> std::io::Result<String> { panic!("no prompt") };
    let missing = tempfile::tempdir().expect("tempdir");
    let env = Environment {
        home: None,
        os_user: Some("nobody".into()),
        mysql_pwd: None,
        mysql_host: None,
        mysql_tcp_port: None,
        mysql_unix_port: None,
        system_files: Vec::new(),
        socket_candidates: vec![missing.path().join("mysqld.sock"), server.socket()],
    };
    let resolved = cli
        .connection
        .resolve(&env, &mut no_prompt)
        .expect("resolve");
    assert_eq!(
        resolved.options.label(),
        format!("localhost via socket {}", server.socket().display())
    );
    select_one(&resolved.options)
        .await
        .expect("default connection");
}

#[tokio::test]
async fn wrong_port_is_refused_and_names_the_port() {
    let port = free_port();
    let e = select_one(&tcp(port)).await.unwrap_err();
    assert!(matches!(e, ConnectError::Refused { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains(&format!("127.0.0.1:{port}")), "{msg}");
    assert!(msg.contains(&format!("port {port}")), "{msg}");
    assert_eq!(e.exit_code(), 10);
}

#[tokio::test]
async fn missing_socket_and_not_a_socket() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("mysqld.sock");
    let e = select_one(&ConnectOptions::new(Endpoint::Socket(missing.clone())))
        .await
        .unwrap_err();
    assert!(matches!(e, ConnectError::SocketMissing { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains(&missing.display().to_string()) && msg.contains("-S"),
        "{msg}"
    );

    std::fs::write(&missing, "").expect("write");
    let e = select_one(&ConnectOptions::new(Endpoint::Socket(missing.clone())))
        .await
        .unwrap_err();
    assert!(matches!(e, ConnectError::NotASocket { .. }), "{e:?}");
}

#[tokio::test]
async fn silent_server_times_out() {
    // Accepts TCP but never sends the handshake.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let mut opts = tcp(port);
    opts.connect_timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let e = select_one(&opts).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(matches!(e, ConnectError::Timeout { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("300ms") && msg.contains("--connect-timeout"),
        "{msg}"
    );
    hold.abort();
}

#[tokio::test]
async fn unresolvable_host_is_named() {
    let mut opts = ConnectOptions::new(Endpoint::Tcp {
        host: "no-such-host.invalid".into(),
        port: 3306,
    });
    opts.connect_timeout = Duration::from_secs(3);
    let e = select_one(&opts).await.unwrap_err();
    // Without a resolver the lookup may hang until the timeout instead.
    assert!(
        matches!(
            e,
            ConnectError::NameNotResolved { .. } | ConnectError::Timeout { .. }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("no-such-host.invalid"), "{e}");
}

#[tokio::test]
async fn wrong_password_is_access_denied_without_the_password() {
    let user = format!("innodebt_t{}", std::process::id());
    let good = "Corr3ct-Horse-1";
    let bad = "Wr0ng-Battery-2";
    let server = common::server::shared();
    server
        .sql(&format!(
            "CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{good}'"
        ))
        .await;

    let mut opts = tcp(server.port());
    opts.user = user.clone();
    opts.password = Some(Secret::new(bad));
    let wrong = select_one(&opts).await;
    opts.password = None;
    let empty = select_one(&opts).await;
    opts.password = Some(Secret::new(good));
    let right = select_one(&opts).await;
    let debug = format!("{opts:?}");

    let e = wrong.unwrap_err();
    assert!(matches!(e, ConnectError::AccessDenied { .. }), "{e:?}");
    assert_eq!(e.exit_code(), 18);
    let msg = e.to_string();
    assert!(
        msg.contains(&user) && msg.contains("using password: YES"),
        "{msg}"
    );
    assert!(
        msg.contains("-p") && msg.contains("~/.my.cnf") && msg.contains("MYSQL_PWD"),
        "{msg}"
    );
    assert!(!msg.contains(bad) && !msg.contains(good), "{msg}");
    assert!(!format!("{e:?}").contains(bad));

    let msg = empty.unwrap_err().to_string();
    assert!(msg.contains("using password: NO"), "{msg}");

    right.expect("the right password connects");
    assert!(!debug.contains(good), "{debug}");
}

/// A server without TLS (`--skip-ssl`): REQUIRED refuses with its own exit code and says what
/// to do; PREFERRED falls back to plain TCP. (TLS servers: tests/tls.rs.)
#[tokio::test]
async fn required_tls_against_a_server_without_tls() {
    let server = PrivateServer::start(ServerConfig::default().with_args(["--skip-ssl"]));
    let rows = server.sql("SHOW GLOBAL VARIABLES LIKE 'have_ssl'").await;
    let have_ssl: String = rows.first().and_then(|r| r.get(1)).unwrap_or_default();
    assert_ne!(have_ssl, "YES", "--skip-ssl left TLS on");

    let mut opts = tcp(server.port());
    opts.ssl_mode = SslMode::Required;
    let e = connect_with_transport(&opts).await.map(|_| ()).unwrap_err();
    assert!(matches!(e, ConnectError::ServerHasNoTls { .. }), "{e:?}");
    let msg = e.to_string();
    let at = format!("127.0.0.1:{}", server.port());
    assert!(
        msg.contains(&at) && msg.contains("does not support TLS"),
        "{msg}"
    );
    assert!(
        msg.contains("REQUIRED") && msg.contains("PREFERRED"),
        "{msg}"
    );
    assert_eq!(e.exit_code(), 20);

    opts.ssl_mode = SslMode::Preferred;
    let (conn, transport) = connect_with_transport(&opts).await.expect("PREFERRED");
    assert_eq!(transport, Transport::Tcp);
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test]
async fn verify_ca_without_a_ca_file_fails_before_connecting() {
    let mut opts = tcp(free_port());
    opts.ssl_mode = SslMode::VerifyCa;
    let e = select_one(&opts).await.unwrap_err();
    assert!(matches!(e, ConnectError::CaRequired { .. }), "{e:?}");
    assert!(e.to_string().contains("--ssl-ca"));
}
