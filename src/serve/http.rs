//! The HTTP side of `innodebt serve`, on hyper (HTTP/1.1: request parsing, keep-alive,
//! limits and the header-read deadline are hyper's). What is ours: which connections get in,
//! so no client can starve a scrape, TLS and basic auth from `--web-config`, gzip when the
//! scraper asks for it, and the mapping to the small [`Request`]/[`Response`] the handler
//! sees. Nothing here knows about metrics.
//!
//! Connections: up to [`MAX_CONNECTIONS`] at once; when full, a new one still gets in and
//! the oldest connection that is *idle* (not inside a request: still sending its head, in a
//! TLS handshake, or kept alive between scrapes) is closed, those that never finished a
//! request first. A slowloris holding a thousand half-sent requests so loses them to the next
//! scraper instead of keeping it out; a scraper's kept-alive connection goes last. Nothing
//! waits in a queue a slow client could hold.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::timeout;

use super::web_config::Web;

/// The largest request head (request line and headers) read; larger gets 431.
pub const MAX_HEAD: usize = 8 * 1024;
const MAX_HEADERS: usize = 48;
/// To send a whole request head (or finish the TLS handshake).
const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// An answer the handler has not given after this long is given up (a scrape waits at most
/// its own timeout, so only a bug would reach it).
const ANSWER_DEADLINE: Duration = Duration::from_secs(30);
/// Open connections at once; beyond that the oldest idle one makes room (see above). High
/// enough that a thousand idle connections just wait for their deadline (each costs ~12 KiB)
/// instead of churning, low enough to stay well inside the raised open-files limit.
pub const MAX_CONNECTIONS: usize = 2048;
/// Answers smaller than this go uncompressed even when gzip is accepted.
const GZIP_FROM: usize = 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Decoded query parameters, in order.
    pub query: Vec<(String, String)>,
    pub accept: Option<String>,
    /// Prometheus's `X-Prometheus-Scrape-Timeout-Seconds`.
    pub scrape_timeout_s: Option<f64>,
    pub peer: Option<SocketAddr>,
}

impl Request {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    pub body: String,
    /// Headers beyond the content type (`Allow`, `WWW-Authenticate`).
    pub headers: Vec<(&'static str, String)>,
}

impl Response {
    pub fn new(status: u16, content_type: &str, body: impl Into<String>) -> Self {
        Response {
            status,
            content_type: content_type.to_string(),
            body: body.into(),
            headers: Vec::new(),
        }
    }

    /// A plain-text answer; errors say what was wrong and what to send instead.
    pub fn text(status: u16, body: impl Into<String>) -> Self {
        let mut body = body.into();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        Self::new(status, "text/plain; charset=utf-8", body)
    }

