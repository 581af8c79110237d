//! Every instance a selector finds, read together: each look is one query_range for all
//! instances' series (the import's names, with `up` and the exporters' own up), split by
//! instance and turned into samples by that instance's own [`Mapper`] — the mapping a one-server
//! import uses — so the queries per look do not grow with the fleet. An inventory query (every
//! few minutes) finds the instances whose series stopped, with the time of their last point,
//! so a server that went quiet is listed as stale, not dropped.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::api::{Endpoint, RangeReply, Series};
use super::{Auth, PromError, map, quoted, unix};
use innodebt_server::sample::SourceEvent;

/// How far back the inventory looks for instances that stopped reporting.
pub const INVENTORY_SPAN: Duration = Duration::from_secs(3600);
/// Looks between two inventories (at 15 s, every 5 minutes).
const INVENTORY_EVERY: u32 = 20;

/// Which instances to read, and how.
#[derive(Debug, Clone)]
pub struct FleetRequest {
    pub url: String,
    pub job: Option<String>,
    /// More label matchers, in PromQL (`env="prod"`, `cluster=~"eu.*"`).
    pub matchers: Vec<String>,
    /// The series' scrape interval: one sample per step.
    pub step: Duration,
    /// Steps the first look reads (the rates need two samples; the verdicts a few more).
    pub first_steps: u32,
    pub auth: Auth,
    /// The longest one request may take.
    pub timeout: Duration,
}

impl FleetRequest {
    fn matchers(&self) -> Vec<String> {
        let mut m = Vec::new();
        if let Some(job) = &self.job {
            m.push(format!("job={}", quoted(job)));
        }
        m.extend(self.matchers.iter().cloned());
        m
    }

    /// Every series a look reads: the import's, each target's `up`, the exporters' own up and
    /// serve's last error (its words for a row that is down).
    pub fn selector(&self) -> String {
        let mut m = vec![format!(
            "__name__=~{}",
            quoted(&format!("{}|{UP_NAMES}", map::wanted_names()))
        )];
        m.extend(self.matchers());
        format!("{{{}}}", m.join(", "))
    }

    /// The inventory: per instance and job, the time of its last point within the span.
    fn inventory_query(&self) -> String {
        let mut m = vec![format!("__name__=~{}", quoted(SERVER_UP))];
        m.extend(self.matchers());
        format!(
            "max by (instance, job) (max_over_time(timestamp({{{}}})[{}s:{}s]))",
            m.join(", "),
            INVENTORY_SPAN.as_secs(),
            self.step.as_secs().max(1)
        )
    }
}

/// The exporters' "I can reach my server" series: one per instance, whatever else it exports.
const SERVER_UP: &str = "mysql_up|innodebt_up";
const UP_NAMES: &str = "up|mysql_up|innodebt_up|innodebt_last_error_info";

/// One instance, as Prometheus labels it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceKey {
    pub instance: String,
    pub job: String,
}

/// What one look said of one instance.
#[derive(Debug, Clone, Default)]
pub struct InstanceLook {
    /// Its new events (the server's description first, the first time).
    pub events: Vec<SourceEvent>,
    /// Prometheus's `up` at the newest step it had: `false` when the scrape fails.
    pub scraped: Option<bool>,
    /// The exporter's `mysql_up` / serve's `innodebt_up` there: `false` when the exporter
    /// cannot reach its server.
    pub server_up: Option<bool>,
    /// serve's last error, when it has one.
    pub error: Option<String>,
    /// The newest point of its series, within the span read.
    pub last_point: Option<DateTime<Utc>>,
}

/// One look at the fleet.
#[derive(Debug, Clone, Default)]
pub struct FleetLook {
    /// The moment the look reached.
    pub at: Option<DateTime<Utc>>,
    pub instances: BTreeMap<InstanceKey, InstanceLook>,
    /// Instances the inventory knows whose series stopped, with their last point.
    pub quiet: BTreeMap<InstanceKey, DateTime<Utc>>,
    /// What Prometheus warned of (a partial answer).
    pub warnings: Vec<String>,
    /// Queries this look sent.
    pub queries: u32,
}

