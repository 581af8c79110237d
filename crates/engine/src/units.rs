//! Numbers in the units a DBA reads at a glance: bytes in binary units, compact counts,
//! durations, per-second rates and percentages. An unknown (or non-finite) value is `n/a`,
//! never a made-up 0. Below everything: the panels, the text output, the verdicts and the
//! plans all say numbers the same way.

/// What an unknown figure shows: never a made-up 0.
pub const NA: &str = "n/a";

/// Bytes in the unit a DBA reads at a glance.
pub fn bytes(v: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = v as f64;
    let mut unit = 0;
    while x >= 1024.0 && unit < UNITS.len() - 1 {
        x /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v} B")
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// Compact count: 1234 → 1.2k, 89000 → 89.0k, 1.5M.
pub fn count(v: f64) -> String {
    // -0.0 (a negated zero) reads as 0, not "-0".
    let v = if v == 0.0 { 0.0 } else { v };
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Seconds as `45s`, `12m 03s`, `3h 05m`, `2d 04h`.
pub fn duration(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m {:02}s", s / 60, s % 60),
        s if s < 86_400 => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
        s => format!("{}d {:02}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// A span in hours up to a week, as a DBA counts a workload's cycle: `17s`, `10m`, `24h`,
/// `26h 13m`, `7d`.
pub fn span(s: f64) -> String {
    const WEEK: u64 = 7 * 86_400;
    match s.floor() as u64 {
        s if (60..3_600).contains(&s) && s % 60 == 0 => format!("{}m", s / 60),
        s if s < 3_600 => duration(s),
        s if s < WEEK && s % 3_600 < 60 => format!("{}h", s / 3_600),
        s if s < WEEK => format!("{}h {:02}m", s / 3_600, (s % 3_600) / 60),
        s if s % 86_400 < 3_600 => format!("{}d", s / 86_400),
        s => duration(s),
    }
}

/// The value formatted by `f`, or [`NA`].
pub fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| NA.to_string())
}

/// Bytes when known: `77.5 MiB` or `n/a`.
pub fn bytes_or_na(v: Option<u64>) -> String {
    opt(v, bytes)
}

/// A rate per second: `1.2k/s`. A rate of events cannot fall below zero: a negative one is
/// not known (`n/a`), never shown (a fall is [`signed_rate`]).
pub fn rate(v: Option<f64>) -> String {
    opt(v.filter(|v| v.is_finite() && *v >= 0.0), |r| {
        format!("{}/s", count(r))
    })
}

/// A percentage with one decimal: `42.5%`.
pub fn pct(v: Option<f64>) -> String {
    opt(v.filter(|v| v.is_finite()), |p| {
        let p = if p == 0.0 { 0.0 } else { p };
        format!("{p:.1}%")
    })
}

/// A signed per-second change: `+1.5k/s`, `-20/s`.
pub fn signed_rate(v: Option<f64>) -> String {
    opt(v.filter(|v| v.is_finite()), |g| {
        let sign = if g > 0.0 {
            "+"
        } else if g < 0.0 {
            "-"
        } else {
            "±"
        };
        format!("{sign}{}/s", count(g.abs()))
    })
}

/// Seconds as a duration (finite and non-negative only).
pub fn secs(v: f64) -> String {
    if !v.is_finite() || v < 0.0 {
        return NA.to_string();
    }
    duration(v.min(u64::MAX as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_in_hours_up_to_a_week() {
        assert_eq!(span(86_400.0), "24h");
        assert_eq!(span(7.0 * 86_400.0), "7d");
        assert_eq!(span(5_400.0), "1h 30m");
        assert_eq!(span(600.0), "10m");
        assert_eq!(span(17.4), "17s");
        assert_eq!(span(26.0 * 3_600.0 + 13.0 * 60.0), "26h 13m");
        assert_eq!(span(86_399.0), "23h 59m");
    }

    #[test]
    fn units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(81_281_088), "77.5 MiB");
        assert_eq!(count(89_000.0), "89.0k");
        assert_eq!(count(12.0), "12");
        assert_eq!(count(1.25), "1.2");
        assert_eq!(duration(3725), "1h 02m");
        assert_eq!(duration(59), "59s");
    }

    #[test]
    fn unknown_and_non_finite_are_na() {
        assert_eq!(rate(None), NA);
        assert_eq!(rate(Some(f64::NAN)), NA);
        assert_eq!(signed_rate(Some(f64::INFINITY)), NA);
        assert_eq!(signed_rate(Some(-20.0)), "-20/s");
        assert_eq!(secs(-1.0), NA);
        assert_eq!(bytes_or_na(None), NA);
        assert_eq!(pct(Some(42.46)), "42.5%");
    }
}
