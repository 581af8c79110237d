//! innodebt: how much redo and undo debt InnoDB carries, and whether it is being paid back.
//!
//! Data flows one way: `source` (live poller or replay) → raw [`sample::Sample`]s →
//! `metrics` (pure derivation) → app state → render.

pub mod app;
pub mod capture;
pub mod cli;
pub mod control;
pub mod innodb_status;
pub mod metrics;
pub mod mycnf;
pub mod output;
pub mod run;
pub mod sample;
pub mod source;
pub mod term;
pub mod textdump;
pub mod theme;
pub mod tui;
pub mod ui;
pub mod verdicts;
