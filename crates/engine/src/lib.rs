//! The engine: raw samples into figures (`measure`, each figure defined once in `figures`),
//! figures over time into verdicts, recovery and sizing (`verdicts`), and the one place both
//! run per sample (`derive`). Pure: no tokio, no driver, no terminal, no HTTP — the compiler
//! holds that, since this crate depends on none of them.

pub mod derive;
pub mod figures;
pub mod measure;
pub mod units;
pub mod verdicts;
