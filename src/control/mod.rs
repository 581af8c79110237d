//! The runtime changes a DBA makes from the dashboard — `SET GLOBAL` of the purge variables,
//! enabling InnoDB monitor counters, killing the session that blocks purge — and the audit
//! trail of all of them.
//!
//! The flow: read facts ([`exec::fetch_facts`]) → [`plan`] (pure: a [`plan::ChangePlan`] to
//! confirm, or a [`plan::Refusal`]) → confirmed → [`exec::execute`] on a connection of its own
//! → [`exec::ChangeOutcome`] (with its [`innodebt_server::sample::AuditEntry`]) → [`audit::AuditLog`].
//! Server differences come from [`innodebt_server::flavor::Flavor`] only.

pub mod audit;
pub mod exec;
pub mod plan;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use innodebt_poller::connect::ConnectError;

pub use audit::AuditLog;
pub use exec::{ChangeOutcome, SqlWarning, execute, fetch_facts, read_facts};
pub use plan::{
    ChangePlan, FactsSource, PlanAction, PlanContext, PurgeVariable, Refusal, VariableFacts,
    parse_input, plan_enable_monitors, plan_kill, plan_rollback_segments, plan_set, plan_step,
};

/// Why a change could not be made. `Display` is the message for the user: the server's own
/// words, then what to do about them.
#[derive(Debug, Error)]
pub enum ControlError {
    #[error("cannot open a connection for the change: {0}")]
    Connect(#[from] ConnectError),

    #[error(
        "{statement} failed: ERROR {code} ({state}): {message}{}",
        hint_text(hint)
    )]
    Server {
        statement: String,
        code: u16,
        state: String,
        message: String,
        hint: Option<String>,
    },

    #[error(
        "{statement}: no answer within {} s; it may still be running on the server \
         (SHOW PROCESSLIST shows it)",
        after.as_secs()
    )]
    Timeout { statement: String, after: Duration },

    #[error("{statement} failed: {detail}")]
    Driver { statement: String, detail: String },

    /// A check made right before running said no (the situation changed since the prompt).
    #[error("{0}")]
    Refused(String),

    #[error("cannot write the audit log {}: {source}", path.display())]
    Audit { path: PathBuf, source: io::Error },

    #[error(
        "no place for the audit log: neither XDG_STATE_HOME nor HOME is set \
         (set XDG_STATE_HOME to a directory of yours)"
    )]
    NoStateDir,
}

fn hint_text(hint: &Option<String>) -> String {
    hint.as_deref()
        .map(|h| format!(". {h}"))
        .unwrap_or_default()
}

impl ControlError {
    /// The server's error code, when the server refused.
    pub fn server_code(&self) -> Option<u16> {
        match self {
            ControlError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Explains a `mysql_async` error from `statement`; `privilege` is what the statement
    /// needs, named when the server says access denied.
    pub(crate) fn from_mysql(statement: &str, e: &mysql_async::Error, privilege: &str) -> Self {
        use exec::code;
        let mysql_async::Error::Server(se) = e else {
            return ControlError::Driver {
                statement: statement.to_string(),
                detail: e.to_string(),
            };
        };
        let needs = if privilege.is_empty() {
            "The account lacks a privilege this needs.".to_string()
        } else {
            format!("The account needs {privilege}.")
        };
        let hint = match se.code {
            code::SPECIFIC_ACCESS_DENIED | code::PERSIST_ONLY_ACCESS_DENIED | code::KILL_DENIED => {
                Some(needs)
            }
            code::NO_SUCH_THREAD => Some(format!(
                "The session is gone already, or this account cannot see it ({})",
                needs.trim_end_matches('.')
            )),
            code::INCORRECT_GLOBAL_LOCAL_VAR => Some(
                "The variable is read-only at runtime: set it in my.cnf and restart \
                 (MySQL 8: SET PERSIST_ONLY)."
                    .to_string(),
            ),
            code::UNKNOWN_SYSTEM_VARIABLE => Some("This server has no such variable.".into()),
            code::WRONG_ARGUMENTS | code::WRONG_VALUE_FOR_VAR | code::WRONG_TYPE_FOR_VAR => {
                Some("The server refused the value; nothing changed.".into())
            }
            _ => None,
        };
        ControlError::Server {
            statement: statement.to_string(),
            code: se.code,
            state: se.state.clone(),
            message: se.message.clone(),
            hint,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(code: u16, message: &str) -> mysql_async::Error {
        mysql_async::Error::Server(mysql_async::ServerError {
            code,
            message: message.into(),
            state: "42000".into(),
        })
    }

    #[test]
    fn access_denied_names_the_privilege() {
        let e = ControlError::from_mysql(
            "SET GLOBAL innodb_max_purge_lag = 5",
            &server(
                1227,
                "Access denied; you need (at least one of) the SUPER privilege(s) for this operation",
            ),
            "SUPER",
        );
        assert_eq!(
            e.to_string(),
            "SET GLOBAL innodb_max_purge_lag = 5 failed: ERROR 1227 (42000): Access denied; you \
             need (at least one of) the SUPER privilege(s) for this operation. The account needs \
             SUPER."
        );
        assert_eq!(e.server_code(), Some(1227));
    }

    #[test]
    fn other_codes() {
        let ro = ControlError::from_mysql(
            "SET GLOBAL innodb_purge_threads = 8",
            &server(
                1238,
                "Variable 'innodb_purge_threads' is a read only variable",
            ),
            "SUPER",
        )
        .to_string();
        assert!(
            ro.contains("read only variable") && ro.contains("my.cnf"),
            "{ro}"
        );
        let gone = ControlError::from_mysql(
            "KILL CONNECTION 9",
            &server(1094, "Unknown thread id: 9"),
            "SUPER to kill another account's session",
        )
        .to_string();
        assert!(
            gone.contains("Unknown thread id: 9") && gone.contains("gone already"),
            "{gone}"
        );
        let plain = ControlError::from_mysql("SELECT 1", &server(1064, "syntax"), "").to_string();
        assert_eq!(plain, "SELECT 1 failed: ERROR 1064 (42000): syntax");
    }
}
