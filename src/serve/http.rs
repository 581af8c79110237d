//! A small HTTP/1.1 server for the scrape endpoints: GET and HEAD only, a bounded request
//! head (8 KiB), a deadline to send it (10 s), keep-alive with an idle limit, a cap on open
//! connections (the rest get 503), and a proper status for every bad request. Parsing is
//! httparse's; nothing here knows about metrics.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::timeout;

pub const MAX_HEAD: usize = 8 * 1024;
const MAX_HEADERS: usize = 48;
/// To send a whole request head once the connection (or the previous response) is done.
const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// An idle kept-alive connection is closed after this long.
const IDLE: Duration = Duration::from_secs(75);
/// A slow reader of our response is dropped after this long.
const WRITE_DEADLINE: Duration = Duration::from_secs(30);
pub const MAX_CONNECTIONS: usize = 64;

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
}

impl Response {
    pub fn new(status: u16, content_type: &str, body: impl Into<String>) -> Self {
        Response {
            status,
            content_type: content_type.to_string(),
            body: body.into(),
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
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// Accepts connections until `shutdown` resolves; each connection runs in its own task.
pub async fn serve<H, F, S>(listener: TcpListener, handler: H, shutdown: S)
where
    H: Fn(Request) -> F + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
    S: Future<Output = ()>,
{
    let handler = Arc::new(handler);
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                // Out of file descriptors and the like: back off instead of spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let handler = Arc::clone(&handler);
        match Arc::clone(&slots).try_acquire_owned() {
            Ok(permit) => {
                tokio::spawn(async move {
                    connection(stream, peer, handler.as_ref()).await;
                    drop(permit);
                });
            }
            Err(_) => {
                tokio::spawn(async move {
                    let busy = Response::text(
                        503,
                        format!("too many open connections (limit {MAX_CONNECTIONS}); retry later"),
                    );
                    let mut stream = stream;
                    let _ = write(&mut stream, &busy, false, true).await;
                });
            }
        }
    }
}

async fn connection<H, F>(mut stream: TcpStream, peer: SocketAddr, handler: &H)
where
    H: Fn(Request) -> F,
    F: Future<Output = Response>,
{
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    let mut first = true;
    loop {
        // Wait for the first byte of the next request (idle limit), then for the whole head.
        let head = match read_head(
            &mut stream,
            &mut buf,
            if first { HEAD_DEADLINE } else { IDLE },
        )
        .await
        {
            Ok(Some(n)) => n,
            Ok(None) => return,
            Err(status) => {
                let msg = match status {
                    408 => "the request head did not arrive in time".to_string(),
                    _ => format!("the request head is larger than {MAX_HEAD} bytes"),
                };
                let _ = write(&mut stream, &Response::text(status, msg), false, true).await;
                return;
            }
        };
        first = false;
        let parsed = parse(&buf[..head], peer);
        buf.drain(..head);
        let (request, keep_alive) = match parsed {
            Ok(x) => x,
            Err(resp) => {
                let _ = write(&mut stream, &resp, false, true).await;
                return;
            }
        };
        let head_only = request.method == "HEAD";
        let response = handler(request).await;
        if write(&mut stream, &response, head_only, !keep_alive)
            .await
            .is_err()
            || !keep_alive
        {
            return;
        }
    }
}

/// Reads until the end of a request head. `Ok(None)`: the peer closed between requests.
async fn read_head(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    wait_first: Duration,
) -> Result<Option<usize>, u16> {
    let mut deadline = tokio::time::Instant::now() + wait_first;
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = find_head_end(buf) {
            return if end > MAX_HEAD {
                Err(431)
            } else {
                Ok(Some(end))
            };
        }
        if buf.len() > MAX_HEAD {
            return Err(431);
        }
        let was_empty = buf.is_empty();
        let n = match timeout(
            deadline.saturating_duration_since(tokio::time::Instant::now()),
            stream.read(&mut chunk),
        )
        .await
        {
            Ok(Ok(n)) => n,
            Ok(Err(_)) => return Ok(None),
            Err(_) if was_empty => return Ok(None),
            Err(_) => return Err(408),
        };
        if n == 0 {
            return Ok(None);
        }
        if was_empty {
            // The request has begun: it gets the head deadline from now.
            deadline = tokio::time::Instant::now() + HEAD_DEADLINE;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

/// The head → a request and whether to keep the connection, or the error response.
fn parse(head: &[u8], peer: SocketAddr) -> Result<(Request, bool), Response> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => {
            return Err(Response::text(400, "incomplete request head"));
        }
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Response::text(
                431,
                format!("more than {MAX_HEADERS} header fields"),
            ));
        }
        Err(e) => return Err(Response::text(400, format!("malformed request: {e}"))),
    }
    let method = req.method.unwrap_or_default().to_string();
    let target = req.path.unwrap_or_default();
    let version = req.version.unwrap_or(1);
    let header = |name: &str| {
        req.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).into_owned())
    };
    let has_body = header("transfer-encoding").is_some()
        || header("content-length").is_some_and(|v| v.trim() != "0");
    if method != "GET" && method != "HEAD" {
        return Err(Response::text(
            405,
            format!("{method} is not supported: use GET"),
        ));
    }
    if has_body {
        return Err(Response::text(413, "a GET request carries no body"));
    }
    let connection = header("connection")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let keep_alive = match version {
        0 => connection.contains("keep-alive"),
        _ => !connection.contains("close"),
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Ok((decode(k)?, decode(v)?))
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| Response::text(400, e))?;
    Ok((
        Request {
            method,
            path: decode(path).map_err(|e| Response::text(400, e))?,
            query,
            accept: header("accept"),
            scrape_timeout_s: header("x-prometheus-scrape-timeout-seconds")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v > 0.0),
            peer: Some(peer),
        },
        keep_alive,
    ))
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

