//! The configuration, resolved once: the command line (`cli`), the option files and the
//! environment behind the connection (`cli::resolve`: `~/.my.cnf`, `--defaults-file`, the
//! `[client]` and `[innodebt]` groups, `~/.mylogin.cnf`, `MYSQL_*`) and the servers file
//! (`serve --config`, `fleet --config`) become the typed values below before anything
//! connects, reads a capture or draws. The modes read these; nothing after [`Config::resolve`]
//! reads the parsed command line. Where a subcommand's flag means what a global one means
//! (`replay --once --format`, `compare --format`, `check --prometheus`), the two are one field
//! here.

use std::path::PathBuf;
use std::time::Duration;

use clap_complete::Shell;

use crate::check::PluginThresholds;
use crate::cli::{
    CaptureRange, Cli, Command, ConfigError, ConnectOptions, ConnectionArgs, ExportFormat,
    FleetArgs, ImportSource, OutputFormat, PrometheusArgs, ReportFormat, Resolved, TimeSpec,
};
use crate::serve::config::ConfigFile;
use crate::theme::Theme;
use crate::trigger::{Trigger, WatchConfig};
use innodebt_engine::derive::Deriver;
use innodebt_engine::verdicts::RecoveryModel;
use innodebt_poller::live::PollerConfig;

/// Everything a mode reads.
pub struct Config {
    pub mode: Mode,
    /// How a server is polled: `--interval`, `--innodb-status-interval`,
    /// `--undo-scan-interval`, `--query-timeout` (fleet: its `--timeout`). No label: each
    /// target sets its own.
    pub poll: PollerConfig,
    /// How samples are judged: `--recovery-rate`, `--sizing-span`.
    pub judging: Judging,
    /// `--theme`, and `--no-color` or `NO_COLOR`.
    pub look: Look,
    /// `--record-queries`: captures keep the query texts.
    pub record_queries: bool,
    /// `--read-only`: no runtime changes from the dashboard.
    pub read_only: bool,
    /// What resolving the connection had to say (a default option file skipped).
    pub warnings: Vec<String>,
}

/// `--recovery-rate` (or the published default) and `--sizing-span`.
#[derive(Debug, Clone)]
pub struct Judging {
    pub recovery: RecoveryModel,
    pub sizing_span: Duration,
}

impl Judging {
    /// A deriver that judges with these settings.
    pub fn deriver(&self) -> Deriver {
        Deriver::with_recovery(self.recovery.clone()).with_sizing_span(self.sizing_span)
    }
}

/// The theme asked for; colours off with `--no-color` or `NO_COLOR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    pub theme: String,
    pub no_color: bool,
}

impl Look {
    /// The theme, or a message naming the bad file (read only by the modes that draw).
    pub fn load(&self) -> Result<Theme, String> {
        if self.no_color {
            return Ok(Theme::monochrome());
        }
        Theme::load(&self.theme).map_err(|e| e.to_string())
    }

    /// [`Self::load`] for a mode about to draw: a bad theme ends it with exit 2.
    pub fn theme(&self) -> Result<Theme, std::process::ExitCode> {
        self.load()
            .map_err(|e| crate::mode::fail(crate::mode::EXIT_CONFIG, e))
    }
}

/// `--once` and `--format`, given before the subcommand or after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Output {
    pub once: bool,
    /// `None`: not given anywhere.
    pub format: Option<OutputFormat>,
}

impl Output {
    /// The format asked for, text when none was.
    pub fn format(&self) -> OutputFormat {
        self.format.unwrap_or(OutputFormat::Text)
    }
}

