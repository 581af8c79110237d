//! Figures no server can produce, named once per sample with why: the UI marks them, the JSON
//! carries them (`suspect[]`), and their values are unknown to every judgement after. A
//! damaged capture, an import from series that do not belong together, or a generator that
//! drifted shows as suspect instead of as an alarming truth.

use crate::figures::{FigureId, Figures, Suspect};
use crate::units;

/// Every figure of `f` that contradicts what a server can show.
pub fn find(f: &Figures) -> Vec<Suspect> {
    let mut out = Vec::new();
    let r = &f.redo;
    let mut flag = |figure: FigureId, reason: String| out.push(Suspect { figure, reason });
    // The checkpoint cannot pass the LSN it checkpoints: the age would be negative.
    if let (Some(lsn), Some(chk)) = (r.lsn, r.checkpoint_lsn)
        && chk > lsn
    {
        flag(
            FigureId::CheckpointAge,
            format!("the checkpoint LSN {chk} is past the current LSN {lsn}: a negative age"),
        );
    }
    // InnoDB checkpoints before the log wraps: the age never exceeds what the log holds.
    if let (Some(age), Some(cap)) = (r.checkpoint_age_bytes, r.capacity_bytes.filter(|c| *c > 0))
        && age > cap
    {
        let why = format!(
            "checkpoint age {} is more than the redo log holds ({}): no server runs past its log",
            units::bytes(age),
            units::bytes(cap)
        );
        flag(FigureId::CheckpointAge, why.clone());
        flag(FigureId::CheckpointAgePct, why);
    }
    // A rate is a counter's advance over time: below zero, the counter went back.
    let rates = [
        (FigureId::RedoWritten, r.written_bytes_per_s),
        (FigureId::FlushTotal, f.flush.total_pages_per_s),
        (FigureId::FlushList, f.flush.flush_list_pages_per_s),
        (FigureId::PurgeRecords, f.purge.records_per_s),
        (FigureId::PurgeUndoPages, f.purge.undo_pages_per_s),
        (FigureId::PurgeInflow, f.purge.inflow_records_per_s),
        (FigureId::UndoReads, f.undo.reads_per_s),
    ]
    .into_iter()
    .chain(
        crate::figures::FlushSource::ALL
            .iter()
            .map(|s| (s.figure(), f.flush.by_source_pages_per_s.get(*s))),
    );
    for (figure, rate) in rates {
        if let Some(v) = rate.filter(|v| *v < 0.0 || !v.is_finite()) {
            flag(
                figure,
                format!("a rate of {v:.1}/s: its counter went back without a restart"),
            );
        }
    }
    // Dirty pages are pages of the pool: never more than its data and free pages.
    let d = &f.dirty;
    if let (Some(dirty), Some(data), Some(free)) = (d.pages, d.data_pages, d.free_pages)
        && dirty > data + free
    {
        let why = format!("{dirty} dirty pages in a pool of {} pages", data + free);
        flag(FigureId::DirtyPages, why.clone());
        flag(FigureId::DirtyPct, why);
    }
    out
}

