//! `innodebt report`: one self-contained page about a capture for the postmortem — what went
//! wrong, when, why and what to change — from the same figures a replay of the capture shows
//! (`CaptureSet::figures`, sample by sample), in the dashboard's words and units.
//!
//! [`data`] gathers a window's figures into a [`Report`] (one pass; series bounded by
//! [`series`]); [`episodes`] follows each verdict from its start to its end. Each section is a
//! pure function of the report into [`doc`] blocks ([`summary`], [`coverage`], [`timeline`],
//! [`charts`], [`changes`], [`baseline`], [`sizing`]); the charts are our own SVG ([`chart`],
//! [`lanes`]); [`html`] and [`markdown`] render the blocks. Reading the capture and writing
//! the files is `run::report`'s.

pub mod baseline;
pub mod changes;
pub mod chart;
pub mod charts;
pub mod coverage;
pub mod data;
pub mod doc;
pub mod episodes;
pub mod html;
pub mod lanes;
pub mod markdown;
pub mod series;
pub mod sizing;
pub mod summary;
pub mod timeline;

use chrono::{DateTime, Utc};

pub use data::{Capture, Collector, Report};
use doc::{Block, Inline, dim, t};
pub use markdown::Markdown;

/// How the page says a time: the clock alone when the window is within one day.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    days: bool,
}

impl Clock {
    /// A time in the window: `21:19:43`, or `2026-11-21 21:19:43` across days.
    pub fn at(&self, t: DateTime<Utc>) -> String {
        if self.days {
            self.full(t)
        } else {
            t.format("%H:%M:%S").to_string()
        }
    }

    /// A time with its date.
    pub fn full(&self, t: DateTime<Utc>) -> String {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

impl Report {
    pub fn clock(&self) -> Clock {
        Clock {
            days: self.from.date_naive() != self.to.date_naive(),
        }
    }

    /// The server as the title names it.
    fn who(&self) -> String {
        self.server
            .as_deref()
            .or(self.label.as_deref())
            .map(|s| summary::server_text(s, 120))
            .unwrap_or_else(|| "unknown server".into())
    }
}

/// The page's title.
pub fn title(r: &Report) -> String {
    format!(
        "InnoDB incident report: {}, {} UTC",
        r.who(),
        r.from.format("%Y-%m-%d %H:%M")
    )
}

/// What the reader should know before trusting the page, in a few words (the details are
/// under Data coverage); `None` when the capture is whole.
fn coverage_warning(r: &Report) -> Option<String> {
    let mut parts = Vec::new();
    if !r.gaps.is_empty() {
        let total: f64 = r
            .gaps
            .iter()
            .map(|g| series::secs_between(g.from, g.to))
            .sum();
        parts.push(format!(
            "{} gap(s) without samples ({})",
            r.gaps.len(),
            innodebt_engine::units::secs(total.round())
        ));
    }
    if !r.skipped.is_empty() {
        parts.push(format!(
            "{} note(s) of damage or skipped data",
            r.skipped.len()
        ));
    }
    if !r.counters_off.is_empty() {
        parts.push(format!(
            "{} INNODB_METRICS counter(s) off",
            r.counters_off.len()
        ));
    }
    if !r.unread.is_empty() {
        parts.push(format!("{} source(s) the server refused", r.unread.len()));
    }
    (!parts.is_empty()).then(|| format!("Data coverage: {} (see Data coverage).", parts.join(", ")))
}

fn header(r: &Report) -> Vec<Block> {
    let clock = r.clock();
    let mut out = vec![
        Block::Heading {
            id: "top",
            text: format!("InnoDB incident report: {}", r.who()),
        },
        Block::Para(vec![t(format!(
            "{} · {} → {} UTC ({}) · {} samples",
            r.capture,
            clock.full(r.from),
            clock.at(r.to),
            innodebt_engine::units::secs(series::secs_between(r.from, r.to)),
            r.samples
        ))]),
    ];
    if let Some(w) = coverage_warning(r) {
        out.push(Block::Para(vec![
            doc::Inline::Severity(innodebt_engine::figures::Severity::Unknown),
            t(format!(" {w}")),
        ]));
    }
    out
}

/// Every section, in the page's order: what went wrong and what to change first, then the
/// evidence (timeline, charts, changes, the baseline), then what the page rests on.
pub fn sections(r: &Report) -> Vec<Block> {
    let mut out = summary::section(r);
    out.extend(sizing::section(r));
    out.extend(timeline::section(r));
    out.extend(charts::section(r));
    out.extend(changes::section(r));
    out.extend(baseline::section(r));
    out.extend(coverage::section(r));
    out
}

fn footer(r: &Report, tool: &str) -> Vec<Inline> {
    vec![
        t(format!("Made by {tool} from {}. ", r.capture)),
        dim(
            "Every figure is the one the innodebt dashboard shows replaying the capture, in its \
             words and units; times are UTC.",
        ),
    ]
}

/// The HTML page; `tool` names the program that made it (`innodebt 0.1.0`).
pub fn html(r: &Report, tool: &str) -> String {
    html::page(&title(r), &header(r), &sections(r), &footer(r, tool))
}

/// The Markdown page and its chart files, named after `stem` (the page's file name without
/// its extension).
pub fn markdown(r: &Report, tool: &str, stem: &str) -> Markdown {
    markdown::page(&title(r), &header(r), &sections(r), &footer(r, tool), stem)
}
