//! What the dashboard can say about now: the verdicts and the panels' severities of the latest
//! figures, except that while live data stops coming (STALE, DISCONNECTED) nothing old is shown
//! as a judgement of now.

use innodebt_engine::figures::{Severity, Verdict};

use super::{App, Freshness, Showing, secs_between};

impl App {
    /// The verdicts the verdict line shows: the latest figures' — except that while live data
    /// stops coming (STALE, DISCONNECTED) an `unknown` verdict saying for how long comes first
    /// and the old "healthy" goes (`verdicts::without_fresh_data`). A frozen or replayed
    /// moment shows its verdicts as they were.
    pub fn verdicts_now(&self) -> Vec<Verdict> {
        let Some(latest) = self.view().latest.as_ref() else {
            return Vec::new();
        };
        if self.shows_a_past_moment() {
            return latest.verdicts.clone();
        }
        match self.freshness() {
            Freshness::Stale { .. } | Freshness::Disconnected { .. } => {
                innodebt_engine::verdicts::without_fresh_data(
                    &latest.verdicts,
                    secs_between(latest.sampled_at, self.now),
                    latest.sampled_at,
                )
            }
            Freshness::Waiting | Freshness::Fresh { .. } => latest.verdicts.clone(),
        }
    }

    /// A panel's severity for a figure judged `severity`: as judged while data is fresh (or
    /// a frozen or replayed moment is shown); while live data stops coming an old `ok` is
    /// `unknown` (`verdicts::severity_without_fresh_data`). Unjudged is `unknown`, never ✓.
    pub fn severity_now(&self, severity: Option<Severity>) -> Severity {
        let fresh = self.shows_a_past_moment()
            || matches!(
                self.freshness(),
                Freshness::Waiting | Freshness::Fresh { .. }
            );
        match severity {
            Some(s) if fresh => s,
            None if fresh => Severity::Unknown,
            s => innodebt_engine::verdicts::severity_without_fresh_data(s),
        }
    }

    /// A frozen or replayed moment (or a comparison) shows its judgements as they were; only a
    /// live screen judges by how fresh its data is.
    fn shows_a_past_moment(&self) -> bool {
        match self.showing {
            Showing::Live(_) => false,
            Showing::Frozen { .. } | Showing::Replay(_) | Showing::Compare(_) => true,
        }
    }
}
