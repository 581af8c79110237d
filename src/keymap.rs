//! Every dashboard key, as data: one table of rows (keys → actions, where they work, what they
//! do). Dispatch (`app::keys`), the `?` overlay, the footer, the replay timeline's hints,
//! `--help` and the key table of docs/dashboard.md all read it, so they cannot disagree.
//!
//! Adding a key: one [`Binding`] row here (and, for a new action, its [`KeyAction`] variant and
//! one arm in `app::keys::act`). The keys inside a popup (a confirmation, a prompt) are rows of
//! [`popup::POPUP_KEYS`], the fleet screen's of [`fleet::FLEET_KEYS`]: the same table, read
//! through [`rows`].

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

mod compare;
mod docs;
mod fleet;
mod popup;
pub use docs::{help_text, markdown_table};

/// Where a key works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The dashboard on a live server.
    Live,
    /// A capture replayed: `innodebt replay` and `--demo`. Nothing here changes a server.
    Replay,
    /// `innodebt compare` on a terminal: two captures' timelines and the ranked differences.
    Compare,
    /// A confirmation popup (a change, the undo scan, a kill): it takes every key first.
    Confirm,
    /// A popup asking for a value, a time or a note.
    Prompt,
    /// `innodebt fleet`: the list of servers.
    Fleet,
    /// The fleet's filter line while it is typed.
    FleetFilter,
}

impl Mode {
    pub const ALL: [Mode; 7] = [
        Mode::Live,
        Mode::Replay,
        Mode::Compare,
        Mode::Confirm,
        Mode::Prompt,
        Mode::Fleet,
        Mode::FleetFilter,
    ];

    /// The dashboard's own modes (a popup, the fleet or compare is another screen).
    pub fn is_dashboard(self) -> bool {
        matches!(self, Mode::Live | Mode::Replay)
    }

    /// As the key table (docs/dashboard.md) and `--help` say where a key works.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Live => "live",
            Mode::Replay => "replay",
            Mode::Compare => "compare",
            Mode::Confirm => "confirmation",
            Mode::Prompt => "prompt",
            Mode::Fleet => "fleet",
            Mode::FleetFilter => "fleet filter",
        }
    }
}

/// What a key does; `app::keys` turns it into a state change or a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyAction {
    Help,
    Quit,
    /// Ctrl-C: quits even with a popup open.
    QuitNow,
    /// Ctrl-Z: works with a popup open too.
    Suspend,
    /// `1`–`6`: the panel of the digit pressed.
    Zoom,
    ZoomFocused,
    Back,
    FocusLeft,
    FocusRight,
    FocusUp,
    FocusDown,
    FocusNext,
    Freeze,
    IntervalUp,
    IntervalDown,
    ChartWindow,
    UndoScan,
    PurgeThreadsUp,
    PurgeThreadsDown,
    PurgeThreadsSet,
    MaxPurgeLag,
    MaxPurgeLagDelay,
    PurgeBatchSize,
    EnableMonitors,
    KillBlocker,
    RollbackSegments,
    PlayPause,
    StepBack,
    StepForward,
    Slower,
    Faster,
    GoTo,
    First,
    Last,
    NextMoment,
    PreviousMoment,
    AddNote,
    /// Every verdict that holds now, in full.
    Verdicts,
    /// Compare: the previous / next difference, a page of them, the first / last.
    DiffUp,
    DiffDown,
    DiffPageUp,
    DiffPageDown,
    DiffFirst,
    DiffLast,
    /// Compare: open (or close) the selected difference's detail.
    DiffDetail,
    // In a confirmation.
    Yes,
    No,
    /// Enter: the highlighted answer (No until moved).
    Answer,
    SwitchAnswer,
    /// The plan's alternative (MySQL 8: `SET PERSIST`), asked again.
    Alternative,
    // In a prompt and the fleet's filter line.
    Submit,
    Cancel,
    Erase,
    /// A printable character ([`Key::Text`]).
    Type,
    // The fleet.
    SelectUp,
    SelectDown,
    SelectFirst,
    SelectLast,
    OpenServer,
    Filter,
    ClearFilter,
    GroupServers,
}

impl KeyAction {
    /// Acts even while a popup is open (every other key goes to the popup first).
    pub fn over_popups(self) -> bool {
        matches!(self, KeyAction::QuitNow | KeyAction::Suspend)
    }
}

