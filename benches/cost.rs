//! What a monitor costs the server per tick, at 10, 1,500 and 5,000 sessions.
//!
//! `cargo bench --bench cost` (options after `--`: `--sessions 10,1500,5000`, `--seconds 30`,
//! `--warmup 8`, `--rate 1000`, `--tools mysqladmin,dolphie,innodebt,innodebt-m`,
//! `--dolphie PATH`, `--before PATH` to add an older innodebt binary as a tool).
//!
//! One private MariaDB (performance_schema on, max_connections raised), real write load
//! (sysbench oltp_write_only at `--rate` transactions/s), N idle sessions of which every
//! tenth holds an open write transaction. Then, one tool at a time and each under its own
//! account, a window of `--seconds` at a 1 s refresh:
//! - server time and statements from performance_schema (`events_statements_summary_by_user_by_event_name`
//!   for the account's total, `events_statements_summary_by_digest` for the statements —
//!   only the measured tool runs statements outside the load's and the bench's schemas);
//! - a tick is one run of the tool's most frequent SHOW GLOBAL STATUS (each tool runs one
//!   per refresh);
//! - client CPU (utime + stime from /proc) and peak RSS (VmHWM) of the tool's process.
//!
//! innodebt and Dolphie run as TUIs in a 200×50 tmux pane; mysqladmin as `ext -ri1`.
//! `innodebt-m` is innodebt after `innodb_monitor_enable` of the groups the panels use (key
//! `m`); the counters are put back as they were afterwards.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, Row};

use common::{PrivateServer, ServerConfig};
use innodebt_server::flavor::MONITOR_GROUPS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tool {
    Mysqladmin,
    Dolphie,
    Before,
    Innodebt,
    InnodebtM,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Mysqladmin => "mysqladmin ext -ri1",
            Tool::Dolphie => "Dolphie TUI",
            Tool::Before => "innodebt (before)",
            Tool::Innodebt => "innodebt",
            Tool::InnodebtM => "innodebt, counters on (m)",
        }
    }

    fn account(self) -> &'static str {
        match self {
            Tool::Mysqladmin => "b_mysqladmin",
            Tool::Dolphie => "b_dolphie",
            Tool::Before => "b_before",
            Tool::Innodebt => "b_innodebt",
            Tool::InnodebtM => "b_innodebt_m",
        }
    }

    fn parse(s: &str) -> Option<Tool> {
        Some(match s {
            "mysqladmin" => Tool::Mysqladmin,
            "dolphie" => Tool::Dolphie,
            "before" => Tool::Before,
            "innodebt" => Tool::Innodebt,
            "innodebt-m" => Tool::InnodebtM,
            _ => return None,
        })
    }
}

