//! Themes: the one place colours come from.
//!
//! Every coloured thing on screen is a [`ThemeItem`]; panels ask [`Theme::style`] for it and
//! never name a colour themselves. Themes are flat TOML files (`[colors]`, optional
//! `[modifiers]`, optional `extends = "<built-in>"`); the four built-ins are embedded so the
//! binary works from any directory, and a user file only needs the items it changes — the rest
//! come from the theme it extends (the default, `dark`, unless it says otherwise).
//! [`Theme::monochrome`] serves `NO_COLOR` / `--no-color`: no colours at all, severity by
//! modifiers. Severity also always has a symbol, so it never relies on colour alone.

mod file;

use std::path::Path;

use ratatui::style::{Color, Modifier, Style};

/// Whether an item's colour paints the text (foreground) or the cells behind it (background).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Fg,
    Bg,
}

/// Declares [`ThemeItem`] with its TOML key, role and description in one table, so the three
/// can't drift apart.
macro_rules! theme_items {
    ($($variant:ident => $key:literal, $role:ident, $desc:literal;)*) => {
        /// Every themed thing on screen. The TOML key of each is [`ThemeItem::key`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ThemeItem {
            $(#[doc = $desc] $variant,)*
        }

        impl ThemeItem {
            /// All items, in the order they are documented.
            pub const ALL: &'static [ThemeItem] = &[$(ThemeItem::$variant,)*];

            /// The stable kebab-case key used in theme files.
            pub const fn key(self) -> &'static str {
                match self {
                    $(ThemeItem::$variant => $key,)*
                }
            }

            /// One line saying what the item colours.
            pub const fn description(self) -> &'static str {
                match self {
                    $(ThemeItem::$variant => $desc,)*
                }
            }

            const fn role(self) -> Role {
                match self {
                    $(ThemeItem::$variant => Role::$role,)*
                }
            }
        }
    };
}

theme_items! {
    Text => "text", Fg, "Body text and figures";
    Dim => "dim", Fg, "Secondary text: units, labels, axis ticks, inactive values";
    Title => "title", Fg, "Panel titles";
    Border => "border", Fg, "Panel borders";
    BorderFocused => "border-focused", Fg, "Border of the focused panel";
    HeaderBg => "header-bg", Bg, "Header bar (background colour)";
    HeaderText => "header-text", Fg, "Header bar text: server, version, uptime";
    Ok => "ok", Fg, "Severity ok: figure within safe limits";
    Warning => "warning", Fg, "Severity warning: figure needs watching (e.g. past the async point)";
    Critical => "critical", Fg, "Severity critical: act now (e.g. near the sync point)";
    AsyncLine => "async-line", Fg, "Async flush point threshold line on the checkpoint age chart";
    SyncLine => "sync-line", Fg, "Sync flush point threshold line on the checkpoint age chart";
    SyncFlushLine => "sync-flush-line", Fg, "MySQL 8.0+ sync-flush point (the page cleaner ignores io_capacity past it) on the checkpoint age gauge and chart";
    CapacityLine => "capacity-line", Fg, "Redo capacity line on the checkpoint age chart";
    GaugeFill => "gauge-fill", Fg, "Filled part of a gauge";
    GaugeEmpty => "gauge-empty", Bg, "Unfilled part of a gauge (background colour)";
    SeriesCheckpointAge => "series-checkpoint-age", Fg, "Checkpoint age series";
    SeriesHistory => "series-history", Fg, "History list length series";
    SeriesPurge => "series-purge", Fg, "Purge rate series";
    SeriesInflow => "series-inflow", Fg, "Inflow series: the rate new debt arrives";
    SeriesDirty => "series-dirty", Fg, "Dirty pages series";
    FlushAdaptive => "flush-adaptive", Fg, "Flush source: adaptive flushing";
    FlushLru => "flush-lru", Fg, "Flush source: LRU flushing";
    FlushSync => "flush-sync", Fg, "Flush source: sync flushing (writers stall)";
    FlushBackground => "flush-background", Fg, "Flush source: background (idle) flushing";
    FlushNeighbor => "flush-neighbor", Fg, "Flush source: neighbor pages";
    FlushTotal => "flush-total", Fg, "All flush sources together";
    BadgeStale => "badge-stale", Fg, "STALE badge: the data is older than it should be";
    BadgeDisconnected => "badge-disconnected", Fg, "DISCONNECTED badge: the server is unreachable";
    BadgeRec => "badge-rec", Fg, "REC badge: a capture is being recorded";
    BadgeFrozen => "badge-frozen", Fg, "FROZEN badge: the display is paused";
    Key => "key", Fg, "Hotkey hints";
    PopupBg => "popup-bg", Bg, "Popups and overlays (background colour)";
    PopupBorder => "popup-border", Fg, "Popup border";
    Sql => "sql", Fg, "SQL text in a confirmation prompt";
    Selected => "selected", Bg, "Selected row or choice (background colour)";
    TimelineMarker => "timeline-marker", Fg, "Event markers on the replay timeline";
    TimelineCursor => "timeline-cursor", Fg, "Current position on the replay timeline";
}

