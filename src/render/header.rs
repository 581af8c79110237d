//! The header bar: where we are connected, what the server is, and how fresh the data is —
//! with badges (WAITING, STALE, DISCONNECTED, FROZEN, REC, READ-ONLY; REPLAY and DAMAGED
//! over a capture) that never rely on colour alone. When the bar is too narrow, the least useful parts go first.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::{App, Freshness, Link, Showing, secs_between};
use crate::theme::{Theme, ThemeItem};
use innodebt_engine::units;

use crate::text::{sanitize, truncate};

/// How much of a connection error the header shows (the bar cuts it further when narrow).
const ERROR_COLS: usize = 80;
/// How long after a redo resize the header still mentions it.
const RESIZE_NOTE_S: f64 = 600.0;
/// How far the server label shrinks before parts of importance below [`SHRINK_LABEL_AT`]
/// are dropped for it (it is whole whenever the bar has the room).
const LABEL_COLS: usize = 40;
/// Parts at this importance or above (interval, cost) go before the label shrinks.
const SHRINK_LABEL_AT: u8 = 5;

/// The header bar's background, text and dim styles (the compare screen's header too).
pub fn bar_styles(theme: &Theme) -> (Style, Style, Style) {
    let bg = theme.style(ThemeItem::HeaderBg);
    let text = theme
        .style(ThemeItem::Text)
        .patch(bg)
        .patch(theme.style(ThemeItem::HeaderText));
    (bg, text, theme.style(ThemeItem::Dim).patch(bg))
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let (bg, text, dim) = bar_styles(theme);
    let badge = |item: ThemeItem| bg.patch(theme.style(item));

    let view = app.view();
    let info = view.info();
    let latest = view.latest.as_ref();

    // (importance: lower is kept longer, spans)
    let mut left: Vec<(u8, Vec<Span<'static>>)> = Vec::new();
    let label = info
        .map(|i| sanitize(&i.label, 200))
        .or_else(|| latest.map(|f| sanitize(&f.server.label, 200)))
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "innodebt".to_string());
    // The label is fitted apart from the other parts (it shrinks, they are dropped).
    let full_label_w = crate::text::width(&label);
    if let Some(i) = info {
        let flavour = i.flavor.kind.product();
        left.push((
            3,
            vec![Span::styled(
                format!("{flavour} {}", short_version(&i.version)),
                text,
            )],
        ));
    }
    if let Some(up) = latest.and_then(|f| f.server.uptime_s) {
        left.push((
            4,
            vec![
                Span::styled("up ", dim),
                Span::styled(units::duration(up), text),
            ],
        ));
    }
    left.push((
        5,
        vec![
            Span::styled("every ", dim),
            Span::styled(interval(app.interval), text),
        ],
    ));
    // A redo resize changes what every redo figure is measured against: a warning, cut
    // rather than dropped, and placed before the latency guard's (which a loaded server can
    // show for as long as the resize note lasts).
    if let Some(r) = view.deriver.redo_resized()
        && secs_between(r.at, app.now) < RESIZE_NOTE_S
    {
        left.push((
            1,
            vec![Span::styled(
                r.summary(),
                bg.patch(theme.style(ThemeItem::Warning)),
            )],
        ));
    }
    // What this tick cost the server (round trips measured by innodebt), and the latency
    // guard's note when the server was too slow for a source.
    if let Some(c) = latest.and_then(|f| f.self_cost.as_ref()) {
        left.push((
            6,
            vec![
                Span::styled("cost ", dim),
                Span::styled(super::cost::header_figure(c), text),
            ],
        ));
        if let Some(note) = super::cost::slowed_note(&c.slowed) {
            left.push((
                1,
                vec![Span::styled(
                    note,
                    bg.patch(theme.style(ThemeItem::Warning)),
                )],
            ));
        }
    }

    let mut badges: Vec<Span<'static>> = Vec::new();
    if let Showing::Replay(r) = &app.showing {
        badges.push(Span::styled(" REPLAY ", badge(ThemeItem::BadgeFrozen)));
        // Samples lost to damage: a badge, which the fitter never drops (the words follow).
        if r.recording.damage.is_some() {
            badges.push(Span::styled(
                " DAMAGED ",
                badge(ThemeItem::BadgeDisconnected),
            ));
        }
        let name = truncate(&sanitize(&r.recording.name, 200), 40);
        let mut spans = vec![Span::styled(name, text)];
        if let Some(t) = r.now() {
            spans.push(Span::styled(
                format!(" · {}", t.format("%Y-%m-%d %H:%M:%S UTC")),
                text,
            ));
        }
        if let Some(m) = r.moment_here() {
            let repeats = r.group_here().map_or(String::new(), |g| {
                let secs = (g.last_at - g.first.at).num_seconds().max(0) as u64;
                format!(" (1 of {} like it over {})", g.count, units::duration(secs))
            });
            spans.push(Span::styled(
                format!(" · {}{repeats}", truncate(&sanitize(&m.label, 200), 60)),
                theme.style(ThemeItem::TimelineMarker).patch(bg),
            ));
        }
        // What damage cost first, in full; the reader's other words after it, cut.
        if let Some(d) = &r.recording.damage {
            spans.push(Span::styled(
                format!(" · {}", sanitize(d, 120)),
                bg.patch(theme.style(ThemeItem::Warning)),
            ));
        }
        if let Some(note) = &r.recording.end_note {
            spans.push(Span::styled(
                format!(" · {}", truncate(&sanitize(note, 300), 60)),
                dim,
            ));
        }
        left.push((1, spans));
    }
    match app.freshness() {
        // A replay's clock is the capture's: nothing is late or stale in it.
        _ if matches!(app.showing, Showing::Replay(_)) => {}
        Freshness::Waiting => {
            badges.push(Span::styled(" WAITING ", badge(ThemeItem::BadgeStale)));
            let what = match view.link {
                Link::Connecting if info.is_none() => "connecting…",
                _ => "for the first sample",
            };
            left.push((2, vec![Span::styled(what, dim)]));
        }
        // The sample's own time, not a count of seconds: it changes only when a sample
        // arrives, so a quiet screen is not redrawn every second just for the header.
        Freshness::Fresh { .. } if app.is_frozen() => {
            left.push((
                2,
                vec![
                    Span::styled("showing ", dim),
                    Span::styled(
                        latest.map_or_else(|| "n/a".into(), |f| clock_time(f.sampled_at)),
                        text,
                    ),
                ],
            ));
        }
        Freshness::Fresh { late: false, .. } => {
            let at = latest.map_or_else(|| "n/a".into(), |f| clock_time(f.sampled_at));
            left.push((2, vec![Span::styled("data ", dim), Span::styled(at, text)]));
        }
        // Overdue but not yet stale: count the seconds, so a slow server shows it at once.
        Freshness::Fresh { age_s, late: true } => {
            left.push((
                2,
                vec![
                    Span::styled("data ", dim),
                    Span::styled(format!("{}s", age_s.max(0.0) as u64), text),
                    Span::styled(" ago", dim),
                ],
            ));
        }
        Freshness::Stale { age_s } => {
            badges.push(Span::styled(
                format!(" STALE {} ", units::duration(age_s.max(0.0) as u64)),
                badge(ThemeItem::BadgeStale),
            ));
        }
        Freshness::Disconnected {
            retry_in_s,
            down_for_s,
            error,
        } => {
            // Past the countdown the attempt itself is under way (it may wait for
            // --connect-timeout): say so rather than show "retry in 0s".
            let retry = match retry_in_s.max(0.0).ceil() as u64 {
                0 => "retrying…".to_string(),
                s => format!("retry in {s}s"),
            };
            badges.push(Span::styled(
                format!(" DISCONNECTED · {retry} "),
                badge(ThemeItem::BadgeDisconnected),
            ));
            let err = truncate(&sanitize(&error, 400), ERROR_COLS);
            left.push((
                1,
                vec![
                    Span::styled(err, text),
                    Span::styled(
                        format!(" · down {}", units::duration(down_for_s.max(0.0) as u64)),
                        dim,
                    ),
                ],
            ));
        }
    }
    if app.is_frozen() {
        badges.push(Span::styled(" FROZEN ", badge(ThemeItem::BadgeFrozen)));
    }
    if app.recording.is_some() {
        badges.push(Span::styled(" REC ", badge(ThemeItem::BadgeRec)));
    }
    if app.read_only() {
        badges.push(Span::styled(" READ-ONLY ", badge(ThemeItem::Key)));
    }

    let total = area.width as usize;
    let badges_w: usize =
        badges.iter().map(Span::width).sum::<usize>() + badges.len().saturating_sub(1);
    let seg_w = |segs: &[(u8, Vec<Span<'static>>)]| -> usize {
        segs.iter()
            .map(|(_, s)| s.iter().map(Span::width).sum::<usize>() + 2)
            .sum::<usize>()
            + 1
    };
    // Drop the least important parts until everything fits beside the badges; before the
    // middling ones go, the label gives up its length down to LABEL_COLS. The label (0) and
    // a connection error (1) are cut rather than dropped.
    let mut label_w = full_label_w;
    let need =
        |left: &[(u8, Vec<Span<'static>>)], label_w: usize| seg_w(left) + label_w + 2 + badges_w;
    while need(&left, label_w) > total {
        let least = left
            .iter()
            .enumerate()
            .filter(|(_, (p, _))| *p >= 2)
            .max_by_key(|(_, (p, _))| *p)
            .map(|(i, (p, _))| (i, *p));
        if least.is_none_or(|(_, p)| p < SHRINK_LABEL_AT) && label_w > LABEL_COLS {
            let over = need(&left, label_w) - total;
            label_w = label_w.saturating_sub(over).max(LABEL_COLS);
            continue;
        }
        let Some((idx, _)) = least else {
            break;
        };
        left.remove(idx);
    }
    // What dropping freed beyond the need goes back to a shrunk label.
    label_w = (label_w + total.saturating_sub(need(&left, label_w))).min(full_label_w);
    left.insert(0, (0, vec![Span::styled(truncate(&label, label_w), text)]));
    let mut spans: Vec<Span<'static>> = vec![Span::styled(" ", text)];
    let room_for_left = total.saturating_sub(badges_w + 1);
    let mut used = 1;
    'segments: for (i, (_, segment)) in left.into_iter().enumerate() {
        if i > 0 {
            if used + 2 >= room_for_left {
                break;
            }
            spans.push(Span::styled("  ", text));
            used += 2;
        }
        for s in segment {
            let w = s.width();
            let room = room_for_left.saturating_sub(used);
            if w <= room {
                used += w;
                spans.push(s);
            } else {
                // Cut this part and stop: a stub of what follows would only be noise.
                if room >= 4 {
                    spans.push(Span::styled(truncate(&s.content, room), s.style));
                }
                break 'segments;
            }
        }
    }
    let buf = frame.buffer_mut();
    buf.set_style(area, bg);
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    if !badges.is_empty() && badges_w <= total {
        let mut x = area.right() - badges_w as u16;
        for (i, b) in badges.iter().enumerate() {
            if i > 0 {
                x += 1;
            }
            let (nx, _) = buf.set_span(x, area.y, b, area.right().saturating_sub(x));
            x = nx;
        }
    }
}

/// `10.11.6-MariaDB-log` → `10.11.6`; anything odd is sanitised and shortened.
fn short_version(v: &str) -> String {
    let v = sanitize(v, 64);
    let head = v.split('-').next().unwrap_or("");
    if head.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        head.to_string()
    } else {
        truncate(&v, 24)
    }
}

fn interval(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// A sample's time of day as the header shows it (UTC, like every time innodebt prints).
fn clock_time(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%H:%M:%S UTC").to_string()
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    fn header_text(app: &App) -> String {
        let mut t = Terminal::new(TestBackend::new(160, 1)).unwrap();
        let theme = Theme::default();
        t.draw(|f| render(f, f.area(), app, &theme)).unwrap();
        let buf = t.backend().buffer();
        (0..buf.area.width)
            .map(|x| buf[(x, 0)].symbol().to_string())
            .collect()
    }

    /// 2026-11-01 12:00:00 UTC plus `s` seconds.
    fn noon_plus(s: i64) -> chrono::DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
            .single()
            .expect("a valid time")
            + chrono::Duration::seconds(s)
    }

    #[test]
    fn countdown_then_retrying_while_the_attempt_runs() {
        let now = noon_plus(10);
        let mut app = App::new(Duration::from_secs(1), now);
        app.live.link = Link::Disconnected {
            since: now - chrono::Duration::seconds(10),
            retry_at: now + chrono::Duration::milliseconds(2500),
            error: "connection lost".into(),
        };
        assert!(header_text(&app).contains("DISCONNECTED · retry in 3s"));
        // Past the countdown the connect attempt itself is waiting (--connect-timeout).
        app.now = now + chrono::Duration::seconds(4);
        let text = header_text(&app);
        assert!(text.contains("DISCONNECTED · retrying…"), "{text}");
        assert!(!text.contains("retry in 0s"), "{text}");
    }

    /// The resize note and the latency guard's note together (a restart with a larger log on
    /// a loaded server): the resize is whole, the guard's note cut after it, at 160 columns
    /// with a long server label.
    #[test]
    fn a_redo_resize_outranks_the_latency_guard_in_the_header() {
        use crate::app::Msg;
        use innodebt_poller::cadence::{Cadenced, Slowed};
        use innodebt_server::sample::{
            PollCost, Sample, ServerInfo, SourceEvent, Statement, StatementCost,
        };
        let t0 = noon_plus(0);
        let connected = |mib: u64| SourceEvent::Connected {
            at: t0,
            info: ServerInfo {
                label: "localhost via socket /var/run/mysqld/mysqld-primary.sock".into(),
                ..ServerInfo::mariadb_10_11(&[
                    ("innodb_log_file_size", (mib << 20).to_string()),
                    ("innodb_page_size", "16384".into()),
                ])
            },
        };
        let sample = |t: i64, uptime: u64, slow: bool| {
            let mut s = Sample::new(t0 + chrono::Duration::seconds(t), t as f64);
            s.status.insert("Uptime".into(), uptime);
            s.status.insert("Innodb_lsn_current".into(), 1_002_000_000);
            s.status
                .insert("Innodb_lsn_last_checkpoint".into(), 1_000_000_000);
            s.cost = Some(PollCost {
                statements: vec![StatementCost {
                    what: Statement::InnodbStatus,
                    us: 313_000,
                }],
                slowed: slow
                    .then_some(Slowed {
                        source: Cadenced::InnodbStatus,
                        every_ms: 20_000,
                        last_ms: Some(313),
                        timed_out: false,
                        recovering: false,
                    })
                    .into_iter()
                    .collect(),
            });
            SourceEvent::Sample(Box::new(s))
        };
        let mut app = App::new(Duration::from_secs(1), t0);
        app.update(Msg::Source(connected(16)));
        app.update(Msg::Source(sample(1, 100, false)));
        app.update(Msg::Source(connected(32)));
        app.update(Msg::Source(sample(20, 1, true)));
        app.now = t0 + chrono::Duration::seconds(21);
        let text = header_text(&app);
        assert!(
            text.contains("redo capacity changed 16.0 MiB → 32.0 MiB at 12:00:20 UTC"),
            "{text}"
        );
        assert!(text.contains("server slow"), "{text}");
    }
}
