use chrono::DateTime;

use super::*;
use innodebt_engine::figures::{Blocker, FigureId, Missing, Unreadable, Verdict};
use innodebt_server::sample::SourceKind;

fn verdict(kind: VerdictKind, severity: Severity, message: &str) -> Verdict {
    Verdict {
        kind,
        severity,
        since: DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
        message: message.into(),
        thread_id: None,
        clearing: false,
        missing: Vec::new(),
    }
}

fn healthy() -> Figures {
    let mut f = Figures {
        verdicts: vec![verdict(
            VerdictKind::Healthy,
            Severity::Ok,
            "redo and purge keep up",
        )],
        ..Figures::default()
    };
    f.history.length = Some(120);
    f.redo.checkpoint_age_pct_of_capacity = Some(3.5);
    f
}

fn blocked() -> Figures {
    let mut f = healthy();
    f.verdicts = vec![
        verdict(
            VerdictKind::BlockedByReadView,
            Severity::Critical,
            "thread 42 (app@10.0.0.7 | batch) holds purge back",
        ),
        verdict(VerdictKind::PurgeLagTrap, Severity::Warning, "armed"),
    ];
    f.blocker = Some(Blocker {
        age_s: 312,
        thread_id: Some(42),
        ..Blocker::default()
    });
    f
}

#[test]
fn without_thresholds_the_worst_verdict_decides() {
    let none = PluginThresholds::default();
    let ok = judge(&healthy(), &none);
    assert_eq!((ok.state, ok.exit_code()), (Severity::Ok, 0));
    assert!(
        ok.render()
            .starts_with("INNODEBT OK: healthy: redo and purge keep up | ")
    );

    let crit = judge(&blocked(), &none);
    assert_eq!(crit.exit_code(), 2);
    let out = crit.render();
    let status = out.lines().next().unwrap_or_default();
    // The message's `|` would start the perfdata early: it is replaced.
    assert!(
        status.starts_with(
            "INNODEBT CRITICAL: blocked by read view (+1: purge lag trap): thread 42 (app@10.0.0.7 / batch) holds purge back | "
        ),
        "{status}"
    );
    assert_eq!(status.matches('|').count(), 1, "{status}");
    assert!(status.contains(" blocker_age=312s;;;0 "), "{status}");
    // Every verdict follows in full.
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        out.lines()
            .nth(2)
            .unwrap_or_default()
            .starts_with("warning purge lag trap since")
    );
}

#[test]
fn unknown_is_never_ok() {
    let mut f = healthy();
    f.verdicts = vec![Verdict {
        missing: vec![Missing::WatchingFor {
            have_s: 2.0,
            need_s: 10.0,
        }],
        ..verdict(VerdictKind::Unknown, Severity::Unknown, "still watching")
    }];
    assert_eq!(judge(&f, &PluginThresholds::default()).exit_code(), 3);
    // Thresholds that do not hold do not make it OK either.
    let t = PluginThresholds::parse(Some("history>1000"), None).unwrap();
    assert_eq!(judge(&f, &t).exit_code(), 3);
    // No verdict at all (nothing judged) is unknown too.
    let mut none = healthy();
    none.verdicts.clear();
    assert_eq!(judge(&none, &PluginThresholds::default()).exit_code(), 3);
}

#[test]
fn thresholds_decide_when_given() {
    let t = PluginThresholds::parse(
        Some("history>100,checkpoint_age_pct>50"),
        Some("blocker_age>300s"),
    )
    .unwrap();
    let warn = judge(&healthy(), &t);
    assert_eq!(warn.state, Severity::Warning);
    assert!(
        warn.summary.starts_with("history 120 > 100 · healthy"),
        "{}",
        warn.summary
    );
    assert!(
        warn.perfdata.contains("history=120;100;;0"),
        "{}",
        warn.perfdata
    );
    assert!(
        warn.perfdata.contains("blocker_age=0s;;300;0"),
        "{}",
        warn.perfdata
    );
    let crit = judge(&blocked(), &t);
    assert_eq!(crit.state, Severity::Critical);
    assert!(
        crit.summary.starts_with("blocker_age 312 > 300"),
        "{}",
        crit.summary
    );
    // A verdict the thresholds do not name does not raise the state: they decide.
    let quiet = PluginThresholds::parse(Some("history>100000"), None).unwrap();
    assert_eq!(judge(&blocked(), &quiet).state, Severity::Ok);
    // A verdict kind can be a threshold too.
    let kind = PluginThresholds::parse(None, Some("blocked_by_read_view")).unwrap();
    assert_eq!(judge(&blocked(), &kind).state, Severity::Critical);
}

#[test]
fn an_unreadable_figure_or_source_is_unknown_with_the_reason() {
    let mut f = healthy();
    f.redo.checkpoint_age_pct_of_capacity = None;
    let t = PluginThresholds::parse(Some("checkpoint_age_pct>75"), None).unwrap();
    let r = judge(&f, &t);
    assert_eq!(r.state, Severity::Unknown);
    assert!(
        r.summary.contains("checkpoint_age_pct unknown"),
        "{}",
        r.summary
    );
    assert!(
        r.perfdata.starts_with("checkpoint_age_pct=U;75;;0;100 "),
        "{}",
        r.perfdata
    );

    let mut f = healthy();
    f.unavailable.push(Unreadable {
        source: SourceKind::InnodbTrx,
        what: "information_schema.INNODB_TRX".into(),
        privilege: Some("PROCESS".into()),
        error: "Access denied".into(),
        figures: vec![FigureId::CheckpointAge],
    });
    let r = judge(&f, &PluginThresholds::default());
    assert_eq!(r.exit_code(), 3);
    assert!(
        r.summary
            .starts_with("information_schema.INNODB_TRX needs PROCESS privilege (GRANT PROCESS"),
        "{}",
        r.summary
    );
    // No blocker seen through a refused INNODB_TRX is no proof of none.
    assert!(r.perfdata.contains("blocker_age=U;"), "{}", r.perfdata);
}

#[test]
fn bad_expressions_name_their_flag() {
    let e = PluginThresholds::parse(Some("lsn>5"), None).unwrap_err();
    assert!(e.starts_with("--warning \"lsn>5\""), "{e}");
    let e = PluginThresholds::parse(None, Some("history>lots")).unwrap_err();
    assert!(e.starts_with("--critical"), "{e}");
    let r = Report::unknown("--critical \"history>lots\": not a number\nsecond line");
    assert_eq!(
        r.render(),
        "INNODEBT UNKNOWN: --critical \"history>lots\": not a number second line\n"
    );
}
