//! Flush pressure: checkpoint age past the async and sync points, dirty pages past their
//! maximum.

use super::*;

#[test]
fn flush_pressure_warning_at_async_critical_at_sync() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            let (a, s) = (f.redo.async_point_bytes, f.redo.sync_point_bytes);
            f.redo.checkpoint_age_bytes = if t < 10 { a } else { s };
            f
        },
        0..15,
    );
    let w = out[5].get(VerdictKind::FlushPressure).expect("warning");
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!(w.since, at(0));
    // MySQL past async (buf0flu.cc Adaptive_flush::get_pct_for_lsn, lsn_age_factor ≥ 100):
    // adaptive flushing at full pace, counted in buffer_flush_adaptive_*.
    assert!(
        w.message.contains("adaptive flushing at full pace")
            && w.message.contains("counted as adaptive"),
        "{}",
        w.message
    );
    // MySQL 8.0.13+ acts before its async counter (log0chkp.cc log_get_max_modified_age_async
    // minus the free-check margin): the verdict names that point as the panel does.
    assert!(
        w.message.contains("is past the flush hard point"),
        "{}",
        w.message
    );
    // Past sync flushing, below the stall: the page cleaner ignores io_capacity (log0chkp.cc
    // log_consider_sync_flush) — said as such, still a warning.
    let mut f = fig(0);
    f.redo.sync_flush_bytes = f.redo.async_point_bytes.map(|a| a + MIB);
    f.redo.checkpoint_age_bytes = f.redo.sync_flush_bytes;
    let mut e = VerdictEngine::default();
    e.observe(0.0, &f, mysql());
    f.sampled_at = at(1);
    let a = e.observe(1.0, &f, mysql());
    let v = a
        .get(VerdictKind::FlushPressure)
        .expect("past sync flushing");
    assert_eq!(v.severity, Severity::Warning);
    assert!(
        v.message.contains("is past sync flushing")
            && v.message.contains("regardless of innodb_io_capacity"),
        "{}",
        v.message
    );
    let c = out[11].get(VerdictKind::FlushPressure).expect("critical");
    assert_eq!(c.severity, Severity::Critical);
    assert_eq!(c.since, at(0), "a severity change keeps since");
    assert!(
        // MySQL 8.0+ (log0chkp.cc log_free_check_wait): writes wait at the free-check limit.
        c.message.contains("every write waits for the checkpoint"),
        "{}",
        c.message
    );
}

#[test]
fn flush_pressure_on_mariadb_names_m() {
    let mut e = VerdictEngine::default();
    let p = mariadb_points(64 * MIB, 16_384, (10, 11));
    let out = run(
        &mut e,
        mariadb(),
        |t| {
            let mut f = fig(t);
            f.redo.capacity_bytes = Some(p.capacity);
            f.redo.async_point_bytes = Some(p.async_point);
            f.redo.sync_point_bytes = Some(p.sync_point);
            f.redo.sync_point_name = "furious flush (M)".into();
            f.redo.checkpoint_age_bytes = Some(p.sync_point + 1);
            f
        },
        0..3,
    );
    let v = out[2].get(VerdictKind::FlushPressure).expect("critical");
    assert_eq!(v.severity, Severity::Critical);
    assert!(v.message.contains("furious flush (M)"), "{}", v.message);
    assert!(v.message.contains("user threads wait"), "{}", v.message);
}

#[test]
fn dirty_pages_past_their_maximum_warn() {
    let mut e = VerdictEngine::default();
    let out = run(
        &mut e,
        mysql(),
        |t| {
            let mut f = fig(t);
            f.dirty.pct = Some(91.0);
            f
        },
        0..3,
    );
    let v = out[2].get(VerdictKind::FlushPressure).expect("dirty");
    assert_eq!(v.severity, Severity::Warning);
    assert!(
        v.message.contains("innodb_max_dirty_pages_pct 90 %"),
        "{}",
        v.message
    );
}

/// MariaDB past async: `buf_flush_ahead` sets `buf_flush_async_lsn` and the page cleaner flushes
/// to it at innodb_io_capacity_max, counted as background (`buf0flu.cc buf_flush_page_cleaner`,
/// `try_checkpoint:` MONITOR_FLUSH_BACKGROUND_*) — measured on 10.11: the adaptive counter stood
/// still for 150 s above async. The verdict says so, and the regime is `past_async`.
#[test]
fn mariadb_past_async_names_flush_ahead_not_adaptive() {
    let p = mariadb_points(64 * MIB, 16_384, (10, 11));
    let mut f = fig(0);
    f.redo.capacity_bytes = Some(p.capacity);
    f.redo.async_point_bytes = Some(p.async_point);
    f.redo.sync_point_bytes = Some(p.sync_point);
    f.redo.sync_flush_bytes = None;
    f.redo.adaptive_lwm_bytes = Some(6_038_691);
    f.redo.checkpoint_age_bytes = Some(p.async_point + 1);
    let mut e = VerdictEngine::default();
    e.observe(0.0, &f, mariadb());
    f.sampled_at = at(1);
    let a = e.observe(1.0, &f, mariadb());
    let v = a.get(VerdictKind::FlushPressure).expect("past async");
    assert!(
        v.message.contains("buf_flush_ahead") && v.message.contains("counted as background"),
        "{}",
        v.message
    );
    assert!(
        !v.message.contains("adaptive flushing at full pace"),
        "{}",
        v.message
    );
    assert_eq!(
        a.flush.regime,
        Some(innodebt_server::flavor::FlushRegime::PastAsync)
    );
    // Between lwm and async with adaptive flushing on: the adaptive regime, no verdict.
    f.redo.checkpoint_age_bytes = Some(7_000_000);
    let mut e = VerdictEngine::default();
    let a = e.observe(0.0, &f, mariadb());
    assert_eq!(
        a.flush.regime,
        Some(innodebt_server::flavor::FlushRegime::Adaptive)
    );
    assert!(a.get(VerdictKind::FlushPressure).is_none());
}

