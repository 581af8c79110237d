//! innodebt's own cost to the server, in words: the header's small figure, the latency
//! guard's note when the server is slow, and the lines of the `?` overlay.

use std::time::Duration;

use innodebt_engine::measure::selfcost::SelfCost;
use innodebt_poller::cadence::{BUDGET_SHARE, Slowed};

/// `0.6 ms` / `12 ms`.
pub fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.0} ms")
    }
}

fn every(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

/// The header's figure: `0.6 ms · 3 q` (round trip of this tick's statements, how many).
pub fn header_figure(c: &SelfCost) -> String {
    format!("{} · {} q", ms(c.server_ms_per_tick), c.statements_per_tick)
}

/// `server slow: polling every 4s` — what the latency guard is doing, if anything.
pub fn slowed_note(slowed: &[Slowed]) -> Option<String> {
    let first = slowed.first()?;
    let (was, how) = match (first.timed_out, first.recovering, first.last_ms) {
        (true, _, _) => ("server slow", " (timed out)".to_string()),
        (false, true, Some(last)) => ("server was slow", format!(", speeding up (last {last} ms)")),
        (false, _, Some(last)) => ("server slow", format!(" (took {last} ms)")),
        (false, _, None) => ("server slow", String::new()),
    };
    let mut note = format!(
        "{was}: {} every {}{how}",
        first.source.describe(),
        every(first.every_ms)
    );
    if slowed.len() > 1 {
        note.push_str(&format!(" +{} more", slowed.len() - 1));
    }
    Some(note)
}

/// The `?` overlay's section: a one-line summary (this tick, the minute's p95), then each
/// statement, what the figures are and the budget. Short terminals show the summary alone.
pub fn overlay_lines(c: Option<&SelfCost>, interval: Duration) -> (String, Vec<String>) {
    let budget = interval.as_secs_f64() * 1000.0 * BUDGET_SHARE;
    let Some(c) = c else {
        return (
            "own cost: not measured yet (or a capture from before it was)".into(),
            Vec::new(),
        );
    };
    let summary = format!(
        "own cost: {} statements, {} round trip; p95 over 1 min {}",
        c.statements_per_tick,
        ms(c.server_ms_per_tick),
        c.server_ms_p95_1m.map_or_else(|| "n/a".to_string(), ms),
    );
    let mut details: Vec<String> = c
        .by_statement
        .iter()
        .map(|s| format!("{}: {}", s.statement, ms(s.ms)))
        .collect();
    details.push(c.measured.clone());
    details.push(format!(
        "a source slower than {} (20 % of the interval) is asked less often",
        ms(budget)
    ));
    details.extend(
        c.slowed
            .iter()
            .filter_map(|s| slowed_note(std::slice::from_ref(s)))
            .map(|n| n.to_string()),
    );
    (summary, details)
}

#[cfg(test)]
mod tests {
    use super::*;
    use innodebt_poller::cadence::Cadenced;

    #[test]
    fn the_guards_note_says_what_and_why() {
        assert_eq!(slowed_note(&[]), None);
        let tick = Slowed {
            source: Cadenced::Tick,
            every_ms: 4000,
            last_ms: Some(310),
            timed_out: false,
            recovering: false,
        };
        assert_eq!(
            slowed_note(std::slice::from_ref(&tick)).as_deref(),
            Some("server slow: polling every 4s (took 310 ms)")
        );
        let seis = Slowed {
            source: Cadenced::InnodbStatus,
            every_ms: 160_000,
            last_ms: None,
            timed_out: true,
            recovering: false,
        };
        let back = Slowed {
            source: Cadenced::Tick,
            every_ms: 4000,
            last_ms: Some(2),
            timed_out: false,
            recovering: true,
        };
        assert_eq!(
            slowed_note(&[back]).as_deref(),
            Some("server was slow: polling every 4s, speeding up (last 2 ms)")
        );
        assert_eq!(
            slowed_note(&[seis, tick]).as_deref(),
            Some("server slow: SHOW ENGINE INNODB STATUS every 160s (timed out) +1 more")
        );
    }
}
