//! Our own small SVG time charts, no script: time (UTC) across, one unit up, every line named
//! in a legend with its figure, thresholds dashed and labelled with their values at the right
//! end, the peak of the main line marked, and the incident's stretches shaded behind (amber:
//! a warning verdict held, red: a critical one). Drawn with presentation attributes, so a
//! viewer without the stylesheet (a mail preview) still shows colours; [`CSS`] turns them for
//! a dark background. Pure: figures in, an SVG string out.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use super::html::esc;
use super::series::Axis;
use innodebt_engine::figures::Severity;
use innodebt_engine::units;

pub const WIDTH: f64 = 1000.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 178.0;
const PLOT_H: f64 = 220.0;
const LEGEND_ROW: f64 = 18.0;
/// Approximate width of one character at the legend's 12 px.
const CHAR_W: f64 = 6.6;

/// The chart stylesheet: the page carries it once; a chart saved on its own carries it too.
pub const CSS: &str = r#"
svg.chart .tx{fill:#1f2328}svg.chart .dm{fill:#59636e}svg.chart .ax{stroke:#59636e}svg.chart .gr{stroke:#d1d9e0}
@media (prefers-color-scheme:dark){
svg.chart .tx{fill:#e6edf3}svg.chart .dm{fill:#9198a1}svg.chart .ax{stroke:#9198a1}svg.chart .gr{stroke:#30363d}
svg.chart .c0{stroke:#56b4e9}svg.chart .c1{stroke:#ff8c42}svg.chart .c2{stroke:#2bd6a4}svg.chart .c3{stroke:#e59cc4}svg.chart .c4{stroke:#f5c04a}svg.chart .c5{stroke:#9198a1}
svg.chart .t0{stroke:#9198a1}svg.chart .t1{stroke:#d29922}svg.chart .t2{stroke:#f85149}svg.chart .t3{stroke:#56b4e9}
svg.chart .f0{fill:#56b4e9}svg.chart .f1{fill:#ff8c42}svg.chart .f2{fill:#2bd6a4}svg.chart .f3{fill:#e59cc4}svg.chart .f4{fill:#f5c04a}svg.chart .f5{fill:#9198a1}
svg.chart .ft0{fill:#9198a1}svg.chart .ft1{fill:#d29922}svg.chart .ft2{fill:#f85149}svg.chart .ft3{fill:#56b4e9}
}
@media print{svg.chart .tx{fill:#000}svg.chart .dm{fill:#444}}
"#;

/// Data colours (Okabe–Ito: told apart with the common colour-vision deficiencies).
const DATA: [&str; 6] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#6e7781",
];
/// Threshold colours: neutral, the async point's amber, the stall line's red, a reference.
const THRESHOLD: [&str; 4] = ["#6e7781", "#9a6700", "#cf222e", "#0072b2"];
const WARNING_FILL: &str = "#d4a72c";
const CRITICAL_FILL: &str = "#cf222e";

/// A value's unit: how the axis and the labels say it (the dashboard's units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Count,
    /// Per second: `1.2k/s`.
    Rate,
    Percent,
    Seconds,
}

impl Unit {
    /// A value as the dashboard says it.
    pub fn value(self, v: f64) -> String {
        match self {
            Unit::Bytes => units::bytes(v.max(0.0) as u64),
            Unit::Count => units::count(v),
            Unit::Rate => units::rate(Some(v)),
            Unit::Percent => units::pct(Some(v)),
            Unit::Seconds => units::secs(v.round()),
        }
    }

    /// An axis tick: round numbers in the axis's own unit.
    fn tick(self, v: f64, step: f64, top: f64) -> String {
        let trim = |x: f64| {
            let s = if step_decimals(step) > 0 {
                format!("{x:.1}")
            } else {
                format!("{x:.0}")
            };
            s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
        };
        match self {
            Unit::Bytes => {
                let (scale, name) = byte_scale(top);
                if v == 0.0 {
                    return "0".into();
                }
                let step = step / scale;
                let x = v / scale;
                let s = if step < 1.0 {
                    format!("{x:.1}")
                } else {
                    format!("{x:.0}")
                };
                format!("{s} {name}")
            }
            Unit::Count => units::count(v),
            Unit::Rate => format!("{}/s", units::count(v)),
            Unit::Percent => format!("{}%", trim(v)),
            Unit::Seconds if v >= 60.0 => units::secs(v),
            Unit::Seconds => format!("{}s", trim(v)),
        }
    }
}

fn step_decimals(step: f64) -> usize {
    usize::from(step < 1.0)
}

/// The binary unit an axis of bytes up to `top` speaks in.
fn byte_scale(top: f64) -> (f64, &'static str) {
    const NAMES: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut scale = 1.0;
    let mut i = 0;
    while top / scale >= 1024.0 && i < NAMES.len() - 1 {
        scale *= 1024.0;
        i += 1;
    }
    (scale, NAMES[i])
}

/// How a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A measured figure, in data colour `n`.
    Data(usize),
    /// A part of another line, thinner and dashed (the neighbour pages within flushing).
    Part(usize),
    /// A threshold (a setting or a point the server acts at), dashed, in threshold colour `n`
    /// and labelled at its right end.
    Threshold(usize),
}

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    /// (seconds from the window's start, value).
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// What the legend says after the label (`peak 12.3 MiB`); for a line with no points,
    /// why it has none.
    pub legend: String,
    /// Mark its highest point.
    pub peak: bool,
}

/// A chart to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeChart {
    pub title: String,
    pub unit: Unit,
    pub axis: Axis,
    pub lines: Vec<Line>,
    /// Stretches to shade, in seconds from the start, with the severity that held.
    pub shade: Vec<(f64, f64, Severity)>,
    /// Samples further apart than this are not joined (a gap in the recording).
    pub break_s: f64,
    /// Said in the plot when no line has a point.
    pub empty: String,
}

/// Round steps for an axis: 1, 2, 2.5, 5 × a power of ten (bytes: of their unit).
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let m = if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 2.5 {
        2.5
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// The value axis: its top and its step.
fn value_axis(unit: Unit, max: f64) -> (f64, f64) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let step = match unit {
        Unit::Bytes => {
            let (scale, _) = byte_scale(max);
            nice_step(max / scale / 4.0) * scale
        }
        _ => nice_step(max / 4.0),
    };
    let top = (max / step).ceil() * step;
    (top.max(step), step)
}

/// Time ticks at round clock times: (seconds from the start, label).
pub fn time_ticks(axis: &Axis) -> Vec<(f64, String)> {
    const STEPS: [i64; 20] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
        172_800, 604_800,
    ];
    let span = axis.span_s.max(1.0);
    let step = STEPS
        .iter()
        .copied()
        .find(|s| span / *s as f64 <= 7.0)
        .unwrap_or(604_800);
    let end = axis.time(span);
    let days = axis.start.date_naive() != end.date_naive();
    let fmt = if step >= 86_400 {
        "%m-%d"
    } else if days && step >= 3600 {
        "%m-%d %H:%M"
    } else if step < 60 {
        "%H:%M:%S"
    } else {
        "%H:%M"
    };
    let start_ms = axis.start.timestamp_millis();
    let step_ms = step * 1000;
    let mut t = start_ms.div_euclid(step_ms) * step_ms;
    if t < start_ms {
        t += step_ms;
    }
    let mut out = Vec::new();
    while (t - start_ms) as f64 / 1000.0 <= span + 1e-9 {
        let s = (t - start_ms) as f64 / 1000.0;
        if let Some(at) = DateTime::<Utc>::from_timestamp_millis(t) {
            out.push((s, at.format(fmt).to_string()));
        }
        t += step_ms;
    }
    out
}

/// The stroke of a style: its colour, class and dash.
fn stroke(style: Style) -> (&'static str, String, &'static str, f64) {
    match style {
        Style::Data(n) => (
            DATA[n % DATA.len()],
            format!("c{}", n % DATA.len()),
            "",
            1.8,
        ),
        Style::Part(n) => (
            DATA[n % DATA.len()],
            format!("c{}", n % DATA.len()),
            " stroke-dasharray=\"2 3\"",
            1.2,
        ),
        Style::Threshold(n) => (
            THRESHOLD[n % THRESHOLD.len()],
            format!("t{}", n % THRESHOLD.len()),
            " stroke-dasharray=\"7 4\"",
            1.4,
        ),
    }
}

fn fill(style: Style) -> (&'static str, String) {
    match style {
        Style::Data(n) | Style::Part(n) => (DATA[n % DATA.len()], format!("f{}", n % DATA.len())),
        Style::Threshold(n) => (
            THRESHOLD[n % THRESHOLD.len()],
            format!("ft{}", n % THRESHOLD.len()),
        ),
    }
}

/// Legend entries laid out in rows within the width: (row, x) of each.
fn legend_layout(c: &TimeChart) -> (Vec<(usize, f64)>, usize) {
    let mut out = Vec::new();
    let (mut row, mut x) = (0usize, LEFT);
    for l in &c.lines {
        let w = 28.0 + (l.label.chars().count() + l.legend.chars().count() + 2) as f64 * CHAR_W;
        if x + w > WIDTH - 8.0 && x > LEFT {
            row += 1;
            x = LEFT;
        }
        out.push((row, x));
        x += w + 14.0;
    }
    (out, row + 1)
}

/// The opening of a chart's SVG, its title for screen readers and tooltips within.
pub fn open(out: &mut String, height: f64, title: &str) {
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {WIDTH} {height:.0}\" \
         width=\"{WIDTH}\" height=\"{height:.0}\" role=\"img\" aria-label=\"{}\" \
         font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" font-size=\"12\">",
        esc(title)
    );
}

/// The chart as SVG (the stylesheet is the page's: see [`standalone`]).
pub fn render(c: &TimeChart) -> String {
    let (legend, rows) = legend_layout(c);
    let top = 30.0 + rows as f64 * LEGEND_ROW + 6.0;
    let height = top + PLOT_H + 40.0;
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let (y0, y1) = (top, top + PLOT_H);
    let span = c.axis.span_s.max(1.0);
    let max = c
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let (vtop, vstep) = value_axis(c.unit, max * 1.04);
    let x = |s: f64| x0 + (s / span).clamp(0.0, 1.0) * (x1 - x0);
    let y = |v: f64| y1 - (v / vtop).clamp(0.0, 1.0) * (y1 - y0);

    let mut out = String::with_capacity(16 * 1024);
    open(&mut out, height, &c.title);
    let _ = writeln!(out, "<title>{}</title>", esc(&c.title));
    let _ = writeln!(
        out,
        "<text class=\"tx\" x=\"{LEFT}\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"#1f2328\">{}</text>",
        esc(&c.title)
    );
    // Legend.
    for (l, (row, lx)) in c.lines.iter().zip(&legend) {
        let ly = 30.0 + *row as f64 * LEGEND_ROW + 8.0;
        let (color, class, dash, w) = stroke(l.style);
        let _ = writeln!(
            out,
            "<path class=\"{class}\" d=\"M{:.1} {ly:.1}H{:.1}\" stroke=\"{color}\" stroke-width=\"{}\"{dash} fill=\"none\"/>",
            lx,
            lx + 22.0,
            w + 0.6
        );
        let _ = writeln!(
            out,
            "<text class=\"tx\" x=\"{:.1}\" y=\"{:.1}\" fill=\"#1f2328\">{} <tspan class=\"dm\" fill=\"#59636e\">{}</tspan></text>",
            lx + 28.0,
            ly + 4.0,
            esc(&l.label),
            esc(&l.legend)
        );
    }
    // Shaded stretches.
    for (from, to, sev) in &c.shade {
        let (fill, opacity) = match sev {
            Severity::Critical => (CRITICAL_FILL, 0.16),
            _ => (WARNING_FILL, 0.18),
        };
        let (a, b) = (x(*from), x(*to));
        let _ = writeln!(
            out,
            "<rect class=\"shade-{}\" x=\"{a:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{PLOT_H}\" fill=\"{fill}\" fill-opacity=\"{opacity}\"/>",
            sev.as_str(),
            (b - a).max(1.0)
        );
    }
    // Value grid and ticks.
    let mut v = 0.0;
    while v <= vtop + vstep * 1e-6 {
        let py = y(v);
        let _ = writeln!(
            out,
            "<path class=\"gr\" d=\"M{x0:.1} {py:.1}H{x1:.1}\" stroke=\"#d1d9e0\" stroke-width=\"1\"/>"
        );
        let _ = writeln!(
            out,
            "<text class=\"dm\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#59636e\">{}</text>",
            x0 - 6.0,
            py + 4.0,
            esc(&c.unit.tick(v, vstep, vtop))
        );
        v += vstep;
    }
    // Time ticks.
    for (s, label) in time_ticks(&c.axis) {
        let px = x(s);
        let _ = writeln!(
            out,
            "<path class=\"ax\" d=\"M{px:.1} {y1:.1}v5\" stroke=\"#59636e\" stroke-width=\"1\"/>"
        );
        let _ = writeln!(
            out,
            "<text class=\"dm\" x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#59636e\">{}</text>",
            y1 + 18.0,
            esc(&label)
        );
    }
    let _ = writeln!(
        out,
        "<text class=\"dm\" x=\"{x1:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#59636e\">time (UTC)</text>",
        y1 + 34.0
    );
    let _ = writeln!(
        out,
        "<path class=\"ax\" d=\"M{x0:.1} {y0:.1}V{y1:.1}H{x1:.1}\" stroke=\"#59636e\" stroke-width=\"1\" fill=\"none\"/>"
    );
    // Lines: thresholds first, data over them.
    let mut order: Vec<&Line> = c.lines.iter().collect();
    order.sort_by_key(|l| !matches!(l.style, Style::Threshold(_)));
    for l in order {
        let d = path(&l.points, c.break_s, &x, &y);
        if d.is_empty() {
            continue;
        }
        let (color, class, dash, w) = stroke(l.style);
        let _ = writeln!(
            out,
            "<path class=\"{class}\" d=\"{d}\" stroke=\"{color}\" stroke-width=\"{w}\"{dash} fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\"><title>{}</title></path>",
            esc(&l.label)
        );
    }
    // Threshold labels at the right end, kept apart.
    let mut labels: Vec<(f64, String, Style)> = c
        .lines
        .iter()
        .filter(|l| matches!(l.style, Style::Threshold(_)))
        .filter_map(|l| {
            let last = l.points.last()?;
            Some((
                y(last.1),
                format!("{} {}", l.label, c.unit.value(last.1)),
                l.style,
            ))
        })
        .collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut floor = y0 - 100.0;
    for (ly, _, _) in labels.iter_mut() {
        *ly = ly.max(floor + 13.0);
        floor = *ly;
    }
    for (ly, text, style) in &labels {
        let (color, class) = fill(*style);
        let _ = writeln!(
            out,
            "<text class=\"{class}\" x=\"{:.1}\" y=\"{:.1}\" fill=\"{color}\">{}</text>",
            x1 + 6.0,
            ly + 4.0,
            esc(text)
        );
    }
    // The peak of the lines that ask for it.
    for l in c.lines.iter().filter(|l| l.peak) {
        let Some(&(ps, pv)) = l.points.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            continue;
        };
        let (px, py) = (x(ps), y(pv));
        let (color, class) = fill(l.style);
        let text = format!(
            "peak {} at {}",
            c.unit.value(pv),
            c.axis.time(ps).format("%H:%M:%S")
        );
        let w = text.chars().count() as f64 * CHAR_W;
        let (tx, anchor) = if px + 8.0 + w > x1 {
            (px - 8.0, "end")
        } else {
            (px + 8.0, "start")
        };
        let ty = (py - 8.0).max(y0 + 12.0);
        let _ = writeln!(
            out,
            "<circle class=\"{class}\" cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"4\" fill=\"{color}\"/>"
        );
        let _ = writeln!(
            out,
            "<text class=\"tx\" x=\"{tx:.1}\" y=\"{ty:.1}\" text-anchor=\"{anchor}\" font-weight=\"600\" fill=\"#1f2328\">{}</text>",
            esc(&text)
        );
    }
    if c.lines.iter().all(|l| l.points.is_empty()) {
        let _ = writeln!(
            out,
            "<text class=\"dm\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#59636e\">{}</text>",
            (x0 + x1) / 2.0,
            (y0 + y1) / 2.0,
            esc(&c.empty)
        );
    }
    out.push_str("</svg>");
    out
}

