//! Series → samples, purely: which mysqld_exporter (or innodebt `serve`) series carries which
//! status counter, INNODB_METRICS counter or variable, and the samples, variable changes and
//! restarts the points make. No network here; `mod.rs` fetches, this decides.
//!
//! mysqld_exporter 0.14 names (checked against Debian's build on MariaDB 10.11):
//! `SHOW GLOBAL STATUS` `X` → `mysql_global_status_x`, except `Innodb_buffer_pool_pages_{data,
//! free,misc,old,total}` → `mysql_global_status_buffer_pool_pages{state}`, `…_pages_dirty` →
//! `mysql_global_status_buffer_pool_dirty_pages`, other `…_pages_X` →
//! `mysql_global_status_buffer_pool_page_changes_total{operation}`, `Handler_X` →
//! `mysql_global_status_handlers_total{handler}`; INNODB_METRICS `name` of `subsystem` →
//! `mysql_info_schema_innodb_metrics_<subsystem>_<name>[_total]` (enabled counters only),
//! `buffer_page_read_X` → `…_buffer_page_read_total{type}`; variables →
//! `mysql_global_variables_<name>` (numeric ones only); the version in `mysql_version_info`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::api::Series;
use innodebt_server::flavor::{Flavor, METRICS, STATUS, VARIABLES};
use innodebt_server::sample::{
    MetricValue, Sample, ServerInfo, SourceEvent, SourceKind, TrxRow, Unavailable,
};

const STATUS_PREFIX: &str = "mysql_global_status_";
const VARIABLES_PREFIX: &str = "mysql_global_variables_";
const METRICS_PREFIX: &str = "mysql_info_schema_innodb_metrics_";

/// What one series holds, in the sample's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Status(String),
    Metric(&'static str),
    Variable(String),
    /// `mysql_version_info{version, version_comment}`.
    Version,
    /// innodebt `serve`'s own figures, used where the exporter's series are absent.
    ServeSeries(ServeSeries),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeSeries {
    History,
    CheckpointAge,
    RedoWritten,
    Dirty,
    BlockerAge,
    Blocker,
    Server,
    MaxPurgeLag,
    PurgeThreads,
    RedoCapacity,
}

const OWN: &[(&str, ServeSeries)] = &[
    ("innodebt_history_list_length", ServeSeries::History),
    ("innodebt_checkpoint_age_bytes", ServeSeries::CheckpointAge),
    (
        "innodebt_redo_written_bytes_per_second",
        ServeSeries::RedoWritten,
    ),
    ("innodebt_dirty_pages", ServeSeries::Dirty),
    (
        "innodebt_purge_blocker_age_seconds",
        ServeSeries::BlockerAge,
    ),
    ("innodebt_purge_blocker_info", ServeSeries::Blocker),
    ("innodebt_purge_blocker", ServeSeries::Blocker),
    ("innodebt_server_info", ServeSeries::Server),
    ("innodebt_server", ServeSeries::Server),
    ("innodebt_max_purge_lag", ServeSeries::MaxPurgeLag),
    ("innodebt_purge_threads", ServeSeries::PurgeThreads),
    ("innodebt_redo_capacity_bytes", ServeSeries::RedoCapacity),
];

/// The `__name__` regular expression that asks for exactly the series [`target`] maps, so a
/// query never drags the exporter's hundreds of other series across the network.
pub fn wanted_names() -> String {
    let status: Vec<String> = STATUS
        .iter()
        .map(|s| s.to_ascii_lowercase())
        .filter(|s| !s.starts_with("innodb_buffer_pool_pages_") && !s.starts_with("handler_"))
        .chain(
            [
                "buffer_pool_pages",
                "buffer_pool_dirty_pages",
                "buffer_pool_page_changes_total",
                "handlers_total",
            ]
            .map(String::from),
        )
        .collect();
    let metrics: Vec<&str> = METRICS
        .iter()
        .copied()
        .filter(|m| !m.starts_with("buffer_page_read_"))
        .collect();
    let variables: Vec<&str> = VARIABLES.to_vec();
    let own: Vec<&str> = OWN.iter().map(|(n, _)| *n).collect();
    format!(
        "{STATUS_PREFIX}({})|{VARIABLES_PREFIX}({})|{METRICS_PREFIX}[a-z_]+_({})(_total)?|{METRICS_PREFIX}buffer_page_read_total|mysql_version_info|{}",
        status.join("|"),
        variables.join("|"),
        metrics.join("|"),
        own.join("|")
    )
}

/// Which sample field a series feeds, or `None` for a series the figures do not read.
pub fn target(labels: &BTreeMap<String, String>) -> Option<Target> {
    let name = labels.get("__name__")?.as_str();
    let label = |k: &str| labels.get(k).map(String::as_str).unwrap_or_default();
    if let Some(rest) = name.strip_prefix(STATUS_PREFIX) {
        let status = match rest {
            "buffer_pool_pages" => format!("Innodb_buffer_pool_pages_{}", label("state")),
            "buffer_pool_dirty_pages" => "Innodb_buffer_pool_pages_dirty".into(),
            "buffer_pool_page_changes_total" => {
                format!("Innodb_buffer_pool_pages_{}", label("operation"))
            }
            "handlers_total" => format!("Handler_{}", label("handler")),
            _ => STATUS
                .iter()
                .find(|s| s.eq_ignore_ascii_case(rest))?
                .to_string(),
        };
        return STATUS
            .iter()
            .find(|s| s.eq_ignore_ascii_case(&status))
            .map(|s| Target::Status(s.to_string()));
    }
    if let Some(rest) = name.strip_prefix(VARIABLES_PREFIX) {
        return VARIABLES
            .contains(&rest)
            .then(|| Target::Variable(rest.to_string()));
    }
    if let Some(rest) = name.strip_prefix(METRICS_PREFIX) {
        if rest == "buffer_page_read_total" {
            let wanted = format!("buffer_page_read_{}", label("type"));
            return METRICS
                .iter()
                .find(|m| **m == wanted)
                .map(|m| Target::Metric(m));
        }
        let bare = rest.strip_suffix("_total");
        // `<subsystem>_<name>`: the longest known name that ends the series name.
        return METRICS
            .iter()
            .filter(|m| {
                [Some(rest), bare].into_iter().flatten().any(|r| {
                    r.strip_suffix(**m)
                        .is_some_and(|head| head.len() > 1 && head.ends_with('_'))
                })
            })
            .max_by_key(|m| m.len())
            .map(|m| Target::Metric(m));
    }
    if name == "mysql_version_info" {
        return Some(Target::Version);
    }
    OWN.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, own)| Target::ServeSeries(*own))
}

