//! The command line: mysql-client connection flags, dashboard options and subcommands, and
//! the resolution of flags + option files + environment into [`ConnectOptions`].
//!
//! Precedence, as the MySQL manual states it: command line > option files > environment
//! (`MYSQL_PWD`, `MYSQL_HOST`, `MYSQL_TCP_PORT`, `MYSQL_UNIX_PORT`) > built-in defaults.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, NaiveTime};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand, ValueEnum};
use thiserror::Error;

use crate::mycnf::{self, MyCnfError, Setting};

/// Where the mysql client looks for the server's socket when nothing names one.
pub const SOCKET_PATHS: &[&str] = &[
    "/run/mysqld/mysqld.sock",
    "/var/run/mysqld/mysqld.sock",
    "/tmp/mysql.sock",
    "/var/lib/mysql/mysql.sock",
];

/// The default MySQL TCP port.
pub const DEFAULT_PORT: u16 = 3306;

/// The shortest `--interval` accepted.
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

/// Hidden flag that a bare `-p`/`--password` becomes before clap sees the arguments.
const PROMPT_FLAG: &str = "--password-prompt";
const PROMPT_LONG: &str = "password-prompt";

// `innodebt [connection flags] [options] [SUBCOMMAND]`. `-h` is the host, as in the mysql
// client, so help is `-?` or `--help`. (Plain comment: a doc comment would become the help.)
#[derive(Debug, Clone, Parser)]
#[command(
    name = "innodebt",
    version,
    about = "How much redo and undo debt InnoDB carries, and whether it is being paid back.",
    disable_help_flag = true,
    after_help = "Connection flags and options go before the subcommand, e.g.\n  \
                  innodebt -h db1 -u monitor -p record capture.idb --duration 10m\n  \
                  innodebt --once --format json replay capture.idb --at 14:05:00"
)]
pub struct Cli {
    /// Print help.
    #[arg(short = '?', long = "help", action = ArgAction::Help)]
    help: Option<bool>,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    #[command(flatten)]
    pub options: Options,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The mysql client's connection flags.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Connection (as in the mysql client)")]
pub struct ConnectionArgs {
    /// Server host name or IP; none or `localhost` means the Unix socket.
    #[arg(short = 'h', long, value_name = "HOST")]
    pub host: Option<String>,

    /// TCP port (default 3306). Given without --host, connects over TCP to 127.0.0.1.
    #[arg(short = 'P', long, value_name = "PORT", value_parser = parse_port)]
    pub port: Option<u16>,

    /// MySQL user (default: your OS user name).
    #[arg(short = 'u', long, value_name = "USER")]
    pub user: Option<String>,

    /// Password: `-pSECRET` or `--password=SECRET`; a bare `-p` or `--password` prompts.
    #[arg(short = 'p', long = "password", value_name = "PASSWORD", value_parser = parse_secret)]
    pub password: Option<Secret>,

    /// Set when a bare `-p`/`--password` was given: ask on the terminal.
    #[arg(long = PROMPT_LONG, hide = true)]
    pub password_prompt: bool,

    /// Unix socket file.
    #[arg(short = 'S', long, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// Default database (innodebt reads system schemas and needs none).
    #[arg(short = 'D', long, value_name = "NAME")]
    pub database: Option<String>,

    /// Read only this option file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["defaults_extra_file", "no_defaults"])]
    pub defaults_file: Option<PathBuf>,

    /// Read this option file too, after the global files and before ~/.my.cnf.
    #[arg(long, value_name = "FILE", conflicts_with = "no_defaults")]
    pub defaults_extra_file: Option<PathBuf>,

    /// Read no option files.
    #[arg(long)]
    pub no_defaults: bool,

    /// TLS mode (default PREFERRED; a Unix socket never uses TLS).
    #[arg(long, value_enum, ignore_case = true, value_name = "MODE")]
    pub ssl_mode: Option<SslMode>,

    /// CA certificate (PEM) to verify the server's certificate against.
    #[arg(long, value_name = "FILE")]
    pub ssl_ca: Option<PathBuf>,

