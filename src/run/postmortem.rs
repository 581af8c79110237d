//! `innodebt compare` and `innodebt replay --what-if`: read the captures, print the report
//! (or, on a terminal without `--format`, show the compare screen).

use std::process::ExitCode;

use super::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::cli::{CaptureRange, OutputFormat, TimeSpec};
use crate::config::{self, Config};
use crate::mode::emit;
use crate::output;
use crate::postmortem::{self, CaptureWindow};
use crate::replay::{CaptureSet, Ends};

/// `compare INCIDENT BASELINE`: the report in `--format` (text or JSON); without one, on a
/// terminal, the compare screen.
pub(super) async fn compare(config: &Config, cmp: &config::Compare) -> ExitCode {
    use std::io::IsTerminal as _;
    // Only nothing asked for (no --format before or after `compare`, no --once), on a
    // terminal, opens the screen.
    let screen = cmp.output.format.is_none() && !cmp.output.once && std::io::stdout().is_terminal();
    let (format, top) = (cmp.output.format(), cmp.top);
    let mut sides = Vec::new();
    for r in [&cmp.incident, &cmp.baseline] {
        match super::open_capture(config, &r.path) {
            Ok(mut set) => match CaptureWindow::resolve(&mut set, r.from, r.to, Ends::RANGE) {
                Ok(w) => sides.push((set, w)),
                Err(e) => return fail(EXIT_CONFIG, format!("{}: {e}", range_words(r))),
            },
            Err(e) => return fail(EXIT_CONFIG, e),
        }
    }
    let [(mut iset, iw), (mut bset, bw)]: [(CaptureSet, CaptureWindow); 2] = match sides.try_into()
    {
        Ok(s) => s,
        Err(_) => return fail(EXIT_FAILURE, "two captures expected"),
    };
    if screen {
        return match postmortem::compare_view(&mut iset, iw, &mut bset, bw) {
            Ok(view) => show(config, view).await,
            Err(e) => fail(EXIT_CONFIG, e),
        };
    }
    match postmortem::compare(&mut iset, iw, &mut bset, bw) {
        Ok(c) => match format {
            OutputFormat::Json => emit(&format!("{}\n", output::json_of(&c))),
            OutputFormat::Text => {
                for w in &c.warnings {
                    eprintln!("innodebt: warning: {w}");
                }
                // Capture names and audit labels are data: no terminal controls from them.
                let text: String = postmortem::text::comparison(&c, top)
                    .lines()
                    .map(|l| crate::text::strip_controls(l) + "\n")
                    .collect();
                emit(&text)
            }
        },
        Err(e) => fail(EXIT_CONFIG, e),
    }
}

/// `FILE@FROM..TO` as given (near enough), for messages about the range.
fn range_words(r: &CaptureRange) -> String {
    let end = |t: Option<TimeSpec>| t.map(|t| t.to_string()).unwrap_or_default();
    if r.from.is_none() && r.to.is_none() {
        return r.path.display().to_string();
    }
    format!("{}@{}..{}", r.path.display(), end(r.from), end(r.to))
}

/// The compare screen until `q`.
async fn show(config: &Config, view: postmortem::CompareView) -> ExitCode {
    if let Err(code) =
        crate::mode::need_terminal("for the report give --format text (or json), as a pipe gets it")
    {
        return code;
    }
    let theme = match config.look.theme() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let app = crate::app::App::comparing(view, chrono::Utc::now());
    crate::dashboard::run_without_source(app, theme).await
}

/// `replay FILE --what-if VAR=VALUE`: the dashboard with the what-if on the checkpoint-age
/// chart; with `--format`, its summary over --from/--to; with --once, the figures of one
/// moment with the what-if as `what_if`.
pub(super) async fn what_if(config: &Config, r: &config::Replay) -> ExitCode {
    let (from, to, at, settings) = (r.from, r.to, r.at, &r.what_if);
    // With --format (before `replay` or after it): the summary.
    let summary_only = r.output.format.is_some();
    let mut set = match super::open_capture(config, &r.path) {
        Ok(s) => s,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let w = match CaptureWindow::resolve(&mut set, from, to, Ends::OPTIONS) {
        Ok(w) => w,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let pos = match at.map(|t| set.resolve(t, "--at")).transpose() {
        Ok(pos) => pos.unwrap_or(set.len().saturating_sub(1)),
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let recovery = config.judging.recovery.clone();
    let report = match postmortem::what_if(&mut set, w, settings, recovery) {
        Ok(r) => r,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let (format, once) = (r.output.format(), r.output.once);
    if !once && !summary_only {
        // The dashboard, with the what-if drawn on the checkpoint-age chart.
        return super::captures::show_what_if(config, set, w.first, w.last, report).await;
    }
    if !once {
        super::captures::report_notes(&set);
        return match format {
            OutputFormat::Json => emit(&format!("{}\n", output::json_of(&report))),
            OutputFormat::Text => emit(&postmortem::text::what_if(&report)),
        };
    }
    let figures = match set.view_at(pos, false) {
        Ok((view, _)) => view.latest,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    let Some(f) = figures else {
        return fail(
            EXIT_FAILURE,
            "no figures at that moment (the capture holds no server description before it)",
        );
    };
    let notes = super::captures::notes_in(&mut set, pos, pos);
    let capture_notes = super::captures::report_notes(&set);
    super::captures::print_once(&f, &notes, &capture_notes, Some(&report), format)
}
