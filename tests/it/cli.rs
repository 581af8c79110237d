//! The command line as a DBA types it: mysql-client flags, option files, MYSQL_PWD, durations,
//! and the messages for mistakes.

use std::cell::Cell;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::error::ErrorKind;
use innodebt::cli::{
    Cli, Command, ConfigError, ConnectOptions, Endpoint, Environment, ExportFormat, ImportSource,
    OutputFormat, Schedule, Secret, SslMode, TimeSpec, parse_args,
};

fn parse(args: &[&str]) -> Cli {
    let mut argv = vec!["innodebt"];
    argv.extend_from_slice(args);
    match parse_args(argv) {
        Ok(cli) => cli,
        Err(e) => panic!("{args:?} did not parse: {e}"),
    }
}

fn parse_err(args: &[&str]) -> clap::Error {
    let mut argv = vec!["innodebt"];
    argv.extend_from_slice(args);
    match parse_args(argv) {
        Ok(cli) => panic!("{args:?} parsed but should not: {cli:?}"),
        Err(e) => e,
    }
}

/// An environment with no system files, no home, no sockets, and a known OS user.
fn bare_env() -> Environment {
    Environment {
        os_user: Some("osuser".into()),
        ..Environment::default()
    }
}

fn no_prompt(_: &str) -> io::Result<String> {
    panic!("must not prompt")
}

fn resolve(cli: &Cli, env: &Environment) -> Result<ConnectOptions, ConfigError> {
    cli.connection
        .resolve(env, &mut no_prompt)
        .map(|r| r.options)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the option file");
    path
}

fn password(o: &ConnectOptions) -> Option<&str> {
    o.password.as_ref().map(Secret::expose)
}

#[test]
fn mysql_client_connection_flags() {
    let cli = parse(&[
        "-h",
        "db1",
        "-P",
        "3307",
        "-u",
        "dba",
        "-pSECRET",
        "--ssl-mode",
        "required",
    ]);
    let c = &cli.connection;
    assert_eq!(c.host.as_deref(), Some("db1"));
    assert_eq!(c.port, Some(3307));
    assert_eq!(c.user.as_deref(), Some("dba"));
    assert_eq!(c.password.as_ref().map(Secret::expose), Some("SECRET"));
    assert!(!c.password_prompt);
    assert_eq!(c.ssl_mode, Some(SslMode::Required));
    assert_eq!(c.connect_timeout, Duration::from_secs(5));
    assert!(cli.command.is_none());

    let cli = parse(&[
        "--host=db2",
        "--user=x",
        "--password=p@ss word",
        "-S",
        "/s.sock",
    ]);
    assert_eq!(
        cli.connection.password.as_ref().map(Secret::expose),
        Some("p@ss word")
    );
    assert_eq!(cli.connection.socket.as_deref(), Some(Path::new("/s.sock")));

    // A password may start with a dash when attached.
    let cli = parse(&["-p-dash"]);
    assert_eq!(
        cli.connection.password.as_ref().map(Secret::expose),
        Some("-dash")
    );

    let cli = parse(&[
        "--ssl-mode",
        "verify_identity",
        "--ssl-ca",
        "ca.pem",
        "--connect-timeout",
        "2.5s",
    ]);
    assert_eq!(cli.connection.ssl_mode, Some(SslMode::VerifyIdentity));
    assert_eq!(cli.connection.connect_timeout, Duration::from_millis(2500));
}

#[test]
fn bare_password_flag_prompts_even_before_another_word() {
    let cli = parse(&["-p"]);
    assert!(cli.connection.password_prompt);
    assert!(cli.connection.password.is_none());

    // As in the mysql client, the next word is not the password.
    let cli = parse(&["-u", "dba", "-p", "replay", "cap.idbt"]);
    assert!(cli.connection.password_prompt);
    assert!(matches!(cli.command, Some(Command::Replay { .. })));

    let cli = parse(&["--password", "--once"]);
    assert!(cli.connection.password_prompt);
    assert!(cli.options.once);

    // A flag's value is not taken for the subcommand, so a later -p still prompts.
    let cli = parse(&["-h", "db1", "-p"]);
    assert!(cli.connection.password_prompt);
    assert_eq!(cli.connection.host.as_deref(), Some("db1"));

    // After the subcommand too (the connection flags are global).
    let cli = parse(&["replay", "cap", "-p"]);
    assert!(cli.connection.password_prompt);
    assert!(cli.connection.password.is_none());
}