    /// Give up connecting after this long.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_timeout)]
    pub connect_timeout: Duration,
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

    /// How often to poll the server (at least 100ms).
    #[arg(long, value_name = "DUR", default_value = "1s", value_parser = parse_interval)]
    pub interval: Duration,

    /// How often to run SHOW ENGINE INNODB STATUS.
    #[arg(long, value_name = "DUR", default_value = "10s", value_parser = parse_timeout)]
    pub innodb_status_interval: Duration,

    /// How often to scan undo tablespaces (`never` to skip).
    #[arg(long, value_name = "DUR", default_value = "never", value_parser = parse_schedule)]
    pub undo_scan_interval: Schedule,

    /// Give up on one query after this long.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_timeout)]
    pub query_timeout: Duration,

    /// Theme name or path to a theme TOML file.
    #[arg(long, value_name = "NAME|PATH", default_value = "dark")]
    pub theme: String,

    /// No colours (also when the NO_COLOR environment variable is set and not empty).
    #[arg(long)]
    pub no_color: bool,

    /// Also write every sample to this capture file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// Store the raw query results in the capture too.
    #[arg(long)]
    pub record_queries: bool,

    /// Never change server settings (hides the controls).
    #[arg(long)]
    pub read_only: bool,

    /// Crash-recovery redo apply rate, for the recovery-time estimate: bytes per second,
    /// with K/M/G/T (powers of 1024), e.g. 12MB/s, 10M, 5000000.
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub recovery_rate: Option<u64>,

    /// Run on built-in synthetic data, without a server.
    #[arg(long)]
    pub demo: bool,
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
            ssl_mode: None,
            ssl_ca: None,
            connect_timeout: Duration::from_secs(5),
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
            demo: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Record samples to FILE without the dashboard.
    Record {
        /// Capture file to write.
        file: PathBuf,
        /// Stop after this long (default: until interrupted).
        #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
        duration: Option<Duration>,
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
    },
    /// Convert data collected by other tools into a capture file.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Export a capture file.
    Export {
        /// Capture file to read.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFormat::Csv, value_name = "FORMAT")]
        format: ExportFormat,
        /// Write here instead of standard output.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Estimate the crash-recovery redo apply rate from a server error log.
    CalibrateRecovery {
        /// The server's error log, with at least one crash recovery in it.
        #[arg(long, value_name = "FILE")]
        error_log: PathBuf,
    },
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Csv,
}

/// A periodic task that may be switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    Never,
    Every(Duration),
}

impl Schedule {
    pub fn period(self) -> Option<Duration> {
        match self {
            Schedule::Never => None,
            Schedule::Every(d) => Some(d),
        }
    }
}

/// A point in a capture, for `replay --from/--to/--at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSpec {
    /// `HH:MM:SS` (or `HH:MM`): that wall-clock time on the capture's day(s).
    Clock(NaiveTime),
    /// An RFC 3339 timestamp.
    Instant(DateTime<FixedOffset>),
    /// `+90s`, `+5m`: this long after the capture's first sample.
    Offset(Duration),
}

impl FromStr for TimeSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if let Some(offset) = t.strip_prefix('+') {
            return parse_duration(offset)
                .map(TimeSpec::Offset)
                .map_err(|e| format!("bad offset {s:?}: {e}"));
        }
        for format in ["%H:%M:%S%.f", "%H:%M"] {
            if let Ok(time) = NaiveTime::parse_from_str(t, format) {
                return Ok(TimeSpec::Clock(time));
            }
        }
        if let Ok(instant) = DateTime::parse_from_rfc3339(t) {
            return Ok(TimeSpec::Instant(instant));
        }
        Err(format!(
            "{s:?} is not a time: use HH:MM:SS (14:05:00), RFC 3339 \
             (2024-03-01T14:05:00Z), or an offset from the start (+90s, +5m)"
        ))
    }
}

