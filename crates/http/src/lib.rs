//! innodebt's one HTTP client. Every request innodebt makes goes through [`Client`]: the
//! Prometheus API (`import prometheus`, `--prometheus`) and the fleet's `innodebt serve`
//! agents. reqwest speaks HTTP/1.1; this module owns what both callers must do alike: https
//! through rustls (ring) checked against the web's roots or a CA file, basic or bearer
//! credentials read from files (never a command line), one timeout over the whole exchange, a
//! limit on the answer's size, and errors that say what failed.
//!
//! A crate of its own, beneath both users: the capture crate (the Prometheus import) and the
//! binary (the fleet) each need it, and the fleet's agents have nothing to do with captures.
//! The callers add what only they know to the errors — the flag or key that fixes them.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use reqwest::header::{self, HeaderValue};

pub use reqwest::{StatusCode, Url};

/// Why a request, or the client for it, could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{url}: {problem}")]
    Url { url: String, problem: UrlProblem },
    /// A file the settings name: the CA certificates, a credential.
    #[error("{path}: cannot read {what}: {why}")]
    File {
        path: String,
        what: &'static str,
        why: String,
    },
    #[error("cannot connect to {url}: {why}")]
    Connect { url: String, why: String },
    #[error(
        "TLS with {url} failed: {why} (the certificate is checked against the web's roots, or the CA file given)"
    )]
    Tls { url: String, why: String },
    #[error(
        "{url}: no answer within {:.1} s (the server or the network stopped answering)",
        after.as_secs_f64()
    )]
    Timeout { url: String, after: Duration },
    #[error("{url}: the answer is larger than {} MiB", limit >> 20)]
    TooLarge { url: String, limit: usize },
    #[error("{url}: the answer was cut off: {why}")]
    Cut { url: String, why: String },
    /// Credentials that a header cannot carry.
    #[error("{0}")]
    Credentials(String),
    #[error("the HTTP client cannot start: {0}")]
    Setup(String),
}

/// What is wrong with a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    #[error("not a URL ({0})")]
    NotAUrl(String),
    #[error("it must start with http:// or https://")]
    Scheme,
    #[error("credentials in the URL would show in the process list")]
    Credentials,
    #[error("it names no host")]
    NoHost,
}

/// Parses `text` as a URL a [`Client`] can ask: http or https, a host, no credentials.
pub fn url(text: &str) -> Result<Url, Error> {
    let bad = |problem| Error::Url {
        url: text.to_string(),
        problem,
    };
    let url = Url::parse(text).map_err(|e| bad(UrlProblem::NotAUrl(e.to_string())))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(UrlProblem::Scheme));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(UrlProblem::Credentials));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad(UrlProblem::NoHost));
    }
    Ok(url)
}

/// Who we say we are. Secrets stay out of `Debug`.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Credentials {
    #[default]
    None,
    Basic {
        user: String,
        password: String,
    },
    Bearer(String),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::None => f.write_str("None"),
            Credentials::Basic { user, .. } => write!(f, "Basic({user:?}, password hidden)"),
            Credentials::Bearer(_) => f.write_str("Bearer(hidden)"),
        }
    }
}

impl Credentials {
    /// `user:password` on the first line of `path` (Prometheus's tools' basic-auth file).
    pub fn basic_file(path: &Path) -> Result<Credentials, Error> {
        let line = first_line(path, "user:password")?;
        let Some((user, password)) = line.split_once(':') else {
            return Err(file_error(
                path,
                "user:password",
                "the line has no ':' between user and password",
            ));
        };
        Ok(Credentials::Basic {
            user: user.to_string(),
            password: password.to_string(),
        })
    }

    /// The bearer token on the first line of `path`.
    pub fn bearer_file(path: &Path) -> Result<Credentials, Error> {
        Ok(Credentials::Bearer(first_line(path, "a bearer token")?))
    }

    fn header(&self) -> Result<Option<HeaderValue>, Error> {
        let text = match self {
            Credentials::None => return Ok(None),
            Credentials::Basic { user, password } => {
                if user.contains(':') {
                    return Err(Error::Credentials(format!(
                        "the basic-auth user {user:?} contains ':', which basic auth cannot carry"
                    )));
                }
                let token =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                format!("Basic {token}")
            }
            Credentials::Bearer(token) => format!("Bearer {token}"),
        };
        let mut v = HeaderValue::from_str(&text).map_err(|_| {
            Error::Credentials(
                "the credentials hold a character an HTTP header cannot carry (a control \
                 character or a line break)"
                    .into(),
            )
        })?;
        // Kept out of reqwest's and hyper's debug output.
        v.set_sensitive(true);
        Ok(Some(v))
    }
}

