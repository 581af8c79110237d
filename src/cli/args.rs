//! The arguments: the mysql client's connection flags, the dashboard options and the
//! subcommands, as clap parses them — with the mysql client's bare `-p` (prompt) and a message
//! that says where an option given after the subcommand belongs.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use super::argv::PROMPT_LONG;
use super::values::{
    CaptureRange, Schedule, TimeSpec, parse_capture_range, parse_duration, parse_interval,
    parse_port, parse_rate, parse_schedule, parse_secret, parse_size, parse_time_spec,
    parse_timeout, parse_what_if,
};
use innodebt_poller::connect::{Secret, SslMode};
use innodebt_poller::live::MIN_INTERVAL;

/// `--interval`'s help, with the floor `parse_interval` and the poller hold it to.
fn interval_help() -> String {
    format!(
        "How often to poll the server (at least {}ms).",
        MIN_INTERVAL.as_millis()
    )
}

// `innodebt [connection flags] [options] [SUBCOMMAND]`, the flags before or after the
// subcommand (global, as `git -C`). `-h` is the host, as in the mysql client, so help is `-?`
// or `--help`, for every subcommand. (Plain comment: a doc comment would become the help.)
#[derive(Debug, Clone, Parser)]
#[command(
    name = "innodebt",
    version,
    about = "How much redo and undo debt InnoDB carries, and whether it is being paid back.",
    disable_help_flag = true
)]
pub struct Cli {
    /// Print help.
    #[arg(short = '?', long = "help", action = ArgAction::Help, global = true)]
    help: Option<bool>,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    #[command(flatten)]
    pub options: Options,

    #[command(flatten)]
    pub prometheus: PrometheusArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// One server's figures from the Prometheus that already scrapes it (mysqld_exporter's series
/// or `innodebt serve`'s), instead of a connection: no database account needed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
#[command(next_help_heading = "From Prometheus (instead of connecting)")]
pub struct PrometheusArgs {
    /// The `instance` label of the server's series in that Prometheus.
    #[arg(long, value_name = "INSTANCE", requires = "prometheus")]
    pub instance: Option<String>,
    #[command(flatten)]
    pub source: PrometheusSource,
}

/// Where the series are and which of them: one server's (with --instance) or a fleet's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
#[command(next_help_heading = "From Prometheus (instead of connecting)")]
pub struct PrometheusSource {
    /// Read the servers' series from this Prometheus (or Thanos, Mimir, VictoriaMetrics): its
    /// base URL (http://prometheus:9090). One server: with --instance; `fleet`: every instance
    /// --job and --match find. No server is connected to.
    #[arg(long, value_name = "URL")]
    pub prometheus: Option<String>,
    /// The `job` label, where several jobs scrape the instance.
    #[arg(long, value_name = "JOB", requires = "prometheus")]
    pub job: Option<String>,
    /// More PromQL label matchers (repeatable): --match 'env="prod"'.
    #[arg(long = "match", value_name = "MATCHER", requires = "prometheus")]
    pub matchers: Vec<String>,
    /// The series' scrape interval: one sample per step, a refresh per step.
    #[arg(long, value_name = "DUR", default_value = "15s", value_parser = parse_timeout,
          requires = "prometheus")]
    pub step: Duration,
    /// The server as it was at this time (RFC 3339, or HH:MM:SS today in UTC), not now.
    #[arg(long, value_name = "TIME", value_parser = parse_time_spec, requires = "prometheus")]
    pub at: Option<TimeSpec>,
    /// A file holding user:password for Prometheus's basic auth.
    #[arg(long, value_name = "FILE", requires = "prometheus")]
    pub basic_auth_file: Option<PathBuf>,
    /// A file holding a bearer token for Prometheus.
    #[arg(long, value_name = "FILE", requires = "prometheus")]
    pub bearer_token_file: Option<PathBuf>,
    /// PEM CA certificates to verify an https Prometheus with (default: the web's roots).
    #[arg(long, value_name = "FILE", requires = "prometheus")]
    pub ca_file: Option<PathBuf>,
}

