//! The live poller: one tokio task owns one connection and emits [`SourceEvent`]s. It never
//! touches the terminal. Ticks are skipped (not queued) when the server is slow, every query
//! has a timeout, and a lost connection is retried with a capped backoff.

mod errlog;
mod query;
mod session;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use mysql_async::Conn;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use crate::cadence::Guard;
use innodebt_server::sample::SourceEvent;

pub use errlog::read_file as read_error_log_file;
pub use query::value_text;
pub use session::Session;

/// Opens a fresh connection (the poller reconnects through this). The error text must
/// already be user-facing and free of credentials.
pub type ConnectFn =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Conn, String>> + Send>> + Send + Sync>;

/// The shortest poll interval: polling faster loads the server without showing anything new.
/// The one floor `--interval`, the dashboard's `+`/`i` and the poller itself hold to.
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

#[derive(Debug, Clone)]
pub struct PollerConfig {
    pub interval: Duration,
    /// SHOW ENGINE INNODB STATUS cadence (it takes the lock-sys latch; keep it slow).
    pub innodb_status_every: Duration,
    /// The full undo-residency scan; `None` = only on request.
    pub undo_scan_every: Option<Duration>,
    pub query_timeout: Duration,
    pub variables_every: Duration,
    /// Where we connect, for the header (never credentials).
    pub label: String,
}

impl Default for PollerConfig {
    fn default() -> Self {
        PollerConfig {
            interval: Duration::from_secs(1),
            innodb_status_every: Duration::from_secs(10),
            undo_scan_every: None,
            query_timeout: Duration::from_secs(5),
            variables_every: Duration::from_secs(10),
            label: String::new(),
        }
    }
}

/// Requests from the app to the poller.
#[derive(Debug, Clone, PartialEq)]
pub enum PollerCommand {
    SetInterval(Duration),
    UndoScanNow,
    RefreshVariables,
}

/// SHOW ENGINE INNODB STATUS transactions kept in a live sample: the oldest, as many as
/// INNODB_TRX gives. The purge blocker reads whether they hold a read view
/// (`sessions::purge_blocker`); the rest is there for the record.
pub(super) const SEIS_TRANSACTIONS_KEPT: usize = 5;

pub const BACKOFF_START: Duration = Duration::from_millis(250);
pub const BACKOFF_CAP: Duration = Duration::from_secs(5);

/// Capped exponential backoff: 250 ms, 500 ms, 1 s, … never above [`BACKOFF_CAP`].
pub fn backoff(attempt: u32) -> Duration {
    BACKOFF_START
        .saturating_mul(1u32 << attempt.min(16))
        .min(BACKOFF_CAP)
}

