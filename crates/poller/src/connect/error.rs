//! Why a connection could not be made, in the DBA's terms: each `mysql_async` failure
//! classified into a [`ConnectError`] that names the target and says what to try, with a
//! distinct exit code per kind.

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mysql_async::{DriverError, IoError};
use thiserror::Error;

use super::options::{ConnectOptions, Endpoint, SslMode};

/// Server error codes we explain.
pub(super) mod code {
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

    #[error("cannot use the client {what} {}: {detail}. Check the path given with {flag}", path.display())]
    ClientCertFile {
        what: &'static str,
        flag: &'static str,
        path: PathBuf,
        detail: String,
    },

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
            ConnectError::CaFile { .. }
            | ConnectError::CaRequired { .. }
            | ConnectError::ClientCertFile { .. } => 24,
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

/// A name the server's certificate presents, from rustls' "not valid for name" text.
///
/// mysql_async 0.37.1 ignores `skip_domain_validation` with rustls
/// (<https://github.com/blackbeam/mysql_async/issues/404>), so VERIFY_CA fails whenever the
/// certificate does not name the host dialled.
/// [`connect_with_transport`] then retries once, checking the certificate for a name it does
/// present: the chain is still verified against the CA, which is all VERIFY_CA promises.
/// Drop this when a mysql_async release with the fix is in use.
pub(super) fn name_on_certificate(detail: &str) -> Option<String> {
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
pub(super) fn is_tls_unavailable(e: &ConnectError) -> bool {
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

pub(super) fn classify_io(e: &io::Error, opts: &ConnectOptions) -> ConnectError {
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
        (io::ErrorKind::InvalidData, None) if opts.wants_tls() => {
            classify_tls(&e.to_string(), opts)
        }
        _ => ConnectError::Other {
            target,
            detail: e.to_string(),
        },
    }
}

/// TLS failures arrive as rustls' error text; the variant names are not reachable through
/// `mysql_async`'s public API, so the text is what we can go by.
pub(super) fn classify_tls(detail: &str, opts: &ConnectOptions) -> ConnectError {
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
