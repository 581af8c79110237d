//! Options that would do nothing where they are given. `--once`, `--format`, `--demo` and
//! `--record` are the dashboard's, parsed before any subcommand, and `--record-queries` is
//! global: clap accepts them with every subcommand, so which modes honour them is said here,
//! once, and a command line that gives one where it does nothing is refused with the option's
//! name and what to do instead. What each mode honours is in docs/cli.md.

use super::args::{Cli, Command, OutputFormat};

impl Cli {
    /// The first option on this command line that its mode would ignore, as the message that
    /// refuses it; `None` when every option given does something.
    pub fn unused_option(&self) -> Option<String> {
        let o = &self.options;
        let format = o.format_given.then(|| format_word(o.format));
        let Some(cmd) = &self.command else {
            return self.unused_by_the_dashboard(format);
        };
        let sub = name(cmd);
        if o.demo {
            return Some(match cmd {
                Command::Replay { .. } => "--demo replays the built-in capture; it does not go \
                     with `replay FILE`: drop --demo to replay FILE, or `replay FILE` for the demo"
                    .to_owned(),
                _ => format!(
                    "--demo opens the built-in capture in the dashboard; it does not go with \
                     `{sub}`: drop --demo"
                ),
            });
        }
        if o.record.is_some() {
            return Some(match cmd {
                Command::Record { .. } => {
                    "`record FILE` names the capture file already: drop --record".to_owned()
                }
                Command::Serve(_) => "serve records with --record-dir DIR (a rolling capture \
                     of each target), not --record FILE"
                    .to_owned(),
                _ => format!(
                    "--record records what the live dashboard polls; `{sub}` records nothing: \
                     drop --record (`innodebt record FILE` records a server without the dashboard)"
                ),
            });
        }
        if o.once {
            match cmd {
                // `replay`'s one moment; `compare`: the report, not the screen.
                Command::Replay { .. } | Command::Compare { .. } => {}
                Command::Record { .. } => {
                    return Some(
                        "--once takes one look and records nothing, and `record` runs until \
                         --duration or Ctrl-C: drop --once (`record FILE --duration 1m` records \
                         a minute; `innodebt --once` takes one look)"
                            .to_owned(),
                    );
                }
                Command::Export { .. } => {
                    return Some(
                        "export writes every sample of the range already: drop --once (for one \
                         moment, `innodebt replay FILE --once --at TIME`)"
                            .to_owned(),
                    );
                }
                Command::Check(_) => {
                    return Some("check always takes one look: drop --once".to_owned());
                }
                _ => return Some(format!("--once does nothing with `{sub}`: drop it")),
            }
        }
        if let Some(f) = format {
            match cmd {
                Command::Replay { once, what_if, .. } => {
                    if !(o.once || *once || !what_if.is_empty()) {
                        return Some(replay_format_alone(f));
                    }
                }
                Command::Compare { .. } => {}
                Command::Export { .. } => {
                    return Some(format!(
                        "the --format before `export` is --once's: export's own goes after the \
                         file, `innodebt export FILE --format {}` (csv, openmetrics or json)",
                        if f == "json" { "json" } else { "csv" }
                    ));
                }
                Command::Report { .. } => {
                    return Some(format!(
                        "the --format {f} before `report` is --once's: report's own goes after \
                         the capture, `innodebt report FILE --format markdown -o PAGE` (html or \
                         markdown)"
                    ));
                }
                Command::Check(_) => {
                    return Some(format!(
                        "check prints the monitoring-plugin status line (the numbers are in its \
                         performance data) whatever --format says: drop --format {f}"
                    ));
                }
                _ => return Some(format!("--format {f} does nothing with `{sub}`: drop it")),
            }
        }
        // The replay's own --format, alone, is as idle as the top-level one.
        if let Command::Replay {
            once,
            format: Some(f),
            what_if,
            ..
        } = cmd
            && !(o.once || *once || !what_if.is_empty())
        {
            return Some(replay_format_alone(format_word(*f)));
        }
        if o.record_queries && !matches!(cmd, Command::Record { .. } | Command::Serve(_)) {
            return Some(format!(
                "--record-queries stores the raw query results in a capture, and `{sub}` \
                 writes none: drop it (it goes with --record FILE, `record FILE` and \
                 `serve --record-dir DIR`)"
            ));
        }
        None
    }

    /// No subcommand: the live dashboard, `--once`, or the demo.
    fn unused_by_the_dashboard(&self, format: Option<&str>) -> Option<String> {
        let o = &self.options;
        if o.demo && o.record.is_some() {
            return Some(
                "--record records a live server; --demo replays a capture already made: drop \
                 --record (or --demo, to watch and record a server)"
                    .to_owned(),
            );
        }
        if o.once && o.record.is_some() {
            return Some(
                "--record goes with the dashboard; --once takes one look and records nothing: \
                 drop --once, or record without the dashboard with `innodebt record FILE \
                 --duration 1m`"
                    .to_owned(),
            );
        }
        if let (Some(f), false) = (format, o.once) {
            let demo = if o.demo { " --demo" } else { "" };
            return Some(format!(
                "--format {f} goes with --once; without --once innodebt{demo} opens the \
                 dashboard: `innodebt{demo} --once --format {f}` prints one look"
            ));
        }
        if o.record_queries && (o.record.is_none() || o.demo) {
            return Some(
                "--record-queries stores the raw query results in a capture, and nothing is \
                 recorded: give --record FILE with it, or use `innodebt record FILE \
                 --record-queries`"
                    .to_owned(),
            );
        }
        None
    }
}