/// The fleet under way: each instance's mapper, and where the last look ended.
pub struct FleetFeed {
    ep: Endpoint,
    url: String,
    req: FleetRequest,
    step_ms: i64,
    mappers: BTreeMap<InstanceKey, map::Mapper>,
    /// The last step read (ms since the epoch).
    read_ms: Option<i64>,
    looks: u32,
}

impl FleetFeed {
    pub fn new(req: &FleetRequest) -> Result<FleetFeed, PromError> {
        if req.step < Duration::from_secs(1) {
            return Err(PromError::BadWindow(
                "--step must be at least 1s for the fleet (use your scrape interval, e.g. 15s)"
                    .into(),
            ));
        }
        let ep = Endpoint::new(&req.url, &req.auth)?.with_timeout(req.timeout);
        Ok(FleetFeed {
            url: ep.shown().to_string(),
            ep,
            req: req.clone(),
            step_ms: i64::try_from(req.step.as_millis()).unwrap_or(i64::MAX),
            mappers: BTreeMap::new(),
            read_ms: None,
            looks: 0,
        })
    }

    /// The Prometheus URL, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Reads the steps after the last one read, up to `to` (the first look: `first_steps` of
    /// them). A look with no new step reads nothing and says so with an empty `at`.
    pub async fn look(&mut self, to: DateTime<Utc>) -> Result<FleetLook, PromError> {
        let to_ms = to.timestamp_millis();
        let from_ms = match self.read_ms {
            Some(read) => read + self.step_ms,
            None => to_ms - self.step_ms * i64::from(self.req.first_steps.max(2) - 1),
        };
        let mut look = FleetLook::default();
        if from_ms > to_ms {
            return Ok(look);
        }
        // On the grid of the first look, so that every look's steps line up.
        let steps = (to_ms - from_ms) / self.step_ms;
        let end_ms = from_ms + steps * self.step_ms;
        let at = |ms: i64| DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default();
        let RangeReply { series, warnings } = self
            .ep
            .query_range_reply(
                &self.req.selector(),
                &unix(at(from_ms)),
                &unix(at(end_ms)),
                &format!("{:.3}", self.step_ms as f64 / 1000.0),
            )
            .await?;
        look.queries += 1;
        look.warnings = warnings;
        if self.looks.is_multiple_of(INVENTORY_EVERY) {
            look.quiet = self.inventory(at(end_ms)).await?;
            look.queries += 1;
        }
        self.looks += 1;
        self.read_ms = Some(end_ms);
        look.at = Some(at(end_ms));
        let mut by_instance: BTreeMap<InstanceKey, Vec<Series>> = BTreeMap::new();
        for s in series {
            let key = InstanceKey {
                instance: s.metric.get("instance").cloned().unwrap_or_default(),
                job: s.metric.get("job").cloned().unwrap_or_default(),
            };
            by_instance.entry(key).or_default().push(s);
        }
        // Only jobs that carry a MySQL exporter's or serve's series are the fleet's: a broad
        // selector's `up` of other exporters on the same hosts is not a server.
        let jobs: std::collections::BTreeSet<String> = by_instance
            .iter()
            .filter(|(_, series)| series.iter().any(|s| !is_up(s)))
            .map(|(k, _)| k.job.clone())
            .chain(self.mappers.keys().map(|k| k.job.clone()))
            .chain(look.quiet.keys().map(|k| k.job.clone()))
            .collect();
        for (key, series) in by_instance {
            if !jobs.contains(&key.job) {
                continue;
            }
            let mut one = InstanceLook::default();
            let newest = |name: &str| {
                series
                    .iter()
                    .filter(|s| s.metric.get("__name__").is_some_and(|n| n == name))
                    .filter_map(|s| s.values.last().copied())
                    .max_by(|a, b| a.0.total_cmp(&b.0))
            };
            one.scraped = newest("up").map(|(_, v)| v >= 1.0);
            one.server_up = newest("mysql_up")
                .or_else(|| newest("innodebt_up"))
                .map(|(_, v)| v >= 1.0);
            one.error = series
                .iter()
                .filter(|s| {
                    s.metric
                        .get("__name__")
                        .is_some_and(|n| n == "innodebt_last_error_info")
                })
                .filter_map(|s| s.metric.get("error").filter(|e| !e.is_empty()).cloned())
                .next();
            one.last_point = series
                .iter()
                .filter(|s| !is_up(s))
                .filter_map(|s| s.values.last().map(|p| p.0))
                .max_by(f64::total_cmp)
                .and_then(|t| DateTime::<Utc>::from_timestamp_millis((t * 1000.0) as i64));
            let data: Vec<Series> = series.into_iter().filter(|s| !is_up(s)).collect();
            if !data.is_empty() {
                let mapper = self.mappers.entry(key.clone()).or_insert_with(|| {
                    let present: Vec<BTreeMap<String, String>> =
                        data.iter().map(|s| s.metric.clone()).collect();
                    map::Mapper::new(&present, &format!("{} via Prometheus", key.instance))
                });
                one.events = mapper.chunk(&data);
            }
            look.quiet.remove(&key);
            look.instances.insert(key, one);
        }
        // An instance the inventory knows and this look does not hold stopped reporting.
        look.quiet.retain(|k, _| !look.instances.contains_key(k));
        Ok(look)
    }

