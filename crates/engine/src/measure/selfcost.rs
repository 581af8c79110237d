//! innodebt's own cost to the server, from the statements each sample records: this tick's
//! statements and round trips, and the 95th percentile over the last minute. Round trips are
//! measured by innodebt (the server's time plus the network and reading the reply), so they
//! are an upper bound of what the server spent — the cost benchmark compares them with
//! performance_schema's own figures.

use std::collections::VecDeque;

pub use crate::figures::{SelfCost, StatementMs};
use innodebt_server::sample::Sample;

/// The window the percentile covers.
pub const WINDOW_S: f64 = 60.0;

/// The last minute of ticks: (mono_s, round trip µs, statements).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostWindow {
    ticks: VecDeque<(f64, u64, u32)>,
}

impl CostWindow {
    /// Adds a sample's cost (if it carries one) and returns the figures for it.
    pub fn observe(&mut self, s: &Sample) -> Option<SelfCost> {
        let cost = s.cost.as_ref()?;
        let us = cost.round_trip_us();
        let n = u32::try_from(cost.statements.len()).unwrap_or(u32::MAX);
        // A new source (time going backwards) starts a new window.
        if self.ticks.back().is_some_and(|(t, _, _)| *t > s.mono_s) {
            self.ticks.clear();
        }
        self.ticks.push_back((s.mono_s, us, n));
        while self
            .ticks
            .front()
            .is_some_and(|(t, _, _)| s.mono_s - *t > WINDOW_S)
        {
            self.ticks.pop_front();
        }
        let mut all: Vec<u64> = self.ticks.iter().map(|(_, us, _)| *us).collect();
        all.sort_unstable();
        Some(SelfCost {
            statements_per_tick: n,
            server_ms_per_tick: ms(us),
            server_ms_p95_1m: p95(&all).map(ms),
            statements_max_1m: self.ticks.iter().map(|(_, _, n)| *n).max().unwrap_or(n),
            measured: "round trip measured by innodebt (server time + network)".to_string(),
            by_statement: cost
                .statements
                .iter()
                .map(|st| StatementMs {
                    statement: st.what.describe().to_string(),
                    ms: ms(st.us),
                })
                .collect(),
            slowed: cost.slowed.clone(),
        })
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// Nearest-rank 95th percentile of sorted values.
fn p95(sorted: &[u64]) -> Option<u64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = (n * 95).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use innodebt_server::sample::{PollCost, Statement, StatementCost};

    fn tick(mono_s: f64, us: &[u64]) -> Sample {
        let mut s = Sample::new(Utc::now(), mono_s);
        s.cost = Some(PollCost {
            statements: us
                .iter()
                .map(|us| StatementCost {
                    what: Statement::InnodbTrx,
                    us: *us,
                })
                .collect(),
            slowed: Vec::new(),
        });
        s
    }

    #[test]
    fn this_tick_and_the_p95_of_the_last_minute() {
        let mut w = CostWindow::default();
        // 100 ticks: 1..=100 ms each (one statement), then the window holds the last 61.
        let mut last = None;
        for i in 1..=100u64 {
            last = w.observe(&tick(i as f64, &[i * 1000]));
        }
        let c = last.expect("figures");
        assert_eq!(c.statements_per_tick, 1);
        assert_eq!(c.server_ms_per_tick, 100.0);
        // Ticks 40..=100 are within 60 s of t=100: 61 values, rank ceil(57.95) = 58 → 97 ms.
        assert_eq!(c.server_ms_p95_1m, Some(97.0));
        assert_eq!(c.by_statement[0].statement, "INNODB_TRX");
    }

    #[test]
    fn statements_and_round_trips_add_up() {
        let mut w = CostWindow::default();
        let c = w.observe(&tick(1.0, &[200, 300, 1500])).expect("figures");
        assert_eq!(c.statements_per_tick, 3);
        assert_eq!(c.server_ms_per_tick, 2.0);
        assert_eq!(c.server_ms_p95_1m, Some(2.0));
        assert_eq!(c.statements_max_1m, 3);
    }

    #[test]
    fn older_captures_have_no_cost() {
        let mut w = CostWindow::default();
        assert_eq!(w.observe(&Sample::new(Utc::now(), 1.0)), None);
    }

    #[test]
    fn p95_nearest_rank() {
        assert_eq!(p95(&[]), None);
        assert_eq!(p95(&[5]), Some(5));
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(p95(&v), Some(19));
    }
}
