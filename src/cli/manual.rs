//! The man pages: clap_mangen's sections, drawn from the arguments so they cannot drift, then
//! what the arguments cannot say — EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO and,
//! in innodebt-serve(1), its TOML file. `docs/cli.md` says the same; a test holds them to it.

use std::io::Write;

/// Every exit code innodebt uses, with its meaning. The connection codes are
/// `ConnectError::exit_code`'s.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (0, "success"),
    (
        1,
        "failure at run time (lost output file, a full disk under standard output, a dashboard \
         that could not start, …); a reader that stops early (| head) is no failure",
    ),
    (
        2,
        "bad flag, an option its command would ignore, option file, theme, servers file or \
         capture, or no terminal for a screen: the message names it and what to do instead",
    ),
    (
        10,
        "connection refused (nothing listens on the host and port)",
    ),
    (11, "connection refused on the Unix socket"),
    (12, "the Unix socket does not exist"),
    (13, "the socket path is not a socket"),
    (14, "no permission to use the Unix socket"),
    (15, "the host name does not resolve"),
    (16, "the host is unreachable"),
    (17, "connecting timed out (--connect-timeout)"),
    (18, "access denied (user, password or host not allowed)"),
    (
        19,
        "the server requires a secure transport (use --ssl-mode REQUIRED or better)",
    ),
    (20, "TLS required but the server has none"),
    (21, "the server's certificate is rejected (--ssl-ca)"),
    (22, "the server's certificate does not match the host name"),
    (23, "the TLS handshake failed"),
    (
        24,
        "the CA file, or the client certificate or key, cannot be used (--ssl-ca, --ssl-cert, --ssl-key)",
    ),
    (25, "the server has too many connections"),
    (26, "unknown database (--database)"),
    (27, "another error reported by the server"),
    (28, "another connection error"),
];

/// The environment innodebt reads.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "MYSQL_HOST",
        "Host when neither --host nor an option file names one.",
    ),
    (
        "MYSQL_TCP_PORT",
        "Port when neither --port nor an option file names one.",
    ),
    (
        "MYSQL_UNIX_PORT",
        "Unix socket when neither --socket nor an option file names one.",
    ),
    (
        "MYSQL_PWD",
        "Password when neither -p nor an option file gives one (insecure: other users may see a process's environment).",
    ),
    (
        "MYSQL_TEST_LOGIN_FILE",
        "The login file to read instead of ~/.mylogin.cnf, as for the mysql client.",
    ),
    ("NO_COLOR", "Set and not empty: no colours, as --no-color."),
    (
        "INNODEBT_FILE, INNODEBT_VERDICT, INNODEBT_MESSAGE, INNODEBT_STARTED_AT",
        "Set for the command of --exec: the incident file, the verdict kind, its message and when it started.",
    ),
];

/// The files innodebt reads.
pub const FILES: &[(&str, &str)] = &[
    (
        "/etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf",
        "Option files, read in this order (--defaults-extra-file before ~/.my.cnf), groups [client-server], [client], [client-mariadb], [innodebt]; not with --no-defaults or --defaults-file FILE.",
    ),
    (
        "~/.mylogin.cnf",
        "The login file of mysql_config_editor, read after the others (also with --no-defaults): [client], then the group of --login-path. Ignored unless only its owner may read it.",
    ),
    (
        "themes",
        "--theme takes dark, light, high-contrast, colorblind or the path of a theme TOML file (the themes/ directory of the source has the built-in ones to start from).",
    ),
    (
        "servers file (TOML)",
        "--config FILE of serve and fleet: [serve] defaults and [targets.NAME] servers; see innodebt-serve(1). The package installs /etc/innodebt/innodebt.toml and /etc/innodebt/my.cnf.",
    ),
    (
        "capture files (.idbt)",
        "Written by record, --record and serve --record-dir; read by replay, compare and export.",
    ),
];

