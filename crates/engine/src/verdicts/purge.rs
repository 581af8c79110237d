//! Purge rules: a read view blocking purge, purge too slow for the writes, and the
//! `innodb_max_purge_lag` trap. Each returns what it found in one sample; the engine applies
//! the hysteresis.

use serde::{Deserialize, Serialize};

use crate::figures::Figures;
use crate::measure::series::Series;
use crate::units::{count, duration};
use innodebt_server::flavor::Flavor;
use innodebt_server::sample::SourceKind;

use super::{Finding, Severity, Thresholds};

/// History trend and what the oldest read view holds back, from the engine's series.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Trend {
    /// Least-squares growth over the trend window; `None` until the points span enough time.
    pub growth_per_s: Option<f64>,
    /// The growth is at least the threshold and sustained, not one burst.
    pub steady: bool,
    pub held_back: Option<u64>,
    pub held_back_is_lower_bound: bool,
    /// Seconds the history points in the trend window span: the growth is judged from
    /// [`Thresholds::trend_min_span_s`].
    pub span_s: f64,
}

/// What the engine concludes about purge in one sample, carried on the figures so the
/// panels, the plans and the verdicts' own words show one answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PurgeJudgement {
    /// History growth per second: least squares over the trend window when the points span
    /// enough of it, else this sample's change.
    pub history_growth_per_s: Option<f64>,
    /// Seconds until `innodb_max_purge_lag` is reached at that growth (0 once reached).
    pub seconds_to_max_purge_lag: Option<f64>,
    /// History (undo logs) the oldest read view holds back: HLL now − HLL when it started.
    pub held_back: Option<u64>,
    /// `held_back` is a lower bound: the history series does not reach back to the view's start.
    pub held_back_is_lower_bound: bool,
    /// A read view keeps purge from passing it; `None` when INNODB_TRX is unreadable.
    pub blocked: Option<bool>,
    /// What writes pay now: the formula's delay, 0 where the flavour holds it back while
    /// purge is blocked.
    pub dml_delay_applied_us: Option<u64>,
    /// Purge moves with the commits: `false` when it stood still behind them
    /// ([`purge_stuck`]), `None` without a pace or a lag to say.
    #[serde(default)]
    pub moving: Option<bool>,
}

/// Judges purge from the trend: whether a read view blocks it, how fast history grows, when
/// the purge lag is reached and what writes pay for it.
pub(crate) fn judge(f: &Figures, trend: &Trend, th: &Thresholds, flavor: Flavor) -> PurgeJudgement {
    let growth = trend.growth_per_s.or(f.history.growth_per_s);
    let falling = growth.is_some_and(|g| g <= -th.growth_min_per_s);
    // A read view exists and purge cannot pass it: history is not falling, and the view holds
    // back a real amount of it, or history grows steadily behind it, or purge stood still
    // behind it while transactions committed — what one look at two SEIS reads can prove
    // (`--once`), before any trend is seen. Purge keeping pace with the commits is passing
    // every view: history growing then is held some other way (open read-write transactions
    // on MariaDB, `history_held_by_open_writes`).
    let blocked = if f.blocker.is_some() {
        Some(
            !falling
                && !passed_by_purge(f, th)
                && (trend.held_back.unwrap_or(0) >= th.held_back_min.max(1)
                    || trend.steady
                    || purge_stuck(f, th)),
        )
    } else if f.refused(SourceKind::InnodbTrx).is_some() {
        None
    } else {
        Some(false)
    };
    let lag = f.purge.max_purge_lag.filter(|l| *l > 0);
    let seconds_to_max_purge_lag = match (f.history.length, growth, lag) {
        (Some(len), _, Some(lag)) if len >= lag => Some(0.0),
        (Some(len), Some(g), Some(lag)) if g > 0.0 => Some((lag - len) as f64 / g),
        _ => None,
    };
    let dml_delay_applied_us = match f.purge.dml_delay_us {
        Some(_) if blocked == Some(true) && !flavor.purge_lag_delays_while_blocked() => Some(0),
        d => d,
    };
    PurgeJudgement {
        history_growth_per_s: growth,
        seconds_to_max_purge_lag,
        held_back: trend.held_back,
        held_back_is_lower_bound: trend.held_back_is_lower_bound,
        blocked,
        dml_delay_applied_us,
        moving: moving(f, th),
    }
}

