//! Each judgement made once: every reader of a sample's severity and of the blocker's age
//! (the exporter, the fleet row, the CSV, `check`, the incident timeline, the trigger) says
//! the same thing for the same figures. Each of these readers once had a rule of
//! its own and disagreed with the others.

use crate::common::openmetrics::{Scrape, parse};
use chrono::{TimeZone, Utc};
use innodebt::check;
use innodebt::export::{csv_columns, export_csv_figures};
use innodebt::fleet::row::RowFigures;
use innodebt::openmetrics::{Exposition, Format};
use innodebt::postmortem::timeline::TimelineBuilder;
use innodebt::trigger;
use innodebt_engine::figures::{Blocker, Figures, Severity, Unreadable, Verdict, VerdictKind};
use innodebt_server::sample::SourceKind;

fn verdict(kind: VerdictKind, severity: Severity) -> Verdict {
    Verdict {
        kind,
        severity,
        since: Utc.timestamp_opt(1_800_000_000, 0).unwrap(),
        message: String::new(),
        thread_id: None,
        clearing: false,
        missing: Vec::new(),
    }
}

fn figures(verdicts: Vec<Verdict>) -> Figures {
    Figures {
        sampled_at: Utc.timestamp_opt(1_800_000_000, 0).unwrap(),
        verdicts,
        ..Figures::default()
    }
}

/// The CSV row of `f` as column name → cell.
fn csv_cell(f: &Figures, column: &str) -> String {
    let mut out = Vec::new();
    export_csv_figures([Ok(f.clone())], &[], &mut out).expect("csv");
    let text = String::from_utf8(out).expect("utf-8");
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let row = rdr.records().next().expect("a row").expect("csv row");
    let at = csv_columns()
        .iter()
        .position(|c| *c == column)
        .expect("column");
    row[at].to_string()
}

fn scrape(f: &Figures) -> Scrape {
    let mut e = Exposition::new();
    e.add_figures(f, None);
    parse(&e.render(Format::OpenMetrics)).expect("parses")
}

/// The verdicts in any order (a warning listed before a critical): every reader takes the
/// worst, and an `unknown` beside `ok` is unknown everywhere.
#[test]
fn every_reader_takes_the_same_worst_severity() {
    let cases = [
        (
            vec![
                verdict(VerdictKind::PurgeTooSlow, Severity::Warning),
                verdict(VerdictKind::BlockedByReadView, Severity::Critical),
            ],
            Severity::Critical,
        ),
        (
            vec![verdict(VerdictKind::Unknown, Severity::Unknown)],
            Severity::Unknown,
        ),
        (
            vec![verdict(VerdictKind::Healthy, Severity::Ok)],
            Severity::Ok,
        ),
    ];
    for (verdicts, want) in cases {
        let f = figures(verdicts);
        assert_eq!(f.severity(), Some(want));
        let s = scrape(&f);
        assert_eq!(s.states_on("innodebt_severity"), [want.as_str()]);
        let row = RowFigures::from_figures(&f, None);
        assert_eq!(row.verdict.as_ref().map(|v| v.1), Some(want));
        assert_eq!(csv_cell(&f, "severity"), want.as_str());
        let report = check::judge(&f, &check::PluginThresholds::default());
        assert_eq!(report.state, want, "{}", report.summary);
        let mut tl = TimelineBuilder::default();
        tl.observe(&f);
        let tl = tl.finish(&[], &[]);
        assert_eq!(tl.stretches[0].severity, want);
    }
}

#[test]
fn severity_names_round_trip() {
    for s in Severity::ALL {
        assert_eq!(Severity::from_name(s.as_str()), Some(s));
    }
    assert_eq!(Severity::from_name("grave"), None);
}

