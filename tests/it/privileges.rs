//! The privilege matrix: four accounts of our own on one private MariaDB — USAGE only,
//! PROCESS only, PROCESS + SELECT, and ALL PRIVILEGES — through every mode (`--once` JSON and
//! text, headless `record` then `replay --once`, the dashboard in tmux). Nothing crashes,
//! every figure an account cannot read is `null` and names the privilege that would unlock
//! it, and a runtime change or a kill the account may not make reports the server's refusal
//! (ERROR 1227 / 1095 with the privilege) and changes nothing.
//!
//! On MariaDB 10.11 SHOW GLOBAL STATUS needs no privilege and carries LSN, checkpoint and
//! history list length, so even USAGE sees redo and undo debt; INNODB_METRICS, INNODB_TRX,
//! SHOW ENGINE INNODB STATUS and the INNODB_BUFFER_PAGE_LRU scan need PROCESS. SELECT adds
//! nothing innodebt reads.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::accounts::{Account, ask_purge_lag, null_figures, run};
use common::tmux::Tmux;
use common::wait::duration_is_the_point_async;
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use serde_json::Value;

/// The figures that need PROCESS on MariaDB: INNODB_METRICS (flush by source except LRU, which
/// has a status-variable fallback; purge rates; undo size and reads), INNODB_TRX (the blocker),
/// SHOW ENGINE INNODB STATUS (purge state) and the residency scan. Whether a read view blocks
/// purge is unknown without INNODB_TRX.
const NEEDS_PROCESS: &[&str] = &[
    "flush.by_source_pages_per_s.adaptive",
    "flush.by_source_pages_per_s.sync",
    "flush.by_source_pages_per_s.background",
    "flush.by_source_pages_per_s.neighbor",
    "purge.records_per_s",
    "purge.undo_pages_per_s",
    "purge.state",
    "undo.size_bytes",
    "undo.reads_per_s",
    "undo.cached_pages",
    "undo.resident_pct",
    "undo.scanned_at",
    "blocker",
    "history.held_back",
    "history.held_by",
    "purge.blocked",
    "purge.lag_trx_numbers",
    "purge.lag_s",
    "purge.lag_s_from",
    "purge.lag_transactions",
    "purge.lag_transactions_basis",
    "purge.pace",
    "purge.pace_over_s",
    "purge.moving",
    "purge.open_trx",
    "purge.open_rw_trx",
    "purge.oldest_rw",
    "rollback.undo_slots_cached",
    "redo.oldest_page_age_bytes",
];

/// MySQL 8.0+ only (the `log_max_modified_age_*` counters and where sync flushing starts),
/// and MySQL 5.7 / MariaDB < 10.5.7 only (`max_checkpoint_age`, `log0log.cc
/// log_calc_max_ages`): `null` on MariaDB 10.11 for every account, whatever its privileges.
const NOT_ON_MARIADB: &[&str] = &[
    "redo.counter_async_bytes",
    "redo.counter_sync_bytes",
    "redo.sync_flush_bytes",
    "redo.max_checkpoint_age_bytes",
    "redo.checkpoint_candidate_age_bytes",
];

/// The latch-wait figures, and the judgement that needs them.
const ROLLBACK_WAITS: &[&str] = &[
    "rollback.rseg_waits_per_s",
    "rollback.rseg_wait_s_per_s",
    "rollback.trx_sys_waits_per_s",
    "rollback.trx_sys_wait_s_per_s",
    "rollback.severity",
];

/// Figures every account reads, PROCESS or not.
const NEEDS_NOTHING: &[&str] = &[
    "redo.checkpoint_age_bytes",
    "redo.capacity_bytes",
    "redo.async_point_bytes",
    "history.length",
    "history.growth_per_s",
    "flush.total_pages_per_s",
    "flush.by_source_pages_per_s.lru",
    "dirty.pct",
    "purge.threads",
    "redo.severity",
    "dirty.severity",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grants {
    Usage,
    Process,
    ProcessSelect,
    All,
}

impl Grants {
    const EVERY: [Grants; 4] = [
        Grants::Usage,
        Grants::Process,
        Grants::ProcessSelect,
        Grants::All,
    ];

    fn sql(self) -> &'static str {
        match self {
            Grants::Usage => "",
            Grants::Process => "PROCESS",
            Grants::ProcessSelect => "PROCESS, SELECT",
            Grants::All => "ALL PRIVILEGES",
        }
    }

    fn user(self) -> &'static str {
        match self {
            Grants::Usage => "m_usage",
            Grants::Process => "m_process",
            Grants::ProcessSelect => "m_process_select",
            Grants::All => "m_all",
        }
    }

    fn has_process(self) -> bool {
        self != Grants::Usage
    }
}

