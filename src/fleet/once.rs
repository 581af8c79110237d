//! `fleet --once`: one look at every server and the fleet nearest breach first, as text for a
//! ticket or JSON for a script — the rows and the order of the fleet screen. A server that
//! has not answered by the end of the look is said so, never left out.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::poll::Incoming;
use super::row::{RowFigures, RowLink, needs_attention};
use super::state::{Fleet, Msg, Server};
use crate::cli::OutputFormat;
use innodebt_engine::figures::Severity;
use innodebt_engine::units;

/// Whether a server's row is what one look can say: down, or judged (a verdict still
/// watching history is waited for, as `--once` waits for it).
fn settled(s: &Server) -> bool {
    match &s.link {
        RowLink::Waiting => false,
        RowLink::Down { .. } => true,
        RowLink::Up => s
            .figures
            .as_ref()
            .and_then(|f| f.verdict.as_ref())
            .is_some_and(|(_, sev)| *sev != Severity::Unknown),
    }
}

/// Reads rows until every server is settled or `limit` has passed.
pub async fn look(fleet: &mut Fleet, incoming: &mut mpsc::Receiver<Incoming>, limit: Duration) {
    let deadline = Instant::now() + limit;
    while !fleet.servers.iter().all(settled) {
        match tokio::time::timeout_at(deadline, incoming.recv()).await {
            Ok(Some(m)) => {
                if let (Some(msg), _) = m.into_msg() {
                    fleet.update(msg);
                }
            }
            Ok(None) | Err(_) => break,
        }
    }
    fleet.update(Msg::Tick(Utc::now()));
}

/// The row's state in one word, and why when it is not up.
fn state(s: &Server, limit: Duration) -> (&'static str, Option<String>) {
    match &s.link {
        RowLink::Up => ("up", None),
        RowLink::Down { error } => ("down", Some(error.clone())),
        RowLink::Waiting => (
            "waiting",
            Some(format!(
                "no figures within {}",
                units::duration(limit.as_secs())
            )),
        ),
    }
}

fn at(t: Option<DateTime<Utc>>) -> Value {
    t.map_or(Value::Null, |t| {
        Value::String(t.to_rfc3339_opts(SecondsFormat::Millis, true))
    })
}

/// The fleet as JSON: every server in display order with its row's figures.
pub fn json(fleet: &Fleet, limit: Duration) -> Value {
    let servers: Vec<Value> = fleet
        .order
        .iter()
        .filter_map(|i| fleet.servers.get(*i))
        .map(|s| {
            let (state, why) = state(s, limit);
            let f = s.figures.clone().unwrap_or_default();
            json!({
                "name": s.name,
                "group": s.group,
                "tags": s.tags,
                "source": s.source,
                "state": state,
                "error": why,
                "updated": at(s.updated),
                "verdict": f.verdict.as_ref().map(|v| v.0.clone()),
                "severity": f.verdict.as_ref().map(|v| v.1),
                "needs_attention": needs_attention(&s.link, s.figures.as_ref()),
                "checkpoint_age_pct_of_async": f.age_pct_of_async,
                "seconds_to_async_point": f.seconds_to_async,
                "seconds_to_sync_point": f.seconds_to_stall,
                "history_length": f.history,
                "seconds_to_max_purge_lag": f.history_eta_s,
                "blocker_age_s": f.blocker_age_s,
                "blocker_thread_id": f.blocker_thread,
                "dirty_pct": f.dirty_pct,
                "dml_delay_us": f.dml_delay_us,
            })
        })
        .collect();
    json!({
        "sampled_at": fleet.now.to_rfc3339_opts(SecondsFormat::Millis, true),
        "via": fleet.via,
        "notice": fleet.notice,
        "servers": servers,
    })
}

fn cell<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// The fleet as text: a title line, then one line per server, nearest breach first.
pub fn text(fleet: &Fleet, limit: Duration) -> String {
    let attention = fleet
        .servers
        .iter()
        .filter(|s| needs_attention(&s.link, s.figures.as_ref()))
        .count();
    let down = fleet
        .servers
        .iter()
        .filter(|s| !matches!(s.link, RowLink::Up))
        .count();
    let mut rows = vec![[
        "SERVER".to_string(),
        "STATE".to_string(),
        "AGE/ASYNC".to_string(),
        "HISTORY".to_string(),
        "BLOCKER".to_string(),
        "DIRTY".to_string(),
        "BREACH IN".to_string(),
    ]];
    let mut notes = Vec::new();
    for s in fleet.order.iter().filter_map(|i| fleet.servers.get(*i)) {
        let (state, why) = state(s, limit);
        let f: RowFigures = s.figures.clone().unwrap_or_default();
        let verdict = match (&f.verdict, state) {
            (Some((kind, sev)), "up") => format!("{} {kind}", sev.as_str()),
            _ => state.to_string(),
        };
        if let Some(why) = why {
            notes.push(format!("{}: {why}", s.name));
        }
        rows.push([
            s.name.clone(),
            verdict,
            cell(f.age_pct_of_async, |v| format!("{v:.0}%")),
            cell(f.history, |v| units::count(v as f64)),
            cell(f.blocker_age_s.filter(|a| *a > 0), units::duration),
            cell(f.dirty_pct, |v| format!("{v:.1}%")),
            cell(f.soonest_breach_s(), |v| units::duration(v as u64)),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let via = fleet
        .via
        .as_ref()
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    let mut out = format!(
        "innodebt fleet at {}{via}: {} servers, {attention} need attention, {down} not answering\n",
        fleet.now.to_rfc3339_opts(SecondsFormat::Secs, true),
        fleet.servers.len()
    );
    if let Some(n) = &fleet.notice {
        out.push_str(n);
        out.push('\n');
    }
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// Prints the fleet after one look (a reader that stops early is a quiet success).
pub fn print(fleet: &Fleet, format: OutputFormat, limit: Duration) -> std::process::ExitCode {
    match format {
        OutputFormat::Json => crate::mode::emit(&format!(
            "{}\n",
            crate::output::json_of(&json(fleet, limit))
        )),
        OutputFormat::Text => crate::mode::emit(&text(fleet, limit)),
    }
}