    fn with(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

/// One open connection as the admission sees it.
struct Slot {
    /// Inside a request (never closed to make room).
    busy: Arc<AtomicBool>,
    /// Has finished a request: a scraper's kept-alive connection, closed last.
    served: Arc<AtomicBool>,
    close: Arc<Notify>,
}

#[derive(Default)]
struct Connections {
    next: AtomicU64,
    /// By arrival: the first entries are the oldest.
    open: Mutex<BTreeMap<u64, Slot>>,
}

/// What a connection task holds: its flags, and its place, given back on drop.
struct Admitted {
    id: u64,
    busy: Arc<AtomicBool>,
    served: Arc<AtomicBool>,
    close: Arc<Notify>,
    table: Arc<Connections>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Ok(mut open) = self.table.open.lock() {
            open.remove(&self.id);
        }
    }
}

impl Connections {
    /// A place for a new connection, closing the oldest idle one when full; `None` when
    /// every connection is inside a request.
    fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut open = self.open.lock().ok()?;
        if open.len() >= MAX_CONNECTIONS {
            let idle = |never_served: bool| {
                open.iter()
                    .find(|(_, s)| {
                        !s.busy.load(Ordering::Acquire)
                            && (!never_served || !s.served.load(Ordering::Acquire))
                    })
                    .map(|(id, _)| *id)
            };
            let victim = idle(true).or_else(|| idle(false))?;
            if let Some(s) = open.remove(&victim) {
                s.close.notify_one();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = Slot {
            busy: Arc::new(AtomicBool::new(false)),
            served: Arc::new(AtomicBool::new(false)),
            close: Arc::new(Notify::new()),
        };
        let admitted = Admitted {
            id,
            busy: Arc::clone(&slot.busy),
            served: Arc::clone(&slot.served),
            close: Arc::clone(&slot.close),
            table: Arc::clone(self),
        };
        open.insert(id, slot);
        Some(admitted)
    }
}

/// Marks a connection busy while a request is handled (also if the handler is dropped).
struct InRequest(Arc<AtomicBool>, Arc<AtomicBool>);

impl InRequest {
    fn new(busy: &Arc<AtomicBool>, served: &Arc<AtomicBool>) -> Self {
        busy.store(true, Ordering::Release);
        InRequest(Arc::clone(busy), Arc::clone(served))
    }
}

impl Drop for InRequest {
    fn drop(&mut self) {
        self.1.store(true, Ordering::Release);
        self.0.store(false, Ordering::Release);
    }
}

/// Accepts connections until `shutdown` resolves; each connection runs in its own task.
pub async fn serve<H, F, S>(listener: TcpListener, web: Arc<Web>, handler: H, shutdown: S)
where
    H: Fn(Request) -> F + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
    S: Future<Output = ()>,
{
    let handler = Arc::new(handler);
    let table = Arc::new(Connections::default());
    let tls = web.tls.clone().map(tokio_rustls::TlsAcceptor::from);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                // Out of file descriptors and the like: back off instead of spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let Some(admitted) = table.admit() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let handler = Arc::clone(&handler);
        let web = Arc::clone(&web);
        let tls = tls.clone();
        tokio::spawn(async move {
            let close = Arc::clone(&admitted.close);
            let run = async {
                match tls {
                    Some(acceptor) => {
                        if let Ok(Ok(s)) = timeout(HEAD_DEADLINE, acceptor.accept(stream)).await {
                            connection(s, peer, &admitted, &web, handler).await;
                        }
                    }
                    None => connection(stream, peer, &admitted, &web, handler).await,
                }
            };
            tokio::select! {
                _ = run => {}
                _ = close.notified() => {}
            }
        });
    }
}

/// Every connection is inside a request: say so and close.
async fn refuse(mut stream: TcpStream) {
    let body = format!("too many requests at once (limit {MAX_CONNECTIONS}); retry later\n");
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = timeout(Duration::from_secs(2), async {
        stream.write_all(head.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

async fn connection<I, H, F>(
    io: I,
    peer: SocketAddr,
    admitted: &Admitted,
    web: &Arc<Web>,
    handler: Arc<H>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    H: Fn(Request) -> F + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    let (busy, served) = (Arc::clone(&admitted.busy), Arc::clone(&admitted.served));
    let web = Arc::clone(web);
    let service = service_fn(move |req: hyper::Request<Incoming>| {
        let guard = InRequest::new(&busy, &served);
        let handler = Arc::clone(&handler);
        let web = Arc::clone(&web);
        async move {
            let response = answer(req, peer, &web, handler.as_ref()).await;
            drop(guard);
            Ok::<_, Infallible>(response)
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_DEADLINE)
        .max_buf_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(io), service);
    let _ = conn.await;
}

/// One request: auth, then the handler, then the wire form (gzip when asked).
async fn answer<H, F>(
    req: hyper::Request<Incoming>,
    peer: SocketAddr,
    web: &Web,
    handler: &H,
) -> hyper::Response<Full<Bytes>>
where
    H: Fn(Request) -> F,
    F: Future<Output = Response>,
{
    let gzip = accepts_gzip(req.headers().get(header::ACCEPT_ENCODING));
    if let Some(auth) = &web.auth {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if !auth.allows(given).await {
            let r = Response::text(
                401,
                "unauthorized: give the user and password of the web config (basic auth)",
            )
            .with(
                "WWW-Authenticate",
                "Basic realm=\"innodebt\", charset=\"UTF-8\"",
            );
            return wire(r, false);
        }
    }
    let response = match request(&req, peer) {
        Ok(r) => {
            let send = timeout(ANSWER_DEADLINE, handler(r)).await;
            send.unwrap_or_else(|_| Response::text(503, "the answer took too long; retry"))
        }
        Err(r) => r,
    };
    wire(response, gzip)
}

fn accepts_gzip(v: Option<&HeaderValue>) -> bool {
    let Some(v) = v.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    v.split(',').any(|part| {
        let mut params = part.split(';').map(str::trim);
        let coding = params.next().unwrap_or_default();
        let q_zero = params.any(|p| {
            p.strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f64>().ok())
                .is_some_and(|q| q == 0.0)
        });
        coding.eq_ignore_ascii_case("gzip") && !q_zero
    })
}

fn wire(r: Response, gzip: bool) -> hyper::Response<Full<Bytes>> {
    let mut body = r.body.into_bytes();
    let mut compressed = false;
    if gzip && body.len() >= GZIP_FROM {
        let mut enc = flate2::write::GzEncoder::new(
            Vec::with_capacity(body.len() / 4),
            flate2::Compression::fast(),
        );
        if enc.write_all(&body).is_ok()
            && let Ok(z) = enc.finish()
        {
            body = z;
            compressed = true;
        }
    }
    let mut builder = hyper::Response::builder()
        .status(r.status)
        .header(header::CONTENT_TYPE, r.content_type)
        .header(header::CACHE_CONTROL, "no-store");
    if compressed {
        builder = builder
            .header(header::CONTENT_ENCODING, "gzip")
            .header(header::VARY, "Accept-Encoding");
    }
    for (name, value) in r.headers {
        builder = builder.header(name, value);
    }
    builder
        .body(Full::new(Bytes::from(body)))
        .unwrap_or_else(|_| {
            let mut fallback = hyper::Response::new(Full::new(Bytes::from_static(
                b"internal error: an answer could not be formed\n",
            )));
            *fallback.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            fallback
        })
}

/// hyper's request → ours, or the error answer (method, body, encoding).
fn request<B>(req: &hyper::Request<B>, peer: SocketAddr) -> Result<Request, Response> {
    let method = req.method().as_str().to_string();
    if method != "GET" && method != "HEAD" {
        return Err(
            Response::text(405, format!("{method} is not supported: use GET"))
                .with("Allow", "GET, HEAD"),
        );
    }
    let h = req.headers();
    let header = |name: header::HeaderName| {
        h.get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    let has_body = h.contains_key(header::TRANSFER_ENCODING)
        || header(header::CONTENT_LENGTH).is_some_and(|v| v.trim() != "0");
    if has_body {
        return Err(Response::text(413, "a GET request carries no body"));
    }
    let query = req
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Ok((decode(k)?, decode(v)?))
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| Response::text(400, e))?;
    Ok(Request {
        method,
        path: decode(req.uri().path()).map_err(|e| Response::text(400, e))?,
        query,
        accept: header(header::ACCEPT),
        scrape_timeout_s: h
            .get("x-prometheus-scrape-timeout-seconds")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0),
        peer: Some(peer),
    })
}

/// Percent-decoding (and `+` as a space, as forms send it) into UTF-8.
fn decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent-encoding in {s:?}"))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("{s:?} is not UTF-8 once decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 1))
    }

