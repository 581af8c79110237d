//! Seeking and playing a replay as loads: the app asks ([`Command::Load`]), the runner
//! reads off the update path, the window comes back ([`super::Msg::Loaded`]) and is
//! shown only if it answers the load awaited. Nothing here reads a file.

use chrono::{DateTime, Utc};

use super::{App, Command, Showing, secs_between};
use crate::replay::{Goto, LoadedSample};

/// Samples one playback load may step at most.
const PLAY_STEPS_PER_LOAD: u32 = 5000;

impl App {
    /// Moves the replay to sample `pos`: the timeline goes there at once, the screen when the
    /// window is loaded ([`Msg::Loaded`]).
    pub fn seek(&mut self, pos: u64) -> Vec<Command> {
        self.load(Goto::Sample(pos))
    }

    /// Moves the replay to the first sample at or after `t` (`g`).
    pub fn seek_time(&mut self, t: DateTime<Utc>) -> Vec<Command> {
        self.load(Goto::Time(t))
    }

    /// One sample forward (`→`), whatever its gap. Pressed again before the step arrived, it
    /// steps once more from where the first began: every press counts.
    pub fn step_forward(&mut self) -> Vec<Command> {
        let Showing::Replay(r) = &self.showing else {
            return Vec::new();
        };
        let (from, max) = match r.pending_steps() {
            Some((from, n)) => (from, n.saturating_add(1)),
            None => (r.pos, 1),
        };
        self.load(Goto::Step {
            from,
            budget_s: f64::INFINITY,
            max,
        })
    }

    fn load(&mut self, to: Goto) -> Vec<Command> {
        let Showing::Replay(r) = &mut self.showing else {
            return Vec::new();
        };
        self.needs_draw = true;
        vec![Command::Load(r.request(to))]
    }

    /// A loaded window (or why it could not be): shown when it answers the load awaited.
    pub(super) fn loaded(&mut self, ticket: u64, result: Result<Box<LoadedSample>, String>) {
        let Showing::Replay(r) = &mut self.showing else {
            return;
        };
        if !r.answered(ticket) {
            return;
        }
        self.needs_draw = true;
        match result {
            Ok(w) => {
                r.shown(&w);
                r.play_debt_s = (r.play_debt_s - w.spent_s).max(0.0);
                if r.playing && r.at_end() {
                    r.playing = false;
                    r.play_debt_s = 0.0;
                }
                if let Some(now) = w.at {
                    self.now = now;
                }
                self.live = w.view;
            }
            Err(e) => {
                let stepping = r.playing;
                r.failed(e.clone());
                r.play_debt_s = 0.0;
                let what = if stepping {
                    "cannot read on"
                } else {
                    "cannot show that moment"
                };
                self.notice("Replay", format!("{what}: {e}"));
            }
        }
    }

    /// Playback: spend wall time × speed on samples. `wall` is the tick's wall-clock time; the
    /// displayed clock (`self.now`) is the capture's. The samples the debt pays for are one
    /// load; while it is on its way the debt grows and the next load takes it all.
    pub(super) fn tick_replay(&mut self, wall: DateTime<Utc>) -> Vec<Command> {
        let Showing::Replay(r) = &mut self.showing else {
            return Vec::new();
        };
        let elapsed = secs_between(r.last_wall.unwrap_or(wall), wall).clamp(0.0, 1.0);
        r.last_wall = Some(wall);
        if !r.playing {
            return Vec::new();
        }
        r.play_debt_s += elapsed * r.speed;
        if r.loading() {
            return Vec::new();
        }
        if r.at_end() {
            r.playing = false;
            r.play_debt_s = 0.0;
            self.needs_draw = true;
            return Vec::new();
        }
        match r.gap_to_next() {
            Some(gap) if r.play_debt_s >= gap => {
                let (from, budget_s) = (r.pos, r.play_debt_s);
                // Bounded per load so a huge speed-up can't hold the loader for long.
                self.load(Goto::Step {
                    from,
                    budget_s,
                    max: PLAY_STEPS_PER_LOAD,
                })
            }
            _ => Vec::new(),
        }
    }
}
