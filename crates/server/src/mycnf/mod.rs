//! MySQL option files (`my.cnf`): which files are read, which groups count, and the few
//! client keys innodebt takes from them. Parsing is pure ([`parse`]); [`load`] does the I/O.
//!
//! Files are read like the mysql client does: `/etc/my.cnf`, `/etc/mysql/my.cnf`, the
//! `--defaults-extra-file`, then `~/.my.cnf`, each with its `!include`/`!includedir` files.
//! A later file wins over an earlier one; within one file `[innodebt]` wins over `[client]`.

use std::collections::HashSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub mod login;
pub use login::load_login_file;

/// The groups read, lowest priority first. `[client-server]` and `[client-mariadb]` are the
/// MariaDB client's groups (Debian's MariaDB puts the socket in `[client-server]`).
pub const GROUPS: &[&str] = &["client-server", "client", "client-mariadb", "innodebt"];

/// The system-wide files read before the user's own, in order.
pub const SYSTEM_FILES: &[&str] = &["/etc/my.cnf", "/etc/mysql/my.cnf"];

/// Includes nested deeper than this are taken for a loop.
const MAX_INCLUDE_DEPTH: usize = 10;

/// Where a setting was read: shown in errors so the DBA can go and fix that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub path: PathBuf,
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line {}", self.path.display(), self.line)
    }
}

/// One value from an option file. `value` is `None` for a bare `key` line
/// (for `password` that means "prompt for it", as in the mysql client).
#[derive(Clone, PartialEq, Eq)]
pub struct Setting {
    pub value: Option<String>,
    pub origin: Origin,
}

impl fmt::Debug for Setting {
    // Settings can hold a password: never print values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting")
            .field("value", &self.value.as_ref().map(|_| "***"))
            .field("origin", &self.origin)
            .finish()
    }
}

/// The client keys innodebt understands, as found in the option files (raw text; the caller
/// validates, naming [`Setting::origin`] when a value is bad).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientSettings {
    pub host: Option<Setting>,
    pub port: Option<Setting>,
    pub user: Option<Setting>,
    pub password: Option<Setting>,
    pub socket: Option<Setting>,
    pub ssl_mode: Option<Setting>,
    pub ssl_ca: Option<Setting>,
    pub ssl_cert: Option<Setting>,
    pub ssl_key: Option<Setting>,
}

impl ClientSettings {
    fn slot(&mut self, key: &str) -> Option<&mut Option<Setting>> {
        Some(match key {
            "host" => &mut self.host,
            "port" => &mut self.port,
            "user" => &mut self.user,
            "password" => &mut self.password,
            "socket" => &mut self.socket,
            "ssl-mode" => &mut self.ssl_mode,
            "ssl-ca" => &mut self.ssl_ca,
            "ssl-cert" => &mut self.ssl_cert,
            "ssl-key" => &mut self.ssl_key,
            _ => return None,
        })
    }
}

/// One meaningful line of an option file.
#[derive(Clone, PartialEq, Eq)]
pub enum Item {
    /// `key` or `key = value` under `[group]`. Group and key are normalised: lower case,
    /// `_` written as `-`, a `loose-` prefix dropped.
    Option {
        group: String,
        key: String,
        value: Option<String>,
        line: usize,
    },
    /// `!include FILE`
    Include { path: PathBuf, line: usize },
    /// `!includedir DIR`: every `*.cnf` in DIR, in name order.
    IncludeDir { path: PathBuf, line: usize },
}

impl fmt::Debug for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Option {
                group,
                key,
                value,
                line,
            } => {
                // Values may be passwords.
                let shown = match (key.as_str(), value) {
                    ("password", Some(_)) => Some("***"),
                    (_, Some(v)) => Some(v.as_str()),
                    (_, None) => None,
                };
                f.debug_struct("Option")
                    .field("group", group)
                    .field("key", key)
                    .field("value", &shown)
                    .field("line", line)
                    .finish()
            }
            Item::Include { path, line } => f
                .debug_struct("Include")
                .field("path", path)
                .field("line", line)
                .finish(),
            Item::IncludeDir { path, line } => f
                .debug_struct("IncludeDir")
                .field("path", path)
                .field("line", line)
                .finish(),
        }
    }
}

