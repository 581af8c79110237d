//! An incident against a baseline: what each side's figures were (median, p95, max), how long
//! each verdict held, which settings differed or changed, and one list of differences ranked
//! by how likely each explains the incident.
//!
//! # The ranking score (also in [`SCORING`], printed with every comparison)
//! For a figure: `score = shift × (1 + severity)`, where
//! - `z = max(|Δ median|, |Δ p95|) ÷ max(baseline spread, the figure's floor)` — the shift in
//!   units of the baseline's own variability (robust: interquartile range ÷ 1.349). The floor
//!   is the smallest change a DBA would call a change (10 s of blocker age, 100 undo logs of
//!   history, 5 points of checkpoint age against the async point, …), so a baseline at rest
//!   with no spread does not make every wobble infinite;
//! - `shift = 10 × (1 − e^(−z/10))`: bounded at 10, still ordered (a shift of 200 baseline
//!   spreads is not 20 times more telling than one of 10);
//! - `severity` is how much more of the incident than of the baseline the verdicts the figure
//!   belongs to held, critical time counting twice: for each of its verdict kinds
//!   `(warning share + 2 × critical share)` of the incident minus that of the baseline, the
//!   largest, clipped to 0..2. A figure behind a verdict that was on during the incident
//!   weighs up to three times a figure that just moved (the workload: redo written, rows
//!   changed).
//!
//! A shift the better way (less history, more purge) scores half, with no severity weight: the
//! incident is not explained by what went well.
//!
//! A setting that differs between the two sides, or changed during the incident, scores
//! [`SETTING_SCORE`] (a shift of about 3.5 baseline spreads with no verdict); a runtime
//! change innodebt made during the incident (its audit entries) scores [`RUNTIME_SCORE`].

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::stats::Distribution;
use innodebt_engine::figures::{FigureId, Figures, Severity, VerdictKind};
use innodebt_server::sample::ServerInfo;

pub const SETTING_SCORE: f64 = 3.0;
pub const RUNTIME_SCORE: f64 = 3.0;

pub const SCORING: &str = "figures: shift × (1 + severity); shift = 10·(1 − e^(−z/10)), z = \
    max(|Δ median|, |Δ p95|) ÷ max(baseline spread (IQR/1.349), the figure's floor); severity = \
    how much more of the incident than of the baseline the figure's verdicts held (warning share \
    + 2 × critical share), 0..2; a shift the better way scores half, with no severity. A setting that differs or changed during the incident scores 3; \
    a runtime change made during the incident scores 3.";

/// One figure as compare reads it.
struct FigureDef {
    name: &'static str,
    unit: &'static str,
    floor: f64,
    /// Which way is worse: `Some(true)` higher, `Some(false)` lower, `None` either (the
    /// workload). A shift the better way scores half, with no severity weight.
    worse_higher: Option<bool>,
    kinds: &'static [VerdictKind],
    get: Get,
}

/// Where compare reads a figure: from the registry ([`FigureId::number`], its unknown rule
/// with it), or a reading of its own for what is no figure of the registry (a ratio of two).
enum Get {
    Figure(FigureId),
    Own(Getter),
}

impl FigureDef {
    fn value(&self, f: &Figures) -> Option<f64> {
        match self.get {
            Get::Figure(id) => id.number(f),
            Get::Own(get) => get(f).filter(|v| v.is_finite()),
        }
    }
}

use VerdictKind::{BlockedByReadView as Blocked, FlushPressure as Flush};
use VerdictKind::{HistoryHeldByOpenWrites as Held, PurgeLagTrap as Trap, PurgeTooSlow as Slow};

