//! `innodebt check`, the monitoring-plugin convention, against a private MariaDB in three
//! states: idle (OK, exit 0), a read view blocking purge under write load (exit ≥ 1, the
//! blocker named on the status line), and killed (UNKNOWN, exit 3, the reason on the status
//! line); an account without PROCESS is UNKNOWN too, naming the grant. Every output is one
//! status line `INNODEBT STATE: text | perfdata`, and its performance data parses with the
//! Monitoring Plugins Development Guidelines' grammar.

use crate::common;

use std::process::Command;
use std::sync::LazyLock;
use std::time::Duration;

use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use regex::Regex;

/// One item of performance data, as the guidelines define it:
/// `'label'=value[UOM];[warn];[crit];[min];[max]` — a label quoted with single quotes when it
/// has spaces (a quote in it doubled), otherwise without `=`, `'` or spaces; the value a
/// number or `U` (cannot be determined); UOM one of s, ms, us, %, B, KB, MB, GB, TB, c; warn
/// and crit ranges `[@][start:][end]` (start may be `~`); min and max numbers; trailing
/// empty fields may be left off.
static PERFDATA_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    let num = r"-?[0-9]+(?:\.[0-9]+)?";
    let range = format!(r"@?(?:(?:{num}|~):)?(?:{num})?");
    let pattern = format!(
        r"^(?P<label>'(?:[^']|'')+'|[^'= ]+)=(?P<value>{num}|U)(?P<uom>s|ms|us|%|B|KB|MB|GB|TB|c)?(?:;(?P<warn>{range})(?:;(?P<crit>{range})(?:;(?P<min>{num})?(?:;(?P<max>{num})?)?)?)?)?$"
    );
    Regex::new(&pattern).expect("the grammar compiles")
});

/// Splits performance data into items: spaces separate them, except inside a quoted label.
fn items(perfdata: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in perfdata.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                cur.push(c);
            }
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

struct Checked {
    code: i32,
    status: String,
    /// Each perfdata item: (label, value, warn, crit).
    perf: Vec<(String, String, String, String)>,
    stdout: String,
}

/// Runs `innodebt CONN --no-defaults --interval 1s check EXTRA`; parses the status line and
/// asserts every perfdata item against the grammar.
fn check(conn: &[String], extra: &[&str]) -> Checked {
    let out = Command::new(common::innodebt_bin())
        .args(conn)
        .args([
            "--no-defaults",
            "--interval",
            "1s",
            "--connect-timeout",
            "3s",
            "check",
        ])
        .args(extra)
        .output()
        .expect("run innodebt check");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let code = out.status.code().expect("an exit code, not a signal");
    let first = stdout.lines().next().unwrap_or_default().to_string();
    let (status, perfdata) = match first.split_once(" | ") {
        Some((s, p)) => (s.to_string(), p.to_string()),
        None => (first.clone(), String::new()),
    };
    assert!(
        !status.contains('|'),
        "one `|`, before the perfdata: {first}"
    );
    let mut perf = Vec::new();
    for item in items(&perfdata) {
        let c = PERFDATA_ITEM
            .captures(&item)
            .unwrap_or_else(|| panic!("perfdata item {item:?} breaks the grammar in {first}"));
        let field = |n: &str| {
            c.name(n)
                .map(|m| m.as_str().to_string())
                .unwrap_or_default()
        };
        perf.push((field("label"), field("value"), field("warn"), field("crit")));
    }
    Checked {
        code,
        status,
        perf,
        stdout,
    }
}

impl Checked {
    fn value(&self, label: &str) -> Option<&str> {
        self.perf
            .iter()
            .find(|p| p.0 == label)
            .map(|p| p.1.as_str())
    }
}

#[test]
fn the_perfdata_grammar_accepts_what_the_guidelines_allow_and_nothing_else() {
    for ok in [
        "checkpoint_age_pct=12.5%;75;90;0;100",
        "'redo written'=3B",
        "'it''s'=1",
        "history=U",
        "blocker_age=312s;;300;0",
        "x=1;@10:20;~:5",
        "x=-1.5;10:;;;",
    ] {
        assert!(PERFDATA_ITEM.is_match(ok), "{ok}");
    }
    for bad in [
        "redo written=3B",
        "history=",
        "history=12 ms",
        "x=1;;;;;",
        "x=1e5",
        "x=1furlongs",
    ] {
        assert!(!PERFDATA_ITEM.is_match(bad), "{bad}");
    }
    assert_eq!(items("a=1 'b c'=2;3 d=U"), ["a=1", "'b c'=2;3", "d=U"]);
}