/// TLS mode, as the mysql client's `--ssl-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SslMode {
    #[value(name = "DISABLED")]
    Disabled,
    #[value(name = "PREFERRED")]
    Preferred,
    #[value(name = "REQUIRED")]
    Required,
    #[value(name = "VERIFY_CA")]
    VerifyCa,
    #[value(name = "VERIFY_IDENTITY")]
    VerifyIdentity,
}

impl SslMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disabled => "DISABLED",
            SslMode::Preferred => "PREFERRED",
            SslMode::Required => "REQUIRED",
            SslMode::VerifyCa => "VERIFY_CA",
            SslMode::VerifyIdentity => "VERIFY_IDENTITY",
        }
    }
}

impl fmt::Display for SslMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SslMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        <SslMode as ValueEnum>::from_str(s.trim(), true).map_err(|_| {
            format!(
                "unknown ssl-mode {s:?}: use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY"
            )
        })
    }
}

/// A password. `Debug` and `Display` print `***`; only [`Secret::expose`] gives the text.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How to reach the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Socket(PathBuf),
    Tcp { host: String, port: u16 },
}

/// Everything needed to connect, resolved from flags, option files and environment.
/// `Debug` is safe to log: the password prints as `***`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectOptions {
    pub endpoint: Endpoint,
    pub user: String,
    pub password: Option<Secret>,
    pub database: Option<String>,
    /// Only used over TCP; a Unix socket is local and never uses TLS.
    pub ssl_mode: SslMode,
    pub ssl_ca: Option<PathBuf>,
    pub connect_timeout: Duration,
}

impl ConnectOptions {
    /// Plain options for `endpoint`: default user `root`, no password, PREFERRED TLS, 5s timeout.
    pub fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            user: "root".to_owned(),
            password: None,
            database: None,
            ssl_mode: SslMode::Preferred,
            ssl_ca: None,
            connect_timeout: Duration::from_secs(5),
        }
    }

    /// For the header and error messages: `host:port` or `localhost via socket PATH`.
    pub fn label(&self) -> String {
        match &self.endpoint {
            Endpoint::Socket(path) => format!("localhost via socket {}", path.display()),
            Endpoint::Tcp { host, port } if host.contains(':') => format!("[{host}]:{port}"),
            Endpoint::Tcp { host, port } => format!("{host}:{port}"),
        }
    }
}

/// The outcome of resolving the connection: options plus things worth telling the user.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub options: ConnectOptions,
    /// Option files that were read, in order.
    pub files_read: Vec<PathBuf>,
    /// E.g. a default option file that could not be read and was skipped.
    pub warnings: Vec<String>,
}

/// Errors found while resolving the connection options.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error(transparent)]
    OptionFile(#[from] MyCnfError),
    #[error("{key} = {value:?} in option file {origin} is not valid: {reason}; fix that line")]
    BadSetting {
        key: &'static str,
        value: String,
        origin: mycnf::Origin,
        reason: String,
    },
    #[error(
        "`{key}` in option file {origin} needs a value: write `{key} = ...` or remove the line"
    )]
    MissingValue {
        key: &'static str,
        origin: mycnf::Origin,
    },
    #[error("environment variable {name}={value:?} is not valid: {reason}; fix or unset it")]
    BadEnv {
        name: &'static str,
        value: String,
        reason: String,
    },
    #[error("could not tell which user to connect as: give -u USER")]
    NoUser,
    #[error(
        "cannot read the password from the terminal: {0}; give it with -pPASSWORD, \
         in ~/.my.cnf ([client] password=...), or in MYSQL_PWD"
    )]
    Prompt(#[source] io::Error),
}

/// What the process environment contributes; a value, so tests can build their own.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub home: Option<PathBuf>,
    pub os_user: Option<String>,
    pub mysql_pwd: Option<Secret>,
    pub mysql_host: Option<String>,
    pub mysql_tcp_port: Option<String>,
    pub mysql_unix_port: Option<String>,
    /// Global option files, read before the user's.
    pub system_files: Vec<PathBuf>,
    /// Sockets to try, in order, when nothing names one.
    pub socket_candidates: Vec<PathBuf>,
}

