//! The dashboard's keys in each of its modes: on a server ([`LIVE`]), with `--read-only`
//! ([`READ_ONLY`]), fed by a poll that is not its own ([`WATCHED`]), frozen ([`FROZEN`]) and
//! replaying a capture ([`REPLAY`]). The panels' keys are the same in every mode; what a mode
//! may steer (the server, the poller, the playback) is its own.

use crossterm::event::KeyCode;

use super::{Binding, PanelKey, ScreenAction, ScreenKey, Table, ch, code, ctrl, hint};

/// The keys of the dashboard on a live server: the panels', freezing, the poller's and the
/// runtime changes (each asked first). [`READ_ONLY`] and [`WATCHED`] hold fewer of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LiveKey {
    Screen(ScreenKey),
    Panel(PanelKey),
    Freeze,
    IntervalUp,
    IntervalDown,
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
}

/// The keys of a frozen display: reading it, and letting go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrozenKey {
    Screen(ScreenKey),
    Panel(PanelKey),
    Unfreeze,
}

/// The keys of a replay: reading the panels, and the playback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplayKey {
    Screen(ScreenKey),
    Panel(PanelKey),
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
}

impl ScreenAction for LiveKey {
    fn screen(self) -> Option<ScreenKey> {
        match self {
            LiveKey::Screen(s) => Some(s),
            _ => None,
        }
    }
    fn panel(self) -> Option<PanelKey> {
        match self {
            LiveKey::Panel(p) => Some(p),
            _ => None,
        }
    }
}

impl ScreenAction for FrozenKey {
    fn screen(self) -> Option<ScreenKey> {
        match self {
            FrozenKey::Screen(s) => Some(s),
            _ => None,
        }
    }
    fn panel(self) -> Option<PanelKey> {
        match self {
            FrozenKey::Panel(p) => Some(p),
            _ => None,
        }
    }
}

impl ScreenAction for ReplayKey {
    fn screen(self) -> Option<ScreenKey> {
        match self {
            ReplayKey::Screen(s) => Some(s),
            _ => None,
        }
    }
    fn panel(self) -> Option<PanelKey> {
        match self {
            ReplayKey::Panel(p) => Some(p),
            _ => None,
        }
    }
}

/// `v`; `$w` wraps [`PanelKey`] in the table's action type.
macro_rules! verdicts_row {
    ($w:path, $hint:expr) => {
        Binding {
            keys: &[(ch('v'), $w(PanelKey::Verdicts))],
            names: &["v"],
            help: "every verdict in full: kind, severity, since, message",
            hint: $hint,
        }
    };
}

/// `1`–`6`.
macro_rules! zoom_row {
    ($w:path, $hint:expr) => {
        Binding {
            keys: &[
                (ch('1'), $w(PanelKey::Zoom(1))),
                (ch('2'), $w(PanelKey::Zoom(2))),
                (ch('3'), $w(PanelKey::Zoom(3))),
                (ch('4'), $w(PanelKey::Zoom(4))),
                (ch('5'), $w(PanelKey::Zoom(5))),
                (ch('6'), $w(PanelKey::Zoom(6))),
            ],
            names: &["1-6"],
            help: "zoom a panel full-screen (Esc back)",
            hint: $hint,
        }
    };
}

/// The arrows, `h` `j` `k` and Tab (`l` is the purge-lag key on a server, so no mode of
/// the live dashboard moves right with it).
macro_rules! focus_row {
    ($w:path, $hint:expr) => {
        Binding {
            keys: &[
                (code(KeyCode::Left), $w(PanelKey::FocusLeft)),
                (code(KeyCode::Right), $w(PanelKey::FocusRight)),
                (code(KeyCode::Up), $w(PanelKey::FocusUp)),
                (code(KeyCode::Down), $w(PanelKey::FocusDown)),
                (ch('h'), $w(PanelKey::FocusLeft)),
                (ch('j'), $w(PanelKey::FocusDown)),
                (ch('k'), $w(PanelKey::FocusUp)),
                (code(KeyCode::Tab), $w(PanelKey::FocusNext)),
            ],
            names: &["arrows", "h j k", "Tab"],
            help: "move focus between panels (l is the purge-lag key)",
            hint: $hint,
        }
    };
}

/// Enter.
macro_rules! enter_row {
    ($w:path) => {
        Binding {
            keys: &[(code(KeyCode::Enter), $w(PanelKey::ZoomFocused))],
            names: &["Enter"],
            help: "zoom the focused panel",
            hint: None,
        }
    };
}

/// `w`.
macro_rules! window_row {
    ($w:path, $hint:expr) => {
        Binding {
            keys: &[(ch('w'), $w(PanelKey::ChartWindow))],
            names: &["w"],
            help: "chart window 1m / 5m / 15m / 1h",
            hint: $hint,
        }
    };
}