/// What the figures need, in the DBA's words, and the series any one of which provides it.
const NEEDS: &[(&str, &[&str])] = &[
    (
        "checkpoint age",
        &[
            "s:Innodb_lsn_last_checkpoint",
            "s:Innodb_redo_log_checkpoint_lsn",
            "m:log_lsn_last_checkpoint",
            "o:checkpoint",
        ],
    ),
    (
        "history list length",
        &[
            "s:Innodb_history_list_length",
            "m:trx_rseg_history_len",
            "o:history",
        ],
    ),
    (
        "dirty pages",
        &["s:Innodb_buffer_pool_pages_dirty", "o:dirty"],
    ),
    ("pages flushed", &["s:Innodb_buffer_pool_pages_flushed"]),
    (
        "flush sources (adaptive, sync, LRU)",
        &["m:buffer_flush_adaptive_total_pages"],
    ),
    (
        "purge rate",
        &["m:purge_del_mark_records", "m:purge_undo_log_pages"],
    ),
    ("DML delay", &["m:purge_dml_delay_usec"]),
    ("undo size", &["m:trx_rseg_current_size"]),
    (
        "redo capacity",
        &[
            "v:innodb_log_file_size",
            "v:innodb_redo_log_capacity",
            "o:capacity",
        ],
    ),
    ("innodb_io_capacity", &["v:innodb_io_capacity"]),
    ("innodb_max_purge_lag", &["v:innodb_max_purge_lag", "o:lag"]),
    (
        "the purge blocker's identity (mysqld_exporter exports no transactions)",
        &["o:blocker", "o:blocker_age"],
    ),
];

/// The samples and their story, built from every series of one instance.
#[derive(Debug)]
pub struct Mapped {
    pub info: ServerInfo,
    pub events: Vec<SourceEvent>,
    /// Figures no series provides: unknown throughout, never zero.
    pub unknown: Vec<&'static str>,
    pub samples: usize,
    /// Times the server restarted inside the window (uptime went back).
    pub restarts: usize,
}

