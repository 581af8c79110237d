//! "What went wrong": the verdict line at the worst moment, then each kind of problem the
//! verdicts found — when it began, how long it held, its worst moment with the verdict's own
//! words there and the figures behind them, and for a read view blocking purge the sessions
//! that held it (thread, user, host, statement).

use super::Report;
use super::doc::{Block, Inline, b, code, dim, t};
use super::episodes::{BlockerSeen, Episode};
use innodebt_engine::figures::{Severity, VerdictKind};
use innodebt_engine::units::{duration, secs};

/// Episodes listed one by one under a kind, at most.
const EPISODE_ROWS: usize = 12;
/// Sessions listed as holding the read view, at most (the longest-held first).
const SESSION_ROWS: usize = 10;
/// The longest statement shown, in characters.
const STATEMENT_CHARS: usize = 1_000;

/// The verdict's words as a reader of the page needs them: the dashboard's key hints
/// (`(K, asks first)`, `(key l)`) name keys of a screen the reader does not have.
pub fn words(message: &str) -> String {
    let mut out = crate::text::sanitize(message, 4_000);
    for hint in [" (K, asks first)", " (key l)"] {
        out = out.replace(hint, "");
    }
    out
}

/// Server text (a statement, a user, a host): what a terminal would act on removed, folded to
/// one line, cut to `max` characters.
pub fn server_text(s: &str, max: usize) -> String {
    let clean = crate::text::sanitize(s, max + 1);
    if clean.chars().count() > max {
        let cut: String = clean.chars().take(max).collect();
        format!("{cut}…")
    } else {
        clean
    }
}

/// `report@localhost`, or what is known of it.
pub fn who(user: Option<&str>, host: Option<&str>) -> String {
    match (user, host) {
        (Some(u), Some(h)) => format!("{}@{}", server_text(u, 80), server_text(h, 120)),
        (Some(u), None) => server_text(u, 80),
        (None, Some(h)) => format!("@{}", server_text(h, 120)),
        (None, None) => "unknown account".into(),
    }
}

pub fn section(r: &Report) -> Vec<Block> {
    let clock = r.clock();
    let mut out = vec![Block::Heading {
        id: "summary",
        text: "What went wrong".into(),
    }];
    let groups = groups(r);
    let Some(first) = groups.first() else {
        let mut p = vec![
            Inline::Severity(Severity::Ok),
            t(format!(
                " No verdict but healthy held from {} to {}.",
                clock.at(r.from),
                clock.at(r.to)
            )),
        ];
        if r.not_judged_s > 0.0 {
            p.push(t(format!(
                " For {} the verdicts could not judge (see Data coverage).",
                secs(r.not_judged_s)
            )));
        }
        out.push(Block::Para(p));
        return out;
    };
    // The verdict line as the dashboard showed it at the worst moment.
    let w = &worst_of(first).worst;
    let mut line = vec![
        Inline::Severity(w.line.severity),
        t(" "),
        b(w.line.kind.words()),
    ];
    if !w.line.others.is_empty() {
        let others: Vec<String> = w.line.others.iter().map(|k| k.words()).collect();
        line.push(dim(format!(" (+{}: {})", others.len(), others.join(", "))));
    }
    line.push(t(format!(
        " since {}: {}",
        clock.at(w.line.since),
        words(&w.line.message)
    )));
    out.push(Block::Para(vec![dim(format!(
        "The verdict line at the worst moment, {}:",
        clock.at(w.at)
    ))]));
    out.push(Block::Para(line));
    let list: Vec<Vec<Inline>> = groups
        .iter()
        .map(|g| {
            let worst = worst_of(g);
            let mut item = vec![
                Inline::Severity(worst.worst.severity),
                t(" "),
                b(g[0].kind.words()),
                t(": "),
            ];
            item.push(t(when(r, g)));
            item
        })
        .collect();
    out.push(Block::List(list));
    for g in &groups {
        out.push(problem(r, g));
    }
    out
}

/// The episodes by kind, the most telling kind first (its worst severity, then its time).
fn groups(r: &Report) -> Vec<Vec<&Episode>> {
    let mut out: Vec<Vec<&Episode>> = Vec::new();
    for e in r.ranked_episodes() {
        match out.iter_mut().find(|g| g[0].kind == e.kind) {
            Some(g) => g.push(e),
            None => out.push(vec![e]),
        }
    }
    for g in &mut out {
        g.sort_by_key(|e| e.since);
    }
    out
}

/// The episode at its worst: the most severe, held, highest measure; the earliest of equals.
/// A group is never empty (made from an episode).
fn worst_of<'a>(g: &[&'a Episode]) -> &'a Episode {
    let key = |e: &Episode| (e.worst.severity, e.worst.held, e.worst.measure);
    let mut best = g[0];
    for e in &g[1..] {
        if key(e).partial_cmp(&key(best)) == Some(std::cmp::Ordering::Greater) {
            best = e;
        }
    }
    best
}

