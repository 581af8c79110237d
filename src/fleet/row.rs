//! One server's line in the fleet view: the few figures that say how close it is to a breach,
//! read from its [`Figures`] (derived here for a server polled directly and for one read
//! through an agent's events alike), and the order "nearest breach first".

use std::cmp::Ordering;

use innodebt_engine::figures::Severity;
use innodebt_engine::figures::{FigureId, Figures};

/// The figures a row shows. `None` is unknown, shown as `-`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowFigures {
    /// The most severe verdict and its severity.
    pub verdict: Option<(String, Severity)>,
    pub age_pct_of_async: Option<f64>,
    pub seconds_to_stall: Option<f64>,
    pub seconds_to_async: Option<f64>,
    pub history: Option<u64>,
    pub history_eta_s: Option<f64>,
    /// 0 when INNODB_TRX was read and nothing blocks purge.
    pub blocker_age_s: Option<u64>,
    pub blocker_thread: Option<u64>,
    pub dirty_pct: Option<f64>,
    pub dml_delay_us: Option<u64>,
    /// innodebt's own time on the server in its last tick, ms (its statements' round trips).
    pub cost_ms: Option<f64>,
}

impl RowFigures {
    pub fn from_figures(f: &Figures, poll_ms: Option<u32>) -> RowFigures {
        let worst = f.worst_verdict();
        let severity = f.severity();
        RowFigures {
            verdict: worst.map(|v| v.kind.as_str().to_string()).zip(severity),
            age_pct_of_async: f.redo.pct_of_async(),
            seconds_to_stall: f.redo.seconds_to_sync_point,
            seconds_to_async: f.redo.seconds_to_async_point,
            history: whole(FigureId::HistoryLength.number(f)),
            history_eta_s: f.history.seconds_to_max_purge_lag,
            blocker_age_s: whole(FigureId::Blocker.number(f)),
            blocker_thread: f.blocker.as_ref().and_then(|b| b.thread_id),
            dirty_pct: FigureId::DirtyPct.number(f),
            dml_delay_us: whole(FigureId::DmlDelayApplied.number(f)),
            cost_ms: f
                .self_cost
                .as_ref()
                .map(|c| c.server_ms_per_tick)
                .or(poll_ms.map(f64::from)),
        }
    }

    /// The soonest predicted breach, seconds (stall point, history to max purge lag).
    pub fn soonest_breach_s(&self) -> Option<f64> {
        [self.seconds_to_stall, self.history_eta_s]
            .into_iter()
            .flatten()
            .filter(|v| v.is_finite())
            .min_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal))
    }
}

/// A whole number of the registry (a count, µs, seconds) as the row keeps it.
fn whole(v: Option<f64>) -> Option<u64> {
    v.filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v.round() as u64)
}

/// How a row's server is doing as a link.
#[derive(Debug, Clone, PartialEq)]
pub enum RowLink {
    Waiting,
    Up,
    Down { error: String },
}

/// Rank for "nearest breach first": critical, warning, down, unknown, ok.
pub fn rank(link: &RowLink, figures: Option<&RowFigures>) -> u8 {
    let severity = figures.and_then(|f| f.verdict.as_ref().map(|v| v.1));
    match (link, severity) {
        (RowLink::Up, Some(Severity::Critical)) => 0,
        (RowLink::Up, Some(Severity::Warning)) => 1,
        (RowLink::Down { .. }, _) => 2,
        (RowLink::Waiting, _) | (RowLink::Up, None | Some(Severity::Unknown)) => 3,
        (RowLink::Up, Some(Severity::Ok)) => 4,
    }
}

/// Counted in the title's "need attention": what the order puts first (a warning or critical
/// verdict on a server that answers). A server down is counted as disconnected, one not
/// judged (unknown, waiting) apart — the count and the order say the same.
pub fn needs_attention(link: &RowLink, figures: Option<&RowFigures>) -> bool {
    rank(link, figures)
        < rank(
            &RowLink::Down {
                error: String::new(),
            },
            None,
        )
}

