//! The mysql client's environment variables — MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT,
//! MYSQL_PWD — read by clap (`env` on the connection flags, so `--help` shows them) and then
//! set apart from the flags: in the mysql client a variable counts after the option files,
//! which clap, knowing no option files, cannot do.

use clap::ArgMatches;
use clap::parser::ValueSource;

use super::args::{Cli, Command};

/// `MYSQL_TCP_PORT=` (set, empty) means the default port to the mysql client (`atoi("")`);
/// clap would parse "" as a port and fail, so the flag forgets the variable then.
pub(super) fn empty_port_is_unset(cmd: clap::Command) -> clap::Command {
    if std::env::var_os("MYSQL_TCP_PORT").is_some_and(|v| v.is_empty()) {
        cmd.mut_arg("port", |a| a.env(None::<&'static str>))
    } else {
        cmd
    }
}

fn from_env(matches: &ArgMatches, id: &str) -> bool {
    matches.value_source(id) == Some(ValueSource::EnvVariable)
}

/// Moves each connection value clap took from the environment out of the flag's field into
/// `cli.connection.from_env`. An empty variable is no value, as in the mysql client.
pub(super) fn take_env_values(matches: &ArgMatches, cli: &mut Cli) {
    let c = &mut cli.connection;
    if from_env(matches, "host") {
        c.from_env.host = c.host.take().filter(|h| !h.is_empty());
    }
    if from_env(matches, "port") {
        c.from_env.tcp_port = c.port.take();
    }
    if from_env(matches, "socket") {
        c.from_env.unix_port = c.socket.take().filter(|s| !s.as_os_str().is_empty());
    }
    if from_env(matches, "password") {
        c.from_env.pwd = c.password.take();
    }
    // fleet's `-h` shares the id: MYSQL_HOST names no server of the fleet.
    if let (Some(Command::Fleet { args }), Some(("fleet", sub))) =
        (&mut cli.command, matches.subcommand())
        && from_env(sub, "host")
    {
        args.hosts.clear();
    }
}
