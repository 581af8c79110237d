//! Prometheus import: the series a mysqld_exporter (or innodebt `serve`) left in Prometheus
//! for one instance and window become the events a live session would have recorded, so
//! `replay`, `compare` and `--what-if` work on an incident innodebt did not record.
//!
//! `api` speaks the HTTP API; `map` turns series into samples (pure). Here: the selector,
//! the discovery of what the instance has, the chunks under Prometheus's 11,000 points per
//! series, and the header that says how the capture was made and what it lacks.

pub mod api;
pub mod fleet;
pub mod map;
mod split;

use std::time::Duration;

use chrono::{DateTime, Utc};

pub use api::{Auth, Endpoint, Series};

use super::format::Header;
use innodebt_server::sample::{ServerInfo, SourceEvent};

/// Prometheus refuses a query_range of more than 11,000 points per series.
const MAX_POINTS: u64 = 11_000;
/// Steps per query, under the limit with room for the inclusive end.
const CHUNK_STEPS: u64 = 10_000;

/// Why an import could not be made. Each message names the problem and what to do.
#[derive(Debug, thiserror::Error)]
pub enum PromError {
    #[error("{url}: {why}")]
    BadUrl { url: String, why: String },
    #[error("{path}: cannot read {what}: {why}")]
    Credentials {
        path: String,
        what: &'static str,
        why: String,
    },
    #[error("TLS: {0} (the certificate is verified against the web's roots, or --ca-file)")]
    Tls(String),
    #[error(
        "cannot reach Prometheus at {url}: {why} (check the URL, that Prometheus runs, and the network)"
    )]
    Unreachable { url: String, why: String },
    #[error(
        "Prometheus at {url} answered {status}: the credentials are missing or refused; give --basic-auth-file FILE (user:password) or --bearer-token-file FILE"
    )]
    Refused { url: String, status: u16 },
    #[error(
        "Prometheus at {url} rejected the query ({status} {kind}: {error}); check --instance, --job and --match"
    )]
    Rejected {
        url: String,
        status: u16,
        kind: String,
        error: String,
    },
    #[error(
        "{url}{api_path} did not answer as the Prometheus API ({status}: {start}); give the Prometheus server's base URL, e.g. http://prometheus:9090"
    )]
    NotPrometheus {
        url: String,
        api_path: String,
        status: u16,
        start: String,
    },
    #[error(
        "Prometheus at {url} holds no mysqld_exporter or innodebt series for {what}; instances it has: {found}"
    )]
    NoSeries {
        url: String,
        /// The instance, its matchers and the window.
        what: String,
        found: String,
    },
    #[error("instance {instance:?} is scraped by several jobs ({jobs}): choose one with --job")]
    Ambiguous { instance: String, jobs: String },
    #[error("{0}")]
    BadWindow(String),
    #[error(
        "Prometheus at {url} answered more than {limit_mib} MiB to one request; narrow the series with --instance, --job and --match"
    )]
    TooLarge { url: String, limit_mib: usize },
}

/// What to import.
#[derive(Debug, Clone)]
pub struct Request {
    pub url: String,
    /// The `instance` label's value.
    pub instance: String,
    pub job: Option<String>,
    /// More label matchers, in PromQL (`env="prod"`, `cluster=~"eu.*"`).
    pub matchers: Vec<String>,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub step: Duration,
    pub auth: Auth,
    /// The longest one request may take ([`api::REQUEST_TIMEOUT`] for an import).
    pub timeout: Duration,
}

/// `1 s`, `15 s`, `500 ms`: the resolution as the header says it.
pub fn step_words(step: Duration) -> String {
    if step.subsec_millis() == 0 {
        format!("{} s", step.as_secs())
    } else {
        format!("{} ms", step.as_millis())
    }
}

/// A PromQL string literal.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

impl Request {
    fn matchers(&self) -> String {
        let mut m = vec![format!("instance={}", quoted(&self.instance))];
        if let Some(job) = &self.job {
            m.push(format!("job={}", quoted(job)));
        }
        m.extend(self.matchers.iter().cloned());
        m.join(", ")
    }

    /// Every series the import reads, for this instance.
    pub fn selector(&self) -> String {
        format!(
            "{{__name__=~{}, {}}}",
            quoted(&map::wanted_names()),
            self.matchers()
        )
    }
}

fn unix(t: DateTime<Utc>) -> String {
    format!("{:.3}", t.timestamp_millis() as f64 / 1000.0)
}

/// An import under way: the window read a chunk at a time, each chunk's events handed out
/// before the next is asked for, so memory follows the chunk, not the window.
pub struct Import {
    ep: Endpoint,
    url: String,
    req: Request,
    mapper: map::Mapper,
    step_ms: u64,
    span_ms: u64,
    /// Steps per query_range: under Prometheus's limit and [`POINTS_PER_CHUNK`] in all.
    chunk_steps: u64,
    /// Where the next chunk starts (ms after `from`); `None` once the window is read.
    next_ms: Option<u64>,
}

