//! `innodebt check`: the flags of the monitoring-plugin check (Nagios, Icinga, Sensu, Zabbix
//! external checks). Kept as text here: the expressions are parsed by `trigger`, the same
//! grammar as `--trigger`, where the figures are known.

use clap::Args;

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
  innodebt -h db1 -u monitor check -w checkpoint_age_pct>75,blocker_age>60s -c checkpoint_age_pct>90,blocked_by_read_view")]
pub struct CheckArgs {
    /// WARNING (exit 1) when any of these holds: verdict kinds (blocked_by_read_view,
    /// purge_lag_trap, purge_too_slow, history_held_by_open_writes, flush_pressure) or
    /// thresholds on figures (checkpoint_age_pct>75, checkpoint_age_pct_of_async>90,
    /// history>100000, blocker_age>60s, dirty_pct>80, dml_delay_us>0), comma-separated, as
    /// --trigger takes them. Without --warning and --critical the verdicts' own severities
    /// decide.
    #[arg(short = 'w', long, value_name = "KIND[,KIND…]")]
    pub warning: Option<String>,
    /// CRITICAL (exit 2) when any of these holds (the same expressions as --warning).
    #[arg(short = 'c', long, value_name = "KIND[,KIND…]")]
    pub critical: Option<String>,
}
