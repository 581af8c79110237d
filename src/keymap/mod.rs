//! Every key, as data: one table per mode, and each mode's actions a type of its own, so a
//! table can only hold keys its mode acts on. The dashboard on a server ([`LIVE`]), with
//! `--read-only` ([`READ_ONLY`]), fed by someone else's poll ([`WATCHED`]: a fleet's server,
//! `innodebt prometheus`), frozen ([`FROZEN`]), a replay ([`REPLAY`]), `compare`
//! ([`COMPARE`]), each popup ([`CONFIRM`], [`PROMPT`], [`MESSAGE`]) and the fleet ([`FLEET`],
//! [`FLEET_FILTER`]). Dispatch (`app::keys`, `fleet::state`), the `?` overlay, the footers,
//! `--help` and the key table of docs/dashboard.md all read them, so they cannot disagree.
//!
//! Adding a key: a row in its mode's table; for a new action, a variant of that mode's action
//! type, whose arm in `app::keys` the compiler then asks for.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key as pressed: a key code, with or without Ctrl; any text typed; or any key at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Code {
        code: KeyCode,
        ctrl: bool,
    },
    /// Any printable character typed without Ctrl (a prompt's text, the fleet's filter).
    Text,
    /// Any key (a message closes on any key).
    Any,
}

impl Key {
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        // Shift is part of the character (`T`, `?`, `+`); Ctrl is not.
        let ctrl_held = ev.modifiers.contains(KeyModifiers::CONTROL);
        match *self {
            Key::Code { code, ctrl } => code == ev.code && ctrl == ctrl_held,
            Key::Text => matches!(ev.code, KeyCode::Char(c) if !c.is_control()) && !ctrl_held,
            Key::Any => true,
        }
    }
}

const fn ch(c: char) -> Key {
    Key::Code {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn ctrl(c: char) -> Key {
    Key::Code {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

const fn code(code: KeyCode) -> Key {
    Key::Code { code, ctrl: false }
}

/// A short `key what` in the mode's bar (the footer, the replay's timeline, a popup's last
/// line); a bar shows its hints by `rank`, lowest first, as they fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    pub rank: u8,
    pub key: &'static str,
    pub what: &'static str,
}

const fn hint(rank: u8, key: &'static str, what: &'static str) -> Option<Hint> {
    Some(Hint { rank, key, what })
}

/// One row: the keys and what each does, and the help text.
#[derive(Debug, Clone, Copy)]
pub struct Binding<A: 'static> {
    pub keys: &'static [(Key, A)],
    /// The keys as written in help, one name each (`t`, `T`; `Ctrl-C`; `arrows`).
    pub names: &'static [&'static str],
    pub help: &'static str,
    pub hint: Option<Hint>,
}

impl<A: Copy> Binding<A> {
    /// The action of `ev`, if it is one of this row's keys.
    pub fn action(&self, ev: &KeyEvent) -> Option<A> {
        self.keys
            .iter()
            .find(|(k, _)| k.matches(ev))
            .map(|(_, a)| *a)
    }

    /// The names as the overlay and `--help` write them.
    pub fn label(&self) -> String {
        self.names.join("  ")
    }

    fn row(&self) -> Row {
        Row {
            names: self.names,
            help: self.help,
        }
    }
}

/// The keys of one mode, in the order help lists them.
#[derive(Debug)]
pub struct Table<A: 'static> {
    /// As the key table's "works in" says it: `live`, `replay`, `fleet filter`.
    pub name: &'static str,
    /// What `--help` heads the table with.
    pub title: &'static str,
    pub rows: &'static [Binding<A>],
}

impl<A: Copy + PartialEq> Table<A> {
    /// What `ev` does here.
    pub fn action(&self, ev: &KeyEvent) -> Option<A> {
        self.rows.iter().find_map(|b| b.action(ev))
    }

    /// The row `ev` is a key of, if it is one here.
    pub fn row_of(&self, ev: &KeyEvent) -> Option<&'static Binding<A>> {
        self.rows.iter().find(|b| b.action(ev).is_some())
    }

    /// The name of the key for the first action `is` picks (for a panel's "press u").
    pub fn key_where(&self, is: impl Fn(A) -> bool) -> Option<&'static str> {
        self.rows
            .iter()
            .find(|b| b.keys.iter().any(|(_, a)| is(*a)))
            .and_then(|b| b.names.first().copied())
    }

    /// The name of the key for `action`.
    pub fn key_for(&self, action: A) -> Option<&'static str> {
        self.key_where(|a| a == action)
    }

    /// The bar's hints, best first.
    pub fn hints(&self) -> Vec<(&'static Binding<A>, Hint)> {
        let mut out: Vec<_> = self
            .rows
            .iter()
            .filter_map(|b| b.hint.map(|h| (b, h)))
            .collect();
        out.sort_by_key(|(_, h)| h.rank);
        out
    }

    /// The bar's hints on one line: `Enter go · Esc cancel`.
    pub fn hint_line(&self) -> String {
        let hints: Vec<String> = self
            .hints()
            .into_iter()
            .map(|(_, h)| format!("{} {}", h.key, h.what))
            .collect();
        hints.join(" · ")
    }

    /// The table's words, whatever its actions' type (help, `--help`, the docs).
    pub fn listing(&self) -> Listing {
        Listing {
            name: self.name,
            title: self.title,
            rows: self.rows.iter().map(Binding::row).collect(),
        }
    }
}

