//! Plans: what a runtime change will do, decided before anything runs. Pure: from what was
//! read from the server ([`KnobFacts`]) and the moment ([`PlanContext`]) to a [`ChangePlan`]
//! the user confirms, or a [`Refusal`] that says why not. Nothing here does I/O.

use thiserror::Error;

use crate::metrics::figures::{Blocker, Figures, Unreadable};
use crate::sample::Sample;
use crate::source::flavor::{Flavor, METRICS, MONITOR_GROUPS};

/// The purge knobs the hotkeys change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knob {
    PurgeThreads,
    MaxPurgeLag,
    MaxPurgeLagDelay,
    PurgeBatchSize,
}

impl Knob {
    pub const ALL: [Knob; 4] = [
        Knob::PurgeThreads,
        Knob::MaxPurgeLag,
        Knob::MaxPurgeLagDelay,
        Knob::PurgeBatchSize,
    ];

    /// The server variable.
    pub fn variable(self) -> &'static str {
        match self {
            Knob::PurgeThreads => "innodb_purge_threads",
            Knob::MaxPurgeLag => "innodb_max_purge_lag",
            Knob::MaxPurgeLagDelay => "innodb_max_purge_lag_delay",
            Knob::PurgeBatchSize => "innodb_purge_batch_size",
        }
    }

    pub fn from_variable(name: &str) -> Option<Knob> {
        Knob::ALL
            .into_iter()
            .find(|k| k.variable().eq_ignore_ascii_case(name))
    }

    /// The unit the value is in, for prompts ("" when a plain count).
    pub fn unit(self) -> &'static str {
        match self {
            Knob::MaxPurgeLagDelay => "µs",
            Knob::PurgeThreads => "threads",
            Knob::MaxPurgeLag => "undo logs of history (0 = off)",
            Knob::PurgeBatchSize => "undo log pages per batch",
        }
    }
}

/// The variable `SET GLOBAL` blocks on (MariaDB).
pub const PURGE_LAG_WAIT_VARIABLE: &str = "innodb_max_purge_lag_wait";

