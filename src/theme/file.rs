//! Theme files: flat TOML (`[colors]`, optional `[modifiers]`, optional `extends`) read into
//! a layer of item overrides, with errors that point at `file:line:column` and suggest the
//! item or colour that was probably meant.

use std::fmt;
use std::ops::Range;

use ratatui::style::{Color, Modifier};
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use super::{Theme, ThemeItem, builtin_names};

/// Where in a theme file something is: `file:line:column`, both 1-based, column in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl Location {
    pub(super) fn at(file: &str, source: &str, offset: usize) -> Location {
        // Spans start on a char boundary; step back to one anyway rather than panic.
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &source[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Location {
            file: file.to_owned(),
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Why a theme could not be loaded. Every message names the place and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error(
        "unknown theme {name:?}: use one of {}, or the path of a .toml theme file",
        builtin_names().join(", ")
    )]
    UnknownTheme { name: String },
    #[error("{path}: cannot read theme file: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{at}: invalid TOML: {message}")]
    Syntax { at: Location, message: String },
    #[error(
        "{at}: unknown section {key:?}{}: use [colors] and [modifiers], or extends = \"<built-in theme>\"",
        did_you_mean(suggestion)
    )]
    UnknownSection {
        at: Location,
        key: String,
        suggestion: Option<&'static str>,
    },
    #[error("{at}: {key:?} must be a table, e.g. [{key}] on a line of its own")]
    NotATable { at: Location, key: &'static str },
    #[error("{at}: unknown theme item {key:?}{}", did_you_mean(suggestion))]
    UnknownItem {
        at: Location,
        key: String,
        suggestion: Option<&'static str>,
    },
    #[error(
        "{at}: bad colour {value} for {key:?}: use a name (red, lightblue, …), #rrggbb or 0–255"
    )]
    BadColour {
        at: Location,
        key: &'static str,
        value: String,
    },
    #[error(
        "{at}: bad modifier {value} for {key:?}: use a list of bold, dim, italic, underlined, reversed, crossed-out, slow-blink, rapid-blink, hidden (or [] for none)"
    )]
    BadModifier {
        at: Location,
        key: &'static str,
        value: String,
    },
    #[error(
        "{at}: bad value {value} for \"extends\": use one of {}",
        builtin_names().join(", ")
    )]
    BadExtends { at: Location, value: String },
}

fn did_you_mean(suggestion: &Option<&'static str>) -> String {
    suggestion
        .map(|s| format!(" (did you mean {s:?}?)"))
        .unwrap_or_default()
}

/// What one theme file says, before it is laid over its base.
pub(super) struct Layer {
    pub(super) colors: Vec<(ThemeItem, Color)>,
    pub(super) modifiers: Vec<(ThemeItem, Modifier)>,
    pub(super) extends: Option<(String, Range<usize>)>,
}

type Item<'a, 'i> = (&'a Spanned<DeString<'i>>, &'a Spanned<DeValue<'i>>);

/// A table's entries in file order (the map itself is sorted by key), so the first problem
/// reported is the first in the file.
fn in_file_order<'a, 'i>(table: &'a DeTable<'i>) -> Vec<Item<'a, 'i>> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    entries
}

impl Layer {
    pub(super) fn parse(file: &str, source: &str) -> Result<Layer, ThemeError> {
        let at = |offset: usize| Location::at(file, source, offset);
        let document = DeTable::parse(source).map_err(|err| {
            let span = err.span().unwrap_or(0..0);
            let mut message = err.message().trim().replace('\n', "; ");
            // toml doesn't say which key is duplicated; the span does.
            if message == "duplicate key"
                && let Some(key) = source.get(span.clone()).filter(|k| !k.contains('\n'))
            {
                message = format!("duplicate key {:?}", key.trim_matches(['"', '\'']));
            }
            ThemeError::Syntax {
                at: at(span.start),
                message,
            }
        })?;
        let mut layer = Layer {
            colors: Vec::new(),
            modifiers: Vec::new(),
            extends: None,
        };
        for (key, value) in in_file_order(document.get_ref()) {
            match key.get_ref().as_ref() {
                "colors" => {
                    for (item, value) in items_of(file, source, "colors", key, value)? {
                        layer
                            .colors
                            .push((item, parse_colour(file, source, item, value)?));
                    }
                }
                "modifiers" => {
                    for (item, value) in items_of(file, source, "modifiers", key, value)? {
                        layer
                            .modifiers
                            .push((item, parse_modifiers(file, source, item, value)?));
                    }
                }
                "extends" => match value.get_ref() {
                    DeValue::String(name) => {
                        layer.extends = Some((name.to_string(), value.span()));
                    }
                    _ => {
                        return Err(ThemeError::BadExtends {
                            at: at(value.span().start),
                            value: shown(source, value),
                        });
                    }
                },
                other => {
                    return Err(ThemeError::UnknownSection {
                        at: at(key.span().start),
                        key: other.to_owned(),
                        suggestion: closest(other, ["colors", "modifiers", "extends"]),
                    });
                }
            }
        }
        Ok(layer)
    }

