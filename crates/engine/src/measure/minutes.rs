//! The mean of a value over a trailing span, kept as one sum per minute instead of every
//! point: the redo write rate's hour costs 61 sums whatever the interval, where the points
//! were 720 per server at 5 s (`innodebt serve` keeps one per target) and 3,600 at 1 s.
//! The span is whole minutes, so the mean covers the last hour to the minute: between 60 and
//! 61 minutes of points, never fewer.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

const MINUTE_S: f64 = 60.0;

/// One minute's points: which minute (`t / 60`, floored), their sum and count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Minute {
    minute: i64,
    sum: f64,
    n: u32,
}

/// Sums per minute of the values pushed, oldest first, for the current minute and the
/// `minutes` whole minutes before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinuteMeans {
    minutes: i64,
    kept: VecDeque<Minute>,
    /// The newest point's time, to notice time going backwards (a replay seek).
    last_t: Option<f64>,
}

impl MinuteMeans {
    /// Keeps the current minute and `minutes` before it.
    pub fn new(minutes: u32) -> Self {
        MinuteMeans {
            minutes: i64::from(minutes),
            kept: VecDeque::new(),
            last_t: None,
        }
    }

    /// Adds a point at `t` (monotonic seconds); `None` and non-finite values add nothing.
    pub fn push(&mut self, t: f64, value: Option<f64>) {
        let Some(v) = value.filter(|v| v.is_finite()) else {
            return;
        };
        if self.last_t.is_some_and(|last| t < last) {
            self.kept.clear();
        }
        self.last_t = Some(t);
        let minute = minute_of(t);
        while self
            .kept
            .front()
            .is_some_and(|m| m.minute < minute - self.minutes)
        {
            self.kept.pop_front();
        }
        match self.kept.back_mut() {
            Some(m) if m.minute == minute => {
                m.sum += v;
                m.n += 1;
            }
            _ => self.kept.push_back(Minute {
                minute,
                sum: v,
                n: 1,
            }),
        }
    }

    /// Mean of the points of the minute holding `t` and the `minutes` before it.
    pub fn mean_at(&self, t: f64) -> Option<f64> {
        let from = minute_of(t) - self.minutes;
        let (sum, n) = self
            .kept
            .iter()
            .filter(|m| m.minute >= from)
            .fold((0.0, 0u64), |(s, n), m| (s + m.sum, n + u64::from(m.n)));
        (n > 0).then(|| sum / n as f64)
    }

    /// How many points the kept minutes hold.
    #[cfg(test)]
    fn held(&self) -> u64 {
        self.kept.iter().map(|m| u64::from(m.n)).sum()
    }

    /// How many minutes are kept (at most `minutes + 1`).
    #[cfg(test)]
    fn kept_minutes(&self) -> usize {
        self.kept.len()
    }
}

fn minute_of(t: f64) -> i64 {
    (t / MINUTE_S).floor() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_covers_the_current_minute_and_the_hour_before_it() {
        let mut m = MinuteMeans::new(60);
        // One point a second for two hours: 1.0 in the first hour, 3.0 in the second.
        for t in 0..7_200 {
            m.push(f64::from(t), Some(if t < 3_600 { 1.0 } else { 3.0 }));
        }
        assert_eq!(m.kept_minutes(), 61);
        // At t = 7,199 the current minute is the 119th: minutes 59..=119 are read, so one
        // minute of the first hour (60 points of 1.0) and the whole second hour.
        let want = (60.0 * 1.0 + 3_600.0 * 3.0) / 3_660.0;
        assert_eq!(m.mean_at(7_199.0), Some(want));
        assert_eq!(m.held(), 3_660);
        // Later, without new points, the minutes that left the hour are not read.
        assert_eq!(m.mean_at(7_260.0), Some(3.0));
        assert_eq!(m.mean_at(7_200.0 + 3_700.0), None);
    }

    #[test]
    fn gaps_add_nothing_and_time_going_back_starts_again() {
        let mut m = MinuteMeans::new(60);
        m.push(10.0, Some(4.0));
        m.push(11.0, None);
        m.push(12.0, Some(f64::NAN));
        m.push(13.0, Some(f64::INFINITY));
        m.push(14.0, Some(8.0));
        assert_eq!(m.mean_at(14.0), Some(6.0));
        assert_eq!(m.held(), 2);
        m.push(5.0, Some(1.0));
        assert_eq!((m.held(), m.mean_at(5.0)), (1, Some(1.0)));
    }

    #[test]
    fn a_slow_poll_keeps_as_few_minutes() {
        let mut m = MinuteMeans::new(60);
        for i in 0..10_000 {
            m.push(f64::from(i) * 30.0, Some(1.0));
        }
        assert!(m.kept_minutes() <= 61);
        assert_eq!(m.mean_at(299_970.0), Some(1.0));
    }
}
