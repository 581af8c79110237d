//! A Prometheus history as a team running mysqld_exporter would hold it: the [`laps`] samples
//! (the demo's real MariaDB 10.11 samples, lap after lap) written as the series mysqld_exporter
//! 0.14 exports for them (`mysql_global_status_*`, `mysql_info_schema_innodb_metrics_*`,
//! `mysql_global_variables_*`, `mysql_version_info`, and commands and collector series the
//! import must skip), in OpenMetrics, at the scrape interval asked; [`backfill`] turns the
//! text into TSDB blocks with `promtool tsdb create-blocks-from openmetrics`.
//!
//! The benches include this file and `laps.rs` by path (as `super::laps`).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use innodebt_server::sample::SourceEvent;

use super::laps;

/// Which exporter series a status variable is (name, labels).
fn status_series(name: &str) -> (String, String) {
    if let Some(state) = name.strip_prefix("Innodb_buffer_pool_pages_") {
        return match state {
            "data" | "free" | "misc" | "total" => (
                "mysql_global_status_buffer_pool_pages".into(),
                format!("state=\"{state}\""),
            ),
            "dirty" => (
                "mysql_global_status_buffer_pool_dirty_pages".into(),
                String::new(),
            ),
            op => (
                "mysql_global_status_buffer_pool_page_changes_total".into(),
                format!("operation=\"{op}\""),
            ),
        };
    }
    if let Some(h) = name.strip_prefix("Handler_") {
        return (
            "mysql_global_status_handlers_total".into(),
            format!("handler=\"{h}\""),
        );
    }
    (
        format!("mysql_global_status_{}", name.to_ascii_lowercase()),
        String::new(),
    )
}

/// Which exporter series an INNODB_METRICS counter is: `<subsystem>_<name>`, `_total` for a
/// counter, `buffer_page_read_*` as one family by `type`.
fn metric_series(name: &str) -> (String, String) {
    const P: &str = "mysql_info_schema_innodb_metrics_";
    if let Some(t) = name.strip_prefix("buffer_page_read_") {
        return (
            format!("{P}buffer_page_read_total"),
            format!("type=\"{t}\""),
        );
    }
    let subsystem = match name.split('_').next().unwrap_or_default() {
        "trx" => "transaction",
        "buffer" => "buffer",
        s => s,
    };
    let total = if laps::METRIC_GAUGES.contains(&name) {
        ""
    } else {
        "_total"
    };
    (format!("{P}{subsystem}_{name}{total}"), String::new())
}

/// Commands a busy server counts, exported beside the InnoDB series (the import skips them).
const COMMANDS: &[&str] = &[
    "select",
    "insert",
    "update",
    "delete",
    "replace",
    "commit",
    "rollback",
    "begin",
    "set_option",
    "show_status",
    "show_variables",
    "show_engine_status",
    "admin_commands",
    "change_db",
    "show_processlist",
    "show_slave_status",
    "load",
    "call_procedure",
    "create_table",
    "drop_table",
    "alter_table",
    "analyze",
    "optimize",
    "flush",
    "kill",
    "lock_tables",
    "unlock_tables",
    "prepare_sql",
    "execute_sql",
    "dealloc_sql",
    "savepoint",
    "release_savepoint",
    "rollback_to_savepoint",
    "show_tables",
    "show_fields",
    "show_keys",
    "show_grants",
    "show_create_table",
    "show_databases",
    "empty_query",
];