/// The poller task. Starts from an open session when the caller already connected (so
/// start-up errors reach the user before the dashboard opens); reconnects by itself after.
pub async fn run(
    first: Option<Session>,
    connect: ConnectFn,
    mut cfg: PollerConfig,
    tx: mpsc::Sender<SourceEvent>,
    mut commands: mpsc::Receiver<PollerCommand>,
) {
    let started = Instant::now();
    let mut session = first;
    let mut attempt: u32 = 0;
    let mut down_since = None;
    let mut undo_scan_now = false;
    let mut refresh_vars = false;
    let mut announced = false;
    // The latency guard outlives a lost connection: what timed out waits on the next one too.
    let mut kept_guard: Option<Guard> = None;

    loop {
        let Some(s) = session.as_mut() else {
            let since = *down_since.get_or_insert_with(Utc::now);
            match connect().await {
                Ok(conn) => match Session::open(conn, &cfg).await {
                    Ok(mut s) => {
                        if let Some(g) = kept_guard.take() {
                            s.keep_guard(g);
                        }
                        session = Some(s);
                        attempt = 0;
                        down_since = None;
                        announced = false;
                        continue;
                    }
                    Err(e) => report_down(&tx, since, attempt, e).await,
                },
                Err(e) => report_down(&tx, since, attempt, e).await,
            }
            if tx.is_closed() {
                return;
            }
            let wait = backoff(attempt);
            attempt = attempt.saturating_add(1);
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                cmd = commands.recv() => match cmd {
                    None => return,
                    Some(c) => apply(c, &mut cfg, &mut undo_scan_now, &mut refresh_vars),
                },
            }
            continue;
        };

        if !announced {
            announced = true;
            let event = SourceEvent::Connected {
                at: Utc::now(),
                info: s.info.clone(),
            };
            if tx.send(event).await.is_err() {
                return;
            }
        }

        let mut ticker =
            tokio::time::interval_at(on_the_grid(tokio::time::Instant::now()), cfg.interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let current_interval = cfg.interval;
        let lost = loop {
            tokio::select! {
                _ = ticker.tick() => {}
                cmd = commands.recv() => match cmd {
                    None => return,
                    Some(c) => {
                        apply(c, &mut cfg, &mut undo_scan_now, &mut refresh_vars);
                        if cfg.interval != current_interval {
                            break None; // re-arm the ticker with the new interval
                        }
                        if !undo_scan_now && !refresh_vars {
                            continue;
                        }
                    }
                },
            }
            // The latency guard stretched the tick: skip it unless the DBA asked for something.
            if !s.tick_due(cfg.interval) && !undo_scan_now && !refresh_vars {
                continue;
            }
            match s.changed_variables(&cfg, refresh_vars).await {
                Ok(Some(variables)) => {
                    let ev = SourceEvent::Variables {
                        at: Utc::now(),
                        variables,
                    };
                    if tx.send(ev).await.is_err() {
                        return;
                    }
                }
                Ok(None) => {}
                Err(e) => break Some(e),
            }
            refresh_vars = false;
            match s.poll(&cfg, started, false, undo_scan_now).await {
                Ok(sample) => {
                    undo_scan_now = false;
                    if tx
                        .send(SourceEvent::Sample(Box::new(sample)))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                Err(e) => break Some(e),
            }
        };
        if let Some(e) = lost {
            kept_guard = session.take().map(Session::into_guard);
            down_since = Some(Utc::now());
            report_down(&tx, down_since.unwrap_or_else(Utc::now), 0, e).await;
            let wait = backoff(0);
            attempt = 1;
            tokio::time::sleep(wait).await;
        }
    }
}

/// Ticks fall on a process-wide grid of this step. `serve` spreads a thousand targets over
/// the interval; on the grid the few whose ticks share a step are woken together (one timer
/// wake, and their replies often in one epoll return) instead of one wake each.
const TICK_GRID: Duration = Duration::from_millis(20);

/// The first grid point at or after `now`.
fn on_the_grid(now: tokio::time::Instant) -> tokio::time::Instant {
    static EPOCH: std::sync::OnceLock<tokio::time::Instant> = std::sync::OnceLock::new();
    let epoch = *EPOCH.get_or_init(|| now);
    let step = TICK_GRID.as_nanos();
    let since = now.saturating_duration_since(epoch).as_nanos();
    let steps = since.div_ceil(step);
    let at = u64::try_from(steps.saturating_mul(step)).unwrap_or(u64::MAX);
    epoch + Duration::from_nanos(at)
}

fn apply(c: PollerCommand, cfg: &mut PollerConfig, undo_now: &mut bool, refresh: &mut bool) {
    match c {
        PollerCommand::SetInterval(d) => cfg.interval = d.max(MIN_INTERVAL),
        PollerCommand::UndoScanNow => *undo_now = true,
        PollerCommand::RefreshVariables => *refresh = true,
    }
}

async fn report_down(
    tx: &mpsc::Sender<SourceEvent>,
    since: chrono::DateTime<Utc>,
    attempt: u32,
    error: String,
) {
    let retry_in = backoff(attempt);
    let _ = tx
        .send(SourceEvent::Disconnected {
            since,
            retry_in_ms: u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX),
            error,
        })
        .await;
}

#[cfg(test)]
mod tests {
    use super::query::*;
    use super::*;

    #[test]
    fn ticks_start_on_the_shared_grid() {
        let t0 = tokio::time::Instant::now();
        let first = on_the_grid(t0);
        assert!(first >= t0 && first - t0 < TICK_GRID);
        // Two pollers starting within one step tick together; a step later, a step apart.
        let a = on_the_grid(first + Duration::from_millis(3));
        let b = on_the_grid(first + Duration::from_millis(17));
        assert_eq!(a, b);
        assert_eq!(a - first, TICK_GRID);
        assert_eq!(on_the_grid(a), a, "a grid point is its own");
        assert_eq!(on_the_grid(a + Duration::from_nanos(1)) - a, TICK_GRID);
    }

    #[test]
    fn backoff_is_capped_not_floored() {
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(3), Duration::from_secs(2));
        assert_eq!(backoff(10), BACKOFF_CAP);
        assert_eq!(backoff(u32::MAX), BACKOFF_CAP);
    }

    #[test]
    fn a_killed_connection_is_lost_not_a_refused_source() {
        let server = |code: u16| {
            mysql_async::Error::Server(mysql_async::ServerError {
                code,
                message: "x".into(),
                state: "70100".into(),
            })
        };
        for code in SESSION_ENDING_CODES {
            assert!(
                matches!(classify(server(code)), QueryError::Lost(_)),
                "{code}"
            );
        }
        assert!(matches!(
            classify(server(1227)),
            QueryError::Server { code: 1227, .. }
        ));
        let io = mysql_async::Error::Io(mysql_async::IoError::Io(std::io::Error::from(
            std::io::ErrorKind::BrokenPipe,
        )));
        let QueryError::Lost(m) = classify(io) else {
            panic!("an I/O error is a lost connection");
        };
        assert!(
            m.starts_with("connection lost (server gone or network broken): "),
            "{m}"
        );
        assert!(!m.contains("Input/output error"), "{m}");
    }

    #[test]
    fn privilege_from_message() {
        assert_eq!(
            missing_privilege(
                1227,
                "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation"
            )
            .as_deref(),
            Some("PROCESS")
        );
        assert_eq!(missing_privilege(1054, "Unknown column"), None);
    }
}