/// Points per query_range reply in all series (~25 bytes each as JSON): a chunk's reply and
/// its samples stay a few MB however long the window (a day at 15 s of mysqld_exporter's
/// ~100 series is a dozen queries).
const POINTS_PER_CHUNK: u64 = 50_000;

impl Import {
    /// Checks the window, finds the instance's series (nothing is an error naming what is
    /// there instead) and plans the chunks. No point is read yet.
    pub async fn open(req: &Request) -> Result<Import, PromError> {
        if req.to <= req.from {
            return Err(PromError::BadWindow(format!(
                "--to {} is not after --from {}: give a window that moves forward",
                req.to.to_rfc3339(),
                req.from.to_rfc3339()
            )));
        }
        if req.step < Duration::from_millis(1) {
            return Err(PromError::BadWindow(
                "--step must be at least 1ms (use your scrape interval, e.g. 15s)".into(),
            ));
        }
        let ep = Endpoint::new(&req.url, &req.auth)?.with_timeout(req.timeout);
        let url = ep.shown().to_string();
        let (start, end) = (unix(req.from), unix(req.to));
        let data = ep
            .get(
                "/api/v1/series",
                &[
                    ("match[]", req.selector()),
                    ("start", start.clone()),
                    ("end", end.clone()),
                ],
            )
            .await?;
        let sets = api::label_sets(&url, data)?;
        if sets.is_empty() {
            let with = match (&req.job, req.matchers.is_empty()) {
                (None, true) => String::new(),
                _ => format!(
                    " with {}",
                    req.matchers().split_once(", ").map_or("", |(_, m)| m)
                ),
            };
            return Err(PromError::NoSeries {
                url: url.clone(),
                what: format!(
                    "instance {:?}{with} between {} and {}",
                    req.instance,
                    req.from.to_rfc3339(),
                    req.to.to_rfc3339()
                ),
                found: instances(&ep, &start, &end).await,
            });
        }
        if req.job.is_none() {
            let jobs: std::collections::BTreeSet<&str> = sets
                .iter()
                .filter_map(|l| l.get("job").map(String::as_str))
                .collect();
            if jobs.len() > 1 {
                return Err(PromError::Ambiguous {
                    instance: req.instance.clone(),
                    jobs: jobs.into_iter().collect::<Vec<_>>().join(", "),
                });
            }
        }
        let step_ms = u64::try_from(req.step.as_millis()).unwrap_or(u64::MAX);
        let span_ms = u64::try_from((req.to - req.from).num_milliseconds()).unwrap_or(0);
        const { assert!(CHUNK_STEPS < MAX_POINTS) };
        let chunk_steps = (POINTS_PER_CHUNK / sets.len().max(1) as u64).clamp(1, CHUNK_STEPS);
        let label = format!("{} via Prometheus", req.instance);
        Ok(Import {
            mapper: map::Mapper::new(&sets, &label),
            ep,
            url,
            req: req.clone(),
            step_ms,
            span_ms,
            chunk_steps,
            next_ms: Some(0),
        })
    }

    /// The next chunk's events, in time order (the server's description first); `None` once
    /// the window is read.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<SourceEvent>>, PromError> {
        let Some(chunk_start) = self.next_ms else {
            return Ok(None);
        };
        let chunk_end = chunk_start
            .saturating_add(self.step_ms.saturating_mul(self.chunk_steps - 1))
            .min(self.span_ms);
        let at = |ms: u64| self.req.from + chrono::Duration::milliseconds(ms as i64);
        let series = self
            .ep
            .query_range(
                &self.req.selector(),
                &unix(at(chunk_start)),
                &unix(at(chunk_end)),
                &format!("{:.3}", self.step_ms as f64 / 1000.0),
            )
            .await?;
        let next = chunk_end.saturating_add(self.step_ms);
        self.next_ms = (next <= self.span_ms && chunk_end < self.span_ms).then_some(next);
        Ok(Some(self.mapper.chunk(&series)))
    }

    /// Moves the window's end on to `to`, for a live feed: the next chunks read the steps
    /// after the last one read, through the same mapper, so rates and the server's
    /// description carry on. Nothing changes when `to` is not past the window's end.
    pub fn follow(&mut self, to: DateTime<Utc>) {
        let Ok(span_ms) = u64::try_from((to - self.req.from).num_milliseconds()) else {
            return;
        };
        if self.next_ms.is_none() {
            // Prometheus evaluated the last chunk at `from + k × step` up to its end: the
            // next point is one step after the last of them, and waits until `to` reaches it.
            let next = (self.span_ms / self.step_ms * self.step_ms).saturating_add(self.step_ms);
            if next > span_ms {
                return;
            }
            self.next_ms = Some(next);
        } else if span_ms <= self.span_ms {
            return;
        }
        self.span_ms = span_ms;
        self.req.to = to;
    }

    /// The server as its series describe it (what the first chunk's `Connected` carries).
    pub fn server(&self) -> ServerInfo {
        self.mapper.info()
    }

    /// The Prometheus URL, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Samples made so far.
    pub fn samples(&self) -> usize {
        self.mapper.samples
    }

    /// The capture's header, once a chunk held points (`started_at`: the first of them).
    pub fn header(&self, started_at: DateTime<Utc>) -> Header {
        let url = &self.url;
        let mut summary = format!(
            "imported from Prometheus at {}: {url}, instance {}; rates re-derived from counters at the step",
            step_words(self.req.step),
            self.req.instance
        );
        if !self.mapper.unknown.is_empty() {
            summary.push_str("; unknown (no series): ");
            summary.push_str(&self.mapper.unknown.join(", "));
        }
        Header {
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at,
            server: Some(self.mapper.info()),
            keep_queries: false,
            interval_ms: Some(self.step_ms),
            origin: format!("prometheus {url} instance {}", self.req.instance),
            notes: vec![summary],
        }
    }

    /// What the window said that only its end knows: the restarts seen in it.
    pub fn closing_note(&self) -> Option<String> {
        (self.mapper.restarts > 0).then(|| {
            format!(
                "the server restarted {} time(s) in the window (Uptime went back)",
                self.mapper.restarts
            )
        })
    }

    /// The error when the window is read and made no sample.
    pub async fn no_samples(&self) -> PromError {
        let (start, end) = (unix(self.req.from), unix(self.req.to));
        PromError::NoSeries {
            url: self.url.clone(),
            what: format!(
                "instance {:?} between {} and {} (its series hold no status or INNODB_METRICS point)",
                self.req.instance,
                self.req.from.to_rfc3339(),
                self.req.to.to_rfc3339()
            ),
            found: instances(&self.ep, &start, &end).await,
        }
    }
}

