//! The project's own poller, derivation and verdict engine on one connection to a private
//! server: what the dashboard would see, tick by tick, for tests that drive a real server
//! (a read view holding purge back, the purge-lag settings changed under it).

use std::time::{Duration, Instant};

use chrono::Utc;
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::{Assessment, VerdictEngine};
use innodebt_poller::live::{PollerConfig, Session};
use innodebt_server::flavor::Flavor;
use innodebt_server::sample::SourceEvent;
use mysql_async::Conn;

use super::server::PrivateServer;

/// Polls the server, derives figures and assesses them, keeping every figure it saw.
pub struct Watch {
    pub session: Session,
    pub cfg: PollerConfig,
    started: Instant,
    deriver: Deriver,
    engine: VerdictEngine,
    pub flavor: Flavor,
    /// Every tick's figures, oldest first (to replay into a fresh engine).
    pub recorded: Vec<Figures>,
}

impl Watch {
    pub async fn open(server: &PrivateServer) -> Watch {
        let cfg = PollerConfig {
            label: "private test server".into(),
            ..PollerConfig::default()
        };
        let conn = Conn::new(server.opts())
            .await
            .expect("connect to the private server");
        let session = Session::open(conn, &cfg)
            .await
            .expect("open a poller session");
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
    pub async fn refresh_variables(&mut self) {
        if let Some(variables) = self
            .session
            .changed_variables(&self.cfg, true)
            .await
            .expect("re-read the variables")
        {
            self.deriver.push(&SourceEvent::Variables {
                at: Utc::now(),
                variables,
            });
        }
    }

    /// `SET GLOBAL innodb_max_purge_lag = lag, innodb_max_purge_lag_delay = delay_us`, then
    /// the variables re-read, so the next tick judges under them.
    pub async fn set_purge_lag(&mut self, server: &PrivateServer, lag: u64, delay_us: u64) {
        server
            .sql(&format!(
                "SET GLOBAL innodb_max_purge_lag = {lag}, GLOBAL innodb_max_purge_lag_delay = {delay_us}"
            ))
            .await;
        self.refresh_variables().await;
    }

    /// One poll: its figures and the engine's assessment of them.
    pub async fn tick(&mut self) -> (Figures, Assessment) {
        let sample = self
            .session
            .poll(&self.cfg, self.started, false, false)
            .await
            .expect("poll the private server");
        let figures = self.deriver.push_sample(&sample).expect("figures");
        let a = self.engine.observe(sample.mono_s, &figures, self.flavor);
        self.recorded.push(figures.clone());
        (figures, a)
    }

    /// Ticks every `every` until `done` holds or `limit` passes; the last tick's figures and
    /// assessment, and whether `done` held.
    pub async fn until(
        &mut self,
        every: Duration,
        limit: Duration,
        done: impl Fn(&Assessment) -> bool,
    ) -> (Figures, Assessment, bool) {
        let deadline = Instant::now() + limit;
        loop {
            let (f, a) = self.tick().await;
            if done(&a) {
                return (f, a, true);
            }
            if Instant::now() > deadline {
                return (f, a, false);
            }
            super::wait::duration_is_the_point_async(
                every,
                "the poller's cadence: the verdicts judge the figures over time",
            )
            .await;
        }
    }
}
