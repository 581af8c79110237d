//! The figures of one moment, measured and judged: exactly the headless JSON contract
//! (`--once --format json`). Unknown figures are `None` → `null`, never a made-up 0. Data only:
//! `measure` measures them from samples, `verdicts` judges them over time, `derive` does both
//! once per sample; everything else reads them.

mod id;
mod judged;
mod rollback;
mod selfcost;
mod suspect;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use innodebt_server::flavor::{FlushRegime, RegimeAge};
use innodebt_server::sample::SourceKind;

pub use id::{FigureId, Unit, UnknownRule};
pub use judged::{
    Bound, Missing, PassedOver, RateOrigin, Recovery, RecoveryEvidence, Severity, Sizing, Verdict,
    VerdictKind,
};
pub use rollback::Rollback;
pub use selfcost::{SelfCost, StatementMs};
pub use suspect::Suspect;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub server: ServerFigures,
    pub sampled_at: DateTime<Utc>,
    /// Seconds between the two samples the rates come from.
    pub interval_s: Option<f64>,
    pub redo: Redo,
    pub flush: Flush,
    pub history: History,
    pub purge: Purge,
    pub blocker: Option<Blocker>,
    pub dirty: Dirty,
    pub undo: Undo,
    /// The rollback segments writers share and whether they queue on them.
    #[serde(default)]
    pub rollback: Rollback,
    /// What the figures mean, most severe first (`healthy` alone when nothing holds).
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// If the server crashed now: redo to apply and the estimated recovery time.
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// Peak checkpoint age over the session and the redo capacity that would keep it below
    /// the async point with headroom.
    #[serde(default)]
    pub sizing: Option<Sizing>,
    /// Every INNODB_METRICS counter the panels use that is switched off.
    #[serde(default)]
    pub metrics_off: Vec<String>,
    /// Every source the server refused (or could not give), the privilege that would unlock
    /// it, and which of the figures above are `null` because of it.
    #[serde(default)]
    pub unavailable: Vec<Unreadable>,
    /// Figures no server can produce (derive decides): marked, never drawn as truth.
    #[serde(default)]
    pub suspect: Vec<Suspect>,
    pub warnings: Vec<String>,
    /// What this tick of innodebt cost the server (`null` in replays of older captures).
    #[serde(rename = "self", default)]
    pub self_cost: Option<SelfCost>,
}

/// A source that could not be read, and what that leaves unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unreadable {
    pub source: SourceKind,
    /// The statement or table, as the DBA would run it (`SHOW ENGINE INNODB STATUS`).
    pub what: String,
    /// The privilege that would unlock it (`PROCESS`), when the server said access denied.
    pub privilege: Option<String>,
    /// The server's own words.
    pub error: String,
    /// The figures that are `null` because of it (in JSON their paths: `purge.state`,
    /// `blocker`, `flush.by_source_pages_per_s.sync`).
    pub figures: Vec<FigureId>,
}

impl Unreadable {
    /// `needs PROCESS privilege (GRANT PROCESS ON *.* TO the account)`, else the server's error.
    pub fn reason(&self) -> String {
        match &self.privilege {
            Some(p) => format!("needs {p} privilege (GRANT {p} ON *.* TO the account)"),
            None => self.error.clone(),
        }
    }
}

impl Figures {
    /// The most severe verdict (the first, as the verdicts are ordered); `None` before any.
    pub fn worst_verdict(&self) -> Option<&Verdict> {
        self.verdicts.iter().rev().max_by_key(|v| v.severity)
    }

    /// The sample's severity: the worst of its verdicts ([`Severity::worst_of`]); `None` before
    /// derive judged it.
    pub fn severity(&self) -> Option<Severity> {
        Severity::worst_of(&self.verdicts)
    }

    /// How long the read view blocking purge has been open, seconds: 0 when INNODB_TRX was
    /// read and nothing blocks, `None` when it could not be read (no blocker seen is no proof
    /// of none). The one rule the trigger, compare, the CSV, the exporter and the fleet read.
    pub fn blocker_age_s(&self) -> Option<u64> {
        match &self.blocker {
            Some(b) => Some(b.age_s),
            None if self.refused(SourceKind::InnodbTrx).is_some() => None,
            None => Some(0),
        }
    }

