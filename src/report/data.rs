//! What a report says, gathered in one pass over a window's figures — the figures a replay
//! of the window shows, sample by sample ([`Collector::observe`]) — and then what the capture
//! knows beside them (its moments, bookmarks, notes; the sizing what-if, a baseline's
//! comparison). Pure: the reading is the caller's (`run::report`).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use super::episodes::{Episode, EpisodeTracker, Lane};
use super::series::{Axis, Tracks};
use crate::data_view::moments::{Moment, MomentKind};
use crate::postmortem::Comparison;
use crate::postmortem::compare::{SettingChange, Side};
use crate::postmortem::timeline::{SideTimeline, TimelineBuilder};
use innodebt_capture::Note;
use innodebt_engine::figures::{Figures, Missing, Severity, VerdictKind};
use innodebt_engine::verdicts::whatif::WhatIfReport;

/// A stretch without samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

/// A source the server would not (or could not) give, over the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Unread {
    pub what: String,
    pub reason: String,
    /// The figures it leaves unknown, by name.
    pub figures: Vec<String>,
    pub samples: u64,
}

/// A runtime change made during the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub at: DateTime<Utc>,
    pub what: String,
    /// Where it comes from: `audit` (innodebt's own audit trail) or `variables` (the
    /// server's variables changed between two samples).
    pub source: &'static str,
}

/// One report's content.
#[derive(Debug, Clone)]
pub struct Report {
    /// The capture's file (or directory) name, without the path leading to it.
    pub capture: String,
    /// Files the capture is made of.
    pub files: usize,
    /// `host:port Flavour version`, as `compare` names a side.
    pub server: Option<String>,
    /// The flavour as the dashboard names it (`MariaDB 10.11.19`).
    pub flavor: Option<String>,
    /// The connection as recorded (`db1:3306`, `localhost via socket …`).
    pub label: Option<String>,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// The whole capture's first and last sample, when `--from/--to` cut a window of it.
    pub capture_span: Option<(DateTime<Utc>, DateTime<Utc>)>,
    pub samples: u64,
    /// The typical time between samples (the median).
    pub interval_s: Option<f64>,
    pub gaps: Vec<Gap>,
    /// What the reader skipped or found wrong (damage, cut files, overlaps, import notes).
    pub skipped: Vec<String>,
    /// INNODB_METRICS counters the figures need that were off.
    pub counters_off: Vec<String>,
    pub unread: Vec<Unread>,
    /// Seconds no verdict could judge, and why (`unknown`).
    pub not_judged_s: f64,
    pub not_judged_why: Vec<String>,
    pub episodes: Vec<Episode>,
    pub lanes: Vec<Lane>,
    pub timeline: SideTimeline,
    pub tracks: Tracks,
    pub changes: Vec<Change>,
    pub bookmarks: Vec<Note>,
    /// The window's last figures (the thresholds' names, the sizing advice).
    pub last: Figures,
    pub what_ifs: Vec<WhatIfReport>,
    pub comparison: Option<Comparison>,
}

impl Report {
    /// The axis every chart shares.
    pub fn axis(&self) -> Axis {
        self.tracks.axis
    }

    /// Stretches with a warning or critical verdict: what the charts shade.
    pub fn incident_spans(&self) -> Vec<(DateTime<Utc>, DateTime<Utc>, Severity)> {
        let start = self.timeline.start.unwrap_or(self.from);
        let at = |s: f64| start + chrono::Duration::milliseconds((s * 1000.0).round() as i64);
        self.timeline
            .stretches
            .iter()
            .filter(|s| matches!(s.severity, Severity::Warning | Severity::Critical))
            .map(|s| (at(s.from_s), at(s.to_s), s.severity))
            .collect()
    }

    /// The episodes, most telling first: critical before warning, then the longest.
    pub fn ranked_episodes(&self) -> Vec<&Episode> {
        let mut out: Vec<&Episode> = self.episodes.iter().collect();
        out.sort_by(|a, b| {
            b.worst
                .severity
                .cmp(&a.worst.severity)
                .then(b.lasted_s().total_cmp(&a.lasted_s()))
                .then(a.since.cmp(&b.since))
        });
        out
    }
}

/// Times between samples longer than this many typical intervals are a gap (and at least
/// [`GAP_MIN_S`]).
const GAP_INTERVALS: f64 = 3.0;
const GAP_MIN_S: f64 = 5.0;