/// What the server said about a variable just before the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnobFacts {
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
    /// The version table in `flavor.rs` (MySQL, Percona).
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
    /// A read view blocks purge (a blocker is present and history is growing).
    pub purge_blocked: bool,
    pub history: Option<u64>,
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay: Option<u64>,
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
        }
    }

    /// From the newest figures: blocked = a blocker is present and history grows.
    pub fn from_figures(flavor: Flavor, read_only: bool, f: &Figures) -> Self {
        PlanContext {
            flavor,
            read_only,
            purge_blocked: f.blocker.is_some() && f.history.growth_per_s.is_some_and(|g| g > 0.0),
            history: f.history.length,
            max_purge_lag: f.purge.max_purge_lag,
            max_purge_lag_delay: f.purge.max_purge_lag_delay_us,
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
    /// `SET GLOBAL innodb_max_purge_lag_wait = target`: blocks its session; run it with
    /// `control::wait::spawn_purge_lag_wait`, never with `execute`.
    PurgeLagWait { target: u64 },
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

/// Plans `knob = current + delta` (the ± keys).
pub fn plan_step(
    knob: Knob,
    delta: i64,
    facts: &KnobFacts,
    ctx: &PlanContext,
) -> Result<ChangePlan, Refusal> {
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    let current = facts.current.ok_or_else(|| Refusal::CurrentUnknown {
        variable: knob.variable().to_string(),
    })?;
    let limit = |value: u64, minimum: bool| Refusal::AtLimit {
        variable: knob.variable().to_string(),
        value,
        which: if minimum { "minimum" } else { "maximum" },
    };
    let Some(new) = current.checked_add_signed(delta) else {
        return Err(limit(current, delta < 0));
    };
    if facts.min.is_some_and(|m| new < m) && delta < 0 {
        return Err(limit(current, true));
    }
    if facts.max.is_some_and(|m| new > m) && delta > 0 {
        return Err(limit(current, false));
    }
    plan_set(knob, new, facts, ctx)
}

/// Plans `SET GLOBAL knob = new_value` (or the flavour's nearest equivalent), or refuses.
pub fn plan_set(
    knob: Knob,
    new_value: u64,
    facts: &KnobFacts,
    ctx: &PlanContext,
) -> Result<ChangePlan, Refusal> {
    let variable = knob.variable();
    let server = ctx.flavor.display_name();
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    if !facts.exists {
        return Err(Refusal::UnknownVariable {
            variable: variable.to_string(),
            server,
        });
    }
    let below = facts.min.is_some_and(|m| new_value < m);
    let above = facts.max.is_some_and(|m| new_value > m);
    if below || above {
        return Err(Refusal::OutOfRange {
            variable: variable.to_string(),
            asked: new_value,
            min: facts.min.unwrap_or(0),
            max: facts.max.unwrap_or(u64::MAX),
            server,
        });
    }
    if facts.current == Some(new_value) {
        return Err(Refusal::Unchanged {
            variable: variable.to_string(),
            value: new_value,
        });
    }
    let current = facts.current.map(|c| c.to_string());
    let mut warning_lines = blocked_warnings(knob, new_value, facts.current, ctx);
    if facts.min.is_none() || facts.max.is_none() {
        warning_lines.push(format!(
            "the accepted range of {variable} is unknown here: the server may truncate the value \
             (the result is read back and shown)"
        ));
    }
    let effect_line = effect_line(knob, new_value, ctx);
    let verify_sql = format!("SELECT @@GLOBAL.{variable}");

    if !facts.dynamic {
        if !ctx.flavor.has_set_persist() {
            return Err(Refusal::NotDynamic {
                variable: variable.to_string(),
                server,
                how: ctx.flavor.restart_only_hint(variable, new_value),
            });
        }
        return Ok(ChangePlan {
            title: format!("Set {variable} for the next restart"),
            action: PlanAction::SetPersistOnly {
                variable: variable.to_string(),
                value: new_value,
            },
            variable: variable.to_string(),
            current,
            new: Some(format!("{new_value} (after a restart)")),
            sql: vec![format!("SET PERSIST_ONLY {variable} = {new_value}")],
            info_lines: vec![format!(
                "{variable} is read-only at runtime on {server}: this takes effect after a \
                 restart."
            )],
            scope_lines: vec![
                "Takes effect after a restart: written to mysqld-auto.cnf; the running server \
                 keeps its current value."
                    .to_string(),
            ],
            effect_line,
            warning_lines: Vec::new(),
            privilege: ctx.flavor.persist_only_privilege().to_string(),
            verify_sql: format!(
                "SELECT VARIABLE_VALUE FROM performance_schema.persisted_variables \
                 WHERE VARIABLE_NAME = '{variable}'"
            ),
            alternative: None,
        });
    }

    let alternative = ctx.flavor.has_set_persist().then(|| {
        Box::new(ChangePlan {
            title: format!("Set {variable} and keep it across restarts"),
            action: PlanAction::SetPersist {
                variable: variable.to_string(),
                value: new_value,
            },
            variable: variable.to_string(),
            current: current.clone(),
            new: Some(new_value.to_string()),
            sql: vec![format!("SET PERSIST {variable} = {new_value}")],
            info_lines: Vec::new(),
            scope_lines: vec![
                "Takes effect now and is written to mysqld-auto.cnf: it survives restarts \
                 (RESET PERSIST undoes that)."
                    .to_string(),
            ],
            effect_line: effect_line.clone(),
            warning_lines: warning_lines.clone(),
            privilege: ctx.flavor.set_global_privilege().to_string(),
            verify_sql: verify_sql.clone(),
            alternative: None,
        })
    });
    Ok(ChangePlan {
        title: format!("Set {variable}"),
        action: PlanAction::SetGlobal {
            variable: variable.to_string(),
            value: new_value,
        },
        variable: variable.to_string(),
        current,
        new: Some(new_value.to_string()),
        sql: vec![format!("SET GLOBAL {variable} = {new_value}")],
        info_lines: Vec::new(),
        scope_lines: vec![
            "Runtime only: lost at the next restart.".to_string(),
            format!(
                "{}.",
                capitalise(&ctx.flavor.keep_after_restart_hint(variable, new_value))
            ),
        ],
        effect_line,
        warning_lines,
        privilege: ctx.flavor.set_global_privilege().to_string(),
        verify_sql,
        alternative,
    })
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether this change tightens the DML delay (more delay, sooner).
fn tightens_delay(knob: Knob, new: u64, current: Option<u64>, ctx: &PlanContext) -> bool {
    match knob {
        // Switching it on, or lowering the threshold.
        Knob::MaxPurgeLag => new > 0 && current.is_none_or(|c| c == 0 || new < c),
        // Raising the cap (0 = no cap, the most there is) while the lag is on.
        Knob::MaxPurgeLagDelay => {
            let raises = match current {
                Some(0) => false,
                Some(c) => new == 0 || new > c,
                None => true,
            };
            raises && ctx.max_purge_lag.is_none_or(|l| l > 0)
        }
        Knob::PurgeThreads | Knob::PurgeBatchSize => false,
    }
}

fn blocked_warnings(knob: Knob, new: u64, current: Option<u64>, ctx: &PlanContext) -> Vec<String> {
    if !ctx.purge_blocked {
        return Vec::new();
    }
    if tightens_delay(knob, new, current, ctx) {
        return vec![if ctx.flavor.purge_lag_delays_while_blocked() {
            "A read view blocks purge now: the delay will slow DML without letting purge \
             progress. End the blocking transaction first (K)."
                .to_string()
        } else {
            format!(
                "A read view blocks purge now. On {} the delay is not applied while purge is \
                 blocked: it is armed: it will throttle writes as soon as purge resumes.",
                ctx.flavor.display_name()
            )
        }];
    }
    match knob {
        Knob::PurgeThreads | Knob::PurgeBatchSize if current.is_none_or(|c| new > c) => {
            vec![
                "A read view blocks purge now: more purge capacity cannot remove history that \
                 view may still need. End the blocking transaction first (K)."
                    .to_string(),
            ]
        }
        _ => Vec::new(),
    }
}

fn effect_line(knob: Knob, new: u64, ctx: &PlanContext) -> String {
    let f = ctx.flavor;
    match knob {
        Knob::MaxPurgeLag if new == 0 => {
            "Turns the purge-lag DML delay off: writes are no longer slowed by history length."
                .to_string()
        }
        Knob::MaxPurgeLag => {
            let cap = ctx.max_purge_lag_delay.unwrap_or(0);
            match ctx.history {
                Some(h) if h > new => format!(
                    "At today's history ({h}) each DML row would wait ~{} µs \
                     ((history/{new} − 0.5) × 10 ms{}).",
                    f.dml_delay_us(h, new, cap),
                    cap_text(cap)
                ),
                Some(h) => format!(
                    "No delay while history (now {h}) stays ≤ {new}; above it each DML row waits \
                     (history/{new} − 0.5) × 10 ms{}.",
                    cap_text(cap)
                ),
                None => format!(
                    "Above {new} undo logs of history each DML row waits (history/{new} − 0.5) × \
                     10 ms{}.",
                    cap_text(cap)
                ),
            }
        }
        Knob::MaxPurgeLagDelay => match (ctx.max_purge_lag, ctx.history) {
            (Some(0), _) => format!(
                "Caps the DML delay at {}; no effect while innodb_max_purge_lag is 0 (off).",
                delay_text(new)
            ),
            (Some(lag), Some(h)) => format!(
                "Caps the DML delay at {}: at today's history ({h}) each DML row would wait \
                 ~{} µs.",
                delay_text(new),
                f.dml_delay_us(h, lag, new)
            ),
            _ => format!(
                "Caps the per-row DML delay of innodb_max_purge_lag at {}.",
                delay_text(new)
            ),
        },
        Knob::PurgeThreads => {
            "More purge threads purge faster when purge itself is the bottleneck (not when a \
             read view blocks it), at the cost of CPU and I/O for queries."
                .to_string()
        }
        Knob::PurgeBatchSize => {
            "Undo pages purge handles per batch: bigger batches purge more per round, with \
             bigger I/O bursts; smaller ones purge more gently."
                .to_string()
        }
    }
}

fn cap_text(cap: u64) -> String {
    if cap == 0 {
        ", no cap (innodb_max_purge_lag_delay = 0)".to_string()
    } else {
        format!(", capped at innodb_max_purge_lag_delay = {cap} µs")
    }
}

fn delay_text(us: u64) -> String {
    if us == 0 {
        "no cap (0)".to_string()
    } else {
        format!("{us} µs")
    }
}

/// The `innodb_monitor_enable` group that switches on `counter` (counters with no group of
/// their own in [`MONITOR_GROUPS`] are enabled by name).
fn monitor_group(counter: &str) -> String {
    let group = if counter.starts_with("buffer_page_") {
        "module_buffer_page"
    } else if counter.starts_with("buffer_") {
        "module_buffer"
    } else if counter.starts_with("purge_") {
        "module_purge"
    } else if counter.starts_with("log_") {
        "module_log"
    } else {
        counter
    };
    group.to_string()
}

/// The INNODB_METRICS counters the panels use that are switched off in this sample (absent
/// ones do not exist on this server and are left out).
pub fn disabled_counters(sample: &Sample) -> Vec<String> {
    METRICS
        .iter()
        .filter(|name| sample.metrics.get(**name).is_some_and(|m| !m.enabled))
        .map(|name| name.to_string())
        .collect()
}

/// Plans switching on the counters in `disabled` (one statement per monitor group).
pub fn plan_enable_monitors(disabled: &[String], ctx: &PlanContext) -> Result<ChangePlan, Refusal> {
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    if disabled.is_empty() {
        return Err(Refusal::NothingToEnable);
    }
    // Groups in MONITOR_GROUPS order first, then any counter enabled by its own name.
    let mut needed: Vec<String> = disabled.iter().map(|c| monitor_group(c)).collect();
    needed.sort();
    needed.dedup();
    let mut groups: Vec<String> = MONITOR_GROUPS
        .iter()
        .filter(|g| needed.iter().any(|n| n == *g))
        .map(|g| g.to_string())
        .collect();
    groups.extend(
        needed
            .iter()
            .filter(|n| !MONITOR_GROUPS.contains(&n.as_str()))
            .cloned(),
    );
    let sql = groups
        .iter()
        .map(|g| format!("SET GLOBAL innodb_monitor_enable = '{}'", sql_quote(g)))
        .collect();
    let names = disabled
        .iter()
        .map(|c| format!("'{}'", sql_quote(c)))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(ChangePlan {
        title: "Enable InnoDB monitor counters".to_string(),
        action: PlanAction::EnableMonitors {
            groups: groups.clone(),
            counters: disabled.to_vec(),
        },
        variable: "innodb_monitor_enable".to_string(),
        current: Some(format!("{} counters off", disabled.len())),
        new: Some("on".to_string()),
        sql,
        info_lines: vec![format!("Off now: {}.", disabled.join(", "))],
        scope_lines: vec![
            "Runtime only: the counters are off again after a restart (innodb_monitor_enable \
             in my.cnf keeps them on)."
                .to_string(),
            "Whole groups are enabled: a few other counters of the same modules start too."
                .to_string(),
        ],
        effect_line: "The counters start from 0 now: their rates appear after two polls; \
                      the cost of counting is negligible."
            .to_string(),
        warning_lines: Vec::new(),
        privilege: ctx.flavor.set_global_privilege().to_string(),
        verify_sql: format!(
            "SELECT NAME FROM information_schema.INNODB_METRICS WHERE NAME IN ({names}) \
             AND NOT ({})",
            ctx.flavor.metric_enabled_predicate()
        ),
        alternative: None,
    })
}

/// Plans killing the session that holds the blocking read view.
pub fn plan_kill(blocker: &Blocker, ctx: &PlanContext) -> Result<ChangePlan, Refusal> {
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    let thread_id = blocker.thread_id.ok_or_else(|| Refusal::NoThreadId {
        trx_id: blocker.trx_id.clone(),
    })?;
    let who = format!(
        "{}@{}",
        blocker.user.as_deref().unwrap_or("?"),
        blocker.host.as_deref().unwrap_or("?")
    );
    let age = age_text(blocker.age_s);
    let query = match blocker.query.as_deref().map(str::trim) {
        Some(q) if !q.is_empty() => one_line(q, 200),
        _ => match blocker.command.as_deref() {
            Some("Sleep") => "none (idle in transaction)".to_string(),
            _ => "none".to_string(),
        },
    };
    let mut info_lines = vec![
        format!(
            "Thread {thread_id}: {who}, transaction open for {age} (trx {}, {}{}).",
            blocker.trx_id,
            blocker.state,
            blocker
                .isolation
                .as_deref()
                .map(|i| format!(", {i}"))
                .unwrap_or_default()
        ),
        format!(
            "Command {}; query: {query}",
            blocker.command.as_deref().unwrap_or("?")
        ),
    ];
    info_lines.push(
        "Killing ends the session: its uncommitted work is rolled back (that can take as long \
         as the work took), and its application sees a lost connection."
            .to_string(),
    );
    Ok(ChangePlan {
        title: format!("Kill thread {thread_id} ({who})"),
        action: PlanAction::Kill {
            thread_id,
            seen_age_s: blocker.age_s,
            who: who.clone(),
        },
        variable: format!("thread {thread_id}"),
        current: Some(format!("open for {age}")),
        new: Some("killed".to_string()),
        sql: vec![format!("KILL CONNECTION {thread_id}")],
        info_lines,
        scope_lines: vec![
            "Runs only if the thread still has a transaction at least this old (not a new \
             one on the same session)."
                .to_string(),
        ],
        effect_line: "Once the rollback is done its read view is gone and purge can catch up."
            .to_string(),
        warning_lines: Vec::new(),
        privilege: format!(
            "{} to kill another account's session",
            ctx.flavor.kill_privilege()
        ),
        verify_sql: format!(
            "SELECT COMMAND FROM information_schema.PROCESSLIST WHERE ID = {thread_id}"
        ),
        alternative: None,
    })
}

/// Plans waiting for purge with `innodb_max_purge_lag_wait` (MariaDB): nothing changes; a
/// dedicated session blocks until history ≤ `target`.
pub fn plan_purge_lag_wait(
    target: u64,
    facts: &KnobFacts,
    ctx: &PlanContext,
) -> Result<ChangePlan, Refusal> {
    let server = ctx.flavor.display_name();
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    if !ctx.flavor.has_purge_lag_wait() || !facts.exists {
        return Err(Refusal::Unsupported {
            what: PURGE_LAG_WAIT_VARIABLE.to_string(),
            server,
        });
    }
    if facts.min.is_some_and(|m| target < m) || facts.max.is_some_and(|m| target > m) {
        return Err(Refusal::OutOfRange {
            variable: PURGE_LAG_WAIT_VARIABLE.to_string(),
            asked: target,
            min: facts.min.unwrap_or(0),
            max: facts.max.unwrap_or(u64::MAX),
            server,
        });
    }
    let mut warning_lines = Vec::new();
    if ctx.purge_blocked {
        warning_lines.push(
            "A read view blocks purge now: the wait cannot end before that transaction does."
                .to_string(),
        );
    }
    Ok(ChangePlan {
        title: format!("Wait until history ≤ {target}"),
        action: PlanAction::PurgeLagWait { target },
        variable: "history list length".to_string(),
        current: ctx.history.map(|h| h.to_string()),
        new: Some(format!("≤ {target}")),
        sql: vec![format!("SET GLOBAL {PURGE_LAG_WAIT_VARIABLE} = {target}")],
        info_lines: vec![
            "Runs on a connection of its own that blocks until purge brings history down; \
             progress is shown and it can be cancelled (KILL QUERY of that connection)."
                .to_string(),
        ],
        scope_lines: vec![format!(
            "Changes no setting: {PURGE_LAG_WAIT_VARIABLE} always reads back 4294967295."
        )],
        effect_line: "Tells you when purge has caught up; it does not make purge faster."
            .to_string(),
        warning_lines,
        privilege: ctx.flavor.set_global_privilege().to_string(),
        verify_sql: ctx.flavor.history_length_sql().to_string(),
        alternative: None,
    })
}

/// Names in our SQL come from constant tables; quote anyway.
fn sql_quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\'', "''")
}

fn one_line(s: &str, max_chars: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max_chars {
        let cut: String = flat.chars().take(max_chars).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// `45 s`, `5 min 10 s`, `2 h 03 min`.
pub fn age_text(s: u64) -> String {
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::MetricValue;

    fn mariadb() -> Flavor {
        Flavor::detect("10.11.19-MariaDB-0+deb12u1", "Debian 12", false)
    }
    fn mysql8() -> Flavor {
        Flavor::detect("8.0.36", "MySQL Community Server - GPL", true)
    }
    fn mysql57() -> Flavor {
        Flavor::detect("5.7.44", "MySQL Community Server (GPL)", false)
    }

    fn facts(knob: Knob, current: u64, dynamic: bool, min: u64, max: u64) -> KnobFacts {
        KnobFacts {
            variable: knob.variable().to_string(),
            exists: true,
            current: Some(current),
            dynamic,
            min: Some(min),
            max: Some(max),
            source: FactsSource::SystemVariables,
        }
    }

    #[test]
    fn parses_what_people_type() {
        assert_eq!(parse_input("32"), Ok(32));
        assert_eq!(parse_input(" 1_000_000 "), Ok(1_000_000));
        assert_eq!(parse_input("1,000"), Ok(1000));
        assert_eq!(parse_input("10k"), Ok(10_000));
        assert_eq!(parse_input("2M"), Ok(2_000_000));
        assert_eq!(parse_input("+4"), Ok(4));
        assert!(parse_input("").unwrap_err().contains("type a number"));
        assert!(parse_input("-1").unwrap_err().contains("negative"));
        assert!(parse_input("1.5").unwrap_err().contains("whole number"));
        assert!(parse_input("abc").is_err());
        assert!(parse_input("k").is_err());
        assert!(
            parse_input("99999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
        assert!(
            parse_input("18446744073709551615M")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn knob_names() {
        for k in Knob::ALL {
            assert_eq!(Knob::from_variable(k.variable()), Some(k));
        }
        assert_eq!(
            Knob::from_variable("INNODB_PURGE_THREADS"),
            Some(Knob::PurgeThreads)
        );
        assert_eq!(Knob::from_variable("innodb_io_capacity"), None);
    }

    #[test]
    fn dynamic_set_on_mariadb_says_my_cnf() {
        let ctx = PlanContext::new(mariadb(), false);
        let f = facts(Knob::PurgeThreads, 4, true, 1, 32);
        let p = plan_set(Knob::PurgeThreads, 8, &f, &ctx).unwrap();
        assert_eq!(p.sql, vec!["SET GLOBAL innodb_purge_threads = 8"]);
        assert_eq!(p.verify_sql, "SELECT @@GLOBAL.innodb_purge_threads");
        assert_eq!(p.current.as_deref(), Some("4"));
        assert_eq!(p.new.as_deref(), Some("8"));
        assert!(p.scope_lines[0].contains("lost at the next restart"));
        assert!(p.scope_lines[1].contains("my.cnf"), "{:?}", p.scope_lines);
        assert!(p.alternative.is_none());
        assert_eq!(p.privilege, "SUPER");
        assert!(matches!(p.action, PlanAction::SetGlobal { value: 8, .. }));
        let lines = p.confirm_lines();
        assert!(
            lines.iter().any(|l| l == "innodb_purge_threads: 4 → 8"),
            "{lines:?}"
        );
    }

    #[test]
    fn mysql8_offers_set_persist_as_the_alternative() {
        let ctx = PlanContext::new(mysql8(), false);
        let f = facts(Knob::MaxPurgeLag, 0, true, 0, 4_294_967_295);
        let p = plan_set(Knob::MaxPurgeLag, 100_000, &f, &ctx).unwrap();
        assert_eq!(p.sql, vec!["SET GLOBAL innodb_max_purge_lag = 100000"]);
        assert!(p.privilege.contains("SYSTEM_VARIABLES_ADMIN"));
        let alt = p.alternative.as_deref().unwrap();
        assert_eq!(alt.sql, vec!["SET PERSIST innodb_max_purge_lag = 100000"]);
        assert!(alt.scope_lines[0].contains("survives restarts"));
        assert!(matches!(alt.action, PlanAction::SetPersist { .. }));
    }

    #[test]
    fn purge_threads_read_only_mysql8_is_persist_only_after_restart() {
        let ctx = PlanContext::new(mysql8(), false);
        let spec = mysql8().knob_spec("innodb_purge_threads").unwrap();
        assert!(!spec.dynamic);
        let f = facts(Knob::PurgeThreads, 4, false, spec.min, spec.max);
        let p = plan_set(Knob::PurgeThreads, 8, &f, &ctx).unwrap();
        assert_eq!(p.sql, vec!["SET PERSIST_ONLY innodb_purge_threads = 8"]);
        assert!(p.title.contains("next restart"));
        assert!(
            p.scope_lines[0].contains("takes effect after a restart")
                || p.scope_lines[0].contains("Takes effect after a restart")
        );
        assert!(p.privilege.contains("PERSIST_RO_VARIABLES_ADMIN"));
        assert!(p.verify_sql.contains("persisted_variables"));
    }

    #[test]
    fn purge_threads_on_57_is_refused_with_the_reason() {
        let ctx = PlanContext::new(mysql57(), false);
        let f = facts(Knob::PurgeThreads, 4, false, 1, 32);
        let e = plan_set(Knob::PurgeThreads, 8, &f, &ctx).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Refusal::NotDynamic { .. }));
        assert!(
            msg.contains("my.cnf") && msg.contains("restart") && msg.contains("PERSIST_ONLY"),
            "{msg}"
        );
        assert!(msg.contains("MySQL 5.7.44"), "{msg}");
    }

    #[test]
    fn mariadb_read_only_variable_is_refused() {
        let ctx = PlanContext::new(Flavor::detect("10.5.20-MariaDB", "", false), false);
        let f = facts(Knob::PurgeThreads, 4, false, 1, 32);
        let msg = plan_set(Knob::PurgeThreads, 8, &f, &ctx)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("cannot be changed at runtime") && msg.contains("my.cnf"),
            "{msg}"
        );
    }

    #[test]
    fn refusals() {
        let ctx = PlanContext::new(mariadb(), false);
        let f = facts(Knob::PurgeThreads, 4, true, 1, 32);
        let e = plan_set(Knob::PurgeThreads, 33, &f, &ctx).unwrap_err();
        assert_eq!(
            e.to_string(),
            "33 is out of range for innodb_purge_threads: MariaDB 10.11.19 accepts 1 to 32"
        );
        let e = plan_set(Knob::PurgeThreads, 0, &f, &ctx).unwrap_err();
        assert!(matches!(
            e,
            Refusal::OutOfRange {
                asked: 0,
                min: 1,
                ..
            }
        ));
        assert!(matches!(
            plan_set(Knob::PurgeThreads, 4, &f, &ctx),
            Err(Refusal::Unchanged { value: 4, .. })
        ));
        let missing = KnobFacts {
            exists: false,
            ..f.clone()
        };
        assert!(
            plan_set(Knob::PurgeThreads, 5, &missing, &ctx)
                .unwrap_err()
                .to_string()
                .contains("does not exist")
        );
        let ro = PlanContext::new(mariadb(), true);
        let e = plan_set(Knob::PurgeThreads, 5, &f, &ro).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("read-only mode: changes are disabled")
        );
        assert_eq!(
            plan_enable_monitors(&["purge_invoked".into()], &ro),
            Err(Refusal::ReadOnly)
        );
        assert_eq!(plan_kill(&Blocker::default(), &ro), Err(Refusal::ReadOnly));
        assert_eq!(
            plan_step(Knob::PurgeThreads, 1, &f, &ro),
            Err(Refusal::ReadOnly)
        );
    }

    #[test]
    fn steps() {
        let ctx = PlanContext::new(mariadb(), false);
        let f = facts(Knob::PurgeThreads, 4, true, 1, 32);
        assert_eq!(
            plan_step(Knob::PurgeThreads, 1, &f, &ctx)
                .unwrap()
                .new
                .as_deref(),
            Some("5")
        );
        assert_eq!(
            plan_step(Knob::PurgeThreads, -1, &f, &ctx)
                .unwrap()
                .new
                .as_deref(),
            Some("3")
        );
        let one = facts(Knob::PurgeThreads, 1, true, 1, 32);
        let e = plan_step(Knob::PurgeThreads, -1, &one, &ctx).unwrap_err();
        assert_eq!(
            e.to_string(),
            "innodb_purge_threads is already at its minimum (1)"
        );
        let top = facts(Knob::PurgeThreads, 32, true, 1, 32);
        let e = plan_step(Knob::PurgeThreads, 1, &top, &ctx).unwrap_err();
        assert_eq!(
            e.to_string(),
            "innodb_purge_threads is already at its maximum (32)"
        );
        let zero = facts(Knob::MaxPurgeLag, 0, true, 0, u64::MAX);
        assert!(matches!(
            plan_step(Knob::MaxPurgeLag, -1, &zero, &ctx),
            Err(Refusal::AtLimit {
                which: "minimum",
                ..
            })
        ));
        let unknown = KnobFacts { current: None, ..f };
        assert!(matches!(
            plan_step(Knob::PurgeThreads, 1, &unknown, &ctx),
            Err(Refusal::CurrentUnknown { .. })
        ));
    }

    #[test]
    fn unknown_range_warns_and_lets_the_server_decide() {
        let ctx = PlanContext::new(mariadb(), false);
        let f = KnobFacts {
            max: None,
            source: FactsSource::Unknown,
            ..facts(Knob::PurgeThreads, 4, true, 1, 32)
        };
        let p = plan_set(Knob::PurgeThreads, 33, &f, &ctx).unwrap();
        assert!(p.warning_lines.iter().any(|w| w.contains("may truncate")));
    }

    fn blocked(flavor: Flavor) -> PlanContext {
        PlanContext {
            purge_blocked: true,
            history: Some(60_000),
            max_purge_lag: Some(20_000),
            max_purge_lag_delay: Some(2000),
            ..PlanContext::new(flavor, false)
        }
    }

    #[test]
    fn delay_while_blocked_per_flavour() {
        // Raising the delay cap.
        let f = facts(Knob::MaxPurgeLagDelay, 2000, true, 0, 10_000_000);
        let my = plan_set(Knob::MaxPurgeLagDelay, 5000, &f, &blocked(mysql8())).unwrap();
        assert!(
            my.warning_lines[0].contains("the delay will slow DML without letting purge progress"),
            "{:?}",
            my.warning_lines
        );
        let ma = plan_set(Knob::MaxPurgeLagDelay, 5000, &f, &blocked(mariadb())).unwrap();
        assert!(
            ma.warning_lines[0].contains("armed: it will throttle writes as soon as purge resumes"),
            "{:?}",
            ma.warning_lines
        );
        // Lowering the cap is no trap.
        assert!(
            plan_set(Knob::MaxPurgeLagDelay, 1000, &f, &blocked(mysql8()))
                .unwrap()
                .warning_lines
                .is_empty()
        );
        // Lowering max_purge_lag is; setting it to 0 is the way out.
        let lag = facts(Knob::MaxPurgeLag, 20_000, true, 0, u64::MAX);
        assert!(
            !plan_set(Knob::MaxPurgeLag, 10_000, &lag, &blocked(mysql8()))
                .unwrap()
                .warning_lines
                .is_empty()
        );
        let off = plan_set(Knob::MaxPurgeLag, 0, &lag, &blocked(mysql8())).unwrap();
        assert!(off.warning_lines.is_empty());
        assert!(off.effect_line.contains("off"));
        // Not blocked: no warning.
        let calm = PlanContext {
            purge_blocked: false,
            ..blocked(mysql8())
        };
        assert!(
            plan_set(Knob::MaxPurgeLag, 10_000, &lag, &calm)
                .unwrap()
                .warning_lines
                .is_empty()
        );
        // More threads while blocked.
        let th = facts(Knob::PurgeThreads, 4, true, 1, 32);
        assert!(
            plan_set(Knob::PurgeThreads, 8, &th, &blocked(mariadb()))
                .unwrap()
                .warning_lines[0]
                .contains("blocks purge")
        );
    }

    #[test]
    fn effect_lines_use_the_formula() {
        let ctx = blocked(mysql8());
        let lag = facts(Knob::MaxPurgeLag, 0, true, 0, u64::MAX);
        // history 60,000 / 20,000 = 3 → (3 − 0.5) × 10,000 = 25,000 µs, capped at 2,000.
        let p = plan_set(Knob::MaxPurgeLag, 20_000, &lag, &ctx).unwrap();
        assert!(p.effect_line.contains("~2000 µs"), "{}", p.effect_line);
        let d = facts(Knob::MaxPurgeLagDelay, 2000, true, 0, 10_000_000);
        let p = plan_set(Knob::MaxPurgeLagDelay, 0, &d, &ctx).unwrap();
        assert!(p.effect_line.contains("~25000 µs"), "{}", p.effect_line);
        let off = PlanContext {
            max_purge_lag: Some(0),
            ..ctx
        };
        let p = plan_set(Knob::MaxPurgeLagDelay, 5000, &d, &off).unwrap();
        assert!(
            p.effect_line
                .contains("no effect while innodb_max_purge_lag is 0")
        );
    }

    #[test]
    fn monitors_one_statement_per_group() {
        let ctx = PlanContext::new(mariadb(), false);
        let off: Vec<String> = [
            "purge_invoked",
            "purge_undo_log_pages",
            "buffer_flush_sync_total_pages",
            "buffer_page_read_undo_log",
            "trx_rseg_current_size",
            "log_lsn_current",
        ]
        .map(String::from)
        .to_vec();
        let p = plan_enable_monitors(&off, &ctx).unwrap();
        assert_eq!(
            p.sql,
            vec![
                "SET GLOBAL innodb_monitor_enable = 'module_buffer'",
                "SET GLOBAL innodb_monitor_enable = 'module_purge'",
                "SET GLOBAL innodb_monitor_enable = 'module_log'",
                "SET GLOBAL innodb_monitor_enable = 'trx_rseg_current_size'",
                "SET GLOBAL innodb_monitor_enable = 'module_buffer_page'",
            ]
        );
        assert!(p.info_lines[0].contains("purge_invoked, purge_undo_log_pages"));
        assert!(p.verify_sql.contains("ENABLED = 1"));
        let my = plan_enable_monitors(&off[..1], &PlanContext::new(mysql8(), false)).unwrap();
        assert_eq!(
            my.sql,
            vec!["SET GLOBAL innodb_monitor_enable = 'module_purge'"]
        );
        assert!(my.verify_sql.contains("STATUS = 'enabled'"));
        assert_eq!(
            plan_enable_monitors(&[], &ctx),
            Err(Refusal::NothingToEnable)
        );
    }

    #[test]
    fn an_unreadable_source_is_refused_with_its_privilege() {
        let u = Unreadable {
            source: crate::sample::SourceKind::InnodbMetrics,
            what: "information_schema.INNODB_METRICS".into(),
            privilege: Some("PROCESS".into()),
            error: "error 1227: Access denied".into(),
            figures: vec!["purge.records_per_s".into()],
        };
        assert_eq!(
            Refusal::metrics_unreadable(&u).to_string(),
            "information_schema.INNODB_METRICS cannot be read (needs PROCESS privilege (GRANT \
             PROCESS ON *.* TO the account)), so which monitor counters are off is unknown"
        );
        let no_privilege = Unreadable {
            privilege: None,
            error: "error 1146: Table doesn't exist".into(),
            ..u
        };
        let msg = Refusal::blocker_unreadable(&no_privilege).to_string();
        assert!(
            msg.contains("error 1146") && msg.contains("whether a transaction blocks purge"),
            "{msg}"
        );
    }

    #[test]
    fn disabled_counters_from_a_sample() {
        let mut s = Sample::new(chrono::Utc::now(), 0.0);
        s.metrics.insert(
            "trx_rseg_history_len".into(),
            MetricValue {
                count: 5,
                enabled: true,
            },
        );
        s.metrics.insert(
            "purge_invoked".into(),
            MetricValue {
                count: 0,
                enabled: false,
            },
        );
        assert_eq!(disabled_counters(&s), vec!["purge_invoked".to_string()]);
    }

    #[test]
    fn kill_plan_names_the_session() {
        let ctx = PlanContext::new(mariadb(), false);
        let b = Blocker {
            trx_id: "421".into(),
            thread_id: Some(57),
            user: Some("app".into()),
            host: Some("10.0.0.5:41234".into()),
            age_s: 310,
            state: "RUNNING".into(),
            query: Some("SELECT *\n  FROM orders".into()),
            isolation: Some("REPEATABLE READ".into()),
            command: Some("Query".into()),
        };
        let p = plan_kill(&b, &ctx).unwrap();
        assert_eq!(p.sql, vec!["KILL CONNECTION 57"]);
        assert_eq!(
            p.action,
            PlanAction::Kill {
                thread_id: 57,
                seen_age_s: 310,
                who: "app@10.0.0.5:41234".into()
            }
        );
        let text = p.confirm_lines().join("\n");
        assert!(
            text.contains("app@10.0.0.5:41234") && text.contains("5 min 10 s"),
            "{text}"
        );
        assert!(text.contains("query: SELECT * FROM orders"), "{text}");
        assert!(text.contains("rolled back"), "{text}");
        assert!(p.privilege.contains("CONNECTION ADMIN"));
        let idle = Blocker {
            query: None,
            command: Some("Sleep".into()),
            ..b.clone()
        };
        assert!(plan_kill(&idle, &ctx).unwrap().info_lines[1].contains("idle in transaction"));
        let none = Blocker {
            thread_id: None,
            ..b
        };
        assert!(matches!(
            plan_kill(&none, &ctx),
            Err(Refusal::NoThreadId { .. })
        ));
    }

    #[test]
    fn purge_lag_wait_plan() {
        let f = KnobFacts {
            variable: PURGE_LAG_WAIT_VARIABLE.into(),
            exists: true,
            current: Some(4_294_967_295),
            dynamic: true,
            min: Some(0),
            max: Some(4_294_967_295),
            source: FactsSource::SystemVariables,
        };
        let p = plan_purge_lag_wait(100, &f, &blocked(mariadb())).unwrap();
        assert_eq!(p.sql, vec!["SET GLOBAL innodb_max_purge_lag_wait = 100"]);
        assert!(p.warning_lines[0].contains("cannot end"));
        assert!(matches!(
            plan_purge_lag_wait(100, &f, &PlanContext::new(mysql8(), false)),
            Err(Refusal::Unsupported { .. })
        ));
        assert!(matches!(
            plan_purge_lag_wait(1 << 40, &f, &PlanContext::new(mariadb(), false)),
            Err(Refusal::OutOfRange { .. })
        ));
    }

    #[test]
    fn ages() {
        assert_eq!(age_text(45), "45 s");
        assert_eq!(age_text(310), "5 min 10 s");
        assert_eq!(age_text(7380), "2 h 03 min");
    }
}
