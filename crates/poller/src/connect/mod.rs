//! Opening one connection to the server: [`ConnectOptions`] → `mysql_async` options (TLS per
//! `--ssl-mode`), the connect timeout, and [`ConnectError`], which says what failed and what
//! to try. Messages name the target (`host:port` or the socket) and never the password.

mod error;
mod options;

use std::io;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use mysql_async::{ClientIdentity, Conn, Opts, OptsBuilder, SslOpts};

pub use error::{ConnectError, classify};
use error::{is_tls_unavailable, name_on_certificate};
pub use options::{ConnectOptions, Endpoint, Secret, SslMode};

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
    let tls = opts.wants_tls();
    Ok(builder(opts, tls)?.into())
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
    let ssl = server_verification(opts)?;
    let (Some(cert), Some(key)) = (&opts.ssl_cert, &opts.ssl_key) else {
        return Ok(ssl);
    };
    for (what, flag, path) in [
        ("certificate", "--ssl-cert", cert),
        ("key", "--ssl-key", key),
    ] {
        if let Some(detail) = file_problem(path) {
            return Err(ConnectError::ClientCertFile {
                what,
                flag,
                path: path.clone(),
                detail,
            });
        }
    }
    Ok(ssl.with_client_identity(Some(ClientIdentity::new(
        cert.clone().into(),
        key.clone().into(),
    ))))
}

/// How the server's certificate is checked, by `--ssl-mode` and `--ssl-ca`.
fn server_verification(opts: &ConnectOptions) -> Result<SslOpts, ConnectError> {
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
    match file_problem(path) {
        None => Ok(()),
        Some(problem) => Err(ConnectError::CaFile {
            path: path.to_path_buf(),
            detail: problem,
        }),
    }
}

/// Why `path` cannot be read as a file, if it cannot.
fn file_problem(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(_) => Some("it is not a file".to_owned()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Some("it does not exist".to_owned()),
        Err(e) => Some(e.to_string()),
    }
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
            let tls = opts.wants_tls();
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

#[cfg(test)]
mod tests;
