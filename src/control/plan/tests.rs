//! Plans from facts and the moment: refusals with their reasons, SET GLOBAL / PERSIST per
//! flavour, steps, the blocked-purge warnings, monitors and kills.

use super::*;
use innodebt_engine::figures::Blocker;

fn mariadb() -> Flavor {
    Flavor::detect("10.11.19-MariaDB-0+deb12u1", "Debian 12", false)
}
fn mysql8() -> Flavor {
    Flavor::detect("8.0.36", "MySQL Community Server - GPL", true)
}
fn mysql57() -> Flavor {
    Flavor::detect("5.7.44", "MySQL Community Server (GPL)", false)
}

fn facts(
    variable: PurgeVariable,
    current: u64,
    dynamic: bool,
    min: u64,
    max: u64,
) -> VariableFacts {
    VariableFacts {
        variable: variable.name().to_string(),
        exists: true,
        current: Some(current),
        dynamic,
        min: Some(min),
        max: Some(max),
        source: FactsSource::SystemVariables,
    }
}

#[test]
fn parses_what_people_type() {
    assert_eq!(parse_input("32"), Ok(32));
    assert_eq!(parse_input(" 1_000_000 "), Ok(1_000_000));
    assert_eq!(parse_input("1,000"), Ok(1000));
    assert_eq!(parse_input("10k"), Ok(10_000));
    assert_eq!(parse_input("2M"), Ok(2_000_000));
    assert_eq!(parse_input("+4"), Ok(4));
    assert!(parse_input("").unwrap_err().contains("type a number"));
    assert!(parse_input("-1").unwrap_err().contains("negative"));
    assert!(parse_input("1.5").unwrap_err().contains("whole number"));
    assert!(parse_input("abc").is_err());
    assert!(parse_input("k").is_err());
    assert!(
        parse_input("99999999999999999999")
            .unwrap_err()
            .contains("too large")
    );
    assert!(
        parse_input("18446744073709551615M")
            .unwrap_err()
            .contains("too large")
    );
}

#[test]
fn variable_names() {
    for k in PurgeVariable::ALL {
        assert_eq!(PurgeVariable::from_name(k.name()), Some(k));
    }
    assert_eq!(
        PurgeVariable::from_name("INNODB_PURGE_THREADS"),
        Some(PurgeVariable::PurgeThreads)
    );
    assert_eq!(PurgeVariable::from_name("innodb_io_capacity"), None);
}

#[test]
fn dynamic_set_on_mariadb_says_my_cnf() {
    let ctx = PlanContext::new(mariadb(), false);
    let f = facts(PurgeVariable::PurgeThreads, 4, true, 1, 32);
    let p = plan_set(PurgeVariable::PurgeThreads, 8, &f, &ctx).unwrap();
    assert_eq!(p.sql, vec!["SET GLOBAL innodb_purge_threads = 8"]);
    assert_eq!(p.verify_sql, "SELECT @@GLOBAL.innodb_purge_threads");
    assert_eq!(p.current.as_deref(), Some("4"));
    assert_eq!(p.new.as_deref(), Some("8"));
    assert!(p.scope_lines[0].contains("lost at the next restart"));
    assert!(p.scope_lines[1].contains("my.cnf"), "{:?}", p.scope_lines);
    assert!(p.alternative.is_none());
    assert_eq!(p.privilege, "SUPER");
    assert!(matches!(p.action, PlanAction::SetGlobal { value: 8, .. }));
    let lines = p.confirm_lines();
    assert!(
        lines.iter().any(|l| l == "innodb_purge_threads: 4 → 8"),
        "{lines:?}"
    );
}

#[test]
fn mysql8_offers_set_persist_as_the_alternative() {
    let ctx = PlanContext::new(mysql8(), false);
    let f = facts(PurgeVariable::MaxPurgeLag, 0, true, 0, 4_294_967_295);
    let p = plan_set(PurgeVariable::MaxPurgeLag, 100_000, &f, &ctx).unwrap();
    assert_eq!(p.sql, vec!["SET GLOBAL innodb_max_purge_lag = 100000"]);
    assert!(p.privilege.contains("SYSTEM_VARIABLES_ADMIN"));
    let alt = p.alternative.as_deref().unwrap();
    assert_eq!(alt.sql, vec!["SET PERSIST innodb_max_purge_lag = 100000"]);
    assert!(alt.scope_lines[0].contains("survives restarts"));
    assert!(matches!(alt.action, PlanAction::SetPersist { .. }));
}