/// Purge moved with the commits between the last two SEIS reads: `false` when it stood still
/// at least [`Thresholds::lag_trx_stuck_min`] behind ([`purge_stuck`]: the verdicts' rule),
/// `None` while the pace or the lag is unknown. `purge.moving`, which the Purge panel's
/// "not moving" reads.
pub(crate) fn moving(f: &Figures, th: &Thresholds) -> Option<bool> {
    f.purge.pace?;
    f.purge.lag_trx_numbers?;
    Some(!purge_stuck(f, th))
}

/// Purge stood still between the last two SEIS reads while transactions committed (its pace
/// under [`Thresholds::pace_stuck`]; measured 0.00 behind a read view on MariaDB 10.11), and
/// stands [`Thresholds::lag_trx_stuck_min`] or more transaction numbers behind.
pub(crate) fn purge_stuck(f: &Figures, th: &Thresholds) -> bool {
    f.purge.pace.is_some_and(|p| p < th.pace_stuck)
        && f.purge
            .lag_trx_numbers
            .is_some_and(|l| l >= th.lag_trx_stuck_min)
}

/// Purge kept pace with the commits between the last two SEIS reads and is at most
/// [`Thresholds::lag_trx_caught_up`] behind: it is passing every read view. Positive evidence
/// over a window, unlike a small lag alone (one read, perhaps taken before a view opened).
pub(crate) fn keeps_pace(f: &Figures, th: &Thresholds) -> bool {
    f.purge.pace.is_some_and(|p| p >= th.pace_keeps_up)
        && f.purge
            .lag_trx_numbers
            .is_some_and(|l| l <= th.lag_trx_caught_up)
}

/// Purge kept pace over a window the oldest read view was open for the whole of: purge is
/// passing it, so it blocks nothing (whatever history does meanwhile). A view younger than
/// the window may have stopped purge since; it is judged as before.
pub(crate) fn passed_by_purge(f: &Figures, th: &Thresholds) -> bool {
    keeps_pace(f, th)
        && match (&f.blocker, f.purge.pace_over_s) {
            (Some(b), Some(over)) => b.age_s as f64 >= over,
            _ => false,
        }
}

/// Purge has caught up: next to the counter (under [`Thresholds::lag_trx_stuck_min`]: at rest),
/// or at most [`Thresholds::lag_trx_caught_up`] behind and keeping pace with the commits
/// between the last two SEIS reads ([`Thresholds::pace_keeps_up`]). Under load one read
/// cannot tell keeping up from standing still, so without a pace it is `None`, as it is
/// without a SEIS read.
pub(crate) fn caught_up(f: &Figures, th: &Thresholds) -> Option<bool> {
    let lag = f.purge.lag_trx_numbers?;
    if lag < th.lag_trx_stuck_min {
        return Some(true);
    }
    f.purge.pace?;
    Some(keeps_pace(f, th))
}

pub(crate) fn trend(history: &Series, t_s: f64, f: &Figures, th: &Thresholds) -> Trend {
    // A trend needs three samples: at a coarse interval (a Prometheus step of 15 s) the
    // window widens to hold them, or history's growth would never be known.
    let window = th
        .trend_window_s
        .max(TREND_SAMPLES_SPAN * f.interval_s.unwrap_or(0.0));
    let pts = history.window(t_s - window);
    let span = match (pts.first(), pts.last()) {
        (Some(a), Some(b)) => b.0 - a.0,
        _ => 0.0,
    };
    let growth_per_s = if pts.len() >= 3 && span >= th.trend_min_span_s {
        slope(&pts)
    } else {
        None
    };
    // "Steadily": the fitted slope, and more than half of the intervals rising. One burst
    // (a step, then flat) has a steep fit but a median step of zero.
    // And history must not have just fallen back: after a blocker commits, the fit over the
    // window still climbs while history is already down (now more than half the window's
    // range below its top).
    let (lo, hi) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let fell_back = pts.last().is_some_and(|p| hi - p.1 > 0.5 * (hi - lo));
    let steady = growth_per_s.is_some_and(|g| g >= th.growth_min_per_s)
        && median_step_rate(&pts).is_some_and(|m| m > 0.0)
        && !fell_back;
    let (held_back, lower_bound) = match (f.blocker.as_ref(), f.history.length) {
        (Some(b), Some(now)) => {
            let started = t_s - b.age_s as f64;
            match history.value_at(started) {
                Some(then) => (Some(now.saturating_sub(then.max(0.0) as u64)), false),
                // The series starts after the view did: what it grew since is at least held back.
                None => {
                    let oldest = history.first().map(|p| p.1);
                    (oldest.map(|o| now.saturating_sub(o.max(0.0) as u64)), true)
                }
            }
        }
        _ => (None, false),
    };
    Trend {
        growth_per_s,
        steady,
        held_back,
        held_back_is_lower_bound: lower_bound,
        span_s: span,
    }
}

