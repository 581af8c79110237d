//! How old the newest sample may be and still say something about now: the one rule the
//! dashboard's STALE badge, serve's `innodebt_up` and the fleet row read, so none of them
//! calls a target stale while another calls it up.

use std::time::Duration;

use crate::figures::Figures;
use innodebt_server::sample::Cadenced;

/// The newest sample, against when the next one is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Age {
    OnTime,
    /// Overdue but not yet stale: the dashboard counts the seconds then.
    Late,
    /// Nothing is known about now.
    Stale,
}

/// When samples are due: every `interval`, or at the slower tick the latency guard stretched
/// it to (the newest figures say), so a guarded server is not called stale between samples.
pub fn due_every(interval: Duration, latest: Option<&Figures>) -> Duration {
    latest
        .and_then(|f| f.self_cost.as_ref())
        .and_then(|c| c.slowed.iter().find(|s| s.source == Cadenced::Tick))
        .map_or(interval, |s| Duration::from_millis(s.every_ms))
}

/// A sample older than this is stale. A poll may legitimately take a while: two more ticks
/// missing, and at least two seconds more than one.
pub fn stale_after(every: Duration) -> Duration {
    every.mul_f64(2.5).max(every + Duration::from_secs(2))
}

/// A sample older than this is late: half a tick, and at least a second, past due.
pub fn late_after(every: Duration) -> Duration {
    every.mul_f64(1.5).max(every + Duration::from_secs(1))
}

/// How fresh a sample `age` old is when samples are due `every`.
pub fn age(age: Duration, every: Duration) -> Age {
    if age > stale_after(every) {
        Age::Stale
    } else if age > late_after(every) {
        Age::Late
    } else {
        Age::OnTime
    }
}

/// Why a target whose newest sample is `age` old counts as down (serve's
/// `innodebt_last_error_info`, the fleet row's detail line).
pub fn stale_reason(age: Duration) -> String {
    format!(
        "the last sample is {:.0}s old: the server or the network stopped answering",
        age.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::SelfCost;
    use innodebt_server::sample::Slowed;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn stale_after_two_more_ticks_and_two_seconds() {
        assert_eq!(stale_after(S), Duration::from_secs(3));
        assert_eq!(stale_after(S * 10), Duration::from_secs(25));
        assert_eq!(age(Duration::from_secs(3), S), Age::Late);
        assert_eq!(age(Duration::from_millis(3001), S), Age::Stale);
        assert_eq!(age(Duration::from_secs(2), S), Age::OnTime);
        assert_eq!(age(Duration::from_millis(2001), S), Age::Late);
    }

    #[test]
    fn a_stretched_tick_is_due_later() {
        let mut f = Figures::default();
        assert_eq!(due_every(S, Some(&f)), S);
        f.self_cost = Some(SelfCost {
            statements_per_tick: 0,
            server_ms_per_tick: 0.0,
            server_ms_p95_1m: None,
            statements_max_1m: 0,
            measured: String::new(),
            by_statement: Vec::new(),
            slowed: vec![Slowed {
                source: Cadenced::Tick,
                every_ms: 8000,
                last_ms: None,
                timed_out: false,
                recovering: false,
            }],
        });
        assert_eq!(due_every(S, Some(&f)), S * 8);
        assert_eq!(due_every(S, None), S);
    }
}
