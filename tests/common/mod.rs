//! Integration-test harness, one module per concern. `tests/it/main.rs` declares it once
//! (`mod common;`); every test module does `use crate::common;` and uses:
//!
//! - [`server`]: [`PrivateServer::start`] with a [`ServerConfig`] — a private MariaDB of
//!   its own (never the shared server); [`innodebt_bin`], [`once_json`] and
//!   [`PrivateServer::conn_args`] to run the binary against it.
//! - [`load`]: [`WriteLoad::start`] (inserts, updates, deletes on `test.load`),
//!   [`idle_sessions`], and [`BlockingSnapshot::open`] (a read view holding purge back).
//! - [`proxy`]: a TCP proxy that can stall, to make a server slow or unreachable.
//! - [`tmux`]: the real TUI in a tmux pane.
//! - [`snapshot`]: screens as reviewable text (characters, style codes and their legend).
//! - [`gate`]: what a test needs from the machine; in CI a missing piece fails.
//! - [`wait`]: the one way to wait — for a condition with a deadline ([`wait::wait_until`]),
//!   or, where the duration itself is the scenario, [`wait::duration_is_the_point`] saying why.
//!   No test sleeps itself.
//! - [`watch`]: the project's poller, derivation and verdict engine on a private server.
//! - [`recorded`]: what a capture being written holds so far, to wait on a recording.
//! - [`accounts`], [`certs`], [`serve`]: least-privilege users, TLS certificates, `innodebt serve`.
//! - [`openmetrics`]: innodebt's exposition read back, for the tests of what the exporter writes.
//!
//! - [`builders`]: the MariaDB server and the blocking transaction tests without a server use.
//!
//! - [`damage`]: a copy of the demo capture with random bytes written over its middle.
//! - [`feed`]: synthetic source events of a recorded server (replay and soak).
//! - [`laps`]: the demo's real samples lap after lap (the replay and import benchmarks);
//!   [`promdata`]: them as mysqld_exporter series in a Prometheus TSDB.
//! - [`dolphie`]: the real Dolphie recording a private server, and a short recording made as
//!   long as a test or benchmark needs.
//!
//! The benches, and `tests/it/bounded_memory/soak.rs` (which the soak bench includes too), take
//! `builders.rs`, `feed.rs`, `tmux.rs` or this file by path.
#![allow(dead_code)]

pub mod accounts;
pub mod builders;
pub mod certs;
pub mod container;
pub mod damage;
pub mod dolphie;
pub mod export;
pub mod feed;
pub mod gate;
pub mod laps;
pub mod load;
pub mod machine;
pub mod mysqld_exporter;
pub mod openmetrics;
pub mod promdata;
pub mod proxy;
pub mod recorded;
pub mod scale;
pub mod serve;
pub mod server;
pub mod snapshot;
pub mod tmux;
pub mod wait;
pub mod watch;

// Not every test uses both; the glob keeps `common::PrivateServer` and friends short.
#[allow(unused_imports)]
pub use load::*;
#[allow(unused_imports)]
pub use server::*;
