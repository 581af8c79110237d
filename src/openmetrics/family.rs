//! What a metric family is: its name, unit, type, help and how it reads its samples — from
//! a table's input, or through the registry of figures ([`FigureId`]). The tables: the
//! figures' in `families`, innodebt's own in `openmetrics`, the counters' in `exporter`.

use innodebt_engine::figures::{FigureId, Unit};

/// OpenMetrics types we expose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gauge,
    Counter,
    StateSet,
    Info,
}

/// Label pairs of one sample.
pub type Labels = Vec<(&'static str, String)>;

/// How a family reads its samples from `T` (the figures, or innodebt's own state).
pub enum Read<T> {
    /// One unlabelled value, when known.
    One(fn(&T) -> Option<f64>),
    /// Several labelled values (a StateSet's states, per-source rates, an info's labels).
    Many(fn(&T) -> Vec<(Labels, f64)>),
    /// A figure of the registry, unlabelled, in the family's unit.
    Figure(FigureId),
    /// Figures of the registry, one sample each, labelled `label="…"` by the last word of
    /// its path (`flush.by_source_pages_per_s.lru`: `source="lru"`).
    Figures(&'static str, &'static [FigureId]),
    /// A figure of words (a regime) as a StateSet: its states, read by the function.
    States(FigureId, fn(&T) -> Vec<(Labels, f64)>),
}

impl<T> Read<T> {
    /// The samples of `input`; `figure` answers the registry's figures (none but the
    /// figures' table asks).
    pub fn samples(
        &self,
        input: &T,
        figure: impl Fn(FigureId) -> Option<f64>,
    ) -> Vec<(Labels, f64)> {
        let in_unit = |id: FigureId| figure(id).map(|v| in_family_unit(id, v));
        match self {
            Read::One(read) => read(input)
                .map(|v| vec![(Vec::new(), v)])
                .unwrap_or_default(),
            Read::Many(read) | Read::States(_, read) => read(input),
            Read::Figure(id) => in_unit(*id)
                .map(|v| vec![(Vec::new(), v)])
                .unwrap_or_default(),
            Read::Figures(label, ids) => ids
                .iter()
                .filter_map(|id| Some((vec![(*label, label_of(*id).to_string())], in_unit(*id)?)))
                .collect(),
        }
    }

    /// The registry's figures this family carries, each with the label that picks its sample
    /// when the family holds several.
    pub fn figures(&self) -> Vec<(FigureId, Option<(&'static str, &'static str)>)> {
        match self {
            Read::One(_) | Read::Many(_) => Vec::new(),
            Read::Figure(id) | Read::States(id, _) => vec![(*id, None)],
            Read::Figures(label, ids) => ids
                .iter()
                .map(|id| (*id, Some((*label, label_of(*id)))))
                .collect(),
        }
    }
}

pub struct Family<T: 'static> {
    /// The family name; with a unit it ends in `_<unit>` (OpenMetrics).
    pub name: &'static str,
    /// `bytes`, `seconds`, `ratio`, or "" for none.
    pub unit: &'static str,
    pub kind: Kind,
    pub help: &'static str,
    pub read: Read<T>,
}

pub(super) const fn gauge<T>(
    name: &'static str,
    unit: &'static str,
    help: &'static str,
    f: fn(&T) -> Option<f64>,
) -> Family<T> {
    Family {
        name,
        unit,
        kind: Kind::Gauge,
        help,
        read: Read::One(f),
    }
}

/// A figure's value in its family's unit: a percentage as a 0–1 ratio, microseconds as
/// seconds (OpenMetrics' base units); the rest as the registry has it.
pub fn in_family_unit(id: FigureId, v: f64) -> f64 {
    match id.unit() {
        Unit::Percent => v / 100.0,
        Unit::Microseconds => v / 1e6,
        _ => v,
    }
}

/// A figure's label value in a family of several: the last word of its path.
fn label_of(id: FigureId) -> &'static str {
    id.path().rsplit('.').next().unwrap_or_default()
}
