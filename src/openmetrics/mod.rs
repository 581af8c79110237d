//! The figures in the OpenMetrics text format (and the older Prometheus 0.0.4 text format
//! for scrapers that don't ask for OpenMetrics): what `innodebt serve` answers on `/metrics`
//! and `/probe`, and what `innodebt export --format openmetrics` writes with timestamps.
//! The mapping figure → family lives in [`families`]; this module only writes the text.

pub mod exporter;
pub mod families;
pub mod family;
pub mod figures;

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

pub use families::FIGURES;
pub use family::{Family, Kind, Labels, Read};

use innodebt_engine::figures::Figures;

/// The two text formats a scrape can get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application/openmetrics-text; version=1.0.0`: units, StateSets, info, `# EOF`.
    OpenMetrics,
    /// `text/plain; version=0.0.4`: StateSets and info as gauges, no units.
    Prometheus,
}

impl Format {
    /// Content negotiation on the `Accept` header: OpenMetrics when the scraper lists it
    /// (Prometheus does, first), else the classic text format.
    pub fn negotiate(accept: Option<&str>) -> Format {
        let wants_om = accept.is_some_and(|a| {
            a.split(',').any(|part| {
                let mut params = part.split(';').map(str::trim);
                let media = params.next().unwrap_or_default();
                let q_zero = params.any(|p| p.replace(' ', "") == "q=0");
                media.eq_ignore_ascii_case("application/openmetrics-text") && !q_zero
            })
        });
        if wants_om {
            Format::OpenMetrics
        } else {
            Format::Prometheus
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
        }
    }
}

/// What innodebt knows about its own polling of one server at scrape time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PollingState {
    /// Connected, with a sample younger than the staleness limit.
    pub up: bool,
    pub scrape_duration_s: f64,
    /// Age of the newest sample at scrape time.
    pub sample_age_s: Option<f64>,
    /// Round trip of the last poll's statements: innodebt's own time on the server per tick.
    pub last_poll_s: Option<f64>,
    /// Sum of every poll's round trip since the target started.
    pub server_seconds_total: f64,
    pub polls_total: u64,
    /// Why the target is down (never credentials).
    pub last_error: Option<String>,
}

fn last_error(o: &PollingState) -> Vec<(Labels, f64)> {
    match &o.last_error {
        Some(e) if !o.up => vec![(vec![("error", shorten(e, 200))], 1.0)],
        _ => Vec::new(),
    }
}

/// innodebt's own families, read from [`PollingState`].
pub const OWN: &[Family<PollingState>] = &[
    family::gauge(
        "innodebt_up",
        "",
        "1 when innodebt is connected to the server and its latest sample is fresh",
        |o| Some(f64::from(u8::from(o.up))),
    ),
    family::gauge(
        "innodebt_scrape_duration_seconds",
        "seconds",
        "How long this scrape took innodebt to answer",
        |o| Some(o.scrape_duration_s),
    ),
    family::gauge(
        "innodebt_sample_age_seconds",
        "seconds",
        "Age of the newest sample at scrape time (polling runs on its own cadence)",
        |o| o.sample_age_s,
    ),
    family::gauge(
        "innodebt_poll_duration_seconds",
        "seconds",
        "Round trip of innodebt's statements in its last poll: its own time on the server per tick",
        |o| o.last_poll_s,
    ),
    Family {
        name: "innodebt_self_server_seconds",
        unit: "seconds",
        kind: Kind::Counter,
        help: "Time innodebt's polls spent on the server since it started polling it",
        read: Read::One(|o| Some(o.server_seconds_total)),
    },
    Family {
        name: "innodebt_polls",
        unit: "",
        kind: Kind::Counter,
        help: "Polls of the server since innodebt started polling it",
        read: Read::One(|o| Some(o.polls_total as f64)),
    },
    Family {
        name: "innodebt_last_error",
        unit: "",
        kind: Kind::Info,
        help: "Why innodebt cannot poll the server now (present only while down)",
        read: Read::Many(last_error),
    },
];

/// One time series: its labels and its points (timestamp in seconds, when exported).
struct Series {
    labels: Labels,
    points: Vec<(Option<f64>, f64)>,
}

struct FamilyData {
    name: &'static str,
    unit: &'static str,
    kind: Kind,
    help: &'static str,
    series: Vec<Series>,
}

