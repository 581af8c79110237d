//! Hostile server strings end to end: a private server, an account whose name carries escape
//! sequences, control characters and wide or combining Unicode, and a purge-blocking session
//! of that account whose running statement carries a clear-screen, a title change, CR, TAB,
//! BEL, backspace, C1 CSI, CJK, emoji sequences, combining marks, a right-to-left override,
//! NUL and a 20,000-character line. The real dashboard in tmux names that session as the
//! blocker; the screen must stay intact (every row within the width, the panel borders where
//! the layout puts them, the pane title unchanged, no bell, nothing cleared), and
//! `--once --format text` / `json` must carry no raw control characters.

use crate::common;

use std::time::Duration;

use common::accounts::{self, Account};
use common::tmux::Tmux;
use common::wait::{OnTimeout, wait_until, wait_until_async};
use common::{PrivateServer, ServerConfig, WriteLoad};
use mysql_async::Conn;
use mysql_async::prelude::Queryable;
use ratatui::text::Span;

/// Shown on screen and in the outputs, so the test knows the hostile text was drawn.
const MARKER: &str = "hostile_marker";

/// ESC sequences, C0/C1 controls, CJK, a combining stack, an RTL override, an emoji with
/// VS16 and a ZWJ sequence: all in the Basic Multilingual Plane (the account tables hold
/// utf8mb3).
const USER: &str = "ev\u{1b}[2Jil\u{1b}]0;user-title\u{7}\r\t\u{8}\u{9b}31m用户名e\u{301}\u{301}\u{202e}☺\u{fe0f}⛹\u{fe0f}\u{200d}♀\u{fe0f}";

/// The running statement's head; the 20,000-character line follows it.
fn statement_head() -> String {
    [
        MARKER,
        " clear\u{1b}[2J\u{1b}[H",
        " title\u{1b}]0;pwned-title\u{7}",
        " osc-st\u{1b}]2;pwned-again\u{1b}\\",
        " cr\rcr tab\ttab bel\u{7}bel bs\u{8}\u{8}bs del\u{7f}",
        " c1\u{9b}2J",
        " 漢字テーブル 🙂🙂 👨\u{200d}👩\u{200d}👧 🇫🇷 👍\u{1f3fd}",
        " ☺\u{fe0f} ⛹\u{fe0f}\u{200d}♀\u{fe0f}",
        " e\u{301}\u{301}\u{301}\u{301}",
        " \u{202e}txt.exe\u{202c}",
        " nul\0nul",
        " end_of_head ",
    ]
    .concat()
}

