//! `innodebt import prometheus`: the window is read whole before the capture file is made, and
//! a file that could not be finished is removed, so a failed import leaves nothing behind.

use std::path::Path;
use std::process::ExitCode;

use chrono::{DateTime, Utc};

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::capture::prometheus::{self, Auth, Request};
use crate::cli::{ImportSource, TimeSpec};
use crate::sample::SourceEvent;

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
    let (header, events) = match prometheus::import(&req).await {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let samples = events.iter().filter(|e| e.as_sample().is_some()).count();
    match write(output, &header, &events) {
        Ok(()) => {
            eprintln!(
                "innodebt: imported {samples} samples of {instance} from {url} into {} ({})",
                output.display(),
                header.notes.first().map(String::as_str).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            // Half a capture is worse than none: it would replay as if the window ended early.
            let _ = std::fs::remove_file(output);
            fail(EXIT_FAILURE, e)
        }
    }
}

fn write(
    output: &Path,
    header: &crate::capture::Header,
    events: &[SourceEvent],
) -> Result<(), crate::capture::CaptureError> {
    let mut writer = crate::replay::create_writer(output, header, Default::default())?;
    for ev in events {
        writer.append(ev)?;
    }
    writer.finish()?;
    // The same note as a bookmark at the first sample: on the timeline, and in the JSON of
    // `export` and `--once` there, where a reader of figures looks for what is unknown.
    match (
        header.notes.first(),
        events.iter().find_map(SourceEvent::as_sample),
    ) {
        (Some(note), Some(first)) => crate::capture::notes::append_note(
            output,
            &crate::capture::Note::new(first.taken_at, note),
        ),
        _ => Ok(()),
    }
}
