//! Replay modes: a capture file or a pt-stalk directory in the dashboard, one moment as
//! headless JSON (`--once --at`), the built-in demo, and the import/export conversions.

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use super::live::print_figures;
use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::app::{App, Recording, Replay};
use crate::cli::{Cli, ExportFormat, TimeSpec};
use crate::replay::CaptureSet;
use innodebt_capture as capture;

/// The demo: a real capture recorded by innodebt from MariaDB under write load, with a long
/// transaction blocking purge and checkpoint age past the async point.
const DEMO: &[u8] = include_bytes!("../../demo/mariadb-10.11-blocker.idbt");

/// A capture file, a directory of captures or a pt-stalk directory, through its index.
fn open(cli: &Cli, path: &Path) -> Result<CaptureSet, String> {
    crate::replay::open_replay(path, super::recovery_model(cli))
        .map(|s| s.with_sizing_span(cli.options.sizing_span))
}

/// A `--from/--to/--at` time → a sample index.
fn index_of(set: &mut CaptureSet, spec: TimeSpec) -> u64 {
    set.index_of(spec)
}

pub(super) async fn main(
    cli: &Cli,
    path: &Path,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
    at: Option<TimeSpec>,
) -> ExitCode {
    match open(cli, path) {
        Ok(set) => replay_set(cli, set, from, to, at).await,
        Err(e) => fail(EXIT_CONFIG, e),
    }
}

