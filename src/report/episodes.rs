//! The problems of a window as the verdicts found them: for each verdict kind, every stretch
//! it held (an episode) — when it began (the verdict's own `since`), how long the condition
//! held, and its worst moment with the verdict line as the dashboard showed it there and the
//! figures that make it the worst; for a read view blocking purge, every session that held
//! one, with its user, host and statement. Also the lanes of the verdict timeline: each
//! kind's runs of one severity.

use chrono::{DateTime, Utc};

use innodebt_engine::figures::{Blocker, Figures, Severity, Verdict, VerdictKind};
use innodebt_engine::units::{bytes, count, duration, pct, rate, signed_rate};

/// The dashboard's verdict line at one moment: the verdict, the others that held with it, and
/// its own words.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictLine {
    pub kind: VerdictKind,
    pub severity: Severity,
    pub since: DateTime<Utc>,
    pub message: String,
    pub others: Vec<VerdictKind>,
}

/// The moment an episode was at its worst.
#[derive(Debug, Clone, PartialEq)]
pub struct Worst {
    pub at: DateTime<Utc>,
    pub severity: Severity,
    /// What "worst" is measured by for the kind ([`measure`]).
    pub measure: f64,
    pub line: VerdictLine,
    /// The figures that make it the worst, in the dashboard's words: (name, value).
    pub facts: Vec<(String, String)>,
    /// The condition held then (the verdict was not merely clearing).
    pub held: bool,
}

/// A session that held the read view blocking purge.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockerSeen {
    pub thread_id: Option<u64>,
    pub trx_id: String,
    pub user: Option<String>,
    pub host: Option<String>,
    pub isolation: Option<String>,
    pub command: Option<String>,
    /// The last statement seen running in it (`None`: none seen, idle in transaction).
    pub statement: Option<String>,
    pub max_age_s: u64,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
}

/// One stretch a verdict held.
#[derive(Debug, Clone, PartialEq)]
pub struct Episode {
    pub kind: VerdictKind,
    /// When the condition began (the verdict's `since`; before the window when it was on at
    /// its start).
    pub since: DateTime<Utc>,
    pub first_seen: DateTime<Utc>,
    /// The last sample on which the condition held (not merely clearing).
    pub last_held: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    /// Still on at the window's last sample.
    pub ongoing: bool,
    pub worst: Worst,
    pub blockers: Vec<BlockerSeen>,
}

impl Episode {
    /// How long the condition held: from its start to the last sample it held on.
    pub fn lasted_s(&self) -> f64 {
        crate::report::series::secs_between(self.since, self.last_held)
    }
}

/// A verdict kind's runs of one severity, for the timeline's lanes.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub kind: VerdictKind,
    pub runs: Vec<Run>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub severity: Severity,
}

/// What "worst" means for a kind: the most history for the purge verdicts, the checkpoint
/// age against the async point (else the dirty share) for flush pressure, the latch waits
/// for rollback-segment contention.
pub fn measure(kind: VerdictKind, f: &Figures) -> f64 {
    let v = match kind {
        VerdictKind::BlockedByReadView => {
            f.history.held_back.or(f.history.length).map(|v| v as f64)
        }
        VerdictKind::PurgeLagTrap
        | VerdictKind::PurgeTooSlow
        | VerdictKind::HistoryHeldByOpenWrites => f.history.length.map(|v| v as f64),
        VerdictKind::FlushPressure => f.redo.pct_of_async().or(f.dirty.pct),
        VerdictKind::RollbackSegmentContention => f
            .rollback
            .rseg_wait_s_per_s
            .or(f.rollback.seis_rseg_waiters.map(|w| w as f64)),
        VerdictKind::Unknown | VerdictKind::Healthy => None,
    };
    v.filter(|v| v.is_finite()).unwrap_or(0.0)
}

