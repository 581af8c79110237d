//! Every instance a selector finds, read together: each look is one query_range for all
//! instances' series (the import's names, with `up` and the exporters' own up), split by
//! instance and turned into samples by that instance's own [`Mapper`] — the mapping a one-server
//! import uses — so the queries per look do not grow with the fleet. An inventory query (every
//! few minutes) finds the instances whose series stopped, with the time of their last point,
//! so a server that went quiet is listed as stale, not dropped.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::api::{Endpoint, Series};
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
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
#[derive(Default)]
pub struct FleetLook {
    /// The moment the look reached.
    pub at: Option<DateTime<Utc>>,
    /// Instances the inventory knows whose series stopped, with their last point.
    pub quiet: BTreeMap<InstanceKey, DateTime<Utc>>,
    /// What Prometheus warned of (a partial answer).
    pub warnings: Vec<String>,
    /// Queries this look sent.
    pub queries: u32,
    /// Each instance's series as read, in key order; [`FleetFeed::instances`] maps them one
    /// at a time, so a thousand instances' samples are never held at once.
    pub read: ReadSeries,
}

/// Each instance's series a look read, not yet mapped into samples.
#[derive(Default)]
pub struct ReadSeries(Vec<(InstanceKey, Vec<Lean>)>);

impl ReadSeries {
    /// The instances read.
    pub fn keys(&self) -> impl Iterator<Item = &InstanceKey> {
        self.0.iter().map(|(k, _)| k)
    }
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

    /// When the next step is due: the step after the last one read (`None` before the first
    /// look).
    pub fn next_step(&self) -> Option<DateTime<Utc>> {
        self.read_ms
            .and_then(|ms| DateTime::<Utc>::from_timestamp_millis(ms + self.step_ms))
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
        if self.looks.is_multiple_of(INVENTORY_EVERY) {
            look.quiet = self.inventory(at(end_ms)).await?;
            look.queries += 1;
        }
        // Each series goes to its instance as it is decoded, kept without its map of labels.
        let mut by_instance: HashMap<InstanceKey, Vec<Lean>> = HashMap::new();
        look.warnings = self
            .ep
            .query_range_each(
                &self.req.selector(),
                &unix(at(from_ms)),
                &unix(at(end_ms)),
                &format!("{:.3}", self.step_ms as f64 / 1000.0),
                &mut |Keyed(key, lean): Keyed| by_instance.entry(key).or_default().push(lean),
            )
            .await?;
        look.queries += 1;
        self.looks += 1;
        self.read_ms = Some(end_ms);
        look.at = Some(at(end_ms));
        // Only jobs that carry a MySQL exporter's or serve's series are the fleet's: a broad
        // selector's `up` of other exporters on the same hosts is not a server.
        let jobs: std::collections::BTreeSet<String> = by_instance
            .iter()
            .filter(|(_, series)| series.iter().any(|s| !s.is_up()))
            .map(|(k, _)| k.job.clone())
            .chain(self.mappers.keys().map(|k| k.job.clone()))
            .chain(look.quiet.keys().map(|k| k.job.clone()))
            .collect();
        let mut read: Vec<(InstanceKey, Vec<Lean>)> = by_instance
            .into_iter()
            .filter(|(key, _)| jobs.contains(&key.job))
            .collect();
        read.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        look.read = ReadSeries(read);
        // An instance the inventory knows and this look does not hold stopped reporting.
        let read: std::collections::BTreeSet<&InstanceKey> = look.read.keys().collect();
        look.quiet.retain(|k, _| !read.contains(k));
        Ok(look)
    }

