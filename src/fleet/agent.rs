//! The fleet's HTTP client for remote `innodebt serve` agents: hyper's pooled client over
//! rustls, so an agent behind `--web-config` is read as Prometheus reads it — https checked
//! against the system's roots or a CA file (`agent_ssl_ca`), and basic auth with a password
//! from a file or the environment (never the command line, where `ps` shows it).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty, LengthLimitError, Limited};
use hyper::header::HeaderValue;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio::time::timeout;

/// The largest agent answer read (a scrape is a few KiB, `/events` up to a few MiB).
const MAX_BODY: usize = 16 << 20;

/// The environment variable that holds the agents' basic-auth password.
pub const PASSWORD_ENV: &str = "INNODEBT_AGENT_PASSWORD";

/// How to reach agents: a CA file for https, a basic-auth user and where its password is.
/// A `[targets.NAME]` table's `agent_*` keys win over the fleet flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    pub ssl_ca: Option<PathBuf>,
    pub user: Option<String>,
    pub password_file: Option<PathBuf>,
}

impl Access {
    /// `self`'s settings, then `defaults`' where `self` has none.
    pub fn or(&self, defaults: &Access) -> Access {
        Access {
            ssl_ca: self.ssl_ca.clone().or_else(|| defaults.ssl_ca.clone()),
            user: self.user.clone().or_else(|| defaults.user.clone()),
            password_file: self
                .password_file
                .clone()
                .or_else(|| defaults.password_file.clone()),
        }
    }
}

/// One agent's scrape URL with the client and credentials to read it.
#[derive(Clone)]
pub struct Agent {
    pub url: String,
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    authorization: Option<HeaderValue>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("url", &self.url)
            .field("basic_auth", &self.authorization.is_some())
            .finish()
    }
}

impl Agent {
    /// Checks the URL and reads the CA and the password now, so a mistake is told at start.
    /// `env_password` is what [`PASSWORD_ENV`] holds (passed in: tests set no environment).
    pub fn new(url: &str, access: &Access, env_password: Option<&str>) -> Result<Agent, String> {
        let parts = split_url(url)?;
        if access.ssl_ca.is_some() && !parts.https {
            return Err(format!(
                "{url}: agent_ssl_ca is for https:// agents; use https:// (the agent's \
                 --web-config has tls_server_config) or drop the CA"
            ));
        }
        let authorization = match (&access.user, &access.password_file, env_password) {
            (None, None, _) => None,
            (None, Some(f), _) => {
                return Err(format!(
                    "agent_password_file {} is set without agent_user: give the basic-auth \
                     user too (agent_user in [targets.NAME], or --agent-user)",
                    f.display()
                ));
            }
            (Some(user), Some(file), _) => Some(basic(user, &read_password(file)?)?),
            (Some(user), None, Some(p)) => Some(basic(user, p)?),
            (Some(user), None, None) => {
                return Err(format!(
                    "agent_user {user:?} has no password: put it in a file named by \
                     agent_password_file (or --agent-password-file), or in {PASSWORD_ENV}"
                ));
            }
        };
        Ok(Agent {
            url: url.to_string(),
            client: client(access.ssl_ca.as_deref())?,
            authorization,
        })
    }

    /// The same agent's `/events` URL for the same target, with the same client.
    pub fn events(&self) -> Result<Agent, String> {
        Ok(Agent {
            url: events_url(&self.url)?,
            client: self.client.clone(),
            authorization: self.authorization.clone(),
        })
    }