/// The mysql client's connection flags.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Connection (as in the mysql client)")]
pub struct ConnectionArgs {
    /// Server host name or IP; none or `localhost` means the Unix socket.
    #[arg(
        short = 'h',
        long,
        value_name = "HOST",
        global = true,
        env = "MYSQL_HOST"
    )]
    pub host: Option<String>,

    /// TCP port (default 3306). Given without --host, connects over TCP to 127.0.0.1.
    #[arg(short = 'P', long, value_name = "PORT", value_parser = parse_port, global = true,
          env = "MYSQL_TCP_PORT")]
    pub port: Option<u16>,

    /// MySQL user (default: your OS user name).
    #[arg(short = 'u', long, value_name = "USER", global = true)]
    pub user: Option<String>,

    /// Password: `-pSECRET` or `--password=SECRET`; a bare `-p` or `--password` prompts.
    /// MYSQL_PWD counts after the option files, as in the mysql client.
    #[arg(short = 'p', long = "password", value_name = "PASSWORD", value_parser = parse_secret,
          global = true, env = "MYSQL_PWD", hide_env_values = true)]
    pub password: Option<Secret>,

    /// Set when a bare `-p`/`--password` was given: ask on the terminal.
    #[arg(long = PROMPT_LONG, hide = true, global = true)]
    pub password_prompt: bool,

    /// Unix socket file.
    #[arg(
        short = 'S',
        long,
        value_name = "PATH",
        global = true,
        env = "MYSQL_UNIX_PORT"
    )]
    pub socket: Option<PathBuf>,

    /// Default database (innodebt reads system schemas and needs none).
    #[arg(short = 'D', long, value_name = "NAME", global = true)]
    pub database: Option<String>,

    /// Read only this option file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["defaults_extra_file", "no_defaults"],
          global = true)]
    pub defaults_file: Option<PathBuf>,

    /// Read this option file too, after the global files and before ~/.my.cnf.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "no_defaults",
        global = true
    )]
    pub defaults_extra_file: Option<PathBuf>,

    /// Read no option files (~/.mylogin.cnf is still read, as in the mysql client).
    #[arg(long, global = true)]
    pub no_defaults: bool,

    /// Read the group [NAME] of ~/.mylogin.cnf (written by mysql_config_editor) after
    /// [client], as the mysql client does.
    #[arg(long, value_name = "NAME", global = true)]
    pub login_path: Option<String>,

    /// The login file to read instead of ~/.mylogin.cnf (as mysql-test-run sets it).
    #[arg(
        long,
        value_name = "FILE",
        hide = true,
        global = true,
        env = "MYSQL_TEST_LOGIN_FILE"
    )]
    pub login_file: Option<PathBuf>,

    /// TLS mode (default PREFERRED; a Unix socket never uses TLS).
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "MODE",
        global = true
    )]
    pub ssl_mode: Option<SslMode>,

    /// CA certificate (PEM) to verify the server's certificate against.
    #[arg(long, value_name = "FILE", global = true)]
    pub ssl_ca: Option<PathBuf>,

    /// Client certificate (PEM), for an account created REQUIRE X509 or SUBJECT; without
    /// --ssl-key the key is read from the same file.
    #[arg(long, value_name = "FILE", global = true)]
    pub ssl_cert: Option<PathBuf>,

    /// Private key (PEM) of --ssl-cert; without --ssl-cert the certificate is read from the
    /// same file.
    #[arg(long, value_name = "FILE", global = true)]
    pub ssl_key: Option<PathBuf>,

    /// Give up connecting after this long.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_timeout,
          global = true)]
    pub connect_timeout: Duration,

    /// What MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT and MYSQL_PWD said (clap reads them;
    /// [`parse_args`] moves them here, as they count after the option files).
    #[arg(skip)]
    pub from_env: MysqlEnv,
}

/// Dashboard options.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Dashboard options")]
pub struct Options {
    /// Take one sample (or show one replayed moment), print it and exit.
    #[arg(long)]
    pub once: bool,

    /// Output format for --once.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT")]
    pub format: OutputFormat,

