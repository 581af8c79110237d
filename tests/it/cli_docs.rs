//! `--help`, the man pages and `docs/cli.md` say the same thing: every long flag `--help`
//! lists is in the command's man page and in docs/cli.md (a subcommand's own flags in its
//! section), no page or doc names a flag that does not exist, every exit code the code uses
//! is in every man page and in the doc, every trigger kind is in the doc, and
//! innodebt-serve(1) documents every key its servers file takes.

use std::collections::BTreeSet;
use std::path::Path;

use innodebt::cli::manual::{self, EXIT_CODES, Page};

fn doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"))
        .expect("docs/cli.md")
}

/// A man page as text, roff's `\-` read as `-`.
fn man(page: &Page) -> String {
    let roff = manual::render(page).expect("render the man page");
    String::from_utf8_lossy(&roff).replace("\\-", "-")
}

/// Every `--long-flag` written in `text`.
fn flags_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before = start.checked_sub(1).map(|b| bytes[b]);
        let name: String = text[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let name = name.trim_end_matches('-');
        let word_start = before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'-'));
        if word_start && name.len() > 1 && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(format!("--{name}"));
        }
        i = start + 2;
    }
    out
}

/// The long flags `--help` lists for `cmd`: the option lines, not the prose.
fn help_flags(cmd: &clap::Command) -> BTreeSet<String> {
    let help = cmd.clone().render_long_help().to_string();
    help.lines()
        .map(str::trim_start)
        .filter_map(|l| {
            let l = l.strip_prefix('-').map_or(l, |rest| {
                // `-h, --host` → `--host`
                rest.get(3..)
                    .filter(|_| rest.get(1..3) == Some(", "))
                    .unwrap_or(l)
            });
            l.starts_with("--")
                .then(|| flags_in(l).into_iter().next())?
        })
        .collect()
}

/// Every long flag of every command, hidden ones left out.
fn all_flags(pages: &[Page]) -> BTreeSet<String> {
    pages
        .iter()
        .flat_map(|p| p.cmd.get_arguments())
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect()
}

/// The part of docs/cli.md under the heading that starts with `heading`, to the next heading
/// of the same or a higher level.
fn section<'a>(doc: &'a str, heading: &str) -> Option<&'a str> {
    let start = doc.find(&format!("\n{heading}"))? + 1;
    let level = heading.chars().take_while(|c| *c == '#').count();
    let rest = &doc[start + heading.len()..];
    let end = rest
        .match_indices("\n#")
        .find(|(at, _)| {
            let hashes = rest[at + 1..].chars().take_while(|c| *c == '#').count();
            hashes <= level
        })
        .map_or(rest.len(), |(at, _)| at);
    Some(&doc[start..start + heading.len() + end])
}

