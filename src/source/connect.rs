//! Opening one connection to the server: [`ConnectOptions`] → `mysql_async` options (TLS per
//! `--ssl-mode`), the connect timeout, and [`ConnectError`], which says what failed and what
//! to try. Messages name the target (`host:port` or the socket) and never the password.

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mysql_async::{Conn, DriverError, IoError, Opts, OptsBuilder, SslOpts};
use thiserror::Error;

use crate::cli::{ConnectOptions, Endpoint, SslMode};

/// Server error codes we explain.
mod code {
    pub const CON_COUNT: u16 = 1040; // ER_CON_COUNT_ERROR
    pub const DBACCESS_DENIED: u16 = 1044; // ER_DBACCESS_DENIED_ERROR
    pub const ACCESS_DENIED: u16 = 1045; // ER_ACCESS_DENIED_ERROR
    pub const BAD_DB: u16 = 1049; // ER_BAD_DB_ERROR
    pub const TOO_MANY_USER_CONNECTIONS: u16 = 1203; // ER_TOO_MANY_USER_CONNECTIONS
    pub const USER_LIMIT_REACHED: u16 = 1226; // ER_USER_LIMIT_REACHED
    pub const ACCESS_DENIED_NO_PASSWORD: u16 = 1698; // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
    pub const SECURE_TRANSPORT_REQUIRED: u16 = 3159; // MySQL ER_SECURE_TRANSPORT_REQUIRED
}

/// Why a connection could not be made. `Display` is the message for the user.
#[derive(Debug, Error)]
pub enum ConnectError {
    #[error(
        "connection to {target} refused: nothing listens on port {port} there. \
         Check that mysqld is running and that -h/-P are right"
    )]
    Refused { target: String, port: u16 },

    #[error(
        "socket {} exists but no server answers on it (mysqld stopped, or a stale socket \
         after a crash). Check that mysqld is running, or name the right socket with -S",
        path.display()
    )]
    SocketRefused { path: PathBuf },

    #[error(
        "socket {} does not exist: is mysqld running on this host? Name the right socket \
         with -S PATH (SELECT @@socket shows it), or connect over TCP with -h 127.0.0.1",
        path.display()
    )]
    SocketMissing { path: PathBuf },

    #[error(
        "{} is not a socket: name the server's socket with -S PATH (SELECT @@socket shows it)",
        path.display()
    )]
    NotASocket { path: PathBuf },

    #[error(
        "permission denied on socket {}: this user may not open it. Run as a user in \
         mysqld's group, or connect over TCP with -h 127.0.0.1",
        path.display()
    )]
    SocketPermission { path: PathBuf },

    #[error("cannot resolve host name {host}: {detail}. Check -h (or host= in your option files)")]
    NameNotResolved { host: String, detail: String },

    #[error("{target} is unreachable: {detail}. Check the host name, routing and firewalls")]
    Unreachable { target: String, detail: String },

    #[error(
        "no answer from {target} within {}: check that the host is up and the port is not \
         filtered by a firewall, or allow more time with --connect-timeout",
        format_duration(*after)
    )]
    Timeout { target: String, after: Duration },

    #[error(
        "access denied for user '{user}' on {target} (using password: {}): check -u and -p, \
         the password in ~/.my.cnf ([client] password=...) and MYSQL_PWD.{} Server said: {server_message}",
        if *using_password { "YES" } else { "NO" },
        if *plain_tcp {
            " If the account or the server requires TLS (REQUIRE SSL, require_secure_transport), \
             the server says access denied too: try --ssl-mode REQUIRED."
        } else {
            ""
        }
    )]
    AccessDenied {
        target: String,
        user: String,
        using_password: bool,
        /// Refused over unencrypted TCP, where a TLS requirement looks like a bad password.
        plain_tcp: bool,
        server_message: String,
    },

    #[error(
        "{target} only accepts encrypted connections (require_secure_transport=ON): \
         connect with --ssl-mode REQUIRED (or over the local Unix socket)"
    )]
    SecureTransportRequired { target: String },

    #[error(
        "{target} does not support TLS but --ssl-mode {mode} requires it: enable TLS on the \
         server (have_ssl shows it), or use --ssl-mode PREFERRED or DISABLED"
    )]
    ServerHasNoTls { target: String, mode: SslMode },

    #[error(
        "the TLS certificate of {target} failed verification against {}: {detail}. \
         {} or use --ssl-mode REQUIRED to encrypt without verifying",
        ca_name(ca.as_deref()),
        if ca.is_some() {
            "Check that --ssl-ca names the CA that signed the server's certificate,"
        } else {
            "Give the CA that signed the server's certificate with --ssl-ca FILE,"
        }
    )]
    CertificateRejected {
        target: String,
        ca: Option<PathBuf>,
        detail: String,
    },

    #[error(
        "the TLS certificate of {target} does not name that host: {detail}. Connect with \
         -h set to a name on the certificate, or use --ssl-mode VERIFY_CA (CA check only)"
    )]
    HostNameMismatch { target: String, detail: String },

    #[error(
        "the TLS certificate of {target} does not name that host ({detail}) and offers no \
         name to check instead; the TLS library in this build checks the name even for \
         VERIFY_CA. Connect with -h set to a name on the certificate, or use --ssl-mode REQUIRED"
    )]
    HostNameMismatchVerifyCa { target: String, detail: String },

    #[error(
        "TLS handshake with {target} failed: {detail}. Check the server's TLS setup, or use \
         --ssl-mode PREFERRED/DISABLED if encryption is not required"
    )]
    TlsHandshake { target: String, detail: String },

    #[error("cannot use the CA file {}: {detail}. Check the path given with --ssl-ca", path.display())]
    CaFile { path: PathBuf, detail: String },

    #[error("--ssl-mode {mode} needs the CA certificate to verify against: give --ssl-ca FILE")]
    CaRequired { mode: SslMode },

    #[error(
        "{target} has too many connections: {server_message}. Wait and retry, raise \
         max_connections (or the account's max_user_connections), or find what holds them \
         (SHOW PROCESSLIST)"
    )]
    TooManyConnections {
        target: String,
        server_message: String,
    },

    #[error(
        "database '{database}' does not exist on {target}: check -D (innodebt needs no database)"
    )]
    UnknownDatabase { target: String, database: String },

    #[error("{target} refused the connection: ERROR {code}: {message}")]
    Server {
        target: String,
        code: u16,
        message: String,
    },

    #[error("cannot connect to {target}: {detail}")]
    Other { target: String, detail: String },
}