struct Args {
    sessions: Vec<usize>,
    seconds: u64,
    warmup: u64,
    rate: u32,
    tools: Vec<Tool>,
    dolphie: PathBuf,
    before: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args {
        sessions: vec![10, 1500, 5000],
        seconds: 30,
        warmup: 8,
        rate: 1000,
        tools: vec![
            Tool::Mysqladmin,
            Tool::Dolphie,
            Tool::Innodebt,
            Tool::InnodebtM,
        ],
        dolphie: PathBuf::from("dolphie"),
        before: None,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let value = argv.get(i + 1).cloned().unwrap_or_default();
        match argv[i].as_str() {
            "--sessions" => {
                a.sessions = value
                    .split(',')
                    .map(|n| n.trim().replace('_', "").parse().expect("--sessions N,N,…"))
                    .collect()
            }
            "--seconds" => a.seconds = value.parse().expect("--seconds N"),
            "--warmup" => a.warmup = value.parse().expect("--warmup N"),
            "--rate" => a.rate = value.parse().expect("--rate TPS"),
            "--tools" => {
                a.tools = value
                    .split(',')
                    .map(|t| {
                        Tool::parse(t.trim())
                            .expect("--tools: mysqladmin,dolphie,before,innodebt,innodebt-m")
                    })
                    .collect()
            }
            "--dolphie" => a.dolphie = PathBuf::from(value),
            "--before" => a.before = Some(PathBuf::from(value)),
            // `cargo bench` passes --bench; ignore it and anything unknown.
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if a.before.is_some() && !a.tools.contains(&Tool::Before) {
        a.tools.insert(0, Tool::Before);
    }
    a.tools.sort();
    a.sessions.sort_unstable();
    a
}

/// performance_schema counters at one moment: per account and per digest.
#[derive(Default, Clone)]
struct Snapshot {
    by_user: HashMap<String, (u64, u64)>,
    /// digest → (text, count, picoseconds)
    by_digest: HashMap<String, (String, u64, u64)>,
}

async fn snapshot(conn: &mut Conn) -> Snapshot {
    let mut s = Snapshot::default();
    let users: Vec<Row> = conn
        .query(
            "SELECT USER, SUM(COUNT_STAR), SUM(SUM_TIMER_WAIT) \
             FROM performance_schema.events_statements_summary_by_user_by_event_name \
             WHERE USER IS NOT NULL GROUP BY USER",
        )
        .await
        .expect("by_user");
    for r in users {
        let user: String = r.get(0).unwrap_or_default();
        let n: u64 = num(&r, 1);
        let t: u64 = num(&r, 2);
        s.by_user.insert(user, (n, t));
    }
    let digests: Vec<Row> = conn
        .query(
            "SELECT DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT \
             FROM performance_schema.events_statements_summary_by_digest \
             WHERE SCHEMA_NAME IS NULL OR SCHEMA_NAME NOT IN ('sbtest', 'performance_schema', 'bench')",
        )
        .await
        .expect("by_digest");
    for r in digests {
        let digest: String = r.get::<Option<String>, _>(0).flatten().unwrap_or_default();
        let text: String = r.get::<Option<String>, _>(1).flatten().unwrap_or_default();
        s.by_digest.insert(digest, (text, num(&r, 2), num(&r, 3)));
    }
    s
}

fn num(r: &Row, i: usize) -> u64 {
    match r.as_ref(i) {
        Some(mysql_async::Value::Int(v)) => u64::try_from(*v).unwrap_or(0),
        Some(mysql_async::Value::UInt(v)) => *v,
        Some(mysql_async::Value::Bytes(b)) => String::from_utf8_lossy(b)
            .split('.')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0),
        Some(mysql_async::Value::Double(d)) => *d as u64,
        _ => 0,
    }
}

/// One statement of one tool over the window.
#[derive(Clone)]
struct Statement {
    text: String,
    calls: u64,
    ps: u64,
}

/// What one tool cost over one window.
#[derive(Clone)]
struct Measured {
    tool: Tool,
    sessions: usize,
    window_s: f64,
    ticks: f64,
    statements: u64,
    server_ps: u64,
    cpu_s: f64,
    rss_kib: u64,
    by_digest: Vec<Statement>,
}

impl Measured {
    fn ms_per_tick(&self) -> f64 {
        self.server_ps as f64 / 1e9 / self.ticks.max(1.0)
    }
    fn statements_per_tick(&self) -> f64 {
        self.statements as f64 / self.ticks.max(1.0)
    }
    fn cpu_pct(&self) -> f64 {
        100.0 * self.cpu_s / self.window_s
    }
}

fn diff(before: &Snapshot, after: &Snapshot, tool: Tool) -> (u64, u64, Vec<Statement>) {
    let user = tool.account();
    let (n0, t0) = before.by_user.get(user).copied().unwrap_or((0, 0));
    let (n1, t1) = after.by_user.get(user).copied().unwrap_or((0, 0));
    let mut stmts: Vec<Statement> = after
        .by_digest
        .iter()
        .filter_map(|(d, (text, n, t))| {
            let (_, n0, t0) = before.by_digest.get(d).cloned().unwrap_or_default();
            (*n > n0).then(|| Statement {
                text: text.clone(),
                calls: n - n0,
                ps: t.saturating_sub(t0),
            })
        })
        .collect();
    stmts.sort_by_key(|s| std::cmp::Reverse(s.ps));
    (n1.saturating_sub(n0), t1.saturating_sub(t0), stmts)
}

/// Ticks = runs of the tool's most frequent SHOW GLOBAL STATUS (one per refresh for all three).
fn ticks(stmts: &[Statement], window_s: f64) -> f64 {
    stmts
        .iter()
        .filter(|s| {
            s.text
                .to_ascii_uppercase()
                .starts_with("SHOW GLOBAL STATUS")
        })
        .map(|s| s.calls)
        .max()
        .map_or(window_s, |n| n as f64)
}

fn proc_cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks / hz.max(1.0)
}