/// Samples gathered per family (a family's samples must be contiguous in the text), then
/// written in one of the [`Format`]s.
#[derive(Default)]
pub struct Exposition {
    families: Vec<FamilyData>,
    /// Where each family's name is in `families`.
    index: std::collections::HashMap<&'static str, usize>,
}

impl Exposition {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the figures' samples (with `at` as their timestamp when exporting).
    pub fn add_figures(&mut self, f: &Figures, at: Option<DateTime<Utc>>) {
        self.add(FIGURES, f, at, |id| id.number(f));
    }

    pub fn add_own(&mut self, o: &PollingState) {
        self.add(OWN, o, None, |_| None);
    }

    /// The target's raw counters (`*_total`).
    pub fn add_counters(&mut self, c: &innodebt_engine::measure::counters::Counters) {
        self.add(exporter::COUNTERS, c, None, |_| None);
    }

    /// innodebt's own build and process families.
    pub fn add_exporter(&mut self, e: &exporter::Exporter) {
        self.add(exporter::EXPORTER, e, None, |_| None);
    }

    /// `figure` answers the registry's figures (the figures' table is the one that asks).
    fn add<T>(
        &mut self,
        table: &[Family<T>],
        input: &T,
        at: Option<DateTime<Utc>>,
        figure: impl Fn(innodebt_engine::figures::FigureId) -> Option<f64> + Copy,
    ) {
        let ts = at.map(|t| t.timestamp_millis() as f64 / 1000.0);
        for fam in table {
            for (labels, value) in fam.read.samples(input, figure) {
                self.push(fam, labels, (ts, value));
            }
        }
    }

    fn push<T>(&mut self, fam: &Family<T>, labels: Labels, point: (Option<f64>, f64)) {
        let data = self.family(fam);
        match data.series.iter_mut().find(|s| s.labels == labels) {
            Some(s) => s.points.push(point),
            None => data.series.push(Series {
                labels,
                points: vec![point],
            }),
        }
    }

    fn family<T>(&mut self, fam: &Family<T>) -> &mut FamilyData {
        // By name: several figures share a family (by label), and its samples stay together.
        let at = match self.index.get(fam.name) {
            Some(&i) => i,
            None => {
                self.families.push(FamilyData {
                    name: fam.name,
                    unit: fam.unit,
                    kind: fam.kind,
                    help: fam.help,
                    series: Vec::new(),
                });
                self.index.insert(fam.name, self.families.len() - 1);
                self.families.len() - 1
            }
        };
        &mut self.families[at]
    }

    /// The text. OpenMetrics ends with `# EOF`. Written straight into one string (a scrape
    /// renders a hundred families; a string per name, label set and number was most of it).
    pub fn render(&self, format: Format) -> String {
        let mut out = String::with_capacity(16 * 1024);
        for fam in &self.families {
            let suffix = match fam.kind {
                Kind::Info => "_info",
                Kind::Counter => "_total",
                Kind::Gauge | Kind::StateSet => "",
            };
            match format {
                Format::OpenMetrics => {
                    let kind = match fam.kind {
                        Kind::Gauge => "gauge",
                        Kind::Counter => "counter",
                        Kind::StateSet => "stateset",
                        Kind::Info => "info",
                    };
                    let _ = writeln!(out, "# TYPE {} {kind}", fam.name);
                    if !fam.unit.is_empty() {
                        let _ = writeln!(out, "# UNIT {} {}", fam.name, fam.unit);
                    }
                    let _ = write!(out, "# HELP {} ", fam.name);
                    push_help(&mut out, fam.help);
                }
                Format::Prometheus => {
                    let kind = if fam.kind == Kind::Counter {
                        "counter"
                    } else {
                        "gauge"
                    };
                    let _ = write!(out, "# HELP {}{suffix} ", fam.name);
                    push_help(&mut out, fam.help);
                    let _ = writeln!(out, "# TYPE {}{suffix} {kind}", fam.name);
                }
            }
            for s in &fam.series {
                for (ts, v) in &s.points {
                    out.push_str(fam.name);
                    out.push_str(suffix);
                    push_labels(&mut out, &s.labels);
                    out.push(' ');
                    push_number(&mut out, *v);
                    if let Some(ts) = ts {
                        match format {
                            Format::OpenMetrics => {
                                out.push(' ');
                                push_number(&mut out, *ts);
                            }
                            Format::Prometheus => {
                                let _ = write!(out, " {}", (ts * 1000.0).round() as i64);
                            }
                        }
                    }
                    out.push('\n');
                }
            }
        }
        if format == Format::OpenMetrics {
            out.push_str("# EOF\n");
        }
        out
    }
}

