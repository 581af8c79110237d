//! Properties of the file readers fed by users and other tools — the capture reader, the
//! pt-stalk importer, theme files and option files — the same parsers `fuzz/` fuzzes, here
//! with generated inputs that run in every `cargo test`:
//! - a real capture, damaged at random (bytes flipped, inserted, deleted, file cut), reads
//!   as a prefix of its events, and every section the index still decodes holds exactly the
//!   events that were written there;
//! - a pt-stalk directory, real or made up, imports or fails with a message, never panics,
//!   and what it imports is in time order;
//! - theme and option files: any text gives a value or a located error; the colours and
//!   values written are the ones read.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use innodebt::theme::{Theme, ThemeItem};
use innodebt_capture::reader::from_bytes;
use innodebt_capture::writer::{CaptureWriter, WriterOptions};
use innodebt_capture::{CaptureIndex, End, ImportError, import_dir};
use innodebt_server::mycnf::{self, Item, OptionFile};
use innodebt_server::sample::SourceEvent;
use proptest::prelude::*;
use proptest::sample::Index;
use ratatui::style::Color;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ptstalk_fixture() -> PathBuf {
    repo().join("tests/fixtures/ptstalk")
}

// ---------------------------------------------------------------------------------------
// Capture reader

/// A real capture (the shipped demo, recorded from MariaDB 10.11 under load) rewritten with
/// small sections, so a damaged file has sections before and after the damage.
struct RealCapture {
    bytes: Vec<u8>,
    events: Vec<SourceEvent>,
    sections: usize,
}

fn real_capture() -> &'static RealCapture {
    static CAPTURE: OnceLock<RealCapture> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let demo = innodebt_capture::open(repo().join("demo/mariadb-10.11-blocker.idbt"))
            .expect("the demo capture reads");
        let events: Vec<SourceEvent> = demo.events.into_iter().take(120).collect();
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("real.idbt");
        let opts = WriterOptions {
            frame_records: 16,
            ..WriterOptions::default()
        };
        let mut w = CaptureWriter::create_with(&path, &demo.header, opts).expect("create");
        for e in &events {
            w.append(e).expect("append");
        }
        let summary = w.finish().expect("finish");
        let bytes = std::fs::read(&path).expect("read back");
        let clean = from_bytes(&bytes, &path).expect("the rewritten capture reads");
        assert_eq!(clean.end, End::Complete);
        assert_eq!(
            clean.events, events,
            "scrubbing must not change the demo's events"
        );
        RealCapture {
            bytes,
            events,
            sections: summary.frames as usize,
        }
    })
}

