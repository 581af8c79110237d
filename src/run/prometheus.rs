//! The dashboard, `--once` and `check` fed by the Prometheus that already scrapes the server
//! (mysqld_exporter's series, or `innodebt serve`'s), instead of a connection: the instance's
//! series become the samples a poller would have sent — the mapping `import prometheus` uses —
//! and the same engine judges them. Nothing here connects to the server, so runtime changes
//! are off and no database password is needed.

use std::process::ExitCode;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::app::{App, DataView, Feed};
use crate::cli::{PrometheusArgs, TimeSpec};
use crate::config::{Config, Output};
use crate::dashboard;
use innodebt_capture::prometheus::{Auth, Import, Request};
use innodebt_engine::figures::Figures;
use innodebt_server::sample::SourceEvent;

/// How much history one look reads before its moment: enough samples for the rates, the
/// history trend and the verdicts' hold times — what a dashboard open for that long had seen.
pub(crate) fn lookback(step: Duration) -> Duration {
    (step * 40).max(Duration::from_secs(600))
}

/// `--at`: RFC 3339 as given, HH:MM:SS today in UTC; now without it.
pub(crate) fn moment(at: Option<TimeSpec>) -> Result<DateTime<Utc>, String> {
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

/// The series to read: `p`'s instance over the `lookback` before `to`, each request within
/// `--query-timeout`.
fn request(config: &Config, p: &PrometheusArgs, to: DateTime<Utc>) -> Result<Request, String> {
    let (Some(url), Some(instance)) = (&p.source.prometheus, &p.instance) else {
        return Err(crate::config::NEEDS_INSTANCE.into());
    };
    let back = chrono::Duration::from_std(lookback(p.source.step))
        .map_err(|_| "--step is too large".to_string())?;
    Ok(Request {
        url: url.clone(),
        instance: instance.clone(),
        job: p.source.job.clone(),
        matchers: p.source.matchers.clone(),
        from: to - back,
        to,
        step: p.source.step,
        auth: Auth {
            basic_file: p.source.basic_auth_file.clone(),
            bearer_file: p.source.bearer_token_file.clone(),
            ca_file: p.source.ca_file.clone(),
        },
        timeout: config.poll.query_timeout,
    })
}

/// One look at `--at` (or now): the window's samples derived in order, the last figures.
pub(super) async fn look(config: &Config, p: &PrometheusArgs) -> Result<Figures, String> {
    let req = request(config, p, moment(p.source.at)?)?;
    let mut import = Import::open(&req).await.map_err(|e| e.to_string())?;
    // One look answers as the direct `--once` does: a verdict holds once a sample shows it.
    let mut deriver = config.judging.deriver().one_shot();
    let mut last = None;
    while let Some(chunk) = import.next_chunk().await.map_err(|e| e.to_string())? {
        for event in &chunk {
            if let Some(f) = deriver.push(event) {
                last = Some(f);
            }
        }
    }
    match last {
        Some(f) => Ok(f),
        None => Err(import.no_samples().await.to_string()),
    }
}

/// `innodebt --prometheus URL --instance NAME`: `--once`, or the dashboard.
pub(super) async fn main(config: &Config, p: &PrometheusArgs, output: Output) -> ExitCode {
    if output.once {
        return match look(config, p).await {
            Ok(figures) => {
                super::live::print_figures(&figures, output.format());
                ExitCode::SUCCESS
            }
            Err(e) => fail(EXIT_FAILURE, e),
        };
    }
    let theme = match super::theme(&config.look) {
        Ok(t) => t,
        Err(code) => return code,
    };
    // Before Prometheus is asked anything.
    if let Err(code) = crate::mode::need_terminal(crate::mode::LIVE_INSTEAD) {
        return code;
    }
    let at = match moment(p.source.at) {
        Ok(t) => t,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let req = match request(config, p, at) {
        Ok(r) => r,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    // The first window is read before the screen opens, so a wrong URL, instance or
    // credential is a plain message and an exit code, not a screen that never fills.
    let import = match Import::open(&req).await {
        Ok(i) => i,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    let (tx, events) = mpsc::channel(1024);
    let follow = p.source.at.is_none();
    let feed = tokio::spawn(feed(import, p.source.step, follow, tx));
    // No connection: nothing can be changed from here, nor how often Prometheus is read.
    let mut app = App::fed_by(Feed::Prometheus, p.source.step, Utc::now());
    if p.source.at.is_some() {
        app.pinned_clock = Some(at);
        app.now = at;
    }
    app.live = DataView::new(config.judging.deriver());
    let wiring = dashboard::Wiring {
        recording: None,
        control: None,
        messages: None,
        events,
        poller: None,
        recorder: None,
    };
    let result = dashboard::run(app, theme, wiring).await;
    feed.abort();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}

/// Sends the window's events, then — following — each step's new ones. A failed read is a
/// `Disconnected` naming Prometheus's answer (the header's DISCONNECTED badge), tried again at
/// the next step; the next sample clears it.
pub(crate) async fn feed(
    mut import: Import,
    step: Duration,
    follow: bool,
    tx: mpsc::Sender<SourceEvent>,
) {
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