fn replay_format_alone(f: &str) -> String {
    format!(
        "--format {f} goes with --once (one moment: `replay FILE --once --format {f}`) or \
         --what-if (the what-if summary); without them replay opens the dashboard"
    )
}

fn format_word(f: OutputFormat) -> &'static str {
    match f {
        OutputFormat::Text => "text",
        OutputFormat::Json => "json",
    }
}

/// The subcommand as it is typed.
fn name(cmd: &Command) -> &'static str {
    match cmd {
        Command::Record { .. } => "record",
        Command::Replay { .. } => "replay",
        Command::Compare { .. } => "compare",
        Command::Import { .. } => "import",
        Command::Export { .. } => "export",
        Command::Report { .. } => "report",
        Command::Serve(_) => "serve",
        Command::Fleet { .. } => "fleet",
        Command::Check(_) => "check",
        Command::CalibrateRecovery { .. } => "calibrate-recovery",
        Command::Completions { .. } => "completions",
        Command::Man { .. } => "man",
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::parse_args;

    fn unused(args: &[&str]) -> Option<String> {
        let mut argv = vec!["innodebt"];
        argv.extend_from_slice(args);
        match parse_args(argv) {
            Ok(cli) => cli.unused_option(),
            Err(e) => panic!("{args:?} did not parse: {e}"),
        }
    }

    /// Every combination a mode honours is let through.
    #[test]
    fn options_a_mode_honours_pass() {
        for args in [
            &[][..],
            &["--once"],
            &["--once", "--format", "json"],
            &["--format", "text", "--once"],
            &["--record", "x.idbt"],
            &["--record", "x.idbt", "--record-queries"],
            &["--demo"],
            &["--demo", "--once", "--format", "json"],
            &["replay", "x.idbt"],
            &["replay", "x.idbt", "--once", "--format", "json"],
            &[
                "--once", "--format", "json", "replay", "x.idbt", "--at", "+5m",
            ],
            &["--once", "replay", "x.idbt", "--format", "text"],
            &["replay", "x.idbt", "--what-if", "innodb_log_file_size=1G"],
            &[
                "replay",
                "x.idbt",
                "--what-if",
                "innodb_log_file_size=1G",
                "--format",
                "json",
            ],
            &[
                "--format",
                "json",
                "replay",
                "x.idbt",
                "--what-if",
                "innodb_log_file_size=1G",
            ],
            &["compare", "a.idbt", "b.idbt"],
            &["--format", "json", "compare", "a.idbt", "b.idbt"],
            &["--once", "compare", "a.idbt", "b.idbt"],
            &["export", "x.idbt", "--format", "json"],
            &["report", "x.idbt", "--format", "markdown", "-o", "x.md"],
            &["--record-queries", "record", "x.idbt"],
            &["--record-queries", "serve"],
            &["check", "-w", "history>5"],
            &["--interval", "5s", "--theme", "light", "fleet", "-h", "db1"],
        ] {
            assert_eq!(unused(args), None, "{args:?}");
        }
    }

    /// Each idle combination is refused, the message naming the option.
    #[test]
    fn options_that_would_do_nothing_are_named() {
        for (args, option) in [
            (&["--once", "--record", "x.idbt"][..], "--record"),
            (&["--format", "json"], "--format json"),
            (&["--demo", "--format", "json"], "--format json"),
            (&["--demo", "--record", "x.idbt"], "--record"),
            (&["--record-queries"], "--record-queries"),
            (&["--once", "--record-queries"], "--record-queries"),
            (&["--demo", "replay", "x.idbt"], "--demo"),
            (&["--demo", "export", "x.idbt"], "--demo"),
            (&["--demo", "compare", "a", "b"], "--demo"),
            (&["--demo", "serve"], "--demo"),
            (&["--demo", "fleet", "-h", "db1"], "--demo"),
            (&["--demo", "check"], "--demo"),
            (&["--record", "y.idbt", "replay", "x.idbt"], "--record"),
            (&["--record", "y.idbt", "record", "x.idbt"], "--record"),
            (&["--record", "y.idbt", "serve"], "--record-dir"),
            (&["--record", "y.idbt", "export", "x.idbt"], "--record"),
            (&["--once", "export", "x.idbt"], "--once"),
            (&["--once", "record", "x.idbt"], "--once"),
            (&["--once", "fleet", "-h", "db1"], "--once"),
            (&["--once", "check"], "--once"),
            (&["--format", "json", "export", "x.idbt"], "--format json"),
            (
                &["--format", "json", "report", "x.idbt", "-o", "x.html"],
                "--format json",
            ),
            (&["--once", "report", "x.idbt", "-o", "x.html"], "--once"),
            (&["--format", "json", "replay", "x.idbt"], "--format json"),
            (&["replay", "x.idbt", "--format", "json"], "--format json"),
            (&["--format", "text", "check"], "--format text"),
            (&["--format", "json", "serve"], "--format json"),
            (
                &["--record-queries", "replay", "x.idbt"],
                "--record-queries",
            ),
            (
                &["--record-queries", "fleet", "-h", "db1"],
                "--record-queries",
            ),
        ] {
            let message = unused(args).unwrap_or_else(|| panic!("{args:?} passed"));
            assert!(message.contains(option), "{args:?}: {message}");
        }
    }
}
