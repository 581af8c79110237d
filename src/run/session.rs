//! Getting to the server for the live modes (dashboard, `--once`, headless recording): the
//! poller's settings, the first connection (a clear message and an exit code when it fails),
//! and the poller task with its reconnects.

use std::process::ExitCode;

use tokio::sync::mpsc;

use super::{EXIT_FAILURE, fail};
use crate::config::Config;
use innodebt_poller::connect;
use innodebt_poller::connect::ConnectOptions;
use innodebt_poller::live::{PollerCommand, PollerConfig, Session};
use innodebt_server::sample::SourceEvent;

/// The configured poll of the server `opts` reaches.
pub(super) fn poller_config(config: &Config, opts: &ConnectOptions) -> PollerConfig {
    PollerConfig {
        label: opts.label(),
        ..config.poll.clone()
    }
}

/// Connect once up front so that a wrong password or socket is a clear message and an exit
/// code, not a screen stuck retrying.
pub(super) async fn first_session(
    opts: &ConnectOptions,
    cfg: &PollerConfig,
) -> Result<Session, ExitCode> {
    let conn = connect::connect(opts).await.map_err(|e| {
        let code = u8::try_from(e.exit_code()).unwrap_or(EXIT_FAILURE);
        fail(code, e)
    })?;
    Session::open(conn, cfg)
        .await
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", opts.label())))
}

/// The poller task plus the app's ends of its channels.
pub(super) struct Polling {
    pub events: mpsc::Receiver<SourceEvent>,
    pub commands: mpsc::Sender<PollerCommand>,
    pub task: tokio::task::JoinHandle<()>,
}

pub(super) fn spawn_poller(session: Session, opts: ConnectOptions, cfg: PollerConfig) -> Polling {
    let target = crate::target::spawn_target(crate::target::PollerSpec {
        first: Some(session),
        connect: crate::target::connector(opts),
        cfg,
        // The app derives: its view is rebuilt the same way from a capture in a replay.
        deriver: None,
        events: 256,
        commands: 16,
        start_after: std::time::Duration::ZERO,
    });
    Polling {
        events: target.feed.into_events(),
        commands: target.commands,
        task: target.poller,
    }
}