const FIGURES: &[FigureDef] = &[
    FigureDef {
        name: "blocker age",
        unit: "s",
        floor: 10.0,
        worse_higher: Some(true),
        kinds: &[Blocked, Trap],
        get: Get::Figure(FigureId::Blocker),
    },
    FigureDef {
        name: "history length",
        unit: "undo logs",
        floor: 100.0,
        worse_higher: Some(true),
        kinds: &[Blocked, Slow, Trap, Held],
        get: Get::Figure(FigureId::HistoryLength),
    },
    FigureDef {
        name: "history held back by the oldest read view",
        unit: "undo logs",
        floor: 100.0,
        worse_higher: Some(true),
        kinds: &[Blocked],
        get: Get::Figure(FigureId::HistoryHeldBack),
    },
    FigureDef {
        name: "history growth",
        unit: "/s",
        floor: 10.0,
        worse_higher: Some(true),
        kinds: &[Blocked, Slow],
        get: Get::Figure(FigureId::HistoryGrowth),
    },
    FigureDef {
        name: "purged records",
        unit: "/s",
        floor: 10.0,
        worse_higher: Some(false),
        kinds: &[Blocked, Slow],
        get: Get::Figure(FigureId::PurgeRecords),
    },
    FigureDef {
        name: "DML delay writes pay",
        unit: "µs",
        floor: 100.0,
        worse_higher: Some(true),
        kinds: &[Trap],
        get: Get::Figure(FigureId::DmlDelayApplied),
    },
    FigureDef {
        name: "undo size",
        unit: "bytes",
        floor: 1_048_576.0,
        worse_higher: Some(true),
        kinds: &[Blocked],
        get: Get::Figure(FigureId::UndoSize),
    },
    FigureDef {
        name: "checkpoint age (% of async point)",
        unit: "%",
        floor: 5.0,
        worse_higher: Some(true),
        kinds: &[Flush],
        get: Get::Own(|f| f.redo.pct_of_async()),
    },
    FigureDef {
        name: "checkpoint age",
        unit: "bytes",
        floor: 1_048_576.0,
        worse_higher: Some(true),
        kinds: &[Flush],
        get: Get::Figure(FigureId::CheckpointAge),
    },
    FigureDef {
        name: "sync flushing",
        unit: "pages/s",
        floor: 1.0,
        worse_higher: Some(true),
        kinds: &[Flush],
        get: Get::Figure(FigureId::FlushSync),
    },
    FigureDef {
        name: "pages flushed",
        unit: "pages/s",
        floor: 10.0,
        worse_higher: None,
        kinds: &[Flush],
        get: Get::Figure(FigureId::FlushTotal),
    },
    FigureDef {
        name: "dirty pages",
        unit: "%",
        floor: 2.0,
        worse_higher: Some(true),
        kinds: &[Flush],
        get: Get::Figure(FigureId::DirtyPct),
    },
    FigureDef {
        name: "crash recovery estimate",
        unit: "s",
        floor: 1.0,
        worse_higher: Some(true),
        kinds: &[Flush],
        get: Get::Own(|f| f.recovery.as_ref().map(|r| r.estimate_s)),
    },
    FigureDef {
        name: "redo written",
        unit: "bytes/s",
        floor: 102_400.0,
        worse_higher: None,
        kinds: &[],
        get: Get::Figure(FigureId::RedoWritten),
    },
    FigureDef {
        name: "rows updated and deleted",
        unit: "/s",
        floor: 10.0,
        worse_higher: None,
        kinds: &[],
        get: Get::Figure(FigureId::PurgeInflow),
    },
];

/// The names of the figures compare ranks, in its order.
pub fn figure_names() -> impl Iterator<Item = &'static str> {
    FIGURES.iter().map(|f| f.name)
}

/// The settings the figures carry, read per sample (a change within a window shows).
/// Reads one value off the figures.
type Getter = fn(&Figures) -> Option<f64>;

const SETTINGS: &[(&str, Getter)] = &[
    ("redo capacity", |f| f.redo.capacity_bytes.map(|v| v as f64)),
    ("innodb_max_purge_lag", |f| {
        f.purge.max_purge_lag.map(|v| v as f64)
    }),
    ("innodb_max_purge_lag_delay", |f| {
        f.purge.max_purge_lag_delay_us.map(|v| v as f64)
    }),
    ("innodb_purge_threads", |f| {
        f.purge.threads.map(|v| v as f64)
    }),
    ("innodb_purge_batch_size", |f| {
        f.purge.batch_size.map(|v| v as f64)
    }),
    ("innodb_io_capacity", |f| {
        f.flush.io_capacity.map(|v| v as f64)
    }),
    ("innodb_io_capacity_max", |f| {
        f.flush.io_capacity_max.map(|v| v as f64)
    }),
    ("innodb_max_dirty_pages_pct", |f| f.dirty.max_pct),
];

/// One side of a comparison as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideInfo {
    pub capture: String,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub samples: u64,
    /// `host:port MariaDB 10.11.19`.
    pub server: Option<String>,
    /// Settings that changed within the window.
    pub setting_changes: Vec<SettingChange>,
    /// Runtime changes innodebt made within the window (its audit entries).
    pub runtime_changes: Vec<String>,
}

/// `innodebt compare`'s result (the JSON contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub incident: SideInfo,
    pub baseline: SideInfo,
    pub warnings: Vec<String>,
    /// Every difference, most likely explanation first.
    pub ranked: Vec<Ranked>,
    pub figures: Vec<FigureDiff>,
    pub verdicts: Vec<VerdictDiff>,
    pub settings: Vec<SettingDiff>,
    pub scoring: String,
}

/// What a window's figures add up to, sample by sample.
#[derive(Debug, Default)]
pub struct Side {
    values: Vec<Vec<f64>>,
    /// Per verdict kind: seconds held, seconds critical, seconds warning.
    verdicts: BTreeMap<VerdictKind, [f64; 3]>,
    seconds: f64,
    pub samples: u64,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    settings: Vec<Option<f64>>,
    pub setting_changes: Vec<SettingChange>,
}

