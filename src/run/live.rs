//! Live modes: `--once` and the dashboard (with `--record`).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail, record};
use crate::app::{App, DataView};
use crate::cli::{Cli, ConnectOptions, OutputFormat};
use crate::metrics::Deriver;
use crate::output;
use crate::sample::SourceEvent;
use crate::source::connect;
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

pub(super) fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move { connect::connect(&opts).await.map_err(|e| e.to_string()) })
    })
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
    let result = tui::run(app, theme, wiring).await;
    polling.task.abort();
    let summary = match recorder {
        Some(r) => Some(r.finish().await),
        None => None,
    };
    if let Some(Err(e)) = &summary {
        return fail(EXIT_FAILURE, e);
    }
    if let Some(Ok(s)) = summary {
        eprintln!("innodebt: {s}");
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
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
