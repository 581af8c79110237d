//! The fleet table never cuts a server's name into another server's: at 80 columns
//! `127.0.0.1:1` and `127.0.0.1:12` stay whole, and names too long for the column are elided
//! in the middle (`…`), keeping the ends that tell them apart. Every row's name on screen is
//! either the whole name or an elision of it, and no two rows read the same.

use crate::common::snapshot;

use chrono::{TimeZone, Utc};
use innodebt::fleet::row::{RowFigures, RowLink};
use innodebt::fleet::state::{Fleet, Server};
use innodebt_engine::figures::Severity;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const NAMES: [&str; 6] = [
    "127.0.0.1:1",
    "127.0.0.1:12",
    "127.0.0.1:13306",
    "db-eu-west-1-orders-replica-01.prod.example.com:3306",
    "db-eu-west-1-orders-replica-02.prod.example.com:3306",
    "db-eu-west-1-orders-replica-02.prod.example.com:3307",
];

fn fleet() -> Fleet {
    let now = Utc
        .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time");
    let servers = NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut s = Server::new(name, name, true);
            s.link = RowLink::Up;
            s.updated = Some(now);
            s.figures = Some(RowFigures {
                verdict: Some(("healthy".into(), Severity::Ok)),
                age_pct_of_async: Some(10.0 + i as f64),
                history: Some(100 * i as u64),
                blocker_age_s: Some(0),
                dirty_pct: Some(5.0),
                dml_delay_us: Some(0),
                cost_ms: Some(1.0),
                ..RowFigures::default()
            });
            s
        })
        .collect();
    Fleet::new(servers, now)
}

fn screen(width: u16, height: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    let theme = innodebt::theme::Theme::monochrome();
    let f = fleet();
    term.draw(|frame| innodebt::fleet::render::render(frame, &f, &theme))
        .expect("draw");
    snapshot::plain(term.backend().buffer())
}

/// The name cell of each table row (first word of rows after the header), in order.
fn shown_names(screen: &str) -> Vec<String> {
    screen
        .lines()
        .skip_while(|l| !l.starts_with("SERVER"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// `shown` is `name` whole, or `name`'s start and end around one `…`.
fn is_whole_or_elided(shown: &str, name: &str) -> bool {
    if shown == name {
        return true;
    }
    match shown.split_once('…') {
        Some((head, tail)) => {
            !head.is_empty()
                && !tail.is_empty()
                && name.starts_with(head)
                && name.ends_with(tail)
                && head.len() + tail.len() < name.len()
        }
        None => false,
    }
}

#[test]
fn names_that_differ_only_at_the_end_stay_apart_at_80_columns() {
    for (w, h) in [(80, 24), (100, 24), (160, 30)] {
        let s = screen(w, h);
        let shown = shown_names(&s);
        assert_eq!(shown.len(), NAMES.len(), "{w}x{h}:\n{s}");
        // Rows are ordered by breach, then name: match each shown name to its server.
        let mut matched = std::collections::BTreeSet::new();
        for cell in &shown {
            let owners: Vec<&str> = NAMES
                .iter()
                .copied()
                .filter(|n| is_whole_or_elided(cell, n))
                .collect();
            assert_eq!(
                owners.len(),
                1,
                "{w}x{h}: {cell:?} reads as {owners:?}, not one server:\n{s}"
            );
            assert!(matched.insert(owners[0]), "{w}x{h}: {cell:?} twice:\n{s}");
        }
        // The short names are never elided: the column has room for them.
        for short in &NAMES[..3] {
            assert!(shown.iter().any(|c| c == short), "{w}x{h}: {short}:\n{s}");
        }
    }
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("fleet_names_80x24", screen(80, 24));
    });
}

/// A fleet longer than the screen: the selected server is always one of the rows drawn,
/// wherever the selection goes (End, PageDown, one row at a time), with or without groups.
#[test]
fn the_selected_server_stays_on_screen_in_a_long_fleet() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use innodebt::fleet::state::Msg;
    let now = Utc
        .with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time");
    for grouped in [false, true] {
        let servers: Vec<Server> = (0..300)
            .map(|i| {
                let mut s = Server::new(&format!("db{i:03}"), "prometheus job=mysql", false);
                if grouped {
                    s.group = Some(format!("g{}", i / 40));
                }
                s
            })
            .collect();
        let mut fleet = Fleet::new(servers, now);
        let theme = innodebt::theme::Theme::monochrome();
        let mut term = Terminal::new(TestBackend::new(100, 24)).expect("terminal");
        let mut check = |fleet: &Fleet, how: &str| {
            term.draw(|frame| innodebt::fleet::render::render(frame, fleet, &theme))
                .expect("draw");
            let screen = snapshot::plain(term.backend().buffer());
            let selected = &fleet.servers[fleet.selected_server().expect("selected")].name;
            // The header, the table's head, 20 rows; the detail line below names the selection too.
            let table: Vec<&str> = screen.lines().skip(2).take(20).collect();
            assert!(
                table.iter().any(|l| l.starts_with(selected.as_str())),
                "{how} (grouped: {grouped}): {selected} is not on screen:\n{screen}"
            );
        };
        check(&fleet, "at the start");
        let key = |c: KeyCode| Msg::Key(KeyEvent::new(c, KeyModifiers::NONE));
        for _ in 0..30 {
            fleet.update(key(KeyCode::Down));
            check(&fleet, "moving down");
        }
        fleet.update(key(KeyCode::End));
        check(&fleet, "at the end");
        fleet.update(key(KeyCode::Home));
        check(&fleet, "back home");
    }
}
