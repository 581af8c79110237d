//! A benchmark hook: with `INNODEBT_TIMINGS=FILE` the dashboard appends to FILE when its first
//! frame reached the terminal and how long each key took to reach the screen, measured inside
//! the real binary (`benches/replay.rs` reads them), with the CPU time the process used
//! meanwhile (on a loaded machine the wall time also holds waiting for a core). Compiled in
//! only with the `bench-timings` feature (`cargo bench --bench replay --features
//! bench-timings`) or in a debug build; a release binary ignores the variable.

use std::fs::File;
use std::io::Write;
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

const ENV: &str = "INNODEBT_TIMINGS";

static START: OnceLock<(Instant, SystemTime)> = OnceLock::new();

/// CPU time of the whole process so far, in milliseconds.
fn cpu_ms() -> f64 {
    use nix::time::{ClockId, clock_gettime};
    match clock_gettime(ClockId::CLOCK_PROCESS_CPUTIME_ID) {
        Ok(ts) => ts.tv_sec() as f64 * 1e3 + ts.tv_nsec() as f64 / 1e6,
        Err(_) => f64::NAN,
    }
}

/// Call first thing in `main`: what "since start" counts from.
pub fn mark_start() {
    START.get_or_init(|| (Instant::now(), SystemTime::now()));
}

fn unix_ns(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

#[derive(Debug, Default)]
pub struct Timings {
    file: Option<File>,
    drawn_once: bool,
    /// The oldest key not yet shown on screen, and the process's CPU time then.
    key_at: Option<(Instant, f64)>,
}

impl Timings {
    pub fn from_env() -> Self {
        if !cfg!(any(debug_assertions, feature = "bench-timings")) {
            return Timings::default();
        }
        let file = std::env::var_os(ENV).and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
        Timings {
            file,
            ..Timings::default()
        }
    }

    pub fn key(&mut self) {
        if self.file.is_some() {
            self.key_at
                .get_or_insert_with(|| (Instant::now(), cpu_ms()));
        }
    }

    /// A frame reached the terminal.
    pub fn drawn(&mut self) {
        let Some(f) = self.file.as_mut() else {
            return;
        };
        let now = Instant::now();
        let line = if !self.drawn_once {
            self.drawn_once = true;
            let (t0, wall0) = START.get_or_init(|| (now, SystemTime::now()));
            format!(
                "first_frame since_start_ms={:.3} cpu_ms={:.3} start_unix_ns={} frame_unix_ns={}\n",
                (now - *t0).as_secs_f64() * 1e3,
                cpu_ms(),
                unix_ns(*wall0),
                unix_ns(SystemTime::now())
            )
        } else if let Some((k, cpu)) = self.key_at.take() {
            format!(
                "key_to_frame_ms={:.3} cpu_ms={:.3}\n",
                (now - k).as_secs_f64() * 1e3,
                cpu_ms() - cpu
            )
        } else {
            return;
        };
        let _ = f.write_all(line.as_bytes());
    }
}
