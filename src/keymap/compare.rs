//! The keys of `innodebt compare` on a terminal: moving through the ranked differences and
//! opening one in detail, and every screen's own.

use crossterm::event::KeyCode;

use super::{Binding, ScreenAction, ScreenKey, Table, ch, code, ctrl, hint};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareKey {
    Screen(ScreenKey),
    /// The previous / next difference, a page of them, the first / last.
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    /// Open (or close) the selected difference's detail.
    Detail,
}

impl ScreenAction for CompareKey {
    fn screen(self) -> Option<ScreenKey> {
        match self {
            CompareKey::Screen(s) => Some(s),
            _ => None,
        }
    }
}

use CompareKey as C;

/// Its footer shows the differences' keys first, then help and quit.
pub const COMPARE: Table<CompareKey> = Table {
    name: "compare",
    title: "Keys of `compare` on a terminal (without --format):",
    rows: &[
        help_row!(C::Screen, hint(2, "?", "help")),
        quit_row!(C::Screen, "quit", hint(3, "q", "quit")),
        back_row!(C::Screen, "back / close", hint(4, "Esc", "back")),
        suspend_row!(C::Screen),
        Binding {
            keys: &[
                (code(KeyCode::Up), C::Up),
                (code(KeyCode::Down), C::Down),
                (ch('k'), C::Up),
                (ch('j'), C::Down),
            ],
            names: &["↑ ↓", "k j"],
            help: "previous / next difference",
            hint: hint(0, "↑↓", "difference"),
        },
        Binding {
            keys: &[
                (code(KeyCode::PageUp), C::PageUp),
                (code(KeyCode::PageDown), C::PageDown),
            ],
            names: &["PgUp", "PgDn"],
            help: "ten differences up / down",
            hint: None,
        },
        Binding {
            keys: &[
                (code(KeyCode::Home), C::First),
                (code(KeyCode::End), C::Last),
            ],
            names: &["Home", "End"],
            help: "first / last difference",
            hint: None,
        },
        Binding {
            keys: &[(code(KeyCode::Enter), C::Detail)],
            names: &["Enter"],
            help: "the difference in detail: both sides' median, p95, max, and what it means",
            hint: hint(1, "Enter", "detail"),
        },
    ],
};
