//! Popups over the dashboard: Help (every key), Verdicts (every verdict in full), Confirm
//! (what will run, the exact SQL, and `[ Yes ]  [ No ]` with No the default) and Notice. Each is centered over a cleared area.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::{App, Confirm, Input, Overlay, Showing, secs_between};
use crate::keymap;
use crate::theme::{Theme, ThemeItem};

use super::flow::wrap_line;
use crate::text::{sanitize, width, wrap};
use innodebt_engine::units;

/// Widest a popup gets, so lines stay readable on huge terminals.
const MAX_WIDTH: u16 = 78;

pub fn render(frame: &mut Frame, area: Rect, overlay: &Overlay, app: &App, theme: &Theme) {
    let bg = theme.style(ThemeItem::PopupBg);
    let base = theme.style(ThemeItem::Text).patch(bg);
    let dim = theme.style(ThemeItem::Dim).patch(bg);
    // Text width inside the border and one column of padding each side.
    let max_text = area.width.min(MAX_WIDTH).saturating_sub(4) as usize;
    let (title, lines) = match overlay {
        Overlay::Help => (
            "Help: keys".to_string(),
            help_with_cost(app, area, max_text, theme, base, dim),
        ),
        Overlay::Verdicts => (
            "Verdicts: what the figures mean".to_string(),
            fit_rows(
                verdict_lines(app, max_text, theme, base, dim),
                area.height.saturating_sub(2) as usize,
                dim,
            ),
        ),
        Overlay::Confirm(c) => (
            sanitize(&c.title, 120),
            confirm_lines(c, max_text, theme, base, dim),
        ),
        Overlay::Input(input) => (
            sanitize(&input.title, 120),
            input_lines(input, max_text, theme, base, dim),
        ),
        Overlay::Notice { title, lines } => {
            let mut out = wrapped(lines, max_text, base);
            out.push(Line::default());
            out.push(Line::styled(keymap::MESSAGE.hint_line(), dim));
            (sanitize(title, 120), out)
        }
    };
    let content_w = lines
        .iter()
        .map(Line::width)
        .max()
        .unwrap_or(0)
        .max(width(&title) + 2);
    let w = (content_w.min(u16::MAX as usize - 4) as u16 + 4).min(area.width);
    let h = (lines.len() as u16).saturating_add(2).min(area.height);
    if w < 3 || h < 3 {
        return;
    }
    super::frame::popup(frame, area, (w, h), &title, &lines, theme);
}

/// The keys that work here (a replay lists its own, not the ones it refuses).
fn help_lines(app: &App, theme: &Theme, base: Style, dim: Style) -> Vec<Line<'static>> {
    let key = base.patch(theme.style(ThemeItem::Key));
    let rows: Vec<(String, &str)> = app
        .keys_here()
        .rows
        .iter()
        .map(|r| (r.label(), r.help))
        .collect();
    let kw = rows.iter().map(|(k, _)| width(k)).max().unwrap_or(0);
    let mut out: Vec<Line<'static>> = rows
        .into_iter()
        .map(|(k, what)| {
            let pad = " ".repeat(kw.saturating_sub(width(&k)) + 2);
            Line::from(vec![
                Span::styled(k, key),
                Span::styled(pad, base),
                Span::styled(what.to_string(), base),
            ])
        })
        .collect();
    out.push(Line::default());
    out.push(Line::styled(keymap::MESSAGE.hint_line(), dim));
    out
}

/// The keys, then what innodebt costs the server: in full when the terminal is tall enough,
/// else its one-line summary in place of the blank line before "any key closes" (and, at
/// 80×24, without that blank line).
fn help_with_cost(
    app: &App,
    area: Rect,
    max_text: usize,
    theme: &Theme,
    base: Style,
    dim: Style,
) -> Vec<Line<'static>> {
    let cost = app
        .view()
        .latest
        .as_ref()
        .and_then(|f| f.self_cost.as_ref());
    let mut lines = help_lines(app, theme, base, dim);
    // `compare` polls no server: there is no cost to tell.
    if let Showing::Compare(_) = app.showing {
        return lines;
    }
    let (summary, details) = super::cost::overlay_lines(cost, app.interval);
    let mut close = lines.split_off(lines.len().saturating_sub(2));
    let room = area.height.saturating_sub(2) as usize;
    let mut cost_lines = vec![Line::default()];
    cost_lines.extend(wrapped(std::slice::from_ref(&summary), max_text, base));
    cost_lines.extend(wrapped(&details, max_text, dim));
    if lines.len() + cost_lines.len() + close.len() > room {
        cost_lines = wrapped(&[summary], max_text, base);
    }
    // Still short of a row (80×24): the blank line before "any key closes" goes.
    if lines.len() + cost_lines.len() + close.len() > room && close.len() > 1 {
        close.remove(0);
    }
    lines.extend(cost_lines);
    lines.extend(close);
    lines
}

