//! Themes from the outside: built-ins, user files layered over the default, the exact error
//! messages a user sees, and the guarantees of monochrome and the accessible themes.

use innodebt::theme::{Severity, Theme, ThemeError, ThemeItem, builtin_names, items_help};
use ratatui::style::{Color, Modifier, Style};

/// Snapshots live in the top-level `snapshots/` directory, named `theme_*`.
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!(
            { snapshot_path => "../../snapshots", prepend_module_to_snapshot => false },
            { insta::assert_snapshot!($name, $value) }
        )
    };
}

fn parse_error(file: &str, source: &str) -> String {
    match Theme::from_toml_str(file, source) {
        Ok(_) => panic!("{file} should not parse:\n{source}"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn item_list_with_descriptions() {
    snapshot!("theme_items", items_help());
}

#[test]
fn every_builtin_loads_and_colours_every_item() {
    assert_eq!(
        builtin_names(),
        ["dark", "light", "high-contrast", "colorblind"]
    );
    for &name in builtin_names() {
        let theme = Theme::load(name).expect("built-in loads by name");
        assert_eq!(Some(&theme), Theme::builtin(name).as_ref());
        assert_eq!(theme.name(), name);
        for &item in ThemeItem::ALL {
            assert!(
                theme.color(item).is_some(),
                "{name}: {} has no colour",
                item.key()
            );
            let style = theme.style(item);
            if item.is_background() {
                assert!(style.bg.is_some() && style.fg.is_none(), "{name}: {item:?}");
            } else {
                assert!(style.fg.is_some() && style.bg.is_none(), "{name}: {item:?}");
            }
        }
    }
}

#[test]
fn partial_theme_falls_back_to_the_default() {
    let dark = Theme::default();
    assert_eq!(dark.name(), "dark");
    let mine = Theme::from_toml_str(
        "themes/mine.toml",
        "[colors]\nwarning = \"#ff8800\"\n\n[modifiers]\ntitle = []\n",
    )
    .expect("valid partial theme");
    assert_eq!(mine.name(), "mine");
    // The colour is replaced, the modifiers of the same item still come from the default.
    assert_eq!(
        mine.style(ThemeItem::Warning),
        dark.style(ThemeItem::Warning)
            .fg(Color::Rgb(0xff, 0x88, 0x00))
    );
    assert_eq!(
        mine.style(ThemeItem::Title),
        Style::new().fg(Color::Indexed(255))
    );
    for &item in ThemeItem::ALL {
        if item != ThemeItem::Warning && item != ThemeItem::Title {
            assert_eq!(mine.style(item), dark.style(item), "{item:?}");
        }
    }
}

#[test]
fn partial_theme_can_extend_another_builtin() {
    let light = Theme::builtin("light").expect("light");
    let mine = Theme::from_toml_str(
        "mine.toml",
        "extends = \"light\"\n[colors]\nsql = \"blue\"\n",
    )
    .expect("valid");
    assert_eq!(mine.color(ThemeItem::Sql), Some(Color::Blue));
    for &item in ThemeItem::ALL {
        if item != ThemeItem::Sql {
            assert_eq!(mine.style(item), light.style(item), "{item:?}");
        }
    }
}

#[test]
fn empty_file_is_the_default_theme() {
    let theme = Theme::from_toml_str("empty.toml", "# nothing\n").expect("valid");
    for &item in ThemeItem::ALL {
        assert_eq!(theme.style(item), Theme::default().style(item));
    }
}

#[test]
fn the_documented_messages_are_exact() {
    assert_eq!(
        parse_error(
            "themes/mine.toml",
            "# mine\n\n[colors]\ntext = \"white\"\n\n\nwarnng = \"yellow\"\n"
        ),
        "themes/mine.toml:7:1: unknown theme item \"warnng\" (did you mean \"warning\"?)"
    );
    assert_eq!(
        parse_error("mine.toml", "[colors]\n\ncritical = \"#12345\"\n"),
        "mine.toml:3:12: bad colour \"#12345\" for \"critical\": \
         use a name (red, lightblue, …), #rrggbb or 0–255"
    );
}

#[test]
fn error_messages() {
    let cases: &[(&str, &str)] = &[
        (
            "unknown item",
            "[colors]\ntext = \"white\"\nwarnng = \"yellow\"\n",
        ),
        (
            "unknown item, snake case",
            "[colors]\nborder_focused = \"cyan\"\n",
        ),
        (
            "unknown item, nothing close",
            "[modifiers]\nzebra = \"bold\"\n",
        ),
        ("unknown item, dotted key", "colors.sparkle = \"red\"\n"),
        ("bad colour, short hex", "[colors]\ncritical = \"#12345\"\n"),
        (
            "bad colour, unknown name",
            "[colors]\n  ok   =   'purple'\n",
        ),
        ("bad colour, index too big", "[colors]\ndim = 300\n"),
        ("bad colour, wrong type", "[colors]\ndim = [1, 2]\n"),
        ("bad colour, float", "[colors]\ndim = 1.5\n"),
        (
            "broken TOML, column counted in characters",
            "[colors]\ntext = \"é\" oops\n",
        ),
        (
            "bad modifier",
            "[modifiers]\ntitle = [\"bold\", \"blod\"]\n",
        ),
        ("bad modifier, wrong type", "[modifiers]\ntitle = true\n"),
        ("unknown section", "[colours]\ntext = \"white\"\n"),
        ("unknown top-level key", "theme = \"dark\"\n"),
        ("section not a table", "colors = \"red\"\n"),
        ("bad extends", "extends = \"solarized\"\n"),
        ("bad extends, wrong type", "extends = 3\n"),
        (
            "broken TOML, unclosed header",
            "[colors\ntext = \"white\"\n",
        ),
        (
            "broken TOML, unterminated string",
            "[colors]\ntext = \"white\nok = \"green\"\n",
        ),
        ("broken TOML, bare word", "[colors]\n\ntext = white\n"),
        (
            "broken TOML, duplicate key",
            "[colors]\ntext = \"white\"\ntext = \"gray\"\n",
        ),
        (
            "broken TOML, duplicate table",
            "[colors]\n[modifiers]\n[colors]\n",
        ),
    ];
    let mut report = String::new();
    for (what, source) in cases {
        report.push_str(&format!(
            "## {what}\n{}\n=> {}\n\n",
            source.trim_end(),
            parse_error("mine.toml", source)
        ));
    }
    snapshot!("theme_errors", report);
}

#[test]
fn load_reports_unknown_names_and_unreadable_paths() {
    let err = Theme::load("solarized").expect_err("not a theme");
    assert!(matches!(err, ThemeError::UnknownTheme { .. }));
    assert_eq!(
        err.to_string(),
        "unknown theme \"solarized\": use one of dark, light, high-contrast, colorblind, \
         or the path of a .toml theme file"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.toml");
    let missing = missing.to_string_lossy();
    let err = Theme::load(&missing).expect_err("no such file");
    assert!(matches!(err, ThemeError::Read { .. }));
    assert!(
        err.to_string()
            .starts_with(&format!("{missing}: cannot read theme file: ")),
        "{err}"
    );
}

#[test]
fn load_reads_a_file_and_names_it_in_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = dir.path().join("ocean.toml");
    std::fs::write(&good, "[colors]\ntitle = \"lightblue\"\n").expect("write");
    let theme = Theme::load(&good.to_string_lossy()).expect("loads");
    assert_eq!(theme.name(), "ocean");
    assert_eq!(theme.color(ThemeItem::Title), Some(Color::LightBlue));

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[colors]\ntitle = \"lightblu\"\n").expect("write");
    let bad = bad.to_string_lossy();
    let err = Theme::load(&bad).expect_err("bad colour");
    assert!(
        err.to_string()
            .starts_with(&format!("{bad}:2:9: bad colour \"lightblu\"")),
        "{err}"
    );
}

#[test]
fn monochrome_has_no_colours_and_shows_severity_by_modifiers() {
    let mono = Theme::monochrome();
    assert!(mono.is_monochrome());
    assert_eq!(mono.name(), "monochrome");
    for &item in ThemeItem::ALL {
        let style = mono.style(item);
        assert_eq!((style.fg, style.bg), (None, None), "{item:?} has a colour");
        assert_eq!(mono.color(item), None);
    }
    let ok = mono.severity(Severity::Ok).add_modifier;
    let warning = mono.severity(Severity::Warning).add_modifier;
    let critical = mono.severity(Severity::Critical).add_modifier;
    assert_eq!(ok, Modifier::empty());
    assert_eq!(warning, Modifier::BOLD);
    assert_eq!(critical, Modifier::BOLD | Modifier::REVERSED);
    for badge in [
        ThemeItem::BadgeStale,
        ThemeItem::BadgeDisconnected,
        ThemeItem::BadgeRec,
        ThemeItem::BadgeFrozen,
    ] {
        assert!(
            mono.style(badge).add_modifier.contains(Modifier::REVERSED),
            "{badge:?}"
        );
    }
    assert_eq!(mono.style(ThemeItem::Border), Style::new());
    assert!(!Theme::default().is_monochrome());
}

/// In the accessible themes severity must not rest on hue. Our criterion: each step up in
/// severity adds a modifier (ok < warning < critical as modifier sets, strictly), so the
/// three read differently even with every colour looking the same; the symbols come on top.
#[test]
fn accessible_themes_show_severity_in_more_than_hue() {
    for name in ["high-contrast", "colorblind"] {
        let theme = Theme::builtin(name).expect("builtin");
        let ok = theme.severity(Severity::Ok).add_modifier;
        let warning = theme.severity(Severity::Warning).add_modifier;
        let critical = theme.severity(Severity::Critical).add_modifier;
        assert!(
            warning.contains(ok) && warning != ok,
            "{name}: warning vs ok"
        );
        assert!(
            critical.contains(warning) && critical != warning,
            "{name}: critical vs warning"
        );
    }
}

/// The colour-blind theme keeps ok away from red/green: its severity colours are the
/// Okabe–Ito sky blue, yellow and vermillion.
#[test]
fn colorblind_severity_colours_are_okabe_ito() {
    let theme = Theme::builtin("colorblind").expect("builtin");
    assert_eq!(
        theme.color(ThemeItem::Ok),
        Some(Color::Rgb(0x56, 0xb4, 0xe9))
    );
    assert_eq!(
        theme.color(ThemeItem::Warning),
        Some(Color::Rgb(0xf0, 0xe4, 0x42))
    );
    assert_eq!(
        theme.color(ThemeItem::Critical),
        Some(Color::Rgb(0xd5, 0x5e, 0x00))
    );
}

#[test]
fn severity_symbols_are_the_same_in_every_theme() {
    let mono = Theme::monochrome();
    for &name in builtin_names() {
        let theme = Theme::builtin(name).expect("builtin");
        for severity in [Severity::Ok, Severity::Warning, Severity::Critical] {
            assert_eq!(
                theme.severity_symbol(severity),
                mono.severity_symbol(severity)
            );
        }
    }
    assert!(Severity::Critical > Severity::Warning && Severity::Warning > Severity::Ok);
}
