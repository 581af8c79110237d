//! What the machine was doing while a benchmark measured: the figures beside a table.

/// The 1, 5 and 15 minute load averages, as `uptime` prints them (empty where unknown).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}