/// Every verdict that holds, most severe first: symbol and kind, severity, since when, then
/// the whole message (the verdict line may have cut it).
fn verdict_lines(
    app: &App,
    max: usize,
    theme: &Theme,
    base: Style,
    dim: Style,
) -> Vec<Line<'static>> {
    let verdicts = app.verdicts_now();
    let mut out = Vec::new();
    if verdicts.is_empty() {
        out.push(Line::styled(
            "no verdict yet: waiting for the first sample",
            base,
        ));
    }
    for (i, v) in verdicts.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        let ago = secs_between(v.since, app.now).max(0.0) as u64;
        let mut head: Vec<Span<'static>> = super::verdict::headline(v, theme)
            .into_iter()
            .map(|s| Span::styled(s.content, base.patch(s.style)))
            .collect();
        head.push(Span::styled(
            format!(
                "  {} · since {} ({} ago)",
                v.severity.as_str(),
                v.since.format("%H:%M:%S"),
                units::duration(ago)
            ),
            dim,
        ));
        out.extend(wrap_line(Line::from(head), max));
        for w in wrap(&sanitize(&v.message, 2000), max.saturating_sub(2)) {
            out.push(Line::styled(format!("  {w}"), base));
        }
    }
    out.push(Line::default());
    out.push(Line::styled(keymap::MESSAGE.hint_line(), dim));
    out
}

/// Lines that must fit `room` rows and end with the closing hint: the blank lines go first,
/// then the text is cut above a `…` row so the hint still shows.
fn fit_rows(mut lines: Vec<Line<'static>>, room: usize, dim: Style) -> Vec<Line<'static>> {
    if lines.len() <= room {
        return lines;
    }
    let Some(close) = lines.pop() else {
        return lines;
    };
    lines.retain(|l| l.width() > 0);
    if lines.len() + 1 > room {
        lines.truncate(room.saturating_sub(2));
        lines.push(Line::styled("…", dim));
    }
    lines.push(close);
    lines
}

/// Explanation lines, cleaned of control characters and wrapped to `max` columns.
fn wrapped(lines: &[String], max: usize, style: Style) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|l| wrap(&sanitize(l, 2000), max))
        .map(|w| Line::styled(w, style))
        .collect()
}

fn confirm_lines(
    c: &Confirm,
    max: usize,
    theme: &Theme,
    base: Style,
    dim: Style,
) -> Vec<Line<'static>> {
    let mut out = wrapped(&c.lines, max, base);
    if let Some(sql) = &c.sql {
        out.push(Line::default());
        out.push(Line::styled("Will run:", dim));
        let sql_style = base.patch(theme.style(ThemeItem::Sql));
        for w in wrap(&sanitize(sql, 4000), max) {
            out.push(Line::styled(w, sql_style));
        }
    }
    out.push(Line::default());
    let selected = base.patch(theme.style(ThemeItem::Selected));
    let (yes, no) = if c.yes_selected {
        (selected, base)
    } else {
        (base, selected)
    };
    let buttons = "[ Yes ]  [ No ]";
    let content_w = out.iter().map(Line::width).max().unwrap_or(0).min(max);
    let pad = " ".repeat(content_w.saturating_sub(width(buttons)) / 2);
    out.push(Line::from(vec![
        Span::styled(pad, base),
        Span::styled("[ Yes ]", yes),
        Span::styled("  ", base),
        Span::styled("[ No ]", no),
    ]));
    out.push(Line::default());
    out.push(Line::styled(keymap::CONFIRM.hint_line(), dim));
    out
}

fn input_lines(
    i: &Input,
    max: usize,
    theme: &Theme,
    base: Style,
    dim: Style,
) -> Vec<Line<'static>> {
    let mut out = wrapped(&i.lines, max, base);
    out.push(Line::default());
    // The end of what was typed stays visible, with the cursor after it.
    let field_w = max.saturating_sub(3).max(1);
    let typed = sanitize(&i.text, 400);
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in typed.chars().rev() {
        let cw = width(c.encode_utf8(&mut [0u8; 4]));
        if used + cw > field_w {
            break;
        }
        used += cw;
        tail.push(c);
    }
    let shown: String = tail.into_iter().rev().collect();
    let field = base.patch(theme.style(ThemeItem::Selected));
    out.push(Line::from(vec![
        Span::styled("> ", base.patch(theme.style(ThemeItem::Key))),
        Span::styled(format!("{shown}▏"), field),
    ]));
    if let Some(e) = &i.error {
        for w in wrap(&sanitize(e, 400), max) {
            out.push(Line::styled(
                w,
                base.patch(theme.style(ThemeItem::Critical)),
            ));
        }
    }
    out.push(Line::default());
    out.push(Line::styled(keymap::PROMPT.hint_line(), dim));
    out
}
