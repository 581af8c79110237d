//! "Against the baseline" (`--baseline`): what `innodebt compare` finds between the window and
//! a normal stretch — the differences ranked by how likely each explains the incident, the
//! time each verdict held on either side, and the warnings (different servers, damage).

use super::Report;
use super::doc::{Block, Inline, dim, t};
use crate::postmortem::Comparison;
use crate::postmortem::text::side_line;
use innodebt_engine::units::duration;

/// Ranked differences shown (`compare --top`'s default).
const TOP: usize = 15;

pub fn section(r: &Report) -> Vec<Block> {
    let Some(c) = &r.comparison else {
        return Vec::new();
    };
    let mut out = vec![
        Block::Heading {
            id: "baseline",
            text: "Against the baseline".into(),
        },
        Block::Facts(vec![
            ("incident".into(), vec![t(clean(&side_line(&c.incident)))]),
            ("baseline".into(), vec![t(clean(&side_line(&c.baseline)))]),
        ]),
    ];
    if !c.warnings.is_empty() {
        out.push(Block::List(
            c.warnings
                .iter()
                .map(|w| vec![Inline::Strong("warning: ".into()), t(clean(w))])
                .collect(),
        ));
    }
    out.push(Block::Subheading(
        "What differs, most likely explanation first".into(),
    ));
    out.push(ranked(c));
    if !c.verdicts.is_empty() {
        out.push(Block::Subheading("Time each verdict held".into()));
        let share = |s: Option<f64>| s.map_or("n/a".into(), |s| format!("{:.0} %", s * 100.0));
        let rows = c
            .verdicts
            .iter()
            .map(|v| {
                let side = |x: &crate::postmortem::compare::VerdictTime| {
                    format!(
                        "{} ({}, critical {})",
                        duration(x.seconds.round() as u64),
                        share(x.share),
                        duration(x.critical_seconds.round() as u64)
                    )
                };
                vec![
                    vec![t(v.kind.words())],
                    vec![t(side(&v.incident))],
                    vec![t(side(&v.baseline))],
                ]
            })
            .collect();
        out.push(Block::Table {
            head: vec!["verdict".into(), "incident".into(), "baseline".into()],
            rows,
        });
    }
    out.push(Block::Para(vec![dim(format!("Score: {}", c.scoring))]));
    out
}

fn clean(s: &str) -> String {
    super::summary::server_text(s, 600)
}

fn ranked(c: &Comparison) -> Block {
    if c.ranked.is_empty() {
        return Block::Para(vec![t(
            "Nothing differs: the figures, the settings and the verdict time match the baseline.",
        )]);
    }
    let mut rows: Vec<Vec<Vec<Inline>>> = c
        .ranked
        .iter()
        .take(TOP)
        .enumerate()
        .map(|(i, d)| {
            vec![
                vec![t(format!("{}", i + 1))],
                vec![t(format!("{:.1}", d.score))],
                vec![t(clean(&d.what))],
            ]
        })
        .collect();
    if c.ranked.len() > TOP {
        rows.push(vec![
            vec![],
            vec![],
            vec![dim(format!(
                "… {} more (innodebt compare --format json has them all)",
                c.ranked.len() - TOP
            ))],
        ]);
    }
    Block::Table {
        head: vec!["#".into(), "score".into(), "difference".into()],
        rows,
    }
}
