//! Interaction through the app's real `update`: prompts are data, a cancelled prompt produces
//! no command, a confirmed one produces exactly the SQL that was shown. No terminal, no server.

use crate::common::builders;

use std::time::Duration;

use chrono::{TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use innodebt::app::{App, Command, FactsThen, Feed, Msg, Overlay};
use innodebt::control::{FactsSource, PurgeVariable, VariableFacts};
use innodebt_server::sample::{Sample, SourceEvent};

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0)
        .single()
        .expect("time")
}

fn connected_app(read_only: bool) -> App {
    let info = builders::mariadb(&[("innodb_log_file_size", "67108864")]);
    connected_to(Feed::Server { read_only }, info)
}

/// A dashboard fed by `feed`, connected to `info`, two samples in: a read view blocks purge.
pub fn connected_to(feed: Feed, info: innodebt_server::sample::ServerInfo) -> App {
    let mut app = App::fed_by(feed, Duration::from_secs(1), now());
    app.update(Msg::Source(SourceEvent::Connected { at: now(), info }));
    let mut s = Sample::new(now(), 0.0);
    s.status.insert("Innodb_history_list_length".into(), 5000);
    s.trx.push(builders::read_view(42, 300));
    let mut later = s.clone();
    later.taken_at = now() + chrono::Duration::seconds(1);
    later.mono_s = 1.0;
    // The 5-minute view holds back at least the 1,500 undo logs seen since: purge is blocked
    // by the figures' one judgement (the plan, the panels and the verdict read it).
    later
        .status
        .insert("Innodb_history_list_length".into(), 6500);
    later.trx[0].age_s = 301;
    app.update(Msg::Source(SourceEvent::Sample(Box::new(s))));
    app.update(Msg::Source(SourceEvent::Sample(Box::new(later))));
    app
}

/// A key through `update`; replay loads run as the dashboard runs them (here, at once).
fn key(app: &mut App, code: KeyCode) -> Vec<Command> {
    let cmds = app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    innodebt::dashboard::settle(app, cmds)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

pub fn lag_facts() -> Box<VariableFacts> {
    Box::new(VariableFacts {
        variable: "innodb_max_purge_lag".into(),
        exists: true,
        current: Some(0),
        dynamic: true,
        min: Some(0),
        max: Some(4_294_967_295),
        source: FactsSource::SystemVariables,
    })
}

/// `l`, the facts arrive, the value is typed: returns the SQL the confirmation shows.
fn prompt_for_lag(app: &mut App, value: &str) -> String {
    assert_eq!(
        key(app, KeyCode::Char('l')),
        vec![Command::FetchFacts {
            variable: PurgeVariable::MaxPurgeLag,
            then: FactsThen::Prompt
        }]
    );
    app.update(Msg::Facts {
        variable: PurgeVariable::MaxPurgeLag,
        then: FactsThen::Prompt,
        result: Ok(lag_facts()),
    });
    assert!(matches!(app.overlay, Some(Overlay::Input(_))));
    key(app, KeyCode::Backspace);
    type_text(app, value);
    assert!(key(app, KeyCode::Enter).is_empty());
    match &app.overlay {
        Some(Overlay::Confirm(c)) => {
            assert!(!c.yes_selected, "the default answer is No");
            c.sql.clone().expect("the SQL is shown")
        }
        other => panic!("expected a confirmation, got {other:?}"),
    }
}

#[test]
fn cancelled_prompt_runs_nothing() {
    let mut app = connected_app(false);
    let sql = prompt_for_lag(&mut app, "20000");
    assert_eq!(sql, "SET GLOBAL innodb_max_purge_lag = 20000");
    assert!(key(&mut app, KeyCode::Char('n')).is_empty());
    assert!(app.overlay.is_none());
    prompt_for_lag(&mut app, "20000");
    assert!(key(&mut app, KeyCode::Esc).is_empty());
    prompt_for_lag(&mut app, "20000");
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "Enter on No");
}

