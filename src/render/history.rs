//! Panel 3, history list length: the undo logs purge still has to process, how fast that
//! grows, when `innodb_max_purge_lag` will be reached, and what holds history — the read view
//! or the open writes the verdict names, in the verdict's severity (`history.held_by`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::app::{App, Panel};
use crate::theme::{Severity, Theme, ThemeItem};
use innodebt_engine::figures::{Blocker, FigureId, Figures, HeldBy};
use innodebt_engine::units;
use innodebt_server::sample::SourceKind;

use super::chart::{Plot, Threshold, TimeChart, Unit, why_missing};
use super::flow::{Item, draw_lines, layout_text};
use crate::text::sanitize;
use innodebt_engine::units::{opt, secs, signed_rate};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((inner, f)) = super::frame::open_panel(frame, area, Panel::History, app, theme) else {
        return;
    };
    let view = app.view();
    let h = &f.history;
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);

    let mut items = vec![
        Item::kv(
            theme,
            "length",
            opt(h.length, |l| units::count(l as f64)),
            text,
        ),
        Item::kv(theme, "growth", signed_rate(h.growth_per_s), text),
    ];
    let lag = f.purge.max_purge_lag.filter(|l| *l > 0);
    items.push(match lag {
        None => Item::kv(theme, "max_purge_lag", "off".into(), dim),
        Some(l) => match h.seconds_to_max_purge_lag.filter(|s| s.is_finite()) {
            Some(s) if s <= 0.0 => Item::new(vec![
                Span::styled(format!("max_purge_lag {l} "), dim),
                Span::styled(
                    format!("reached {}", theme.severity_symbol(Severity::Warning)),
                    theme.severity(Severity::Warning),
                ),
            ]),
            Some(s) => Item::new(vec![
                Span::styled(format!("max_purge_lag {l} in "), dim),
                Span::styled(secs(s), theme.severity(Severity::Warning)),
            ]),
            None => Item::new(vec![
                Span::styled(format!("max_purge_lag {l} "), dim),
                Span::styled("not nearing", text),
            ]),
        },
    });
    // Without INNODB_TRX nobody can tell whether a read view blocks purge: never "no blocker".
    let blocker = match Item::needs_privilege(f, &[FigureId::Blocker], "blocker unknown", theme) {
        Some(unknown) if f.blocker.is_none() => vec![unknown],
        _ => holder_items(f, theme),
    };
    let mut blocker = blocker.into_iter();
    if let Some(first) = blocker.next() {
        items.push(first.on_own_line());
    }
    items.extend(blocker);

    let (lines, text_area, chart) = layout_text(items, inner, true);
    draw_lines(frame.buffer_mut(), text_area, &lines);
    let Some(chart) = chart else { return };
    let mut thresholds: Vec<Threshold> = lag
        .map(|l| Threshold {
            value: l as f64,
            style: theme.style(ThemeItem::AsyncLine),
            label: "max_purge_lag".into(),
            soft: true,
        })
        .into_iter()
        .collect();
    // `replay --what-if innodb_max_purge_lag=N`: its lag as a second, dim line (a hypothesis,
    // not the server), drawn even far above the data: where it sits is the answer.
    let what_if_lag = app.what_if().and_then(|w| w.max_purge_lag());
    if let Some(l) = what_if_lag {
        thresholds.push(Threshold {
            value: l as f64,
            style: dim,
            label: format!("what if: max_purge_lag {}", units::count(l as f64)),
            soft: false,
        });
    }
    TimeChart {
        plots: &[Plot::new(
            &view.charts.history_length,
            theme.style(ThemeItem::SeriesHistory),
        )
        .missing(why_missing(
            app,
            f,
            "history length",
            &[FigureId::HistoryLength],
            &["trx_rseg_history_len"],
            theme,
        ))],
        thresholds: &thresholds,
        y_max: None,
        unit: Unit::Count,
    }
    .render(frame, chart, app, theme);
}

