//! Key → state change / command: `keymap` says what a key means in this mode, this module
//! what that does. An open overlay consumes keys first.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use super::server_keys::{change_key, kill_key, monitors_key};
use super::{
    Action, App, Command, Confirm, FactsThen, Input, InputPurpose, MAX_INTERVAL, MIN_INTERVAL,
    Overlay, Panel,
};
use crate::control::{self, Knob};
use crate::keymap::{self, KeyAction, Mode};

/// The mode the keymap is read in: a replay (also `--demo`) or a live server.
pub fn mode(app: &App) -> Mode {
    if app.compare.is_some() {
        Mode::Compare
    } else if app.replay.is_some() {
        Mode::Replay
    } else {
        Mode::Live
    }
}

/// A key press: the keymap says what it means here; an open popup takes every key first
/// (except Ctrl-C and Ctrl-Z).
pub fn handle(app: &mut App, key: KeyEvent) -> Vec<Command> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let mode = mode(app);
    let action = keymap::action(mode, &key);
    if let Some(a) = action.filter(|a| a.over_popups()) {
        return act(app, a, key);
    }
    app.needs_draw = true;
    if app.overlay.is_some() {
        return overlay_key(app, key);
    }
    match action {
        Some(a) => act(app, a, key),
        None => {
            if mode == Mode::Replay
                && let Some(b) = keymap::elsewhere(mode, &key)
            {
                app.notice(
                    b.help,
                    format!(
                        "replays never change a server or how it is polled: `{}` works on a \
                         live server only (this is a recording)",
                        b.names.join(" ")
                    ),
                );
            } else {
                app.needs_draw = false;
            }
            Vec::new()
        }
    }
}

/// What an action does to the app; commands for what leaves it.
fn act(app: &mut App, action: KeyAction, key: KeyEvent) -> Vec<Command> {
    use KeyAction as A;
    match action {
        A::Quit | A::QuitNow => {
            app.quit = true;
            vec![Command::Quit]
        }
        A::Suspend => {
            app.needs_draw = true;
            vec![Command::Suspend]
        }
        A::Help => {
            app.overlay = Some(Overlay::Help);
            Vec::new()
        }
        A::Verdicts => {
            app.overlay = Some(Overlay::Verdicts);
            Vec::new()
        }
        A::Zoom => {
            if let KeyCode::Char(c) = key.code {
                let n = c as usize - '0' as usize;
                app.zoom = Panel::from_number(n);
                if let Some(p) = app.zoom {
                    app.focus = p;
                }
            }
            Vec::new()
        }
        A::ZoomFocused => {
            app.zoom = Some(app.focus);
            Vec::new()
        }
        A::Back => {
            app.zoom = None;
            if let Some(c) = app.compare.as_mut() {
                c.key(action);
            }
            Vec::new()
        }
        A::DiffUp
        | A::DiffDown
        | A::DiffPageUp
        | A::DiffPageDown
        | A::DiffFirst
        | A::DiffLast
        | A::DiffDetail => {
            if let Some(c) = app.compare.as_mut() {
                c.key(action);
            }
            Vec::new()
        }
        A::Freeze => {
            app.frozen = match app.frozen.take() {
                Some(_) => None,
                None => Some(Box::new(app.live.clone())),
            };
            Vec::new()
        }
        A::IntervalUp => change_interval(app, true),
        A::IntervalDown => change_interval(app, false),
        A::ChartWindow => {
            app.window = app.window.next();
            Vec::new()
        }
        A::UndoScan => {
            app.overlay = Some(Overlay::Confirm(Confirm {
                title: "Undo residency scan".into(),
                lines: vec![
                    "Counts the undo pages cached in the buffer pool.".into(),
                    "It scans the WHOLE buffer pool: on a busy server this costs real".into(),
                    "throughput while it runs (tens to hundreds of ms).".into(),
                ],
                sql: Some(
                    "SELECT COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE_LRU WHERE PAGE_TYPE = 'UNDO_LOG'"
                        .into(),
                ),
                yes_selected: false,
                action: Action::UndoScanNow,
            }));
            Vec::new()
        }
        A::PurgeThreadsUp => change_key(app, Knob::PurgeThreads, FactsThen::Step(1)),
        A::PurgeThreadsDown => change_key(app, Knob::PurgeThreads, FactsThen::Step(-1)),
        A::PurgeThreadsSet => change_key(app, Knob::PurgeThreads, FactsThen::Prompt),
        A::MaxPurgeLag => change_key(app, Knob::MaxPurgeLag, FactsThen::Prompt),
        A::MaxPurgeLagDelay => change_key(app, Knob::MaxPurgeLagDelay, FactsThen::Prompt),
        A::PurgeBatchSize => change_key(app, Knob::PurgeBatchSize, FactsThen::Prompt),
        A::EnableMonitors => monitors_key(app),
        A::KillBlocker => kill_key(app),
        A::RollbackSegments => super::server_keys::rollback_segments_key(app),
        A::AddNote => {
            super::notes::start(app);
            Vec::new()
        }
        A::FocusLeft => move_focus(app, -1, 0),
        A::FocusRight => move_focus(app, 1, 0),
        A::FocusUp => move_focus(app, 0, -1),
        A::FocusDown => move_focus(app, 0, 1),
        A::FocusNext => {
            let next = app.focus.number() % Panel::ALL.len() + 1;
            app.focus = Panel::from_number(next).unwrap_or(app.focus);
            Vec::new()
        }
        A::PlayPause
        | A::StepBack
        | A::StepForward
        | A::Slower
        | A::Faster
        | A::GoTo
        | A::First
        | A::Last
        | A::NextMoment
        | A::PreviousMoment => replay_key(app, action),
        // A popup's and the fleet's keys: never the dashboard's (the keymap says so).
        A::Yes
        | A::No
        | A::Answer
        | A::SwitchAnswer
        | A::Alternative
        | A::Submit
        | A::Cancel
        | A::Erase
        | A::Type
        | A::SelectUp
        | A::SelectDown
        | A::SelectFirst
        | A::SelectLast
        | A::OpenServer
        | A::Filter
        | A::ClearFilter
        | A::GroupServers => Vec::new(),
    }
}