/// What to run, with what only it reads.
pub enum Mode {
    /// No subcommand: the dashboard (recording with `--record FILE`) or `--once`.
    Live {
        connection: ConnectOptions,
        output: Output,
        record: Option<PathBuf>,
    },
    /// `--demo`: the built-in capture.
    Demo {
        output: Output,
    },
    /// `--prometheus URL --instance NAME`: the dashboard or `--once`, from Prometheus.
    Prometheus {
        source: PrometheusArgs,
        output: Output,
    },
    Record(Record),
    Replay(Replay),
    Compare(Compare),
    Import(ImportSource),
    Export(Export),
    Report(Report),
    Serve(Box<crate::serve::Settings>),
    Fleet(Box<Fleet>),
    Check(Check),
    CalibrateRecovery {
        error_log: PathBuf,
    },
    Completions {
        shell: Shell,
    },
    Man {
        page: Option<String>,
        out_dir: Option<PathBuf>,
    },
}

/// `record FILE`, or `record DIR --trigger KIND…`.
pub struct Record {
    pub connection: ConnectOptions,
    pub path: PathBuf,
    pub duration: Option<Duration>,
    /// With `--trigger`: only incidents, one file each.
    pub triggered: Option<Triggered>,
}

/// What `record DIR --trigger …` watches for and how its files are bounded.
pub struct Triggered {
    pub triggers: Vec<Trigger>,
    pub watch: WatchConfig,
    pub max_disk: u64,
    pub exec: Option<String>,
    pub exec_timeout: Duration,
}

/// `replay FILE|DIR`.
pub struct Replay {
    pub path: PathBuf,
    pub from: Option<TimeSpec>,
    pub to: Option<TimeSpec>,
    pub at: Option<TimeSpec>,
    pub output: Output,
    pub what_if: Vec<(String, u64)>,
}

/// `compare INCIDENT BASELINE`.
pub struct Compare {
    pub incident: CaptureRange,
    pub baseline: CaptureRange,
    pub output: Output,
    pub top: usize,
}

/// `export FILE|DIR`.
pub struct Export {
    pub file: PathBuf,
    pub output: Option<PathBuf>,
    pub format: ExportFormat,
    pub from: Option<TimeSpec>,
    pub to: Option<TimeSpec>,
}

/// `report FILE|DIR -o PAGE`.
pub struct Report {
    pub path: PathBuf,
    pub baseline: Option<CaptureRange>,
    pub from: Option<TimeSpec>,
    pub to: Option<TimeSpec>,
    pub format: ReportFormat,
    pub output: PathBuf,
}

/// `fleet`: its flags, its servers file, and innodebt's own connection (what a target leaves
/// out).
pub struct Fleet {
    /// innodebt's own connection options for `-h` servers; none for a fleet from Prometheus.
    pub connection: Option<ConnectOptions>,
    pub args: FleetArgs,
    pub file: ConfigFile,
}

/// The one-server view from Prometheus names its server.
pub const NEEDS_INSTANCE: &str = "--prometheus needs --instance NAME (the server's instance \
     label); for every instance it scrapes: innodebt fleet --prometheus URL";

/// `check`: the thresholds, and where the figures come from.
pub struct Check {
    pub thresholds: PluginThresholds,
    pub source: CheckSource,
}

pub enum CheckSource {
    Server(ConnectOptions),
    /// `--prometheus` (before `check` or after it).
    Prometheus(PrometheusArgs),
}

/// What resolving needs of the process: the connection (option files, the environment, a
/// password typed at the terminal), and whether a screen can be drawn here.
pub trait Surroundings {
    fn connection(&mut self, args: &ConnectionArgs) -> Result<Resolved, ConfigError>;
    /// `Err` says why no screen can be drawn, and what to do instead.
    fn screen(&self, instead: &str) -> Result<(), String>;
}

/// This process: its option files, environment and terminal.
pub struct Process;

impl Surroundings for Process {
    /// The real option files and environment, prompting on the terminal if a bare `-p` (or
    /// a bare `password` line) asks for it.
    fn connection(&mut self, args: &ConnectionArgs) -> Result<Resolved, ConfigError> {
        let env = crate::cli::Environment::from_process(&args.from_env);
        args.resolve(&env, &mut crate::cli::prompt_on_tty)
    }