/// Gathers a report from a window's figures, one sample at a time.
pub struct Collector {
    tracks: Tracks,
    timeline: TimelineBuilder,
    episodes: EpisodeTracker,
    side: Side,
    samples: u64,
    first: Option<DateTime<Utc>>,
    prev: Option<DateTime<Utc>>,
    /// Every time between two samples (for the median), and the long ones with their times.
    steps: Vec<f32>,
    long_steps: Vec<(DateTime<Utc>, DateTime<Utc>)>,
    counters_off: BTreeSet<String>,
    unread: BTreeMap<String, Unread>,
    /// The time before each sample no verdict could judge (a gap before one is not counted).
    unknown_steps: Vec<f32>,
    not_judged_why: BTreeSet<String>,
    last: Option<Figures>,
}

impl Collector {
    /// A collector for the window from `start` to `end` (its first and last sample).
    pub fn new(start: DateTime<Utc>, end: DateTime<Utc>) -> Collector {
        Collector {
            tracks: Tracks::new(Axis::new(start, end)),
            timeline: TimelineBuilder::default(),
            episodes: EpisodeTracker::default(),
            side: Side::default(),
            samples: 0,
            first: None,
            prev: None,
            steps: Vec::new(),
            long_steps: Vec::new(),
            counters_off: BTreeSet::new(),
            unread: BTreeMap::new(),
            unknown_steps: Vec::new(),
            not_judged_why: BTreeSet::new(),
            last: None,
        }
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }

    pub fn observe(&mut self, f: Figures) {
        self.samples += 1;
        self.first.get_or_insert(f.sampled_at);
        if let Some(p) = self.prev {
            let dt = super::series::secs_between(p, f.sampled_at);
            self.steps.push(dt as f32);
            if dt > GAP_MIN_S {
                self.long_steps.push((p, f.sampled_at));
            }
            if f.severity() == Some(Severity::Unknown) {
                self.unknown_steps.push(dt as f32);
            }
        }
        self.prev = Some(f.sampled_at);
        self.tracks.observe(&f);
        self.timeline.observe(&f);
        self.episodes.observe(&f);
        self.side.observe(&f);
        self.counters_off.extend(f.metrics_off.iter().cloned());
        self.counters_off
            .extend(f.flush.disabled_counters.iter().cloned());
        for u in &f.unavailable {
            let e = self.unread.entry(u.what.clone()).or_insert_with(|| Unread {
                what: u.what.clone(),
                reason: u.reason(),
                figures: Vec::new(),
                samples: 0,
            });
            e.samples += 1;
            for id in &u.figures {
                let name = id.path().to_string();
                if !e.figures.contains(&name) {
                    e.figures.push(name);
                }
            }
        }
        for v in f.verdicts.iter().filter(|v| v.kind == VerdictKind::Unknown) {
            for m in &v.missing {
                let why = match m {
                    Missing::WatchingFor { need_s, .. } => {
                        format!("the first {need_s:.0} s: still watching the trend")
                    }
                    Missing::NoData { .. } => "no fresh data from the server".to_string(),
                    Missing::Unreadable { figure, because } => format!("{figure}: {because}"),
                };
                self.not_judged_why.insert(why);
            }
        }
        self.last = Some(f);
    }

    /// The report: the figures gathered, with the capture's moments, bookmarks and notes.
    pub fn finish(self, capture: Capture) -> Option<Report> {
        let last = self.last?;
        let first = self.first?;
        let interval_s = median(&self.steps);
        let gap_s = interval_s.map_or(GAP_MIN_S, |i| (i * GAP_INTERVALS).max(GAP_MIN_S));
        let gaps = self
            .long_steps
            .into_iter()
            .filter(|(a, b)| super::series::secs_between(*a, *b) > gap_s)
            .map(|(from, to)| Gap { from, to })
            .collect();
        let to = last.sampled_at;
        let inside = |t: DateTime<Utc>| t >= first && t <= to;
        let bookmarks: Vec<Note> = capture
            .bookmarks
            .into_iter()
            .filter(|n| inside(n.at))
            .collect();
        let timeline = self.timeline.finish(&capture.moments, &bookmarks);
        let mut changes: Vec<Change> = capture
            .moments
            .iter()
            .filter(|m| m.kind == MomentKind::RuntimeChange && inside(m.at))
            .map(|m| Change {
                at: m.at,
                what: m.label.clone(),
                source: "audit",
            })
            .collect();
        changes.extend(self.side.setting_changes.iter().map(setting_change));
        changes.sort_by_key(|c| c.at);
        let (episodes, lanes) = self.episodes.finish();
        let mut skipped = capture.notes;
        skipped.dedup();
        Some(Report {
            capture: capture.name,
            files: capture.files,
            server: capture.server,
            flavor: capture.flavor,
            label: Some(last.server.label.clone()).filter(|l| !l.is_empty()),
            from: first,
            to,
            capture_span: capture.span.filter(|(a, b)| *a != first || *b != to),
            samples: self.samples,
            interval_s,
            gaps,
            skipped,
            counters_off: self.counters_off.into_iter().collect(),
            unread: self.unread.into_values().collect(),
            not_judged_s: self
                .unknown_steps
                .iter()
                .map(|d| f64::from(*d))
                .filter(|d| *d <= gap_s)
                .sum(),
            not_judged_why: self.not_judged_why.into_iter().collect(),
            episodes,
            lanes,
            timeline,
            tracks: self.tracks,
            changes,
            bookmarks,
            last,
            what_ifs: Vec::new(),
            comparison: None,
        })
    }
}

