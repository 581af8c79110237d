//! Reading what a plan needs from the server, and running a confirmed plan on a connection of
//! its own (never the poller's): the statements, `SHOW WARNINGS`, then a read-back of what
//! the server really did. Nothing is retried; server errors are shown verbatim with the
//! privilege that was missing.

use std::time::Duration;

use chrono::Utc;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};

use super::ControlError;
use super::plan::{ChangePlan, FactsSource, PlanAction, PurgeVariable, VariableFacts};
use innodebt_poller::connect::ConnectOptions;
use innodebt_poller::connect::connect;
use innodebt_server::flavor::Flavor;
use innodebt_server::sample::AuditEntry;

/// How long one statement of a change may take (SET, KILL and their reads are instant; a
/// server that does not answer in this time is in trouble, and we say so).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a kill is watched for the session to disappear (rollback may take longer).
const KILL_WATCH: Duration = Duration::from_secs(3);

/// Server error codes we explain.
pub(crate) mod code {
    pub const NO_SUCH_THREAD: u16 = 1094; // ER_NO_SUCH_THREAD
    pub const KILL_DENIED: u16 = 1095; // ER_KILL_DENIED_ERROR
    pub const UNKNOWN_SYSTEM_VARIABLE: u16 = 1193; // ER_UNKNOWN_SYSTEM_VARIABLE
    pub const WRONG_ARGUMENTS: u16 = 1210; // ER_WRONG_ARGUMENTS
    pub const SPECIFIC_ACCESS_DENIED: u16 = 1227; // ER_SPECIFIC_ACCESS_DENIED_ERROR
    pub const WRONG_VALUE_FOR_VAR: u16 = 1231; // ER_WRONG_VALUE_FOR_VAR
    pub const WRONG_TYPE_FOR_VAR: u16 = 1232; // ER_WRONG_TYPE_FOR_VAR
    pub const INCORRECT_GLOBAL_LOCAL_VAR: u16 = 1238; // read-only variable
    pub const PERSIST_ONLY_ACCESS_DENIED: u16 = 3630; // MySQL ER_PERSIST_ONLY_ACCESS_DENIED_ERROR
}

/// One row of `SHOW WARNINGS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlWarning {
    pub level: String,
    pub code: u32,
    pub message: String,
}

impl std::fmt::Display for SqlWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.level, self.code, self.message)
    }
}

/// What running a plan did.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeOutcome {
    /// Every statement ran without an error (warnings may still say the server changed the
    /// value: compare `verified_value`).
    pub ok: bool,
    /// What the read-back found (`32`, `all 12 counters on`, `connection gone`).
    pub verified_value: Option<String>,
    /// `SHOW WARNINGS` after the statements (MariaDB truncates out-of-range values with 1292).
    pub warnings: Vec<SqlWarning>,
    /// The error, verbatim from the server, plus what to do about it.
    pub error: Option<String>,
    /// The server's error code, when the server refused.
    pub error_code: Option<u16>,
    /// The value the plan asked for differs from what the server now has.
    pub differs_from_request: bool,
    pub audit: AuditEntry,
}

impl ChangeOutcome {
    /// The dialog's title after the change.
    pub fn title(&self, plan: &ChangePlan) -> String {
        match (&self.error, self.differs_from_request) {
            (Some(_), _) => format!("{}: failed", plan.title),
            (None, true) => format!("{}: done, but not as asked", plan.title),
            (None, false) => format!("{}: done", plan.title),
        }
    }

