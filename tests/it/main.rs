//! The integration tests, one crate with a module per concern (one compile and one link for
//! all of them; each `tests/*.rs` of its own linked the whole crate again). The harness is
//! `tests/common/` (shared with the benches, which include its files by path).
//!
//! Tests of different modules run on the same test threads of one process, so none may
//! change the process (environment, current directory, signal dispositions) or measure the
//! process's own CPU or memory: a test that must (`bounded_memory::soak`, which counts the heap
//! and reads its own resident memory) starts this binary again for itself alone.
//!
//! Run one module with `cargo test --locked --test it MODULE::`.

#[path = "../common/mod.rs"]
mod common;

mod app_update;
mod bookmarks;
mod bounded_memory;
mod capture;
mod check_plugin;
mod cli;
mod cli_docs;
mod cli_help;
mod connect;
mod contrib;
mod control;
mod corpus;
mod corpus_points;
mod cost;
mod crate_metadata;
mod derive;
mod e2e_control;
mod e2e_dashboard;
mod faults;
mod fleet;
mod fleet_agent_tls;
mod fleet_names;
mod fleet_prometheus;
mod flight_recorder;
mod fuzz_regressions;
mod harness;
mod headless_text;
mod hostile;
mod hostile_http;
mod http_client;
mod import_dolphie;
mod import_prometheus;
mod incident;
mod judgements;
mod keys_act;
mod live_dml_delay;
mod live_flushing;
mod live_once;
mod live_prometheus;
mod live_purge_lag;
mod login_path;
mod metric_families;
mod package;
mod package_upgrade;
mod parser_props;
mod parser_props_files;
mod poller;
mod privileges;
mod ptstalk;
mod readme_picture;
mod record_replay;
mod recovery;
mod registry;
mod render;
mod replay_bench_data;
mod replay_window;
mod report;
mod rollback_segments;
mod scenarios;
mod secrets;
mod serve;
mod serve_scale;
mod serve_security;
mod theme;
mod tls;
mod tls_client_cert;
mod triggered;
mod verdicts;
