//! After an incident: `compare` an incident window with a baseline window, and re-judge a
//! recording under another setting (`replay --what-if`). Both read captures through the
//! replay index ([`CaptureSet::figures`]): only the sections holding the window are read, so
//! the cost follows the window, not the file.

pub mod compare;
pub mod detail;
pub mod stats;
pub mod text;
pub mod timeline;

use crate::cli::TimeSpec;
use crate::data_view::moments::MomentKind;
use crate::replay::{CaptureSet, Ends};
use compare::Side;
pub use compare::{Comparison, SideInfo};
use innodebt_engine::verdicts::RecoveryModel;
use innodebt_engine::verdicts::whatif::{Scenario, WhatIf, WhatIfReport};
use innodebt_server::sample::ServerInfo;
pub use timeline::SideTimeline;
use timeline::TimelineBuilder;

/// The fewest samples a side of a comparison is ranked on. Each side is read as a median, a
/// p95 and (the baseline) a spread, the interquartile range; by nearest rank a quartile of
/// fewer than 10 samples lies within two samples of an end, so one or two odd samples (a
/// stall, the edge of an event) would set the spread every shift is measured in, and the
/// median of a handful is whichever sample happened to fall there. With 10, two samples
/// beyond each quartile are outvoted (q25 and q75 are the 3rd and 8th values).
pub const MIN_COMPARE_SAMPLES: u64 = 10;

/// A window of a capture: sample indices `first..=last`.
#[derive(Debug, Clone, Copy)]
pub struct CaptureWindow {
    pub first: u64,
    pub last: u64,
}

impl CaptureWindow {
    /// `--from`/`--to` (either may be missing: the first and last samples) → samples, checked
    /// as every command checks them ([`crate::replay::resolve_range`]).
    pub fn resolve(
        set: &mut CaptureSet,
        from: Option<TimeSpec>,
        to: Option<TimeSpec>,
        ends: Ends<'_>,
    ) -> Result<CaptureWindow, String> {
        let (first, last) = crate::replay::resolve_range(set, from, to, ends)?;
        Ok(CaptureWindow { first, last })
    }
}

/// The server at sample `pos` of the set.
pub(crate) fn server_at(set: &mut CaptureSet, pos: u64) -> Option<ServerInfo> {
    set.view_at(pos, false).ok()?.0.info().cloned()
}

/// `host:port Flavour version`, as a comparison names a side.
pub(crate) fn describe(i: &ServerInfo) -> String {
    format!(
        "{}{} {}",
        i.var("hostname").unwrap_or(&i.label),
        i.var("port")
            .filter(|p| *p != "0")
            .map(|p| format!(":{p}"))
            .unwrap_or_default(),
        i.flavor.display_name()
    )
}

/// One side as read: its figures added up, its server, what the report says of it, and its
/// timeline (built in the same pass).
struct ReadSide {
    side: Side,
    server: Option<ServerInfo>,
    info: SideInfo,
    timeline: SideTimeline,
}

/// Reads one side (`what`: incident or baseline): its figures through the index, its server,
/// its runtime changes. A side of fewer than [`MIN_COMPARE_SAMPLES`] is refused.
fn read_side(set: &mut CaptureSet, w: CaptureWindow, what: &str) -> Result<ReadSide, String> {
    if set.is_empty() {
        return Err(format!("{}: no samples to compare", set.name()));
    }
    if w.first > w.last {
        return Err(format!(
            "{}: the range ends before it starts: give FROM..TO in time order",
            set.name()
        ));
    }
    let mut side = Side::default();
    let mut timeline = TimelineBuilder::default();
    let name = set.name().to_string();
    for f in set.figures(w.first, w.last) {
        let f = f.map_err(|e| format!("{name}: {e}"))?;
        side.observe(&f);
        timeline.observe(&f);
    }
    if side.samples == 0 {
        return Err(format!(
            "{}: no figures in that range (the capture holds no server description there)",
            set.name()
        ));
    }
    if side.samples < MIN_COMPARE_SAMPLES {
        return Err(too_few(set, what, &side));
    }
    let server = server_at(set, w.last);
    let (from, to) = (side.from, side.to);
    let runtime = set
        .moments()
        .iter()
        .filter(|m| m.kind == MomentKind::RuntimeChange)
        .filter(|m| from.is_some_and(|f| m.at >= f) && to.is_some_and(|t| m.at <= t))
        .map(|m| format!("{} {}", m.at.format("%H:%M:%S"), m.label))
        .collect();
    let info = SideInfo {
        capture: set.name().to_string(),
        from,
        to,
        samples: side.samples,
        server: server.as_ref().map(describe),
        setting_changes: side.setting_changes.clone(),
        runtime_changes: runtime,
    };
    let timeline = timeline.finish(set.moments(), &set.bookmarks());
    Ok(ReadSide {
        side,
        server,
        info,
        timeline,
    })
}