#[test]
fn a_bad_threshold_is_unknown_before_any_connection() {
    // No server at all: the flag is judged first, and the plugin says UNKNOWN (3), not 2.
    let c = check(
        &["-h".into(), "127.0.0.1".into(), "-P".into(), "1".into()],
        &["--warning", "lsn>5"],
    );
    assert_eq!(c.code, 3, "{}", c.stdout);
    assert!(
        c.status
            .starts_with("INNODEBT UNKNOWN: --warning \"lsn>5\""),
        "{}",
        c.status
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_says_ok_then_names_the_blocker_then_unknown_when_the_server_is_gone() {
    let mut server = PrivateServer::start(ServerConfig::default());
    let conn = server.conn_args();

    // Idle: purge has caught up, nothing holds history: OK.
    let idle = check(&conn, &[]);
    assert_eq!(idle.code, 0, "{}", idle.stdout);
    assert!(
        idle.status.starts_with("INNODEBT OK: healthy"),
        "{}",
        idle.status
    );
    for label in ["checkpoint_age_pct", "history", "blocker_age", "dirty_pct"] {
        let v = idle.value(label);
        assert!(
            v.is_some_and(|v| v != "U"),
            "{label} missing or unknown on an idle server: {}",
            idle.stdout
        );
    }
    assert_eq!(idle.value("blocker_age"), Some("0"));

    // An account without PROCESS cannot see INNODB_TRX or the purge state: UNKNOWN, the
    // missing privilege and its GRANT on the status line — never OK.
    let usage = common::accounts::Account::create(&server, "usage_only", "s3cret-pw", "").await;
    let denied = check(&usage.tcp_args(&server)[1..], &[]);
    assert_eq!(denied.code, 3, "{}", denied.stdout);
    assert!(
        denied.status.starts_with("INNODEBT UNKNOWN: ")
            && denied
                .status
                .contains("needs PROCESS privilege (GRANT PROCESS ON *.*"),
        "{}",
        denied.status
    );
    assert_eq!(denied.value("blocker_age"), Some("U"), "{}", denied.stdout);

    // A read view blocks purge under write load: at least WARNING, the blocker named.
    let load = WriteLoad::paced(server.opts(), 3, 200);
    load.wait_ops(100).await;
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let blocker = snapshot.thread_id();
    common::wait::duration_is_the_point_async(
        Duration::from_secs(6),
        "the read view's age under write load: the check judges it (at least 5 s below)",
    )
    .await;
    let blocked = check(&conn, &[]);
    assert!(blocked.code == 1 || blocked.code == 2, "{}", blocked.stdout);
    assert!(
        blocked.status.contains("blocked by read view")
            && blocked.status.contains(&format!("thread {blocker}")),
        "the blocker is not named: {}",
        blocked.status
    );
    let age: f64 = blocked
        .value("blocker_age")
        .and_then(|v| v.parse().ok())
        .expect("blocker_age");
    assert!(age >= 5.0, "{}", blocked.stdout);

    // Thresholds on the trigger's figures decide instead, and show as perfdata ranges.
    let thresholds = check(
        &conn,
        &[
            "--warning",
            "history>100000000",
            "--critical",
            "blocker_age>2s",
        ],
    );
    assert_eq!(thresholds.code, 2, "{}", thresholds.stdout);
    assert!(
        thresholds
            .status
            .starts_with("INNODEBT CRITICAL: blocker_age "),
        "{}",
        thresholds.status
    );
    let history = thresholds
        .perf
        .iter()
        .find(|p| p.0 == "history")
        .expect("history");
    assert_eq!(history.2, "100000000", "{}", thresholds.stdout);
    let blocker_age = thresholds
        .perf
        .iter()
        .find(|p| p.0 == "blocker_age")
        .expect("blocker_age");
    assert_eq!(blocker_age.3, "2", "{}", thresholds.stdout);
    snapshot.commit().await;
    load.stop().await;

    // The server is gone: UNKNOWN with the reason, never OK.
    server.kill9();
    let gone = check(&conn, &[]);
    assert_eq!(gone.code, 3, "{}", gone.stdout);
    assert!(
        gone.status.starts_with("INNODEBT UNKNOWN: "),
        "{}",
        gone.status
    );
    assert!(
        gone.status.len() > "INNODEBT UNKNOWN: ".len() + 10,
        "no reason given: {}",
        gone.status
    );
}