    /// Instances with an exporter's up series in the span before `at`, with their last point.
    async fn inventory(
        &self,
        at: DateTime<Utc>,
    ) -> Result<BTreeMap<InstanceKey, DateTime<Utc>>, PromError> {
        let data = self
            .ep
            .get(
                "/api/v1/query",
                &[("query", self.req.inventory_query()), ("time", unix(at))],
            )
            .await?;
        Ok(instant_times(&data))
    }
}

/// `up`, `mysql_up`, `innodebt_up` and serve's error: about the scrape, not the server's figures.
fn is_up(s: &Series) -> bool {
    s.metric
        .get("__name__")
        .is_some_and(|n| UP_NAMES.split('|').any(|u| u == n))
}

/// An instant `vector` reply of (instance, job) → a unix time, as times.
fn instant_times(data: &serde_json::Value) -> BTreeMap<InstanceKey, DateTime<Utc>> {
    let mut out = BTreeMap::new();
    let Some(result) = data.get("result").and_then(|r| r.as_array()) else {
        return out;
    };
    for r in result {
        let label = |k: &str| {
            r.pointer(&format!("/metric/{k}"))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let value = r
            .pointer("/value/1")
            .and_then(|v| v.as_str())
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite());
        if let Some(t) =
            value.and_then(|t| DateTime::<Utc>::from_timestamp_millis((t * 1000.0) as i64))
        {
            out.insert(
                InstanceKey {
                    instance: label("instance"),
                    job: label("job"),
                },
                t,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> FleetRequest {
        FleetRequest {
            url: "http://p:9090".into(),
            job: Some("mysql".into()),
            matchers: vec!["env=\"prod\"".into()],
            step: Duration::from_secs(15),
            first_steps: 4,
            auth: Auth::default(),
            timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn one_selector_for_every_instance() {
        let s = req().selector();
        assert!(s.starts_with("{__name__=~\"mysql_global_status_("), "{s}");
        assert!(
            s.ends_with(
                "|up|mysql_up|innodebt_up|innodebt_last_error_info\", job=\"mysql\", env=\"prod\"}"
            ),
            "{s}"
        );
        assert!(!s.contains("instance="), "{s}");
        let q = req().inventory_query();
        assert_eq!(
            q,
            "max by (instance, job) (max_over_time(timestamp({__name__=~\"mysql_up|innodebt_up\", \
             job=\"mysql\", env=\"prod\"})[3600s:15s]))"
        );
    }

    #[test]
    fn inventory_reply() {
        let data: serde_json::Value = serde_json::from_str(
            r#"{"resultType":"vector","result":[
                {"metric":{"instance":"db1:9104","job":"mysql"},"value":[1700000100,"1700000055.5"]},
                {"metric":{"instance":"db2:9104","job":"mysql"},"value":[1700000100,"NaN"]}]}"#,
        )
        .unwrap();
        let t = instant_times(&data);
        assert_eq!(t.len(), 1);
        let k = InstanceKey {
            instance: "db1:9104".into(),
            job: "mysql".into(),
        };
        assert_eq!(t[&k].timestamp_millis(), 1_700_000_055_500);
    }
}
