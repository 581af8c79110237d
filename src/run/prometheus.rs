//! The dashboard, `--once` and `check` fed by the Prometheus that already scrapes the server
//! (mysqld_exporter's series, or `innodebt serve`'s), instead of a connection: the instance's
//! series become the samples a poller would have sent — the mapping `import prometheus` uses —
//! and the same engine judges them. Nothing here connects to the server, so runtime changes
//! are off and no database password is needed.

use std::process::ExitCode;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::app::{App, DataView, Feed};
use crate::cli::PrometheusArgs;
use crate::config::{Config, Output};
use crate::dashboard;
use crate::from_prometheus::{feed, lookback, moment};
use innodebt_capture::prometheus::{Auth, Import, Request};
use innodebt_engine::figures::Figures;

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
    let theme = match config.look.theme() {
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