fn total_s(g: &[&Episode]) -> f64 {
    g.iter().map(|e| e.lasted_s()).sum()
}

/// "began 21:19:43, held 2m 03s" / "3 times from 21:19:16 to 21:22:40, 1m 02s in all".
fn when(r: &Report, g: &[&Episode]) -> String {
    let clock = r.clock();
    let end = |e: &Episode| {
        if e.ongoing {
            format!(", still on at {}", clock.at(r.to))
        } else {
            String::new()
        }
    };
    match g {
        [e] => format!(
            "began {}{}, held {}{}",
            clock.at(e.since),
            if e.since < r.from {
                " (before the window)"
            } else {
                ""
            },
            duration(e.lasted_s().round() as u64),
            end(e)
        ),
        _ => {
            let last = g[g.len() - 1];
            format!(
                "{} times from {} to {}, {} in all{}",
                g.len(),
                clock.at(g[0].since),
                clock.at(last.last_held),
                duration(total_s(g).round() as u64),
                end(last)
            )
        }
    }
}

fn problem(r: &Report, g: &[&Episode]) -> Block {
    let clock = r.clock();
    let worst = worst_of(g);
    let kind = worst.kind;
    let title = vec![t(kind.words())];
    let mut body = Vec::new();
    let mut facts: Vec<(String, Vec<Inline>)> = vec![
        ("when".into(), vec![t(when(r, g))]),
        (
            "worst moment".into(),
            vec![
                t(format!("{} ", clock.at(worst.worst.at))),
                Inline::Severity(worst.worst.severity),
            ],
        ),
    ];
    if g.len() > 1 {
        facts.push(("longest".into(), vec![t(longest(r, g))]));
    }
    for (name, value) in &worst.worst.facts {
        facts.push((name.clone(), vec![t(value.clone())]));
    }
    body.push(Block::Facts(facts));
    body.push(Block::Para(vec![
        dim(format!("The verdict at {}: ", clock.at(worst.worst.at))),
        t(words(&worst.worst.line.message)),
    ]));
    if kind == VerdictKind::BlockedByReadView {
        let all = sessions(g);
        if !all.is_empty() {
            body.push(Block::Subheading("Who held the read view".into()));
            body.push(blockers(r, &all));
            if all.len() > SESSION_ROWS {
                body.push(Block::Para(vec![dim(format!(
                    "… and {} more sessions, whose read views were younger",
                    all.len() - SESSION_ROWS
                ))]));
            }
        }
    }
    if kind == VerdictKind::RollbackSegmentContention
        && let Some(way) = &r.last.rollback.way_out
    {
        body.push(Block::Para(vec![dim("Way out: "), t(way.clone())]));
    }
    if g.len() > 1 {
        // The longest times, in time order.
        let mut shown: Vec<&Episode> = g.to_vec();
        shown.sort_by(|a, b| b.lasted_s().total_cmp(&a.lasted_s()));
        shown.truncate(EPISODE_ROWS);
        shown.sort_by_key(|e| e.since);
        let rows = shown
            .iter()
            .map(|e| {
                vec![
                    vec![t(clock.at(e.since))],
                    vec![t(duration(e.lasted_s().round() as u64))],
                    vec![t(clock.at(e.worst.at))],
                    vec![Inline::Severity(e.worst.severity)],
                ]
            })
            .collect();
        body.push(Block::Table {
            head: vec![
                "began".into(),
                "held".into(),
                "worst at".into(),
                "severity".into(),
            ],
            rows,
        });
        if g.len() > EPISODE_ROWS {
            body.push(Block::Para(vec![dim(format!(
                "The {EPISODE_ROWS} longest of {} times; the timeline below shows them all.",
                g.len()
            ))]));
        }
    }
    Block::Problem {
        severity: worst.worst.severity,
        title,
        body,
    }
}

fn longest(r: &Report, g: &[&Episode]) -> String {
    let e = g
        .iter()
        .max_by(|a, b| a.lasted_s().total_cmp(&b.lasted_s()))
        .unwrap_or(&g[0]);
    format!(
        "{} from {}",
        duration(e.lasted_s().round() as u64),
        r.clock().at(e.since)
    )
}

/// A session as it held read views over a kind's episodes: the same thread, account and host
/// once, with how many episodes it held one in.
struct Session<'a> {
    seen: &'a BlockerSeen,
    times: usize,
    max_age_s: u64,
    first: chrono::DateTime<chrono::Utc>,
    last: chrono::DateTime<chrono::Utc>,
    statement: Option<&'a str>,
}