impl Environment {
    pub fn from_process() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
        Self {
            home: dirs::home_dir(),
            os_user: os_user(),
            mysql_pwd: std::env::var("MYSQL_PWD").ok().map(Secret),
            mysql_host: var("MYSQL_HOST"),
            mysql_tcp_port: var("MYSQL_TCP_PORT"),
            mysql_unix_port: var("MYSQL_UNIX_PORT"),
            system_files: mycnf::SYSTEM_FILES.iter().map(PathBuf::from).collect(),
            socket_candidates: SOCKET_PATHS.iter().map(PathBuf::from).collect(),
        }
    }
}

/// The user name the mysql client would use: `root` for euid 0, else the passwd entry,
/// else `$USER`/`$LOGNAME`.
fn os_user() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if euid == 0 {
        return Some("root".to_owned());
    }
    passwd_name(euid)
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("LOGNAME").ok())
        .filter(|u| !u.is_empty())
}

fn passwd_name(uid: libc::uid_t) -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: passwd is plain old data; an all-zero value is valid and is only read after
    // getpwuid_r has filled it in (result non-null).
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the duration of the call and buf.len() is its size.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name points into buf, NUL-terminated by getpwuid_r, and buf is alive.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

/// Asks for the password on the controlling terminal without echo.
pub fn prompt_on_tty(prompt: &str) -> io::Result<String> {
    rpassword::prompt_password(prompt)
}

impl Cli {
    /// Resolves the connection from flags, the real option files and environment, prompting
    /// on the terminal if a bare `-p` (or a bare `password` line) asks for it.
    pub fn connect_options(&self) -> Result<Resolved, ConfigError> {
        self.connection
            .resolve(&Environment::from_process(), &mut prompt_on_tty)
    }

    /// `--no-color`, or `NO_COLOR` set to anything but the empty string.
    pub fn no_color(&self) -> bool {
        no_color(
            self.options.no_color,
            std::env::var_os("NO_COLOR").as_deref(),
        )
    }
}

/// Whether colours are off, given the flag and the value of `NO_COLOR` (see no-color.org).
pub fn no_color(flag: bool, no_color_env: Option<&OsStr>) -> bool {
    flag || no_color_env.is_some_and(|v| !v.is_empty())
}

