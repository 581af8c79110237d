//! Where MariaDB's redo-driven flushing starts, read live from a private MariaDB 10.11
//! (`buf0flu.cc af_needed_for_redo`: age > `innodb_adaptive_flushing_lwm` % of
//! `log_sys.log_capacity`), and the regime `--once` judges from it: the lwm follows the
//! variable at runtime, `innodb_adaptive_flushing=OFF` is read, and the regime the JSON gives
//! is the one the figures beside it imply (docs/flushing.md), the lwm judged on the oldest
//! dirty page's age.

use crate::common;

use common::{PrivateServer, ServerConfig, WriteLoad};
use serde_json::Value;

fn u(v: &Value, path: &[&str]) -> Option<u64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_u64()
}

/// The regime by MariaDB's page-cleaner rules, from the figures in the JSON: M and async on
/// the checkpoint age (`mtr0mtr.cc log_close`), the lwm on the oldest dirty page's
/// (`af_needed_for_redo(oldest_lsn)`), which SEIS `Pages flushed up to` gives.
fn expected_regime(v: &Value) -> &'static str {
    let r = &v["redo"];
    let get = |k: &str| r[k].as_u64();
    let age = get("checkpoint_age_bytes").expect("age");
    let oldest = get("oldest_page_age_bytes").expect("the oldest dirty page's age");
    assert!(oldest <= age, "{r}");
    let adaptive = r["adaptive_flushing"].as_bool().unwrap_or(true);
    let on_checkpoint = age >= get("async_point_bytes").expect("async");
    assert_eq!(
        r["flush_regime_age"],
        if on_checkpoint {
            "checkpoint"
        } else {
            "oldest_page"
        },
        "{r}"
    );
    if age >= get("sync_point_bytes").expect("M") {
        "past_stall"
    } else if on_checkpoint {
        "past_async"
    } else if oldest >= get("adaptive_lwm_bytes").expect("lwm") {
        if adaptive { "adaptive" } else { "adaptive_off" }
    } else {
        "below_lwm"
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_lwm_and_regime_follow_the_server() {
    let server = PrivateServer::start(ServerConfig::default());
    let first = common::once_json(&server.conn_args(), &[]);
    // 16 MiB log (10.11: 12 KiB header): log_capacity = 16,764,928 − 1,676,492 = 15,088,436;
    // 10 % of it, as `af_needed_for_redo` computes it.
    assert_eq!(
        u(&first, &["redo", "capacity_bytes"]),
        Some(16 * 1024 * 1024)
    );
    assert_eq!(u(&first, &["redo", "adaptive_lwm_bytes"]), Some(1_508_843));
    assert_eq!(
        first["redo"]["adaptive_flushing"], true,
        "{}",
        first["redo"]
    );
    assert_eq!(first["redo"]["flush_regime"], expected_regime(&first));

    // The variables are read per run: a new lwm and adaptive flushing OFF show at once.
    server
        .sql("SET GLOBAL innodb_adaptive_flushing_lwm = 30")
        .await;
    server
        .sql("SET GLOBAL innodb_adaptive_flushing = OFF")
        .await;
    let load = WriteLoad::start(server.opts(), 4);
    load.wait_ops(100).await;
    let off = common::once_json(&server.conn_args(), &[]);
    load.stop().await;
    assert_eq!(u(&off, &["redo", "adaptive_lwm_bytes"]), Some(4_526_530));
    assert_eq!(off["redo"]["adaptive_flushing"], false, "{}", off["redo"]);
    assert_eq!(
        off["redo"]["flush_regime"],
        expected_regime(&off),
        "{}",
        off["redo"]
    );
    // Never a MySQL-only figure on MariaDB 10.11.
    assert!(off["redo"]["max_checkpoint_age_bytes"].is_null());
}
