//! The modes behind the command line: headless `--once`, the monitoring-plugin `check`, the
//! live dashboard (optionally recording), headless recording, replay, import, export, report.
//! Errors end here as one clear line on stderr and an exit code; nothing below this module
//! prints.

mod assets;
mod captures;
mod check;
mod import;
mod live;
mod prometheus;
pub(crate) use prometheus::{
    feed as prometheus_feed, lookback as prometheus_lookback, moment as prometheus_moment,
};
mod record;
mod report;
mod review;
mod session;

use std::process::ExitCode;

use crate::cli::{Cli, Command, ImportSource};
pub(crate) use crate::mode::{EXIT_CONFIG, EXIT_FAILURE, fail, recovery_model, theme};

pub async fn main(cli: Cli) -> ExitCode {
    if let Some(message) = cli.unused_option() {
        return match cli.command {
            // A monitoring system reads 2 as CRITICAL: the check's usage errors are UNKNOWN,
            // on its status line, as clap's are (`cli::usage_error_status`).
            Some(Command::Check(_)) => {
                let report =
                    crate::check::Report::unknown(&format!("{message} (innodebt check --help)"));
                if let Err(e) = crate::mode::write_stdout(&report.render()) {
                    eprintln!("innodebt: {e}");
                }
                ExitCode::from(report.exit_code())
            }
            _ => fail(EXIT_CONFIG, message),
        };
    }
    match &cli.command {
        None if cli.options.demo => captures::demo(&cli).await,
        None if cli.prometheus.source.prometheus.is_some() => prometheus::main(cli).await,
        None => live::main(cli).await,
        Some(Command::Record {
            file,
            duration,
            trigger,
            max_disk,
        }) => match crate::trigger::from_args(trigger) {
            Ok(None) if max_disk.is_some() => fail(
                EXIT_CONFIG,
                "--max-disk goes with --trigger KIND (it bounds the incident files); a plain recording grows until stopped",
            ),
            Ok(None) => record::headless(&cli, file.clone(), *duration).await,
            Ok(Some((triggers, watch))) => {
                let bounds = record::Triggered {
                    triggers,
                    watch,
                    max_disk: max_disk.unwrap_or(crate::trigger::DEFAULT_MAX_DISK),
                    exec: trigger.exec.clone(),
                    exec_timeout: trigger
                        .exec_timeout
                        .unwrap_or(crate::trigger::DEFAULT_EXEC_TIMEOUT),
                };
                record::triggered(&cli, file.clone(), *duration, bounds).await
            }
            Err(e) => fail(EXIT_CONFIG, e),
        },
        Some(Command::Replay {
            path,
            from,
            to,
            at,
            once,
            format,
            what_if,
        }) => {
            // `replay FILE --once --format json` and `--once --format json replay FILE` agree.
            let mut cli = cli.clone();
            cli.options.once |= *once;
            if let Some(f) = format {
                cli.options.format = *f;
            }
            if what_if.is_empty() {
                captures::main(&cli, path, *from, *to, *at).await
            } else {
                let summary_only = format.is_some();
                review::what_if(&cli, path, *from, *to, *at, what_if, summary_only).await
            }
        }
        Some(Command::Compare {
            incident,
            baseline,
            format,
            top,
        }) => review::compare(&cli, incident, baseline, *format, *top).await,
        Some(Command::Import {
            source:
                ImportSource::PtStalk {
                    dir,
                    prefix,
                    output,
                },
        }) => captures::import_pt_stalk(dir, prefix.as_deref(), output),
        Some(Command::Import {
            source: source @ ImportSource::Prometheus { .. },
        }) => import::prometheus(source).await,
        Some(Command::Import {
            source: ImportSource::Dolphie { file, output },
        }) => import::dolphie(file, output),
        Some(Command::Export {
            file,
            output,
            format,
            from,
            to,
        }) => captures::export(&cli, file, *format, output.as_deref(), *from, *to),
        Some(Command::Report {
            path,
            baseline,
            from,
            to,
            format,
            output,
        }) => report::main(
            &cli,
            &report::Args {
                path,
                baseline: baseline.as_ref(),
                from: *from,
                to: *to,
                format: *format,
                output,
            },
        ),
        Some(Command::Serve(args)) => crate::serve::main(&cli, args).await,
        Some(Command::Fleet { args, .. }) => crate::fleet::main(&cli, args).await,
        Some(Command::Check(args)) => check::main(&cli, args).await,
        Some(Command::CalibrateRecovery { error_log }) => captures::calibrate(error_log),
        Some(Command::Completions { shell }) => assets::completions(*shell),
        Some(Command::Man { page, out_dir }) => assets::man(page.as_deref(), out_dir.as_deref()),
    }
}