impl ConnectionArgs {
    /// Resolves these flags against option files and `env`. `prompt` is called (with the
    /// prompt text) only when the password has to be typed.
    pub fn resolve(
        &self,
        env: &Environment,
        prompt: &mut dyn FnMut(&str) -> io::Result<String>,
    ) -> Result<Resolved, ConfigError> {
        let files = mycnf::files_to_read(
            &env.system_files,
            env.home.as_deref(),
            self.defaults_file.as_deref(),
            self.defaults_extra_file.as_deref(),
            self.no_defaults,
        );
        let loaded = mycnf::load(&files)?;
        let file = &loaded.settings;

        let host = match &self.host {
            Some(h) => Some(h.clone()),
            None => setting_value("host", &file.host)?.or_else(|| env.mysql_host.clone()),
        }
        .filter(|h| !h.is_empty());

        let port = match self.port {
            Some(p) => p,
            None => match &file.port {
                Some(s) => parse_port_setting(s)?,
                None => match &env.mysql_tcp_port {
                    Some(v) => parse_port(v).map_err(|reason| ConfigError::BadEnv {
                        name: "MYSQL_TCP_PORT",
                        value: v.clone(),
                        reason,
                    })?,
                    None => DEFAULT_PORT,
                },
            },
        };

        let socket: Option<PathBuf> = match &self.socket {
            Some(s) => Some(s.clone()),
            None => setting_value("socket", &file.socket)?
                .or_else(|| env.mysql_unix_port.clone())
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        };

        let local = host.as_deref().is_none_or(|h| h == "localhost");
        let endpoint = if let (false, Some(host)) = (local, &host) {
            Endpoint::Tcp {
                host: host.clone(),
                port,
            }
        } else if self.port.is_some() && self.socket.is_none() {
            // A port typed on the command line means TCP, as the MariaDB client does.
            Endpoint::Tcp {
                host: "127.0.0.1".to_owned(),
                port,
            }
        } else if let Some(socket) = socket {
            Endpoint::Socket(socket)
        } else if let Some(found) = env.socket_candidates.iter().find(|p| p.exists()) {
            Endpoint::Socket(found.clone())
        } else {
            Endpoint::Tcp {
                host: "127.0.0.1".to_owned(),
                port,
            }
        };

        let user = match &self.user {
            Some(u) => u.clone(),
            None => setting_value("user", &file.user)?
                .or_else(|| env.os_user.clone())
                .ok_or(ConfigError::NoUser)?,
        };

        let password = if let Some(p) = &self.password {
            Some(p.clone())
        } else if self.password_prompt {
            Some(ask(prompt)?)
        } else if let Some(setting) = &file.password {
            match &setting.value {
                Some(v) => Some(Secret::new(v.clone())),
                None => Some(ask(prompt)?),
            }
        } else {
            env.mysql_pwd.clone()
        }
        // An empty password is no password ("using password: NO").
        .filter(|p| !p.expose().is_empty());

        let ssl_ca = match &self.ssl_ca {
            Some(p) => Some(p.clone()),
            None => setting_value("ssl-ca", &file.ssl_ca)?
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        };
        let ssl_mode = match self.ssl_mode {
            Some(m) => m,
            None => match &file.ssl_mode {
                Some(s) => {
                    let value = required_value("ssl-mode", s)?;
                    value
                        .parse::<SslMode>()
                        .map_err(|reason| ConfigError::BadSetting {
                            key: "ssl-mode",
                            value: value.to_owned(),
                            origin: s.origin.clone(),
                            reason,
                        })?
                }
                // A CA given without a mode asks for verification, as in the mysql client.
                None if ssl_ca.is_some() => SslMode::VerifyCa,
                None => SslMode::Preferred,
            },
        };

        Ok(Resolved {
            options: ConnectOptions {
                endpoint,
                user,
                password,
                database: self.database.clone(),
                ssl_mode,
                ssl_ca,
                connect_timeout: self.connect_timeout,
            },
            files_read: loaded.read,
            warnings: loaded.warnings,
        })
    }
}

fn ask(prompt: &mut dyn FnMut(&str) -> io::Result<String>) -> Result<Secret, ConfigError> {
    prompt("Enter password: ")
        .map(Secret)
        .map_err(ConfigError::Prompt)
}

fn required_value<'a>(key: &'static str, setting: &'a Setting) -> Result<&'a str, ConfigError> {
    setting
        .value
        .as_deref()
        .ok_or_else(|| ConfigError::MissingValue {
            key,
            origin: setting.origin.clone(),
        })
}

fn setting_value(
    key: &'static str,
    setting: &Option<Setting>,
) -> Result<Option<String>, ConfigError> {
    setting
        .as_ref()
        .map(|s| required_value(key, s).map(str::to_owned))
        .transpose()
}

fn parse_port_setting(setting: &Setting) -> Result<u16, ConfigError> {
    let value = required_value("port", setting)?;
    parse_port(value).map_err(|reason| ConfigError::BadSetting {
        key: "port",
        value: value.to_owned(),
        origin: setting.origin.clone(),
        reason,
    })
}

fn parse_port(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err("a port is a number from 1 to 65535".to_owned()),
    }
}

// ---------------------------------------------------------------------------------------
// Argument parsing

/// Parses the command line (`args` includes the program name, as `std::env::args_os()`).
///
/// A bare `-p`/`--password` becomes a request to prompt, even when another word follows,
/// exactly as the mysql client does; `-pSECRET` and `--password=SECRET` carry the password.
pub fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args = preprocess_password_args(args.into_iter().map(Into::into).collect());
    Cli::try_parse_from(args).map_err(explain_misplaced_option)
}

