//! Draws the fleet view: a header with counts, one row per server (nearest breach first),
//! the filter line and the keys. Reads the state, computes nothing. The server column is as
//! wide as the names (up to a third of the screen; longer names are elided in the middle, so
//! `127.0.0.1:1` never reads `127.0.0.1:`); the figure columns that do not fit beside it are
//! left out, least telling first, rather than every column squeezed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::row::{RowLink, needs_attention};
use super::state::{Fleet, Server};
use crate::keymap;
use crate::text::{elide_middle, sanitize, width};
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::units::{count, duration};

/// The columns and their widths; the server's width is the names' (see [`name_width`]).
const HEADERS: [(&str, u16); 12] = [
    ("SERVER", 0),
    ("GROUP", 8),
    ("VERDICT", 20),
    ("CKPT/ASYNC", 10),
    ("TO STALL", 9),
    ("HISTORY", 8),
    ("H.ETA", 8),
    ("BLOCKER", 12),
    ("DIRTY", 6),
    ("DML DELAY", 10),
    ("COST", 6),
    ("UPD", 5),
];

/// The figure columns by how much they tell, most first: a narrow screen keeps a prefix.
const KEEP_FIRST: [usize; 11] = [2, 3, 7, 5, 4, 6, 11, 8, 9, 1, 10];

/// Columns between cells.
const SPACING: u16 = 1;

/// The server column: the widest visible name (at least its header), at most a third of the
/// screen (never under 16 columns) with longer names elided in the middle — and wider again
/// when two names would read the same elided (`…replica-0…`): the column grows until every
/// row tells its server apart, figure columns giving way.
fn name_width(fleet: &Fleet, total: u16) -> u16 {
    let names: Vec<String> = fleet
        .order
        .iter()
        .map(|i| sanitize(&fleet.servers[*i].name, 200))
        .collect();
    let widest = names
        .iter()
        .map(|n| width(n))
        .max()
        .unwrap_or(0)
        .max(HEADERS[0].0.len());
    let distinct = |w: usize| {
        let whole: std::collections::HashSet<&String> = names.iter().collect();
        let shown: std::collections::HashSet<String> =
            names.iter().map(|n| elide_middle(n, w)).collect();
        shown.len() == whole.len()
    };
    let cap = usize::from((total / 3).max(16));
    let mut w = widest.min(cap);
    while w < widest && !distinct(w) {
        w += 1;
    }
    u16::try_from(w).unwrap_or(u16::MAX)
}

/// Which columns fit beside a server column `name_w` wide in `total`: indices into
/// [`HEADERS`], in table order.
fn fitting_columns(name_w: u16, total: u16) -> Vec<usize> {
    let mut used = name_w;
    let mut keep = vec![0];
    for i in KEEP_FIRST {
        let w = HEADERS[i].1 + SPACING;
        if used + w <= total {
            used += w;
            keep.push(i);
        }
    }
    keep.sort_unstable();
    keep
}

fn secs(v: Option<f64>) -> String {
    match v {
        Some(s) if s.is_finite() => duration(s.max(0.0) as u64),
        _ => "-".into(),
    }
}

fn pct(v: Option<f64>) -> String {
    v.map(|p| format!("{p:.0}%")).unwrap_or_else(|| "-".into())
}

/// The cells of one server's row.
fn cells(s: &Server, f: &Fleet) -> Vec<String> {
    let updated = s
        .updated
        .map(|t| format!("{}s", (f.now - t).num_seconds().max(0)))
        .unwrap_or_else(|| "-".into());
    let name = sanitize(&s.name, 200);
    let group = s
        .group
        .as_deref()
        .map(|g| sanitize(g, 12))
        .unwrap_or_default();
    match (&s.link, &s.figures) {
        (RowLink::Down { error }, _) => {
            let _ = error; // shown in full on the detail line when selected
            let mut row = vec![name, group, "DISCONNECTED".into()];
            row.resize(HEADERS.len() - 1, String::new());
            row.push(updated);
            row
        }
        (_, None) => {
            let mut row = vec![name, group, "waiting".into()];
            row.resize(HEADERS.len() - 1, String::new());
            row.push(updated);
            row
        }
        (_, Some(r)) => vec![
            name,
            group,
            r.verdict
                .as_ref()
                .map(|v| v.0.replace('_', " "))
                .unwrap_or_else(|| "-".into()),
            pct(r.age_pct_of_async),
            secs(r.seconds_to_stall),
            r.history
                .map(|h| count(h as f64))
                .unwrap_or_else(|| "-".into()),
            secs(r.history_eta_s),
            match (r.blocker_age_s, r.blocker_thread) {
                (Some(0), _) => "none".into(),
                (Some(a), Some(t)) => format!("{} #{t}", duration(a)),
                (Some(a), None) => duration(a),
                (None, _) => "-".into(),
            },
            pct(r.dirty_pct),
            r.dml_delay_us
                .map(|d| format!("{d}µs"))
                .unwrap_or_else(|| "-".into()),
            r.cost_ms
                .map(|c| format!("{c:.0}ms"))
                .unwrap_or_else(|| "-".into()),
            updated,
        ],
    }
}

fn row_style(s: &Server, theme: &Theme) -> Style {
    match (&s.link, s.figures.as_ref().and_then(|f| f.verdict.as_ref())) {
        (RowLink::Down { .. }, _) => theme.style(ThemeItem::BadgeDisconnected),
        (_, Some((_, sev))) => theme.severity(*sev),
        _ => theme.style(ThemeItem::Dim),
    }
}