    /// The dialog's lines after the change: result, read-back, warnings, error.
    pub fn lines(&self, plan: &ChangePlan) -> Vec<String> {
        let mut lines = vec![plan.sql_text()];
        if let Some(e) = &self.error {
            lines.push(e.clone());
        }
        let is_variable = matches!(
            plan.action,
            PlanAction::SetGlobal { .. }
                | PlanAction::SetPersist { .. }
                | PlanAction::SetPersistOnly { .. }
        );
        match &self.verified_value {
            Some(v) if is_variable && self.differs_from_request => lines.push(format!(
                "{} is now {v} (asked for {}): the server adjusted it.",
                plan.variable,
                plan.new.as_deref().unwrap_or("?")
            )),
            Some(v) if is_variable => lines.push(format!("Read back: {} = {v}.", plan.variable)),
            Some(v) => lines.push(format!("Read back: {v}.")),
            None => {}
        }
        lines.extend(self.warnings.iter().map(|w| format!("Server said: {w}")));
        lines.push(format!(
            "Recorded in the audit log as: {}",
            self.audit.result
        ));
        lines
    }
}

/// Reads what a plan for `variable` needs: exists, current value, dynamic, range.
pub async fn read_facts(
    conn: &mut Conn,
    flavor: Flavor,
    variable: PurgeVariable,
) -> Result<VariableFacts, ControlError> {
    read_variable_facts(conn, flavor, variable.name()).await
}

/// Connects, reads the facts of `variable`, disconnects: what the App runs before prompting.
pub async fn fetch_facts(
    opts: &ConnectOptions,
    flavor: Flavor,
    variable: PurgeVariable,
) -> Result<VariableFacts, ControlError> {
    let mut conn = connect(opts).await?;
    let facts = read_facts(&mut conn, flavor, variable).await;
    disconnect(conn).await;
    facts
}

async fn read_variable_facts(
    conn: &mut Conn,
    flavor: Flavor,
    variable: &'static str,
) -> Result<VariableFacts, ControlError> {
    if flavor.has_system_variables_table() {
        let sql = format!(
            "SELECT GLOBAL_VALUE, READ_ONLY, NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE \
             FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = '{}'",
            variable.to_ascii_uppercase()
        );
        let row: Option<Row> = run_first(conn, &sql, "").await?;
        let Some(row) = row else {
            return Ok(VariableFacts {
                variable: variable.to_string(),
                exists: false,
                current: None,
                dynamic: false,
                min: None,
                max: None,
                source: FactsSource::SystemVariables,
            });
        };
        let text = |i: usize| row.as_ref(i).and_then(value_text);
        let number = |i: usize| text(i).and_then(|t| t.trim().parse::<u64>().ok());
        return Ok(VariableFacts {
            variable: variable.to_string(),
            exists: true,
            current: number(0),
            dynamic: text(1).is_some_and(|t| t.eq_ignore_ascii_case("NO")),
            min: number(2),
            max: number(3),
            source: FactsSource::SystemVariables,
        });
    }
    let sql = format!("SHOW GLOBAL VARIABLES WHERE Variable_name = '{variable}'");
    let row: Option<Row> = run_first(conn, &sql, "").await?;
    let current = row
        .as_ref()
        .and_then(|r| r.as_ref(1))
        .and_then(value_text)
        .and_then(|t| t.trim().parse::<u64>().ok());
    let spec = flavor.variable_spec(variable);
    Ok(VariableFacts {
        variable: variable.to_string(),
        exists: row.is_some(),
        current,
        // Unknown to the table: let the server say (error 1238 is shown verbatim).
        dynamic: spec.is_none_or(|s| s.dynamic),
        min: spec.map(|s| s.min),
        max: spec.map(|s| s.max),
        source: if spec.is_some() {
            FactsSource::VersionTable
        } else {
            FactsSource::Unknown
        },
    })
}

/// Runs a confirmed plan on a new connection of its own and reads back what it did.
/// Never retries. Safe to `tokio::spawn` (the future is `Send`); the UI stays live.
pub async fn execute(opts: &ConnectOptions, plan: &ChangePlan) -> ChangeOutcome {
    let mut run = Run::new(opts, plan);
    let mut conn = match connect(opts).await {
        Ok(c) => c,
        Err(e) => return run.fail(ControlError::Connect(e)),
    };
    let outcome = run.go(&mut conn).await;
    disconnect(conn).await;
    outcome
}