/// Flags `f`'s impossible figures and takes their values off: what was read stays in the
/// reason, the figure itself is unknown, so no verdict, chart or gauge takes it as the truth.
pub fn mark(f: &mut Figures) {
    f.suspect = find(f);
    let flagged: Vec<FigureId> = f.suspect.iter().map(|s| s.figure).collect();
    for id in flagged {
        let (r, fl) = (&mut f.redo, &mut f.flush);
        match id {
            FigureId::CheckpointAge => {
                r.checkpoint_age_bytes = None;
                r.checkpoint_age_pct_of_capacity = None;
                r.seconds_to_async_point = None;
                r.seconds_to_sync_point = None;
            }
            FigureId::CheckpointAgePct => r.checkpoint_age_pct_of_capacity = None,
            FigureId::RedoWritten => r.written_bytes_per_s = None,
            FigureId::FlushTotal => fl.total_pages_per_s = None,
            FigureId::FlushList => fl.flush_list_pages_per_s = None,
            FigureId::FlushAdaptive => fl.by_source_pages_per_s.adaptive = None,
            FigureId::FlushLru => fl.by_source_pages_per_s.lru = None,
            FigureId::FlushSync => fl.by_source_pages_per_s.sync = None,
            FigureId::FlushBackground => fl.by_source_pages_per_s.background = None,
            FigureId::FlushNeighbor => fl.by_source_pages_per_s.neighbor = None,
            FigureId::PurgeRecords => f.purge.records_per_s = None,
            FigureId::PurgeUndoPages => f.purge.undo_pages_per_s = None,
            FigureId::PurgeInflow => f.purge.inflow_records_per_s = None,
            FigureId::UndoReads => f.undo.reads_per_s = None,
            FigureId::DirtyPages | FigureId::DirtyPct => {
                f.dirty.pages = None;
                f.dirty.pct = None;
                f.dirty.bytes = None;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::Severity;

    fn redo(lsn: u64, chk: u64, cap: u64) -> Figures {
        let mut f = Figures::default();
        f.redo.lsn = Some(lsn);
        f.redo.checkpoint_lsn = Some(chk);
        f.redo.checkpoint_age_bytes = Some(lsn.saturating_sub(chk));
        f.redo.capacity_bytes = Some(cap);
        f.redo.severity = Some(Severity::Critical);
        f
    }

    #[test]
    fn an_age_past_the_log_is_suspect_and_unknown() {
        // The replay benchmark's old 24 h capture at +12h: 964.6 MiB of a 16 MiB log.
        let mut f = redo(1_011_450_000 + 1_000_000, 1_000_000, 16 << 20);
        mark(&mut f);
        let s = f.suspect(FigureId::CheckpointAge).expect("suspect");
        assert!(
            s.reason
                .contains("checkpoint age 964.6 MiB is more than the redo log holds (16.0 MiB)"),
            "{}",
            s.reason
        );
        assert!(f.suspect(FigureId::CheckpointAgePct).is_some());
        // Unknown from here on: no verdict, sizing or gauge reads it as the truth.
        assert_eq!(f.redo.checkpoint_age_bytes, None);
        assert_eq!(f.redo.checkpoint_age_pct_of_capacity, None);
    }

    #[test]
    fn a_checkpoint_past_the_lsn_is_a_negative_age() {
        let mut f = redo(1_000, 5_000, 16 << 20);
        mark(&mut f);
        let s = f.suspect(FigureId::CheckpointAge).expect("suspect");
        assert!(s.reason.contains("a negative age"), "{}", s.reason);
    }

    #[test]
    fn a_full_log_a_real_rate_and_a_full_pool_are_not_suspect() {
        let mut f = redo(16 << 20, 0, 16 << 20);
        f.redo.written_bytes_per_s = Some(0.0);
        f.flush.by_source_pages_per_s.sync = Some(900.0);
        f.dirty.pages = Some(2028);
        f.dirty.data_pages = Some(2000);
        f.dirty.free_pages = Some(28);
        mark(&mut f);
        assert_eq!(f.suspect, vec![]);
        assert_eq!(f.redo.severity, Some(Severity::Critical));
    }

    #[test]
    fn a_counter_going_back_and_an_overfull_pool_are_suspect() {
        let mut f = Figures::default();
        f.purge.records_per_s = Some(-12.0);
        f.flush.by_source_pages_per_s.lru = Some(f64::INFINITY);
        f.dirty.pages = Some(3000);
        f.dirty.data_pages = Some(2000);
        f.dirty.free_pages = Some(28);
        mark(&mut f);
        let flagged: Vec<FigureId> = f.suspect.iter().map(|s| s.figure).collect();
        assert_eq!(
            flagged,
            vec![
                FigureId::PurgeRecords,
                FigureId::FlushLru,
                FigureId::DirtyPages,
                FigureId::DirtyPct
            ]
        );
        assert!(f.suspect[0].reason.contains("went back"), "{:?}", f.suspect);
        assert_eq!((f.purge.records_per_s, f.dirty.pages), (None, None));
    }
}