/// Who holds history, as the verdict names it (`history.held_by`, in its severity): `▲ blocker
/// 1m 01s thread 42` then `app@10.0.0.5: SELECT …` (two items, so the query goes on the next
/// line when narrow); `▲ held by open writes` `thread 6028 2m 00s (one of 50 open)`. Nothing holds
/// it: `no blocker`, and the oldest read view (which K kills) when there is one.
fn holder_items(f: &Figures, theme: &Theme) -> Vec<Item> {
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    match (&f.history.held_by, f.blocker.as_ref()) {
        (Some(HeldBy::ReadView { severity, .. }), Some(b)) => {
            let style = theme.severity(*severity);
            vec![
                Item::new(vec![
                    Span::styled(
                        format!("{} blocker ", theme.severity_symbol(*severity)),
                        style,
                    ),
                    Span::styled(units::duration(b.age_s), style),
                    Span::styled(" thread ", dim),
                    Span::styled(opt(b.thread_id, |t| t.to_string()), text),
                ]),
                session_item(b, theme),
            ]
        }
        (
            Some(HeldBy::OpenWrites {
                trx_id,
                thread_id,
                age_s,
                open,
                severity,
            }),
            _,
        ) => {
            let style = theme.severity(*severity);
            let who = match (thread_id, trx_id) {
                (Some(t), _) => format!("thread {t}"),
                (None, Some(id)) => format!("trx {}", sanitize(id, 40)),
                (None, None) => "a read-write trx".to_string(),
            };
            let mut spans = vec![Span::styled(who, text)];
            if let Some(a) = age_s {
                spans.push(Span::styled(format!(" {}", units::duration(*a)), style));
            }
            if let Some(n) = open.filter(|n| *n > 1) {
                spans.push(Span::styled(
                    format!(" (one of {} open)", units::count(n as f64)),
                    dim,
                ));
            }
            vec![
                Item::new(vec![Span::styled(
                    format!("{} held by open writes", theme.severity_symbol(*severity)),
                    style,
                )]),
                Item::new(spans),
            ]
        }
        (_, Some(b)) => vec![Item::new(vec![
            Span::styled("no blocker; oldest view ", dim),
            Span::styled(units::duration(b.age_s), text),
            Span::styled(" thread ", dim),
            Span::styled(opt(b.thread_id, |t| t.to_string()), text),
        ])],
        // INNODB_TRX not read (an import from a tool that records no idle transactions):
        // unknown, never "no blocker".
        (_, None) if f.refused(SourceKind::InnodbTrx).is_some() => {
            vec![Item::new(vec![Span::styled(
                "blocker unknown (INNODB_TRX not read)",
                theme.severity(Severity::Warning),
            )])]
        }
        (_, None) => vec![Item::new(vec![Span::styled("no blocker", dim)])],
    }
}