/// `the incident window holds 1 sample (21:22:40): too few to compare …; widen it, e.g. …`.
fn too_few(set: &CaptureSet, what: &str, side: &Side) -> String {
    let clock = |t: Option<chrono::DateTime<chrono::Utc>>| {
        t.map_or_else(|| "?".into(), |t| t.format("%H:%M:%S").to_string())
    };
    let held = match (side.from, side.to) {
        (a, b) if a == b => clock(a),
        (a, b) => format!("{} → {}", clock(a), clock(b)),
    };
    let n = side.samples;
    let plural = if n == 1 { "" } else { "s" };
    let why = format!(
        "{what} window of {} holds {n} sample{plural} ({held}): too few to compare (each side \
         needs at least {MIN_COMPARE_SAMPLES} for its median and spread to stand for it)",
        set.name()
    );
    // Twice the minimum (at the capture's pace), from where this one starts or, near the
    // end, up to the capture's end.
    let wider = set.span().map(|(first, last)| {
        let need = set.interval().max(chrono::Duration::seconds(1))
            * i32::try_from(2 * MIN_COMPARE_SAMPLES).unwrap_or(20);
        let from = side.from.unwrap_or(first).min(last - need).max(first);
        let to = (from + need).min(last);
        let offset = |t: chrono::DateTime<chrono::Utc>| {
            crate::cli::compact_duration(u64::try_from((t - first).num_seconds()).unwrap_or(0))
        };
        format!("{}@+{}..+{}", set.name(), offset(from), offset(to))
    });
    match wider {
        Some(w) if set.len() >= MIN_COMPARE_SAMPLES => format!("{why}; widen it, e.g. {w}"),
        _ => format!(
            "{why}; the whole capture holds {} sample(s): record for longer",
            set.len()
        ),
    }
}

/// A comparison with each side's timeline: what the compare screen shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareView {
    pub comparison: Comparison,
    pub incident: SideTimeline,
    pub baseline: SideTimeline,
}

/// Compares window `iw` of `incident` with window `bw` of `baseline`.
pub fn compare(
    incident: &mut CaptureSet,
    iw: CaptureWindow,
    baseline: &mut CaptureSet,
    bw: CaptureWindow,
) -> Result<Comparison, String> {
    compare_view(incident, iw, baseline, bw).map(|v| v.comparison)
}

/// [`compare`], with each side's timeline for the compare screen.
pub fn compare_view(
    incident: &mut CaptureSet,
    iw: CaptureWindow,
    baseline: &mut CaptureSet,
    bw: CaptureWindow,
) -> Result<CompareView, String> {
    let inc = read_side(incident, iw, "the incident")?;
    let base = read_side(baseline, bw, "the baseline")?;
    let (i_side, i_server, i_info) = (inc.side, inc.server, inc.info);
    let (b_side, b_server, b_info) = (base.side, base.server, base.info);
    let mut warnings = Vec::new();
    if let Some(w) = compare::different_servers(i_server.as_ref(), b_server.as_ref()) {
        warnings.push(w);
    }
    for (set, what) in [(&*incident, "incident"), (&*baseline, "baseline")] {
        warnings.extend(
            set.notes()
                .into_iter()
                .map(|n| format!("{what} capture: {n}")),
        );
    }
    let (figures, verdicts) = compare::figure_diffs(&i_side, &b_side);
    let settings = compare::setting_diffs(i_server.as_ref(), b_server.as_ref());
    let ranked = compare::rank(
        &figures,
        &settings,
        &i_info.setting_changes,
        &i_info.runtime_changes,
        text::figure_line,
    );
    let comparison = Comparison {
        incident: i_info,
        baseline: b_info,
        warnings,
        ranked,
        figures,
        verdicts,
        settings,
        scoring: compare::SCORING.to_string(),
    };
    Ok(CompareView {
        comparison,
        incident: inc.timeline,
        baseline: base.timeline,
    })
}

/// Re-judges window `w` of `set` under `settings` (`VAR`, value), on the recorded server.
pub fn what_if(
    set: &mut CaptureSet,
    w: CaptureWindow,
    settings: &[(String, u64)],
    model: RecoveryModel,
) -> Result<WhatIfReport, String> {
    let mut reports = what_ifs(set, w, &[settings.to_vec()], model)?;
    reports
        .pop()
        .unwrap_or_else(|| Err("no what-if ran".to_string()))
}

/// Several what-ifs over the same window in one pass over its figures (each pass derives
/// every sample of the window again: a day at 1 s is most of a report's time). Each scenario
/// that cannot be made is its own error; the capture's are everyone's.
pub fn what_ifs(
    set: &mut CaptureSet,
    w: CaptureWindow,
    settings: &[Vec<(String, u64)>],
    model: RecoveryModel,
) -> Result<Vec<Result<WhatIfReport, String>>, String> {
    if set.is_empty() {
        return Err(format!("{}: no samples to re-judge", set.name()));
    }
    let info = server_at(set, w.last)
        .or_else(|| server_at(set, w.first))
        .or_else(|| set.files().find_map(|f| f.header().server.clone()))
        .ok_or_else(|| {
            format!(
                "{}: the capture holds no server description, so the flavour's formulas are \
                 unknown",
                set.name()
            )
        })?;
    // The recorded server's own model: its log's last recovery, else its flavour's default.
    let mut runs: Vec<Result<WhatIf, String>> = settings
        .iter()
        .map(|s| {
            Scenario::new(s, &info)
                .map(|scenario| WhatIf::new(scenario, &info, model.for_server(&info)))
        })
        .collect();
    if runs.iter().any(Result::is_ok) {
        let name = set.name().to_string();
        for f in set.figures(w.first, w.last) {
            let f = f.map_err(|e| format!("{name}: {e}"))?;
            for run in runs.iter_mut().flatten() {
                run.observe(&f);
            }
        }
    }
    Ok(runs.into_iter().map(|r| r.map(WhatIf::finish)).collect())
}
