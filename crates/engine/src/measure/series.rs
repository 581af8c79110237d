//! Bounded time series for charts and trend questions ("what was history when this
//! transaction started?"). Memory is capped by point count whatever the run length, and
//! by age where a series only answers for a time span (at a 5 s interval a two-hour series
//! needs a fifth of the points a 1 s one does: `innodebt serve` keeps thousands of them).

use std::collections::VecDeque;

/// `(t, value)` points, `t` in monotonic seconds, oldest first, at most `cap` points and
/// none older than `span_s` before the newest.
#[derive(Debug, Clone)]
pub struct Series {
    points: VecDeque<(f64, f64)>,
    cap: usize,
    span_s: f64,
}

impl Series {
    pub fn new(cap: usize) -> Self {
        Self::spanning(cap, f64::INFINITY)
    }

    /// At most `cap` points, and only those of the last `span_s` seconds.
    pub fn spanning(cap: usize, span_s: f64) -> Self {
        Series {
            // Grown as points come (see `growth`): a series that never fills does not hold
            // its whole cap.
            points: VecDeque::new(),
            cap: cap.max(1),
            span_s,
        }
    }

    /// Adds a point; `None` values leave a gap (no point), never a zero.
    pub fn push(&mut self, t: f64, value: Option<f64>) {
        let Some(v) = value.filter(|v| v.is_finite()) else {
            return;
        };
        if self.points.back().is_some_and(|(last, _)| t < *last) {
            // Time went backwards (a replay seek): start again.
            self.points.clear();
        }
        if self.points.len() == self.cap {
            self.points.pop_front();
        }
        while self
            .points
            .front()
            .is_some_and(|(t0, _)| t - t0 > self.span_s)
        {
            self.points.pop_front();
        }
        let len = self.points.len();
        if len == self.points.capacity() {
            self.points.reserve_exact(self.growth(len, t));
        }
        self.points.push_back((t, v));
    }

    /// How many points to make room for when full. Once 16 points show the cadence, all that
    /// the span needs at once: a series grown in steps leaves every outgrown buffer behind, and
    /// at 1,000 targets glibc's heap grew about twice as fast as the points did. Before that,
    /// and past the estimate (a faster cadence), a quarter more each time: never double, so at
    /// most a quarter is held unused.
    fn growth(&self, len: usize, t: f64) -> usize {
        let room = self.cap.saturating_sub(len).max(1);
        let step = (len / 4).max(16);
        let span_needs = match self.points.front() {
            Some((t0, _)) if len >= 16 && self.span_s.is_finite() && t > *t0 => {
                let every = (t - t0) / len as f64;
                // Saturates for a cadence near zero; the cap bounds it below.
                (self.span_s / every).ceil() as usize + 2
            }
            _ => 0,
        };
        span_needs.saturating_sub(len).max(step).min(room)
    }

    /// A series already holding `points` (oldest first; only the newest `cap` are kept): what
    /// a replay checkpoint rebuilds from the stored per-sample values.
    pub fn from_points(cap: usize, points: impl IntoIterator<Item = (f64, f64)>) -> Self {
        Self::from_points_spanning(cap, f64::INFINITY, points)
    }

    /// [`Series::from_points`] of a [`Series::spanning`] series.
    pub fn from_points_spanning(
        cap: usize,
        span_s: f64,
        points: impl IntoIterator<Item = (f64, f64)>,
    ) -> Self {
        let mut s = Series::spanning(cap, span_s);
        for (t, v) in points {
            s.push(t, Some(v));
        }
        s
    }

    /// Every point, oldest first.
    pub fn points(&self) -> impl DoubleEndedIterator<Item = (f64, f64)> + '_ {
        self.points.iter().copied()
    }

    /// How many points it keeps at most.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    pub fn clear(&mut self) {
        self.points.clear();
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn last(&self) -> Option<(f64, f64)> {
        self.points.back().copied()
    }

    pub fn first(&self) -> Option<(f64, f64)> {
        self.points.front().copied()
    }

    /// Points with `t >= since`, as a contiguous vector (what chart widgets take).
    pub fn window(&self, since: f64) -> Vec<(f64, f64)> {
        let start = self.points.partition_point(|(t, _)| *t < since);
        self.points.range(start..).copied().collect()
    }

    /// The value at or just before `t`, if the series reaches back that far.
    pub fn value_at(&self, t: f64) -> Option<f64> {
        let idx = self.points.partition_point(|(pt, _)| *pt <= t);
        idx.checked_sub(1)
            .and_then(|i| self.points.get(i))
            .map(|(_, v)| *v)
    }

    /// Mean of the values with `t >= since`. Runs on every sample (the hour's write rate):
    /// it walks the points in place instead of copying them out like [`Series::window`].
    pub fn mean_since(&self, since: f64) -> Option<f64> {
        let start = self.points.partition_point(|(t, _)| *t < since);
        let n = self.points.len() - start;
        if n == 0 {
            return None;
        }
        let (a, b) = self.points.as_slices();
        let sum = if start < a.len() {
            sum_values(&a[start..]) + sum_values(b)
        } else {
            sum_values(&b[start - a.len()..])
        };
        Some(sum / n as f64)
    }

    /// Highest value with `t >= since`.
    pub fn max_since(&self, since: f64) -> Option<f64> {
        let start = self.points.partition_point(|(t, _)| *t < since);
        self.points
            .range(start..)
            .map(|(_, v)| *v)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
    }
}