impl ThemeItem {
    /// The item whose key is `key`, exactly as written in a theme file.
    pub fn from_key(key: &str) -> Option<ThemeItem> {
        Self::ALL.iter().copied().find(|item| item.key() == key)
    }

    /// Whether the item's colour is a background colour (it sets `bg`, not `fg`).
    pub const fn is_background(self) -> bool {
        matches!(self.role(), Role::Bg)
    }
}

/// The item list with descriptions, one `key  description` line each — for `--help`-style
/// output and the docs snapshot.
pub fn items_help() -> String {
    let width = ThemeItem::ALL
        .iter()
        .map(|item| item.key().len())
        .max()
        .unwrap_or(0);
    ThemeItem::ALL
        .iter()
        .map(|item| format!("{:width$}  {}\n", item.key(), item.description()))
        .collect()
}

/// How bad a figure is: the one judgement panels and verdicts share.
pub use innodebt_engine::figures::Severity;

use file::Layer;
pub use file::{Location, ThemeError};

/// How a severity is drawn: its colour and its timeline bar (a trait because
/// [`Severity`] is the engine's type).
pub trait SeverityLook {
    fn item(self) -> ThemeItem;
    fn bar(self) -> (char, ThemeItem);
}

impl SeverityLook for Severity {
    /// The theme item that colours this severity.
    fn item(self) -> ThemeItem {
        match self {
            Severity::Ok => ThemeItem::Ok,
            // Not a judgement: drawn like text that says what is missing.
            Severity::Unknown => ThemeItem::Dim,
            Severity::Warning => ThemeItem::Warning,
            Severity::Critical => ThemeItem::Critical,
        }
    }

    /// A timeline bar's cell for a stretch of this severity: heavy in the warning and critical
    /// colours, thin and dim when healthy, dashed and dim when not judged. The replay timeline
    /// and the incident comparison's draw with it, so `unknown` looks the same on both.
    fn bar(self) -> (char, ThemeItem) {
        match self {
            Severity::Critical => ('━', ThemeItem::Critical),
            Severity::Warning => ('━', ThemeItem::Warning),
            Severity::Ok => ('─', ThemeItem::Dim),
            // Not judged (still watching, data missing): drawn apart from healthy.
            Severity::Unknown => ('┄', ThemeItem::Dim),
        }
    }
}

const BUILTINS: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("colorblind", include_str!("../../themes/colorblind.toml")),
];

/// The names [`Theme::builtin`] knows; the first is the default.
pub fn builtin_names() -> &'static [&'static str] {
    &["dark", "light", "high-contrast", "colorblind"]
}

/// The name of the default theme.
pub const DEFAULT_THEME: &str = "dark";

/// One item's look: a colour (none in monochrome or when unset) and modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Entry {
    color: Option<Color>,
    modifiers: Modifier,
}

/// A resolved theme: every item has a look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    name: String,
    entries: Vec<Entry>,
    monochrome: bool,
}

impl Default for Theme {
    fn default() -> Self {
        // The embedded default is checked by the tests; monochrome keeps us drawing if not.
        Theme::builtin(DEFAULT_THEME).unwrap_or_else(Theme::monochrome)
    }
}

impl Theme {
    /// The style of one item: its colour as foreground (or background, see
    /// [`ThemeItem::is_background`]) plus its modifiers.
    pub fn style(&self, item: ThemeItem) -> Style {
        let entry = self.entry(item);
        let style = Style::new().add_modifier(entry.modifiers);
        match (entry.color, item.role()) {
            (Some(color), Role::Fg) => style.fg(color),
            (Some(color), Role::Bg) => style.bg(color),
            (None, _) => style,
        }
    }

    /// The item's colour alone, for widgets that take a `Color`; `None` in monochrome.
    pub fn color(&self, item: ThemeItem) -> Option<Color> {
        self.entry(item).color
    }

    /// The style of a severity (the `ok`, `warning` and `critical` items).
    pub fn severity(&self, severity: Severity) -> Style {
        self.style(severity.item())
    }