pub(super) async fn demo(cli: &Cli) -> ExitCode {
    let name = "demo (MariaDB 10.11, purge blocked)";
    match CaptureSet::from_bytes(DEMO, name, super::recovery_model(cli))
        .map(|s| s.with_sizing_span(cli.options.sizing_span))
    {
        Ok(set) => replay_set(cli, set, None, None, None).await,
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

async fn replay_set(
    cli: &Cli,
    mut set: CaptureSet,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
    at: Option<TimeSpec>,
) -> ExitCode {
    if set.is_empty() {
        let why = set.note().unwrap_or_default();
        return fail(
            EXIT_CONFIG,
            format!("{}: no samples to replay. {why}", set.name()),
        );
    }
    if cli.options.once {
        let pos = at.map(|t| index_of(&mut set, t)).unwrap_or(set.len() - 1);
        return once_at(&mut set, pos, cli);
    }
    let first = from.map(|t| index_of(&mut set, t)).unwrap_or(0);
    let last = to.map(|t| index_of(&mut set, t)).unwrap_or(u64::MAX);
    show(cli, set, first, last).await
}

/// The dashboard over a recording, with a what-if drawn on the checkpoint-age chart.
pub(super) async fn show_what_if(
    cli: &Cli,
    set: CaptureSet,
    first: u64,
    last: u64,
    report: innodebt_engine::verdicts::whatif::WhatIfReport,
) -> ExitCode {
    show_with(cli, set, first, last, Some(report)).await
}

/// The dashboard over a recording.
async fn show(cli: &Cli, set: CaptureSet, first: u64, last: u64) -> ExitCode {
    show_with(cli, set, first, last, None).await
}

async fn show_with(
    cli: &Cli,
    mut set: CaptureSet,
    first: u64,
    last: u64,
    what_if: Option<innodebt_engine::verdicts::whatif::WhatIfReport>,
) -> ExitCode {
    let theme = match super::theme(cli) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let interval = recording_interval(&mut set);
    let mut replay = Replay::new(Recording::new(set), first, last);
    replay.what_if = what_if;
    let app = App::replaying(replay, interval);
    crate::mode::run_without_source(app, theme).await
}

/// The typical gap between samples, for the header.
fn recording_interval(set: &mut CaptureSet) -> Duration {
    match (set.sample_time(0), set.sample_time(1)) {
        (Some(a), Some(b)) if b > a => {
            Duration::from_millis(u64::try_from((b - a).num_milliseconds()).unwrap_or(1000))
        }
        _ => Duration::from_secs(1),
    }
}

/// The headless JSON of one recorded moment: the figures a replay from the start shows at
/// that sample (rebuilt from the nearest stored state) — the same contract as live `--once`.
fn once_at(set: &mut CaptureSet, pos: u64, cli: &Cli) -> ExitCode {
    match set.view_at(pos, false) {
        Ok((view, _)) => match view.latest {
            Some(f) => {
                let notes = notes_in(set, pos, pos);
                print_once(&f, &notes, None, cli.options.format);
                ExitCode::SUCCESS
            }
            None => fail(
                EXIT_FAILURE,
                "no figures at that moment (the capture holds no server description before it)",
            ),
        },
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

pub(super) fn import_pt_stalk(dir: &Path, prefix: Option<&str>, output: &Path) -> ExitCode {
    let (header, events) = match capture::import_dir(dir, prefix) {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let mut writer = match crate::replay::create_writer(output, &header, Default::default()) {
        Ok(w) => w,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    for ev in &events {
        if let Err(e) = writer.append(ev) {
            return fail(EXIT_FAILURE, e);
        }
    }
    match writer.finish() {
        Ok(s) => {
            eprintln!(
                "innodebt: imported {} events from {} into {}",
                s.records,
                dir.display(),
                s.path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

pub(super) fn export(
    cli: &Cli,
    file: &Path,
    format: ExportFormat,
    output: Option<&Path>,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
) -> ExitCode {
    let mut set = match open(cli, file) {
        Ok(s) => s,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    if set.is_empty() {
        return fail(EXIT_CONFIG, format!("{}: no samples to export", set.name()));
    }
    let first = from.map(|t| index_of(&mut set, t)).unwrap_or(0);
    let last = to.map(|t| index_of(&mut set, t)).unwrap_or(u64::MAX);
    let notes = notes_in(&mut set, first, last);
    let mut write = |out: &mut dyn std::io::Write| {
        let figures = set.figures(first, last);
        match format {
            ExportFormat::Csv => crate::export::export_csv_figures(figures, &notes, out),
            ExportFormat::Json => crate::export::export_json_figures(figures, &notes, out),
            ExportFormat::Openmetrics => crate::openmetrics::export_figures(figures, out),
        }
    };
    let result = match output {
        // 0600 like the capture it comes from (an existing file keeps its own mode).
        Some(out) => std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(out)
            .map_err(|e| format!("{}: cannot create: {e}", out.display()))
            .and_then(|f| {
                write(&mut std::io::BufWriter::new(f))
                    .map_err(|e| format!("{}: {e}", out.display()))
            }),
        None => write(&mut std::io::stdout().lock()).map_err(|e| format!("writing: {e}")),
    };
    if let Some(n) = set.note() {
        eprintln!("innodebt: note: {n}");
    }
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// One recorded moment's figures, with the bookmarks riding on its sample (as `export`
/// carries them) and, for `--what-if`, its report: JSON `notes` and `what_if`, or text lines.
pub(super) fn print_once(
    f: &innodebt_engine::figures::Figures,
    notes: &[capture::Note],
    what_if: Option<&innodebt_engine::verdicts::whatif::WhatIfReport>,
    format: crate::cli::OutputFormat,
) {
    if notes.is_empty() && what_if.is_none() {
        return print_figures(f, format);
    }
    match format {
        crate::cli::OutputFormat::Json => {
            let mut v = crate::output::json_value(f).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                if !notes.is_empty() {
                    o.insert(
                        "notes".into(),
                        serde_json::to_value(notes).unwrap_or_default(),
                    );
                }
                if let Some(w) = what_if {
                    o.insert(
                        "what_if".into(),
                        serde_json::to_value(w).unwrap_or_default(),
                    );
                }
            }
            crate::mode::emit(&format!("{}\n", crate::output::json_of(&v)));
        }
        crate::cli::OutputFormat::Text => {
            let mut out = crate::output::text(f);
            for n in notes {
                // A note is typed text: no terminal controls from it.
                out.push_str(&format!(
                    "note {}: {}\n",
                    n.at.format("%H:%M:%S"),
                    crate::text::strip_controls(&n.text)
                ));
            }
            if let Some(w) = what_if {
                out.push_str(&crate::review::text::what_if(w));
            }
            crate::mode::emit(&out);
        }
    }
}

/// The bookmarks an export of samples `first..=last` carries (a note rides on the sample at
/// or after it): after the sample before the first, up to the last — or to the end when the
/// last is the capture's.
pub(super) fn notes_in(
    set: &mut crate::replay::CaptureSet,
    first: u64,
    last: u64,
) -> Vec<capture::Note> {
    let after = first.checked_sub(1).and_then(|p| set.sample_time(p));
    let more = last.checked_add(1).is_some_and(|n| n < set.len());
    let until = if more { set.sample_time(last) } else { None };
    set.bookmarks()
        .into_iter()
        .filter(|n| after.is_none_or(|a| n.at > a) && until.is_none_or(|u| n.at <= u))
        .collect()
}

pub(super) fn calibrate(error_log: &Path) -> ExitCode {
    let text = match std::fs::read(error_log) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return fail(
                EXIT_CONFIG,
                format!("{}: cannot read: {e}", error_log.display()),
            );
        }
    };
    match innodebt_engine::verdicts::recovery::calibrate_from_error_log(&text) {
        Ok(c) => {
            println!(
                "{} crash recovery: {} of redo (checkpoint LSN {} → {}) applied in {:.0} s{}",
                c.server,
                innodebt_engine::units::bytes(c.redo_bytes),
                c.checkpoint_lsn,
                c.end_lsn,
                c.seconds,
                c.pages
                    .map(|p| format!(", {p} pages, {} batch(es)", c.batches))
                    .unwrap_or_default(),
            );
            println!(
                "redo apply rate: {}/s{} — use it with --recovery-rate {}",
                innodebt_engine::units::bytes(c.rate_bytes_per_s as u64),
                if c.coarse {
                    " (a rough lower bound: the recovery took only a few seconds)"
                } else {
                    ""
                },
                c.rate_bytes_per_s as u64
            );
            println!(
                "innodebt reads the same lines by itself at connect (the @@log_error file when it \
                 runs on the database host; performance_schema.error_log on MySQL 8.0.22+) and \
                 then says \"calibrated from this server's recovery of {}\" by its estimate",
                c.started_at.format("%Y-%m-%d")
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_CONFIG, format!("{}: {e}", error_log.display())),
    }
}