/// One way a file gets damaged.
#[derive(Debug, Clone)]
enum Damage {
    /// XOR a byte with a non-zero mask.
    Flip(Index, u8),
    /// Insert bytes (a torn write of something else, a stray append).
    Insert(Index, Vec<u8>),
    /// Delete up to 64 bytes (a lost block).
    Delete(Index, usize),
    /// Cut the file here (a writer killed mid-write).
    Cut(Index),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => (any::<Index>(), 1u8..=255).prop_map(|(i, m)| Damage::Flip(i, m)),
        1 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..64))
            .prop_map(|(i, b)| Damage::Insert(i, b)),
        1 => (any::<Index>(), 1usize..64).prop_map(|(i, n)| Damage::Delete(i, n)),
        1 => any::<Index>().prop_map(Damage::Cut),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    if bytes.is_empty() {
        return;
    }
    match d {
        Damage::Flip(i, mask) => {
            let at = i.index(bytes.len());
            bytes[at] ^= mask;
        }
        Damage::Insert(i, more) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, more.iter().copied());
        }
        Damage::Delete(i, n) => {
            let at = i.index(bytes.len());
            bytes.drain(at..(at + n).min(bytes.len()));
        }
        Damage::Cut(i) => bytes.truncate(i.index(bytes.len() + 1)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the damage, the whole-file reader returns the events before it, unchanged
    /// (every record carries a checksum), and says "complete" only when nothing is missing.
    /// The index steps over the damage: any section it still decodes holds exactly the
    /// events written there.
    #[test]
    fn damaged_real_capture_reads_a_prefix(damages in prop::collection::vec(damage(), 1..4)) {
        let real = real_capture();
        prop_assert!(real.sections > 2, "{} sections", real.sections);
        let mut bytes = real.bytes.clone();
        for d in &damages {
            apply(&mut bytes, d);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.idbt");
        if let Ok(cap) = from_bytes(&bytes, &path) {
            let n = cap.events.len();
            prop_assert!(n <= real.events.len());
            prop_assert_eq!(&cap.events[..], &real.events[..n]);
            match &cap.end {
                End::Complete => prop_assert_eq!(n, real.events.len()),
                End::Truncated { at_byte, reason } => {
                    prop_assert!(*at_byte <= bytes.len() as u64);
                    prop_assert!(reason.contains("damaged.idbt"), "{}", reason);
                }
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(idx) = CaptureIndex::open(&path) {
            for i in 0..idx.frames().len() {
                let Ok(f) = idx.read_frame(i) else { continue };
                let first = usize::try_from(f.first_record).unwrap_or(usize::MAX);
                let written = real.events.get(first..first.saturating_add(f.events.len()));
                prop_assert_eq!(Some(&f.events[..]), written, "section {} from record {}", i, first);
            }
        }
    }

    /// Random bytes, alone or after the first bytes of a real capture, never panic either
    /// reader.
    #[test]
    fn random_bytes_never_panic(
        keep in any::<Index>(),
        tail in prop::collection::vec(any::<u8>(), 0..2000),
    ) {
        let real = real_capture();
        let mut bytes = real.bytes[..keep.index(real.bytes.len() / 4)].to_vec();
        bytes.extend_from_slice(&tail);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("random.idbt");
        let _ = from_bytes(&tail, &path);
        let _ = from_bytes(&bytes, &path);
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(idx) = CaptureIndex::open(&path) {
            for i in 0..=idx.frames().len() {
                let _ = idx.read_frame(i);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// pt-stalk importer

/// The pt-stalk fixture's files, the mysqladmin one cut to its first two tables (debug
/// builds parse it quickly; two tables still give a rate).
fn fixture_files() -> &'static [(String, String)] {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files: Vec<(String, String)> = std::fs::read_dir(ptstalk_fixture())
            .expect("the pt-stalk fixture")
            .map(|e| {
                let e = e.expect("a fixture entry");
                let name = e.file_name().to_string_lossy().into_owned();
                let text = std::fs::read_to_string(e.path()).expect("a fixture file");
                (name, text)
            })
            .collect();
        files.sort();
        for (name, text) in &mut files {
            if name.ends_with("-mysqladmin") {
                let tables: Vec<&str> = text.split_inclusive("| Variable_name").collect();
                *text = tables[..tables.len().min(3)].concat();
            }
        }
        files
    })
}

/// What one damaged file of a pt-stalk directory looks like.
#[derive(Debug, Clone)]
enum FileDamage {
    Keep,
    Drop,
    Cut(Index),
    /// Replace one line with generated text.
    Line(Index, String),
}

fn file_damage() -> impl Strategy<Value = FileDamage> {
    prop_oneof![
        3 => Just(FileDamage::Keep),
        1 => Just(FileDamage::Drop),
        2 => any::<Index>().prop_map(FileDamage::Cut),
        3 => (any::<Index>(), ptstalk_line()).prop_map(|(i, l)| FileDamage::Line(i, l)),
    ]
}

/// Lines pt-stalk files hold, with numbers from small to absurd.
fn ptstalk_line() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        Just("0".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[0-9]{1,30}",
        "[0-9]{1,12}\\.[0-9]{0,12}",
        "-?[0-9e.+-]{1,12}",
        // Epochs near both ends of what a date can hold (about ±262,000 years).
        (-8_334_601_228_800i64..-8_300_000_000_000).prop_map(|n| n.to_string()),
        (8_200_000_000_000i64..8_210_266_876_800).prop_map(|n| n.to_string()),
    ];
    prop_oneof![
        (number.clone(), date_time()).prop_map(|(n, d)| format!("TS {n} {d}")),
        number.clone().prop_map(|n| format!("TS {n}")),
        (
            prop::sample::select(
                &[
                    "Uptime",
                    "Innodb_lsn_current",
                    "Innodb_history_list_length",
                    "Innodb_buffer_pool_pages_dirty",
                    "Com_insert",
                    "version",
                    "innodb_log_file_size"
                ][..]
            ),
            number,
        )
            .prop_map(|(k, n)| format!("| {k} | {n} |")),
        Just("| Variable_name | Value |".to_string()),
        Just("+---+---+".to_string()),
        date_time().prop_map(|d| format!("{d} 0x7f INNODB MONITOR OUTPUT")),
        "[ -~]{0,40}",
    ]
}

/// A local date and time as pt-stalk and the server print it (`2026-11-21 20:34:37`), its
/// year mostly recent, sometimes any four digits, sometimes at the ends of what a date can
/// hold (a damaged or hostile file).
fn date_time() -> impl Strategy<Value = String> {
    let year = prop_oneof![
        3 => (1970i32..2100).prop_map(|y| format!("{y:04}")),
        1 => (0i32..10_000).prop_map(|y| format!("{y:04}")),
        1 => (-262_143i32..-262_100).prop_map(|y| y.to_string()),
        1 => (262_100i32..262_143).prop_map(|y| format!("+{y}")),
    ];
    (year, 1u32..=12, 1u32..=28, 0u32..24, 0u32..60, 0u32..60)
        .prop_map(|(y, mo, d, h, mi, s)| format!("{y}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
}

/// A pt-stalk file name: the fixture's stamp, or a made-up one (possibly no real date).
fn stamp() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("2026_11_21_20_34_37".to_string()),
        1 => "[0-9]{4}_[0-9]{2}_[0-9]{2}_[0-9]{2}_[0-9]{2}_[0-9]{2}",
    ]
}

fn check_import(dir: &Path) -> Result<(), TestCaseError> {
    if let Err(ImportError::SeveralPrefixes { list, .. }) = import_dir(dir, None) {
        for prefix in list.split(", ") {
            check_import_of(dir, Some(prefix))?;
        }
        return Ok(());
    }
    check_import_of(dir, None)
}

fn check_import_of(dir: &Path, prefix: Option<&str>) -> Result<(), TestCaseError> {
    match import_dir(dir, prefix) {
        Ok((header, events)) => {
            prop_assert!(
                matches!(events.first(), Some(SourceEvent::Connected { .. })),
                "{:?}",
                events.first()
            );
            let times: Vec<_> = events.iter().map(SourceEvent::at).collect();
            prop_assert!(times.windows(2).all(|w| w[0] <= w[1]), "{:?}", times);
            prop_assert_eq!(Some(&header.started_at), times.first());
        }
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.contains(&dir.display().to_string()), "{}", message);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// The real pt-stalk capture with files missing, cut, or with lines replaced, some
    /// under another time stamp.
    #[test]
    fn damaged_ptstalk_directory_imports_or_says_why(
        damages in prop::collection::vec(file_damage(), 6),
        restamp in prop::option::of((any::<Index>(), stamp())),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let files = fixture_files();
        for (k, ((name, text), d)) in files.iter().zip(&damages).enumerate() {
            let text = match d {
                FileDamage::Keep => text.clone(),
                FileDamage::Drop => continue,
                FileDamage::Cut(i) => {
                    let mut at = i.index(text.len() + 1);
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    text[..at].to_string()
                }
                FileDamage::Line(i, line) => {
                    let mut lines: Vec<&str> = text.lines().collect();
                    if lines.is_empty() {
                        line.clone()
                    } else {
                        let at = i.index(lines.len());
                        lines[at] = line;
                        lines.join("\n")
                    }
                }
            };
            let name = match &restamp {
                Some((which, s)) if which.index(files.len()) == k => {
                    name.replacen("2026_11_21_20_34_37", s, 1)
                }
                _ => name.clone(),
            };
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        check_import(dir.path())?;
    }

    /// Directories made up from scratch: any stamp, any kind, lines of pt-stalk shapes.
    #[test]
    fn made_up_ptstalk_directory_imports_or_says_why(
        files in prop::collection::vec(
            (
                stamp(),
                prop::sample::select(&["mysqladmin", "innodbstatus1", "innodbstatus2",
                    "variables", "hostname", "procstat", "df"][..]),
                prop::collection::vec(ptstalk_line(), 0..30),
            ),
            1..6,
        ),
    ) {
        let dir = tempfile::tempdir().unwrap();
        for (stamp, kind, lines) in &files {
            std::fs::write(dir.path().join(format!("{stamp}-{kind}")), lines.join("\n")).unwrap();
        }
        check_import(dir.path())?;
    }
}

// ---------------------------------------------------------------------------------------
// Theme files

const THEME_FRAGMENTS: &[&str] = &[
    "[colors]",
    "[modifiers]",
    "[colours]",
    "extends = ",
    "\"dark\"",
    "\"light\"",
    "text = ",
    "warning = ",
    "badge-stale = ",
    "\"#ff8800\"",
    "\"#ff88\"",
    "\"light-red\"",
    "300",
    "255",
    "0x10",
    "[\"bold\", \"reversed\"]",
    "[\"bold\", 3]",
    "\"blink\"",
    "{ a = 1 }",
    "[[colors]]",
    "# comment",
    "\"\u{1F600}\"",
    "é = 1",
    "=",
    "\"",
    "'''",
];

fn theme_like() -> impl Strategy<Value = String> {
    let line = prop::collection::vec(prop::sample::select(THEME_FRAGMENTS), 0..4)
        .prop_map(|parts| parts.concat());
    prop::collection::vec(line, 0..20).prop_map(|lines| lines.join("\n"))
}

fn colour() -> impl Strategy<Value = (String, Color)> {
    prop_oneof![
        any::<(u8, u8, u8)>()
            .prop_map(|(r, g, b)| (format!("\"#{r:02x}{g:02X}{b:02x}\""), Color::Rgb(r, g, b))),
        any::<u8>().prop_map(|i| (i.to_string(), Color::Indexed(i))),
        any::<u8>().prop_map(|i| (format!("\"{i}\""), Color::Indexed(i))),
        prop::sample::select(
            &[
                ("\"light-blue\"", Color::LightBlue),
                ("\"Dark_Gray\"", Color::DarkGray),
                ("\"red\"", Color::Red),
                ("\"default\"", Color::Reset),
            ][..]
        )
        .prop_map(|(s, c)| (s.to_string(), c)),
    ]
}

fn check_theme(source: &str) -> Result<(), TestCaseError> {
    match Theme::from_toml_str("props.toml", source) {
        Ok(theme) => {
            for &item in ThemeItem::ALL {
                let _ = theme.style(item);
            }
        }
        Err(e) => {
            // "props.toml:LINE:COLUMN: ...", with the line inside the file.
            let message = e.to_string();
            let rest = message.strip_prefix("props.toml:");
            prop_assert!(rest.is_some(), "{}", message);
            let line: usize = rest
                .and_then(|r| r.split(':').next())
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            prop_assert!(
                line >= 1 && line <= source.split('\n').count(),
                "{}",
                message
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_theme_text_loads_or_names_the_place(source in any::<String>()) {
        check_theme(&source)?;
    }

    #[test]
    fn theme_like_text_loads_or_names_the_place(source in theme_like()) {
        check_theme(&source)?;
    }

    /// Every colour written, in any of the accepted spellings, is the one the theme uses.
    #[test]
    fn colours_written_are_colours_used(
        picks in prop::collection::btree_map(0..ThemeItem::ALL.len(), colour(), 1..12),
    ) {
        let mut source = String::from("[colors]\n");
        for (i, (text, _)) in &picks {
            source.push_str(&format!("{} = {text}\n", ThemeItem::ALL[*i].key()));
        }
        let theme = Theme::from_toml_str("props.toml", &source);
        prop_assert!(theme.is_ok(), "{:?}\n{}", theme.err().map(|e| e.to_string()), source);
        let theme = theme.unwrap();
        for (i, (_, want)) in &picks {
            let item = ThemeItem::ALL[*i];
            prop_assert_eq!(theme.color(item), Some(*want), "{}", item.key());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Option files (~/.my.cnf)

/// `value` written as a double-quoted option-file value.
fn quoted(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_option_file_text_parses_or_names_the_line(text in any::<String>()) {
        if let Err(e) = mycnf::parse(&text) {
            prop_assert!(e.line >= 1 && e.line <= text.split('\n').count(), "{e}");
        }
    }

    /// A password (any text, quotes, backslashes, `#`, newlines included) written quoted
    /// with escapes reads back exactly; so does a plain value written bare.
    #[test]
    fn values_written_are_values_read(
        password in any::<String>(),
        user in "[A-Za-z0-9_.@%-]{1,32}",
        group in prop::sample::select(mycnf::GROUPS),
    ) {
        let text = format!(
            "# written by a test\n[{group}]\npassword = {}  # comment\nuser={user}\n",
            quoted(&password)
        );
        let items = mycnf::parse(&text);
        prop_assert!(items.is_ok(), "{:?}\n{}", items, text);
        let items = items.unwrap();
        let value = |key: &str| {
            items.iter().find_map(|i| match i {
                Item::Option { key: k, value, group: g, .. } if k == key && g == group => {
                    value.clone()
                }
                _ => None,
            })
        };
        prop_assert_eq!(value("password"), Some(password));
        prop_assert_eq!(value("user"), Some(user));
    }

    /// Files that include each other in any pattern (loops, self-includes, directories)
    /// load or report the loop; only files of the directory are read.
    #[test]
    fn include_graphs_load_or_report_the_loop(
        edges in prop::collection::vec(prop::collection::vec((0usize..5, any::<bool>()), 0..4), 1..5),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("conf.d");
        std::fs::create_dir(&sub).unwrap();
        let name = |k: usize| if k.is_multiple_of(2) { format!("f{k}.cnf") } else { format!("conf.d/f{k}.cnf") };
        for (k, includes) in edges.iter().enumerate() {
            let mut text = format!("[client]\nuser = u{k}\n");
            for (to, as_dir) in includes {
                let target = dir.path().join(name(*to));
                let line = if *as_dir {
                    format!("!includedir {}\n", target.parent().unwrap().display())
                } else {
                    format!("!include {}\n", target.display())
                };
                text.push_str(&line);
            }
            std::fs::write(dir.path().join(name(k)), text).unwrap();
        }
        let files = [OptionFile { path: dir.path().join("f0.cnf"), given_by: Some("--defaults-file") }];
        match mycnf::load(&files) {
            Ok(loaded) => {
                prop_assert!(loaded.read.iter().all(|p| p.starts_with(dir.path())), "{:?}", loaded.read);
                prop_assert!(loaded.settings.user.is_some());
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.contains("loop"), "{}", message);
            }
        }
    }
}
