//! The tables' own consistency: one meaning per key and table, words for every row, the bars'
//! hint lines, typed text.
use super::*;

/// Every table, each checked by `check` with its own action type.
macro_rules! each_table {
    ($check:ident) => {
        $check(&LIVE);
        $check(&READ_ONLY);
        $check(&WATCHED);
        $check(&FROZEN);
        $check(&REPLAY);
        $check(&COMPARE);
        $check(&CONFIRM);
        $check(&PROMPT);
        $check(&MESSAGE);
        $check(&FLEET);
        $check(&FLEET_FILTER);
    };
}

/// No key means two things in one table.
#[test]
fn a_key_does_one_thing_per_table() {
    fn check<A: Copy + PartialEq + std::fmt::Debug>(t: &Table<A>) {
        for (i, a) in t.rows.iter().enumerate() {
            for (j, (ka, _)) in a.keys.iter().enumerate() {
                assert!(
                    !a.keys[j + 1..].iter().any(|(kb, _)| kb == ka),
                    "{ka:?} twice in `{}` of {}",
                    a.label(),
                    t.name
                );
                for b in &t.rows[i + 1..] {
                    assert!(
                        !b.keys.iter().any(|(kb, _)| kb == ka),
                        "{ka:?} is in both `{}` and `{}` in {}",
                        a.label(),
                        b.label(),
                        t.name
                    );
                }
            }
        }
    }
    each_table!(check);
}

#[test]
fn every_row_has_keys_and_words() {
    fn check<A: Copy + PartialEq>(t: &Table<A>) {
        assert!(!t.rows.is_empty() && !t.name.is_empty() && !t.title.is_empty());
        for b in t.rows {
            assert!(!b.names.is_empty() && !b.help.is_empty(), "{}", t.name);
            assert!(!b.keys.is_empty(), "{}: {}", t.name, b.label());
        }
    }
    each_table!(check);
    let names: Vec<&str> = tables().iter().map(|t| t.name).collect();
    let mut distinct = names.clone();
    distinct.dedup();
    assert_eq!(names, distinct, "each table its own name");
}

/// The popups' and the fleet's key lines, as they read before they came from the tables.
#[test]
fn popup_and_fleet_hint_lines() {
    assert_eq!(
        CONFIRM.hint_line(),
        "y yes · n/Esc no · ←/→ choose · Enter answers"
    );
    assert_eq!(PROMPT.hint_line(), "Enter go · Esc cancel");
    assert_eq!(MESSAGE.hint_line(), "any key closes");
    assert_eq!(
        FLEET.hint_line(),
        "↑↓ select · Enter dashboard · / filter · g group · q quit"
    );
    assert_eq!(FLEET_FILTER.hint_line(), "Enter keep · Esc clear");
}

#[test]
fn text_is_a_printable_character_typed_without_ctrl() {
    let ev = |c: KeyCode, m: KeyModifiers| KeyEvent::new(c, m);
    let typed = |e: KeyEvent| PROMPT.action(&e);
    assert_eq!(
        typed(ev(KeyCode::Char('é'), KeyModifiers::NONE)),
        Some(TextKey::Type)
    );
    assert_eq!(
        typed(ev(KeyCode::Char('Q'), KeyModifiers::SHIFT)),
        Some(TextKey::Type)
    );
    assert_eq!(typed(ev(KeyCode::Char('a'), KeyModifiers::CONTROL)), None);
    assert_eq!(typed(ev(KeyCode::Char('\u{7}'), KeyModifiers::NONE)), None);
    assert_eq!(
        typed(ev(KeyCode::Backspace, KeyModifiers::NONE)),
        Some(TextKey::Erase)
    );
}

/// The modes of the live dashboard hold fewer keys as they may steer less: read-only keeps
/// the poller's, watched and frozen neither the poller's nor the server's.
#[test]
fn the_live_modes_are_nested() {
    let has =
        |t: &Table<LiveKey>, a: LiveKey| t.rows.iter().any(|b| b.keys.iter().any(|(_, x)| *x == a));
    for a in [LiveKey::IntervalUp, LiveKey::UndoScan] {
        assert!(
            has(&LIVE, a) && has(&READ_ONLY, a) && !has(&WATCHED, a),
            "{a:?}"
        );
    }
    for a in [
        LiveKey::PurgeThreadsUp,
        LiveKey::KillBlocker,
        LiveKey::EnableMonitors,
    ] {
        assert!(
            has(&LIVE, a) && !has(&READ_ONLY, a) && !has(&WATCHED, a),
            "{a:?}"
        );
    }
    for t in [&READ_ONLY, &WATCHED] {
        for b in t.rows {
            for (_, a) in b.keys {
                assert!(has(&LIVE, *a), "{a:?} of {} is a live key", t.name);
            }
        }
    }
}
