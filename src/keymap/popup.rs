//! The keys inside a popup: a confirmation (Yes / No, No the default), a prompt (a value, a
//! time, a note) and a message (help, the verdicts, a notice). An open popup takes every key
//! before the screen under it, but the screen's Ctrl-C and Ctrl-Z
//! ([`ScreenKey::over_popups`](super::ScreenKey::over_popups)).

use crossterm::event::KeyCode;

use super::{Binding, Key, Table, ch, code, hint};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfirmKey {
    Yes,
    No,
    /// Enter: the highlighted answer (No until moved).
    Answer,
    SwitchAnswer,
    /// The plan's alternative (MySQL 8: `SET PERSIST`), asked again.
    Alternative,
}

/// Typing a line: a prompt's, and the fleet's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextKey {
    Submit,
    Cancel,
    Erase,
    /// A printable character ([`Key::Text`]).
    Type,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DismissKey {
    Close,
}

use ConfirmKey as C;

pub const CONFIRM: Table<ConfirmKey> = Table {
    name: "confirmation",
    title: "In a confirmation (the default answer is No):",
    rows: &[
        Binding {
            keys: &[(ch('y'), C::Yes), (ch('Y'), C::Yes)],
            names: &["y"],
            help: "yes: run it",
            hint: hint(0, "y", "yes"),
        },
        Binding {
            keys: &[
                (ch('n'), C::No),
                (ch('N'), C::No),
                (code(KeyCode::Esc), C::No),
            ],
            names: &["n", "Esc"],
            help: "no: nothing runs",
            hint: hint(1, "n/Esc", "no"),
        },
        Binding {
            keys: &[
                (code(KeyCode::Left), C::SwitchAnswer),
                (code(KeyCode::Right), C::SwitchAnswer),
                (code(KeyCode::Tab), C::SwitchAnswer),
                (ch('h'), C::SwitchAnswer),
                (ch('l'), C::SwitchAnswer),
            ],
            names: &["←", "→", "Tab", "h l"],
            help: "move between Yes and No",
            hint: hint(2, "←/→", "choose"),
        },
        Binding {
            keys: &[(code(KeyCode::Enter), C::Answer)],
            names: &["Enter"],
            help: "give the highlighted answer (No until moved)",
            hint: hint(3, "Enter", "answers"),
        },
        // The popup's own lines say "a: … instead" when it offers one.
        Binding {
            keys: &[(ch('a'), C::Alternative)],
            names: &["a"],
            help: "ask the alternative the popup offers instead (MySQL 8: SET PERSIST)",
            hint: None,
        },
    ],
};

pub const PROMPT: Table<TextKey> = Table {
    name: "prompt",
    title: "In a prompt (a value, a time, a note):",
    rows: &[
        Binding {
            keys: &[(code(KeyCode::Enter), TextKey::Submit)],
            names: &["Enter"],
            help: "go: use what was typed",
            hint: hint(0, "Enter", "go"),
        },
        Binding {
            keys: &[(code(KeyCode::Esc), TextKey::Cancel)],
            names: &["Esc"],
            help: "cancel",
            hint: hint(1, "Esc", "cancel"),
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
            help: "type the value, time or note",
            hint: None,
        },
    ],
};

/// Help, the verdicts in full, and a notice (an error, a result).
pub const MESSAGE: Table<DismissKey> = Table {
    name: "message",
    title: "On help, the verdicts or a message:",
    rows: &[Binding {
        keys: &[(Key::Any, DismissKey::Close)],
        names: &["any key"],
        help: "close (`q` too: it closes, it does not quit)",
        hint: hint(0, "any key", "closes"),
    }],
};
