//! innodebt: how much redo and undo debt InnoDB carries, and whether it is being paid back.
//!
//! Data flows one way: a sample source — the live poller (`innodebt-poller`), a replay or an
//! import (`innodebt-capture`) — sends raw samples (`innodebt_server::sample`); the engine
//! (`innodebt-engine`) measures them into figures and judges them into verdicts, once per
//! sample, in `innodebt_engine::derive`; `app` keeps the state; `ui` draws it. Every
//! judgement is made once and carried on the figures; panels, the verdict line, plans and
//! the JSON only read it. The member crates are the layers beneath this one, and Cargo holds
//! their arrows: the server knowledge depends on nothing of ours, the engine on it alone.
//!
//! This crate holds the surfaces and their wiring:
//! - the command line: `cli` — the flags as parsed, and the connection resolved from them,
//!   the option files and the environment; `config` — all of it and the servers file resolved
//!   once into what each mode reads;
//! - acting, reporting, replaying: `control`, `output`, `check` (the monitoring-plugin
//!   report), `openmetrics`, `export` (the derived figures as CSV or JSON), `view` (what
//!   events add up to on screen), `replay` (that screen rebuilt anywhere in a capture),
//!   `trigger` (incidents: when a capture starts and ends), `review` (after an incident:
//!   compare it with a baseline, re-judge a recording under another setting);
//! - app state: `app` — update(Msg) → commands, no I/O; `keymap` (every key, as data);
//! - drawing: `theme`, `ui`, `text`, `term` — reads the app, never computes a figure;
//! - wiring: `screen` (the one event loop of every full screen), `tui` (the dashboard on
//!   it), `timings`, `mode` (what every mode shares), `target` (one way to run a target:
//!   connect, poll, derive), `run`, `serve`, `fleet`.

// A panic is never the answer to bad input: `clippy::unwrap_used` is denied in Cargo.toml's
// [lints] for every target (clippy.toml lets tests unwrap).

pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub mod control;
pub mod export;
pub mod fleet;
pub mod keymap;
pub mod mode;
pub mod openmetrics;
pub mod output;
pub mod replay;
pub mod report;
pub mod review;
pub mod run;
pub mod screen;
pub mod serve;
pub mod target;
pub mod term;
pub mod text;
pub mod theme;
pub mod timings;
pub mod trigger;
pub mod tui;
pub mod ui;
pub mod view;