/// What one scrape answers: a target (its figures when there are any, its raw counters,
/// innodebt's own state polling it), and on `/metrics` innodebt's own build and process.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scrape<'a> {
    pub figures: Option<&'a Figures>,
    pub counters: Option<&'a innodebt_engine::measure::counters::Counters>,
    /// `None`: no target (`/metrics` under `--probe-only`).
    pub own: Option<&'a PollingState>,
    pub exporter: Option<&'a exporter::Exporter>,
}

/// Every metric name a scrape can carry (the sample names, e.g. `innodebt_server_info`),
/// for checking dashboards and alert rules against what innodebt exports.
pub fn sample_names() -> Vec<String> {
    let sample_name = |name: &str, kind: Kind| match kind {
        Kind::Info => format!("{name}_info"),
        Kind::Counter => format!("{name}_total"),
        _ => name.to_string(),
    };
    let mut names: Vec<String> = FIGURES
        .iter()
        .map(|f| sample_name(f.name, f.kind))
        .chain(OWN.iter().map(|f| sample_name(f.name, f.kind)))
        .chain(
            exporter::COUNTERS
                .iter()
                .map(|f| sample_name(f.name, f.kind)),
        )
        .chain(
            exporter::EXPORTER
                .iter()
                .map(|f| sample_name(f.name, f.kind)),
        )
        .collect();
    names.sort();
    names
}

/// The text of one scrape.
pub fn scrape(s: &Scrape, format: Format) -> String {
    let mut e = Exposition::new();
    if let Some(own) = s.own {
        e.add_own(own);
        match (s.figures, own.up) {
            (Some(f), true) => e.add_figures(f, None),
            // Down or stale: the last figures stay readable, but the verdict says nothing is
            // known about now (never an old "healthy").
            (Some(f), false) => {
                let mut f = f.clone();
                f.verdicts = innodebt_engine::verdicts::without_fresh_data(
                    &f.verdicts,
                    own.sample_age_s.unwrap_or_default(),
                    f.sampled_at,
                );
                e.add_figures(&f, None);
            }
            (None, _) => {}
        }
        // A counter from a sample that is not fresh would look like a stopped server.
        if let (Some(c), true) = (s.counters, own.up) {
            e.add_counters(c);
        }
    }
    if let Some(x) = s.exporter {
        e.add_exporter(x);
    }
    e.render(format)
}

/// A capture as OpenMetrics with timestamps: every sample's figures, derived as the
/// dashboard derives them. Returns the samples written.
pub fn export<'a, I, W>(events: I, out: W) -> std::io::Result<u64>
where
    I: IntoIterator<Item = &'a innodebt_server::sample::SourceEvent>,
    W: std::io::Write,
{
    let mut deriver = innodebt_engine::derive::Deriver::new();
    let figures = events.into_iter().filter_map(|ev| deriver.push(ev)).map(Ok);
    export_figures(figures, out)
}

/// Like [`export`] for figures already derived (a replay's window of a capture).
pub fn export_figures<I, W>(figures: I, mut out: W) -> std::io::Result<u64>
where
    I: IntoIterator<Item = std::io::Result<Figures>>,
    W: std::io::Write,
{
    let mut e = Exposition::new();
    let mut samples = 0;
    for f in figures {
        let f = f?;
        e.add_figures(&f, Some(f.sampled_at));
        samples += 1;
    }
    out.write_all(e.render(Format::OpenMetrics).as_bytes())?;
    out.flush()?;
    Ok(samples)
}

/// `{k="v",…}` (nothing without labels), the values escaped.
fn push_labels(out: &mut String, labels: &Labels) {
    if labels.is_empty() {
        return;
    }
    out.push('{');
    for (i, (k, v)) in labels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(k);
        out.push_str("=\"");
        push_label_value(out, v);
        out.push('"');
    }
    out.push('}');
}

/// Label values: backslash, double quote and line feed escaped (both formats).
pub fn escape_label(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    push_label_value(&mut out, v);
    out
}

