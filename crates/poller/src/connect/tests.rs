use std::io;

use mysql_async::{DriverError, IoError};

use super::error::classify_tls;
use super::*;

fn tcp(mode: SslMode) -> ConnectOptions {
    let mut o = ConnectOptions::new(Endpoint::Tcp {
        host: "db1".into(),
        port: 3307,
    });
    o.ssl_mode = mode;
    o.user = "monitor".into();
    o.password = Some(Secret::new("hunter2"));
    o
}

fn server(code: u16, message: &str) -> mysql_async::Error {
    mysql_async::Error::Server(mysql_async::ServerError {
        code,
        message: message.into(),
        state: "28000".into(),
    })
}

#[test]
fn access_denied_says_using_password_and_hides_it() {
    let o = tcp(SslMode::Preferred);
    let e = classify(
        &server(
            1045,
            "Access denied for user 'monitor'@'10.0.0.2' (using password: YES)",
        ),
        &o,
    );
    assert_eq!(e.exit_code(), 18);
    let msg = e.to_string();
    assert!(
        msg.contains("using password: YES") && msg.contains("db1:3307"),
        "{msg}"
    );
    assert!(
        msg.contains("MYSQL_PWD") && msg.contains("~/.my.cnf"),
        "{msg}"
    );
    assert!(!msg.contains("hunter2"));
    let mut nopass = o.clone();
    nopass.password = None;
    let msg = classify(&server(1698, "Access denied"), &nopass).to_string();
    assert!(msg.contains("using password: NO"), "{msg}");
    assert!(!msg.contains("--ssl-mode REQUIRED"), "{msg}");
    let msg = classify(&server(1045, "Access denied"), &tcp(SslMode::Disabled)).to_string();
    assert!(msg.contains("--ssl-mode REQUIRED"), "{msg}");
}

#[test]
fn server_codes() {
    let o = tcp(SslMode::Disabled);
    let cases: [(u16, &str, i32); 7] = [
        (
            1226,
            "User 'm' has exceeded the 'max_user_connections' resource",
            25,
        ),
        (
            1226,
            "User 'm' has exceeded the 'max_questions' resource",
            27,
        ),
        (
            3159,
            "Connections using insecure transport are prohibited",
            19,
        ),
        (1040, "Too many connections", 25),
        (
            1203,
            "User monitor already has more than 'max_user_connections'",
            25,
        ),
        (1049, "Unknown database 'x'", 26),
        (1129, "Host is blocked", 27),
    ];
    for (code, message, exit) in cases {
        let e = classify(&server(code, message), &o);
        assert_eq!(e.exit_code(), exit, "{code}: {e}");
    }
    let e = classify(&server(3159, "x"), &o).to_string();
    assert!(e.contains("--ssl-mode REQUIRED"), "{e}");
}

#[test]
fn io_errors() {
    let io = |kind| mysql_async::Error::Io(IoError::Io(io::Error::from(kind)));
    let o = tcp(SslMode::Disabled);
    let refused = classify(&io(io::ErrorKind::ConnectionRefused), &o).to_string();
    assert!(
        refused.contains("db1:3307") && refused.contains("port 3307"),
        "{refused}"
    );
    assert_eq!(
        classify(&io(io::ErrorKind::HostUnreachable), &o).exit_code(),
        16
    );
    assert_eq!(classify(&io(io::ErrorKind::TimedOut), &o).exit_code(), 17);
    let s = ConnectOptions::new(Endpoint::Socket("/tmp/x.sock".into()));
    assert_eq!(
        classify(&io(io::ErrorKind::ConnectionRefused), &s).exit_code(),
        11
    );
    assert_eq!(classify(&io(io::ErrorKind::NotFound), &s).exit_code(), 12);
}

