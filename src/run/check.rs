//! `innodebt check`: connect, take one look as `--once` does, and report it the
//! monitoring-plugin way. Every failure is UNKNOWN (exit 3) with its reason on the status line:
//! a monitoring system reads standard output and the exit code, not standard error.

use std::process::ExitCode;

use crate::check::{self, Report};
use crate::config::{Check, CheckSource, Config};
use crate::mode::fail;
use innodebt_engine::figures::Severity;
use innodebt_poller::connect;
use innodebt_poller::live::Session;

pub(super) async fn main(config: &Config, args: &Check) -> ExitCode {
    let report = look(config, args)
        .await
        .unwrap_or_else(|e| Report::unknown(&e));
    match crate::mode::write_stdout(&report.render()) {
        Ok(()) => ExitCode::from(report.exit_code()),
        // The status line did not reach the monitoring system: UNKNOWN, never a state.
        Err(e) => fail(check::exit_code(Severity::Unknown), e),
    }
}

async fn look(config: &Config, args: &Check) -> Result<Report, String> {
    let opts = match &args.source {
        // From Prometheus: no account on the server, the same judgement.
        CheckSource::Prometheus(p) => {
            let figures = super::prometheus::look(config, p).await?;
            return Ok(check::judge(&figures, &args.thresholds));
        }
        CheckSource::Server(opts) => opts,
    };
    let cfg = super::session::poller_config(config, opts);
    let conn = connect::connect(opts).await.map_err(|e| e.to_string())?;
    let session = Session::open(conn, &cfg)
        .await
        .map_err(|e| format!("{}: {e}", opts.label()))?;
    let deriver = config.judging.deriver().one_shot();
    let figures = super::live::look(session, deriver, &cfg).await?;
    Ok(check::judge(&figures, &args.thresholds))
}
