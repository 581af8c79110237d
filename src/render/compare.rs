//! The compare screen (`innodebt compare` on a terminal): a header, the warnings, both sides'
//! timelines one above the other on one scale of time from each side's own start (shaded by
//! the worst verdict, notable moments marked as on the replay timeline), the ranked
//! differences (scrollable, the selected one highlighted), the verdict time per kind when the
//! terminal is tall, and the footer; Enter's detail is drawn by [`super::compare_detail`].
//! Everything shown is the comparison as ranked: nothing is scored here.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::app::compare::Compare;
use crate::app::{App, Showing};
use crate::keymap::{self, CompareKey, ScreenKey};
use crate::postmortem::text::{side_line, verdict_line};
use crate::postmortem::timeline::SideTimeline;
use crate::text::{sanitize, width, wrap};
use crate::theme::{SeverityLook, Theme, ThemeItem};
use innodebt_engine::figures::Severity;
use innodebt_engine::units;

use super::flow::{draw_lines, fit_line};

/// The side names' column on the timelines.
const LABEL_W: u16 = 10;
/// Rows of warnings at most (the rest: `--format text` has them all).
const MAX_WARNING_ROWS: usize = 4;
/// From this height the verdict time per kind gets a box of its own.
const VERDICTS_FROM_HEIGHT: u16 = 40;

pub fn render(frame: &mut Frame, app: &App, theme: &Theme) {
    let Showing::Compare(c) = &app.showing else {
        return;
    };
    let area = frame.area();
    let mut y = area.y;
    let row = |y: u16, h: u16| Rect {
        x: area.x,
        y,
        width: area.width,
        height: h,
    };
    header(frame, row(y, 1), c, theme);
    y += 1;
    let warnings = warning_lines(c, area.width as usize, theme);
    draw_lines(frame.buffer_mut(), row(y, warnings.len() as u16), &warnings);
    y += warnings.len() as u16;
    let footer_y = area.bottom().saturating_sub(1);
    let tall = area.height >= VERDICTS_FROM_HEIGHT;
    let legend_rows = if tall {
        wrap(LEGEND, area.width.saturating_sub(2) as usize).len() as u16
    } else {
        0
    };
    // Two rows per side and the axis, the legend when tall, and the borders.
    let timeline_h = 2 * 2 + 1 + legend_rows + 2;
    let timelines = row(y, timeline_h.min(footer_y.saturating_sub(y)));
    timelines_box(frame, timelines, c, tall, theme);
    y += timelines.height;
    let rest = footer_y.saturating_sub(y);
    let verdicts_h = if tall && !c.comparison.verdicts.is_empty() {
        (c.comparison.verdicts.len() as u16 + 2).min(rest / 3)
    } else {
        0
    };
    // The list takes what it needs (at least what is left above the verdict box).
    let wanted = c.comparison.ranked.len().max(1) as u16 + 2;
    let list_h = if verdicts_h > 0 {
        wanted.max(3).min(rest - verdicts_h)
    } else {
        rest
    };
    differences_box(frame, row(y, list_h), c, theme);
    y += list_h;
    if verdicts_h > 0 {
        verdicts_box(frame, row(y, verdicts_h), c, theme);
    }
    footer(frame, row(footer_y, 1), c, theme);
    if c.detail.is_some() {
        super::compare_detail::render(frame, area, c, theme);
    }
}

fn header(frame: &mut Frame, area: Rect, c: &Compare, theme: &Theme) {
    let (bg, text, dim) = super::header::bar_styles(theme);
    let badge = Span::styled(" COMPARE ", bg.patch(theme.style(ThemeItem::BadgeFrozen)));
    let sides = vec![
        Span::styled(" incident ", dim),
        Span::styled(sanitize(&c.comparison.incident.capture, 200), text),
        Span::styled("  vs  baseline ", dim),
        Span::styled(sanitize(&c.comparison.baseline.capture, 200), text),
    ];
    let room = (area.width as usize).saturating_sub(badge.width() + 1);
    // The program's name goes first when both names would not fit.
    let mut spans = vec![Span::styled(" innodebt compare ", dim)];
    spans.extend(sides.iter().cloned());
    let left = if Line::from(spans.clone()).width() <= room {
        Line::from(spans)
    } else {
        Line::from(sides)
    };
    let buf = frame.buffer_mut();
    buf.set_style(area, bg);
    buf.set_line(area.x, area.y, &fit_line(left, room), area.width);
    let x = area.right().saturating_sub(badge.width() as u16);
    buf.set_span(x, area.y, &badge, badge.width() as u16);
}

