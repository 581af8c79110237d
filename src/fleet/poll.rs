//! Where the fleet's rows come from: one task per server, each with its own timeout and
//! backoff, so a dead host never stalls the others. A direct server runs the ordinary live
//! poller; an agent row reads a remote `innodebt serve`'s raw events (`/events`) over HTTP —
//! no MySQL connection from this machine. Both are derived here by the same [`Deriver`], so
//! an agent's row and dashboard are what a direct server's would be.

use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::agent::Agent;
use super::row::RowFigures;
use super::state::RowUpdate;
use crate::cli::ConnectOptions;
use crate::target::{Derived, PollerSpec, Target, connector, spawn_target};
use innodebt_engine::derive::Deriver;
use innodebt_engine::verdicts::staleness;
use innodebt_poller::live::{PollerConfig, backoff};
use innodebt_server::sample::{ServerInfo, SourceEvent};

/// What the tasks send the fleet loop.
#[derive(Debug)]
pub enum Incoming {
    Row(usize, RowUpdate),
    /// A look at a whole fleet's rows (Prometheus): sorted once, not once per row.
    Rows(Vec<(usize, RowUpdate)>),
    /// A server's raw event, for its dashboard.
    Event(usize, SourceEvent),
    /// Servers found after the start (Prometheus instances), at the next indices.
    Added(
        Vec<(
            super::state::Server,
            innodebt_capture::prometheus::fleet::InstanceKey,
        )>,
    ),
    /// A word for the whole fleet (Prometheus answered partially).
    Notice(String),
}