#[test]
fn purge_threads_read_only_mysql8_is_persist_only_after_restart() {
    let ctx = PlanContext::new(mysql8(), false);
    let spec = mysql8().variable_spec("innodb_purge_threads").unwrap();
    assert!(!spec.dynamic);
    let f = facts(PurgeVariable::PurgeThreads, 4, false, spec.min, spec.max);
    let p = plan_set(PurgeVariable::PurgeThreads, 8, &f, &ctx).unwrap();
    assert_eq!(p.sql, vec!["SET PERSIST_ONLY innodb_purge_threads = 8"]);
    assert!(p.title.contains("next restart"));
    assert!(
        p.scope_lines[0].contains("takes effect after a restart")
            || p.scope_lines[0].contains("Takes effect after a restart")
    );
    assert!(p.privilege.contains("PERSIST_RO_VARIABLES_ADMIN"));
    assert!(p.verify_sql.contains("persisted_variables"));
}

#[test]
fn purge_threads_on_57_is_refused_with_the_reason() {
    let ctx = PlanContext::new(mysql57(), false);
    let f = facts(PurgeVariable::PurgeThreads, 4, false, 1, 32);
    let e = plan_set(PurgeVariable::PurgeThreads, 8, &f, &ctx).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Refusal::NotDynamic { .. }));
    assert!(
        msg.contains("my.cnf") && msg.contains("restart") && msg.contains("PERSIST_ONLY"),
        "{msg}"
    );
    assert!(msg.contains("MySQL 5.7.44"), "{msg}");
}

#[test]
fn mariadb_read_only_variable_is_refused() {
    let ctx = PlanContext::new(Flavor::detect("10.5.20-MariaDB", "", false), false);
    let f = facts(PurgeVariable::PurgeThreads, 4, false, 1, 32);
    let msg = plan_set(PurgeVariable::PurgeThreads, 8, &f, &ctx)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("cannot be changed at runtime") && msg.contains("my.cnf"),
        "{msg}"
    );
}

#[test]
fn refusals() {
    let ctx = PlanContext::new(mariadb(), false);
    let f = facts(PurgeVariable::PurgeThreads, 4, true, 1, 32);
    let e = plan_set(PurgeVariable::PurgeThreads, 33, &f, &ctx).unwrap_err();
    assert_eq!(
        e.to_string(),
        "33 is out of range for innodb_purge_threads: MariaDB 10.11.19 accepts 1 to 32"
    );
    let e = plan_set(PurgeVariable::PurgeThreads, 0, &f, &ctx).unwrap_err();
    assert!(matches!(
        e,
        Refusal::OutOfRange {
            asked: 0,
            min: 1,
            ..
        }
    ));
    assert!(matches!(
        plan_set(PurgeVariable::PurgeThreads, 4, &f, &ctx),
        Err(Refusal::Unchanged { value: 4, .. })
    ));
    let missing = VariableFacts {
        exists: false,
        ..f.clone()
    };
    assert!(
        plan_set(PurgeVariable::PurgeThreads, 5, &missing, &ctx)
            .unwrap_err()
            .to_string()
            .contains("does not exist")
    );
    let ro = PlanContext::new(mariadb(), true);
    let e = plan_set(PurgeVariable::PurgeThreads, 5, &f, &ro).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("read-only mode: changes are disabled")
    );
    assert_eq!(
        plan_enable_monitors(&["purge_invoked".into()], &ro),
        Err(Refusal::ReadOnly)
    );
    assert_eq!(plan_kill(&Blocker::default(), &ro), Err(Refusal::ReadOnly));
    assert_eq!(
        plan_step(PurgeVariable::PurgeThreads, 1, &f, &ro),
        Err(Refusal::ReadOnly)
    );
}

