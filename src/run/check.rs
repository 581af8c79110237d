//! `innodebt check`: connect, take one look as `--once` does, and report it the
//! monitoring-plugin way. Every failure is UNKNOWN (exit 3) with its reason on the status line:
//! a monitoring system reads standard output and the exit code, not standard error.

use std::process::ExitCode;

use crate::check::{self, Report, Thresholds};
use crate::cli::{CheckArgs, Cli};
use crate::mode::fail;
use innodebt_engine::figures::Severity;
use innodebt_poller::connect;
use innodebt_poller::live::Session;

pub(super) async fn main(cli: &Cli, args: &CheckArgs) -> ExitCode {
    let report = look(cli, args)
        .await
        .unwrap_or_else(|e| Report::unknown(&e));
    match crate::mode::write_stdout(&report.render()) {
        Ok(()) => ExitCode::from(report.exit_code()),
        // The status line did not reach the monitoring system: UNKNOWN, never a state.
        Err(e) => fail(check::exit_code(Severity::Unknown), e),
    }
}

async fn look(cli: &Cli, args: &CheckArgs) -> Result<Report, String> {
    // A bad expression is found before the server is asked anything.
    let thresholds = Thresholds::parse(args.warning.as_deref(), args.critical.as_deref())?;
    // From Prometheus: no account on the server, the same judgement.
    let from_prometheus = [&args.prometheus, &cli.prometheus]
        .into_iter()
        .find(|p| p.source.prometheus.is_some());
    if let Some(p) = from_prometheus {
        let figures = super::prometheus::look(cli, p).await?;
        return Ok(check::judge(&figures, &thresholds));
    }
    let resolved = cli.connect_options().map_err(|e| e.to_string())?;
    for w in &resolved.warnings {
        eprintln!("innodebt: warning: {w}");
    }
    let opts = resolved.options;
    let cfg = super::session::poller_config(cli, &opts);
    let conn = connect::connect(&opts).await.map_err(|e| e.to_string())?;
    let session = Session::open(conn, &cfg)
        .await
        .map_err(|e| format!("{}: {e}", opts.label()))?;
    let deriver = crate::mode::deriver(cli).one_shot();
    let figures = super::live::look(session, deriver, &cfg).await?;
    Ok(check::judge(&figures, &thresholds))
}
