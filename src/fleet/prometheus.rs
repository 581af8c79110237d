//! `fleet --prometheus URL`: every instance the selector finds in a Prometheus that already
//! scrapes the fleet (mysqld_exporter's series or `innodebt serve`'s), no agent and no database
//! password. Each look is one query for every instance ([`FleetFeed`]); each instance's samples
//! go through its own [`Deriver`], as a direct server's do, so a row says what `innodebt
//! --prometheus URL --instance NAME --once` says. Enter opens that instance's dashboard from the
//! same Prometheus.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::poll::Incoming;
use super::state::{RowUpdate, Server};
use crate::cli::PrometheusSource;
use innodebt_capture::prometheus::fleet::{FleetFeed, FleetLook, FleetRequest, InstanceKey};
use innodebt_capture::prometheus::{Auth, Request};
use innodebt_engine::derive::Deriver;
use innodebt_engine::verdicts::staleness;
use innodebt_server::sample::SourceEvent;

/// Steps the first look reads: what `--once` watches one server for (the verdicts' trend
/// span and two steps of slack), and never fewer than four (two for the rates).
fn first_steps(step: Duration) -> u32 {
    let span = crate::mode::once_watch_limit(step).as_secs_f64();
    let steps = (span / step.as_secs_f64().max(1e-3)).ceil() as u32 + 1;
    steps.max(4)
}

/// Where the instances come from, for the rows and for a dashboard opened on one of them.
#[derive(Debug, Clone)]
pub struct Origin {
    pub url: String,
    pub job: Option<String>,
    pub matchers: Vec<String>,
    pub step: Duration,
    pub auth: Auth,
    pub timeout: Duration,
    /// `--at`: the fleet as it was then, read once.
    pub at: Option<DateTime<Utc>>,
}

impl Origin {
    pub fn from_args(p: &PrometheusSource, timeout: Duration, at: Option<DateTime<Utc>>) -> Self {
        Origin {
            url: p.prometheus.clone().unwrap_or_default(),
            job: p.job.clone(),
            matchers: p.matchers.clone(),
            step: p.step,
            auth: Auth {
                basic_file: p.basic_auth_file.clone(),
                bearer_file: p.bearer_token_file.clone(),
                ca_file: p.ca_file.clone(),
            },
            timeout,
            at,
        }
    }

    fn fleet_request(&self) -> FleetRequest {
        FleetRequest {
            url: self.url.clone(),
            job: self.job.clone(),
            matchers: self.matchers.clone(),
            step: self.step,
            first_steps: first_steps(self.step),
            auth: self.auth.clone(),
            timeout: self.timeout,
        }
    }

    /// One instance's series over the `lookback` before `to`, for its dashboard.
    pub fn instance_request(&self, key: &InstanceKey, to: DateTime<Utc>) -> Request {
        let back = chrono::Duration::from_std(crate::from_prometheus::lookback(self.step))
            .unwrap_or(chrono::Duration::minutes(10));
        Request {
            url: self.url.clone(),
            instance: key.instance.clone(),
            job: Some(key.job.clone()),
            matchers: self.matchers.clone(),
            from: to - back,
            to,
            step: self.step,
            auth: self.auth.clone(),
            timeout: self.timeout,
        }
    }
}

/// The fleet's instances: each one's row and judge.
pub struct Instances {
    feed: FleetFeed,
    template: Deriver,
    step: Duration,
    rows: BTreeMap<InstanceKey, (usize, Deriver)>,
    /// Rows in index order (index → instance).
    pub keys: Vec<InstanceKey>,
}

/// What one look changes: rows to add (in index order) and rows to update.
#[derive(Debug, Default)]
pub struct Changes {
    pub added: Vec<(Server, InstanceKey)>,
    pub updates: Vec<(usize, RowUpdate)>,
    pub warnings: Vec<String>,
}

impl Instances {
    pub fn new(origin: &Origin, template: Deriver) -> Result<Instances, String> {
        Ok(Instances {
            feed: FleetFeed::new(&origin.fleet_request()).map_err(|e| e.to_string())?,
            template,
            step: origin.step,
            rows: BTreeMap::new(),
            keys: Vec::new(),
        })
    }