#[test]
fn steps() {
    let ctx = PlanContext::new(mariadb(), false);
    let f = facts(PurgeVariable::PurgeThreads, 4, true, 1, 32);
    assert_eq!(
        plan_step(PurgeVariable::PurgeThreads, 1, &f, &ctx)
            .unwrap()
            .new
            .as_deref(),
        Some("5")
    );
    assert_eq!(
        plan_step(PurgeVariable::PurgeThreads, -1, &f, &ctx)
            .unwrap()
            .new
            .as_deref(),
        Some("3")
    );
    let one = facts(PurgeVariable::PurgeThreads, 1, true, 1, 32);
    let e = plan_step(PurgeVariable::PurgeThreads, -1, &one, &ctx).unwrap_err();
    assert_eq!(
        e.to_string(),
        "innodb_purge_threads is already at its minimum (1)"
    );
    let top = facts(PurgeVariable::PurgeThreads, 32, true, 1, 32);
    let e = plan_step(PurgeVariable::PurgeThreads, 1, &top, &ctx).unwrap_err();
    assert_eq!(
        e.to_string(),
        "innodb_purge_threads is already at its maximum (32)"
    );
    let zero = facts(PurgeVariable::MaxPurgeLag, 0, true, 0, u64::MAX);
    assert!(matches!(
        plan_step(PurgeVariable::MaxPurgeLag, -1, &zero, &ctx),
        Err(Refusal::AtLimit {
            which: "minimum",
            ..
        })
    ));
    let unknown = VariableFacts { current: None, ..f };
    assert!(matches!(
        plan_step(PurgeVariable::PurgeThreads, 1, &unknown, &ctx),
        Err(Refusal::CurrentUnknown { .. })
    ));
}

#[test]
fn unknown_range_warns_and_lets_the_server_decide() {
    let ctx = PlanContext::new(mariadb(), false);
    let f = VariableFacts {
        max: None,
        source: FactsSource::Unknown,
        ..facts(PurgeVariable::PurgeThreads, 4, true, 1, 32)
    };
    let p = plan_set(PurgeVariable::PurgeThreads, 33, &f, &ctx).unwrap();
    assert!(p.warning_lines.iter().any(|w| w.contains("may truncate")));
}

fn blocked(flavor: Flavor) -> PlanContext {
    PlanContext {
        purge_blocked: true,
        history: Some(60_000),
        max_purge_lag: Some(20_000),
        max_purge_lag_delay: Some(2000),
        ..PlanContext::new(flavor, false)
    }
}

#[test]
fn delay_while_blocked_per_flavour() {
    // Raising the delay cap.
    let f = facts(PurgeVariable::MaxPurgeLagDelay, 2000, true, 0, 10_000_000);
    let my = plan_set(
        PurgeVariable::MaxPurgeLagDelay,
        5000,
        &f,
        &blocked(mysql8()),
    )
    .unwrap();
    assert!(
        my.warning_lines[0].contains("the delay will slow DML without letting purge progress"),
        "{:?}",
        my.warning_lines
    );
    let ma = plan_set(
        PurgeVariable::MaxPurgeLagDelay,
        5000,
        &f,
        &blocked(mariadb()),
    )
    .unwrap();
    assert!(
        ma.warning_lines[0].contains("armed: it will throttle writes as soon as purge resumes"),
        "{:?}",
        ma.warning_lines
    );
    // Lowering the cap is no trap.
    assert!(
        plan_set(
            PurgeVariable::MaxPurgeLagDelay,
            1000,
            &f,
            &blocked(mysql8())
        )
        .unwrap()
        .warning_lines
        .is_empty()
    );
    // Lowering max_purge_lag is; setting it to 0 is the way out.
    let lag = facts(PurgeVariable::MaxPurgeLag, 20_000, true, 0, u64::MAX);
    assert!(
        !plan_set(PurgeVariable::MaxPurgeLag, 10_000, &lag, &blocked(mysql8()))
            .unwrap()
            .warning_lines
            .is_empty()
    );
    let off = plan_set(PurgeVariable::MaxPurgeLag, 0, &lag, &blocked(mysql8())).unwrap();
    assert!(off.warning_lines.is_empty());
    assert!(off.effect_line.contains("off"));
    // Not blocked: no warning.
    let calm = PlanContext {
        purge_blocked: false,
        ..blocked(mysql8())
    };
    assert!(
        plan_set(PurgeVariable::MaxPurgeLag, 10_000, &lag, &calm)
            .unwrap()
            .warning_lines
            .is_empty()
    );
    // More threads while blocked.
    let th = facts(PurgeVariable::PurgeThreads, 4, true, 1, 32);
    assert!(
        plan_set(PurgeVariable::PurgeThreads, 8, &th, &blocked(mariadb()))
            .unwrap()
            .warning_lines[0]
            .contains("blocks purge")
    );
}

