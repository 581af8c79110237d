//! One way to run a target, for the dashboard, `serve` and `fleet`: connect (and reconnect
//! with a capped backoff), poll on the target's cadence, and derive each event's figures once
//! — [`spawn_target`]. The poller is its own task; the derivation runs where the events are
//! read ([`DerivedEvents::next`]), so the caller's task owns its figures and no task is added.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_poller::connect::{self, ConnectOptions};
use innodebt_poller::live::{self, ConnectFn, PollerCommand, PollerConfig, Session};
use innodebt_server::sample::SourceEvent;

/// How to run one target.
pub struct TargetSpec {
    /// An open session when the caller connected first (the dashboard, so a wrong password is
    /// a message before the screen opens); else the poller connects.
    pub first: Option<Session>,
    /// How the poller (re)connects ([`connector`], or words of the caller's own).
    pub connect: ConnectFn,
    pub cfg: PollerConfig,
    /// Derives each sample's figures; `None` where the reader derives itself (the dashboard's
    /// app, whose view a replay rebuilds from a capture by the same path).
    pub deriver: Option<Deriver>,
    /// Events buffered between the poller and the reader.
    pub events: usize,
    /// Commands buffered towards the poller.
    pub commands: usize,
    /// Wait this long before the first connect: `serve` spreads a large fleet's first polls
    /// over one interval so they do not all fire at once.
    pub start_after: std::time::Duration,
}

/// A running target: its derived events, the way to steer its poller, and the poller task
/// (abort it, or drop every command sender, to stop).
pub struct Target {
    pub feed: DerivedEvents,
    pub commands: mpsc::Sender<PollerCommand>,
    pub poller: JoinHandle<()>,
}

/// One event of the target and, for a sample, its figures (derived once, here).
#[derive(Debug)]
pub struct Derived {
    pub event: SourceEvent,
    pub figures: Option<Figures>,
}

/// The target's events in order, each derived as it is read.
pub struct DerivedEvents {
    events: mpsc::Receiver<SourceEvent>,
    deriver: Option<Deriver>,
}

impl DerivedEvents {
    /// The next event with its figures; `None` once the poller has stopped. Cancel-safe.
    pub async fn next(&mut self) -> Option<Derived> {
        let event = self.events.recv().await?;
        let figures = self.deriver.as_mut().and_then(|d| d.push(&event));
        Some(Derived { event, figures })
    }

    /// The raw events, for a reader that derives them itself (see [`TargetSpec::deriver`]).
    pub fn into_events(self) -> mpsc::Receiver<SourceEvent> {
        self.events
    }
}

/// Starts the poller of one target.
pub fn spawn_target(spec: TargetSpec) -> Target {
    let (tx, events) = mpsc::channel(spec.events);
    let (commands, cmd_rx) = mpsc::channel(spec.commands);
    let start_after = spec.start_after;
    let poller = tokio::spawn(async move {
        if !start_after.is_zero() {
            tokio::time::sleep(start_after).await;
        }
        live::run(spec.first, spec.connect, spec.cfg, tx, cmd_rx).await;
    });
    Target {
        feed: DerivedEvents {
            events,
            deriver: spec.deriver,
        },
        commands,
        poller,
    }
}

/// Connects with the server's own words on failure: what `innodebt_last_error`, the fleet
/// row and the log show (no credentials in them).
pub fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move { connect::connect(&opts).await.map_err(|e| e.to_string()) })
    })
}
