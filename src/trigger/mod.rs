//! Triggered capture: what turns an incident on (`--trigger`: verdict kinds, or thresholds on
//! a figure such as `history>1000000`), the watch that keeps the last `--before` of events in
//! memory and says when an incident file opens and closes (`watch`, pure: times come from the
//! events), and the files themselves with `--max-disk` and `--exec` (`files`, the I/O half
//! `record` and `serve` share).

pub mod files;
mod watch;

use std::fmt;
use std::time::Duration;

use crate::cli::TriggerArgs;
use innodebt_engine::figures::{FigureId, Figures, Unit, VerdictKind};

pub use watch::{Incident, Step, Watch, WatchConfig};

/// The verdict kinds a trigger may name: those a rule finds (healthy is what holds when
/// nothing is wrong, unknown what no rule could judge).
const VERDICTS: [VerdictKind; 6] = VerdictKind::JUDGED;

/// A figure a threshold can watch, named as in the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Checkpoint age as a percentage of the redo capacity.
    CheckpointAgePct,
    /// Checkpoint age as a percentage of the async point.
    CheckpointAgePctOfAsync,
    /// History list length (undo logs not yet purged).
    History,
    /// Age of the oldest read view's transaction, seconds.
    BlockerAge,
    /// Dirty pages as InnoDB's own percentage.
    DirtyPct,
    /// The DML delay writes pay now, µs.
    DmlDelayUs,
    /// Any other number of the figures, by its JSON path (`redo.checkpoint_age_bytes`,
    /// `purge.lag_s`): the registry's ([`FigureId::number`]), so a figure added there can be
    /// watched at once.
    Id(FigureId),
}

impl Figure {
    /// Every figure a threshold can watch (the perfdata of `check` iterates them too).
    pub const ALL: [Figure; 6] = [
        Figure::CheckpointAgePct,
        Figure::CheckpointAgePctOfAsync,
        Figure::History,
        Figure::BlockerAge,
        Figure::DirtyPct,
        Figure::DmlDelayUs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Figure::CheckpointAgePct => "checkpoint_age_pct",
            Figure::CheckpointAgePctOfAsync => "checkpoint_age_pct_of_async",
            Figure::History => "history",
            Figure::BlockerAge => "blocker_age",
            Figure::DirtyPct => "dirty_pct",
            Figure::DmlDelayUs => "dml_delay_us",
            Figure::Id(id) => id.path(),
        }
    }

    /// The figure's value now; `None` while unknown (an unknown figure never triggers).
    pub fn value(self, f: &Figures) -> Option<f64> {
        match self {
            Figure::CheckpointAgePct => f.redo.checkpoint_age_pct_of_capacity,
            Figure::CheckpointAgePctOfAsync => f.redo.pct_of_async(),
            Figure::History => f.history.length.map(|v| v as f64),
            Figure::BlockerAge => f.blocker_age_s().map(|s| s as f64),
            Figure::DirtyPct => f.dirty.pct,
            Figure::DmlDelayUs => f.purge.dml_delay_applied_us.map(|v| v as f64),
            Figure::Id(id) => id.number(f),
        }
    }

    pub fn is_pct(self) -> bool {
        match self {
            Figure::Id(id) => id.unit() == Unit::Percent,
            f => matches!(
                f,
                Figure::CheckpointAgePct | Figure::DirtyPct | Figure::CheckpointAgePctOfAsync
            ),
        }
    }

    /// A figure by its threshold name, or any number of the registry by its JSON path.
    pub fn from_name(name: &str) -> Option<Figure> {
        Figure::ALL
            .iter()
            .copied()
            .find(|f| f.name() == name)
            .or_else(|| {
                FigureId::from_path(name)
                    .filter(|id| id.unit().is_number())
                    .map(Figure::Id)
            })
    }

    /// Durations (`5m`) are accepted for it.
    fn takes_duration(self) -> bool {
        match self {
            Figure::BlockerAge => true,
            Figure::Id(id) => id.unit() == Unit::Seconds,
            _ => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Above,
    AtLeast,
    Below,
    AtMost,
}

impl Op {
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Above => ">",
            Op::AtLeast => ">=",
            Op::Below => "<",
            Op::AtMost => "<=",
        }
    }

    fn holds(self, v: f64, limit: f64) -> bool {
        match self {
            Op::Above => v > limit,
            Op::AtLeast => v >= limit,
            Op::Below => v < limit,
            Op::AtMost => v <= limit,
        }
    }
}