fn push_label_value(out: &mut String, v: &str) {
    // Almost every value needs no escape: copied whole, not char by char (every scrape).
    // (0xC2 leads the C1 controls' UTF-8, and some letters: those take the careful way.)
    if !v
        .bytes()
        .any(|b| b == b'\\' || b == b'"' || b < 0x20 || b == 0x7f || b == 0xc2)
    {
        out.push_str(v);
        return;
    }
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// A help text, backslash and line feed escaped, and the line's end.
fn push_help(out: &mut String, h: &str) {
    // The help texts are ours and plain: written whole, not char by char (every scrape).
    if !h.contains(['\\', '\n']) {
        out.push_str(h);
    } else {
        for c in h.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                c => out.push(c),
            }
        }
    }
    out.push('\n');
}

/// At most `max` characters (an error text in a label).
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// A sample value: integers without a fraction, `+Inf`/`-Inf`/`NaN` as the formats spell them.
pub fn number(v: f64) -> String {
    let mut s = String::new();
    push_number(&mut s, v);
    s
}

fn push_number(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "+Inf" } else { "-Inf" });
    } else if v.fract() == 0.0 && v.abs() < 9.0e15 {
        let _ = write!(out, "{}", v as i64);
    } else {
        let _ = write!(out, "{v}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_prefers_openmetrics_when_asked() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::negotiate(Some(prometheus)), Format::OpenMetrics);
        assert_eq!(Format::negotiate(Some("text/plain")), Format::Prometheus);
        assert_eq!(Format::negotiate(None), Format::Prometheus);
        assert_eq!(
            Format::negotiate(Some("application/openmetrics-text; q=0")),
            Format::Prometheus
        );
    }

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        // Plain values are copied whole; controls (C0, DEL, C1) still become spaces, and
        // letters beyond ASCII stay, on either side of the fast path.
        assert_eq!(escape_label("10.11.19-MariaDB"), "10.11.19-MariaDB");
        assert_eq!(escape_label("a\tb\u{7f}c\u{85}d"), "a b c d");
        assert_eq!(escape_label("Ü ñ 日本 20 °C"), "Ü ñ 日本 20 °C");
        let mut help = String::new();
        push_help(&mut help, "plain");
        push_help(&mut help, "a\\b\nc");
        assert_eq!(help, "plain\na\\\\b\\nc\n");
    }

    #[test]
    fn a_down_target_says_up_0_and_why_in_both_formats() {
        let own = PollingState {
            up: false,
            scrape_duration_s: 0.002,
            last_error: Some("connection refused by 127.0.0.1:1".into()),
            ..PollingState::default()
        };
        let down = Scrape {
            own: Some(&own),
            ..Scrape::default()
        };
        let om = scrape(&down, Format::OpenMetrics);
        assert!(om.contains("# TYPE innodebt_up gauge\n"), "{om}");
        assert!(om.contains("\ninnodebt_up 0\n"), "{om}");
        assert!(om.contains("# UNIT innodebt_scrape_duration_seconds seconds\n"));
        assert!(
            om.contains("innodebt_self_server_seconds_total 0\n"),
            "{om}"
        );
        assert!(
            om.contains(
                "innodebt_last_error_info{error=\"connection refused by 127.0.0.1:1\"} 1\n"
            )
        );
        assert!(om.ends_with("# EOF\n"));
        assert!(!om.contains("innodebt_checkpoint_age_bytes"));
        let text = scrape(&down, Format::Prometheus);
        assert!(
            text.contains("# TYPE innodebt_last_error_info gauge\n"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE innodebt_polls_total counter\n"),
            "{text}"
        );
        assert!(!text.contains("# EOF") && !text.contains("# UNIT"));
    }

    #[test]
    fn every_family_name_carries_its_unit() {
        for (name, unit) in FIGURES
            .iter()
            .map(|f| (f.name, f.unit))
            .chain(OWN.iter().map(|f| (f.name, f.unit)))
            .chain(exporter::COUNTERS.iter().map(|f| (f.name, f.unit)))
            .chain(exporter::EXPORTER.iter().map(|f| (f.name, f.unit)))
        {
            assert!(
                name.starts_with("innodebt_") || name.starts_with("process_"),
                "{name}"
            );
            if !unit.is_empty() {
                assert!(name.ends_with(&format!("_{unit}")), "{name} lacks _{unit}");
            }
        }
        let names = sample_names();
        let mut dedup = names.clone();
        dedup.dedup();
        assert_eq!(names, dedup, "a family name is used twice");
    }
}