/// The transport of a replay; nothing when not replaying. Moving is a load (a command).
fn replay_key(app: &mut App, action: KeyAction) -> Vec<Command> {
    use KeyAction as A;
    let Some(r) = app.replay.as_mut() else {
        return Vec::new();
    };
    match action {
        A::PlayPause => {
            r.playing = !r.playing;
            if r.playing && r.at_end() {
                let first = r.first;
                return app.seek(first);
            }
        }
        A::StepForward => {
            r.playing = false;
            return app.step_forward();
        }
        A::StepBack => {
            let pos = r.pos.saturating_sub(1);
            r.playing = false;
            return app.seek(pos);
        }
        A::First | A::Last => {
            let to = if action == A::First { r.first } else { r.last };
            r.playing = false;
            return app.seek(to);
        }
        A::Faster => r.faster(),
        A::Slower => r.slower(),
        A::NextMoment | A::PreviousMoment => {
            if let Some(g) = r.moment(action == A::NextMoment) {
                let pos = g.first.sample;
                r.playing = false;
                return app.seek(pos);
            }
        }
        A::GoTo => {
            app.overlay = Some(Overlay::Input(Input {
                title: "Go to".into(),
                lines: vec![
                    "HH:MM:SS (capture day), +90s / +5m from the start,".into(),
                    "-30s from here, or an RFC 3339 time".into(),
                ],
                text: String::new(),
                error: None,
                purpose: InputPurpose::Goto,
            }));
        }
        _ => {}
    }
    Vec::new()
}

