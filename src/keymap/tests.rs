//! The keymap's own consistency: one meaning per key and mode, words for every row, the bars' hint lines, typed text.
use super::*;

/// No key means two things in one mode.
#[test]
fn a_key_does_one_thing_per_mode() {
    for mode in Mode::ALL {
        let rows: Vec<&Binding> = bindings(mode).collect();
        for (i, a) in rows.iter().enumerate() {
            for b in &rows[i + 1..] {
                for (ka, _) in a.keys {
                    assert!(
                        !b.keys.iter().any(|(kb, _)| kb == ka),
                        "{ka:?} is in both `{}` and `{}` in {mode:?}",
                        a.label(),
                        b.label()
                    );
                }
            }
        }
    }
}

#[test]
fn every_row_works_somewhere_and_has_words() {
    for b in rows() {
        assert!(!b.modes.is_empty() && !b.names.is_empty() && !b.help.is_empty());
        assert!(!b.keys.is_empty(), "{}", b.label());
    }
}

/// The popups' and the fleet's key lines, as they read before they came from the table.
#[test]
fn popup_and_fleet_hint_lines() {
    assert_eq!(
        hint_line(Bar::Confirm),
        "y yes · n/Esc no · ←/→ choose · Enter answers"
    );
    assert_eq!(hint_line(Bar::Prompt), "Enter go · Esc cancel");
    assert_eq!(
        hint_line(Bar::Fleet),
        "↑↓ select · Enter dashboard · / filter · g group · q quit"
    );
    assert_eq!(hint_line(Bar::FleetFilter), "Enter keep · Esc clear");
}

#[test]
fn text_is_a_printable_character_typed_without_ctrl() {
    let ev = |c: KeyCode, m: KeyModifiers| KeyEvent::new(c, m);
    let typed = |e: KeyEvent| action(Mode::Prompt, &e);
    assert_eq!(
        typed(ev(KeyCode::Char('é'), KeyModifiers::NONE)),
        Some(KeyAction::Type)
    );
    assert_eq!(
        typed(ev(KeyCode::Char('Q'), KeyModifiers::SHIFT)),
        Some(KeyAction::Type)
    );
    assert_eq!(typed(ev(KeyCode::Char('a'), KeyModifiers::CONTROL)), None);
    assert_eq!(typed(ev(KeyCode::Char('\u{7}'), KeyModifiers::NONE)), None);
    assert_eq!(
        typed(ev(KeyCode::Backspace, KeyModifiers::NONE)),
        Some(KeyAction::Erase)
    );
}

/// A popup's key never explains itself as "works on a live server only" in a replay.
#[test]
fn elsewhere_names_only_dashboard_rows() {
    let y = KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE);
    assert!(elsewhere(Mode::Replay, &y).is_none());
    let t = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE);
    assert!(elsewhere(Mode::Replay, &t).is_some());
}