/// The instances that do have mysqld_exporter or innodebt series in the window, for the
/// "no series" message (best effort: a failure here just says so).
async fn instances(ep: &Endpoint, start: &str, end: &str) -> String {
    let data = ep
        .get(
            "/api/v1/label/instance/values",
            &[
                (
                    "match[]",
                    "{__name__=~\"mysql_up|mysql_version_info|innodebt_up|innodebt_server_info\"}"
                        .to_string(),
                ),
                ("start", start.to_string()),
                ("end", end.to_string()),
            ],
        )
        .await;
    match data.map(serde_json::from_value::<Vec<String>>) {
        Ok(Ok(list)) if list.is_empty() => "none".into(),
        Ok(Ok(list)) => list.join(", "),
        _ => "(could not list them)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An import over `from .. from + span_s` at `step_s`, every chunk read.
    fn read_through(span_s: i64, step_s: u64) -> Import {
        let from = DateTime::<Utc>::from_timestamp(1_000, 0).unwrap();
        let req = Request {
            url: "http://p:9090".into(),
            instance: "db:9104".into(),
            job: None,
            matchers: Vec::new(),
            from,
            to: from + chrono::Duration::seconds(span_s),
            step: Duration::from_secs(step_s),
            auth: Auth::default(),
            timeout: api::REQUEST_TIMEOUT,
        };
        Import {
            ep: Endpoint::new(&req.url, &req.auth).unwrap(),
            url: req.url.clone(),
            mapper: map::Mapper::new(&[], "db"),
            step_ms: step_s * 1000,
            span_ms: u64::try_from(span_s).unwrap() * 1000,
            chunk_steps: 100,
            next_ms: None,
            req,
        }
    }

    #[test]
    fn a_followed_window_goes_on_one_step_after_the_last_point_read() {
        // Read up to +62 s at 15 s: Prometheus evaluated +0, +15, +30, +45, +60.
        let mut i = read_through(62, 15);
        let from = i.req.from;
        // Less than a step on: nothing new to read, the window stays.
        i.follow(from + chrono::Duration::seconds(70));
        assert_eq!((i.next_ms, i.span_ms), (None, 62_000));
        // Past the next point: it is read next, on the same grid.
        i.follow(from + chrono::Duration::seconds(80));
        assert_eq!((i.next_ms, i.span_ms), (Some(75_000), 80_000));
        // While that is unread, the end moves on alone.
        i.follow(from + chrono::Duration::seconds(95));
        assert_eq!((i.next_ms, i.span_ms), (Some(75_000), 95_000));
        // Never backwards.
        i.follow(from + chrono::Duration::seconds(10));
        assert_eq!((i.next_ms, i.span_ms), (Some(75_000), 95_000));
        assert_eq!(i.req.to, from + chrono::Duration::seconds(95));
    }

    #[test]
    fn selector_and_words() {
        let req = Request {
            url: "http://p:9090".into(),
            instance: "db\"1:9104".into(),
            job: Some("mysql".into()),
            matchers: vec!["env=\"prod\"".into()],
            from: DateTime::<Utc>::from_timestamp(0, 0).unwrap_or_default(),
            to: DateTime::<Utc>::from_timestamp(60, 0).unwrap_or_default(),
            step: Duration::from_secs(15),
            auth: Auth::default(),
            timeout: api::REQUEST_TIMEOUT,
        };
        let s = req.selector();
        assert!(
            s.ends_with(r#", instance="db\"1:9104", job="mysql", env="prod"}"#),
            "{s}"
        );
        assert_eq!(step_words(Duration::from_secs(15)), "15 s");
        assert_eq!(step_words(Duration::from_millis(500)), "500 ms");
    }
}