/// One private server with every account, the monitor counters on (so that a `null` can only
/// come from a privilege), and `innodb_max_purge_lag` set so time-to-lag is a figure too.
async fn server_with_accounts() -> (PrivateServer, Vec<(Grants, Account)>) {
    let server = PrivateServer::start(ServerConfig::default());
    for group in innodebt_server::flavor::MONITOR_GROUPS {
        server
            .sql(&format!("SET GLOBAL innodb_monitor_enable = '{group}'"))
            .await;
    }
    server
        .sql("SET GLOBAL innodb_max_purge_lag = 100000000")
        .await;
    let mut accounts = Vec::new();
    for g in Grants::EVERY {
        let pw = format!("Mx-{}-pw7", g.user());
        accounts.push((g, Account::create(&server, g.user(), &pw, g.sql()).await));
    }
    (server, accounts)
}

/// Checks one headless JSON object against what `grants` may read: every `null` figure is
/// explained by an `unavailable` entry naming PROCESS, and nothing else is `null`.
fn check_figures(g: Grants, v: &Value, what: &str) {
    let unavailable = v["unavailable"].as_array().expect("unavailable[]");
    let explained: BTreeSet<String> = unavailable
        .iter()
        .flat_map(|u| {
            assert_eq!(
                u["privilege"], "PROCESS",
                "{g:?} {what}: every refusal names PROCESS: {u}"
            );
            u["figures"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_string))
        })
        .collect();
    // An idle transaction runs no statement: its query is null by nature, not by privilege.
    let idle = v["blocker"]["command"] == "Sleep";
    // So is a low-water mark that is off (`lwm_off`), and MySQL 8's counter-reported points.
    let lwm_off = v["dirty"]["lwm_off"] == true;
    // With INNODB_TRX read, the oldest read-write transaction is null when none is among the
    // oldest rows read (the snapshot here is read-only).
    let trx_read = v["purge"]["open_rw_trx"].is_u64();
    // With SEIS read, purge's pace needs two reads with commits between them: a short
    // recording may hold one.
    let seis_read = v["purge"]["lag_trx_numbers"].is_u64();
    // So does its lag in seconds (the counter's readings), unless purge is at the counter.
    let lag_s_unknowable = |p: &str| p == "purge.lag_s" || p == "purge.lag_s_from";
    let latches_off = v["rollback"]["instrumented"] == false;
    let fixed = v["rollback"]["segments_fixed"] == true;
    // A point is "never" reached while what moves towards it stands still: on a loaded CI
    // machine the paced write load can commit nothing between two samples 500 ms apart.
    let redo_still = v["redo"]["written_bytes_per_s"] == 0.0;
    let history_still = v["history"]["growth_per_s"]
        .as_f64()
        .is_some_and(|g| g <= 0.0);
    let never = |p: &str| {
        (redo_still && (p == "redo.seconds_to_async_point" || p == "redo.seconds_to_sync_point"))
            || (history_still && p == "history.seconds_to_max_purge_lag")
    };
    let nulls: BTreeSet<String> = null_figures(v)
        .into_iter()
        .filter(|p| !(idle && p == "blocker.query"))
        .filter(|p| !(trx_read && p == "purge.oldest_rw"))
        // purge.moving is judged from the pace: unknown with it.
        .filter(|p| {
            !(seis_read
                && v["purge"]["pace"].is_null()
                && (p == "purge.pace" || p == "purge.pace_over_s" || p == "purge.moving"))
        })
        .filter(|p| !(seis_read && lag_s_unknowable(p)))
        // Nothing holds history: no holder, by nature.
        .filter(|p| !(trx_read && p == "history.held_by"))
        .filter(|p| !(lwm_off && p == "dirty.lwm_pct"))
        // The estimate's range and its evidence come with a calibration from the error log
        // (these servers' logs hold no crash recovery): the default rate has none, by nature,
        // and a calibrated one no reason it is not.
        .filter(|p| {
            let calibrated = v["recovery"]["rate_origin"] == "calibrated";
            match p.as_str() {
                "recovery.estimate_range_s" | "recovery.calibration" => calibrated,
                "recovery.not_calibrated" => !calibrated,
                _ => true,
            }
        })
        .filter(|p| !NOT_ON_MARIADB.contains(&p.as_str()))
        // performance_schema's latch instruments are off on these servers (said by
        // `rollback.instrumented`): no waits, so no contention judgement; MariaDB fixes the
        // segments at 128 (no setting); MariaDB ≥ 10.6 has no SEIS wait array.
        .filter(|p| !(latches_off && ROLLBACK_WAITS.contains(&p.as_str())))
        .filter(|p| !(fixed && p == "rollback.segments_setting"))
        .filter(|p| !never(p))
        .filter(|p| !p.starts_with("rollback.seis_"))
        // Read only where the server counts it (off by default on MariaDB 10.11).
        .filter(|p| p != "rollback.undo_slots_used")
        .collect();
    let unexplained: Vec<&String> = nulls
        .iter()
        .filter(|p| {
            !explained
                .iter()
                .any(|e| *p == e || p.starts_with(&format!("{e}.")))
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "{g:?} {what}: null figures with no reason: {unexplained:?}\n{v:#}"
    );
    for f in NOT_ON_MARIADB {
        let pointer = format!("/{}", f.replace('.', "/"));
        assert!(
            v.pointer(&pointer).is_some_and(Value::is_null),
            "{g:?} {what}: {f} is MySQL 8's alone, yet not null on MariaDB\n{v:#}"
        );
    }
    for f in NEEDS_NOTHING {
        let pointer = format!("/{}", f.replace('.', "/"));
        assert!(
            v.pointer(&pointer).is_some_and(|x| !x.is_null()),
            "{g:?} {what}: {f} needs no privilege but is null\n{v:#}"
        );
    }
    if g.has_process() {
        assert!(unavailable.is_empty(), "{g:?} {what}: {unavailable:?}");
        assert!(
            v["blocker"]["thread_id"].as_u64().is_some(),
            "{g:?} {what}: PROCESS sees other accounts' transactions: {}",
            v["blocker"]
        );
    } else {
        let expected: BTreeSet<String> = NEEDS_PROCESS.iter().map(|s| s.to_string()).collect();
        assert_eq!(nulls, expected, "{g:?} {what}: the figures PROCESS unlocks");
        let sources: BTreeSet<&str> = unavailable
            .iter()
            .filter_map(|u| u["source"].as_str())
            .collect();
        assert_eq!(
            sources,
            BTreeSet::from(["innodb_metrics", "innodb_trx", "innodb_status", "undo_scan"]),
            "{g:?} {what}"
        );
        let warnings = v["warnings"].to_string();
        assert!(
            warnings.contains("SHOW ENGINE INNODB STATUS unavailable: needs the PROCESS privilege"),
            "{g:?} {what}: {warnings}"
        );
    }
}

