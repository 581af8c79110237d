//! Time charts: the series of the chart window ending at the newest sample, downsampled to
//! the columns there are, with thresholds as labelled horizontal lines and axes in the
//! figure's unit. Until the data spans the window (the first minutes of a session) the x
//! axis follows the data, so it fills the width; a chart with no data says why instead of
//! drawing an empty axis.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType};

use crate::app::App;
use crate::keymap::LiveKey;
use crate::text::truncate;
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::figures::{FigureId, Figures};
use innodebt_engine::measure::series::Series;
use innodebt_engine::units::{self, NA};

pub struct Plot<'a> {
    pub series: &'a Series,
    pub style: Style,
    /// Why the series has no data, when it has none for a known reason ([`why_missing`]).
    pub missing: Option<Line<'static>>,
}

impl<'a> Plot<'a> {
    pub fn new(series: &'a Series, style: Style) -> Plot<'a> {
        Plot {
            series,
            style,
            missing: None,
        }
    }

    pub fn missing(mut self, why: Option<Line<'static>>) -> Plot<'a> {
        self.missing = why;
        self
    }
}

/// Why `what` (a series of `figures`) is unknown: a privilege the account lacks, or one of
/// `counters` (INNODB_METRICS) switched off — with the key that enables them where it works.
pub fn why_missing(
    app: &App,
    f: &Figures,
    what: &str,
    figures: &[FigureId],
    counters: &[&str],
    theme: &Theme,
) -> Option<Line<'static>> {
    if let Some(note) = f.privilege_note(figures) {
        return Some(Line::styled(
            format!("{what}: {note}"),
            theme.style(ThemeItem::Warning),
        ));
    }
    if !counters
        .iter()
        .any(|c| f.metrics_off.iter().any(|m| m == c))
    {
        return None;
    }
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    Some(match app.live_key_name(LiveKey::EnableMonitors) {
        Some(k) => Line::from(vec![
            ratatui::text::Span::styled(format!("{what}: "), dim),
            ratatui::text::Span::styled("INNODB_METRICS counter off — press ", text),
            ratatui::text::Span::styled(k, theme.style(ThemeItem::Key)),
            ratatui::text::Span::styled(" to enable", text),
        ]),
        None => Line::from(vec![
            ratatui::text::Span::styled(format!("{what}: "), dim),
            ratatui::text::Span::styled("INNODB_METRICS counter off on the server", text),
        ]),
    })
}

pub struct Threshold {
    pub value: f64,
    pub style: Style,
    /// Written on the line at its left end.
    pub label: String,
    /// A reference only: drawn when it would not squash the data (at most 2× its peak).
    pub soft: bool,
}

/// `points` (in time order) reduced to at most two per bucket — the min and the max, in the
/// order they happened — so spikes survive and the chart stays cheap.
pub fn downsample(points: &[(f64, f64)], t0: f64, t1: f64, buckets: usize) -> Vec<(f64, f64)> {
    let span = t1 - t0;
    if buckets == 0 || points.len() <= buckets * 2 || span.is_nan() || span <= 0.0 {
        return points.to_vec();
    }
    let step = span / buckets as f64;
    let mut out = Vec::with_capacity(buckets * 2 + 2);
    let push = |out: &mut Vec<(f64, f64)>, lo: (f64, f64), hi: (f64, f64)| {
        if lo.0 == hi.0 {
            out.push(lo);
        } else if lo.0 < hi.0 {
            out.push(lo);
            out.push(hi);
        } else {
            out.push(hi);
            out.push(lo);
        }
    };
    // Points are in time order: walk the buckets alongside them, no division per point.
    let mut iter = points.iter().copied();
    let Some(first) = iter.next() else {
        return out;
    };
    let bucket_end = |t: f64| t0 + ((((t - t0) / step).floor() + 1.0).max(1.0)) * step;
    let mut end = bucket_end(first.0);
    let (mut lo, mut hi) = (first, first);
    for p in iter {
        if p.0 >= end {
            push(&mut out, lo, hi);
            end = bucket_end(p.0);
            lo = p;
            hi = p;
            continue;
        }
        if p.1 < lo.1 {
            lo = p;
        }
        if p.1 > hi.1 {
            hi = p;
        }
    }
    push(&mut out, lo, hi);
    out
}

/// A "nice" upper bound at or above `v`: 1, 2, 2.5 or 5 × 10ⁿ.
pub fn nice_ceil(v: f64) -> f64 {
    if !v.is_finite() || v <= 0.0 {
        return 1.0;
    }
    let exp = 10f64.powf(v.log10().floor());
    let m = v / exp;
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|s| m <= *s + 1e-9)
        .unwrap_or(10.0);
    step * exp
}

/// A span of the x axis, to the second: `45s`, `2m30s`, `1h05m`.
fn ago(secs: u64) -> String {
    match (secs / 3600, secs % 3600 / 60, secs % 60) {
        (0, 0, s) => format!("-{s}s"),
        (0, m, 0) => format!("-{m}m"),
        (0, m, s) => format!("-{m}m{s:02}s"),
        (h, 0, _) => format!("-{h}h"),
        (h, m, _) => format!("-{h}h{m:02}m"),
    }
}

