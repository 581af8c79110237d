//! "Runtime changes and bookmarks": what was changed on the server during the window — the
//! changes innodebt made (its audit trail, stored in the capture) and the settings the
//! server's variables show changing between samples — and the bookmarks written on the
//! capture (a DBA's notes, and the runtime changes an import found).

use super::Report;
use super::doc::{Block, code, dim, t};

pub fn section(r: &Report) -> Vec<Block> {
    let clock = r.clock();
    let mut out = vec![Block::Heading {
        id: "changes",
        text: "Runtime changes and bookmarks".into(),
    }];
    if r.changes.is_empty() && r.bookmarks.is_empty() {
        out.push(Block::Para(vec![t(
            "No runtime change was recorded and no bookmark written during the window.",
        )]));
        return out;
    }
    let mut rows: Vec<(chrono::DateTime<chrono::Utc>, Vec<Vec<super::doc::Inline>>)> = r
        .changes
        .iter()
        .map(|c| {
            (
                c.at,
                vec![
                    vec![t(clock.at(c.at))],
                    vec![t(match c.source {
                        "audit" => "runtime change (audit trail)",
                        _ => "setting changed (server variables)",
                    })],
                    vec![code(super::summary::server_text(&c.what, 400))],
                ],
            )
        })
        .collect();
    rows.extend(r.bookmarks.iter().map(|n| {
        (
            n.at,
            vec![
                vec![t(clock.at(n.at))],
                vec![t("bookmark")],
                vec![t(super::summary::server_text(&n.text, 400))],
            ],
        )
    }));
    rows.sort_by_key(|(at, _)| *at);
    out.push(Block::Table {
        head: vec!["time".into(), "what".into(), "detail".into()],
        rows: rows.into_iter().map(|(_, r)| r).collect(),
    });
    out.push(Block::Para(vec![dim(
        "The audit trail holds the changes made from innodebt (SET GLOBAL, KILL, counters switched on); a \
         change made elsewhere shows only as a setting the server reported differently.",
    )]));
    out
}
