//! The verdicts against a real server: the project's own poller and derivation feed a
//! `VerdictEngine` while a private MariaDB runs write load and a REPEATABLE READ snapshot
//! blocks purge. The blocker must be named (its thread id in the message), the purge-lag
//! setting must be called "armed" on MariaDB (it does not delay writes while purge is blocked),
//! and both must go once the snapshot commits. The recorded figures then replay into a fresh
//! engine with the same outcome — the shape the scenario tests from captures will take.

mod common;

use std::time::{Duration, Instant};

use chrono::Utc;
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use innodebt::derive::Deriver;
use innodebt::figures::Figures;
use innodebt::sample::SourceEvent;
use innodebt::source::flavor::Flavor;
use innodebt::source::live::{PollerConfig, Session};
use innodebt::verdicts::{Assessment, Severity, VerdictEngine, VerdictKind};
use mysql_async::Conn;

/// Polls the server, derives figures and assesses them, keeping what it saw.
struct Watch {
    session: Session,
    cfg: PollerConfig,
    started: Instant,
    deriver: Deriver,
    engine: VerdictEngine,
    flavor: Flavor,
    recorded: Vec<Figures>,
}

impl Watch {
    async fn open(server: &PrivateServer) -> Watch {
        let cfg = PollerConfig {
            label: "private test server".into(),
            ..PollerConfig::default()
        };
        let conn = Conn::new(server.opts()).await.expect("connect");
        let session = Session::open(conn, &cfg).await.expect("session");
        let mut deriver = Deriver::new();
        deriver.push(&SourceEvent::Connected {
            at: Utc::now(),
            info: session.info.clone(),
        });
        let flavor = session.flavor();
        Watch {
            session,
            cfg,
            started: Instant::now(),
            deriver,
            engine: VerdictEngine::default(),
            flavor,
            recorded: Vec::new(),
        }
    }

    /// Re-reads the variables now (after a SET GLOBAL).
    async fn refresh_variables(&mut self) {
        if let Some(variables) = self
            .session
            .changed_variables(&self.cfg, true)
            .await
            .expect("variables")
        {
            self.deriver.push(&SourceEvent::Variables {
                at: Utc::now(),
                variables,
            });
        }
    }

    async fn tick(&mut self) -> Assessment {
        let sample = self
            .session
            .poll(&self.cfg, self.started, false, false)
            .await
            .expect("poll");
        let figures = self.deriver.push_sample(&sample).expect("figures");
        let a = self.engine.observe(sample.mono_s, &figures, self.flavor);
        self.recorded.push(figures);
        a
    }

    /// Ticks every `every` until `done` holds or `limit` passes; returns the last assessment.
    async fn until(
        &mut self,
        every: Duration,
        limit: Duration,
        done: impl Fn(&Assessment) -> bool,
    ) -> (Assessment, bool) {
        let deadline = Instant::now() + limit;
        loop {
            let a = self.tick().await;
            if done(&a) {
                return (a, true);
            }
            if Instant::now() > deadline {
                return (a, false);
            }
            tokio::time::sleep(every).await;
        }
    }
}

fn kinds(a: &Assessment) -> Vec<&'static str> {
    a.verdicts.iter().map(|v| v.kind.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_snapshot_is_named_and_the_purge_lag_setting_is_armed_on_mariadb() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::start(server.opts(), 4);
    let mut watch = Watch::open(&server).await;
    assert!(watch.flavor.is_mariadb());
    let tick = Duration::from_millis(500);

    // Load alone: no read-view verdict.
    let (calm, _) = watch.until(tick, Duration::from_secs(3), |_| false).await;
    assert!(
        calm.get(VerdictKind::BlockedByReadView).is_none(),
        "{:?}",
        calm.verdicts
    );

    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let thread = snapshot.thread_id();
    let (blocked, ok) = watch
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
    server
        .sql("SET GLOBAL innodb_max_purge_lag = 100, GLOBAL innodb_max_purge_lag_delay = 2000")
        .await;
    watch.refresh_variables().await;
    let (trap, ok) = watch
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

    server
        .sql("SET GLOBAL innodb_max_purge_lag = 0, GLOBAL innodb_max_purge_lag_delay = 0")
        .await;
    watch.refresh_variables().await;
    snapshot.commit().await;
    let committed = Instant::now();
    let (after, ok) = watch
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