    /// A one-column symbol for a severity, shown next to the figure in every theme so that
    /// severity never relies on colour.
    pub fn severity_symbol(&self, severity: Severity) -> &'static str {
        severity_symbol(severity)
    }

    /// True for [`Theme::monochrome`]: no colours, only modifiers.
    pub fn is_monochrome(&self) -> bool {
        self.monochrome
    }

    /// The built-in name, the file stem of a theme file, or `monochrome`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A built-in theme by name (`dark`, `light`, `high-contrast`, `colorblind`; case and
    /// `_`/`-` don't matter, `default` means `dark`).
    pub fn builtin(name: &str) -> Option<Theme> {
        let name = name.trim().to_ascii_lowercase().replace('_', "-");
        let name = match name.as_str() {
            "default" => DEFAULT_THEME,
            "highcontrast" => "high-contrast",
            "colourblind" | "colour-blind" | "color-blind" => "colorblind",
            other => other,
        };
        let (name, source) = BUILTINS.iter().find(|(n, _)| *n == name)?;
        // Built-ins define every item themselves, so they start from nothing.
        let layer = Layer::parse(&format!("{name}.toml"), source).ok()?;
        Some(layer.apply(name, Theme::empty(name)))
    }

    /// A built-in theme by name, else a theme file at that path.
    pub fn load(name_or_path: &str) -> Result<Theme, ThemeError> {
        if let Some(theme) = Theme::builtin(name_or_path) {
            return Ok(theme);
        }
        match std::fs::read_to_string(name_or_path) {
            Ok(source) => Theme::from_toml_str(name_or_path, &source),
            Err(err)
                if err.kind() == std::io::ErrorKind::NotFound && !looks_like_path(name_or_path) =>
            {
                Err(ThemeError::UnknownTheme {
                    name: name_or_path.to_owned(),
                })
            }
            Err(source) => Err(ThemeError::Read {
                path: name_or_path.to_owned(),
                source,
            }),
        }
    }

    /// A theme from TOML text; `file` names it in errors and gives the theme its name.
    /// Items the text leaves out come from the theme it `extends` (default: `dark`).
    pub fn from_toml_str(file: &str, source: &str) -> Result<Theme, ThemeError> {
        let layer = Layer::parse(file, source)?;
        let base = match &layer.extends {
            Some((base, span)) => Theme::builtin(base).ok_or_else(|| ThemeError::BadExtends {
                at: Location::at(file, source, span.start),
                value: format!("{base:?}"),
            })?,
            None => Theme::default(),
        };
        let name = Path::new(file)
            .file_stem()
            .map_or_else(|| file.to_owned(), |s| s.to_string_lossy().into_owned());
        Ok(layer.apply(&name, base))
    }

    /// For `NO_COLOR` / `--no-color`: no colours at all. Warning is bold, critical bold and
    /// reversed, badges reversed, borders plain (the focused one bold so focus stays visible).
    pub fn monochrome() -> Theme {
        let entries = ThemeItem::ALL
            .iter()
            .map(|&item| Entry {
                color: None,
                modifiers: monochrome_modifiers(item),
            })
            .collect();
        Theme {
            name: "monochrome".to_owned(),
            entries,
            monochrome: true,
        }
    }

    fn empty(name: &str) -> Theme {
        Theme {
            name: name.to_owned(),
            entries: vec![Entry::default(); ThemeItem::ALL.len()],
            monochrome: false,
        }
    }

    fn entry(&self, item: ThemeItem) -> Entry {
        // `entries` always has one entry per item, in `ThemeItem::ALL` order.
        self.entries.get(item as usize).copied().unwrap_or_default()
    }
}

fn monochrome_modifiers(item: ThemeItem) -> Modifier {
    use ThemeItem as I;
    match item {
        I::Warning | I::Title | I::Key | I::BorderFocused | I::TimelineMarker | I::HeaderText => {
            Modifier::BOLD
        }
        I::Critical => Modifier::BOLD | Modifier::REVERSED,
        I::BadgeStale | I::BadgeDisconnected | I::BadgeRec | I::BadgeFrozen => {
            Modifier::BOLD | Modifier::REVERSED
        }
        I::Selected | I::TimelineCursor => Modifier::REVERSED,
        I::Dim => Modifier::DIM,
        _ => Modifier::empty(),
    }
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.contains('\\') || s.ends_with(".toml")
}

/// A one-column symbol for a severity, the same in every theme (and in the report's page):
/// severity never relies on colour.
pub fn severity_symbol(severity: Severity) -> &'static str {
    match severity {
        Severity::Ok => "✓",
        Severity::Unknown => "?",
        Severity::Warning => "▲",
        Severity::Critical => "✖",
    }
}

#[cfg(test)]
mod tests {
    use super::file::{closest, colour_from_str, edit_distance};
    use super::*;

    #[test]
    fn items_are_indexed_in_declaration_order() {
        for (i, item) in ThemeItem::ALL.iter().enumerate() {
            assert_eq!(*item as usize, i, "{item:?}");
        }
    }

