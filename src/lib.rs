//! innodebt: how much redo and undo debt InnoDB carries, and whether it is being paid back.
//!
//! Data flows one way: `source` (live poller or replay) → raw [`sample::Sample`]s →
//! `metrics` (measure) → `verdicts` (judge over time) → `derive` (both, once per sample, onto
//! the [`figures::Figures`]) → `app` state → `ui` (render). Every judgement is made once and
//! carried on the figures; panels, the verdict line, plans and the JSON only read it.
//!
//! # Layers
//! A module may import the layers below its own and, without cycles, its own layer — never a
//! layer above. A module may always use its own submodules. `tests/it/layers.rs` reads this list
//! and the imports of every file in `src/`, and fails on an import upwards or any cycle.
//!
//! 1. foundation: `text`, `units`, `term`, `mycnf`, `keymap` (every key, as data) — std and
//!    external crates only
//! 2. what the server is and says: `innodb_status`, `textdump`, `error_log` (its last crash recovery), `source::flavor`, `sample`
//! 3. getting samples and keeping them: `source`, `source::connect`, `source::live`, `capture`
//! 4. the command line: `cli` — flags, option files and environment resolved into values
//! 5. the figures of a moment, as data: `figures`
//! 6. measuring: `metrics` — samples into figures, pure
//! 7. judging: `verdicts` — figures over time into verdicts, recovery and sizing, pure
//! 8. derive then assess: `derive` — the one place both run and the judgement is written
//! 9. acting, reporting, replaying: `control`, `output`, `check` (the monitoring-plugin report), `openmetrics`, `capture::export`, `view` (what events add up to on screen), `replay` (that screen rebuilt anywhere in a capture), `trigger` (incidents: when a capture starts and ends), `review` (after an incident: compare it with a baseline, re-judge a recording under another setting)
//! 10. app state: `app` — update(Msg) → commands, no I/O
//! 11. drawing: `theme`, `ui` — reads the app, never computes a figure
//! 12. wiring: `screen` (the one event loop of every full screen), `tui` (the dashboard on it), `timings`, `mode` (what every mode shares), `target` (one way to run a target: connect, poll, derive), `run`, `serve`, `fleet`

// A panic is never the answer to bad input: `clippy::unwrap_used` is denied in Cargo.toml's
// [lints] for every target (clippy.toml lets tests unwrap).

pub mod app;
pub mod capture;
pub mod check;
pub mod cli;
pub mod control;
pub mod derive;
pub mod error_log;
pub mod figures;
pub mod fleet;
pub mod innodb_status;
pub mod keymap;
pub mod metrics;
pub mod mode;
pub mod mycnf;
pub mod openmetrics;
pub mod output;
pub mod replay;
pub mod review;
pub mod run;
pub mod sample;
pub mod screen;
pub mod serve;
pub mod source;
pub mod target;
pub mod term;
pub mod text;
pub mod textdump;
pub mod theme;
pub mod timings;
pub mod trigger;
pub mod tui;
pub mod ui;
pub mod units;
pub mod verdicts;
pub mod view;
