//! Redo sizing advice per redo model, and the peak it is sized for.

use super::*;

/// Sizing after one sample at `peak` checkpoint age on a server of `flavor` with `layout`,
/// with no span needed: the formulas, whatever the evidence.
fn sizing_for(flavor: Flavor, layout: RedoLayout, peak: u64) -> Sizing {
    let mut e = VerdictEngine::new(EngineConfig {
        layout,
        sizing_span_s: 0.0,
        ..EngineConfig::default()
    });
    let mut f = fig(0);
    f.redo.checkpoint_age_bytes = Some(peak);
    e.observe(0.0, &f, flavor).sizing.expect("sizing")
}

// Expected sizes computed by hand from the server functions `crates/server/src/flavor/redo.rs`
// follows (`docs/metrics-sources.md`, "Redo capacity"; a separate script evaluating each MiB), then rounded up to 1/16 of the power of two below.

#[test]
fn sizing_mysql_8030() {
    // Peak 50,000,000 → where flushing starts ≥ 60,000,000. MySQL 8.0.30+ starts a
    // concurrency margin before its async counter (log0files_capacity.cc
    // log_files_capacity_get_limits): 80 MiB is the smallest (async 64,992,256 − margin
    // 4,514,060 → 60,477,952); already a multiple of 4 MiB.
    let s = sizing_for(mysql(), RedoLayout::default(), 50_000_000);
    assert_eq!(s.advised_capacity_bytes, 80 * MIB);
    assert_eq!(s.advised_async_point_bytes, 60_477_952);
    assert_eq!(s.variable, "innodb_redo_log_capacity");
    assert_eq!(s.setting, "innodb_redo_log_capacity = 80M");
    assert_eq!(s.hour_of_writes_bytes, Some(3_600_000_000));
    // Worst case at 80 MiB: where writes stall, the free-check limit 69,762,560
    // (log0chkp.cc log_free_check_capacity), at the default rate.
    assert!((s.worst_case_recovery_s_at_advised - 69_762_560.0 * 1200.0 / 10.5e9).abs() < 1e-9);
    assert!(
        s.advice.contains("still leaves 20 % headroom"),
        "{}",
        s.advice
    );
    assert!(s.note.contains("sizes for write volume"), "{}", s.note);
    assert!(s.note.contains("3.4 GiB"), "{}", s.note);
}

#[test]
fn sizing_mysql_80_two_files() {
    // Peak 100,000,000 → flushing starts ≥ 120,000,000. MySQL 8.0.2x starts at
    // log_get_max_modified_age_async (async counter − free-check margin, log0chkp.cc): 82 MiB
    // per file, rounded to 84 MiB × 2 (132,484,608 − 9,037,628 → 123,446,784).
    let f = Flavor::detect("8.0.28", "MySQL Community Server - GPL", false);
    let s = sizing_for(f, RedoLayout::default(), 100_000_000);
    assert_eq!(s.advised_capacity_bytes, 168 * MIB);
    assert_eq!(s.advised_async_point_bytes, 123_446_784);
    assert_eq!(s.setting, "innodb_log_file_size = 84M (× 2 files = 168M)");
    assert!(s.advice.contains("grow to"), "{}", s.advice);
    // The what-if model at the advised size: 100,000,000 is 81 % of the 123,446,784 async
    // point; a crash at the peak: 100 MB ÷ (10.5 GB / 20 min) = 11 s.
    assert!(
        s.advice.contains(
            "What if: with 168M: async never reached (peak at 81 % of its async point); \
             worst recovery 11s (default rate)."
        ),
        "{}",
        s.advice
    );
}

#[test]
fn sizing_mysql_57_two_files() {
    // Peak 100,000,000 → async ≥ 120,000,000: 82 MiB per file, rounded to 84 MiB × 2.
    let f = Flavor::detect("5.7.44", "MySQL Community Server (GPL)", false);
    let s = sizing_for(f, RedoLayout::default(), 100_000_000);
    assert_eq!(s.advised_capacity_bytes, 168 * MIB);
    assert_eq!(s.advised_async_point_bytes, 124_231_727);
    assert_eq!(
        s.variable,
        "innodb_log_file_size × innodb_log_files_in_group"
    );
}

