//! What every mode (the dashboard, `serve`, `fleet`, …) shares: how it ends on an error (one
//! clear line on stderr after the terminal is restored, and an exit code that says which kind
//! of failure it was), and the recovery model and theme the flags ask for. Below `run`, which
//! dispatches to `serve` and `fleet`: they use this, not `run`.

use std::process::ExitCode;

use crate::cli::Cli;
use crate::theme::Theme;

/// Exit codes: 0 fine, 1 runtime failure, 2 bad usage/configuration/input, ≥ 10 connection
/// failure classes (see `ConnectError::exit_code`).
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_CONFIG: u8 = 2;

pub fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    crate::term::restore();
    eprintln!("innodebt: {message}");
    ExitCode::from(code)
}

/// Headless output to standard output: a reader that went away (`| head`) ends it quietly,
/// where `print!` would panic on the broken pipe.
pub fn emit(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// `--recovery-rate` or the published default.
pub fn recovery_model(cli: &Cli) -> innodebt_engine::verdicts::RecoveryModel {
    cli.options
        .recovery_rate
        .and_then(|r| innodebt_engine::verdicts::RecoveryModel::with_rate(r as f64))
        .unwrap_or_else(innodebt_engine::verdicts::RecoveryModel::published_default)
}

/// A deriver with the reader's settings: `--recovery-rate` and `--sizing-span`.
pub fn deriver(cli: &Cli) -> innodebt_engine::derive::Deriver {
    innodebt_engine::derive::Deriver::with_recovery(recovery_model(cli))
        .with_sizing_span(cli.options.sizing_span)
}

/// `--theme` / `--no-color` / `NO_COLOR` → the theme, or a message naming the bad file.
pub fn theme(cli: &Cli) -> Result<Theme, ExitCode> {
    if cli.no_color() {
        return Ok(Theme::monochrome());
    }
    Theme::load(&cli.options.theme).map_err(|e| fail(EXIT_CONFIG, e))
}

/// The dashboard over what `app` holds already (a replay with its own transport, a
/// comparison): no live source, nothing arrives but keys.
pub async fn run_without_source(app: crate::app::App, theme: Theme) -> ExitCode {
    // The sender lives until the screen closes: the source channel stays open and empty.
    let (_tx, rx) = tokio::sync::mpsc::channel(1);
    let wiring = crate::tui::Wiring {
        control: None,
        events: rx,
        messages: None,
        poller: None,
        recorder: None,
        recording: None,
    };
    match crate::tui::run(app, theme, wiring).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}