/// Typed text is done: act on it, or keep the prompt open with the error.
fn submit_input(app: &mut App, mut input: Input) -> Vec<Command> {
    match &input.purpose {
        InputPurpose::Knob(knob, facts) => {
            let (knob, facts) = (*knob, facts.clone());
            let planned = control::parse_input(&input.text).and_then(|v| {
                let ctx = app.plan_context().ok_or("not connected")?;
                control::plan_set(knob, v, &facts, &ctx).map_err(|r| r.to_string())
            });
            match planned {
                Ok(plan) => app.confirm_plan(plan),
                Err(e) => {
                    input.error = Some(e);
                    app.overlay = Some(Overlay::Input(input));
                }
            }
            Vec::new()
        }
        InputPurpose::Note { at } => {
            let at = *at;
            super::notes::submit(app, input, at)
        }
        InputPurpose::Goto => {
            let parsed = match app.replay.as_mut() {
                Some(r) => super::transport::parse_goto(&input.text, r),
                None => Err("not replaying".into()),
            };
            match parsed {
                Ok(t) => {
                    if let Some(r) = app.replay.as_mut() {
                        r.playing = false;
                    }
                    app.seek_time(t)
                }
                Err(e) => {
                    input.error = Some(e);
                    app.overlay = Some(Overlay::Input(input));
                    Vec::new()
                }
            }
        }
    }
}

/// Panels sit in a 2-column grid in reading order; focus moves within it.
fn move_focus(app: &mut App, dx: i32, dy: i32) -> Vec<Command> {
    let i = app.focus.number() as i32 - 1;
    let (col, row) = (i % 2, i / 2);
    let col = (col + dx).clamp(0, 1);
    let row = (row + dy).clamp(0, 2);
    if let Some(p) = Panel::from_number((row * 2 + col + 1) as usize) {
        app.focus = p;
        if app.zoom.is_some() {
            app.zoom = Some(p);
        }
    }
    Vec::new()
}

const INTERVAL_STEPS_MS: [u64; 9] = [100, 250, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000];

fn change_interval(app: &mut App, up: bool) -> Vec<Command> {
    let cur = app.interval.as_millis() as u64;
    let next = if up {
        INTERVAL_STEPS_MS.iter().copied().find(|s| *s > cur)
    } else {
        INTERVAL_STEPS_MS.iter().rev().copied().find(|s| *s < cur)
    };
    let Some(ms) = next else {
        return Vec::new();
    };
    let d = Duration::from_millis(ms).clamp(MIN_INTERVAL, MAX_INTERVAL);
    app.interval = d;
    vec![Command::SetPollInterval(d)]
}

/// Characters a prompt takes: a value is short, a note a line.
fn input_limit(input: &Input) -> usize {
    match input.purpose {
        InputPurpose::Note { .. } => 120,
        _ => 64,
    }
}