fn proc_hwm_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// A tool running: its process id and how to stop it.
enum Running {
    Tmux { socket: PathBuf, pid: u32 },
    Child(Child),
}

impl Running {
    fn pid(&self) -> u32 {
        match self {
            Running::Tmux { pid, .. } => *pid,
            Running::Child(c) => c.id(),
        }
    }

    fn stop(self) {
        match self {
            Running::Tmux { socket, .. } => {
                let _ = Command::new("tmux")
                    .arg("-S")
                    .arg(&socket)
                    .arg("kill-server")
                    .status();
                let _ = std::fs::remove_file(socket);
            }
            Running::Child(mut c) => {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

fn in_tmux(dir: &Path, name: &str, command: &str) -> Running {
    let socket = dir.join(format!("tmux-{name}.sock"));
    let status = Command::new("tmux")
        .arg("-S")
        .arg(&socket)
        .args(["new-session", "-d", "-x", "200", "-y", "50"])
        .arg(format!("TERM=xterm-256color exec {command}"))
        .status()
        .expect("tmux (apt-get install tmux)");
    assert!(status.success(), "tmux new-session failed for {command}");
    let out = Command::new("tmux")
        .arg("-S")
        .arg(&socket)
        .args(["list-panes", "-F", "#{pane_pid}"])
        .output()
        .expect("tmux list-panes");
    let pid = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("pane pid");
    Running::Tmux { socket, pid }
}

fn start_tool(tool: Tool, a: &Args, server: &PrivateServer, dir: &Path) -> Running {
    let sock = server.socket().display().to_string();
    let user = tool.account();
    match tool {
        Tool::Mysqladmin => Running::Child(
            Command::new("mysqladmin")
                .args(["-S", &sock, "-u", user, "ext", "-ri1"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("mysqladmin (apt-get install mariadb-client)"),
        ),
        Tool::Dolphie => in_tmux(
            dir,
            "dolphie",
            &format!(
                "{} -S {sock} -u {user} -r 1 --host-cache-file /dev/null --tab-setup-file /dev/null -c /dev/null -m /dev/null",
                a.dolphie.display()
            ),
        ),
        Tool::Before | Tool::Innodebt | Tool::InnodebtM => {
            let bin = match tool {
                Tool::Before => a.before.clone().expect("--before PATH"),
                _ => common::innodebt_bin(),
            };
            in_tmux(
                dir,
                user,
                &format!(
                    "{} --no-defaults -S {sock} -u {user} --interval 1s",
                    bin.display()
                ),
            )
        }
    }
}

// ---------------------------------------------------------------------------
// The server, its sessions and its load
// ---------------------------------------------------------------------------

fn opts(server: &PrivateServer, user: &str, db: Option<&str>) -> Opts {
    OptsBuilder::default()
        .user(Some(user))
        .socket(Some(server.socket().display().to_string()))
        .db_name(db)
        .into()
}

/// Idle sessions up to `upto`; every tenth holds an open write transaction.
async fn add_sessions(server: &PrivateServer, held: &mut Vec<Conn>, upto: usize) {
    let from = held.len();
    let opts = opts(server, "b_idle", None);
    held.extend(common::idle_sessions(opts, "bench.hold", from, upto).await);
}

fn sysbench(server: &PrivateServer, what: &str, rate: u32) -> Command {
    let mut c = Command::new("sysbench");
    c.arg("oltp_write_only")
        .arg(format!("--mysql-socket={}", server.socket().display()))
        .args([
            "--db-driver=mysql",
            "--mysql-user=root",
            "--mysql-db=sbtest",
            "--tables=4",
            "--table-size=20000",
            "--threads=8",
            "--time=0",
            "--report-interval=0",
        ])
        .arg(format!("--rate={rate}"))
        .arg(what)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

async fn commits(conn: &mut Conn) -> u64 {
    let r: Vec<Row> = conn
        .query("SHOW GLOBAL STATUS LIKE 'Com_commit'")
        .await
        .expect("Com_commit");
    r.first().map_or(0, |r| num(r, 1))
}

async fn counters_enabled(conn: &mut Conn) -> Vec<String> {
    conn.query("SELECT NAME FROM information_schema.INNODB_METRICS WHERE ENABLED = 1")
        .await
        .expect("INNODB_METRICS")
}

async fn set_counters(conn: &mut Conn, enabled: &[String]) {
    conn.query_drop("SET GLOBAL innodb_monitor_disable = 'all'")
        .await
        .expect("innodb_monitor_disable");
    for name in enabled {
        conn.query_drop(format!("SET GLOBAL innodb_monitor_enable = '{name}'"))
            .await
            .expect("innodb_monitor_enable");
    }
}

async fn measure(
    a: &Args,
    server: &PrivateServer,
    dir: &Path,
    ctl: &mut Conn,
    tool: Tool,
    sessions: usize,
) -> Measured {
    let running = start_tool(tool, a, server, dir);
    let pid = running.pid();
    common::wait::duration_is_the_point_async(Duration::from_secs(a.warmup), "the warm-up").await;
    let cpu0 = proc_cpu_s(pid);
    let s0 = snapshot(ctl).await;
    let t0 = Instant::now();
    common::wait::duration_is_the_point_async(
        Duration::from_secs(a.seconds),
        "the measurement window",
    )
    .await;
    let s1 = snapshot(ctl).await;
    let window_s = t0.elapsed().as_secs_f64();
    let cpu = proc_cpu_s(pid) - cpu0;
    let rss = proc_hwm_kib(pid);
    let alive = std::fs::metadata(format!("/proc/{pid}")).is_ok();
    running.stop();
    assert!(alive, "{} exited during the window", tool.name());
    let (statements, server_ps, by_digest) = diff(&s0, &s1, tool);
    Measured {
        tool,
        sessions,
        window_s,
        ticks: ticks(&by_digest, window_s),
        statements,
        server_ps,
        cpu_s: cpu,
        rss_kib: rss,
        by_digest,
    }
}

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

fn short(text: &str, n: usize) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= n {
        one
    } else {
        format!("{}…", one.chars().take(n - 1).collect::<String>())
    }
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn report(runs: &[Measured], a: &Args, load: &BTreeMap<usize, f64>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\n## Server time per tick (performance_schema), {} s windows at a 1 s refresh\n",
        a.seconds
    );
    let _ = writeln!(
        o,
        "| sessions (open write trx) | load tps | tool | ticks/s | statements/tick | server ms/tick | client CPU | peak RSS |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|");
    for m in runs {
        let _ = writeln!(
            o,
            "| {} ({}) | {:.0} | {} | {:.2} | {:.1} | **{:.2}** | {:.2} % | {:.1} MiB |",
            thousands(m.sessions),
            thousands(m.sessions.div_ceil(10)),
            load.get(&m.sessions).copied().unwrap_or(0.0),
            m.tool.name(),
            m.ticks / m.window_s,
            m.statements_per_tick(),
            m.ms_per_tick(),
            m.cpu_pct(),
            m.rss_kib as f64 / 1024.0
        );
    }

    // innodebt's statements, by digest, across session counts.
    for tool in [Tool::Innodebt, Tool::InnodebtM, Tool::Before] {
        let mine: Vec<&Measured> = runs.iter().filter(|m| m.tool == tool).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(
            o,
            "\n### {}: server ms per tick by statement (calls per tick)\n",
            tool.name()
        );
        let mut texts: Vec<String> = Vec::new();
        for m in &mine {
            for s in &m.by_digest {
                if !texts.contains(&s.text) {
                    texts.push(s.text.clone());
                }
            }
        }
        let _ = write!(o, "| statement |");
        for m in &mine {
            let _ = write!(o, " {} |", thousands(m.sessions));
        }
        let first = mine.first().map(|m| m.sessions).unwrap_or(0);
        let last = mine.last().map(|m| m.sessions).unwrap_or(0);
        let _ = writeln!(o, " per call {} → {} |", thousands(first), thousands(last));
        let _ = writeln!(o, "|---|{}---|", "---|".repeat(mine.len()));
        for text in &texts {
            let _ = write!(o, "| `{}` |", short(text, 90));
            let mut per_call = Vec::new();
            for m in &mine {
                match m.by_digest.iter().find(|s| &s.text == text) {
                    Some(s) => {
                        let _ = write!(
                            o,
                            " {:.3} ({:.2}) |",
                            s.ps as f64 / 1e9 / m.ticks.max(1.0),
                            s.calls as f64 / m.ticks.max(1.0)
                        );
                        per_call.push(Some(s.ps as f64 / 1e9 / s.calls.max(1) as f64));
                    }
                    None => {
                        let _ = write!(o, " — |");
                        per_call.push(None);
                    }
                }
            }
            // A statement on a slow cadence may not have run in a window: that end of the
            // comparison reads "n/a" with why (it printed `NaN ms (NaN×)`).
            let end = |v: Option<f64>, sessions: usize| match v {
                Some(ms) => format!("{ms:.3} ms"),
                None => format!("n/a (not run at {})", thousands(sessions)),
            };
            let (f, l) = (
                per_call.first().copied().flatten(),
                per_call.last().copied().flatten(),
            );
            let _ = match (f, l) {
                (Some(f), Some(l)) if f > 0.0 => {
                    writeln!(o, " {f:.3} → {l:.3} ms ({:.1}×) |", l / f)
                }
                _ => writeln!(o, " {} → {} |", end(f, first), end(l, last)),
            };
        }
    }

    // Ratios.
    let get = |tool: Tool, n: usize| runs.iter().find(|m| m.tool == tool && m.sessions == n);
    let _ = writeln!(o, "\n## Ratios (server time per tick, same run)\n");
    let _ = writeln!(o, "| ratio | value | target |");
    let _ = writeln!(o, "|---|---|---|");
    let ratio = |a: Option<&Measured>, b: Option<&Measured>| match (a, b) {
        (Some(a), Some(b)) if b.ms_per_tick() > 0.0 => Some(a.ms_per_tick() / b.ms_per_tick()),
        _ => None,
    };
    let line = |o: &mut String, what: String, r: Option<f64>, target: f64| {
        if let Some(r) = r {
            let _ = writeln!(
                o,
                "| {what} | {r:.2} | ≤ {target} {} |",
                if r <= target { "✓" } else { "✗ MISSED" }
            );
        }
    };
    for &n in a.sessions.iter().filter(|n| **n >= 1000) {
        for tool in [Tool::Innodebt, Tool::InnodebtM] {
            line(
                &mut o,
                format!("{} / Dolphie at {}", tool.name(), thousands(n)),
                ratio(get(tool, n), get(Tool::Dolphie, n)),
                0.25,
            );
            line(
                &mut o,
                format!("{} / mysqladmin at {}", tool.name(), thousands(n)),
                ratio(get(tool, n), get(Tool::Mysqladmin, n)),
                1.0,
            );
        }
    }
    if let (Some(&lo), Some(&hi)) = (a.sessions.first(), a.sessions.last()) {
        for tool in [Tool::Innodebt, Tool::InnodebtM] {
            line(
                &mut o,
                format!(
                    "{} at {} / at {}",
                    tool.name(),
                    thousands(hi),
                    thousands(lo)
                ),
                ratio(get(tool, hi), get(tool, lo)),
                1.5,
            );
        }
    }
    for m in runs
        .iter()
        .filter(|m| matches!(m.tool, Tool::Innodebt | Tool::InnodebtM))
    {
        let _ = writeln!(
            o,
            "| {} at {}: client CPU / peak RSS | {:.2} % / {:.1} MiB | ≤ 0.2 % / ≤ 11 MiB {} |",
            m.tool.name(),
            thousands(m.sessions),
            m.cpu_pct(),
            m.rss_kib as f64 / 1024.0,
            if m.cpu_pct() <= 0.2 && m.rss_kib <= 11 * 1024 {
                "✓"
            } else {
                "✗ MISSED"
            }
        );
    }
    o
}

fn main() {
    let a = args();
    let max = a.sessions.iter().copied().max().unwrap_or(10);
    // Every idle session is a socket here too.
    // SAFETY: getrlimit/setrlimit on our own process with a valid struct.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
    let dir = tempfile::Builder::new()
        .prefix("innodebt-cost-")
        .tempdir()
        .expect("temp dir");
    let cfg = ServerConfig {
        buffer_pool_size: "256M".into(),
        log_file_size: "256M".into(),
        log_buffer_size: "16M".into(),
        max_connections: u32::try_from(max + 200).unwrap_or(u32::MAX),
        ..ServerConfig::default()
    }
    .with_args([
        "--performance-schema=ON".to_string(),
        "--thread-cache-size=256".to_string(),
        format!("--open-files-limit={}", max * 2 + 2000),
        "--innodb-flush-log-at-trx-commit=2".to_string(),
    ]);
    let server = PrivateServer::start(cfg);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let runs = rt.block_on(async {
        let mut root = Conn::new(server.opts()).await.expect("root");
        for q in [
            "CREATE DATABASE bench",
            "CREATE DATABASE sbtest",
            "CREATE TABLE bench.hold (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
        ] {
            root.query_drop(q).await.expect(q);
        }
        for user in [
            "b_idle",
            "b_mysqladmin",
            "b_dolphie",
            "b_before",
            "b_innodebt",
            "b_innodebt_m",
        ] {
            root.query_drop(format!("CREATE USER {user}@localhost"))
                .await
                .expect("CREATE USER");
            root.query_drop(format!("GRANT ALL ON *.* TO {user}@localhost"))
                .await
                .expect("GRANT");
        }
        let prep = sysbench(&server, "prepare", a.rate)
            .output()
            .expect("sysbench (apt-get install sysbench)");
        assert!(
            prep.status.success(),
            "sysbench prepare: {}",
            String::from_utf8_lossy(&prep.stderr)
        );
        let mut load = sysbench(&server, "run", a.rate)
            .spawn()
            .expect("sysbench run");
        let mut ctl = Conn::new(opts(&server, "root", Some("performance_schema")))
            .await
            .expect("control connection");
        let defaults = counters_enabled(&mut ctl).await;
        let mut held = Vec::new();
        let mut runs = Vec::new();
        let mut tps = BTreeMap::new();
        for &n in &a.sessions {
            let t = Instant::now();
            add_sessions(&server, &mut held, n).await;
            eprintln!(
                "{} idle sessions ({} in open write transactions) in {:.1} s",
                held.len(),
                held.len().div_ceil(10),
                t.elapsed().as_secs_f64()
            );
            let c0 = commits(&mut ctl).await;
            let t0 = Instant::now();
            for &tool in &a.tools {
                if tool == Tool::InnodebtM {
                    let mut wanted = defaults.clone();
                    wanted.extend(MONITOR_GROUPS.iter().map(|g| g.to_string()));
                    set_counters(&mut ctl, &wanted).await;
                }
                let m = measure(&a, &server, dir.path(), &mut ctl, tool, n).await;
                if tool == Tool::InnodebtM {
                    set_counters(&mut ctl, &defaults).await;
                }
                eprintln!(
                    "  {:<28} {:>6.2} ms/tick, {:>5.1} statements/tick, {:.2} % CPU, {:.1} MiB",
                    tool.name(),
                    m.ms_per_tick(),
                    m.statements_per_tick(),
                    m.cpu_pct(),
                    m.rss_kib as f64 / 1024.0
                );
                runs.push(m);
            }
            let c1 = commits(&mut ctl).await;
            tps.insert(n, (c1 - c0) as f64 / t0.elapsed().as_secs_f64());
        }
        if let Ok(Some(status)) = load.try_wait() {
            eprintln!("sysbench stopped early: {status}");
        }
        let _ = load.kill();
        let _ = load.wait();
        for c in held {
            let _ = c.disconnect().await;
        }
        (runs, tps)
    });
    let (runs, tps) = runs;
    let dolphie = Command::new(&a.dolphie)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let mut head = String::new();
    let _ = writeln!(
        head,
        "# innodebt cost benchmark\n\n{} (private server, performance_schema on); Dolphie {}; {} cores; load: sysbench oltp_write_only, 8 threads, --rate {}; load average at the end: {}",
        common::binaries().version,
        dolphie,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        a.rate,
        common::machine::load_average()
    );
    print!("{head}{}", report(&runs, &a, &tps));
    drop(server);
}