/// A setting that changed within a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingChange {
    pub at: DateTime<Utc>,
    pub name: String,
    pub from: Option<f64>,
    pub to: Option<f64>,
}

/// Longest interval one sample stands for (a gap is not time in any verdict).
const MAX_STEP_S: f64 = 30.0;

impl Side {
    pub fn observe(&mut self, f: &Figures) {
        if self.values.is_empty() {
            self.values = vec![Vec::new(); FIGURES.len()];
            self.settings = vec![None; SETTINGS.len()];
        }
        self.samples += 1;
        self.from.get_or_insert(f.sampled_at);
        self.to = Some(f.sampled_at);
        for (def, vals) in FIGURES.iter().zip(&mut self.values) {
            if let Some(v) = def.value(f) {
                vals.push(v);
            }
        }
        for ((name, get), last) in SETTINGS.iter().zip(&mut self.settings) {
            let now = get(f);
            if now.is_some() && *last != now {
                if last.is_some() {
                    self.setting_changes.push(SettingChange {
                        at: f.sampled_at,
                        name: (*name).to_string(),
                        from: *last,
                        to: now,
                    });
                }
                *last = now;
            }
        }
        let dt = f
            .interval_s
            .filter(|d| d.is_finite() && *d > 0.0)
            .map_or(0.0, |d| d.min(MAX_STEP_S));
        self.seconds += dt;
        for v in f
            .verdicts
            .iter()
            .filter(|v| !matches!(v.kind, VerdictKind::Healthy | VerdictKind::Unknown))
        {
            let e = self.verdicts.entry(v.kind).or_default();
            e[0] += dt;
            match v.severity {
                Severity::Critical => e[1] += dt,
                Severity::Warning => e[2] += dt,
                Severity::Ok | Severity::Unknown => {}
            }
        }
    }

    /// Warning share + 2 × critical share of `kind`.
    fn weight(&self, kind: VerdictKind) -> f64 {
        if self.seconds <= 0.0 {
            return 0.0;
        }
        let e = self.verdicts.get(&kind).copied().unwrap_or_default();
        (e[2] + 2.0 * e[1]) / self.seconds
    }

