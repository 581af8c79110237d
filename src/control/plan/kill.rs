//! Killing the session that holds the read view blocking purge: who it is, what it runs,
//! what a kill costs (the rollback), and a check that it is still the transaction that was
//! seen.

use super::{ChangePlan, PlanAction, PlanContext, Refusal};
use innodebt_engine::figures::Blocker;

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
