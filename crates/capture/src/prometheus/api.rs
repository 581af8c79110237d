//! The Prometheus HTTP API as the import reads it: one GET at a time over hyper (TLS through
//! rustls with the web's root certificates, or the CA file given), the reply decoded from
//! the API's JSON envelope (`status`, `data`, `errorType`, `error`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use http_body_util::{BodyExt as _, Empty};
use hyper::body::Bytes;
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpStream;

use super::PromError;

/// How long one request of an import may take, connection included: a query_range chunk over
/// a day at 15 s answers in well under a second on a healthy Prometheus.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Where Prometheus is and how to prove who we are.
pub struct Endpoint {
    shown: String,
    host: String,
    port: u16,
    /// The URL's path without its trailing `/` (a Prometheus behind `--web.route-prefix`).
    base_path: String,
    tls: Option<(
        tokio_rustls::TlsConnector,
        rustls::pki_types::ServerName<'static>,
    )>,
    authorization: Option<String>,
    timeout: Duration,
}

/// Credentials, each read from a file so that no secret sits on a command line.
#[derive(Debug, Clone, Default)]
pub struct Auth {
    /// A file holding `user:password` on its first line.
    pub basic_file: Option<std::path::PathBuf>,
    /// A file holding the bearer token.
    pub bearer_file: Option<std::path::PathBuf>,
    /// A PEM file of CA certificates to trust instead of the web's roots.
    pub ca_file: Option<std::path::PathBuf>,
}

fn read_secret(path: &Path, what: &'static str) -> Result<String, PromError> {
    let text = std::fs::read_to_string(path).map_err(|e| PromError::Credentials {
        path: path.display().to_string(),
        what,
        why: e.to_string(),
    })?;
    let line = text.lines().next().unwrap_or_default().trim().to_string();
    if line.is_empty() {
        return Err(PromError::Credentials {
            path: path.display().to_string(),
            what,
            why: "the file is empty".into(),
        });
    }
    Ok(line)
}

