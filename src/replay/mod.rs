//! Replaying captures of any length in bounded memory. A capture (format 2) stores, after
//! each section of events, the derivation state at its end, one row of chart values per
//! sample and a small summary ([`summary`]); a replay opens one file or a directory of them
//! as a [`CaptureSet`] by reading the summaries only ([`set`]), and rebuilds the screen at
//! any sample from the nearest state, a few sections of rows and one section's events
//! ([`window`]) — exactly what a replay from the start shows. [`open`] decides what a path
//! is (file, directory of captures, pt-stalk directory) and makes writers that store states.
//! A replay on screen holds a [`Recording`] (what it shows of the set, in memory) and reads
//! only through its [`Loader`] ([`playhead`]), off the UI task.

pub mod damage;
pub mod open;
pub mod playhead;
pub mod recording;
pub mod resolve;
pub mod set;
pub mod summary;
pub mod window;

pub use open::{capture_files, create_writer, open_replay, temp_capture};
pub use playhead::{Goto, LoadRequest, LoadedSample, Loader};
pub use recording::Recording;
pub use resolve::{Ends, resolve_range};
pub use set::CaptureSet;
pub use window::{CHART_SPAN_S, Cursor};