fn file_error(path: &Path, what: &'static str, why: impl Into<String>) -> Error {
    Error::File {
        path: path.display().to_string(),
        what,
        why: why.into(),
    }
}

fn read(path: &Path, what: &'static str) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| {
        file_error(
            path,
            what,
            format!("{e} (check the path and its permissions)"),
        )
    })
}

/// The first line of `path`, trimmed; an empty one is an error.
pub fn first_line(path: &Path, what: &'static str) -> Result<String, Error> {
    let text = read(path, what)?;
    let line = text.lines().next().unwrap_or_default().trim().to_string();
    if line.is_empty() {
        return Err(file_error(path, what, "the file is empty"));
    }
    Ok(line)
}

/// A password file's content without one trailing newline (as Prometheus's `password_file`
/// reads): spaces are a password's own.
pub fn password_file(path: &Path) -> Result<String, Error> {
    let text = read(path, "a password")?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    Ok(text.to_string())
}

/// The roots https is checked against: the CA file's certificates, or the web's.
fn roots(ca_file: Option<&Path>) -> Result<rustls::RootCertStore, Error> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    let Some(path) = ca_file else {
        return Ok(rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        });
    };
    const WHAT: &str = "CA certificates (PEM)";
    let pem = std::fs::read(path).map_err(|e| {
        file_error(
            path,
            WHAT,
            format!("{e} (check the path and its permissions)"),
        )
    })?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| file_error(path, WHAT, format!("not PEM: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| file_error(path, WHAT, e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(file_error(
            path,
            WHAT,
            "no certificate in it (a PEM file with BEGIN CERTIFICATE)",
        ));
    }
    Ok(roots)
}

/// How a [`Client`] asks.
#[derive(Debug, Clone)]
pub struct Settings<'a> {
    /// A PEM file of CA certificates to trust instead of the web's roots.
    pub ca_file: Option<&'a Path>,
    pub credentials: Credentials,
    /// The longest one request may take, connection and the whole answer included.
    pub timeout: Duration,
    /// The largest answer read.
    pub max_body: usize,
}

/// One answer: its status and its whole body.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as text (an invalid byte shown as U+FFFD).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body's first line, trimmed and shortened, for an error message.
    pub fn first_line(&self) -> String {
        let text = String::from_utf8_lossy(&self.body[..self.body.len().min(400)]).into_owned();
        let line = text.lines().next().unwrap_or_default().trim();
        line.chars().take(160).collect()
    }
}

/// GETs with the settings' trust, credentials and limits; connections are kept between
/// requests. Cheap to clone (the connection pool is shared).
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    authorization: Option<HeaderValue>,
    timeout: Duration,
    max_body: usize,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("credentials", &self.authorization.is_some())
            .field("timeout", &self.timeout)
            .field("max_body", &self.max_body)
            .finish()
    }
}

impl Client {
    /// Reads the CA file now, so a mistake is told before the first request.
    pub fn new(settings: Settings<'_>) -> Result<Client, Error> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::Setup(format!("TLS: {e}")))?
            .with_root_certificates(roots(settings.ca_file)?)
            .with_no_client_auth();
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .user_agent(concat!("innodebt/", env!("CARGO_PKG_VERSION")))
            // The servers asked are on the operator's own network: an HTTP_PROXY set for the
            // web must not carry their metrics (nor their credentials) elsewhere.
            .no_proxy()
            // A redirect would take the credentials with it; the URL given is the one asked.
            .redirect(reqwest::redirect::Policy::none())
            .pool_idle_timeout(Duration::from_secs(60))
            .pool_max_idle_per_host(2)
            .build()
            .map_err(|e| Error::Setup(cause(&e).1))?;
        Ok(Client {
            http,
            authorization: settings.credentials.header()?,
            timeout: settings.timeout,
            max_body: settings.max_body,
        })
    }