/// One thing that turns an incident on.
#[derive(Debug, Clone, PartialEq)]
pub enum Trigger {
    Verdict(VerdictKind),
    Threshold {
        figure: Figure,
        op: Op,
        value: f64,
        /// As the user wrote it (for messages, file names and `INNODEBT_VERDICT`).
        text: String,
    },
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::Verdict(k) => f.write_str(k.as_str()),
            Trigger::Threshold { text, .. } => f.write_str(text),
        }
    }
}

/// Why a trigger holds in one sample: which trigger, and in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// The verdict kind or the threshold expression (`INNODEBT_VERDICT`).
    pub trigger: String,
    /// The verdict's own message, or `history 1234567 > 1000000`.
    pub message: String,
}

impl Trigger {
    /// Whether it holds in these figures, and why.
    pub fn holds(&self, f: &Figures) -> Option<Cause> {
        match self {
            Trigger::Verdict(kind) => f.verdicts.iter().find(|v| v.kind == *kind).map(|v| Cause {
                trigger: kind.as_str().to_string(),
                message: v.message.clone(),
            }),
            Trigger::Threshold {
                figure,
                op,
                value,
                text,
            } => {
                let now = figure.value(f)?;
                op.holds(now, *value).then(|| Cause {
                    trigger: text.clone(),
                    message: format!(
                        "{} {} {} {}",
                        figure.name(),
                        trim(now),
                        op.symbol(),
                        trim(*value)
                    ),
                })
            }
        }
    }
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The first trigger of `set` holding in `f`.
pub fn first_holding(set: &[Trigger], f: &Figures) -> Option<Cause> {
    set.iter().find_map(|t| t.holds(f))
}

/// Default `--before`, `--after`, `--cooldown` and `--max-disk`.
pub const DEFAULT_BEFORE: Duration = Duration::from_secs(300);
pub const DEFAULT_AFTER: Duration = Duration::from_secs(120);
pub const DEFAULT_COOLDOWN: Duration = Duration::from_secs(300);
pub const DEFAULT_MAX_DISK: u64 = 1 << 30;
/// Default `--exec-timeout`: a pager or a profiler run has had its chance by then.
pub const DEFAULT_EXEC_TIMEOUT: Duration = Duration::from_secs(60);
/// The `--before` window lives in memory: an hour is the most it may hold.
pub const MAX_BEFORE: Duration = Duration::from_secs(3600);

/// What `--trigger` and its companions ask for: `None` without `--trigger` (then a companion
/// given alone is an error naming it).
pub fn from_args(a: &TriggerArgs) -> Result<Option<(Vec<Trigger>, WatchConfig)>, String> {
    let Some(spec) = &a.trigger else {
        let alone = [
            ("--before", a.before.is_some()),
            ("--after", a.after.is_some()),
            ("--cooldown", a.cooldown.is_some()),
            ("--exec", a.exec.is_some()),
            ("--exec-timeout", a.exec_timeout.is_some()),
        ];
        return match alone.iter().find(|(_, given)| *given) {
            Some((flag, _)) => Err(format!(
                "{flag} goes with --trigger KIND (it shapes the files of triggered capture); add --trigger, e.g. --trigger blocked_by_read_view"
            )),
            None => Ok(None),
        };
    };
    let triggers = parse(spec)?;
    if a.exec_timeout.is_some() && a.exec.is_none() {
        return Err(
            "--exec-timeout goes with --exec CMD (it bounds how long that command may run)".into(),
        );
    }
    let before = a.before.unwrap_or(DEFAULT_BEFORE);
    if before > MAX_BEFORE {
        return Err(format!(
            "--before {}: the window before an incident is kept in memory, at most 1h; record everything (innodebt record FILE) for longer",
            innodebt_engine::units::duration(before.as_secs())
        ));
    }
    Ok(Some((
        triggers,
        WatchConfig {
            before,
            after: a.after.unwrap_or(DEFAULT_AFTER),
            cooldown: a.cooldown.unwrap_or(DEFAULT_COOLDOWN),
        },
    )))
}

/// `--trigger KIND[,KIND…]`: verdict kinds and thresholds, comma-separated. Every error says
/// what was wrong and what is accepted.
pub fn parse(spec: &str) -> Result<Vec<Trigger>, String> {
    parse_flag("--trigger", spec)
}

/// [`parse`] for another flag that takes the same expressions (`check --warning`); its
/// errors name that flag.
pub fn parse_flag(flag: &str, spec: &str) -> Result<Vec<Trigger>, String> {
    let items: Vec<&str> = spec
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err(format!(
            "{flag} {spec:?} names nothing: give verdict kinds ({}) or thresholds such as history>1000000, comma-separated",
            verdict_names()
        ));
    }
    items.into_iter().map(|i| parse_one(flag, i)).collect()
}