    pub fn url(&self) -> &str {
        self.feed.url()
    }

    /// Reads the steps up to `to` and judges them.
    pub async fn look(&mut self, to: DateTime<Utc>) -> Result<Changes, String> {
        let look = self.feed.look(to).await.map_err(|e| e.to_string())?;
        Ok(self.apply(look))
    }

    /// The rows a look makes: each instance's events judged by its own deriver.
    fn apply(&mut self, look: FleetLook) -> Changes {
        let mut changes = Changes {
            warnings: look.warnings,
            ..Changes::default()
        };
        let Some(at) = look.at else {
            return changes;
        };
        // Names are made for new rows only: most looks find none.
        let new = look
            .instances
            .keys()
            .chain(look.quiet.keys())
            .any(|k| !self.rows.contains_key(k));
        let names = match new {
            true => self.names(look.instances.keys().chain(look.quiet.keys())),
            false => BTreeMap::new(),
        };
        for (key, one) in look.instances {
            let index = self.index(&key, &names, &mut changes);
            let Some((_, deriver)) = self.rows.get_mut(&key) else {
                continue;
            };
            let mut latest = None;
            for event in &one.events {
                if let Some(f) = deriver.push(event) {
                    latest = Some(f);
                }
            }
            let update = if one.scraped == Some(false) {
                Some(RowUpdate::Down {
                    error: "Prometheus cannot scrape it (up is 0): the exporter does not answer"
                        .into(),
                })
            } else if one.server_up == Some(false) {
                Some(RowUpdate::Down {
                    error: one.error.unwrap_or_else(|| {
                        "its exporter cannot reach the server (mysql_up is 0)".into()
                    }),
                })
            } else {
                latest.map(|f| RowUpdate::Figures {
                    every: staleness::due_every(self.step, Some(&f)),
                    at: f.sampled_at,
                    figures: Box::new(super::row::RowFigures::from_figures(&f, None)),
                })
            };
            if let Some(u) = update {
                changes.updates.push((index, u));
            }
        }
        for (key, last) in look.quiet {
            let index = self.index(&key, &names, &mut changes);
            let ago = (at - last).num_seconds().max(0) as u64;
            changes.updates.push((
                index,
                RowUpdate::Down {
                    error: format!(
                        "stale: no series since {} UTC ({} before this look); its scrape stopped",
                        last.format("%H:%M:%S"),
                        innodebt_engine::units::duration(ago)
                    ),
                },
            ));
        }
        changes
    }

    /// The row names: the instance, with its job where two jobs share one instance.
    fn names<'a>(
        &'a self,
        seen: impl Iterator<Item = &'a InstanceKey>,
    ) -> BTreeMap<InstanceKey, String> {
        let all: std::collections::BTreeSet<&InstanceKey> = seen.chain(self.rows.keys()).collect();
        let mut jobs: BTreeMap<&str, usize> = BTreeMap::new();
        for k in &all {
            *jobs.entry(k.instance.as_str()).or_default() += 1;
        }
        all.into_iter()
            .map(|k| {
                let name = match jobs.get(k.instance.as_str()) {
                    Some(n) if *n > 1 => format!("{} ({})", k.instance, k.job),
                    _ => k.instance.clone(),
                };
                (k.clone(), name)
            })
            .collect()
    }

    /// The row of `key`, made when first seen.
    fn index(
        &mut self,
        key: &InstanceKey,
        names: &BTreeMap<InstanceKey, String>,
        changes: &mut Changes,
    ) -> usize {
        if let Some((i, _)) = self.rows.get(key) {
            return *i;
        }
        let index = self.keys.len();
        self.rows
            .insert(key.clone(), (index, self.template.clone()));
        self.keys.push(key.clone());
        let name = names
            .get(key)
            .cloned()
            .unwrap_or_else(|| key.instance.clone());
        let server = Server::new(&name, &format!("prometheus job={}", key.job), false);
        changes.added.push((server, key.clone()));
        index
    }
}

