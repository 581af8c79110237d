//! Headless output of one moment's [`Figures`]: the JSON contract other tools rely on, and
//! the same figures as text for humans. Unknown values print as `null` / `n/a`.

use std::fmt::Write as _;

use crate::text::{capped, is_invisible, one_line, strip_controls};
use innodebt_engine::figures::{Bound, Figures, Purge, Recovery};
use innodebt_engine::units::{bytes, duration, opt, rate};
use innodebt_server::flavor::{DEFAULT_ADAPTIVE_FLUSHING_LWM_PCT, Flavor, PointWords};
use innodebt_server::sample::SourceKind;

/// The version of the figures' JSON shape (`--once --format json`, `replay --once`, `export
/// --format json`), its top-level `schema_version`. Bumped when a script written for the old
/// shape could misread the new one: a field removed or renamed, its type, unit or meaning
/// changed, a verdict kind or severity renamed or removed. New fields, verdict kinds and
/// `unavailable` sources leave it alone (readers ignore what they do not know).
/// 2: `purge.lag_trx` became `purge.lag_trx_numbers` (it counts transaction numbers, not
/// transactions: those are `purge.lag_transactions`).
pub const SCHEMA_VERSION: u32 = 2;

/// The figures with their schema version first.
#[derive(serde::Serialize)]
struct Versioned<'a> {
    schema_version: u32,
    #[serde(flatten)]
    figures: &'a Figures,
}

/// The figures as a JSON value with `schema_version` (for callers that add fields).
pub fn json_value(f: &Figures) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(versioned(f))
}

fn versioned(f: &Figures) -> Versioned<'_> {
    Versioned {
        schema_version: SCHEMA_VERSION,
        figures: f,
    }
}

pub fn json(f: &Figures) -> String {
    json_of(&versioned(f))
}

/// Any report as pretty JSON, with terminal controls escaped like the figures'.
pub fn json_of<T: serde::Serialize>(v: &T) -> String {
    let json = serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    escape_terminal_controls(json)
}