/// Per timestamp (ms), what the series said.
#[derive(Default)]
struct Moment {
    status: BTreeMap<String, u64>,
    metrics: BTreeMap<String, MetricValue>,
    variables: BTreeMap<String, String>,
    own: BTreeMap<&'static str, f64>,
    blocker: Option<BTreeMap<String, String>>,
}

fn as_u64(v: f64) -> u64 {
    // Counters arrive as float64: exact up to 2^53, which LSNs and page counts stay below.
    v.max(0.0).round() as u64
}

/// Variables the exporter turns from `ON`/`OFF` into 1/0, and doubles the server prints with
/// six decimals (`90.000000`): given back in the server's own words, so a setting compares
/// equal with innodebt's own recording of the same server.
const BOOLEAN_VARIABLES: &[&str] = &["innodb_adaptive_flushing", "performance_schema"];
const DOUBLE_VARIABLES: &[&str] = &[
    "innodb_max_dirty_pages_pct",
    "innodb_max_dirty_pages_pct_lwm",
    "innodb_adaptive_flushing_lwm",
];

/// `name`'s value as `SHOW GLOBAL VARIABLES` prints it.
fn variable_words(name: &str, v: f64) -> String {
    if BOOLEAN_VARIABLES.contains(&name) {
        return if v == 0.0 { "OFF" } else { "ON" }.to_string();
    }
    if DOUBLE_VARIABLES.contains(&name) {
        return format!("{v:.6}");
    }
    variable_text(v)
}

fn variable_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Builds the samples of series held whole (one chunk). `label` names the source.
pub fn map(series: &[Series], label: &str) -> Mapped {
    let present: Vec<BTreeMap<String, String>> = series
        .iter()
        .filter(|s| !s.values.is_empty())
        .map(|s| s.metric.clone())
        .collect();
    let mut mapper = Mapper::new(&present, label);
    let events = mapper.chunk(series);
    Mapped {
        info: mapper.info(),
        events,
        unknown: mapper.unknown.clone(),
        samples: mapper.samples,
        restarts: mapper.restarts,
    }
}

/// Series into samples chunk by chunk: what the window holds is known up front (the label
/// sets `/api/v1/series` lists), the points arrive a time range at a time, and each chunk's
/// events are handed on before the next is read, so nothing holds the whole window.
pub struct Mapper {
    /// Figures no series provides: unknown throughout, never zero.
    pub unknown: Vec<&'static str>,
    pub samples: usize,
    /// Times the server restarted (uptime went back).
    pub restarts: usize,
    label: String,
    blocker_known: bool,
    /// `version` and `version_comment`, from `mysql_version_info` or innodebt's own series.
    version: (String, String),
    /// The server as the first chunk with points describes it.
    info: Option<ServerInfo>,
    /// The variables as last set (a change is an event).
    current: BTreeMap<String, String>,
    last_uptime: Option<u64>,
    /// A made-up LSN origin for a history that has only innodebt's checkpoint age: the LSN
    /// advances by the redo written at each step, the checkpoint trails it by the age.
    own_lsn: f64,
    prev_ms: Option<i64>,
    first_ms: Option<i64>,
}

impl Mapper {
    /// `present`: the label sets (with `__name__`) of every series the window holds.
    pub fn new(present: &[BTreeMap<String, String>], label: &str) -> Mapper {
        let mut version: Option<(String, String)> = None;
        let mut own_version: Option<(String, String)> = None;
        let mut have: Vec<String> = Vec::new();
        for labels in present {
            let Some(target) = target(labels) else {
                continue;
            };
            let get = |k: &str| labels.get(k).cloned().unwrap_or_default();
            match &target {
                Target::Version => version = Some((get("version"), get("version_comment"))),
                Target::ServeSeries(ServeSeries::Server) => {
                    own_version = Some((get("version"), get("flavor")))
                }
                _ => {}
            }
            have.push(match &target {
                Target::Status(n) => format!("s:{n}"),
                Target::Metric(n) => format!("m:{n}"),
                Target::Variable(n) => format!("v:{n}"),
                Target::Version => "version".into(),
                Target::ServeSeries(o) => format!("o:{}", own_key(*o)),
            });
        }
        let unknown: Vec<&'static str> = NEEDS
            .iter()
            .filter(|(_, any)| !any.iter().any(|k| have.iter().any(|h| h == k)))
            .map(|(what, _)| *what)
            .collect();
        let version = match (version, own_version) {
            (Some(v), _) => v,
            // innodebt's own series name the product in `flavor` (`mariadb`, `mysql`, `percona`).
            (None, Some((v, flavor))) if flavor == "mariadb" && !v.contains("MariaDB") => {
                (format!("{v}-MariaDB"), String::new())
            }
            (None, Some((v, flavor))) if flavor == "percona" => (v, "Percona Server".into()),
            (None, Some((v, _))) => (v, String::new()),
            (None, None) => (String::new(), String::new()),
        };
        Mapper {
            unknown,
            samples: 0,
            restarts: 0,
            label: label.to_string(),
            blocker_known: have.iter().any(|h| h == "o:blocker"),
            version,
            info: None,
            current: BTreeMap::new(),
            last_uptime: None,
            own_lsn: 1e12,
            prev_ms: None,
            first_ms: None,
        }
    }

