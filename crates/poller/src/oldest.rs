//! When to read the oldest transactions. INNODB_TRX costs the server more with every open
//! transaction, whatever the columns and the LIMIT: MariaDB copies every transaction into its
//! INNODB_TRX cache and then into a temporary table before sorting (`trx_i_s_cache_t`,
//! `fetch_data_into_cache` in storage/innobase/trx/trx0i_s.cc; 0.25 ms per read with one open
//! transaction, 1.77 ms with 500 under write load). So it is read every tick while at most
//! [`TRX_PER_TICK`] transactions are open, and every ⌈open / [`TRX_PER_TICK`]⌉ ticks beyond
//! (never less often than [`TRX_MAX_EVERY`]): what it costs per tick stays what 100 open
//! transactions cost. Between reads the rows last read are carried with their ages counted
//! on, so the blocker's age keeps moving. Where the server cannot count them in the same
//! statement (no window functions), its round trip against the every-tick statements'
//! decides instead ([`TRX_SHARE`]).
//! Pure: every call takes `now`.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use innodebt_server::sample::TrxRow;

/// Open transactions INNODB_TRX may copy per tick, on average.
pub const TRX_PER_TICK: u64 = 100;
/// Without a count: INNODB_TRX may cost at most this share of what the every-tick statements
/// cost (status counters + INNODB_METRICS), on average per tick.
pub const TRX_SHARE: f64 = 0.5;
/// However many are open, the oldest transactions are read at least this often: a new purge
/// blocker is named, and a committed one dropped, at most this late.
pub const TRX_MAX_EVERY: Duration = Duration::from_secs(10);
/// Round trips compared: the least of the last few, so one tick delayed by a busy client
/// machine does not stretch the cadence (a delay only ever adds to a round trip).
const WINDOW: usize = 5;

#[derive(Debug, Clone, Default)]
pub struct Oldest {
    rows: Vec<TrxRow>,
    /// Open transactions at the last read, where the server counted them.
    open: Option<u64>,
    /// …and those of them that modified rows (hold undo logs).
    writing: Option<u64>,
    read_at: Option<Instant>,
    trx: VecDeque<Duration>,
    every_tick: VecDeque<Duration>,
}

fn push(window: &mut VecDeque<Duration>, d: Duration) {
    if window.len() == WINDOW {
        window.pop_front();
    }
    window.push_back(d);
}

impl Oldest {
    /// The round trip of this tick's every-tick statements (status counters, INNODB_METRICS).
    pub fn every_tick_took(&mut self, rtt: Duration) {
        push(&mut self.every_tick, rtt);
    }

    /// How many ticks apart INNODB_TRX is read: ⌈open / [`TRX_PER_TICK`]⌉, or without a
    /// count enough ticks to hold it to [`TRX_SHARE`] of the every-tick statements — at
    /// least 1, at most [`TRX_MAX_EVERY`] apart.
    pub fn ticks_apart(&self, interval: Duration) -> u32 {
        let most = (TRX_MAX_EVERY.as_secs_f64() / interval.as_secs_f64().max(0.001))
            .floor()
            .max(1.0);
        let apart = match (
            self.open,
            self.trx.iter().min(),
            self.every_tick.iter().min(),
        ) {
            (Some(open), _, _) => open.div_ceil(TRX_PER_TICK) as f64,
            (None, Some(trx), Some(rest)) if !rest.is_zero() => {
                (trx.as_secs_f64() / (rest.as_secs_f64() * TRX_SHARE)).ceil()
            }
            _ => 1.0,
        };
        apart.clamp(1.0, most) as u32
    }

    /// Whether INNODB_TRX is to be read on the tick at `now`. Ticks jitter by a few
    /// milliseconds: a tenth of an interval early counts as due.
    pub fn due(&self, interval: Duration, now: Instant) -> bool {
        self.read_at.is_none_or(|at| {
            now + interval / 10 >= at + interval.saturating_mul(self.ticks_apart(interval))
        })
    }

    /// What a read returned (with the open and the writing transactions, where counted) and
    /// what it took.
    pub fn read(
        &mut self,
        rows: Vec<TrxRow>,
        (open, writing): (Option<u64>, Option<u64>),
        at: Instant,
        rtt: Duration,
    ) {
        push(&mut self.trx, rtt);
        self.rows = rows;
        self.open = open;
        self.writing = writing;
        self.read_at = Some(at);
    }

    /// The open and the writing transactions at the last read, where counted.
    pub fn counts(&self) -> (Option<u64>, Option<u64>) {
        (self.open, self.writing)
    }

