//! `innodebt report`: reads the capture's window through the replay index (the figures a replay
//! shows), gathers the report, runs the what-ifs behind its advice and the baseline's
//! comparison, and writes the page — to a temporary file beside the output, renamed into place
//! once whole, so a failure leaves the old file (or none) and never half a page.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::cli::{ReportFormat, TimeSpec};
use crate::config::{self, Config};
use crate::postmortem::{self, CaptureWindow};
use crate::replay::{CaptureSet, Ends};
use crate::report::{self, Capture, Collector, Report};
use innodebt_engine::figures::VerdictKind;
use innodebt_engine::verdicts::RedoLayout;

/// Samples the advice is guessed from before the page's own pass (ten minutes at 1 s).
const GUESS_SAMPLES: u64 = 600;

/// What made the page; the version is the package's, the same for every build of it.
fn tool() -> String {
    format!("innodebt {}", env!("CARGO_PKG_VERSION"))
}

pub(super) fn main(config: &Config, args: &config::Report) -> ExitCode {
    let model = config.judging.recovery.clone();
    let open = |path: &Path| super::open_capture(config, path);
    let mut set = match open(&args.path) {
        Ok(s) => s,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let (first, last) = match window(&mut set, args.from, args.to) {
        Ok(w) => w,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let w = CaptureWindow { first, last };
    // The what-ifs re-judge the whole window with the advice's settings, which the page's own
    // pass ends with: two passes in a row. The advice is guessed from the window's first
    // samples, and the guess's what-ifs run beside the page's pass on the other core (a capture
    // opened again); they are used when the page's advice turns out the same, else run after.
    let guess_end = last.min(first.saturating_add(GUESS_SAMPLES));
    let guess = gather(&mut set, &args.path, first, guess_end)
        .map(|r| advised(&mut set, &r, guess_end))
        .unwrap_or_default();
    let (gathered, guessed_runs) = std::thread::scope(|scope| {
        let beside = (!guess.is_empty()).then(|| {
            let (guess, model) = (&guess, model.clone());
            scope.spawn(move || {
                let mut again = open(&args.path).ok()?;
                postmortem::what_ifs(&mut again, w, guess, model).ok()
            })
        });
        let gathered = gather(&mut set, &args.path, first, last);
        (gathered, beside.and_then(|h| h.join().ok().flatten()))
    });
    let mut report = match gathered {
        Ok(r) => r,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let advice = advised(&mut set, &report, last);
    let runs = match guessed_runs.filter(|_| advice == guess) {
        Some(runs) => Ok(runs),
        None if advice.is_empty() => Ok(Vec::new()),
        None => postmortem::what_ifs(&mut set, w, &advice, model.clone()),
    };
    match runs {
        Ok(runs) => {
            for (settings, run) in advice.iter().zip(runs) {
                match run {
                    Ok(r) => report.what_ifs.push(r),
                    Err(e) => {
                        eprintln!("innodebt: note: the what-if of {settings:?} did not run: {e}")
                    }
                }
            }
        }
        Err(e) => eprintln!("innodebt: note: the what-ifs did not run: {e}"),
    }
    if let Some(b) = &args.baseline {
        let mut base = match open(&b.path) {
            Ok(s) => s,
            Err(e) => return fail(EXIT_CONFIG, format!("--baseline: {e}")),
        };
        let bw = match CaptureWindow::resolve(&mut base, b.from, b.to, Ends::RANGE) {
            Ok(w) => w,
            Err(e) => return fail(EXIT_CONFIG, format!("--baseline: {e}")),
        };
        match postmortem::compare(&mut set, w, &mut base, bw) {
            Ok(c) => report.comparison = Some(c),
            Err(e) => return fail(EXIT_CONFIG, format!("--baseline: {e}")),
        }
    }
    // What the reader found wrong, as every reader of a capture says it (the page lists it
    // too, with a read that stopped early).
    let said = super::captures::report_notes(&set);
    for n in report.skipped.iter().filter(|n| !said.contains(n)) {
        eprintln!("innodebt: note: {}", crate::text::strip_controls(n));
    }
    let written = match args.format {
        ReportFormat::Html => write_all(&args.output, &[], &report::html(&report, &tool())),
        ReportFormat::Markdown => {
            let stem = args
                .output
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "report".into());
            let md = report::markdown(&report, &tool(), &stem);
            write_all(&args.output, &md.files, &md.text)
        }
    };
    match written {
        Ok(()) => {
            eprintln!(
                "innodebt: wrote {} ({} samples, {} → {})",
                args.output.display(),
                report.samples,
                report.from.format("%Y-%m-%d %H:%M:%S"),
                // Across midnight the end's date too (a day's window ends at the same clock).
                if report.to.date_naive() == report.from.date_naive() {
                    report.to.format("%H:%M:%S UTC")
                } else {
                    report.to.format("%Y-%m-%d %H:%M:%S UTC")
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// `--from`/`--to` → the samples `first..=last` of the window, resolved as every command
/// resolves them (a time outside the capture, or a range that ends before it starts, is an
/// error naming what the capture holds); a window no sample falls in (between two samples)
/// is an error too: the page would be about the sample after it.
fn window(
    set: &mut CaptureSet,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
) -> Result<(u64, u64), String> {
    if set.is_empty() {
        let why = set.note().map(|n| format!(" ({n})")).unwrap_or_default();
        return Err(format!("{}: no samples to report on{why}", set.name()));
    }
    let w = CaptureWindow::resolve(set, from, to, Ends::OPTIONS)?;
    let (Some(to_spec), Some(first_at)) = (to, set.sample_time(w.first)) else {
        return Ok((w.first, w.last));
    };
    match set.target_of(to_spec) {
        Some(to_t) if first_at > to_t => Err(format!(
            "the window is empty: no sample falls between {} and --to {} ({}); give a wider \
             window",
            from.map_or("the first sample".to_string(), |f| format!("--from {f}")),
            when(to_t),
            set.holds()
        )),
        _ => Ok((w.first, w.last)),
    }
}

/// A time as the messages give it: to the millisecond where it has a fraction.
fn when(t: chrono::DateTime<chrono::Utc>) -> String {
    if t.timestamp_subsec_millis() == 0 {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
    }
}

/// One pass over the window's figures, then what the capture knows beside them.
fn gather(set: &mut CaptureSet, path: &Path, first: u64, last: u64) -> Result<Report, String> {
    let (Some(start), Some(end)) = (set.sample_time(first), set.sample_time(last)) else {
        return Err(format!(
            "{}: the window's samples cannot be read",
            set.name()
        ));
    };
    let mut c = Collector::new(start, end);
    let mut read_error = None;
    for f in set.figures(first, last) {
        match f {
            Ok(f) => c.observe(f),
            Err(e) => {
                read_error = Some(format!("reading stopped early: {e}"));
                break;
            }
        }
    }
    if c.samples() == 0 {
        return Err(format!(
            "{}: no figures between {} and {} (the capture holds no server description there)",
            set.name(),
            start.format("%Y-%m-%d %H:%M:%S"),
            end.format("%H:%M:%S UTC")
        ));
    }
    let info = postmortem::server_at(set, last).or_else(|| postmortem::server_at(set, first));
    let whole = match (
        set.sample_time(0),
        set.len().checked_sub(1).and_then(|l| set.sample_time(l)),
    ) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    let mut notes = set.notes();
    notes.extend(read_error);
    let capture = Capture {
        name: display_name(path),
        files: set.files().count(),
        server: info.as_ref().map(postmortem::describe),
        flavor: info.as_ref().map(|i| i.flavor.display_name()),
        span: whole,
        moments: set.moments().to_vec(),
        bookmarks: set.bookmarks(),
        notes,
    };
    c.finish(capture)
        .ok_or_else(|| format!("{}: no figures in the window", set.name()))
}

/// The capture as the page names it: its file or directory name, not the path to it.
fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The what-ifs behind the page's advice: the advised redo size when it is larger than the
/// current one (a smaller size that still fits is said, not replayed), and
/// `innodb_max_purge_lag = 0` when the purge-lag trap held (the verdict's own way out).
fn advised(set: &mut CaptureSet, r: &Report, last: u64) -> Vec<Vec<(String, u64)>> {
    let mut out = Vec::new();
    let info = postmortem::server_at(set, last);
    if let (Some(s), Some(info)) = (&r.last.sizing, &info)
        && s.current_capacity_bytes
            .is_some_and(|c| s.advised_capacity_bytes > c)
    {
        let files = info
            .flavor
            .redo_size_files(RedoLayout::from_info(info).files_in_group)
            .max(1);
        out.push(vec![(s.variable.clone(), s.advised_capacity_bytes / files)]);
    }
    let trap = r
        .episodes
        .iter()
        .any(|e| e.kind == VerdictKind::PurgeLagTrap);
    // Whatever it was set to by the window's end: the trap held while it was set.
    if trap {
        out.push(vec![("innodb_max_purge_lag".to_string(), 0)]);
    }
    out
}

/// Writes `text` to `output` and each of `files` beside it: each to a temporary file in the
/// same directory first, then all renamed into place, the page last. On failure nothing new
/// is left behind.
fn write_all(output: &Path, files: &[(String, String)], text: &str) -> Result<(), String> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let temp = |body: &str, name: &Path| -> Result<tempfile::NamedTempFile, String> {
        let mut f = tempfile::Builder::new()
            .prefix(".innodebt-report-")
            .tempfile_in(&dir)
            .map_err(|e| {
                format!(
                    "{}: cannot write there: {e} (check the directory exists and is writable)",
                    dir.display()
                )
            })?;
        f.write_all(body.as_bytes())
            .and_then(|()| f.as_file().sync_all())
            .map_err(|e| format!("{}: cannot write: {e}", name.display()))?;
        Ok(f)
    };
    let mut staged = Vec::with_capacity(files.len() + 1);
    for (name, body) in files {
        let path = dir.join(name);
        staged.push((temp(body, &path)?, path));
    }
    staged.push((temp(text, output)?, output.to_path_buf()));
    let mut placed: Vec<PathBuf> = Vec::new();
    for (f, path) in staged {
        if let Err(e) = f.persist(&path) {
            for p in &placed {
                let _ = std::fs::remove_file(p);
            }
            return Err(format!(
                "{}: cannot move into place: {}",
                path.display(),
                e.error
            ));
        }
        placed.push(path);
    }
    Ok(())
}