/// Examples for each page, by page name.
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "innodebt",
        &[
            (
                "innodebt --demo",
                "the dashboard on a built-in recording, no server needed",
            ),
            (
                "innodebt -h db1 -u monitor -p",
                "the dashboard of db1, asking for the password",
            ),
            (
                "innodebt --login-path prod",
                "credentials from ~/.mylogin.cnf",
            ),
            (
                "innodebt -u monitor --once --format json",
                "one sample as JSON, for a script",
            ),
        ],
    ),
    (
        "innodebt-record",
        &[
            (
                "innodebt record incident.idbt --duration 2h -u monitor -p",
                "record two hours",
            ),
            (
                "innodebt record incidents/ --trigger blocked_by_read_view,checkpoint_age_pct>80 --before 5m",
                "one file per incident, with the five minutes before it",
            ),
        ],
    ),
    (
        "innodebt-replay",
        &[
            (
                "innodebt replay incident.idbt --from 14:00:00 --to +10m",
                "replay a window",
            ),
            (
                "innodebt replay incident.idbt --once --format json --at +100s",
                "the figures of one moment",
            ),
        ],
    ),
    (
        "innodebt-compare",
        &[(
            "innodebt compare incident.idbt@14:00..14:10 baseline.idbt --format text",
            "what differs from a normal day",
        )],
    ),
    (
        "innodebt-check",
        &[
            (
                "innodebt -h db1 -u monitor check",
                "OK, WARNING or CRITICAL as the verdicts judge; UNKNOWN when they cannot",
            ),
            (
                "innodebt -h db1 -u monitor check -w 'checkpoint_age_pct>75,blocker_age>60s' -c 'checkpoint_age_pct>90'",
                "thresholds of one's own, shown as perfdata ranges",
            ),
        ],
    ),
    (
        "innodebt-export",
        &[(
            "innodebt export incident.idbt --format csv -o incident.csv",
            "figures as CSV",
        )],
    ),
    (
        "innodebt-report",
        &[
            (
                "innodebt report incident.idbt -o incident.html",
                "the postmortem page: what went wrong, when, why, what to change",
            ),
            (
                "innodebt report incident.idbt --from 14:00:00 --to +10m --baseline monday.idbt --format markdown -o ticket.md",
                "a window, ranked against a normal day, for a ticket",
            ),
        ],
    ),
    (
        "innodebt-import",
        &[(
            "innodebt import pt-stalk /var/lib/pt-stalk -o stalk.idbt",
            "pt-stalk to a capture",
        )],
    ),
    (
        "innodebt-import-dolphie",
        &[(
            "innodebt import dolphie /var/lib/dolphie/db1_3306/daemon.db -o night.idbt",
            "a Dolphie daemon's replay file, ready to replay",
        )],
    ),
    (
        "innodebt-import-prometheus",
        &[(
            "innodebt import prometheus http://prometheus:9090 --instance db1:9104 --from 02:00:00 --to +30m --step 15s -o night.idbt",
            "last night's half hour from mysqld_exporter's series, ready to replay",
        )],
    ),
    (
        "innodebt-import-pt-stalk",
        &[(
            "innodebt import pt-stalk /var/lib/pt-stalk -o stalk.idbt",
            "pt-stalk to a capture",
        )],
    ),
    (
        "innodebt-serve",
        &[
            (
                "innodebt serve --login-path monitoring",
                "/metrics on 127.0.0.1:9385",
            ),
            (
                "innodebt serve --config /etc/innodebt/innodebt.toml --record-dir /var/lib/innodebt --retain 7d --max-disk 1GiB",
                "more servers on /probe, and a week of flight recording",
            ),
        ],
    ),
    (
        "innodebt-fleet",
        &[
            (
                "innodebt fleet -u monitor -p -h db1 -h db2:3307",
                "two servers",
            ),
            (
                "innodebt fleet --config servers.toml",
                "the servers of a file",
            ),
        ],
    ),
    (
        "innodebt-calibrate-recovery",
        &[(
            "innodebt calibrate-recovery --error-log /var/log/mysql/error.log",
            "the redo apply rate of past recoveries",
        )],
    ),
    (
        "innodebt-completions",
        &[
            (
                "innodebt completions bash > /etc/bash_completion.d/innodebt",
                "bash, for every user",
            ),
            (
                "innodebt completions zsh > ~/.zfunc/_innodebt",
                "zsh, on your $fpath",
            ),
        ],
    ),
    (
        "innodebt-man",
        &[
            ("innodebt man serve | man -l -", "read innodebt-serve(1)"),
            (
                "innodebt man --out-dir /usr/local/share/man/man1",
                "install every page",
            ),
        ],
    ),
];

