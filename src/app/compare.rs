//! The compare screen's state: the comparison as ranked (never ranked again here), each
//! side's timeline, the selected difference and its detail when open.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{App, Showing};
use crate::postmortem::CompareView;
use crate::postmortem::compare::Comparison;
use crate::postmortem::detail::{self, Detail};
use crate::postmortem::timeline::SideTimeline;

/// Differences one PgUp / PgDn moves.
pub const PAGE: usize = 10;

#[derive(Debug)]
pub struct Compare {
    pub comparison: Comparison,
    pub incident: SideTimeline,
    pub baseline: SideTimeline,
    /// Index into `comparison.ranked`.
    pub selected: usize,
    /// Enter: the selected difference in detail (follows the selection while open).
    pub detail: Option<Detail>,
}

impl Compare {
    pub fn new(view: CompareView) -> Compare {
        Compare {
            comparison: view.comparison,
            incident: view.incident,
            baseline: view.baseline,
            selected: 0,
            detail: None,
        }
    }

    /// Selects difference `i` (clamped to the last); an open detail follows.
    pub fn select(&mut self, i: usize) {
        let last = self.comparison.ranked.len().saturating_sub(1);
        self.selected = i.min(last);
        if self.detail.is_some() {
            self.detail = detail::of(&self.comparison, self.selected);
        }
    }

    /// Enter: the selected difference in detail, or the detail closed.
    pub fn toggle_detail(&mut self) {
        self.detail = match self.detail {
            Some(_) => None,
            None => detail::of(&self.comparison, self.selected),
        }
    }
}

impl App {
    /// An app showing a comparison; `now` is the clock of whoever runs it (nothing here
    /// ticks).
    pub fn comparing(view: CompareView, now: DateTime<Utc>) -> App {
        App::showing(
            Showing::Compare(Box::new(Compare::new(view))),
            Duration::from_secs(1),
            now,
        )
    }
}