    /// Each instance a look read, mapped into its events by its own mapper as the iteration
    /// reaches it (the instance's series are dropped as it goes).
    pub fn instances(
        &mut self,
        read: ReadSeries,
    ) -> impl Iterator<Item = (InstanceKey, InstanceLook)> + '_ {
        read.0.into_iter().map(|(key, series)| {
            let one = self.map_instance(&key, series);
            (key, one)
        })
    }

    fn map_instance(&mut self, key: &InstanceKey, series: Vec<Lean>) -> InstanceLook {
        let mut one = InstanceLook::default();
        let newest = |name: &str| {
            series
                .iter()
                .filter(|s| s.name == name)
                .filter_map(|s| s.values.last().copied())
                .max_by(|a, b| a.0.total_cmp(&b.0))
        };
        one.scraped = newest("up").map(|(_, v)| v >= 1.0);
        one.server_up = newest("mysql_up")
            .or_else(|| newest("innodebt_up"))
            .map(|(_, v)| v >= 1.0);
        one.error = series
            .iter()
            .filter(|s| s.name == "innodebt_last_error_info")
            .filter_map(|s| s.label("error").filter(|e| !e.is_empty()))
            .map(str::to_string)
            .next();
        one.last_point = series
            .iter()
            .filter(|s| !s.is_up())
            .filter_map(|s| s.values.last().map(|p| p.0))
            .max_by(f64::total_cmp)
            .and_then(|t| DateTime::<Utc>::from_timestamp_millis((t * 1000.0) as i64));
        // The mapper reads series with their labels: this instance's only, made here.
        let data: Vec<Series> = series
            .into_iter()
            .filter(|s| !s.is_up())
            .map(|s| s.series(key))
            .collect();
        if !data.is_empty() {
            let mapper = self.mappers.entry(key.clone()).or_insert_with(|| {
                let present: Vec<BTreeMap<String, String>> =
                    data.iter().map(|s| s.metric.clone()).collect();
                map::Mapper::new(&present, &format!("{} via Prometheus", key.instance))
            });
            one.events = mapper.chunk(&data);
        }
        one
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

/// One series of a look, without the labels its instance is keyed by: a thousand instances'
/// series are held until each instance is mapped, and a map of labels per series would be
/// most of a look's memory.
#[derive(Debug, PartialEq)]
struct Lean {
    name: String,
    /// The labels besides `__name__`, `instance` and `job` (`state="data"`, `error="…"`).
    labels: Vec<(String, String)>,
    values: Vec<(f64, f64)>,
}

/// A series of a look as decoded from the reply: its instance apart, no map of labels made.
#[derive(Debug, PartialEq)]
struct Keyed(InstanceKey, Lean);

impl From<Series> for Keyed {
    fn from(s: Series) -> Keyed {
        let mut metric = s.metric;
        let key = InstanceKey {
            instance: metric.remove("instance").unwrap_or_default(),
            job: metric.remove("job").unwrap_or_default(),
        };
        let lean = Lean {
            name: metric.remove("__name__").unwrap_or_default(),
            labels: metric.into_iter().collect(),
            values: s.values,
        };
        Keyed(key, lean)
    }
}

impl<'de> serde::Deserialize<'de> for Keyed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Keyed, D::Error> {
        #[derive(serde::Deserialize)]
        struct Raw {
            metric: Metric,
            #[serde(default, deserialize_with = "super::api::points")]
            values: Vec<(f64, f64)>,
        }
        let Raw { metric, values } = Raw::deserialize(d)?;
        Ok(Keyed(
            metric.key,
            Lean {
                name: metric.name,
                labels: metric.labels,
                values,
            },
        ))
    }
}

/// A series' `metric` object: `__name__`, `instance` and `job` taken out as they are read.
#[derive(Default)]
struct Metric {
    key: InstanceKey,
    name: String,
    labels: Vec<(String, String)>,
}

impl<'de> serde::Deserialize<'de> for Metric {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Metric, D::Error> {
        struct Labels;
        impl<'de> serde::de::Visitor<'de> for Labels {
            type Value = Metric;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a series' labels")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Metric, A::Error> {
                let mut m = Metric::default();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    match k.as_str() {
                        "__name__" => m.name = v,
                        "instance" => m.key.instance = v,
                        "job" => m.key.job = v,
                        _ => m.labels.push((k, v)),
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(Labels)
    }
}

impl Lean {
    fn label(&self, k: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.as_str())
    }

    /// `up`, `mysql_up`, `innodebt_up` and serve's error: about the scrape, not the server's
    /// figures.
    fn is_up(&self) -> bool {
        UP_NAMES.split('|').any(|u| u == self.name)
    }

    /// The series as Prometheus gave it, labels and all.
    fn series(self, key: &InstanceKey) -> Series {
        let mut metric: BTreeMap<String, String> = self.labels.into_iter().collect();
        metric.insert("__name__".into(), self.name);
        metric.insert("instance".into(), key.instance.clone());
        metric.insert("job".into(), key.job.clone());
        Series {
            metric,
            values: self.values,
        }
    }
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
    fn a_series_read_lean_is_the_series() {
        let json = r#"{"metric":{"__name__":"mysql_global_status_buffer_pool_pages",
            "instance":"db1:9104","job":"mysql","state":"data"},
            "values":[[1700000000,"12"],[1700000015,"NaN"],[1700000030,"13"]]}"#;
        let series: Series = serde_json::from_str(json).unwrap();
        let keyed: Keyed = serde_json::from_str(json).unwrap();
        assert_eq!(keyed, Keyed::from(series.clone()));
        let Keyed(key, lean) = keyed;
        assert_eq!(key.instance, "db1:9104");
        assert!(!lean.is_up());
        assert_eq!(lean.label("state"), Some("data"));
        assert_eq!(lean.series(&key), series);
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