impl Incoming {
    /// The fleet's message for it, with the instances of the rows it adds; no message for a
    /// server's raw event (that is its dashboard's).
    pub fn into_msg(
        self,
    ) -> (
        Option<super::state::Msg>,
        Vec<innodebt_capture::prometheus::fleet::InstanceKey>,
    ) {
        use super::state::Msg;
        match self {
            Incoming::Row(index, update) => (Some(Msg::Row { index, update }), Vec::new()),
            Incoming::Rows(updates) => (Some(Msg::Rows(updates)), Vec::new()),
            Incoming::Added(servers) => {
                let (servers, keys) = servers.into_iter().unzip();
                (Some(Msg::Add(servers)), keys)
            }
            Incoming::Notice(n) => (Some(Msg::Notice(n)), Vec::new()),
            Incoming::Event(..) => (None, Vec::new()),
        }
    }
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
        } = spawn_target(PollerSpec {
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

/// Reads one server from an agent: its raw events (`/events`) every `interval`, each read
/// within `limit`, judged by `deriver` here. The row is down with the agent's own error when
/// the agent cannot reach its server, and with the HTTP error when the agent does not answer.
pub fn spawn_agent(
    index: usize,
    agent: Agent,
    deriver: Deriver,
    interval: Duration,
    limit: Duration,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    let agent = agent.with_timeout(limit);
    tokio::spawn(async move {
        let mut rows = AgentRows::new(deriver, interval);
        let mut after: u64 = 0;
        let mut failures: u32 = 0;
        let mut down_since: Option<DateTime<Utc>> = None;
        loop {
            let (events, row) = match agent.events(after).await {
                Ok(batch) if batch.next < after => {
                    // The agent restarted and numbers from 1 again: read it from its start.
                    after = 0;
                    continue;
                }
                Ok(batch) => {
                    failures = 0;
                    down_since = None;
                    after = batch.next;
                    let row = rows.read(&batch.events, Utc::now());
                    (batch.events, row)
                }
                Err(error) => {
                    failures = failures.saturating_add(1);
                    let retry = backoff(failures - 1).max(interval);
                    // For an open dashboard: the link to this server is down.
                    let down = SourceEvent::Disconnected {
                        since: *down_since.get_or_insert_with(Utc::now),
                        retry_in_ms: u64::try_from(retry.as_millis()).unwrap_or(u64::MAX),
                        error: error.clone(),
                    };
                    (vec![down], Some(RowUpdate::Down { error }))
                }
            };
            for ev in events {
                if tx.send(Incoming::Event(index, ev)).await.is_err() {
                    return;
                }
            }
            if let Some(r) = row
                && tx.send(Incoming::Row(index, r)).await.is_err()
            {
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

/// An agent row from the agent's events: derived as a direct server's, and as fresh as the
/// fleet's receipt of the newest sample (the agent's clock is not this machine's).
struct AgentRows {
    deriver: Deriver,
    interval: Duration,
}

impl AgentRows {
    fn new(deriver: Deriver, interval: Duration) -> AgentRows {
        AgentRows { deriver, interval }
    }

    /// The row after `events`, received at `now`; `None` when they change nothing a row shows.
    fn read(&mut self, events: &[SourceEvent], now: DateTime<Utc>) -> Option<RowUpdate> {
        let mut row = None;
        for ev in events {
            let figures = self.deriver.push(ev);
            match (ev, figures) {
                (SourceEvent::Disconnected { error, .. }, _) => {
                    row = Some(RowUpdate::Down {
                        error: error.clone(),
                    });
                }
                (SourceEvent::Sample(s), Some(f)) => {
                    // Due as often as the agent samples (its own interval, or the latency
                    // guard's stretch), but never more often than the fleet asks.
                    let agent_every = f
                        .interval_s
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .map_or(self.interval, Duration::from_secs_f64);
                    row = Some(RowUpdate::Figures {
                        figures: Box::new(RowFigures::from_figures(&f, Some(s.poll_ms))),
                        at: now,
                        every: staleness::due_every(agent_every, Some(&f)).max(self.interval),
                    });
                }
                (SourceEvent::Sample(_), None) if self.deriver.info().is_none() => {
                    row = Some(RowUpdate::Down {
                        error: "the agent's events do not say which server they are from \
                                (an innodebt serve older than this fleet): upgrade the agent"
                            .into(),
                    });
                }
                _ => {}
            }
        }
        row
    }
}

/// A server's latest raw events, for its dashboard when Enter opens it: the newest
/// [`Recent::KEPT`], and the server they are from (its latest connection, every variable
/// change since folded in), which the dashboard's deriver needs before any sample.
#[derive(Debug, Default)]
pub struct Recent {
    events: VecDeque<SourceEvent>,
    server: Option<ServerInfo>,
    connected_at: Option<DateTime<Utc>>,
}

impl Recent {
    /// Events kept per server: a little history for the charts.
    pub const KEPT: usize = 180;

    pub fn push(&mut self, ev: SourceEvent) {
        ev.describe(&mut self.server);
        if let SourceEvent::Connected { at, .. } = &ev {
            self.connected_at = Some(*at);
        }
        if self.events.len() >= Self::KEPT {
            self.events.pop_front();
        }
        self.events.push_back(ev);
    }

    /// What a dashboard opened now replays: the server first, then the kept events.
    pub fn replay(&self) -> impl Iterator<Item = SourceEvent> + '_ {
        let connected = self
            .server
            .clone()
            .zip(self.connected_at)
            .map(|(info, at)| SourceEvent::Connected { at, info });
        connected.into_iter().chain(self.events.iter().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use innodebt_server::sample::Sample;

    fn sample(t: i64, history: u64) -> SourceEvent {
        let t0 = DateTime::from_timestamp(1_800_000_000, 0).expect("a time");
        let mut s = Sample::new(t0 + chrono::Duration::seconds(t), t as f64);
        s.status
            .insert("Innodb_history_list_length".into(), history);
        s.status.insert("Uptime".into(), 1000 + t as u64);
        SourceEvent::Sample(Box::new(s))
    }

    fn connected() -> SourceEvent {
        SourceEvent::Connected {
            at: DateTime::from_timestamp(1_800_000_000, 0).expect("a time"),
            info: ServerInfo::mariadb_10_11(&[]),
        }
    }

    /// An agent's events make the row a direct server's events would (the same deriver),
    /// fresh as of their receipt, due as often as the agent samples.
    #[test]
    fn an_agent_row_is_the_direct_row_of_the_same_events() {
        let events = vec![connected(), sample(0, 10), sample(5, 20), sample(10, 30)];
        let mut direct = Deriver::new();
        let last = events.iter().filter_map(|e| direct.push(e)).last();
        let last = last.expect("figures");
        let now = Utc::now();
        let interval = Duration::from_secs(1);
        let row = AgentRows::new(Deriver::new(), interval).read(&events, now);
        assert_eq!(
            row,
            Some(RowUpdate::Figures {
                figures: Box::new(RowFigures::from_figures(&last, Some(0))),
                at: now,
                every: Duration::from_secs(5),
            })
        );
        // The agent's server went away: down with the agent's words; back: up again.
        let mut rows = AgentRows::new(Deriver::new(), interval);
        rows.read(&events, now);
        let gone = SourceEvent::Disconnected {
            since: now,
            retry_in_ms: 1000,
            error: "Can't connect to server on 'db1' (111)".into(),
        };
        assert_eq!(
            rows.read(&[sample(15, 40), gone], now),
            Some(RowUpdate::Down {
                error: "Can't connect to server on 'db1' (111)".into()
            })
        );
        assert!(matches!(
            rows.read(&[connected(), sample(20, 50)], now),
            Some(RowUpdate::Figures { .. })
        ));
        assert_eq!(rows.read(&[], now), None);
        // Samples of a server never described: said, not a row waiting for ever.
        let row = AgentRows::new(Deriver::new(), interval).read(&[sample(0, 1)], now);
        assert!(
            matches!(&row, Some(RowUpdate::Down { error }) if error.contains("upgrade")),
            "{row:?}"
        );
    }

    /// A dashboard opened late still knows the server: its connection comes first, with the
    /// variable changes since, though the ring no longer holds it.
    #[test]
    fn a_dashboard_opened_late_knows_the_server() {
        let mut recent = Recent::default();
        recent.push(connected());
        recent.push(SourceEvent::Variables {
            at: Utc::now(),
            variables: [("innodb_max_purge_lag".to_string(), "5000".to_string())].into(),
        });
        for t in 0..Recent::KEPT + 5 {
            recent.push(sample(t as i64, 1));
        }
        let replay: Vec<SourceEvent> = recent.replay().collect();
        assert_eq!(replay.len(), Recent::KEPT + 1);
        match &replay[0] {
            SourceEvent::Connected { info, .. } => {
                assert_eq!(info.var("innodb_max_purge_lag"), Some("5000"));
            }
            other => panic!("{other:?}"),
        }
        let mut d = Deriver::new();
        assert!(replay.iter().filter_map(|e| d.push(e)).last().is_some());
    }
}