/// `▲ warning`, wrapped, at most [`MAX_WARNING_ROWS`] rows (the last says more exist).
fn warning_lines(c: &Compare, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let style = theme.severity(Severity::Warning);
    let symbol = theme.severity_symbol(Severity::Warning);
    let mut rows: Vec<String> = c
        .comparison
        .warnings
        .iter()
        .flat_map(|msg| wrap(&format!(" {symbol} {}", sanitize(msg, 2000)), w))
        .collect();
    if rows.len() > MAX_WARNING_ROWS {
        rows.truncate(MAX_WARNING_ROWS - 1);
        rows.push(" … more: innodebt compare --format text shows every warning".into());
    }
    rows.into_iter().map(|r| Line::styled(r, style)).collect()
}

fn boxed(frame: &mut Frame, area: Rect, title: Line<'static>, theme: &Theme) -> Rect {
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.style(ThemeItem::Border))
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

fn title(text: &str, theme: &Theme) -> Line<'static> {
    Line::styled(format!(" {text} "), theme.style(ThemeItem::Title))
}

fn timelines_box(frame: &mut Frame, area: Rect, c: &Compare, tall: bool, theme: &Theme) {
    let inner = boxed(
        frame,
        area,
        title("Timelines, from each side's start", theme),
        theme,
    );
    if inner.height == 0 || inner.width <= LABEL_W + 2 {
        return;
    }
    let dim = theme.style(ThemeItem::Dim);
    let key = theme.style(ThemeItem::Title);
    let bar_w = (inner.width - LABEL_W) as usize;
    let info_w = bar_w;
    // One scale for both: a column is the same time on either side.
    let scale = c.incident.span_s.max(c.baseline.span_s).max(1.0);
    let mut lines = Vec::new();
    for (name, info, tl) in [
        ("incident", &c.comparison.incident, &c.incident),
        ("baseline", &c.comparison.baseline, &c.baseline),
    ] {
        lines.push(Line::from(vec![
            Span::styled(format!("{name:<w$}", w = LABEL_W as usize), key),
            Span::styled(side_label(info, info_w), dim),
        ]));
        let mut spans = vec![Span::raw(" ".repeat(LABEL_W as usize))];
        spans.extend(
            bar(tl, scale, bar_w)
                .into_iter()
                .map(|(ch, item)| match item {
                    Some(item) => Span::styled(ch.to_string(), theme.style(item)),
                    None => Span::raw(ch.to_string()),
                }),
        );
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(vec![
        Span::raw(" ".repeat(LABEL_W as usize)),
        Span::styled(axis(scale, bar_w), dim),
    ]));
    if tall {
        for row in wrap(LEGEND, inner.width as usize) {
            lines.push(Line::styled(row, dim));
        }
    }
    draw_lines(frame.buffer_mut(), inner, &lines);
}

/// What the marks and the shading mean (drawn under the axis when the terminal is tall).
const LEGEND: &str = "R checkpoint age crossed async/sync · H history peak · P purge stopped/resumed · \
    B blocker appeared/cleared · D disconnected · C runtime change · V verdict changed · * note · \
    ━ a verdict held (warning / critical colour)";

/// The side's capture, window and samples, as much as fits (the server last: the warning and
/// `--format text` name it): never cut in the middle of a time.
fn side_label(s: &crate::postmortem::SideInfo, w: usize) -> String {
    let name = sanitize(&s.capture, 200);
    let t = |t: Option<chrono::DateTime<chrono::Utc>>, f: &str| {
        t.map_or("?".into(), |t| t.format(f).to_string())
    };
    let same_day = s.from.map(|f| f.date_naive()) == s.to.map(|t| t.date_naive());
    let to_form = if same_day {
        "%H:%M:%S"
    } else {
        "%Y-%m-%d %H:%M:%S"
    };
    let window = format!("{} → {}", t(s.from, "%Y-%m-%d %H:%M:%S"), t(s.to, to_form));
    let forms = [
        sanitize(&side_line(s), 400),
        format!("{name} {window} ({} samples)", s.samples),
        format!("{name} {window}"),
        format!("{name} {} → {}", t(s.from, "%H:%M:%S"), t(s.to, "%H:%M:%S")),
    ];
    forms
        .into_iter()
        .find(|f| width(f) <= w)
        .unwrap_or_else(|| crate::text::truncate(&name, w))
}

