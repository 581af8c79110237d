//! Derive, then assess: one sample in, the figures of that moment out — measured by
//! [`measure`](crate::measure), judged over time by [`verdicts`](crate::verdicts), and the
//! judgement written onto the figures once, here. Every reader (panels, verdict line, plans,
//! JSON) then shows the same answer. Pure: no I/O, no clock.

mod state;
mod suspect;

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::figures::{Figures, HeldBy, Severity, VerdictKind};
use crate::measure::Measurer;
use crate::verdicts::{EngineConfig, Hysteresis, RecoveryModel, RedoLayout, VerdictEngine};
use innodebt_server::sample::{Sample, ServerInfo, SourceEvent};
pub use state::{DERIVATION_VERSION, DeriverState};

/// Feeds source events through measuring and the verdict engine.
#[derive(Debug, Clone)]
pub struct Deriver {
    measurer: Measurer,
    recovery: RecoveryModel,
    /// The verdicts' enter/leave rules: the engine's default, or none for a one-shot look.
    hysteresis: Hysteresis,
    /// Seconds of watching advice to shrink the redo needs (`--sizing-span`).
    sizing_span_s: f64,
    /// Keyed by the redo layout and the last known capacity: either changing restarts it.
    engine: Option<((RedoLayout, Option<u64>), VerdictEngine)>,
    /// Redo capacity of the previous figures, to notice a resize.
    last_capacity: Option<u64>,
    redo_resized: Option<RedoResize>,
}

/// The redo capacity changed under us: a restart with another `innodb_log_file_size` (or
/// `innodb_redo_log_capacity`), or a resize at runtime. Peak checkpoint age and the sizing
/// advice start again from here, so they never mix the two sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedoResize {
    /// Time of the first sample with the new capacity.
    pub at: DateTime<Utc>,
    pub from_bytes: u64,
    pub to_bytes: u64,
}

impl RedoResize {
    /// "redo capacity changed 16.0 MiB → 32.0 MiB at 12:00:03 UTC".
    pub fn summary(&self) -> String {
        format!(
            "redo capacity changed {} → {} at {}",
            crate::units::bytes(self.from_bytes),
            crate::units::bytes(self.to_bytes),
            self.at.format("%H:%M:%S UTC")
        )
    }
}

impl Default for Deriver {
    fn default() -> Self {
        Deriver::with_recovery(RecoveryModel::published_default())
    }
}

impl Deriver {
    pub fn new() -> Self {
        Self::default()
    }

    /// A deriver whose recovery estimates use `model` (`--recovery-rate`, a calibration).
    pub fn with_recovery(recovery: RecoveryModel) -> Self {
        Deriver {
            measurer: Measurer::new(),
            recovery,
            hysteresis: Hysteresis::default(),
            sizing_span_s: crate::verdicts::sizing::DEFAULT_SPAN_S,
            engine: None,
            last_capacity: None,
            redo_resized: None,
        }
    }

    /// For one look (`--once`): a verdict holds as soon as one sample shows it. Hysteresis
    /// keeps a dashboard from flapping; a one-shot answer has nothing to flap.
    pub fn one_shot(mut self) -> Self {
        self.hysteresis = Hysteresis::one_shot();
        self
    }

    /// Advice to shrink the redo waits until the peak was watched this long (`--sizing-span`).
    pub fn with_sizing_span(mut self, span: Duration) -> Self {
        self.set_sizing_span(span);
        self
    }

    /// As [`Self::with_sizing_span`], keeping what was watched (a restored replay).
    pub fn set_sizing_span(&mut self, span: Duration) {
        self.sizing_span_s = span.as_secs_f64();
        if let Some((_, engine)) = self.engine.as_mut() {
            engine.set_sizing_span(self.sizing_span_s);
        }
    }

    /// The latest redo resize seen, if any.
    pub fn redo_resized(&self) -> Option<&RedoResize> {
        self.redo_resized.as_ref()
    }

    pub fn info(&self) -> Option<&ServerInfo> {
        self.measurer.info()
    }

    /// Feed one source event; a sample yields its figures.
    pub fn push(&mut self, event: &SourceEvent) -> Option<Figures> {
        match event {
            SourceEvent::Sample(sample) => self.push_sample(sample),
            other => self.measurer.push(other),
        }
    }

    /// The figures of one sample, measured and judged; `None` before the server is known.
    pub fn push_sample(&mut self, sample: &Sample) -> Option<Figures> {
        let mut figures = self.measurer.push_sample(sample)?;
        // Before any judgement: an impossible figure is flagged and unknown from here on.
        suspect::mark(&mut figures);
        let info = self.measurer.info_shared()?;
        self.note_redo_resize(&mut figures, &info);
        self.assess(&mut figures, &info, sample.mono_s);
        Some(figures)
    }