/// A predicted breach further off than this (an hour) does not sort a server up: days of
/// headroom on an idle server is no breach to come, and rows must not reorder on noise.
const SOON_S: f64 = 3_600.0;

/// Orders two rows: rank, then the soonest breach within [`SOON_S`], then the oldest
/// blocker, then the name.
pub fn breach_order(
    a: (&RowLink, Option<&RowFigures>, &str),
    b: (&RowLink, Option<&RowFigures>, &str),
) -> Ordering {
    let eta = |f: Option<&RowFigures>| {
        f.and_then(RowFigures::soonest_breach_s)
            .filter(|s| *s <= SOON_S)
            .unwrap_or(f64::MAX)
    };
    let blocker = |f: Option<&RowFigures>| f.and_then(|f| f.blocker_age_s).unwrap_or(0);
    rank(a.0, a.1)
        .cmp(&rank(b.0, b.1))
        .then(eta(a.1).partial_cmp(&eta(b.1)).unwrap_or(Ordering::Equal))
        .then(blocker(b.1).cmp(&blocker(a.1)))
        .then(a.2.cmp(b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(sev: Option<Severity>, stall: Option<f64>) -> RowFigures {
        RowFigures {
            verdict: sev.map(|s| ("x".to_string(), s)),
            seconds_to_stall: stall,
            ..RowFigures::default()
        }
    }

    #[test]
    fn nearest_breach_first() {
        let up = RowLink::Up;
        let down = RowLink::Down {
            error: "refused".into(),
        };
        let ok_far = row(Some(Severity::Ok), Some(9_000.0));
        let ok_near = row(Some(Severity::Ok), Some(60.0));
        let warn = row(Some(Severity::Warning), None);
        let crit = row(Some(Severity::Critical), None);
        let mut rows = [
            (&up, Some(&ok_far), "a"),
            (&down, None, "b"),
            (&up, Some(&warn), "c"),
            (&up, Some(&ok_near), "d"),
            (&up, Some(&crit), "e"),
        ];
        rows.sort_by(|a, b| breach_order(*a, *b));
        let names: Vec<&str> = rows.iter().map(|r| r.2).collect();
        assert_eq!(names, ["e", "c", "b", "d", "a"]);
        // Days of headroom is no breach to come: two healthy servers keep their names' order.
        let days = row(Some(Severity::Ok), Some(800_000.0));
        let none = row(Some(Severity::Ok), None);
        let mut rows = [(&up, Some(&days), "charlie"), (&up, Some(&none), "alpha")];
        rows.sort_by(|a, b| breach_order(*a, *b));
        assert_eq!(rows.map(|r| r.2), ["alpha", "charlie"]);
    }

    /// The title's count and the order agree: the count once took `unknown` (and a down
    /// server's last warning) as needing attention while the order put both below down.
    #[test]
    fn needs_attention_is_what_sorts_first() {
        let up = RowLink::Up;
        let down = RowLink::Down {
            error: "refused".into(),
        };
        let unknown = row(Some(Severity::Unknown), None);
        let warn = row(Some(Severity::Warning), None);
        let crit = row(Some(Severity::Critical), None);
        let ok = row(Some(Severity::Ok), None);
        assert!(needs_attention(&up, Some(&crit)));
        assert!(needs_attention(&up, Some(&warn)));
        assert!(!needs_attention(&up, Some(&unknown)));
        assert!(!needs_attention(&up, Some(&ok)));
        assert!(
            !needs_attention(&down, Some(&warn)),
            "counted as disconnected"
        );
        assert!(!needs_attention(&RowLink::Waiting, None));
        // Whatever needs attention sorts above whatever does not.
        let rows = [
            (&up, Some(&unknown)),
            (&down, Some(&warn)),
            (&up, Some(&warn)),
            (&up, Some(&ok)),
            (&up, Some(&crit)),
        ];
        for a in rows {
            for b in rows {
                if needs_attention(a.0, a.1) && !needs_attention(b.0, b.1) {
                    assert_eq!(
                        breach_order((a.0, a.1, "x"), (b.0, b.1, "x")),
                        Ordering::Less
                    );
                }
            }
        }
    }
}
