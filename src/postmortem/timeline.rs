//! One side of a comparison as the compare screen draws it: its window on a time axis from
//! its own start, shaded by the worst verdict of each stretch (the replay timeline's rule),
//! with its notable moments and bookmarks folded into marks as the replay timeline folds them.
//! Built in the same pass that reads the side's figures: no second read of the capture.

use chrono::{DateTime, Utc};

use crate::data_view::moments::{self, Moment, MomentKind};
use innodebt_capture::Note;
use innodebt_engine::figures::{Figures, Severity};

/// A run of samples with the same worst verdict severity, in seconds from the side's start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub from_s: f64,
    pub to_s: f64,
    pub severity: Severity,
}

/// Notable moments of one family folded into one mark (`B`, `R`, `V`, `*` …).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub at_s: f64,
    pub mark: char,
    /// Moments it holds.
    pub count: usize,
    /// The first moment's words ("note: deploy 4.2 started").
    pub label: String,
}

/// One side's window on its own time axis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideTimeline {
    pub start: Option<DateTime<Utc>>,
    /// Seconds from the first sample to the last.
    pub span_s: f64,
    pub stretches: Vec<Stretch>,
    pub marks: Vec<Mark>,
}

/// Collects a side's stretches sample by sample.
#[derive(Debug, Default)]
pub struct TimelineBuilder {
    out: SideTimeline,
}

impl TimelineBuilder {
    pub fn observe(&mut self, f: &Figures) {
        let start = *self.out.start.get_or_insert(f.sampled_at);
        let at_s = secs(start, f.sampled_at);
        self.out.span_s = self.out.span_s.max(at_s);
        // Figures nobody judged are not healthy: unknown, drawn apart.
        let worst = f.severity().unwrap_or(Severity::Unknown);
        match self.out.stretches.last_mut() {
            Some(s) if s.severity == worst => s.to_s = at_s,
            Some(s) => {
                // The change happened somewhere between the two samples: the new stretch
                // starts where the old one ends.
                let from_s = s.to_s;
                self.out.stretches.push(Stretch {
                    from_s,
                    to_s: at_s,
                    severity: worst,
                });
            }
            None => self.out.stretches.push(Stretch {
                from_s: at_s,
                to_s: at_s,
                severity: worst,
            }),
        }
    }

    /// The timeline, with the capture's moments and bookmarks that fall inside the window.
    pub fn finish(self, all_moments: &[Moment], bookmarks: &[Note]) -> SideTimeline {
        let mut out = self.out;
        let Some(start) = out.start else {
            return out;
        };
        let end = start + chrono::Duration::milliseconds((out.span_s * 1000.0) as i64);
        let inside = |t: DateTime<Utc>| t >= start && t <= end;
        let mut all: Vec<Moment> = all_moments
            .iter()
            .filter(|m| inside(m.at))
            .cloned()
            .collect();
        all.extend(bookmarks.iter().filter(|n| inside(n.at)).map(|n| Moment {
            sample: 0,
            at: n.at,
            kind: MomentKind::Note,
            label: format!("note: {}", n.text),
        }));
        all.sort_by_key(|m| m.at);
        let groups = moments::group(&all, moments::group_gap_s(out.span_s as i64));
        out.marks = groups
            .into_iter()
            .map(|g| Mark {
                at_s: secs(start, g.first.at),
                mark: g.mark,
                count: g.count,
                label: g.first.label,
            })
            .collect();
        out.marks.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
        out
    }
}

fn secs(a: DateTime<Utc>, b: DateTime<Utc>) -> f64 {
    ((b - a).num_milliseconds() as f64 / 1000.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use innodebt_engine::figures::{Verdict, VerdictKind};

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_800_000_000 + s, 0).unwrap()
    }

    fn fig(s: i64, sev: Option<Severity>) -> Figures {
        let mut f = Figures {
            sampled_at: t(s),
            ..Figures::default()
        };
        if let Some(severity) = sev {
            f.verdicts.push(Verdict {
                kind: VerdictKind::BlockedByReadView,
                severity,
                since: t(s),
                message: String::new(),
                thread_id: None,
                clearing: false,
                missing: Vec::new(),
            });
        }
        f
    }

    #[test]
    fn stretches_follow_the_worst_verdict_and_marks_the_window() {
        let mut b = TimelineBuilder::default();
        // No verdict at 15: figures nobody judged are unknown, not healthy.
        for (s, sev) in [
            (10, Some(Severity::Ok)),
            (11, Some(Severity::Ok)),
            (12, Some(Severity::Warning)),
            (13, Some(Severity::Critical)),
            (14, Some(Severity::Critical)),
            (15, None),
        ] {
            b.observe(&fig(s, sev));
        }
        let moment = |s, kind| Moment {
            sample: 0,
            at: t(s),
            kind,
            label: format!("{kind:?}"),
        };
        let tl = b.finish(
            &[
                moment(5, MomentKind::BlockerAppeared),
                moment(12, MomentKind::BlockerAppeared),
                moment(99, MomentKind::Verdict),
            ],
            &[Note::new(t(14), "deploy")],
        );
        assert_eq!(tl.span_s, 5.0);
        let runs: Vec<(f64, f64, Severity)> = tl
            .stretches
            .iter()
            .map(|s| (s.from_s, s.to_s, s.severity))
            .collect();
        assert_eq!(
            runs,
            [
                (0.0, 1.0, Severity::Ok),
                (1.0, 2.0, Severity::Warning),
                (2.0, 4.0, Severity::Critical),
                (4.0, 5.0, Severity::Unknown),
            ]
        );
        // Only what lies inside the window, at its offset from the start.
        let marks: Vec<(f64, char, &str)> = tl
            .marks
            .iter()
            .map(|m| (m.at_s, m.mark, m.label.as_str()))
            .collect();
        assert_eq!(
            marks,
            [(2.0, 'B', "BlockerAppeared"), (4.0, '*', "note: deploy")]
        );
    }

    #[test]
    fn no_figures_no_timeline() {
        let tl = TimelineBuilder::default().finish(&[], &[Note::new(t(0), "x")]);
        assert_eq!(tl, SideTimeline::default());
    }
}
