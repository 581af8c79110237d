//! Memory that stays bounded however long the run or the file: the dashboard's live path over
//! half a million samples, and the Dolphie and Prometheus imports of hours of history. These
//! are the suite's longest tests; their module's name sorts them to the front of the run, so
//! they start while the other tests fill the remaining threads instead of ending it.

mod dolphie_import;
mod prometheus_import;
mod soak;
