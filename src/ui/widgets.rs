//! Pieces every panel shares: string hygiene for server text, width-aware truncation and
//! word flow, the panel frame, the marked gauge line and the time chart. Layout and
//! formatting only: nothing here derives a figure.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::symbols::merge::MergeStrategy;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType};

use crate::app::{App, Panel};
use crate::metrics::Figures;
use crate::metrics::series::Series;
use crate::output;
use crate::theme::{Severity, Theme, ThemeItem};

/// What an unknown figure shows: never a made-up 0.
pub const NA: &str = "n/a";

/// Below this a panel's chart would be noise: only the figures are drawn.
pub const CHART_MIN_ROWS: u16 = 6;
pub const CHART_MIN_COLS: u16 = 24;

// ---------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------

/// Display width of a string in terminal columns.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

fn char_width(c: char) -> usize {
    let mut b = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut b)).width()
}

/// Makes server-supplied text safe to draw: escape sequences (CSI, OSC, two-byte ESC)
/// removed, other control characters and invisible format characters (bidi overrides,
/// joiners, variation selectors, emoji modifiers) dropped, whitespace runs (tabs, newlines)
/// folded into one space, at most `max_chars` characters kept.
pub fn sanitize(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars));
    let mut kept = 0usize;
    let mut last_space = false;
    for c in Visible::new(s) {
        if kept >= max_chars {
            break;
        }
        if c == ' ' {
            if !last_space && kept > 0 {
                out.push(' ');
                kept += 1;
                last_space = true;
            }
            continue;
        }
        out.push(c);
        kept += 1;
        last_space = false;
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Like [`sanitize`] for one line of plain-text output (`--format text`): nothing a terminal
/// would act on survives, but the spacing (column alignment) is kept and nothing is cut.
pub fn strip_controls(line: &str) -> String {
    Visible::new(line).collect()
}

/// The characters of server text a terminal may be sent: escape sequences skipped whole,
/// whitespace (tab, CR, newline, …) as a plain space, other controls and invisible format
/// characters dropped.
struct Visible<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl<'a> Visible<'a> {
    fn new(s: &'a str) -> Self {
        Visible {
            chars: s.chars().peekable(),
        }
    }

    /// Skips the rest of an escape sequence whose introducer (ESC or C1 CSI) was `c`.
    fn skip_escape(&mut self, c: char) {
        let chars = &mut self.chars;
        let csi = c == '\u{9b}' || chars.peek() == Some(&'[');
        let osc = chars.peek() == Some(&']');
        if c == '\u{1b}' && (csi || osc) {
            chars.next();
        }
        if csi {
            // Parameters and intermediates up to the final byte.
            for n in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&n) {
                    break;
                }
            }
        } else if osc {
            // Up to BEL or ESC \ (string terminator).
            while let Some(n) = chars.next() {
                if n == '\u{7}' || n == '\u{9c}' {
                    break;
                }
                if n == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        } else {
            // ESC + one character.
            chars.next();
        }
    }
}

impl Iterator for Visible<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            let c = self.chars.next()?;
            if c == '\u{1b}' || c == '\u{9b}' {
                self.skip_escape(c);
            } else if c.is_whitespace() {
                return Some(' ');
            } else if !c.is_control() && !is_invisible(c) {
                return Some(c);
            }
        }
    }
}

/// Characters that draw nothing themselves but reorder, join or restyle their neighbours:
/// bidi controls, zero-width spaces and joiners, the soft hyphen, variation selectors, emoji
/// skin-tone modifiers and tags. Terminals disagree on how wide the sequences they build are
/// (`☺` + VS16 is one column in tmux and two by Unicode's tables; a thumb with a skin tone is
/// two columns here and four there), and a line drawn wider than it was measured pushes the
/// panel borders out. Without them every character stands alone, as wide everywhere.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
        | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        | '\u{1f3fb}'..='\u{1f3ff}' | '\u{e0000}'..='\u{e0fff}')
}

/// At most `max` columns; a cut string ends in `…`, at a word boundary when one is near.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = truncate_words(s, max - 1);
    out.push('…');
    out
}

