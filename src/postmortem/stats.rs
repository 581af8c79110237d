//! The distribution of one figure over a window: median, p95, max and a robust spread.

use serde::{Deserialize, Serialize};

/// Median, p95 and max of the values seen (`None` ones are not values).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Samples with a value.
    pub n: u64,
    pub median: Option<f64>,
    pub p95: Option<f64>,
    pub max: Option<f64>,
    /// Robust standard deviation: interquartile range ÷ 1.349 (the IQR of a normal
    /// distribution is 1.349 σ), so one outlier does not make everything look normal.
    pub spread: Option<f64>,
}

/// Nearest-rank quantile `q` (0..=1) of sorted values.
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

impl Distribution {
    pub fn of(mut values: Vec<f64>) -> Distribution {
        values.retain(|v| v.is_finite());
        values.sort_by(f64::total_cmp);
        let q = |p| quantile(&values, p);
        Distribution {
            n: values.len() as u64,
            median: q(0.5),
            p95: q(0.95),
            max: values.last().copied(),
            spread: q(0.75).zip(q(0.25)).map(|(hi, lo)| (hi - lo) / 1.349),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_by_hand() {
        // 1..=20: median = 10th value, p95 = 19th, IQR = 15th − 5th = 10.
        let d = Distribution::of((1..=20).map(f64::from).collect());
        assert_eq!(
            (d.n, d.median, d.p95, d.max),
            (20, Some(10.0), Some(19.0), Some(20.0))
        );
        assert!((d.spread.unwrap_or_default() - 10.0 / 1.349).abs() < 1e-12);
        let none = Distribution::of(vec![f64::NAN]);
        assert_eq!((none.n, none.median), (0, None));
    }
}