/// The x-axis labels for `span` seconds ending now: `-5m … now` (the window's own name when
/// the data fills it).
fn x_labels(app: &App, span: f64, graph_w: u16, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style(ThemeItem::Dim);
    let first = if span >= app.window.secs() {
        format!("-{}", app.window.label())
    } else {
        ago(span.round() as u64)
    };
    let mut labels = vec![Line::styled(first, dim)];
    if graph_w >= 50 {
        labels.push(Line::styled(ago((span / 2.0) as u64), dim));
    }
    labels.push(Line::styled("now", dim));
    labels
}

/// Below this the x axis keeps the whole window (one point would stretch to nothing).
const MIN_FOLLOW_S: f64 = 1.0;

/// A time chart of the chart window ending at the newest sample: the series as lines, each
/// threshold as a horizontal line labelled at its left end.
pub struct TimeChart<'a> {
    pub plots: &'a [Plot<'a>],
    pub thresholds: &'a [Threshold],
    /// A fixed top (e.g. the redo capacity); otherwise a nice bound over data and thresholds.
    pub y_max: Option<f64>,
    pub unit: Unit,
}

impl TimeChart<'_> {
    pub fn render(self, frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
        let TimeChart {
            plots,
            thresholds,
            y_max,
            unit,
        } = self;
        time_chart(frame, area, app, theme, plots, thresholds, y_max, unit);
    }
}

#[allow(clippy::too_many_arguments)]
fn time_chart(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
    plots: &[Plot<'_>],
    thresholds: &[Threshold],
    y_max: Option<f64>,
    unit: Unit,
) {
    if area.width < 8 || area.height < 3 {
        return;
    }
    let view = app.view();
    let t1 = view.latest_t;
    let dim = theme.style(ThemeItem::Dim);
    let window: Vec<Vec<(f64, f64)>> = plots
        .iter()
        .map(|p| p.series.window(t1 - app.window.secs()))
        .collect();
    if window.iter().all(Vec::is_empty) {
        return no_data(frame, area, plots, theme);
    }
    // Until the data spans the window the axis starts at the oldest point, not at a window
    // start nothing was sampled in.
    let oldest = window
        .iter()
        .filter_map(|w| w.first().map(|p| p.0))
        .fold(f64::INFINITY, f64::min);
    let t0 = if oldest.is_finite() && t1 - oldest >= MIN_FOLLOW_S {
        oldest.max(t1 - app.window.secs())
    } else {
        t1 - app.window.secs()
    };

    // Columns the plot gets (the y labels and axis take the rest), for downsampling.
    let buckets = area.width as usize;
    let data: Vec<Vec<(f64, f64)>> = window
        .iter()
        .map(|w| downsample(w, t0, t1, buckets))
        .collect();
    let data_max = data
        .iter()
        .flatten()
        .map(|(_, v)| *v)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let thresholds: Vec<&Threshold> = thresholds
        .iter()
        .filter(|t| {
            t.value.is_finite() && (!t.soft || (data_max > 0.0 && t.value <= data_max * 2.0))
        })
        .collect();
    let top = match y_max.filter(|m| m.is_finite() && *m > 0.0) {
        Some(m) => m.max(data_max),
        None => {
            let th = thresholds
                .iter()
                .map(|t| t.value)
                .filter(|v| v.is_finite())
                .fold(0.0f64, f64::max);
            unit.nice(data_max.max(th) * 1.05)
        }
    };
    let graph_h = area.height.saturating_sub(2);
    let mut y_labels = vec![Line::styled(unit.label(0.0), dim)];
    if graph_h >= 6 {
        y_labels.push(Line::styled(unit.label(top / 2.0), dim));
    }
    y_labels.push(Line::styled(unit.label(top), dim));
    let label_w = y_labels.iter().map(Line::width).max().unwrap_or(0) as u16;
    let xl = x_labels(app, t1 - t0, area.width, theme);
    let xl_first = xl.first().map_or(0, Line::width) as u16;
    let left_w = label_w.max(xl_first.saturating_sub(1)).min(area.width / 3);
    let graph_x = area.x + left_w + 1;
    let graph_w = area.right().saturating_sub(graph_x);

    let lines: Vec<[(f64, f64); 2]> = thresholds
        .iter()
        .map(|t| [(t0, t.value), (t1, t.value)])
        .collect();
    let mut datasets = Vec::new();
    for (t, pts) in thresholds.iter().zip(&lines) {
        datasets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(t.style)
                .data(pts),
        );
    }
    for (p, pts) in plots.iter().zip(&data) {
        datasets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(if pts.len() == 1 {
                    GraphType::Scatter
                } else {
                    GraphType::Line
                })
                .style(p.style)
                .data(pts),
        );
    }
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([t0, t1])
                .labels(x_labels(app, t1 - t0, graph_w, theme))
                .style(dim),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, top])
                .labels(y_labels)
                .style(dim),
        )
        .legend_position(None);
    frame.render_widget(chart, area);

    // Threshold labels, on the row the canvas draws each line in.
    if graph_h == 0 || graph_w < 4 || top <= 0.0 {
        return;
    }
    let buf = frame.buffer_mut();
    let mut used_rows = Vec::new();
    let dots = (graph_h as f64) * 4.0 - 1.0;
    for t in &thresholds {
        if !(0.0..=top).contains(&t.value) {
            continue;
        }
        let dot = ((top - t.value) * dots / top).round();
        let row = (dot / 4.0).floor() as u16;
        if row >= graph_h || used_rows.contains(&row) {
            continue;
        }
        used_rows.push(row);
        let label = truncate(&t.label, graph_w.saturating_sub(2) as usize);
        buf.set_stringn(
            graph_x + 1,
            area.y + row,
            &label,
            graph_w as usize - 1,
            t.style,
        );
    }
    // A series with no data for a known reason says so on a free row (the others still draw).
    let mut free = (0..graph_h).filter(|r| !used_rows.contains(r));
    for (p, pts) in plots.iter().zip(&data) {
        if let (true, Some(why)) = (pts.is_empty(), &p.missing)
            && let Some(row) = free.next()
        {
            let line = super::flow::fit_line(why.clone(), graph_w.saturating_sub(2) as usize);
            buf.set_line(graph_x + 1, area.y + row, &line, graph_w.saturating_sub(1));
        }
    }
}

