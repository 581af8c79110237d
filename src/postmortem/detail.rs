//! One ranked difference opened up (Enter on the compare screen): the distributions of both
//! sides, how its score came about, the verdict time behind it, and what it means to a DBA.
//! Read from the [`Comparison`] as ranked; nothing is scored again here.

use super::compare::{Comparison, DiffKind, FigureDiff, Ranked};
use super::text::{num, value};
use innodebt_engine::units::duration;

/// What the detail shows: a title, a table (a header row, then label / incident / baseline)
/// and lines of explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub title: String,
    pub table: Vec<[String; 3]>,
    pub lines: Vec<String>,
}

/// What each figure compare ranks says about the incident (by the figure's name).
const FIGURE_MEANING: &[(&str, &str)] = &[
    (
        "blocker age",
        "How long the transaction whose read view purge cannot pass had been open. Purge may not remove row versions that read view might still see, so history grows behind it for as long as it stays open — often a session idle in a transaction. Commit or kill it (K in the live dashboard).",
    ),
    (
        "history length",
        "Undo logs purge still has to process (the history list). It grows when purge falls behind the rows updated and deleted, or cannot pass an old read view; a long history slows every read that has to walk old row versions and grows the undo tablespaces.",
    ),
    (
        "history held back by the oldest read view",
        "The part of the history the oldest read view keeps purge from removing: what committing that transaction would free.",
    ),
    (
        "history growth",
        "How fast the history list grew: purge falling behind the writes, or stopped by a read view.",
    ),
    (
        "purged records",
        "Undo records purge removed per second. Zero while history grows means purge is stopped (a read view it cannot pass) or starved (too few purge threads or too small a batch).",
    ),
    (
        "DML delay writes pay",
        "The delay innodb_max_purge_lag injects into every row write once history passes it. It slows writers to let purge catch up — but purge cannot catch up while a read view blocks it, so then it only slows the application.",
    ),
    (
        "undo size",
        "Bytes held by undo tablespaces. It follows the history: undo pages purge has not freed yet. It shrinks again only after purge and truncation.",
    ),
    (
        "checkpoint age (% of async point)",
        "How close redo not yet checkpointed came to the async point, past which InnoDB flushes dirty pages hard to advance the checkpoint, and user threads start to wait near the sync point.",
    ),
    (
        "checkpoint age",
        "Redo written since the last checkpoint: the debt page flushing has to pay back, and what crash recovery would replay. Against the redo capacity it decides when flushing turns urgent.",
    ),
    (
        "sync flushing",
        "Pages flushed synchronously because checkpoint age reached the sync point: user threads wait for this flushing. Any of it is a stall.",
    ),
    (
        "pages flushed",
        "Dirty pages written per second by every source: the work done to keep checkpoint age and dirty pages down. It follows the workload and innodb_io_capacity.",
    ),
    (
        "dirty pages",
        "Share of the buffer pool modified and not yet written. Near innodb_max_dirty_pages_pct flushing speeds up; a high share also lengthens crash recovery.",
    ),
    (
        "crash recovery estimate",
        "How long crash recovery would take had the server crashed at that moment: the redo to apply (the checkpoint age) at the recovery rate, and the pages to read.",
    ),
    (
        "redo written",
        "Redo generated per second: the write workload itself. A difference here says the load differed, which may explain the rest rather than a fault.",
    ),
    (
        "rows updated and deleted",
        "Rows updated and deleted per second (Handler_update, Handler_delete): what adds history for purge to remove. A difference here says the load differed.",
    ),
];

/// What a variable that differs or changed means for the debts.
const SETTING_MEANING: &[(&str, &str)] = &[
    (
        "innodb_log_file_size",
        "With innodb_log_files_in_group it sets the redo capacity, and so where the async and sync points lie: a smaller log reaches them sooner.",
    ),
    (
        "innodb_redo_log_capacity",
        "The redo capacity (MySQL ≥ 8.0.30): where the async and sync points lie.",
    ),
    (
        "redo capacity",
        "The redo log's size: where the async and sync points lie. A smaller log reaches them sooner.",
    ),
    (
        "innodb_io_capacity",
        "How many pages per second background flushing aims for: too low and checkpoint age and dirty pages climb under load.",
    ),
    (
        "innodb_io_capacity_max",
        "The ceiling flushing may use when it falls behind.",
    ),
    (
        "innodb_max_purge_lag",
        "History length past which row writes are delayed so purge can catch up (0: never).",
    ),
    (
        "innodb_max_purge_lag_delay",
        "The most a write is delayed by innodb_max_purge_lag, in microseconds.",
    ),
    (
        "innodb_purge_threads",
        "Threads purging history: fewer purge more slowly under a heavy write load.",
    ),
    (
        "innodb_purge_batch_size",
        "Undo log pages purge handles per batch: how much work one purge round does.",
    ),
    (
        "innodb_max_dirty_pages_pct",
        "Share of dirty pages past which flushing runs at full speed.",
    ),
    (
        "innodb_buffer_pool_size",
        "Memory for pages: a smaller pool holds fewer dirty pages and reads undo from disk sooner.",
    ),
    (
        "innodb_flush_log_at_trx_commit",
        "When redo is written and flushed at commit: changes the cost of each commit, not how much redo is written.",
    ),
];