/// One key as pressed: a key code, with or without Ctrl; or any text typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Code {
        code: KeyCode,
        ctrl: bool,
    },
    /// Any printable character typed without Ctrl (a prompt's text, the fleet's filter).
    Text,
}

impl Key {
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        // Shift is part of the character (`T`, `?`, `+`); Ctrl is not.
        let ctrl_held = ev.modifiers.contains(KeyModifiers::CONTROL);
        match *self {
            Key::Code { code, ctrl } => code == ev.code && ctrl == ctrl_held,
            Key::Text => matches!(ev.code, KeyCode::Char(c) if !c.is_control()) && !ctrl_held,
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

/// Which bar shows a row's hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bar {
    /// The live dashboard's footer.
    Footer,
    /// The replay timeline (it replaces the footer while replaying).
    Timeline,
    /// The compare screen's footer (with the footer's hints of the keys that work there).
    Compare,
    /// The last line of a confirmation popup.
    Confirm,
    /// The last line of a prompt.
    Prompt,
    /// The fleet's footer.
    Fleet,
    /// The fleet's filter line while it is typed.
    FleetFilter,
}

/// A short `key what` in a bar; the bars show hints by `rank` (lowest first) as they fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    pub bar: Bar,
    pub rank: u8,
    pub key: &'static str,
    pub what: &'static str,
}

const fn footer(rank: u8, key: &'static str, what: &'static str) -> Option<Hint> {
    hint(Bar::Footer, rank, key, what)
}

const fn timeline(rank: u8, key: &'static str, what: &'static str) -> Option<Hint> {
    hint(Bar::Timeline, rank, key, what)
}

const fn hint(bar: Bar, rank: u8, key: &'static str, what: &'static str) -> Option<Hint> {
    Some(Hint {
        bar,
        rank,
        key,
        what,
    })
}

/// One row: the keys and what each does, where they work, and the help text.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub keys: &'static [(Key, KeyAction)],
    /// The keys as written in help, one name each (`t`, `T`; `Ctrl-C`; `arrows`).
    pub names: &'static [&'static str],
    pub modes: &'static [Mode],
    pub help: &'static str,
    pub hint: Option<Hint>,
}

impl Binding {
    pub fn works_in(&self, mode: Mode) -> bool {
        self.modes.contains(&mode)
    }

    /// The action of `ev`, if it is one of this row's keys.
    pub fn action(&self, ev: &KeyEvent) -> Option<KeyAction> {
        self.keys
            .iter()
            .find(|(k, _)| k.matches(ev))
            .map(|(_, a)| *a)
    }

    /// The names as the overlay and `--help` write them.
    pub fn label(&self) -> String {
        self.names.join("  ")
    }
}

const BOTH: &[Mode] = &[Mode::Live, Mode::Replay];
/// The three screens (the popups and the fleet have their own rows).
const SCREENS: &[Mode] = &[Mode::Live, Mode::Replay, Mode::Compare];
const LIVE: &[Mode] = &[Mode::Live];
const REPLAY: &[Mode] = &[Mode::Replay];

use KeyAction as A;

