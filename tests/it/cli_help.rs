//! Every subcommand, found in clap's own command tree (a new one is covered without touching
//! this file), answers `--help` and `-?` with its usage and exit 0, and takes the connection
//! flags after its name as well as before (they are global, as `git -C`).

use std::process::{Command, Stdio};
use std::time::Duration;

use innodebt::cli::{Command as Sub, parse_args};

/// Every subcommand's path from the top (`["import", "pt-stalk"]`), clap's `help` left out.
fn subcommand_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_owned());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut cmd = innodebt::cli::command();
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, &[], &mut out);
    out
}

fn find<'a>(cmd: &'a clap::Command, path: &[String]) -> &'a clap::Command {
    path.iter().fold(cmd, |c, name| {
        c.find_subcommand(name)
            .unwrap_or_else(|| panic!("no subcommand {name}"))
    })
}

fn innodebt(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_innodebt"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run innodebt");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_subcommand_answers_help_and_question_mark() {
    let paths = subcommand_paths();
    for needed in ["replay", "serve", "fleet", "pt-stalk", "completions", "man"] {
        assert!(
            paths.iter().any(|p| p.last().is_some_and(|n| n == needed)),
            "{needed} not found in {paths:?}"
        );
    }
    let mut all = vec![Vec::new()];
    all.extend(paths);
    for path in &all {
        for flag in ["--help", "-?"] {
            let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
            args.push(flag);
            let (code, stdout, stderr) = innodebt(&args);
            assert_eq!(code, Some(0), "{args:?}: exit {code:?}\n{stderr}");
            let usage = format!("Usage: innodebt {}", path.join(" "));
            assert!(
                stdout.contains(usage.trim_end()),
                "{args:?}: no {usage:?} in\n{stdout}"
            );
            // -h is the host, as in the mysql client; help shows it so.
            assert!(stdout.contains("-h, --host"), "{args:?}:\n{stdout}");
            assert!(stdout.contains("-?, --help"), "{args:?}:\n{stdout}");
        }
    }
}

/// The arguments a subcommand cannot do without, made up from its definition.
fn required_args(cmd: &clap::Command) -> Vec<String> {
    let mut args = Vec::new();
    for arg in cmd.get_arguments().filter(|a| a.is_required_set()) {
        // A value of the argument's own kind: one of its choices, a time, else a file name.
        let time = arg
            .get_value_names()
            .is_some_and(|names| names.iter().any(|n| n.as_str() == "TIME"));
        let value = match arg.get_possible_values().first() {
            Some(v) => v.get_name().to_owned(),
            None if time => "14:00:00".to_owned(),
            None => "x.idbt".to_owned(),
        };
        match arg.get_long() {
            Some(long) if !arg.is_positional() => {
                args.extend([format!("--{long}"), value]);
            }
            _ => args.push(value),
        }
    }
    args
}

