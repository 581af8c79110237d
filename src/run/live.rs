//! Live modes: `--once` and the dashboard (with `--record`).

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use futures_util::FutureExt as _;

use tokio::sync::mpsc;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail, record};
use crate::app::{App, DataView};
use crate::cli::{Cli, ConnectOptions, OutputFormat};
use crate::metrics::Deriver;
use crate::output;
use crate::sample::SourceEvent;
use crate::source::connect::{self, ConnectError};
use crate::source::live::{self, ConnectFn, PollerCommand, PollerConfig, Session};
use crate::tui;

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
    let (tx, events) = mpsc::channel(256);
    let (commands, cmd_rx) = mpsc::channel(16);
    let task = tokio::spawn(live::run(Some(session), connector(opts), cfg, tx, cmd_rx));
    Polling {
        events,
        commands,
        task,
    }
}

pub(super) async fn main(cli: Cli) -> ExitCode {
    let opts = match resolve(&cli) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let cfg = poller_config(&cli, &opts);
    let theme = match super::theme(&cli) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let session = match first_session(&opts, &cfg).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    if cli.options.once {
        let deriver = Deriver::with_recovery(super::recovery_model(&cli));
        return once(session, deriver, &cfg, cli.options.format).await;
    }
    // Recording starts before the screen takes over, so a bad path is a plain message.
    let recorder = match &cli.options.record {
        Some(path) => match record::start(path, &session, &cfg, cli.options.record_queries) {
            Ok(r) => Some(r),
            Err(code) => return code,
        },
        None => None,
    };
    let polling = spawn_poller(session, opts.clone(), cfg.clone());
    let mut app = App::new(cfg.interval, chrono::Utc::now());
    app.live = DataView::new(Deriver::with_recovery(super::recovery_model(&cli)));
    app.read_only = cli.options.read_only;
    app.recording = cli
        .options
        .record
        .as_deref()
        .map(|p: &Path| p.display().to_string());
    let audit = match crate::control::AuditLog::open_default() {
        Ok(log) => Some(log),
        Err(e) => {
            eprintln!("innodebt: warning: {e}; runtime changes will not be audited");
            None
        }
    };
    let wiring = tui::Wiring {
        control: Some(tui::Control { opts, audit }),
        messages: None,
        events: polling.events,
        poller: Some(polling.commands),
        recorder: recorder.as_ref().map(|r| r.sender.clone()),
    };
    // A panic in the dashboard (a bug) must not cost the recording: the panic hook has
    // already restored the terminal and printed the message; finish the capture, then fail.
    let result = AssertUnwindSafe(tui::run(app, theme, wiring))
        .catch_unwind()
        .await;
    polling.task.abort();
    let summary = match recorder {
        Some(r) => Some(r.finish().await),
        None => None,
    };
    if let Some(Err(e)) = &summary {
        return fail(EXIT_FAILURE, e);
    }
    if let Some(Ok(s)) = &summary {
        eprintln!("innodebt: {s}");
    }
    match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => fail(EXIT_FAILURE, format!("{e:#}")),
        Err(_) => fail(
            EXIT_FAILURE,
            format!(
                "the dashboard stopped on an internal error (a bug; the message is above — \
                 please report it){}",
                if summary.is_some() {
                    "; the capture was finished and is complete up to that moment"
                } else {
                    ""
                }
            ),
        ),
    }
}

/// Two samples `--interval` apart, derived and printed once.
async fn once(
    mut session: Session,
    mut deriver: Deriver,
    cfg: &PollerConfig,
    format: OutputFormat,
) -> ExitCode {
    let started = Instant::now();
    deriver.push(&SourceEvent::Connected {
        at: chrono::Utc::now(),
        info: session.info.clone(),
    });
    let label = session.info.label.clone();
    let mut figures = None;
    for first in [true, false] {
        if !first {
            tokio::time::sleep(cfg.interval).await;
        }
        match session.poll(cfg, started, first, false).await {
            Ok(s) => figures = deriver.push_sample(&s),
            Err(e) => return fail(EXIT_FAILURE, format!("{label}: connection lost: {e}")),
        }
    }
    let Some(figures) = figures else {
        return fail(EXIT_FAILURE, "no figures derived");
    };
    print_figures(&figures, format);
    ExitCode::SUCCESS
}

pub(super) fn print_figures(figures: &crate::metrics::Figures, format: OutputFormat) {
    match format {
        OutputFormat::Json => println!("{}", output::json(figures)),
        OutputFormat::Text => print!("{}", output::text(figures)),
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