const SETTING_ANY: &str = "A server variable that differs between the two sides: a difference \
    in configuration may explain a difference in behaviour, or only show the captures come from \
    different setups.";

/// The meaning of figure `name`, if compare ranks such a figure.
pub fn figure_meaning(name: &str) -> Option<&'static str> {
    FIGURE_MEANING
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| *m)
}

fn setting_meaning(name: &str) -> &'static str {
    SETTING_MEANING
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(SETTING_ANY, |(_, m)| *m)
}

/// The detail of ranked difference `i` (in [`Comparison::ranked`] order).
pub fn of(c: &Comparison, i: usize) -> Option<Detail> {
    let r = c.ranked.get(i)?;
    let title = format!("{}. {} (score {:.1})", i + 1, r.name, r.score);
    let header = |a: &str, b: &str| [String::new(), a.to_string(), b.to_string()];
    let detail = match r.kind {
        DiffKind::Figure => match c.figures.iter().find(|f| f.name == r.name) {
            Some(f) => figure(c, f, title),
            None => plain(r, title, "A figure that differs between the two sides."),
        },
        DiffKind::Setting => {
            let s = c.settings.iter().find(|s| s.name == r.name);
            let shown = |v: Option<&String>| v.cloned().unwrap_or_else(|| "unknown".into());
            Detail {
                title,
                table: vec![
                    header("incident", "baseline"),
                    [
                        "value".into(),
                        shown(s.and_then(|s| s.incident.as_ref())),
                        shown(s.and_then(|s| s.baseline.as_ref())),
                    ],
                ],
                lines: vec![
                    "The server variable differs between the two sides (each as its \
                     window's end saw it)."
                        .into(),
                    setting_meaning(&r.name).into(),
                ],
            }
        }
        DiffKind::SettingChanged => plain(
            r,
            title,
            &format!(
                "It changed during the incident (whoever changed it). {}",
                setting_meaning(&r.name)
            ),
        ),
        DiffKind::RuntimeChange => plain(
            r,
            title,
            "A runtime change innodebt made during the incident (its audit entry): the \
             incident's figures after it show its effect, or the lack of one.",
        ),
    };
    Some(detail)
}

/// A difference with no distribution: its line and what it means.
fn plain(r: &Ranked, title: String, means: &str) -> Detail {
    Detail {
        title,
        table: Vec::new(),
        lines: vec![r.what.clone(), means.to_string()],
    }
}

fn figure(c: &Comparison, f: &FigureDiff, title: String) -> Detail {
    let u = f.unit.as_str();
    let (i, b) = (&f.incident, &f.baseline);
    let unit = match u {
        "bytes" | "bytes/s" | "%" | "s" => String::new(),
        u => format!(" ({u})"),
    };
    let table = vec![
        [
            format!("{}{unit}", f.name),
            "incident".into(),
            "baseline".into(),
        ],
        ["median".into(), value(i.median, u), value(b.median, u)],
        ["p95".into(), value(i.p95, u), value(b.p95, u)],
        ["max".into(), value(i.max, u), value(b.max, u)],
        [
            "spread (IQR / 1.349)".into(),
            value(i.spread, u),
            value(b.spread, u),
        ],
        [
            "samples".into(),
            num(Some(i.n as f64)),
            num(Some(b.n as f64)),
        ],
    ];
    let mut lines = Vec::new();
    // The score's two factors back (score = shift × (1 + severity); see `compare`).
    let shift = f.score / (1.0 + f.severity);
    lines.push(match f.z {
        Some(z) if f.better => format!(
            "Shifted {z:.1} baseline spreads, the better way: shift score {shift:.1} (halved: \
             at most 5), with no verdict weight."
        ),
        Some(z) => format!(
            "Shifted {z:.1} baseline spreads (the larger of the median's and the p95's change, \
             over the baseline's spread or the smallest change worth the name): shift score \
             {shift:.1} (at most 10)."
        ),
        None => "One side has no values for it: no shift to measure.".into(),
    });
    if f.severity > 0.0 {
        lines.push(format!(
            "Its verdicts held more of the incident than of the baseline: severity {:.2}, so \
             the score is {shift:.1} × {:.2} = {:.1}.",
            f.severity,
            1.0 + f.severity,
            f.score
        ));
    }
    for v in c.verdicts.iter().filter(|v| f.verdicts.contains(&v.kind)) {
        let share = |s: Option<f64>| s.map_or("n/a".into(), |s| format!("{:.0} %", s * 100.0));
        lines.push(format!(
            "{}: {} ({}) in the incident vs {} ({}) in the baseline",
            v.kind.as_str(),
            duration(v.incident.seconds.round() as u64),
            share(v.incident.share),
            duration(v.baseline.seconds.round() as u64),
            share(v.baseline.share),
        ));
    }
    if let Some(m) = figure_meaning(&f.name) {
        lines.push(m.to_string());
    }
    Detail {
        title,
        table,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure compare can rank has its words.
    #[test]
    fn every_ranked_figure_has_a_meaning() {
        for name in super::super::compare::figure_names() {
            assert!(figure_meaning(name).is_some(), "{name}");
        }
    }
}
