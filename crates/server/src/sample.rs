//! Raw polls as the server gave them, timestamped, serialisable — what a capture stores and
//! what every figure is derived from. No derived numbers live here.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::flavor::{Flavor, Readings, Variables};
use crate::innodb_status::InnodbStatus;

/// One INNODB_METRICS row: the counter and whether it is counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricValue {
    pub count: i64,
    pub enabled: bool,
}

/// One of the oldest rows of INNODB_TRX joined to its session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrxRow {
    pub trx_id: String,
    pub state: String,
    /// Seconds since `trx_started`, as the server computed it.
    pub age_s: u64,
    pub isolation: Option<String>,
    pub thread_id: Option<u64>,
    pub user: Option<String>,
    pub host: Option<String>,
    /// Session command (`Sleep`, `Query`, …).
    pub command: Option<String>,
    pub query: Option<String>,
    pub rows_modified: Option<u64>,
}

/// Result of the (expensive, opt-in) INNODB_BUFFER_PAGE_LRU scan for undo pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoScan {
    pub undo_pages_cached: u64,
    pub took_ms: u64,
}

/// One performance_schema wait instrument's totals since startup
/// (`events_waits_summary_global_by_event_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitSum {
    /// `COUNT_STAR`: every acquisition the instrument timed, waited for or not.
    pub count: u64,
    /// `SUM_TIMER_WAIT`, picoseconds.
    pub timer_ps: u64,
}

/// A source that could not be read this tick, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unavailable {
    pub source: SourceKind,
    /// The privilege that would unlock it, when the server said "access denied".
    pub privilege: Option<String>,
    pub error: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    GlobalStatus,
    InnodbMetrics,
    InnodbTrx,
    InnodbStatus,
    UndoScan,
    Variables,
    /// performance_schema's wait summary (the rollback-segment and trx-sys latches).
    Waits,
}

impl SourceKind {
    pub const ALL: [SourceKind; 7] = [
        SourceKind::GlobalStatus,
        SourceKind::InnodbMetrics,
        SourceKind::InnodbTrx,
        SourceKind::InnodbStatus,
        SourceKind::UndoScan,
        SourceKind::Variables,
        SourceKind::Waits,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            SourceKind::GlobalStatus => "SHOW GLOBAL STATUS",
            SourceKind::InnodbMetrics => "information_schema.INNODB_METRICS",
            SourceKind::InnodbTrx => "information_schema.INNODB_TRX",
            SourceKind::InnodbStatus => "SHOW ENGINE INNODB STATUS",
            SourceKind::UndoScan => "information_schema.INNODB_BUFFER_PAGE_LRU",
            SourceKind::Variables => "SHOW GLOBAL VARIABLES",
            SourceKind::Waits => "performance_schema.events_waits_summary_global_by_event_name",
        }
    }
}

/// What the poller asks on its own cadence (the latency guard's unit, `innodebt_poller::cadence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cadenced {
    /// The per-tick statements together (status counters, INNODB_METRICS, INNODB_TRX): a
    /// sample is all of them or none, so rates never mix two moments.
    Tick,
    /// SHOW ENGINE INNODB STATUS.
    InnodbStatus,
    /// The counters that sum every session (MariaDB: `Handler_*`, `Uptime` with them).
    SessionSums,
    /// SHOW GLOBAL VARIABLES by name.
    Variables,
    /// One session looked up by id (the blocker's user, host, command).
    SessionLookup,
    /// The INNODB_BUFFER_PAGE_LRU scan.
    UndoScan,
    /// performance_schema's wait summary of the rollback-segment latches.
    Waits,
}

impl Cadenced {
    /// In the DBA's words, for the header and the `?` overlay.
    pub fn describe(self) -> &'static str {
        match self {
            Cadenced::Tick => "polling",
            Cadenced::InnodbStatus => "SHOW ENGINE INNODB STATUS",
            Cadenced::SessionSums => "session-summed status",
            Cadenced::Variables => "variables",
            Cadenced::SessionLookup => "session lookup",
            Cadenced::UndoScan => "undo scan",
            Cadenced::Waits => "latch waits",
        }
    }
}

