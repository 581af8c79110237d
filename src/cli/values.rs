//! Value parsers for flags and option files: durations (`500ms`, `1m30s`), the poll
//! interval, schedules (`never`), byte rates and sizes (K/M/G/T are powers of 1024, as in
//! MySQL option values), ports and points in a capture (`14:05:00`, `+5m`). Each error says
//! what was given and what is accepted.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, NaiveTime};

use innodebt_poller::connect::Secret;

/// The shortest `--interval` accepted: the poller's floor.
pub use innodebt_poller::live::MIN_INTERVAL;

/// A periodic task that may be switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    Never,
    Every(Duration),
}

impl Schedule {
    pub fn period(self) -> Option<Duration> {
        match self {
            Schedule::Never => None,
            Schedule::Every(d) => Some(d),
        }
    }
}

/// A point in a capture, for `replay --from/--to/--at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSpec {
    /// `HH:MM:SS` (or `HH:MM`): that wall-clock time on the capture's day(s).
    Clock(NaiveTime),
    /// An RFC 3339 timestamp.
    Instant(DateTime<FixedOffset>),
    /// `+90s`, `+5m`: this long after the capture's first sample.
    Offset(Duration),
}

/// As given on the command line, near enough to read it back: `+3m`, `21:20:00`,
/// `2020-01-01 00:00:00 UTC`.
impl std::fmt::Display for TimeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeSpec::Offset(d) if d.subsec_millis() > 0 => write!(f, "+{:.3}s", d.as_secs_f64()),
            TimeSpec::Offset(d) => write!(f, "+{}", compact_duration(d.as_secs())),
            TimeSpec::Clock(t) => write!(f, "{}", t.format("%H:%M:%S")),
            TimeSpec::Instant(t) => write!(
                f,
                "{}",
                t.with_timezone(&chrono::Utc)
                    .format("%Y-%m-%d %H:%M:%S UTC")
            ),
        }
    }
}

/// `3m29s`, `1h2m`, `45s`: a length of time as [`parse_duration`] takes it back.
pub fn compact_duration(secs: u64) -> String {
    let mut out = String::new();
    let mut rest = secs;
    for (unit, name) in [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")] {
        if rest >= unit {
            out.push_str(&format!("{}{name}", rest / unit));
            rest %= unit;
        }
    }
    if out.is_empty() {
        out.push_str("0s");
    }
    out
}

impl FromStr for TimeSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if let Some(offset) = t.strip_prefix('+') {
            return parse_duration(offset)
                .map(TimeSpec::Offset)
                .map_err(|e| format!("bad offset {s:?}: {e}"));
        }
        for format in ["%H:%M:%S%.f", "%H:%M"] {
            if let Ok(time) = NaiveTime::parse_from_str(t, format) {
                return Ok(TimeSpec::Clock(time));
            }
        }
        if let Ok(instant) = DateTime::parse_from_rfc3339(t) {
            return Ok(TimeSpec::Instant(instant));
        }
        Err(format!(
            "{s:?} is not a time: use HH:MM:SS (14:05:00), RFC 3339 \
             (2024-03-01T14:05:00Z), or an offset from the start (+90s, +5m)"
        ))
    }
}

pub(super) fn parse_secret(s: &str) -> Result<Secret, String> {
    Ok(Secret::new(s))
}

pub(super) fn parse_port(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err("a port is a number from 1 to 65535".to_owned()),
    }
}

/// A duration: humantime's forms (`500ms`, `90s`, `5m`, `2h30m`, `1h 30m`, `7d`, `2w`), a
/// decimal count of one unit (`2.5s`, `1.5h`), or a plain number of seconds (`3`, `0.25`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "{s:?} is not a duration: use a number with a unit — ms, s, m (min), h, d, w — \
             or several (500ms, 90s, 2h30m, 7d, 2.5s); a plain number means seconds"
        )
    };
    let t = s.trim();
    if t.is_empty() || t.starts_with('-') || t.starts_with('+') {
        return Err(bad());
    }
    if let Ok(d) = humantime::parse_duration(t) {
        return Ok(d);
    }
    // What humantime does not take: a plain number (seconds, as MySQL's timeouts) and a
    // fraction of one unit; the unit's length still comes from humantime.
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    if number.is_empty() || number.bytes().filter(|&b| b == b'.').count() > 1 {
        return Err(bad());
    }
    let count: f64 = number.parse().map_err(|_| bad())?;
    let one = if unit.is_empty() {
        Duration::from_secs(1)
    } else {
        humantime::parse_duration(&format!("1{unit}")).map_err(|_| bad())?
    };
    Duration::try_from_secs_f64(one.as_secs_f64() * count).map_err(|_| bad())
}

