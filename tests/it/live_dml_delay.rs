//! The DML-delay formula and the variable facts against a private MariaDB: with
//! `innodb_max_purge_lag > 0` and `innodb_max_purge_lag_delay = 0` the server delays nothing
//! (the delay is clamped to the cap: MariaDB `trx0purge.cc trx_purge` skips throttling when
//! `srv_max_purge_lag_delay` is 0; MySQL Bug #72269 for MySQL), so `dml_delay_us` is 0 and the
//! purge-lag trap stays silent, in the dashboard's engine and in `--once`. Giving the cap a
//! value then arms the delay and the trap on the same server, so the silence is not vacuous.
//! The same run checks what the server says of itself: `innodb_purge_threads` is dynamic by
//! its own `SYSTEM_VARIABLES.READ_ONLY`, `lwm = 0` is shown as off, the redo rate is the
//! LSN's advance, and M is the server's `Innodb_checkpoint_max_age`, which the formula matches.

use crate::common;

use std::time::Duration;

use common::wait::{duration_is_the_point_async, wait_until_async};
use common::watch::Watch;
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use innodebt_engine::verdicts::VerdictKind;
use innodebt_server::flavor::{mariadb_points, read_only_key};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zero_delay_cap_delays_nothing_and_sets_no_trap() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 4, 200);
    let mut watch = Watch::open(&server).await;
    assert!(watch.flavor.is_mariadb());
    let tick = Duration::from_millis(500);

    // The server's own word on innodb_purge_threads (READ_ONLY = NO on 10.11), not a table.
    assert_eq!(
        watch
            .session
            .info
            .var(&read_only_key("innodb_purge_threads")),
        Some("NO")
    );
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let (_, a, blocked) = watch
        .until(tick, Duration::from_secs(40), |a| {
            a.get(VerdictKind::BlockedByReadView).is_some()
        })
        .await;
    assert!(blocked, "no blocked verdict: {:?}", a.verdicts);

    // The lag far below the history the snapshot holds back, the cap 0.
    watch.set_purge_lag(&server, 100, 0).await;
    let mut seen_history = 0;
    for _ in 0..12 {
        let (f, a) = watch.tick().await;
        seen_history = seen_history.max(f.history.length.unwrap_or(0));
        assert_eq!(f.purge.max_purge_lag, Some(100));
        assert_eq!(f.purge.max_purge_lag_delay_us, Some(0));
        assert_eq!(f.purge.dml_delay_us, Some(0), "{:?}", f.purge);
        assert_eq!(f.purge.dml_delay_applied_us, Some(0), "{:?}", f.purge);
        assert!(
            a.get(VerdictKind::PurgeLagTrap).is_none(),
            "a trap over a delay the server never applies: {:?}",
            a.verdicts
        );
        assert_eq!(f.purge.threads_dynamic, Some(true));
        duration_is_the_point_async(
            tick,
            "the watch's cadence: the verdicts judge twelve ticks over six seconds",
        )
        .await;
    }
    assert!(
        seen_history > 100,
        "history {seen_history} never passed the lag"
    );

    // The same in a DBA's first --once.
    let once = common::once_json(&server.conn_args(), &[]);
    assert_eq!(once["purge"]["dml_delay_us"], 0, "{}", once["purge"]);
    let kinds: Vec<&str> = once["verdicts"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v["kind"].as_str()).collect())
        .unwrap_or_default();
    assert!(!kinds.contains(&"purge_lag_trap"), "{kinds:?}");
    // lwm 0 (MariaDB's default) is no low-water mark: off, not a percentage.
    let lwm = server
        .sql("SELECT @@innodb_max_dirty_pages_pct_lwm = 0")
        .await;
    let lwm_zero: Option<i64> = lwm.first().and_then(|r| r.get(0));
    assert_eq!(lwm_zero, Some(1), "this test expects the default lwm 0");
    assert_eq!(once["dirty"]["lwm_off"], true, "{}", once["dirty"]);
    assert!(once["dirty"]["lwm_pct"].is_null(), "{}", once["dirty"]);

    // A cap arms the delay (10000 × history / 100 − 5000, capped) and the trap.
    watch.set_purge_lag(&server, 100, 2000).await;
    let (f, a, trapped) = watch
        .until(tick, Duration::from_secs(20), |a| {
            a.get(VerdictKind::PurgeLagTrap).is_some()
        })
        .await;
    assert!(trapped, "no trap with a cap: {:?}", a.verdicts);
    let t = a.get(VerdictKind::PurgeLagTrap).expect("the trap");
    assert_eq!(f.purge.dml_delay_us, Some(2000), "{:?}", f.purge);
    // MariaDB ≥ 10.11.3 holds it back while the view blocks purge (MDEV-29401).
    assert_eq!(f.purge.dml_delay_applied_us, Some(0), "{:?}", f.purge);
    assert!(t.message.contains("armed"), "{}", t.message);

    // The redo rate is the LSN's advance between two samples.
    let (a, _) = watch.tick().await;
    let lsn_a = a.redo.lsn.expect("lsn");
    let srv = &server;
    wait_until_async(
        Duration::from_secs(10),
        "the load to write redo past the first sample's LSN",
        || async move { srv.status_u64("Innodb_lsn_current").await > lsn_a },
    )
    .await;
    let (b, _) = watch.tick().await;
    let dt = b.interval_s.expect("interval");
    let lsn_rate = (b.redo.lsn.expect("lsn") - lsn_a) as f64 / dt;
    let written = b.redo.written_bytes_per_s.expect("redo rate");
    // M is the server's Innodb_checkpoint_max_age, and log_t::set_capacity agrees at 16 MiB.
    let formula = mariadb_points(16 << 20, 16384, (watch.flavor.major, watch.flavor.minor));
    assert_eq!(b.redo.sync_point_bytes, Some(formula.sync_point));
    assert!(
        !b.warnings
            .iter()
            .any(|w| w.contains("Innodb_checkpoint_max_age")),
        "{:?}",
        b.warnings
    );
    assert!(
        (written - lsn_rate).abs() < 1.0,
        "written {written} vs LSN delta {lsn_rate}"
    );

    watch.set_purge_lag(&server, 0, 0).await;
    snapshot.commit().await;
    let stats = load.stop().await;
    assert!(stats.ops > 100, "load ran: {stats:?}");
}
