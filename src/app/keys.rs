//! Key → state change / command. The mode shown says which table of `keymap` a key is read
//! in, and each mode's action type has its arms here; an open popup takes every key first (but
//! the screen's Ctrl-C and Ctrl-Z).

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use super::server_keys::{change_key, kill_key, monitors_key, rollback_segments_key};
use super::{
    Action, App, Command, Confirm, FactsThen, Feed, Input, InputPurpose, MAX_INTERVAL,
    MIN_INTERVAL, Overlay, Panel, Showing,
};
use crate::control::{self, PurgeVariable};
use crate::keymap::{
    self, CompareKey, ConfirmKey, DismissKey, FrozenKey, Listing, LiveKey, PanelKey, ReplayKey,
    ScreenAction, ScreenKey, TextKey,
};

/// A key's meaning in the mode shown (before any popup).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pressed {
    Live(LiveKey),
    Frozen(FrozenKey),
    Replay(ReplayKey),
    Compare(CompareKey),
}

impl Pressed {
    fn screen(self) -> Option<ScreenKey> {
        match self {
            Pressed::Live(a) => a.screen(),
            Pressed::Frozen(a) => a.screen(),
            Pressed::Replay(a) => a.screen(),
            Pressed::Compare(a) => a.screen(),
        }
    }
}

fn pressed(app: &App, key: &KeyEvent) -> Option<Pressed> {
    match &app.showing {
        Showing::Live(feed) => feed.keys().action(key).map(Pressed::Live),
        Showing::Frozen { .. } => keymap::FROZEN.action(key).map(Pressed::Frozen),
        Showing::Replay(_) => keymap::REPLAY.action(key).map(Pressed::Replay),
        Showing::Compare(_) => keymap::COMPARE.action(key).map(Pressed::Compare),
    }
}

impl App {
    /// The keys that act in the mode shown, as `?` lists them.
    pub fn keys_here(&self) -> Listing {
        match &self.showing {
            Showing::Live(feed) => feed.keys().listing(),
            Showing::Frozen { .. } => keymap::FROZEN.listing(),
            Showing::Replay(_) => keymap::REPLAY.listing(),
            Showing::Compare(_) => keymap::COMPARE.listing(),
        }
    }

    /// The name of the key for a panel action in the mode shown (the verdict line's `v full
    /// text`), if it has one.
    pub fn panel_key_name(&self, action: PanelKey) -> Option<&'static str> {
        let is = |a: Option<PanelKey>| a == Some(action);
        match &self.showing {
            Showing::Live(feed) => feed.keys().key_where(|a| is(a.panel())),
            Showing::Frozen { .. } => keymap::FROZEN.key_where(|a| is(a.panel())),
            Showing::Replay(_) => keymap::REPLAY.key_where(|a| is(a.panel())),
            Showing::Compare(_) => None,
        }
    }

    /// The name of the key for a live dashboard's `action` where it acts in the mode shown (a
    /// panel's "press u"): none while frozen, replaying or comparing, nor where the feed
    /// cannot (`--read-only`, a watched server).
    pub fn live_key_name(&self, action: LiveKey) -> Option<&'static str> {
        match &self.showing {
            Showing::Live(feed) => feed.keys().key_for(action),
            Showing::Frozen { .. } | Showing::Replay(_) | Showing::Compare(_) => None,
        }
    }

    /// What `ev` means among every screen's own keys (help, quit, back, suspend) in the mode
    /// shown: the fleet reads it to go back from a server's dashboard.
    pub fn screen_key_of(&self, ev: &KeyEvent) -> Option<ScreenKey> {
        pressed(self, ev).and_then(Pressed::screen)
    }
}