#[test]
fn confirmed_prompt_runs_exactly_the_sql_shown() {
    let mut app = connected_app(false);
    let shown = prompt_for_lag(&mut app, "20000");
    let cmds = key(&mut app, KeyCode::Char('y'));
    match cmds.as_slice() {
        [Command::Execute(plan)] => assert_eq!(plan.sql_text(), shown),
        other => panic!("expected one Execute, got {other:?}"),
    }
}

#[test]
fn purge_is_blocked_so_the_prompt_warns_about_the_delay() {
    let mut app = connected_app(false);
    prompt_for_lag(&mut app, "1000");
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("confirmation expected");
    };
    let text = c.lines.join("\n");
    assert!(
        text.to_lowercase().contains("runtime only"),
        "scope is stated: {text}"
    );
    // MariaDB 10.11 does not apply the delay while a view blocks purge: it is "armed".
    assert!(text.contains("armed"), "the blocked-purge warning: {text}");
    assert!(
        text.contains("my.cnf"),
        "MariaDB: keep it in my.cnf: {text}"
    );
}

#[test]
fn out_of_range_typed_value_is_refused_inline() {
    let mut app = connected_app(false);
    key(&mut app, KeyCode::Char('l'));
    let mut facts = lag_facts();
    facts.max = Some(100);
    app.update(Msg::Facts {
        variable: PurgeVariable::MaxPurgeLag,
        then: FactsThen::Prompt,
        result: Ok(facts),
    });
    key(&mut app, KeyCode::Backspace);
    type_text(&mut app, "5000");
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    match &app.overlay {
        Some(Overlay::Input(i)) => assert!(i.error.as_deref().is_some_and(|e| e.contains("100"))),
        other => panic!("the prompt stays open with the error, got {other:?}"),
    }
}

#[test]
fn kill_names_the_blocker_and_needs_a_yes() {
    let mut app = connected_app(false);
    assert!(key(&mut app, KeyCode::Char('K')).is_empty());
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("kill asks first");
    };
    assert_eq!(c.sql.as_deref(), Some("KILL CONNECTION 42"));
    let text = c.lines.join("\n");
    assert!(
        text.contains("report") && text.contains("localhost"),
        "{text}"
    );
    assert!(key(&mut app, KeyCode::Esc).is_empty());
}

#[test]
fn read_only_refuses_every_change_key() {
    let mut app = connected_app(true);
    for c in ['t', 'T', 'P', 'l', 'd', 'b', 'm', 'K'] {
        assert!(key(&mut app, KeyCode::Char(c)).is_empty(), "{c}");
        match &app.overlay {
            Some(Overlay::Notice { lines, .. }) => {
                assert!(lines.join(" ").contains("read-only"), "{c}: {lines:?}")
            }
            other => panic!("{c}: expected a refusal, got {other:?}"),
        }
        key(&mut app, KeyCode::Esc);
    }
}

// ---------------------------------------------------------------------------
// Replay transport through `update`
// ---------------------------------------------------------------------------