/// The trend window, in sampling intervals, when that is wider than the rule's own: room
/// for three samples and a late one's jitter.
const TREND_SAMPLES_SPAN: f64 = 2.5;

/// Least-squares slope of `(t, v)` points.
fn slope(pts: &[(f64, f64)]) -> Option<f64> {
    let n = pts.len() as f64;
    let mt = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let mv = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let (num, den) = pts.iter().fold((0.0, 0.0), |(num, den), (t, v)| {
        (num + (t - mt) * (v - mv), den + (t - mt) * (t - mt))
    });
    (den > 0.0).then(|| num / den)
}

/// Median of the per-interval growth rates.
fn median_step_rate(pts: &[(f64, f64)]) -> Option<f64> {
    let mut rates: Vec<f64> = pts
        .windows(2)
        .filter(|w| w[1].0 > w[0].0)
        .map(|w| (w[1].1 - w[0].1) / (w[1].0 - w[0].0))
        .collect();
    if rates.is_empty() {
        return None;
    }
    rates.sort_by(f64::total_cmp);
    let mid = rates.len() / 2;
    Some(if rates.len().is_multiple_of(2) {
        (rates[mid - 1] + rates[mid]) / 2.0
    } else {
        rates[mid]
    })
}

/// What the purge rules read for one sample.
pub(crate) struct Context<'a> {
    pub f: &'a Figures,
    pub flavor: Flavor,
    pub th: &'a Thresholds,
    pub trend: &'a Trend,
    pub judged: &'a PurgeJudgement,
    /// Purge records/s averaged over the trend window.
    pub purge_avg: Option<f64>,
    /// Rows updated + deleted per second, averaged over the trend window.
    pub inflow_avg: Option<f64>,
    /// A blocker was seen within the trend window: the growth in it is the blocker's doing
    /// (right after a commit history still looks "steadily growing" for a few seconds).
    pub blocker_recent: bool,
}

impl Context<'_> {
    /// The history growth the figures show: smoothed when there is enough of it, else this
    /// sample's.
    fn growth(&self) -> Option<f64> {
        self.judged.history_growth_per_s
    }

    fn growing_steadily(&self) -> bool {
        self.trend.steady
    }

    /// See [`judge`]: the figures carry the same answer.
    fn blocked(&self) -> bool {
        self.judged.blocked == Some(true)
    }
}

/// `blocked_by_read_view`: names the session, what it holds back and the way out.
pub(crate) fn blocked_by_read_view(c: &Context) -> Option<Finding> {
    if !c.blocked() {
        return None;
    }
    let b = c.f.blocker.as_ref()?;
    let thread = b
        .thread_id
        .map_or_else(|| format!("trx {}", b.trx_id), |id| format!("thread {id}"));
    let who = format!(
        "{}@{}",
        b.user.as_deref().unwrap_or("?"),
        b.host.as_deref().unwrap_or("?")
    );
    let what = match (b.query.as_deref(), b.command.as_deref()) {
        (Some(q), _) if !q.trim().is_empty() => format!("It is running: {}", short_query(q)),
        (_, Some("Sleep")) => "It is idle in transaction (no statement running)".to_string(),
        (_, Some(cmd)) => format!("It is in command {cmd}, no statement text"),
        _ => "Its statement text is not available".to_string(),
    };
    // In the Purge panel's unit (transactions), never SEIS's numbers beside it.
    let stuck_lag = purge_stuck(c.f, c.th)
        .then(|| c.f.purge.lag_in_transactions())
        .flatten();
    let held = match (c.trend.held_back, stuck_lag) {
        // Too little history seen to say what it holds back: what one look proves instead.
        (_, Some(lag)) if c.trend.held_back_is_lower_bound => {
            format!("purge stands still {lag} behind")
        }
        (Some(h), _) if c.trend.held_back_is_lower_bound => {
            format!("it holds back ≥ {} undo logs of history", count(h as f64))
        }
        (Some(h), _) => format!("it holds back ~{} undo logs of history", count(h as f64)),
        (None, _) => "it holds back history".to_string(),
    };
    let growth = c
        .growth()
        .map(|g| format!(", {:+.0}/s", g))
        .unwrap_or_default();
    let history =
        c.f.history
            .length
            .map(|h| format!(" (history {}{growth})", count(h as f64)))
            .unwrap_or_default();
    // The way out comes right after who: at 80 columns the verdict's two lines reach about
    // this far.
    let message = format!(
        "{thread} ({who}): commit or kill it (K, asks first) — it has held a read view for {}. \
         Purge cannot pass it: {held}{history}. {what}.",
        duration(b.age_s)
    );
    let critical = c
        .trend
        .held_back
        .is_some_and(|h| h >= c.th.held_back_critical)
        || c.f
            .history
            .length
            .is_some_and(|h| h >= c.th.history_critical);
    Some(Finding {
        severity: if critical {
            Severity::Critical
        } else {
            Severity::Warning
        },
        message,
        thread_id: b.thread_id,
    })
}

