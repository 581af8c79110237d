//! What a capture holds so far, read while its writer may still be writing (the writer
//! flushes every record, so what is written reads): for tests that wait on a recording —
//! "it holds 3 samples", "it holds one after the note" — instead of waiting for a time.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use innodebt_capture as capture;

/// The times of the samples `file` holds so far: none while it does not exist yet or its
/// header is not written.
pub fn sample_times(file: &Path) -> Vec<DateTime<Utc>> {
    capture::open(file).map_or_else(
        |_| Vec::new(),
        |cap| {
            cap.events
                .iter()
                .filter_map(|e| e.as_sample())
                .map(|s| s.taken_at)
                .collect()
        },
    )
}

/// Waits until `file` holds at least `n` samples; their times.
#[track_caller]
pub fn wait_for_samples(file: &Path, n: usize, timeout: Duration) -> Vec<DateTime<Utc>> {
    super::wait::wait_for(
        timeout,
        super::wait::OnTimeout(|| {
            format!(
                "{} to hold {n} samples (it holds {})",
                file.display(),
                sample_times(file).len()
            )
        }),
        || {
            let times = sample_times(file);
            (times.len() >= n).then_some(times)
        },
    )
}

/// Waits until `file` holds a sample taken after `t`; its time.
#[track_caller]
pub fn wait_for_sample_after(file: &Path, t: DateTime<Utc>, timeout: Duration) -> DateTime<Utc> {
    super::wait::wait_for(
        timeout,
        super::wait::OnTimeout(|| {
            format!(
                "{} to hold a sample after {t} (its last: {:?})",
                file.display(),
                sample_times(file).last()
            )
        }),
        || sample_times(file).last().copied().filter(|last| *last > t),
    )
}

/// Waits until `file` holds a bookmark; the time of its last one.
#[track_caller]
pub fn wait_for_note(file: &Path, timeout: Duration) -> DateTime<Utc> {
    super::wait::wait_for(
        timeout,
        format!("{} to hold a note", file.display()),
        || {
            capture::open(file)
                .ok()
                .and_then(|cap| cap.notes.last().map(|n| n.at))
        },
    )
}
