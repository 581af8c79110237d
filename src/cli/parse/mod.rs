//! The command line as clap parses it: the definition (`args`) with the help's closing words,
//! a bare `-p` rewritten first (`argv`), the mysql client's variables set apart after (`env`).

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};

use super::args::Cli;
use super::argv::rewrite_password_args;

/// The command as `--help`, the man pages and the completions show it: the arguments, then
/// the keys (from the keymap, the table dispatch reads) and where flags go.
pub fn command() -> clap::Command {
    super::env::empty_port_is_unset(Cli::command()).after_help(format!(
        "{}\n\
         Connection flags go before or after the subcommand; --once, --format, --demo and \
         --record before it, e.g.\n  \
         innodebt -h db1 -u monitor -p record capture.idbt --duration 10m\n  \
         innodebt serve --interval 5s -u monitor --login-path monitoring\n  \
         innodebt --once --format json replay capture.idbt --at 14:05:00",
        crate::keymap::help_text()
    ))
}

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
    let matches = command()
        .try_get_matches_from(args)
        .map_err(explain_misplaced_option)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    super::env::take_env_values(&matches, &mut cli);
    cli.options.format_given =
        matches.value_source("format") == Some(clap::parser::ValueSource::CommandLine);
    Ok(cli)
}

/// clap says "unexpected argument '--once'" when a top-level option that is not global
/// (`--once`, `--format`, `--demo`, `--record`) follows a subcommand that has no such flag;
/// say where it goes instead.
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

/// A bare `-p`/`--password` made the hidden prompt flag, anywhere on the line (`argv`).
pub fn preprocess_password_args(args: Vec<OsString>) -> Vec<OsString> {
    rewrite_password_args(Cli::command(), args)
}

#[cfg(test)]
mod argv_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{ConnectionArgs, Options};

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
}