pub fn render(frame: &mut Frame, fleet: &Fleet, theme: &Theme) {
    let [header, table, detail, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let down = fleet
        .servers
        .iter()
        .filter(|s| matches!(s.link, RowLink::Down { .. }))
        .count();
    let breaching = fleet
        .servers
        .iter()
        .filter(|s| needs_attention(&s.link, s.figures.as_ref()))
        .count();
    let when = match fleet.as_of {
        Some(t) => format!("as at {} UTC", t.format("%Y-%m-%d %H:%M:%S")),
        None => format!("{} UTC", fleet.now.format("%H:%M:%S")),
    };
    // The source last: the counts must fit an 80-column header.
    let via = fleet
        .via
        .as_ref()
        .map(|v| format!(" · {v}"))
        .unwrap_or_default();
    let title = format!(
        " innodebt fleet · {} servers · {breaching} need attention · {down} disconnected · {when}{via} ",
        fleet.servers.len(),
    );
    frame.render_widget(
        Paragraph::new(title).style(
            theme
                .style(ThemeItem::HeaderText)
                .bg(theme.color(ThemeItem::HeaderBg).unwrap_or_default()),
        ),
        header,
    );
    render_table(frame, table, fleet, theme);
    if let Some(s) = fleet.selected_server().and_then(|i| fleet.servers.get(i)) {
        let what = match &s.link {
            RowLink::Down { error } => format!("DISCONNECTED: {error}"),
            RowLink::Waiting => "waiting for the first sample".to_string(),
            RowLink::Up => s
                .figures
                .as_ref()
                .and_then(|f| f.verdict.as_ref())
                .map(|v| v.0.replace('_', " "))
                .unwrap_or_default(),
        };
        let mut line = format!("{} · {} · {what}", s.name, s.source);
        if !s.tags.is_empty() {
            line.push_str(&format!(" · tags {}", s.tags.join(",")));
        }
        frame.render_widget(
            Paragraph::new(sanitize(&line, detail.width as usize)).style(row_style(s, theme)),
            detail,
        );
    }
    let foot = if fleet.editing_filter {
        Line::from(vec![
            Span::styled("filter: ", theme.style(ThemeItem::Key)),
            Span::raw(fleet.filter.clone()),
            Span::styled(
                format!("▏ {}", keymap::FLEET_FILTER.hint_line()),
                theme.style(ThemeItem::Dim),
            ),
        ])
    } else if let Some(n) = &fleet.notice {
        Line::from(Span::styled(n.clone(), theme.style(ThemeItem::Warning)))
    } else {
        let filter = if fleet.filter.is_empty() {
            String::new()
        } else {
            format!("filter “{}” · ", fleet.filter)
        };
        Line::from(vec![
            Span::styled(filter, theme.style(ThemeItem::Text)),
            Span::styled(keymap::FLEET.hint_line(), theme.style(ThemeItem::Key)),
        ])
    };
    frame.render_widget(Paragraph::new(foot), footer);
}

fn render_table(frame: &mut Frame, area: Rect, fleet: &Fleet, theme: &Theme) {
    let name_w = name_width(fleet, area.width);
    let columns = fitting_columns(name_w, area.width);
    let widths: Vec<Constraint> = columns
        .iter()
        .map(|&i| match i {
            0 => Constraint::Length(name_w),
            i => Constraint::Length(HEADERS[i].1),
        })
        .collect();
    let header = Row::new(columns.iter().map(|&i| Cell::from(HEADERS[i].0)))
        .style(theme.style(ThemeItem::Title).add_modifier(Modifier::BOLD));
    // The table's lines (group headings and servers), without their cells: only the lines on
    // screen are drawn, scrolled so that the selected server is one of them.
    enum Entry<'a> {
        Group(&'a str),
        Server(usize),
    }
    let mut entries = Vec::with_capacity(fleet.order.len());
    let mut last_group: Option<&Option<String>> = None;
    let mut selected_line = 0;
    for (pos, i) in fleet.order.iter().enumerate() {
        let s = &fleet.servers[*i];
        if fleet.by_group && last_group != Some(&s.group) {
            last_group = Some(&s.group);
            entries.push(Entry::Group(s.group.as_deref().unwrap_or("(no group)")));
        }
        if pos == fleet.selected {
            selected_line = entries.len();
        }
        entries.push(Entry::Server(pos));
    }
    let room = usize::from(area.height.saturating_sub(1)).max(1);
    let first = (selected_line + 1).saturating_sub(room);
    let mut rows = Vec::with_capacity(room);
    for entry in entries.iter().skip(first).take(room) {
        let pos = match entry {
            Entry::Group(g) => {
                rows.push(
                    Row::new([Cell::from(format!("▸ {}", sanitize(g, 30)))])
                        .style(theme.style(ThemeItem::Dim)),
                );
                continue;
            }
            Entry::Server(pos) => *pos,
        };
        let s = &fleet.servers[fleet.order[pos]];
        let mut style = row_style(s, theme);
        if pos == fleet.selected {
            style = style
                .bg(theme.color(ThemeItem::Selected).unwrap_or_default())
                .add_modifier(Modifier::REVERSED);
        }
        let mut cells = cells(s, fleet);
        cells[0] = elide_middle(&cells[0], usize::from(name_w));
        let picked = columns
            .iter()
            .map(|&i| Cell::from(cells.get(i).cloned().unwrap_or_default()));
        rows.push(Row::new(picked).style(style));
    }
    if rows.is_empty() {
        let msg = if fleet.filter.is_empty() {
            "no servers: give --config FILE or -h HOST".to_string()
        } else {
            format!(
                "no server matches “{}” (Esc clears the filter)",
                fleet.filter
            )
        };
        frame.render_widget(Paragraph::new(msg).style(theme.style(ThemeItem::Dim)), area);
        return;
    }
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(SPACING);
    frame.render_widget(table, area);
}