struct Run<'a> {
    opts: &'a ConnectOptions,
    plan: &'a ChangePlan,
    account: String,
    old_value: Option<String>,
    warnings: Vec<SqlWarning>,
    verified: Option<String>,
}

impl<'a> Run<'a> {
    fn new(opts: &'a ConnectOptions, plan: &'a ChangePlan) -> Self {
        Run {
            opts,
            plan,
            account: opts.user.clone(),
            old_value: plan.current.clone(),
            warnings: Vec::new(),
            verified: None,
        }
    }

    async fn go(&mut self, conn: &mut Conn) -> ChangeOutcome {
        let plan = self.plan;
        if let Ok(Some(account)) = run_first::<String>(conn, "SELECT CURRENT_USER()", "").await {
            self.account = account;
        }
        match &plan.action {
            PlanAction::Kill {
                thread_id,
                seen_age_s,
                ..
            } => {
                if let Err(e) = self.precheck_kill(conn, *thread_id, *seen_age_s).await {
                    return self.fail(e);
                }
            }
            PlanAction::SetGlobal { .. }
            | PlanAction::SetPersist { .. }
            | PlanAction::SetPersistOnly { .. } => {
                // The value right before, on this connection: what the audit calls "old".
                if let Ok(Some(row)) = run_first::<Row>(conn, &plan.verify_sql, "").await {
                    self.old_value = row.as_ref(0).and_then(value_text).or(self.old_value.take());
                }
            }
            PlanAction::EnableMonitors { .. } => {}
        }
        for sql in &plan.sql {
            if let Err(e) = run_drop(conn, sql, &plan.privilege).await {
                return self.fail(e);
            }
            // The OK packet counts warnings; SHOW WARNINGS otherwise shows older ones (a
            // statement that touches no table does not clear the list).
            if conn.get_warnings() > 0 {
                match run_rows::<(String, u32, String)>(conn, "SHOW WARNINGS", "").await {
                    Ok(rows) => {
                        self.warnings
                            .extend(rows.into_iter().map(|(level, code, message)| SqlWarning {
                                level,
                                code,
                                message,
                            }))
                    }
                    Err(e) => self.warnings.push(SqlWarning {
                        level: "Note".into(),
                        code: 0,
                        message: format!("SHOW WARNINGS failed: {e}"),
                    }),
                }
            }
        }
        let verify = self.verify(conn).await;
        let (verified, differs) = match verify {
            Ok(v) => v,
            Err(e) => (Some(format!("could not read back: {e}")), false),
        };
        self.verified = verified;
        let result = {
            let mut r = String::from("ok");
            if let Some(v) = &self.verified {
                r.push_str(&format!("; read back {v}"));
            }
            if differs {
                r.push_str(" (differs from the request)");
            }
            for w in &self.warnings {
                r.push_str(&format!("; {w}"));
            }
            r
        };
        ChangeOutcome {
            ok: true,
            verified_value: self.verified.clone(),
            warnings: self.warnings.clone(),
            error: None,
            error_code: None,
            differs_from_request: differs,
            audit: self.audit(result),
        }
    }

    /// Kill only the transaction the user saw: the thread must still have one at least as old.
    async fn precheck_kill(
        &self,
        conn: &mut Conn,
        thread_id: u64,
        seen_age_s: u64,
    ) -> Result<(), ControlError> {
        let sql = format!(
            "SELECT GREATEST(0, TIMESTAMPDIFF(SECOND, trx_started, NOW())) \
             FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = {thread_id} \
             ORDER BY trx_started LIMIT 1"
        );
        let age: Option<u64> = run_first(conn, &sql, "PROCESS").await?;
        match age {
            None => Err(ControlError::Refused(format!(
                "thread {thread_id} has no open transaction any more: nothing was killed"
            ))),
            // Two seconds of slack for clocks and rounding.
            Some(age) if age + 2 < seen_age_s => Err(ControlError::Refused(format!(
                "thread {thread_id} has started a new transaction ({age} s old, the one seen \
                 was {seen_age_s} s): nothing was killed"
            ))),
            Some(_) => Ok(()),
        }
    }

