//! The replay benchmark's captures hold what a server can show: two hours of the generator
//! (`common::laps`, 34 laps of the demo), written by the real writer and read back, keep every
//! counter monotonic, every checkpoint age within the log, no figure suspect, and every rate
//! within what the real server the demo recorded did at its busiest.

use crate::common::laps;

use innodebt_capture as capture;
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_server::sample::{Sample, SourceEvent};

fn figures_of(events: &[SourceEvent]) -> Vec<Figures> {
    let mut d = Deriver::new();
    events.iter().filter_map(|e| d.push(e)).collect()
}

/// One rate of the figures.
type Rate = fn(&Figures) -> Option<f64>;

fn peak(figs: &[Figures], rate: Rate) -> f64 {
    figs.iter().filter_map(rate).fold(0.0, f64::max)
}

#[test]
fn the_generated_captures_stay_within_what_a_server_shows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("2h.idbt");
    laps::write_file(&path, 7_200);
    let events = capture::open(&path)
        .expect("the generated capture reads")
        .events;
    let samples: Vec<&Sample> = events.iter().filter_map(SourceEvent::as_sample).collect();
    assert_eq!(samples.len(), 7_200);

    // Counters never go back (no restart in the file: Uptime only rises).
    for w in samples.windows(2) {
        let (a, b) = (w[0], w[1]);
        for (k, v) in &b.status {
            if laps::STATUS_GAUGES.contains(&k.as_str()) && k != "Uptime" {
                continue;
            }
            let before = a.status.get(k).copied().unwrap_or(0);
            assert!(
                *v >= before,
                "{k} went back at {}: {before} → {v}",
                b.taken_at
            );
        }
        for (k, m) in &b.metrics {
            if laps::METRIC_GAUGES.contains(&k.as_str()) {
                continue;
            }
            let before = a.metrics.get(k).map_or(0, |m| m.count);
            assert!(
                m.count >= before,
                "{k} went back at {}: {before} → {}",
                b.taken_at,
                m.count
            );
        }
    }

    let demo = figures_of(&laps::demo());
    let figs = figures_of(&events);
    assert_eq!(figs.len(), 7_200);
    for f in &figs {
        let (age, cap) = (
            f.redo.checkpoint_age_bytes.expect("age"),
            f.redo.capacity_bytes.expect("capacity"),
        );
        assert!(
            age <= cap,
            "at {}: checkpoint age {age} of a {cap} log",
            f.sampled_at
        );
        assert_eq!(f.suspect, vec![], "at {}", f.sampled_at);
    }
    // Each lap replays the demo's real steps: no rate beyond the real server's busiest second.
    let rates: [(&str, Rate); 4] = [
        ("redo written", |f| f.redo.written_bytes_per_s),
        ("pages flushed", |f| f.flush.total_pages_per_s),
        ("purged records", |f| f.purge.records_per_s),
        ("rows changed", |f| f.purge.inflow_records_per_s),
    ];
    for (name, rate) in rates {
        let (real, made) = (peak(&demo, rate), peak(&figs, rate));
        assert!(real > 0.0, "{name}: the demo has it");
        assert!(
            made <= real * 1.01,
            "{name}: the generator peaks at {made}/s, the real server at {real}/s"
        );
    }
}