/// A source asked less often than its cadence, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slowed {
    pub source: Cadenced,
    /// The period it is asked at now.
    pub every_ms: u64,
    /// Its last round trip (the one that slowed it), or `None` after a timeout.
    pub last_ms: Option<u64>,
    pub timed_out: bool,
    /// It answers fast again: its cadence is coming back a step at a time.
    #[serde(default)]
    pub recovering: bool,
}

/// Which statement a poll sent (what its round trip is attributed to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Statement {
    GlobalStatus,
    /// The status counters that sum every session, on their slower cadence (MariaDB).
    SessionSums,
    InnodbMetrics,
    InnodbTrx,
    /// One session looked up by id.
    SessionLookup,
    InnodbStatus,
    Variables,
    UndoScan,
    /// performance_schema's wait summary, and which of its instruments count.
    Waits,
}

impl Statement {
    pub fn describe(self) -> &'static str {
        match self {
            Statement::GlobalStatus => "SHOW GLOBAL STATUS",
            Statement::SessionSums => "SHOW GLOBAL STATUS (session sums)",
            Statement::InnodbMetrics => "INNODB_METRICS",
            Statement::InnodbTrx => "INNODB_TRX",
            Statement::SessionLookup => "session by id",
            Statement::InnodbStatus => "SHOW ENGINE INNODB STATUS",
            Statement::Variables => "SHOW GLOBAL VARIABLES",
            Statement::UndoScan => "INNODB_BUFFER_PAGE_LRU scan",
            Statement::Waits => "performance_schema waits",
        }
    }
}

/// One statement a poll sent and its round trip in µs, measured by innodebt (the server's
/// time plus the network and reading the reply: an upper bound of what it cost the server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatementCost {
    pub what: Statement,
    pub us: u64,
}

/// What one poll cost the server, and which sources the latency guard slowed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PollCost {
    pub statements: Vec<StatementCost>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slowed: Vec<Slowed>,
}

impl PollCost {
    pub fn round_trip_us(&self) -> u64 {
        self.statements.iter().map(|s| s.us).sum()
    }
}

/// One poll. Values are raw: counters are cumulative, gauges as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub taken_at: DateTime<Utc>,
    /// Monotonic seconds since the source started; rates use this, not the wall clock.
    pub mono_s: f64,
    /// How long the poll took on the wire, in milliseconds.
    pub poll_ms: u32,
    #[serde(default)]
    pub status: BTreeMap<String, u64>,
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricValue>,
    #[serde(default)]
    pub trx: Vec<TrxRow>,
    /// Open transactions, and those of them that modified rows (each holds an undo log in a
    /// rollback segment), counted by the INNODB_TRX statement where the server has window
    /// functions; carried between reads like `trx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trx_open: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trx_rw: Option<u64>,
    /// Parsed SHOW ENGINE INNODB STATUS, only on the ticks it was taken.
    #[serde(default)]
    pub innodb_status: Option<InnodbStatus>,
    #[serde(default)]
    pub undo_scan: Option<UndoScan>,
    /// The rollback-segment and trx-sys latch waits by instrument, only on the polls that
    /// read them (their own cadence, and only while an instrument counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<BTreeMap<String, WaitSum>>,
    #[serde(default)]
    pub unavailable: Vec<Unavailable>,
    /// What this poll cost the server (absent in captures made before it was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<PollCost>,
}

impl Sample {
    pub fn new(taken_at: DateTime<Utc>, mono_s: f64) -> Self {
        Sample {
            taken_at,
            mono_s,
            poll_ms: 0,
            status: BTreeMap::new(),
            metrics: BTreeMap::new(),
            trx: Vec::new(),
            trx_open: None,
            trx_rw: None,
            innodb_status: None,
            undo_scan: None,
            waits: None,
            unavailable: Vec::new(),
            cost: None,
        }
    }

    /// A status variable by name, ignoring case as the server does: MariaDB answers
    /// `Innodb_buffer_pool_pages_LRU_flushed` as `Innodb_buffer_pool_pages_lru_flushed`.
    pub fn status(&self, name: &str) -> Option<u64> {
        self.status.get(name).copied().or_else(|| {
            self.status
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| *v)
        })
    }

    /// An INNODB_METRICS counter, only when it is enabled (a disabled one is not a zero).
    pub fn metric(&self, name: &str) -> Option<i64> {
        self.metrics
            .get(name)
            .filter(|m| m.enabled)
            .map(|m| m.count)
    }
}

