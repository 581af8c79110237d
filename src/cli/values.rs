//! Value parsers for flags and option files: durations (`500ms`, `1m30s`), the poll
//! interval, schedules (`never`), byte rates and sizes (K/M/G/T are powers of 1024, as in
//! MySQL option values), ports and points in a capture (`14:05:00`, `+5m`). Each error says
//! what was given and what is accepted.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, NaiveTime};

use crate::source::connect::Secret;

/// The shortest `--interval` accepted.
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

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

/// A duration: `500ms`, `1s`, `2.5s`, `5m`, `1h`, `1m30s`, or a plain number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "{s:?} is not a duration: use a number with ms, s, m or h \
             (500ms, 2.5s, 5m, 1h); a plain number means seconds"
        )
    };
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    let mut total_ns: u128 = 0;
    let mut rest = t;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(num_len);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let unit_ns: u128 = match unit.trim() {
            "" if after.is_empty() && rest.len() == t.len() => 1_000_000_000,
            "ms" => 1_000_000,
            "s" | "sec" => 1_000_000_000,
            "m" | "min" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        total_ns = total_ns
            .checked_add(scaled(number, unit_ns).ok_or_else(bad)?)
            .ok_or_else(bad)?;
        rest = after;
    }
    let secs = u64::try_from(total_ns / 1_000_000_000).map_err(|_| bad())?;
    let nanos = u32::try_from(total_ns % 1_000_000_000).map_err(|_| bad())?;
    Ok(Duration::new(secs, nanos))
}

/// `number` (digits with an optional fraction) times `unit`, exactly, truncated to integers.
fn scaled(number: &str, unit: u128) -> Option<u128> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Exact: (int.frac digits as an integer) * unit / 10^len(frac), truncated.
    let frac = &frac[..frac.len().min(18)];
    let digits = format!("{int}{frac}");
    let mantissa: u128 = digits.parse().ok()?;
    let scale = 10u128.pow(u32::try_from(frac.len()).ok()?);
    Some(mantissa.checked_mul(unit)? / scale)
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
            "{} is too short: the minimum is 100ms (polling faster loads the server \
             without showing anything new)",
            s.trim()
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

/// A rate in bytes per second: `12MB/s`, `10M`, `1.5GiB/s`, `5000000`. K, M, G, T are
/// powers of 1024, as in MySQL option values.
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
            format!(
                "{s:?} is not a rate: use bytes per second with an optional K, M, G or T \
                 (powers of 1024), e.g. 12MB/s, 10M, 5000000"
            )
        }
    })
}

/// A size in bytes: `500MB`, `2G`, `1.5GiB`, `65536` (K, M, G, T are powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    bytes_with_unit(s.trim()).map_err(|zero| {
        if zero {
            format!("{s:?} is zero: the size must be above zero")
        } else {
            format!(
                "{s:?} is not a size: use bytes with an optional K, M, G or T (powers of \
                 1024), e.g. 500MB, 2G"
            )
        }
    })
}

/// `number[K|M|G|T][B|iB]` → bytes; `Err(true)` for zero, `Err(false)` for anything else.
fn bytes_with_unit(t: &str) -> Result<u64, bool> {
    let bad = || false;
    let num_len = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(num_len);
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let multiplier: u128 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = scaled(number, multiplier).ok_or_else(bad)?;
    let bytes = u64::try_from(bytes).map_err(|_| bad())?;
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
            ("12MB/s", 12 * mib),
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