/// Every name `--trigger` takes: the verdict kinds, then the figures a threshold watches
/// (for the docs and their test).
pub fn kind_names() -> impl Iterator<Item = &'static str> {
    VERDICTS
        .iter()
        .map(|k| k.as_str())
        .chain(Figure::ALL.iter().map(|f| f.name()))
}

fn verdict_names() -> String {
    VERDICTS.map(VerdictKind::as_str).join(", ")
}

fn figure_names() -> String {
    Figure::ALL.map(Figure::name).join(", ")
}

fn parse_one(flag: &str, item: &str) -> Result<Trigger, String> {
    let name_of = |s: &str| s.trim().to_ascii_lowercase().replace('-', "_");
    let Some(op_at) = item.find(['>', '<', '=', '!']) else {
        let name = name_of(item);
        if name == "healthy" {
            return Err(format!(
                "{flag} {item:?}: healthy is what holds when nothing is wrong, it cannot start an incident; name a verdict kind ({})",
                verdict_names()
            ));
        }
        if let Some(k) = VERDICTS.iter().find(|k| k.as_str() == name) {
            return Ok(Trigger::Verdict(*k));
        }
        if Figure::from_name(&name).is_some() {
            return Err(format!(
                "{flag} {item:?}: a figure needs a threshold, e.g. {name}>{}",
                example(name_fig(&name))
            ));
        }
        return Err(format!(
            "{flag} {item:?} is neither a verdict kind ({}) nor a threshold FIGURE>VALUE on one of {}",
            verdict_names(),
            figure_names()
        ));
    };
    let (lhs, rest) = item.split_at(op_at);
    let name = name_of(lhs);
    let Some(figure) = Figure::from_name(&name) else {
        return Err(format!(
            "{flag} {item:?}: {:?} is not a figure a threshold can watch; use one of {}, or a \
             number of the JSON by its path (redo.checkpoint_age_bytes, purge.lag_s, …)",
            lhs.trim(),
            figure_names()
        ));
    };
    let (op, value) = if let Some(v) = rest.strip_prefix(">=") {
        (Op::AtLeast, v)
    } else if let Some(v) = rest.strip_prefix("<=") {
        (Op::AtMost, v)
    } else if let Some(v) = rest.strip_prefix('>') {
        (Op::Above, v)
    } else if let Some(v) = rest.strip_prefix('<') {
        (Op::Below, v)
    } else {
        return Err(format!(
            "{flag} {item:?}: compare with >, >=, < or <= (e.g. {}>{})",
            figure.name(),
            example(Some(figure))
        ));
    };
    let value = parse_value(figure, value.trim()).map_err(|why| {
        format!(
            "{flag} {item:?}: {why} (e.g. {}>{})",
            figure.name(),
            example(Some(figure))
        )
    })?;
    Ok(Trigger::Threshold {
        figure,
        op,
        value,
        text: format!(
            "{}{}{}",
            figure.name(),
            op.symbol(),
            rest[op.symbol().len()..].trim()
        ),
    })
}

fn name_fig(name: &str) -> Option<Figure> {
    Figure::from_name(name)
}

fn example(f: Option<Figure>) -> &'static str {
    match f {
        Some(Figure::BlockerAge) => "300s",
        Some(Figure::History) => "1000000",
        Some(Figure::DmlDelayUs) => "1000",
        _ => "80",
    }
}