/// A line [`parse`] could not make sense of.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct SyntaxError {
    pub line: usize,
    pub message: String,
}

/// What can go wrong while reading option files. Every variant names the file.
#[derive(Debug, Error)]
pub enum MyCnfError {
    #[error(
        "option file {} given with {flag} does not exist: check the path (or leave the option out)",
        path.display()
    )]
    Missing { path: PathBuf, flag: &'static str },
    #[error(
        "cannot read option file {}: {source}; make it readable by this user, or run with --no-defaults to skip option files",
        path.display()
    )]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "option file {} line {line}: {message}; fix that line, or run with --no-defaults to skip option files",
        path.display()
    )]
    Syntax {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(
        "--login-path {name}: cannot use the login file {}: {reason}; write it again with \
         mysql_config_editor set --login-path={name} ...",
        path.display()
    )]
    LoginFile {
        path: PathBuf,
        name: String,
        reason: String,
    },
}

/// One file to read, and whether the user named it (then it must exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionFile {
    pub path: PathBuf,
    /// The flag that named the file (`--defaults-file`, `--defaults-extra-file`), or `None`
    /// for a default location, which may be missing.
    pub given_by: Option<&'static str>,
}

impl OptionFile {
    fn default_location(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            given_by: None,
        }
    }
}

/// The files to read, in order, for the given flags.
///
/// `--no-defaults` reads none; `--defaults-file` reads only that file; otherwise the system
/// files, then `--defaults-extra-file`, then `~/.my.cnf` (the manual's order: the extra file
/// comes after the global files but before the user's own).
pub fn files_to_read(
    system_files: &[PathBuf],
    home: Option<&Path>,
    defaults_file: Option<&Path>,
    defaults_extra_file: Option<&Path>,
    no_defaults: bool,
) -> Vec<OptionFile> {
    if no_defaults {
        return Vec::new();
    }
    if let Some(path) = defaults_file {
        return vec![OptionFile {
            path: path.to_path_buf(),
            given_by: Some("--defaults-file"),
        }];
    }
    let mut files: Vec<OptionFile> = system_files
        .iter()
        .map(|p| OptionFile::default_location(p.clone()))
        .collect();
    if let Some(path) = defaults_extra_file {
        files.push(OptionFile {
            path: path.to_path_buf(),
            given_by: Some("--defaults-extra-file"),
        });
    }
    if let Some(home) = home {
        files.push(OptionFile::default_location(home.join(".my.cnf")));
    }
    files
}

/// The result of [`load`].
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub settings: ClientSettings,
    /// Files that were read, includes too, in reading order.
    pub read: Vec<PathBuf>,
    /// Default files skipped because they could not be read (the mysql client skips them
    /// silently; we say so, since a missing password is otherwise a puzzle).
    pub warnings: Vec<String>,
}

/// Reads `files` in order and merges the groups in [`GROUPS`].
pub fn load(files: &[OptionFile]) -> Result<Loaded, MyCnfError> {
    let mut loaded = Loaded::default();
    for file in files {
        let mut entries = Vec::new();
        let mut reader = Reader {
            loaded: &mut loaded,
            entries: &mut entries,
            active: HashSet::new(),
        };
        reader.read_file(&file.path, file.given_by, 0)?;
        merge_unit(&mut loaded.settings, entries);
    }
    Ok(loaded)
}

/// A setting found while reading one top-level file and its includes.
struct Entry {
    rank: usize,
    key: String,
    setting: Setting,
}