#[test]
fn sizing_mariadb() {
    // Peak at the measured 64 MiB async point 46,935,385 → async ≥ 56,322,462: 77 MiB,
    // rounded to 80 MiB (async 58,826,236).
    let s = sizing_for(mariadb(), RedoLayout::default(), 46_935_385);
    assert_eq!(s.advised_capacity_bytes, 80 * MIB);
    assert_eq!(s.advised_async_point_bytes, 58_826_236);
    assert_eq!(s.setting, "innodb_log_file_size = 80M");
}

#[test]
fn sizing_at_the_async_point_says_the_need_may_be_larger() {
    let p = mysql_8030_points(100 * MIB);
    let s = sizing_for(mysql(), RedoLayout::default(), p.async_point);
    assert!(
        s.peak_pct_of_async
            .is_some_and(|x| (x - 100.0).abs() < 1e-9)
    );
    assert!(s.advice.contains("real need may be larger"), "{}", s.advice);
    assert!(s.advised_capacity_bytes > 100 * MIB);
}

#[test]
fn sizing_tracks_the_peak_not_the_last_value() {
    let mut e = VerdictEngine::default();
    let mut last = None;
    for (t, age) in [(0, 5 * MIB), (1, 40 * MIB), (2, 8 * MIB)] {
        let mut f = fig(t);
        f.redo.checkpoint_age_bytes = Some(age);
        last = e.observe(t as f64, &f, mysql()).sizing;
    }
    let s = last.expect("sizing");
    assert_eq!(s.peak_checkpoint_age_bytes, 40 * MIB);
    assert_eq!(s.peak_at, at(1));
}

#[test]
fn no_sizing_without_checkpoint_age() {
    let mut e = VerdictEngine::default();
    let mut f = fig(0);
    f.redo.checkpoint_age_bytes = None;
    let a = e.observe(0.0, &f, mysql());
    assert!(a.sizing.is_none());
    assert!(a.recovery.is_none());
}

// ---------------------------------------------------------------------------
// The span the peak was watched over
// ---------------------------------------------------------------------------

/// Samples every `step` seconds from `from_s` to `to_s` (the first at 0 has no interval) at
/// a 10 MiB checkpoint age on `fig`'s 100 MiB MySQL redo (a smaller size would hold it: a
/// shrink); the last sizing.
fn watch(e: &mut VerdictEngine, from_s: i64, to_s: i64, step: i64) -> Sizing {
    let mut last = None;
    for t in (from_s..=to_s).step_by(step as usize) {
        let mut f = fig(t);
        f.interval_s = (t > 0).then_some(step as f64);
        last = e.observe(t as f64, &f, mysql()).sizing;
    }
    last.expect("sizing")
}

#[test]
fn a_shrink_waits_for_a_day_and_says_what_it_saw() {
    let mut e = VerdictEngine::default();
    let s = watch(&mut e, 0, 17, 1);
    assert!(s.shrink_withheld, "{s:?}");
    assert_eq!(s.span_from, at(0));
    assert_eq!(s.span_s, 17.0);
    assert_eq!(s.span_needed_s, 86_400.0);
    // The advice is the size there is, never a size from 17 seconds.
    assert_eq!(s.current_capacity_bytes, Some(100 * MIB));
    assert_eq!(s.advised_capacity_bytes, 100 * MIB);
    assert_eq!(s.setting, "innodb_redo_log_capacity = 100M");
    let pct = s.peak_pct_of_async.expect("pct");
    assert!(
        s.advice.starts_with(&format!(
            "Peak checkpoint age 10.0 MiB over the 17s watched ({pct:.0} % of the async point); \
             advice to shrink needs 24h of watching (or --sizing-span)"
        )),
        "{}",
        s.advice
    );
    assert!(s.advice.contains("23h 59m to go"), "{}", s.advice);
    assert!(
        s.advice
            .contains("Until then keep innodb_redo_log_capacity = 100M."),
        "{}",
        s.advice
    );
    assert!(!s.advice.contains("What if"), "{}", s.advice);
    assert!(!s.advice.contains("headroom"), "{}", s.advice);
}