/// What the capture says beside the window's figures.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    pub name: String,
    pub files: usize,
    pub server: Option<String>,
    pub flavor: Option<String>,
    pub span: Option<(DateTime<Utc>, DateTime<Utc>)>,
    pub moments: Vec<Moment>,
    pub bookmarks: Vec<Note>,
    pub notes: Vec<String>,
}

fn setting_change(c: &SettingChange) -> Change {
    let v = |v: Option<f64>| v.map_or("unknown".to_string(), |v| v.to_string());
    let what = if c.name == "redo capacity" {
        let b = |v: Option<f64>| {
            v.map_or("unknown".to_string(), |v| {
                innodebt_engine::units::bytes(v as u64)
            })
        };
        format!("redo capacity: {} → {}", b(c.from), b(c.to))
    } else {
        format!("{}: {} → {}", c.name, v(c.from), v(c.to))
    };
    Change {
        at: c.at,
        what,
        source: "variables",
    }
}

fn median(v: &[f32]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f32::total_cmp);
    Some(f64::from(s[s.len() / 2]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use innodebt_engine::figures::Verdict;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_800_000_000 + s, 0).unwrap()
    }

    fn fig(s: i64, severity: Severity) -> Figures {
        let mut f = Figures {
            sampled_at: t(s),
            ..Figures::default()
        };
        f.redo.checkpoint_age_bytes = Some(s as u64);
        f.verdicts.push(Verdict {
            kind: if severity == Severity::Unknown {
                VerdictKind::Unknown
            } else {
                VerdictKind::Healthy
            },
            severity,
            since: t(s),
            message: String::new(),
            thread_id: None,
            clearing: false,
            missing: vec![Missing::NoData { for_s: 30.0 }],
        });
        f
    }

    #[test]
    fn gaps_are_several_typical_intervals_without_a_sample() {
        let mut c = Collector::new(t(0), t(100));
        for s in (0..=20).chain(60..=64).chain(70..=100) {
            let sev = if (60..=64).contains(&s) {
                Severity::Unknown
            } else {
                Severity::Ok
            };
            c.observe(fig(s, sev));
        }
        let moments = vec![Moment {
            sample: 0,
            at: t(150),
            kind: MomentKind::RuntimeChange,
            label: "after the window".into(),
        }];
        let r = c
            .finish(Capture {
                name: "x.idbt".into(),
                moments,
                ..Capture::default()
            })
            .expect("a report");
        assert_eq!(r.interval_s, Some(1.0));
        // 20 → 60 is a gap; 64 → 70 (six intervals, over 5 s) too.
        let gaps: Vec<(i64, i64)> = r
            .gaps
            .iter()
            .map(|g| {
                (
                    g.from.timestamp() - 1_800_000_000,
                    g.to.timestamp() - 1_800_000_000,
                )
            })
            .collect();
        assert_eq!(gaps, [(20, 60), (64, 70)]);
        // Unknown from 60 to 64; the gap before 60 is a gap, not time judged.
        assert_eq!(r.not_judged_s, 4.0);
        assert_eq!(r.not_judged_why, ["no fresh data from the server"]);
        assert!(
            r.changes.is_empty(),
            "a change after the window is not in it"
        );
        assert_eq!(r.samples, 57);
    }
}