fn sessions<'a>(g: &[&'a Episode]) -> Vec<Session<'a>> {
    let mut out: Vec<Session<'a>> = Vec::new();
    for b in g.iter().flat_map(|e| e.blockers.iter()) {
        let same = |s: &Session| {
            s.seen.thread_id == b.thread_id && s.seen.user == b.user && s.seen.host == b.host
        };
        match out.iter_mut().find(|s| same(s)) {
            Some(s) => {
                s.times += 1;
                s.max_age_s = s.max_age_s.max(b.max_age_s);
                s.first = s.first.min(b.first_seen);
                s.last = s.last.max(b.last_seen);
                s.statement = b.statement.as_deref().or(s.statement);
            }
            None => out.push(Session {
                seen: b,
                times: 1,
                max_age_s: b.max_age_s,
                first: b.first_seen,
                last: b.last_seen,
                statement: b.statement.as_deref(),
            }),
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.max_age_s));
    out
}

fn blockers(r: &Report, all: &[Session]) -> Block {
    let clock = r.clock();
    let rows = all
        .iter()
        .take(SESSION_ROWS)
        .map(|x| {
            let s = x.seen;
            let statement = match x.statement {
                Some(q) => vec![code(server_text(q, STATEMENT_CHARS))],
                None => vec![dim(match s.command.as_deref() {
                    Some("Sleep") | None => "none running (idle in transaction)".to_string(),
                    Some(c) => format!("none seen ({})", server_text(c, 40)),
                })],
            };
            vec![
                vec![t(s
                    .thread_id
                    .map_or("unknown".to_string(), |t| format!("thread {t}")))],
                vec![t(who(s.user.as_deref(), s.host.as_deref()))],
                statement,
                vec![t(duration(x.max_age_s))],
                vec![t(s
                    .isolation
                    .as_deref()
                    .map_or("unknown".to_string(), |i| server_text(i, 40)))],
                vec![t(if x.times > 1 {
                    format!(
                        "{} times, {} – {}",
                        x.times,
                        clock.at(x.first),
                        clock.at(x.last)
                    )
                } else {
                    format!("{} – {}", clock.at(x.first), clock.at(x.last))
                })],
            ]
        })
        .collect();
    Block::Table {
        head: vec![
            "session".into(),
            "account".into(),
            "statement".into(),
            "read view open for".into(),
            "isolation".into(),
            "seen".into(),
        ],
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::episodes::{VerdictLine, Worst};
    use chrono::{DateTime, TimeZone, Utc};
    use innodebt_engine::figures::Severity;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_800_000_000 + s, 0).unwrap()
    }

    fn episode(at: i64, thread: u64, age: u64, statement: Option<&str>) -> Episode {
        let kind = VerdictKind::BlockedByReadView;
        Episode {
            kind,
            since: t(at),
            first_seen: t(at),
            last_held: t(at + 5),
            last_seen: t(at + 5),
            ongoing: false,
            worst: Worst {
                at: t(at),
                severity: Severity::Warning,
                measure: 1.0,
                line: VerdictLine {
                    kind,
                    severity: Severity::Warning,
                    since: t(at),
                    message: String::new(),
                    others: Vec::new(),
                },
                facts: Vec::new(),
                held: true,
            },
            blockers: vec![BlockerSeen {
                thread_id: Some(thread),
                trx_id: "0".into(),
                user: Some("app".into()),
                host: Some("web1".into()),
                isolation: None,
                command: None,
                statement: statement.map(str::to_string),
                max_age_s: age,
                first_seen: t(at),
                last_seen: t(at + 5),
            }],
        }
    }

    #[test]
    fn a_session_that_held_read_views_in_many_episodes_is_one_row() {
        let (a, b, c) = (
            episode(0, 7, 30, Some("SELECT 1")),
            episode(100, 9, 5, None),
            episode(200, 7, 60, None),
        );
        let all = sessions(&[&a, &b, &c]);
        type Row<'a> = (Option<u64>, usize, u64, i64, i64, Option<&'a str>);
        let rows: Vec<Row> = all
            .iter()
            .map(|s| {
                let o = |x: DateTime<Utc>| x.timestamp() - 1_800_000_000;
                (
                    s.seen.thread_id,
                    s.times,
                    s.max_age_s,
                    o(s.first),
                    o(s.last),
                    s.statement,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (Some(7), 2, 60, 0, 205, Some("SELECT 1")),
                (Some(9), 1, 5, 100, 105, None),
            ]
        );
        // Equally bad: the earliest is the worst.
        assert_eq!(worst_of(&[&a, &b, &c]).since, t(0));
    }

    #[test]
    fn the_dashboards_key_hints_are_not_the_readers() {
        assert_eq!(
            words("thread 14 (app@web1): commit or kill it (K, asks first) — it has held"),
            "thread 14 (app@web1): commit or kill it — it has held"
        );
        assert_eq!(server_text("SELECT\n  1,\t2", 100), "SELECT 1, 2");
        assert_eq!(server_text("abcdef", 3), "abc…");
    }
}
