//! The keys of `innodebt fleet`: the list of servers and its filter line. A server's dashboard
//! opened from the fleet reads [`WATCHED`](super::WATCHED) (Esc or q there go back to the fleet).

use crossterm::event::KeyCode;

use super::{Binding, Key, Table, TextKey, ch, code, ctrl, hint};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FleetKey {
    SelectUp,
    SelectDown,
    SelectFirst,
    SelectLast,
    OpenServer,
    Filter,
    ClearFilter,
    GroupServers,
    Quit,
    /// Ctrl-C: quits while the filter is typed too.
    QuitNow,
    /// Ctrl-Z: works while the filter is typed too.
    Suspend,
}

use FleetKey as F;

pub const FLEET: Table<FleetKey> = Table {
    name: "fleet",
    title: "Keys of `innodebt fleet`:",
    rows: &[
        Binding {
            keys: &[
                (code(KeyCode::Up), F::SelectUp),
                (code(KeyCode::Down), F::SelectDown),
                (ch('k'), F::SelectUp),
                (ch('j'), F::SelectDown),
            ],
            names: &["↑ ↓", "j k"],
            help: "select a server",
            hint: hint(0, "↑↓", "select"),
        },
        Binding {
            keys: &[
                (code(KeyCode::Home), F::SelectFirst),
                (code(KeyCode::End), F::SelectLast),
            ],
            names: &["Home", "End"],
            help: "first / last server",
            hint: None,
        },
        Binding {
            keys: &[(code(KeyCode::Enter), F::OpenServer)],
            names: &["Enter"],
            help: "the selected server's dashboard, read-only (Esc or q back to the fleet)",
            hint: hint(1, "Enter", "dashboard"),
        },
        Binding {
            keys: &[(ch('/'), F::Filter)],
            names: &["/"],
            help: "filter by name, group, tag or state",
            hint: hint(2, "/", "filter"),
        },
        Binding {
            keys: &[(code(KeyCode::Esc), F::ClearFilter)],
            names: &["Esc"],
            help: "clear the filter",
            hint: None,
        },
        Binding {
            keys: &[(ch('g'), F::GroupServers)],
            names: &["g"],
            help: "group the servers by their group, or not",
            hint: hint(3, "g", "group"),
        },
        Binding {
            keys: &[(ch('q'), F::Quit), (ctrl('c'), F::QuitNow)],
            names: &["q", "Ctrl-C"],
            help: "quit",
            hint: hint(4, "q", "quit"),
        },
        Binding {
            keys: &[(ctrl('z'), F::Suspend)],
            names: &["Ctrl-Z"],
            help: "suspend (fg to resume)",
            hint: None,
        },
    ],
};

/// The filter line while it is typed: it takes every key but the fleet's Ctrl-C and Ctrl-Z.
pub const FLEET_FILTER: Table<TextKey> = Table {
    name: "fleet filter",
    title: "While typing the fleet's filter:",
    rows: &[
        Binding {
            keys: &[(code(KeyCode::Enter), TextKey::Submit)],
            names: &["Enter"],
            help: "keep the filter",
            hint: hint(0, "Enter", "keep"),
        },
        Binding {
            keys: &[(code(KeyCode::Esc), TextKey::Cancel)],
            names: &["Esc"],
            help: "clear the filter",
            hint: hint(1, "Esc", "clear"),
        },
        Binding {
            keys: &[(code(KeyCode::Backspace), TextKey::Erase)],
            names: &["Backspace"],
            help: "erase the last character",
            hint: None,
        },
        Binding {
            keys: &[(Key::Text, TextKey::Type)],
            names: &["text"],
            help: "type the filter",
            hint: None,
        },
    ],
};