/// What the server is, read once per connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerInfo {
    /// `host:port` or `localhost via socket PATH` — never credentials.
    pub label: String,
    pub version: String,
    pub version_comment: String,
    pub flavor: Flavor,
    /// The relevant global variables by lower-case name.
    pub variables: BTreeMap<String, String>,
    /// The server's error log as read at connect: its last crash recovery, or why none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_log: Option<Box<crate::error_log::RecoveryLog>>,
}

impl ServerInfo {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    /// A numeric variable; `innodb_max_dirty_pages_pct` style decimals are accepted.
    pub fn var_f64(&self, name: &str) -> Option<f64> {
        Variables::var_f64(&self.variables, name)
    }

    pub fn var_u64(&self, name: &str) -> Option<u64> {
        Variables::var_u64(&self.variables, name)
    }
}

/// The flavour's rules read the server through these (they live below this module).
impl Variables for ServerInfo {
    fn var(&self, name: &str) -> Option<&str> {
        ServerInfo::var(self, name)
    }
}

impl Readings for Sample {
    fn status(&self, name: &str) -> Option<u64> {
        Sample::status(self, name)
    }

    fn metric(&self, name: &str) -> Option<i64> {
        Sample::metric(self, name)
    }

    fn innodb_status_lsns(&self) -> Option<(u64, u64)> {
        let st = self.innodb_status.as_ref()?;
        Some((st.lsn?, st.checkpoint_lsn?))
    }
}

/// One entry of the runtime-change audit trail (also written into captures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub at: DateTime<Utc>,
    pub account: String,
    pub server: String,
    pub action: String,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub result: String,
}

/// Everything a source (live poller or replay) emits, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SourceEvent {
    /// A (re)connection: who the server is. Rates restart after it when the server restarted.
    Connected {
        at: DateTime<Utc>,
        info: ServerInfo,
    },
    /// The relevant variables changed since the last report.
    Variables {
        at: DateTime<Utc>,
        variables: BTreeMap<String, String>,
    },
    Sample(Box<Sample>),
    /// The connection is gone; the source retries by itself.
    Disconnected {
        since: DateTime<Utc>,
        retry_in_ms: u64,
        error: String,
    },
    Audit(AuditEntry),
}

impl SourceEvent {
    /// Keeps `server` as this event describes it: a connection's description, then every
    /// variable change since (for the head of a file started later).
    pub fn describe(&self, server: &mut Option<ServerInfo>) {
        match self {
            SourceEvent::Connected { info, .. } => *server = Some(info.clone()),
            SourceEvent::Variables { variables, .. } => {
                if let Some(s) = server.as_mut() {
                    s.variables.extend(variables.clone());
                }
            }
            _ => {}
        }
    }

    /// The sample this event carries, if it is one.
    pub fn as_sample(&self) -> Option<&Sample> {
        match self {
            SourceEvent::Sample(s) => Some(s),
            _ => None,
        }
    }

    /// When the event happened (a sample's poll time, a disconnect's start).
    pub fn at(&self) -> DateTime<Utc> {
        match self {
            SourceEvent::Sample(s) => s.taken_at,
            SourceEvent::Connected { at, .. } | SourceEvent::Variables { at, .. } => *at,
            SourceEvent::Disconnected { since, .. } => *since,
            SourceEvent::Audit(a) => a.at,
        }
    }
}

#[cfg(any(test, feature = "test-support"))]
impl ServerInfo {
    /// A MariaDB 10.11 server with these variables, for the unit tests of this crate and
    /// those above it (their dev-dependencies turn `test-support` on).
    pub fn mariadb_10_11(variables: &[(&str, String)]) -> ServerInfo {
        ServerInfo {
            label: "db:3306".into(),
            version: "10.11.19-MariaDB".into(),
            version_comment: String::new(),
            flavor: crate::flavor::Flavor::detect("10.11.19-MariaDB", "", false),
            variables: variables
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            recovery_log: None,
        }
    }
}
