//! Recording: the capture writer behind a bounded queue, fed a copy of every source event.
//! `innodebt record FILE` runs it without a terminal (nohup, systemd, tmux).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{SignalKind, signal};

use super::session::{first_session, poller_config, spawn_poller};
use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::config::{Config, Record, Triggered};
use innodebt_capture::{CaptureSender, Header, WriteSummary, WriterHandle};
use innodebt_poller::live::{PollerConfig, Session};
use innodebt_server::sample::SourceEvent;

/// Room for a minute of events at 1 s before a slow disk makes the writer drop (and count).
const CHANNEL_EVENTS: usize = 1024;

pub(super) struct Recorder {
    pub sender: CaptureSender,
    handle: WriterHandle,
    path: PathBuf,
}

impl Recorder {
    /// Drains what is queued, writes the trailer, syncs; says what the file holds.
    pub async fn finish(self) -> Result<String, String> {
        let Recorder {
            sender,
            handle,
            path,
        } = self;
        let dropped_here = sender.dropped();
        drop(sender);
        let summary = tokio::task::spawn_blocking(move || handle.join())
            .await
            .map_err(|e| format!("{}: the writer thread failed: {e}", path.display()))?
            .map_err(|e| e.to_string())?;
        Ok(describe(&summary, dropped_here))
    }
}

fn describe(s: &WriteSummary, dropped: u64) -> String {
    let mut line = format!(
        "recorded {} events to {} ({} bytes)",
        s.records,
        s.path.display(),
        s.bytes
    );
    let dropped = s.dropped.max(dropped);
    if dropped > 0 {
        line.push_str(&format!(
            "; {dropped} events were dropped because the disk could not keep up"
        ));
    }
    line
}

/// Creates the capture (mode 0600) with a header describing the server; the first
/// `Connected` event is queued so a replay knows the server from the first record.
pub(super) fn start(
    path: &Path,
    session: &Session,
    cfg: &PollerConfig,
    keep_queries: bool,
) -> Result<Recorder, ExitCode> {
    let now = chrono::Utc::now();
    let mut header = Header::new(now, Some(session.info.clone()), keep_queries);
    header.interval_ms = u64::try_from(cfg.interval.as_millis()).ok();
    let files = crate::replay::capture_files(Default::default());
    let (sender, handle) = innodebt_capture::spawn_writer(path, &header, CHANNEL_EVENTS, &files)
        .map_err(|e| fail(EXIT_CONFIG, e))?;
    Ok(Recorder {
        sender,
        handle,
        path: path.to_path_buf(),
    })
}

/// `innodebt record FILE [--duration D]`: no terminal needed; stops cleanly on SIGTERM,
/// SIGINT or after the duration, always finishing the file.
pub(super) async fn headless(config: &Config, r: &Record) -> ExitCode {
    let (path, duration) = (&r.path, r.duration);
    let cfg = poller_config(config, &r.connection);
    let session = match first_session(&r.connection, &cfg).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let recorder = match start(path, &session, &cfg, config.record_queries) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let polling = spawn_poller(session, r.connection.clone(), cfg);
    eprintln!(
        "innodebt: recording to {} — stop with Ctrl-C or SIGTERM{}",
        path.display(),
        until(duration)
    );
    let mut samples = 0u64;
    let polled = poll_until_stopped(polling, duration, |ev| {
        samples += u64::from(matches!(ev, SourceEvent::Sample(_)));
        recorder.sender.send(ev);
    })
    .await;
    if let Err(code) = polled {
        return code;
    }
    match recorder.finish().await {
        Ok(line) => {
            eprintln!("innodebt: {line} ({samples} samples)");
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

fn until(duration: Option<Duration>) -> String {
    duration
        .map(|d| {
            format!(
                " (or after {})",
                innodebt_engine::units::duration(d.as_secs())
            )
        })
        .unwrap_or_default()
}

/// Polls until SIGTERM, SIGINT, the duration or the poller's end, handing every event over.
async fn poll_until_stopped(
    mut polling: super::session::Polling,
    duration: Option<Duration>,
    mut each: impl FnMut(SourceEvent),
) -> Result<(), ExitCode> {
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        polling.task.abort();
        return Err(fail(EXIT_FAILURE, "cannot install signal handlers"));
    };
    let deadline = duration.map(|d| tokio::time::Instant::now() + d);
    loop {
        let until_deadline = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = until_deadline => break,
            ev = polling.events.recv() => match ev {
                Some(ev) => {
                    if let SourceEvent::Disconnected { error, retry_in_ms, .. } = &ev {
                        eprintln!("innodebt: disconnected ({error}); retrying in {retry_in_ms} ms — the gap is marked in the capture");
                    }
                    each(ev);
                }
                None => break,
            },
        }
    }
    polling.task.abort();
    Ok(())
}

/// `innodebt record DIR --trigger KIND…`: polls as usual, derives every sample, and writes a
/// capture only around incidents (see `trigger`).
pub(super) async fn triggered(config: &Config, r: &Record, t: &Triggered) -> ExitCode {
    use crate::trigger::files::{IncidentOptions, Incidents};
    let (dir, duration) = (&r.path, r.duration);
    let cfg = poller_config(config, &r.connection);
    let shown: Vec<String> = t.triggers.iter().map(ToString::to_string).collect();
    let report: crate::trigger::files::Report = Arc::new(|line| eprintln!("innodebt: {line}"));
    let incident_opts = IncidentOptions {
        dir: dir.clone(),
        watch: t.watch,
        budget: innodebt_capture::disk_budget::Budget::new(dir.clone(), None, t.max_disk),
        exec: t.exec.clone(),
        exec_timeout: t.exec_timeout,
        keep_queries: config.record_queries,
        interval_ms: u64::try_from(cfg.interval.as_millis()).ok(),
        target: None,
    };
    let writer = match crate::trigger::files::start_writer() {
        Ok(w) => w,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    // The directory first: a bad path is a usage error before any connection.
    let triggers = t.triggers.clone();
    let mut incidents = match Incidents::new(incident_opts, triggers, report, Arc::clone(&writer)) {
        Ok(i) => i,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let session = match first_session(&r.connection, &cfg).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut deriver = config.judging.deriver();
    let polling = spawn_poller(session, r.connection.clone(), cfg);
    let w = t.watch;
    eprintln!(
        "innodebt: watching for {} — incidents go to {} ({} before, {} after, cooldown {}, at most {}) — stop with Ctrl-C or SIGTERM{}",
        shown.join(", "),
        dir.display(),
        innodebt_engine::units::duration(w.before.as_secs()),
        innodebt_engine::units::duration(w.after.as_secs()),
        innodebt_engine::units::duration(w.cooldown.as_secs()),
        innodebt_engine::units::bytes(t.max_disk),
        until(duration)
    );
    let polled = poll_until_stopped(polling, duration, |ev| {
        let figures = deriver.push(&ev);
        incidents.push(&ev, figures.as_ref());
    })
    .await;
    let files = tokio::task::spawn_blocking(move || {
        let files = incidents.finish();
        if let Err(e) = writer.finish() {
            eprintln!("innodebt: finishing the incident files: {e}");
        }
        files
    })
    .await
    .unwrap_or_default();
    if let Err(code) = polled {
        return code;
    }
    eprintln!(
        "innodebt: {} incident file(s) written to {}",
        files.len(),
        dir.display()
    );
    ExitCode::SUCCESS
}
