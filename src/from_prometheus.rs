//! What one server's view from Prometheus needs, wherever it opens (`innodebt --prometheus
//! URL --instance NAME`, or Enter on a row of `fleet --prometheus`): the moment it looks at,
//! how far back it reads, and the feed that follows its series step by step.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;

use crate::cli::TimeSpec;
use innodebt_capture::prometheus::Import;
use innodebt_server::sample::SourceEvent;

/// How much history one look reads before its moment: enough samples for the rates, the
/// history trend and the verdicts' hold times — what a dashboard open for that long had seen.
pub fn lookback(step: Duration) -> Duration {
    (step * 40).max(Duration::from_secs(600))
}

/// `--at`: RFC 3339 as given, HH:MM:SS today in UTC; now without it.
pub fn moment(at: Option<TimeSpec>) -> Result<DateTime<Utc>, String> {
    match at {
        None => Ok(Utc::now()),
        Some(TimeSpec::Instant(t)) => Ok(t.with_timezone(&Utc)),
        Some(TimeSpec::Clock(t)) => Ok(Utc::now().date_naive().and_time(t).and_utc()),
        Some(TimeSpec::Offset(_)) => Err(
            "--at with --prometheus is a time (2026-01-31T03:00:00Z or 03:00:00), not +DURATION"
                .into(),
        ),
    }
}

/// Sends the window's events, then — following — each step's new ones. A failed read is a
/// `Disconnected` naming Prometheus's answer (the header's DISCONNECTED badge), tried again at
/// the next step; the next sample clears it.
pub async fn feed(mut import: Import, step: Duration, follow: bool, tx: mpsc::Sender<SourceEvent>) {
    let mut down_since = None;
    loop {
        if follow {
            import.follow(Utc::now());
        }
        loop {
            match import.next_chunk().await {
                Ok(Some(chunk)) => {
                    down_since = None;
                    for event in chunk {
                        if tx.send(event).await.is_err() {
                            return;
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    let since = *down_since.get_or_insert_with(Utc::now);
                    let event = SourceEvent::Disconnected {
                        since,
                        retry_in_ms: u64::try_from(step.as_millis()).unwrap_or(u64::MAX),
                        error: e.to_string(),
                    };
                    if tx.send(event).await.is_err() {
                        return;
                    }
                    break;
                }
            }
        }
        if !follow && down_since.is_none() {
            // `--at`: the moment is on screen and nothing more will come.
            tx.closed().await;
            return;
        }
        tokio::time::sleep(step).await;
    }
}
