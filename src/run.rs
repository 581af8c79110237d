//! The modes behind the command line: headless `--once`, the live dashboard, and the
//! subcommands. Errors end here as one clear line on stderr and an exit code.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use crate::app::App;
use crate::cli::{Cli, ConnectOptions, OutputFormat};
use crate::metrics::Deriver;
use crate::output;
use crate::sample::SourceEvent;
use crate::source::connect;
use crate::source::live::{self, ConnectFn, PollerConfig, Session};
use crate::theme::Theme;
use crate::tui;

/// Exit codes: 0 fine, 1 runtime failure, 2 bad usage/configuration, ≥ 3 connection classes.
const EXIT_FAILURE: u8 = 1;
const EXIT_CONFIG: u8 = 2;

pub async fn main(cli: Cli) -> ExitCode {
    if cli.command.is_some() || cli.options.demo {
        return fail(
            EXIT_CONFIG,
            "this mode is not available in this build yet".to_string(),
        );
    }
    live_main(cli).await
}

fn fail(code: u8, message: String) -> ExitCode {
    crate::term::restore();
    eprintln!("innodebt: {message}");
    ExitCode::from(code)
}

fn poller_config(cli: &Cli, opts: &ConnectOptions) -> PollerConfig {
    PollerConfig {
        interval: cli.options.interval,
        innodb_status_every: cli.options.innodb_status_interval,
        undo_scan_every: cli.options.undo_scan_interval.period(),
        query_timeout: cli.options.query_timeout,
        label: opts.label(),
        ..PollerConfig::default()
    }
}

/// Connect once up front so that a wrong password or socket is a clear message and an exit
/// code, not a dashboard stuck retrying.
async fn first_session(opts: &ConnectOptions, cfg: &PollerConfig) -> Result<Session, ExitCode> {
    let conn = match connect::connect(opts).await {
        Ok(c) => c,
        Err(e) => {
            let code = u8::try_from(e.exit_code()).unwrap_or(EXIT_FAILURE);
            return Err(fail(code, e.to_string()));
        }
    };
    Session::open(conn, cfg)
        .await
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", opts.label())))
}

fn connector(opts: ConnectOptions) -> ConnectFn {
    let opts = Arc::new(opts);
    Arc::new(move || {
        let opts = Arc::clone(&opts);
        Box::pin(async move { connect::connect(&opts).await.map_err(|e| e.to_string()) })
    })
}

async fn live_main(cli: Cli) -> ExitCode {
    let resolved = match cli.connect_options() {
        Ok(r) => r,
        Err(e) => return fail(EXIT_CONFIG, e.to_string()),
    };
    for w in &resolved.warnings {
        eprintln!("innodebt: warning: {w}");
    }
    let opts = resolved.options;
    let cfg = poller_config(&cli, &opts);
    let theme = if cli.no_color() {
        Theme::monochrome()
    } else {
        match Theme::load(&cli.options.theme) {
            Ok(t) => t,
            Err(e) => return fail(EXIT_CONFIG, e.to_string()),
        }
    };
    let session = match first_session(&opts, &cfg).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    if cli.options.once {
        return once(session, &cfg, cli.options.format).await;
    }

    let (tx, rx) = mpsc::channel(256);
    let (cmd_tx, cmd_rx) = mpsc::channel(16);
    let poller = tokio::spawn(live::run(
        Some(session),
        connector(opts),
        cfg.clone(),
        tx,
        cmd_rx,
    ));
    let mut app = App::new(cfg.interval, chrono::Utc::now());
    app.read_only = cli.options.read_only;
    let wiring = tui::Wiring {
        events: rx,
        poller: Some(cmd_tx),
        recorder: None,
    };
    let result = tui::run(app, theme, wiring).await;
    poller.abort();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}

/// Two samples `--interval` apart, derived and printed once.
async fn once(mut session: Session, cfg: &PollerConfig, format: OutputFormat) -> ExitCode {
    let started = Instant::now();
    let mut deriver = Deriver::new();
    deriver.push(&SourceEvent::Connected {
        at: chrono::Utc::now(),
        info: session.info.clone(),
    });
    let label = session.info.label.clone();
    let first = match session.poll(cfg, started, true, false).await {
        Ok(s) => s,
        Err(e) => return fail(EXIT_FAILURE, format!("{label}: connection lost: {e}")),
    };
    deriver.push_sample(&first);
    tokio::time::sleep(cfg.interval).await;
    let second = match session.poll(cfg, started, false, false).await {
        Ok(s) => s,
        Err(e) => return fail(EXIT_FAILURE, format!("{label}: connection lost: {e}")),
    };
    let Some(figures) = deriver.push_sample(&second) else {
        return fail(EXIT_FAILURE, "no figures derived".to_string());
    };
    match format {
        OutputFormat::Json => println!("{}", output::json(&figures)),
        OutputFormat::Text => print!("{}", output::text(&figures)),
    }
    ExitCode::SUCCESS
}