#[test]
fn effect_lines_use_the_formula() {
    let ctx = blocked(mysql8());
    let lag = facts(PurgeVariable::MaxPurgeLag, 0, true, 0, u64::MAX);
    // MySQL 8.0.36 (trx0purge.cc trx_purge_dml_delay, 8.0.14+): history 60,000 / 20,000 = 3
    // → (3 − 0.9995) × 10,000 = 20,004.99… → 20,004 µs (truncated, as the server does),
    // capped at 2,000.
    let p = plan_set(PurgeVariable::MaxPurgeLag, 20_000, &lag, &ctx).unwrap();
    assert!(p.effect_line.contains("~2000 µs"), "{}", p.effect_line);
    assert!(p.effect_line.contains("0.9995"), "{}", p.effect_line);
    let d = facts(PurgeVariable::MaxPurgeLagDelay, 2000, true, 0, 10_000_000);
    // A cap of 0 clamps the delay to 0 (MySQL Bug #72269), it is not "no cap".
    let p = plan_set(PurgeVariable::MaxPurgeLagDelay, 0, &d, &ctx).unwrap();
    assert!(p.effect_line.contains("~0 µs"), "{}", p.effect_line);
    assert!(
        p.effect_line.contains("no delay at all"),
        "{}",
        p.effect_line
    );
    let p = plan_set(PurgeVariable::MaxPurgeLagDelay, 50_000, &d, &ctx).unwrap();
    assert!(p.effect_line.contains("~20004 µs"), "{}", p.effect_line);
    // Turning the lag on while the cap is 0 delays nothing, and says so.
    let zero_cap = PlanContext {
        max_purge_lag_delay: Some(0),
        ..ctx
    };
    let p = plan_set(PurgeVariable::MaxPurgeLag, 20_000, &lag, &zero_cap).unwrap();
    assert!(
        p.effect_line.contains("not delayed at all"),
        "{}",
        p.effect_line
    );
    // MySQL 5.7 keeps (ratio − 0.5): 25,000 µs under a 50,000 µs cap.
    let p = plan_set(
        PurgeVariable::MaxPurgeLagDelay,
        50_000,
        &d,
        &blocked(mysql57()),
    )
    .unwrap();
    assert!(p.effect_line.contains("~25000 µs"), "{}", p.effect_line);
    let off = PlanContext {
        max_purge_lag: Some(0),
        ..ctx
    };
    let p = plan_set(PurgeVariable::MaxPurgeLagDelay, 5000, &d, &off).unwrap();
    assert!(
        p.effect_line
            .contains("no effect while innodb_max_purge_lag is 0")
    );
}

#[test]
fn monitors_one_statement_per_group() {
    let ctx = PlanContext::new(mariadb(), false);
    let off: Vec<String> = [
        "purge_invoked",
        "purge_undo_log_pages",
        "buffer_flush_sync_total_pages",
        "buffer_page_read_undo_log",
        "trx_rseg_current_size",
        "log_lsn_current",
    ]
    .map(String::from)
    .to_vec();
    let p = plan_enable_monitors(&off, &ctx).unwrap();
    assert_eq!(
        p.sql,
        vec![
            "SET GLOBAL innodb_monitor_enable = 'module_buffer'",
            "SET GLOBAL innodb_monitor_enable = 'module_purge'",
            "SET GLOBAL innodb_monitor_enable = 'module_log'",
            "SET GLOBAL innodb_monitor_enable = 'trx_rseg_current_size'",
            "SET GLOBAL innodb_monitor_enable = 'module_buffer_page'",
        ]
    );
    assert!(p.info_lines[0].contains("purge_invoked, purge_undo_log_pages"));
    assert!(p.verify_sql.contains("ENABLED = 1"));
    let my = plan_enable_monitors(&off[..1], &PlanContext::new(mysql8(), false)).unwrap();
    assert_eq!(
        my.sql,
        vec!["SET GLOBAL innodb_monitor_enable = 'module_purge'"]
    );
    assert!(my.verify_sql.contains("STATUS = 'enabled'"));
    assert_eq!(
        plan_enable_monitors(&[], &ctx),
        Err(Refusal::NothingToEnable)
    );
}

