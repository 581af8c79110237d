//! Runtime changes against private servers: a confirmed change shows in `@@GLOBAL`, the
//! plan refuses what the server would truncate (and the truncation is reported when forced),
//! a missing privilege is named, read-only refuses, monitors switch on, a blocking snapshot's
//! session is killed (and only that transaction), the audit log gets one private line per
//! action. Each test has its own server
//! and restores what it changed.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::wait::wait_until_async;
use common::{BlockingSnapshot, PrivateServer, ServerConfig};
use innodebt::cli::{ConnectOptions, Endpoint, Secret};
use innodebt::control::plan::FactsSource;
use innodebt::control::{
    AuditLog, PlanContext, PurgeVariable, Refusal, VariableFacts, execute, fetch_facts,
    plan_enable_monitors, plan_kill, plan_set,
};
use innodebt_engine::figures::Blocker;
use innodebt_server::flavor::{Flavor, METRICS};
use mysql_async::Row;

fn options(server: &PrivateServer) -> ConnectOptions {
    ConnectOptions::new(Endpoint::Socket(server.socket()))
}

fn as_user(server: &PrivateServer, user: &str, password: &str) -> ConnectOptions {
    let mut o = options(server);
    o.user = user.to_string();
    o.password = Some(Secret::new(password));
    o
}

async fn flavor(server: &PrivateServer) -> Flavor {
    let rows = server.sql("SELECT VERSION(), @@version_comment").await;
    let (v, c): (String, String) = mysql_async::from_row(rows[0].clone());
    Flavor::detect(&v, &c, false)
}

async fn global(server: &PrivateServer, var: &str) -> String {
    let rows = server.sql(&format!("SELECT @@GLOBAL.{var}")).await;
    let v: mysql_async::Value = rows[0].get(0).expect("a value");
    match v {
        mysql_async::Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        mysql_async::Value::Int(i) => i.to_string(),
        mysql_async::Value::UInt(u) => u.to_string(),
        other => panic!("unexpected {other:?}"),
    }
}