/// A duration that must be more than zero (timeouts, periods).
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err(format!(
            "{s:?} is zero: give a duration above zero, e.g. 5s"
        ));
    }
    Ok(d)
}

/// The poll interval: a duration of at least [`MIN_INTERVAL`].
pub fn parse_interval(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d < MIN_INTERVAL {
        return Err(format!(
            "{} is too short: the minimum is {}ms (polling faster loads the server \
             without showing anything new)",
            s.trim(),
            MIN_INTERVAL.as_millis()
        ));
    }
    Ok(d)
}

/// `never` (or `off`, `0`) or a duration.
pub fn parse_schedule(s: &str) -> Result<Schedule, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "never" | "off" | "0" => Ok(Schedule::Never),
        _ => parse_duration(s)
            .map(Schedule::Every)
            .map_err(|e| format!("{e}, or `never`")),
    }
}

/// A rate in bytes per second: a size ([`parse_size`]) with an optional `/s`: `12MiB/s`,
/// `10M`, `5000000`.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("/S"))
        .unwrap_or(t);
    bytes_with_unit(t).map_err(|zero| {
        if zero {
            format!("{s:?} is zero: the rate must be above zero")
        } else {
            format!("{s:?} is not a rate: use bytes per second, {SIZE_FORMS}, e.g. 12MiB/s, 10M")
        }
    })
}

/// How sizes are written, for the error messages.
const SIZE_FORMS: &str = "a number with an optional unit: KiB, MiB, GiB, TiB (powers of \
     1024), KB, MB, GB, TB (powers of 1000), or K, M, G, T alone (powers of 1024, as in MySQL \
     option values)";

/// A size in bytes, by bytesize's rules (`500MB` = 500 000 000, `1GiB` = 2^30), where a bare
/// K, M, G or T (`2G`, `64K`) is a power of 1024 as in MySQL option values; `65536` is bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    bytes_with_unit(s.trim()).map_err(|zero| {
        if zero {
            format!("{s:?} is zero: the size must be above zero")
        } else {
            format!("{s:?} is not a size: use {SIZE_FORMS}, e.g. 500MB, 1GiB, 2G")
        }
    })
}

/// Bytes, read by bytesize; `Err(true)` for zero, `Err(false)` for anything else.
fn bytes_with_unit(t: &str) -> Result<u64, bool> {
    // MySQL's bare K/M/G/T are binary; bytesize reads them as decimal, so say so.
    let mysql_style = t
        .chars()
        .last()
        .filter(|c| "kmgtKMGT".contains(*c))
        .map(|_| format!("{t}iB"));
    let text = mysql_style.as_deref().unwrap_or(t);
    if text.is_empty() || !text.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return Err(false);
    }
    let bytes = text
        .parse::<bytesize::ByteSize>()
        .map_err(|_| false)?
        .as_u64();
    if bytes == 0 {
        return Err(true);
    }
    Ok(bytes)
}

/// `--what-if VAR=VALUE`: the variable's name (lower case) and its value — a number, or a
/// size with K/M/G/T for the redo sizes (`4G`). Which variables have a model is the what-if
/// model's to say.
pub fn parse_what_if(s: &str) -> Result<(String, u64), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| {
        format!("{s:?}: use VAR=VALUE, e.g. innodb_log_file_size=4G or innodb_max_purge_lag=100000")
    })?;
    let name = name.trim().to_ascii_lowercase().replace('-', "_");
    if name.is_empty() {
        return Err(format!("{s:?}: the variable name is missing (VAR=VALUE)"));
    }
    let value = value.trim();
    let parsed = match value.parse::<u64>() {
        Ok(v) => Ok(v),
        Err(_) => parse_size(value),
    };
    parsed
        .map(|v| (name.clone(), v))
        .map_err(|e| format!("{name}: {e}"))
}

