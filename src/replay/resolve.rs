//! Times from the command line (`--at`, `--from`/`--to`, `compare FILE@FROM..TO`) → samples,
//! checked one way for every command that reads a capture (replay, export, compare, what-if):
//! a time outside the capture is an error that names what the capture holds, and a range that
//! ends before it starts is one too. The dashboard's own seeks and bookmarks clamp instead
//! ([`CaptureSet::index_at`]): there a time past the end simply means the end.

use chrono::{DateTime, Utc};

use super::damage::{secs, span};
use super::set::CaptureSet;
use crate::cli::TimeSpec;

/// How a range's ends are named in its messages.
#[derive(Debug, Clone, Copy)]
pub struct Ends<'a> {
    pub from: &'a str,
    pub to: &'a str,
}

impl Ends<'static> {
    /// `--from` / `--to` (replay, export, what-if).
    pub const OPTIONS: Ends<'static> = Ends {
        from: "--from",
        to: "--to",
    };
    /// `FILE@FROM..TO` (compare).
    pub const RANGE: Ends<'static> = Ends {
        from: "FROM",
        to: "TO",
    };
}

impl CaptureSet {
    /// The time `spec` names: offsets and clock times count from the first sample (`None`
    /// for a set without samples).
    pub fn target_of(&self, spec: TimeSpec) -> Option<DateTime<Utc>> {
        let (start, _) = self.span()?;
        Some(match spec {
            TimeSpec::Offset(d) => start + chrono::Duration::from_std(d).unwrap_or_default(),
            TimeSpec::Instant(t) => t.with_timezone(&Utc),
            TimeSpec::Clock(clock) => start.date_naive().and_time(clock).and_utc(),
        })
    }

    /// `spec`, given as `what` (`--at`), → the first sample at or after it. A time more than
    /// one sample interval (at least a second: clock times are whole seconds) before the first
    /// sample or after the last is an error naming what the capture holds.
    pub fn resolve(&mut self, spec: TimeSpec, what: &str) -> Result<u64, String> {
        Ok(self.resolve_at(spec, what)?.0)
    }

    fn resolve_at(&mut self, spec: TimeSpec, what: &str) -> Result<(u64, DateTime<Utc>), String> {
        let (Some((first, last)), Some(t)) = (self.span(), self.target_of(spec)) else {
            return Err(format!("{}: no samples to read", self.name()));
        };
        let slack = self.interval().max(chrono::Duration::seconds(1));
        let side = if t < first - slack {
            "before"
        } else if t > last + slack {
            "after"
        } else {
            return Ok((self.index_at(t), t));
        };
        // Past the last sample read when damage took what followed.
        let part = if side == "after" && self.damage().is_some() {
            "what can be read of "
        } else {
            ""
        };
        Err(format!(
            "{what} {} is {side} {part}the capture: {}; give a time inside it (e.g. {})",
            given(spec, t, first),
            self.holds(),
            example(first, last),
        ))
    }

    /// The typical time between samples.
    pub fn interval(&self) -> chrono::Duration {
        match (self.span(), self.len()) {
            (Some((a, b)), n) if n > 1 => (b - a) / i32::try_from(n - 1).unwrap_or(i32::MAX),
            _ => chrono::Duration::zero(),
        }
    }

    /// `demo.idbt holds 2026-11-21 21:19:11 → 21:22:40 UTC (3m29s)`, with what damage cost.
    pub fn holds(&self) -> String {
        let Some((first, last)) = self.span() else {
            return format!("{} holds no samples", self.name());
        };
        let damage = self
            .damage()
            .map(|d| format!("; {}", d.summary()))
            .unwrap_or_default();
        format!(
            "{} holds {} → {} UTC ({}{damage})",
            self.name(),
            first.format("%Y-%m-%d %H:%M:%S"),
            clock_or_date(last, first),
            span(secs(last - first)),
        )
    }
}

/// `+10m (21:29:11)`; an RFC 3339 time is its own time.
fn given(spec: TimeSpec, t: DateTime<Utc>, first: DateTime<Utc>) -> String {
    match spec {
        TimeSpec::Instant(_) => spec.to_string(),
        _ => format!("{spec} ({})", clock_or_date(t, first)),
    }
}

/// The time of day, with its date when that is not the capture's first day.
fn clock_or_date(t: DateTime<Utc>, first: DateTime<Utc>) -> String {
    if t.date_naive() == first.date_naive() {
        t.format("%H:%M:%S").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

/// A time inside the capture, as an offset and a clock time: about its middle, rounded down
/// to ten seconds when it is that long.
fn example(first: DateTime<Utc>, last: DateTime<Utc>) -> String {
    let half = secs(last - first).max(0) / 2;
    let half = if half >= 20 { half - half % 10 } else { half };
    let t = first + chrono::Duration::seconds(half);
    format!("+{} or {}", span(half), clock_or_date(t, first))
}

/// `--from`/`--to` (either may be missing: the first and last samples) → samples
/// `first..=last`, each end checked by [`CaptureSet::resolve`]; a range that ends before it
/// starts is an error.
pub fn resolve_range(
    set: &mut CaptureSet,
    from: Option<TimeSpec>,
    to: Option<TimeSpec>,
    ends: Ends<'_>,
) -> Result<(u64, u64), String> {
    let last_sample = set.len().saturating_sub(1);
    let first = from.map(|s| set.resolve_at(s, ends.from)).transpose()?;
    let last = to.map(|s| set.resolve_at(s, ends.to)).transpose()?;
    if let (Some((_, a)), Some((_, b)), Some(fs), Some(ts)) = (first, last, from, to)
        && a > b
    {
        let start = set.span().map_or(a, |(s, _)| s);
        return Err(format!(
            "{} {} is after {} {}: the range ends before it starts; give them in time order",
            ends.from,
            given(fs, a, start),
            ends.to,
            given(ts, b, start),
        ));
    }
    Ok((
        first.map_or(0, |(i, _)| i),
        last.map_or(last_sample, |(i, _)| i),
    ))
}