/// Rewrites a bare `-p`/`--password` before the subcommand into the hidden prompt flag, so
/// clap never takes the next word for the password. Values of other flags and everything
/// from the first positional word (the subcommand) or `--` on are left alone.
pub fn preprocess_password_args(args: Vec<OsString>) -> Vec<OsString> {
    let cmd = Cli::command();
    let takes_value: Vec<String> = cmd
        .get_arguments()
        .filter(|a| a.get_action().takes_values())
        .flat_map(|a| {
            let short = a.get_short().map(|c| format!("-{c}"));
            let long = a.get_long().map(|l| format!("--{l}"));
            short.into_iter().chain(long)
        })
        .collect();

    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.into_iter();
    if let Some(program) = iter.next() {
        out.push(program);
    }
    while let Some(arg) = iter.next() {
        let text = arg.to_str().map(str::to_owned);
        match text.as_deref() {
            Some("-p") | Some("--password") => out.push(OsString::from(PROMPT_FLAG)),
            Some("--") => {
                out.push(arg);
                out.extend(iter);
                break;
            }
            Some(flag) if takes_value.iter().any(|f| f == flag) => {
                out.push(arg);
                if let Some(value) = iter.next() {
                    out.push(value);
                }
            }
            _ if arg.as_encoded_bytes().starts_with(b"-") => out.push(arg),
            _ => {
                // The subcommand: its own arguments are not ours to rewrite.
                out.push(arg);
                out.extend(iter);
                break;
            }
        }
    }
    out
}

/// clap says "unexpected argument '--once'" when a top-level option follows the
/// subcommand; say where it goes instead.
fn explain_misplaced_option(err: clap::Error) -> clap::Error {
    if err.kind() != ErrorKind::UnknownArgument {
        return err;
    }
    let Some(ContextValue::String(given)) = err.get(ContextKind::InvalidArg) else {
        return err;
    };
    let name = given.split('=').next().unwrap_or(given.as_str());
    let mut cmd = Cli::command();
    let is_top_level = cmd.get_arguments().any(|a| {
        a.get_long().is_some_and(|l| name == format!("--{l}"))
            || a.get_short()
                .is_some_and(|c| name.starts_with(&format!("-{c}")) && !name.starts_with("--"))
    });
    if !is_top_level {
        return err;
    }
    cmd.error(
        ErrorKind::UnknownArgument,
        format!(
            "'{name}' is an innodebt option and must come before the subcommand, \
             e.g. `innodebt {name} ... replay FILE`"
        ),
    )
}

fn parse_secret(s: &str) -> Result<Secret, String> {
    Ok(Secret::new(s))
}

/// A duration: `500ms`, `1s`, `2.5s`, `5m`, `1h`, `1m30s`, or a plain number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "{s:?} is not a duration: use a number with ms, s, m or h \
             (500ms, 2.5s, 5m, 1h); a plain number means seconds"
        )
    };
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    let mut total_ns: u128 = 0;
    let mut rest = t;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(num_len);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let unit_ns: u128 = match unit.trim() {
            "" if after.is_empty() && rest.len() == t.len() => 1_000_000_000,
            "ms" => 1_000_000,
            "s" | "sec" => 1_000_000_000,
            "m" | "min" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        total_ns = total_ns
            .checked_add(scaled(number, unit_ns).ok_or_else(bad)?)
            .ok_or_else(bad)?;
        rest = after;
    }
    let secs = u64::try_from(total_ns / 1_000_000_000).map_err(|_| bad())?;
    let nanos = u32::try_from(total_ns % 1_000_000_000).map_err(|_| bad())?;
    Ok(Duration::new(secs, nanos))
}

