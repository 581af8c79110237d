//! `innodebt import prometheus` and `import dolphie`. Prometheus's window is read a chunk at a
//! time and each chunk written as it arrives (memory follows one chunk, not the window); a
//! Dolphie file is read a row at a time, its events waiting in a temporary file until the
//! header is known (memory follows one row, not the file). Either capture is written to a temporary file beside the output
//! and renamed into place once finished, so a failed import leaves nothing behind.

use std::path::Path;
use std::process::ExitCode;

use chrono::{DateTime, Utc};

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::cli::{ImportSource, TimeSpec};
use innodebt_capture::prometheus::{self, Auth, Request};
use innodebt_capture::spill::SpilledEvents;

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
        timeout: innodebt_capture::prometheus::api::REQUEST_TIMEOUT,
    };
    let tmp = match temp_beside(output) {
        Ok(t) => t,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    let partial = tmp.path().join("capture.idbt");
    let streamed = match stream(&req, &partial).await {
        Ok(x) => x,
        Err((code, e)) => return fail(code, e),
    };
    match move_into_place(&partial, output) {
        Ok(()) => {
            let (samples, note) = streamed;
            eprintln!(
                "innodebt: imported {samples} samples of {instance} from {url} into {} ({note})",
                output.display(),
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

pub(super) fn dolphie(file: &Path, output: &Path) -> ExitCode {
    if output.exists() {
        return fail(
            EXIT_CONFIG,
            format!(
                "{} already exists: choose another file name",
                output.display()
            ),
        );
    }
    let imported = match innodebt_capture::dolphie::import(file) {
        Ok(x) => x,
        Err(e @ innodebt_capture::dolphie::DolphieError::Scratch(_)) => {
            return fail(EXIT_FAILURE, e);
        }
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let (samples, changes) = (imported.samples, imported.notes.len());
    let summary = imported.header.notes.first().cloned().unwrap_or_default();
    match write(
        output,
        &imported.header,
        imported.events,
        imported.first_sample,
        &imported.notes,
    ) {
        Ok(()) => {
            eprintln!(
                "innodebt: imported {samples} samples and {changes} runtime change(s) from {} into {} ({summary})",
                file.display(),
                output.display(),
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// Writes the capture beside `output` under a temporary name and renames it into place when
/// finished: half a capture is worse than none (it would replay as if the source ended
/// early), and a failure at any point leaves nothing behind. `notes` (runtime changes) go in
/// at their moments among the events.
fn write(
    output: &Path,
    header: &innodebt_capture::Header,
    events: SpilledEvents,
    first_sample: DateTime<Utc>,
    notes: &[innodebt_capture::Note],
) -> Result<(), String> {
    let tmp = temp_beside(output)?;
    let partial = tmp.path().join("capture.idbt");
    write_capture(&partial, header, events, first_sample, notes)?;
    move_into_place(&partial, output)
    // `tmp` goes with whatever is left in it.
}

/// A temporary directory beside `output` (same file system, so the rename is atomic); it is
/// removed with whatever is left in it when dropped.
fn temp_beside(output: &Path) -> Result<tempfile::TempDir, String> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".innodebt-import-")
        .tempdir_in(dir)
        .map_err(|e| {
            format!(
                "{}: cannot write there: {e} (check the directory exists and is writable)",
                dir.display()
            )
        })
}

fn move_into_place(partial: &Path, output: &Path) -> Result<(), String> {
    if output.exists() {
        return Err(format!(
            "{} appeared while importing: choose another file name",
            output.display()
        ));
    }
    std::fs::rename(partial, output).map_err(|e| {
        format!(
            "{}: cannot move the finished capture into place: {e}",
            output.display()
        )
    })
}

fn write_capture(
    output: &Path,
    header: &innodebt_capture::Header,
    events: SpilledEvents,
    first_sample: DateTime<Utc>,
    notes: &[innodebt_capture::Note],
) -> Result<(), String> {
    let io = |e: innodebt_capture::CaptureError| e.to_string();
    let mut writer =
        crate::replay::create_writer(output, header, Default::default()).map_err(io)?;
    let mut pending = notes.iter().peekable();
    for ev in events {
        let ev = ev.map_err(|e| {
            format!("cannot read back the imported events from their temporary file: {e} (check that $TMPDIR has room)")
        })?;
        while let Some(n) = pending.next_if(|n| n.at <= ev.at()) {
            writer.add_note(n).map_err(io)?;
        }
        writer.append(&ev).map_err(io)?;
    }
    for n in pending {
        writer.add_note(n).map_err(io)?;
    }
    writer.finish().map_err(io)?;
    // The same note as a bookmark at the first sample: on the timeline, and in the JSON of
    // `export` and `--once` there, where a reader of figures looks for what is unknown.
    match header.notes.first() {
        Some(note) => innodebt_capture::notes::append_note(
            output,
            &innodebt_capture::Note::new(first_sample, note),
        )
        .map_err(io),
        None => Ok(()),
    }
}

/// Reads the window a chunk at a time and appends each chunk's events as it arrives: the
/// capture is made while Prometheus answers, and memory follows one chunk, not the window.
/// Its samples and its first note; or the exit code and the message.
async fn stream(req: &Request, output: &Path) -> Result<(usize, String), (u8, String)> {
    let config = |e: prometheus::PromError| (EXIT_CONFIG, e.to_string());
    let io = |e: innodebt_capture::CaptureError| (EXIT_FAILURE, e.to_string());
    let mut imp = prometheus::Import::open(req).await.map_err(config)?;
    let mut writer: Option<innodebt_capture::CaptureWriter> = None;
    let mut header: Option<innodebt_capture::Header> = None;
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
        innodebt_capture::notes::append_note(output, &innodebt_capture::Note::new(first, &text))
            .map_err(io)?;
    }
    Ok((imp.samples(), note))
}