/// serde_json escapes C0 controls but leaves DEL, the C1 controls (U+009B is CSI to many
/// terminals) and invisible format characters (bidi overrides) raw. Escaped they mean the
/// same to a JSON reader and nothing to a terminal; they only occur inside strings, so the
/// JSON stays valid.
fn escape_terminal_controls(json: String) -> String {
    let risky = |c: char| (c.is_control() && !c.is_ascii_whitespace()) || is_invisible(c);
    if !json.chars().any(risky) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 32);
    for c in json.chars() {
        if risky(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub fn text(f: &Figures) -> String {
    let mut o = String::new();
    let r = &f.redo;
    let _ = writeln!(
        o,
        "{} {} ({}), up {}, sampled {} over {}",
        f.server.label,
        f.server.flavor,
        f.server.version,
        opt(f.server.uptime_s, duration),
        f.sampled_at.format("%Y-%m-%d %H:%M:%S UTC"),
        opt(f.interval_s, |s| format!("{s:.1}s")),
    );
    // The verdicts as the screen's verdict line says them (its `v` list: every one, whole).
    for v in &f.verdicts {
        let _ = writeln!(
            o,
            "verdict   {} {} since {}: {}",
            v.severity.as_str(),
            v.kind.words(),
            v.since.format("%H:%M:%S"),
            one_line(&v.message),
        );
    }
    // The points named as the checkpoint panel names them on this flavour.
    let words = PointWords::of_server(&f.server.flavor, &f.server.version);
    let of_capacity = |at: Option<u64>| match (at, r.capacity_bytes.filter(|c| *c > 0)) {
        (Some(a), Some(c)) => format!("{} ({:.0}%)", bytes(a), a as f64 * 100.0 / c as f64),
        (a, _) => opt(a, bytes),
    };
    let sync_flush = words
        .sync_flush
        .zip(r.sync_flush_bytes)
        .map(|(name, at)| format!(" · {name} {}", of_capacity(Some(at))))
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "redo      checkpoint age {} of {} ({}) · {} {} · {} {}{sync_flush} · {} {} · writes {}",
        opt(r.checkpoint_age_bytes, bytes),
        opt(r.capacity_bytes, bytes),
        opt(r.checkpoint_age_pct_of_capacity, |p| format!("{p:.1}%")),
        words.lwm,
        of_capacity(r.adaptive_lwm_bytes),
        words.flushing_starts,
        of_capacity(r.async_point_bytes),
        words.stall,
        of_capacity(r.sync_point_bytes),
        opt(r.written_bytes_per_s, |b| format!("{}/s", bytes(b as u64))),
    );
    // What the page cleaner does at this age, as the checkpoint panel says it (judged once).
    if let Some(regime) = r.flush_regime {
        let lwm_pct = r
            .adaptive_lwm_pct
            .unwrap_or(DEFAULT_ADAPTIVE_FLUSHING_LWM_PCT);
        let flavor = Flavor::of_server(&f.server.flavor, &f.server.version);
        let _ = writeln!(
            o,
            "          {}",
            flavor.flush_regime_words(regime, lwm_pct)
        );
    }
    // MySQL 8.0+: the server acts a concurrency margin before what its counters report.
    if let (Some(a), Some(s)) = (r.counter_async_bytes, r.counter_sync_bytes) {
        let _ = writeln!(
            o,
            "          counters say async {} · sync {}",
            bytes(a),
            bytes(s)
        );
    }
    if let Some(rec) = &f.recovery {
        let _ = writeln!(o, "recovery  {}", recovery(rec, words.stall_short));
    }
    if let Some(sz) = &f.sizing {
        let _ = writeln!(o, "sizing    {}", one_line(&sz.advice));
        let _ = writeln!(o, "          {}", one_line(&sz.note));
    }
    let s = &f.flush.by_source_pages_per_s;
    let _ = writeln!(
        o,
        "flush     total {} pages · adaptive {} · lru {} · sync {} · background {} (of which neighbors {})",
        rate(f.flush.total_pages_per_s),
        rate(s.adaptive),
        rate(s.lru),
        rate(s.sync),
        rate(s.background),
        rate(s.neighbor),
    );
    let _ = writeln!(
        o,
        "history   length {} · growth {}",
        opt(f.history.length, |l| l.to_string()),
        opt(f.history.growth_per_s, |g| format!("{g:+.1}/s")),
    );
    let p = &f.purge;
    let _ = writeln!(
        o,
        "purge     {} records · {} undo pages · inflow {} · state {} · behind {} · open rw trx {} · threads {} · max_purge_lag {} · delay cap {} µs · DML delay now {} µs{}",
        rate(p.records_per_s),
        rate(p.undo_pages_per_s),
        rate(p.inflow_records_per_s),
        p.state.as_deref().unwrap_or("n/a"),
        purge_lag(p),
        opt(p.open_rw_trx, |n| n.to_string()),
        opt(p.threads, |t| t.to_string()),
        opt(p.max_purge_lag, |t| t.to_string()),
        opt(p.max_purge_lag_delay_us, |t| t.to_string()),
        opt(p.dml_delay_applied_us, |t| t.to_string()),
        armed_note(p),
    );
    match &f.blocker {
        Some(b) => {
            let _ = writeln!(
                o,
                "blocker   thread {} {}@{} trx {} {} for {} · {}",
                opt(b.thread_id, |t| t.to_string()),
                capped(b.user.as_deref().unwrap_or("?"), 200),
                capped(b.host.as_deref().unwrap_or("?"), 200),
                capped(&b.trx_id, 40),
                capped(&b.state, 40),
                duration(b.age_s),
                capped(b.query.as_deref().unwrap_or("(no statement running)"), 2000),
            );
        }
        // Unreadable INNODB_TRX is not "no blocker".
        None => match f.refused(SourceKind::InnodbTrx) {
            Some(u) => {
                let _ = writeln!(o, "blocker   unknown: {} {}", u.what, u.reason());
            }
            None => {
                let _ = writeln!(o, "blocker   none");
            }
        },
    }
    let d = &f.dirty;
    let _ = writeln!(
        o,
        "dirty     {} pages ({}) = {} of data+free · max {} · lwm {}",
        opt(d.pages, |p| p.to_string()),
        opt(d.bytes, bytes),
        opt(d.pct, |p| format!("{p:.1}%")),
        opt(d.max_pct, |p| format!("{p:.0}%")),
        if d.lwm_off {
            "off".to_string()
        } else {
            opt(d.lwm_pct, |p| format!("{p:.0}%"))
        },
    );
    let u = &f.undo;
    let _ = writeln!(
        o,
        "undo      size {} · reads from disk {} · cached {} pages ({})",
        opt(u.size_bytes, bytes),
        rate(u.reads_per_s),
        opt(u.cached_pages, |c| c.to_string()),
        opt(u.resident_pct, |p| format!("{p:.0}%")),
    );
    let r = &f.rollback;
    let _ = writeln!(
        o,
        "rollback  segments {}{} · undo tablespaces {} · undo slots used {} cached {} · {} · trx_sys {}{}",
        opt(r.segments, |n| n.to_string()),
        if r.segments_fixed { " (fixed)" } else { "" },
        opt(r.undo_tablespaces, |n| n.to_string()),
        opt(r.undo_slots_used, |n| n.to_string()),
        opt(r.undo_slots_cached, |n| n.to_string()),
        r.waits_words().unwrap_or_else(|| "latch n/a".into()),
        opt(r.trx_sys_wait_s_per_s, |s| format!("{s:.2} s/s")),
        match r.severity {
            Some(innodebt_engine::figures::Severity::Warning) =>
                " · writes queue on too few segments",
            _ => "",
        },
    );
    for w in &f.warnings {
        let _ = writeln!(o, "warning   {w}");
    }
    // Server text (names, statements, versions, error messages) must not reach a terminal
    // as escape sequences or control characters.
    o.lines().map(|l| strip_controls(l) + "\n").collect()
}

/// `crash now → recovery ~4s · worst (M) 4s · apply rate 7.9 MiB/s, default (…)`: the
/// checkpoint panel's line, with the whole rate source and, when dirty pages bound it, those;
/// never cut (scripts and tickets read it).
fn recovery(rec: &Recovery, stall_short: &str) -> String {
    let worst = rec
        .worst_case_s
        .map(|w| format!(" · worst ({stall_short}) {}", duration(w as u64)))
        .unwrap_or_default();
    let pages = match (rec.pages_to_read, rec.bound_by) {
        (Some(p), Bound::Pages) => format!(
            " · bound by {p} dirty pages to read at {}, {}",
            rate(Some(rec.page_reads_per_s)),
            one_line(&rec.page_read_source)
        ),
        _ => String::new(),
    };
    format!(
        "crash now → recovery ~{}{worst} · apply rate {}/s, {}{pages}",
        duration(rec.estimate_s as u64),
        bytes(rec.rate_bytes_per_s as u64),
        one_line(&rec.rate_source),
    )
}

/// Purge's lag: its time and transactions estimate, the transaction numbers they come from,
/// and the estimate's basis (`≈12s, ≤7292 trx (14584 trx numbers; at most: 2 …)`).
fn purge_lag(p: &Purge) -> String {
    let Some(words) = p.lag_words() else {
        return "n/a".into();
    };
    // Derive's judgement (`purge.moving`), as the Purge panel reads it.
    let moving = match p.moving {
        Some(false) => ", not moving",
        _ => "",
    };
    match (p.lag_trx_numbers, p.lag_transactions_basis.as_deref()) {
        (Some(n), Some(basis)) if n > 0 => format!("{words}{moving} ({n} trx numbers; {basis})"),
        _ => format!("{words}{moving}"),
    }
}

/// " (armed: N µs once purge runs)" when the formula's delay is not what writes pay now.
fn armed_note(p: &Purge) -> String {
    match (p.dml_delay_us, p.dml_delay_applied_us) {
        (Some(formula), Some(applied)) if formula != applied => {
            format!(" (armed: {formula} µs once purge runs)")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The redo line names the points as the checkpoint panel does on each flavour.
    #[test]
    fn points_are_named_in_the_flavours_words() {
        let mut f = Figures::default();
        f.redo.capacity_bytes = Some(100 << 20);
        f.redo.async_point_bytes = Some(70 << 20);
        f.redo.sync_point_bytes = Some(90 << 20);
        f.server.flavor = "mariadb".into();
        f.server.version = "10.11.6".into();
        let maria = text(&f);
        assert!(
            maria.contains(" · async 70.0 MiB (70%) · furious flush (M) 90.0 MiB (90%) · "),
            "{maria}"
        );
        assert!(!maria.contains("flushing starts"), "{maria}");
        f.server.flavor = "mysql".into();
        f.server.version = "8.0.36".into();
        f.redo.sync_flush_bytes = Some(80 << 20);
        let mysql = text(&f);
        assert!(
            mysql.contains(
                " · flush hard 70.0 MiB (70%) · sync flush 80.0 MiB (80%) · stall — writes wait 90.0 MiB (90%) · "
            ),
            "{mysql}"
        );
    }

    /// Our own sentences come out whole however long; server text is capped, marked "…".
    #[test]
    fn the_text_never_cuts_our_sentences() {
        let mut f = Figures::default();
        f.redo.checkpoint_age_bytes = Some(1 << 20);
        let mut rec = innodebt_engine::verdicts::RecoveryModel::with_rate(1e6)
            .and_then(|m| m.estimate(&f))
            .expect("an estimate");
        rec.rate_source = format!("{}the end)", "calibrated from a long sentence ".repeat(10));
        f.recovery = Some(rec.clone());
        f.blocker = Some(innodebt_engine::figures::Blocker {
            query: Some(format!("SELECT {}", "x, ".repeat(1000))),
            ..Default::default()
        });
        let out = text(&f);
        let line = out
            .lines()
            .find(|l| l.starts_with("recovery  "))
            .expect("a recovery line");
        assert!(
            rec.rate_source.len() > 300 && line.ends_with(&rec.rate_source),
            "{line}"
        );
        let blocker = out
            .lines()
            .find(|l| l.starts_with("blocker   "))
            .expect("a blocker line");
        assert!(blocker.ends_with("x, x,…"), "{blocker}");
    }

    #[test]
    fn json_carries_its_schema_version_first() {
        let json = json(&Figures::default());
        assert!(
            json.starts_with(&format!(
                "{{\n  \"schema_version\": {SCHEMA_VERSION},\n  \"server\""
            )),
            "{json}"
        );
    }

    #[test]
    fn json_escapes_what_a_terminal_would_act_on() {
        let raw = "{\"q\": \"a\u{9b}2J\u{7f}\u{202e}b\u{e0041}\"}".to_string();
        let escaped = escape_terminal_controls(raw);
        assert_eq!(escaped, r#"{"q": "a\u009b2J\u007f\u202eb\udb40\udc41"}"#);
        let back: serde_json::Value = serde_json::from_str(&escaped).expect("valid JSON");
        assert_eq!(back["q"], "a\u{9b}2J\u{7f}\u{202e}b\u{e0041}");
    }
}