/// innodebt-serve(1)'s servers file, checked by a test against the real parser.
pub const SERVE_TOML_EXAMPLE: &str = r#"[serve]
listen = "127.0.0.1:9385"
record_dir = "/var/lib/innodebt/recordings"
retain = "48h"
max_disk = "500MiB"
metrics_target = true

[targets.db2]
host = "db2.example.com"
port = 3306
user = "innodebt"
password_file = "/etc/innodebt/db2.password"
ssl_mode = "VERIFY_IDENTITY"
ssl_ca = "/etc/innodebt/ca.pem"
group = "eu"
tags = ["primary"]

[targets.db3]
defaults_file = "/etc/innodebt/db3.cnf"

[targets.far]
agent = "http://far:9385/metrics"
"#;

/// What each key of the servers file means.
pub const SERVE_TOML_KEYS: &[(&str, &str)] = &[
    ("[serve] listen", "address to listen on (--listen wins)"),
    (
        "[serve] record_dir",
        "flight recorder directory (--record-dir)",
    ),
    ("[serve] retain", "history kept, e.g. 48h, 7d (--retain)"),
    (
        "[serve] max_disk",
        "disk for all targets, e.g. 500MiB, 1GiB (--max-disk)",
    ),
    (
        "[serve] probe_allow",
        "host patterns /probe may reach beyond [targets.*], e.g. [\"db*.example.com\", \"10.0.0.*:3306\"] (--probe-allow)",
    ),
    (
        "[serve] metrics_target",
        "false: serve only /probe, as --probe-only",
    ),
    (
        "[targets.NAME] host, port, socket, user",
        "where and as whom; left out: innodebt's own connection; a NAME that is HOST[:PORT] connects there",
    ),
    (
        "[targets.NAME] password, password_file, defaults_file",
        "at most one: the password, a file holding only it, or an option file whose [client] group gives the connection",
    ),
    (
        "[targets.NAME] ssl_mode, ssl_ca",
        "TLS, as --ssl-mode and --ssl-ca",
    ),
    (
        "[targets.NAME] group, tags",
        "how fleet groups and filters the server",
    ),
    (
        "[targets.NAME] agent",
        "fleet: read the server from a remote innodebt serve (http[s]://HOST:PORT/metrics or …/probe?target=NAME)",
    ),
    (
        "[targets.NAME] agent_ssl_ca, agent_user, agent_password_file",
        "fleet: an https agent's CA (PEM), and the basic-auth user of its --web-config with a file holding only the password (as --agent-ssl-ca, --agent-user, --agent-password-file)",
    ),
];

/// One man page: its name (`innodebt-serve`) and the command it documents.
pub struct Page {
    pub name: String,
    pub cmd: clap::Command,
}

/// Every page, innodebt(1) first: one per subcommand (nested ones too), none for `help`.
pub fn pages() -> Vec<Page> {
    fn walk(cmd: &clap::Command, name: String, out: &mut Vec<Page>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, format!("{name}-{}", sub.get_name()), out);
        }
        out.insert(
            0,
            Page {
                name,
                cmd: cmd.clone(),
            },
        );
    }
    let mut cmd = super::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, "innodebt".to_owned(), &mut out);
    out.sort_by_key(|p| (p.name != "innodebt", p.name.clone()));
    out
}

