//! Connecting to the real local server (MariaDB or MySQL on 127.0.0.1:3306 and its default
//! socket, user root with no password), and the messages when it goes wrong.

use std::time::Duration;

use innodebt::cli::{ConnectOptions, Endpoint, Environment, Secret, SslMode, parse_args};
use innodebt::source::connect::{ConnectError, Transport, connect, connect_with_transport};
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

async fn root_conn() -> mysql_async::Conn {
    match connect(&tcp(3306)).await {
        Ok(c) => c,
        Err(e) => panic!("the local test server must accept root@127.0.0.1: {e}"),
    }
}

/// A port nobody listens on: bind an ephemeral port, then free it.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[tokio::test]
async fn connects_over_tcp() {
    let opts = tcp(3306);
    select_one(&opts).await.expect("TCP connection");
    let (conn, transport) = connect_with_transport(&opts).await.expect("connect");
    // PREFERRED: TLS when the server has it, plain otherwise.
    assert!(matches!(transport, Transport::Tcp | Transport::TcpTls));
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test]
async fn connects_over_the_servers_socket() {
    let mut conn = root_conn().await;
    let socket: Option<String> = conn.query_first("SELECT @@socket").await.expect("@@socket");
    conn.disconnect().await.expect("disconnect");
    let socket = socket.expect("server has a socket");

    let opts = ConnectOptions::new(Endpoint::Socket(socket.clone().into()));
    assert_eq!(opts.label(), format!("localhost via socket {socket}"));
    select_one(&opts).await.expect("socket connection");
    let (conn, transport) = connect_with_transport(&opts).await.expect("connect");
    assert_eq!(transport, Transport::Socket);
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test]
async fn default_resolution_reaches_the_local_server() {
    // No flags, no option files: the usual socket paths, else 127.0.0.1:3306, as root.
    let cli = parse_args(["innodebt", "--no-defaults", "-u", "root"]).expect("parse");
    let mut no_prompt = |_: &str| -> std::io::Result<String> { panic!("no prompt") };
    let env = Environment {
        mysql_pwd: None,
        ..Environment::from_process()
    };
    let resolved = cli
        .connection
        .resolve(&env, &mut no_prompt)
        .expect("resolve");
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
    let mut root = root_conn().await;
    root.query_drop(format!("DROP USER IF EXISTS '{user}'@'127.0.0.1'"))
        .await
        .expect("drop");
    root.query_drop(format!(
        "CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{good}'"
    ))
    .await
    .expect("create user");

    let mut opts = tcp(3306);
    opts.user = user.clone();
    opts.password = Some(Secret::new(bad));
    let wrong = select_one(&opts).await;
    opts.password = None;
    let empty = select_one(&opts).await;
    opts.password = Some(Secret::new(good));
    let right = select_one(&opts).await;
    let debug = format!("{opts:?}");

    root.query_drop(format!("DROP USER '{user}'@'127.0.0.1'"))
        .await
        .expect("drop user");
    root.disconnect().await.expect("disconnect");

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

#[tokio::test]
async fn required_tls_against_the_local_server() {
    let mut root = root_conn().await;
    let have_ssl: Option<(String, String)> = root
        .query_first("SHOW VARIABLES LIKE 'have_ssl'")
        .await
        .expect("have_ssl");
    root.disconnect().await.expect("disconnect");
    let has_tls = have_ssl.is_some_and(|(_, v)| v.eq_ignore_ascii_case("YES"));

    let mut opts = tcp(3306);
    opts.ssl_mode = SslMode::Required;
    let result = connect_with_transport(&opts).await;
    if has_tls {
        let (conn, transport) = result.expect("REQUIRED connects to a TLS server");
        assert_eq!(transport, Transport::TcpTls);
        conn.disconnect().await.expect("disconnect");
    } else {
        let e = result.map(|_| ()).unwrap_err();
        assert!(matches!(e, ConnectError::ServerHasNoTls { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("127.0.0.1:3306") && msg.contains("does not support TLS"),
            "{msg}"
        );
        assert!(
            msg.contains("REQUIRED") && msg.contains("PREFERRED"),
            "{msg}"
        );
        assert_eq!(e.exit_code(), 20);

        // PREFERRED falls back to plain.
        opts.ssl_mode = SslMode::Preferred;
        let (conn, transport) = connect_with_transport(&opts).await.expect("PREFERRED");
        assert_eq!(transport, Transport::Tcp);
        conn.disconnect().await.expect("disconnect");
    }
}

#[tokio::test]
async fn verify_ca_without_a_ca_file_fails_before_connecting() {
    let mut opts = tcp(free_port());
    opts.ssl_mode = SslMode::VerifyCa;
    let e = select_one(&opts).await.unwrap_err();
    assert!(matches!(e, ConnectError::CaRequired { .. }), "{e:?}");
    assert!(e.to_string().contains("--ssl-ca"));
}