/// The longest prefix of `s` at most `max` columns wide, ending at a word boundary when
/// that keeps at least half of it.
fn truncate_words(s: &str, max: usize) -> String {
    let hard = truncate_hard(s, max);
    let next = s[hard.len()..].chars().next();
    if next.is_none_or(|c| c == ' ') {
        return hard.trim_end().to_string();
    }
    match hard.rfind(' ') {
        Some(i) if width(&hard[..i]) * 2 >= max => hard[..i].trim_end().to_string(),
        _ => hard,
    }
}

/// A line cut to `max` columns, with `…` where it was cut.
pub fn fit_line(line: Line<'static>, max: usize) -> Line<'static> {
    if line.width() <= max {
        return line;
    }
    let style = line.style;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let w = span.width();
        if used + w < max {
            used += w;
            spans.push(span);
            continue;
        }
        let room = max - used;
        if room > 0 {
            spans.push(Span::styled(
                truncate_words(&span.content, room - 1) + "…",
                span.style,
            ));
        } else if let Some(last) = spans.pop() {
            // No room left at all: the ellipsis replaces the end of the previous span.
            let lw = last.width();
            spans.push(Span::styled(
                truncate_hard(&last.content, lw.saturating_sub(1)) + "…",
                last.style,
            ));
        }
        break;
    }
    Line::from(spans).style(style)
}

/// The longest prefix of `s` at most `max` columns wide, no ellipsis.
pub fn truncate_hard(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out
}

/// Greedy word wrap to `max` columns; a word longer than a line is split.
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_w = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        let mut ww = width(&word);
        if cur_w > 0 && cur_w + 1 + ww <= max {
            cur.push(' ');
            cur.push_str(&word);
            cur_w += 1 + ww;
            continue;
        }
        if cur_w > 0 {
            lines.push(std::mem::take(&mut cur));
        }
        while ww > max {
            let head = truncate_hard(&word, max);
            if head.is_empty() {
                // A character wider than the line: nothing can show it.
                word.clear();
                break;
            }
            word = word[head.len()..].to_string();
            lines.push(head);
            ww = width(&word);
        }
        cur = word;
        cur_w = ww;
    }
    if cur_w > 0 || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

// ---------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------

pub fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| NA.to_string())
}

/// A rate in the panel's unit: `1.2k/s`.
pub fn rate(v: Option<f64>) -> String {
    opt(v.filter(|v| v.is_finite()), |r| {
        format!("{}/s", output::count(r))
    })
}

pub fn bytes(v: Option<u64>) -> String {
    opt(v, output::bytes)
}

pub fn pct(v: Option<f64>) -> String {
    opt(v.filter(|v| v.is_finite()), |p| format!("{p:.1}%"))
}

/// A signed per-second change: `+1.5k/s`, `-20/s`.
pub fn signed_rate(v: Option<f64>) -> String {
    opt(v.filter(|v| v.is_finite()), |g| {
        let sign = if g > 0.0 {
            "+"
        } else if g < 0.0 {
            "-"
        } else {
            "±"
        };
        format!("{sign}{}/s", output::count(g.abs()))
    })
}

/// Seconds as the dashboard shows them (finite and non-negative only).
pub fn secs(v: f64) -> String {
    if !v.is_finite() || v < 0.0 {
        return NA.to_string();
    }
    output::duration(v.min(u64::MAX as f64) as u64)
}

// ---------------------------------------------------------------------------
// Flowed text
// ---------------------------------------------------------------------------

/// One unit of flowed text: never split across lines unless wider than a line.
pub struct Item {
    pub spans: Vec<Span<'static>>,
    /// Starts a new line (and the next item starts after it on the same line if it fits).
    pub own_line: bool,
}

impl Item {
    pub fn new(spans: Vec<Span<'static>>) -> Item {
        Item {
            spans,
            own_line: false,
        }
    }

    /// `label value` with the label dim.
    pub fn kv(theme: &Theme, label: &str, value: String, value_style: Style) -> Item {
        Item::new(vec![
            Span::styled(format!("{label} "), theme.style(ThemeItem::Dim)),
            Span::styled(value, value_style),
        ])
    }

