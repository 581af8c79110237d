//! What keeps the engine from saying "healthy": a figure a rule needs that is unknown (a
//! counter off, a missing privilege), or a trend not yet watched long enough. Never a green
//! check without the data to say so; the `unknown` verdict names what is missing instead.

use crate::figures::{FigureId, Figures, Missing};
use crate::units::count;
use innodebt_server::sample::SourceKind;

use super::Thresholds;
use super::purge::{PurgeJudgement, Trend, caught_up};

/// Why `figure` is unknown, in the DBA's words: the refused source and the privilege, a
/// counter that is off, or that this server does not report it.
fn why_unknown(f: &Figures, figure: FigureId) -> String {
    if let Some(u) = f.unavailable.iter().find(|u| u.figures.contains(&figure)) {
        return format!("{} {}", u.what, u.reason());
    }
    if !f.metrics_off.is_empty() {
        return format!(
            "INNODB_METRICS counters off ({}; m enables them)",
            f.metrics_off.join(", ")
        );
    }
    "this server did not report it".to_string()
}

fn unreadable(f: &Figures, figure: FigureId, what: &str) -> (Missing, String) {
    let because = why_unknown(f, figure);
    let message = format!("{what} unknown: {because}");
    (
        Missing::Unreadable {
            figure: figure.path().to_string(),
            because,
        },
        message,
    )
}

/// Everything the rules could not judge in this sample, each with its sentence.
pub(crate) fn missing(
    f: &Figures,
    trend: &Trend,
    judged: &PurgeJudgement,
    th: &Thresholds,
) -> Vec<(Missing, String)> {
    let mut out = Vec::new();
    if f.redo.checkpoint_age_bytes.is_none() {
        out.push(unreadable(f, FigureId::CheckpointAge, "checkpoint age"));
    } else if f.redo.async_point_bytes.is_none() {
        out.push(unreadable(f, FigureId::AsyncPoint, "the async point"));
    }
    let Some(history) = f.history.length else {
        out.push(unreadable(f, FigureId::HistoryLength, "history length"));
        return out;
    };
    if judged.blocked.is_none() {
        let because = f.refused(SourceKind::InnodbTrx).map_or_else(
            || why_unknown(f, FigureId::Blocker),
            |u| format!("{} {}", u.what, u.reason()),
        );
        out.push((
            Missing::Unreadable {
                figure: FigureId::Blocker.path().to_string(),
                because: because.clone(),
            },
            format!("whether a read view blocks purge is unknown: {because}"),
        ));
    } else if judged.blocked == Some(false)
        && trend.growth_per_s.is_none()
        && caught_up(f, th) != Some(true)
    {
        // Purge is not shown to have caught up, and too little history is seen to tell
        // whether it keeps up: say how long is still needed.
        let have_s = trend.span_s.max(0.0);
        out.push((
            Missing::WatchingFor {
                have_s,
                need_s: th.trend_min_span_s,
            },
            format!(
                "watching — {:.0} s of {:.0} s needed to tell whether history ({}) keeps \
                 growing",
                have_s.floor(),
                th.trend_min_span_s,
                count(history as f64)
            ),
        ));
    }
    out
}

/// The verdicts to show when no fresh sample has arrived for `for_s` seconds (STALE,
/// DISCONNECTED, a target down): an `unknown` verdict saying so comes first, and the old
/// sample's `healthy` or `unknown` goes — an old green check is no judgement of now. Its
/// problem verdicts stay after it: they were true at `last_at`, and the DBA acting on one
/// needs it still.
pub fn without_fresh_data(
    verdicts: &[crate::figures::Verdict],
    for_s: f64,
    last_at: chrono::DateTime<chrono::Utc>,
) -> Vec<crate::figures::Verdict> {
    use crate::figures::{Severity, Verdict, VerdictKind};
    let for_s = for_s.max(0.0);
    let mut out = vec![Verdict {
        kind: VerdictKind::Unknown,
        severity: Severity::Unknown,
        since: last_at,
        message: format!(
            "no data for {}: nothing is known about now",
            crate::units::duration(for_s as u64)
        ),
        thread_id: None,
        clearing: false,
        missing: vec![Missing::NoData { for_s }],
    }];
    out.extend(
        verdicts
            .iter()
            .filter(|v| !matches!(v.kind, VerdictKind::Healthy | VerdictKind::Unknown))
            .cloned(),
    );
    out
}

/// A figure's severity to show when no fresh sample has arrived (STALE, DISCONNECTED): an old
/// `ok` is no judgement of now, so it is `unknown`; a problem stays, as its verdict does
/// ([`without_fresh_data`]). An unjudged figure (`None`) is `unknown` too — never a ✓.
pub fn severity_without_fresh_data(
    severity: Option<crate::figures::Severity>,
) -> crate::figures::Severity {
    use crate::figures::Severity;
    match severity {
        None | Some(Severity::Ok) => Severity::Unknown,
        Some(s) => s,
    }
}
