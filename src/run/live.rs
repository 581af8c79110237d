//! Live modes: `--once` and the dashboard (with `--record`).

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use futures_util::FutureExt as _;

use super::session::{first_session, poller_config, spawn_poller};
use super::{EXIT_FAILURE, fail, record};
use crate::app::{App, DataView, Feed};
use crate::cli::{ConnectOptions, OutputFormat};
use crate::config::{Config, Output};
use crate::dashboard;
use crate::output;
use innodebt_engine::derive::Deriver;
use innodebt_poller::live::{PollerConfig, Session};
use innodebt_server::sample::SourceEvent;

pub(super) async fn main(
    config: &Config,
    opts: &ConnectOptions,
    output: Output,
    record: Option<&Path>,
) -> ExitCode {
    let cfg = poller_config(config, opts);
    let theme = match config.look.theme() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let session = match first_session(opts, &cfg).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    if output.once {
        let deriver = config.judging.deriver().one_shot();
        return once(session, deriver, &cfg, output.format()).await;
    }
    // Recording starts before the screen takes over, so a bad path is a plain message.
    let recorder = match record {
        Some(path) => match record::start(path, &session, &cfg, config.record_queries) {
            Ok(r) => Some(r),
            Err(code) => return code,
        },
        None => None,
    };
    let polling = spawn_poller(session, opts.clone(), cfg.clone());
    let feed = Feed::Server {
        read_only: config.read_only,
    };
    let mut app = App::fed_by(feed, cfg.interval, chrono::Utc::now());
    app.live = DataView::new(config.judging.deriver());
    app.recording = record.map(|p| p.display().to_string());
    let audit = match crate::control::AuditLog::open_default() {
        Ok(log) => Some(log),
        Err(e) => {
            eprintln!("innodebt: warning: {e}; runtime changes will not be audited");
            None
        }
    };
    let wiring = dashboard::Wiring {
        recording: app.recording.clone(),
        control: Some(dashboard::Control {
            opts: opts.clone(),
            audit,
        }),
        messages: None,
        events: polling.events,
        poller: Some(polling.commands),
        recorder: recorder.as_ref().map(|r| r.sender.clone()),
    };
    // A panic in the dashboard (a bug) must not cost the recording: the panic hook has
    // already restored the terminal and printed the message; finish the capture, then fail.
    let result = AssertUnwindSafe(dashboard::run(app, theme, wiring))
        .catch_unwind()
        .await;
    polling.task.abort();
    let summary = match recorder {
        Some(r) => Some(r.finish().await),
        None => None,
    };
    if let Some(Err(e)) = &summary {
        return fail(EXIT_FAILURE, e);
    }
    if let Some(Ok(s)) = &summary {
        eprintln!("innodebt: {s}");
    }
    match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => fail(EXIT_FAILURE, format!("{e:#}")),
        Err(_) => fail(
            EXIT_FAILURE,
            format!(
                "the dashboard stopped on an internal error (a bug; the message is above — \
                 please report it){}",
                if summary.is_some() {
                    "; the capture was finished and is complete up to that moment"
                } else {
                    ""
                }
            ),
        ),
    }
}

/// Two samples `--interval` apart, derived and printed once.
async fn once(
    session: Session,
    deriver: Deriver,
    cfg: &PollerConfig,
    format: OutputFormat,
) -> ExitCode {
    match look(session, deriver, cfg).await {
        Ok(figures) => print_figures(&figures, format),
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// One look (`--once`, `check`): two samples `--interval` apart, derived — and while the
/// verdict is still `unknown` only for want of the history trend (purge is behind and one look
/// cannot tell whether it keeps up), more samples, until the trend window is seen
/// ([`crate::mode::once_watch_limit`]).
pub(super) async fn look(
    mut session: Session,
    mut deriver: Deriver,
    cfg: &PollerConfig,
) -> Result<innodebt_engine::figures::Figures, String> {
    let started = Instant::now();
    deriver.push(&SourceEvent::Connected {
        at: chrono::Utc::now(),
        info: session.info.clone(),
    });
    let label = session.info.label.clone();
    let limit = crate::mode::once_watch_limit(cfg.interval);
    let mut figures = None;
    for n in 0u32.. {
        if n > 0 {
            tokio::time::sleep(cfg.interval).await;
        }
        // The first two samples read every source, the slow-cadence ones too: the rates that
        // come from them (rows/s adding history) and purge's progress need two readings.
        match session.poll(cfg, started, n < 2, false).await {
            Ok(s) => figures = deriver.push_sample(&s),
            Err(e) => return Err(format!("{label}: connection lost: {e}")),
        }
        let watching = figures.as_ref().is_some_and(still_watching);
        if n >= 1 && (!watching || started.elapsed() >= limit) {
            break;
        }
    }
    figures.ok_or_else(|| "no figures derived".to_string())
}

/// The verdict waits for the history trend, and only for that: more samples will answer it.
fn still_watching(f: &innodebt_engine::figures::Figures) -> bool {
    f.verdicts.iter().any(|v| {
        v.missing
            .iter()
            .any(|m| matches!(m, innodebt_engine::figures::Missing::WatchingFor { .. }))
    })
}

pub(super) fn print_figures(
    figures: &innodebt_engine::figures::Figures,
    format: OutputFormat,
) -> ExitCode {
    match format {
        OutputFormat::Json => crate::mode::emit(&format!("{}\n", output::json(figures))),
        OutputFormat::Text => crate::mode::emit(&output::text(figures)),
    }
}
