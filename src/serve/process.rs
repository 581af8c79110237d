//! innodebt's own process for the `process_*` families, read from /proc as the Prometheus
//! client libraries read it (utime + stime, VmRSS, vsize, /proc/self/fd, the open-files
//! limit, start time from the boot time plus the start tick), and the open-files limit
//! raised to its hard maximum at start (as Go's runtime does for every Go exporter): one
//! descriptor per target connection, scrape connection and recording.

use crate::openmetrics::exporter::Process;

/// Kernel clock ticks per second (`getconf CLK_TCK`).
fn ticks_per_second() -> Option<f64> {
    let t = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK).ok()??;
    (t > 0).then_some(t as f64)
}

/// The fields after the command name of `/proc/self/stat` (field 3 is index 0).
fn stat_fields(stat: &str) -> Vec<&str> {
    stat.rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default()
}

fn parse(stat: &str, status: &str, limits: &str, boot_time: Option<f64>, tick: f64) -> Process {
    let f = stat_fields(stat);
    let field = |n: usize| f.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    let cpu = field(14).zip(field(15)).map(|(u, s)| (u + s) as f64 / tick);
    let resident = status.lines().find_map(|l| {
        let kb = l.strip_prefix("VmRSS:")?.trim().strip_suffix("kB")?;
        kb.trim().parse::<u64>().ok().map(|k| k * 1024)
    });
    let max_fds = limits.lines().find_map(|l| {
        let soft = l
            .strip_prefix("Max open files")?
            .split_whitespace()
            .next()?;
        soft.parse::<u64>().ok()
    });
    Process {
        cpu_seconds: cpu,
        resident_bytes: resident,
        virtual_bytes: field(23),
        open_fds: None,
        max_fds,
        start_time_seconds: boot_time
            .zip(field(22))
            .map(|(boot, start)| boot + start as f64 / tick),
    }
}

/// This process now; what cannot be read stays `None` (its family is then absent).
pub fn read() -> Process {
    let file = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let boot = file("/proc/stat").lines().find_map(|l| {
        l.strip_prefix("btime ")
            .and_then(|v| v.trim().parse::<f64>().ok())
    });
    let mut p = parse(
        &file("/proc/self/stat"),
        &file("/proc/self/status"),
        &file("/proc/self/limits"),
        boot,
        ticks_per_second().unwrap_or(100.0),
    );
    // The directory's own descriptor, open while it is read, is not counted.
    p.open_fds = std::fs::read_dir("/proc/self/fd")
        .ok()
        .map(|d| (d.count() as u64).saturating_sub(1));
    p
}

/// Raises the soft open-files limit to the hard one; returns the limit now in force.
pub fn raise_fd_limit() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    // A failed raise leaves the old limit.
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return Some(hard);
    }
    Some(soft)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_proc_files() {
        // A command name with spaces and a parenthesis, as /proc shows it.
        let stat = "4242 (innodebt (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 \
                    250 50 0 0 20 0 6 0 123400 104857600 2500 18446744073709551615";
        let status = "Name:\tinnodebt\nVmRSS:\t   12345 kB\nThreads:\t6\n";
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            524288               524288               files\n";
        let p = parse(stat, status, limits, Some(1_700_000_000.0), 100.0);
        assert_eq!(p.cpu_seconds, Some(3.0));
        assert_eq!(p.resident_bytes, Some(12345 * 1024));
        assert_eq!(p.virtual_bytes, Some(104_857_600));
        assert_eq!(p.max_fds, Some(524_288));
        assert_eq!(p.start_time_seconds, Some(1_700_001_234.0));
        assert_eq!(parse("", "", "", None, 100.0), Process::default());
    }

    #[test]
    fn this_process_is_readable() {
        let p = read();
        assert!(p.resident_bytes.is_some_and(|r| r > 1 << 20), "{p:?}");
        assert!(p.open_fds.is_some_and(|n| n >= 3), "{p:?}");
        let now = chrono::Utc::now().timestamp() as f64;
        assert!(
            p.start_time_seconds
                .is_some_and(|s| s <= now + 1.0 && s > now - 86400.0),
            "{p:?}"
        );
    }
}
