//! Plans: what a runtime change will do, decided before anything runs. Pure: from what was
//! read from the server ([`VariableFacts`]) and the moment ([`PlanContext`]) to a [`ChangePlan`]
//! the user confirms, or a [`Refusal`] that says why not. Nothing here does I/O. One file per
//! kind of change: `variable` (the purge variables), `monitors` (INNODB_METRICS counters), `kill`
//! (the session that blocks purge), `rseg` (more rollback segments).

mod kill;
mod monitors;
mod rseg;
mod variable;

use thiserror::Error;

use innodebt_engine::figures::{Figures, Unreadable};
use innodebt_server::flavor::Flavor;

pub use kill::{age_text, plan_kill};
pub use monitors::plan_enable_monitors;
pub use rseg::plan_rollback_segments;
pub use variable::{plan_set, plan_step};

/// The purge variables the hotkeys change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PurgeVariable {
    PurgeThreads,
    MaxPurgeLag,
    MaxPurgeLagDelay,
    PurgeBatchSize,
}

impl PurgeVariable {
    pub const ALL: [PurgeVariable; 4] = [
        PurgeVariable::PurgeThreads,
        PurgeVariable::MaxPurgeLag,
        PurgeVariable::MaxPurgeLagDelay,
        PurgeVariable::PurgeBatchSize,
    ];

    /// The server variable.
    pub fn name(self) -> &'static str {
        match self {
            PurgeVariable::PurgeThreads => "innodb_purge_threads",
            PurgeVariable::MaxPurgeLag => "innodb_max_purge_lag",
            PurgeVariable::MaxPurgeLagDelay => "innodb_max_purge_lag_delay",
            PurgeVariable::PurgeBatchSize => "innodb_purge_batch_size",
        }
    }

    pub fn from_name(name: &str) -> Option<PurgeVariable> {
        PurgeVariable::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// The unit the value is in, for prompts ("" when a plain count).
    pub fn unit(self) -> &'static str {
        match self {
            PurgeVariable::MaxPurgeLagDelay => "µs",
            PurgeVariable::PurgeThreads => "threads",
            PurgeVariable::MaxPurgeLag => "undo logs of history (0 = off)",
            PurgeVariable::PurgeBatchSize => "undo log pages per batch",
        }
    }
}

/// What the server said about a variable just before the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableFacts {
    pub variable: String,
    pub exists: bool,
    /// The global value now (`None` when not a number or not readable).
    pub current: Option<u64>,
    /// Settable at runtime with `SET GLOBAL`.
    pub dynamic: bool,
    pub min: Option<u64>,
    pub max: Option<u64>,
    /// Where `dynamic`/`min`/`max` came from.
    pub source: FactsSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactsSource {
    /// `information_schema.SYSTEM_VARIABLES` (MariaDB): the server's own word.
    SystemVariables,
    /// The version table in `source/flavor/variables.rs` (MySQL, Percona).
    VersionTable,
    /// Neither: the range is unknown and the server may truncate.
    Unknown,
}

/// The moment the plan is made in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanContext {
    pub flavor: Flavor,
    /// `--read-only`: every plan is refused.
    pub read_only: bool,
    /// A read view blocks purge now: the figures' own judgement (`purge.blocked`).
    pub purge_blocked: bool,
    pub history: Option<u64>,
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay: Option<u64>,
    /// `innodb_purge_threads` × `innodb_purge_batch_size` gate MySQL ≥ 8.0.14's delay.
    pub purge_threads: Option<u64>,
    pub purge_batch_size: Option<u64>,
}

impl PlanContext {
    pub fn new(flavor: Flavor, read_only: bool) -> Self {
        PlanContext {
            flavor,
            read_only,
            purge_blocked: false,
            history: None,
            max_purge_lag: None,
            max_purge_lag_delay: None,
            purge_threads: None,
            purge_batch_size: None,
        }
    }

    /// From the newest figures; an unknown blocked state (INNODB_TRX unreadable) warns of
    /// nothing it cannot see.
    pub fn from_figures(flavor: Flavor, read_only: bool, f: &Figures) -> Self {
        PlanContext {
            flavor,
            read_only,
            purge_blocked: f.purge.blocked == Some(true),
            history: f.history.length,
            max_purge_lag: f.purge.max_purge_lag,
            max_purge_lag_delay: f.purge.max_purge_lag_delay_us,
            purge_threads: f.purge.threads,
            purge_batch_size: f.purge.batch_size,
        }
    }
}

/// What a confirmed plan runs. `execute` dispatches on this; the text fields are for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanAction {
    /// `SET GLOBAL variable = value`: runtime only.
    SetGlobal { variable: String, value: u64 },
    /// `SET PERSIST variable = value` (MySQL 8+): runtime and mysqld-auto.cnf.
    SetPersist { variable: String, value: u64 },
    /// `SET PERSIST_ONLY variable = value` (MySQL 8+): next restart only.
    SetPersistOnly { variable: String, value: u64 },
    /// One `SET GLOBAL innodb_monitor_enable` per group; `counters` are the ones that were off.
    EnableMonitors {
        groups: Vec<String>,
        counters: Vec<String>,
    },
    /// `KILL CONNECTION thread_id`, only if that thread still has a transaction at least as
    /// old as the one seen (`seen_age_s`): never a new transaction on a reused session.
    Kill {
        thread_id: u64,
        seen_age_s: u64,
        /// `user@host` of the session, for the audit trail (never the query text).
        who: String,
    },
}