/// A chart with nothing to draw: why, in place of an empty axis — each series' known reason,
/// else that no sample has given it yet.
fn no_data(frame: &mut Frame, area: Rect, plots: &[Plot<'_>], theme: &Theme) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    for why in plots.iter().filter_map(|p| p.missing.clone()) {
        if !lines.contains(&why) {
            lines.push(why);
        }
    }
    if lines.is_empty() {
        lines.push(Line::styled("no samples yet", theme.style(ThemeItem::Dim)));
    }
    let max = area.width.saturating_sub(2) as usize;
    let lines: Vec<Line<'static>> = lines
        .into_iter()
        .flat_map(|l| super::flow::wrap_line(l, max))
        .collect();
    let h = (lines.len() as u16).min(area.height);
    let top = area.y + area.height.saturating_sub(h) / 2;
    let buf = frame.buffer_mut();
    for (i, line) in lines.iter().take(h as usize).enumerate() {
        let w = (line.width() as u16).min(area.width);
        let x = area.x + area.width.saturating_sub(w) / 2;
        buf.set_line(x, top + i as u16, line, area.width);
    }
}

/// What a chart's y axis counts: decides its nice top and its labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Count,
    Bytes,
    Percent,
}

impl Unit {
    /// A round top at or above `v`; for bytes, round in the binary unit it is read in.
    pub fn nice(self, v: f64) -> f64 {
        match self {
            Unit::Bytes if v.is_finite() && v > 0.0 => {
                let mut unit = 1.0;
                while v / unit >= 1024.0 && unit < 1024f64.powi(4) {
                    unit *= 1024.0;
                }
                nice_ceil(v / unit) * unit
            }
            _ => nice_ceil(v),
        }
    }

    /// A short axis label: `96 MiB`, `200k`, `20%`.
    pub fn label(self, v: f64) -> String {
        if !v.is_finite() {
            return NA.into();
        }
        if v <= 0.0 {
            return "0".into();
        }
        match self {
            Unit::Bytes => units::bytes(v.min(u64::MAX as f64) as u64).replace(".0 ", " "),
            Unit::Count => {
                let s = units::count(v);
                match s.strip_suffix(|c: char| c.is_ascii_alphabetic()) {
                    Some(num) if num.ends_with(".0") => {
                        format!("{}{}", &num[..num.len() - 2], &s[num.len()..])
                    }
                    _ => s,
                }
            }
            Unit::Percent => format!("{v:.0}%"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downsample_keeps_extremes() {
        let pts: Vec<(f64, f64)> = (0..1000)
            .map(|i| (i as f64, if i == 500 { 99.0 } else { 1.0 }))
            .collect();
        let d = downsample(&pts, 0.0, 1000.0, 10);
        assert!(d.len() <= 20);
        assert!(d.iter().any(|(_, v)| *v == 99.0));
    }

    #[test]
    fn axis_units() {
        assert_eq!(
            Unit::Bytes.nice(76.0 * 1024.0 * 1024.0),
            100.0 * 1024.0 * 1024.0
        );
        assert_eq!(Unit::Bytes.label(96.0 * 1024.0 * 1024.0), "96 MiB");
        assert_eq!(Unit::Count.label(200_000.0), "200k");
        assert_eq!(Unit::Count.label(1500.0), "1500");
        assert_eq!(Unit::Count.label(2_500_000.0), "2.5M");
        assert_eq!(Unit::Percent.label(20.0), "20%");
    }

    #[test]
    fn nice_bounds() {
        assert_eq!(nice_ceil(7.0), 10.0);
        assert_eq!(nice_ceil(2.2), 2.5);
        assert_eq!(nice_ceil(0.0), 1.0);
        assert_eq!(nice_ceil(f64::NAN), 1.0);
    }
}