impl ConnectError {
    /// A non-zero process exit code, distinct per kind of failure:
    /// 10 refused, 11 socket refused, 12 socket missing, 13 not a socket, 14 socket
    /// permission, 15 name not resolved, 16 unreachable, 17 timeout, 18 access denied,
    /// 19 secure transport required, 20 server has no TLS, 21 certificate rejected,
    /// 22 host name mismatch, 23 TLS handshake, 24 CA file/required, 25 too many
    /// connections, 26 unknown database, 27 other server error, 28 other.
    pub fn exit_code(&self) -> i32 {
        match self {
            ConnectError::Refused { .. } => 10,
            ConnectError::SocketRefused { .. } => 11,
            ConnectError::SocketMissing { .. } => 12,
            ConnectError::NotASocket { .. } => 13,
            ConnectError::SocketPermission { .. } => 14,
            ConnectError::NameNotResolved { .. } => 15,
            ConnectError::Unreachable { .. } => 16,
            ConnectError::Timeout { .. } => 17,
            ConnectError::AccessDenied { .. } => 18,
            ConnectError::SecureTransportRequired { .. } => 19,
            ConnectError::ServerHasNoTls { .. } => 20,
            ConnectError::CertificateRejected { .. } => 21,
            ConnectError::HostNameMismatch { .. }
            | ConnectError::HostNameMismatchVerifyCa { .. } => 22,
            ConnectError::TlsHandshake { .. } => 23,
            ConnectError::CaFile { .. } | ConnectError::CaRequired { .. } => 24,
            ConnectError::TooManyConnections { .. } => 25,
            ConnectError::UnknownDatabase { .. } => 26,
            ConnectError::Server { .. } => 27,
            ConnectError::Other { .. } => 28,
        }
    }

    /// True for failures that may pass by themselves (server restarting, network blip,
    /// connection limit), so a poller should retry with backoff; false when retrying
    /// cannot help until the user changes something (credentials, TLS settings).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ConnectError::Refused { .. }
                | ConnectError::SocketRefused { .. }
                | ConnectError::SocketMissing { .. }
                | ConnectError::Unreachable { .. }
                | ConnectError::Timeout { .. }
                | ConnectError::TooManyConnections { .. }
                | ConnectError::Other { .. }
        )
    }
}

