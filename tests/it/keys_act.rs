//! Every key a mode's table lists acts in that mode: through the real `update` it yields a
//! command or changes the state, in at least one of the mode's ordinary states (Esc acts on a
//! zoomed panel, ← where a panel lies to the left). So `?`, `--help` and the docs never list a
//! key that does nothing where they list it.

use std::fmt::Debug;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use innodebt::app::{App, FactsThen, Feed, Msg, Overlay, Panel};
use innodebt::control::PurgeVariable;
use innodebt::fleet::state::{self, Fleet, Server};
use innodebt::keymap::{self, Key, Table};

use crate::app_update::{connected_to, lag_facts, replay_app};
use crate::common::builders;

/// A key as the terminal sends it (text: a letter; any key: a letter too).
fn event(k: &Key) -> KeyEvent {
    match *k {
        Key::Code { code, ctrl } => KeyEvent::new(
            code,
            if ctrl {
                KeyModifiers::CONTROL
            } else {
                KeyModifiers::NONE
            },
        ),
        Key::Text | Key::Any => KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE),
    }
}

/// A state of a mode, built afresh for each key.
type State<'a, S> = (&'a str, Box<dyn Fn() -> S + 'a>);

/// Every key of `table`, pressed in each of `states`: it acts in one of them at least.
/// `press` runs the key and says whether it yielded a command; `quiet` clears what any key
/// sets (a redraw asked for), so that only a real change counts.
fn every_key_acts<A: Copy + PartialEq, S: Debug>(
    table: &Table<A>,
    states: &[State<S>],
    press: fn(&mut S, KeyEvent) -> bool,
    quiet: fn(&mut S),
) {
    for row in table.rows {
        for (k, _) in row.keys {
            let ev = event(k);
            let acted = states.iter().any(|(_, make)| {
                let mut s = make();
                quiet(&mut s);
                let before = format!("{s:?}");
                let commanded = press(&mut s, ev);
                quiet(&mut s);
                commanded || format!("{s:?}") != before
            });
            let names: Vec<&str> = states.iter().map(|(n, _)| *n).collect();
            assert!(
                acted,
                "{}: {k:?} of `{}` ({}) does nothing in any of {names:?}",
                table.name,
                row.label(),
                row.help
            );
        }
    }
}

fn press_app(app: &mut App, ev: KeyEvent) -> bool {
    !app.update(Msg::Key(ev)).is_empty()
}

fn quiet_app(app: &mut App) {
    app.needs_draw = false;
}

/// Every key of the dashboard's table in `table`, in the states of `base` that keys move
/// between — as it is, zoomed on a panel, focus on the last panel — and `more`. Each state
/// shows `table`.
fn every_dashboard_key_acts<A: Copy + PartialEq>(
    table: &Table<A>,
    base: fn() -> App,
    more: Vec<State<App>>,
) {
    let mut states: Vec<State<App>> = vec![
        ("as opened", Box::new(base)),
        (
            "zoomed on history",
            Box::new(move || {
                let mut a = base();
                a.update(Msg::Key(KeyEvent::new(
                    KeyCode::Char('3'),
                    KeyModifiers::NONE,
                )));
                a
            }),
        ),
        (
            "focus on the last panel",
            Box::new(move || {
                let mut a = base();
                a.focus = Panel::Undo;
                a
            }),
        ),
    ];
    states.extend(more);
    for (name, make) in &states {
        assert_eq!(
            make().keys_here(),
            table.listing(),
            "{name}: {}",
            table.name
        );
    }
    every_key_acts(table, &states, press_app, quiet_app);
}

fn mariadb() -> innodebt_server::sample::ServerInfo {
    builders::mariadb(&[("innodb_log_file_size", "67108864")])
}

fn server() -> App {
    connected_to(Feed::Server { read_only: false }, mariadb())
}

fn read_only() -> App {
    connected_to(Feed::Server { read_only: true }, mariadb())
}

fn frozen() -> App {
    let mut a = server();
    a.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('p'),
        KeyModifiers::NONE,
    )));
    a
}

#[test]
fn every_key_of_the_live_modes_acts() {
    every_dashboard_key_acts(&keymap::LIVE, server, Vec::new());
    every_dashboard_key_acts(&keymap::READ_ONLY, read_only, Vec::new());
    every_dashboard_key_acts(
        &keymap::WATCHED,
        || connected_to(Feed::Fleet, mariadb()),
        Vec::new(),
    );
    every_dashboard_key_acts(
        &keymap::WATCHED,
        || connected_to(Feed::Prometheus, mariadb()),
        Vec::new(),
    );
    every_dashboard_key_acts(&keymap::FROZEN, frozen, Vec::new());
}