    /// The rows last read, their ages counted on to `now` by the whole seconds since (never
    /// ahead of what the next read will say): what the sample carries on a tick that does not
    /// read INNODB_TRX.
    pub fn carried(&self, now: Instant) -> Vec<TrxRow> {
        let since = self
            .read_at
            .map_or(0, |at| now.saturating_duration_since(at).as_secs());
        self.rows
            .iter()
            .map(|t| TrxRow {
                age_s: t.age_s.saturating_add(since),
                ..t.clone()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    fn row(age_s: u64) -> TrxRow {
        TrxRow {
            trx_id: "42".into(),
            age_s,
            thread_id: Some(7),
            ..TrxRow::default()
        }
    }

    /// A reader that saw the every-tick statements take `rest` and INNODB_TRX `trx`, with no
    /// count of open transactions.
    fn after(rest: Duration, trx: Duration, t0: Instant) -> Oldest {
        let mut o = Oldest::default();
        o.every_tick_took(rest);
        o.read(vec![row(30)], (None, None), t0, trx);
        o
    }

    fn counted(open: u64, t0: Instant) -> Oldest {
        let mut o = Oldest::default();
        o.every_tick_took(us(900));
        o.read(vec![row(30)], (Some(open), None), t0, us(250));
        o
    }

    #[test]
    fn read_every_tick_up_to_a_hundred_open_transactions() {
        let t0 = Instant::now();
        assert!(Oldest::default().due(S, t0), "never read: due");
        for open in [0, 1, 100] {
            let o = counted(open, t0);
            assert_eq!(o.ticks_apart(S), 1, "{open} open");
            assert!(o.due(S, t0 + S));
        }
    }

    #[test]
    fn more_open_transactions_spread_the_reads() {
        let t0 = Instant::now();
        // 1,500 sessions, 150 open: every 2 ticks; 5,000 sessions, 500 open: every 5.
        assert_eq!(counted(150, t0).ticks_apart(S), 2);
        let o = counted(500, t0);
        assert_eq!(o.ticks_apart(S), 5);
        assert!(!o.due(S, t0 + 4 * S));
        assert!(o.due(S, t0 + 5 * S));
        // However many: at least every TRX_MAX_EVERY.
        assert_eq!(counted(50_000, t0).ticks_apart(S), 10);
        assert_eq!(counted(50_000, t0).ticks_apart(Duration::from_secs(5)), 2);
        assert_eq!(counted(50_000, t0).ticks_apart(Duration::from_secs(30)), 1);
        // The count, not the round trip, decides: a slow client changes nothing.
        let mut o = counted(50, t0);
        o.read(
            vec![row(31)],
            (Some(50), None),
            t0 + S,
            Duration::from_millis(40),
        );
        assert_eq!(o.ticks_apart(S), 1);
    }

    #[test]
    fn without_a_count_cheap_it_is_read_every_tick() {
        let t0 = Instant::now();
        // 10 sessions under load (BENCHMARKS.md): 0.25 ms against 0.9 ms for the rest.
        let o = after(us(900), us(250), t0);
        assert_eq!(o.ticks_apart(S), 1);
        assert!(o.due(S, t0 + S));
    }

    #[test]
    fn without_a_count_costly_it_is_read_every_few_ticks() {
        let t0 = Instant::now();
        // 500 open transactions: 1.77 ms against 0.9 ms → every 4 ticks, 0.44 ms per tick.
        let o = after(us(900), us(1770), t0);
        assert_eq!(o.ticks_apart(S), 4);
        assert!(!o.due(S, t0 + 3 * S));
        assert!(o.due(S, t0 + 4 * S));
        let per_tick = 1770.0 / f64::from(o.ticks_apart(S));
        assert!(per_tick <= 900.0 * TRX_SHARE, "{per_tick} µs per tick");
        let o = after(us(900), Duration::from_millis(200), t0);
        assert_eq!(o.ticks_apart(S), 10);
    }

    #[test]
    fn without_a_count_one_slow_round_trip_does_not_stretch_it() {
        let t0 = Instant::now();
        let mut o = after(us(900), us(250), t0);
        // The client machine stalls one tick: 9 ms for INNODB_TRX.
        o.read(
            vec![row(31)],
            (None, None),
            t0 + S,
            Duration::from_millis(9),
        );
        assert_eq!(o.ticks_apart(S), 1, "the least of the last few counts");
        // Five costly reads in a row do.
        for i in 0..WINDOW as u32 {
            o.read(vec![row(31)], (None, None), t0 + S * (2 + i), us(1800));
        }
        assert_eq!(o.ticks_apart(S), 4);
    }

    #[test]
    fn between_reads_the_ages_count_on() {
        let t0 = Instant::now();
        let o = after(us(900), us(1770), t0);
        assert_eq!(o.carried(t0)[0].age_s, 30);
        assert_eq!(o.carried(t0 + Duration::from_millis(2990))[0].age_s, 32);
        assert_eq!(o.carried(t0 + 3 * S)[0].age_s, 33);
        assert_eq!(o.carried(t0 + 3 * S)[0].trx_id, "42");
        assert!(Oldest::default().carried(t0).is_empty());
    }
}