    pub fn on_own_line(mut self) -> Item {
        self.own_line = true;
        self
    }

    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }

    /// `▲ what: needs PROCESS privilege`, on its own line, when a missing privilege keeps
    /// any of `figures` (JSON paths) unknown: a panel says why instead of a bare `n/a`.
    pub fn needs_privilege(
        f: &Figures,
        figures: &[&str],
        what: &str,
        theme: &Theme,
    ) -> Option<Item> {
        let note = f.privilege_note(figures)?;
        let warn = theme.severity(Severity::Warning);
        Some(
            Item::new(vec![Span::styled(
                format!(
                    "{} {what}: {note}",
                    theme.severity_symbol(Severity::Warning)
                ),
                warn,
            )])
            .on_own_line(),
        )
    }
}

const GAP: &str = "  ";

/// Items laid out left to right, wrapping between items at `max` columns.
pub fn flow(items: Vec<Item>, max: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut cur_w = 0;
    for item in items {
        let w = item.width();
        let fits = cur_w == 0 || cur_w + GAP.len() + w <= max;
        if !cur.is_empty() && (!fits || item.own_line) {
            lines.push(Line::from(std::mem::take(&mut cur)));
            cur_w = 0;
        }
        if cur_w > 0 {
            cur.push(Span::raw(GAP));
            cur_w += GAP.len();
        }
        cur.extend(item.spans);
        cur_w += w;
    }
    if !cur.is_empty() {
        lines.push(Line::from(cur));
    }
    lines
}

/// Lines from the top of `area`, each cut to its width.
pub fn draw_lines(buf: &mut Buffer, area: Rect, lines: &[Line<'static>]) {
    for (i, line) in lines.iter().take(area.height as usize).enumerate() {
        let line = fit_line(line.clone(), area.width as usize);
        buf.set_line(area.x, area.y + i as u16, &line, area.width);
    }
}

// ---------------------------------------------------------------------------
// Panels
// ---------------------------------------------------------------------------

/// Draws the panel's border and title (`1 Checkpoint age`), the focused one highlighted;
/// returns the inside.
pub fn panel_frame(frame: &mut Frame, area: Rect, panel: Panel, app: &App, theme: &Theme) -> Rect {
    let focused = app.focus == panel;
    let border = if focused {
        theme.style(ThemeItem::BorderFocused)
    } else {
        theme.style(ThemeItem::Border)
    };
    let title = Line::from(vec![
        Span::styled(format!(" {} ", panel.number()), theme.style(ThemeItem::Key)),
        Span::styled(format!("{} ", panel.title()), theme.style(ThemeItem::Title)),
    ]);
    // Neighbouring panels share their borders (the grid overlaps them by one cell).
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(border)
        .merge_borders(MergeStrategy::Exact)
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// What a panel shows before the first sample arrives.
/// Draws a panel's frame and returns its inner area with the figures to show — or `None`
/// when there is no room, or no sample yet (the "waiting" text is drawn then).
pub fn open_panel<'a>(
    frame: &mut Frame,
    area: Rect,
    panel: Panel,
    app: &'a App,
    theme: &Theme,
) -> Option<(Rect, &'a Figures)> {
    let inner = panel_frame(frame, area, panel, app, theme);
    if inner.is_empty() {
        return None;
    }
    match app.view().latest.as_ref() {
        Some(f) => Some((inner, f)),
        None => {
            waiting(frame.buffer_mut(), inner, theme);
            None
        }
    }
}

pub fn waiting(buf: &mut Buffer, area: Rect, theme: &Theme) {
    draw_lines(
        buf,
        area,
        &[Line::styled(
            "waiting for the first sample…",
            theme.style(ThemeItem::Dim),
        )],
    );
}

/// Splits a panel's inside into figures on top and a chart below when there is room for
/// both; otherwise everything is figures.
pub fn split_for_chart(inner: Rect, text_rows: u16) -> (Rect, Option<Rect>) {
    let text_rows = text_rows.min(inner.height);
    if inner.width >= CHART_MIN_COLS && inner.height >= text_rows + CHART_MIN_ROWS {
        let text = Rect {
            height: text_rows,
            ..inner
        };
        let chart = Rect {
            y: inner.y + text_rows,
            height: inner.height - text_rows,
            ..inner
        };
        (text, Some(chart))
    } else {
        (inner, None)
    }
}

/// Which of two ways a set of flowed items is best drawn: the lines and whether a chart
/// goes below them (only when `want_chart` and there is room).
pub fn layout_text(
    items: Vec<Item>,
    inner: Rect,
    want_chart: bool,
) -> (Vec<Line<'static>>, Rect, Option<Rect>) {
    let lines = flow(items, inner.width as usize);
    if !want_chart {
        return (lines, inner, None);
    }
    let (text, chart) = split_for_chart(inner, lines.len() as u16);
    (lines, text, chart)
}

// ---------------------------------------------------------------------------
// Gauge with markers
// ---------------------------------------------------------------------------

pub struct GaugeMark {
    /// Position as a fraction of the gauge, 0–1.
    pub at: f64,
    pub style: Style,
}

/// The column of fraction `at` on a gauge `w` columns wide.
pub fn gauge_col(at: f64, w: usize) -> usize {
    if w == 0 || !at.is_finite() {
        return 0;
    }
    ((at.clamp(0.0, 1.0) * w as f64).round() as usize).min(w - 1)
}

/// A one-line gauge `w` columns wide: filled to `fraction` with `fill`, the rest dim, and a
/// `│` at each marker so thresholds show on the bar itself.
pub fn gauge_line(
    fraction: Option<f64>,
    w: usize,
    fill: Style,
    markers: &[GaugeMark],
    theme: &Theme,
) -> Line<'static> {
    let empty = theme
        .style(ThemeItem::Dim)
        .patch(theme.style(ThemeItem::GaugeEmpty));
    let filled = match fraction.filter(|f| f.is_finite()) {
        Some(f) => (f.clamp(0.0, 1.0) * w as f64).round() as usize,
        None => 0,
    };
    let mut cells: Vec<(char, Style)> = (0..w)
        .map(|i| {
            if i < filled {
                ('█', fill)
            } else {
                ('░', empty)
            }
        })
        .collect();
    for m in markers {
        if w == 0 || !m.at.is_finite() {
            continue;
        }
        let col = gauge_col(m.at, w);
        if let Some(cell) = cells.get_mut(col) {
            let base = if col < filled { fill } else { empty };
            *cell = ('│', base.patch(m.style));
        }
    }
    styled_cells_line(cells)
}