    /// How often to poll the server (at least MIN_INTERVAL).
    #[arg(long, value_name = "DUR", default_value = "1s", value_parser = parse_interval,
          global = true, help = interval_help())]
    pub interval: Duration,

    /// How often to run SHOW ENGINE INNODB STATUS.
    #[arg(long, value_name = "DUR", default_value = "10s", value_parser = parse_timeout,
          global = true)]
    pub innodb_status_interval: Duration,

    /// How often to count the undo pages cached in the buffer pool (the INNODB_BUFFER_PAGE_LRU scan: it scans the whole buffer pool; `never` to skip).
    #[arg(long, value_name = "DUR", default_value = "never", value_parser = parse_schedule,
          global = true)]
    pub undo_scan_interval: Schedule,

    /// Give up on one query after this long.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_timeout,
          global = true)]
    pub query_timeout: Duration,

    /// Theme name or path to a theme TOML file.
    #[arg(long, value_name = "NAME|PATH", default_value = "dark", global = true)]
    pub theme: String,

    /// No colours (also when the NO_COLOR environment variable is set and not empty).
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Also write every sample to this capture file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// Store the raw query results in the capture too.
    #[arg(long, global = true)]
    pub record_queries: bool,

    /// Never change server settings (hides the controls).
    #[arg(long, global = true)]
    pub read_only: bool,

    /// Crash-recovery redo apply rate, for the recovery-time estimate: bytes per second,
    /// e.g. 12MiB/s, 10M (K/M/G/T alone are powers of 1024; KB/MB 1000; KiB/MiB 1024).
    #[arg(long, value_name = "RATE", value_parser = parse_rate, global = true)]
    pub recovery_rate: Option<u64>,

    /// Advise a smaller redo only once the peak checkpoint age was watched this long, so
    /// that it covers the workload's cycle (advice to grow never waits).
    #[arg(long, value_name = "DUR", default_value = "24h", value_parser = parse_duration,
          global = true)]
    pub sizing_span: Duration,

    /// Replay the built-in demo, no server needed: a real capture recorded by innodebt from MariaDB 10.11 under write load.
    #[arg(long)]
    pub demo: bool,

    /// `--format` was on the command line (it has a default, so its value cannot say):
    /// [`parse_args`] sets it from clap's value source, for [`Cli::unused_option`].
    #[arg(skip)]
    pub format_given: bool,
}