#[test]
fn tls_errors() {
    let no_tls = mysql_async::Error::Driver(DriverError::NoClientSslFlagFromServer);
    let msg = classify(&no_tls, &tcp(SslMode::Required)).to_string();
    assert!(
        msg.contains("does not support TLS") && msg.contains("REQUIRED"),
        "{msg}"
    );

    let mut ca = tcp(SslMode::VerifyCa);
    ca.ssl_ca = Some("/etc/ssl/our-ca.pem".into());
    let bad_ca = classify_tls("invalid peer certificate: UnknownIssuer", &ca);
    assert_eq!(bad_ca.exit_code(), 21);
    assert!(
        bad_ca.to_string().contains("/etc/ssl/our-ca.pem"),
        "{bad_ca}"
    );

    let name = "invalid peer certificate: certificate not valid for name \"db1\"; \
                certificate is only valid for db2";
    let e = classify_tls(name, &tcp(SslMode::VerifyIdentity));
    assert!(matches!(e, ConnectError::HostNameMismatch { .. }), "{e}");
    let e = classify_tls(name, &ca);
    assert!(
        matches!(e, ConnectError::HostNameMismatchVerifyCa { .. }),
        "{e}"
    );
}

#[test]
fn names_on_the_certificate() {
    let text = |names: &str| {
        format!(
            "invalid peer certificate: certificate not valid for name \"10.0.0.5\"; \
             certificate is only valid for {names}"
        )
    };
    let one = text("DnsName(\"db1.example\")");
    assert_eq!(name_on_certificate(&one).as_deref(), Some("db1.example"));
    let many = text("DnsName(\"*.db.example\"), IpAddress(10.0.0.6) or DnsName(\"x\")");
    assert_eq!(
        name_on_certificate(&many).as_deref(),
        Some("innodebt.db.example")
    );
    let ip = text("IpAddress(10.0.0.6)");
    assert_eq!(name_on_certificate(&ip).as_deref(), Some("10.0.0.6"));
    let none = "invalid peer certificate: certificate not valid for name \"h\"; \
                certificate is not valid for any names (according to its subjectAltName extension)";
    assert_eq!(name_on_certificate(none), None);
}

#[test]
fn tls_settings_per_mode() {
    let opts = mysql_opts(&tcp(SslMode::Disabled)).unwrap();
    assert!(opts.ssl_opts().is_none());
    assert!(!opts.prefer_socket());

    let opts = mysql_opts(&tcp(SslMode::Required)).unwrap();
    let ssl = opts.ssl_opts().unwrap();
    assert!(ssl.accept_invalid_certs() && ssl.skip_domain_validation());

    let opts = mysql_opts(&tcp(SslMode::Preferred)).unwrap();
    assert!(opts.ssl_opts().is_some());

    let e = mysql_opts(&tcp(SslMode::VerifyCa)).unwrap_err();
    assert!(e.to_string().contains("--ssl-ca"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let ca_path = dir.path().join("ca.pem");
    let mut o = tcp(SslMode::VerifyCa);
    o.ssl_ca = Some(ca_path.clone());
    let e = mysql_opts(&o).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    std::fs::write(&ca_path, "x").unwrap();
    let opts = mysql_opts(&o).unwrap();
    let ssl = opts.ssl_opts().unwrap();
    assert!(!ssl.accept_invalid_certs() && ssl.skip_domain_validation());
    assert!(ssl.disable_built_in_roots());

    o.ssl_mode = SslMode::VerifyIdentity;
    let opts = mysql_opts(&o).unwrap();
    let ssl = opts.ssl_opts().unwrap();
    assert!(!ssl.accept_invalid_certs() && !ssl.skip_domain_validation());

    // Never TLS over a socket.
    let mut s = ConnectOptions::new(Endpoint::Socket("/tmp/x.sock".into()));
    s.ssl_mode = SslMode::Required;
    let opts = mysql_opts(&s).unwrap();
    assert!(opts.ssl_opts().is_none());
    assert_eq!(opts.socket(), Some("/tmp/x.sock"));
}

#[test]
fn exit_codes_are_non_zero() {
    let o = tcp(SslMode::Preferred);
    let e = ConnectError::Other {
        target: o.label(),
        detail: "x".into(),
    };
    assert_ne!(e.exit_code(), 0);
}
