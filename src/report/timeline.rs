//! "Timeline": the verdicts over the window (the worst of each stretch, and a lane per kind)
//! and the notable moments in order, folded as the replay timeline folds them.

use super::Report;
use super::doc::{Block, Chart, dim, t};

/// Moments listed, at most (the chart marks them all).
const MOMENT_ROWS: usize = 40;

pub fn section(r: &Report) -> Vec<Block> {
    let clock = r.clock();
    let title = "Verdicts over time";
    let svg = super::lanes::render(title, &r.axis(), &r.timeline, &r.lanes);
    let mut out = vec![
        Block::Heading {
            id: "timeline",
            text: "Timeline".into(),
        },
        Block::Chart(Chart {
            name: "verdicts",
            title: title.into(),
            svg,
            caption: "The worst verdict of each stretch (green healthy, grey not judged, amber \
                      warning, red critical), each verdict kind that held, and the notable \
                      moments: R redo points crossed, H history peak, P purge stopped or \
                      resumed, B blocker appeared or cleared, D disconnected, C runtime change, \
                      V verdict, * bookmark."
                .into(),
        }),
    ];
    if r.timeline.marks.is_empty() {
        return out;
    }
    let start = r.timeline.start.unwrap_or(r.from);
    let rows = r
        .timeline
        .marks
        .iter()
        .take(MOMENT_ROWS)
        .map(|m| {
            let at = start + chrono::Duration::milliseconds((m.at_s * 1000.0).round() as i64);
            let mut what = vec![t(super::summary::server_text(&m.label, 300))];
            if m.count > 1 {
                what.push(dim(format!(" (and {} more like it)", m.count - 1)));
            }
            vec![vec![t(clock.at(at))], vec![t(m.mark.to_string())], what]
        })
        .collect();
    out.push(Block::Table {
        head: vec!["time".into(), "mark".into(), "moment".into()],
        rows,
    });
    if r.timeline.marks.len() > MOMENT_ROWS {
        out.push(Block::Para(vec![dim(format!(
            "… and {} more (replay the capture to see them all)",
            r.timeline.marks.len() - MOMENT_ROWS
        ))]));
    }
    out
}
