//! Where the fleet's rows come from: one task per server, each with its own timeout and
//! backoff, so a dead host never stalls the others. A direct server runs the ordinary live
//! poller and derivation; an agent row reads a remote `innodebt serve`'s `/metrics` (or
//! `/probe?target=`) over HTTP — no MySQL connection from this machine.

use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use chrono::Utc;
use http_body_util::{BodyExt, Empty, LengthLimitError, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::timeout;

use super::row::RowFigures;
use super::state::RowUpdate;
use crate::cli::ConnectOptions;
use crate::derive::Deriver;
use crate::openmetrics::parse;
use crate::sample::SourceEvent;
use crate::source::live::{PollerConfig, backoff};
use crate::target::{Derived, Target, TargetSpec, connector, spawn_target};
use crate::verdicts::RecoveryModel;

/// What the tasks send the fleet loop.
#[derive(Debug)]
pub enum Incoming {
    Row(usize, RowUpdate),
    /// A direct server's raw event, for its dashboard.
    Event(usize, SourceEvent),
}

/// The largest agent answer read (a scrape is a few KiB, `/events` up to a few MiB).
const MAX_BODY: usize = 16 << 20;

/// Polls one server directly; returns the task (abort it to stop).
pub fn spawn_direct(
    index: usize,
    opts: ConnectOptions,
    mut cfg: PollerConfig,
    recovery: RecoveryModel,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    cfg.label = opts.label();
    tokio::spawn(async move {
        let Target {
            mut feed,
            commands: _commands,
            poller,
        } = spawn_target(TargetSpec {
            first: None,
            connect: connector(opts),
            cfg,
            deriver: Some(Deriver::with_recovery(recovery)),
            events: 64,
            commands: 1,
        });
        while let Some(Derived { event: ev, figures }) = feed.next().await {
            let row = match (&ev, figures) {
                (SourceEvent::Disconnected { error, .. }, _) => Some(RowUpdate::Down {
                    error: error.clone(),
                }),
                (SourceEvent::Sample(s), Some(f)) => Some(RowUpdate::Figures {
                    figures: Box::new(RowFigures::from_figures(&f, Some(s.poll_ms))),
                    at: f.sampled_at,
                }),
                _ => None,
            };
            if tx.send(Incoming::Event(index, ev)).await.is_err() {
                break;
            }
            if let Some(r) = row
                && tx.send(Incoming::Row(index, r)).await.is_err()
            {
                break;
            }
        }
        poller.abort();
    })
}

/// Reads one server from an agent's scrape URL every `interval`.
pub fn spawn_agent(
    index: usize,
    url: String,
    interval: Duration,
    limit: Duration,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut failures: u32 = 0;
        loop {
            let update = match fetch(&url, limit).await.and_then(|body| {
                parse::parse(&body).map_err(|e| format!("{url}: not innodebt metrics: {e}"))
            }) {
                Ok(scrape) => match scrape.value("innodebt_up") {
                    Some(1.0) => {
                        failures = 0;
                        RowUpdate::Figures {
                            figures: Box::new(RowFigures::from_scrape(&scrape)),
                            at: Utc::now(),
                        }
                    }
                    Some(_) => RowUpdate::Down {
                        error: scrape
                            .all("innodebt_last_error_info")
                            .find_map(|s| s.label("error").map(str::to_string))
                            .unwrap_or_else(|| "the agent cannot poll its server".into()),
                    },
                    None => RowUpdate::Down {
                        error: format!(
                            "{url}: no innodebt_up in the answer: is this innodebt serve?"
                        ),
                    },
                },
                Err(e) => {
                    failures = failures.saturating_add(1);
                    RowUpdate::Down { error: e }
                }
            };
            if tx.send(Incoming::Row(index, update)).await.is_err() {
                return;
            }
            let wait = if failures > 0 {
                backoff(failures - 1).max(interval)
            } else {
                interval
            };
            tokio::time::sleep(wait).await;
        }
    })
}

/// The agent's `/events` URL for the same target as its scrape URL.
pub fn events_url(agent: &str) -> Result<String, String> {
    let (host, port, path) = split_url(agent)?;
    let query = path.split_once('?').map(|(_, q)| q).unwrap_or("");
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host
    };
    Ok(if query.is_empty() {
        format!("http://{host}:{port}/events?")
    } else {
        format!("http://{host}:{port}/events?{query}&")
    })
}

/// While a dashboard of an agent row is open: the agent's raw events (`/events`), so the
/// six panels draw exactly as for a direct server.
pub fn spawn_agent_events(
    index: usize,
    url: String,
    interval: Duration,
    limit: Duration,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut after: u64 = 0;
        let mut failures: u32 = 0;
        let since = Utc::now();
        loop {
            let got = fetch(&format!("{url}after={after}"), limit)
                .await
                .and_then(|body| {
                    serde_json::from_str::<AgentEvents>(&body)
                        .map_err(|e| format!("{url}: not innodebt events: {e}"))
                });
            let events = match got {
                Ok(batch) => {
                    failures = 0;
                    // An agent that restarted numbers from 1 again.
                    after = if batch.next < after { 0 } else { batch.next };
                    batch.events
                }
                Err(error) => {
                    failures = failures.saturating_add(1);
                    let retry = backoff(failures - 1).max(interval);
                    vec![SourceEvent::Disconnected {
                        since,
                        retry_in_ms: u64::try_from(retry.as_millis()).unwrap_or(u64::MAX),
                        error,
                    }]
                }
            };
            for ev in events {
                if tx.send(Incoming::Event(index, ev)).await.is_err() {
                    return;
                }
            }
            let wait = if failures > 0 {
                backoff(failures - 1).max(interval)
            } else {
                interval
            };
            tokio::time::sleep(wait).await;
        }
    })
}

