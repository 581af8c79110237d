//! The page as blocks of text, tables and charts, so each section is written once and both
//! the HTML page and the Markdown page render it. Text here is plain: every string — the
//! server's included — is escaped by the renderer, never by the section.

use innodebt_engine::figures::Severity;

/// A run of text.
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    Text(String),
    Strong(String),
    /// A statement, a setting, a name to copy.
    Code(String),
    /// Less important words (a source, a unit, a time in brackets).
    Dim(String),
    /// A severity as the dashboard marks it: symbol and word (`▲ warning`).
    Severity(Severity),
}

pub fn t(s: impl Into<String>) -> Inline {
    Inline::Text(s.into())
}

pub fn b(s: impl Into<String>) -> Inline {
    Inline::Strong(s.into())
}

pub fn code(s: impl Into<String>) -> Inline {
    Inline::Code(s.into())
}

pub fn dim(s: impl Into<String>) -> Inline {
    Inline::Dim(s.into())
}

/// A chart, drawn: its SVG and what a reader without it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// A short name for files and anchors (`checkpoint-age`).
    pub name: &'static str,
    pub title: String,
    /// The SVG, without the stylesheet (see [`super::chart::CSS`]).
    pub svg: String,
    /// One sentence under it: what it shows, in words.
    pub caption: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A section's heading; `id` is its anchor.
    Heading {
        id: &'static str,
        text: String,
    },
    Subheading(String),
    Para(Vec<Inline>),
    /// A problem, marked with its severity: a title and what follows it.
    Problem {
        severity: Severity,
        title: Vec<Inline>,
        body: Vec<Block>,
    },
    List(Vec<Vec<Inline>>),
    /// Name → value pairs.
    Facts(Vec<(String, Vec<Inline>)>),
    Table {
        head: Vec<String>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
    Chart(Chart),
}

/// The symbol the dashboard marks a severity with.
pub use crate::theme::severity_symbol as symbol;
