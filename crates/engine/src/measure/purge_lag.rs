//! How far purge is behind, in what a DBA can act on. SEIS gives two transaction *numbers*:
//! `Trx id counter` and `Purge done for trx's n:o <`. Ids and commit numbers come from that one
//! counter (mysql-server `trx0sys.ic trx_sys_allocate_trx_id_or_no`, called by both
//! `trx_sys_allocate_trx_id` and `trx_sys_allocate_trx_no`; MariaDB `trx0sys.h
//! trx_sys_t::get_new_trx_id` and `assign_new_trx_no`); how many a committed transaction takes,
//! and whether it leaves history, is the flavour's ([`Flavor::trx_numbers_per_commit`]: on
//! MySQL an INSERT-only transaction takes 1 and leaves none) — and internal transactions take
//! more. So the gap is turned into time (how long ago the counter stood where purge stands
//! now, from the counter's own readings) and into an estimate of transactions with its basis.
//!
//! [`Flavor::trx_numbers_per_commit`]: innodebt_server::flavor::Flavor::trx_numbers_per_commit

use std::collections::VecDeque;

use crate::figures::LagSecondsFrom;
use innodebt_server::flavor::TrxNumbers;

/// How many counter readings are kept: SEIS is read every ~10 s, so about ten minutes.
pub(super) const COUNTER_READINGS: usize = 64;

/// (mono_s, trx id counter) of the last SEIS reads, oldest first.
pub(super) type CounterReadings = VecDeque<(f64, u64)>;

/// Seconds from when the counter stood at `done` (purge's position) to the last reading,
/// and how that was found. `readings`: the counter at each SEIS read, oldest first, the last
/// one taken with `done`.
///
/// - Purge at or past the counter: 0.
/// - The counter passed `done` between two readings: the time interpolated between them.
/// - Before the oldest reading: extrapolated back at the counter's mean rate over the
///   readings (`counter_rate`).
/// - The counter did not move over the readings (or one reading): at least the readings'
///   span — nothing tells how much longer (`None` with one reading).
pub(super) fn seconds_behind(
    readings: &CounterReadings,
    done: u64,
) -> Option<(f64, LagSecondsFrom)> {
    let &(t_last, c_last) = readings.back()?;
    if done >= c_last {
        return Some((0.0, LagSecondsFrom::Readings));
    }
    // The newest reading at or below purge's position, and the one after it.
    let passed = (1..readings.len())
        .rev()
        .map(|i| (readings[i - 1], readings[i]))
        .find(|(a, b)| a.1 <= done && b.1 > done);
    if let Some(((t0, c0), (t1, c1))) = passed {
        let passed_at = t0 + (done - c0) as f64 / (c1 - c0) as f64 * (t1 - t0);
        return Some(((t_last - passed_at).max(0.0), LagSecondsFrom::Readings));
    }
    let &(t_first, c_first) = readings.front()?;
    let span = t_last - t_first;
    if span > 0.0 && c_last > c_first {
        let rate = (c_last - c_first) as f64 / span;
        let passed_at = t_first - c_first.saturating_sub(done) as f64 / rate;
        return Some((t_last - passed_at, LagSecondsFrom::CounterRate));
    }
    (span > 0.0).then_some((span, LagSecondsFrom::AtLeast))
}

/// Keeps one reading: a later one is appended, the same or an earlier time ignored, the
/// oldest dropped past [`COUNTER_READINGS`].
pub(super) fn remember(readings: &mut CounterReadings, mono_s: f64, counter: u64) {
    if readings.back().is_some_and(|&(t, _)| mono_s <= t) {
        return;
    }
    // A counter that went back is another server (or a restore): start again.
    if readings.back().is_some_and(|&(_, c)| counter < c) {
        readings.clear();
    }
    readings.push_back((mono_s, counter));
    while readings.len() > COUNTER_READINGS {
        readings.pop_front();
    }
}

