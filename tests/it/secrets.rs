//! One account with a distinctive password, driven through every mode and every way of
//! giving the password (`-pSECRET`, `--password=SECRET`, `MYSQL_PWD`, an option file, the
//! bare `-p` prompt): every output — stdout, stderr, tmux screens and scrollback, captures
//! (raw bytes and decoded through the library's reader), the CSV export, the audit log, a
//! panic message, a wrong-password error and the process's own command line as `ps` shows
//! it — is searched for the password and its obvious encodings, and holds none of them.
//! Captures and the audit log are created 0600 (directory 0700) even under `umask 000`, and
//! an existing capture is never overwritten.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::accounts::{Account, Run, ask_purge_lag, run, run_with};
use common::tmux::Tmux;
use common::wait::wait_until;
use common::{PrivateServer, ServerConfig};

const PASSWORD: &str = "Pw-7fQ2-zz9!";
/// A wrong password must not be echoed either.
const WRONG: &str = "Wr0ng-Pw-4kX!";

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ABC[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The secret as it could leak: verbatim, hex (both cases), base64, percent-encoded, and
/// JSON-escaped. base64 drops its last character: the encoding of the tail depends on what
/// follows.
fn leak_forms(secret: &str) -> Vec<(&'static str, String)> {
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    let b64 = base64(secret.as_bytes());
    let percent: String = secret
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    vec![
        ("verbatim", secret.to_string()),
        ("hex", hex.clone()),
        ("HEX", hex.to_uppercase()),
        ("base64", b64[..b64.len() - 1].to_string()),
        ("percent-encoded", percent),
        ("JSON-escaped", serde_json::to_string(secret).expect("json")),
        // The password without its punctuation tail: a truncated copy is a leak too.
        ("prefix", secret[..secret.len() - 1].to_string()),
    ]
}

/// Panics naming the output and the form in which a secret appears in it.
fn assert_clean(what: &str, text: &str) {
    for secret in [PASSWORD, WRONG] {
        for (form, needle) in leak_forms(secret) {
            assert!(
                !text.contains(&needle),
                "{what} holds the password ({form}: {needle}):\n{text}"
            );
        }
    }
}

fn assert_clean_run(what: &str, r: &Run) {
    assert_clean(&format!("{what} stdout"), &r.stdout);
    assert_clean(&format!("{what} stderr"), &r.stderr);
}

/// A capture file: its raw bytes, then everything the library's reader decodes from it.
fn assert_clean_capture(what: &str, path: &Path) {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{what}: read {path:?}: {e}"));
    assert_clean(
        &format!("{what} (raw bytes)"),
        &String::from_utf8_lossy(&raw),
    );
    let capture = innodebt_capture::open(path).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(!capture.events.is_empty(), "{what}: no events");
    let mut decoded = serde_json::to_string(&capture.header).expect("header as JSON");
    for event in &capture.events {
        decoded.push_str(&serde_json::to_string(event).expect("event as JSON"));
    }
    decoded.push_str(&format!("{capture:?}"));
    assert_clean(&format!("{what} (decoded)"), &decoded);
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{path:?}: {e}"))
        .permissions()
        .mode()
        & 0o777
}

/// `innodebt ARGS` under `umask 000` (through `sh`): files it creates get exactly the mode
/// it asks for. stdin is closed.
fn umask_000(args: &[String]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("umask 000 && exec \"$0\" \"$@\"")
        .arg(common::innodebt_bin())
        .args(args)
        .stdin(Stdio::null());
    cmd
}

fn run_umask_000(args: &[String]) -> Run {
    Run::from_output(umask_000(args).output().expect("run innodebt under sh"))
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_modes_never_show_the_password() {
    let server = PrivateServer::start(ServerConfig::default());
    let account = Account::create(&server, "keeper", PASSWORD, "ALL PRIVILEGES").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let base = |extra: &[&str]| {
        let mut a = strings(&["--no-defaults"]);
        a.extend(account.target(&server, "127.0.0.1"));
        a.extend(strings(extra));
        a
    };
    let once_json = strings(&["--once", "--format", "json", "--interval", "200ms"]);
    let once_text = strings(&["--once", "--format", "text", "--interval", "200ms"]);

    // Every way of giving the password, through --once JSON and text.
    let mut dash_p = base(&[&format!("-p{PASSWORD}")]);
    dash_p.extend(once_json.clone());
    let r = run(&dash_p).ok("-pSECRET --once json");
    assert_eq!(r.json()["server"]["flavor"], "mariadb");
    assert_clean_run("-pSECRET --once json", &r);

    let mut long = base(&[&format!("--password={PASSWORD}")]);
    long.extend(once_text.clone());
    let r = run(&long).ok("--password=SECRET --once text");
    assert!(r.stdout.contains("checkpoint age"), "{}", r.stdout);
    assert_clean_run("--password= --once text", &r);

    let mut env_only = base(&[]);
    env_only.extend(once_json.clone());
    let r = run_with(&env_only, &[("MYSQL_PWD", PASSWORD)], None).ok("MYSQL_PWD --once");
    assert_clean_run("MYSQL_PWD --once json", &r);

    let cnf = dir.path().join("client.cnf");
    std::fs::write(
        &cnf,
        format!(
            "[client]\nhost=127.0.0.1\nport={}\nuser={}\npassword={PASSWORD}\n",
            server.port(),
            account.user
        ),
    )
    .expect("write option file");
    let mut from_file = vec![format!("--defaults-file={}", cnf.display())];
    from_file.extend(once_text.clone());
    let r = run(&from_file).ok("option file --once text");
    assert!(r.stdout.contains("127.0.0.1"), "{}", r.stdout);
    assert_clean_run("option file --once text", &r);

    // A wrong password: access denied, clearly, echoing neither password.
    let mut wrong = base(&[&format!("-p{WRONG}")]);
    wrong.extend(once_json.clone());
    let r = run(&wrong);
    assert_eq!(r.code, Some(18), "{}", r.stderr);
    assert!(
        r.stderr.contains("access denied for user 'keeper'")
            && r.stderr.contains("using password: YES"),
        "{}",
        r.stderr
    );
    assert_clean_run("wrong password", &r);

    // Headless record under umask 000, the password on the command line; meanwhile the
    // command line `ps` shows has it masked.
    let capture = dir.path().join("headless.idbt");
    let mut record = base(&[&format!("-p{PASSWORD}"), "--interval", "200ms", "record"]);
    record.push(capture.display().to_string());
    record.extend(strings(&["--duration", "3s"]));
    let child = umask_000(&record)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start record");
    let cmdline_path = PathBuf::from(format!("/proc/{}/cmdline", child.id()));
    // Once the file exists the arguments have been parsed (and the password masked).
    wait_until(
        Duration::from_secs(10),
        format!("record to create {capture:?}"),
        || capture.exists(),
    );
    let cmdline = std::fs::read(&cmdline_path).expect("read /proc/PID/cmdline");
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(
        cmdline.contains("record")
            && cmdline.contains(&format!("-p{}", "x".repeat(PASSWORD.len()))),
        "{cmdline}"
    );
    assert_clean("the command line (ps, /proc/PID/cmdline)", &cmdline);
    let r =
        Run::from_output(child.wait_with_output().expect("record finishes")).ok("headless record");
    assert_clean_run("headless record", &r);
    assert_eq!(mode(&capture), 0o600, "a capture under umask 000");
    assert_clean_capture("headless capture", &capture);

    // An existing capture is never overwritten, headless or behind the dashboard.
    let before = std::fs::read(&capture).expect("capture bytes");
    let mut dashboard = base(&[&format!("-p{PASSWORD}"), "--record"]);
    dashboard.push(capture.display().to_string());
    for (what, args) in [("record", &record), ("--record", &dashboard)] {
        let r = run_umask_000(args);
        assert_ne!(r.code, Some(0), "{what} over an existing capture must fail");
        assert!(r.stderr.contains("already exists"), "{what}: {}", r.stderr);
        assert_clean_run(&format!("{what} over an existing capture"), &r);
    }
    assert_eq!(std::fs::read(&capture).expect("capture bytes"), before);
    assert_eq!(mode(&capture), 0o600);

    // Replay and export of that capture.
    let file = capture.display().to_string();
    for format in ["json", "text"] {
        let r = run(&strings(&["replay", &file, "--once", "--format", format]))
            .ok(&format!("replay --once {format}"));
        assert_clean_run(&format!("replay --once {format}"), &r);
    }
    let r = run(&strings(&["export", &file, "--format", "csv"])).ok("export to stdout");
    assert!(r.stdout.starts_with("time,"), "{}", r.stdout);
    assert_clean_run("export csv", &r);
    let csv = dir.path().join("export.csv");
    let r = run(&strings(&[
        "export",
        &file,
        "--format",
        "csv",
        "-o",
        &csv.display().to_string(),
    ]))
    .ok("export -o");
    assert_clean_run("export -o", &r);
    assert_clean(
        "the exported CSV",
        &std::fs::read_to_string(&csv).expect("csv"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_prompt_audit_log_and_panic_never_show_the_password() {
    let server = PrivateServer::start(ServerConfig::default());
    let account = Account::create(&server, "keeper", PASSWORD, "ALL PRIVILEGES").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    let capture = dir.path().join("dashboard.idbt");
    let crashed = dir.path().join("panic.idbt");
    let tmux = Tmux::start(dir.path(), 160, 50);
    let long = Duration::from_secs(20);
    let conn = account.target(&server, "127.0.0.1").join(" ");
    let bin = common::innodebt_bin().display().to_string();

    // Bare -p: the prompt, no echo; --record; a runtime change for the audit log.
    tmux.type_text(&format!(
        "umask 000; XDG_STATE_HOME={} {bin} --no-defaults {conn} -p --interval 200ms --record {}",
        state.display(),
        capture.display()
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the password prompt", long, |s| {
        s.contains("Enter password:")
    });
    tmux.wait_for_echo_off("the password prompt", long);
    tmux.type_text(PASSWORD);
    let typed = tmux.screen();
    assert_clean("the prompt while typing", &typed);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the dashboard", long, |s| {
        s.contains("Checkpoint age") && s.contains("data ")
    });
    assert_clean("the dashboard", &screen);
    let confirm = ask_purge_lag(&tmux, 6000);
    assert_clean("the confirmation", &confirm);
    tmux.keys(&["y"]);
    let done = tmux.wait_for("the result", long, |s| s.contains("done"));
    assert_clean("the change's result", &done);
    assert_eq!(server.var_u64("innodb_max_purge_lag").await, 6000);
    tmux.keys(&["Escape"]);
    tmux.wait_for("the result closed", long, |s| {
        !s.contains("SET GLOBAL innodb_max_purge_lag = 6000")
    });
    tmux.keys(&["q"]);
    // Back at the prompt, with the recorder's summary printed: the next command typed goes
    // to the shell, not into the tty echo of a program still exiting.
    tmux.wait_for("the shell back", long, |s| {
        s.contains("innodebt: recorded") && s.trim_end().ends_with('$')
    });
    assert_clean("the screen after quitting", &tmux.screen());
    assert_clean("the scrollback after quitting", &tmux.scrollback());

    let audit = state.join("innodebt/audit.log");
    let text = std::fs::read_to_string(&audit).expect("audit log");
    assert!(
        text.contains("innodb_max_purge_lag = 6000") && text.contains("keeper@"),
        "{text}"
    );
    assert_clean("the audit log", &text);
    assert_eq!(mode(&audit), 0o600, "the audit log under umask 000");
    assert_eq!(
        mode(&state.join("innodebt")),
        0o700,
        "the audit log's directory"
    );
    assert_eq!(
        mode(&capture),
        0o600,
        "the dashboard's capture under umask 000"
    );
    assert_clean_capture("the dashboard's capture", &capture);

    // A panic inside a render, with the password on the command line and a recording.
    tmux.keys(&["C-l"]);
    tmux.type_text(&format!(
        "INNODEBT_FAILPOINT=panic-in-render {bin} --no-defaults {conn} '-p{PASSWORD}' \
         --interval 200ms --record {}; echo exit=$?",
        crashed.display()
    ));
    tmux.keys(&["Enter"]);
    let after = tmux.wait_for("the shell back after the panic", long, |s| {
        s.lines().any(|l| l.starts_with("exit="))
    });
    let all = tmux.scrollback();
    assert!(
        all.contains("a deliberate panic inside a render"),
        "the panic message is readable:\n{all}"
    );
    assert!(!after.contains("exit=0"), "{after}");
    // The command typed into the shell holds the password by design; what the program
    // printed after it must not.
    let printed = all
        .rsplit_once(&format!("'-p{PASSWORD}'"))
        .map(|(_, rest)| rest.to_string())
        .expect("the typed command line");
    assert_clean("the panic output", &printed);
    assert_eq!(mode(&crashed), 0o600);
    assert_clean_capture("the capture of the panicked dashboard", &crashed);
}