async fn ctx(server: &PrivateServer) -> PlanContext {
    PlanContext::new(flavor(server).await, false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirmed_change_is_visible_in_global() {
    let server = PrivateServer::start(ServerConfig::default());
    let opts = options(&server);
    let ctx = ctx(&server).await;
    let before = global(&server, "innodb_max_purge_lag").await;

    let facts = fetch_facts(&opts, ctx.flavor, PurgeVariable::MaxPurgeLag)
        .await
        .unwrap();
    assert!(facts.exists && facts.dynamic, "{facts:?}");
    assert_eq!(facts.source, FactsSource::SystemVariables);
    assert_eq!(facts.current.map(|c| c.to_string()), Some(before.clone()));
    let plan = plan_set(PurgeVariable::MaxPurgeLag, 123_456, &facts, &ctx).unwrap();
    assert_eq!(plan.sql, vec!["SET GLOBAL innodb_max_purge_lag = 123456"]);

    // As the App runs it: a spawned task, the UI never awaits it.
    let task_opts = opts.clone();
    let task_plan = plan.clone();
    let out = tokio::spawn(async move { execute(&task_opts, &task_plan).await })
        .await
        .unwrap();
    assert!(out.ok, "{out:?}");
    assert_eq!(out.verified_value.as_deref(), Some("123456"));
    assert!(out.warnings.is_empty() && !out.differs_from_request);
    assert_eq!(global(&server, "innodb_max_purge_lag").await, "123456");
    assert_eq!(out.audit.account, "root@localhost");
    assert_eq!(out.audit.old_value.as_deref(), Some(before.as_str()));
    assert_eq!(out.audit.new_value.as_deref(), Some("123456"));
    assert!(out.audit.server.contains("socket"));

    // Restore.
    let facts = fetch_facts(&opts, ctx.flavor, PurgeVariable::MaxPurgeLag)
        .await
        .unwrap();
    let back = plan_set(
        PurgeVariable::MaxPurgeLag,
        before.parse().unwrap(),
        &facts,
        &ctx,
    )
    .unwrap();
    assert!(execute(&opts, &back).await.ok);
    assert_eq!(global(&server, "innodb_max_purge_lag").await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_is_refused_and_truncation_reported_when_forced() {
    let server = PrivateServer::start(ServerConfig::default());
    let opts = options(&server);
    let ctx = ctx(&server).await;
    let before = global(&server, "innodb_purge_threads").await;

    let facts = fetch_facts(&opts, ctx.flavor, PurgeVariable::PurgeThreads)
        .await
        .unwrap();
    assert_eq!((facts.min, facts.max), (Some(1), Some(32)), "{facts:?}");
    let refusal = plan_set(PurgeVariable::PurgeThreads, 33, &facts, &ctx).unwrap_err();
    assert!(matches!(
        refusal,
        Refusal::OutOfRange {
            asked: 33,
            min: 1,
            max: 32,
            ..
        }
    ));
    assert!(refusal.to_string().contains("1 to 32"), "{refusal}");
    assert_eq!(global(&server, "innodb_purge_threads").await, before);

    // Forced past the plan (as if the range were unknown): the server truncates with 1292.
    let unknown = VariableFacts {
        max: None,
        source: FactsSource::Unknown,
        ..facts.clone()
    };
    let plan = plan_set(PurgeVariable::PurgeThreads, 33, &unknown, &ctx).unwrap();
    let out = execute(&opts, &plan).await;
    assert!(out.ok, "{out:?}");
    assert!(
        out.warnings.iter().any(|w| w.code == 1292),
        "{:?}",
        out.warnings
    );
    assert_eq!(out.verified_value.as_deref(), Some("32"));
    assert!(out.differs_from_request);
    let text = out.lines(&plan).join("\n");
    assert!(
        text.contains("now 32 (asked for 33)") && text.contains("1292"),
        "{text}"
    );
    assert!(out.audit.result.contains("1292"), "{}", out.audit.result);

    server
        .sql(&format!("SET GLOBAL innodb_purge_threads = {before}"))
        .await;
    assert_eq!(global(&server, "innodb_purge_threads").await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_super_the_error_names_the_privilege_and_nothing_changes() {
    let server = PrivateServer::start(ServerConfig::default());
    server
        .sql("CREATE USER 'watcher'@'localhost' IDENTIFIED BY 'w4tch-only'")
        .await;
    server
        .sql("GRANT PROCESS ON *.* TO 'watcher'@'localhost'")
        .await;
    let opts = as_user(&server, "watcher", "w4tch-only");
    let ctx = ctx(&server).await;
    let before = global(&server, "innodb_max_purge_lag_delay").await;

    // Reading the facts needs no privilege.
    let facts = fetch_facts(&opts, ctx.flavor, PurgeVariable::MaxPurgeLagDelay)
        .await
        .unwrap();
    let plan = plan_set(PurgeVariable::MaxPurgeLagDelay, 5000, &facts, &ctx).unwrap();
    assert_eq!(plan.privilege, "SUPER");
    let out = execute(&opts, &plan).await;
    assert!(!out.ok);
    assert_eq!(out.error_code, Some(1227));
    let e = out.error.clone().unwrap();
    assert!(
        e.contains("ERROR 1227") && e.contains("SUPER") && e.contains("The account needs SUPER"),
        "{e}"
    );
    assert_eq!(out.audit.account, "watcher@localhost");
    assert!(out.audit.result.starts_with("error: "));
    assert_eq!(global(&server, "innodb_max_purge_lag_delay").await, before);
    assert!(!format!("{out:?}").contains("w4tch-only"));

    // Monitors and kill are refused the same way.
    let mon = plan_enable_monitors(&["purge_invoked".to_string()], &ctx).unwrap();
    let out = execute(&opts, &mon).await;
    assert_eq!(out.error_code, Some(1227), "{out:?}");
    server.sql("DROP USER 'watcher'@'localhost'").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_mode_refuses_everything() {
    let server = PrivateServer::start(ServerConfig::default());
    let opts = options(&server);
    let ro = PlanContext::new(flavor(&server).await, true);
    let before = global(&server, "innodb_purge_batch_size").await;
    let facts = fetch_facts(&opts, ro.flavor, PurgeVariable::PurgeBatchSize)
        .await
        .unwrap();
    let e = plan_set(PurgeVariable::PurgeBatchSize, 300, &facts, &ro).unwrap_err();
    assert_eq!(e, Refusal::ReadOnly);
    assert!(
        e.to_string()
            .starts_with("read-only mode: changes are disabled")
    );
    assert_eq!(
        plan_enable_monitors(&["purge_invoked".into()], &ro),
        Err(Refusal::ReadOnly)
    );
    let b = Blocker {
        thread_id: Some(1),
        ..Blocker::default()
    };
    assert_eq!(plan_kill(&b, &ro), Err(Refusal::ReadOnly));
    assert_eq!(global(&server, "innodb_purge_batch_size").await, before);
}

async fn enabled_metrics(server: &PrivateServer) -> Vec<(String, bool)> {
    let names = METRICS
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",");
    server
        .sql(&format!(
            "SELECT NAME, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME IN ({names}) \
             ORDER BY NAME"
        ))
        .await
        .into_iter()
        .map(|r: Row| {
            let (name, on): (String, i64) = mysql_async::from_row(r);
            (name, on == 1)
        })
        .collect()
}

async fn all_enabled_count(server: &PrivateServer) -> i64 {
    let rows = server
        .sql("SELECT COUNT(*) FROM information_schema.INNODB_METRICS WHERE ENABLED = 1")
        .await;
    rows[0].get(0).expect("a count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enabling_monitors_is_verified_in_innodb_metrics() {
    let server = PrivateServer::start(ServerConfig::default());
    let opts = options(&server);
    let ctx = ctx(&server).await;
    let all_before = all_enabled_count(&server).await;
    let on_before = all_enabled(&server).await;
    let before = enabled_metrics(&server).await;
    let off: Vec<String> = before
        .iter()
        .filter(|(_, on)| !on)
        .map(|(n, _)| n.clone())
        .collect();
    assert!(
        off.len() >= 10,
        "most counters are off by default: {before:?}"
    );

    let plan = plan_enable_monitors(&off, &ctx).unwrap();
    assert!(plan.sql.len() >= 4, "{:?}", plan.sql);
    let out = execute(&opts, &plan).await;
    assert!(out.ok, "{out:?}");
    assert_eq!(
        out.verified_value,
        Some(format!("all {} counters on", off.len()))
    );
    assert!(enabled_metrics(&server).await.iter().all(|(_, on)| *on));

    // Restore: switch the groups off again, then back on what was on before.
    restore_monitors(&server, &plan.sql, &on_before).await;
    assert_eq!(all_enabled_count(&server).await, all_before);
    assert_eq!(enabled_metrics(&server).await, before);
}

async fn all_enabled(server: &PrivateServer) -> Vec<String> {
    server
        .sql("SELECT NAME FROM information_schema.INNODB_METRICS WHERE ENABLED = 1")
        .await
        .into_iter()
        .map(mysql_async::from_row::<String>)
        .collect()
}

/// Disables the groups `enable_sql` enabled, then re-enables by name what was on before
/// (disabling a module also switched off its counters that are on by default).
async fn restore_monitors(server: &PrivateServer, enable_sql: &[String], on_before: &[String]) {
    for sql in enable_sql {
        server
            .sql(&sql.replace("innodb_monitor_enable", "innodb_monitor_disable"))
            .await;
    }
    for name in on_before {
        server
            .sql(&format!("SET GLOBAL innodb_monitor_enable = '{name}'"))
            .await;
    }
}

async fn trx_of(server: &PrivateServer, thread_id: u64) -> Option<u64> {
    let rows = server
        .sql(&format!(
            "SELECT GREATEST(0, TIMESTAMPDIFF(SECOND, trx_started, NOW())) \
             FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = {thread_id}"
        ))
        .await;
    rows.first()
        .map(|r| r.get::<u64, _>(0).expect("the transaction age"))
}

/// The blocker as the poller sees it: the oldest INNODB_TRX row, and its session looked up
/// by id (the processlist here).
async fn blocker(server: &PrivateServer, flavor: Flavor) -> Blocker {
    let rows = server.sql(flavor.trx_sql()).await;
    let r = rows.first().expect("a transaction in INNODB_TRX");
    let thread_id: Option<u64> = r.get(4).expect("trx_mysql_thread_id");
    let session = server
        .sql(&flavor.session_sql(thread_id.expect("a thread id"), false))
        .await;
    let s = session.first().expect("its session");
    Blocker {
        trx_id: r.get(0).expect("trx_id"),
        state: r.get(1).expect("trx_state"),
        age_s: r.get(2).expect("the transaction age"),
        isolation: r.get(3).expect("trx_isolation_level"),
        thread_id,
        user: s.get(0).expect("the session user"),
        host: s.get(1).expect("the session host"),
        command: s.get(2).expect("the session command"),
        query: s.get(3).expect("the session query"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_blocking_snapshot_ends_it() {
    let server = PrivateServer::start(ServerConfig::default());
    let opts = options(&server);
    let ctx = ctx(&server).await;
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let thread = snapshot.thread_id();
    let srv = &server;
    wait_until_async(
        Duration::from_secs(10),
        "the snapshot's transaction in INNODB_TRX, a second old",
        || async move { trx_of(srv, thread).await.is_some_and(|age| age >= 1) },
    )
    .await;
    let b = blocker(&server, ctx.flavor).await;
    assert_eq!(b.thread_id, Some(thread));

    // A plan made for an older transaction than the one there now: nothing is killed.
    let stale = Blocker {
        age_s: b.age_s + 600,
        ..b.clone()
    };
    let plan = plan_kill(&stale, &ctx).unwrap();
    let out = execute(&opts, &plan).await;
    assert!(!out.ok);
    let e = out.error.unwrap();
    assert!(
        e.contains("new transaction") && e.contains("nothing was killed"),
        "{e}"
    );
    assert!(trx_of(&server, thread).await.is_some());

    let plan = plan_kill(&b, &ctx).unwrap();
    assert_eq!(plan.sql, vec![format!("KILL CONNECTION {thread}")]);
    let out = execute(&opts, &plan).await;
    assert!(out.ok, "{out:?}");
    assert_eq!(out.verified_value.as_deref(), Some("connection gone"));
    // INNODB_TRX is served from a cache that is refreshed only when it has not been read for
    // 100 ms: the wait polls slower than that.
    wait_until_async(
        Duration::from_secs(5),
        "the killed transaction gone from INNODB_TRX",
        || async move { trx_of(srv, thread).await.is_none() },
    )
    .await;
    let gone = server
        .sql(&format!(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {thread}"
        ))
        .await;
    assert_eq!(gone[0].get::<u64, _>(0), Some(0));
    assert_eq!(
        out.audit.action,
        format!("KILL CONNECTION {thread} of root@localhost")
    );
    // Its connection is dead; dropping it is all that is left.
    drop(snapshot);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_log_has_one_private_line_per_action_and_no_password() {
    let server = PrivateServer::start(ServerConfig::default());
    let password = "Pw-s3cret!audit";
    server
        .sql(&format!(
            "CREATE USER 'dba'@'localhost' IDENTIFIED BY '{password}'"
        ))
        .await;
    server
        .sql("GRANT SUPER, PROCESS ON *.* TO 'dba'@'localhost'")
        .await;
    server
        .sql("CREATE USER 'nobody'@'localhost' IDENTIFIED BY 'n0body-pw'")
        .await;
    let dba = as_user(&server, "dba", password);
    let nobody = as_user(&server, "nobody", "n0body-pw");
    let ctx = ctx(&server).await;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("state").join("innodebt").join("audit.log");
    let log = AuditLog::at(&path);
    let before = global(&server, "innodb_purge_batch_size").await;

    let facts = fetch_facts(&dba, ctx.flavor, PurgeVariable::PurgeBatchSize)
        .await
        .unwrap();
    let change = plan_set(PurgeVariable::PurgeBatchSize, 42, &facts, &ctx).unwrap();
    let restore = plan_set(
        PurgeVariable::PurgeBatchSize,
        before.parse().unwrap(),
        &facts,
        &ctx,
    );
    let mut results = Vec::new();
    for (opts, plan) in [(&dba, &change), (&nobody, &change)] {
        let out = execute(opts, plan).await;
        log.append(&out.audit).unwrap();
        results.push(out.ok);
    }
    // The restore is planned against the facts read before the change; current was `before`,
    // so re-read to get a plan (not "unchanged").
    drop(restore);
    let facts = fetch_facts(&dba, ctx.flavor, PurgeVariable::PurgeBatchSize)
        .await
        .unwrap();
    let restore = plan_set(
        PurgeVariable::PurgeBatchSize,
        before.parse().unwrap(),
        &facts,
        &ctx,
    )
    .unwrap();
    let out = execute(&dba, &restore).await;
    log.append(&out.audit).unwrap();
    results.push(out.ok);
    assert_eq!(results, vec![true, false, true]);
    assert_eq!(global(&server, "innodb_purge_batch_size").await, before);

    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in [
            "at",
            "account",
            "server",
            "action",
            "old_value",
            "new_value",
            "result",
        ] {
            assert!(v.get(key).is_some(), "{key} missing in {line}");
        }
    }
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["account"], "dba@localhost");
    assert_eq!(first["action"], "SET GLOBAL innodb_purge_batch_size = 42");
    assert_eq!(first["old_value"], before.as_str());
    assert_eq!(first["new_value"], "42");
    assert!(first["result"].as_str().unwrap().starts_with("ok"));
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(second["account"], "nobody@localhost");
    assert!(second["result"].as_str().unwrap().contains("ERROR 1227"));
    assert!(
        !text.contains(password) && !text.contains("n0body-pw"),
        "{text}"
    );
    let mode = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    server
        .sql("DROP USER 'dba'@'localhost', 'nobody'@'localhost'")
        .await;
}