/// The estimate of transactions purge is behind, and its basis in words: the `numbers`
/// behind over the numbers each transaction purge has work for takes (its id and its commit
/// number). Where an INSERT-only transaction takes fewer numbers and leaves no history (MySQL),
/// the numbers behind are 1–2 a commit and only those with history are purge's work: at most
/// the `history` length (read with the sample), so a history of 0 is nothing behind.
pub(super) fn transactions_behind(
    numbers: u64,
    per: TrxNumbers,
    history: Option<u64>,
) -> (u64, String) {
    let by_numbers = numbers / per.with_update.max(1);
    if per.insert_only_in_history {
        return (
            by_numbers,
            format!(
                "at most: {} transaction numbers per committed read-write transaction (its id \
                 and its commit number); internal transactions take more",
                per.with_update
            ),
        );
    }
    let mix = format!(
        "a transaction that only inserted takes {} number and leaves no history, one that \
         updated or deleted {} (its id and its commit number) and an undo log in history, so \
         the numbers behind are {}–{} a commit",
        per.insert_only, per.with_update, per.insert_only, per.with_update
    );
    match history {
        Some(h) if h <= by_numbers => (
            h,
            format!(
                "at most the history length: purge has work only for what is in history; {mix}"
            ),
        ),
        Some(_) => (
            by_numbers,
            format!(
                "at most: {} numbers per transaction purge has work for; {mix}; internal \
                 transactions take more",
                per.with_update
            ),
        ),
        None => (
            by_numbers,
            format!(
                "at most: {} numbers per transaction purge has work for (history unread, fewer \
                 may be behind); {mix}; internal transactions take more",
                per.with_update
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readings(r: &[(f64, u64)]) -> CounterReadings {
        r.iter().copied().collect()
    }

    #[test]
    fn caught_up_is_zero_seconds() {
        // Idle MariaDB 10.11 after 100 autocommit INSERTs: `Trx id counter 221`,
        // `Purge done for trx's n:o < 221` — purge at the counter.
        let r = readings(&[(0.0, 19), (10.0, 221)]);
        assert_eq!(
            seconds_behind(&r, 221),
            Some((0.0, LagSecondsFrom::Readings))
        );
    }

    #[test]
    fn position_between_two_readings_is_interpolated() {
        // The counter moved 1,000 numbers in 10 s; purge stands where it was 2.5 s after the
        // first reading: 17.5 s ago.
        let r = readings(&[(0.0, 10_000), (10.0, 11_000), (20.0, 12_000)]);
        let (s, from) = seconds_behind(&r, 10_250).expect("seconds");
        assert!((s - 17.5).abs() < 1e-9, "{s}");
        assert_eq!(from, LagSecondsFrom::Readings);
    }

    #[test]
    fn position_older_than_the_readings_goes_back_at_the_counters_rate() {
        // A sysbench case: 1,215 numbers/s (14,584 in 12 s); two readings 10 s
        // apart, purge 14,584 behind the last: 12 s.
        let r = readings(&[(0.0, 100_000 - 12_150), (10.0, 100_000)]);
        let (s, from) = seconds_behind(&r, 100_000 - 14_584).expect("seconds");
        assert!((s - 12.003).abs() < 0.01, "{s}");
        assert_eq!(from, LagSecondsFrom::CounterRate);
    }

    #[test]
    fn a_counter_that_stands_still_gives_only_a_lower_bound() {
        let r = readings(&[(0.0, 500), (30.0, 500)]);
        assert_eq!(
            seconds_behind(&r, 400),
            Some((30.0, LagSecondsFrom::AtLeast))
        );
        assert_eq!(seconds_behind(&readings(&[(5.0, 500)]), 400), None);
        assert_eq!(seconds_behind(&CounterReadings::new(), 0), None);
    }

    #[test]
    fn readings_are_bounded_and_restart_when_the_counter_goes_back() {
        let mut r = CounterReadings::new();
        for i in 0..(COUNTER_READINGS as u64 + 10) {
            remember(&mut r, i as f64, 100 + i);
        }
        assert_eq!(r.len(), COUNTER_READINGS);
        remember(&mut r, 0.5, 1);
        assert_eq!(r.len(), COUNTER_READINGS, "an older time is ignored");
        remember(&mut r, 1_000.0, 5);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [(1_000.0, 5)]);
    }

    const MARIADB: TrxNumbers = TrxNumbers {
        insert_only: 2,
        with_update: 2,
        insert_only_in_history: true,
    };
    const MYSQL: TrxNumbers = TrxNumbers {
        insert_only: 1,
        with_update: 2,
        insert_only_in_history: false,
    };

    #[test]
    fn transactions_are_numbers_over_two_with_the_basis_said() {
        // MariaDB 10.11.18 trx_t::write_serialisation_history: assign_new_trx_no for any undo,
        // 2 a commit; the history length does not enter.
        for history in [None, Some(0), Some(100_000)] {
            let (n, basis) = transactions_behind(14_584, MARIADB, history);
            assert_eq!(n, 7_292);
            assert!(
                basis.starts_with("at most: 2 transaction numbers"),
                "{basis}"
            );
        }
    }

    /// mysql-server 5.7.30 / 8.0.18 `trx0trx.cc trx_write_serialisation_history`: only a
    /// transaction with update undo takes a commit number and goes to history, so an
    /// INSERT-only load moves the counter 1 a commit while history stays 0: nothing behind.
    #[test]
    fn mysql_insert_only_load_is_not_purge_lag() {
        let (n, basis) = transactions_behind(14_584, MYSQL, Some(0));
        assert_eq!(n, 0);
        assert!(basis.starts_with("at most the history length"), "{basis}");
        assert!(basis.contains("1–2 a commit"), "{basis}");
        // A few updates among the inserts: at most what history holds.
        assert_eq!(transactions_behind(14_584, MYSQL, Some(40)).0, 40);
        // History past the numbers' bound: the numbers bound, 2 a transaction with history.
        let (n, basis) = transactions_behind(14_584, MYSQL, Some(90_000));
        assert_eq!(n, 7_292);
        assert!(basis.starts_with("at most: 2 numbers"), "{basis}");
        let (n, basis) = transactions_behind(14_584, MYSQL, None);
        assert_eq!(n, 7_292);
        assert!(basis.contains("history unread"), "{basis}");
    }
}
