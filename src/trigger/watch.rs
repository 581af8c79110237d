//! The incident watch: keeps the last `before` of events (bounded), opens an incident when a
//! trigger holds, keeps it open while triggers hold and for `after` once they stop, then
//! rests for `cooldown` (a trigger turning on again meanwhile is reported, not captured, so a
//! flapping condition makes one file — pt-stalk's `--sleep`). Pure: every time is an event's
//! time, so a replayed capture gives the same incidents as the live run did.

use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{Cause, Trigger, first_holding};
use innodebt_engine::figures::Figures;
use innodebt_server::sample::{ServerInfo, SourceEvent};

/// No `--before` window holds more events than this, whatever the interval (at 100 ms, an
/// hour); the oldest go first.
pub const MAX_BACKLOG: usize = 36_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchConfig {
    pub before: Duration,
    pub after: Duration,
    pub cooldown: Duration,
}

/// One incident: when its first trigger held, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Incident {
    pub started_at: DateTime<Utc>,
    pub cause: Cause,
    /// Times a trigger turned on again while the file was open (flaps joined to it).
    pub rejoined: u32,
}

/// What the caller does with one event.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Start a file: the server as known, then the backlog (the `before` window up to and
    /// including the event that opened it).
    Open {
        incident: Incident,
        server: Option<ServerInfo>,
        backlog: Vec<SourceEvent>,
    },
    /// Append this event to the open file.
    Write(SourceEvent),
    /// Finish the file: no trigger has held for `after`.
    Close {
        incident: Incident,
        ended_at: DateTime<Utc>,
    },
    /// A trigger turned on inside the cooldown after the last file: not captured.
    Suppressed {
        cause: Cause,
        cooldown_ends: DateTime<Utc>,
    },
}

#[derive(Debug)]
enum State {
    Idle {
        quiet_until: Option<DateTime<Utc>>,
    },
    Open {
        incident: Incident,
        last_held: DateTime<Utc>,
    },
}

#[derive(Debug)]
pub struct Watch {
    cfg: WatchConfig,
    triggers: Vec<Trigger>,
    backlog: VecDeque<SourceEvent>,
    server: Option<ServerInfo>,
    state: State,
    /// A trigger held at the previous sample (to see it turn on).
    was_holding: bool,
}

impl Watch {
    pub fn new(triggers: Vec<Trigger>, cfg: WatchConfig) -> Watch {
        Watch {
            cfg,
            triggers,
            backlog: VecDeque::new(),
            server: None,
            state: State::Idle { quiet_until: None },
            was_holding: false,
        }
    }

    pub fn triggers(&self) -> &[Trigger] {
        &self.triggers
    }

    /// Events held for the next incident's `before` window.
    pub fn backlog_len(&self) -> usize {
        self.backlog.len()
    }

    pub fn is_open(&self) -> bool {
        matches!(self.state, State::Open { .. })
    }

    /// One source event and, for a sample, its figures.
    pub fn push(&mut self, ev: &SourceEvent, figures: Option<&Figures>) -> Vec<Step> {
        ev.describe(&mut self.server);
        let at = ev.at();
        let cause = figures.and_then(|f| first_holding(&self.triggers, f));
        let turned_on = cause.is_some() && !self.was_holding;
        if figures.is_some() {
            self.was_holding = cause.is_some();
        }
        let mut steps = Vec::new();
        if !self.is_open() {
            self.remember(ev);
        }
        match &mut self.state {
            State::Open {
                incident,
                last_held,
            } => {
                steps.push(Step::Write(ev.clone()));
                if cause.is_some() {
                    *last_held = at;
                    incident.rejoined += u32::from(turned_on);
                } else if figures.is_some() && since(*last_held, at) >= self.cfg.after {
                    steps.push(Step::Close {
                        incident: incident.clone(),
                        ended_at: at,
                    });
                    self.state = State::Idle {
                        quiet_until: Some(at + chrono_of(self.cfg.cooldown)),
                    };
                }
            }
            State::Idle { quiet_until } => {
                if let Some(cause) = cause {
                    match quiet_until {
                        Some(q) if at < *q => {
                            if turned_on {
                                steps.push(Step::Suppressed {
                                    cause,
                                    cooldown_ends: *q,
                                });
                            }
                        }
                        _ => {
                            let incident = Incident {
                                started_at: at,
                                cause,
                                rejoined: 0,
                            };
                            steps.push(Step::Open {
                                incident: incident.clone(),
                                server: self.server.clone(),
                                backlog: self.backlog.drain(..).collect(),
                            });
                            self.state = State::Open {
                                incident,
                                last_held: at,
                            };
                        }
                    }
                }
            }
        }
        steps
    }

    /// Keeps `ev` for the next `before` window, dropping what is older than it.
    fn remember(&mut self, ev: &SourceEvent) {
        let at = ev.at();
        self.backlog.push_back(ev.clone());
        while let Some(first) = self.backlog.front() {
            if self.backlog.len() > MAX_BACKLOG || since(first.at(), at) > self.cfg.before {
                self.backlog.pop_front();
            } else {
                break;
            }
        }
    }