/// What `compare` takes for each side: a capture (file or directory), optionally cut to a
/// time range: `FILE@FROM..TO`, either end may be left out (`FILE@14:00..`, `FILE@..+10m`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureRange {
    pub path: std::path::PathBuf,
    pub from: Option<TimeSpec>,
    pub to: Option<TimeSpec>,
}

/// See [`CaptureRange`]. A path that exists as given is a path, even with an `@` in it.
pub fn parse_capture_range(s: &str) -> Result<CaptureRange, String> {
    let whole = || CaptureRange {
        path: s.into(),
        from: None,
        to: None,
    };
    if std::path::Path::new(s).exists() {
        return Ok(whole());
    }
    let Some((path, range)) = s.rsplit_once('@') else {
        return Ok(whole());
    };
    let Some((from, to)) = range.split_once("..") else {
        return Err(format!(
            "{s:?}: after @ give a time range FROM..TO (14:00:00..14:10:00, +5m.., ..+10m)"
        ));
    };
    let end = |t: &str| {
        let t = t.trim();
        (!t.is_empty())
            .then(|| TimeSpec::from_str(t))
            .transpose()
            .map_err(|e| format!("{s:?}: {e}"))
    };
    if path.is_empty() {
        return Err(format!("{s:?}: the capture file is missing before @"));
    }
    Ok(CaptureRange {
        path: path.into(),
        from: end(from)?,
        to: end(to)?,
    })
}

