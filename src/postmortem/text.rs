//! The text forms of a comparison and of a what-if result.

use std::fmt::Write as _;

use super::compare::{Comparison, FigureDiff, SideInfo, VerdictDiff};
use innodebt_engine::units::{bytes, duration};
use innodebt_engine::verdicts::whatif::WhatIfReport;

/// A value in a figure's unit: bytes as KiB/MiB, the rest with a sensible precision.
pub fn value(v: Option<f64>, unit: &str) -> String {
    let Some(v) = v else {
        return "n/a".into();
    };
    match unit {
        "bytes" => bytes(v.max(0.0) as u64),
        "bytes/s" => format!("{}/s", bytes(v.max(0.0) as u64)),
        "%" => format!("{v:.1} %"),
        "s" => format!("{v:.0} s"),
        _ => num(Some(v)),
    }
}

/// `21,996`, `3.4`, `n/a`.
pub fn num(v: Option<f64>) -> String {
    let Some(v) = v else {
        return "n/a".into();
    };
    if v.fract() != 0.0 && v.abs() < 100.0 {
        return format!("{v:.1}");
    }
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// "median 9,681 vs 21 · p95 21,000 vs 25 · max 22,000 vs 30 (incident vs baseline)".
pub fn figure_line(f: &FigureDiff) -> String {
    let u = f.unit.as_str();
    let (i, b) = (&f.incident, &f.baseline);
    let unit = match u {
        "bytes" | "bytes/s" | "%" | "s" => String::new(),
        u => format!(" ({u})"),
    };
    let mut line = format!(
        "{}{unit}: median {} vs {} · p95 {} vs {} · max {} vs {}",
        f.name,
        value(i.median, u),
        value(b.median, u),
        value(i.p95, u),
        value(b.p95, u),
        value(i.max, u),
        value(b.max, u)
    );
    if let Some(z) = f.z {
        let _ = write!(line, " (shift {z:.1} baseline spreads");
        if f.better {
            line.push_str("; better in the incident");
        } else if f.severity > 0.0 {
            let kinds: Vec<&str> = f.verdicts.iter().map(|k| k.as_str()).collect();
            let _ = write!(line, "; its verdicts {} held more", kinds.join("/"));
        }
        line.push(')');
    }
    line
}

fn when(t: Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map_or("?".into(), |t| t.format("%Y-%m-%d %H:%M:%S").to_string())
}

/// "demo.idbt 2026-11-21 21:19:11 → 2026-11-21 21:22:40 (210 samples, localhost MariaDB …)".
pub fn side_line(s: &SideInfo) -> String {
    format!(
        "{} {} → {} ({} samples{})",
        s.capture,
        when(s.from),
        when(s.to),
        s.samples,
        s.server
            .as_ref()
            .map(|x| format!(", {x}"))
            .unwrap_or_default()
    )
}

/// "blocked_by_read_view   1m 51s (100 %, critical 0s) vs 0s (0 %, critical 0s)".
pub fn verdict_line(v: &VerdictDiff) -> String {
    let share = |s: Option<f64>| s.map_or("n/a".into(), |s| format!("{:.0} %", s * 100.0));
    format!(
        "{:<22} {} ({}, critical {}) vs {} ({}, critical {})",
        v.kind.as_str(),
        duration(v.incident.seconds.round() as u64),
        share(v.incident.share),
        duration(v.incident.critical_seconds.round() as u64),
        duration(v.baseline.seconds.round() as u64),
        share(v.baseline.share),
        duration(v.baseline.critical_seconds.round() as u64),
    )
}

pub fn comparison(c: &Comparison, top: usize) -> String {
    let mut out = String::new();
    for (what, s) in [("incident", &c.incident), ("baseline", &c.baseline)] {
        let _ = writeln!(out, "{what}: {}", side_line(s));
    }
    for w in &c.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    let _ = writeln!(out, "\nWhat differs, most likely explanation first:");
    for (n, r) in c.ranked.iter().take(top).enumerate() {
        let _ = writeln!(out, "{:>3}. [{:.1}] {}", n + 1, r.score, r.what);
    }
    if c.ranked.len() > top {
        let _ = writeln!(
            out,
            "     … {} more (--top N, or --format json)",
            c.ranked.len() - top
        );
    }
    if !c.verdicts.is_empty() {
        let _ = writeln!(out, "\nVerdict time (incident vs baseline):");
        for v in &c.verdicts {
            let _ = writeln!(out, "  {}", verdict_line(v));
        }
    }
    for (what, s) in [("incident", &c.incident), ("baseline", &c.baseline)] {
        if !s.runtime_changes.is_empty() {
            let _ = writeln!(out, "\nRuntime changes during the {what}:");
            for r in &s.runtime_changes {
                let _ = writeln!(out, "  {r}");
            }
        }
    }
    let _ = writeln!(out, "\nScore: {}", c.scoring);
    out
}

pub fn what_if(r: &WhatIfReport) -> String {
    let mut out = format!(
        "What if {} ({} → {}, {} samples):\n",
        r.scenario.label,
        when(r.from),
        when(r.to),
        r.samples
    );
    for s in &r.summary {
        let _ = writeln!(out, "  {s}");
    }
    if let Some(redo) = &r.redo {
        let w = &redo.what_if;
        let _ = writeln!(
            out,
            "  points at that size: async {}, {} {}",
            bytes(w.async_point_bytes.unwrap_or(0)),
            r.sync_point_name,
            bytes(w.sync_point_bytes.unwrap_or(0))
        );
        if let Some(t) = w.first_async_crossing_at {
            let _ = writeln!(out, "  first async crossing at {}", t.format("%H:%M:%S"));
        }
    }
    let _ = writeln!(out, "  recovery rate: {}", r.recovery_rate_source);
    let _ = writeln!(out, "Limits of the model:");
    for l in &r.limits {
        let _ = writeln!(out, "  - {l}");
    }
    out
}