/// A key while a popup is open: the popup's rows of the keymap say what it means.
fn overlay_key(app: &mut App, key: KeyEvent) -> Vec<Command> {
    use KeyAction as A;
    let Some(overlay) = app.overlay.take() else {
        return Vec::new();
    };
    match overlay {
        Overlay::Help | Overlay::Verdicts | Overlay::Notice { .. } => {
            // Any key closes; `q` on help closes rather than quits, as users expect.
            Vec::new()
        }
        Overlay::Input(mut input) => match keymap::action(Mode::Prompt, &key) {
            Some(A::Cancel) => Vec::new(),
            Some(A::Submit) => submit_input(app, input),
            Some(A::Erase) => {
                input.text.pop();
                input.error = None;
                app.overlay = Some(Overlay::Input(input));
                Vec::new()
            }
            Some(A::Type) => {
                if let KeyCode::Char(c) = key.code
                    && input.text.chars().count() < input_limit(&input)
                {
                    input.text.push(c);
                    input.error = None;
                }
                app.overlay = Some(Overlay::Input(input));
                Vec::new()
            }
            _ => {
                app.overlay = Some(Overlay::Input(input));
                Vec::new()
            }
        },
        Overlay::Confirm(mut c) => match keymap::action(Mode::Confirm, &key) {
            // The plan's alternative (MySQL 8: SET PERSIST) replaces it, asking again.
            Some(A::Alternative) => {
                match c.action {
                    Action::Change(plan) if plan.alternative.is_some() => {
                        if let Some(alt) = plan.alternative {
                            app.confirm_plan(*alt);
                        }
                    }
                    action => {
                        c.action = action;
                        app.overlay = Some(Overlay::Confirm(c));
                    }
                }
                Vec::new()
            }
            Some(A::Yes) => app.confirmed(c.action),
            Some(A::Answer) if c.yes_selected => app.confirmed(c.action),
            Some(A::No | A::Answer) => Vec::new(),
            Some(A::SwitchAnswer) => {
                c.yes_selected = !c.yes_selected;
                app.overlay = Some(Overlay::Confirm(c));
                Vec::new()
            }
            _ => {
                app.overlay = Some(Overlay::Confirm(c));
                Vec::new()
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use crossterm::event::KeyModifiers;

    fn app() -> App {
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .single()
            .unwrap_or_default();
        App::new(Duration::from_secs(1), now)
    }

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn quit_keys() {
        let mut a = app();
        assert_eq!(handle(&mut a, key(KeyCode::Char('q'))), vec![Command::Quit]);
        let mut a = app();
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(handle(&mut a, ctrl_c), vec![Command::Quit]);
    }

    #[test]
    fn help_opens_and_any_key_closes_without_acting() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('?')));
        assert_eq!(a.overlay, Some(Overlay::Help));
        assert!(handle(&mut a, key(KeyCode::Char('q'))).is_empty());
        assert_eq!(a.overlay, None);
        assert!(!a.quit);
    }

    #[test]
    fn zoom_and_back() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('3')));
        assert_eq!(a.zoom, Some(Panel::History));
        handle(&mut a, key(KeyCode::Esc));
        assert_eq!(a.zoom, None);
        handle(&mut a, key(KeyCode::Char('9')));
        assert_eq!(a.zoom, None);
    }

    #[test]
    fn focus_moves_in_grid_and_enter_zooms() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Right));
        assert_eq!(a.focus, Panel::Flush);
        handle(&mut a, key(KeyCode::Char('j')));
        assert_eq!(a.focus, Panel::Purge);
        handle(&mut a, key(KeyCode::Char('j')));
        handle(&mut a, key(KeyCode::Char('j')));
        assert_eq!(a.focus, Panel::Undo);
        handle(&mut a, key(KeyCode::Enter));
        assert_eq!(a.zoom, Some(Panel::Undo));
    }

    #[test]
    fn interval_steps_and_bounds() {
        let mut a = app();
        assert_eq!(
            handle(&mut a, key(KeyCode::Char('+'))),
            vec![Command::SetPollInterval(Duration::from_secs(2))]
        );
        for _ in 0..20 {
            handle(&mut a, key(KeyCode::Char('-')));
        }
        assert_eq!(a.interval, MIN_INTERVAL);
        assert!(handle(&mut a, key(KeyCode::Char('-'))).is_empty());
    }

    #[test]
    fn freeze_toggles() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('p')));
        assert!(a.is_frozen());
        handle(&mut a, key(KeyCode::Char('p')));
        assert!(!a.is_frozen());
    }

    #[test]
    fn window_cycles() {
        let mut a = app();
        let start = a.window;
        for _ in 0..4 {
            handle(&mut a, key(KeyCode::Char('w')));
        }
        assert_eq!(a.window, start);
    }

    #[test]
    fn confirm_defaults_to_no() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('u')));
        assert!(matches!(a.overlay, Some(Overlay::Confirm(_))));
        // Enter on the default answer (No) runs nothing.
        assert!(handle(&mut a, key(KeyCode::Enter)).is_empty());
        assert_eq!(a.overlay, None);
        // Esc cancels.
        handle(&mut a, key(KeyCode::Char('u')));
        assert!(handle(&mut a, key(KeyCode::Esc)).is_empty());
        // y confirms.
        handle(&mut a, key(KeyCode::Char('u')));
        assert_eq!(
            handle(&mut a, key(KeyCode::Char('y'))),
            vec![Command::UndoScanNow]
        );
        // Moving to Yes then Enter confirms.
        handle(&mut a, key(KeyCode::Char('u')));
        handle(&mut a, key(KeyCode::Left));
        assert_eq!(
            handle(&mut a, key(KeyCode::Enter)),
            vec![Command::UndoScanNow]
        );
    }
}