    pub(super) fn apply(self, name: &str, mut base: Theme) -> Theme {
        for (item, color) in self.colors {
            if let Some(entry) = base.entries.get_mut(item as usize) {
                entry.color = Some(color);
            }
        }
        for (item, modifiers) in self.modifiers {
            if let Some(entry) = base.entries.get_mut(item as usize) {
                entry.modifiers = modifiers;
            }
        }
        base.name = name.to_owned();
        base.monochrome = false;
        base
    }
}

/// The items of a `[colors]` or `[modifiers]` table, checked against [`ThemeItem`].
fn items_of<'a, 'i>(
    file: &str,
    source: &str,
    section: &'static str,
    key: &Spanned<DeString<'i>>,
    value: &'a Spanned<DeValue<'i>>,
) -> Result<Vec<(ThemeItem, &'a Spanned<DeValue<'i>>)>, ThemeError> {
    let DeValue::Table(table) = value.get_ref() else {
        return Err(ThemeError::NotATable {
            at: Location::at(file, source, key.span().start),
            key: section,
        });
    };
    in_file_order(table)
        .into_iter()
        .map(|(key, value)| {
            let name = key.get_ref().as_ref();
            ThemeItem::from_key(name)
                .map(|item| (item, value))
                .ok_or_else(|| ThemeError::UnknownItem {
                    at: Location::at(file, source, key.span().start),
                    key: name.to_owned(),
                    suggestion: closest(name, ThemeItem::ALL.iter().map(|item| item.key())),
                })
        })
        .collect()
}

/// A value as the user wrote it, for error messages.
fn shown(source: &str, value: &Spanned<DeValue<'_>>) -> String {
    match value.get_ref() {
        DeValue::String(s) => format!("{s:?}"),
        DeValue::Table(_) => "(a table)".to_owned(),
        _ => match source.get(value.span()) {
            Some(raw) if !raw.contains('\n') && raw.chars().count() <= 40 => raw.to_owned(),
            _ => format!("(a {})", value.get_ref().type_str()),
        },
    }
}

fn parse_colour(
    file: &str,
    source: &str,
    item: ThemeItem,
    value: &Spanned<DeValue<'_>>,
) -> Result<Color, ThemeError> {
    let color = match value.get_ref() {
        DeValue::String(s) => colour_from_str(s),
        DeValue::Integer(i) => u8::from_str_radix(i.as_str(), i.radix())
            .ok()
            .map(Color::Indexed),
        _ => None,
    };
    color.ok_or_else(|| ThemeError::BadColour {
        at: Location::at(file, source, value.span().start),
        key: item.key(),
        value: shown(source, value),
    })
}

/// `red`, `lightblue`, `dark-gray`, `#rrggbb` or `"0"`–`"255"`.
pub(super) fn colour_from_str(s: &str) -> Option<Color> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix('#') {
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        return Some(Color::Rgb(channel(0)?, channel(2)?, channel(4)?));
    }
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u8>().ok().map(Color::Indexed);
    }
    let name: String = s
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .collect::<String>()
        .to_ascii_lowercase();
    Some(match name.as_str() {
        "reset" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "darkgray" | "darkgrey" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        _ => return None,
    })
}

fn parse_modifiers(
    file: &str,
    source: &str,
    item: ThemeItem,
    value: &Spanned<DeValue<'_>>,
) -> Result<Modifier, ThemeError> {
    let bad = |value: &Spanned<DeValue<'_>>| ThemeError::BadModifier {
        at: Location::at(file, source, value.span().start),
        key: item.key(),
        value: shown(source, value),
    };
    let one = |value: &Spanned<DeValue<'_>>| match value.get_ref() {
        DeValue::String(s) => modifier_from_str(s).ok_or_else(|| bad(value)),
        _ => Err(bad(value)),
    };
    match value.get_ref() {
        DeValue::String(_) => one(value),
        DeValue::Array(list) => list
            .iter()
            .try_fold(Modifier::empty(), |all, value| Ok(all | one(value)?)),
        _ => Err(bad(value)),
    }
}

fn modifier_from_str(s: &str) -> Option<Modifier> {
    let name: String = s
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .collect::<String>()
        .to_ascii_lowercase();
    Some(match name.as_str() {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" | "underline" => Modifier::UNDERLINED,
        "slowblink" => Modifier::SLOW_BLINK,
        "rapidblink" => Modifier::RAPID_BLINK,
        "reversed" | "reverse" => Modifier::REVERSED,
        "hidden" => Modifier::HIDDEN,
        "crossedout" => Modifier::CROSSED_OUT,
        _ => return None,
    })
}

/// The candidate nearest to a misspelt `word`, if it is near enough to be what was meant.
pub(super) fn closest(
    word: &str,
    candidates: impl IntoIterator<Item = &'static str>,
) -> Option<&'static str> {
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(word, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}