    /// One GET of `url` (this agent's, or one under it) within `limit`: connect (and the TLS
    /// handshake), send, read the whole body, at most 16 MiB.
    pub async fn fetch(&self, url: &str, limit: Duration) -> Result<String, String> {
        split_url(url)?;
        let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: not a URL: {e}"))?;
        let mut request = hyper::Request::get(uri)
            .header(hyper::header::ACCEPT, "text/plain")
            .header(hyper::header::USER_AGENT, "innodebt-fleet");
        if let Some(a) = &self.authorization {
            request = request.header(hyper::header::AUTHORIZATION, a.clone());
        }
        let request = request
            .body(Empty::<Bytes>::new())
            .map_err(|e| format!("{url}: {e}"))?;
        let work = async {
            let response = self.client.request(request).await.map_err(|e| {
                let mut cause: &dyn std::error::Error = &e;
                while let Some(next) = cause.source() {
                    cause = next;
                }
                format!("{url}: cannot connect: {cause}")
            })?;
            let status = response.status();
            let body = Limited::new(response.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| {
                    if e.is::<LengthLimitError>() {
                        format!("{url}: the answer is larger than 16 MiB")
                    } else {
                        format!("{url}: {e}")
                    }
                })?
                .to_bytes();
            Ok::<_, String>((status, body))
        };
        let (status, body) = timeout(limit, work).await.map_err(|_| {
            format!(
                "{url}: no answer within {:.1}s (the agent or the network stopped answering)",
                limit.as_secs_f64()
            )
        })??;
        let text = String::from_utf8_lossy(&body).into_owned();
        match status.as_u16() {
            200 => Ok(text),
            401 => Err(format!(
                "{url}: HTTP 401: the agent wants basic auth{}: set agent_user and \
                 agent_password_file (or --agent-user with --agent-password-file or \
                 {PASSWORD_ENV}) to a user of its --web-config",
                if self.authorization.is_some() {
                    " and refused this user and password"
                } else {
                    ""
                }
            )),
            code => {
                let first = text.lines().next().unwrap_or_default();
                Err(format!("{url}: HTTP {code}: {first}"))
            }
        }
    }
}

/// `Authorization: Basic …`, marked sensitive (hyper keeps it out of its debug output).
fn basic(user: &str, password: &str) -> Result<HeaderValue, String> {
    if user.contains(':') {
        return Err(format!(
            "agent_user {user:?}: a basic-auth user cannot contain ':'"
        ));
    }
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    let mut v = HeaderValue::from_str(&format!("Basic {token}"))
        .map_err(|e| format!("agent_user {user:?}: not usable in a header: {e}"))?;
    v.set_sensitive(true);
    Ok(v)
}

/// The password file's content, without one trailing newline (as `password_file` reads).
fn read_password(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        format!(
            "agent_password_file {}: cannot read: {e} (check the path and its permissions)",
            file.display()
        )
    })?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    Ok(text.to_string())
}

/// hyper's client, connections kept alive between polls (an agent is read every interval);
/// https verified against `ca` (PEM), or the bundled web PKI roots without one.
fn client(
    ca: Option<&Path>,
) -> Result<Client<HttpsConnector<HttpConnector>, Empty<Bytes>>, String> {
    let roots = match ca {
        Some(path) => {
            let pem = std::fs::read(path).map_err(|e| {
                format!(
                    "agent_ssl_ca {}: cannot read: {e} (check the path and its permissions)",
                    path.display()
                )
            })?;
            let mut roots = rustls::RootCertStore::empty();
            for c in CertificateDer::pem_slice_iter(&pem) {
                let c = c.map_err(|e| {
                    format!("agent_ssl_ca {}: not PEM certificates: {e}", path.display())
                })?;
                roots
                    .add(c)
                    .map_err(|e| format!("agent_ssl_ca {}: {e}", path.display()))?;
            }
            if roots.is_empty() {
                return Err(format!(
                    "agent_ssl_ca {}: no certificate in it (a PEM file with BEGIN CERTIFICATE)",
                    path.display()
                ));
            }
            roots
        }
        None => rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        },
    };
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("TLS for agents: {e}"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    http.enforce_http(false);
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(2)
        .build(https))
}

/// An agent URL's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    pub https: bool,
    pub host: String,
    pub port: u16,
    pub path: String,
}

