//! The words of `healthy`: only what this sample established, never more. "History is not
//! growing" next to a growth of +7/s, or on a first sample with no growth yet, would be a
//! claim the figures contradict.

use crate::figures::{Figures, Severity};
use crate::units::count;

use super::FlushJudgement;
use super::Thresholds;
use super::purge::{PurgeJudgement, caught_up, consequence};

/// `no problem: …`, each clause one the figures back.
pub(crate) fn message(
    f: &Figures,
    judged: &PurgeJudgement,
    flush: &FlushJudgement,
    th: &Thresholds,
) -> String {
    let mut said = Vec::new();
    if judged.blocked == Some(false) {
        said.push("no read view blocks purge".to_string());
    }
    let growth = judged.history_growth_per_s;
    let history = match growth {
        _ if caught_up(f, th) == Some(true) => match f.purge.lag_words() {
            Some(w) if f.purge.lag_trx_numbers != Some(0) => {
                format!("purge has caught up ({w} behind)")
            }
            _ => "purge has caught up".to_string(),
        },
        Some(g) if g <= -th.growth_min_per_s => format!("history is falling ({g:+.1}/s)"),
        Some(g) if g < th.growth_min_per_s => "history is steady".to_string(),
        Some(g) => match consequence(f, g, th) {
            None => format!(
                "history {g:+.1}/s reaches no limit within {}",
                horizon(th.consequence_horizon_s)
            ),
            Some(_) => format!("history {g:+.1}/s with purge keeping up with the writes"),
        },
        None => match f.history.length {
            Some(h) => format!("history {} (its growth not measured yet)", count(h as f64)),
            None => String::new(),
        },
    };
    if !history.is_empty() {
        said.push(history);
    }
    if flush.checkpoint_age == Some(Severity::Ok) {
        said.push("checkpoint age is below the async point".to_string());
    }
    let last = said.pop().unwrap_or_default();
    match said.is_empty() {
        true => format!("no problem: {last}"),
        false => format!("no problem: {}, and {last}", said.join(", ")),
    }
}

/// `1h`, `30m`, else `duration`'s words.
fn horizon(s: f64) -> String {
    let s = s.max(0.0) as u64;
    match s {
        s if s >= 3600 && s % 3600 == 0 => format!("{}h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{}m", s / 60),
        s => crate::units::duration(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(growth: Option<f64>, lag_trx_numbers: Option<u64>) -> String {
        let mut f = Figures::default();
        f.history.length = Some(360);
        f.purge.lag_trx_numbers = lag_trx_numbers;
        f.purge.max_purge_lag = Some(0);
        let judged = PurgeJudgement {
            history_growth_per_s: growth,
            blocked: Some(false),
            ..PurgeJudgement::default()
        };
        let flush = FlushJudgement {
            checkpoint_age: Some(Severity::Ok),
            dirty: Some(Severity::Ok),
            regime: None,
        };
        message(&f, &judged, &flush, &Thresholds::default())
    }

    /// Never "history is not growing" beside a growth of +7/s or before any growth is known.
    #[test]
    fn healthy_says_only_what_the_figures_show() {
        let growing = said(Some(7.0), None);
        assert_eq!(
            growing,
            "no problem: no read view blocks purge, history +7.0/s reaches no limit within \
             1h, and checkpoint age is below the async point"
        );
        let first = said(None, None);
        assert!(
            first.contains("history 360 (its growth not measured yet)"),
            "{first}"
        );
        assert!(said(Some(0.2), None).contains("history is steady"));
        assert!(said(Some(-7.0), None).contains("history is falling (-7.0/s)"));
        // Purge at the counter (SEIS): caught up, whatever the growth says.
        assert!(said(None, Some(0)).contains("purge has caught up,"));
        for s in [growing, first] {
            assert!(!s.contains("not growing"), "{s}");
        }
    }
}
