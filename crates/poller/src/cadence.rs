//! How often each source is asked, and the latency guard: a source whose round trip goes over
//! the budget (20 % of the refresh interval) is asked less often — twice as seldom each time,
//! up to 16× its cadence — and back step by step once it answers under half the budget again.
//! A source that timed out waits its longest period before it is asked again, never at once.
//! Pure: every call takes `now`, so tests drive it with an injected clock.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub use innodebt_server::sample::{Cadenced, Slowed};

/// A source's round trip over this share of the refresh interval is "slow".
pub const BUDGET_SHARE: f64 = 0.2;
/// Never stretch a cadence more than this.
pub const MAX_STRETCH: u32 = 16;
/// A periodic slow-cadence source (session sums, SEIS, variables) may take at most this share
/// of the server's time: one whose round trip grows with sessions is asked less often, so its
/// cost per tick stays flat (a 9 ms statement: every 90 s at least).
pub const SLOW_SOURCE_SHARE: f64 = 0.0001;

/// How early, as a share of the interval, an ask still counts as due.
const DUE_SLACK: f64 = 0.45;

/// performance_schema's wait summary may take this share of one server thread: 0.1 %, so its
/// 3.3 ms on MariaDB 10.11 (it walks every instrument instance) is asked every 3.3 s — often
/// enough for a latch's wait rate, ten times [`SLOW_SOURCE_SHARE`] because the rate is the
/// point of reading it.
pub const WAITS_SHARE: f64 = 0.001;

#[derive(Debug, Clone, Copy)]
struct Track {
    stretch: u32,
    /// When it was last asked: due again `every × stretch` later, at the cadence of then.
    started: Option<Instant>,
    last: Option<Duration>,
    timed_out: bool,
    /// The cadence it was last asked at (for [`Guard::slowed`]).
    every: Duration,
    /// The shortest period its cost allows ([`SLOW_SOURCE_SHARE`]); zero where none applies.
    floor: Duration,
}

impl Default for Track {
    fn default() -> Self {
        Track {
            stretch: 1,
            started: None,
            last: None,
            timed_out: false,
            every: Duration::ZERO,
            floor: Duration::ZERO,
        }
    }
}

/// The latency guard over every source. Lives as long as the poller (across reconnects), so
/// a source that timed out is not asked again at once on the new connection.
#[derive(Debug, Clone)]
pub struct Guard {
    interval: Duration,
    tracks: BTreeMap<Cadenced, Track>,
}

/// How one ask went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Answered(Duration),
    TimedOut,
}

impl Guard {
    pub fn new(interval: Duration) -> Guard {
        Guard {
            interval,
            tracks: BTreeMap::new(),
        }
    }

    pub fn set_interval(&mut self, interval: Duration) {
        self.interval = interval;
    }

    /// The round trip over which a source counts as slow.
    pub fn budget(&self) -> Duration {
        self.interval.mul_f64(BUDGET_SHARE)
    }

    /// Whether `source`, whose own cadence is `every` now, may be asked: never asked, or its
    /// stretched period has passed since it last was. Up to just under half an interval early
    /// counts as due: ticks fall on the interval's grid, so the nearest tick is chosen all the
    /// same, and a tick that started late (a busy client: a thousand targets in one `serve`)
    /// does not make the next one skip, which would double that target's gap.
    pub fn due(&self, source: Cadenced, every: Duration, now: Instant) -> bool {
        let slack = self.interval.mul_f64(DUE_SLACK);
        self.tracks.get(&source).is_none_or(|t| {
            t.started
                .is_none_or(|at| now + slack >= at + every.saturating_mul(t.stretch).max(t.floor))
        })
    }

    /// Records an ask that started at `started`, for a source whose own cadence is `every`.
    pub fn record(
        &mut self,
        source: Cadenced,
        every: Duration,
        started: Instant,
        outcome: Outcome,
    ) {
        let budget = self.budget();
        let t = self.tracks.entry(source).or_default();
        match outcome {
            Outcome::TimedOut => {
                t.stretch = MAX_STRETCH;
                t.last = None;
                t.timed_out = true;
            }
            Outcome::Answered(rtt) => {
                t.last = Some(rtt);
                t.timed_out = false;
                if rtt > budget {
                    t.stretch = (t.stretch * 2).min(MAX_STRETCH);
                } else if rtt * 2 < budget {
                    t.stretch = (t.stretch / 2).max(1);
                }
            }
        }
        t.every = every;
        t.started = Some(started);
    }