    fn verdict_time(&self, kind: VerdictKind) -> VerdictTime {
        let e = self.verdicts.get(&kind).copied().unwrap_or_default();
        VerdictTime {
            seconds: e[0],
            critical_seconds: e[1],
            share: (self.seconds > 0.0).then(|| e[0] / self.seconds),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureDiff {
    pub name: String,
    pub unit: String,
    pub incident: Distribution,
    pub baseline: Distribution,
    /// Shift in baseline spreads (`z`), and the score.
    pub z: Option<f64>,
    pub score: f64,
    /// The verdicts it belongs to, and the severity weight they gave.
    pub verdicts: Vec<VerdictKind>,
    pub severity: f64,
    /// The incident is better than the baseline on this figure.
    pub better: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VerdictTime {
    pub seconds: f64,
    pub critical_seconds: f64,
    pub share: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictDiff {
    pub kind: VerdictKind,
    pub incident: VerdictTime,
    pub baseline: VerdictTime,
}

/// A setting whose value differs between the sides (at each window's end).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingDiff {
    pub name: String,
    pub incident: Option<String>,
    pub baseline: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    Figure,
    Setting,
    SettingChanged,
    RuntimeChange,
}

/// One line of the ranked list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    pub kind: DiffKind,
    pub name: String,
    pub score: f64,
    /// The difference in one line, in the DBA's words.
    pub what: String,
}

/// Figures and verdict times of both sides, scored.
pub fn figure_diffs(incident: &Side, baseline: &Side) -> (Vec<FigureDiff>, Vec<VerdictDiff>) {
    let empty = Vec::new();
    let vals = |s: &Side, i: usize| s.values.get(i).unwrap_or(&empty).clone();
    let figures = FIGURES
        .iter()
        .enumerate()
        .map(|(i, def)| {
            let inc = Distribution::of(vals(incident, i));
            let base = Distribution::of(vals(baseline, i));
            let delta = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| (a - b).abs());
            let scale = base.spread.unwrap_or(0.0).max(def.floor);
            let z = match (delta(inc.median, base.median), delta(inc.p95, base.p95)) {
                (Some(m), Some(p)) => Some(m.max(p) / scale),
                _ => None,
            };
            // The way the larger of the two shifts went.
            let up = match (inc.median.zip(base.median), inc.p95.zip(base.p95)) {
                (Some((im, bm)), Some((ip, bp))) if (im - bm).abs() >= (ip - bp).abs() => im > bm,
                (_, Some((ip, bp))) => ip > bp,
                _ => true,
            };
            let better = def.worse_higher.is_some_and(|w| w != up);
            let severity = if better {
                0.0
            } else {
                def.kinds
                    .iter()
                    .map(|k| (incident.weight(*k) - baseline.weight(*k)).clamp(0.0, 2.0))
                    .fold(0.0, f64::max)
            };
            let mut shift = z.map_or(0.0, |z| 10.0 * (1.0 - (-z / 10.0).exp()));
            if better {
                shift /= 2.0;
            }
            FigureDiff {
                name: def.name.to_string(),
                unit: def.unit.to_string(),
                incident: inc,
                baseline: base,
                z,
                score: shift * (1.0 + severity),
                verdicts: def.kinds.to_vec(),
                severity,
                better,
            }
        })
        .collect();
    let mut kinds: Vec<VerdictKind> = incident
        .verdicts
        .keys()
        .chain(baseline.verdicts.keys())
        .copied()
        .collect();
    kinds.sort();
    kinds.dedup();
    let verdicts = kinds
        .into_iter()
        .map(|kind| VerdictDiff {
            kind,
            incident: incident.verdict_time(kind),
            baseline: baseline.verdict_time(kind),
        })
        .collect();
    (figures, verdicts)
}

/// The variables that matter to the figures, as each side's server last reported them.
pub fn setting_diffs(
    incident: Option<&ServerInfo>,
    baseline: Option<&ServerInfo>,
) -> Vec<SettingDiff> {
    let names = innodebt_server::flavor::VARIABLES
        .iter()
        .filter(|n| !matches!(**n, "hostname" | "port" | "version_comment"));
    names
        .filter_map(|n| {
            let a = incident.and_then(|i| i.var(n)).map(str::to_string);
            let b = baseline.and_then(|i| i.var(n)).map(str::to_string);
            (a != b).then(|| SettingDiff {
                name: (*n).to_string(),
                incident: a,
                baseline: b,
            })
        })
        .collect()
}

/// Whether the two sides are one server: host name, port and label. `None`: the same (or
/// unknown); else a warning naming both.
pub fn different_servers(
    incident: Option<&ServerInfo>,
    baseline: Option<&ServerInfo>,
) -> Option<String> {
    let (a, b) = (incident?, baseline?);
    // A side that does not know its host name (an import from Prometheus: the exporter has no
    // string variables) is told apart by port and version only, not by its label.
    let by_host = a.var("hostname").is_some() == b.var("hostname").is_some();
    let host = |i: &ServerInfo| i.var("hostname").unwrap_or(&i.label).to_string();
    let port = |i: &ServerInfo| i.var("port").unwrap_or_default().to_string();
    let who = |i: &ServerInfo| {
        format!(
            "{}:{} {} {}",
            host(i),
            port(i),
            i.flavor.kind.product(),
            i.version
        )
    };
    let same = (!by_host || host(a) == host(b)) && port(a) == port(b) && a.version == b.version;
    (!same).then(|| {
        format!(
            "the captures are from different servers (incident: {}; baseline: {}): compared \
             anyway — a difference may be the servers', not the incident's",
            who(a),
            who(b)
        )
    })
}

/// Every difference, most telling first.
pub fn rank(
    figures: &[FigureDiff],
    settings: &[SettingDiff],
    changes: &[SettingChange],
    runtime: &[String],
    describe: fn(&FigureDiff) -> String,
) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = figures
        .iter()
        .filter(|f| f.score > 0.0)
        .map(|f| Ranked {
            kind: DiffKind::Figure,
            name: f.name.clone(),
            score: f.score,
            what: describe(f),
        })
        .collect();
    out.extend(settings.iter().map(|s| Ranked {
        kind: DiffKind::Setting,
        name: s.name.clone(),
        score: SETTING_SCORE,
        what: format!(
            "{}: {} in the incident, {} in the baseline",
            s.name,
            s.incident.as_deref().unwrap_or("unknown"),
            s.baseline.as_deref().unwrap_or("unknown")
        ),
    }));
    out.extend(changes.iter().map(|c| Ranked {
        kind: DiffKind::SettingChanged,
        name: c.name.clone(),
        score: SETTING_SCORE,
        what: format!(
            "{} changed during the incident at {}: {} → {}",
            c.name,
            c.at.format("%H:%M:%S"),
            setting_value(c.from),
            setting_value(c.to)
        ),
    }));
    out.extend(runtime.iter().map(|r| Ranked {
        kind: DiffKind::RuntimeChange,
        name: "runtime change".into(),
        score: RUNTIME_SCORE,
        what: r.clone(),
    }));
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}

/// A setting's value as the server prints it (`2000`, `90.5`).
fn setting_value(v: Option<f64>) -> String {
    v.map_or("unknown".into(), |v| v.to_string())
}