    fn screen(&self, instead: &str) -> Result<(), String> {
        crate::mode::screen_refusal(instead)
    }
}

impl Config {
    /// Resolves `cli` (already checked for options its mode ignores, `Cli::unused_option`).
    /// The connection is resolved last, and only for the modes that connect: a bad flag or
    /// file is said before a password is asked for. `Err` is the message of a usage error.
    pub fn resolve(cli: Cli, around: &mut dyn Surroundings) -> Result<Config, String> {
        let o = &cli.options;
        let mut poll = PollerConfig {
            interval: o.interval,
            innodb_status_every: o.innodb_status_interval,
            undo_scan_every: o.undo_scan_interval.period(),
            query_timeout: o.query_timeout,
            ..PollerConfig::default()
        };
        let judging = Judging {
            recovery: o
                .recovery_rate
                .and_then(|r| RecoveryModel::with_rate(r as f64))
                .unwrap_or_else(RecoveryModel::published_default),
            sizing_span: o.sizing_span,
        };
        let look = Look {
            theme: o.theme.clone(),
            no_color: cli.no_color(),
        };
        let global = Output {
            once: o.once,
            format: o.format_given.then_some(o.format),
        };
        let (record_queries, read_only) = (o.record_queries, o.read_only);
        let mut warnings = Vec::new();
        let mut connect = |around: &mut dyn Surroundings| -> Result<ConnectOptions, String> {
            let r = around
                .connection(&cli.connection)
                .map_err(|e| e.to_string())?;
            warnings.extend(r.warnings);
            Ok(r.options)
        };
        let mode = match cli.command.clone() {
            None if o.demo => Mode::Demo { output: global },
            None if cli.prometheus.source.prometheus.is_some() => {
                if cli.prometheus.instance.is_none() {
                    return Err(NEEDS_INSTANCE.into());
                }
                if o.record.is_some() {
                    return Err(
                        "--record with --prometheus: the series are already recorded in \
                         Prometheus; `innodebt import prometheus` makes a capture file of them"
                            .into(),
                    );
                }
                Mode::Prometheus {
                    source: cli.prometheus.clone(),
                    output: global,
                }
            }
            None => {
                if !o.once {
                    // Both before the connection (a password may be asked for): an existing
                    // capture is never overwritten, and a dashboard needs a terminal.
                    if let Some(path) = &o.record
                        && std::fs::symlink_metadata(path).is_ok()
                    {
                        return Err(innodebt_capture::CaptureError::Exists {
                            path: path.display().to_string(),
                        }
                        .to_string());
                    }
                    around.screen(crate::mode::LIVE_INSTEAD)?;
                }
                Mode::Live {
                    connection: connect(around)?,
                    output: global,
                    record: o.record.clone(),
                }
            }
            Some(Command::Record {
                file,
                duration,
                trigger,
                max_disk,
            }) => {
                let triggered = match crate::trigger::from_args(&trigger)? {
                    None if max_disk.is_some() => {
                        return Err("--max-disk goes with --trigger KIND (it bounds the \
                                    incident files); a plain recording grows until stopped"
                            .into());
                    }
                    None => None,
                    Some((triggers, watch)) => Some(Triggered {
                        triggers,
                        watch,
                        max_disk: max_disk.unwrap_or(crate::trigger::DEFAULT_MAX_DISK),
                        exec: trigger.exec.clone(),
                        exec_timeout: trigger
                            .exec_timeout
                            .unwrap_or(crate::trigger::DEFAULT_EXEC_TIMEOUT),
                    }),
                };
                Mode::Record(Record {
                    connection: connect(around)?,
                    path: file,
                    duration,
                    triggered,
                })
            }
            Some(Command::Replay {
                path,
                from,
                to,
                at,
                once,
                format,
                what_if,
            }) => Mode::Replay(Replay {
                path,
                from,
                to,
                at,
                // `replay FILE --once --format json` and `--once --format json replay FILE`
                // agree.
                output: Output {
                    once: global.once || once,
                    format: format.or(global.format),
                },
                what_if,
            }),
            Some(Command::Compare {
                incident,
                baseline,
                format,
                top,
            }) => Mode::Compare(Compare {
                incident,
                baseline,
                output: Output {
                    once: global.once,
                    format: format.or(global.format),
                },
                top,
            }),
            Some(Command::Import { source }) => Mode::Import(source),
            Some(Command::Export {
                file,
                output,
                format,
                from,
                to,
            }) => Mode::Export(Export {
                file,
                output,
                format,
                from,
                to,
            }),
            Some(Command::Report {
                path,
                baseline,
                from,
                to,
                format,
                output,
            }) => Mode::Report(Report {
                path,
                baseline,
                from,
                to,
                format,
                output,
            }),
            Some(Command::Serve(args)) => {
                let settings =
                    crate::serve::Settings::resolve(&args, &poll, record_queries, || {
                        connect(around)
                    })?;
                Mode::Serve(Box::new(settings))
            }
            Some(Command::Fleet { args }) => {
                let file = match &args.config {
                    Some(p) => ConfigFile::load(p).map_err(|e| e.to_string())?,
                    None => ConfigFile::default(),
                };
                // A server's poll gives up after fleet's own --timeout; the undo scan is the
                // one-server dashboard's.
                // From Prometheus, each query gives up after --query-timeout, as for one server.
                if args.prometheus.prometheus.is_none() {
                    poll.query_timeout = args.timeout;
                }
                poll.undo_scan_every = None;
                // A fleet read from Prometheus connects to no server.
                let connection = match args.prometheus.prometheus {
                    Some(_) => None,
                    None => Some(connect(around)?),
                };
                Mode::Fleet(Box::new(Fleet {
                    connection,
                    args,
                    file,
                }))
            }
            Some(Command::Check(args)) => {
                // A bad expression is found before the server is asked anything.
                let thresholds =
                    PluginThresholds::parse(args.warning.as_deref(), args.critical.as_deref())?;
                // From Prometheus: no account on the server, the same judgement.
                let source = match [&args.prometheus, &cli.prometheus]
                    .into_iter()
                    .find(|p| p.source.prometheus.is_some())
                {
                    Some(p) => CheckSource::Prometheus(p.clone()),
                    None => CheckSource::Server(connect(around)?),
                };
                Mode::Check(Check { thresholds, source })
            }
            Some(Command::CalibrateRecovery { error_log }) => Mode::CalibrateRecovery { error_log },
            Some(Command::Completions { shell }) => Mode::Completions { shell },
            Some(Command::Man { page, out_dir }) => Mode::Man { page, out_dir },
        };
        Ok(Config {
            mode,
            poll,
            judging,
            look,
            record_queries,
            read_only,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No option files, no terminal: a connection of the flags alone.
    struct Bare {
        asked: usize,
    }

    impl Surroundings for Bare {
        fn connection(&mut self, args: &ConnectionArgs) -> Result<Resolved, ConfigError> {
            self.asked += 1;
            let env = crate::cli::Environment {
                os_user: Some("tester".into()),
                ..Default::default()
            };
            args.resolve(&env, &mut |_| Err(std::io::Error::other("no terminal")))
        }

        fn screen(&self, _: &str) -> Result<(), String> {
            Err("no terminal".into())
        }
    }

    fn resolve(args: &[&str]) -> (Result<Config, String>, usize) {
        let mut argv = vec!["innodebt"];
        argv.extend_from_slice(args);
        let cli = crate::cli::parse_args(argv).expect("parses");
        let mut around = Bare { asked: 0 };
        let config = Config::resolve(cli, &mut around);
        (config, around.asked)
    }

    fn config(args: &[&str]) -> Config {
        resolve(args).0.unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    #[test]
    fn replays_once_and_format_are_one_wherever_given() {
        for args in [
            &["--once", "--format", "json", "replay", "x.idbt"][..],
            &["replay", "x.idbt", "--once", "--format", "json"],
            &["--once", "replay", "x.idbt", "--format", "json"],
        ] {
            let Mode::Replay(r) = config(args).mode else {
                panic!("{args:?}: not a replay");
            };
            assert_eq!(
                r.output,
                Output {
                    once: true,
                    format: Some(OutputFormat::Json)
                },
                "{args:?}"
            );
        }
        let Mode::Replay(r) = config(&["replay", "x.idbt"]).mode else {
            panic!("not a replay");
        };
        assert_eq!(r.output, Output::default());
    }

    #[test]
    fn compares_format_is_one_and_the_subcommands_wins() {
        let format = |args: &[&str]| match config(args).mode {
            Mode::Compare(c) => c.output.format,
            _ => panic!("{args:?}: not a compare"),
        };
        assert_eq!(format(&["compare", "a", "b"]), None);
        assert_eq!(
            format(&["--format", "json", "compare", "a", "b"]),
            Some(OutputFormat::Json)
        );
        assert_eq!(
            format(&["--format", "json", "compare", "a", "b", "--format", "text"]),
            Some(OutputFormat::Text)
        );
    }

    #[test]
    fn checks_prometheus_is_one_and_needs_no_connection() {
        for args in [
            &[
                "check",
                "--prometheus",
                "http://p:9090",
                "--instance",
                "db1",
            ][..],
            &[
                "--prometheus",
                "http://p:9090",
                "--instance",
                "db1",
                "check",
            ],
        ] {
            let (config, asked) = resolve(args);
            let Ok(Config {
                mode: Mode::Check(c),
                ..
            }) = config
            else {
                panic!("{args:?}: not a check");
            };
            let CheckSource::Prometheus(p) = c.source else {
                panic!("{args:?}: not from Prometheus");
            };
            assert_eq!(p.instance.as_deref(), Some("db1"));
            assert_eq!(asked, 0, "{args:?}: no connection resolved");
        }
        let (config, asked) = resolve(&["-h", "db1", "check"]);
        assert!(matches!(
            config.map(|c| c.mode),
            Ok(Mode::Check(Check {
                source: CheckSource::Server(_),
                ..
            }))
        ));
        assert_eq!(asked, 1);
    }

    #[test]
    fn usage_errors_come_before_the_connection() {
        for (args, said) in [
            (
                &["record", "x.idbt", "--max-disk", "1G"][..],
                "--max-disk goes with --trigger",
            ),
            (&["check", "-w", "nonsense>"], "nonsense"),
            (&["--record", "x.idbt"], "no terminal"),
        ] {
            let (config, asked) = resolve(args);
            let e = config.err().unwrap_or_else(|| panic!("{args:?} resolved"));
            assert!(e.contains(said), "{args:?}: {e}");
            assert_eq!(asked, 0, "{args:?}");
        }
    }

    #[test]
    fn modes_that_read_captures_resolve_no_connection() {
        for args in [
            &["replay", "x.idbt"][..],
            &["export", "x.idbt"],
            &["--demo"],
            &["completions", "bash"],
        ] {
            assert_eq!(resolve(args).1, 0, "{args:?}");
        }
        let c = config(&["-h", "db1", "-u", "monitor", "--once"]);
        let Mode::Live { connection, .. } = c.mode else {
            panic!("not live");
        };
        assert_eq!(connection.user, "monitor");
    }

    #[test]
    fn fleet_polls_with_its_own_timeout() {
        let c = config(&[
            "--query-timeout",
            "9s",
            "fleet",
            "-h",
            "db1",
            "--timeout",
            "2s",
        ]);
        assert_eq!(c.poll.query_timeout, Duration::from_secs(2));
        let Mode::Fleet(f) = c.mode else {
            panic!("not a fleet");
        };
        assert_eq!(f.args.hosts, ["db1"]);
    }
}