/// The figures behind a kind at one moment, in the dashboard's words.
pub fn facts(kind: VerdictKind, f: &Figures) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            out.push((name.to_string(), v));
        }
    };
    let history = |f: &Figures| f.history.length.map(|h| count(h as f64));
    match kind {
        VerdictKind::BlockedByReadView => {
            add("history length", history(f));
            add(
                "held back by the read view",
                f.history.held_back.map(|h| count(h as f64)),
            );
            add("history growth", Some(signed_rate(f.history.growth_per_s)));
            add("purged", Some(rate(f.purge.records_per_s)));
            add("read view open for", f.blocker_age_s().map(duration));
        }
        VerdictKind::PurgeLagTrap => {
            add("history length", history(f));
            add(
                "innodb_max_purge_lag",
                f.purge.max_purge_lag.map(|v| v.to_string()),
            );
            add(
                "DML delay by the formula",
                f.purge.dml_delay_us.map(|v| format!("{v} µs")),
            );
            add(
                "DML delay writes pay",
                f.purge.dml_delay_applied_us.map(|v| format!("{v} µs")),
            );
        }
        VerdictKind::PurgeTooSlow => {
            add("history length", history(f));
            add("history growth", Some(signed_rate(f.history.growth_per_s)));
            add("purged", Some(rate(f.purge.records_per_s)));
            add("inflow", Some(rate(f.purge.inflow_records_per_s)));
            add("purge threads", f.purge.threads.map(|t| t.to_string()));
        }
        VerdictKind::HistoryHeldByOpenWrites => {
            add("history length", history(f));
            add("purge behind", f.purge.lag_words());
            add(
                "open read-write transactions",
                f.purge.open_rw_trx.map(|n| n.to_string()),
            );
            add(
                "oldest read-write transaction",
                f.purge.oldest_rw.as_ref().map(|o| {
                    let who = o
                        .thread_id
                        .map(|t| format!("thread {t}, "))
                        .unwrap_or_default();
                    format!("{who}open {}", duration(o.age_s))
                }),
            );
        }
        VerdictKind::FlushPressure => {
            let r = &f.redo;
            add(
                "checkpoint age",
                r.checkpoint_age_bytes.map(|a| {
                    let of = r
                        .pct_of_async()
                        .map(|p| format!(" = {p:.0} % of the async point"))
                        .unwrap_or_default();
                    format!("{}{of}", bytes(a))
                }),
            );
            add("async point", r.async_point_bytes.map(bytes));
            add(
                &r.sync_point_name.clone(),
                r.sync_point_bytes
                    .map(bytes)
                    .filter(|_| !r.sync_point_name.is_empty()),
            );
            add(
                "redo written",
                r.written_bytes_per_s
                    .filter(|w| w.is_finite() && *w >= 0.0)
                    .map(|w| format!("{}/s", bytes(w as u64))),
            );
            add(
                "sync flushing",
                f.flush
                    .by_source_pages_per_s
                    .sync
                    .map(|s| format!("{} pages/s", count(s))),
            );
            add(
                "dirty pages",
                Some(pct(f.dirty.pct)).filter(|_| f.dirty.pct.is_some()),
            );
        }
        VerdictKind::RollbackSegmentContention => {
            add(
                "rollback segments",
                f.rollback.segments.map(|s| s.to_string()),
            );
            add("waits", f.rollback.waits_words());
            add(
                "open read-write transactions",
                f.purge.open_rw_trx.map(|n| n.to_string()),
            );
        }
        VerdictKind::Unknown | VerdictKind::Healthy => {}
    }
    out
}

fn line(v: &Verdict, all: &[Verdict]) -> VerdictLine {
    VerdictLine {
        kind: v.kind,
        severity: v.severity,
        since: v.since,
        message: v.message.clone(),
        others: all
            .iter()
            .filter(|o| o.kind != v.kind)
            .map(|o| o.kind)
            .collect(),
    }
}

/// An episode being followed.
#[derive(Debug, Clone)]
struct Open {
    episode: Episode,
}

/// Follows every kind sample by sample.
#[derive(Debug, Default)]
pub struct EpisodeTracker {
    open: Vec<Open>,
    done: Vec<Episode>,
    lanes: Vec<Lane>,
}

/// Whether a verdict is a problem the report tells of (not `healthy`, not `unknown`).
fn is_problem(v: &Verdict) -> bool {
    VerdictKind::JUDGED.contains(&v.kind)
}