pub fn replay_app() -> App {
    use innodebt::app::{Recording, Replay};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    let set = innodebt::replay::CaptureSet::open_file(
        std::path::Path::new(path),
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("demo");
    let rec = Recording::new(set);
    let last = rec.len() - 1;
    innodebt::dashboard::replay_now(Replay::new(rec, 0, last), Duration::from_secs(1))
}

fn pos(app: &App) -> u64 {
    app.replay().map(|r| r.pos).unwrap_or(u64::MAX)
}

#[test]
fn replay_steps_seeks_and_changes_speed() {
    let mut app = replay_app();
    assert_eq!(pos(&app), 0);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    assert_eq!(pos(&app), 2);
    key(&mut app, KeyCode::Left);
    assert_eq!(pos(&app), 1);
    // The screen follows the position: the latest figures are that sample's.
    let shown = app.live.latest.as_ref().map(|f| f.sampled_at);
    assert_eq!(shown, app.replay().and_then(|r| r.now()));
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(app.replay().map(|r| r.speed), Some(5.0));
    for _ in 0..20 {
        key(&mut app, KeyCode::Char('['));
    }
    assert_eq!(app.replay().map(|r| r.speed), Some(0.25));
    for _ in 0..20 {
        key(&mut app, KeyCode::Char(']'));
    }
    assert_eq!(app.replay().map(|r| r.speed), Some(1000.0));
}

#[test]
fn replay_plays_at_speed_and_stops_at_the_end() {
    let mut app = replay_app();
    key(&mut app, KeyCode::Char(' '));
    assert!(app.replay().is_some_and(|r| r.playing));
    // 10× for 2 wall seconds ≈ 20 one-second samples.
    for _ in 0..10 {
        key(&mut app, KeyCode::Char(']'));
        if app.replay().is_some_and(|r| r.speed >= 10.0) {
            break;
        }
    }
    let wall = now();
    for i in 0..=8 {
        let cmds = app.update(Msg::Tick(wall + chrono::Duration::milliseconds(250 * i)));
        innodebt::dashboard::settle(&mut app, cmds);
    }
    let p = pos(&app);
    assert!((17..=23).contains(&p), "at {p}");
    // At 1000× a few ticks reach the end, where playback stops by itself.
    for _ in 0..10 {
        key(&mut app, KeyCode::Char(']'));
    }
    for i in 9..40 {
        let cmds = app.update(Msg::Tick(wall + chrono::Duration::milliseconds(250 * i)));
        innodebt::dashboard::settle(&mut app, cmds);
    }
    let r = app.replay().expect("replay");
    assert!(r.at_end() && !r.playing);
}

#[test]
fn replay_jumps_between_notable_moments_and_goes_to_a_time() {
    let mut app = replay_app();
    key(&mut app, KeyCode::Char('n'));
    let first = pos(&app);
    assert!(first > 0);
    key(&mut app, KeyCode::Char('n'));
    let second = pos(&app);
    assert!(second > first);
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(pos(&app), first);
    // g +1m → about 60 samples from the start.
    key(&mut app, KeyCode::Char('g'));
    assert!(matches!(app.overlay, Some(Overlay::Input(_))));
    type_text(&mut app, "+1m");
    key(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert!((58..=62).contains(&pos(&app)), "at {}", pos(&app));
    // A bad time keeps the prompt open with the reason.
    key(&mut app, KeyCode::Char('g'));
    type_text(&mut app, "yesterday");
    key(&mut app, KeyCode::Enter);
    match &app.overlay {
        Some(Overlay::Input(i)) => assert!(i.error.is_some()),
        other => panic!("{other:?}"),
    }
}

/// The one load a key or tick asked for, straight from `update` (nothing run yet).
fn load_asked(cmds: Vec<Command>) -> innodebt::replay::LoadRequest {
    match cmds.as_slice() {
        [Command::Load(req)] => req.clone(),
        other => panic!("expected one Load, got {other:?}"),
    }
}

/// The replay's loader, as the dashboard runs it for a request.
fn answer(app: &App, req: innodebt::replay::LoadRequest) -> Msg {
    let loader = app
        .replay()
        .map(|r| r.recording.loader.clone())
        .expect("replaying");
    innodebt::dashboard::load_window(&loader, req)
}

fn shown_at(app: &App) -> Option<chrono::DateTime<Utc>> {
    app.live.latest.as_ref().map(|f| f.sampled_at)
}

/// `update` never reads the capture: a seek is a `Load` command, the timeline moves to
/// the target at once, and the panels change only when the window comes back as a message.
#[test]
fn a_seek_is_a_load_command_and_the_window_arrives_as_a_message() {
    use innodebt::replay::Goto;
    let mut app = replay_app();
    let before = shown_at(&app);
    assert!(before.is_some());
    let last = app.replay().map(|r| r.last).expect("replaying");
    let req = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE))));
    assert_eq!(req.to, Goto::Sample(last));
    assert_eq!(pos(&app), last, "the timeline goes to the target at once");
    assert_eq!(shown_at(&app), before, "the panels wait for the window");
    assert!(app.replay().is_some_and(|r| r.loading()));
    // → is a step, `g` a time: loads too.
    let step = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE))));
    assert!(matches!(step.to, Goto::Step { max: 1, .. }), "{step:?}");
    let msg = answer(&app, step);
    assert!(app.update(msg).is_empty());
    assert_eq!(pos(&app), last, "a step at the end stays there");
    assert_ne!(shown_at(&app), before);
    assert_eq!(shown_at(&app), app.replay().and_then(|r| r.now()));
    key(&mut app, KeyCode::Home);
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('g'),
        KeyModifiers::NONE,
    )));
    for c in "+1m".chars() {
        app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )));
    }
    let goto = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    assert!(matches!(goto.to, Goto::Time(_)), "{goto:?}");
    assert_eq!(pos(&app), 0, "a time's sample is the loader's to find");
    let msg = answer(&app, goto);
    app.update(msg);
    assert!((58..=62).contains(&pos(&app)), "at {}", pos(&app));
}