    /// Reads back the effect; `(what was found, differs from the request)`.
    async fn verify(&self, conn: &mut Conn) -> Result<(Option<String>, bool), ControlError> {
        let plan = self.plan;
        match &plan.action {
            PlanAction::SetGlobal { value, .. }
            | PlanAction::SetPersist { value, .. }
            | PlanAction::SetPersistOnly { value, .. } => {
                let row: Option<Row> = run_first(conn, &plan.verify_sql, "").await?;
                let v = row.as_ref().and_then(|r| r.as_ref(0)).and_then(value_text);
                let differs = v.as_deref().map(str::trim) != Some(value.to_string().as_str());
                Ok((Some(v.unwrap_or_else(|| "(nothing)".to_string())), differs))
            }
            PlanAction::EnableMonitors { counters, .. } => {
                let still_off: Vec<String> = run_rows(conn, &plan.verify_sql, "PROCESS").await?;
                if still_off.is_empty() {
                    Ok((Some(format!("all {} counters on", counters.len())), false))
                } else {
                    Ok((Some(format!("still off: {}", still_off.join(", "))), true))
                }
            }
            PlanAction::Kill { .. } => {
                let started = tokio::time::Instant::now();
                loop {
                    let command: Option<Option<String>> =
                        run_first(conn, &plan.verify_sql, "").await?;
                    match command {
                        None => return Ok((Some("connection gone".to_string()), false)),
                        Some(c) if started.elapsed() >= KILL_WATCH => {
                            return Ok((
                                Some(format!(
                                    "session still there (command {}): rolling back its work",
                                    c.unwrap_or_else(|| "?".into())
                                )),
                                false,
                            ));
                        }
                        Some(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                    }
                }
            }
        }
    }

    fn audit(&self, result: String) -> AuditEntry {
        let plan = self.plan;
        let (old_value, new_value) = match &plan.action {
            PlanAction::Kill { .. } => (plan.current.clone(), plan.new.clone()),
            PlanAction::EnableMonitors { counters, .. } => (
                Some(format!("off: {}", counters.join(","))),
                Some("on".to_string()),
            ),
            PlanAction::SetGlobal { value, .. }
            | PlanAction::SetPersist { value, .. }
            | PlanAction::SetPersistOnly { value, .. } => {
                (self.old_value.clone(), Some(value.to_string()))
            }
        };
        let mut action = plan.sql_text().replace(";\n", "; ");
        if let PlanAction::Kill { who, .. } = &plan.action {
            // Whose session, never its query text (it may hold data).
            action = format!("{action} of {who}");
        }
        AuditEntry {
            at: Utc::now(),
            account: self.account.clone(),
            server: self.opts.label(),
            action,
            old_value,
            new_value,
            result,
        }
    }

    fn fail(&self, e: ControlError) -> ChangeOutcome {
        let error_code = e.server_code();
        let message = e.to_string();
        let mut result = format!("error: {message}");
        for w in &self.warnings {
            result.push_str(&format!("; {w}"));
        }
        ChangeOutcome {
            ok: false,
            verified_value: None,
            warnings: self.warnings.clone(),
            error: Some(message),
            error_code,
            differs_from_request: false,
            audit: self.audit(result),
        }
    }
}

async fn disconnect(conn: Conn) {
    let _ = tokio::time::timeout(Duration::from_secs(2), conn.disconnect()).await;
}

pub(crate) use innodebt_poller::live::value_text;

/// `query_drop` with the statement timeout; errors explained for `privilege`.
pub(crate) async fn run_drop(
    conn: &mut Conn,
    sql: &str,
    privilege: &str,
) -> Result<(), ControlError> {
    match tokio::time::timeout(STATEMENT_TIMEOUT, conn.query_drop(sql)).await {
        Ok(r) => r.map_err(|e| ControlError::from_mysql(sql, &e, privilege)),
        Err(_) => Err(ControlError::Timeout {
            statement: sql.to_string(),
            after: STATEMENT_TIMEOUT,
        }),
    }
}

pub(crate) async fn run_first<T>(
    conn: &mut Conn,
    sql: &str,
    privilege: &str,
) -> Result<Option<T>, ControlError>
where
    T: mysql_async::prelude::FromRow + Send + 'static,
{
    match tokio::time::timeout(STATEMENT_TIMEOUT, conn.query_first::<T, _>(sql)).await {
        Ok(r) => r.map_err(|e| ControlError::from_mysql(sql, &e, privilege)),
        Err(_) => Err(ControlError::Timeout {
            statement: sql.to_string(),
            after: STATEMENT_TIMEOUT,
        }),
    }
}

pub(crate) async fn run_rows<T>(
    conn: &mut Conn,
    sql: &str,
    privilege: &str,
) -> Result<Vec<T>, ControlError>
where
    T: mysql_async::prelude::FromRow + Send + 'static,
{
    match tokio::time::timeout(STATEMENT_TIMEOUT, conn.query::<T, _>(sql)).await {
        Ok(r) => r.map_err(|e| ControlError::from_mysql(sql, &e, privilege)),
        Err(_) => Err(ControlError::Timeout {
            statement: sql.to_string(),
            after: STATEMENT_TIMEOUT,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::plan::{PlanContext, plan_set};
    use innodebt_poller::connect::Endpoint;
    use mysql_async::Value;

    #[test]
    fn execute_is_spawnable() {
        fn assert_send<T: Send + 'static>(_: T) {}
        let opts = ConnectOptions::new(Endpoint::Socket("/nonexistent/x.sock".into()));
        let ctx = PlanContext::new(Flavor::detect("10.11.1-MariaDB", "", false), false);
        let facts = VariableFacts {
            variable: "innodb_purge_threads".into(),
            exists: true,
            current: Some(4),
            dynamic: true,
            min: Some(1),
            max: Some(32),
            source: FactsSource::SystemVariables,
        };
        let Ok(plan) = plan_set(PurgeVariable::PurgeThreads, 5, &facts, &ctx) else {
            panic!("plan refused")
        };
        assert_send(async move { execute(&opts, &plan).await });
    }

    #[tokio::test]
    async fn a_failed_connect_is_an_audited_outcome() {
        let mut opts = ConnectOptions::new(Endpoint::Socket("/nonexistent/x.sock".into()));
        opts.user = "dba".into();
        opts.password = Some(innodebt_poller::connect::Secret::new("hunter2"));
        let ctx = PlanContext::new(Flavor::detect("10.11.1-MariaDB", "", false), false);
        let facts = VariableFacts {
            variable: "innodb_max_purge_lag".into(),
            exists: true,
            current: Some(0),
            dynamic: true,
            min: Some(0),
            max: Some(u64::MAX),
            source: FactsSource::SystemVariables,
        };
        let plan = plan_set(PurgeVariable::MaxPurgeLag, 5, &facts, &ctx).unwrap();
        let out = execute(&opts, &plan).await;
        assert!(!out.ok);
        let e = out.error.clone().unwrap();
        assert!(e.contains("does not exist"), "{e}");
        assert_eq!(out.audit.account, "dba");
        assert_eq!(out.audit.action, "SET GLOBAL innodb_max_purge_lag = 5");
        assert_eq!(out.audit.old_value.as_deref(), Some("0"));
        assert!(out.audit.result.starts_with("error: "));
        assert!(!format!("{out:?}").contains("hunter2"));
        assert!(out.title(&plan).ends_with("failed"));
    }

    #[test]
    fn values_as_text() {
        assert_eq!(
            value_text(&Value::Bytes(b"32".to_vec())).as_deref(),
            Some("32")
        );
        assert_eq!(
            value_text(&Value::UInt(u64::MAX)).as_deref(),
            Some("18446744073709551615")
        );
        assert_eq!(value_text(&Value::Int(-1)).as_deref(), Some("-1"));
        assert_eq!(value_text(&Value::NULL), None);
    }
}