fn ca_name(ca: Option<&Path>) -> String {
    match ca {
        Some(path) => format!("the CA file {}", path.display()),
        None => "the built-in public CA roots".to_owned(),
    }
}

fn format_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// How the connection that [`connect_with_transport`] opened is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Socket,
    Tcp,
    TcpTls,
}

/// The `mysql_async` options for `opts`. For PREFERRED over TCP these ask for TLS;
/// [`connect`] falls back to plain when the server has none.
pub fn mysql_opts(opts: &ConnectOptions) -> Result<Opts, ConnectError> {
    let tls = wants_tls(opts);
    Ok(builder(opts, tls)?.into())
}

fn wants_tls(opts: &ConnectOptions) -> bool {
    matches!(opts.endpoint, Endpoint::Tcp { .. }) && opts.ssl_mode != SslMode::Disabled
}

fn builder(opts: &ConnectOptions, tls: bool) -> Result<OptsBuilder, ConnectError> {
    let mut b = OptsBuilder::default()
        .user(Some(opts.user.clone()))
        .pass(opts.password.as_ref().map(|p| p.expose().to_owned()))
        .db_name(opts.database.clone())
        // Never hop from TCP to the server's socket: the account would change from
        // user@127.0.0.1 to user@localhost, and the label would lie.
        .prefer_socket(false)
        .tcp_keepalive(Some(Duration::from_secs(60)))
        .connect_attribute("program_name", "innodebt");
    match &opts.endpoint {
        Endpoint::Socket(path) => {
            b = b.socket(Some(path.to_string_lossy().into_owned()));
        }
        Endpoint::Tcp { host, port } => {
            b = b.ip_or_hostname(host.clone()).tcp_port(*port);
            if tls {
                b = b.ssl_opts(Some(ssl_opts(opts)?));
            }
        }
    }
    Ok(b)
}

fn ssl_opts(opts: &ConnectOptions) -> Result<SslOpts, ConnectError> {
    let no_verify = || {
        SslOpts::default()
            .with_danger_accept_invalid_certs(true)
            .with_danger_skip_domain_validation(true)
    };
    let with_ca = |ssl: SslOpts, ca: &Path| -> Result<SslOpts, ConnectError> {
        check_ca_file(ca)?;
        Ok(ssl
            .with_root_certs(vec![ca.to_path_buf().into()])
            .with_disable_built_in_roots(true))
    };
    match opts.ssl_mode {
        SslMode::Disabled | SslMode::Preferred | SslMode::Required => Ok(no_verify()),
        SslMode::VerifyCa => {
            let Some(ca) = &opts.ssl_ca else {
                return Err(ConnectError::CaRequired {
                    mode: SslMode::VerifyCa,
                });
            };
            with_ca(
                SslOpts::default().with_danger_skip_domain_validation(true),
                ca,
            )
        }
        SslMode::VerifyIdentity => match &opts.ssl_ca {
            Some(ca) => with_ca(SslOpts::default(), ca),
            // Without a CA file the public roots apply (cloud services with public certs).
            None => Ok(SslOpts::default()),
        },
    }
}

fn check_ca_file(path: &Path) -> Result<(), ConnectError> {
    let problem = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return Ok(()),
        Ok(_) => "it is not a file".to_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => "it does not exist".to_owned(),
        Err(e) => e.to_string(),
    };
    Err(ConnectError::CaFile {
        path: path.to_path_buf(),
        detail: problem,
    })
}

/// Opens one connection. Everything (name lookup, TLS, a PREFERRED fallback) shares one
/// budget: `opts.connect_timeout`.
pub async fn connect(opts: &ConnectOptions) -> Result<Conn, ConnectError> {
    connect_with_transport(opts).await.map(|(conn, _)| conn)
}

/// Like [`connect`], also telling whether the connection is a socket, plain TCP or TLS.
pub async fn connect_with_transport(
    opts: &ConnectOptions,
) -> Result<(Conn, Transport), ConnectError> {
    let timeout = ConnectError::Timeout {
        target: opts.label(),
        after: opts.connect_timeout,
    };
    tokio::time::timeout(opts.connect_timeout, open(opts))
        .await
        .map_err(|_| timeout)?
}