/// `purge_lag_trap`: the DML delay while purge is blocked. On flavours that apply the delay
/// anyway (MySQL) every write pays it for nothing; on MariaDB (measured on 10.11: not applied
/// while blocked) it is armed and will throttle writes the moment the blocker goes.
pub(crate) fn purge_lag_trap(c: &Context) -> Option<Finding> {
    if !c.blocked() {
        return None;
    }
    let lag = c.f.purge.max_purge_lag.filter(|l| *l > 0)?;
    let delay = c.f.purge.dml_delay_us.filter(|d| *d > 0)?;
    let history =
        c.f.history
            .length
            .map(|h| count(h as f64))
            .unwrap_or_default();
    let thread = c.f.blocker.as_ref().and_then(|b| b.thread_id).map_or_else(
        || "the oldest read view".to_string(),
        |id| format!("thread {id}"),
    );
    let lag_s = count(lag as f64);
    if c.flavor.purge_lag_delays_while_blocked() {
        Some(Finding {
            severity: Severity::Critical,
            message: format!(
                "innodb_max_purge_lag = {lag_s} with history {history}: every DML row is delayed \
                 {delay} µs while {thread} keeps purge from running. The delay slows every write \
                 and lets purge progress not at all: set innodb_max_purge_lag back to 0 (key l)."
            ),
            thread_id: None,
        })
    } else {
        Some(Finding {
            severity: Severity::Warning,
            message: format!(
                "innodb_max_purge_lag = {lag_s} is armed (history {history}): writes are not \
                 delayed while {thread} blocks purge, but as soon as it commits and purge resumes \
                 every DML row will wait up to {delay} µs until history falls below {lag_s}. Set \
                 innodb_max_purge_lag back to 0 first if writes must not slow (key l)."
            ),
            thread_id: None,
        })
    }
}

/// What a growing history leads to, and when: `innodb_max_purge_lag` (or, when it is off,
/// [`Thresholds::history_critical`]) within [`Thresholds::consequence_horizon_s`] at the
/// smoothed growth, or a history already [`Thresholds::history_large`]. `None`: nothing worth
/// an alarm yet.
pub(crate) fn consequence(f: &Figures, growth: f64, th: &Thresholds) -> Option<String> {
    let h = f.history.length?;
    if h >= th.history_large {
        return Some(format!("history is already {} undo logs", count(h as f64)));
    }
    let (name, target) = match f.purge.max_purge_lag.filter(|l| *l > 0) {
        Some(lag) => (format!("innodb_max_purge_lag {}", count(lag as f64)), lag),
        None => (
            format!("{} undo logs", count(th.history_critical as f64)),
            th.history_critical,
        ),
    };
    if h >= target {
        return Some(format!("history is past {name}"));
    }
    let eta = (target - h) as f64 / growth;
    (growth > 0.0 && eta <= th.consequence_horizon_s)
        .then(|| format!("at this rate it reaches {name} in {}", duration(eta as u64)))
}

