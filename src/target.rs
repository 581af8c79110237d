//! One way to run a target, for the dashboard, `serve` and `fleet`: connect (and reconnect
//! with a capped backoff), poll on the target's cadence, and derive each event's figures once
//! — [`spawn_target`]. The poller is its own task; the derivation runs where the events are
//! read ([`DerivedEvents::next`]), so the caller's task owns its figures and no task is added.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_poller::connect::{self, ConnectError, ConnectOptions};
use innodebt_poller::live::{self, ConnectFn, PollerCommand, PollerConfig, Session};
use innodebt_server::sample::SourceEvent;

/// How to run one target.
pub struct PollerSpec {
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

    /// The raw events, for a reader that derives them itself (see [`PollerSpec::deriver`]).
    pub fn into_events(self) -> mpsc::Receiver<SourceEvent> {
        self.events
    }
}

/// Starts the poller of one target.
pub fn spawn_target(spec: PollerSpec) -> Target {
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

/// How every poller (the dashboard's, serve's, the fleet's) reconnects after losing the
/// server. Its errors are what the DISCONNECTED badge, the fleet row and
/// `innodebt_last_error` show, so the ones a DBA can act on lead with the cause and the fix
/// (no credentials in them).
pub fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move {
            connect::connect(&opts)
                .await
                .map_err(|e| reconnect_message(&e))
        })
    })
}

/// A reconnect failure in the words of someone who was connected a moment ago; the cause and
/// the fix come first, in the 80 columns the header gives an error.
fn reconnect_message(e: &ConnectError) -> String {
    match e {
        // It worked at start-up, so the account changed under us.
        ConnectError::AccessDenied { .. } => format!(
            "access denied — password changed? Restart innodebt with the new one; retrying \
             meanwhile. {e}"
        ),
        ConnectError::TooManyConnections { server_message, .. } => {
            let (whose, limit) = if server_message.contains("max_user_connections") {
                (" for this account", "max_user_connections")
            } else {
                ("", "max_connections")
            };
            format!(
                "too many connections{whose} ({limit} reached): close idle sessions or raise \
                 it; retrying until one is free. Server said: {server_message}"
            )
        }
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnect_failures_lead_with_the_cause_and_the_fix() {
        let denied = ConnectError::AccessDenied {
            target: "db1:3306".into(),
            user: "monitor".into(),
            using_password: true,
            plain_tcp: false,
            server_message: "Access denied for user 'monitor'@'10.0.0.2'".into(),
        };
        let m = reconnect_message(&denied);
        assert!(
            m.starts_with(
                "access denied — password changed? Restart innodebt with the new one; retrying"
            ),
            "{m}"
        );
        let full = ConnectError::TooManyConnections {
            target: "db1:3306".into(),
            server_message: "Too many connections".into(),
        };
        let m = reconnect_message(&full);
        assert!(
            m.starts_with("too many connections (max_connections reached): close idle sessions"),
            "{m}"
        );
        let per_user = ConnectError::TooManyConnections {
            target: "db1:3306".into(),
            server_message:
                "User monitor already has more than 'max_user_connections' active connections"
                    .into(),
        };
        assert!(
            reconnect_message(&per_user).starts_with(
                "too many connections for this account (max_user_connections reached)"
            )
        );
        let refused = ConnectError::Refused {
            target: "db1:3306".into(),
            port: 3306,
        };
        assert_eq!(reconnect_message(&refused), refused.to_string());
    }
}
