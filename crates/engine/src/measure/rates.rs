//! Per-second rates of cumulative counters that survive resets: a counter that went down
//! (FLUSH STATUS, a re-enabled INNODB_METRICS counter, a restart) yields "unknown" for that
//! interval, never a negative rate or a spike.

/// Rate of a cumulative counter between two readings `dt_s` seconds apart.
pub fn counter_rate(prev: Option<u64>, cur: Option<u64>, dt_s: f64) -> Option<f64> {
    let (prev, cur) = (prev?, cur?);
    if cur < prev || dt_s.is_nan() || dt_s <= 0.0 {
        return None;
    }
    Some((cur - prev) as f64 / dt_s)
}

/// Same for INNODB_METRICS' signed counts.
pub fn metric_rate(prev: Option<i64>, cur: Option<i64>, dt_s: f64) -> Option<f64> {
    let to_u = |v: i64| u64::try_from(v).ok();
    counter_rate(prev.and_then(to_u), cur.and_then(to_u), dt_s)
}

/// Change per second of a gauge (may be negative: history shrinking is the good news).
pub fn gauge_change(prev: Option<u64>, cur: Option<u64>, dt_s: f64) -> Option<f64> {
    let (prev, cur) = (prev?, cur?);
    if dt_s.is_nan() || dt_s <= 0.0 {
        return None;
    }
    Some((cur as f64 - prev as f64) / dt_s)
}

/// Sum of rates where every part is known; `None` if any part is unknown.
pub fn sum_known(parts: &[Option<f64>]) -> Option<f64> {
    parts.iter().try_fold(0.0, |acc, p| p.map(|v| acc + v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_rate() {
        assert_eq!(counter_rate(Some(100), Some(300), 2.0), Some(100.0));
    }

    #[test]
    fn reset_is_unknown_not_negative() {
        assert_eq!(counter_rate(Some(1_000_000), Some(5), 1.0), None);
        assert_eq!(metric_rate(Some(10), Some(0), 1.0), None);
    }

    #[test]
    fn missing_or_zero_interval_is_unknown() {
        assert_eq!(counter_rate(None, Some(5), 1.0), None);
        assert_eq!(counter_rate(Some(1), Some(5), 0.0), None);
        assert_eq!(counter_rate(Some(1), Some(5), f64::NAN), None);
    }

    #[test]
    fn gauge_can_fall() {
        assert_eq!(gauge_change(Some(1000), Some(400), 2.0), Some(-300.0));
    }

    #[test]
    fn sums() {
        assert_eq!(sum_known(&[Some(1.0), Some(2.5)]), Some(3.5));
        assert_eq!(sum_known(&[Some(1.0), None]), None);
    }
}