impl EpisodeTracker {
    pub fn observe(&mut self, f: &Figures) {
        let at = f.sampled_at;
        // Episodes whose verdict is gone end.
        let (gone, still): (Vec<Open>, Vec<Open>) = std::mem::take(&mut self.open)
            .into_iter()
            .partition(|o| !f.verdicts.iter().any(|v| v.kind == o.episode.kind));
        self.open = still;
        self.done.extend(gone.into_iter().map(|o| o.episode));
        for v in f.verdicts.iter().filter(|v| is_problem(v)) {
            self.lane(v.kind, at, v.severity);
            let m = measure(v.kind, f);
            let idx = match self.open.iter().position(|o| o.episode.kind == v.kind) {
                Some(i) => i,
                None => {
                    self.open.push(Open {
                        episode: Episode {
                            kind: v.kind,
                            since: v.since,
                            first_seen: at,
                            last_held: at,
                            last_seen: at,
                            ongoing: false,
                            worst: Worst {
                                at,
                                severity: v.severity,
                                measure: m,
                                line: line(v, &f.verdicts),
                                facts: facts(v.kind, f),
                                held: !v.clearing,
                            },
                            blockers: Vec::new(),
                        },
                    });
                    self.open.len() - 1
                }
            };
            let e = &mut self.open[idx].episode;
            e.last_seen = at;
            if !v.clearing {
                e.last_held = at;
            }
            // A verdict that is only clearing no longer describes the moment: it is worse
            // than any moment it held only where nothing else is known.
            let held = !v.clearing;
            if (v.severity, held, m) > (e.worst.severity, e.worst.held, e.worst.measure) {
                e.worst = Worst {
                    at,
                    severity: v.severity,
                    measure: m,
                    line: line(v, &f.verdicts),
                    facts: facts(v.kind, f),
                    held,
                };
            }
            if v.kind == VerdictKind::BlockedByReadView
                && let Some(b) = &f.blocker
            {
                seen(&mut e.blockers, b, at);
            }
        }
    }

    fn lane(&mut self, kind: VerdictKind, at: DateTime<Utc>, severity: Severity) {
        let i = match self.lanes.iter().position(|l| l.kind == kind) {
            Some(i) => i,
            None => {
                self.lanes.push(Lane {
                    kind,
                    runs: Vec::new(),
                });
                self.lanes.len() - 1
            }
        };
        let runs = &mut self.lanes[i].runs;
        match runs.last_mut() {
            // The same run goes on while the kind holds at the same severity on the samples
            // in between (a sample without it ended the episode, and its run).
            Some(r)
                if r.severity == severity && self.open.iter().any(|o| o.episode.kind == kind) =>
            {
                r.to = at
            }
            Some(r) if self.open.iter().any(|o| o.episode.kind == kind) => {
                // Severity changed between two samples: the new run starts where the old ends.
                let from = r.to;
                runs.push(Run {
                    from,
                    to: at,
                    severity,
                });
            }
            _ => runs.push(Run {
                from: at,
                to: at,
                severity,
            }),
        }
    }

    /// The episodes (by start) and the lanes (in [`VerdictKind::JUDGED`] order); `last` is
    /// the window's last sample time.
    pub fn finish(mut self) -> (Vec<Episode>, Vec<Lane>) {
        for o in std::mem::take(&mut self.open) {
            let mut e = o.episode;
            e.ongoing = true;
            self.done.push(e);
        }
        self.done.sort_by_key(|e| (e.since, e.kind));
        self.lanes
            .sort_by_key(|l| VerdictKind::JUDGED.iter().position(|k| *k == l.kind));
        (self.done, self.lanes)
    }
}