#[test]
fn the_prompt_is_injectable_and_called_once() {
    let cli = parse(&["-p", "-u", "dba"]);
    let calls = Cell::new(0);
    let mut prompt = |text: &str| {
        assert!(text.contains("password"));
        calls.set(calls.get() + 1);
        Ok("typed".to_owned())
    };
    let resolved = cli.connection.resolve(&bare_env(), &mut prompt).unwrap();
    assert_eq!(password(&resolved.options), Some("typed"));
    assert_eq!(calls.get(), 1);

    let mut failing = |_: &str| Err(io::Error::other("no tty"));
    let e = cli
        .connection
        .resolve(&bare_env(), &mut failing)
        .unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("no tty") && msg.contains("MYSQL_PWD"), "{msg}");
}

#[test]
fn precedence_flags_over_option_files_over_mysql_pwd() {
    let dir = tempfile::tempdir().unwrap();
    let cnf = write(
        dir.path(),
        "my.cnf",
        "[client]\nuser = fileuser\npassword = filepw\nhost = filehost\nport = 3310\n\
         [innodebt]\nuser = tooluser\n[mysql]\nuser = ignored\n",
    );
    let cnf = cnf.to_str().unwrap();
    let env = Environment {
        mysql_pwd: Some(Secret::new("envpw")),
        mysql_host: Some("envhost".into()),
        ..bare_env()
    };

    // Option file over MYSQL_PWD; [innodebt] over [client].
    let o = resolve(&parse(&["--defaults-file", cnf]), &env).unwrap();
    assert_eq!(password(&o), Some("filepw"));
    assert_eq!(o.user, "tooluser");
    assert_eq!(
        o.endpoint,
        Endpoint::Tcp {
            host: "filehost".into(),
            port: 3310
        }
    );

    // Command line over the option file.
    let o = resolve(
        &parse(&[
            "--defaults-file",
            cnf,
            "-pflagpw",
            "-u",
            "flaguser",
            "-h",
            "flaghost",
            "-P",
            "3311",
        ]),
        &env,
    )
    .unwrap();
    assert_eq!(password(&o), Some("flagpw"));
    assert_eq!(o.user, "flaguser");
    assert_eq!(o.label(), "flaghost:3311");

    // With no password in the files, MYSQL_PWD is used; with no files, MYSQL_HOST too.
    let nopw = write(dir.path(), "nopw.cnf", "[client]\nuser = u\n");
    let o = resolve(&parse(&["--defaults-file", nopw.to_str().unwrap()]), &env).unwrap();
    assert_eq!(password(&o), Some("envpw"));
    let o = resolve(&parse(&["--no-defaults"]), &env).unwrap();
    assert_eq!(password(&o), Some("envpw"));
    assert_eq!(o.label(), "envhost:3306");
    assert_eq!(o.user, "osuser");
}

#[test]
fn default_files_home_and_extra_file_in_the_manuals_order() {
    let dir = tempfile::tempdir().unwrap();
    let system = write(
        dir.path(),
        "system.cnf",
        "[client]\nuser=sys\nport=3301\nhost=h\n",
    );
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    write(&home, ".my.cnf", "[client]\nuser=home\n");
    let extra = write(dir.path(), "extra.cnf", "[client]\nuser=extra\nport=3302\n");
    let env = Environment {
        system_files: vec![system, dir.path().join("absent.cnf")],
        home: Some(home),
        ..bare_env()
    };
    let o = resolve(&parse(&[]), &env).unwrap();
    assert_eq!((o.user.as_str(), o.label().as_str()), ("home", "h:3301"));

    // The extra file comes after the global files but before ~/.my.cnf.
    let o = resolve(
        &parse(&["--defaults-extra-file", extra.to_str().unwrap()]),
        &env,
    )
    .unwrap();
    assert_eq!((o.user.as_str(), o.label().as_str()), ("home", "h:3302"));

    // --no-defaults reads nothing.
    let o = resolve(&parse(&["--no-defaults"]), &env).unwrap();
    assert_eq!(o.user, "osuser");
}

