//! The command line: the arguments (`args`), their resolution with option files and the
//! environment into [`ConnectOptions`] (`resolve`), and the value parsers both use
//! (`values`). Pure values out: nothing here connects or draws.

mod args;
mod argv;
mod check;
mod env;
pub mod manual;
mod parse;
mod resolve;
mod unused;
mod values;

pub use args::{
    Cli, Command, ConnectionArgs, ExportFormat, FleetArgs, ImportSource, MysqlEnv, Options,
    OutputFormat, PrometheusArgs, PrometheusSource, ReportFormat, ServeArgs, TriggerArgs,
};
pub use check::{CheckArgs, usage_error_status};
pub use parse::{command, parse_args, preprocess_password_args};
pub use resolve::{
    ConfigError, DEFAULT_PORT, Environment, Resolved, SOCKET_PATHS, no_color, prompt_on_tty,
};
pub use values::{
    CaptureRange, MIN_INTERVAL, Schedule, TimeSpec, compact_duration, parse_capture_range,
    parse_duration, parse_interval, parse_rate, parse_schedule, parse_size, parse_time_spec,
    parse_timeout, parse_what_if,
};

pub use innodebt_poller::connect::{ConnectOptions, Endpoint, Secret, SslMode};