fn seen(list: &mut Vec<BlockerSeen>, b: &Blocker, at: DateTime<Utc>) {
    let same = |s: &BlockerSeen| match (s.thread_id, b.thread_id) {
        (Some(a), Some(c)) => a == c,
        _ => s.trx_id == b.trx_id,
    };
    let statement = b.query.clone().filter(|q| !q.trim().is_empty());
    match list.iter_mut().find(|s| same(s)) {
        Some(s) => {
            s.max_age_s = s.max_age_s.max(b.age_s);
            s.last_seen = at;
            if statement.is_some() {
                s.statement = statement;
            }
            s.command = b.command.clone().or(s.command.take());
            if s.user.is_none() {
                s.user = b.user.clone();
            }
            if s.host.is_none() {
                s.host = b.host.clone();
            }
        }
        None => list.push(BlockerSeen {
            thread_id: b.thread_id,
            trx_id: b.trx_id.clone(),
            user: b.user.clone(),
            host: b.host.clone(),
            isolation: b.isolation.clone(),
            command: b.command.clone(),
            statement,
            max_age_s: b.age_s,
            first_seen: at,
            last_seen: at,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use innodebt_engine::figures::History;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_800_000_000 + s, 0).unwrap()
    }

    fn verdict(kind: VerdictKind, severity: Severity, since: i64, clearing: bool) -> Verdict {
        Verdict {
            kind,
            severity,
            since: t(since),
            message: format!("{} at {since}", kind.as_str()),
            thread_id: None,
            clearing,
            missing: Vec::new(),
        }
    }

    /// A sample at `s` with history `h`, the given verdicts, and a blocker (thread, age,
    /// statement) when given.
    fn fig(
        s: i64,
        h: u64,
        verdicts: Vec<Verdict>,
        blocker: Option<(u64, u64, Option<&str>)>,
    ) -> Figures {
        Figures {
            sampled_at: t(s),
            history: History {
                length: Some(h),
                ..History::default()
            },
            verdicts,
            blocker: blocker.map(|(thread, age, q)| Blocker {
                trx_id: "0".into(),
                thread_id: Some(thread),
                user: Some("app".into()),
                host: Some("10.0.0.7".into()),
                age_s: age,
                query: q.map(str::to_string),
                ..Blocker::default()
            }),
            ..Figures::default()
        }
    }

    #[test]
    fn an_episode_runs_from_its_since_to_the_last_sample_it_held_and_its_worst_is_held() {
        use VerdictKind::{BlockedByReadView as B, FlushPressure as F};
        let w = Severity::Warning;
        let c = Severity::Critical;
        let mut e = EpisodeTracker::default();
        e.observe(&fig(
            10,
            100,
            vec![verdict(B, w, 8, false)],
            Some((14, 20, Some("SELECT 1"))),
        ));
        e.observe(&fig(
            11,
            500,
            vec![verdict(B, c, 8, false)],
            Some((14, 21, None)),
        ));
        // Clearing: more history, but the condition no longer holds; not the worst.
        e.observe(&fig(
            12,
            900,
            vec![verdict(B, c, 8, true)],
            Some((15, 3, None)),
        ));
        e.observe(&fig(13, 50, vec![verdict(F, w, 13, false)], None));
        e.observe(&fig(
            14,
            50,
            vec![verdict(F, w, 13, false), verdict(B, w, 14, false)],
            None,
        ));
        let (episodes, lanes) = e.finish();
        let got: Vec<(VerdictKind, i64, i64, i64, bool, Severity, i64)> = episodes
            .iter()
            .map(|e| {
                let s = |x: DateTime<Utc>| x.timestamp() - 1_800_000_000;
                (
                    e.kind,
                    s(e.since),
                    s(e.last_held),
                    s(e.last_seen),
                    e.ongoing,
                    e.worst.severity,
                    s(e.worst.at),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (B, 8, 11, 12, false, c, 11),
                (F, 13, 14, 14, true, w, 13),
                (B, 14, 14, 14, true, w, 14),
            ]
        );
        assert_eq!(episodes[0].lasted_s(), 3.0);
        assert_eq!(episodes[0].worst.line.message, "blocked_by_read_view at 8");
        assert!(
            episodes[0]
                .worst
                .facts
                .iter()
                .any(|(n, v)| n == "history length" && v == "500")
        );
        // Each session once: its longest read view, the last statement seen running in it.
        let blockers: Vec<(Option<u64>, u64, Option<&str>)> = episodes[0]
            .blockers
            .iter()
            .map(|b| (b.thread_id, b.max_age_s, b.statement.as_deref()))
            .collect();
        assert_eq!(
            blockers,
            [(Some(14), 21, Some("SELECT 1")), (Some(15), 3, None)]
        );
        // The lanes: a run per severity, a new run after the kind was gone.
        type Runs = Vec<(i64, i64, Severity)>;
        let runs: Vec<(VerdictKind, Runs)> = lanes
            .iter()
            .map(|l| {
                let s = |x: DateTime<Utc>| x.timestamp() - 1_800_000_000;
                (
                    l.kind,
                    l.runs
                        .iter()
                        .map(|r| (s(r.from), s(r.to), r.severity))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            runs,
            [
                (B, vec![(10, 10, w), (10, 12, c), (14, 14, w)]),
                (F, vec![(13, 14, w)]),
            ]
        );
    }
}
