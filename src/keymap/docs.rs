//! The keymap written out for people: the keys section of `--help` and the key table of
//! docs/dashboard.md, both from [`super::KEYMAP`] so neither can drift from what the keys do.

use super::{Binding, KeyAction, Mode, bindings, rows};

/// Where a row works, in words.
fn works_in_text(b: &Binding) -> String {
    let modes: Vec<&str> = b.modes.iter().map(|m| m.name()).collect();
    modes.join(", ")
}

/// The keys for `--help`: the dashboard's, then what a replay does differently.
pub fn help_text() -> String {
    let w = rows().map(|b| b.label().chars().count()).max().unwrap_or(0);
    let row = |b: &Binding| {
        let label = b.label();
        let pad = w - label.chars().count();
        format!("  {label}{}  {}\n", " ".repeat(pad), b.help)
    };
    let mut out = String::from("Keys of the dashboard:\n");
    for b in bindings(Mode::Live) {
        out.push_str(&row(b));
    }
    // Live-only rows whose actions a replay has no key for (focus it has, on other keys).
    let in_replay =
        |a: &KeyAction| bindings(Mode::Replay).any(|r| r.keys.iter().any(|(_, x)| x == a));
    let refused: Vec<&str> = bindings(Mode::Live)
        .filter(|b| !b.keys.iter().any(|(_, a)| in_replay(a)))
        .flat_map(|b| b.names.iter().copied())
        .collect();
    out.push_str(&format!(
        "Keys of a replay (`replay`, `--demo`): the same, without {} (a replay changes no \
         server), and:\n",
        refused.join(" ")
    ));
    for b in bindings(Mode::Replay).filter(|b| !b.works_in(Mode::Live)) {
        out.push_str(&row(b));
    }
    // A blank line first: each of these is a screen (or popup) of its own.
    for (mode, title) in [
        (
            Mode::Compare,
            "Keys of `compare` on a terminal (without --format):",
        ),
        (
            Mode::Confirm,
            "In a confirmation (the default answer is No):",
        ),
        (Mode::Prompt, "In a prompt (a value, a time, a note):"),
        (Mode::Fleet, "Keys of `innodebt fleet`:"),
        (Mode::FleetFilter, "While typing the fleet's filter:"),
    ] {
        out.push('\n');
        out.push_str(title);
        out.push('\n');
        for b in bindings(mode) {
            out.push_str(&row(b));
        }
    }
    out
}

/// The key table of docs/dashboard.md (tests/it/cli.rs checks it holds exactly this).
pub fn markdown_table() -> String {
    let mut out = String::from("| key | does | works in |\n|---|---|---|\n");
    for b in rows() {
        // Key names (`Enter`, `Ctrl-C`, `arrows`) plain, keys you type (`t`, `1-6`, `←`) as code.
        let keys: Vec<String> = b
            .names
            .iter()
            .flat_map(|n| n.split(' '))
            .map(|k| {
                if k.chars().count() > 1 && k.starts_with(|c: char| c.is_alphabetic()) {
                    k.to_string()
                } else {
                    format!("`{k}`")
                }
            })
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            keys.join(" "),
            b.help,
            works_in_text(b)
        ));
    }
    out
}