/// A plain indexed loop: this runs over up to an hour of points per sample, and unlike an
/// iterator chain it stays cheap in unoptimised (test) builds too.
fn sum_values(points: &[(f64, f64)]) -> f64 {
    let mut sum = 0.0;
    let mut i = 0;
    while i < points.len() {
        sum += points[i].1;
        i += 1;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_ordered() {
        let mut s = Series::new(3);
        for i in 0..10 {
            s.push(i as f64, Some(i as f64 * 2.0));
        }
        assert_eq!(s.len(), 3);
        assert_eq!(s.window(0.0), vec![(7.0, 14.0), (8.0, 16.0), (9.0, 18.0)]);
        assert_eq!(s.window(8.5), vec![(9.0, 18.0)]);
    }

    #[test]
    fn gaps_not_zeros() {
        let mut s = Series::new(10);
        s.push(1.0, Some(5.0));
        s.push(2.0, None);
        s.push(3.0, Some(f64::NAN));
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn lookups() {
        let mut s = Series::new(10);
        s.push(10.0, Some(1.0));
        s.push(20.0, Some(5.0));
        s.push(30.0, Some(3.0));
        assert_eq!(s.value_at(5.0), None);
        assert_eq!(s.value_at(25.0), Some(5.0));
        assert_eq!(s.max_since(15.0), Some(5.0));
        assert_eq!(s.max_since(25.0), Some(3.0));
        assert_eq!(s.mean_since(15.0), Some(4.0));
        assert_eq!(s.mean_since(31.0), None);
        assert_eq!(s.first(), Some((10.0, 1.0)));
    }

    #[test]
    fn mean_across_the_ring_wrap() {
        // Capped pushes wrap the ring buffer: the mean must span both halves.
        let mut s = Series::new(4);
        for i in 0..7 {
            s.push(i as f64, Some(i as f64));
        }
        assert_eq!(
            s.window(0.0),
            vec![(3.0, 3.0), (4.0, 4.0), (5.0, 5.0), (6.0, 6.0)]
        );
        assert_eq!(s.mean_since(0.0), Some(4.5));
        assert_eq!(s.mean_since(4.5), Some(5.5));
        assert_eq!(s.mean_since(6.0), Some(6.0));
    }

    #[test]
    fn a_spanning_series_keeps_only_its_span() {
        // Two hours at a 5 s interval: 1,441 points of the 7,200 allowed, the storage grown
        // to what they need (not to the cap, and not doubled past it).
        let mut s = Series::spanning(7_200, 7_200.0);
        for i in 0..10_000 {
            s.push(f64::from(i) * 5.0, Some(1.0));
        }
        assert_eq!(s.len(), 1_441);
        assert_eq!(s.first().map(|p| p.0), Some(9_999.0 * 5.0 - 7_200.0));
        assert!(
            s.points.capacity() < 1_441 * 5 / 4 + 16,
            "{}",
            s.points.capacity()
        );
        // The cap still binds a fast series.
        let mut fast = Series::spanning(100, 7_200.0);
        for i in 0..1_000 {
            fast.push(f64::from(i), Some(1.0));
        }
        assert_eq!(fast.len(), 100);
        assert!(fast.points.capacity() <= 116, "{}", fast.points.capacity());
    }

    #[test]
    fn the_span_is_reserved_once_the_cadence_shows() {
        // At 5 s, 16 points in, the storage jumps to the two hours' 1,441 points (+1) and is
        // never grown again; before that, steps of 16.
        let mut s = Series::spanning(7_200, 7_200.0);
        let mut grown = Vec::new();
        for i in 0..3_000 {
            s.push(f64::from(i) * 5.0, Some(1.0));
            if grown.last() != Some(&s.points.capacity()) {
                grown.push(s.points.capacity());
            }
        }
        assert_eq!(grown.len(), 2, "{grown:?}");
        assert!((16..20).contains(&grown[0]), "{grown:?}");
        assert!((1_441..1_460).contains(&grown[1]), "{grown:?}");
        // A cadence that speeds up later (1 s) needs more than the estimate: the 1,400 points
        // at 5 s still in the span and 200 new ones, grown in quarter steps, never doubled.
        for i in 0..200 {
            s.push(15_000.0 + f64::from(i), Some(1.0));
        }
        assert_eq!(s.len(), 1_600);
        assert!(
            s.points.capacity() <= 1_600 * 5 / 4 + 16,
            "{}",
            s.points.capacity()
        );
        // A cap smaller than the span's need is the limit.
        let mut capped = Series::spanning(100, 7_200.0);
        for i in 0..1_000 {
            capped.push(f64::from(i), Some(1.0));
        }
        assert!(
            capped.points.capacity() <= 116,
            "{}",
            capped.points.capacity()
        );
    }

    #[test]
    fn time_going_back_restarts() {
        let mut s = Series::new(10);
        s.push(10.0, Some(1.0));
        s.push(5.0, Some(2.0));
        assert_eq!(s.window(0.0), vec![(5.0, 2.0)]);
    }
}