/// A row of styled cells as a line, runs of one style merged into one span.
fn styled_cells_line(cells: Vec<(char, Style)>) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_style: Option<Style> = None;
    for (c, s) in cells {
        if run_style != Some(s) {
            if let Some(rs) = run_style {
                spans.push(Span::styled(std::mem::take(&mut run), rs));
            }
            run_style = Some(s);
        }
        run.push(c);
    }
    if let Some(rs) = run_style {
        spans.push(Span::styled(run, rs));
    }
    Line::from(spans)
}

/// One label under a gauge marker, in long to short forms; the longest that fits is used.
pub struct MarkerLabel<'a> {
    pub at: f64,
    pub forms: &'a [String],
    pub style: Style,
}

/// A line of labels under a gauge `w` columns wide, each pointing at its marker: ending at it
/// (`async 67 MiB ┘`) or starting at it (`└ M 77 MiB`), never overlapping; markers in
/// increasing order. A label with no room is left out (the figures line says it anyway).
pub fn marker_labels(w: usize, labels: &[MarkerLabel<'_>]) -> Line<'static> {
    let mut cells: Vec<(char, Style)> = vec![(' ', Style::new()); w];
    // First free column (one space is kept between labels).
    let mut free = 0usize;
    for l in labels {
        if w == 0 || !l.at.is_finite() {
            continue;
        }
        let col = gauge_col(l.at, w);
        let placed = l.forms.iter().find_map(|form| {
            let before = format!("{form} ┘");
            let bw = width(&before);
            if bw <= col + 1 && col + 1 - bw >= free {
                return Some((col + 1 - bw, before));
            }
            let after = format!("└ {form}");
            let aw = width(&after);
            if col >= free && col + aw <= w {
                return Some((col, after));
            }
            None
        });
        if let Some((start, text)) = placed {
            let mut x = start;
            for c in text.chars() {
                if let Some(cell) = cells.get_mut(x) {
                    *cell = (c, l.style);
                }
                x += char_width(c);
            }
            free = x + 1;
        }
    }
    styled_cells_line(cells)
}

/// Severity of a figure against two thresholds (either may be unknown).
pub fn severity(value: Option<f64>, warn_at: Option<f64>, crit_at: Option<f64>) -> Severity {
    match value {
        Some(v) if crit_at.is_some_and(|c| v >= c) => Severity::Critical,
        Some(v) if warn_at.is_some_and(|w| v >= w) => Severity::Warning,
        _ => Severity::Ok,
    }
}

// ---------------------------------------------------------------------------
// Time charts
// ---------------------------------------------------------------------------

pub struct Plot<'a> {
    pub series: &'a Series,
    pub style: Style,
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

/// The x-axis labels for a chart window: `-5m … now`.
fn x_labels(app: &App, graph_w: u16, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style(ThemeItem::Dim);
    let w = app.window.secs();
    let mut labels = vec![Line::styled(format!("-{}", app.window.label()), dim)];
    if graph_w >= 50 {
        let half = (w / 2.0) as u64;
        let mid = match (half / 60, half % 60) {
            (0, s) => format!("-{s}s"),
            (m, 0) => format!("-{m}m"),
            (m, s) => format!("-{m}m{s:02}s"),
        };
        labels.push(Line::styled(mid, dim));
    }
    labels.push(Line::styled("now", dim));
    labels
}

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
    let t0 = t1 - app.window.secs();
    let dim = theme.style(ThemeItem::Dim);

    // Columns the plot gets (the y labels and axis take the rest), for downsampling.
    let buckets = area.width as usize;
    let data: Vec<Vec<(f64, f64)>> = plots
        .iter()
        .map(|p| downsample(&p.series.window(t0), t0, t1, buckets))
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
    let xl_first = (app.window.label().len() + 1) as u16;
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
                .labels(x_labels(app, graph_w, theme))
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
    let dots = (graph_h as f64) * 4.0 - 1.0;
    let mut used_rows = Vec::new();
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
            Unit::Bytes => output::bytes(v.min(u64::MAX as f64) as u64).replace(".0 ", " "),
            Unit::Count => {
                let s = output::count(v);
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
    fn sanitize_strips_escapes_and_controls() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b", 100), "ared b");
        assert_eq!(sanitize("x\u{1b}]0;title\u{7}y", 100), "xy");
        assert_eq!(sanitize("tab\there\nnew\r\n", 100), "tab here new");
        assert_eq!(sanitize("\u{202e}evil", 100), "evil");
        assert_eq!(sanitize("abcdef", 3), "abc");
        assert_eq!(sanitize("x\u{1b}]2;t\u{1b}\\y\u{9b}2Jz", 100), "xyz");
    }

    #[test]
    fn strip_controls_keeps_the_spacing() {
        assert_eq!(
            strip_controls("redo      age\u{1b}[2J 1\t2\r\u{7}3"),
            "redo      age 1 2 3"
        );
    }

    #[test]
    fn sanitize_splits_sequences_terminals_measure_differently() {
        // Joined, restyled or skin-toned emoji become their plain characters, whose widths
        // every terminal agrees on.
        assert_eq!(sanitize("☺\u{fe0f}", 10), "☺");
        assert_eq!(width(&sanitize("☺\u{fe0f}", 10)), 1);
        assert_eq!(sanitize("👍\u{1f3fd}", 10), "👍");
        assert_eq!(
            sanitize("👨\u{200d}👩\u{200d}👧", 10),
            "👨👩👧",
            "a ZWJ family is three people, six columns"
        );
        assert_eq!(width(&sanitize("👨\u{200d}👩\u{200d}👧", 10)), 6);
        assert_eq!(sanitize("soft\u{ad}hyphen\u{2060}", 20), "softhyphen");
        // Combining marks stay with their letter; wide CJK stays wide.
        assert_eq!(sanitize("e\u{301}漢", 10), "e\u{301}漢");
    }

    #[test]
    fn truncation_by_width() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hello world again", 14), "hello world…");
        assert_eq!(truncate("abcdefghij klm", 6), "abcde…");
        assert_eq!(truncate("日本語テキスト", 5), "日本…");
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn wraps_words() {
        assert_eq!(wrap("one two three", 7), vec!["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), vec![""]);
    }

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
