//! The modes behind the command line: headless `--once`, the monitoring-plugin `check`, the
//! live dashboard (optionally recording), headless recording, replay, import, export, report.
//! Errors end here as one clear line on stderr and an exit code; nothing below this module
//! prints.

mod assets;
mod captures;
mod check;
mod import;
mod live;
mod postmortem;
mod prometheus;
mod record;
mod report;
mod session;

use std::path::Path;
use std::process::ExitCode;

use crate::cli::{Cli, Command, ImportSource};
use crate::config::{Config, Mode, Process};
pub(crate) use crate::mode::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::replay::CaptureSet;

pub async fn main(cli: Cli) -> ExitCode {
    let check = matches!(cli.command, Some(Command::Check(_)));
    if let Some(message) = cli.unused_option() {
        return if check {
            check_unknown(&format!("{message} (innodebt check --help)"))
        } else {
            fail(EXIT_CONFIG, message)
        };
    }
    let config = match Config::resolve(cli, &mut Process) {
        Ok(c) => c,
        Err(e) if check => return check_unknown(&e),
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    // Now, before any full-screen mode.
    for w in &config.warnings {
        eprintln!("innodebt: warning: {w}");
    }
    let c = &config;
    match &config.mode {
        Mode::Demo { output } => captures::demo(c, *output).await,
        Mode::Prometheus { source, output } => prometheus::main(c, source, *output).await,
        Mode::Live {
            connection,
            output,
            record,
        } => live::main(c, connection, *output, record.as_deref()).await,
        Mode::Record(r) => match &r.triggered {
            None => record::headless(c, r).await,
            Some(t) => record::triggered(c, r, t).await,
        },
        Mode::Replay(r) => {
            if r.what_if.is_empty() {
                captures::main(c, r).await
            } else {
                postmortem::what_if(c, r).await
            }
        }
        Mode::Compare(cmp) => postmortem::compare(c, cmp).await,
        Mode::Import(ImportSource::PtStalk {
            dir,
            prefix,
            output,
        }) => captures::import_pt_stalk(dir, prefix.as_deref(), output),
        Mode::Import(source @ ImportSource::Prometheus { .. }) => import::prometheus(source).await,
        Mode::Import(ImportSource::Dolphie { file, output }) => import::dolphie(file, output),
        Mode::Export(e) => captures::export(c, e),
        Mode::Report(r) => report::main(c, r),
        Mode::Serve(settings) => crate::serve::main(&c.poll, &c.judging.deriver(), settings).await,
        Mode::Fleet(fleet) => crate::fleet::main(c, fleet).await,
        Mode::Check(chk) => check::main(c, chk).await,
        Mode::CalibrateRecovery { error_log } => captures::calibrate(error_log),
        Mode::Completions { shell } => assets::completions(*shell),
        Mode::Man { page, out_dir } => assets::man(page.as_deref(), out_dir.as_deref()),
    }
}

/// A monitoring system reads 2 as CRITICAL: the check's usage errors are UNKNOWN, on its
/// status line, as clap's are (`cli::usage_error_status`).
fn check_unknown(message: &str) -> ExitCode {
    let report = crate::check::Report::unknown(message);
    if let Err(e) = crate::mode::write_stdout(&report.render()) {
        eprintln!("innodebt: {e}");
    }
    ExitCode::from(report.exit_code())
}

/// A capture file, a directory of captures or a pt-stalk directory, through its index, judged
/// with the configured settings.
fn open_capture(config: &Config, path: &Path) -> Result<CaptureSet, String> {
    crate::replay::open_replay(path, config.judging.recovery.clone())
        .map(|s| s.with_sizing_span(config.judging.sizing_span))
}