/// Within one top-level file (with its includes) a higher-ranked group wins whatever the
/// line order; across files the later file wins.
fn merge_unit(settings: &mut ClientSettings, mut entries: Vec<Entry>) {
    entries.sort_by_key(|e| e.rank); // stable: keeps reading order within a group
    for entry in entries {
        if let Some(slot) = settings.slot(&entry.key) {
            *slot = Some(entry.setting);
        }
    }
}

struct Reader<'a> {
    loaded: &'a mut Loaded,
    entries: &'a mut Vec<Entry>,
    /// Files on the current include chain, to stop include loops.
    active: HashSet<PathBuf>,
}

impl Reader<'_> {
    fn read_file(
        &mut self,
        path: &Path,
        given_by: Option<&'static str>,
        depth: usize,
    ) -> Result<(), MyCnfError> {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return match given_by {
                    Some(flag) => Err(MyCnfError::Missing {
                        path: path.to_path_buf(),
                        flag,
                    }),
                    None => Ok(()),
                };
            }
            Err(source) => {
                return match given_by {
                    Some(_) => Err(MyCnfError::Unreadable {
                        path: path.to_path_buf(),
                        source,
                    }),
                    None => {
                        self.loaded
                            .warnings
                            .push(format!("skipped option file {}: {source}", path.display()));
                        Ok(())
                    }
                };
            }
        };
        let items = parse(&text).map_err(|e| MyCnfError::Syntax {
            path: path.to_path_buf(),
            line: e.line,
            message: e.message,
        })?;
        self.loaded.read.push(path.to_path_buf());
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.active.insert(key.clone());
        let result = self.apply(path, items, depth);
        self.active.remove(&key);
        result
    }

    fn apply(&mut self, path: &Path, items: Vec<Item>, depth: usize) -> Result<(), MyCnfError> {
        for item in items {
            match item {
                Item::Option {
                    group,
                    key,
                    value,
                    line,
                } => {
                    if let Some(rank) = GROUPS.iter().position(|g| *g == group) {
                        self.entries.push(Entry {
                            rank,
                            key,
                            setting: Setting {
                                value,
                                origin: Origin {
                                    path: path.to_path_buf(),
                                    line,
                                },
                            },
                        });
                    }
                }
                Item::Include { path: target, line } => {
                    let target = relative_to(path, &target);
                    self.include(path, line, &target, depth)?;
                }
                Item::IncludeDir { path: dir, line } => {
                    let dir = relative_to(path, &dir);
                    for file in cnf_files_in(&dir) {
                        self.include(path, line, &file, depth)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn include(
        &mut self,
        from: &Path,
        line: usize,
        target: &Path,
        depth: usize,
    ) -> Result<(), MyCnfError> {
        let canonical = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
        if depth + 1 > MAX_INCLUDE_DEPTH || self.active.contains(&canonical) {
            return Err(MyCnfError::Syntax {
                path: from.to_path_buf(),
                line,
                message: format!(
                    "including {} makes a loop (or nests deeper than {MAX_INCLUDE_DEPTH} files)",
                    target.display()
                ),
            });
        }
        // A missing include is skipped, as the mysql client does.
        self.read_file(target, None, depth + 1)
    }
}

fn relative_to(file: &Path, target: &Path) -> PathBuf {
    if target.is_absolute() {
        return target.to_path_buf();
    }
    match file.parent() {
        Some(dir) => dir.join(target),
        None => target.to_path_buf(),
    }
}

/// The `*.cnf` files of `dir` in name order; nothing if the directory can't be listed.
fn cnf_files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(read_dir) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read_dir
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "cnf") && !p.is_dir())
        .collect();
    files.sort();
    files
}

/// Parses the text of one option file. Pure: includes are returned, not followed.
///
/// Syntax (MySQL manual, "Option File Syntax"): `[group]`; `key`; `key = value`; `#` or `;`
/// starts a comment line, and `#` also ends a value unless quoted; a value may be in single or
/// double quotes; `\n \t \r \b \s \\ \" \'` are escapes; `!include FILE`, `!includedir DIR`.
pub fn parse(text: &str) -> Result<Vec<Item>, SyntaxError> {
    let mut items = Vec::new();
    let mut group: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let err = |message: String| SyntaxError { line, message };
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(directive) = trimmed.strip_prefix('!') {
            let (name, arg) = match directive.split_once(char::is_whitespace) {
                Some((name, arg)) => (name, arg.trim()),
                None => (directive, ""),
            };
            let path = PathBuf::from(arg);
            match name {
                "include" | "includedir" if arg.is_empty() => {
                    return Err(err(format!("!{name} needs a path")));
                }
                "include" => items.push(Item::Include { path, line }),
                "includedir" => items.push(Item::IncludeDir { path, line }),
                _ => {
                    return Err(err(format!(
                        "unknown directive !{name} (only !include and !includedir exist)"
                    )));
                }
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some((name, after)) = rest.split_once(']') else {
                return Err(err(format!("group header {trimmed} has no closing ]")));
            };
            let after = after.trim();
            if !(after.is_empty() || after.starts_with('#') || after.starts_with(';')) {
                return Err(err(format!(
                    "unexpected text {after:?} after the group header"
                )));
            }
            let name = name.trim();
            if name.is_empty() {
                return Err(err("empty group name []".to_owned()));
            }
            group = Some(name.to_ascii_lowercase());
            continue;
        }
        let Some(group) = group.clone() else {
            return Err(err(
                "option before any [group] header: put it under [client] or [innodebt]".to_owned(),
            ));
        };
        let (key, value) = match trimmed.split_once('=') {
            Some((key, value)) => (key.trim(), Some(parse_value(value).map_err(err)?)),
            None => (strip_comment(trimmed).trim_end(), None),
        };
        if key.is_empty() {
            return Err(err("option with no name before '='".to_owned()));
        }
        items.push(Item::Option {
            group,
            key: normalize_key(key),
            value,
            line,
        });
    }
    Ok(items)
}

fn normalize_key(key: &str) -> String {
    let key = key.to_ascii_lowercase().replace('_', "-");
    match key.strip_prefix("loose-") {
        Some(rest) => rest.to_owned(),
        None => key,
    }
}

/// Text up to an unquoted `#`.
fn strip_comment(s: &str) -> &str {
    s.split_once('#').map_or(s, |(before, _)| before)
}

/// The value after `=`: trimmed, unquoted, escapes applied, a trailing `# comment` removed.
fn parse_value(raw: &str) -> Result<String, String> {
    let raw = raw.trim();
    let mut chars = raw.chars();
    let Some(first) = chars.next() else {
        return Ok(String::new());
    };
    if first == '"' || first == '\'' {
        let mut out = String::new();
        let mut escaped = false;
        for (pos, c) in raw.char_indices().skip(1) {
            if escaped {
                push_escape(&mut out, c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == first {
                let rest = raw[pos + c.len_utf8()..].trim();
                if rest.is_empty() || rest.starts_with('#') {
                    return Ok(out);
                }
                return Err(format!(
                    "unexpected text {rest:?} after the quoted value (a comment starts with #)"
                ));
            } else {
                out.push(c);
            }
        }
        return Err(format!(
            "the value starts with {first} but the closing {first} is missing"
        ));
    }
    let body = strip_comment(raw).trim_end();
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(next) => push_escape(&mut out, next),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn push_escape(out: &mut String, c: char) {
    match c {
        'n' => out.push('\n'),
        't' => out.push('\t'),
        'r' => out.push('\r'),
        'b' => out.push('\u{8}'),
        's' => out.push(' '),
        '\\' | '"' | '\'' => out.push(c),
        // Unknown escapes stay as written, so Windows-style paths survive.
        other => {
            out.push('\\');
            out.push(other);
        }
    }
}

#[cfg(test)]
mod tests;