/// Every series mysqld_exporter would export for `seconds` of the laps at `step_s`: per series
/// (name, labels) its points as (seconds after the start, value). `commands`: the command
/// counters too (series the import must skip).
fn exporter_series(
    seconds: u64,
    step_s: u64,
    commands: bool,
) -> BTreeMap<(String, String), Vec<(i64, f64)>> {
    // Every series' points, column by column (one family's series must be contiguous).
    let mut series: BTreeMap<(String, String), Vec<(i64, f64)>> = BTreeMap::new();
    let mut variables: BTreeMap<String, f64> = BTreeMap::new();
    let mut version = (String::new(), String::new());
    let mut i = 0u64;
    laps::events(seconds, |ev| match ev {
        SourceEvent::Connected { info, .. } => {
            version = (info.version.clone(), info.version_comment.clone());
            variables = info
                .variables
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.parse::<f64>().ok()?)))
                .collect();
        }
        SourceEvent::Sample(s) => {
            let t = i as i64;
            i += 1;
            if !(i - 1).is_multiple_of(step_s) {
                return;
            }
            let mut put = |name: String, labels: String, v: f64| {
                series.entry((name, labels)).or_default().push((t, v));
            };
            for (k, v) in &s.status {
                let (n, l) = status_series(k);
                put(n, l, *v as f64);
            }
            for (k, m) in &s.metrics {
                let (n, l) = metric_series(k);
                put(n, l, m.count as f64);
            }
            for (k, v) in &variables {
                put(format!("mysql_global_variables_{k}"), String::new(), *v);
            }
            if commands {
                let changed = s.status.get("Handler_update").copied().unwrap_or(0) as f64;
                for (n, c) in COMMANDS.iter().enumerate() {
                    put(
                        "mysql_global_status_commands_total".into(),
                        format!("command=\"{c}\""),
                        (changed / (n as f64 + 1.0)).floor(),
                    );
                }
            }
            let version_labels = format!(
                "innodb_version=\"{}\",version=\"{}\",version_comment=\"{}\"",
                version.0.split('-').next().unwrap_or_default(),
                version.0,
                version.1
            );
            put("mysql_version_info".into(), version_labels, 1.0);
            put("mysql_up".into(), String::new(), 1.0);
            for c in [
                "global_status",
                "global_variables",
                "info_schema.innodb_metrics",
            ] {
                put(
                    "mysql_exporter_collector_success".into(),
                    format!("collector=\"{c}\""),
                    1.0,
                );
            }
        }
        _ => {}
    });
    series
}

fn labelled(labels: &str, instance: &str) -> String {
    if labels.is_empty() {
        format!("instance=\"{instance}\",job=\"mysql\"")
    } else {
        format!("{labels},instance=\"{instance}\",job=\"mysql\"")
    }
}

/// Writes `seconds` of history at `step_s` for `instance` (job `mysql`), starting at unix
/// `start`, as OpenMetrics; returns how many series it holds.
pub fn openmetrics(path: &Path, instance: &str, start: i64, seconds: u64, step_s: u64) -> usize {
    let series = exporter_series(seconds, step_s, true);
    let file = std::fs::File::create(path).expect("create the OpenMetrics file");
    let mut out = std::io::BufWriter::new(file);
    let mut family = String::new();
    for ((name, labels), points) in &series {
        if *name != family {
            writeln!(out, "# TYPE {name} gauge").expect("write");
            family = name.clone();
        }
        let labels = labelled(labels, instance);
        for (t, v) in points {
            writeln!(out, "{name}{{{labels}}} {v} {}", start + t).expect("write");
        }
    }
    writeln!(out, "# EOF").expect("write");
    out.flush().expect("flush");
    series.len()
}

/// How one instance of a backfilled fleet ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Scraped to the end.
    Live,
    /// Its series stop this many seconds before the end (the target left the scrape).
    Stale(i64),
    /// Its scrapes fail for this many seconds before the end: `up` 0, no other series.
    Dead(i64),
}