/// `app@10.0.0.5: SELECT …` of the blocking session.
fn session_item(b: &Blocker, theme: &Theme) -> Item {
    let dim = theme.style(ThemeItem::Dim);
    let text = theme.style(ThemeItem::Text);
    // The client port adds nothing the thread id doesn't already identify.
    let host = sanitize(b.host.as_deref().unwrap_or("?"), 64);
    let host = match host.rsplit_once(':') {
        Some((h, port))
            if !h.is_empty() && !port.is_empty() && port.bytes().all(|c| c.is_ascii_digit()) =>
        {
            h.to_string()
        }
        _ => host,
    };
    let who = format!("{}@{host}", sanitize(b.user.as_deref().unwrap_or("?"), 64));
    let doing = match b.query.as_deref().map(|q| sanitize(q, 300)) {
        Some(q) if !q.is_empty() => q,
        _ => match b.command.as_deref().map(|c| sanitize(c, 32)) {
            Some(c) if c == "Sleep" => "(idle in transaction)".to_string(),
            Some(c) if !c.is_empty() => format!("({c}, no statement)"),
            _ => "(no statement running)".to_string(),
        },
    };
    Item::new(vec![
        Span::styled(who, text),
        Span::styled(": ", dim),
        Span::styled(doing, text),
    ])
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::{TimeZone, Utc};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::style::Color;

    use super::*;
    use innodebt_engine::figures::{OldestRw, Severity};

    /// The History panel alone, 40×7, over `f` (fresh: sampled now).
    fn panel(f: Figures) -> (String, ratatui::buffer::Buffer) {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
            .single()
            .unwrap();
        let mut app = App::new(Duration::from_secs(1), now);
        app.live.latest = Some(Figures {
            sampled_at: now,
            ..f
        });
        let theme = Theme::default();
        let mut t = Terminal::new(TestBackend::new(40, 7)).unwrap();
        t.draw(|fr| render(fr, fr.area(), &app, &theme)).unwrap();
        let buf = t.backend().buffer().clone();
        let text = (0..buf.area.height)
            .map(|y| {
                let row: String = (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect();
                row.trim_end().to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
        (text, buf)
    }

    /// The colour of the first cell of `needle` in the panel.
    fn colour_at(text: &str, buf: &ratatui::buffer::Buffer, needle: &str) -> Option<Color> {
        let (y, line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not in\n{text}"));
        let x = line[..line.find(needle).unwrap()].chars().count();
        Some(buf[(x as u16, y as u16)].fg)
    }

    fn snapshot(name: &str, text: &str) {
        insta::with_settings!(
            { snapshot_path => "../../snapshots", prepend_module_to_snapshot => false },
            { insta::assert_snapshot!(name, text) }
        );
    }

    fn history(held_by: Option<HeldBy>) -> Figures {
        let mut f = Figures::default();
        f.history.length = Some(12_400);
        f.history.growth_per_s = Some(310.0);
        f.history.held_by = held_by;
        f.purge.max_purge_lag = Some(0);
        f
    }

    /// The verdict names a read view (`blocked_by_read_view`, critical): the panel names its
    /// session in the verdict's severity.
    #[test]
    fn the_panel_names_the_read_view_the_verdict_names() {
        let mut f = history(Some(HeldBy::ReadView {
            trx_id: "421".into(),
            thread_id: Some(42),
            age_s: 61,
            severity: Severity::Critical,
        }));
        f.blocker = Some(Blocker {
            trx_id: "421".into(),
            thread_id: Some(42),
            user: Some("app".into()),
            host: Some("10.0.0.5:5512".into()),
            age_s: 61,
            state: "RUNNING".into(),
            command: Some("Sleep".into()),
            ..Blocker::default()
        });
        let (text, buf) = panel(f);
        let theme = Theme::default();
        assert_eq!(
            colour_at(&text, &buf, "✖ blocker"),
            theme.severity(Severity::Critical).fg,
            "{text}"
        );
        snapshot("render_history_held_by_read_view_40x7", &text);
    }

    /// A sysbench case: 50 sessions each holding an open write, history past 10,000, the
    /// verdict `history_held_by_open_writes` naming thread 6028 — the panel must name it too,
    /// not say "no blocker".
    #[test]
    fn the_panel_names_the_open_writes_the_verdict_names() {
        let mut f = history(Some(HeldBy::OpenWrites {
            trx_id: Some("90210".into()),
            thread_id: Some(6028),
            age_s: Some(95),
            open: Some(50),
            severity: Severity::Warning,
        }));
        f.purge.open_rw_trx = Some(50);
        f.purge.oldest_rw = Some(OldestRw {
            trx_id: "90210".into(),
            thread_id: Some(6028),
            age_s: 95,
        });
        let (text, buf) = panel(f);
        assert!(!text.contains("no blocker"), "{text}");
        assert!(text.contains("thread 6028"), "{text}");
        assert!(text.contains("(one of 50 open)"), "{text}");
        assert_eq!(
            colour_at(&text, &buf, "▲ held by open writes"),
            Theme::default().severity(Severity::Warning).fg,
            "{text}"
        );
        snapshot("render_history_held_by_open_writes_40x7", &text);
    }

    /// A read view purge passes is no blocker: said in dim, with the session K would kill.
    #[test]
    fn a_read_view_purge_passes_is_no_blocker() {
        let mut f = history(None);
        f.blocker = Some(Blocker {
            trx_id: "421".into(),
            thread_id: Some(42),
            age_s: 8,
            ..Blocker::default()
        });
        let (text, buf) = panel(f);
        assert!(
            text.contains("no blocker; oldest view 8s thread 42"),
            "{text}"
        );
        assert_eq!(
            colour_at(&text, &buf, "no blocker"),
            Theme::default().style(ThemeItem::Dim).fg
        );
    }

    /// An import whose source records no idle transactions (Dolphie, mysqld_exporter): INNODB_TRX
    /// was not read, without a privilege to blame — the blocker is unknown, not "no blocker".
    #[test]
    fn an_unread_innodb_trx_is_no_claim_of_no_blocker() {
        let mut f = history(None);
        f.unavailable.push(innodebt_engine::figures::Unreadable {
            source: SourceKind::InnodbTrx,
            what: "information_schema.INNODB_TRX".into(),
            privilege: None,
            error: "not in Dolphie's file".into(),
            figures: vec![FigureId::Blocker],
        });
        let (text, buf) = panel(f);
        assert!(!text.contains("no blocker"), "{text}");
        assert!(text.contains("blocker unknown"), "{text}");
        assert_eq!(
            colour_at(&text, &buf, "blocker unknown"),
            Theme::default().severity(Severity::Warning).fg
        );
    }
}
