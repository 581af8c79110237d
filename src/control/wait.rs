//! MariaDB's `SET GLOBAL innodb_max_purge_lag_wait = N`: the setting session blocks until
//! history ≤ N (measured: 13 s behind a snapshot; forever while a read view stays open). It
//! runs here as a task of its own with two connections of its own — one blocks, one watches
//! history for the progress and, on cancel, runs `KILL QUERY <blocked connection id>`.
//! Never on the poller's connection.
//!
//! Measured on 10.11: after `KILL QUERY` the `SET` returns OK (no error 1317), so whether a
//! wait was cancelled is known from having cancelled it, and whether it was reached from
//! history afterwards.

use std::time::Duration;

use chrono::Utc;
use mysql_async::{Conn, Row};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use super::ControlError;
use super::exec::{code, run_drop, run_first, value_text};
use super::plan::{ChangePlan, PlanAction};
use crate::cli::ConnectOptions;
use crate::sample::AuditEntry;
use crate::source::connect::connect;

/// How often a cancel repeats its `KILL QUERY` while the wait has not returned.
const KILL_AGAIN: Duration = Duration::from_millis(300);
/// When a cancel stops trying.
const CANCEL_GIVE_UP: Duration = Duration::from_secs(30);

/// Where a wait is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitState {
    Connecting,
    Waiting,
    Cancelling,
    Done,
}

/// The latest progress of a wait (history now vs target, elapsed).
#[derive(Debug, Clone, PartialEq)]
pub struct WaitProgress {
    pub target: u64,
    pub history: Option<u64>,
    pub history_before: Option<u64>,
    pub elapsed: Duration,
    /// The blocked session (what `KILL QUERY` names).
    pub connection_id: Option<u32>,
    pub state: WaitState,
}

impl WaitProgress {
    /// One status line: `history 61,234 → ≤ 100, waiting 12 s (connection 318)`.
    pub fn line(&self) -> String {
        let history = self
            .history
            .map_or_else(|| "?".to_string(), |h| h.to_string());
        let state = match self.state {
            WaitState::Connecting => "connecting",
            WaitState::Waiting => "waiting",
            WaitState::Cancelling => "cancelling",
            WaitState::Done => "done",
        };
        let conn = self
            .connection_id
            .map(|id| format!(" (connection {id})"))
            .unwrap_or_default();
        format!(
            "history {history} → ≤ {}, {state} {} s{conn}",
            self.target,
            self.elapsed.as_secs()
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitResult {
    /// History came down to the target.
    Reached,
    /// Cancelled from here (`KILL QUERY`).
    Cancelled,
    /// The wait returned with history still above the target (someone else killed it?).
    EndedEarly,
    Failed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WaitOutcome {
    pub result: WaitResult,
    pub target: u64,
    pub history_before: Option<u64>,
    pub history: Option<u64>,
    pub elapsed: Duration,
    /// The error, verbatim from the server, plus what to do about it.
    pub error: Option<String>,
    pub audit: AuditEntry,
}

impl WaitOutcome {
    pub fn title(&self) -> String {
        match self.result {
            WaitResult::Reached => "Purge caught up".to_string(),
            WaitResult::Cancelled => "Purge wait cancelled".to_string(),
            WaitResult::EndedEarly => "Purge wait ended early".to_string(),
            WaitResult::Failed => "Purge wait failed".to_string(),
        }
    }

    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.audit.result.clone()];
        if let Some(e) = &self.error {
            lines.push(e.clone());
        }
        lines
    }
}

/// Stops a wait; clones share it. When every canceller (and the [`PurgeLagWait`]) is
/// dropped, the wait is cancelled too: a blocked session is never left behind by accident.
#[derive(Debug, Clone)]
pub struct WaitCanceller {
    tx: watch::Sender<bool>,
}

impl WaitCanceller {
    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }
}

/// A running wait: its progress, its cancel, and its result.
#[derive(Debug)]
pub struct PurgeLagWait {
    progress: watch::Receiver<WaitProgress>,
    canceller: WaitCanceller,
    task: JoinHandle<WaitOutcome>,
}

impl PurgeLagWait {
    /// Progress as it changes (`changed().await`, then `borrow()`).
    pub fn progress(&self) -> watch::Receiver<WaitProgress> {
        self.progress.clone()
    }

    pub fn canceller(&self) -> WaitCanceller {
        self.canceller.clone()
    }

    pub fn cancel(&self) {
        self.canceller.cancel();
    }

    /// Waits for the end (after a cancel: promptly).
    pub async fn finish(self) -> WaitOutcome {
        let target = self.progress.borrow().target;
        // Keep the canceller alive until the end, or dropping it would cancel.
        let _canceller = self.canceller;
        match self.task.await {
            Ok(outcome) => outcome,
            Err(e) => WaitOutcome {
                result: WaitResult::Failed,
                target,
                history_before: None,
                history: None,
                elapsed: Duration::ZERO,
                error: Some(format!("the purge-wait task ended abnormally: {e}")),
                audit: AuditEntry {
                    at: Utc::now(),
                    account: String::new(),
                    server: String::new(),
                    action: format!("SET GLOBAL innodb_max_purge_lag_wait = {target}"),
                    old_value: None,
                    new_value: Some(target.to_string()),
                    result: format!("error: task ended abnormally: {e}"),
                },
            },
        }
    }