/// A side's bar on the shared scale: `─` where it has figures, `━` in the colour of a
/// verdict that held, its marks (with their counts when they fit), blank past its end.
fn bar(tl: &SideTimeline, scale: f64, width: usize) -> Vec<(char, Option<ThemeItem>)> {
    let mut cells: Vec<(char, Option<ThemeItem>)> = vec![(' ', None); width];
    if width == 0 || tl.start.is_none() {
        return cells;
    }
    let col = |s: f64| -> usize {
        let c = (s / scale * (width - 1) as f64).round();
        (c.max(0.0) as usize).min(width - 1)
    };
    let mut worst: Vec<Option<Severity>> = vec![None; width];
    for s in &tl.stretches {
        for w in &mut worst[col(s.from_s)..=col(s.to_s)] {
            *w = (*w).max(Some(s.severity));
        }
    }
    for (cell, sev) in cells.iter_mut().zip(&worst) {
        *cell = match sev {
            Some(s) => {
                let (c, item) = s.bar();
                (c, Some(item))
            }
            None => (' ', None),
        };
    }
    // One mark per column: the one holding most moments; its count after it, whole or not
    // at all (a cut number would lie).
    let mut owner: Vec<Option<&crate::postmortem::timeline::Mark>> = vec![None; width];
    for m in &tl.marks {
        let c = col(m.at_s);
        if owner[c].is_none_or(|o| m.count > o.count) {
            owner[c] = Some(m);
        }
    }
    let mut taken: Vec<bool> = owner.iter().map(Option::is_some).collect();
    for (c, m) in owner.iter().enumerate() {
        let Some(m) = m else { continue };
        cells[c] = (m.mark, Some(ThemeItem::TimelineMarker));
        let digits = m.count.to_string();
        let room = c + 1..c + 1 + digits.len();
        if m.count > 1 && room.end <= width && !taken[room.clone()].contains(&true) {
            for (at, d) in room.zip(digits.chars()) {
                cells[at] = (d, Some(ThemeItem::TimelineMarker));
                taken[at] = true;
            }
        }
    }
    cells
}

/// Tick labels under the bars: `0s   30s   1m …`, a round step that leaves room for each.
fn axis(scale: f64, width: usize) -> String {
    const STEPS: [u64; 16] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400,
    ];
    let per_col = scale / width.max(2).saturating_sub(1) as f64;
    // A label needs its width and two spaces.
    let step = STEPS
        .iter()
        .copied()
        .find(|s| *s as f64 / per_col >= 10.0)
        .unwrap_or(86_400 * 7);
    let mut out: Vec<char> = vec![' '; width];
    let mut t = 0u64;
    while (t as f64) <= scale {
        let label = tick(t);
        let c = ((t as f64 / per_col).round() as usize).min(width.saturating_sub(1));
        let end = c + label.chars().count();
        if end <= width && out[c..end].iter().all(|ch| *ch == ' ') {
            for (i, ch) in label.chars().enumerate() {
                out[c + i] = ch;
            }
        }
        t += step;
    }
    out.into_iter().collect::<String>().trim_end().to_string()
}

/// `0`, `45s`, `1m`, `1m30s`, `2h`, `1h30m`, `2d`.
fn tick(t: u64) -> String {
    match t {
        0 => "0".into(),
        t if t < 60 => format!("{t}s"),
        t if t < 3600 && t % 60 == 0 => format!("{}m", t / 60),
        t if t < 3600 => format!("{}m{:02}s", t / 60, t % 60),
        t if t < 86_400 && t % 3600 == 0 => format!("{}h", t / 3600),
        t if t < 86_400 => format!("{}h{:02}m", t / 3600, t % 3600 / 60),
        t => units::duration(t).replace(' ', ""),
    }
}

