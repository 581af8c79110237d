//! The key tables written out for people: the keys section of `--help` and the key tables of
//! docs/dashboard.md, both from the tables dispatch reads, so neither can drift from what the
//! keys do.

use super::{Listing, Row, tables};

/// How many of [`tables`] are the dashboard's modes (live first): `--help` writes the others
/// as differences from live, the docs put them in one table.
const DASHBOARD_MODES: usize = 5;

/// The keys for `--help`: the dashboard's on a server in full, each other mode of the
/// dashboard as what it lacks and adds, then the other screens' and the popups' in full.
pub fn help_text() -> String {
    let all = tables();
    let w = all
        .iter()
        .flat_map(|t| &t.rows)
        .map(|r| r.label().chars().count())
        .max()
        .unwrap_or(0);
    let row = |r: &Row| {
        let label = r.label();
        let pad = w - label.chars().count();
        format!("  {label}{}  {}\n", " ".repeat(pad), r.help)
    };
    let mut out = String::new();
    let (dashboard, others) = all.split_at(DASHBOARD_MODES.min(all.len()));
    let Some((live, modes)) = dashboard.split_first() else {
        return out;
    };
    out.push_str(live.title);
    out.push('\n');
    live.rows.iter().for_each(|r| out.push_str(&row(r)));
    for mode in modes {
        // A row of live none of whose keys this mode has; and this mode's rows that differ.
        let without: Vec<&str> = live
            .rows
            .iter()
            .filter(|r| !r.names.iter().any(|n| has_name(mode, n)))
            .flat_map(|r| r.names.iter().copied())
            .collect();
        let own: Vec<&Row> = mode
            .rows
            .iter()
            .filter(|r| !live.rows.contains(r))
            .collect();
        out.push_str(&format!(
            "{} the same, without {}{}\n",
            mode.title,
            without.join(" "),
            if own.is_empty() { "." } else { ", and:" }
        ));
        own.into_iter().for_each(|r| out.push_str(&row(r)));
    }
    // A blank line first: each of these is a screen (or popup) of its own.
    for t in others {
        out.push('\n');
        out.push_str(t.title);
        out.push('\n');
        t.rows.iter().for_each(|r| out.push_str(&row(r)));
    }
    out
}

fn has_name(t: &Listing, name: &str) -> bool {
    t.rows.iter().any(|r| r.names.contains(&name))
}

/// The key tables of docs/dashboard.md (tests/it/cli.rs checks it holds exactly this): the
/// dashboard's modes in one table, each row saying where it works; then `compare`'s, the
/// popups' and the fleet's.
pub fn markdown_table() -> String {
    let all = tables();
    let (dashboard, rest) = all.split_at(DASHBOARD_MODES.min(all.len()));
    let (compare, rest) = rest.split_at(1.min(rest.len()));
    let (popups, fleet) = rest.split_at(3.min(rest.len()));
    let mut out = String::new();
    for (heading, group) in [
        ("The dashboard", dashboard),
        ("`innodebt compare`", compare),
        ("Popups", popups),
        ("`innodebt fleet`", fleet),
    ] {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("### {heading}\n\n"));
        out.push_str(&group_table(group));
    }
    out
}

/// One table for `group`: each distinct row once, with the modes it works in.
fn group_table(group: &[Listing]) -> String {
    let mut rows: Vec<(Row, Vec<&str>)> = Vec::new();
    for t in group {
        for r in &t.rows {
            if let Some((_, modes)) = rows.iter_mut().find(|(seen, _)| seen == r) {
                modes.push(t.name);
                continue;
            }
            // Beside the rows of the same keys (a mode's own `q`, `p` or `a` under live's).
            let shares = |seen: &Row| seen.names.iter().any(|n| r.names.contains(n));
            let at = rows
                .iter()
                .rposition(|(seen, _)| shares(seen))
                .map_or(rows.len(), |i| i + 1);
            rows.insert(at, (*r, vec![t.name]));
        }
    }
    let mut out = String::from("| key | does | works in |\n|---|---|---|\n");
    for (r, modes) in rows {
        // Key names (`Enter`, `Ctrl-C`, `arrows`) plain, keys you type (`t`, `1-6`, `←`) as code.
        let keys: Vec<String> = r
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
            r.help.replace('|', "\\|"),
            modes.join(", ")
        ));
    }
    out
}