    /// Like [`Guard::record`] for a periodic slow-cadence source, which is also held to
    /// [`SLOW_SOURCE_SHARE`] of the server's time.
    pub fn record_costly(
        &mut self,
        source: Cadenced,
        every: Duration,
        started: Instant,
        outcome: Outcome,
    ) {
        self.record_costly_share(source, every, started, outcome, SLOW_SOURCE_SHARE);
    }

    /// [`Guard::record_costly`] held to `share` of the server's time instead.
    pub fn record_costly_share(
        &mut self,
        source: Cadenced,
        every: Duration,
        started: Instant,
        outcome: Outcome,
        share: f64,
    ) {
        self.record(source, every, started, outcome);
        if let (Some(t), Outcome::Answered(rtt)) = (self.tracks.get_mut(&source), outcome) {
            t.floor = rtt.div_f64(share);
        }
    }

    /// How often `source` is asked at most because of its cost (zero: its cadence rules).
    pub fn cost_floor(&self, source: Cadenced) -> Duration {
        self.tracks.get(&source).map_or(Duration::ZERO, |t| t.floor)
    }

    /// The sources asked less often than their cadence right now.
    pub fn slowed(&self) -> Vec<Slowed> {
        let budget = self.budget();
        self.tracks
            .iter()
            .filter(|(_, t)| t.stretch > 1)
            .map(|(s, t)| Slowed {
                source: *s,
                every_ms: millis(t.every.saturating_mul(t.stretch)),
                last_ms: t.last.map(millis),
                timed_out: t.timed_out,
                recovering: t.last.is_some_and(|l| l * 2 < budget),
            })
            .collect()
    }