/// `number` (digits with an optional fraction) times `unit`, exactly, truncated to integers.
fn scaled(number: &str, unit: u128) -> Option<u128> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Exact: (int.frac digits as an integer) * unit / 10^len(frac), truncated.
    let frac = &frac[..frac.len().min(18)];
    let digits = format!("{int}{frac}");
    let mantissa: u128 = digits.parse().ok()?;
    let scale = 10u128.pow(u32::try_from(frac.len()).ok()?);
    Some(mantissa.checked_mul(unit)? / scale)
}

/// A duration that must be more than zero (timeouts, periods).
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err(format!(
            "{s:?} is zero: give a duration above zero, e.g. 5s"
        ));
    }
    Ok(d)
}

/// The poll interval: a duration of at least [`MIN_INTERVAL`].
pub fn parse_interval(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d < MIN_INTERVAL {
        return Err(format!(
            "{} is too short: the minimum is 100ms (polling faster loads the server \
             without showing anything new)",
            s.trim()
        ));
    }
    Ok(d)
}

/// `never` (or `off`, `0`) or a duration.
pub fn parse_schedule(s: &str) -> Result<Schedule, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "never" | "off" | "0" => Ok(Schedule::Never),
        _ => parse_duration(s)
            .map(Schedule::Every)
            .map_err(|e| format!("{e}, or `never`")),
    }
}

/// A rate in bytes per second: `12MB/s`, `10M`, `1.5GiB/s`, `5000000`. K, M, G, T are
/// powers of 1024, as in MySQL option values.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "{s:?} is not a rate: use bytes per second with an optional K, M, G or T \
             (powers of 1024), e.g. 12MB/s, 10M, 5000000"
        )
    };
    let t = s.trim();
    let t = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("/S"))
        .unwrap_or(t);
    let num_len = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(num_len);
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let multiplier: u128 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = scaled(number, multiplier).ok_or_else(bad)?;
    let bytes = u64::try_from(bytes).map_err(|_| bad())?;
    if bytes == 0 {
        return Err(format!("{s:?} is zero: the rate must be above zero"));
    }
    Ok(bytes)
}

