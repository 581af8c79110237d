//! The keys inside a popup: a confirmation (Yes / No, No the default) and a prompt (a value, a
//! time, a note). An open popup takes every key before the dashboard (Ctrl-C and Ctrl-Z
//! excepted, see [`KeyAction::over_popups`]).

use crossterm::event::KeyCode;

use super::{A, Bar, Binding, Key, Mode, ch, code, hint};

const CONFIRM: &[Mode] = &[Mode::Confirm];
const PROMPT: &[Mode] = &[Mode::Prompt];

pub const POPUP_KEYS: &[Binding] = &[
    Binding {
        keys: &[(ch('y'), A::Yes), (ch('Y'), A::Yes)],
        names: &["y"],
        modes: CONFIRM,
        help: "yes: run it",
        hint: hint(Bar::Confirm, 0, "y", "yes"),
    },
    Binding {
        keys: &[
            (ch('n'), A::No),
            (ch('N'), A::No),
            (code(KeyCode::Esc), A::No),
        ],
        names: &["n", "Esc"],
        modes: CONFIRM,
        help: "no: nothing runs",
        hint: hint(Bar::Confirm, 1, "n/Esc", "no"),
    },
    Binding {
        keys: &[
            (code(KeyCode::Left), A::SwitchAnswer),
            (code(KeyCode::Right), A::SwitchAnswer),
            (code(KeyCode::Tab), A::SwitchAnswer),
            (ch('h'), A::SwitchAnswer),
            (ch('l'), A::SwitchAnswer),
        ],
        names: &["←", "→", "Tab", "h l"],
        modes: CONFIRM,
        help: "move between Yes and No",
        hint: hint(Bar::Confirm, 2, "←/→", "choose"),
    },
    Binding {
        keys: &[(code(KeyCode::Enter), A::Answer)],
        names: &["Enter"],
        modes: CONFIRM,
        help: "give the highlighted answer (No until moved)",
        hint: hint(Bar::Confirm, 3, "Enter", "answers"),
    },
    Binding {
        keys: &[(ch('a'), A::Alternative)],
        names: &["a"],
        modes: CONFIRM,
        help: "ask the alternative the popup offers instead (MySQL 8: SET PERSIST)",
        hint: None,
    },
    Binding {
        keys: &[(code(KeyCode::Enter), A::Submit)],
        names: &["Enter"],
        modes: PROMPT,
        help: "go: use what was typed",
        hint: hint(Bar::Prompt, 0, "Enter", "go"),
    },
    Binding {
        keys: &[(code(KeyCode::Esc), A::Cancel)],
        names: &["Esc"],
        modes: PROMPT,
        help: "cancel",
        hint: hint(Bar::Prompt, 1, "Esc", "cancel"),
    },
    Binding {
        keys: &[(code(KeyCode::Backspace), A::Erase)],
        names: &["Backspace"],
        modes: PROMPT,
        help: "erase the last character",
        hint: None,
    },
    Binding {
        keys: &[(Key::Text, A::Type)],
        names: &["text"],
        modes: PROMPT,
        help: "type the value, time or note",
        hint: None,
    },
];