/// `a`.
macro_rules! note_row {
    ($w:path, $help:expr, $hint:expr) => {
        Binding {
            keys: &[(ch('a'), $w(PanelKey::AddNote))],
            names: &["a"],
            help: $help,
            hint: $hint,
        }
    };
}

const LIVE_NOTE: &str = "add a note here (kept in the recording, if one runs)";

use LiveKey as L;

const L_HELP: Binding<LiveKey> = help_row!(L::Screen, hint(0, "?", "help"));
const L_QUIT: Binding<LiveKey> = quit_row!(L::Screen, "quit", hint(1, "q", "quit"));
const L_VERDICTS: Binding<LiveKey> = verdicts_row!(L::Panel, hint(10, "v", "verdicts"));
const L_ZOOM: Binding<LiveKey> = zoom_row!(L::Panel, hint(3, "1-6", "zoom"));
const L_FOCUS: Binding<LiveKey> = focus_row!(L::Panel, hint(8, "arrows", "focus"));
const L_ENTER: Binding<LiveKey> = enter_row!(L::Panel);
const L_BACK: Binding<LiveKey> = back_row!(L::Screen, "back / close", hint(2, "Esc", "back"));
const L_FREEZE: Binding<LiveKey> = Binding {
    keys: &[(ch('p'), L::Freeze)],
    names: &["p"],
    help: "freeze the display (polling continues)",
    hint: hint(4, "p", "freeze"),
};
const L_INTERVAL: Binding<LiveKey> = Binding {
    keys: &[
        (ch('+'), L::IntervalUp),
        (ch('='), L::IntervalUp),
        (ch('-'), L::IntervalDown),
    ],
    names: &["+", "-"],
    help: "refresh interval up / down",
    hint: hint(5, "+/-", "interval"),
};
const L_WINDOW: Binding<LiveKey> = window_row!(L::Panel, hint(6, "w", "window"));
const L_UNDO_SCAN: Binding<LiveKey> = Binding {
    keys: &[(ch('u'), L::UndoScan)],
    names: &["u"],
    help: "scan the whole buffer pool for undo pages (asks first)",
    hint: hint(7, "u", "undo scan"),
};
const L_NOTE: Binding<LiveKey> = note_row!(L::Panel, LIVE_NOTE, hint(9, "a", "note"));
const L_SUSPEND: Binding<LiveKey> = suspend_row!(L::Screen);

/// Every key of the dashboard on a server innodebt polls and may change.
pub const LIVE: Table<LiveKey> = Table {
    name: "live",
    title: "Keys of the dashboard on a server:",
    rows: &[
        L_HELP,
        L_QUIT,
        L_VERDICTS,
        L_ZOOM,
        L_FOCUS,
        L_ENTER,
        L_BACK,
        L_FREEZE,
        L_INTERVAL,
        L_WINDOW,
        L_UNDO_SCAN,
        Binding {
            keys: &[(ch('t'), L::PurgeThreadsUp), (ch('T'), L::PurgeThreadsDown)],
            names: &["t", "T"],
            help: "innodb_purge_threads +1 / −1 (asks first)",
            hint: None,
        },
        Binding {
            keys: &[(ch('P'), L::PurgeThreadsSet)],
            names: &["P"],
            help: "innodb_purge_threads: type a value",
            hint: None,
        },
        Binding {
            keys: &[(ch('l'), L::MaxPurgeLag)],
            names: &["l"],
            help: "innodb_max_purge_lag: type a value",
            hint: None,
        },
        Binding {
            keys: &[(ch('d'), L::MaxPurgeLagDelay)],
            names: &["d"],
            help: "innodb_max_purge_lag_delay: type a value",
            hint: None,
        },
        Binding {
            keys: &[(ch('b'), L::PurgeBatchSize)],
            names: &["b"],
            help: "innodb_purge_batch_size: type a value",
            hint: None,
        },
        Binding {
            keys: &[(ch('m'), L::EnableMonitors)],
            names: &["m"],
            help: "enable the INNODB_METRICS counters the panels need",
            hint: None,
        },
        Binding {
            keys: &[(ch('K'), L::KillBlocker)],
            names: &["K"],
            help: "kill the session that blocks purge (asks first)",
            hint: None,
        },
        Binding {
            keys: &[(ch('R'), L::RollbackSegments)],
            names: &["R"],
            help: "innodb_rollback_segments to 128 (asks first)",
            hint: None,
        },
        L_NOTE,
        L_SUSPEND,
    ],
};

/// `--read-only`: innodebt polls the server (the interval and the undo scan are its own) but
/// changes nothing on it.
pub const READ_ONLY: Table<LiveKey> = Table {
    name: "read-only",
    title: "With --read-only:",
    rows: &[
        L_HELP,
        L_QUIT,
        L_VERDICTS,
        L_ZOOM,
        L_FOCUS,
        L_ENTER,
        L_BACK,
        L_FREEZE,
        L_INTERVAL,
        L_WINDOW,
        L_UNDO_SCAN,
        L_NOTE,
        L_SUSPEND,
    ],
};