    #[test]
    fn keys_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &item in ThemeItem::ALL {
            let key = item.key();
            assert!(seen.insert(key), "duplicate key {key}");
            assert!(
                key.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{key} is not kebab-case"
            );
            assert_eq!(ThemeItem::from_key(key), Some(item));
            assert!(!item.description().is_empty());
            assert!(!item.description().contains('\n'));
        }
    }

    #[test]
    fn every_builtin_defines_every_item_without_extends() {
        for &name in builtin_names() {
            let source = BUILTINS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| *s)
                .expect("embedded");
            let layer = Layer::parse(&format!("{name}.toml"), source).expect("parses");
            assert!(layer.extends.is_none(), "{name} must not extend");
            for &item in ThemeItem::ALL {
                assert!(
                    layer.colors.iter().any(|(i, _)| *i == item),
                    "{name}.toml does not set colors.{}",
                    item.key()
                );
            }
            let theme = Theme::builtin(name).expect("builtin");
            assert_eq!(theme.name(), name);
            assert!(!theme.is_monochrome());
        }
    }

    #[test]
    fn builtin_names_are_forgiving() {
        assert_eq!(
            Theme::builtin("High_Contrast").map(|t| t.name),
            Some("high-contrast".into())
        );
        assert_eq!(
            Theme::builtin("default").map(|t| t.name),
            Some("dark".into())
        );
        assert_eq!(
            Theme::builtin("colourblind").map(|t| t.name),
            Some("colorblind".into())
        );
        assert!(Theme::builtin("solarized").is_none());
        assert_eq!(Theme::default().name(), DEFAULT_THEME);
        assert_eq!(builtin_names()[0], DEFAULT_THEME);
    }

    #[test]
    fn colours_parse() {
        assert_eq!(colour_from_str("red"), Some(Color::Red));
        assert_eq!(colour_from_str("LightBlue"), Some(Color::LightBlue));
        assert_eq!(colour_from_str("dark-grey"), Some(Color::DarkGray));
        assert_eq!(colour_from_str("reset"), Some(Color::Reset));
        assert_eq!(
            colour_from_str("#D55E00"),
            Some(Color::Rgb(0xd5, 0x5e, 0x00))
        );
        assert_eq!(colour_from_str("208"), Some(Color::Indexed(208)));
        assert_eq!(colour_from_str("#12345"), None);
        assert_eq!(colour_from_str("#12345g"), None);
        assert_eq!(colour_from_str("#ééé"), None);
        assert_eq!(colour_from_str("256"), None);
        assert_eq!(colour_from_str("purple"), None);
        assert_eq!(colour_from_str(""), None);
    }

    #[test]
    fn integer_colours_are_palette_indexes() {
        let theme =
            Theme::from_toml_str("t.toml", "[colors]\ntext = 42\ndim = 0x10\n").expect("valid");
        assert_eq!(theme.color(ThemeItem::Text), Some(Color::Indexed(42)));
        assert_eq!(theme.color(ThemeItem::Dim), Some(Color::Indexed(16)));
        let err = Theme::from_toml_str("t.toml", "[colors]\ntext = 256\n").expect_err("too big");
        assert!(matches!(err, ThemeError::BadColour { .. }), "{err}");
    }

    #[test]
    fn roles_put_colour_on_fg_or_bg() {
        let theme = Theme::from_toml_str(
            "t.toml",
            "[colors]\ntext = \"red\"\npopup-bg = \"blue\"\n[modifiers]\ntext = \"bold\"\n",
        )
        .expect("valid");
        assert_eq!(
            theme.style(ThemeItem::Text),
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
        );
        assert_eq!(
            theme.style(ThemeItem::PopupBg),
            Style::new().bg(Color::Blue)
        );
    }

    #[test]
    fn location_counts_lines_and_characters() {
        let source = "a\nbé = 1\n";
        let loc = Location::at("f", source, source.find('=').expect("has ="));
        assert_eq!((loc.line, loc.column), (2, 4));
        assert_eq!(Location::at("f", source, 0).to_string(), "f:1:1");
        // Past the end and inside a character never panic.
        assert_eq!(Location::at("f", source, 999).line, 3);
        let _ = Location::at("f", source, 4);
    }

    #[test]
    fn suggestions_only_when_close() {
        let keys = || ThemeItem::ALL.iter().map(|i| i.key());
        assert_eq!(closest("warnng", keys()), Some("warning"));
        assert_eq!(closest("border_focused", keys()), Some("border-focused"));
        assert_eq!(closest("flush-lr", keys()), Some("flush-lru"));
        assert_eq!(closest("zebra", keys()), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn severity_symbols_are_one_column_and_distinct() {
        let theme = Theme::monochrome();
        let symbols =
            [Severity::Ok, Severity::Warning, Severity::Critical].map(|s| theme.severity_symbol(s));
        for symbol in symbols {
            assert_eq!(ratatui::text::Span::raw(symbol).width(), 1, "{symbol}");
        }
        assert_ne!(symbols[0], symbols[1]);
        assert_ne!(symbols[1], symbols[2]);
        assert_ne!(symbols[0], symbols[2]);
    }
}