/// A table as people read it: its name, title and rows' words.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub name: &'static str,
    pub title: &'static str,
    pub rows: Vec<Row>,
}

/// A row's words: its keys' names and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub names: &'static [&'static str],
    pub help: &'static str,
}

impl Row {
    pub fn label(&self) -> String {
        self.names.join("  ")
    }
}

/// The keys every screen has (the dashboard in each of its modes, and `compare`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenKey {
    Help,
    Quit,
    /// Ctrl-C: quits even with a popup open.
    QuitNow,
    /// Ctrl-Z: works with a popup open too.
    Suspend,
    Back,
}

impl ScreenKey {
    /// Acts even while a popup is open (every other key goes to the popup first).
    pub fn over_popups(self) -> bool {
        matches!(self, ScreenKey::QuitNow | ScreenKey::Suspend)
    }
}

/// Reading the six panels: live, frozen and replayed alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PanelKey {
    /// Every verdict that holds now, in full.
    Verdicts,
    /// `1`–`6`: that panel full-screen.
    Zoom(u8),
    ZoomFocused,
    FocusLeft,
    FocusRight,
    FocusUp,
    FocusDown,
    FocusNext,
    ChartWindow,
    AddNote,
}

/// What a screen's own action type shares with every screen's (and the panels').
pub trait ScreenAction: Copy + PartialEq + 'static {
    fn screen(self) -> Option<ScreenKey>;
    fn panel(self) -> Option<PanelKey> {
        None
    }
}

/// `?`: every screen's; `$w` wraps [`ScreenKey`] in the table's action type.
macro_rules! help_row {
    ($w:path, $hint:expr) => {
        Binding {
            keys: &[(ch('?'), $w(ScreenKey::Help))],
            names: &["?"],
            help: "every key",
            hint: $hint,
        }
    };
}

/// `q` and Ctrl-C.
macro_rules! quit_row {
    ($w:path, $help:expr, $hint:expr) => {
        Binding {
            keys: &[
                (ch('q'), $w(ScreenKey::Quit)),
                (ctrl('c'), $w(ScreenKey::QuitNow)),
            ],
            names: &["q", "Ctrl-C"],
            help: $help,
            hint: $hint,
        }
    };
}

/// Esc.
macro_rules! back_row {
    ($w:path, $help:expr, $hint:expr) => {
        Binding {
            keys: &[(code(KeyCode::Esc), $w(ScreenKey::Back))],
            names: &["Esc"],
            help: $help,
            hint: $hint,
        }
    };
}

/// Ctrl-Z.
macro_rules! suspend_row {
    ($w:path) => {
        Binding {
            keys: &[(ctrl('z'), $w(ScreenKey::Suspend))],
            names: &["Ctrl-Z"],
            help: "suspend (fg to resume)",
            hint: None,
        }
    };
}

mod compare;
mod dashboard;
mod docs;
mod fleet;
mod popup;

pub use compare::{COMPARE, CompareKey};
pub use dashboard::{FROZEN, FrozenKey, LIVE, LiveKey, READ_ONLY, REPLAY, ReplayKey, WATCHED};
pub use docs::{help_text, markdown_table};
pub use fleet::{FLEET, FLEET_FILTER, FleetKey};
pub use popup::{CONFIRM, ConfirmKey, DismissKey, MESSAGE, PROMPT, TextKey};

/// Every table, in the order `--help` and docs/dashboard.md list them.
pub fn tables() -> Vec<Listing> {
    vec![
        LIVE.listing(),
        READ_ONLY.listing(),
        WATCHED.listing(),
        FROZEN.listing(),
        REPLAY.listing(),
        COMPARE.listing(),
        CONFIRM.listing(),
        PROMPT.listing(),
        MESSAGE.listing(),
        FLEET.listing(),
        FLEET_FILTER.listing(),
    ]
}

#[cfg(test)]
mod tests;
