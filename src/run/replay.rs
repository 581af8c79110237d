//! Replay modes: a capture file or a pt-stalk directory in the dashboard, one moment as
//! headless JSON (`--once --at`), the built-in demo, and the import/export conversions.

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use tokio::sync::mpsc;

use super::live::print_figures;
use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::app::{App, Msg, Recording, Replay, moments};
use crate::capture::{self, CaptureIndex, End};
use crate::cli::{Cli, TimeSpec};
use crate::metrics::Deriver;
use crate::sample::SourceEvent;
use crate::tui;

/// The demo: a real capture recorded by innodebt from MariaDB under write load, with a long
/// transaction blocking purge and checkpoint age past the async point.
const DEMO: &[u8] = include_bytes!("../../demo/mariadb-10.11-blocker.idbt");

/// A capture file or a pt-stalk directory, as events plus a note on how it ended.
pub(super) fn load(path: &Path) -> Result<(Vec<SourceEvent>, Option<String>), String> {
    if path.is_dir() {
        let (_header, events) = capture::import_dir(path, None).map_err(|e| e.to_string())?;
        return Ok((events, None));
    }
    let cap = capture::open(path).map_err(|e| e.to_string())?;
    Ok((cap.events, end_note(&cap.end)))
}

fn end_note(end: &End) -> Option<String> {
    match end {
        End::Complete => None,
        End::Truncated { reason, .. } => Some(reason.clone()),
    }
}

/// A `--from/--to/--at` time → a sample index.
fn index_of(rec: &Recording, spec: TimeSpec) -> usize {
    let start = rec.sample_time(0).map(|(t, _)| t).unwrap_or_default();
    let target = match spec {
        TimeSpec::Offset(d) => start + chrono::Duration::from_std(d).unwrap_or_default(),
        TimeSpec::Instant(t) => t.with_timezone(&chrono::Utc),
        TimeSpec::Clock(clock) => start.date_naive().and_time(clock).and_utc(),
    };
    rec.index_at(target)
}