fn parse_value(figure: Figure, v: &str) -> Result<f64, String> {
    if v.is_empty() {
        return Err("the value is missing".to_string());
    }
    if figure.takes_duration() && v.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return crate::cli::parse_duration(v).map(|d| d.as_secs_f64());
    }
    let (num, pct) = match v.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (v, false),
    };
    if pct && !figure.is_pct() {
        return Err(format!("{} is not a percentage", figure.name()));
    }
    let x: f64 = num
        .replace('_', "")
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("{v:?} is not a number"))?;
    // A registry figure may be negative (history's growth); the named ones never are.
    if x < 0.0 && !matches!(figure, Figure::Id(_)) {
        return Err(format!("{v} is negative; {} never is", figure.name()));
    }
    if figure.is_pct() && figure != Figure::CheckpointAgePctOfAsync && x > 100.0 {
        return Err(format!(
            "{v} is past 100 %, which {} never reaches",
            figure.name()
        ));
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number of the registry can be watched by its JSON path, with the registry's
    /// value: a figure added to `FigureId` needs no line here.
    #[test]
    fn every_number_in_the_registry_is_a_threshold() {
        let mut f = Figures::default();
        f.redo.checkpoint_age_bytes = Some(5_000);
        f.purge.lag_s = Some(12.5);
        for id in FigureId::ALL {
            let spec = format!("{}>=0", id.path());
            match parse(&spec) {
                Ok(t) if id.unit().is_number() => {
                    let Trigger::Threshold { figure, .. } = &t[0] else {
                        panic!("{spec}: {t:?}")
                    };
                    assert_eq!(figure.value(&f), id.number(&f), "{spec}");
                    assert_eq!(t[0].to_string(), spec);
                }
                Err(e) if !id.unit().is_number() => {
                    assert!(e.contains("not a figure a threshold can watch"), "{e}")
                }
                other => panic!("{spec}: {other:?}"),
            }
        }
        let t = parse("redo.checkpoint_age_bytes>4000,purge.lag_s>=10s").expect("parses");
        assert!(first_holding(&t[..1], &f).is_some());
        assert!(first_holding(&t[1..], &f).is_some());
        f.purge.lag_s = None;
        assert!(
            first_holding(&t[1..], &f).is_none(),
            "unknown never triggers"
        );
    }

    #[test]
    fn verdicts_and_thresholds_parse() {
        let t = parse("blocked_by_read_view, purge-lag-trap,checkpoint_age_pct>80,history>=1_000_000,blocker_age>5m")
            .unwrap();
        assert_eq!(t.len(), 5);
        assert_eq!(t[0], Trigger::Verdict(VerdictKind::BlockedByReadView));
        assert_eq!(t[1], Trigger::Verdict(VerdictKind::PurgeLagTrap));
        assert!(
            matches!(t[2], Trigger::Threshold { figure: Figure::CheckpointAgePct, op: Op::Above, value, .. } if value == 80.0)
        );
        assert!(
            matches!(t[3], Trigger::Threshold { figure: Figure::History, op: Op::AtLeast, value, .. } if value == 1e6)
        );
        assert!(
            matches!(t[4], Trigger::Threshold { figure: Figure::BlockerAge, value, .. } if value == 300.0)
        );
        assert_eq!(t[4].to_string(), "blocker_age>5m");
    }

    #[test]
    fn bad_triggers_say_what_is_accepted() {
        let cases = [
            ("", "names nothing"),
            ("healthy", "cannot start an incident"),
            ("blocked", "neither a verdict kind"),
            ("history", "needs a threshold, e.g. history>1000000"),
            ("history=5", "compare with >, >=, < or <="),
            ("history>lots", "\"lots\" is not a number"),
            ("history>", "the value is missing"),
            ("checkpoint_age_pct>180", "past 100 %"),
            ("history>5%", "not a percentage"),
            ("blocker_age>soon", "not a duration"),
            ("lsn>5", "not a figure a threshold can watch"),
        ];
        for (input, want) in cases {
            let e = parse(input).expect_err(input);
            assert!(e.contains(want), "{input}: {e}");
            assert!(e.starts_with("--trigger"), "{input}: {e}");
        }
    }

    #[test]
    fn thresholds_hold_on_the_figures() {
        let mut f = Figures::default();
        let t = parse("history>1000,blocker_age>=10s").unwrap();
        assert_eq!(
            first_holding(&t, &f),
            None,
            "unknown history never triggers"
        );
        f.history.length = Some(1001);
        let c = first_holding(&t, &f).unwrap();
        assert_eq!(c.trigger, "history>1000");
        assert_eq!(c.message, "history 1001 > 1000");
        f.history.length = Some(1000);
        assert_eq!(first_holding(&t, &f), None);
        f.blocker = Some(innodebt_engine::figures::Blocker {
            age_s: 10,
            ..Default::default()
        });
        assert_eq!(first_holding(&t, &f).unwrap().trigger, "blocker_age>=10s");
    }
}