/// The roff text of `page`.
pub fn render(page: &Page) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(page.cmd.clone()).title(page.name.clone());
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    if page.cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    if page.cmd.get_after_help().is_some() {
        man.render_extra_section(&mut out)?;
    }
    if page.name == "innodebt-serve" {
        section(&mut out, "SERVERS FILE")?;
        para(
            &mut out,
            "--config FILE is TOML. Flags win over the [serve] table; a target leaves out what \
             innodebt's own connection (flags, option files, environment) gives.",
        )?;
        list(&mut out, SERVE_TOML_KEYS)?;
        para(&mut out, "For example:")?;
        writeln!(out, ".PP\n.nf")?;
        for line in SERVE_TOML_EXAMPLE.lines() {
            writeln!(out, "{}", escape(line))?;
        }
        writeln!(out, ".fi")?;
    }
    section(&mut out, "EXIT STATUS")?;
    let codes: Vec<(String, &str)> = EXIT_CODES
        .iter()
        .map(|(code, what)| (code.to_string(), *what))
        .collect();
    for (code, what) in &codes {
        item(&mut out, code, what)?;
    }
    section(&mut out, "ENVIRONMENT")?;
    list(&mut out, ENVIRONMENT)?;
    section(&mut out, "FILES")?;
    list(&mut out, FILES)?;
    if let Some((_, examples)) = EXAMPLES.iter().find(|(name, _)| *name == page.name) {
        section(&mut out, "EXAMPLES")?;
        for (command, what) in *examples {
            para(&mut out, what)?;
            writeln!(out, ".RS 4\n.nf\n{}\n.fi\n.RE", escape(command))?;
        }
    }
    section(&mut out, "SEE ALSO")?;
    let mut see: Vec<String> = pages()
        .into_iter()
        .filter(|p| p.name != page.name)
        .map(|p| format!("{}(1)", p.name))
        .collect();
    see.extend(["mysql(1)", "mysql_config_editor(1)"].map(String::from));
    para(&mut out, &see.join(", "))?;
    if page.cmd.get_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

fn section(out: &mut Vec<u8>, title: &str) -> std::io::Result<()> {
    writeln!(out, ".SH \"{title}\"")
}

fn para(out: &mut Vec<u8>, text: &str) -> std::io::Result<()> {
    writeln!(out, ".PP\n{}", escape(text))
}

fn item(out: &mut Vec<u8>, tag: &str, text: &str) -> std::io::Result<()> {
    writeln!(out, ".TP\n\\fB{}\\fR\n{}", escape(tag), escape(text))
}

fn list(out: &mut Vec<u8>, items: &[(&str, &str)]) -> std::io::Result<()> {
    items
        .iter()
        .try_for_each(|(tag, text)| item(out, tag, text))
}

/// Text safe in roff: backslashes and minus signs escaped, no line starting a request.
fn escape(text: &str) -> String {
    let body = text.replace('\\', "\\e").replace('-', "\\-");
    if body.starts_with('.') || body.starts_with('\'') {
        format!("\\&{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_the_sections_a_man_page_has() {
        let pages = pages();
        assert_eq!(pages[0].name, "innodebt");
        assert!(pages.iter().any(|p| p.name == "innodebt-import-pt-stalk"));
        assert!(!pages.iter().any(|p| p.name.ends_with("-help")));
        for page in &pages {
            let text = String::from_utf8(render(page).unwrap()).unwrap();
            for needed in [
                "EXIT STATUS",
                "ENVIRONMENT",
                "FILES",
                "SEE ALSO",
                "MYSQL_PWD",
            ] {
                assert!(text.contains(needed), "{}: no {needed}", page.name);
            }
            // A new subcommand needs its examples here.
            assert!(
                text.contains("EXAMPLES"),
                "{}: add its examples to EXAMPLES",
                page.name
            );
        }
    }

    #[test]
    fn roff_escapes() {
        assert_eq!(escape("--login-path"), "\\-\\-login\\-path");
        assert_eq!(escape(".x"), "\\&.x");
        assert_eq!(escape("a\\b"), "a\\eb");
    }
}