fn tls_config(ca_file: Option<&Path>) -> Result<rustls::ClientConfig, PromError> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            use rustls::pki_types::pem::PemObject as _;
            let bad = |why: String| PromError::Credentials {
                path: path.display().to_string(),
                what: "CA certificates (PEM)",
                why,
            };
            let certs = rustls::pki_types::CertificateDer::pem_file_iter(path)
                .map_err(|e| bad(e.to_string()))?;
            for cert in certs {
                roots
                    .add(cert.map_err(|e| bad(e.to_string()))?)
                    .map_err(|e| bad(e.to_string()))?;
            }
            if roots.is_empty() {
                return Err(bad("no certificate in the file".into()));
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| PromError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

impl Endpoint {
    pub fn new(url: &str, auth: &Auth) -> Result<Endpoint, PromError> {
        let bad = |why: &str| PromError::BadUrl {
            url: url.to_string(),
            why: why.to_string(),
        };
        let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(bad("it must start with http:// or https://")),
        };
        if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
            return Err(bad(
                "credentials in the URL would show in the process list: put them in --basic-auth-file",
            ));
        }
        let host = uri.host().ok_or_else(|| bad("it names no host"))?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tls = if https {
            let config = tls_config(auth.ca_file.as_deref())?;
            let name = rustls::pki_types::ServerName::try_from(host.clone())
                .map_err(|_| bad("its host is not a valid TLS server name"))?;
            Some((tokio_rustls::TlsConnector::from(Arc::new(config)), name))
        } else {
            None
        };
        let authorization = match (&auth.basic_file, &auth.bearer_file) {
            (Some(_), Some(_)) => {
                return Err(PromError::BadUrl {
                    url: url.to_string(),
                    why: "give --basic-auth-file or --bearer-token-file, not both".into(),
                });
            }
            (Some(path), None) => {
                let pair = read_secret(path, "user:password")?;
                if !pair.contains(':') {
                    return Err(PromError::Credentials {
                        path: path.display().to_string(),
                        what: "user:password",
                        why: "the line has no ':' between user and password".into(),
                    });
                }
                let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
                Some(format!("Basic {encoded}"))
            }
            (None, Some(path)) => Some(format!("Bearer {}", read_secret(path, "a bearer token")?)),
            (None, None) => None,
        };
        Ok(Endpoint {
            shown: format!(
                "{}://{}{}",
                if https { "https" } else { "http" },
                uri.authority().map(|a| a.as_str()).unwrap_or_default(),
                uri.path().trim_end_matches('/')
            ),
            host,
            port,
            base_path: uri.path().trim_end_matches('/').to_string(),
            tls,
            authorization,
            timeout: REQUEST_TIMEOUT,
        })
    }

    /// The longest one request may take (a live view asks every step and cannot wait long).
    pub fn with_timeout(mut self, timeout: Duration) -> Endpoint {
        self.timeout = timeout;
        self
    }

    /// The URL as the user gave it, for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// GET `api_path` (`/api/v1/...`) with `params`: the `data` of a successful reply.
    pub async fn get(
        &self,
        api_path: &str,
        params: &[(&str, String)],
    ) -> Result<serde_json::Value, PromError> {
        let (status, body) = self.fetch(api_path, params).await?;
        decode(&self.shown, api_path, status, &body)
    }

    /// `/api/v1/query_range`: its series, decoded from the reply's bytes straight into points
    /// (no JSON tree in between: a chunk's reply is the import's largest allocation).
    pub async fn query_range(
        &self,
        query: &str,
        start: &str,
        end: &str,
        step: &str,
    ) -> Result<Vec<Series>, PromError> {
        Ok(self
            .query_range_reply(query, start, end, step)
            .await?
            .series)
    }

    /// As [`Self::query_range`], with the reply's warnings (a Thanos or Mimir that could not
    /// ask every store answers partially and says so there).
    pub async fn query_range_reply(
        &self,
        query: &str,
        start: &str,
        end: &str,
        step: &str,
    ) -> Result<RangeReply, PromError> {
        const PATH: &str = "/api/v1/query_range";
        let params = [
            ("query", query.to_string()),
            ("start", start.to_string()),
            ("end", end.to_string()),
            ("step", step.to_string()),
        ];
        let (status, body) = self.fetch(PATH, &params).await?;
        #[derive(Deserialize)]
        struct Reply {
            status: String,
            data: Matrix,
            #[serde(default)]
            warnings: Vec<String>,
        }
        match serde_json::from_slice::<Reply>(&body) {
            Ok(r) if r.status == "success" && status.is_success() => {
                check_matrix(&self.shown, &r.data)?;
                Ok(RangeReply {
                    series: r.data.result,
                    warnings: r.warnings,
                })
            }
            // Not a matrix of points: the envelope's own words (an error, a 401, not Prometheus).
            _ => Ok(RangeReply {
                series: matrix(&self.shown, decode(&self.shown, PATH, status, &body)?)?,
                warnings: Vec::new(),
            }),
        }
    }

    async fn fetch(
        &self,
        api_path: &str,
        params: &[(&str, String)],
    ) -> Result<(StatusCode, Bytes), PromError> {
        let query = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let target = format!("{}{api_path}?{query}", self.base_path);
        tokio::time::timeout(self.timeout, self.send(&target))
            .await
            .map_err(|_| PromError::Unreachable {
                url: self.shown.clone(),
                why: format!("no answer within {:.1} s", self.timeout.as_secs_f64()),
            })?
    }

    async fn send(&self, target: &str) -> Result<(StatusCode, Bytes), PromError> {
        let unreachable = |why: String| PromError::Unreachable {
            url: self.shown.clone(),
            why,
        };
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| unreachable(e.to_string()))?;
        let host_header = if matches!(self.port, 80 | 443) {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        };
        let mut req = Request::get(target)
            .header(hyper::header::HOST, host_header)
            .header(hyper::header::ACCEPT, "application/json")
            .header(
                hyper::header::USER_AGENT,
                concat!("innodebt/", env!("CARGO_PKG_VERSION")),
            );
        if let Some(a) = &self.authorization {
            req = req.header(hyper::header::AUTHORIZATION, a);
        }
        let req = req
            .body(Empty::<Bytes>::new())
            .map_err(|e| unreachable(format!("cannot build the request: {e}")))?;
        match &self.tls {
            Some((connector, name)) => {
                let stream = connector
                    .connect(name.clone(), tcp)
                    .await
                    .map_err(|e| PromError::Tls(format!("{}: {e}", self.shown)))?;
                exchange(TokioIo::new(stream), req, &self.shown).await
            }
            None => exchange(TokioIo::new(tcp), req, &self.shown).await,
        }
    }
}

async fn exchange<T>(
    io: T,
    req: Request<Empty<Bytes>>,
    shown: &str,
) -> Result<(StatusCode, Bytes), PromError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let failed = |why: String| PromError::Unreachable {
        url: shown.to_string(),
        why,
    };
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let driver = tokio::spawn(conn);
    let resp = sender
        .send_request(req)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let status = resp.status();
    let body = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| failed(format!("the reply was cut: {e}")))?
        .to_bytes();
    driver.abort();
    Ok((status, body))
}