/// Everything the confirmation dialog shows, and exactly what will run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangePlan {
    pub title: String,
    pub action: PlanAction,
    /// What changes: a variable name, or `thread 42` for a kill.
    pub variable: String,
    pub current: Option<String>,
    pub new: Option<String>,
    /// The exact statements, in order.
    pub sql: Vec<String>,
    /// Facts about the target (who a blocker is, which counters are off).
    pub info_lines: Vec<String>,
    /// How long the change lasts, and how to keep it.
    pub scope_lines: Vec<String>,
    /// One line on the likely effect.
    pub effect_line: String,
    /// What could go wrong now, in this situation.
    pub warning_lines: Vec<String>,
    /// The privilege the statements need.
    pub privilege: String,
    /// Reads back what the change did.
    pub verify_sql: String,
    /// Another way to do it (MySQL 8: `SET PERSIST` for a `SET GLOBAL` plan).
    pub alternative: Option<Box<ChangePlan>>,
}

impl ChangePlan {
    /// The statements as one text, as the dialog shows them.
    pub fn sql_text(&self) -> String {
        self.sql.join(";\n")
    }

    /// The lines of the confirmation dialog, in reading order (the SQL is shown apart).
    pub fn confirm_lines(&self) -> Vec<String> {
        let mut lines = self.info_lines.clone();
        match (&self.current, &self.new) {
            (Some(c), Some(n)) => lines.push(format!("{}: {c} → {n}", self.variable)),
            (None, Some(n)) => lines.push(format!("{}: → {n}", self.variable)),
            _ => {}
        }
        lines.push(self.effect_line.clone());
        lines.extend(self.scope_lines.iter().cloned());
        lines.extend(self.warning_lines.iter().map(|w| format!("⚠ {w}")));
        lines.push(format!("Needs {}.", self.privilege));
        lines
    }
}

/// Why a change is not offered. `Display` is the message for the user.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    #[error("read-only mode: changes are disabled (innodebt was started with --read-only)")]
    ReadOnly,
    #[error("{variable} does not exist on {server}")]
    UnknownVariable { variable: String, server: String },
    #[error("{variable} cannot be changed at runtime on {server}: {how}")]
    NotDynamic {
        variable: String,
        server: String,
        how: String,
    },
    #[error("{asked} is out of range for {variable}: {server} accepts {min} to {max}")]
    OutOfRange {
        variable: String,
        asked: u64,
        min: u64,
        max: u64,
        server: String,
    },
    #[error("{variable} is already {value}: nothing to change")]
    Unchanged { variable: String, value: u64 },
    #[error("{variable} is already at its {which} ({value})")]
    AtLimit {
        variable: String,
        value: u64,
        which: &'static str,
    },
    #[error("the current value of {variable} is unknown: type the new value instead")]
    CurrentUnknown { variable: String },
    #[error("every InnoDB monitor counter the panels use is already on")]
    NothingToEnable,
    #[error(
        "the blocking transaction (trx {trx_id}) has no session thread id: it cannot be killed \
         from here (an XA or internal transaction?)"
    )]
    NoThreadId { trx_id: String },
    #[error("{what} is not available on {server}")]
    Unsupported { what: String, server: String },
    /// The source that would say what to change could not be read: never guess from nothing.
    #[error("{what} cannot be read ({reason}), so {unknown}")]
    Unreadable {
        what: String,
        reason: String,
        unknown: &'static str,
    },
}

impl Refusal {
    /// `m` without INNODB_METRICS: which counters are off is unknown.
    pub fn metrics_unreadable(u: &Unreadable) -> Refusal {
        Refusal::Unreadable {
            what: u.what.clone(),
            reason: u.reason(),
            unknown: "which monitor counters are off is unknown",
        }
    }

    /// `K` without INNODB_TRX: whether a transaction blocks purge is unknown.
    pub fn blocker_unreadable(u: &Unreadable) -> Refusal {
        Refusal::Unreadable {
            what: u.what.clone(),
            reason: u.reason(),
            unknown: "whether a transaction blocks purge is unknown",
        }
    }
}

/// What the user typed → a value. Accepts `1000`, `1_000`, `1,000`, `10k` (× 1,000) and
/// `2M` (× 1,000,000); no negative numbers, no fractions.
pub fn parse_input(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("type a number".to_string());
    }
    if t.starts_with('-') {
        return Err(format!("{t:?}: the value cannot be negative"));
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let (digits, factor) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1_000u64),
        Some((i, 'm' | 'M')) => (&t[..i], 1_000_000u64),
        _ => (t, 1u64),
    };
    let digits: String = digits
        .trim()
        .chars()
        .filter(|c| !matches!(c, '_' | ',' | '\'' | ' ' | '\u{202f}' | '\u{a0}'))
        .collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "{:?} is not a whole number (digits, optionally with k = ×1000 or M = ×1,000,000)",
            text.trim()
        ));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(factor))
        .ok_or_else(|| format!("{:?} is too large", text.trim()))
}

/// Names in our SQL come from constant tables; quote anyway.
pub(super) fn sql_quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\'', "''")
}

#[cfg(test)]
mod tests;
