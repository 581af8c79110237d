//! Replay modes: a capture file or a pt-stalk directory in the dashboard, one moment as
//! headless JSON (`--once --at`), the built-in demo, and the import/export conversions.

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use super::live::print_figures;
use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::app::{App, Recording, Replay};
use crate::cli::{ExportFormat, TimeSpec};
use crate::config::{self, Config, Output};
use crate::postmortem::CaptureWindow;
use crate::replay::{CaptureSet, Ends};
use innodebt_capture as capture;

/// The demo: a real capture recorded by innodebt from MariaDB under write load, with a long
/// transaction blocking purge and checkpoint age past the async point.
const DEMO: &[u8] = include_bytes!("../../demo/mariadb-10.11-blocker.idbt");

pub(super) async fn main(config: &Config, r: &config::Replay) -> ExitCode {
    match super::open_capture(config, &r.path) {
        Ok(set) => replay_set(config, set, r.output, (r.from, r.to, r.at), REPLAY_INSTEAD).await,
        Err(e) => fail(EXIT_CONFIG, e),
    }
}

/// What a replay without a terminal can do instead of its screen.
const REPLAY_INSTEAD: &str = "for one moment use `replay FILE --once --at TIME` (text, or \
     --format json), and for every sample `innodebt export FILE`";
const DEMO_INSTEAD: &str = "for the demo's last moment use `innodebt --demo --once` (text, \
     or --format json)";
const WHAT_IF_INSTEAD: &str = "for the what-if summary give --format text (or json), and for \
     one moment with it --once";

