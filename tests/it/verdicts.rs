//! The verdicts against a real server: the project's own poller and derivation feed a
//! `VerdictEngine` while a private MariaDB runs write load and a REPEATABLE READ snapshot
//! blocks purge. The blocker must be named (its thread id in the message), the purge-lag
//! setting must be called "armed" on MariaDB (it does not delay writes while purge is blocked),
//! and both must go once the snapshot commits. The recorded figures then replay into a fresh
//! engine with the same outcome — the shape the scenario tests from captures will take.

use crate::common;

use std::time::{Duration, Instant};

use common::watch::Watch;
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use innodebt_engine::verdicts::{Assessment, Severity, VerdictEngine, VerdictKind};

fn kinds(a: &Assessment) -> Vec<&'static str> {
    a.verdicts.iter().map(|v| v.kind.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_snapshot_is_named_and_the_purge_lag_setting_is_armed_on_mariadb() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 4, 200);
    let mut watch = Watch::open(&server).await;
    assert!(watch.flavor.is_mariadb());
    let tick = Duration::from_millis(500);

    // Load alone: no read-view verdict.
    let (_, calm, _) = watch.until(tick, Duration::from_secs(3), |_| false).await;
    assert!(
        calm.get(VerdictKind::BlockedByReadView).is_none(),
        "{:?}",
        calm.verdicts
    );

    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let thread = snapshot.thread_id();
    let (_, blocked, ok) = watch
        .until(tick, Duration::from_secs(40), |a| {
            a.get(VerdictKind::BlockedByReadView).is_some()
        })
        .await;
    assert!(
        ok,
        "no blocked_by_read_view within 40 s: {:?}",
        blocked.verdicts
    );
    let v = blocked
        .get(VerdictKind::BlockedByReadView)
        .expect("blocked");
    assert_eq!(v.thread_id, Some(thread));
    assert!(
        v.message.contains(&format!("thread {thread}")),
        "{}",
        v.message
    );
    assert!(v.message.contains("root@localhost"), "{}", v.message);
    eprintln!(
        "blocked after {:.1} s: {} — {}",
        (blocked.at - v.since).num_milliseconds() as f64 / 1000.0,
        kinds(&blocked).join(", "),
        v.message
    );

    // Arm the purge-lag throttle below the history the snapshot holds back.
    watch.set_purge_lag(&server, 100, 2000).await;
    let (_, trap, ok) = watch
        .until(tick, Duration::from_secs(20), |a| {
            a.get(VerdictKind::PurgeLagTrap).is_some()
        })
        .await;
    assert!(ok, "no purge_lag_trap within 20 s: {:?}", trap.verdicts);
    let t = trap.get(VerdictKind::PurgeLagTrap).expect("trap");
    // MariaDB: armed, not applied while blocked — a warning, not the MySQL critical.
    assert_eq!(t.severity, Severity::Warning);
    assert!(t.message.contains("armed"), "{}", t.message);
    assert!(t.message.contains("key l"), "{}", t.message);
    eprintln!("trap: {}", t.message);

    watch.set_purge_lag(&server, 0, 0).await;
    snapshot.commit().await;
    let committed = Instant::now();
    let (_, after, ok) = watch
        .until(tick, Duration::from_secs(30), |a| {
            a.get(VerdictKind::BlockedByReadView).is_none()
                && a.get(VerdictKind::PurgeLagTrap).is_none()
        })
        .await;
    assert!(
        ok,
        "verdicts did not leave after the commit: {:?}",
        after.verdicts
    );
    // Hysteresis: not before the 5 s leave time.
    assert!(
        committed.elapsed() >= Duration::from_secs(4),
        "{:?}",
        committed.elapsed()
    );
    eprintln!(
        "cleared {:.1} s after the commit: {}",
        committed.elapsed().as_secs_f64(),
        kinds(&after).join(", ")
    );
    let stats = load.stop().await;
    assert_eq!(stats.errors, 0, "{:?}", stats.last_error);

    // The recorded figures replay into the same verdicts (time from `sampled_at`).
    let mut fresh = VerdictEngine::default();
    let replayed = fresh.replay(&watch.recorded, watch.flavor);
    for kind in [VerdictKind::BlockedByReadView, VerdictKind::PurgeLagTrap] {
        assert!(
            replayed.iter().any(|a| a.get(kind).is_some()),
            "replay never showed {}",
            kind.as_str()
        );
    }
    assert!(
        replayed
            .last()
            .is_some_and(|a| a.get(VerdictKind::BlockedByReadView).is_none()),
        "replay must end unblocked"
    );
}