#[test]
fn a_shrink_is_advised_once_a_day_is_watched_and_says_over_how_long() {
    let mut e = VerdictEngine::default();
    let before = watch(&mut e, 0, 86_340, 60);
    assert!(before.shrink_withheld);
    assert!(before.advice.contains("1m to go"), "{}", before.advice);
    let s = watch(&mut e, 86_400, 93_600, 60);
    assert!(!s.shrink_withheld, "{}", s.advice);
    assert_eq!(s.span_from, at(0));
    assert_eq!(s.span_s, 93_600.0);
    assert!(s.advised_capacity_bytes < 100 * MIB);
    assert!(
        s.advice
            .starts_with("Peak checkpoint age 10.0 MiB over the 26h watched ("),
        "{}",
        s.advice
    );
    assert!(
        s.advice.contains("still leaves 20 % headroom"),
        "{}",
        s.advice
    );
}

#[test]
fn the_span_setting_is_honoured() {
    let mut e = VerdictEngine::new(EngineConfig {
        sizing_span_s: 600.0,
        ..EngineConfig::default()
    });
    let s = watch(&mut e, 0, 599, 1);
    assert!(s.shrink_withheld);
    assert_eq!(s.span_needed_s, 600.0);
    assert!(
        s.advice.contains("advice to shrink needs 10m of watching"),
        "{}",
        s.advice
    );
    let s = watch(&mut e, 600, 600, 1);
    assert!(!s.shrink_withheld, "{}", s.advice);
    assert!(s.advice.contains("over the 10m watched"), "{}", s.advice);
    // Set again on a running engine (a replay restored with the reader's flag): what was
    // watched stays.
    e.set_sizing_span(3_600.0);
    let s = watch(&mut e, 601, 601, 1);
    assert!(s.shrink_withheld);
    assert_eq!((s.span_from, s.span_s), (at(0), 601.0));
}

#[test]
fn advice_to_grow_stands_at_once() {
    let mut e = VerdictEngine::default();
    let mut f = fig(0);
    f.redo.checkpoint_age_bytes = f.redo.async_point_bytes;
    let s = e.observe(0.0, &f, mysql()).sizing.expect("sizing");
    assert!(!s.shrink_withheld);
    assert_eq!(s.span_s, 0.0);
    assert!(s.advised_capacity_bytes > 100 * MIB);
    assert!(
        s.advice.starts_with("Peak checkpoint age ") && s.advice.contains(" in one sample (100 %"),
        "{}",
        s.advice
    );
    assert!(s.advice.contains(": grow to "), "{}", s.advice);
}

#[test]
fn a_gap_is_not_watched() {
    let mut e = VerdictEngine::default();
    watch(&mut e, 0, 10, 1);
    // A reconnection an hour later (no interval): the hour between was not watched.
    let mut f = fig(3_600);
    f.interval_s = None;
    e.observe(3_600.0, &f, mysql());
    let s = watch(&mut e, 3_601, 3_605, 1);
    assert_eq!((s.span_from, s.span_s), (at(0), 15.0));
}

#[test]
fn a_restored_engine_keeps_the_span_it_watched() {
    let mut live = VerdictEngine::default();
    watch(&mut live, 0, 120, 1);
    let state = serde_json::to_string(&live.state()).expect("state");
    let state: EngineState = serde_json::from_str(&state).expect("state back");
    let mut restored =
        VerdictEngine::restore(state, RecoveryModel::default(), live.series_points())
            .expect("restore");
    let (a, b) = (
        watch(&mut live, 121, 130, 1),
        watch(&mut restored, 121, 130, 1),
    );
    assert_eq!(a, b);
    assert_eq!((b.span_from, b.span_s), (at(0), 130.0));
}
