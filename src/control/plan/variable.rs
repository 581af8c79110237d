//! Setting a purge variable (`innodb_purge_threads`, `innodb_max_purge_lag`, its delay cap,
//! `innodb_purge_batch_size`): `SET GLOBAL`, MySQL 8's `SET PERSIST` / `PERSIST_ONLY`, or a
//! refusal with the way that works on this server; the likely effect by the server's own
//! formula, and what a read view blocking purge would make of it.

use super::{ChangePlan, PlanAction, PlanContext, PurgeVariable, Refusal, VariableFacts};

/// Plans `variable = current + delta` (the ± keys).
pub fn plan_step(
    variable: PurgeVariable,
    delta: i64,
    facts: &VariableFacts,
    ctx: &PlanContext,
) -> Result<ChangePlan, Refusal> {
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    let current = facts.current.ok_or_else(|| Refusal::CurrentUnknown {
        variable: variable.name().to_string(),
    })?;
    let limit = |value: u64, minimum: bool| Refusal::AtLimit {
        variable: variable.name().to_string(),
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
    plan_set(variable, new, facts, ctx)
}

/// Plans `SET GLOBAL variable = new_value` (or the flavour's nearest equivalent), or refuses.
pub fn plan_set(
    which: PurgeVariable,
    new_value: u64,
    facts: &VariableFacts,
    ctx: &PlanContext,
) -> Result<ChangePlan, Refusal> {
    let variable = which.name();
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
    let mut warning_lines = blocked_warnings(which, new_value, facts.current, ctx);
    if facts.min.is_none() || facts.max.is_none() {
        warning_lines.push(format!(
            "the accepted range of {variable} is unknown here: the server may truncate the value \
             (the result is read back and shown)"
        ));
    }
    let effect_line = effect_line(which, new_value, ctx);
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
fn tightens_delay(
    variable: PurgeVariable,
    new: u64,
    current: Option<u64>,
    ctx: &PlanContext,
) -> bool {
    match variable {
        // Switching it on, or lowering the threshold.
        PurgeVariable::MaxPurgeLag => new > 0 && current.is_none_or(|c| c == 0 || new < c),
        // Raising the cap (0 = no cap, the most there is) while the lag is on.
        PurgeVariable::MaxPurgeLagDelay => {
            let raises = match current {
                Some(0) => false,
                Some(c) => new == 0 || new > c,
                None => true,
            };
            raises && ctx.max_purge_lag.is_none_or(|l| l > 0)
        }
        PurgeVariable::PurgeThreads | PurgeVariable::PurgeBatchSize => false,
    }
}

fn blocked_warnings(
    variable: PurgeVariable,
    new: u64,
    current: Option<u64>,
    ctx: &PlanContext,
) -> Vec<String> {
    if !ctx.purge_blocked {
        return Vec::new();
    }
    if tightens_delay(variable, new, current, ctx) {
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
    match variable {
        PurgeVariable::PurgeThreads | PurgeVariable::PurgeBatchSize
            if current.is_none_or(|c| new > c) =>
        {
            vec![
                "A read view blocks purge now: more purge capacity cannot remove history that \
                 view may still need. End the blocking transaction first (K)."
                    .to_string(),
            ]
        }
        _ => Vec::new(),
    }
}

fn effect_line(variable: PurgeVariable, new: u64, ctx: &PlanContext) -> String {
    let f = ctx.flavor;
    match variable {
        PurgeVariable::MaxPurgeLag if new == 0 => {
            "Turns the purge-lag DML delay off: writes are no longer slowed by history length."
                .to_string()
        }
        PurgeVariable::MaxPurgeLag => {
            let cap = ctx.max_purge_lag_delay.unwrap_or(0);
            let formula = f.dml_delay_formula(new);
            if ctx.max_purge_lag_delay == Some(0) {
                return format!(
                    "innodb_max_purge_lag_delay is 0, which caps the delay at 0 µs: DML is not \
                     delayed at all, whatever the history (0 is not \"no cap\"; set a cap with \
                     key d for {formula} to act)."
                );
            }
            match ctx.history {
                Some(h) if h > new => format!(
                    "At today's history ({h}) each DML row would wait ~{} µs ({formula}{}).",
                    f.dml_delay_us(h, new, cap, ctx.purge_threads, ctx.purge_batch_size),
                    cap_text(cap)
                ),
                Some(h) => format!(
                    "No delay while history (now {h}) stays ≤ {new}; above it each DML row waits \
                     {formula}{}.",
                    cap_text(cap)
                ),
                None => format!(
                    "Above {new} undo logs of history each DML row waits {formula}{}.",
                    cap_text(cap)
                ),
            }
        }
        PurgeVariable::MaxPurgeLagDelay => match (ctx.max_purge_lag, ctx.history) {
            (Some(0), _) => format!(
                "Caps the DML delay at {}; no effect while innodb_max_purge_lag is 0 (off).",
                delay_text(new)
            ),
            (Some(lag), Some(h)) => format!(
                "Caps the DML delay at {}: at today's history ({h}) each DML row would wait \
                 ~{} µs.",
                delay_text(new),
                f.dml_delay_us(h, lag, new, ctx.purge_threads, ctx.purge_batch_size)
            ),
            _ => format!(
                "Caps the per-row DML delay of innodb_max_purge_lag at {}.",
                delay_text(new)
            ),
        },
        PurgeVariable::PurgeThreads => {
            "More purge threads purge faster when purge itself is the bottleneck (not when a \
             read view blocks it), at the cost of CPU and I/O for queries."
                .to_string()
        }
        PurgeVariable::PurgeBatchSize => {
            "Undo pages purge handles per batch: bigger batches purge more per round, with \
             bigger I/O bursts; smaller ones purge more gently."
                .to_string()
        }
    }
}

fn cap_text(cap: u64) -> String {
    format!(", capped at innodb_max_purge_lag_delay = {cap} µs")
}

/// Every flavour clamps the delay to the cap: 0 is no delay at all (MySQL Bug #72269).
fn delay_text(us: u64) -> String {
    if us == 0 {
        "0 µs: no delay at all".to_string()
    } else {
        format!("{us} µs")
    }
}
