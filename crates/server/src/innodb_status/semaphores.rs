//! The SEMAPHORES section's wait array: each `--Thread N has waited at FILE line L for S
//! seconds the semaphore:` cell and the latch it waits for, as the server described it in the
//! line that says where the latch was created (`sync0arr.cc sync_array_cell_print`: `Mutex at
//! 0x… created file trx0rseg.cc line 200, lock var 1`, `X-lock on RW-latch at 0x… created in
//! file trx0sys.cc line 1`; 5.7/8.0 also name the mutex, `Mutex REDO_RSEG created …`). Only
//! that line says which latch it is: the waiting file is the caller's, and the "Last time
//! locked in file" lines name whoever held it last.

use serde::{Deserialize, Serialize};

/// Cells kept from one output: real wait arrays list a few hundred at most; the cap keeps
/// hostile input bounded.
const MAX_CELLS: usize = 256;
/// Characters kept of a latch's description.
const MAX_LATCH_CHARS: usize = 200;

/// One thread in the wait array.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SemaphoreWait {
    /// Seconds it has waited, as printed.
    pub waited_s: Option<f64>,
    /// The line naming the latch and where it was created (empty when not printed).
    pub latch: String,
}

/// Reads the SEMAPHORES section's lines, one at a time.
#[derive(Debug, Default)]
pub(super) struct Cells {
    /// A `--Thread` line was read and its latch line not yet.
    open: bool,
}

impl Cells {
    /// Takes one whitespace-normalised line of the SEMAPHORES section.
    pub(super) fn take_line(&mut self, waits: &mut Vec<SemaphoreWait>, line: &str) {
        if let Some(rest) = line.strip_prefix("--Thread ") {
            self.open = waits.len() < MAX_CELLS;
            if self.open {
                waits.push(SemaphoreWait {
                    waited_s: waited_seconds(rest),
                    latch: String::new(),
                });
            }
            return;
        }
        if self.open && line.contains(" created ") {
            self.open = false;
            if let Some(last) = waits.last_mut() {
                last.latch = line.chars().take(MAX_LATCH_CHARS).collect();
            }
        }
    }
}

/// `140 has waited at trx0trx.cc line 1185 for 2.00 seconds the semaphore:` → 2.0.
fn waited_seconds(rest: &str) -> Option<f64> {
    let (_, after) = rest.split_once(" for ")?;
    let n = after.split_whitespace().next()?;
    n.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_keep_the_created_line_only() {
        let mut waits = Vec::new();
        let mut c = Cells::default();
        for l in [
            "OS WAIT ARRAY INFO: reservation count 12",
            "--Thread 140 has waited at trx0trx.cc line 1185 for 2.00 seconds the semaphore:",
            "Mutex at 0x7f3e created file trx0rseg.cc line 200, lock var 1",
            "Last time reserved in file trx0sys.cc line 10, waiters flag 1",
            "--Thread 141 has waited at btr0cur.cc line 1 for nan seconds the semaphore:",
            "S-lock on RW-latch at 0x7f created in file buf0buf.cc line 1",
            "Last time write locked in file trx0sys.cc line 5",
        ] {
            c.take_line(&mut waits, l);
        }
        assert_eq!(waits.len(), 2);
        assert_eq!(waits[0].waited_s, Some(2.0));
        assert!(waits[0].latch.contains("trx0rseg.cc"));
        assert_eq!(waits[1].waited_s, None);
        assert!(waits[1].latch.contains("buf0buf.cc"), "{:?}", waits[1]);
    }

    #[test]
    fn hostile_input_is_bounded() {
        let mut waits = Vec::new();
        let mut c = Cells::default();
        let long = format!("Mutex {} created", "x".repeat(10_000));
        for _ in 0..1_000 {
            c.take_line(
                &mut waits,
                "--Thread 1 has waited at a line 1 for 1 seconds",
            );
            c.take_line(&mut waits, &long);
        }
        assert_eq!(waits.len(), MAX_CELLS);
        assert!(
            waits
                .iter()
                .all(|w| w.latch.chars().count() <= MAX_LATCH_CHARS)
        );
    }
}
