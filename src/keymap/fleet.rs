//! The keys of `innodebt fleet`: the list of servers and its filter line. A server's dashboard
//! opened from the fleet reads the dashboard's keys (Esc or q there go back to the fleet).

use crossterm::event::KeyCode;

use super::{A, Bar, Binding, Key, Mode, ch, code, ctrl, hint};

const FLEET: &[Mode] = &[Mode::Fleet];
const FILTER: &[Mode] = &[Mode::FleetFilter];

pub const FLEET_KEYS: &[Binding] = &[
    Binding {
        keys: &[
            (code(KeyCode::Up), A::SelectUp),
            (code(KeyCode::Down), A::SelectDown),
            (ch('k'), A::SelectUp),
            (ch('j'), A::SelectDown),
        ],
        names: &["↑ ↓", "j k"],
        modes: FLEET,
        help: "select a server",
        hint: hint(Bar::Fleet, 0, "↑↓", "select"),
    },
    Binding {
        keys: &[
            (code(KeyCode::Home), A::SelectFirst),
            (code(KeyCode::End), A::SelectLast),
        ],
        names: &["Home", "End"],
        modes: FLEET,
        help: "first / last server",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Enter), A::OpenServer)],
        names: &["Enter"],
        modes: FLEET,
        help: "the selected server's dashboard, read-only (Esc or q back to the fleet)",
        hint: hint(Bar::Fleet, 1, "Enter", "dashboard"),
    },
    Binding {
        keys: &[(ch('/'), A::Filter)],
        names: &["/"],
        modes: FLEET,
        help: "filter by name, group, tag or state",
        hint: hint(Bar::Fleet, 2, "/", "filter"),
    },
    Binding {
        keys: &[(code(KeyCode::Esc), A::ClearFilter)],
        names: &["Esc"],
        modes: FLEET,
        help: "clear the filter",
        hint: None,
    },
    Binding {
        keys: &[(ch('g'), A::GroupServers)],
        names: &["g"],
        modes: FLEET,
        help: "group the servers by their group, or not",
        hint: hint(Bar::Fleet, 3, "g", "group"),
    },
    Binding {
        keys: &[(ch('q'), A::Quit), (ctrl('c'), A::QuitNow)],
        names: &["q", "Ctrl-C"],
        modes: FLEET,
        help: "quit",
        hint: hint(Bar::Fleet, 4, "q", "quit"),
    },
    Binding {
        keys: &[(ctrl('z'), A::Suspend)],
        names: &["Ctrl-Z"],
        modes: FLEET,
        help: "suspend (fg to resume)",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Enter), A::Submit)],
        names: &["Enter"],
        modes: FILTER,
        help: "keep the filter",
        hint: hint(Bar::FleetFilter, 0, "Enter", "keep"),
    },
    Binding {
        keys: &[(code(KeyCode::Esc), A::Cancel)],
        names: &["Esc"],
        modes: FILTER,
        help: "clear the filter",
        hint: hint(Bar::FleetFilter, 1, "Esc", "clear"),
    },
    Binding {
        keys: &[(code(KeyCode::Backspace), A::Erase)],
        names: &["Backspace"],
        modes: FILTER,
        help: "erase the last character",
        hint: None,
    },
    Binding {
        keys: &[(Key::Text, A::Type)],
        names: &["text"],
        modes: FILTER,
        help: "type the filter",
        hint: None,
    },
];