/// A path through `points`, broken where samples are more than `break_s` apart.
fn path(
    points: &[(f64, f64)],
    break_s: f64,
    x: &impl Fn(f64) -> f64,
    y: &impl Fn(f64) -> f64,
) -> String {
    let mut d = String::new();
    let mut prev: Option<f64> = None;
    // A point with no neighbour to join draws a dot: a short stroke with round caps.
    let mut lone = false;
    for &(s, v) in points {
        let cmd = match prev {
            Some(p) if s - p <= break_s => 'L',
            _ => 'M',
        };
        if cmd == 'M' && lone {
            d.push_str("h0.5");
        }
        lone = cmd == 'M';
        let _ = write!(d, "{cmd}{:.1} {:.1}", x(s), y(v));
        prev = Some(s);
    }
    if lone {
        d.push_str("h0.5");
    }
    d
}

/// A chart saved on its own (Markdown's files): the stylesheet inside it.
pub fn standalone(svg: &str) -> String {
    match svg.find('>') {
        Some(i) => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n<style>{CSS}</style>{}\n",
            &svg[..=i],
            &svg[i + 1..]
        ),
        None => svg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn axes_fall_on_round_numbers() {
        assert_eq!(value_axis(Unit::Count, 9_494.0), (10_000.0, 2_500.0));
        assert_eq!(value_axis(Unit::Percent, 37.0), (40.0, 10.0));
        let mib = 1024.0 * 1024.0;
        let (top, step) = value_axis(Unit::Bytes, 12.3 * mib);
        assert_eq!((top / mib, step / mib), (15.0, 5.0));
        assert_eq!(Unit::Bytes.tick(10.0 * mib, step, top), "10 MiB");
        assert_eq!(value_axis(Unit::Rate, 0.0), (1.0, 0.25));
    }

    #[test]
    fn time_ticks_are_round_clock_times_within_the_window() {
        let start = Utc.with_ymd_and_hms(2026, 11, 21, 21, 19, 11).unwrap();
        let axis = Axis::new(start, start + chrono::Duration::seconds(209));
        let ticks = time_ticks(&axis);
        let labels: Vec<&str> = ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(
            labels,
            [
                "21:19:30", "21:20:00", "21:20:30", "21:21:00", "21:21:30", "21:22:00", "21:22:30"
            ]
        );
        assert_eq!(ticks[0].0, 19.0);
        // Hours: whole hours, and the date once the window crosses midnight.
        let axis = Axis::new(start, start + chrono::Duration::hours(20));
        let labels: Vec<String> = time_ticks(&axis).into_iter().map(|t| t.1).collect();
        assert_eq!(labels.first().map(String::as_str), Some("11-22 00:00"));
    }

    #[test]
    fn gaps_break_the_line() {
        let id = |v: f64| v;
        assert_eq!(
            path(&[(0.0, 1.0), (1.0, 2.0), (10.0, 3.0)], 5.0, &id, &id),
            "M0.0 1.0L1.0 2.0M10.0 3.0h0.5"
        );
    }
}