/// See [`TimeSpec`].
pub fn parse_time_spec(s: &str) -> Result<TimeSpec, String> {
    TimeSpec::from_str(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_back_as_given() {
        for given in ["+3m", "+1m30s", "+2h5s", "21:20:00", "+0s"] {
            let spec = parse_time_spec(given).unwrap();
            assert_eq!(spec.to_string(), given);
            assert_eq!(parse_time_spec(&spec.to_string()), Ok(spec));
        }
        assert_eq!(
            parse_time_spec("2020-01-01T02:00:00+02:00")
                .unwrap()
                .to_string(),
            "2020-01-01 00:00:00 UTC"
        );
        assert_eq!(compact_duration(90_061), "1d1h1m1s");
    }

    #[test]
    fn what_if_settings() {
        assert_eq!(
            parse_what_if("innodb_log_file_size=4G"),
            Ok(("innodb_log_file_size".into(), 4 << 30))
        );
        assert_eq!(
            parse_what_if("INNODB-MAX-PURGE-LAG=0"),
            Ok(("innodb_max_purge_lag".into(), 0))
        );
        assert!(parse_what_if("innodb_log_file_size").is_err());
        assert!(parse_what_if("=5").is_err());
        let e = parse_what_if("innodb_max_purge_lag=lots").unwrap_err();
        assert!(
            e.starts_with("innodb_max_purge_lag: \"lots\" is not a size"),
            "{e}"
        );
    }

    #[test]
    fn capture_ranges() {
        let r = parse_capture_range("day.idbt@14:00:00..14:10:00").unwrap();
        assert_eq!(r.path, std::path::PathBuf::from("day.idbt"));
        assert!(matches!(r.from, Some(TimeSpec::Clock(_))));
        assert!(matches!(r.to, Some(TimeSpec::Clock(_))));
        let r = parse_capture_range("day.idbt@+5m..").unwrap();
        assert_eq!(r.from, Some(TimeSpec::Offset(Duration::from_secs(300))));
        assert_eq!(r.to, None);
        let r = parse_capture_range("d@2026-01-02T03:04:05.5Z..+10m").unwrap();
        assert!(matches!(r.from, Some(TimeSpec::Instant(_))));
        let r = parse_capture_range("plain.idbt").unwrap();
        assert_eq!((r.from, r.to), (None, None));
        assert!(
            parse_capture_range("x.idbt@14:00")
                .unwrap_err()
                .contains("FROM..TO")
        );
        assert!(
            parse_capture_range("x.idbt@soon..")
                .unwrap_err()
                .contains("not a time")
        );
        assert!(parse_capture_range("@1..2").is_err());
    }

    #[test]
    fn durations() {
        let ok = [
            ("500ms", Duration::from_millis(500)),
            ("1s", Duration::from_secs(1)),
            ("2.5s", Duration::from_millis(2500)),
            ("5m", Duration::from_secs(300)),
            ("1h", Duration::from_secs(3600)),
            ("1m30s", Duration::from_secs(90)),
            ("2h30m", Duration::from_secs(9000)),
            ("1h 30m", Duration::from_secs(5400)),
            ("90s", Duration::from_secs(90)),
            ("7d", Duration::from_secs(7 * 86400)),
            ("1.5h", Duration::from_secs(5400)),
            ("3", Duration::from_secs(3)),
            ("0.25", Duration::from_millis(250)),
            (" 10s ", Duration::from_secs(10)),
            ("0", Duration::ZERO),
        ];
        for (s, want) in ok {
            assert_eq!(parse_duration(s), Ok(want), "{s}");
        }
        for s in [
            "",
            "abc",
            "5x",
            "-1s",
            "1.2.3s",
            "s",
            "5 s s",
            "1s2",
            "99999999999999999999h",
        ] {
            let e = parse_duration(s).unwrap_err();
            assert!(e.contains("not a duration"), "{s}: {e}");
            // The error names the accepted forms.
            assert!(
                e.contains("2h30m") && e.contains("7d") && e.contains("ms"),
                "{e}"
            );
        }
    }

    #[test]
    fn intervals_and_timeouts() {
        assert_eq!(parse_interval("100ms"), Ok(Duration::from_millis(100)));
        let e = parse_interval("50ms").unwrap_err();
        assert!(
            e.contains("50ms is too short") && e.contains("100ms"),
            "{e}"
        );
        assert!(parse_timeout("0s").unwrap_err().contains("zero"));
        assert_eq!(parse_schedule("never"), Ok(Schedule::Never));
        assert_eq!(parse_schedule("OFF"), Ok(Schedule::Never));
        assert_eq!(
            parse_schedule("30s"),
            Ok(Schedule::Every(Duration::from_secs(30)))
        );
        assert!(parse_schedule("soon").unwrap_err().contains("never"));
    }

    #[test]
    fn rates() {
        let mib = 1u64 << 20;
        let ok = [
            ("12MB/s", 12_000_000),
            ("12MiB/s", 12 * mib),
            ("10M", 10 * mib),
            ("10m", 10 * mib),
            ("1.5GiB/s", 3 << 29),
            ("5000000", 5_000_000),
            ("64K", 65536),
            ("100B/s", 100),
        ];
        for (s, want) in ok {
            assert_eq!(parse_rate(s), Ok(want), "{s}");
        }
        for s in ["", "fast", "12XB/s", "-5M", "0", "1.2.3M"] {
            assert!(parse_rate(s).is_err(), "{s}");
        }
    }

    #[test]
    fn sizes() {
        let ok = [
            ("500MB", 500_000_000),
            ("1GiB", 1 << 30),
            ("2G", 2 << 30),
            ("64K", 65536),
            ("1.5GiB", 3 << 29),
            ("65536", 65536),
            (" 1 GiB ", 1 << 30),
        ];
        for (s, want) in ok {
            assert_eq!(parse_size(s), Ok(want), "{s}");
        }
        for s in ["", "big", "5XB", "-1G", "GiB", "1.2.3G"] {
            let e = parse_size(s).unwrap_err();
            assert!(e.contains("not a size") && e.contains("MiB"), "{s}: {e}");
        }
        assert!(parse_size("0").unwrap_err().contains("zero"));
    }

    #[test]
    fn time_specs() {
        assert_eq!(
            parse_time_spec("14:05:00"),
            Ok(TimeSpec::Clock(NaiveTime::from_hms_opt(14, 5, 0).unwrap()))
        );
        assert_eq!(
            parse_time_spec("14:05"),
            Ok(TimeSpec::Clock(NaiveTime::from_hms_opt(14, 5, 0).unwrap()))
        );
        assert_eq!(
            parse_time_spec("+90s"),
            Ok(TimeSpec::Offset(Duration::from_secs(90)))
        );
        assert_eq!(
            parse_time_spec("+5m"),
            Ok(TimeSpec::Offset(Duration::from_secs(300)))
        );
        let TimeSpec::Instant(t) = parse_time_spec("2024-03-01T14:05:00+02:00").unwrap() else {
            panic!("not an instant");
        };
        assert_eq!(t.to_rfc3339(), "2024-03-01T14:05:00+02:00");
        for s in ["25:00:00", "yesterday", "+", "+5x", "2024-13-01T00:00:00Z"] {
            assert!(parse_time_spec(s).is_err(), "{s}");
        }
    }
}