/// Sends each look's rows, one look per step on the first look's grid. A failed look makes
/// every row down with Prometheus's answer (they are not known to be healthy), tried again at
/// the next step.
pub fn spawn(mut instances: Instances, tx: mpsc::Sender<Incoming>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let step = instances.step;
        loop {
            tokio::time::sleep(step).await;
            let msgs = match instances.look(Utc::now()).await {
                Ok(changes) => messages(changes),
                Err(e) => (0..instances.keys.len())
                    .map(|i| {
                        Incoming::Row(
                            i,
                            RowUpdate::Down {
                                error: format!("Prometheus did not answer: {e}"),
                            },
                        )
                    })
                    .collect(),
            };
            for m in msgs {
                if tx.send(m).await.is_err() {
                    return;
                }
            }
        }
    })
}

/// A look's changes as the fleet loop's messages: new rows before their updates.
pub fn messages(changes: Changes) -> Vec<Incoming> {
    let mut out: Vec<Incoming> = changes
        .added
        .into_iter()
        .map(|(s, k)| Incoming::Added(Box::new(s), k))
        .collect();
    if !changes.warnings.is_empty() {
        out.push(Incoming::Notice(format!(
            "Prometheus answered partially: {}",
            changes.warnings.join("; ")
        )));
    }
    out.extend(
        changes
            .updates
            .into_iter()
            .map(|(i, u)| Incoming::Row(i, u)),
    );
    out
}

/// The dashboard of one instance: its series from the same Prometheus, as
/// `innodebt --prometheus URL --instance NAME` reads them, sent as the row's events.
pub fn spawn_dashboard(
    index: usize,
    origin: Origin,
    key: InstanceKey,
    tx: mpsc::Sender<Incoming>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let to = origin.at.unwrap_or_else(Utc::now);
        let (events_tx, mut events) = mpsc::channel::<SourceEvent>(256);
        let req = origin.instance_request(&key, to);
        let feed = async move {
            match innodebt_capture::prometheus::Import::open(&req).await {
                Ok(import) => {
                    crate::from_prometheus::feed(
                        import,
                        origin.step,
                        origin.at.is_none(),
                        events_tx,
                    )
                    .await
                }
                Err(e) => {
                    let _ = events_tx
                        .send(SourceEvent::Disconnected {
                            since: Utc::now(),
                            retry_in_ms: 0,
                            error: e.to_string(),
                        })
                        .await;
                    events_tx.closed().await;
                }
            }
        };
        let forward = async move {
            while let Some(ev) = events.recv().await {
                if tx.send(Incoming::Event(index, ev)).await.is_err() {
                    return;
                }
            }
        };
        tokio::join!(feed, forward);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(instance: &str, job: &str) -> InstanceKey {
        InstanceKey {
            instance: instance.into(),
            job: job.into(),
        }
    }

    #[test]
    fn one_instance_in_two_jobs_is_two_rows_named_by_job() {
        let origin = Origin {
            url: "http://prometheus:9090".into(),
            job: None,
            matchers: Vec::new(),
            step: Duration::from_secs(15),
            auth: Auth::default(),
            timeout: Duration::from_secs(5),
            at: None,
        };
        let instances = Instances::new(&origin, Deriver::default()).expect("instances");
        let seen = [
            key("db1:9104", "mysql"),
            key("db1:9104", "innodebt"),
            key("db2:9104", "mysql"),
        ];
        let names = instances.names(seen.iter());
        assert_eq!(names[&seen[0]], "db1:9104 (mysql)");
        assert_eq!(names[&seen[1]], "db1:9104 (innodebt)");
        assert_eq!(names[&seen[2]], "db2:9104");
    }

    #[test]
    fn the_first_look_spans_what_once_watches() {
        assert_eq!(first_steps(Duration::from_secs(15)), 4);
        assert_eq!(first_steps(Duration::from_secs(1)), 13);
    }
}