    /// How many times less often than its cadence `source` is asked (1 = not slowed).
    pub fn stretch(&self, source: Cadenced) -> u32 {
        self.tracks.get(&source).map_or(1, |t| t.stretch)
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_fast_source_stays_on_its_cadence() {
        let t0 = Instant::now();
        let mut g = Guard::new(S);
        assert_eq!(g.budget(), ms(200));
        assert!(g.due(Cadenced::Tick, S, t0), "never asked: due");
        g.record(Cadenced::Tick, S, t0, Outcome::Answered(ms(3)));
        assert!(!g.due(Cadenced::Tick, S, t0 + ms(500)));
        assert!(g.due(Cadenced::Tick, S, t0 + S));
        assert!(g.slowed().is_empty());
    }

    #[test]
    fn a_late_tick_does_not_make_the_next_one_skip() {
        // The tick of t0 + 1 s started 400 ms late: the tick of t0 + 2 s is still due.
        let t0 = Instant::now();
        let mut g = Guard::new(S);
        g.record(Cadenced::Tick, S, t0 + ms(1_400), Outcome::Answered(ms(3)));
        assert!(g.due(Cadenced::Tick, S, t0 + ms(2_000)));
        // A stretched period still lands on its own tick, not one before it.
        g.record(
            Cadenced::Tick,
            S,
            t0 + ms(2_000),
            Outcome::Answered(ms(250)),
        );
        assert_eq!(g.stretch(Cadenced::Tick), 2);
        assert!(!g.due(Cadenced::Tick, S, t0 + ms(3_000)));
        assert!(g.due(Cadenced::Tick, S, t0 + ms(4_000)));
    }

    #[test]
    fn over_budget_doubles_the_period_up_to_the_cap_then_comes_back() {
        let t0 = Instant::now();
        let mut g = Guard::new(S);
        let mut now = t0;
        let mut periods = Vec::new();
        for _ in 0..6 {
            g.record(Cadenced::Tick, S, now, Outcome::Answered(ms(250)));
            periods.push(g.stretch(Cadenced::Tick));
            now += S * g.stretch(Cadenced::Tick);
            assert!(g.due(Cadenced::Tick, S, now));
        }
        assert_eq!(periods, [2, 4, 8, 16, 16, 16]);
        let slowed = g.slowed();
        assert_eq!(slowed.len(), 1);
        assert_eq!(slowed[0].every_ms, 16_000);
        assert_eq!(slowed[0].last_ms, Some(250));
        // Within the budget but not under half of it: stays where it is.
        g.record(Cadenced::Tick, S, now, Outcome::Answered(ms(150)));
        assert_eq!(g.stretch(Cadenced::Tick), 16);
        // Fast again: halves back, step by step.
        let mut back = Vec::new();
        for _ in 0..5 {
            g.record(Cadenced::Tick, S, now, Outcome::Answered(ms(20)));
            back.push(g.stretch(Cadenced::Tick));
        }
        assert_eq!(back, [8, 4, 2, 1, 1]);
        assert!(g.slowed().is_empty());
    }

    #[test]
    fn a_timeout_is_not_retried_at_once() {
        let t0 = Instant::now();
        let mut g = Guard::new(S);
        g.record(
            Cadenced::InnodbStatus,
            Duration::from_secs(10),
            t0,
            Outcome::TimedOut,
        );
        assert!(!g.due(Cadenced::InnodbStatus, Duration::from_secs(10), t0 + S));
        assert!(!g.due(
            Cadenced::InnodbStatus,
            Duration::from_secs(10),
            t0 + Duration::from_secs(150)
        ));
        assert!(g.due(
            Cadenced::InnodbStatus,
            Duration::from_secs(10),
            t0 + Duration::from_secs(160)
        ));
        let s = &g.slowed()[0];
        assert!(s.timed_out);
        assert_eq!(s.every_ms, 160_000);
        // Other sources are not held back by it.
        assert!(g.due(Cadenced::Tick, S, t0 + S));
    }

    /// A guard at a 5 s interval whose tick was just asked and took `rtt`.
    fn at_5s_after(rtt: Duration) -> (Guard, Instant) {
        let t0 = Instant::now();
        let mut g = Guard::new(Duration::from_secs(5));
        g.record(
            Cadenced::Tick,
            Duration::from_secs(5),
            t0,
            Outcome::Answered(rtt),
        );
        (g, t0)
    }

    #[test]
    fn a_shorter_cadence_takes_effect_at_once() {
        let (mut g, t0) = at_5s_after(ms(3));
        assert!(!g.due(Cadenced::Tick, Duration::from_secs(5), t0 + S));
        g.set_interval(ms(100));
        assert!(g.due(Cadenced::Tick, ms(100), t0 + ms(100)));
    }

    #[test]
    fn a_costly_slow_source_is_held_to_its_share_of_the_servers_time() {
        let t0 = Instant::now();
        let ten = Duration::from_secs(10);
        let mut g = Guard::new(S);
        // 0.5 ms: 5 s of share, under its 10 s cadence — the cadence rules.
        g.record_costly(
            Cadenced::SessionSums,
            ten,
            t0,
            Outcome::Answered(ms(0) + Duration::from_micros(500)),
        );
        assert!(g.due(Cadenced::SessionSums, ten, t0 + ten));
        // 9 ms (5,000 sessions): at most every 90 s, and not reported as "server slow".
        g.record_costly(Cadenced::SessionSums, ten, t0, Outcome::Answered(ms(9)));
        assert_eq!(g.cost_floor(Cadenced::SessionSums), Duration::from_secs(90));
        assert!(!g.due(Cadenced::SessionSums, ten, t0 + Duration::from_secs(80)));
        assert!(g.due(Cadenced::SessionSums, ten, t0 + Duration::from_secs(90)));
        assert!(g.slowed().is_empty());
    }

    #[test]
    fn the_budget_follows_the_interval() {
        let (mut g, t0) = at_5s_after(ms(250));
        assert_eq!(g.stretch(Cadenced::Tick), 1, "250 ms is within 20 % of 5 s");
        g.set_interval(S);
        g.record(Cadenced::Tick, S, t0, Outcome::Answered(ms(250)));
        assert_eq!(g.stretch(Cadenced::Tick), 2);
    }
}