pub(super) async fn main(
    cli: &Cli,
    path: &Path,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
    at: Option<TimeSpec>,
) -> ExitCode {
    let name = path.display().to_string();
    let whole_file_needed = from.is_some() || to.is_some() || at.is_some() || cli.options.once;
    if !path.is_dir() && !whole_file_needed {
        // Big captures: show the first section at once, stream the rest in.
        return match start_streaming(path) {
            Ok((first, loader)) => {
                let mut recording = Recording::new(first, name, None);
                recording.recovery = super::recovery_model(cli);
                show(cli, recording, Vec::new(), None, None, Some(loader)).await
            }
            Err(e) => fail(EXIT_CONFIG, e),
        };
    }
    let (events, note) = match load(path) {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    replay_events(cli, events, name, note, from, to, at).await
}

/// Opens a capture by its section index, returns the first section's events, and loads the
/// rest on a thread that sends them (then the notable moments) as messages.
fn start_streaming(path: &Path) -> Result<(Vec<SourceEvent>, mpsc::Receiver<Msg>), String> {
    let index = CaptureIndex::open(path).map_err(|e| e.to_string())?;
    let sections = index.frames().len();
    let first = match sections {
        0 => Vec::new(),
        _ => index.read_frame(0).map_err(|e| e.to_string())?.events,
    };
    let mut scanner = moments::Scanner::default();
    first.iter().for_each(|ev| scanner.feed(ev));
    let end_note = end_note(index.end());
    let (tx, rx) = mpsc::channel(8);
    std::thread::Builder::new()
        .name("capture-loader".into())
        .spawn(move || {
            let mut note = end_note;
            for i in 1..sections {
                let (events, damaged) = match index.read_frame(i) {
                    Ok(f) => (f.events, None),
                    Err(e) => (Vec::new(), Some(e.to_string())),
                };
                events.iter().for_each(|ev| scanner.feed(ev));
                let last = i + 1 == sections;
                let chunk_note = damaged.or_else(|| if last { note.take() } else { None });
                if tx
                    .blocking_send(Msg::ReplayChunk {
                        events,
                        end_note: chunk_note,
                    })
                    .is_err()
                {
                    return;
                }
            }
            if sections <= 1
                && let Some(n) = note.take()
            {
                let _ = tx.blocking_send(Msg::ReplayChunk {
                    events: Vec::new(),
                    end_note: Some(n),
                });
            }
            let _ = tx.blocking_send(Msg::ReplayMoments(scanner.finish()));
        })
        .map_err(|e| format!("cannot start the capture loader: {e}"))?;
    Ok((first, rx))
}

pub(super) async fn demo(cli: &Cli) -> ExitCode {
    let cap = match capture::reader::from_bytes(DEMO, Path::new("built-in demo")) {
        Ok(c) => c,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    let note = end_note(&cap.end);
    replay_events(
        cli,
        cap.events,
        "demo (MariaDB 10.11, purge blocked)".into(),
        note,
        None,
        None,
        None,
    )
    .await
}

async fn replay_events(
    cli: &Cli,
    events: Vec<SourceEvent>,
    name: String,
    note: Option<String>,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
    at: Option<TimeSpec>,
) -> ExitCode {
    let mut recording = Recording::new(events, name, note);
    recording.recovery = super::recovery_model(cli);
    if recording.is_empty() {
        let why = recording.end_note.clone().unwrap_or_default();
        return fail(
            EXIT_CONFIG,
            format!("{}: no samples to replay. {why}", recording.name),
        );
    }
    if cli.options.once {
        let pos = at
            .map(|t| index_of(&recording, t))
            .unwrap_or(recording.len() - 1);
        return once_at(&recording, pos, cli);
    }
    let first = from.map(|t| index_of(&recording, t));
    let last = to.map(|t| index_of(&recording, t));
    let found = moments::find(&recording.events);
    show(cli, recording, found, first, last, None).await
}

/// The dashboard over a recording (complete, or still streaming in from `loader`).
async fn show(
    cli: &Cli,
    recording: Recording,
    found: Vec<moments::Moment>,
    first: Option<usize>,
    last: Option<usize>,
    loader: Option<mpsc::Receiver<Msg>>,
) -> ExitCode {
    let theme = match super::theme(cli) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let interval = recording_interval(&recording);
    let end = recording.len().saturating_sub(1);
    let replay = Replay::new(recording, found, first.unwrap_or(0), last.unwrap_or(end));
    let app = App::replaying(replay, interval);
    // No live source: the app is fed by its own transport (and the loader).
    let (_tx, rx) = mpsc::channel(1);
    let wiring = tui::Wiring {
        control: None,
        events: rx,
        messages: loader,
        poller: None,
        recorder: None,
    };
    match tui::run(app, theme, wiring).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}

/// The typical gap between samples, for the header.
fn recording_interval(rec: &Recording) -> Duration {
    match (rec.sample_time(0), rec.sample_time(1)) {
        (Some((_, a)), Some((_, b))) if b > a => Duration::from_secs_f64(b - a),
        _ => Duration::from_secs(1),
    }
}

/// The headless JSON of one recorded moment: figures derived from the recorded samples up to
/// it, rates from the sample before it — the same contract as live `--once`.
fn once_at(rec: &Recording, pos: usize, cli: &Cli) -> ExitCode {
    let mut deriver = Deriver::with_recovery(rec.recovery.clone());
    let mut figures = None;
    let Some(&end) = rec.samples.get(pos) else {
        return fail(EXIT_CONFIG, "that time is outside the capture");
    };
    for ev in rec.events.iter().take(end + 1) {
        if let Some(f) = deriver.push(ev) {
            figures = Some(f);
        }
    }
    match figures {
        Some(f) => {
            print_figures(&f, cli.options.format);
            ExitCode::SUCCESS
        }
        None => fail(
            EXIT_FAILURE,
            "no figures at that moment (the capture holds no server description before it)",
        ),
    }
}

pub(super) fn import_pt_stalk(dir: &Path, prefix: Option<&str>, output: &Path) -> ExitCode {
    let (header, events) = match capture::import_dir(dir, prefix) {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let mut writer = match capture::CaptureWriter::create(output, &header) {
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

pub(super) fn export_csv(file: &Path, output: Option<&Path>) -> ExitCode {
    let (events, note) = match load(file) {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CONFIG, e),
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
                capture::export_csv(events.iter(), std::io::BufWriter::new(f))
                    .map_err(|e| format!("{}: {e}", out.display()))
            }),
        None => capture::export_csv(events.iter(), std::io::stdout().lock())
            .map_err(|e| format!("writing CSV: {e}")),
    };
    if let Some(n) = note {
        eprintln!("innodebt: note: {n}");
    }
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, e),
    }
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
    match crate::verdicts::recovery::calibrate_from_error_log(&text) {
        Ok(c) => {
            println!(
                "{} crash recovery: {} of redo (checkpoint LSN {} → {}) applied in {:.0} s{}",
                c.server,
                crate::output::bytes(c.redo_bytes),
                c.checkpoint_lsn,
                c.end_lsn,
                c.seconds,
                c.pages
                    .map(|p| format!(", {p} pages, {} batch(es)", c.batches))
                    .unwrap_or_default(),
            );
            println!(
                "redo apply rate: {}/s{} — use it with --recovery-rate {}",
                crate::output::bytes(c.rate_bytes_per_s as u64),
                if c.coarse {
                    " (a rough lower bound: the recovery took only a few seconds)"
                } else {
                    ""
                },
                c.rate_bytes_per_s as u64
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_CONFIG, format!("{}: {e}", error_log.display())),
    }
}
