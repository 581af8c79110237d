//! Verdict scenarios from a real recorded sequence: the shipped demo capture, recorded by
//! innodebt from MariaDB 10.11 under write load (see demo/record-demo.sh): a REPEATABLE READ
//! transaction blocks purge for ~120 s, checkpoint age crosses the async point, someone sets
//! innodb_max_purge_lag while purge is blocked and later resets it, then the blocker commits.

use chrono::{DateTime, Utc};
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::{Severity, VerdictKind};

fn figures() -> Vec<Figures> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    let cap = innodebt_capture::open(path).expect("demo capture");
    let mut d = Deriver::new();
    cap.events.iter().filter_map(|e| d.push(e)).collect()
}

fn has(f: &Figures, kind: VerdictKind) -> bool {
    f.verdicts.iter().any(|v| v.kind == kind)
}

/// First and last sample time where `pred` holds.
fn span(fs: &[Figures], pred: impl Fn(&Figures) -> bool) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let hits: Vec<_> = fs
        .iter()
        .filter(|f| pred(f))
        .map(|f| f.sampled_at)
        .collect();
    Some((*hits.first()?, *hits.last()?))
}

fn secs(a: DateTime<Utc>, b: DateTime<Utc>) -> f64 {
    (b - a).num_milliseconds() as f64 / 1000.0
}

/// When something first holds, as a sample index.
fn first(fs: &[Figures], pred: impl Fn(&Figures) -> bool) -> Option<usize> {
    fs.iter().position(pred)
}

#[test]
fn every_verdict_appears_in_the_real_recording_with_its_timing() {
    let fs = figures();
    assert!(fs.len() >= 200, "{} samples", fs.len());

    // Healthy before anything goes wrong.
    let blocker_from = first(&fs, |f| f.blocker.is_some()).expect("the blocker shows");
    assert!(
        fs[..blocker_from]
            .iter()
            .any(|f| has(f, VerdictKind::Healthy))
    );

    // Flush pressure: within two samples of checkpoint age reaching the async point.
    let past_async = |f: &Figures| matches!((f.redo.checkpoint_age_bytes, f.redo.async_point_bytes), (Some(a), Some(p)) if a >= p);
    let crossed = first(&fs, past_async).expect("checkpoint age crosses the async point");
    let pressure = first(&fs, |f| has(f, VerdictKind::FlushPressure)).expect("flush pressure");
    assert!(
        pressure >= crossed && pressure <= crossed + 2,
        "{crossed} → {pressure}"
    );

    // Blocked by a read view: named within a few polls, gone soon after the commit.
    let (b0, b1) = span(&fs, |f| f.blocker.is_some()).expect("blocker span");
    let (v0, v1) = span(&fs, |f| has(f, VerdictKind::BlockedByReadView)).expect("blocked verdict");
    assert!(
        secs(b0, v0) >= 0.0 && secs(b0, v0) <= 5.0,
        "named {}s after the blocker showed",
        secs(b0, v0)
    );
    assert!(
        secs(b1, v1) <= 7.0,
        "cleared {}s after the blocker went",
        secs(b1, v1)
    );
    let thread = fs[blocker_from]
        .blocker
        .as_ref()
        .and_then(|b| b.thread_id)
        .expect("thread id");
    let blocked = fs
        .iter()
        .find_map(|f| {
            f.verdicts
                .iter()
                .find(|v| v.kind == VerdictKind::BlockedByReadView)
        })
        .expect("verdict");
    assert!(
        blocked.message.contains(&format!("thread {thread}")),
        "{}",
        blocked.message
    );
    assert!(
        blocked.message.contains("report@localhost"),
        "{}",
        blocked.message
    );
    assert!(
        secs(b0, blocked.since).abs() <= 3.0,
        "since {} vs {b0}",
        blocked.since
    );

    // The purge-lag trap: innodb_max_purge_lag set while purge is blocked. MariaDB 10.11
    // doesn't apply the delay while blocked, so it is "armed" (a warning), not critical.
    let lag_on = |f: &Figures| f.purge.max_purge_lag.is_some_and(|l| l > 0) && f.blocker.is_some();
    let (l0, l1) = span(&fs, lag_on).expect("lag set while blocked");
    let (t0, t1) = span(&fs, |f| has(f, VerdictKind::PurgeLagTrap)).expect("trap verdict");
    assert!(
        secs(l0, t0) >= 0.0 && secs(l0, t0) <= 5.0,
        "trap {}s after",
        secs(l0, t0)
    );
    assert!(
        secs(l1, t1) <= 7.0,
        "trap left {}s after the lag was reset",
        secs(l1, t1)
    );
    let trap = fs
        .iter()
        .find_map(|f| {
            f.verdicts
                .iter()
                .find(|v| v.kind == VerdictKind::PurgeLagTrap)
        })
        .expect("verdict");
    assert_eq!(trap.severity, Severity::Warning);
    assert!(trap.message.contains("armed"), "{}", trap.message);

    // No alarm over nothing: in the opening minute history creeps up from ~190 by a few
    // undo logs a second with no blocker. With innodb_max_purge_lag off, 1,000,000 is days
    // away at that rate, so "purge too slow" never shows (it used to), and neither does it
    // right after the commit, when the growth is still the blocker's doing.
    assert!(
        fs[..blocker_from]
            .iter()
            .any(|f| f.history.growth_per_s.is_some_and(|g| g > 0.0)),
        "the opening minute has history creeping up"
    );
    assert!(
        !fs.iter().any(|f| has(f, VerdictKind::PurgeTooSlow)),
        "purge too slow over a slow creep: {:?}",
        fs.iter()
            .flat_map(|f| &f.verdicts)
            .find(|v| v.kind == VerdictKind::PurgeTooSlow)
    );
    assert!(
        fs[..blocker_from]
            .iter()
            .any(|f| has(f, VerdictKind::Healthy)),
        "healthy before the blocker"
    );

    // And healthy again once purge has caught up.
    let after = fs.iter().position(|f| f.sampled_at > b1).expect("after");
    let healthy = fs[after..]
        .iter()
        .find(|f| has(f, VerdictKind::Healthy))
        .expect("healthy again");
    assert!(
        secs(b1, healthy.sampled_at) <= 15.0,
        "{}s",
        secs(b1, healthy.sampled_at)
    );
    assert!(healthy.history.length.is_some_and(|h| h < 500));
}

#[test]
fn verdicts_are_notable_moments_in_the_replay() {
    use innodebt::app::moments::{self, MomentKind};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    let cap = innodebt_capture::open(path).expect("demo capture");
    let found = moments::find(&cap.events);
    for kind in [
        MomentKind::Verdict,
        MomentKind::BlockerAppeared,
        MomentKind::BlockerCleared,
        MomentKind::AsyncCrossed,
        MomentKind::HistoryPeak,
        MomentKind::PurgeStopped,
        MomentKind::PurgeResumed,
    ] {
        assert!(
            found.iter().any(|m| m.kind == kind),
            "{kind:?} missing: {found:#?}"
        );
    }
    assert!(found.iter().any(|m| m.label.contains("purge lag trap")));
}