/// A SQL string literal: backslash and quote escaped, everything else raw (NUL too: the
/// protocol sends a statement with its length).
fn literal(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Whether `s` holds a character a terminal could act on: C0 (but newline), DEL, C1.
fn control_chars(s: &str) -> Vec<char> {
    s.chars()
        .filter(|c| *c != '\n' && (c.is_control() || ('\u{80}'..='\u{9f}').contains(c)))
        .collect()
}

fn width(s: &str) -> usize {
    Span::raw(s).width()
}

const BOX: &[char] = &['┌', '┐', '└', '┘', '│', '─', '├', '┤', '┬', '┴', '┼'];

/// Every row within the width; the panel rows (between the verdict — one or two lines — and
/// the footer) exactly the width, starting and ending on a border: one mis-measured wide
/// character shifts the right border.
fn assert_intact(screen: &str, w: usize, h: usize) {
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(rows.len(), h, "rows on screen:\n{screen}");
    let top = rows
        .iter()
        .position(|r| r.starts_with('┌'))
        .unwrap_or_else(|| panic!("no panel on screen:\n{screen}"));
    assert!(top <= 3, "the verdict takes at most two lines:\n{screen}");
    for (i, row) in rows.iter().enumerate() {
        assert!(
            width(row) <= w,
            "row {i} is {} columns wide (> {w}):\n{screen}",
            width(row)
        );
        if (top..h - 1).contains(&i) {
            let first = row.chars().next();
            let last = row.chars().last();
            assert!(
                first.is_some_and(|c| BOX.contains(&c))
                    && last.is_some_and(|c| BOX.contains(&c))
                    && width(row) == w,
                "panel row {i} does not run border to border over {w} columns: {row:?}\n{screen}"
            );
        }
    }
    assert!(
        rows[0].contains("MariaDB"),
        "the header is not on the first row:\n{screen}"
    );
    for title in ["Checkpoint age", "Flush sources", "History list length"] {
        assert!(screen.contains(title), "{title} is gone:\n{screen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_and_queries_do_not_corrupt_the_screen_or_the_outputs() {
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let account = Account::create(&server, USER, "pw", "ALL PRIVILEGES").await;

    // The blocker: a REPEATABLE READ view, then the hostile statement left running.
    let mut conn = Conn::new(account.opts(&server))
        .await
        .expect("log in as the hostile account");
    // The load creates its table as it starts; the view must not race it for the table.
    common::load::ensure_load_table(&mut conn)
        .await
        .expect("create test.load");
    for q in [
        "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
        "START TRANSACTION",
        "SELECT COUNT(*) FROM test.load",
    ] {
        conn.query_drop(q).await.expect(q);
    }
    let statement = format!(
        "SELECT {}, SLEEP(600), {}",
        literal(&statement_head()),
        literal(&"x".repeat(20_000))
    );
    let running = tokio::spawn(async move {
        let r = conn.query_drop(statement).await;
        (r, conn)
    });
    let seen = format!(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%{MARKER}%' \
         AND ID <> CONNECTION_ID()"
    );
    let (srv, seen, statement) = (&server, &seen, &running);
    wait_until_async(
        Duration::from_secs(20),
        "the hostile statement in the processlist",
        || async move {
            let rows = srv.sql(seen).await;
            let shown = rows.first().and_then(|r| r.get::<u64, _>(0)) == Some(1);
            assert!(
                shown || !statement.is_finished(),
                "the hostile statement ended early"
            );
            shown
        },
    )
    .await;

    let (w, h) = (200usize, 50usize);
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), w as u16, h as u16);
    // Left on the normal screen: must still be there when the dashboard ends.
    tmux.type_text("echo before-the-dashboard-$((6*7))");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the shell", Duration::from_secs(10), |s| {
        s.contains("before-the-dashboard-42")
    });
    let title = tmux.display("#{pane_title}");
    assert_eq!(tmux.display("#{window_bell_flag}"), "0");
    tmux.type_text(&format!(
        "{} --no-defaults {} --interval 500ms",
        common::innodebt_bin().display(),
        server.conn_args().join(" ")
    ));
    tmux.keys(&["Enter"]);
    let long = Duration::from_secs(30);
    // The blocker line shows the account and the statement; the verdict names the session.
    let screen = tmux.wait_for("the hostile blocker on screen", long, |s| {
        s.contains(MARKER) && s.contains("用户名") && s.contains("has held a read view")
    });
    assert_intact(&screen, w, h);
    assert_no_title_change_or_bell(&tmux, &title);

    // The history panel zoomed: the most room the statement gets.
    tmux.keys(&["3"]);
    // The whole zoomed frame, not one caught while it is being written (the grid's lower
    // panels still there).
    let zoomed = tmux.wait_for("the zoomed history panel", long, |s| {
        s.contains(MARKER) && !s.contains("Flush sources") && !s.contains("4 Purge")
    });
    for (i, row) in zoomed.lines().enumerate() {
        assert!(width(row) <= w, "row {i} too wide:\n{zoomed}");
    }
    for shown in ["漢字テーブル", "txt.exe"] {
        assert!(zoomed.contains(shown), "{shown} not shown:\n{zoomed}");
    }
    tmux.keys(&["Escape"]);
    tmux.wait_for("the grid again", long, |s| s.contains("Flush sources"));
    // A few more redraws with the hostile text on screen (each sample changes the screen),
    // every one seen intact.
    let mut screens = std::collections::HashSet::new();
    wait_until(
        long,
        OnTimeout(|| format!("three more redraws; screen is:\n{}", tmux.screen())),
        || {
            let s = tmux.screen();
            if s.contains(MARKER) && s.contains("Flush sources") {
                assert_intact(&s, w, h);
                screens.insert(s);
            }
            screens.len() >= 4
        },
    );
    assert_no_title_change_or_bell(&tmux, &title);
    tmux.keys(&["q"]);
    let shell = tmux.wait_for("the shell back", long, |s| !s.contains("Checkpoint age"));
    assert!(shell.contains("before-the-dashboard-42"), "{shell}");

    // Headless: text without a single control character; JSON valid, strings intact.
    let mut args = vec!["--no-defaults".to_string()];
    args.extend(server.conn_args());
    args.extend(["--once", "--interval", "500ms", "--format"].map(String::from));
    let text = accounts::run(&[args.clone(), vec!["text".into()]].concat()).ok("--once text");
    assert!(text.stdout.contains(MARKER), "{}", text.stdout);
    assert_eq!(
        control_chars(&text.stdout),
        Vec::<char>::new(),
        "raw control characters in --format text:\n{:?}",
        text.stdout
    );
    let json = accounts::run(&[args, vec!["json".into()]].concat()).ok("--once json");
    assert!(
        !json.stdout.contains('\u{1b}')
            && !json.stdout.contains('\u{202e}')
            && control_chars(&json.stdout).is_empty(),
        "raw control characters in --format json:\n{:?}",
        json.stdout
    );
    let v = json.json();
    assert_eq!(v["blocker"]["user"].as_str(), Some(USER), "{v:#}");
    let query = v["blocker"]["query"].as_str().expect("the blocker's query");
    assert!(
        query.contains(MARKER) && query.contains("\u{1b}[2J"),
        "{query:?}"
    );
    // Exactly the statement as the server reports it where the poller reads it (the
    // blocker's session by id; performance_schema is off here, so the processlist): passed on
    // unchanged, escaped only by JSON.
    let reported: String = server
        .sql(&format!(
            "SELECT LEFT(INFO, 1000) FROM information_schema.PROCESSLIST \
             WHERE INFO LIKE '%{MARKER}%' AND ID <> CONNECTION_ID()"
        ))
        .await
        .first()
        .and_then(|r| r.get(0))
        .expect("the statement in the processlist");
    assert_eq!(query, reported);

    running.abort();
    load.stop().await;
}

/// Nothing on screen set the pane title or rang the bell.
fn assert_no_title_change_or_bell(tmux: &Tmux, title: &str) {
    assert_eq!(
        tmux.display("#{pane_title}"),
        title,
        "the pane title changed"
    );
    assert_eq!(
        tmux.display("#{window_bell_flag}"),
        "0",
        "the terminal rang"
    );
}
