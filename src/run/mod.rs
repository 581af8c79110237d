//! The modes behind the command line: headless `--once`, the live dashboard (optionally
//! recording), headless recording, replay, import, export. Errors end here as one clear line
//! on stderr and an exit code; nothing below this module prints.

mod live;
mod record;
mod replay;

use std::process::ExitCode;

use crate::cli::{Cli, Command, ImportSource};
use crate::theme::Theme;

/// Exit codes: 0 fine, 1 runtime failure, 2 bad usage/configuration/input, ≥ 10 connection
/// failure classes (see `ConnectError::exit_code`).
pub(crate) const EXIT_FAILURE: u8 = 1;
pub(crate) const EXIT_CONFIG: u8 = 2;

pub async fn main(cli: Cli) -> ExitCode {
    match &cli.command {
        None if cli.options.demo => replay::demo(&cli).await,
        None => live::main(cli).await,
        Some(Command::Record { file, duration }) => {
            record::headless(&cli, file.clone(), *duration).await
        }
        Some(Command::Replay {
            path,
            from,
            to,
            at,
            once,
            format,
        }) => {
            // `replay FILE --once --format json` and `--once --format json replay FILE` agree.
            let mut cli = cli.clone();
            cli.options.once |= *once;
            if let Some(f) = format {
                cli.options.format = *f;
            }
            replay::main(&cli, path, *from, *to, *at).await
        }
        Some(Command::Import {
            source:
                ImportSource::PtStalk {
                    dir,
                    prefix,
                    output,
                },
        }) => replay::import_pt_stalk(dir, prefix.as_deref(), output),
        Some(Command::Export { file, output, .. }) => replay::export_csv(file, output.as_deref()),
        Some(Command::CalibrateRecovery { error_log }) => replay::calibrate(error_log),
    }
}

pub(crate) fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    crate::term::restore();
    eprintln!("innodebt: {message}");
    ExitCode::from(code)
}

/// `--recovery-rate` or the published default.
pub(crate) fn recovery_model(cli: &Cli) -> crate::verdicts::RecoveryModel {
    cli.options
        .recovery_rate
        .and_then(|r| crate::verdicts::RecoveryModel::with_rate(r as f64))
        .unwrap_or_else(crate::verdicts::RecoveryModel::published_default)
}

/// `--theme` / `--no-color` / `NO_COLOR` → the theme, or a message naming the bad file.
pub(crate) fn theme(cli: &Cli) -> Result<Theme, ExitCode> {
    if cli.no_color() {
        return Ok(Theme::monochrome());
    }
    Theme::load(&cli.options.theme).map_err(|e| fail(EXIT_CONFIG, e))
}
