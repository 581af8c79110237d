//! The keys of `innodebt compare` on a terminal: moving through the ranked differences and
//! opening one in detail. `?`, `q`, Esc and Ctrl-Z are the screens' shared rows.

use crossterm::event::KeyCode;

use super::{A, Bar, Binding, Mode, ch, code, hint};

const COMPARE: &[Mode] = &[Mode::Compare];

pub const COMPARE_KEYS: &[Binding] = &[
    Binding {
        keys: &[
            (code(KeyCode::Up), A::DiffUp),
            (code(KeyCode::Down), A::DiffDown),
            (ch('k'), A::DiffUp),
            (ch('j'), A::DiffDown),
        ],
        names: &["↑ ↓", "k j"],
        modes: COMPARE,
        help: "previous / next difference",
        hint: hint(Bar::Compare, 0, "↑↓", "difference"),
    },
    Binding {
        keys: &[
            (code(KeyCode::PageUp), A::DiffPageUp),
            (code(KeyCode::PageDown), A::DiffPageDown),
        ],
        names: &["PgUp", "PgDn"],
        modes: COMPARE,
        help: "ten differences up / down",
        hint: None,
    },
    Binding {
        keys: &[
            (code(KeyCode::Home), A::DiffFirst),
            (code(KeyCode::End), A::DiffLast),
        ],
        names: &["Home", "End"],
        modes: COMPARE,
        help: "first / last difference",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Enter), A::DiffDetail)],
        names: &["Enter"],
        modes: COMPARE,
        help: "the difference in detail: both sides' median, p95, max, and what it means",
        hint: hint(Bar::Compare, 1, "Enter", "detail"),
    },
];