/// See [`TimeSpec`].
pub fn parse_time_spec(s: &str) -> Result<TimeSpec, String> {
    TimeSpec::from_str(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let ok = [
            ("500ms", Duration::from_millis(500)),
            ("1s", Duration::from_secs(1)),
            ("2.5s", Duration::from_millis(2500)),
            ("5m", Duration::from_secs(300)),
            ("1h", Duration::from_secs(3600)),
            ("1m30s", Duration::from_secs(90)),
            ("3", Duration::from_secs(3)),
            ("0.25", Duration::from_millis(250)),
            (" 10s ", Duration::from_secs(10)),
            ("0", Duration::ZERO),
        ];
        for (s, want) in ok {
            assert_eq!(parse_duration(s), Ok(want), "{s}");
        }
        for s in [
            "",
            "abc",
            "5x",
            "-1s",
            "1.2.3s",
            "s",
            "5 s s",
            "1s2",
            "99999999999999999999h",
        ] {
            let e = parse_duration(s).unwrap_err();
            assert!(e.contains("not a duration"), "{s}: {e}");
        }
    }

    #[test]
    fn intervals_and_timeouts() {
        assert_eq!(parse_interval("100ms"), Ok(Duration::from_millis(100)));
        let e = parse_interval("50ms").unwrap_err();
        assert!(
            e.contains("50ms is too short") && e.contains("100ms"),
            "{e}"
        );
        assert!(parse_timeout("0s").unwrap_err().contains("zero"));
        assert_eq!(parse_schedule("never"), Ok(Schedule::Never));
        assert_eq!(parse_schedule("OFF"), Ok(Schedule::Never));
        assert_eq!(
            parse_schedule("30s"),
            Ok(Schedule::Every(Duration::from_secs(30)))
        );
        assert!(parse_schedule("soon").unwrap_err().contains("never"));
    }

    #[test]
    fn rates() {
        let mib = 1u64 << 20;
        let ok = [
            ("12MB/s", 12 * mib),
            ("10M", 10 * mib),
            ("10m", 10 * mib),
            ("1.5GiB/s", 3 << 29),
            ("5000000", 5_000_000),
            ("64K", 65536),
            ("100B/s", 100),
        ];
        for (s, want) in ok {
            assert_eq!(parse_rate(s), Ok(want), "{s}");
        }
        for s in ["", "fast", "12XB/s", "-5M", "0", "1.2.3M"] {
            assert!(parse_rate(s).is_err(), "{s}");
        }
    }

    #[test]
    fn time_specs() {
        assert_eq!(
            parse_time_spec("14:05:00"),
            Ok(TimeSpec::Clock(NaiveTime::from_hms_opt(14, 5, 0).unwrap()))
        );
        assert_eq!(
            parse_time_spec("14:05"),
            Ok(TimeSpec::Clock(NaiveTime::from_hms_opt(14, 5, 0).unwrap()))
        );
        assert_eq!(
            parse_time_spec("+90s"),
            Ok(TimeSpec::Offset(Duration::from_secs(90)))
        );
        assert_eq!(
            parse_time_spec("+5m"),
            Ok(TimeSpec::Offset(Duration::from_secs(300)))
        );
        let TimeSpec::Instant(t) = parse_time_spec("2024-03-01T14:05:00+02:00").unwrap() else {
            panic!("not an instant");
        };
        assert_eq!(t.to_rfc3339(), "2024-03-01T14:05:00+02:00");
        for s in ["25:00:00", "yesterday", "+", "+5x", "2024-13-01T00:00:00Z"] {
            assert!(parse_time_spec(s).is_err(), "{s}");
        }
    }

    #[test]
    fn ssl_mode_parses_case_insensitively() {
        assert_eq!("verify_ca".parse::<SslMode>(), Ok(SslMode::VerifyCa));
        assert_eq!("Required".parse::<SslMode>(), Ok(SslMode::Required));
        assert!(
            "verify"
                .parse::<SslMode>()
                .unwrap_err()
                .contains("VERIFY_IDENTITY")
        );
    }

    #[test]
    fn defaults_match_an_empty_command_line() {
        let parsed = parse_args(["innodebt"]).unwrap();
        assert_eq!(
            format!("{:?}", parsed.connection),
            format!("{:?}", ConnectionArgs::default())
        );
        assert_eq!(
            format!("{:?}", parsed.options),
            format!("{:?}", Options::default())
        );
    }

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("hunter2");
        assert_eq!(format!("{s} {s:?}"), "*** ***");
        assert_eq!(s.expose(), "hunter2");
    }

    #[test]
    fn labels() {
        let mut o = ConnectOptions::new(Endpoint::Tcp {
            host: "db1".into(),
            port: 3306,
        });
        assert_eq!(o.label(), "db1:3306");
        o.endpoint = Endpoint::Tcp {
            host: "::1".into(),
            port: 3307,
        };
        assert_eq!(o.label(), "[::1]:3307");
        o.endpoint = Endpoint::Socket("/run/mysqld/mysqld.sock".into());
        assert_eq!(o.label(), "localhost via socket /run/mysqld/mysqld.sock");
    }

    #[test]
    fn no_color_rules() {
        assert!(!no_color(false, None));
        assert!(!no_color(false, Some(OsStr::new(""))));
        assert!(no_color(false, Some(OsStr::new("0"))));
        assert!(no_color(true, None));
    }

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn preprocessing_rewrites_only_bare_password_flags() {
        assert_eq!(
            preprocess_password_args(os(&["innodebt", "-p", "-u", "-p", "--password", "x"])),
            os(&["innodebt", PROMPT_FLAG, "-u", "-p", PROMPT_FLAG, "x"])
        );
        assert_eq!(
            preprocess_password_args(os(&[
                "innodebt",
                "-psecret",
                "--password=s",
                "replay",
                "-p"
            ])),
            os(&["innodebt", "-psecret", "--password=s", "replay", "-p"])
        );
        assert_eq!(
            preprocess_password_args(os(&["innodebt", "--", "-p"])),
            os(&["innodebt", "--", "-p"])
        );
    }
}
