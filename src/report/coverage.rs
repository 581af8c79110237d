//! "Data coverage": what the page rests on — the server and its flavour, the capture and the
//! span it covers, how often it sampled, the gaps in it, what the reader skipped (damage, cut
//! files), the counters that were off and the sources the server refused, and the time no
//! verdict could judge. A figure the page shows as unknown is explained here.

use super::Report;
use super::doc::{Block, Inline, code, dim, t};
use super::series::secs_between;
use innodebt_engine::units::{duration, secs};

/// Gaps listed one by one, at most.
const GAP_ROWS: usize = 10;

pub fn section(r: &Report) -> Vec<Block> {
    let clock = r.clock();
    let mut facts: Vec<(String, Vec<Inline>)> = Vec::new();
    let mut add = |name: &str, v: Vec<Inline>| facts.push((name.to_string(), v));
    add(
        "server",
        vec![t(r.server.clone().unwrap_or_else(|| {
            "unknown (the capture holds no server description)".into()
        }))],
    );
    if let Some(l) = &r.label {
        add("connection", vec![t(super::summary::server_text(l, 200))]);
    }
    add(
        "flavour",
        vec![t(format!(
            "{} ({})",
            r.flavor.as_deref().unwrap_or(&r.last.server.flavor),
            super::summary::server_text(&r.last.server.version, 80)
        ))],
    );
    let files = if r.files > 1 {
        format!(" ({} files)", r.files)
    } else {
        String::new()
    };
    add("capture", vec![code(r.capture.clone()), t(files)]);
    let mut span = vec![t(format!(
        "{} → {} UTC ({})",
        clock.full(r.from),
        clock.at(r.to),
        duration(secs_between(r.from, r.to).round() as u64)
    ))];
    if let Some((a, b)) = r.capture_span {
        span.push(dim(format!(
            "; a window of the capture's {} → {}",
            clock.full(a),
            clock.full(b)
        )));
    }
    add("span", span);
    add(
        "samples",
        vec![t(format!(
            "{}{}",
            r.samples,
            r.interval_s
                .map(|i| format!(", one every {}", every(i)))
                .unwrap_or_default()
        ))],
    );
    let gap_total: f64 = r.gaps.iter().map(|g| secs_between(g.from, g.to)).sum();
    add(
        "gaps",
        vec![t(if r.gaps.is_empty() {
            "none".to_string()
        } else {
            format!(
                "{} without samples, {} in all (listed below)",
                r.gaps.len(),
                secs(gap_total)
            )
        })],
    );
    add(
        "skipped or damaged",
        vec![t(if r.skipped.is_empty() {
            "nothing: every section read whole".to_string()
        } else {
            format!("{} note(s), listed below", r.skipped.len())
        })],
    );
    add(
        "counters off",
        if r.counters_off.is_empty() {
            vec![t("none")]
        } else {
            let mut v = Vec::new();
            for (i, c) in r.counters_off.iter().enumerate() {
                if i > 0 {
                    v.push(t(", "));
                }
                v.push(code(c.clone()));
            }
            v.push(dim(
                " (INNODB_METRICS: the figures they feed are unknown, not zero)",
            ));
            v
        },
    );
    add(
        "sources refused",
        vec![t(if r.unread.is_empty() {
            "none".to_string()
        } else {
            format!("{} (listed below)", r.unread.len())
        })],
    );
    add(
        "not judged",
        vec![t(if r.not_judged_s > 0.0 {
            format!(
                "{}: {}",
                secs(r.not_judged_s),
                if r.not_judged_why.is_empty() {
                    "no verdict could be reached".to_string()
                } else {
                    r.not_judged_why.join("; ")
                }
            )
        } else {
            "none: every sample was judged".to_string()
        })],
    );
    let mut out = vec![
        Block::Heading {
            id: "coverage",
            text: "Data coverage".into(),
        },
        Block::Facts(facts),
    ];
    if !r.gaps.is_empty() {
        out.push(Block::Subheading("Gaps".into()));
        let rows = r
            .gaps
            .iter()
            .take(GAP_ROWS)
            .map(|g| {
                vec![
                    vec![t(clock.at(g.from))],
                    vec![t(clock.at(g.to))],
                    vec![t(secs(secs_between(g.from, g.to)))],
                ]
            })
            .collect();
        out.push(Block::Table {
            head: vec![
                "last sample before".into(),
                "next sample".into(),
                "without samples".into(),
            ],
            rows,
        });
        if r.gaps.len() > GAP_ROWS {
            out.push(Block::Para(vec![dim(format!(
                "… and {} more",
                r.gaps.len() - GAP_ROWS
            ))]));
        }
    }
    if !r.skipped.is_empty() {
        out.push(Block::Subheading("What the reader skipped or found".into()));
        out.push(Block::List(
            r.skipped
                .iter()
                .map(|s| vec![t(super::summary::server_text(s, 600))])
                .collect(),
        ));
    }
    if !r.unread.is_empty() {
        out.push(Block::Subheading("Sources the server refused".into()));
        let rows = r
            .unread
            .iter()
            .map(|u| {
                vec![
                    vec![code(u.what.clone())],
                    vec![t(super::summary::server_text(&u.reason, 300))],
                    vec![t(u.figures.join(", "))],
                    vec![t(u.samples.to_string())],
                ]
            })
            .collect();
        out.push(Block::Table {
            head: vec![
                "source".into(),
                "why".into(),
                "figures left unknown".into(),
                "samples".into(),
            ],
            rows,
        });
    }
    out
}

/// A sampling interval: `1s`, `500 ms`, `15s`.
fn every(s: f64) -> String {
    if s < 0.95 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        secs(s.round())
    }
}