async fn open(opts: &ConnectOptions) -> Result<(Conn, Transport), ConnectError> {
    match &opts.endpoint {
        Endpoint::Socket(path) => {
            check_socket(path)?;
            let conn = attempt(opts, builder(opts, false)?.into()).await?;
            Ok((conn, Transport::Socket))
        }
        Endpoint::Tcp { host, port } => {
            let tls = wants_tls(opts);
            // Validate TLS settings before touching the network.
            let b = builder(opts, tls)?;
            let ips = resolve(host, *port).await?;
            let first = attempt(opts, b.resolved_ips(Some(ips.clone())).into()).await;
            match first {
                Ok(conn) => Ok((
                    conn,
                    if tls {
                        Transport::TcpTls
                    } else {
                        Transport::Tcp
                    },
                )),
                Err(ConnectError::HostNameMismatchVerifyCa { target, detail }) => {
                    let Some(name) = name_on_certificate(&detail) else {
                        return Err(ConnectError::HostNameMismatchVerifyCa { target, detail });
                    };
                    let ssl = ssl_opts(opts)?.with_danger_tls_hostname_override(Some(name));
                    let retry = builder(opts, false)?
                        .ssl_opts(Some(ssl))
                        .resolved_ips(Some(ips));
                    let conn = attempt(opts, retry.into()).await?;
                    Ok((conn, Transport::TcpTls))
                }
                // PREFERRED: use TLS if the server can, else go on without it, as the
                // mysql client does.
                Err(e) if opts.ssl_mode == SslMode::Preferred && is_tls_unavailable(&e) => {
                    let plain = builder(opts, false)?.resolved_ips(Some(ips));
                    let conn = attempt(opts, plain.into()).await?;
                    Ok((conn, Transport::Tcp))
                }
                Err(e) => Err(e),
            }
        }
    }
}

async fn attempt(opts: &ConnectOptions, mysql: Opts) -> Result<Conn, ConnectError> {
    Conn::new(mysql).await.map_err(|e| classify(&e, opts))
}

async fn resolve(host: &str, port: u16) -> Result<Vec<IpAddr>, ConnectError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![ip]);
    }
    let not_resolved = |detail: String| ConnectError::NameNotResolved {
        host: host.to_owned(),
        detail,
    };
    let addrs = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| not_resolved(e.to_string()))?;
    let ips: Vec<IpAddr> = addrs.map(|a| a.ip()).collect();
    if ips.is_empty() {
        return Err(not_resolved("no addresses".to_owned()));
    }
    Ok(ips)
}

fn check_socket(path: &Path) -> Result<(), ConnectError> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_socket() => Ok(()),
        Ok(_) => Err(ConnectError::NotASocket {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ConnectError::SocketMissing {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            Err(ConnectError::SocketPermission {
                path: path.to_path_buf(),
            })
        }
        // Let the connect attempt report anything else.
        Err(_) => Ok(()),
    }
}

/// A name the server's certificate presents, from rustls' "not valid for name" text.
///
/// mysql_async 0.37.1 ignores `skip_domain_validation` with rustls (blackbeam/mysql_async
/// issue 404), so VERIFY_CA fails whenever the certificate does not name the host dialled.
/// [`connect_with_transport`] then retries once, checking the certificate for a name it does
/// present: the chain is still verified against the CA, which is all VERIFY_CA promises.
/// Drop this when a mysql_async release with the fix is in use.
fn name_on_certificate(detail: &str) -> Option<String> {
    let (_, presented) = detail.split_once("certificate is only valid for ")?;
    presented
        .split(", ")
        .chain(presented.split(" or "))
        .find_map(|item| {
            let item = item.trim();
            if let Some(rest) = item.strip_prefix("DnsName(\"") {
                let name = rest.split('"').next()?;
                // A wildcard matches any one label in its place.
                let name = match name.strip_prefix("*.") {
                    Some(domain) => format!("innodebt.{domain}"),
                    None => name.to_owned(),
                };
                return (!name.is_empty() && !name.contains('*')).then_some(name);
            }
            let ip = item.strip_prefix("IpAddress(")?.split(')').next()?;
            ip.parse::<IpAddr>().ok().map(|ip| ip.to_string())
        })
}

/// The server cannot do TLS, or the TLS handshake failed: PREFERRED may go on without it.
fn is_tls_unavailable(e: &ConnectError) -> bool {
    matches!(
        e,
        ConnectError::ServerHasNoTls { .. } | ConnectError::TlsHandshake { .. }
    )
}