#[derive(serde::Deserialize)]
struct AgentEvents {
    next: u64,
    events: Vec<SourceEvent>,
}

/// `http://host[:port]/path?query` → (host, port, path).
pub fn split_url(url: &str) -> Result<(String, u16, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// agent URLs are supported"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/metrics"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (
            h.trim_start_matches('[').trim_end_matches(']'),
            p.parse::<u16>()
                .map_err(|_| format!("{url}: bad port {p:?}"))?,
        ),
        _ => (authority, 80),
    };
    if host.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok((host.to_string(), port, path.to_string()))
}

/// The agents' HTTP client: hyper's, one for all rows, connections kept alive between
/// polls (an agent is read every interval).
fn client() -> &'static Client<HttpConnector, Empty<Bytes>> {
    static CLIENT: OnceLock<Client<HttpConnector, Empty<Bytes>>> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .pool_max_idle_per_host(2)
            .build(http)
    })
}

/// One GET within `limit` (connect, send, read the whole body, at most 16 MiB).
pub async fn fetch(url: &str, limit: Duration) -> Result<String, String> {
    split_url(url)?;
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: not a URL: {e}"))?;
    let request = hyper::Request::get(uri)
        .header(hyper::header::ACCEPT, "text/plain")
        .header(hyper::header::USER_AGENT, "innodebt-fleet")
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("{url}: {e}"))?;
    let work = async {
        let response = client().request(request).await.map_err(|e| {
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
    if status != hyper::StatusCode::OK {
        let first = text.lines().next().unwrap_or_default();
        return Err(format!("{url}: HTTP {}: {first}", status.as_u16()));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_urls() {
        assert_eq!(
            split_url("http://db1:9385/probe?target=x").unwrap(),
            ("db1".into(), 9385, "/probe?target=x".into())
        );
        assert_eq!(
            split_url("http://db1").unwrap(),
            ("db1".into(), 80, "/metrics".into())
        );
        assert_eq!(
            split_url("http://[::1]:9385/metrics").unwrap(),
            ("::1".into(), 9385, "/metrics".into())
        );
        assert!(split_url("https://db1").is_err());
        assert_eq!(
            events_url("http://db1:9385/probe?target=x").unwrap(),
            "http://db1:9385/events?target=x&"
        );
        assert_eq!(
            events_url("http://[::1]:9385/metrics").unwrap(),
            "http://[::1]:9385/events?"
        );
        assert!(split_url("http://db1:x/").is_err());
    }

    #[test]
    fn a_row_reads_the_same_from_figures_and_from_their_metrics() {
        use crate::figures::{Blocker, Figures};
        use crate::openmetrics::{Exposition, Format};
        let capture = crate::capture::reader::from_bytes(
            include_bytes!("../../demo/mariadb-10.11-blocker.idbt"),
            std::path::Path::new("demo"),
        )
        .expect("demo capture");
        let mut d = Deriver::new();
        let mut last: Option<Figures> = None;
        for ev in &capture.events {
            if let Some(f) = d.push(ev) {
                last = Some(f);
            }
        }
        let mut f = last.expect("figures");
        f.blocker.get_or_insert(Blocker {
            thread_id: Some(42),
            age_s: 300,
            ..Blocker::default()
        });
        f.self_cost = Some(crate::figures::SelfCost {
            statements_per_tick: 3,
            server_ms_per_tick: 1.75,
            server_ms_p95_1m: Some(2.5),
            statements_max_1m: 5,
            measured: "round trips".into(),
            by_statement: Vec::new(),
            slowed: Vec::new(),
        });
        let mut e = Exposition::new();
        e.add_figures(&f, None);
        e.add_own(&crate::openmetrics::Own {
            up: true,
            last_poll_s: Some(0.003),
            ..Default::default()
        });
        let scraped = parse::parse(&e.render(Format::OpenMetrics)).unwrap();
        let direct = RowFigures::from_figures(&f, Some(3));
        let remote = RowFigures::from_scrape(&scraped);
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-6 * a.abs().max(1.0),
            (a, b) => a == b,
        };
        assert_eq!(direct.verdict, remote.verdict);
        assert_eq!(direct.history, remote.history);
        assert_eq!(direct.blocker_age_s, remote.blocker_age_s);
        assert_eq!(direct.blocker_thread, remote.blocker_thread);
        assert_eq!(direct.dml_delay_us, remote.dml_delay_us);
        assert!(close(direct.age_pct_of_async, remote.age_pct_of_async));
        assert!(close(direct.seconds_to_stall, remote.seconds_to_stall));
        assert!(close(direct.history_eta_s, remote.history_eta_s));
        assert!(close(direct.dirty_pct, remote.dirty_pct));
        assert!(close(direct.cost_ms, remote.cost_ms));
        assert_eq!(direct.cost_ms, Some(1.75));
    }
}