/// `→` pressed twice before the first step arrived moves two samples, not one: the second
/// press steps twice from where the first began (the end-to-end replay test caught one).
#[test]
fn two_steps_asked_before_the_first_arrives_both_count() {
    use innodebt::replay::Goto;
    let mut app = replay_app();
    key(&mut app, KeyCode::Home);
    let start = pos(&app);
    let right = || Msg::Key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
    let first = load_asked(app.update(right()));
    assert!(
        matches!(first.to, Goto::Step { from, max: 1, .. } if from == start),
        "{first:?}"
    );
    let second = load_asked(app.update(right()));
    assert!(
        matches!(second.to, Goto::Step { from, max: 2, .. } if from == start),
        "{second:?}"
    );
    let (old, new) = (answer(&app, first), answer(&app, second));
    app.update(old);
    app.update(new);
    assert_eq!(pos(&app), start + 2);
    // Once it arrived, the next press steps from there.
    let third = load_asked(app.update(right()));
    assert!(
        matches!(third.to, Goto::Step { from, max: 1, .. } if from == start + 2),
        "{third:?}"
    );
}

/// A window that comes back after a newer load was asked for is dropped: the screen shows
/// only the moment last asked for, whatever order the answers arrive in.
#[test]
fn a_window_for_a_stale_load_is_ignored() {
    let mut app = replay_app();
    let next = load_asked(app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('n'),
        KeyModifiers::NONE,
    ))));
    let end = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE))));
    let last = pos(&app);
    let (old, new) = (answer(&app, next), answer(&app, end));
    // The older answer first: dropped, the newer still awaited.
    app.update(old);
    assert_eq!(pos(&app), last);
    assert!(app.replay().is_some_and(|r| r.loading()));
    app.update(new);
    assert!(!app.replay().is_some_and(|r| r.loading()));
    let at_end = shown_at(&app);
    assert_eq!(at_end, app.replay().and_then(|r| r.now()));
    // And an old answer arriving after the newer one changes nothing either.
    let again = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE))));
    let late = answer(&app, again.clone());
    let newest = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE))));
    let fresh = answer(&app, newest);
    app.update(fresh);
    app.update(late);
    assert_eq!(pos(&app), last);
    assert_eq!(shown_at(&app), at_end);
}

/// A load that fails is a notice naming why, the position back where the screen is, and
/// playback stopped; nothing panics.
#[test]
fn a_failed_load_shows_why_and_stays_where_it_was() {
    let mut app = replay_app();
    let before = shown_at(&app);
    let req = load_asked(app.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE))));
    let why = "cap.idbt: frame 7: checksum mismatch";
    app.update(Msg::Loaded {
        ticket: req.ticket,
        result: Err(why.into()),
    });
    match &app.overlay {
        Some(Overlay::Notice { title, lines }) => {
            assert_eq!(title, "Replay");
            assert_eq!(lines.join(" "), format!("cannot show that moment: {why}"));
        }
        other => panic!("{other:?}"),
    }
    let r = app.replay().expect("replaying");
    assert_eq!(r.error.as_deref(), Some(why));
    assert_eq!(r.pos, 0, "back where the screen is");
    assert_eq!(shown_at(&app), before);
    key(&mut app, KeyCode::Esc);
    // During playback: stopped, and said so.
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    let wall = now();
    app.update(Msg::Tick(wall));
    let req = load_asked(app.update(Msg::Tick(wall + chrono::Duration::seconds(1))));
    app.update(Msg::Loaded {
        ticket: req.ticket,
        result: Err(why.into()),
    });
    match &app.overlay {
        Some(Overlay::Notice { lines, .. }) => {
            assert_eq!(lines.join(" "), format!("cannot read on: {why}"))
        }
        other => panic!("{other:?}"),
    }
    let r = app.replay().expect("replaying");
    assert!(!r.playing, "playback stops on a failed read");
    assert!(
        app.update(Msg::Tick(wall + chrono::Duration::seconds(2)))
            .is_empty()
    );
}

