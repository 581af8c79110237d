//! The timeline of verdicts as one SVG: the worst severity of every stretch on top (the
//! replay timeline's rule), under it one lane per verdict kind that held, each run in its
//! severity's colour, and the capture's notable moments as the replay timeline marks them
//! (`R` redo points crossed, `B` blocker, `P` purge, `C` runtime change, `V` verdict, `*`
//! bookmark). Pure: the report's lanes in, SVG out.

use std::fmt::Write as _;

use super::chart::{WIDTH, time_ticks};
use super::episodes::Lane;
use super::html::esc;
use super::series::Axis;
use crate::postmortem::timeline::SideTimeline;
use innodebt_engine::figures::Severity;

const LEFT: f64 = 210.0;
const RIGHT: f64 = 20.0;
const ROW: f64 = 22.0;

fn color(s: Severity) -> (&'static str, &'static str) {
    match s {
        Severity::Ok => ("#2da44e", "ok"),
        Severity::Unknown => ("#8c959f", "unknown"),
        Severity::Warning => ("#d4a72c", "warning"),
        Severity::Critical => ("#cf222e", "critical"),
    }
}

/// The timeline as SVG.
pub fn render(title: &str, axis: &Axis, timeline: &SideTimeline, lanes: &[Lane]) -> String {
    let rows = 1 + lanes.len() + 1;
    let top = 30.0;
    let height = top + rows as f64 * ROW + 34.0;
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let span = axis.span_s.max(1.0);
    let x = |s: f64| x0 + (s / span).clamp(0.0, 1.0) * (x1 - x0);
    let mut out = String::with_capacity(8 * 1024);
    super::chart::open(&mut out, height, title);
    let _ = writeln!(out, "<title>{}</title>", esc(title));
    let _ = writeln!(
        out,
        "<text class=\"tx\" x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"#1f2328\">{}</text>",
        esc(title)
    );
    let row_y = |i: usize| top + i as f64 * ROW;
    let label = |out: &mut String, i: usize, text: &str| {
        let _ = writeln!(
            out,
            "<text class=\"tx\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#1f2328\">{}</text>",
            x0 - 8.0,
            row_y(i) + 15.0,
            esc(text)
        );
    };
    let bar = |out: &mut String, i: usize, a: f64, b: f64, s: Severity, tip: &str| {
        let (fill, name) = color(s);
        let (xa, xb) = (x(a), x(b));
        let _ = writeln!(
            out,
            "<rect class=\"sev-{name}\" x=\"{xa:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"><title>{}</title></rect>",
            row_y(i) + 3.0,
            (xb - xa).max(1.5),
            ROW - 6.0,
            esc(tip)
        );
    };
    let clock = |s: f64| axis.time(s).format("%H:%M:%S").to_string();
    label(&mut out, 0, "worst verdict");
    for s in &timeline.stretches {
        // The timeline counts from its own first sample: the window's.
        let shift = timeline.start.map_or(0.0, |t| axis.at(t));
        let (a, b) = (s.from_s + shift, s.to_s + shift);
        let tip = format!("{} {} – {}", s.severity.as_str(), clock(a), clock(b));
        bar(&mut out, 0, a, b, s.severity, &tip);
    }
    for (i, lane) in lanes.iter().enumerate() {
        let words = lane.kind.words();
        label(&mut out, i + 1, &words);
        for r in &lane.runs {
            let (a, b) = (axis.at(r.from), axis.at(r.to));
            let tip = format!(
                "{words}: {} {} – {}",
                r.severity.as_str(),
                clock(a),
                clock(b)
            );
            bar(&mut out, i + 1, a, b, r.severity, &tip);
        }
    }
    let marks_row = lanes.len() + 1;
    label(&mut out, marks_row, "moments");
    let shift = timeline.start.map_or(0.0, |t| axis.at(t));
    // Marks closer than a letter's width to the one before go a half row lower.
    let mut prev: Option<f64> = None;
    let mut low = false;
    for m in &timeline.marks {
        let px = x(m.at_s + shift);
        low = prev.is_some_and(|p| px - p < 10.0) && !low;
        prev = Some(px);
        let dy = if low { 8.0 } else { 0.0 };
        let more = if m.count > 1 {
            format!(" (and {} more)", m.count - 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<text class=\"tx\" x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"600\" fill=\"#1f2328\"><title>{} {}{}</title>{}</text>",
            row_y(marks_row) + 11.0 + dy,
            clock(m.at_s + shift),
            esc(&m.label),
            esc(&more),
            esc(&m.mark.to_string())
        );
    }
    let y1 = row_y(rows);
    let _ = writeln!(
        out,
        "<path class=\"ax\" d=\"M{x0:.1} {top:.1}V{y1:.1}H{x1:.1}\" stroke=\"#59636e\" stroke-width=\"1\" fill=\"none\"/>"
    );
    for (s, text) in time_ticks(axis) {
        let px = x(s);
        let _ = writeln!(
            out,
            "<path class=\"ax\" d=\"M{px:.1} {y1:.1}v5\" stroke=\"#59636e\" stroke-width=\"1\"/>"
        );
        let _ = writeln!(
            out,
            "<text class=\"dm\" x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#59636e\">{}</text>",
            y1 + 18.0,
            esc(&text)
        );
    }
    out.push_str("</svg>");
    out
}
