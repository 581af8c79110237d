//! Where the fleet's rows come from: one task per server, each with its own timeout and
//! backoff, so a dead host never stalls the others. A direct server runs the ordinary live
//! poller and derivation; an agent row reads a remote `innodebt serve`'s `/metrics` (or
//! `/probe?target=`) over HTTP — no MySQL connection from this machine.

use std::time::Duration;

use chrono::Utc;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::agent::Agent;
use super::row::RowFigures;
use super::state::RowUpdate;
use crate::cli::ConnectOptions;
use crate::openmetrics::parse;
use crate::target::{Derived, Target, TargetSpec, connector, spawn_target};
use innodebt_engine::derive::Deriver;
use innodebt_poller::live::{PollerConfig, backoff};
use innodebt_server::sample::SourceEvent;

/// What the tasks send the fleet loop.
#[derive(Debug)]
pub enum Incoming {
    Row(usize, RowUpdate),
    /// A direct server's raw event, for its dashboard.
    Event(usize, SourceEvent),
    /// A server found after the start (a Prometheus instance), the next index.
    Added(
        Box<super::state::Server>,
        innodebt_capture::prometheus::fleet::InstanceKey,
    ),
    /// A word for the whole fleet (Prometheus answered partially).
    Notice(String),
}

/// Polls one server directly; returns the task (abort it to stop). `deriver` judges its
/// samples (one-shot for `fleet --once`, as `--once` judges).
pub fn spawn_direct(
    index: usize,
    opts: ConnectOptions,
    mut cfg: PollerConfig,
    deriver: Deriver,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    cfg.label = opts.label();
    let interval = cfg.interval;
    tokio::spawn(async move {
        let Target {
            mut feed,
            commands: _commands,
            poller,
        } = spawn_target(TargetSpec {
            first: None,
            connect: connector(opts),
            cfg,
            deriver: Some(deriver),
            events: 64,
            commands: 1,
            start_after: Duration::ZERO,
        });
        while let Some(Derived { event: ev, figures }) = feed.next().await {
            let row = match (&ev, figures) {
                (SourceEvent::Disconnected { error, .. }, _) => Some(RowUpdate::Down {
                    error: error.clone(),
                }),
                (SourceEvent::Sample(s), Some(f)) => {
                    Some(RowUpdate::figures(&f, interval, Some(s.poll_ms)))
                }
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
    agent: Agent,
    interval: Duration,
    limit: Duration,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let url = agent.url.clone();
        let mut failures: u32 = 0;
        loop {
            let update = match agent.fetch(&url, limit).await.and_then(|body| {
                parse::parse(&body).map_err(|e| format!("{url}: not innodebt metrics: {e}"))
            }) {
                Ok(scrape) => match scrape.value("innodebt_up") {
                    Some(1.0) => {
                        failures = 0;
                        RowUpdate::Figures {
                            figures: Box::new(RowFigures::from_scrape(&scrape)),
                            at: Utc::now(),
                            // The agent judged its own sample's age; this row's is the scrape's.
                            every: interval,
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

/// While a dashboard of an agent row is open: the agent's raw events (`/events`), so the
/// six panels draw exactly as for a direct server.
pub fn spawn_agent_events(
    index: usize,
    agent: Agent,
    interval: Duration,
    limit: Duration,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut after: u64 = 0;
        let mut failures: u32 = 0;
        let since = Utc::now();
        let url = agent.url.clone();
        loop {
            let got = agent
                .fetch(&format!("{url}after={after}"), limit)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_the_same_from_figures_and_from_their_metrics() {
        use crate::openmetrics::{Exposition, Format};
        use innodebt_engine::figures::{Blocker, Figures};
        let capture = innodebt_capture::reader::from_bytes(
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
        f.self_cost = Some(innodebt_engine::figures::SelfCost {
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
