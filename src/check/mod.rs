//! `innodebt check`: one moment's figures as a monitoring plugin reports them (the Monitoring
//! Plugins Development Guidelines: `SERVICE STATUS: text | perfdata`, then long text; exit
//! 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN). Pure: the verdicts were judged with the figures;
//! this only reads them, and the `--warning`/`--critical` expressions (the `--trigger`
//! grammar) when given. `perfdata` writes the performance data.

mod perfdata;

use crate::text::strip_controls;
use crate::trigger::{self, Trigger};
use innodebt_engine::figures::{Figures, Severity, VerdictKind};

pub use perfdata::perfdata;

/// The service name on the status line.
const SERVICE: &str = "INNODEBT";

/// `--warning` / `--critical`, parsed. Empty: the verdicts' own severities decide.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PluginThresholds {
    pub warning: Vec<Trigger>,
    pub critical: Vec<Trigger>,
}

impl PluginThresholds {
    /// Parses both flags with the `--trigger` grammar; the error names the flag.
    pub fn parse(
        warning: Option<&str>,
        critical: Option<&str>,
    ) -> Result<PluginThresholds, String> {
        let one = |flag: &str, spec: Option<&str>| match spec {
            Some(s) => trigger::parse_flag(flag, s),
            None => Ok(Vec::new()),
        };
        Ok(PluginThresholds {
            warning: one("--warning", warning)?,
            critical: one("--critical", critical)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.warning.is_empty() && self.critical.is_empty()
    }
}

/// What the check reports: its state, the status line's text, the performance data and the
/// long text (every verdict in full).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub state: Severity,
    pub summary: String,
    pub perfdata: String,
    pub details: Vec<String>,
}

/// The plugin's exit code for a state: `unknown` is 3, never 0.
pub fn exit_code(state: Severity) -> u8 {
    match state {
        Severity::Ok => 0,
        Severity::Warning => 1,
        Severity::Critical => 2,
        Severity::Unknown => 3,
    }
}

fn state_word(state: Severity) -> &'static str {
    match state {
        Severity::Ok => "OK",
        Severity::Warning => "WARNING",
        Severity::Critical => "CRITICAL",
        Severity::Unknown => "UNKNOWN",
    }
}

/// `|` starts the performance data and a newline ends the status line: neither may come from
/// a message (a statement, a user name) or the plugin's output is misread.
fn plain(text: &str) -> String {
    strip_controls(&text.replace(['\n', '\r'], " ")).replace('|', "/")
}

impl Report {
    /// The check could not look (no connection, a bad flag): UNKNOWN with the reason.
    pub fn unknown(reason: &str) -> Report {
        Report {
            state: Severity::Unknown,
            summary: plain(reason),
            perfdata: String::new(),
            details: Vec::new(),
        }
    }

    /// The plugin output: the status line (with performance data), then the long text.
    pub fn render(&self) -> String {
        let mut out = format!("{SERVICE} {}: {}", state_word(self.state), self.summary);
        if !self.perfdata.is_empty() {
            out.push_str(" | ");
            out.push_str(&self.perfdata);
        }
        out.push('\n');
        for d in &self.details {
            out.push_str(d);
            out.push('\n');
        }
        out
    }

    pub fn exit_code(&self) -> u8 {
        exit_code(self.state)
    }
}

/// The figures of one look, judged for a monitoring system. Without thresholds the worst
/// verdict's severity is the state; with them, the thresholds that hold (CRITICAL before
/// WARNING), and a threshold whose figure is unknown keeps the state from being OK. Either
/// way the `unknown` verdict and a source the account may not read make the state at least
/// UNKNOWN: what cannot be seen is not reported as fine.
pub fn judge(f: &Figures, t: &PluginThresholds) -> Report {
    let worst = f.worst_verdict();
    let mut parts: Vec<String> = Vec::new();
    let mut state = if t.is_empty() {
        f.severity().unwrap_or(Severity::Unknown)
    } else {
        let holding = |set: &[Trigger]| -> Vec<String> {
            set.iter()
                .filter_map(|x| x.holds(f))
                .map(|c| c.message)
                .collect()
        };
        let (critical, warning) = (holding(&t.critical), holding(&t.warning));
        let state = if !critical.is_empty() {
            parts.extend(critical);
            Severity::Critical
        } else if !warning.is_empty() {
            parts.extend(warning);
            Severity::Warning
        } else {
            Severity::Ok
        };
        let unreadable = unknown_figures(f, t);
        if state == Severity::Ok && !unreadable.is_empty() {
            parts.extend(unreadable);
            Severity::Unknown
        } else {
            state
        }
    };
    if f.verdicts.iter().any(|v| v.kind == VerdictKind::Unknown) || worst.is_none() {
        state = state.max(Severity::Unknown);
    }
    // A refused source leaves figures the verdicts need unknown: say which and the grant.
    let refused: Vec<String> = f
        .unavailable
        .iter()
        .filter(|u| u.privilege.is_some())
        .map(|u| format!("{} {}", u.what, u.reason()))
        .collect();
    if !refused.is_empty() {
        state = state.max(Severity::Unknown);
    }
    let verdicts = match worst {
        Some(v) => {
            let others: Vec<String> = f
                .verdicts
                .iter()
                .filter(|o| o.kind != v.kind)
                .map(|o| o.kind.words())
                .collect();
            let more = if others.is_empty() {
                String::new()
            } else {
                format!(" (+{}: {})", others.len(), others.join(", "))
            };
            format!("{}{more}: {}", v.kind.words(), v.message)
        }
        None => "no verdict: the figures could not be judged".to_string(),
    };
    // An UNKNOWN leads with why; otherwise what crossed a threshold, then the verdict.
    if state == Severity::Unknown {
        parts = refused.into_iter().chain(parts).collect();
        parts.push(verdicts);
    } else {
        parts.push(verdicts);
        parts.extend(refused);
    }
    let details = f
        .verdicts
        .iter()
        .map(|v| {
            plain(&format!(
                "{} {} since {}: {}",
                v.severity.as_str(),
                v.kind.words(),
                v.since.format("%H:%M:%S"),
                v.message
            ))
        })
        .collect();
    Report {
        state,
        summary: plain(&parts.join(" · ")),
        perfdata: perfdata(f, t),
        details,
    }
}

/// `checkpoint_age_pct unknown (needs PROCESS privilege)` for each threshold's figure the
/// figures do not have.
fn unknown_figures(f: &Figures, t: &PluginThresholds) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in t.warning.iter().chain(&t.critical) {
        let Trigger::Threshold { figure, .. } = x else {
            continue;
        };
        if figure.value(f).is_some() {
            continue;
        }
        let line = format!("{} unknown", figure.name());
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests;
