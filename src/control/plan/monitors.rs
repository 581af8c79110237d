//! Switching on the INNODB_METRICS counters the panels need: one `innodb_monitor_enable`
//! per module group, and a read-back of what is still off.

use super::{ChangePlan, PlanAction, PlanContext, Refusal, sql_quote};
use innodebt_server::flavor::MONITOR_GROUPS;

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
