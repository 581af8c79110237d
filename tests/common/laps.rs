//! Long captures from a short real one: the shipped demo's 210 real MariaDB 10.11 samples (a
//! write load, a read view blocking purge, the checkpoint age near the async point), played
//! lap after lap at 1 s for as long as a benchmark needs (the replay benchmark's day and
//! week, the Prometheus import's day at 15 s and hour at 1 s).
//!
//! Every lap is the demo again as a server would have gone on: gauges (history, dirty pages,
//! checkpoint age, undo size) take the demo's real values; counters go on from where the last
//! lap left them, each by its own growth over the demo; every LSN (status, INNODB_METRICS and
//! SHOW ENGINE INNODB STATUS alike) moves by the one redo growth, so the checkpoint age a lap
//! shows is the demo's, never more than the log holds; transaction ids move with the trx id
//! counter. `tests/it/replay_bench_data.rs` holds the generated file to that.
#![allow(dead_code)]

use std::collections::BTreeMap;

use innodebt_capture::{self as capture, Header};
use innodebt_server::sample::{Sample, SourceEvent};

/// Status values that are levels, not counts: a lap takes the demo's own.
pub const STATUS_GAUGES: &[&str] = &[
    "Innodb_buffer_pool_bytes_dirty",
    "Innodb_buffer_pool_pages_data",
    "Innodb_buffer_pool_pages_dirty",
    "Innodb_buffer_pool_pages_free",
    "Innodb_buffer_pool_pages_misc",
    "Innodb_buffer_pool_pages_total",
    "Innodb_checkpoint_age",
    "Innodb_checkpoint_max_age",
    "Innodb_history_list_length",
    "Uptime",
];
/// INNODB_METRICS values that are levels (`value` and `status_counter` kinds that go down).
pub const METRIC_GAUGES: &[&str] = &[
    "log_max_modified_age_async",
    "log_max_modified_age_sync",
    "log_lsn_checkpoint_age",
    "purge_dml_delay_usec",
    "trx_rseg_current_size",
    "trx_rseg_history_len",
];

pub fn demo_path() -> &'static str {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    )
}

pub fn demo() -> Vec<SourceEvent> {
    capture::open(demo_path()).expect("demo capture").events
}

fn is_lsn(name: &str) -> bool {
    name.contains("lsn")
}

/// How much each counter grows over the demo, and the redo and trx id growth.
struct Growth {
    status: BTreeMap<String, u64>,
    metrics: BTreeMap<String, i64>,
    lsn: u64,
    trx_id: u64,
}

impl Growth {
    fn of(first: &Sample, last: &Sample) -> Growth {
        let lsn = last.status["Innodb_lsn_current"] - first.status["Innodb_lsn_current"];
        let status = first
            .status
            .iter()
            .filter(|(k, _)| !STATUS_GAUGES.contains(&k.as_str()))
            .filter_map(|(k, a)| {
                let b = last.status.get(k)?;
                let g = if is_lsn(k) { lsn } else { b.checked_sub(*a)? };
                Some((k.clone(), g))
            })
            .collect();
        let metrics = first
            .metrics
            .iter()
            .filter(|(k, _)| !METRIC_GAUGES.contains(&k.as_str()))
            .filter_map(|(k, a)| {
                let b = last.metrics.get(k)?;
                let g = if is_lsn(k) {
                    lsn as i64
                } else {
                    b.count - a.count
                };
                (g >= 0).then(|| (k.clone(), g))
            })
            .collect();
        let trx_id = last.status["Innodb_max_trx_id"] - first.status["Innodb_max_trx_id"];
        Growth {
            status,
            metrics,
            lsn,
            trx_id,
        }
    }
}

/// `seconds` samples at 1 s, handed to `sink` with the server's description first.
pub fn events(seconds: u64, mut sink: impl FnMut(&SourceEvent)) {
    let events = demo();
    let connected = events
        .iter()
        .find(|e| matches!(e, SourceEvent::Connected { .. }))
        .cloned()
        .expect("connected");
    let samples: Vec<Sample> = events
        .iter()
        .filter_map(|e| e.as_sample().cloned())
        .collect();
    let growth = Growth::of(&samples[0], &samples[samples.len() - 1]);
    let t0 = samples[0].taken_at;
    sink(&connected);
    let n = samples.len() as u64;
    for i in 0..seconds {
        let lap = i / n;
        let mut s = samples[(i % n) as usize].clone();
        s.taken_at = t0 + chrono::Duration::seconds(i as i64);
        s.mono_s = i as f64;
        for (k, v) in s.status.iter_mut() {
            if let Some(g) = growth.status.get(k) {
                *v += lap * g;
            }
        }
        if let Some(u) = s.status.get_mut("Uptime") {
            *u = 1000 + i;
        }
        for (k, m) in s.metrics.iter_mut() {
            if let Some(g) = growth.metrics.get(k) {
                m.count += lap as i64 * g;
            }
        }
        let (lsn, trx) = (lap * growth.lsn, lap * growth.trx_id);
        if let Some(st) = s.innodb_status.as_mut() {
            for v in [
                &mut st.lsn,
                &mut st.log_flushed_lsn,
                &mut st.pages_flushed_lsn,
                &mut st.checkpoint_lsn,
            ] {
                *v = v.map(|v| v + lsn);
            }
            for v in [&mut st.trx_id_counter, &mut st.purge_done_trx] {
                *v = v.map(|v| v + trx);
            }
            for t in st.transactions.iter_mut() {
                t.trx_id = t.trx_id.as_deref().map(|id| moved_id(id, trx));
            }
        }
        for t in s.trx.iter_mut() {
            t.trx_id = moved_id(&t.trx_id, trx);
        }
        sink(&SourceEvent::Sample(Box::new(s)));
    }
}

fn moved_id(id: &str, by: u64) -> String {
    id.parse::<u64>()
        .map_or_else(|_| id.to_string(), |n| (n + by).to_string())
}

/// A capture header for `events`, at 1 s.
pub fn header() -> Header {
    let mut h = Header::new(demo()[0].at(), None, false);
    h.interval_ms = Some(1000);
    h
}

/// One capture file of `seconds` samples, written with the writer every recording uses.
pub fn write_file(path: &std::path::Path, seconds: u64) {
    let mut w =
        innodebt::replay::create_writer(path, &header(), Default::default()).expect("create");
    events(seconds, |ev| w.append(ev).expect("append"));
    w.finish().expect("finish");
}