impl Default for ConnectionArgs {
    /// As if no connection flag was given.
    fn default() -> Self {
        Self {
            host: None,
            port: None,
            user: None,
            password: None,
            password_prompt: false,
            socket: None,
            database: None,
            defaults_file: None,
            defaults_extra_file: None,
            no_defaults: false,
            login_path: None,
            login_file: None,
            ssl_mode: None,
            ssl_ca: None,
            ssl_cert: None,
            ssl_key: None,
            connect_timeout: Duration::from_secs(5),
            from_env: MysqlEnv::default(),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            once: false,
            format: OutputFormat::Text,
            interval: Duration::from_secs(1),
            innodb_status_interval: Duration::from_secs(10),
            undo_scan_interval: Schedule::Never,
            query_timeout: Duration::from_secs(5),
            theme: "dark".to_owned(),
            no_color: false,
            record: None,
            record_queries: false,
            read_only: false,
            recovery_rate: None,
            sizing_span: Duration::from_secs(86_400),
            demo: false,
            format_given: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Record samples to FILE without the dashboard; with --trigger, only incidents, one
    /// file each, into the directory DIR.
    Record {
        /// Capture file to write (with --trigger: the directory for incident files).
        #[arg(value_name = "FILE|DIR")]
        file: PathBuf,
        /// Stop after this long (default: until interrupted).
        #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
        duration: Option<Duration>,
        #[command(flatten)]
        trigger: TriggerArgs,
        /// With --trigger: the incident files together never take more than this; the
        /// oldest go first (default 1G).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_disk: Option<u64>,
    },
    /// Replay a capture file, or a directory of them, in the dashboard.
    Replay {
        /// Capture file or directory.
        #[arg(value_name = "FILE|DIR")]
        path: PathBuf,
        /// Start here: HH:MM:SS, RFC 3339, or +OFFSET from the start (+90s, +5m).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        from: Option<TimeSpec>,
        /// Stop here (same forms as --from).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        to: Option<TimeSpec>,
        /// Show this one moment (same forms as --from).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec,
              conflicts_with_all = ["from", "to"])]
        at: Option<TimeSpec>,
        /// Print the figures of one moment (--at, default the end) instead of the dashboard.
        #[arg(long)]
        once: bool,
        /// Output format with --once.
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<OutputFormat>,
        /// Re-judge the recording under another setting (repeatable): innodb_log_file_size,
        /// innodb_redo_log_capacity, innodb_max_purge_lag, innodb_max_purge_lag_delay,
        /// innodb_purge_threads (MySQL ≥ 8.0.14). Drawn on the checkpoint-age and history
        /// charts; with --format, the summary over --from/--to; with --once, `what_if` in the
        /// JSON.
        #[arg(long = "what-if", value_name = "VAR=VALUE", value_parser = parse_what_if,
              action = ArgAction::Append)]
        what_if: Vec<(String, u64)>,
    },
    /// Rank what differs between an incident and a baseline: figures, variables, runtime
    /// changes, verdict time. Each side is a capture (file or directory), optionally cut to a
    /// time range: FILE@FROM..TO (14:00:00..14:10:00, +5m.., ..+10m, RFC 3339).
    Compare {
        /// The incident: FILE or FILE@FROM..TO.
        #[arg(value_name = "INCIDENT", value_parser = parse_capture_range)]
        incident: CaptureRange,
        /// The normal day to compare against: FILE or FILE@FROM..TO.
        #[arg(value_name = "BASELINE", value_parser = parse_capture_range)]
        baseline: CaptureRange,
        /// Print the report in this format; without it, on a terminal, the compare screen
        /// (timelines and the ranked differences; Enter on one shows it in detail).
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<OutputFormat>,
        /// Show at most this many ranked differences in text (JSON has them all).
        #[arg(long, value_name = "N", default_value_t = 15)]
        top: usize,
    },
    /// Convert data collected by other tools into a capture file.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Export a capture file (or a directory of them) as derived figures.
    Export {
        /// Capture file or directory.
        #[arg(value_name = "FILE|DIR")]
        file: PathBuf,
        /// Start here: HH:MM:SS, RFC 3339, or +OFFSET from the start (+90s, +5m).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        from: Option<TimeSpec>,
        /// Stop here (same forms as --from).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        to: Option<TimeSpec>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFormat::Csv, value_name = "FORMAT")]
        format: ExportFormat,
        /// Write here instead of standard output.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Write one self-contained page about a capture for the postmortem: what went wrong,
    /// when, why and what to change, with charts (HTML, or Markdown with the charts as SVG
    /// files beside it).
    Report {
        /// Capture file or directory (a flight recorder's, or an import's capture).
        #[arg(value_name = "FILE|DIR")]
        path: PathBuf,
        /// Rank what differs from this normal stretch, as `compare` does: FILE or
        /// FILE@FROM..TO.
        #[arg(long, value_name = "BASELINE", value_parser = parse_capture_range)]
        baseline: Option<CaptureRange>,
        /// Start here: HH:MM:SS, RFC 3339, or +OFFSET from the start (+90s, +5m).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        from: Option<TimeSpec>,
        /// Stop here (same forms as --from).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        to: Option<TimeSpec>,
        /// Page format: html (one self-contained file), or markdown (for tickets and wikis;
        /// the charts as SVG files beside it).
        #[arg(long, value_enum, default_value_t = ReportFormat::Html, value_name = "FORMAT")]
        format: ReportFormat,
        /// The page to write (replaced whole, or left as it was if writing fails).
        #[arg(short = 'o', long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Serve the figures to Prometheus: /metrics (this server) and /probe?target=NAME.
    Serve(ServeArgs),
    /// One screen for many servers, nearest breach first (-h HOST repeatable, or --config).
    Fleet {
        #[command(flatten)]
        args: FleetArgs,
    },
    /// Check one server as a monitoring plugin (Nagios, Icinga, Sensu, Zabbix): one status
    /// line with performance data; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
    Check(super::CheckArgs),
    /// Estimate the crash-recovery redo apply rate from a server error log.
    CalibrateRecovery {
        /// The server's error log, with at least one crash recovery in it.
        #[arg(long, value_name = "FILE")]
        error_log: PathBuf,
    },
    /// Print the completion script for a shell (bash: source it, or put it in
    /// bash-completion's completions directory; zsh: a `_innodebt` file on $fpath; fish:
    /// ~/.config/fish/completions/innodebt.fish).
    Completions {
        /// The shell.
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
    /// Print the man page of innodebt or of one subcommand (`innodebt man serve`), or write
    /// them all into a directory.
    Man {
        /// The subcommand whose page to print (default: innodebt(1) itself).
        #[arg(value_name = "SUBCOMMAND", conflicts_with = "out_dir")]
        page: Option<String>,
        /// Write every page (innodebt.1, innodebt-serve.1, …) into DIR, and list them.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
}

/// `innodebt serve` flags (its `[serve]` section in the config file gives defaults).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ServeArgs {
    /// Address to listen on (default 127.0.0.1:9385: this host only).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// Servers file (TOML): [targets.NAME] sections for /probe?target=NAME.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Keep a rolling capture of every target here (one directory per target).
    #[arg(long, value_name = "DIR")]
    pub record_dir: Option<PathBuf>,
    /// With --record-dir: keep this much history (default 48h).
    #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
    pub retain: Option<Duration>,
    /// With --record-dir: at most this much disk for all targets (default 500MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_disk: Option<u64>,
    /// Longest a scrape waits for a new target's first sample (Prometheus's own scrape
    /// timeout, when it sends one, is kept too).
    #[arg(long, value_name = "DUR", default_value = "10s", value_parser = parse_timeout)]
    pub scrape_timeout: Duration,
    /// Serve only /probe: don't poll the server of the connection flags for /metrics.
    #[arg(long)]
    pub probe_only: bool,
    /// TLS and basic auth: a web config in the Prometheus exporter-toolkit's format
    /// (tls_server_config, basic_auth_users with bcrypt hashes), as node_exporter reads.
    #[arg(long, value_name = "FILE")]
    pub web_config: Option<PathBuf>,
    /// Let /probe?target= reach servers the config file does not name: host patterns
    /// (`*` matches any part, `:PORT` optional), comma-separated, e.g. 'db*.example.com'.
    #[arg(long, value_name = "PATTERN[,…]", value_delimiter = ',')]
    pub probe_allow: Vec<String>,
    #[command(flatten)]
    pub trigger: TriggerArgs,
    /// With --trigger: write each target's incident files into DIR/TARGET/.
    #[arg(long, value_name = "DIR")]
    pub incident_dir: Option<PathBuf>,
    /// With --trigger: the incident files of every target together never take more than
    /// this; the oldest go first (default 1G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub incident_max_disk: Option<u64>,
}

/// Triggered capture: what starts an incident, how much of what led up to it and followed
/// it goes into its file, and what runs when it starts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Args)]
#[command(next_help_heading = "Triggered capture")]
pub struct TriggerArgs {
    /// Capture incidents: verdict kinds (blocked_by_read_view, purge_lag_trap,
    /// purge_too_slow, history_held_by_open_writes, flush_pressure,
    /// rollback_segment_contention) or thresholds (checkpoint_age_pct>80, history>1000000,
    /// blocker_age>300s, or any number of the JSON by its path: purge.lag_s>=30s),
    /// comma-separated.
    #[arg(long, value_name = "KIND[,KIND…]")]
    pub trigger: Option<String>,
    /// With --trigger: keep this much before the incident (in memory; default 5m, at most 1h).
    #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
    pub before: Option<Duration>,
    /// With --trigger: go on recording this long after the last trigger held (default 2m).
    #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
    pub after: Option<Duration>,
    /// With --trigger: after an incident's file ends, this long before another may start;
    /// a trigger turning on meanwhile is reported, not captured (default 5m; 0s: none).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub cooldown: Option<Duration>,
    /// With --trigger: run this (sh -c) when an incident starts, with INNODEBT_FILE,
    /// INNODEBT_VERDICT, INNODEBT_MESSAGE, INNODEBT_STARTED_AT in its environment.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// With --exec: kill the command (and what it started) if it still runs after this long
    /// (default 60s), and say so on stderr.
    #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
    pub exec_timeout: Option<Duration>,
}

/// `innodebt fleet` flags. `-h` names a server here (repeatable), as in `-h db1 -h db2:3307`.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct FleetArgs {
    /// Servers file (TOML, [targets.NAME] with host/port/…, group, tags, or agent = URL).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A server (HOST[:PORT]) polled with innodebt's own credentials; repeat for more.
    // The id is the connection flag's: fleet's `-h` takes several, the global one's place.
    #[arg(id = "host", short = 'h', long = "host", value_name = "HOST[:PORT]",
          action = ArgAction::Append)]
    pub hosts: Vec<String>,
    /// Give up on one server's poll (or agent request) after this long.
    #[arg(long, value_name = "DUR", default_value = "3s", value_parser = parse_timeout)]
    pub timeout: Duration,
    /// Check https agents' certificates against this CA (PEM) [default: the web's roots].
    #[arg(long, value_name = "FILE")]
    pub agent_ssl_ca: Option<PathBuf>,
    /// Basic-auth user for agents behind --web-config (password: --agent-password-file or
    /// INNODEBT_AGENT_PASSWORD, never a flag).
    #[arg(long, value_name = "USER")]
    pub agent_user: Option<String>,
    /// A file holding only the agents' basic-auth password.
    #[arg(long, value_name = "FILE")]
    pub agent_password_file: Option<PathBuf>,
    /// Take one look at every server, print the fleet nearest breach first and exit.
    #[arg(long)]
    pub once: bool,
    /// Output format for --once.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT",
          requires = "once")]
    pub format: OutputFormat,
    #[command(flatten)]
    pub prometheus: PrometheusSource,
}