/// A key press: the mode's table says what it means here; an open popup takes every key first
/// (except Ctrl-C and Ctrl-Z).
pub fn handle(app: &mut App, key: KeyEvent) -> Vec<Command> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let pressed = pressed(app, &key);
    if let Some(s) = pressed
        .and_then(Pressed::screen)
        .filter(|s| s.over_popups())
    {
        return screen_action(app, s);
    }
    app.needs_draw = true;
    if app.overlay.is_some() {
        return overlay_key(app, key);
    }
    match pressed {
        Some(Pressed::Live(a)) => live_action(app, a),
        Some(Pressed::Frozen(a)) => frozen_action(app, a),
        Some(Pressed::Replay(a)) => replay_action(app, a),
        Some(Pressed::Compare(a)) => compare_action(app, a),
        None => {
            not_here(app, &key);
            Vec::new()
        }
    }
}

/// A key of a server's dashboard that does nothing in the mode shown: a notice says why, and
/// what would make it act. Any other key is ignored.
fn not_here(app: &mut App, key: &KeyEvent) {
    let Some(row) = keymap::LIVE.row_of(key) else {
        app.needs_draw = false;
        return;
    };
    let keys = format!("`{}`", row.names.join(" "));
    let why = match &app.showing {
        Showing::Live(feed) => feed_refuses(*feed, &keys),
        Showing::Frozen { feed, .. } => match feed.keys().row_of(key) {
            Some(_) => Some(format!(
                "the display is frozen: {keys} works on the live figures — press p to \
                 unfreeze first"
            )),
            None => feed_refuses(*feed, &keys),
        },
        Showing::Replay(_) => Some(format!(
            "replays never change a server or how it is polled: {keys} works on a live \
             server only (this is a recording)"
        )),
        // Another screen: the dashboard's keys mean nothing there.
        Showing::Compare(_) => None,
    };
    match why {
        Some(why) => app.notice(row.help, why),
        None => app.needs_draw = false,
    }
}

/// Why a live dashboard so fed has no such key (none: it has them all).
fn feed_refuses(feed: Feed, keys: &str) -> Option<String> {
    match feed {
        Feed::Server { read_only: false } => None,
        Feed::Server { read_only: true } => Some(format!(
            "read-only mode (--read-only): changes are disabled; {keys} works when innodebt \
             runs without --read-only"
        )),
        Feed::Fleet => Some(format!(
            "a server opened from the fleet is read-only, and the fleet polls it: {keys} \
             works on the server's own dashboard (innodebt -h HOST)"
        )),
        Feed::Prometheus => Some(format!(
            "these figures come from Prometheus, not from a connection: {keys} works on the \
             server's own dashboard (innodebt -h HOST)"
        )),
    }
}

/// Every screen's own keys.
fn screen_action(app: &mut App, action: ScreenKey) -> Vec<Command> {
    match action {
        ScreenKey::Quit | ScreenKey::QuitNow => {
            app.quit = true;
            return vec![Command::Quit];
        }
        ScreenKey::Suspend => {
            app.needs_draw = true;
            return vec![Command::Suspend];
        }
        ScreenKey::Help => app.overlay = Some(Overlay::Help),
        ScreenKey::Back => app.zoom = None,
    }
    Vec::new()
}

/// Reading the panels, in every mode of the dashboard.
fn panel_action(app: &mut App, action: PanelKey) -> Vec<Command> {
    match action {
        PanelKey::Verdicts => app.overlay = Some(Overlay::Verdicts),
        PanelKey::Zoom(n) => {
            app.zoom = Panel::from_number(n.into());
            if let Some(p) = app.zoom {
                app.focus = p;
            }
        }
        PanelKey::ZoomFocused => app.zoom = Some(app.focus),
        PanelKey::FocusLeft => move_focus(app, -1, 0),
        PanelKey::FocusRight => move_focus(app, 1, 0),
        PanelKey::FocusUp => move_focus(app, 0, -1),
        PanelKey::FocusDown => move_focus(app, 0, 1),
        PanelKey::FocusNext => {
            let next = app.focus.number() % Panel::ALL.len() + 1;
            app.focus = Panel::from_number(next).unwrap_or(app.focus);
        }
        PanelKey::ChartWindow => app.window = app.window.next(),
        PanelKey::AddNote => super::notes::start(app),
    }
    Vec::new()
}