async fn write(
    stream: &mut TcpStream,
    r: &Response,
    head_only: bool,
    close: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n{}{}\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len(),
        if r.status == 405 {
            "Allow: GET, HEAD\r\n"
        } else {
            ""
        },
        if close { "Connection: close\r\n" } else { "" }
    );
    let send = async {
        stream.write_all(head.as_bytes()).await?;
        if !head_only {
            stream.write_all(r.body.as_bytes()).await?;
        }
        stream.flush().await?;
        if close {
            stream.shutdown().await?;
        }
        Ok(())
    };
    match timeout(WRITE_DEADLINE, send).await {
        Ok(r) => r,
        Err(_) => Err(std::io::Error::from(std::io::ErrorKind::TimedOut)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 1))
    }

    #[test]
    fn parses_a_prometheus_scrape() {
        let head = b"GET /probe?target=db%201&x=a+b HTTP/1.1\r\nHost: h\r\nAccept: application/openmetrics-text\r\nX-Prometheus-Scrape-Timeout-Seconds: 9.5\r\n\r\n";
        let (r, keep) = parse(head, peer()).unwrap();
        assert!(keep);
        assert_eq!(r.path, "/probe");
        assert_eq!(r.param("target"), Some("db 1"));
        assert_eq!(r.param("x"), Some("a b"));
        assert_eq!(r.scrape_timeout_s, Some(9.5));
        assert_eq!(r.accept.as_deref(), Some("application/openmetrics-text"));
    }

    #[test]
    fn bad_requests_get_their_status() {
        let status = |head: &[u8]| {
            parse(head, peer())
                .map(|_| 200)
                .unwrap_or_else(|r| r.status)
        };
        assert_eq!(status(b"POST /metrics HTTP/1.1\r\n\r\n"), 405);
        assert_eq!(
            status(b"GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n"),
            413
        );
        assert_eq!(status(b"GET /m%zz HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status(b"GARBAGE\r\n\r\n"), 400);
        assert_eq!(status(b"GET /%ff HTTP/1.1\r\n\r\n"), 400);
        let (_, keep) = parse(b"GET / HTTP/1.0\r\n\r\n", peer()).unwrap();
        assert!(!keep);
    }
}