/// `http[s]://host[:port]/path?query` → its parts (port 80 or 443 when not given).
pub fn split_url(url: &str) -> Result<UrlParts, String> {
    let (https, rest) = if let Some(r) = url.strip_prefix("http://") {
        (false, r)
    } else if let Some(r) = url.strip_prefix("https://") {
        (true, r)
    } else {
        return Err(format!(
            "{url}: an agent URL starts with http:// or https://"
        ));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/metrics"),
    };
    if authority.contains('@') {
        return Err(format!(
            "{url}: no credentials in the URL: give agent_user and agent_password_file"
        ));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (
            h.trim_start_matches('[').trim_end_matches(']'),
            p.parse::<u16>()
                .map_err(|_| format!("{url}: bad port {p:?}"))?,
        ),
        _ => (authority, if https { 443 } else { 80 }),
    };
    if host.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok(UrlParts {
        https,
        host: host.to_string(),
        port,
        path: path.to_string(),
    })
}

/// The agent's `/events` URL for the same target as its scrape URL.
pub fn events_url(agent: &str) -> Result<String, String> {
    let UrlParts {
        https,
        host,
        port,
        path,
    } = split_url(agent)?;
    let query = path.split_once('?').map(|(_, q)| q).unwrap_or("");
    let scheme = if https { "https" } else { "http" };
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host
    };
    Ok(if query.is_empty() {
        format!("{scheme}://{host}:{port}/events?")
    } else {
        format!("{scheme}://{host}:{port}/events?{query}&")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (bool, String, u16, String) {
        let p = split_url(url).unwrap();
        (p.https, p.host, p.port, p.path)
    }

    #[test]
    fn agent_urls() {
        assert_eq!(
            parts("http://db1:9385/probe?target=x"),
            (false, "db1".into(), 9385, "/probe?target=x".into())
        );
        assert_eq!(
            parts("http://db1"),
            (false, "db1".into(), 80, "/metrics".into())
        );
        assert_eq!(
            parts("https://db1"),
            (true, "db1".into(), 443, "/metrics".into())
        );
        assert_eq!(
            parts("http://[::1]:9385/metrics"),
            (false, "::1".into(), 9385, "/metrics".into())
        );
        assert!(split_url("ftp://db1").is_err());
        assert!(
            split_url("https://u:p@db1/")
                .unwrap_err()
                .contains("agent_user")
        );
        assert_eq!(
            events_url("http://db1:9385/probe?target=x").unwrap(),
            "http://db1:9385/events?target=x&"
        );
        assert_eq!(
            events_url("https://[::1]:9385/metrics").unwrap(),
            "https://[::1]:9385/events?"
        );
        assert!(split_url("http://db1:x/").is_err());
    }

    #[test]
    fn credentials_are_complete_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret\n").unwrap();
        let user = |u: &str| Some(u.to_string());
        let ok = Agent::new(
            "http://db1:9385/metrics",
            &Access {
                user: user("prom"),
                password_file: Some(file.clone()),
                ..Access::default()
            },
            None,
        )
        .unwrap();
        let expected = base64::engine::general_purpose::STANDARD.encode("prom:s3cret");
        assert_eq!(
            ok.authorization.as_ref().unwrap().to_str().unwrap(),
            format!("Basic {expected}")
        );
        assert!(!format!("{ok:?}").contains(&expected));
        let from_env = Agent::new(
            "http://db1",
            &Access {
                user: user("prom"),
                ..Access::default()
            },
            Some("envpw"),
        )
        .unwrap();
        assert!(from_env.authorization.is_some());
        let e = Agent::new(
            "http://db1",
            &Access {
                user: user("prom"),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(
            e.contains(PASSWORD_ENV) && e.contains("agent_password_file"),
            "{e}"
        );
        let e = Agent::new(
            "http://db1",
            &Access {
                password_file: Some(file.clone()),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("without agent_user"), "{e}");
        let e = Agent::new(
            "http://db1",
            &Access {
                ssl_ca: Some(file.clone()),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("https://"), "{e}");
        let e = Agent::new(
            "https://db1",
            &Access {
                ssl_ca: Some(file),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("no certificate"), "{e}");
        let e = Agent::new(
            "https://db1",
            &Access {
                ssl_ca: Some(dir.path().join("missing.pem")),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("missing.pem: cannot read"), "{e}");
    }
}