#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum ImportSource {
    /// Percona Toolkit pt-stalk output.
    #[command(name = "pt-stalk")]
    PtStalk {
        /// Directory with pt-stalk's files.
        dir: PathBuf,
        /// Only the collection with this prefix (e.g. 2024_03_01_12_00_00).
        #[arg(long, value_name = "PREFIX")]
        prefix: Option<String>,
        /// Capture file to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// A Dolphie replay file (its daemon's daemon.db, or a --record file).
    Dolphie {
        /// The Dolphie replay file (SQLite).
        file: PathBuf,
        /// Capture file to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// A Prometheus fed by mysqld_exporter (or innodebt serve): one instance over a window.
    Prometheus {
        /// The Prometheus server's base URL (http://prometheus:9090).
        url: String,
        /// The `instance` label of the server's series.
        #[arg(long, value_name = "INSTANCE")]
        instance: String,
        /// The `job` label, where several jobs scrape the instance.
        #[arg(long, value_name = "JOB")]
        job: Option<String>,
        /// More PromQL label matchers (repeatable): --match 'env="prod"'.
        #[arg(long = "match", value_name = "MATCHER")]
        matchers: Vec<String>,
        /// Start: RFC 3339 (2026-01-31T02:00:00Z) or HH:MM:SS (today, UTC).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        from: TimeSpec,
        /// End: as --from, or +DURATION after it (+30m).
        #[arg(long, value_name = "TIME", value_parser = parse_time_spec)]
        to: TimeSpec,
        /// Resolution: one sample per step (your scrape interval or coarser).
        #[arg(long, value_name = "DUR", default_value = "15s", value_parser = parse_timeout)]
        step: Duration,
        /// A file holding user:password for basic auth.
        #[arg(long, value_name = "FILE")]
        basic_auth_file: Option<PathBuf>,
        /// A file holding a bearer token.
        #[arg(long, value_name = "FILE")]
        bearer_token_file: Option<PathBuf>,
        /// PEM CA certificates to verify an https Prometheus with (default: the web's roots).
        #[arg(long, value_name = "FILE")]
        ca_file: Option<PathBuf>,
        /// Capture file to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One self-contained HTML page, charts inline.
    Html,
    /// Markdown, each chart an SVG file named after the page (PAGE-checkpoint-age.svg).
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Csv,
    /// OpenMetrics text with timestamps (for `promtool tsdb create-blocks-from openmetrics`).
    Openmetrics,
    /// JSON Lines: one `--once --format json` object per sample, bookmarks in `notes`.
    Json,
}

/// The mysql client's environment variables as clap read them (`env`), set apart from the
/// flags, since they count after the option files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MysqlEnv {
    pub host: Option<String>,
    pub tcp_port: Option<u16>,
    pub unix_port: Option<PathBuf>,
    pub pwd: Option<Secret>,
}
