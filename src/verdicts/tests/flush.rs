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
    assert!(
        w.message.contains("adaptive flushing working hard"),
        "{}",
        w.message
    );
    // MySQL 8.0+ acts before its async counter (log0chkp.cc log_get_max_modified_age_async
    // minus the free-check margin): the verdict names that point as the panel does.
    assert!(
        w.message.contains("is past where flushing starts"),
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