/// The dashboard on a live server: the panels', freezing, the poller's, the changes.
fn live_action(app: &mut App, action: LiveKey) -> Vec<Command> {
    match action {
        LiveKey::Screen(s) => screen_action(app, s),
        LiveKey::Panel(p) => panel_action(app, p),
        LiveKey::Freeze => {
            app.toggle_freeze();
            Vec::new()
        }
        LiveKey::IntervalUp => change_interval(app, true),
        LiveKey::IntervalDown => change_interval(app, false),
        LiveKey::UndoScan => {
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
        LiveKey::PurgeThreadsUp => change_key(app, PurgeVariable::PurgeThreads, FactsThen::Step(1)),
        LiveKey::PurgeThreadsDown => {
            change_key(app, PurgeVariable::PurgeThreads, FactsThen::Step(-1))
        }
        LiveKey::PurgeThreadsSet => change_key(app, PurgeVariable::PurgeThreads, FactsThen::Prompt),
        LiveKey::MaxPurgeLag => change_key(app, PurgeVariable::MaxPurgeLag, FactsThen::Prompt),
        LiveKey::MaxPurgeLagDelay => {
            change_key(app, PurgeVariable::MaxPurgeLagDelay, FactsThen::Prompt)
        }
        LiveKey::PurgeBatchSize => {
            change_key(app, PurgeVariable::PurgeBatchSize, FactsThen::Prompt)
        }
        LiveKey::EnableMonitors => monitors_key(app),
        LiveKey::KillBlocker => kill_key(app),
        LiveKey::RollbackSegments => rollback_segments_key(app),
    }
}

/// A frozen display: reading it, and letting go.
fn frozen_action(app: &mut App, action: FrozenKey) -> Vec<Command> {
    match action {
        FrozenKey::Screen(s) => screen_action(app, s),
        FrozenKey::Panel(p) => panel_action(app, p),
        FrozenKey::Unfreeze => {
            app.toggle_freeze();
            Vec::new()
        }
    }
}

/// A replay: the panels', and the transport. Moving is a load (a command).
fn replay_action(app: &mut App, action: ReplayKey) -> Vec<Command> {
    use ReplayKey as R;
    let Showing::Replay(r) = &mut app.showing else {
        return Vec::new();
    };
    match action {
        R::Screen(s) => return screen_action(app, s),
        R::Panel(p) => return panel_action(app, p),
        R::PlayPause => {
            r.playing = !r.playing;
            if r.playing && r.at_end() {
                let first = r.first;
                return app.seek(first);
            }
        }
        R::StepForward => {
            r.playing = false;
            return app.step_forward();
        }
        R::StepBack => {
            let pos = r.pos.saturating_sub(1);
            r.playing = false;
            return app.seek(pos);
        }
        R::First | R::Last => {
            let to = if action == R::First { r.first } else { r.last };
            r.playing = false;
            return app.seek(to);
        }
        R::Faster => r.faster(),
        R::Slower => r.slower(),
        R::NextMoment | R::PreviousMoment => {
            if let Some(g) = r.moment(action == R::NextMoment) {
                let pos = g.first.sample;
                r.playing = false;
                return app.seek(pos);
            }
        }
        R::GoTo => {
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
    }
    Vec::new()
}

/// `compare`: moving through the differences, a detail open or closed.
fn compare_action(app: &mut App, action: CompareKey) -> Vec<Command> {
    use CompareKey as C;
    let Showing::Compare(c) = &mut app.showing else {
        return Vec::new();
    };
    let s = c.selected;
    match action {
        C::Screen(ScreenKey::Back) => c.detail = None,
        C::Screen(k) => return screen_action(app, k),
        C::Up => c.select(s.saturating_sub(1)),
        C::Down => c.select(s + 1),
        C::PageUp => c.select(s.saturating_sub(super::compare::PAGE)),
        C::PageDown => c.select(s + super::compare::PAGE),
        C::First => c.select(0),
        C::Last => c.select(usize::MAX),
        C::Detail => c.toggle_detail(),
    }
    Vec::new()
}

/// Typed text is done: act on it, or keep the prompt open with the error.
fn submit_input(app: &mut App, mut input: Input) -> Vec<Command> {
    match &input.purpose {
        InputPurpose::Variable(variable, facts) => {
            let (variable, facts) = (*variable, facts.clone());
            let planned = control::parse_input(&input.text).and_then(|v| {
                let ctx = app.plan_context().ok_or("not connected")?;
                control::plan_set(variable, v, &facts, &ctx).map_err(|r| r.to_string())
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
            let parsed = match &mut app.showing {
                Showing::Replay(r) => super::transport::parse_goto(&input.text, r).inspect(|_| {
                    r.playing = false;
                }),
                Showing::Live(_) | Showing::Frozen { .. } | Showing::Compare(_) => {
                    Err("not replaying".into())
                }
            };
            match parsed {
                Ok(t) => app.seek_time(t),
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
fn move_focus(app: &mut App, dx: i32, dy: i32) {
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

/// A key while a popup is open: the popup's table says what it means.
fn overlay_key(app: &mut App, key: KeyEvent) -> Vec<Command> {
    let Some(overlay) = app.overlay.take() else {
        return Vec::new();
    };
    match overlay {
        // Any key closes; `q` on help closes rather than quits, as users expect.
        message @ (Overlay::Help | Overlay::Verdicts | Overlay::Notice { .. }) => {
            match keymap::MESSAGE.action(&key) {
                Some(DismissKey::Close) => {}
                None => app.overlay = Some(message),
            }
            Vec::new()
        }
        Overlay::Input(mut input) => match keymap::PROMPT.action(&key) {
            Some(TextKey::Cancel) => Vec::new(),
            Some(TextKey::Submit) => submit_input(app, input),
            Some(TextKey::Erase) => {
                input.text.pop();
                input.error = None;
                app.overlay = Some(Overlay::Input(input));
                Vec::new()
            }
            Some(TextKey::Type) => {
                if let KeyCode::Char(c) = key.code
                    && input.text.chars().count() < input_limit(&input)
                {
                    input.text.push(c);
                    input.error = None;
                }
                app.overlay = Some(Overlay::Input(input));
                Vec::new()
            }
            None => {
                app.overlay = Some(Overlay::Input(input));
                Vec::new()
            }
        },
        Overlay::Confirm(mut c) => match keymap::CONFIRM.action(&key) {
            // The plan's alternative (MySQL 8: SET PERSIST) replaces it, asking again.
            Some(ConfirmKey::Alternative) => {
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
            Some(ConfirmKey::Yes) => app.confirmed(c.action),
            Some(ConfirmKey::Answer) if c.yes_selected => app.confirmed(c.action),
            Some(ConfirmKey::No | ConfirmKey::Answer) => Vec::new(),
            Some(ConfirmKey::SwitchAnswer) => {
                c.yes_selected = !c.yes_selected;
                app.overlay = Some(Overlay::Confirm(c));
                Vec::new()
            }
            None => {
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

    fn fed(feed: Feed) -> App {
        let mut a = app();
        a.set_feed(feed);
        a
    }

    /// The notice a key left, if any.
    fn notice(a: &App) -> Option<String> {
        match &a.overlay {
            Some(Overlay::Notice { lines, .. }) => Some(lines.join(" ")),
            _ => None,
        }
    }

    #[test]
    fn read_only_keeps_the_pollers_keys_and_explains_the_changes() {
        let mut a = fed(Feed::Server { read_only: true });
        assert_eq!(
            handle(&mut a, key(KeyCode::Char('+'))),
            vec![Command::SetPollInterval(Duration::from_secs(2))]
        );
        handle(&mut a, key(KeyCode::Char('u')));
        assert!(matches!(a.overlay, Some(Overlay::Confirm(_))));
        handle(&mut a, key(KeyCode::Esc));
        assert!(handle(&mut a, key(KeyCode::Char('t'))).is_empty());
        let said = notice(&a).unwrap_or_default();
        assert!(
            said.contains("--read-only") && said.contains("`t T`"),
            "{said}"
        );
        assert!(a.busy.is_none(), "no facts were asked for");
    }

    #[test]
    fn a_watched_server_steers_nothing_and_says_where_to_go() {
        for (feed, words) in [(Feed::Fleet, "fleet"), (Feed::Prometheus, "Prometheus")] {
            let mut a = fed(feed);
            for c in ['+', 'u', 't', 'K'] {
                assert!(handle(&mut a, key(KeyCode::Char(c))).is_empty(), "{c}");
                let said = notice(&a).unwrap_or_default();
                assert!(
                    said.contains(words) && said.contains("-h HOST"),
                    "{c}: {said}"
                );
                handle(&mut a, key(KeyCode::Esc));
            }
            assert_eq!(a.interval, Duration::from_secs(1));
            // Reading the panels works as anywhere.
            handle(&mut a, key(KeyCode::Char('2')));
            assert_eq!(a.zoom, Some(Panel::Flush));
        }
    }

    #[test]
    fn frozen_reads_and_lets_go_but_acts_on_nothing_live() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('p')));
        assert!(a.is_frozen());
        for c in ['+', 'u', 't'] {
            assert!(handle(&mut a, key(KeyCode::Char(c))).is_empty(), "{c}");
            let said = notice(&a).unwrap_or_default();
            assert!(said.contains("press p to unfreeze"), "{c}: {said}");
            handle(&mut a, key(KeyCode::Esc));
        }
        assert_eq!(a.interval, Duration::from_secs(1));
        handle(&mut a, key(KeyCode::Char('w')));
        assert_ne!(a.window, super::super::ChartWindow::FiveMinutes);
        handle(&mut a, key(KeyCode::Char('p')));
        assert!(!a.is_frozen());
        // Frozen on a read-only server: the change keys say why read-only refuses them.
        let mut a = fed(Feed::Server { read_only: true });
        handle(&mut a, key(KeyCode::Char('p')));
        handle(&mut a, key(KeyCode::Char('t')));
        assert!(notice(&a).is_some_and(|s| s.contains("--read-only")));
        // The feed outlives the freeze.
        handle(&mut a, key(KeyCode::Esc));
        handle(&mut a, key(KeyCode::Char('p')));
        assert!(matches!(
            a.showing,
            Showing::Live(Feed::Server { read_only: true })
        ));
    }

    #[test]
    fn a_key_of_no_mode_does_nothing_and_draws_nothing() {
        let mut a = app();
        a.needs_draw = false;
        assert!(handle(&mut a, key(KeyCode::Char('Z'))).is_empty());
        assert!(!a.needs_draw && a.overlay.is_none());
    }

    #[test]
    fn ctrl_c_and_ctrl_z_act_over_a_popup() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('u')));
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        assert_eq!(handle(&mut a, ctrl('z')), vec![Command::Suspend]);
        assert!(matches!(a.overlay, Some(Overlay::Confirm(_))), "still open");
        assert_eq!(handle(&mut a, ctrl('c')), vec![Command::Quit]);
    }

    /// `?` lists the table of the mode shown, and that table only.
    #[test]
    fn help_lists_the_keys_of_the_mode_shown() {
        let cases = [
            (
                fed(Feed::Server { read_only: false }),
                keymap::LIVE.listing(),
            ),
            (
                fed(Feed::Server { read_only: true }),
                keymap::READ_ONLY.listing(),
            ),
            (fed(Feed::Fleet), keymap::WATCHED.listing()),
            (fed(Feed::Prometheus), keymap::WATCHED.listing()),
        ];
        for (mut a, listing) in cases {
            assert_eq!(a.keys_here(), listing);
            handle(&mut a, key(KeyCode::Char('p')));
            assert_eq!(a.keys_here(), keymap::FROZEN.listing());
        }
    }
}