/// Figures another poll feeds (a server opened from `innodebt fleet`, `innodebt
/// prometheus`): nothing here steers the server or its polling.
pub const WATCHED: Table<LiveKey> = Table {
    name: "watched",
    title: "A fleet's server, and `innodebt prometheus` (not polled from here):",
    rows: &[
        L_HELP,
        quit_row!(
            L::Screen,
            "quit (a fleet's server: back to the fleet)",
            hint(1, "q", "quit")
        ),
        L_VERDICTS,
        L_ZOOM,
        L_FOCUS,
        L_ENTER,
        back_row!(
            L::Screen,
            "back / close (a fleet's server: back to the fleet)",
            hint(2, "Esc", "back")
        ),
        L_FREEZE,
        L_WINDOW,
        L_NOTE,
        L_SUSPEND,
    ],
};

use FrozenKey as F;

/// `p` on a live dashboard: the display held still while polling goes on underneath. The
/// keys that act on the server or the poller wait for `p` again (they would act on figures
/// the screen does not show).
pub const FROZEN: Table<FrozenKey> = Table {
    name: "frozen",
    title: "Frozen (`p`):",
    rows: &[
        help_row!(F::Screen, hint(0, "?", "help")),
        quit_row!(F::Screen, "quit", hint(1, "q", "quit")),
        verdicts_row!(F::Panel, hint(10, "v", "verdicts")),
        zoom_row!(F::Panel, hint(3, "1-6", "zoom")),
        focus_row!(F::Panel, hint(8, "arrows", "focus")),
        enter_row!(F::Panel),
        back_row!(F::Screen, "back / close", hint(2, "Esc", "back")),
        Binding {
            keys: &[(ch('p'), F::Unfreeze)],
            names: &["p"],
            help: "unfreeze: the live figures again",
            hint: hint(4, "p", "unfreeze"),
        },
        window_row!(F::Panel, hint(6, "w", "window")),
        note_row!(F::Panel, LIVE_NOTE, hint(9, "a", "note")),
        suspend_row!(F::Screen),
    ],
};

use ReplayKey as R;

/// A capture played back (`innodebt replay`, `--demo`): nothing here changes a server. Its
/// timeline replaces the footer and shows the playback's hints.
pub const REPLAY: Table<ReplayKey> = Table {
    name: "replay",
    title: "Keys of a replay (`replay`, `--demo`; it changes no server):",
    rows: &[
        help_row!(R::Screen, None),
        quit_row!(R::Screen, "quit", None),
        verdicts_row!(R::Panel, None),
        zoom_row!(R::Panel, None),
        Binding {
            keys: &[
                (code(KeyCode::Up), R::Panel(PanelKey::FocusUp)),
                (code(KeyCode::Down), R::Panel(PanelKey::FocusDown)),
                (ch('h'), R::Panel(PanelKey::FocusLeft)),
                (ch('j'), R::Panel(PanelKey::FocusDown)),
                (ch('k'), R::Panel(PanelKey::FocusUp)),
                (code(KeyCode::Tab), R::Panel(PanelKey::FocusNext)),
            ],
            names: &["↑ ↓", "h j k", "Tab"],
            help: "move focus between panels (← → step the replay)",
            hint: None,
        },
        enter_row!(R::Panel),
        back_row!(R::Screen, "back / close", None),
        window_row!(R::Panel, None),
        Binding {
            keys: &[(code(KeyCode::Char(' ')), R::PlayPause)],
            names: &["space"],
            help: "play / pause",
            hint: hint(0, "space", "play"),
        },
        Binding {
            keys: &[
                (code(KeyCode::Left), R::StepBack),
                (code(KeyCode::Right), R::StepForward),
            ],
            names: &["←", "→"],
            help: "one sample back / forward",
            hint: hint(1, "←→", "step"),
        },
        Binding {
            keys: &[(ch('['), R::Slower), (ch(']'), R::Faster)],
            names: &["[", "]"],
            help: "slower / faster (0.25× … 1000×)",
            hint: hint(2, "[]", "speed"),
        },
        Binding {
            keys: &[(ch('g'), R::GoTo)],
            names: &["g"],
            help: "go to a time (HH:MM:SS, +5m, -30s, RFC 3339)",
            hint: hint(3, "g", "go to"),
        },
        Binding {
            keys: &[
                (code(KeyCode::Home), R::First),
                (code(KeyCode::End), R::Last),
            ],
            names: &["Home", "End"],
            help: "first / last sample",
            hint: None,
        },
        Binding {
            keys: &[(ch('n'), R::NextMoment), (ch('N'), R::PreviousMoment)],
            names: &["n", "N"],
            help: "next / previous notable moment or note (repeats count as one)",
            hint: hint(4, "n/N", "moment"),
        },
        note_row!(
            R::Panel,
            "add a note here (kept in the replayed file)",
            hint(5, "a", "note")
        ),
        suspend_row!(R::Screen),
    ],
};