    /// The same client with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Client {
        self.timeout = timeout;
        self
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether requests carry credentials (a 401's message says which fix applies).
    pub fn has_credentials(&self) -> bool {
        self.authorization.is_some()
    }

    /// One GET of `url` asking for `accept`: the status and the whole body, within the
    /// timeout and the size limit. Any status is an answer; the caller reads it.
    pub async fn get(&self, url: &Url, accept: &str) -> Result<Reply, Error> {
        let mut body = Vec::new();
        let status = self
            .get_each_chunk(url, accept, &mut |expected, chunk| {
                if body.is_empty() {
                    body.reserve(expected);
                }
                body.extend_from_slice(chunk);
            })
            .await?;
        Ok(Reply { status, body })
    }

    /// [`Client::get`] with the body handed to `each` chunk by chunk as it arrives (with the
    /// length the answer announced, 0 if none), for an answer too large to hold whole; the
    /// same timeout over the whole exchange and the same size limit.
    pub async fn get_each_chunk(
        &self,
        url: &Url,
        accept: &str,
        each: &mut (dyn FnMut(usize, &[u8]) + Send),
    ) -> Result<StatusCode, Error> {
        let shown = || url.as_str().to_string();
        let mut request = self.http.get(url.clone()).header(header::ACCEPT, accept);
        if let Some(a) = &self.authorization {
            request = request.header(header::AUTHORIZATION, a.clone());
        }
        let exchange = async {
            let mut response = request.send().await.map_err(|e| {
                let (tls, why) = cause(&e);
                if tls {
                    Error::Tls { url: shown(), why }
                } else {
                    Error::Connect { url: shown(), why }
                }
            })?;
            let status = response.status();
            let too_large = || Error::TooLarge {
                url: shown(),
                limit: self.max_body,
            };
            let expected = response.content_length().unwrap_or(0);
            if expected > self.max_body as u64 {
                return Err(too_large());
            }
            let expected = usize::try_from(expected).unwrap_or(0);
            let mut read = 0usize;
            while let Some(chunk) = response.chunk().await.map_err(|e| Error::Cut {
                url: shown(),
                why: cause(&e).1,
            })? {
                read += chunk.len();
                if read > self.max_body {
                    return Err(too_large());
                }
                each(expected, &chunk);
            }
            Ok(status)
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| Error::Timeout {
                url: shown(),
                after: self.timeout,
            })?
    }
}

/// The innermost cause of a failure (reqwest's own words only say "error sending request"),
/// and whether TLS refused: a certificate that is not the CA's is the reason to name.
fn cause(e: &reqwest::Error) -> (bool, String) {
    let mut tls = false;
    let mut last: &dyn std::error::Error = e;
    let mut next: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = next {
        tls |= is_tls(err);
        last = err;
        next = err.source();
    }
    (tls, last.to_string())
}

/// A rustls error, or one inside io::Errors: the TLS connector wraps it in one io::Error and
/// hands that over inside another, and an io::Error's `source` skips what it wraps.
fn is_tls(mut err: &(dyn std::error::Error + 'static)) -> bool {
    loop {
        if err.is::<rustls::Error>() {
            return true;
        }
        match err
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => err = inner,
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    fn settings() -> Settings<'static> {
        Settings {
            ca_file: None,
            credentials: Credentials::None,
            timeout: Duration::from_secs(5),
            max_body: 1 << 20,
        }
    }

    /// A one-connection server answering `reply`; hands back the request it read.
    async fn answer(reply: Vec<u8>) -> (Url, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = url(&format!("http://{}/p?q=1", listener.local_addr().unwrap())).unwrap();
        let task = tokio::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 8192];
            let n = conn.read(&mut buf).await.unwrap_or(0);
            let _ = conn.write_all(&reply).await;
            let _ = conn.shutdown().await;
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        (url, task)
    }

    #[test]
    fn urls_are_http_with_a_host_and_no_credentials() {
        assert!(url("http://db1:9385/metrics").is_ok());
        assert!(url("https://[::1]:9090/").is_ok());
        for (bad, problem) in [
            ("ftp://x", UrlProblem::Scheme),
            ("http://u:p@x/", UrlProblem::Credentials),
            ("https://u@x/", UrlProblem::Credentials),
        ] {
            match url(bad) {
                Err(Error::Url { problem: p, .. }) => assert_eq!(p, problem, "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        // `db1:` parses as a scheme.
        assert!(url("db1:9385").is_err());
        assert!(url("not a url").is_err());
    }

    #[test]
    fn credential_files_are_read_and_never_shown() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("auth");
        std::fs::write(&f, "reader:s3cret:x\n").unwrap();
        let c = Credentials::basic_file(&f).unwrap();
        assert_eq!(
            c,
            Credentials::Basic {
                user: "reader".into(),
                password: "s3cret:x".into()
            }
        );
        assert!(!format!("{c:?}").contains("s3cret"));
        let h = c.header().unwrap().unwrap();
        assert!(h.is_sensitive());
        std::fs::write(&f, "nocolon\n").unwrap();
        let e = Credentials::basic_file(&f).unwrap_err().to_string();
        assert!(e.contains("no ':'"), "{e}");
        std::fs::write(&f, "\n").unwrap();
        let e = Credentials::bearer_file(&f).unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
        let e = Credentials::bearer_file(&dir.path().join("missing"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing: cannot read a bearer token") && e.contains("permissions"),
            "{e}"
        );
        std::fs::write(&f, " pass word \r\n").unwrap();
        assert_eq!(password_file(&f).unwrap(), " pass word ");
        let e = Credentials::Basic {
            user: "a:b".into(),
            password: "x".into(),
        }
        .header()
        .unwrap_err()
        .to_string();
        assert!(e.contains("':'"), "{e}");
    }

    #[test]
    fn a_ca_file_must_hold_certificates() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("ca.pem");
        std::fs::write(&f, "not a certificate\n").unwrap();
        let e = Client::new(Settings {
            ca_file: Some(&f),
            ..settings()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("no certificate in it"), "{e}");
        let e = Client::new(Settings {
            ca_file: Some(&dir.path().join("missing.pem")),
            ..settings()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("missing.pem: cannot read CA certificates"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn a_get_sends_the_credentials_and_reads_the_answer() {
        let (url, server) =
            answer(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 5\r\n\r\nnope\n".to_vec()).await;
        let client = Client::new(Settings {
            credentials: Credentials::Basic {
                user: "reader".into(),
                password: "s3cret-pw".into(),
            },
            ..settings()
        })
        .unwrap();
        let reply = client.get(&url, "application/json").await.unwrap();
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
        assert_eq!(reply.text(), "nope\n");
        assert_eq!(reply.first_line(), "nope");
        let request = server.await.unwrap().to_lowercase();
        assert!(request.starts_with("get /p?q=1 http/1.1"), "{request}");
        // base64 of reader:s3cret-pw
        assert!(
            request.contains("authorization: basic cmvhzgvyonmzy3jldc1wdw=="),
            "{request}"
        );
        assert!(request.contains("accept: application/json"), "{request}");
    }

    #[tokio::test]
    async fn limits_and_failures_are_named() {
        let client = Client::new(Settings {
            max_body: 10,
            ..settings()
        })
        .unwrap();
        // Too large by its length, and by what arrives without one.
        let (url, _s) =
            answer(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n01234567890".to_vec()).await;
        let e = client.get(&url, "*/*").await.unwrap_err();
        assert!(matches!(e, Error::TooLarge { .. }), "{e}");
        let (url, _s) = answer(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n01234567890\r\n0\r\n\r\n"
                .to_vec(),
        )
        .await;
        let e = client.get(&url, "*/*").await.unwrap_err();
        assert!(matches!(e, Error::TooLarge { .. }), "{e}");
        // Nobody listening.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let gone = super::url(&format!("http://127.0.0.1:{port}/")).unwrap();
        let e = client.get(&gone, "*/*").await.unwrap_err();
        assert!(matches!(e, Error::Connect { .. }), "{e}");
        assert!(e.to_string().contains("refused"), "{e}");
        // A listener that never answers: the timeout, with the time it waited.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = super::url(&format!("http://{}/", silent.local_addr().unwrap())).unwrap();
        let e = client
            .clone()
            .with_timeout(Duration::from_millis(200))
            .get(&url, "*/*")
            .await
            .unwrap_err();
        assert!(e.to_string().contains("no answer within 0.2 s"), "{e}");
        // https to a plain HTTP server: TLS fails, and says so.
        let (url, _s) = answer(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec()).await;
        let https = super::url(&url.as_str().replacen("http://", "https://", 1)).unwrap();
        let e = client.get(&https, "*/*").await.unwrap_err();
        assert!(matches!(e, Error::Tls { .. }), "{e}");
    }
}