/// `purge_too_slow`: no blocker, history growing steadily toward a consequence, purge behind
/// the writes.
pub(crate) fn purge_too_slow(c: &Context) -> Option<Finding> {
    if c.f.blocker.is_some() || c.blocker_recent || !c.growing_steadily() {
        return None;
    }
    // Purge has caught up: the growth is not purge being slow (open write transactions
    // holding history is its own verdict).
    if caught_up(c.f, c.th) == Some(true) {
        return None;
    }
    // Both rates known and purge keeping up: the growth is something else (e.g. a burst of
    // small transactions); say nothing rather than something wrong.
    if let (Some(p), Some(i)) = (c.purge_avg, c.inflow_avg)
        && p >= i
    {
        return None;
    }
    let growth = c.trend.growth_per_s.unwrap_or(0.0);
    // No alarm over nothing: a slow leak far from any consequence is not an incident.
    let consequence = consequence(c.f, growth, c.th)?;
    let f = c.f;
    let history = f
        .history
        .length
        .map(|h| count(h as f64))
        .unwrap_or_default();
    let critical = f.history.length.is_some_and(|h| h >= c.th.history_critical);
    let severity = if critical {
        Severity::Critical
    } else {
        Severity::Warning
    };
    // Without INNODB_TRX no blocker is visible, which is not the same as none: never blame
    // purge (or advise purge threads) for what may be a read view.
    if let Some(u) = f.refused(SourceKind::InnodbTrx) {
        let message = format!(
            "history {history} grows {growth:+.0}/s over the last {:.0} s ({consequence}) and \
             whether a read view blocks purge is unknown: {} {}. Grant it before tuning purge: \
             more purge threads do not help a purge that a read view holds back.",
            c.th.trend_window_s,
            u.what,
            u.reason()
        );
        return Some(Finding {
            severity,
            message,
            thread_id: None,
        });
    }
    let rates = match (c.purge_avg, c.inflow_avg) {
        (Some(p), Some(i)) => format!(
            "purge removes {}/s records, writes add {}/s",
            count(p),
            count(i)
        ),
        (None, Some(i)) => format!(
            "writes add {}/s records; purge counters are off (innodb_monitor_enable = 'module_purge')",
            count(i)
        ),
        _ => "purge counters are off (innodb_monitor_enable = 'module_purge')".to_string(),
    };
    let from_disk = f.undo.reads_per_s.is_some_and(|r| r > 0.0)
        || f.undo.resident_pct.is_some_and(|p| p < 100.0);
    let undo = if from_disk {
        let reads = f
            .undo
            .reads_per_s
            .map(|r| format!("{} pages/s", count(r)))
            .unwrap_or_else(|| "reads".to_string());
        let resident = f
            .undo
            .resident_pct
            .map(|p| format!(", {p:.0} % resident"))
            .unwrap_or_default();
        format!(
            " Undo is being read from disk ({reads}{resident}): purge waits on I/O — keep undo \
             cached (a larger buffer pool; buffer pool dump/load so it is warm after restarts)."
        )
    } else {
        String::new()
    };
    let threads = f
        .purge
        .threads
        .map(|t| format!(" (now {t})"))
        .unwrap_or_default();
    let dynamic = f
        .purge
        .threads_dynamic
        .unwrap_or_else(|| c.flavor.purge_threads_dynamic(None));
    let restart = if dynamic {
        ""
    } else {
        ", needs a restart here"
    };
    let batch = f
        .purge
        .batch_size
        .map(|b| format!(" (now {b})"))
        .unwrap_or_default();
    let message = format!(
        "history {history} grows {:+.0}/s over the last {:.0} s with no read view blocking purge \
         ({consequence}): {rates}.{undo} Give purge more room: \
         innodb_purge_threads{threads}{restart}, innodb_purge_batch_size{batch}.",
        growth, c.th.trend_window_s
    );
    Some(Finding {
        severity,
        message,
        thread_id: None,
    })
}

/// One line of query text, at most ~100 characters.
fn short_query(q: &str) -> String {
    let one_line = q.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 100 {
        let cut: String = one_line.chars().take(97).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_line() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 5.0 + 3.0 * i as f64)).collect();
        assert!((slope(&pts).unwrap_or(0.0) - 3.0).abs() < 1e-9);
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0)]), None);
    }

    #[test]
    fn queries_are_one_short_line() {
        assert_eq!(short_query("SELECT *\n  FROM t"), "SELECT * FROM t");
        let long = "x".repeat(300);
        assert_eq!(short_query(&long).chars().count(), 98);
    }
}