    fn req(method: &str, uri: &str, headers: &[(&str, &str)]) -> hyper::Request<()> {
        let mut b = hyper::Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap()
    }

    #[test]
    fn reads_a_prometheus_scrape() {
        let r = request(
            &req(
                "GET",
                "/probe?target=db%201&x=a+b",
                &[
                    ("Accept", "application/openmetrics-text"),
                    ("X-Prometheus-Scrape-Timeout-Seconds", "9.5"),
                ],
            ),
            peer(),
        )
        .unwrap();
        assert_eq!(r.path, "/probe");
        assert_eq!(r.param("target"), Some("db 1"));
        assert_eq!(r.param("x"), Some("a b"));
        assert_eq!(r.scrape_timeout_s, Some(9.5));
        assert_eq!(r.accept.as_deref(), Some("application/openmetrics-text"));
    }

    #[test]
    fn bad_requests_get_their_status() {
        let status = |r: hyper::Request<()>| {
            request(&r, peer())
                .map(|_| 200)
                .unwrap_or_else(|r| r.status)
        };
        assert_eq!(status(req("POST", "/metrics", &[])), 405);
        assert_eq!(
            status(req("GET", "/metrics", &[("Content-Length", "5")])),
            413
        );
        assert_eq!(status(req("GET", "/m%zz", &[])), 400);
        assert_eq!(status(req("GET", "/%ff", &[])), 400);
        assert_eq!(status(req("HEAD", "/metrics", &[])), 200);
    }

    #[test]
    fn gzip_only_when_asked() {
        let hv = |s: &'static str| HeaderValue::from_static(s);
        assert!(accepts_gzip(Some(&hv("gzip"))));
        assert!(accepts_gzip(Some(&hv("deflate, gzip;q=0.5"))));
        assert!(!accepts_gzip(Some(&hv("gzip;q=0"))));
        assert!(!accepts_gzip(Some(&hv("identity"))));
        assert!(!accepts_gzip(None));
        let big = Response::text(200, "x".repeat(5000));
        let z = wire(big.clone(), true);
        assert_eq!(z.headers()["content-encoding"], "gzip");
        let plain = wire(big, false);
        assert!(plain.headers().get("content-encoding").is_none());
        let small = wire(Response::text(200, "ok"), true);
        assert!(small.headers().get("content-encoding").is_none());
    }

    #[test]
    fn a_full_table_closes_the_oldest_idle_never_served_first() {
        let table = Arc::new(Connections::default());
        let mut held: Vec<Admitted> = (0..MAX_CONNECTIONS)
            .map(|_| table.admit().unwrap())
            .collect();
        // The oldest has served a scrape (kept alive), the second is inside a request.
        held[0].served.store(true, Ordering::Release);
        held[1].busy.store(true, Ordering::Release);
        let newcomer = table.admit().expect("room is made");
        let open = table.open.lock().unwrap();
        assert_eq!(open.len(), MAX_CONNECTIONS);
        assert!(open.contains_key(&held[0].id) && open.contains_key(&held[1].id));
        assert!(!open.contains_key(&held[2].id));
        assert!(open.contains_key(&newcomer.id));
        drop(open);
        // Every connection inside a request: nobody is closed, the newcomer is refused.
        for h in &held {
            h.busy.store(true, Ordering::Release);
        }
        newcomer.busy.store(true, Ordering::Release);
        held.truncate(MAX_CONNECTIONS);
        assert!(table.admit().is_none());
    }
}