    /// The parts, for a run loop that forwards progress and keeps the canceller.
    pub fn into_parts(
        self,
    ) -> (
        watch::Receiver<WaitProgress>,
        WaitCanceller,
        JoinHandle<WaitOutcome>,
    ) {
        (self.progress, self.canceller, self.task)
    }
}

/// Starts the wait of a confirmed [`plan_purge_lag_wait`](super::plan::plan_purge_lag_wait)
/// plan: spawns a task (call inside a tokio runtime) with two connections of its own.
/// Progress is reported every `poll_every`.
pub fn spawn_purge_lag_wait(
    opts: ConnectOptions,
    plan: &ChangePlan,
    poll_every: Duration,
) -> Result<PurgeLagWait, ControlError> {
    let PlanAction::PurgeLagWait { target } = plan.action else {
        return Err(ControlError::Refused(format!(
            "{} is not a purge-lag wait",
            plan.title
        )));
    };
    let initial = WaitProgress {
        target,
        history: None,
        history_before: None,
        elapsed: Duration::ZERO,
        connection_id: None,
        state: WaitState::Connecting,
    };
    let (progress_tx, progress_rx) = watch::channel(initial);
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let job = Job {
        opts,
        target,
        sql: plan.sql_text(),
        history_sql: plan.verify_sql.clone(),
        privilege: plan.privilege.clone(),
        poll_every: poll_every.max(Duration::from_millis(50)),
        started: Instant::now(),
        progress: progress_tx,
        account: String::new(),
        history_before: None,
        connection_id: None,
    };
    let task = tokio::spawn(job.run(cancel_rx));
    Ok(PurgeLagWait {
        progress: progress_rx,
        canceller: WaitCanceller { tx: cancel_tx },
        task,
    })
}

struct Job {
    opts: ConnectOptions,
    target: u64,
    sql: String,
    history_sql: String,
    privilege: String,
    poll_every: Duration,
    started: Instant,
    progress: watch::Sender<WaitProgress>,
    account: String,
    history_before: Option<u64>,
    connection_id: Option<u32>,
}

impl Job {
    async fn run(mut self, mut cancel: watch::Receiver<bool>) -> WaitOutcome {
        self.account = self.opts.user.clone();
        let mut waiter = match connect(&self.opts).await {
            Ok(c) => c,
            Err(e) => return self.failed(ControlError::Connect(e), None),
        };
        if let Ok(Some(account)) =
            run_first::<String>(&mut waiter, "SELECT CURRENT_USER()", "").await
        {
            self.account = account;
        }
        let id = waiter.id();
        self.connection_id = Some(id);
        let mut watcher = match connect(&self.opts).await {
            Ok(c) => c,
            Err(e) => {
                disconnect(waiter).await;
                return self.failed(ControlError::Connect(e), None);
            }
        };
        self.history_before = self.history(&mut watcher).await;
        let mut history = self.history_before;
        if cancel.has_changed().is_err() || *cancel.borrow() {
            // Cancelled before it started: run nothing.
            disconnect(watcher).await;
            disconnect(waiter).await;
            self.report(history, WaitState::Done);
            let text = "cancelled before it started".to_string();
            return WaitOutcome {
                result: WaitResult::Cancelled,
                target: self.target,
                history_before: self.history_before,
                history,
                elapsed: self.started.elapsed(),
                error: None,
                audit: self.audit(text),
            };
        }
        self.report(history, WaitState::Waiting);

        let mut cancelled: Option<Instant> = None;
        let mut last_kill = Instant::now();
        let mut kill_error: Option<ControlError> = None;
        let sql = self.sql.clone();
        let kill = format!("KILL QUERY {id}");
        let result = {
            let wait = mysql_async::prelude::Queryable::query_drop(&mut waiter, sql.as_str());
            tokio::pin!(wait);
            let mut tick = tokio::time::interval(self.poll_every);
            tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    biased;
                    r = &mut wait => break Some(r),
                    changed = cancel.changed(), if cancelled.is_none() => {
                        // A dropped canceller cancels too.
                        if changed.is_err() || *cancel.borrow() {
                            cancelled = Some(Instant::now());
                            last_kill = Instant::now();
                            self.report(history, WaitState::Cancelling);
                            if let Err(e) = run_drop(&mut watcher, &kill, &self.privilege).await {
                                kill_error = Some(e);
                                break None;
                            }
                        }
                    }
                    _ = tick.tick() => {
                        if let Some(h) = self.history(&mut watcher).await {
                            history = Some(h);
                        }
                        if let Some(since) = cancelled {
                            // A KILL QUERY that reached the session before its SET started
                            // finds nothing to kill: send it again until the SET returns.
                            if since.elapsed() > CANCEL_GIVE_UP {
                                kill_error = Some(ControlError::Refused(format!(
                                    "{kill} did not stop the wait within {} s",
                                    CANCEL_GIVE_UP.as_secs()
                                )));
                                break None;
                            }
                            if last_kill.elapsed() >= KILL_AGAIN {
                                last_kill = Instant::now();
                                if let Err(e) = run_drop(&mut watcher, &kill, &self.privilege).await {
                                    kill_error = Some(e);
                                    break None;
                                }
                            }
                        }
                        let state = if cancelled.is_some() {
                            WaitState::Cancelling
                        } else {
                            WaitState::Waiting
                        };
                        self.report(history, state);
                    }
                }
            }
        };
        let cancelled = cancelled.is_some();
        let after = self.history(&mut watcher).await.or(history);
        disconnect(watcher).await;
        if result.is_some() {
            disconnect(waiter).await;
        } else {
            // The statement is still running: dropping the connection is all that is left.
            drop(waiter);
        }
        self.report(after, WaitState::Done);
        let elapsed = self.started.elapsed();
        let secs = elapsed.as_secs_f64();
        let (outcome, error, text) = match (result, kill_error) {
            (_, Some(e)) => {
                let text = format!(
                    "could not cancel: {e}. Session {id} keeps waiting until history ≤ {} or \
                     until an account allowed to runs KILL QUERY {id}",
                    self.target
                );
                (
                    WaitResult::Failed,
                    Some(text.clone()),
                    format!("error: {text}"),
                )
            }
            (Some(Err(e)), _) => {
                let interrupted = matches!(&e, mysql_async::Error::Server(se)
                    if se.code == code::QUERY_INTERRUPTED);
                if cancelled && interrupted {
                    (
                        WaitResult::Cancelled,
                        None,
                        format!(
                            "cancelled after {secs:.1} s (KILL QUERY {id}); history {}",
                            num(after)
                        ),
                    )
                } else {
                    let e = ControlError::from_mysql(&self.sql, &e, &self.privilege).to_string();
                    (WaitResult::Failed, Some(e.clone()), format!("error: {e}"))
                }
            }
            (Some(Ok(())), _) if cancelled => (
                WaitResult::Cancelled,
                None,
                format!(
                    "cancelled after {secs:.1} s (KILL QUERY {id}); history {}",
                    num(after)
                ),
            ),
            (Some(Ok(())), _) if after.is_some_and(|h| h > self.target) => (
                WaitResult::EndedEarly,
                None,
                format!(
                    "ended after {secs:.1} s with history {} still above {} (was its query \
                     killed elsewhere?)",
                    num(after),
                    self.target
                ),
            ),
            (Some(Ok(())), _) => (
                WaitResult::Reached,
                None,
                format!("reached in {secs:.1} s: history {}", num(after)),
            ),
            (None, None) => (
                WaitResult::Failed,
                Some("the wait stopped without a result".to_string()),
                "error: the wait stopped without a result".to_string(),
            ),
        };
        WaitOutcome {
            result: outcome,
            target: self.target,
            history_before: self.history_before,
            history: after,
            elapsed,
            error,
            audit: self.audit(text),
        }
    }

    async fn history(&self, conn: &mut Conn) -> Option<u64> {
        let row = run_first::<Row>(conn, &self.history_sql, "").await.ok()??;
        row.as_ref(1)
            .and_then(value_text)
            .and_then(|t| t.trim().parse().ok())
    }

    fn report(&self, history: Option<u64>, state: WaitState) {
        self.progress.send_replace(WaitProgress {
            target: self.target,
            history,
            history_before: self.history_before,
            elapsed: self.started.elapsed(),
            connection_id: self.connection_id,
            state,
        });
    }

    fn failed(&self, e: ControlError, history: Option<u64>) -> WaitOutcome {
        self.report(history, WaitState::Done);
        let text = e.to_string();
        WaitOutcome {
            result: WaitResult::Failed,
            target: self.target,
            history_before: self.history_before,
            history,
            elapsed: self.started.elapsed(),
            error: Some(text.clone()),
            audit: self.audit(format!("error: {text}")),
        }
    }

    fn audit(&self, result: String) -> AuditEntry {
        AuditEntry {
            at: Utc::now(),
            account: self.account.clone(),
            server: self.opts.label(),
            action: self.sql.clone(),
            old_value: self.history_before.map(|h| format!("history {h}")),
            new_value: Some(format!("history ≤ {}", self.target)),
            result,
        }
    }
}

fn num(v: Option<u64>) -> String {
    v.map_or_else(|| "?".to_string(), |h| h.to_string())
}

async fn disconnect(conn: Conn) {
    let _ = tokio::time::timeout(Duration::from_secs(2), conn.disconnect()).await;
}