/// Every key of the dashboard, in the order a DBA looks for them (help lists them in this
/// order); the popups' and the fleet's follow in [`rows`].
pub const KEYMAP: &[Binding] = &[
    Binding {
        keys: &[(ch('?'), A::Help)],
        names: &["?"],
        modes: SCREENS,
        help: "every key",
        hint: footer(0, "?", "help"),
    },
    Binding {
        keys: &[(ch('q'), A::Quit), (ctrl('c'), A::QuitNow)],
        names: &["q", "Ctrl-C"],
        modes: SCREENS,
        help: "quit",
        hint: footer(1, "q", "quit"),
    },
    Binding {
        keys: &[(ch('v'), A::Verdicts)],
        names: &["v"],
        modes: BOTH,
        help: "every verdict in full: kind, severity, since, message",
        hint: footer(10, "v", "verdicts"),
    },
    Binding {
        keys: &[
            (ch('1'), A::Zoom),
            (ch('2'), A::Zoom),
            (ch('3'), A::Zoom),
            (ch('4'), A::Zoom),
            (ch('5'), A::Zoom),
            (ch('6'), A::Zoom),
        ],
        names: &["1-6"],
        modes: BOTH,
        help: "zoom a panel full-screen (Esc back)",
        hint: footer(3, "1-6", "zoom"),
    },
    Binding {
        keys: &[
            (code(KeyCode::Left), A::FocusLeft),
            (code(KeyCode::Right), A::FocusRight),
            (code(KeyCode::Up), A::FocusUp),
            (code(KeyCode::Down), A::FocusDown),
            (ch('h'), A::FocusLeft),
            (ch('j'), A::FocusDown),
            (ch('k'), A::FocusUp),
            (code(KeyCode::Tab), A::FocusNext),
        ],
        names: &["arrows", "h j k", "Tab"],
        modes: LIVE,
        help: "move focus between panels (l is the purge-lag key)",
        hint: footer(8, "arrows", "focus"),
    },
    Binding {
        keys: &[
            (code(KeyCode::Up), A::FocusUp),
            (code(KeyCode::Down), A::FocusDown),
            (ch('h'), A::FocusLeft),
            (ch('j'), A::FocusDown),
            (ch('k'), A::FocusUp),
            (code(KeyCode::Tab), A::FocusNext),
        ],
        names: &["↑ ↓", "h j k", "Tab"],
        modes: REPLAY,
        help: "move focus between panels (← → step the replay)",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Enter), A::ZoomFocused)],
        names: &["Enter"],
        modes: BOTH,
        help: "zoom the focused panel",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Esc), A::Back)],
        names: &["Esc"],
        modes: SCREENS,
        help: "back / close",
        hint: footer(2, "Esc", "back"),
    },
    Binding {
        keys: &[(ch('p'), A::Freeze)],
        names: &["p"],
        modes: LIVE,
        help: "freeze the display (polling continues)",
        hint: footer(4, "p", "freeze"),
    },
    Binding {
        keys: &[
            (ch('+'), A::IntervalUp),
            (ch('='), A::IntervalUp),
            (ch('-'), A::IntervalDown),
        ],
        names: &["+", "-"],
        modes: LIVE,
        help: "refresh interval up / down",
        hint: footer(5, "+/-", "interval"),
    },
    Binding {
        keys: &[(ch('w'), A::ChartWindow)],
        names: &["w"],
        modes: BOTH,
        help: "chart window 1m / 5m / 15m / 1h",
        hint: footer(6, "w", "window"),
    },
    Binding {
        keys: &[(ch('u'), A::UndoScan)],
        names: &["u"],
        modes: LIVE,
        help: "scan the whole buffer pool for undo pages (asks first)",
        hint: footer(7, "u", "undo scan"),
    },
    Binding {
        keys: &[(ch('t'), A::PurgeThreadsUp), (ch('T'), A::PurgeThreadsDown)],
        names: &["t", "T"],
        modes: LIVE,
        help: "innodb_purge_threads +1 / −1 (asks first)",
        hint: None,
    },
    Binding {
        keys: &[(ch('P'), A::PurgeThreadsSet)],
        names: &["P"],
        modes: LIVE,
        help: "innodb_purge_threads: type a value",
        hint: None,
    },
    Binding {
        keys: &[(ch('l'), A::MaxPurgeLag)],
        names: &["l"],
        modes: LIVE,
        help: "innodb_max_purge_lag: type a value",
        hint: None,
    },
    Binding {
        keys: &[(ch('d'), A::MaxPurgeLagDelay)],
        names: &["d"],
        modes: LIVE,
        help: "innodb_max_purge_lag_delay: type a value",
        hint: None,
    },
    Binding {
        keys: &[(ch('b'), A::PurgeBatchSize)],
        names: &["b"],
        modes: LIVE,
        help: "innodb_purge_batch_size: type a value",
        hint: None,
    },
    Binding {
        keys: &[(ch('m'), A::EnableMonitors)],
        names: &["m"],
        modes: LIVE,
        help: "enable the INNODB_METRICS counters the panels need",
        hint: None,
    },
    Binding {
        keys: &[(ch('K'), A::KillBlocker)],
        names: &["K"],
        modes: LIVE,
        help: "kill the session that blocks purge (asks first)",
        hint: None,
    },
    Binding {
        keys: &[(ch('R'), A::RollbackSegments)],
        names: &["R"],
        modes: LIVE,
        help: "innodb_rollback_segments to 128 (asks first)",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Char(' ')), A::PlayPause)],
        names: &["space"],
        modes: REPLAY,
        help: "play / pause",
        hint: timeline(0, "space", "play"),
    },
    Binding {
        keys: &[
            (code(KeyCode::Left), A::StepBack),
            (code(KeyCode::Right), A::StepForward),
        ],
        names: &["←", "→"],
        modes: REPLAY,
        help: "one sample back / forward",
        hint: timeline(1, "←→", "step"),
    },
    Binding {
        keys: &[(ch('['), A::Slower), (ch(']'), A::Faster)],
        names: &["[", "]"],
        modes: REPLAY,
        help: "slower / faster (0.25× … 1000×)",
        hint: timeline(2, "[]", "speed"),
    },
    Binding {
        keys: &[(ch('g'), A::GoTo)],
        names: &["g"],
        modes: REPLAY,
        help: "go to a time (HH:MM:SS, +5m, -30s, RFC 3339)",
        hint: timeline(3, "g", "go to"),
    },
    Binding {
        keys: &[
            (code(KeyCode::Home), A::First),
            (code(KeyCode::End), A::Last),
        ],
        names: &["Home", "End"],
        modes: REPLAY,
        help: "first / last sample",
        hint: None,
    },
    Binding {
        keys: &[(ch('n'), A::NextMoment), (ch('N'), A::PreviousMoment)],
        names: &["n", "N"],
        modes: REPLAY,
        help: "next / previous notable moment or note (repeats count as one)",
        hint: timeline(4, "n/N", "moment"),
    },
    Binding {
        keys: &[(ch('a'), A::AddNote)],
        names: &["a"],
        modes: LIVE,
        help: "add a note here (kept in the recording, if one runs)",
        hint: footer(9, "a", "note"),
    },
    Binding {
        keys: &[(ch('a'), A::AddNote)],
        names: &["a"],
        modes: REPLAY,
        help: "add a note here (kept in the replayed file)",
        hint: timeline(5, "a", "note"),
    },
    Binding {
        keys: &[(ctrl('z'), A::Suspend)],
        names: &["Ctrl-Z"],
        modes: SCREENS,
        help: "suspend (fg to resume)",
        hint: None,
    },
];

