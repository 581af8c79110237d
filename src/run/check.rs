//! `innodebt check`: connect, take one look as `--once` does, and report it the
//! monitoring-plugin way. Every failure is UNKNOWN (exit 3) with its reason on the status line:
//! a monitoring system reads standard output and the exit code, not standard error.

use std::process::ExitCode;

use crate::check::{self, Report, Thresholds};
use crate::cli::{CheckArgs, Cli};
use innodebt_poller::connect;
use innodebt_poller::live::Session;

pub(super) async fn main(cli: &Cli, args: &CheckArgs) -> ExitCode {
    let report = look(cli, args)
        .await
        .unwrap_or_else(|e| Report::unknown(&e));
    crate::mode::emit(&report.render());
    ExitCode::from(report.exit_code())
}

async fn look(cli: &Cli, args: &CheckArgs) -> Result<Report, String> {
    // A bad expression is found before the server is asked anything.
    let thresholds = Thresholds::parse(args.warning.as_deref(), args.critical.as_deref())?;
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
