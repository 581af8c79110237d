//! The keys that change the server (`t` `T` `P` `l` `d` `b`, `m`, `K`, `R`): what stops them
//! here (a change still running, no server yet), and the first step of each — facts to read,
//! or a plan to confirm. Only a server innodebt may change has these keys (`keymap::LIVE`):
//! a replay, `--read-only` and a watched server never reach here.

use super::{App, Command, FactsThen};
use crate::control::{self, ChangePlan, PlanContext, PurgeVariable, Refusal};
use innodebt_server::sample::SourceKind;

/// Why a change key does nothing here, if it doesn't.
fn change_blocked(app: &App) -> Option<String> {
    if app.busy.is_some() {
        return Some("another change is still running: wait for its result".into());
    }
    if app.live.info().is_none() {
        return Some("not connected to a server yet".into());
    }
    None
}

/// `t`/`T`/`P`/`l`/`d`/`b`: read the variable's facts first (a side connection), then step or ask.
pub(super) fn change_key(app: &mut App, variable: PurgeVariable, then: FactsThen) -> Vec<Command> {
    if let Some(why) = change_blocked(app) {
        app.notice(variable.name(), why);
        return Vec::new();
    }
    app.busy = Some(format!("reading {} …", variable.name()));
    vec![Command::FetchFacts { variable, then }]
}

/// `m`: enable the counters the panels need that are off.
pub(super) fn monitors_key(app: &mut App) -> Vec<Command> {
    if let Some(why) = change_blocked(app) {
        app.notice("INNODB_METRICS", why);
        return Vec::new();
    }
    let latest = app.live.latest.as_ref();
    if let Some(u) = latest.and_then(|f| f.refused(SourceKind::InnodbMetrics)) {
        let why = control::Refusal::metrics_unreadable(u).to_string();
        app.notice("INNODB_METRICS", why);
        return Vec::new();
    }
    let off = latest.map(|f| f.metrics_off.clone()).unwrap_or_default();
    confirm_or_say_why(app, "INNODB_METRICS", |ctx| {
        control::plan_enable_monitors(&off, ctx)
    });
    Vec::new()
}

/// `R`: more rollback segments for writers that queue on too few (MySQL 8: `SET GLOBAL
/// innodb_rollback_segments`; elsewhere the refusal names the flavour's way).
pub(super) fn rollback_segments_key(app: &mut App) -> Vec<Command> {
    const TITLE: &str = "Rollback segments";
    if let Some(why) = change_blocked(app) {
        app.notice(TITLE, why);
        return Vec::new();
    }
    let Some(r) = app.live.latest.as_ref().map(|f| f.rollback.clone()) else {
        app.notice(TITLE, "no figures yet".into());
        return Vec::new();
    };
    confirm_or_say_why(app, TITLE, |ctx| control::plan_rollback_segments(&r, ctx));
    Vec::new()
}

/// `K`: kill the session the history panel names as the purge blocker.
pub(super) fn kill_key(app: &mut App) -> Vec<Command> {
    if let Some(why) = change_blocked(app) {
        app.notice("Kill the purge blocker", why);
        return Vec::new();
    }
    let latest = app.live.latest.as_ref();
    let blocker = latest.and_then(|f| f.blocker.clone());
    let unreadable = latest.and_then(|f| f.refused(SourceKind::InnodbTrx));
    if let (None, Some(u)) = (&blocker, unreadable) {
        let why = control::Refusal::blocker_unreadable(u).to_string();
        app.notice("Kill the purge blocker", why);
        return Vec::new();
    }
    let Some(blocker) = blocker else {
        app.notice(
            "Kill the purge blocker",
            "no transaction is blocking purge right now".into(),
        );
        return Vec::new();
    };
    confirm_or_say_why(app, "Kill the purge blocker", |ctx| {
        control::plan_kill(&blocker, ctx)
    });
    Vec::new()
}

/// Plans a change against what the screen shows and asks to confirm it, or says (under
/// `title`) why it cannot be made.
fn confirm_or_say_why(
    app: &mut App,
    title: &str,
    plan: impl FnOnce(&PlanContext) -> Result<ChangePlan, Refusal>,
) {
    match app
        .plan_context()
        .ok_or_else(|| "not connected".to_string())
        .and_then(|ctx| plan(&ctx).map_err(|r| r.to_string()))
    {
        Ok(plan) => app.confirm_plan(plan),
        Err(e) => app.notice(title, e),
    }
}