#[test]
fn an_unreadable_source_is_refused_with_its_privilege() {
    let u = Unreadable {
        source: innodebt_server::sample::SourceKind::InnodbMetrics,
        what: "information_schema.INNODB_METRICS".into(),
        privilege: Some("PROCESS".into()),
        error: "error 1227: Access denied".into(),
        figures: vec![innodebt_engine::figures::FigureId::PurgeRecords],
    };
    assert_eq!(
        Refusal::metrics_unreadable(&u).to_string(),
        "information_schema.INNODB_METRICS cannot be read (needs PROCESS privilege (GRANT \
         PROCESS ON *.* TO the account)), so which monitor counters are off is unknown"
    );
    let no_privilege = Unreadable {
        privilege: None,
        error: "error 1146: Table doesn't exist".into(),
        ..u
    };
    let msg = Refusal::blocker_unreadable(&no_privilege).to_string();
    assert!(
        msg.contains("error 1146") && msg.contains("whether a transaction blocks purge"),
        "{msg}"
    );
}

#[test]
fn kill_plan_names_the_session() {
    let ctx = PlanContext::new(mariadb(), false);
    let b = Blocker {
        trx_id: "421".into(),
        thread_id: Some(57),
        user: Some("app".into()),
        host: Some("10.0.0.5:41234".into()),
        age_s: 310,
        state: "RUNNING".into(),
        query: Some("SELECT *\n  FROM orders".into()),
        isolation: Some("REPEATABLE READ".into()),
        command: Some("Query".into()),
    };
    let p = plan_kill(&b, &ctx).unwrap();
    assert_eq!(p.sql, vec!["KILL CONNECTION 57"]);
    assert_eq!(
        p.action,
        PlanAction::Kill {
            thread_id: 57,
            seen_age_s: 310,
            who: "app@10.0.0.5:41234".into()
        }
    );
    let text = p.confirm_lines().join("\n");
    assert!(
        text.contains("app@10.0.0.5:41234") && text.contains("5 min 10 s"),
        "{text}"
    );
    assert!(text.contains("query: SELECT * FROM orders"), "{text}");
    assert!(text.contains("rolled back"), "{text}");
    assert!(p.privilege.contains("CONNECTION ADMIN"));
    let idle = Blocker {
        query: None,
        command: Some("Sleep".into()),
        ..b.clone()
    };
    assert!(plan_kill(&idle, &ctx).unwrap().info_lines[1].contains("idle in transaction"));
    let none = Blocker {
        thread_id: None,
        ..b
    };
    assert!(matches!(
        plan_kill(&none, &ctx),
        Err(Refusal::NoThreadId { .. })
    ));
}

#[test]
fn ages() {
    assert_eq!(age_text(45), "45 s");
    assert_eq!(age_text(310), "5 min 10 s");
    assert_eq!(age_text(7380), "2 h 03 min");
}

#[test]
fn the_context_reads_the_figures_judgement_of_a_blocked_purge() {
    let judged = |blocked: Option<bool>| {
        let mut f = Figures::default();
        f.purge.blocked = blocked;
        // A blocker and a growing history alone are not the judgement.
        f.blocker = Some(Blocker::default());
        f.history.growth_per_s = Some(500.0);
        PlanContext::from_figures(mariadb(), false, &f).purge_blocked
    };
    assert!(judged(Some(true)));
    assert!(!judged(Some(false)));
    assert!(
        !judged(None),
        "INNODB_TRX unreadable: nothing to warn about that is seen"
    );
}
