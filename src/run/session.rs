//! Getting to the server for the live modes (dashboard, `--once`, headless recording):
//! connection options resolved with their warnings, the first connection (a clear message and
//! an exit code when it fails), and the poller task with its reconnects.

use std::process::ExitCode;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::cli::Cli;
use innodebt_poller::connect::ConnectOptions;
use innodebt_poller::connect::{self, ConnectError};
use innodebt_poller::live::{ConnectFn, PollerCommand, PollerConfig, Session};
use innodebt_server::sample::SourceEvent;

pub(super) fn poller_config(cli: &Cli, opts: &ConnectOptions) -> PollerConfig {
    PollerConfig {
        interval: cli.options.interval,
        innodb_status_every: cli.options.innodb_status_interval,
        undo_scan_every: cli.options.undo_scan_interval.period(),
        query_timeout: cli.options.query_timeout,
        label: opts.label(),
        ..PollerConfig::default()
    }
}

/// Flags + option files + environment → connection options (warnings go to stderr now,
/// before any full-screen mode).
pub(super) fn resolve(cli: &Cli) -> Result<ConnectOptions, ExitCode> {
    let resolved = cli.connect_options().map_err(|e| fail(EXIT_CONFIG, e))?;
    for w in &resolved.warnings {
        eprintln!("innodebt: warning: {w}");
    }
    Ok(resolved.options)
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

/// How the poller reconnects after losing the server. Its errors are what the DISCONNECTED
/// badge shows, so the ones a DBA can act on lead with the cause and the fix.
pub(super) fn connector(opts: ConnectOptions) -> ConnectFn {
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
            "access denied — password changed? Restart innodebt with the new one (-p); \
             retrying meanwhile. {e}"
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

/// The poller task plus the app's ends of its channels.
pub(super) struct Polling {
    pub events: mpsc::Receiver<SourceEvent>,
    pub commands: mpsc::Sender<PollerCommand>,
    pub task: tokio::task::JoinHandle<()>,
}

pub(super) fn spawn_poller(session: Session, opts: ConnectOptions, cfg: PollerConfig) -> Polling {
    let target = crate::target::spawn_target(crate::target::TargetSpec {
        first: Some(session),
        connect: connector(opts),
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
                "access denied — password changed? Restart innodebt with the new one (-p)"
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