/// Playback asks for one load at a time: ticks while it is on its way only add to the debt,
/// which the next load spends.
#[test]
fn playback_waits_for_the_load_in_flight() {
    use innodebt::replay::Goto;
    let mut app = replay_app();
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(app.replay().map(|r| r.speed), Some(5.0));
    let wall = now();
    let tick =
        |app: &mut App, ms: i64| app.update(Msg::Tick(wall + chrono::Duration::milliseconds(ms)));
    assert!(tick(&mut app, 0).is_empty());
    let req = load_asked(tick(&mut app, 1000));
    assert!(
        matches!(req.to, Goto::Step { from: 0, budget_s, .. } if (budget_s - 5.0).abs() < 1e-9),
        "{req:?}"
    );
    assert!(
        tick(&mut app, 1500).is_empty(),
        "a second load while one is on its way"
    );
    let msg = answer(&app, req);
    app.update(msg);
    let at = pos(&app);
    assert!((3..=5).contains(&at), "5 s of one-second samples: at {at}");
    match load_asked(tick(&mut app, 2250)).to {
        Goto::Step { from, budget_s, .. } => {
            assert_eq!(from, at);
            // What was left, the 2.5 s owed while loading and the 3.75 s since.
            assert!(budget_s >= 6.0, "the debt kept while loading: {budget_s}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn replays_never_change_a_server() {
    let mut app = replay_app();
    for c in ['t', 'l', 'm', 'K'] {
        assert!(key(&mut app, KeyCode::Char(c)).is_empty());
        match &app.overlay {
            Some(Overlay::Notice { lines, .. }) => {
                assert!(lines.join(" ").contains("replays never change"))
            }
            other => panic!("{c}: {other:?}"),
        }
        key(&mut app, KeyCode::Esc);
    }
}

#[test]
fn mysql_8_offers_set_persist_as_the_alternative() {
    let mut app = App::new(Duration::from_secs(1), now());
    let info = builders::as_version(
        builders::mariadb(&[("innodb_redo_log_capacity", "104857600")]),
        "8.0.36",
        "MySQL Community Server - GPL",
    );
    app.update(Msg::Source(SourceEvent::Connected { at: now(), info }));
    key(&mut app, KeyCode::Char('l'));
    let mut facts = lag_facts();
    facts.source = FactsSource::VersionTable;
    app.update(Msg::Facts {
        variable: PurgeVariable::MaxPurgeLag,
        then: FactsThen::Prompt,
        result: Ok(facts),
    });
    key(&mut app, KeyCode::Backspace);
    type_text(&mut app, "5000");
    key(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("confirmation expected: {:?}", app.overlay);
    };
    assert_eq!(
        c.sql.as_deref(),
        Some("SET GLOBAL innodb_max_purge_lag = 5000")
    );
    assert!(
        c.lines.iter().any(|l| l.starts_with("a: ")),
        "{:?}",
        c.lines
    );
    assert!(key(&mut app, KeyCode::Char('a')).is_empty());
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("the alternative asks again");
    };
    let sql = c.sql.clone().expect("sql");
    assert!(sql.contains("SET PERSIST"), "{sql}");
    match key(&mut app, KeyCode::Char('y')).as_slice() {
        [Command::Execute(plan)] => assert_eq!(plan.sql_text(), sql),
        other => panic!("{other:?}"),
    }
}

/// When the latency guard polls every 8 s, a sample 5 s old is on time, not STALE; without
/// the guard the same age is stale at a 1 s interval.
#[test]
fn a_slowed_tick_is_not_called_stale_before_it_is_due() {
    use innodebt::app::Freshness;
    use innodebt_server::sample::{Cadenced, PollCost, Slowed};
    let sample_at = |slowed: Vec<Slowed>| {
        let mut app = connected_app(false);
        let mut s = Sample::new(now() + chrono::Duration::seconds(2), 2.0);
        s.status.insert("Innodb_history_list_length".into(), 5500);
        s.cost = Some(PollCost {
            statements: Vec::new(),
            slowed,
        });
        app.update(Msg::Source(SourceEvent::Sample(Box::new(s))));
        app.update(Msg::Tick(now() + chrono::Duration::seconds(7)));
        app.freshness()
    };
    let guarded = sample_at(vec![Slowed {
        source: Cadenced::Tick,
        every_ms: 8000,
        last_ms: Some(310),
        timed_out: false,
        recovering: false,
    }]);
    assert!(matches!(guarded, Freshness::Fresh { .. }), "{guarded:?}");
    let plain = sample_at(Vec::new());
    assert!(matches!(plain, Freshness::Stale { .. }), "{plain:?}");
}

/// A screen whose samples arrive on time is drawn once per sample, never for the clock: the
/// header shows the sample's own time. Once the next sample is overdue the header counts its
/// age, and each second it changes is drawn.
#[test]
fn the_clock_redraws_only_an_overdue_screen() {
    use innodebt::app::Freshness;
    let mut app = App::new(Duration::from_secs(1), now());
    let info = builders::mariadb(&[]);
    app.update(Msg::Source(SourceEvent::Connected { at: now(), info }));
    let mut s = Sample::new(now(), 0.0);
    s.status.insert("Innodb_history_list_length".into(), 5000);
    app.update(Msg::Source(SourceEvent::Sample(Box::new(s))));
    assert!(app.needs_draw, "a sample is drawn");
    app.needs_draw = false;
    let tick = |app: &mut App, ms: i64| {
        app.update(Msg::Tick(now() + chrono::Duration::milliseconds(ms)));
        std::mem::take(&mut app.needs_draw)
    };
    // Within one interval and a half: four clock ticks a second, none drawn.
    for ms in [250, 500, 750, 1000, 1250, 1500] {
        assert!(!tick(&mut app, ms), "drawn at {ms} ms while on time");
        assert!(
            matches!(app.freshness(), Freshness::Fresh { late: false, .. }),
            "{:?}",
            app.freshness()
        );
    }
    // Overdue (past max(1.5 × interval, interval + 1 s)): each new second is drawn once.
    assert!(tick(&mut app, 2250), "the sample became overdue");
    assert!(matches!(
        app.freshness(),
        Freshness::Fresh { late: true, .. }
    ));
    assert!(!tick(&mut app, 2500), "same second drawn twice");
    assert!(tick(&mut app, 3000), "a new second of age not drawn");
}

// ---------------------------------------------------------------------------
// `v`: every verdict in full (the verdict line may cut them), live and in a replay
// ---------------------------------------------------------------------------

#[test]
fn v_opens_every_verdict_and_esc_v_q_close_it_without_acting() {
    for close in [KeyCode::Esc, KeyCode::Char('v'), KeyCode::Char('q')] {
        let mut app = connected_app(false);
        assert!(key(&mut app, KeyCode::Char('v')).is_empty());
        assert_eq!(app.overlay, Some(Overlay::Verdicts));
        // Closing runs nothing and quits nothing (q closes the overlay, as on help).
        assert!(key(&mut app, close).is_empty(), "{close:?}");
        assert_eq!(app.overlay, None, "{close:?}");
        assert!(!app.quit, "{close:?}");
    }
}

#[test]
fn v_works_in_a_replay_and_the_demo() {
    // `--demo` is a replay of the shipped capture: the same app, the same keys.
    let mut app = replay_app();
    let at = pos(&app);
    assert!(key(&mut app, KeyCode::Char('v')).is_empty());
    assert_eq!(app.overlay, Some(Overlay::Verdicts));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
    // The overlay took the key: the replay did not move.
    assert_eq!(pos(&app), at);
}