/// "Past sync flush" is the flush regime's (`redo.flush_regime`, which the checkpoint panel
/// words): with the stall line unknown there is no regime, and the verdict once said
/// "past sync flushing … writes stall at 0 B" from the bytes alone.
#[test]
fn past_sync_flush_is_the_regimes_judgement() {
    let mut f = fig(0);
    f.redo.sync_flush_bytes = f.redo.async_point_bytes.map(|a| a + MIB);
    f.redo.checkpoint_age_bytes = f.redo.sync_flush_bytes;
    f.redo.sync_point_bytes = None;
    let mut e = VerdictEngine::default();
    e.observe(0.0, &f, mysql());
    f.sampled_at = at(1);
    let a = e.observe(1.0, &f, mysql());
    assert_eq!(a.flush.regime, None, "no stall line, no regime");
    let v = a.get(VerdictKind::FlushPressure).expect("past async");
    assert_eq!(v.severity, Severity::Warning);
    assert!(
        !v.message.contains("sync flushing") && !v.message.contains("0 B"),
        "{}",
        v.message
    );
}

/// MariaDB 10.11.18 `buf0flu.cc af_needed_for_redo(oldest_lsn)`: the page cleaner judges its
/// lwm on the oldest dirty page's age, not the checkpoint's. Seen on 10.11 under load:
/// checkpoint age 10.8 MiB, past the 5.8 MiB lwm (64 MiB log), while the page cleaner flushed
/// 0 pages/s — its oldest page (SEIS `Pages flushed up to`, `log0log.cc log_print`:
/// `buf_pool.get_oldest_modification(lsn)`) was 2 MiB old. Not adaptive flushing; and the
/// regime says which age it judged.
#[test]
fn the_flush_regime_is_judged_on_the_oldest_dirty_page() {
    use innodebt_server::flavor::{FlushRegime, RegimeAge};
    let p = mariadb_points(64 * MIB, 16_384, (10, 11));
    let mut f = fig(0);
    f.redo.capacity_bytes = Some(p.capacity);
    f.redo.async_point_bytes = Some(p.async_point);
    f.redo.sync_point_bytes = Some(p.sync_point);
    f.redo.sync_flush_bytes = None;
    f.redo.adaptive_lwm_bytes = Some(6_038_691);
    f.redo.checkpoint_age_bytes = Some(10_800 * 1024);
    f.redo.oldest_page_age_bytes = Some(2 * MIB);
    let mut e = VerdictEngine::default();
    let a = e.observe(0.0, &f, mariadb());
    assert_eq!(a.flush.regime, Some(FlushRegime::BelowLwm));
    assert_eq!(a.flush.regime_age, Some(RegimeAge::OldestPage));
    f.redo.flush_regime_age = a.flush.regime_age;
    assert_eq!(
        f.redo.flush_regime_age_words().as_deref(),
        Some("oldest dirty page 2.0 MiB")
    );
    // The oldest page's age unread: the checkpoint age stands in, and the words say so.
    f.redo.oldest_page_age_bytes = None;
    let mut e = VerdictEngine::default();
    let a = e.observe(0.0, &f, mariadb());
    assert_eq!(a.flush.regime, Some(FlushRegime::Adaptive));
    assert_eq!(a.flush.regime_age, Some(RegimeAge::CheckpointStandIn));
    f.redo.flush_regime_age = a.flush.regime_age;
    assert_eq!(
        f.redo.flush_regime_age_words().as_deref(),
        Some("judged on checkpoint age: oldest dirty page unread")
    );
}

/// mysql-server 8.0.18 `buf0flu.cc page_cleaner_flush_pages_recommendation`: the async point
/// (`af_get_pct_for_lsn`'s `limit_for_age`) is judged on the oldest page's age too. Checkpoint
/// age past it, the oldest page not: the warning stands (the zone is the checkpoint age's) but
/// does not say the page cleaner flushes hard, which the regime does not show.
#[test]
fn mysql_past_async_by_checkpoint_but_not_by_the_oldest_page() {
    use innodebt_server::flavor::FlushRegime;
    let mut f = fig(0);
    f.redo.adaptive_lwm_bytes = Some(8 * MIB);
    f.redo.checkpoint_age_bytes = f.redo.async_point_bytes.map(|a| a + 1);
    f.redo.oldest_page_age_bytes = Some(20 * MIB);
    let mut e = VerdictEngine::default();
    e.observe(0.0, &f, mysql());
    f.sampled_at = at(1);
    let a = e.observe(1.0, &f, mysql());
    assert_eq!(a.flush.regime, Some(FlushRegime::Adaptive));
    let v = a
        .get(VerdictKind::FlushPressure)
        .expect("past async by checkpoint");
    assert_eq!(v.severity, Severity::Warning);
    assert!(
        v.message
            .contains("the oldest dirty page's age 20.0 MiB is not")
            && !v.message.contains("adaptive flushing at full pace"),
        "{}",
        v.message
    );
}