fn differences_box(frame: &mut Frame, area: Rect, c: &Compare, theme: &Theme) {
    let n = c.comparison.ranked.len();
    let mut t = title(
        &format!(
            "{n} difference{}, most likely explanation first",
            if n == 1 { "" } else { "s" }
        ),
        theme,
    );
    if n > 0 {
        t.spans.push(Span::styled(
            format!("· {}/{n} ", c.selected + 1),
            theme.style(ThemeItem::Dim),
        ));
    }
    let inner = boxed(frame, area, t, theme);
    if inner.height == 0 {
        return;
    }
    let text = theme.style(ThemeItem::Text);
    let dim = theme.style(ThemeItem::Dim);
    if n == 0 {
        draw_lines(
            frame.buffer_mut(),
            inner,
            &[Line::styled(
                "Nothing differs enough to score: the incident's figures look like the baseline's.",
                dim,
            )],
        );
        return;
    }
    let visible = inner.height as usize;
    // The selected row stays in view: the list scrolls only as far as it must.
    let first = (c.selected + 1).saturating_sub(visible);
    let rank_w = n.to_string().len();
    let selected = theme.style(ThemeItem::Selected);
    let lines: Vec<Line<'static>> = c
        .comparison
        .ranked
        .iter()
        .enumerate()
        .skip(first)
        .take(visible)
        .map(|(i, r)| {
            let here = i == c.selected;
            let patch = |s: Style| if here { s.patch(selected) } else { s };
            let line = Line::from(vec![
                Span::styled(if here { "▶ " } else { "  " }, patch(text)),
                Span::styled(format!("{:>rank_w$} ", i + 1), patch(dim)),
                Span::styled(format!("[{:>4.1}] ", r.score), patch(dim)),
                Span::styled(sanitize(&r.what, 600), patch(text)),
            ]);
            let mut line = fit_line(line, inner.width as usize);
            if here {
                // The whole row marked, not only its text.
                let pad = (inner.width as usize).saturating_sub(line.width());
                line.spans.push(Span::styled(" ".repeat(pad), patch(text)));
            }
            line
        })
        .collect();
    draw_lines(frame.buffer_mut(), inner, &lines);
}

fn verdicts_box(frame: &mut Frame, area: Rect, c: &Compare, theme: &Theme) {
    let inner = boxed(
        frame,
        area,
        title("Verdict time: incident vs baseline", theme),
        theme,
    );
    let text = theme.style(ThemeItem::Text);
    let lines: Vec<Line<'static>> = c
        .comparison
        .verdicts
        .iter()
        .map(|v| Line::styled(verdict_line(v), text))
        .collect();
    draw_lines(frame.buffer_mut(), inner, &lines);
}

/// The compare keys from the keymap, as many as fit (Enter both opens and closes a detail,
/// so Esc is not offered twice).
fn footer(frame: &mut Frame, area: Rect, c: &Compare, theme: &Theme) {
    let key = theme.style(ThemeItem::Key);
    let dim = theme.style(ThemeItem::Dim);
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1usize;
    for (b, h) in keymap::COMPARE.hints() {
        let what = match b.keys.first().map(|(_, a)| *a) {
            Some(CompareKey::Screen(ScreenKey::Back)) => continue,
            Some(CompareKey::Detail) if c.detail.is_some() => "close",
            _ => h.what,
        };
        let w = width(h.key) + 1 + width(what) + 2;
        if used + w > area.width as usize {
            break;
        }
        spans.push(Span::styled(h.key.to_string(), key));
        spans.push(Span::styled(format!(" {what}  "), dim));
        used += w;
    }
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &Line::from(spans), area.width);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_round_and_apart() {
        // 3.03 s a column: 30 s would be 9.9 columns, under the 10 a label needs; 1m is 19.8.
        assert_eq!(
            axis(209.0, 70),
            format!(
                "0{}1m{}2m{}3m",
                " ".repeat(19),
                " ".repeat(18),
                " ".repeat(17)
            )
        );
        assert_eq!(axis(300.0, 200).split_whitespace().nth(1), Some("30s"));
        // Too narrow for any step but the start.
        assert_eq!(axis(209.0, 3), "0");
    }
}