/// Turns a `mysql_async` error into what the user needs to hear.
pub fn classify(err: &mysql_async::Error, opts: &ConnectOptions) -> ConnectError {
    let target = opts.label();
    match err {
        mysql_async::Error::Server(e) => classify_server(e.code, &e.message, opts),
        mysql_async::Error::Driver(DriverError::NoClientSslFlagFromServer) => {
            ConnectError::ServerHasNoTls {
                target,
                mode: opts.ssl_mode,
            }
        }
        mysql_async::Error::Io(IoError::Io(e)) => classify_io(e, opts),
        mysql_async::Error::Io(IoError::Tls(e)) => classify_tls(&e.to_string(), opts),
        other => ConnectError::Other {
            target,
            detail: other.to_string(),
        },
    }
}

fn classify_server(code: u16, message: &str, opts: &ConnectOptions) -> ConnectError {
    let target = opts.label();
    match code {
        code::ACCESS_DENIED | code::ACCESS_DENIED_NO_PASSWORD => ConnectError::AccessDenied {
            target,
            user: opts.user.clone(),
            using_password: opts.password.is_some(),
            // MariaDB answers require_secure_transport with 1045; PREFERRED only ends up
            // plain when the server has no TLS, so DISABLED is the case to flag.
            plain_tcp: matches!(opts.endpoint, Endpoint::Tcp { .. })
                && opts.ssl_mode == SslMode::Disabled,
            server_message: message.to_owned(),
        },
        code::SECURE_TRANSPORT_REQUIRED => ConnectError::SecureTransportRequired { target },
        // MariaDB words the same refusal without a dedicated code.
        _ if message.contains("require_secure_transport") => {
            ConnectError::SecureTransportRequired { target }
        }
        code::CON_COUNT | code::TOO_MANY_USER_CONNECTIONS => ConnectError::TooManyConnections {
            target,
            server_message: message.to_owned(),
        },
        code::USER_LIMIT_REACHED if message.contains("connections") => {
            ConnectError::TooManyConnections {
                target,
                server_message: message.to_owned(),
            }
        }
        code::BAD_DB => ConnectError::UnknownDatabase {
            target,
            database: opts.database.clone().unwrap_or_default(),
        },
        code::DBACCESS_DENIED => ConnectError::Server {
            target,
            code,
            message: format!("{message} (check -D; innodebt needs no database)"),
        },
        _ => ConnectError::Server {
            target,
            code,
            message: message.to_owned(),
        },
    }
}

fn classify_io(e: &io::Error, opts: &ConnectOptions) -> ConnectError {
    let target = opts.label();
    let socket = match &opts.endpoint {
        Endpoint::Socket(path) => Some(path.clone()),
        Endpoint::Tcp { .. } => None,
    };
    match (e.kind(), socket) {
        (io::ErrorKind::ConnectionRefused, Some(path)) => ConnectError::SocketRefused { path },
        (io::ErrorKind::ConnectionRefused, None) => ConnectError::Refused {
            target,
            port: match &opts.endpoint {
                Endpoint::Tcp { port, .. } => *port,
                Endpoint::Socket(_) => 0,
            },
        },
        (io::ErrorKind::NotFound, Some(path)) => ConnectError::SocketMissing { path },
        (io::ErrorKind::PermissionDenied, Some(path)) => ConnectError::SocketPermission { path },
        (io::ErrorKind::HostUnreachable | io::ErrorKind::NetworkUnreachable, _) => {
            ConnectError::Unreachable {
                target,
                detail: e.to_string(),
            }
        }
        (io::ErrorKind::TimedOut, _) => ConnectError::Timeout {
            target,
            after: opts.connect_timeout,
        },
        // tokio-rustls reports handshake and certificate failures as InvalidData.
        (io::ErrorKind::InvalidData, None) if wants_tls(opts) => classify_tls(&e.to_string(), opts),
        _ => ConnectError::Other {
            target,
            detail: e.to_string(),
        },
    }
}

/// TLS failures arrive as rustls' error text; the variant names are not reachable through
/// `mysql_async`'s public API, so the text is what we can go by.
fn classify_tls(detail: &str, opts: &ConnectOptions) -> ConnectError {
    let target = opts.label();
    let detail = detail.to_owned();
    if detail.contains("not valid for name") || detail.contains("NotValidForName") {
        if opts.ssl_mode == SslMode::VerifyCa {
            return ConnectError::HostNameMismatchVerifyCa { target, detail };
        }
        return ConnectError::HostNameMismatch { target, detail };
    }
    if detail.contains("invalid peer certificate") {
        return ConnectError::CertificateRejected {
            target,
            ca: opts.ssl_ca.clone(),
            detail,
        };
    }
    ConnectError::TlsHandshake { target, detail }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Secret;

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
}
