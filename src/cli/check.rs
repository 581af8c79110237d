//! `innodebt check`: the flags of the monitoring-plugin check (Nagios, Icinga, Sensu, Zabbix
//! external checks). Kept as text here: the expressions are parsed by `trigger`, the same
//! grammar as `--trigger`, where the figures are known.

use std::ffi::OsString;

use clap::Args;
use clap::error::ErrorKind;

/// `innodebt check` flags. The connection flags and `--interval` are the usual ones.
#[derive(Debug, Clone, PartialEq, Eq, Default, Args)]
#[command(after_help = "\
Output (the monitoring-plugin convention):
  INNODEBT CRITICAL: blocked by read view: … | checkpoint_age_pct=12.5%;75;90;0;100 history=48211;;;0 blocker_age=312s;;;0 …
then every verdict in full, one per line.

Exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN — the `unknown` verdict, a threshold's
figure that cannot be read, a missing privilege, a connection failure or a bad flag (the reason
is on the status line).

Two samples --interval apart (more, up to about 12 s, while the history trend is still being
watched), as --once takes them.

Examples:
  innodebt -h db1 -u monitor check
  innodebt -h db1 -u monitor check -w 'checkpoint_age_pct>75,blocker_age>60s' \\
      -c 'checkpoint_age_pct>90,blocked_by_read_view'
(quote the expressions: > is the shell's redirection)")]
pub struct CheckArgs {
    /// WARNING (exit 1) when any of these holds: verdict kinds (blocked_by_read_view,
    /// purge_lag_trap, purge_too_slow, history_held_by_open_writes, flush_pressure,
    /// rollback_segment_contention) or thresholds on figures (checkpoint_age_pct>75,
    /// checkpoint_age_pct_of_async>90, history>100000, blocker_age>60s, dirty_pct>80,
    /// dml_delay_us>0, or any number of the JSON by its path: purge.lag_s>=30s),
    /// comma-separated, as
    /// --trigger takes them. Without --warning and --critical the verdicts' own severities
    /// decide.
    #[arg(short = 'w', long, value_name = "KIND[,KIND…]")]
    pub warning: Option<String>,
    /// CRITICAL (exit 2) when any of these holds (the same expressions as --warning).
    #[arg(short = 'c', long, value_name = "KIND[,KIND…]")]
    pub critical: Option<String>,

    /// The check's figures from Prometheus instead of a connection.
    #[command(flatten)]
    pub prometheus: super::args::PrometheusArgs,
}

/// A monitoring system reads exit 2 as CRITICAL: a command line `check` cannot parse is
/// UNKNOWN (3), with clap's message as the status line. `None` for anything else (help,
/// version, other subcommands: clap's own exit). A word `check` anywhere marks the command
/// line as the check's.
pub fn usage_error_status(args: &[OsString], err: &clap::Error) -> Option<String> {
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) || !args.iter().skip(1).any(|a| a == "check")
    {
        return None;
    }
    let message = err.to_string();
    let first = message
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("bad command line")
        .trim_start_matches("error: ");
    Some(format!(
        "INNODEBT UNKNOWN: {} (innodebt check --help)",
        first.replace('|', "/")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_that_does_not_parse_is_unknown() {
        let args: Vec<OsString> = ["innodebt", "check", "--warnin", "history>5"]
            .map(OsString::from)
            .to_vec();
        let err = super::super::parse_args(args.clone()).expect_err("bad flag");
        let status = usage_error_status(&args, &err).expect("check's usage error");
        assert!(
            status.starts_with("INNODEBT UNKNOWN: unexpected argument '--warnin'"),
            "{status}"
        );
        let help: Vec<OsString> = ["innodebt", "help", "check"].map(OsString::from).to_vec();
        let err = super::super::parse_args(help.clone()).expect_err("help exits");
        assert_eq!(usage_error_status(&help, &err), None);
        let other: Vec<OsString> = ["innodebt", "replay"].map(OsString::from).to_vec();
        let err = super::super::parse_args(other.clone()).expect_err("no file");
        assert_eq!(usage_error_status(&other, &err), None);
    }
}
