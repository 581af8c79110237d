//! `innodebt import prometheus`: the window is read a chunk at a time and each chunk written as
//! it arrives; a file that could not be finished is removed, so a failed import leaves nothing
//! behind.

use std::path::Path;
use std::process::ExitCode;

use chrono::{DateTime, Utc};

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::capture::prometheus::{self, Auth, Request};
use crate::cli::{ImportSource, TimeSpec};

/// `--from`/`--to` as instants: RFC 3339 as given, HH:MM:SS today in UTC, `+DUR` after --from.
fn resolve(
    spec: TimeSpec,
    from: Option<DateTime<Utc>>,
    flag: &str,
) -> Result<DateTime<Utc>, String> {
    match (spec, from) {
        (TimeSpec::Instant(t), _) => Ok(t.with_timezone(&Utc)),
        (TimeSpec::Clock(t), _) => Ok(Utc::now().date_naive().and_time(t).and_utc()),
        (TimeSpec::Offset(d), Some(from)) => chrono::Duration::from_std(d)
            .map(|d| from + d)
            .map_err(|_| format!("{flag}: the offset is too large")),
        (TimeSpec::Offset(_), None) => Err(format!(
            "{flag} cannot be +DURATION (only --to counts from --from): give a time such as 2026-01-31T02:00:00Z"
        )),
    }
}

pub(super) async fn prometheus(source: &ImportSource) -> ExitCode {
    let ImportSource::Prometheus {
        url,
        instance,
        job,
        matchers,
        from,
        to,
        step,
        basic_auth_file,
        bearer_token_file,
        ca_file,
        output,
    } = source
    else {
        return fail(
            EXIT_FAILURE,
            "not a Prometheus import (please report this as a bug)",
        );
    };
    let from = match resolve(*from, None, "--from") {
        Ok(t) => t,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let to = match resolve(*to, Some(from), "--to") {
        Ok(t) => t,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    if output.exists() {
        return fail(
            EXIT_CONFIG,
            format!(
                "{} already exists: choose another file name",
                output.display()
            ),
        );
    }
    let req = Request {
        url: url.clone(),
        instance: instance.clone(),
        job: job.clone(),
        matchers: matchers.clone(),
        from,
        to,
        step: *step,
        auth: Auth {
            basic_file: basic_auth_file.clone(),
            bearer_file: bearer_token_file.clone(),
            ca_file: ca_file.clone(),
        },
    };
    match stream(&req, output).await {
        Ok((samples, note)) => {
            eprintln!(
                "innodebt: imported {samples} samples of {instance} from {url} into {} ({note})",
                output.display(),
            );
            ExitCode::SUCCESS
        }
        Err((code, e)) => {
            // Half a capture is worse than none: it would replay as if the window ended early.
            let _ = std::fs::remove_file(output);
            fail(code, e)
        }
    }
}

/// Reads the window a chunk at a time and appends each chunk's events as it arrives: the
/// capture is made while Prometheus answers, and memory follows one chunk, not the window.
/// Its samples and its first note; or the exit code and the message.
async fn stream(req: &Request, output: &Path) -> Result<(usize, String), (u8, String)> {
    let config = |e: prometheus::PromError| (EXIT_CONFIG, e.to_string());
    let io = |e: crate::capture::CaptureError| (EXIT_FAILURE, e.to_string());
    let mut imp = prometheus::Import::open(req).await.map_err(config)?;
    let mut writer: Option<crate::capture::CaptureWriter> = None;
    let mut header: Option<crate::capture::Header> = None;
    let mut first_sample = None;
    while let Some(events) = imp.next_chunk().await.map_err(config)? {
        for ev in &events {
            if writer.is_none() {
                let h = imp.header(ev.at());
                writer =
                    Some(crate::replay::create_writer(output, &h, Default::default()).map_err(io)?);
                header = Some(h);
            }
            if first_sample.is_none() {
                first_sample = ev.as_sample().map(|s| s.taken_at);
            }
            if let Some(w) = writer.as_mut() {
                w.append(ev).map_err(io)?;
            }
        }
    }
    let (Some(writer), Some(header), Some(first)) = (writer, header, first_sample) else {
        return Err(config(imp.no_samples().await));
    };
    writer.finish().map_err(io)?;
    // The header's note as a bookmark at the first sample: on the timeline, and in the JSON
    // of `export` and `--once` there, where a reader of figures looks for what is unknown;
    // then what only the window's end knows (restarts).
    let note = header.notes.first().cloned().unwrap_or_default();
    for text in std::iter::once(note.clone()).chain(imp.closing_note()) {
        crate::capture::notes::append_note(output, &crate::capture::Note::new(first, &text))
            .map_err(io)?;
    }
    Ok((imp.samples(), note))
}
