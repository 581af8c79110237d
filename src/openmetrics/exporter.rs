//! The families every exporter has, beside the figures: what binary answers
//! (`innodebt_build_info`), what the process costs (`process_*`, named as the Prometheus
//! client libraries name them, so the usual dashboards and alerts work), and the server's raw
//! monotonic counters (`*_total`), which Prometheus can `rate()` over any window itself.

use super::family::{Family, Kind, Labels, Read, gauge};
use innodebt_engine::measure::counters::Counters;

/// The binary: its version, the commit it was built from and the compiler (build.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct Build {
    pub version: &'static str,
    pub revision: &'static str,
    pub rustc: &'static str,
}

impl Build {
    /// This binary's.
    pub const fn current() -> Build {
        Build {
            version: env!("CARGO_PKG_VERSION"),
            revision: env!("INNODEBT_REVISION"),
            rustc: env!("INNODEBT_RUSTC"),
        }
    }
}

/// The exporter process's own cost, read at scrape time (`None` fields: unreadable here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Process {
    pub cpu_seconds: Option<f64>,
    pub resident_bytes: Option<u64>,
    pub virtual_bytes: Option<u64>,
    pub open_fds: Option<u64>,
    pub max_fds: Option<u64>,
    pub start_time_seconds: Option<f64>,
}

/// What `/metrics` adds about innodebt itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Exporter {
    pub build: Build,
    pub process: Process,
}

fn build_labels(e: &Exporter) -> Vec<(Labels, f64)> {
    vec![(
        vec![
            ("version", e.build.version.to_string()),
            ("revision", e.build.revision.to_string()),
            ("rustc", e.build.rustc.to_string()),
        ],
        1.0,
    )]
}

fn n(v: Option<u64>) -> Option<f64> {
    v.map(|v| v as f64)
}

pub const EXPORTER: &[Family<Exporter>] = &[
    Family {
        name: "innodebt_build",
        unit: "",
        kind: Kind::Info,
        help: "The innodebt binary answering: version, the commit it was built from, the compiler",
        read: Read::Many(build_labels),
    },
    Family {
        name: "process_cpu_seconds",
        unit: "seconds",
        kind: Kind::Counter,
        help: "Total user and system CPU time spent in seconds",
        read: Read::One(|e| e.process.cpu_seconds),
    },
    gauge(
        "process_resident_memory_bytes",
        "bytes",
        "Resident memory size in bytes",
        |e| n(e.process.resident_bytes),
    ),
    gauge(
        "process_virtual_memory_bytes",
        "bytes",
        "Virtual memory size in bytes",
        |e| n(e.process.virtual_bytes),
    ),
    gauge(
        "process_open_fds",
        "",
        "Number of open file descriptors",
        |e| n(e.process.open_fds),
    ),
    gauge(
        "process_max_fds",
        "",
        "Maximum number of open file descriptors",
        |e| n(e.process.max_fds),
    ),
    gauge(
        "process_start_time_seconds",
        "seconds",
        "Start time of the process since unix epoch in seconds",
        |e| e.process.start_time_seconds,
    ),
];

fn flushed_by_source(c: &Counters) -> Vec<(Labels, f64)> {
    c.flushed_by_source
        .iter()
        .map(|(source, v)| (vec![("source", (*source).to_string())], *v as f64))
        .collect()
}

const fn counter(
    name: &'static str,
    unit: &'static str,
    help: &'static str,
    read: Read<Counters>,
) -> Family<Counters> {
    Family {
        name,
        unit,
        kind: Kind::Counter,
        help,
        read,
    }
}

/// The raw counters of one target (beside its `*_per_second` gauges).
pub const COUNTERS: &[Family<Counters>] = &[
    counter(
        "innodebt_lsn_bytes",
        "bytes",
        "Redo written: the server's current log sequence number",
        Read::One(|c| n(c.lsn_bytes)),
    ),
    counter(
        "innodebt_buffer_pool_pages_flushed",
        "",
        "Pages flushed from the buffer pool, all sources (Innodb_buffer_pool_pages_flushed)",
        Read::One(|c| n(c.pages_flushed)),
    ),
    counter(
        "innodebt_flushed_pages",
        "",
        "Pages flushed by source (INNODB_METRICS; a source whose counter is off is absent)",
        Read::Many(flushed_by_source),
    ),
    counter(
        "innodebt_purged_records",
        "",
        "Records purged: delete-marked and updated-externally (INNODB_METRICS)",
        Read::One(|c| n(c.purged_records)),
    ),
    counter(
        "innodebt_purged_undo_pages",
        "",
        "Undo log pages purge processed (INNODB_METRICS purge_undo_log_pages)",
        Read::One(|c| n(c.purged_undo_pages)),
    ),
];