#[test]
fn bare_password_line_in_an_option_file_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let cnf = write(dir.path(), "my.cnf", "[client]\npassword\n");
    let cli = parse(&["--defaults-file", cnf.to_str().unwrap()]);
    let mut prompt = |_: &str| Ok("typed".to_owned());
    let r = cli.connection.resolve(&bare_env(), &mut prompt).unwrap();
    assert_eq!(password(&r.options), Some("typed"));
}

#[test]
fn option_file_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.cnf");
    let e = resolve(
        &parse(&["--defaults-file", missing.to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("missing.cnf") && msg.contains("does not exist"),
        "{msg}"
    );

    let e = resolve(
        &parse(&["--defaults-extra-file", missing.to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("--defaults-extra-file"), "{e}");

    let bad = write(dir.path(), "bad.cnf", "[client]\nuser=x\n[client\n");
    let msg = resolve(
        &parse(&["--defaults-file", bad.to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(msg.contains("bad.cnf line 3"), "{msg}");

    let port = write(dir.path(), "port.cnf", "[client]\n\nport = 33o6\n");
    let msg = resolve(
        &parse(&["--defaults-file", port.to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("port.cnf line 3") && msg.contains("33o6"),
        "{msg}"
    );

    let mode = write(dir.path(), "mode.cnf", "[client]\nssl-mode = sometimes\n");
    let msg = resolve(
        &parse(&["--defaults-file", mode.to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("mode.cnf line 2") && msg.contains("VERIFY_CA"),
        "{msg}"
    );
}

#[test]
fn unreadable_default_file_is_a_warning_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // A directory cannot be read as a file, whoever runs the test (root included).
    let env = Environment {
        system_files: vec![dir.path().to_path_buf()],
        ..bare_env()
    };
    let r = parse(&[]).connection.resolve(&env, &mut no_prompt).unwrap();
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    // Given explicitly, it is an error.
    let e = resolve(
        &parse(&["--defaults-file", dir.path().to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("cannot read option file"), "{e}");
}

#[test]
fn socket_or_tcp_like_the_client() {
    let dir = tempfile::tempdir().unwrap();
    let sock = write(dir.path(), "mysqld.sock", "");
    let env = Environment {
        socket_candidates: vec![dir.path().join("absent.sock"), sock.clone()],
        ..bare_env()
    };

    // No host: the first socket that exists.
    let o = resolve(&parse(&[]), &env).unwrap();
    assert_eq!(o.endpoint, Endpoint::Socket(sock.clone()));
    assert_eq!(
        o.label(),
        format!("localhost via socket {}", sock.display())
    );
    let o = resolve(&parse(&["-h", "localhost"]), &env).unwrap();
    assert_eq!(o.endpoint, Endpoint::Socket(sock.clone()));

    // No socket anywhere: TCP to 127.0.0.1:3306.
    let o = resolve(&parse(&[]), &bare_env()).unwrap();
    assert_eq!(o.label(), "127.0.0.1:3306");

    // A port typed on the command line means TCP (as the MariaDB client does) ...
    let o = resolve(&parse(&["-P", "3307"]), &env).unwrap();
    assert_eq!(o.label(), "127.0.0.1:3307");
    // ... unless a socket is named too.
    let o = resolve(&parse(&["-P", "3307", "-S", "/x.sock"]), &env).unwrap();
    assert_eq!(o.endpoint, Endpoint::Socket("/x.sock".into()));

    // A host other than localhost is TCP even when a socket is named.
    let o = resolve(&parse(&["-h", "127.0.0.1", "-S", "/x.sock"]), &env).unwrap();
    assert_eq!(o.label(), "127.0.0.1:3306");

    // The socket from an option file, or MYSQL_UNIX_PORT, beats the usual paths.
    let cnf = write(
        dir.path(),
        "s.cnf",
        "[client-server]\nsocket = /from/file.sock\nport=3399\n",
    );
    let o = resolve(&parse(&["--defaults-file", cnf.to_str().unwrap()]), &env).unwrap();
    assert_eq!(o.endpoint, Endpoint::Socket("/from/file.sock".into()));
    let env2 = Environment {
        mysql_unix_port: Some("/from/env.sock".into()),
        ..env.clone()
    };
    let o = resolve(&parse(&[]), &env2).unwrap();
    assert_eq!(o.endpoint, Endpoint::Socket("/from/env.sock".into()));
}

#[test]
fn ssl_settings_resolve() {
    let o = resolve(&parse(&["-h", "db"]), &bare_env()).unwrap();
    assert_eq!(o.ssl_mode, SslMode::Preferred);
    // A CA without a mode means VERIFY_CA, as in the mysql client.
    let o = resolve(&parse(&["-h", "db", "--ssl-ca", "ca.pem"]), &bare_env()).unwrap();
    assert_eq!(o.ssl_mode, SslMode::VerifyCa);
    assert_eq!(o.ssl_ca.as_deref(), Some(Path::new("ca.pem")));

    let dir = tempfile::tempdir().unwrap();
    let cnf = write(
        dir.path(),
        "my.cnf",
        "[client]\nssl_mode=verify_identity\nssl-ca='/etc/ca.pem'\n",
    );
    let o = resolve(
        &parse(&["--defaults-file", cnf.to_str().unwrap()]),
        &bare_env(),
    )
    .unwrap();
    assert_eq!(o.ssl_mode, SslMode::VerifyIdentity);
    assert_eq!(o.ssl_ca.as_deref(), Some(Path::new("/etc/ca.pem")));
    let o = resolve(
        &parse(&[
            "--defaults-file",
            cnf.to_str().unwrap(),
            "--ssl-mode",
            "DISABLED",
        ]),
        &bare_env(),
    )
    .unwrap();
    assert_eq!(o.ssl_mode, SslMode::Disabled);
}

#[test]
fn debug_output_never_shows_the_password() {
    let cli = parse(&["-pTopSecret1"]);
    assert!(!format!("{cli:?}").contains("TopSecret1"));
    let o = resolve(&cli, &bare_env()).unwrap();
    assert_eq!(password(&o), Some("TopSecret1"));
    assert!(!format!("{o:?}").contains("TopSecret1"));
    assert!(!format!("{o:#?}").contains("TopSecret1"));
}

#[test]
fn options_and_defaults() {
    let cli = parse(&[]);
    let o = &cli.options;
    assert!(!o.once && !o.no_color && !o.read_only && !o.demo && !o.record_queries);
    assert_eq!(o.format, OutputFormat::Text);
    assert_eq!(o.interval, Duration::from_secs(1));
    assert_eq!(o.innodb_status_interval, Duration::from_secs(10));
    assert_eq!(o.undo_scan_interval, Schedule::Never);
    assert_eq!(o.query_timeout, Duration::from_secs(5));
    assert_eq!(o.theme, "dark");
    assert_eq!(o.recovery_rate, None);
    assert_eq!(o.sizing_span, Duration::from_secs(86_400));

    let cli = parse(&[
        "--once",
        "--format",
        "json",
        "--interval",
        "500ms",
        "--innodb-status-interval",
        "30",
        "--undo-scan-interval",
        "5m",
        "--query-timeout",
        "1.5s",
        "--theme",
        "themes/x.toml",
        "--no-color",
        "--record",
        "out.idbt",
        "--record-queries",
        "--read-only",
        "--recovery-rate",
        "12MB/s",
        "--sizing-span",
        "7d",
        "--demo",
    ]);
    let o = &cli.options;
    assert!(o.once && o.no_color && o.read_only && o.demo && o.record_queries);
    assert_eq!(o.format, OutputFormat::Json);
    assert_eq!(o.interval, Duration::from_millis(500));
    assert_eq!(o.innodb_status_interval, Duration::from_secs(30));
    assert_eq!(
        o.undo_scan_interval,
        Schedule::Every(Duration::from_secs(300))
    );
    assert_eq!(o.query_timeout, Duration::from_millis(1500));
    assert_eq!(o.theme, "themes/x.toml");
    assert_eq!(o.record.as_deref(), Some(Path::new("out.idbt")));
    // bytesize's rules: MB is 1000², MiB 1024²; a bare M is 1024², as in MySQL.
    assert_eq!(o.recovery_rate, Some(12_000_000));
    assert_eq!(o.sizing_span, Duration::from_secs(7 * 86_400));
    // A global flag, after a subcommand too; humantime like every other duration.
    assert_eq!(
        parse(&["replay", "x.idbt", "--sizing-span", "2h30m"])
            .options
            .sizing_span,
        Duration::from_secs(9_000)
    );
    assert_eq!(
        parse(&["--recovery-rate", "10M"]).options.recovery_rate,
        Some(10 << 20)
    );
    assert_eq!(
        parse(&["--recovery-rate", "1000"]).options.recovery_rate,
        Some(1000)
    );
}

#[test]
fn interval_below_100ms_is_rejected() {
    let e = parse_err(&["--interval", "50ms"]);
    assert_eq!(e.kind(), ErrorKind::ValueValidation);
    let msg = e.to_string();
    assert!(
        msg.contains("--interval") && msg.contains("50ms is too short"),
        "{msg}"
    );
    assert!(msg.contains("minimum is 100ms"), "{msg}");
    assert_eq!(
        parse(&["--interval", "100ms"]).options.interval,
        Duration::from_millis(100)
    );
}

#[test]
fn replay_takes_once_and_format_after_the_file_too() {
    let cli = parse(&["replay", "cap", "--once", "--format", "json", "--at", "+5m"]);
    let Some(Command::Replay {
        once, format, at, ..
    }) = cli.command
    else {
        panic!("replay expected");
    };
    assert!(once);
    assert_eq!(format, Some(innodebt::cli::OutputFormat::Json));
    assert!(at.is_some());
}

#[test]
fn bad_flags_get_clear_messages() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--interval", "soon"],
            &["--interval", "not a duration", "500ms"],
        ),
        (
            &["--ssl-mode", "sometimes"],
            &["--ssl-mode", "VERIFY_IDENTITY"],
        ),
        (&["--format", "xml"], &["--format", "json", "text"]),
        (&["-P", "port"], &["--port"]),
        (
            &["--recovery-rate", "fast"],
            &["--recovery-rate", "12MiB/s"],
        ),
        (&["--connect-timeout", "0"], &["--connect-timeout", "zero"]),
        (&["--bogus"], &["--bogus"]),
        (
            &["--no-defaults", "--defaults-file", "x"],
            &["--no-defaults", "--defaults-file"],
        ),
        (
            &["export", "cap.idbt", "--once"],
            &["--once", "before the subcommand"],
        ),
        (
            &["replay", "cap", "--from", "noon"],
            &["--from", "HH:MM:SS"],
        ),
        (
            &["replay", "cap", "--at", "+5m", "--from", "1:00:00"],
            &["--at", "--from"],
        ),
        (&["import", "pt-stalk", "dir"], &["--output"]),
        (&["calibrate-recovery"], &["--error-log"]),
    ];
    for (args, needles) in cases {
        let msg = parse_err(args).to_string();
        for needle in *needles {
            assert!(msg.contains(needle), "{args:?}: {needle:?} not in {msg}");
        }
    }
}

#[test]
fn help_is_question_mark_because_h_is_the_host() {
    assert_eq!(parse_err(&["-?"]).kind(), ErrorKind::DisplayHelp);
    assert_eq!(parse_err(&["--help"]).kind(), ErrorKind::DisplayHelp);
    let help = parse_err(&["--help"]).to_string();
    for flag in [
        "--host",
        "--ssl-mode",
        "--interval",
        "record",
        "replay",
        "calibrate-recovery",
    ] {
        assert!(help.contains(flag), "{flag} missing from help");
    }
    assert!(!help.contains("password-prompt"));
}

/// The user documentation: README.md and the reference it links to in `docs/`.
fn readme() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    std::iter::once(root.join("README.md"))
        .chain(files)
        .map(|p| std::fs::read_to_string(&p).expect("a documentation file"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--help` lists every key of every mode's table — the tables dispatch reads, popups and
/// fleet included — with its help text; a mode written as the live dashboard's "without"
/// some keys has none of them, and the rows it adds are its own.
#[test]
fn help_lists_the_keys_of_the_keymap() {
    use innodebt::keymap;
    let help = parse_err(&["--help"]).to_string();
    assert!(help.contains(&keymap::help_text()), "{help}");
    let tables = keymap::tables();
    for t in &tables {
        for r in &t.rows {
            let line = help
                .lines()
                .find(|l| l.trim_start().starts_with(&r.label()) && l.ends_with(r.help));
            assert!(
                line.is_some(),
                "`{}  {}` ({}) missing from --help",
                r.label(),
                r.help,
                t.name
            );
        }
        // "<title> the same, without k1 k2, and:" then the mode's own rows.
        let Some(section) = help
            .split(&format!("{} the same, without ", t.title))
            .nth(1)
        else {
            continue;
        };
        let (without, rows) = section.split_once('\n').expect("a line");
        let without = without
            .trim_end_matches([',', ' ', '.'])
            .trim_end_matches(", and:");
        for name in without.split(' ') {
            assert!(
                !t.rows
                    .iter()
                    .any(|r| r.names.iter().any(|n| n.split(' ').any(|k| k == name))),
                "{}: `{name}` said to be missing, yet it is a key of the mode",
                t.name
            );
        }
        for row in rows.lines().take_while(|l| l.starts_with("  ")) {
            assert!(
                t.rows
                    .iter()
                    .any(|r| row.trim_start().starts_with(&r.label()) && row.ends_with(r.help)),
                "{row:?} listed for {}",
                t.name
            );
        }
    }
}

/// `--help` after a subcommand shows its help, as `innodebt help SUBCOMMAND` does.
#[test]
fn a_subcommands_help_is_help_subcommand() {
    for flag in ["--help", "-?"] {
        let help = parse_err(&["replay", "x.idbt", flag]);
        assert_eq!(help.kind(), ErrorKind::DisplayHelp, "{flag}");
        assert!(help.to_string().contains("--at"), "{flag}: {help}");
    }
    let help = parse_err(&["help", "replay"]);
    assert_eq!(help.kind(), ErrorKind::DisplayHelp);
    assert!(help.to_string().contains("--at"), "{help}");
}

/// The key table (docs/dashboard.md) is the keymap's, verbatim.
#[test]
fn readme_key_table_is_the_keymap() {
    let table = innodebt::keymap::markdown_table();
    assert!(
        readme().contains(&table),
        "docs/dashboard.md's key table differs from the keymap; it should read:\n{table}"
    );
}

/// `--help` says what the README and docs/ say: the demo is a real recording, what the undo scan
/// scans, and capture files end in `.idbt` in every example.
#[test]
fn help_wording_matches_the_readme() {
    let help = parse_err(&["--help"]).to_string();
    let readme = readme();
    let demo = help
        .lines()
        .find(|l| l.trim_start().starts_with("--demo"))
        .expect("--demo in help");
    assert!(!demo.contains("synthetic"), "{demo}");
    let said = "real capture recorded by innodebt from MariaDB 10.11 under write load";
    assert!(
        demo.contains(said) && readme.contains(said),
        "{said:?}: {demo}"
    );
    let scan = help
        .lines()
        .find(|l| l.trim_start().starts_with("--undo-scan-interval"))
        .expect("--undo-scan-interval in help");
    for said in ["INNODB_BUFFER_PAGE_LRU", "whole buffer pool", "undo pages"] {
        assert!(scan.contains(said), "{said:?}: {scan}");
        let row = readme
            .lines()
            .find(|l| l.starts_with("| `--undo-scan-interval"))
            .expect("docs/polling.md's --undo-scan-interval row");
        assert!(row.contains(said), "{said:?}: {row}");
    }
    assert!(!scan.contains("tablespace"), "{scan}");
    let files: Vec<&str> = help
        .split_whitespace()
        .chain(readme.split_whitespace())
        .filter(|w| w.contains(".idb"))
        .collect();
    assert!(!files.is_empty());
    for w in files {
        // `compare` takes FILE@FROM..TO: the file is what comes before the @.
        let w = w.split('@').next().unwrap_or(w);
        let w = w.trim_matches(|c: char| "`(),.;:".contains(c));
        assert!(
            w.ends_with(".idbt") || w.ends_with(".idbt*"),
            "{w:?}: a capture example not ending in .idbt"
        );
    }
}

#[test]
fn subcommands() {
    let cli = parse(&["-h", "db1", "record", "out.idbt", "--duration", "10m"]);
    assert_eq!(
        cli.command,
        Some(Command::Record {
            file: "out.idbt".into(),
            duration: Some(Duration::from_secs(600)),
            trigger: Default::default(),
            max_disk: None,
        })
    );
    assert_eq!(cli.connection.host.as_deref(), Some("db1"));

    let cli = parse(&[
        "--once", "--format", "json", "replay", "caps/", "--from", "14:00:00", "--to", "+5m",
    ]);
    let Some(Command::Replay {
        path, from, to, at, ..
    }) = cli.command
    else {
        panic!("not replay");
    };
    assert_eq!(path, PathBuf::from("caps/"));
    assert!(matches!(from, Some(TimeSpec::Clock(_))));
    assert_eq!(to, Some(TimeSpec::Offset(Duration::from_secs(300))));
    assert_eq!(at, None);
    assert!(cli.options.once);
    assert_eq!(cli.options.format, OutputFormat::Json);

    let cli = parse(&["replay", "c.idbt", "--at", "2024-03-01T14:05:00Z"]);
    assert!(matches!(
        cli.command,
        Some(Command::Replay {
            at: Some(TimeSpec::Instant(_)),
            ..
        })
    ));

    let cli = parse(&[
        "import",
        "pt-stalk",
        "/var/lib/pt-stalk",
        "--prefix",
        "2024_03_01",
        "-o",
        "x.idbt",
    ]);
    assert_eq!(
        cli.command,
        Some(Command::Import {
            source: ImportSource::PtStalk {
                dir: "/var/lib/pt-stalk".into(),
                prefix: Some("2024_03_01".into()),
                output: "x.idbt".into()
            }
        })
    );

    let cli = parse(&["export", "x.idbt", "--format", "csv", "-o", "x.csv"]);
    assert_eq!(
        cli.command,
        Some(Command::Export {
            file: "x.idbt".into(),
            from: None,
            to: None,
            format: ExportFormat::Csv,
            output: Some("x.csv".into())
        })
    );

    let cli = parse(&[
        "calibrate-recovery",
        "--error-log",
        "/var/log/mysql/error.log",
    ]);
    assert_eq!(
        cli.command,
        Some(Command::CalibrateRecovery {
            error_log: "/var/log/mysql/error.log".into()
        })
    );
}

#[test]
fn no_color_flag_and_env() {
    use innodebt::cli::no_color;
    use std::ffi::OsStr;
    assert!(no_color(true, None));
    assert!(no_color(false, Some(OsStr::new("1"))));
    assert!(!no_color(false, Some(OsStr::new(""))));
    assert!(!no_color(false, None));
}

// ---------------------------------------------------------------------------
// The real binary: options that would do nothing, standard output, no terminal
// ---------------------------------------------------------------------------

fn demo_capture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("demo/mariadb-10.11-blocker.idbt")
        .display()
        .to_string()
}

/// `innodebt ARGS` with no option files, stdin from /dev/null.
fn innodebt(args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(crate::common::innodebt_bin());
    cmd.arg("--no-defaults")
        .args(args)
        .stdin(std::process::Stdio::null());
    cmd
}

/// The command in a session of its own: no controlling terminal (as under cron or
/// `ssh host innodebt`), so /dev/tty cannot be opened.
fn without_controlling_terminal(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: setsid is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })
    };
    cmd
}

/// A reader that stops early (`| head -1`) ends the export quietly: exit 0, nothing on
/// stderr. The JSON Lines of the demo are about 1 MB, far more than a pipe holds, so the
/// export is still writing when the pipe closes.
#[test]
fn a_reader_that_goes_away_ends_the_export_quietly() {
    use std::io::BufRead as _;
    let mut child = innodebt(&["export", &demo_capture(), "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start innodebt export");
    let stdout = child.stdout.take().expect("stdout");
    let mut first = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut first)
        .expect("read the first line");
    assert!(first.starts_with('{'), "{first}");
    // The reader goes away (BufReader and pipe dropped above).
    let out = child.wait_with_output().expect("innodebt export ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "nothing on stderr: {stderr}");
}

/// A full disk is not a closed pipe: every headless writer fails with exit 1 and a message
/// naming standard output (`--once` used to exit 0 with nothing written).
#[test]
fn a_full_disk_fails_naming_standard_output() {
    let demo = demo_capture();
    for args in [
        &["export", &demo][..],
        &["export", &demo, "--format", "json"],
        &["--demo", "--once"],
        &["--demo", "--once", "--format", "json"],
        &["replay", &demo, "--once", "--format", "json"],
        &["compare", &demo, &demo, "--format", "text"],
        &["man"],
        &["completions", "bash"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = innodebt(args).stdout(full).output().expect("run innodebt");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("writing to standard output") && stderr.contains("No space left"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // The same for `-o FILE`, named by its path.
    let out = innodebt(&["export", &demo, "-o", "/dev/full"])
        .output()
        .expect("run innodebt");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("writing to /dev/full"), "{stderr}");
}

/// An option its mode would ignore is refused before anything runs: clap's usage exit code,
/// the option named and what to do instead.
#[test]
fn options_that_would_do_nothing_are_refused() {
    let demo = demo_capture();
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("never.idbt").display().to_string();
    for (args, option, instead) in [
        (
            &["--once", "--record", &record][..],
            "--record",
            "innodebt record FILE",
        ),
        (&["--format", "json"], "--format json", "--once"),
        (&["--demo", "replay", &demo], "--demo", "drop --demo"),
        (&["--demo", "export", &demo], "--demo", "drop --demo"),
        (&["--record", &record, "replay", &demo], "--record", "drop"),
        (
            &["--record", &record, "compare", &demo, &demo],
            "--record",
            "drop",
        ),
        (&["--once", "export", &demo], "--once", "drop --once"),
        (
            &["--format", "json", "export", &demo],
            "--format",
            "export FILE --format json",
        ),
        (
            &["replay", &demo, "--format", "json"],
            "--format json",
            "--once",
        ),
        (&["--demo", "serve"], "--demo", "drop --demo"),
        (
            &["--record-queries", "--once"],
            "--record-queries",
            "--record FILE",
        ),
    ] {
        let out = innodebt(args)
            .stdout(std::process::Stdio::piped())
            .output()
            .expect("run innodebt");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(option) && stderr.contains(instead),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!Path::new(&record).exists(), "nothing recorded");
    // `check` keeps the monitoring-plugin contract: UNKNOWN on its status line, exit 3.
    let out = innodebt(&["--once", "check"]).output().expect("run check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.starts_with("INNODEBT UNKNOWN: ") && stdout.contains("--once"),
        "{stdout}"
    );
}

/// No terminal (no controlling terminal, stdin from /dev/null, output to a pipe): the screens
/// say what works instead — `--once`, `ssh -t` — not an OS error, and the dashboard says so
/// before it connects (nothing listens on the port given: the answer would be exit 10).
#[test]
fn no_terminal_names_once_and_ssh_t() {
    let demo = demo_capture();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
        .to_string();
    for args in [
        &["--demo"][..],
        &["replay", &demo],
        &["replay", &demo, "--what-if", "innodb_log_file_size=1G"],
        &["-h", "127.0.0.1", "-P", &port, "-u", "root"],
        &["fleet", "-h", "127.0.0.1", "-P", &port],
    ] {
        let out = without_controlling_terminal(&mut innodebt(args))
            .output()
            .expect("run innodebt");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("no terminal") && stderr.contains("ssh -t"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("os error"), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    for args in [&["--demo"][..], &["-h", "127.0.0.1", "-P", &port]] {
        let out = without_controlling_terminal(&mut innodebt(args))
            .output()
            .expect("run innodebt");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--once"), "{args:?}: {stderr}");
    }

    // Output to a terminal that is not ours, keys from nowhere: still no screen (raw mode
    // would fail with ENXIO on /dev/tty).
    for (args, instead) in [
        (&["--demo"][..], "--once"),
        (&["compare", &demo, &demo], "--format text"),
    ] {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let out = without_controlling_terminal(&mut innodebt(args))
            .stdout(std::fs::File::from(pty.slave))
            .output()
            .expect("run innodebt");
        drop(pty.master);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("standard input is not a terminal")
                && stderr.contains(instead)
                && stderr.contains("ssh -t")
                && !stderr.contains("os error"),
            "{args:?}: {stderr}"
        );
    }
}