fn assert_no_password(account: &Account, what: &str, text: &str) {
    assert!(
        !text.contains(&account.password),
        "{what} shows the password of {}:\n{text}",
        account.user
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_json_and_text_name_the_privilege_each_account_lacks() {
    let (server, accounts) = server_with_accounts().await;
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    duration_is_the_point_async(
        Duration::from_secs(3),
        "the read view ages past 2 s: old enough to count as the purge blocker",
    )
    .await;

    for (g, account) in &accounts {
        let once = |format: &str| {
            let mut args = account.tcp_args(&server);
            args.extend(["--once", "--format", format, "--interval", "1s"].map(String::from));
            args.extend(["--undo-scan-interval", "1s"].map(String::from));
            run(&args).ok(&format!("{g:?} --once --format {format}"))
        };
        let json = once("json");
        assert_no_password(
            account,
            "--once json",
            &(json.stdout.clone() + &json.stderr),
        );
        let v = json.json();
        check_figures(*g, &v, "--once json");
        if g.has_process() {
            assert_eq!(
                v["blocker"]["thread_id"].as_u64(),
                Some(snapshot.thread_id()),
                "{g:?}"
            );
        }

        let text = once("text");
        assert_no_password(
            account,
            "--once text",
            &(text.stdout.clone() + &text.stderr),
        );
        let blocker_line = text
            .stdout
            .lines()
            .find(|l| l.starts_with("blocker"))
            .unwrap_or_default()
            .to_string();
        if g.has_process() {
            assert!(
                blocker_line.contains(&format!("thread {}", snapshot.thread_id())),
                "{g:?}: {}",
                text.stdout
            );
            assert!(!text.stdout.contains("privilege"), "{g:?}: {}", text.stdout);
        } else {
            assert!(
                blocker_line.contains("unknown")
                    && blocker_line.contains("INNODB_TRX needs PROCESS privilege"),
                "{g:?}: never \"none\" when it cannot be known: {}",
                text.stdout
            );
            for source in [
                "INNODB_METRICS",
                "SHOW ENGINE INNODB STATUS",
                "INNODB_BUFFER_PAGE_LRU",
            ] {
                assert!(
                    text.stdout.lines().any(|l| l.starts_with("warning")
                        && l.contains(source)
                        && l.contains("needs the PROCESS privilege")),
                    "{g:?}: {source}: {}",
                    text.stdout
                );
            }
        }
    }
    snapshot.commit().await;
    let stats = load.stop().await;
    assert!(stats.ops > 100, "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_then_replay_keeps_the_missing_privilege() {
    let (server, accounts) = server_with_accounts().await;
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    duration_is_the_point_async(
        Duration::from_secs(3),
        "the read view ages past 2 s: old enough to count as the purge blocker",
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");

    for (g, account) in &accounts {
        let file = dir.path().join(format!("{}.idbt", account.user));
        let mut args = account.tcp_args(&server);
        args.extend(
            [
                "--interval",
                "500ms",
                "--undo-scan-interval",
                "1s",
                "record",
            ]
            .into_iter()
            .map(String::from),
        );
        args.push(file.display().to_string());
        args.extend(["--duration".to_string(), "3s".to_string()]);
        let rec = run(&args).ok(&format!("{g:?} record"));
        assert_no_password(account, "record", &(rec.stdout.clone() + &rec.stderr));

        let replay = run(&[
            "replay".to_string(),
            file.display().to_string(),
            "--once".into(),
            "--format".into(),
            "json".into(),
        ])
        .ok(&format!("{g:?} replay --once"));
        let v = replay.json();
        check_figures(*g, &v, "replay --once");
    }
    snapshot.commit().await;
    load.stop().await;
}

/// Starts the dashboard in `tmux` as `account` (audit log under `state`) and returns the first
/// screen that shows `until`.
fn start_dashboard(
    tmux: &Tmux,
    server: &PrivateServer,
    account: &Account,
    state: &Path,
    until: &str,
) -> String {
    let args: Vec<String> = account
        .tcp_args(server)
        .into_iter()
        .map(|a| format!("'{a}'"))
        .collect();
    tmux.type_text(&format!(
        "XDG_STATE_HOME={} {} {} --interval 500ms",
        state.display(),
        common::innodebt_bin().display(),
        args.join(" ")
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for(until, Duration::from_secs(20), |s| {
        s.contains("Checkpoint age") && s.contains(until)
    })
}

/// Esc, then waits until `text` (of the overlay being closed) is gone: an Esc sent together
/// with the next key reads as Alt+key.
fn close_overlay(tmux: &Tmux, text: &str) {
    tmux.keys(&["Escape"]);
    tmux.wait_for("the overlay closed", Duration::from_secs(10), |s| {
        !s.contains(text)
    });
}

fn quit_dashboard(tmux: &Tmux) {
    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", Duration::from_secs(10), |s| {
        !s.contains("Checkpoint age")
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_names_missing_privileges_and_reports_refused_changes() {
    let (server, accounts) = server_with_accounts().await;
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let blocker = snapshot.thread_id();
    let threads_before = server.var_u64("innodb_purge_threads").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    let tmux = Tmux::start(dir.path(), 160, 50);
    let long = Duration::from_secs(20);
    let account = |g: Grants| {
        accounts
            .iter()
            .find(|(a, _)| *a == g)
            .map(|(_, acc)| acc.clone())
            .expect("account")
    };

    // USAGE: every panel says what PROCESS would show; `m` and `K` say why they cannot act.
    let usage = account(Grants::Usage);
    let screen = start_dashboard(&tmux, &server, &usage, &state, "blocker unknown");
    for note in [
        "▲ blocker unknown: needs PROCESS privilege",
        "▲ by source: needs PROCESS privilege",
        "▲ rates, state, lag: needs PROCESS privilege",
        "▲ size, reads, scan: needs PROCESS privilege",
    ] {
        assert!(screen.contains(note), "{note}:\n{screen}");
    }
    assert!(!screen.contains("no blocker"), "{screen}");
    assert!(!screen.contains("press m to enable"), "{screen}");
    // An unseen blocker is no reason to call the server healthy.
    let verdict = screen.lines().nth(1).unwrap_or_default();
    assert!(
        verdict.contains("? unknown") && verdict.contains("needs PROCESS"),
        "{screen}"
    );
    assert_no_password(&usage, "the dashboard", &screen);
    tmux.keys(&["m"]);
    tmux.wait_for("the monitors refusal", long, |s| {
        s.contains("INNODB_METRICS cannot be read") && s.contains("which monitor counters are off")
    });
    close_overlay(&tmux, "INNODB_METRICS cannot be read");
    tmux.keys(&["K"]);
    tmux.wait_for("the kill refusal", long, |s| {
        s.contains("INNODB_TRX cannot be read") && s.contains("whether a transaction blocks")
    });
    close_overlay(&tmux, "INNODB_TRX cannot be read");
    tmux.keys(&["t"]);
    tmux.wait_for("the purge-threads confirmation", long, |s| {
        s.contains("SET GLOBAL innodb_purge_threads") && s.contains("Needs SUPER")
    });
    tmux.keys(&["y"]);
    let refused = tmux.wait_for("the refusal", long, |s| s.contains("failed: ERROR 1227"));
    assert!(
        refused.contains("SUPER privilege(s)") && refused.contains("The account needs SUPER"),
        "{refused}"
    );
    assert_eq!(server.var_u64("innodb_purge_threads").await, threads_before);
    close_overlay(&tmux, "failed: ERROR 1227");
    quit_dashboard(&tmux);

    // PROCESS: the blocker is visible, but killing another account's session is refused.
    let process = account(Grants::Process);
    let thread = format!("thread {blocker}");
    let screen = start_dashboard(&tmux, &server, &process, &state, &thread);
    assert!(!screen.contains("needs PROCESS"), "{screen}");
    tmux.keys(&["K"]);
    tmux.wait_for("the kill confirmation", long, |s| {
        s.contains(&format!("KILL CONNECTION {blocker}"))
    });
    tmux.keys(&["y"]);
    let refused = tmux.wait_for("the kill refusal", long, |s| {
        s.contains("failed: ERROR 1095")
    });
    assert!(
        refused.contains("not owner of thread") && refused.contains("CONNECTION ADMIN"),
        "{refused}"
    );
    let alive = server
        .sql(&format!(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {blocker}"
        ))
        .await;
    assert_eq!(
        alive[0].get::<u64, _>(0),
        Some(1),
        "the blocker must survive"
    );
    close_overlay(&tmux, "not owner of thread");
    ask_purge_lag(&tmux, 5000);
    tmux.keys(&["y"]);
    tmux.wait_for("the refusal", long, |s| {
        s.contains("failed: ERROR 1227") && s.contains("SUPER")
    });
    assert_eq!(server.var_u64("innodb_max_purge_lag").await, 100_000_000);
    close_overlay(&tmux, "failed: ERROR 1227");
    quit_dashboard(&tmux);

    // PROCESS + SELECT and ALL: everything readable, nothing to name.
    for g in [Grants::ProcessSelect, Grants::All] {
        let acc = account(g);
        let screen = start_dashboard(&tmux, &server, &acc, &state, &thread);
        assert!(!screen.contains("needs PROCESS"), "{g:?}:\n{screen}");
        quit_dashboard(&tmux);
    }

    // Refused changes are audited as refused, with the account that tried.
    let audit = std::fs::read_to_string(state.join("innodebt/audit.log")).expect("audit log");
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(lines.len(), 3, "{audit}");
    for (line, who) in lines
        .iter()
        .zip(["m_usage@%", "m_process@%", "m_process@%"])
    {
        assert!(
            line.contains(who) && line.contains("\"result\":\"error: "),
            "{line}"
        );
    }
    snapshot.commit().await;
}
