//! `fleet --prometheus URL`: every instance the selector finds in a Prometheus that already
//! scrapes the fleet (mysqld_exporter's series or `innodebt serve`'s), no agent and no database
//! password. Each look is one query for every instance ([`FleetFeed`]); each instance's samples
//! go through its own [`Deriver`], as a direct server's do, so a row says what `innodebt
//! --prometheus URL --instance NAME --once` says. Enter opens that instance's dashboard from the
//! same Prometheus.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};
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
    step: Duration,
    rows: Rows,
}

/// Each instance's row index and judge, and the instances in index order.
struct Rows {
    template: Deriver,
    by_key: BTreeMap<InstanceKey, (usize, Deriver)>,
    keys: Vec<InstanceKey>,
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
            step: origin.step,
            rows: Rows {
                template,
                by_key: BTreeMap::new(),
                keys: Vec::new(),
            },
        })
    }

    pub fn url(&self) -> &str {
        self.feed.url()
    }

    /// Reads the steps up to `to` and judges them: each instance's samples by its own deriver
    /// as they are mapped.
    pub async fn look(&mut self, to: DateTime<Utc>) -> Result<Changes, String> {
        let look = self.feed.look(to).await.map_err(|e| e.to_string())?;
        let mut changes = Changes::default();
        self.judge(look, &mut changes);
        Ok(changes)
    }

    /// One frame's rows: its instances judged, the quiet ones named stale.
    fn judge(&mut self, mut look: FleetLook, changes: &mut Changes) {
        changes.warnings.append(&mut look.warnings);
        let Some(at) = look.at else {
            return;
        };
        let rows = &mut self.rows;
        // Names are made for new rows only: most looks find none.
        let new = look
            .read
            .keys()
            .chain(look.quiet.keys())
            .any(|k| !rows.by_key.contains_key(k));
        let names = match new {
            true => rows.names(look.read.keys().chain(look.quiet.keys())),
            false => BTreeMap::new(),
        };
        let read = std::mem::take(&mut look.read);
        for (key, one) in self.feed.instances(read) {
            let index = rows.index(&key, &names, changes);
            let Some((_, deriver)) = rows.by_key.get_mut(&key) else {
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
            let index = rows.index(&key, &names, changes);
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
    }
}

impl Rows {
    /// The row names: the instance, with its job where two jobs share one instance.
    fn names<'a>(
        &'a self,
        seen: impl Iterator<Item = &'a InstanceKey>,
    ) -> BTreeMap<InstanceKey, String> {
        let all: std::collections::BTreeSet<&InstanceKey> =
            seen.chain(self.by_key.keys()).collect();
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
        if let Some((i, _)) = self.by_key.get(key) {
            return *i;
        }
        let index = self.keys.len();
        self.by_key
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

/// Runs every look on a thread of its own: the first at `first`, whose changes come back
/// (the screen opens on them, and a failure is the exit), then — with `follow` — one per step
/// on the first look's grid, each look's messages sent there. A failed later look makes every
/// row down with Prometheus's answer (they are not known to be healthy), tried again at the
/// next step. Each look decodes and judges the whole fleet at once: on one thread the
/// allocator reuses a look's memory for the next, where spread over the runtime's workers
/// each worker's arena kept a copy and the process grew look by look; and what it freed is
/// given back before the next.
pub fn start(
    mut instances: Instances,
    first: DateTime<Utc>,
    follow: Option<mpsc::Sender<Incoming>>,
) -> oneshot::Receiver<Result<Changes, String>> {
    let (first_tx, first_rx) = oneshot::channel();
    let looks = move || {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                let _ = first_tx.send(Err(format!("cannot start the fleet's looks: {e}")));
                return;
            }
        };
        runtime.block_on(async move {
            let result = instances.look(first).await;
            return_freed_memory();
            let ok = result.is_ok();
            let (Some(tx), true, Ok(())) = (follow, ok, first_tx.send(result)) else {
                return;
            };
            loop {
                // On the steps' grid: a look per step, however long each look takes.
                let due = instances.feed.next_step().unwrap_or_else(Utc::now);
                let wait = (due - Utc::now()).to_std().unwrap_or_default();
                tokio::time::sleep(wait.max(Duration::from_millis(100))).await;
                let looked = instances.look(Utc::now()).await;
                return_freed_memory();
                let msgs = match looked {
                    Ok(changes) => messages(changes),
                    Err(e) => vec![Incoming::Rows(
                        (0..instances.rows.keys.len())
                            .map(|i| {
                                let error = format!("Prometheus did not answer: {e}");
                                (i, RowUpdate::Down { error })
                            })
                            .collect(),
                    )],
                };
                for m in msgs {
                    if tx.send(m).await.is_err() {
                        return;
                    }
                }
            }
        });
    };
    // A thread that cannot start drops the sender: the receiver says so.
    let _ = std::thread::Builder::new()
        .name("fleet looks".into())
        .spawn(looks);
    first_rx
}

/// Gives back to the system the memory a look freed. A look's reply and series are freed
/// when it ends, but glibc keeps freed pages inside its heaps resident, and the next look's
/// peak would stand on them.
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no preconditions; it only returns the allocator's free pages.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A look's changes as the fleet loop's messages: new rows before their updates, each kind
/// in one message (a thousand rows are sorted once, not a thousand times).
pub fn messages(changes: Changes) -> Vec<Incoming> {
    let mut out = Vec::new();
    if !changes.added.is_empty() {
        out.push(Incoming::Added(changes.added));
    }
    if !changes.warnings.is_empty() {
        out.push(Incoming::Notice(format!(
            "Prometheus answered partially: {}",
            changes.warnings.join("; ")
        )));
    }
    if !changes.updates.is_empty() {
        out.push(Incoming::Rows(changes.updates));
    }
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
        let names = instances.rows.names(seen.iter());
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