    /// Notices a changed redo capacity (the engine restarts on it in [`Self::assess`]) and
    /// says so in the figures' warnings from then on.
    fn note_redo_resize(&mut self, figures: &mut Figures, info: &ServerInfo) {
        let now = figures.redo.capacity_bytes;
        if let (Some(from), Some(to)) = (self.last_capacity, now)
            && from != to
        {
            self.redo_resized = Some(RedoResize {
                at: figures.sampled_at,
                from_bytes: from,
                to_bytes: to,
            });
        }
        self.last_capacity = now.or(self.last_capacity);
        if let Some(r) = &self.redo_resized {
            figures.warnings.push(format!(
                "{} ({}): peak checkpoint age and sizing advice count from then",
                r.summary(),
                info.flavor.redo_size_variable()
            ));
        }
    }

    /// Verdicts, recovery and sizing for one sample's figures. The engine restarts when the
    /// redo layout or capacity changes (a restart with another log size, a runtime resize), so
    /// peak and sizing never mix two sizes.
    fn assess(&mut self, figures: &mut Figures, info: &ServerInfo, t_s: f64) {
        let layout = RedoLayout::from_info(info);
        let key = (layout, self.last_capacity);
        // `--recovery-rate`, else this server's own last recovery, else its flavour's default.
        let recovery = self.recovery.for_server(info);
        if let Some((_, engine)) = self.engine.as_mut()
            && engine.config().recovery != recovery
        {
            engine.set_recovery_model(recovery.clone());
        }
        if self.engine.as_ref().is_none_or(|(k, _)| *k != key) {
            let cfg = EngineConfig {
                recovery,
                layout,
                hysteresis: self.hysteresis,
                sizing_span_s: self.sizing_span_s,
                ..EngineConfig::default()
            };
            self.engine = Some((key, VerdictEngine::new(cfg)));
        }
        let Some((_, engine)) = self.engine.as_mut() else {
            return;
        };
        if figures.interval_s.is_none() {
            // No rate across a restart or reconnection, smoothed or not.
            engine.new_baseline();
        }
        let a = engine.observe(t_s, figures, info.flavor);
        // The judgement, written once: every reader of the figures shows these.
        figures.redo.severity = a.flush.checkpoint_age;
        figures.redo.flush_regime = a.flush.regime;
        figures.redo.flush_regime_age = a.flush.regime_age;
        figures.dirty.severity = a.flush.dirty;
        figures.rollback.severity = a.rollback;
        figures.history.growth_per_s = a.purge.history_growth_per_s;
        figures.history.seconds_to_max_purge_lag = a.purge.seconds_to_max_purge_lag;
        figures.history.held_back = a.purge.held_back;
        figures.purge.blocked = a.purge.blocked;
        figures.purge.moving = a.purge.moving;
        figures.purge.dml_delay_applied_us = a.purge.dml_delay_applied_us;
        figures.verdicts = a.verdicts;
        figures.history.held_by = held_by(figures);
        figures.recovery = a.recovery;
        figures.sizing = a.sizing;
        // A refused source now also names the judgements it leaves unknown.
        crate::measure::name_null_figures(figures);
    }
}

/// What holds history, as the verdicts name it, with their severity: a read view purge
/// cannot pass (its verdict, else `purge.blocked` before the verdict's hysteresis lets it in,
/// at the warning that verdict starts from), or open read-write transactions.
fn held_by(f: &Figures) -> Option<HeldBy> {
    let verdict = |k: VerdictKind| f.verdicts.iter().find(|v| v.kind == k && !v.clearing);
    let read_view = verdict(VerdictKind::BlockedByReadView)
        .map(|v| v.severity)
        .or_else(|| (f.purge.blocked == Some(true)).then_some(Severity::Warning));
    if let (Some(severity), Some(b)) = (read_view, f.blocker.as_ref()) {
        return Some(HeldBy::ReadView {
            trx_id: b.trx_id.clone(),
            thread_id: b.thread_id,
            age_s: b.age_s,
            severity,
        });
    }
    let writes = verdict(VerdictKind::HistoryHeldByOpenWrites)?;
    let oldest = f.purge.oldest_rw.as_ref();
    Some(HeldBy::OpenWrites {
        trx_id: oldest.map(|o| o.trx_id.clone()),
        thread_id: oldest.and_then(|o| o.thread_id),
        age_s: oldest.map(|o| o.age_s),
        open: f.purge.open_rw_trx,
        severity: writes.severity,
    })
}

#[cfg(test)]
mod tests;