    /// The privilege whose absence keeps `figure` unknown.
    pub fn missing_privilege(&self, figure: FigureId) -> Option<&str> {
        self.unavailable
            .iter()
            .filter(|u| u.figures.contains(&figure))
            .find_map(|u| u.privilege.as_deref())
    }

    /// Why `source` gave nothing for these figures, when it was refused.
    pub fn refused(&self, source: SourceKind) -> Option<&Unreadable> {
        self.unavailable.iter().find(|u| u.source == source)
    }

    /// `needs PROCESS privilege` when a missing privilege keeps any of `figures` unknown:
    /// what a panel shows instead of a bare `n/a`.
    pub fn privilege_note(&self, figures: &[FigureId]) -> Option<String> {
        figures
            .iter()
            .find_map(|f| self.missing_privilege(*f))
            .map(|p| format!("needs {p} privilege"))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerFigures {
    pub flavor: String,
    pub version: String,
    pub uptime_s: Option<u64>,
    /// Where we are connected (never credentials).
    pub label: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Redo {
    pub lsn: Option<u64>,
    pub checkpoint_lsn: Option<u64>,
    pub checkpoint_age_bytes: Option<u64>,
    pub capacity_bytes: Option<u64>,
    /// Where redo-driven flushing starts with `innodb_adaptive_flushing=ON`:
    /// `innodb_adaptive_flushing_lwm` % of the capacity the flavour takes it of
    /// (`buf0flu.cc af_get_pct_for_lsn` / `Adaptive_flush::get_pct_for_lsn`, MariaDB
    /// `af_needed_for_redo`).
    #[serde(default)]
    pub adaptive_lwm_bytes: Option<u64>,
    /// `innodb_adaptive_flushing_lwm` itself (10 unless the server says otherwise).
    #[serde(default)]
    pub adaptive_lwm_pct: Option<f64>,
    /// `innodb_adaptive_flushing` (`null` when the server did not say; ON by default).
    #[serde(default)]
    pub adaptive_flushing: Option<bool>,
    /// The async point: checkpoint age at which the server flushes hard (with adaptive
    /// flushing OFF, where MySQL starts). On MySQL 8.0.13+ that is `log_max_modified_age_async`
    /// minus the free-check margin (≈ 5 % of capacity), not the counter itself.
    pub async_point_bytes: Option<u64>,
    /// Where user threads stall: MySQL 5.7 (and MariaDB < 10.5.7) the sync point; MySQL 8.0+
    /// the free-check limit where every write waits for the checkpoint; MariaDB the
    /// furious-flush point M (`Innodb_checkpoint_max_age`; there is no separate sync point).
    /// The recovery worst case is taken here.
    pub sync_point_bytes: Option<u64>,
    /// What the stall line is called on this flavour ("sync", "stall", "furious flush (M)").
    pub sync_point_name: String,
    /// MySQL 5.7 / MariaDB < 10.5.7: `max_checkpoint_age`, where a synchronous checkpoint is
    /// forced (`log0log.cc log_checkpoint_margin`); the age can pass the sync point up to it.
    /// The recovery worst case is taken here where it is known. `null` elsewhere.
    #[serde(default)]
    pub max_checkpoint_age_bytes: Option<u64>,
    /// MySQL 8.0+: what the `log_max_modified_age_async` / `_sync` counters report (the
    /// server acts a concurrency margin before them). `null` elsewhere.
    #[serde(default)]
    pub counter_async_bytes: Option<u64>,
    #[serde(default)]
    pub counter_sync_bytes: Option<u64>,
    /// MySQL 8.0+: where sync flushing starts — the page cleaner stops respecting
    /// `innodb_io_capacity` (age + margin past the sync counter). `null` elsewhere.
    #[serde(default)]
    pub sync_flush_bytes: Option<u64>,
    pub checkpoint_age_pct_of_capacity: Option<f64>,
    /// Redo generated per second: the LSN's advance (`Innodb_os_log_written` only where no
    /// LSN is readable; it overstates on MySQL/Percona).
    pub written_bytes_per_s: Option<f64>,
    /// Seconds until checkpoint age reaches the async point if the checkpoint stopped
    /// advancing and redo kept being written at the current rate (0 once past it; `null`
    /// when unknown or when no redo is being written).
    #[serde(default)]
    pub seconds_to_async_point: Option<f64>,
    /// The same for the sync point (MariaDB: M), where user threads stall.
    #[serde(default)]
    pub seconds_to_sync_point: Option<f64>,
    /// Checkpoint age against the flush points: `ok` below async, `warning` past async,
    /// `critical` past sync (MariaDB: M). `null` while the age or the points are unknown.
    #[serde(default)]
    pub severity: Option<Severity>,
    /// What the page cleaner does for redo at this age, by the flavour's rules: `below_lwm`,
    /// `adaptive`, `adaptive_off`, `past_async`, `sync_flush`, `past_stall`. Each line is
    /// judged on the age the server judges it on (docs/flushing.md): the lwm and adaptive
    /// flushing on the oldest dirty page's (`flush_regime_age` says which age was used).
    #[serde(default)]
    pub flush_regime: Option<FlushRegime>,
    /// The age of the oldest dirty page: current LSN − the oldest modification in the buffer
    /// pool, what the page cleaner judges its lwm and adaptive rate on — INNODB_METRICS
    /// `log_lsn_buf_pool_oldest_approx` (MySQL 8.0.13+) or `log_lsn_buf_pool_oldest` where
    /// counting, else SEIS `Pages flushed up to` (MariaDB, MySQL 5.7). 0 with nothing dirty;
    /// never more than the checkpoint age. `null` when unread.
    #[serde(default)]
    pub oldest_page_age_bytes: Option<u64>,
    /// MySQL 8.0+: current LSN − SEIS `Pages flushed up to`, which there is
    /// `available_for_checkpoint_lsn`: what sync flushing is judged on, at most the flush-order
    /// lag above the oldest page's age. `null` elsewhere.
    #[serde(default)]
    pub checkpoint_candidate_age_bytes: Option<u64>,
    /// Which age the line that decided `flush_regime` was judged on: `oldest_page` (the lwm,
    /// adaptive flushing; MySQL's async point, 5.7's sync point); `checkpoint_candidate` (MySQL
    /// 8.0+'s sync flushing, or its SEIS stand-in for the oldest page); `checkpoint` (MariaDB's
    /// async and M, MySQL 8's stall: the server's own); `checkpoint_stand_in` (the oldest
    /// page's age unread: the checkpoint age, never smaller, so the regime may read higher
    /// than the server's). Judged with `flush_regime`.
    #[serde(default)]
    pub flush_regime_age: Option<RegimeAge>,
}

impl Redo {
    /// The most checkpoint age the server lets build up: `max_checkpoint_age` where known,
    /// else the stall line.
    pub fn worst_case_age_bytes(&self) -> Option<u64> {
        self.max_checkpoint_age_bytes
            .or(self.sync_point_bytes)
            .filter(|s| *s > 0)
    }
}

impl Redo {
    /// The age `flush_regime_age` names.
    pub fn flush_regime_age_bytes(&self) -> Option<u64> {
        self.age_bytes(self.flush_regime_age?)
    }

    /// The age of that kind.
    pub fn age_bytes(&self, kind: RegimeAge) -> Option<u64> {
        match kind {
            RegimeAge::OldestPage => self.oldest_page_age_bytes,
            RegimeAge::CheckpointCandidate => self.checkpoint_candidate_age_bytes,
            RegimeAge::Checkpoint | RegimeAge::CheckpointStandIn => self.checkpoint_age_bytes,
        }
    }

    /// Which age the flush regime was judged on, in the panel's words: `oldest dirty page 3.1
    /// MiB`, `oldest dirty page ≤ 3.1 MiB` (MySQL 8's SEIS candidate), or that the checkpoint
    /// age stood in for an unread oldest page. Nothing where the server judges that line on
    /// the checkpoint age itself (the age shown beside it).
    pub fn flush_regime_age_words(&self) -> Option<String> {
        match self.flush_regime_age? {
            RegimeAge::Checkpoint => None,
            RegimeAge::CheckpointStandIn => Some(RegimeAge::CheckpointStandIn.words().into()),
            judged => Some(format!(
                "{} {}",
                judged.words(),
                crate::units::bytes(self.flush_regime_age_bytes()?)
            )),
        }
    }

    /// Checkpoint age as a percentage of the async point.
    pub fn pct_of_async(&self) -> Option<f64> {
        match (self.checkpoint_age_bytes, self.async_point_bytes) {
            (Some(a), Some(p)) if p > 0 => Some(a as f64 * 100.0 / p as f64),
            _ => None,
        }
    }
}

/// Seconds of redo headroom before `point` at `rate` bytes/s: 0 once past it, `None` when
/// unknown or when nothing is written (the point is never reached).
pub fn seconds_to_point(age: Option<u64>, point: Option<u64>, rate: Option<f64>) -> Option<f64> {
    match (age, point, rate) {
        (Some(a), Some(p), _) if a >= p => Some(0.0),
        (Some(a), Some(p), Some(r)) if r > 0.0 && r.is_finite() => Some((p - a) as f64 / r),
        _ => None,
    }
}

/// Where flushed pages come from, as the flush panel lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlushSource {
    Adaptive,
    Lru,
    Sync,
    Background,
    Neighbor,
}

impl FlushSource {
    pub const ALL: [FlushSource; 5] = [
        FlushSource::Adaptive,
        FlushSource::Lru,
        FlushSource::Sync,
        FlushSource::Background,
        FlushSource::Neighbor,
    ];

    /// As the panel names it: `adaptive`, `LRU`, …
    pub fn label(self) -> &'static str {
        match self {
            FlushSource::Adaptive => "adaptive",
            FlushSource::Lru => "LRU",
            FlushSource::Sync => "sync",
            FlushSource::Background => "background",
            FlushSource::Neighbor => "neighbor",
        }
    }

    /// Its flush rate as a figure.
    pub fn figure(self) -> FigureId {
        match self {
            FlushSource::Adaptive => FigureId::FlushAdaptive,
            FlushSource::Lru => FigureId::FlushLru,
            FlushSource::Sync => FigureId::FlushSync,
            FlushSource::Background => FigureId::FlushBackground,
            FlushSource::Neighbor => FigureId::FlushNeighbor,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BySource {
    pub adaptive: Option<f64>,
    pub lru: Option<f64>,
    pub sync: Option<f64>,
    pub background: Option<f64>,
    pub neighbor: Option<f64>,
}

impl BySource {
    /// Pages per second flushed by `source`.
    pub fn get(&self, source: FlushSource) -> Option<f64> {
        match source {
            FlushSource::Adaptive => self.adaptive,
            FlushSource::Lru => self.lru,
            FlushSource::Sync => self.sync,
            FlushSource::Background => self.background,
            FlushSource::Neighbor => self.neighbor,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Flush {
    pub total_pages_per_s: Option<f64>,
    pub by_source_pages_per_s: BySource,
    /// Flush-list flushing ≈ total − LRU, for when the per-source counters are off.
    pub flush_list_pages_per_s: Option<f64>,
    /// INNODB_METRICS counters this panel needs that are switched off.
    pub disabled_counters: Vec<String>,
    pub io_capacity: Option<u64>,
    pub io_capacity_max: Option<u64>,
    /// The sources whose counters are off (those `disabled_counters`): their rates are
    /// unknown, not zero, and `m` switches them on. A source with another reading (LRU from
    /// status) is not off.
    #[serde(default)]
    pub sources_off: Vec<FlushSource>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub length: Option<u64>,
    /// Growth per second: least squares over the verdicts' trend window once that is seen,
    /// else the change since the previous sample. The one growth every reader shows.
    pub growth_per_s: Option<f64>,
    /// Seconds until `innodb_max_purge_lag` is reached at that growth, when it is set.
    pub seconds_to_max_purge_lag: Option<f64>,
    /// History the oldest read view holds back (history now − history when it started).
    #[serde(default)]
    pub held_back: Option<u64>,
    /// What holds history now, as the verdict names it (`blocked_by_read_view`,
    /// `history_held_by_open_writes`), with its severity: set once in derive so the History
    /// panel, the verdict line and JSON name the same holder. `null` when nothing holds it
    /// (or INNODB_TRX is unreadable: see `purge.blocked`).
    #[serde(default)]
    pub held_by: Option<HeldBy>,
}

/// What keeps history from being purged or freed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum HeldBy {
    /// A read view purge cannot pass (`purge.blocked`): its transaction is `blocker`.
    ReadView {
        trx_id: String,
        thread_id: Option<u64>,
        age_s: u64,
        severity: Severity,
    },
    /// Purge has caught up, but open read-write transactions keep the history it processed
    /// from being freed (MariaDB with MDEV-32050): the oldest of them, and how many are open.
    OpenWrites {
        trx_id: Option<String>,
        thread_id: Option<u64>,
        age_s: Option<u64>,
        open: Option<u64>,
        severity: Severity,
    },
}

impl HeldBy {
    pub fn severity(&self) -> Severity {
        match self {
            HeldBy::ReadView { severity, .. } | HeldBy::OpenWrites { severity, .. } => *severity,
        }
    }

    pub fn thread_id(&self) -> Option<u64> {
        match self {
            HeldBy::ReadView { thread_id, .. } | HeldBy::OpenWrites { thread_id, .. } => *thread_id,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Purge {
    /// Undo records purged per second (del-mark + update/extern).
    pub records_per_s: Option<f64>,
    pub undo_pages_per_s: Option<f64>,
    /// Rows updated + deleted per second: the records purge will have to process later.
    pub inflow_records_per_s: Option<f64>,
    /// The delay InnoDB's formula gives each DML row now, µs (0 when lag is off).
    pub dml_delay_us: Option<u64>,
    /// What writes actually pay now, µs: the formula's delay, except on flavours that don't
    /// apply it while a read view blocks purge (`blocked`; MariaDB 10.11, measured) — there it
    /// is 0 and `dml_delay_us` is only armed.
    #[serde(default)]
    pub dml_delay_applied_us: Option<u64>,
    pub state: Option<String>,
    pub threads: Option<u64>,
    /// `innodb_purge_threads` can be changed without a restart: the server's own
    /// `SYSTEM_VARIABLES.READ_ONLY` where it has one (MariaDB), else the flavour's table.
    #[serde(default)]
    pub threads_dynamic: Option<bool>,
    pub batch_size: Option<u64>,
    pub max_purge_lag: Option<u64>,
    pub max_purge_lag_delay_us: Option<u64>,
    /// A read view keeps purge from passing it now: the oldest one holds back real history
    /// (or history grows steadily behind it, or purge stood still behind it while
    /// transactions committed) and history is not falling. `null` when INNODB_TRX is
    /// unreadable: an unseen blocker is not "no blocker".
    #[serde(default)]
    pub blocked: Option<bool>,
    /// How far purge is behind, in transaction numbers: SEIS `Trx id counter` − `Purge done
    /// for trx's n:o <` of the last SEIS read (ids and commit numbers share the counter, so a
    /// write transaction counts about 2; on MySQL an INSERT-only one counts 1 and leaves no
    /// history, so there the numbers alone overstate — see `lag_transactions`). Small: purge
    /// has caught up, whatever the history length says; large and growing: purge cannot
    /// proceed or cannot keep up. (`lag_trx` before schema 2: read under that name from older
    /// state.)
    #[serde(default, alias = "lag_trx")]
    pub lag_trx_numbers: Option<u64>,
    /// How long ago purge's position was the newest commit: seconds back from the last SEIS
    /// read to when `Trx id counter` stood where `Purge done for trx's n:o <` stands, from
    /// the counter's own readings. What a DBA can act on, where `lag_trx_numbers` counts
    /// numbers. 0 where history is empty and an INSERT-only transaction leaves none (MySQL):
    /// the counter ran ahead of a purge with nothing to do.
    #[serde(default)]
    pub lag_s: Option<f64>,
    /// How `lag_s` was found: between two readings, extrapolated at the counter's rate, or
    /// only a lower bound (the counter did not move).
    #[serde(default)]
    pub lag_s_from: Option<LagSecondsFrom>,
    /// An estimate of the committed read-write transactions purge is behind:
    /// `lag_trx_numbers` over the numbers each one takes; where an INSERT-only transaction
    /// leaves no history (MySQL), at most the history length — 0 with an empty history (see
    /// `lag_transactions_basis`).
    #[serde(default)]
    pub lag_transactions: Option<u64>,
    /// What `lag_transactions` rests on, in words.
    #[serde(default)]
    pub lag_transactions_basis: Option<String>,
    /// How far purge's position (`Purge done for trx's n:o <`) moved between the last two
    /// SEIS reads for each number the trx id counter moved: about 1 when purge keeps pace
    /// with the commits, 0 when it stands still (a read view) — also behind a counter that
    /// did not move. `null` with one read, or when nothing committed in between and purge
    /// was caught up or moved.
    #[serde(default)]
    pub pace: Option<f64>,
    /// Purge moves with the commits: `false` when its pace stood under 0.1 while it was at
    /// least 100 transaction numbers behind (what the verdicts call standing still; the Purge
    /// panel's "not moving"), `null` without a pace or a lag. Judged once in derive.
    #[serde(default)]
    pub moving: Option<bool>,
    /// How far back that pace looks: seconds from the older of the two SEIS reads to this
    /// sample. A read view younger than this may not have been there while purge kept pace.
    #[serde(default)]
    pub pace_over_s: Option<f64>,
    /// Open transactions (INNODB_TRX's count; `null` where the server cannot count them in
    /// the same statement: no window functions).
    #[serde(default)]
    pub open_trx: Option<u64>,
    /// Open read-write transactions: those with a transaction id (a write, or a locking
    /// read). On MariaDB ≥ 10.6.16 one of them keeps purge from freeing any history.
    #[serde(default)]
    pub open_rw_trx: Option<u64>,
    /// The oldest read-write transaction among the oldest INNODB_TRX rows read.
    #[serde(default)]
    pub oldest_rw: Option<OldestRw>,
}

impl Purge {
    /// Purge's lag as panels and text say it: `caught up`, `12s`, `≈12s` (extrapolated at
    /// the counter's rate), `≥30s` (the counter stood still), then the transactions estimate
    /// (`≤7292 trx`). `None` while no recent SEIS gave purge's position.
    pub fn lag_words(&self) -> Option<String> {
        let numbers = self.lag_trx_numbers?;
        // No transaction behind: on MySQL an INSERT-only load moves the counter, not history.
        if numbers == 0 || self.lag_transactions == Some(0) {
            return Some("caught up".into());
        }
        let secs = self.lag_s.map(|s| {
            let mark = match self.lag_s_from {
                Some(LagSecondsFrom::CounterRate) => "≈",
                Some(LagSecondsFrom::AtLeast) => "≥",
                _ => "",
            };
            format!("{mark}{}", crate::units::secs(s.round()))
        });
        let trx = self
            .lag_transactions
            .map(|t| format!("≤{} trx", crate::units::count(t as f64)));
        Some(match (secs, trx) {
            (Some(s), Some(t)) => format!("{s}, {t}"),
            (Some(s), None) => s,
            (None, Some(t)) => t,
            (None, None) => format!("{} trx numbers", crate::units::count(numbers as f64)),
        })
    }

    /// Purge's lag in the unit the Purge panel shows (`lag_words`' transactions, on their
    /// basis): `≤220 transactions`; the numbers only where there is no estimate.
    pub fn lag_in_transactions(&self) -> Option<String> {
        let count = |n: u64| crate::units::count(n as f64);
        match (self.lag_transactions, self.lag_trx_numbers) {
            (_, Some(0)) => Some("0 transactions".into()),
            (Some(t), _) => Some(format!(
                "≤{} {}",
                count(t),
                if t == 1 {
                    "transaction"
                } else {
                    "transactions"
                }
            )),
            (None, Some(n)) => Some(format!("{} transaction numbers", count(n))),
            (None, None) => None,
        }
    }
}

/// How purge's lag in seconds was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LagSecondsFrom {
    /// The counter passed purge's position between two of its readings (or purge is at it).
    Readings,
    /// Before the oldest reading kept: extrapolated at the counter's mean rate over them.
    CounterRate,
    /// The counter did not move over the readings: at least this long.
    AtLeast,
}

/// A read-write transaction, as much as the oldest-transactions read tells.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OldestRw {
    pub trx_id: String,
    pub thread_id: Option<u64>,
    pub age_s: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Blocker {
    pub trx_id: String,
    pub thread_id: Option<u64>,
    pub user: Option<String>,
    pub host: Option<String>,
    pub age_s: u64,
    pub state: String,
    pub query: Option<String>,
    pub isolation: Option<String>,
    pub command: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dirty {
    pub pages: Option<u64>,
    pub data_pages: Option<u64>,
    pub free_pages: Option<u64>,
    /// InnoDB's own ratio: dirty / (data + free) × 100.
    pub pct: Option<f64>,
    pub max_pct: Option<f64>,
    /// The low-water mark of dirty-page flushing; `null` when unknown or off.
    pub lwm_pct: Option<f64>,
    /// `innodb_max_dirty_pages_pct_lwm = 0`: no low-water mark on any flavour, nothing is
    /// flushed for dirtiness until the max.
    #[serde(default)]
    pub lwm_off: bool,
    pub bytes: Option<u64>,
    /// Dirty pages against `innodb_max_dirty_pages_pct`: `warning` at or past it (InnoDB
    /// flushes hard there; not an outage), else `ok`. `null` while either is unknown.
    #[serde(default)]
    pub severity: Option<Severity>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Undo {
    pub size_bytes: Option<u64>,
    /// Undo pages read from disk per second: undo no longer cached.
    pub reads_per_s: Option<f64>,
    /// Undo pages in the buffer pool at the last residency scan.
    pub cached_pages: Option<u64>,
    pub resident_pct: Option<f64>,
    /// When the last residency scan ran.
    pub scanned_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_to_a_point_is_headroom_over_the_write_rate() {
        assert_eq!(
            seconds_to_point(Some(100), Some(1_100), Some(10.0)),
            Some(100.0)
        );
        assert_eq!(
            seconds_to_point(Some(1_200), Some(1_100), Some(10.0)),
            Some(0.0)
        );
        assert_eq!(seconds_to_point(Some(1_200), Some(1_100), None), Some(0.0));
        // Nothing written: the point is never reached, so there is no time to give.
        assert_eq!(seconds_to_point(Some(100), Some(1_100), Some(0.0)), None);
        assert_eq!(seconds_to_point(None, Some(1_100), Some(5.0)), None);
        let r = Redo {
            checkpoint_age_bytes: Some(50),
            async_point_bytes: Some(200),
            ..Default::default()
        };
        assert_eq!(r.pct_of_async(), Some(25.0));
    }

    #[test]
    fn purge_lag_is_said_in_seconds_and_transactions() {
        let mut p = Purge {
            lag_trx_numbers: Some(14_584),
            lag_s: Some(12.3),
            lag_s_from: Some(LagSecondsFrom::CounterRate),
            lag_transactions: Some(7_292),
            ..Default::default()
        };
        assert_eq!(p.lag_words().as_deref(), Some("≈12s, ≤7292 trx"));
        p.lag_s_from = Some(LagSecondsFrom::AtLeast);
        assert_eq!(p.lag_words().as_deref(), Some("≥12s, ≤7292 trx"));
        p.lag_s = None;
        assert_eq!(p.lag_words().as_deref(), Some("≤7292 trx"));
        // The verdicts' words: the same transactions, spelt out.
        assert_eq!(
            p.lag_in_transactions().as_deref(),
            Some("≤7292 transactions")
        );
        p.lag_trx_numbers = Some(0);
        assert_eq!(p.lag_words().as_deref(), Some("caught up"));
        assert_eq!(p.lag_in_transactions().as_deref(), Some("0 transactions"));
        p.lag_trx_numbers = None;
        assert_eq!(p.lag_words(), None);
        p.lag_transactions = None;
        assert_eq!(p.lag_in_transactions(), None);
    }

    /// The numbers are `lag_trx_numbers` (schema 2); state stored as `lag_trx` still reads.
    #[test]
    fn purge_lag_numbers_have_their_own_name() {
        let p = Purge {
            lag_trx_numbers: Some(440),
            ..Default::default()
        };
        let json = serde_json::to_value(&p).unwrap_or_default();
        assert_eq!(json["lag_trx_numbers"], 440);
        assert!(json.get("lag_trx").is_none());
        let old: Purge = serde_json::from_str(r#"{"lag_trx": 440}"#).expect("old name");
        assert_eq!(old.lag_trx_numbers, Some(440));
    }
}