#[test]
fn every_key_of_a_replay_acts() {
    // At the end too: back a moment (`N`) needs one behind.
    let at_end = || {
        let mut a = replay_app();
        let cmds = a.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE)));
        innodebt::dashboard::settle(&mut a, cmds);
        a
    };
    every_dashboard_key_acts(
        &keymap::REPLAY,
        replay_app,
        vec![("at the end", Box::new(at_end))],
    );
}

#[test]
fn every_key_of_compare_acts() {
    let pressed = |codes: &'static [KeyCode]| {
        move || {
            let mut a = crate::render::comparing();
            for c in codes {
                a.update(Msg::Key(KeyEvent::new(*c, KeyModifiers::NONE)));
            }
            a
        }
    };
    let states: Vec<State<App>> = vec![
        ("first difference", Box::new(pressed(&[]))),
        ("last difference", Box::new(pressed(&[KeyCode::End]))),
        ("a detail open", Box::new(pressed(&[KeyCode::Enter]))),
    ];
    every_key_acts(&keymap::COMPARE, &states, press_app, quiet_app);
}

/// `l` on a MySQL 8 server, its facts in: the prompt for a value (typed "0" so far).
fn lag_prompt() -> App {
    let info = builders::as_version(mariadb(), "8.0.36", "MySQL Community Server - GPL");
    let mut a = connected_to(Feed::Server { read_only: false }, info);
    a.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('l'),
        KeyModifiers::NONE,
    )));
    a.update(Msg::Facts {
        variable: PurgeVariable::MaxPurgeLag,
        then: FactsThen::Prompt,
        result: Ok(lag_facts()),
    });
    assert!(
        matches!(a.overlay, Some(Overlay::Input(_))),
        "{:?}",
        a.overlay
    );
    a
}

#[test]
fn every_key_of_a_popup_acts() {
    let states: Vec<State<App>> = vec![("a value typed", Box::new(lag_prompt))];
    every_key_acts(&keymap::PROMPT, &states, press_app, quiet_app);
    // Its confirmation offers MySQL 8's SET PERSIST instead, as `a` asks.
    let confirm = || {
        let mut a = lag_prompt();
        a.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('5'),
            KeyModifiers::NONE,
        )));
        a.update(Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
        assert!(
            matches!(a.overlay, Some(Overlay::Confirm(_))),
            "{:?}",
            a.overlay
        );
        a
    };
    let states: Vec<State<App>> = vec![("a change to confirm", Box::new(confirm))];
    every_key_acts(&keymap::CONFIRM, &states, press_app, quiet_app);
    let help = || {
        let mut a = server();
        a.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('?'),
            KeyModifiers::NONE,
        )));
        a
    };
    let states: Vec<State<App>> = vec![("help open", Box::new(help))];
    every_key_acts(&keymap::MESSAGE, &states, press_app, quiet_app);
}

fn fleet() -> Fleet {
    let mut a = Server::new("db-a", "db-a:3306", true);
    a.group = Some("eu".into());
    let b = Server::new("db-b", "db-b:3306", true);
    let c = Server::new("db-c", "db-c:3306", true);
    Fleet::new(vec![a, b, c], chrono::Utc::now())
}

fn press_fleet(f: &mut Fleet, ev: KeyEvent) -> bool {
    !f.update(state::Msg::Key(ev)).is_empty()
}

fn quiet_fleet(f: &mut Fleet) {
    f.needs_draw = false;
}

#[test]
fn every_key_of_the_fleet_acts() {
    let on_second = || {
        let mut f = fleet();
        f.selected = 1;
        f
    };
    let filtered = || {
        let mut f = fleet();
        f.filter = "db".into();
        f
    };
    let states: Vec<State<Fleet>> = vec![
        ("as opened", Box::new(fleet)),
        ("second server selected", Box::new(on_second)),
        ("filtered", Box::new(filtered)),
    ];
    every_key_acts(&keymap::FLEET, &states, press_fleet, quiet_fleet);
    let typing = || {
        let mut f = filtered();
        f.editing_filter = true;
        f
    };
    let states: Vec<State<Fleet>> = vec![("typing the filter", Box::new(typing))];
    every_key_acts(&keymap::FLEET_FILTER, &states, press_fleet, quiet_fleet);
}