pub(super) async fn demo(config: &Config, output: Output) -> ExitCode {
    let name = "demo (MariaDB 10.11, purge blocked)";
    let j = &config.judging;
    match CaptureSet::from_bytes(DEMO, name, j.recovery.clone())
        .map(|s| s.with_sizing_span(j.sizing_span))
    {
        Ok(set) => replay_set(config, set, output, (None, None, None), DEMO_INSTEAD).await,
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// `--from`, `--to` and `--at`.
type Times = (Option<TimeSpec>, Option<TimeSpec>, Option<TimeSpec>);

async fn replay_set(
    config: &Config,
    mut set: CaptureSet,
    output: Output,
    (from, to, at): Times,
    instead: &str,
) -> ExitCode {
    if set.is_empty() {
        let why = set.note().unwrap_or_default();
        return fail(
            EXIT_CONFIG,
            format!("{}: no samples to replay. {why}", set.name()),
        );
    }
    let w = match CaptureWindow::resolve(&mut set, from, to, Ends::OPTIONS) {
        Ok(w) => w,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    if output.once {
        let pos = match at.map(|t| set.resolve(t, "--at")).transpose() {
            Ok(pos) => pos.unwrap_or(set.len() - 1),
            Err(e) => return fail(EXIT_CONFIG, e),
        };
        return once_at(&mut set, pos, output.format());
    }
    show_with(config, set, w.first, w.last, None, instead).await
}

/// The dashboard over a recording, with a what-if drawn on the checkpoint-age chart.
pub(super) async fn show_what_if(
    config: &Config,
    set: CaptureSet,
    first: u64,
    last: u64,
    report: innodebt_engine::verdicts::whatif::WhatIfReport,
) -> ExitCode {
    show_with(config, set, first, last, Some(report), WHAT_IF_INSTEAD).await
}

/// The dashboard over a recording; `instead` says what works without a terminal.
async fn show_with(
    config: &Config,
    mut set: CaptureSet,
    first: u64,
    last: u64,
    what_if: Option<innodebt_engine::verdicts::whatif::WhatIfReport>,
    instead: &str,
) -> ExitCode {
    if let Err(code) = crate::mode::need_terminal(instead) {
        return code;
    }
    let theme = match config.look.theme() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let interval = recording_interval(&mut set);
    let mut replay = Replay::new(Recording::new(set), first, last);
    replay.what_if = what_if;
    let app = App::replaying(replay, interval);
    crate::dashboard::run_without_source(app, theme).await
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
fn once_at(set: &mut CaptureSet, pos: u64, format: crate::cli::OutputFormat) -> ExitCode {
    match set.view_at(pos, false) {
        Ok((view, _)) => match view.latest {
            Some(f) => {
                let notes = notes_in(set, pos, pos);
                print_once(&f, &notes, &report_notes(set), None, format)
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

pub(super) fn export(config: &Config, e: &config::Export) -> ExitCode {
    let (format, output, from, to) = (e.format, e.output.as_deref(), e.from, e.to);
    let mut set = match super::open_capture(config, &e.file) {
        Ok(s) => s,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    if set.is_empty() {
        return fail(EXIT_CONFIG, format!("{}: no samples to export", set.name()));
    }
    let (first, last) = match CaptureWindow::resolve(&mut set, from, to, Ends::OPTIONS) {
        Ok(w) => (w.first, w.last),
        Err(e) => return fail(EXIT_CONFIG, e),
    };
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
                let name = out.display().to_string();
                crate::mode::write_to(std::io::BufWriter::new(f), &name, |w| write(w).map(drop))
            }),
        // A reader that stops early (`| head`) ends it quietly; a full disk does not.
        None => crate::mode::to_stdout(|w| write(w).map(drop)),
    };
    report_notes(&set);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// What the reader found wrong with the capture (damage and what it cost, cut files), on
/// stderr, one line each: the words every reader of a capture prints. Returned for the JSON.
pub(super) fn report_notes(set: &CaptureSet) -> Vec<String> {
    let notes = set.notes();
    for n in &notes {
        eprintln!("innodebt: note: {}", crate::text::strip_controls(n));
    }
    notes
}

/// One recorded moment's figures, with the bookmarks riding on its sample (as `export`
/// carries them), what the reader found wrong with the capture and, for `--what-if`, its
/// report: JSON `notes`, `capture_notes` and `what_if`, or text lines.
pub(super) fn print_once(
    f: &innodebt_engine::figures::Figures,
    notes: &[capture::Note],
    capture_notes: &[String],
    what_if: Option<&innodebt_engine::verdicts::whatif::WhatIfReport>,
    format: crate::cli::OutputFormat,
) -> ExitCode {
    if notes.is_empty() && capture_notes.is_empty() && what_if.is_none() {
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
                if !capture_notes.is_empty() {
                    o.insert(
                        "capture_notes".into(),
                        serde_json::to_value(capture_notes).unwrap_or_default(),
                    );
                }
                if let Some(w) = what_if {
                    o.insert(
                        "what_if".into(),
                        serde_json::to_value(w).unwrap_or_default(),
                    );
                }
            }
            crate::mode::emit(&format!("{}\n", crate::output::json_of(&v)))
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
                out.push_str(&crate::postmortem::text::what_if(w));
            }
            crate::mode::emit(&out)
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
    use innodebt_engine::verdicts::recovery::{RateOrigin, RecoveryLog, RecoveryModel};
    let text = match std::fs::read(error_log) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return fail(
                EXIT_CONFIG,
                format!("{}: cannot read: {e}", error_log.display()),
            );
        }
    };
    let log = RecoveryLog::parsed(error_log.display().to_string(), &text);
    let last = match &log.found {
        Ok(c) => c,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    // The flavour's default, as at connect, from the version the log's start line gives.
    let (default, series) = match last.version.as_deref() {
        Some(v) => {
            let flavor = innodebt_server::flavor::Flavor::detect(v, "", false);
            (flavor.recovery_default(), flavor.series())
        }
        None => (
            innodebt_server::flavor::MYSQL_57_RECOVERY,
            format!("{} of unknown version (no start line)", last.server),
        ),
    };
    // The model's own choice and numbers: what innodebt says by its estimate.
    let model = RecoveryModel::from_log(&log, &default, &series);
    // Those passed over are newer than the one that calibrates.
    let passed = model
        .passed_over
        .iter()
        .map(|p| (&p.recovery, format!("passed over: {}", p.why)));
    let used = model
        .calibration
        .iter()
        .map(|e| (e, "calibrates".to_string()));
    println!("crash recoveries in {}, newest first:", error_log.display());
    for (e, said) in passed.chain(used) {
        println!("  {} — {said}", evidence_words(e, &last.server));
    }
    println!("estimate: {}", model.rate_source);
    if model.origin != RateOrigin::Calibrated {
        return fail(
            EXIT_CONFIG,
            format!(
                "no rate for --recovery-rate: {}",
                model.not_calibrated.as_deref().unwrap_or("not calibrated")
            ),
        );
    }
    println!(
        "redo apply rate {:.1} MB/s after {:.2} s of start-up — --recovery-rate {} gives the \
         rate (without the start-up)",
        model.rate_bytes_per_s / 1e6,
        model.startup_s,
        model.rate_bytes_per_s as u64
    );
    println!(
        "innodebt reads the same lines by itself at connect (the @@log_error file when it runs \
         on the database host; performance_schema.error_log on MySQL 8.0.22+) and says the same \
         by its estimate"
    );
    ExitCode::SUCCESS
}

/// One recovery's evidence on a line: "2026-11-21 20:37:20 MariaDB: 53.6 MB of redo (checkpoint
/// LSN 572420596 → 626061190), at least 1603 pages, 1 batch(es); redo application 1 s by the
/// log (0.00–2.00 s), restart 2 s by the log".
fn evidence_words(e: &innodebt_engine::figures::RecoveryEvidence, server: &str) -> String {
    let whole = e.timestamp_resolution_s >= 1.0;
    let secs = |s: f64| {
        if whole {
            format!("{s:.0} s")
        } else {
            format!("{s:.2} s")
        }
    };
    let pages = e
        .pages_at_least
        .map(|p| {
            format!(
                ", at least {p} pages (the most \"To recover: N pages\" said: it counts what is \
                 left of a batch)"
            )
        })
        .unwrap_or_default();
    let restart = match (e.restart_host_s, e.restart_logged_s) {
        (Some(h), _) => format!(", restart {h:.2} s by the host (process start to pid file)"),
        (None, Some(l)) => format!(", restart {} by the log", secs(l)),
        (None, None) => String::new(),
    };
    format!(
        "{} {server}: {} of redo (checkpoint LSN {} → {}){pages}, {} batch(es); redo application \
         {} by the log ({:.2}–{:.2} s){restart}",
        e.started_at.format("%Y-%m-%d %H:%M:%S"),
        innodebt_server::error_log::size_words(e.redo_bytes),
        e.checkpoint_lsn,
        e.end_lsn,
        e.batches,
        secs(e.logged_s),
        e.redo_s.0,
        e.redo_s.1,
    )
}