/// A fleet of mysqld_exporter instances (job `mysql`) over `seconds` at `step_s` ending at unix
/// `end`, as OpenMetrics: instance `k` plays the laps from its own phase (`k` steps on, of 40),
/// so the fleet holds every state the demo goes through at once. Returns the series written.
pub fn fleet_openmetrics(
    path: &Path,
    instances: &[(String, Ending)],
    end: i64,
    seconds: u64,
    step_s: u64,
) -> usize {
    const PHASES: u64 = 40;
    let series = exporter_series(seconds + PHASES * step_s, step_s, false);
    let points = (seconds / step_s) as usize;
    let start = end - (points as i64 - 1) * step_s as i64;
    let file = std::fs::File::create(path).expect("create the OpenMetrics file");
    let mut out = std::io::BufWriter::new(file);
    let mut written = 0;
    let last_t = |ending: Ending| match ending {
        Ending::Live => end,
        Ending::Stale(s) | Ending::Dead(s) => end - s,
    };
    let mut family = String::new();
    for ((name, labels), values) in &series {
        if *name != family {
            writeln!(out, "# TYPE {name} gauge").expect("write");
            family = name.clone();
        }
        for (k, (instance, ending)) in instances.iter().enumerate() {
            let phase = k % PHASES as usize;
            let labels = labelled(labels, instance);
            written += 1;
            for (j, (_, v)) in values.iter().skip(phase).take(points).enumerate() {
                let t = start + (j as u64 * step_s) as i64;
                if t > last_t(*ending) {
                    break;
                }
                writeln!(out, "{name}{{{labels}}} {v} {t}").expect("write");
            }
        }
    }
    writeln!(out, "# TYPE up gauge").expect("write");
    for (instance, ending) in instances {
        let labels = labelled("", instance);
        for j in 0..points {
            let t = start + (j as u64 * step_s) as i64;
            let up = match ending {
                Ending::Stale(s) if t > end - s => break,
                Ending::Dead(s) if t > end - s => 0,
                _ => 1,
            };
            writeln!(out, "up{{{labels}}} {up} {t}").expect("write");
        }
    }
    writeln!(out, "# EOF").expect("write");
    out.flush().expect("flush");
    written
}

/// `promtool tsdb create-blocks-from openmetrics FILE TSDB`.
pub fn backfill(promtool: &Path, openmetrics: &Path, tsdb: &Path) {
    let out = Command::new(promtool)
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(openmetrics)
        .arg(tsdb)
        .output()
        .expect("run promtool");
    assert!(
        out.status.success(),
        "promtool create-blocks-from openmetrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What one run cost.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    pub wall_s: f64,
    /// The process's own CPU (user + system).
    pub cpu_s: f64,
    pub peak_rss_kib: u64,
}

/// Runs `cmd` to its end: what it cost, or what it said on stderr.
///
/// Peak RSS and CPU are the process's own `VmHWM` and `utime + stime`, read from `/proc` until
/// it exits (`wait4`'s `ru_maxrss` keeps the high-water mark from before `exec`: this large
/// process's).
pub fn measured(cmd: &mut Command) -> Result<Cost, String> {
    let started = std::time::Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut said = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut said).ok();
        said
    });
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let (mut hwm, mut ticks) = (0u64, 0u64);
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let kib = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok());
            hwm = hwm.max(kib.unwrap_or(0));
        }
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // Fields after the command (which may hold spaces) start after the last ')'.
            let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
            let f: Vec<&str> = rest.split_whitespace().collect();
            let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            ticks = ticks.max(n(11) + n(12));
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let wall_s = started.elapsed().as_secs_f64();
    let said = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(said);
    }
    Ok(Cost {
        wall_s,
        cpu_s: ticks as f64 / hz,
        peak_rss_kib: hwm,
    })
}

/// mysqld_exporter's `/metrics` page of each instance of a live fleet: instance `k` at step `j`
/// shows the laps at step `j + k` (each at its own phase), with the command counters an
/// exporter also sends. A bench's scrape target, for a Prometheus that scrapes it as it would
/// scrape a thousand exporters.
pub struct ExporterPages {
    series: BTreeMap<(String, String), Vec<(i64, f64)>>,
    steps: usize,
}

impl ExporterPages {
    /// `seconds` of the laps at `step_s` per instance; a page past them shows the last step.
    pub fn new(seconds: u64, step_s: u64) -> ExporterPages {
        let series = exporter_series(seconds, step_s, true);
        let steps = series.values().map(Vec::len).min().unwrap_or(0);
        ExporterPages { series, steps }
    }

    /// The exposition of `instance` (its `k`) at step `step`.
    pub fn page(&self, k: usize, step: u64) -> String {
        let j = (step as usize + k % 40).min(self.steps.saturating_sub(1));
        let mut out = String::with_capacity(16 << 10);
        let mut family = "";
        for ((name, labels), points) in &self.series {
            if name != family {
                out.push_str(&format!("# TYPE {name} gauge\n"));
                family = name;
            }
            let Some((_, v)) = points.get(j) else {
                continue;
            };
            match labels.is_empty() {
                true => out.push_str(&format!("{name} {v}\n")),
                false => out.push_str(&format!("{name}{{{labels}}} {v}\n")),
            }
        }
        out
    }
}