#[test]
fn connection_flags_parse_after_every_subcommand() {
    let mut top = innodebt::cli::command();
    top.build();
    for path in subcommand_paths() {
        let cmd = find(&top, &path);
        if cmd.has_subcommands() {
            continue;
        }
        let mut args = vec!["innodebt".to_owned()];
        args.extend(path.iter().cloned());
        args.extend(required_args(cmd));
        args.extend(
            [
                "-u",
                "monitor",
                "-P",
                "3307",
                "--connect-timeout",
                "2s",
                "--interval",
                "5s",
                "--ssl-mode",
                "required",
            ]
            .map(String::from),
        );
        let cli = parse_args(&args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(cli.connection.user.as_deref(), Some("monitor"), "{args:?}");
        assert_eq!(cli.connection.port, Some(3307), "{args:?}");
        assert_eq!(
            cli.connection.connect_timeout,
            Duration::from_secs(2),
            "{args:?}"
        );
        assert_eq!(cli.options.interval, Duration::from_secs(5), "{args:?}");
    }
}

#[test]
fn the_issues_examples_parse() {
    let cli = parse_args(["innodebt", "serve", "--interval", "5s", "-u", "monitor"]).unwrap();
    assert!(matches!(cli.command, Some(Sub::Serve(_))));
    assert_eq!(cli.options.interval, Duration::from_secs(5));
    assert_eq!(cli.connection.user.as_deref(), Some("monitor"));

    let cli = parse_args([
        "innodebt",
        "replay",
        "demo.idbt",
        "--once",
        "-u",
        "x",
        "-h",
        "db1",
    ])
    .unwrap();
    assert!(matches!(cli.command, Some(Sub::Replay { once: true, .. })));
    assert_eq!(cli.connection.host.as_deref(), Some("db1"));

    // Before the subcommand still works, and mixes with after.
    let cli = parse_args([
        "innodebt",
        "-u",
        "a",
        "--login-path",
        "prod",
        "record",
        "x.idbt",
        "-P",
        "3310",
    ])
    .unwrap();
    assert_eq!(cli.connection.user.as_deref(), Some("a"));
    assert_eq!(cli.connection.login_path.as_deref(), Some("prod"));
    assert_eq!(cli.connection.port, Some(3310));

    // fleet's -h names servers, several; the other connection flags are the global ones.
    let cli = parse_args([
        "innodebt", "fleet", "-h", "db1", "-h", "db2:3307", "-u", "m", "-p",
    ])
    .unwrap();
    let Some(Sub::Fleet { args }) = &cli.command else {
        panic!("fleet expected");
    };
    assert_eq!(args.hosts, ["db1", "db2:3307"]);
    assert_eq!(cli.connection.user.as_deref(), Some("m"));
    assert!(cli.connection.password_prompt);

    // Durations and sizes as a DBA writes them.
    let cli = parse_args([
        "innodebt",
        "serve",
        "--record-dir",
        "d",
        "--retain",
        "7d",
        "--max-disk",
        "1GiB",
        "--trigger",
        "purge_lag_trap",
        "--before",
        "90s",
        "--after",
        "2h30m",
        "--incident-max-disk",
        "500MB",
    ])
    .unwrap();
    let Some(Sub::Serve(serve)) = &cli.command else {
        panic!("serve expected");
    };
    assert_eq!(serve.retain, Some(Duration::from_secs(7 * 86400)));
    assert_eq!(serve.max_disk, Some(1 << 30));
    assert_eq!(serve.trigger.before, Some(Duration::from_secs(90)));
    assert_eq!(serve.trigger.after, Some(Duration::from_secs(9000)));
    assert_eq!(serve.incident_max_disk, Some(500_000_000));

    // The error names the accepted forms.
    let e = parse_args(["innodebt", "serve", "--retain", "a week"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("7d") && e.contains("2h30m"), "{e}");
    let e = parse_args(["innodebt", "serve", "--max-disk", "lots"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("MiB") && e.contains("500MB"), "{e}");
    // The interval's floor stays.
    let e = parse_args(["innodebt", "serve", "--interval", "10ms"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("minimum is 100ms"), "{e}");
}

#[test]
fn help_after_global_flags_after_the_subcommand() {
    let (code, stdout, stderr) =
        innodebt(&["serve", "--interval", "5s", "-u", "monitor", "--help"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("Usage: innodebt serve"), "{stdout}");
}

/// The MYSQL_* variables are clap's: named in --help, the password's value never shown.
#[test]
fn help_names_the_environment_but_not_the_password() {
    let out = Command::new(env!("CARGO_BIN_EXE_innodebt"))
        .args(["serve", "--help"])
        .env("MYSQL_PWD", "Sekrit-in-env-9")
        .env("MYSQL_HOST", "envhost")
        .stdin(Stdio::null())
        .output()
        .expect("run innodebt");
    let help = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    for var in [
        "MYSQL_HOST",
        "MYSQL_TCP_PORT",
        "MYSQL_UNIX_PORT",
        "MYSQL_PWD",
    ] {
        assert!(help.contains(&format!("[env: {var}")), "{var}:\n{help}");
    }
    assert!(!help.contains("Sekrit-in-env-9"), "{help}");
}

#[test]
fn completions_and_man_print_what_the_package_installs() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef innodebt"),
        ("fish", "complete -c innodebt"),
    ] {
        let (code, stdout, stderr) = innodebt(&["completions", shell]);
        assert_eq!(code, Some(0), "{shell}: {stderr}");
        assert!(stdout.contains(marker), "{shell}: {stdout:.200}");
        assert!(stdout.contains("login-path"), "{shell}");
    }
    let (code, stdout, _) = innodebt(&["man"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains(".TH innodebt 1"), "{stdout:.200}");
    let (code, stdout, _) = innodebt(&["man", "serve"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains(".TH innodebt-serve 1"), "{stdout:.200}");
    assert!(stdout.contains("SERVERS FILE"));
    let (code, _, stderr) = innodebt(&["man", "nosuch"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("serve") && stderr.contains("fleet"),
        "{stderr}"
    );

    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("man1");
    let (code, stdout, stderr) = innodebt(&["man", "--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    for page in [
        "innodebt.1",
        "innodebt-serve.1",
        "innodebt-import-pt-stalk.1",
    ] {
        assert!(out_dir.join(page).is_file(), "{page} not written: {stdout}");
    }
}

/// An empty MYSQL_TCP_PORT is no port, as in the mysql client; MYSQL_HOST names no server of
/// a fleet (fleet's -h does).
#[test]
fn empty_or_misplaced_environment() {
    let out = Command::new(env!("CARGO_BIN_EXE_innodebt"))
        .args(["--no-defaults", "man"])
        .env("MYSQL_TCP_PORT", "")
        .stdin(Stdio::null())
        .output()
        .expect("run innodebt");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_innodebt"))
        .args(["fleet", "-u", "monitor"])
        .env("MYSQL_HOST", "db9.invalid")
        .stdin(Stdio::null())
        .output()
        .expect("run innodebt");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no servers"), "{stderr}");
}