/// Every row: the dashboard's, then the compare screen's, the popups' and the fleet's.
pub fn rows() -> impl Iterator<Item = &'static Binding> {
    KEYMAP
        .iter()
        .chain(compare::COMPARE_KEYS)
        .chain(popup::POPUP_KEYS)
        .chain(fleet::FLEET_KEYS)
}

/// The rows that work in `mode`, in table order.
pub fn bindings(mode: Mode) -> impl Iterator<Item = &'static Binding> {
    rows().filter(move |b| b.works_in(mode))
}

/// What `ev` does in `mode`.
pub fn action(mode: Mode, ev: &KeyEvent) -> Option<KeyAction> {
    bindings(mode).find_map(|b| b.action(ev))
}

/// The name of the key for `action` in `mode` (for a panel's "press u"), if there is one.
pub fn key_for(mode: Mode, action: KeyAction) -> Option<&'static str> {
    bindings(mode)
        .find(|b| b.keys.iter().any(|(_, a)| *a == action))
        .and_then(|b| b.names.first().copied())
}

/// The row of a key that works in the other dashboard mode but not in `mode` (to say why it
/// does nothing).
pub fn elsewhere(mode: Mode, ev: &KeyEvent) -> Option<&'static Binding> {
    if action(mode, ev).is_some() {
        return None;
    }
    KEYMAP.iter().find(|b| {
        !b.works_in(mode) && b.modes.iter().any(|m| m.is_dashboard()) && b.action(ev).is_some()
    })
}

/// The hints of one bar, best first.
pub fn hints(bar: Bar) -> Vec<(&'static Binding, Hint)> {
    let mut out: Vec<_> = rows()
        .filter_map(|b| b.hint.filter(|h| h.bar == bar).map(|h| (b, h)))
        .collect();
    out.sort_by_key(|(_, h)| h.rank);
    out
}

/// The compare screen's footer hints: its own keys, then the footer's that work there.
pub fn compare_hints() -> Vec<(&'static Binding, Hint)> {
    let mut out = hints(Bar::Compare);
    out.extend(
        hints(Bar::Footer)
            .into_iter()
            .filter(|(b, _)| b.works_in(Mode::Compare)),
    );
    out
}

/// A bar's hints on one line: `Enter go · Esc cancel`.
pub fn hint_line(bar: Bar) -> String {
    let hints: Vec<String> = hints(bar)
        .into_iter()
        .map(|(_, h)| format!("{} {}", h.key, h.what))
        .collect();
    hints.join(" · ")
}

#[cfg(test)]
mod tests;