    /// The open incident, if any (to finish its file at shutdown).
    pub fn open_incident(&self) -> Option<&Incident> {
        match &self.state {
            State::Open { incident, .. } => Some(incident),
            State::Idle { .. } => None,
        }
    }
}

fn since(from: DateTime<Utc>, to: DateTime<Utc>) -> Duration {
    (to - from).to_std().unwrap_or_default()
}

fn chrono_of(d: Duration) -> chrono::Duration {
    chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use innodebt_engine::figures::Figures;
    use innodebt_server::sample::Sample;

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + s, 0).unwrap()
    }

    fn sample(s: i64) -> SourceEvent {
        SourceEvent::Sample(Box::new(Sample::new(t(s), s as f64)))
    }

    fn figures(history: u64) -> Figures {
        let mut f = Figures::default();
        f.history.length = Some(history);
        f
    }

    fn watch() -> Watch {
        Watch::new(
            super::super::parse("history>100").unwrap(),
            WatchConfig {
                before: Duration::from_secs(5),
                after: Duration::from_secs(3),
                cooldown: Duration::from_secs(20),
            },
        )
    }

    /// Feeds one sample a second with these history lengths; the steps per second.
    fn run(w: &mut Watch, from: i64, history: &[u64]) -> Vec<(i64, Vec<Step>)> {
        history
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let s = from + i as i64;
                (s, w.push(&sample(s), Some(&figures(*h))))
            })
            .collect()
    }

    #[test]
    fn an_incident_holds_the_before_window_itself_and_the_after_window() {
        let mut w = watch();
        let steps = run(
            &mut w,
            0,
            &[1, 1, 1, 1, 1, 1, 1, 1, 500, 500, 1, 1, 1, 1, 1],
        );
        let opened: Vec<_> = steps
            .iter()
            .flat_map(|(s, st)| st.iter().map(move |x| (*s, x)))
            .collect();
        let (
            at,
            Step::Open {
                backlog, incident, ..
            },
        ) = opened
            .iter()
            .find(|(_, x)| matches!(x, Step::Open { .. }))
            .unwrap()
        else {
            unreachable!()
        };
        assert_eq!(*at, 8);
        assert_eq!(incident.cause.trigger, "history>100");
        // 5 s before (3..=7) and the sample that opened it.
        let times: Vec<_> = backlog.iter().map(|e| e.at()).collect();
        assert_eq!(times, (3..=8).map(t).collect::<Vec<_>>());
        let writes = opened
            .iter()
            .filter(|(_, x)| matches!(x, Step::Write(_)))
            .count();
        // 9 (held), 10, 11, 12 (3 s after the last hold at 9) then closed.
        assert_eq!(writes, 4);
        let (closed_at, _) = opened
            .iter()
            .find(|(_, x)| matches!(x, Step::Close { .. }))
            .unwrap();
        assert_eq!(*closed_at, 12);
        assert!(!w.is_open());
    }

    #[test]
    fn flaps_join_the_open_file_and_the_cooldown_suppresses_the_next() {
        let mut w = watch();
        // On at 0, off at 1, on again at 2 (joins), off from 3: closes at 6.
        let steps = run(&mut w, 0, &[500, 1, 500, 1, 1, 1, 1]);
        let all: Vec<&Step> = steps.iter().flat_map(|(_, s)| s).collect();
        assert_eq!(
            all.iter()
                .filter(|s| matches!(s, Step::Open { .. }))
                .count(),
            1
        );
        let Some(Step::Close { incident, ended_at }) =
            all.iter().find(|s| matches!(s, Step::Close { .. }))
        else {
            panic!("not closed: {all:?}")
        };
        assert_eq!(incident.rejoined, 1);
        assert_eq!(*ended_at, t(5));
        // Inside the cooldown (ends at 25): reported once, not opened.
        let steps = run(&mut w, 10, &[500, 500, 1, 500]);
        let all: Vec<&Step> = steps.iter().flat_map(|(_, s)| s).collect();
        assert_eq!(
            all.iter()
                .filter(|s| matches!(s, Step::Suppressed { .. }))
                .count(),
            2
        );
        assert!(!all.iter().any(|s| matches!(s, Step::Open { .. })));
        // Still holding when the cooldown ends: a new file opens then.
        let steps = run(&mut w, 25, &[500]);
        assert!(matches!(steps[0].1[0], Step::Open { .. }));
    }

    #[test]
    fn the_backlog_is_bounded_by_time_and_count() {
        let mut w = watch();
        run(&mut w, 0, &[1; 100]);
        assert_eq!(w.backlog_len(), 6);
        let mut w = Watch::new(
            super::super::parse("history>100").unwrap(),
            WatchConfig {
                before: Duration::from_secs(1_000_000),
                after: Duration::from_secs(1),
                cooldown: Duration::ZERO,
            },
        );
        for s in 0..(MAX_BACKLOG as i64 + 10) {
            w.push(&sample(s), None);
        }
        assert_eq!(w.backlog_len(), MAX_BACKLOG);
    }
}
