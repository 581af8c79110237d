//! What a connection is made with, resolved from flags, option files and environment: where
//! the server is ([`Endpoint`]), as whom, with which password ([`Secret`], never printed) and
//! TLS mode ([`SslMode`], as the mysql client's `--ssl-mode`).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::ValueEnum;

/// TLS mode, as the mysql client's `--ssl-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SslMode {
    #[value(name = "DISABLED")]
    Disabled,
    #[value(name = "PREFERRED")]
    Preferred,
    #[value(name = "REQUIRED")]
    Required,
    #[value(name = "VERIFY_CA")]
    VerifyCa,
    #[value(name = "VERIFY_IDENTITY")]
    VerifyIdentity,
}

impl SslMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disabled => "DISABLED",
            SslMode::Preferred => "PREFERRED",
            SslMode::Required => "REQUIRED",
            SslMode::VerifyCa => "VERIFY_CA",
            SslMode::VerifyIdentity => "VERIFY_IDENTITY",
        }
    }
}

impl fmt::Display for SslMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SslMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        <SslMode as ValueEnum>::from_str(s.trim(), true).map_err(|_| {
            format!(
                "unknown ssl-mode {s:?}: use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY"
            )
        })
    }
}

/// A password. `Debug` and `Display` print `***`; only [`Secret::expose`] gives the text.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How to reach the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Socket(PathBuf),
    Tcp { host: String, port: u16 },
}

/// Everything needed to connect, resolved from flags, option files and environment.
/// `Debug` is safe to log: the password prints as `***`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectOptions {
    pub endpoint: Endpoint,
    pub user: String,
    pub password: Option<Secret>,
    pub database: Option<String>,
    /// Only used over TCP; a Unix socket is local and never uses TLS.
    pub ssl_mode: SslMode,
    pub ssl_ca: Option<PathBuf>,
    /// Client certificate and its key (PEM), for accounts that REQUIRE X509/SUBJECT.
    pub ssl_cert: Option<PathBuf>,
    pub ssl_key: Option<PathBuf>,
    pub connect_timeout: Duration,
}

impl ConnectOptions {
    /// Plain options for `endpoint`: default user `root`, no password, PREFERRED TLS, 5s timeout.
    pub fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            user: "root".to_owned(),
            password: None,
            database: None,
            ssl_mode: SslMode::Preferred,
            ssl_ca: None,
            ssl_cert: None,
            ssl_key: None,
            connect_timeout: Duration::from_secs(5),
        }
    }

    /// TLS is asked for: over TCP unless `--ssl-mode=DISABLED` (a socket never uses TLS).
    pub fn wants_tls(&self) -> bool {
        matches!(self.endpoint, Endpoint::Tcp { .. }) && self.ssl_mode != SslMode::Disabled
    }

    /// For the header and error messages: `host:port` or `localhost via socket PATH`.
    pub fn label(&self) -> String {
        match &self.endpoint {
            Endpoint::Socket(path) => format!("localhost via socket {}", path.display()),
            Endpoint::Tcp { host, port } if host.contains(':') => format!("[{host}]:{port}"),
            Endpoint::Tcp { host, port } => format!("{host}:{port}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssl_mode_parses_case_insensitively() {
        assert_eq!("verify_ca".parse::<SslMode>(), Ok(SslMode::VerifyCa));
        assert_eq!("Required".parse::<SslMode>(), Ok(SslMode::Required));
        assert!(
            "verify"
                .parse::<SslMode>()
                .unwrap_err()
                .contains("VERIFY_IDENTITY")
        );
    }

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("hunter2");
        assert_eq!(format!("{s} {s:?}"), "*** ***");
        assert_eq!(s.expose(), "hunter2");
    }

    #[test]
    fn labels() {
        let mut o = ConnectOptions::new(Endpoint::Tcp {
            host: "db1".into(),
            port: 3306,
        });
        assert_eq!(o.label(), "db1:3306");
        o.endpoint = Endpoint::Tcp {
            host: "::1".into(),
            port: 3307,
        };
        assert_eq!(o.label(), "[::1]:3307");
        o.endpoint = Endpoint::Socket("/run/mysqld/mysqld.sock".into());
        assert_eq!(o.label(), "localhost via socket /run/mysqld/mysqld.sock");
    }
}