/// The API's envelope: `{"status":"success","data":…}` or `{"status":"error",…}`.
#[derive(Deserialize)]
struct Envelope {
    status: String,
    #[serde(default)]
    data: serde_json::Value,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// Decodes one reply: the API's own error wins over the HTTP status (Prometheus answers a bad
/// query with 400 and a JSON error naming it).
pub fn decode(
    url: &str,
    api_path: &str,
    status: StatusCode,
    body: &[u8],
) -> Result<serde_json::Value, PromError> {
    if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        return Err(PromError::Refused {
            url: url.to_string(),
            status: status.as_u16(),
        });
    }
    match serde_json::from_slice::<Envelope>(body) {
        Ok(e) if e.status == "success" && status.is_success() => Ok(e.data),
        Ok(e) => Err(PromError::Rejected {
            url: url.to_string(),
            status: status.as_u16(),
            kind: e.error_type.unwrap_or_else(|| "error".into()),
            error: e.error.unwrap_or_else(|| "no reason given".into()),
        }),
        Err(_) => Err(PromError::NotPrometheus {
            url: url.to_string(),
            api_path: api_path.to_string(),
            status: status.as_u16(),
            start: String::from_utf8_lossy(&body[..body.len().min(120)])
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        }),
    }
}

/// A query_range reply: its series and what Prometheus warned of.
#[derive(Debug, Clone, Default)]
pub struct RangeReply {
    pub series: Vec<Series>,
    pub warnings: Vec<String>,
}

/// One series of a `matrix` reply: its labels (with `__name__`) and its (unix s, value) points.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Series {
    pub metric: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "points")]
    pub values: Vec<(f64, f64)>,
}

/// Prometheus writes each point as `[1700000000.5, "42"]`; "NaN", "+Inf" are dropped.
fn points<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(f64, f64)>, D::Error> {
    let raw: Vec<(f64, String)> = Vec::deserialize(d)?;
    Ok(raw
        .into_iter()
        .filter_map(|(t, v)| {
            v.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| (t, v))
        })
        .collect())
}

/// A query_range reply's `data`.
#[derive(Deserialize)]
struct Matrix {
    #[serde(rename = "resultType")]
    result_type: String,
    result: Vec<Series>,
}

fn check_matrix(url: &str, d: &Matrix) -> Result<(), PromError> {
    if d.result_type != "matrix" {
        return Err(PromError::NotPrometheus {
            url: url.to_string(),
            api_path: "/api/v1/query_range".into(),
            status: 200,
            start: format!("a {} instead of a matrix", d.result_type),
        });
    }
    Ok(())
}

/// `data` of a query_range reply: its `result` as series.
pub fn matrix(url: &str, data: serde_json::Value) -> Result<Vec<Series>, PromError> {
    let d: Matrix = serde_json::from_value(data).map_err(|e| PromError::NotPrometheus {
        url: url.to_string(),
        api_path: "/api/v1/query_range".into(),
        status: 200,
        start: e.to_string(),
    })?;
    check_matrix(url, &d)?;
    Ok(d.result)
}

/// `data` of a /api/v1/series reply: each series' labels.
pub fn label_sets(
    url: &str,
    data: serde_json::Value,
) -> Result<Vec<BTreeMap<String, String>>, PromError> {
    serde_json::from_value(data).map_err(|e| PromError::NotPrometheus {
        url: url.to_string(),
        api_path: "/api/v1/series".into(),
        status: 200,
        start: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let ok = br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[1700000000,"1"],[1700000001,"NaN"],[1700000002,"2.5e+01"]]}]}}"#;
        let data = decode("u", "/api/v1/query_range", StatusCode::OK, ok).unwrap();
        let m = matrix("u", data).unwrap();
        assert_eq!(
            m[0].values,
            vec![(1_700_000_000.0, 1.0), (1_700_000_002.0, 25.0)]
        );
        let bad = br#"{"status":"error","errorType":"bad_data","error":"1:5: parse error"}"#;
        let e = decode("u", "/x", StatusCode::BAD_REQUEST, bad).unwrap_err();
        assert!(e.to_string().contains("bad_data: 1:5: parse error"), "{e}");
        let e = decode("u", "/x", StatusCode::UNAUTHORIZED, b"nope").unwrap_err();
        assert!(e.to_string().contains("401"), "{e}");
        let e = decode("u", "/x", StatusCode::OK, b"<html>").unwrap_err();
        assert!(e.to_string().contains("<html>"), "{e}");
    }

    #[test]
    fn urls() {
        let e = Endpoint::new("ftp://x", &Auth::default()).err().unwrap();
        assert!(e.to_string().contains("http://"), "{e}");
        let e = Endpoint::new("http://u:p@x:9090", &Auth::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("--basic-auth-file"), "{e}");
        let ep = Endpoint::new("http://prom:9090/prefix/", &Auth::default()).unwrap();
        assert_eq!(ep.shown(), "http://prom:9090/prefix");
        assert_eq!((ep.port, ep.base_path.as_str()), (9090, "/prefix"));
    }
}