#[test]
fn help_man_pages_and_the_doc_name_the_same_flags() {
    let pages = manual::pages();
    let doc = doc();
    let top = &pages[0].cmd;
    let global: BTreeSet<String> = top
        .get_arguments()
        .filter(|a| a.is_global_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let triggered = section(&doc, "## Triggered capture").expect("a Triggered capture section");
    let serve = pages.iter().find(|p| p.name == "innodebt-serve").unwrap();
    let listed = help_flags(&serve.cmd);
    for flag in [
        "--listen",
        "--host",
        "--ssl-cert",
        "--trigger",
        "--interval",
        "--help",
    ] {
        assert!(
            listed.contains(flag),
            "{flag} not read from serve --help: {listed:?}"
        );
    }
    let mut missing = Vec::new();
    for page in &pages {
        let man = man(page);
        // "innodebt import pt-stalk", as clap names it once built.
        let bin = page.cmd.get_bin_name().unwrap_or("innodebt");
        let path = bin.strip_prefix("innodebt").unwrap_or(bin).trim();
        // A subcommand's section: "### `innodebt record FILE|DIR`".
        let own = if path.is_empty() {
            Some(doc.as_str())
        } else {
            section(&doc, &format!("### `innodebt {path}")).or_else(|| {
                // `innodebt import` has only its subcommand's section.
                section(&doc, &format!("### `innodebt {path} "))
            })
        };
        for flag in help_flags(&page.cmd) {
            if !man.contains(&flag) {
                missing.push(format!("{flag} of {} is not in its man page", page.name));
            }
            let in_doc = if global.contains(&flag) || flag == "--help" {
                doc.contains(&format!("`{flag}")) || doc.contains(&format!(", {flag}"))
            } else {
                own.is_some_and(|s| {
                    s.contains(&flag)
                        || (s.contains("triggered capture") && triggered.contains(&flag))
                })
            };
            if !in_doc {
                missing.push(format!(
                    "{flag} of {} is not in docs/cli.md{}",
                    page.name,
                    if path.is_empty() {
                        String::new()
                    } else {
                        format!(" (section `innodebt {path}`)")
                    }
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));

    // Nothing names a flag that does not exist.
    let known = all_flags(&pages);
    let mut unknown: Vec<String> = flags_in(&doc)
        .difference(&known)
        .map(|f| format!("docs/cli.md names {f}, which no command has"))
        .collect();
    for page in &pages {
        unknown.extend(
            flags_in(&man(page))
                .difference(&known)
                .map(|f| format!("{} names {f}, which no command has", page.name)),
        );
    }
    assert!(unknown.is_empty(), "{}", unknown.join("\n"));
}

/// Flags easy to leave in --help alone: each is in docs/cli.md and in its man page.
#[test]
fn the_flags_that_were_in_help_only_are_documented() {
    let doc = doc();
    let pages = manual::pages();
    let page = |name: &str| pages.iter().find(|p| p.name == name).map(man).unwrap();
    for (flag, name) in [
        ("--database", "innodebt"),
        ("--connect-timeout", "innodebt"),
        ("--probe-only", "innodebt-serve"),
        ("--scrape-timeout", "innodebt-serve"),
        ("--top", "innodebt-compare"),
    ] {
        assert!(doc.contains(flag), "{flag} not in docs/cli.md");
        assert!(page(name).contains(flag), "{flag} not in {name}(1)");
    }
}

#[test]
fn every_exit_code_is_in_every_man_page_and_the_doc() {
    // The table holds every code the code returns: the run-level ones and each
    // `ConnectError::exit_code` arm.
    let table: BTreeSet<u8> = EXIT_CODES.iter().map(|(c, _)| *c).collect();
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/poller/src/connect/error.rs"),
    )
    .expect("error.rs");
    let arms = &source[source.find("fn exit_code").expect("exit_code")..];
    let arms = &arms[..arms.find("\n    }").unwrap_or(arms.len())];
    let mut used: BTreeSet<u8> = arms
        .split("=>")
        .skip(1)
        .filter_map(|s| {
            s.trim()
                .trim_end_matches(',')
                .split(',')
                .next()?
                .trim()
                .parse()
                .ok()
        })
        .collect();
    assert!(used.len() >= 19, "too few exit_code arms found: {used:?}");
    used.extend([0, innodebt::mode::EXIT_FAILURE, innodebt::mode::EXIT_CONFIG]);
    assert_eq!(
        used, table,
        "EXIT_CODES differs from the codes the code uses"
    );

    let doc = doc();
    let codes = section(&doc, "## Exit codes").expect("an Exit codes section");
    for page in manual::pages() {
        let man = man(&page);
        let status = &man[man.find("EXIT STATUS").expect("EXIT STATUS")..];
        for (code, _) in EXIT_CODES {
            assert!(
                status.contains(&format!("\\fB{code}\\fR")),
                "{code} not in {}(1)",
                page.name
            );
            assert!(
                codes.contains(&format!("\n| {code} |")),
                "{code} not in docs/cli.md"
            );
        }
    }
}

#[test]
fn every_trigger_kind_is_in_the_doc() {
    let doc = doc();
    let kinds = section(&doc, "### Trigger kinds").expect("a Trigger kinds section");
    let names: Vec<&str> = innodebt::trigger::kind_names().collect();
    assert!(names.contains(&"history_held_by_open_writes"));
    for name in names {
        assert!(
            kinds.contains(&format!("`{name}`")),
            "{name} not in docs/cli.md"
        );
    }
}

/// The keys serde accepts in a table of the servers file, from its own "unknown field"
/// message (the file denies unknown fields).
fn accepted_keys(table: &str) -> Vec<String> {
    let text = format!("{table}\nno_such_key_zz = 1\n");
    let err = toml::from_str::<innodebt::serve::config::ConfigFile>(&text)
        .expect_err("an unknown key is refused")
        .to_string();
    let list = err
        .split("expected one of")
        .nth(1)
        .unwrap_or_else(|| panic!("no key list in: {err}"));
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_serve_man_page_documents_its_servers_file() {
    let example: innodebt::serve::config::ConfigFile =
        toml::from_str(manual::SERVE_TOML_EXAMPLE).expect("the man page's example parses");
    assert!(example.targets.len() >= 3);
    let pages = manual::pages();
    let serve = pages.iter().find(|p| p.name == "innodebt-serve").unwrap();
    let text = man(serve).replace("\\e", "\\");
    let file = &text[text.find("SERVERS FILE").expect("a SERVERS FILE section")..];
    for (table, prefix) in [("[serve]", "[serve]"), ("[targets.x]", "[targets.NAME]")] {
        let keys = accepted_keys(table);
        assert!(keys.len() >= 4, "{table}: {keys:?}");
        for key in keys {
            let documented = manual::SERVE_TOML_KEYS.iter().any(|(tag, _)| {
                tag.strip_prefix(prefix)
                    .is_some_and(|k| k.split(',').any(|k| k.trim() == key))
            });
            assert!(documented, "{prefix} {key} is not in innodebt-serve(1)");
            assert!(file.contains(&key.replace('-', "\\-")) || file.contains(&key));
        }
    }
}

/// The interval's floor is one constant: `--help`, the man page and docs/cli.md state it, and
/// `--interval` just under it is refused while the floor itself is taken.
#[test]
fn the_interval_floor_is_the_one_the_poller_holds() {
    use innodebt_poller::live::MIN_INTERVAL;
    let floor = format!("at least {}ms", MIN_INTERVAL.as_millis());
    let help = innodebt::cli::command()
        .render_help()
        .to_string()
        .replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains(&floor), "--help says {floor:?}: {help}");
    let doc = doc();
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `--interval"))
        .expect("docs/cli.md has an --interval row");
    assert!(row.contains(&floor), "docs/cli.md says {floor:?}: {row}");
    let page = manual::pages().into_iter().next().expect("innodebt(1)");
    let man = man(&page).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(man.contains(&floor), "innodebt(1) says {floor:?}");
    let just_under = format!("{}ms", MIN_INTERVAL.as_millis() - 1);
    assert!(innodebt::cli::parse_interval(&just_under).is_err());
    assert_eq!(
        innodebt::cli::parse_interval(&format!("{}ms", MIN_INTERVAL.as_millis())),
        Ok(MIN_INTERVAL)
    );
}