    /// The server: as the first chunk with points described it, else its version alone.
    pub fn info(&self) -> ServerInfo {
        self.info
            .clone()
            .unwrap_or_else(|| self.server(&BTreeMap::new()))
    }

    /// The server as `moments` (the first points seen) describe it.
    fn server(&self, moments: &BTreeMap<i64, Moment>) -> ServerInfo {
        // The variables as first seen (each at its first point).
        let mut variables: BTreeMap<String, String> = BTreeMap::new();
        for m in moments.values() {
            for (k, v) in &m.variables {
                variables.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        let (version, comment) = self.version.clone();
        variables.insert("version".into(), version.clone());
        variables.insert("version_comment".into(), comment.clone());
        let flavor = Flavor::from_variables(&variables);
        // innodebt's redo capacity stands in for the variable the flavour sizes redo with.
        if let Some(cap) = moments.values().find_map(|m| m.own.get("capacity")) {
            let var = flavor.redo_size_variable().to_string();
            if var == "innodb_log_file_size" || var == "innodb_redo_log_capacity" {
                variables.entry(var).or_insert_with(|| variable_text(*cap));
            }
        }
        for (key, var) in [
            ("lag", "innodb_max_purge_lag"),
            ("threads", "innodb_purge_threads"),
        ] {
            if let Some(v) = moments.values().find_map(|m| m.own.get(key)) {
                variables
                    .entry(var.into())
                    .or_insert_with(|| variable_text(*v));
            }
        }
        ServerInfo {
            label: self.label.clone(),
            version,
            version_comment: comment,
            flavor,
            variables,
            // Prometheus holds no error log.
            recovery_log: None,
        }
    }

    /// The events of one chunk's points (chunks in time order, not overlapping).
    pub fn chunk(&mut self, series: &[Series]) -> Vec<SourceEvent> {
        let moments = moments(series);
        let mut events = Vec::with_capacity(moments.len() + 1);
        let at = |ms: i64| DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default();
        if self.info.is_none() {
            let Some(first_ms) = moments.keys().next().copied() else {
                return events;
            };
            let info = self.server(&moments);
            self.current = info.variables.clone();
            events.push(SourceEvent::Connected {
                at: at(first_ms),
                info: info.clone(),
            });
            self.info = Some(info);
            self.first_ms = Some(first_ms);
            self.prev_ms = Some(first_ms);
        }
        let first_ms = self.first_ms.unwrap_or_default();
        for (ms, m) in moments {
            let changed: BTreeMap<String, String> = m
                .variables
                .iter()
                .filter(|(k, v)| self.current.get(*k) != Some(*v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !changed.is_empty() {
                self.current.extend(changed.clone());
                events.push(SourceEvent::Variables {
                    at: at(ms),
                    variables: changed,
                });
            }
            let uptime = m.status.get("Uptime").copied();
            if let (Some(before), Some(now)) = (self.last_uptime, uptime)
                && now < before
            {
                self.restarts += 1;
                let mut again = self.info();
                again.variables = self.current.clone();
                events.push(SourceEvent::Connected {
                    at: at(ms),
                    info: again,
                });
            }
            self.last_uptime = uptime.or(self.last_uptime);
            if m.status.is_empty() && m.metrics.is_empty() && m.own.is_empty() {
                continue;
            }
            let mut s = Sample::new(at(ms), (ms - first_ms) as f64 / 1000.0);
            s.status = m.status;
            s.metrics = m.metrics;
            let prev_ms = self.prev_ms.unwrap_or(ms);
            self.own_lsn +=
                m.own.get("written").copied().unwrap_or(0.0) * (ms - prev_ms) as f64 / 1000.0;
            self.prev_ms = Some(ms);
            fill_from_own(&mut s, &m.own, self.own_lsn);
            match m.blocker {
                Some(b) => s.trx.push(blocker_row(&b, m.own.get("blocker_age"))),
                None if self.blocker_known => {}
                // serve judged it and none blocks: its age is 0, and no info series says who.
                None if m.own.get("blocker_age") == Some(&0.0) => {}
                None => s.unavailable.push(Unavailable {
                    source: SourceKind::InnodbTrx,
                    privilege: None,
                    error: "not in Prometheus: mysqld_exporter exports no transactions".into(),
                }),
            }
            events.push(SourceEvent::Sample(Box::new(s)));
            self.samples += 1;
        }
        events
    }
}

/// Per timestamp (ms), what the series of one chunk said.
fn moments(series: &[Series]) -> BTreeMap<i64, Moment> {
    let mut moments: BTreeMap<i64, Moment> = BTreeMap::new();
    for s in series {
        let Some(target) = target(&s.metric) else {
            continue;
        };
        for &(t, v) in &s.values {
            let at = (t * 1000.0).round() as i64;
            let m = moments.entry(at).or_default();
            match &target {
                Target::Status(n) => {
                    m.status.insert(n.clone(), as_u64(v));
                }
                Target::Metric(n) => {
                    let count = v.round() as i64;
                    m.metrics.insert(
                        n.to_string(),
                        MetricValue {
                            count,
                            enabled: true,
                        },
                    );
                }
                Target::Variable(n) => {
                    m.variables.insert(n.clone(), variable_words(n, v));
                }
                Target::Version | Target::ServeSeries(ServeSeries::Server) => {}
                Target::ServeSeries(ServeSeries::Blocker) => m.blocker = Some(s.metric.clone()),
                Target::ServeSeries(o) => {
                    m.own.insert(own_key(*o), v);
                }
            }
        }
    }
    moments
}

fn own_key(o: ServeSeries) -> &'static str {
    match o {
        ServeSeries::History => "history",
        ServeSeries::CheckpointAge => "checkpoint",
        ServeSeries::RedoWritten => "written",
        ServeSeries::Dirty => "dirty",
        ServeSeries::BlockerAge => "blocker_age",
        ServeSeries::Blocker => "blocker",
        ServeSeries::Server => "server",
        ServeSeries::MaxPurgeLag => "lag",
        ServeSeries::PurgeThreads => "threads",
        ServeSeries::RedoCapacity => "capacity",
    }
}

/// innodebt's own figures where the exporter's counters are absent (never over them).
fn fill_from_own(s: &mut Sample, own: &BTreeMap<&'static str, f64>, lsn: f64) {
    let mut put = |name: &str, v: f64| {
        s.status.entry(name.to_string()).or_insert(as_u64(v));
    };
    if let Some(h) = own.get("history") {
        put("Innodb_history_list_length", *h);
    }
    if let Some(d) = own.get("dirty") {
        put("Innodb_buffer_pool_pages_dirty", *d);
    }
    let has_lsn = s.status.contains_key("Innodb_lsn_current")
        || s.status.contains_key("Innodb_redo_log_current_lsn")
        || s.metrics.contains_key("log_lsn_current");
    if let (Some(age), false) = (own.get("checkpoint"), has_lsn) {
        s.status.insert("Innodb_lsn_current".into(), as_u64(lsn));
        s.status
            .insert("Innodb_lsn_last_checkpoint".into(), as_u64(lsn - age));
    }
}

/// `innodebt_purge_blocker{trx_id, thread_id, user, host, isolation}` as an INNODB_TRX row.
fn blocker_row(labels: &BTreeMap<String, String>, age: Option<&f64>) -> TrxRow {
    let get = |k: &str| labels.get(k).filter(|v| !v.is_empty()).cloned();
    TrxRow {
        trx_id: get("trx_id").unwrap_or_default(),
        state: "RUNNING".into(),
        age_s: age.map_or(0, |a| as_u64(*a)),
        isolation: get("isolation"),
        thread_id: get("thread_id").and_then(|t| t.parse().ok()),
        user: get("user"),
        host: get("host"),
        command: None,
        query: None,
        rows_modified: None,
    }
}

#[cfg(test)]
mod tests;
