//! innodebt: how much redo and undo debt InnoDB carries, and whether it is being paid back.
//!
//! Data flows one way: a sample source — the live poller (`innodebt-poller`), a replay or an
//! import (`innodebt-capture`) — sends raw samples (`innodebt_server::sample`); the engine
//! (`innodebt-engine`) measures them into figures and judges them into verdicts, once per
//! sample, in `innodebt_engine::derive`; `app` keeps the state; `render` draws it. Every
//! judgement is made once and carried on the figures; panels, the verdict line, plans and
//! the JSON only read it. The member crates are the layers beneath this one, and Cargo holds
//! their arrows: the server knowledge depends on nothing of ours, the engine on it alone.
//!
//! This crate holds the surfaces and their wiring:
//! - the command line: `cli` — the flags as parsed, and the connection resolved from them,
//!   the option files and the environment; `config` — all of it and the servers file resolved
//!   once into what each mode reads;
//! - acting, reporting, replaying: `control`, `output`, `check` (the monitoring-plugin
//!   report), `openmetrics`, `export` (the derived figures as CSV or JSON), `data_view` (what
//!   events add up to on screen), `replay` (that screen rebuilt anywhere in a capture),
//!   `trigger` (incidents: when a capture starts and ends), `postmortem` (after an incident:
//!   compare it with a baseline, re-judge a recording under another setting);
//! - app state: `app` — update(Msg) → commands, no I/O; `keymap` (every key, as data);
//! - drawing: `theme`, `render`, `text`, `terminal` — reads the app, never computes a figure;
//! - wiring: `screen_loop` (the one event loop of every full screen), `dashboard` (the dashboard on
//!   it), `timings`, `mode` (what every mode shares), `target` (one way to run a target:
//!   connect, poll, derive), `run`, `serve`, `fleet`.

// A panic is never the answer to bad input: `clippy::unwrap_used` is denied in Cargo.toml's
// [lints] for every target (clippy.toml lets tests unwrap).

pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub mod control;
pub mod dashboard;
pub mod data_view;
pub mod export;
pub mod fleet;
pub mod from_prometheus;
pub mod keymap;
pub mod mode;
pub mod openmetrics;
pub mod output;
pub mod postmortem;
pub mod render;
pub mod replay;
pub mod report;
pub mod run;
pub mod screen_loop;
pub mod serve;
pub mod target;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod timings;
pub mod trigger;