/// No blocker with INNODB_TRX read is an age of 0; with INNODB_TRX refused it is unknown —
/// for the trigger (`blocker_age<…` never fires on what was not seen), the exporter, the fleet
/// row and the CSV alike (the CSV once left both empty, the trigger once said 0 for both).
#[test]
fn blocker_age_is_zero_when_read_and_unknown_when_refused() {
    let healthy = vec![verdict(VerdictKind::Healthy, Severity::Ok)];
    let read = figures(healthy.clone());
    let mut refused = figures(healthy.clone());
    refused.unavailable.push(Unreadable {
        source: SourceKind::InnodbTrx,
        what: "information_schema.INNODB_TRX".into(),
        privilege: Some("PROCESS".into()),
        error: "access denied".into(),
        figures: vec![],
    });
    let mut blocked = figures(healthy);
    blocked.blocker = Some(Blocker {
        trx_id: "42".into(),
        age_s: 75,
        ..Blocker::default()
    });
    let below = trigger::parse("blocker_age<10s").expect("parses");
    for (f, want) in [(&read, Some(0)), (&refused, None), (&blocked, Some(75))] {
        assert_eq!(f.blocker_age_s(), want);
        let wanted_f64 = want.map(|v| v as f64);
        let trigger_value = match &below[0] {
            trigger::Trigger::Threshold { figure, .. } => figure.value(f),
            other => panic!("{other:?}"),
        };
        assert_eq!(trigger_value, wanted_f64, "trigger");
        assert_eq!(
            trigger::first_holding(&below, f).is_some(),
            want.is_some_and(|a| a < 10),
            "an unseen blocker never triggers"
        );
        assert_eq!(
            scrape(f).value("innodebt_purge_blocker_age_seconds"),
            wanted_f64,
            "exporter"
        );
        assert_eq!(RowFigures::from_figures(f, None).blocker_age_s, want);
        assert_eq!(
            csv_cell(f, "blocker_age_s"),
            want.map(|v| v.to_string()).unwrap_or_default(),
            "csv"
        );
    }
}

/// Staleness judged once ([`staleness`]): at the limit the dashboard's header, serve's
/// `innodebt_up` and the fleet row all still take the sample as now, and a millisecond past it
/// all call it stale — at the refresh interval and at a tick the latency guard stretched. The
/// dashboard once called a sample stale at 3 s that serve kept up until 7 s, and the fleet
/// row never did.
#[test]
fn the_dashboard_serve_and_the_fleet_row_agree_on_staleness() {
    use std::time::Duration;

    use innodebt::app::{App, Freshness, Msg};
    use innodebt::fleet::row::RowLink;
    use innodebt::fleet::state::{self, Fleet, RowUpdate, Server};
    use innodebt_engine::verdicts::staleness;
    use innodebt_server::sample::{Cadenced, PollCost, Sample, Slowed, SourceEvent};

    let interval = Duration::from_secs(1);
    let t0 = Utc.timestamp_opt(1_800_000_000, 0).unwrap();
    for (stretched_ms, want_limit) in [(None, 3_000), (Some(8_000), 20_000)] {
        let mut app = App::new(interval, t0);
        let info = crate::common::builders::mariadb(&[]);
        app.update(Msg::Source(SourceEvent::Connected { at: t0, info }));
        let mut s = Sample::new(t0, 0.0);
        s.status.insert("Innodb_history_list_length".into(), 10);
        s.cost = Some(PollCost {
            statements: Vec::new(),
            slowed: stretched_ms
                .map(|every_ms| Slowed {
                    source: Cadenced::Tick,
                    every_ms,
                    last_ms: Some(900),
                    timed_out: false,
                    recovering: false,
                })
                .into_iter()
                .collect(),
        });
        app.update(Msg::Source(SourceEvent::Sample(Box::new(s))));
        let f = app.live.latest.clone().expect("figures of the sample");
        let limit = staleness::stale_after(staleness::due_every(interval, Some(&f)));
        assert_eq!(limit, Duration::from_millis(want_limit));
        let ms = Duration::from_millis(1);
        for (age, stale) in [(limit - ms, false), (limit, false), (limit + ms, true)] {
            let at = t0 + chrono::Duration::from_std(age).unwrap();
            app.update(Msg::Tick(at));
            let dashboard = matches!(app.freshness(), Freshness::Stale { .. });
            let serve = !innodebt::serve::target::up(true, Some(age), interval, Some(&f));
            let mut fleet = Fleet::new(vec![Server::new("db", "db:3306", true)], t0);
            fleet.update(state::Msg::Row {
                index: 0,
                update: RowUpdate::figures(&f, interval, None),
            });
            fleet.update(state::Msg::Tick(at));
            let row = matches!(fleet.servers[0].link, RowLink::Down { .. });
            assert_eq!(
                (dashboard, serve, row),
                (stale, stale, stale),
                "dashboard, serve, fleet row at {age:?} (limit {limit:?})"
            );
        }
    }
}
