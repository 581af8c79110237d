//! `--once --format text` says what `--format json` says: at every moment `n` visits in the
//! demo, the text's verdict lines name the same verdict kinds, in the same order, as the
//! JSON's `verdicts[]` (both read the same verdict figures); the recovery estimate and the
//! sizing advice are there when the JSON has them; the redo points carry MariaDB's names
//! (async, furious flush (M)), not MySQL 8's; and the JSON carries its `schema_version`.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chrono::SecondsFormat;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use innodebt::app::{Msg, Recording, Replay};
use serde_json::Value;

const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/demo/mariadb-10.11-blocker.idbt"
);

/// `innodebt replay DEMO --at AT --once --format FORMAT`'s standard output.
fn once(at: &str, format: &str) -> String {
    let out = Command::new(common::innodebt_bin())
        .args([
            "--no-defaults",
            "replay",
            DEMO,
            "--at",
            at,
            "--once",
            "--format",
            format,
        ])
        .output()
        .expect("innodebt runs");
    assert!(
        out.status.success(),
        "--at {at} --format {format}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The verdict kinds of the text (`verdict   SEVERITY KIND WORDS since …`), in order.
fn text_kinds(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("verdict   "))
        .map(|l| {
            let (_, rest) = l.split_once(' ').expect("severity, then the kind");
            let (words, _) = rest.split_once(" since ").expect("since when");
            words.replace(' ', "_")
        })
        .collect()
}

fn json_kinds(json: &Value) -> Vec<String> {
    json["verdicts"]
        .as_array()
        .expect("verdicts[]")
        .iter()
        .map(|v| v["kind"].as_str().expect("kind").to_string())
        .collect()
}

/// The sample times `n` visits from the start, pressed until it stops moving.
fn moments_n_visits() -> Vec<String> {
    let set = innodebt::replay::CaptureSet::open_file(
        Path::new(DEMO),
        innodebt_engine::verdicts::RecoveryModel::published_default(),
    )
    .expect("demo");
    let rec = Recording::new(set);
    let last = rec.len() - 1;
    let mut app =
        innodebt::dashboard::replay_now(Replay::new(rec, 0, last), Duration::from_secs(1));
    let mut times = Vec::new();
    loop {
        let before = app.replay().map(|r| r.pos);
        let cmds = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('n'),
            KeyModifiers::NONE,
        )));
        innodebt::dashboard::settle(&mut app, cmds);
        let r = app.replay_mut().expect("replay");
        if Some(r.pos) == before {
            break;
        }
        let pos = r.pos;
        let at = r
            .recording
            .with_set(|set| set.sample_time(pos))
            .expect("the set")
            .expect("sample time");
        times.push(at.to_rfc3339_opts(SecondsFormat::Nanos, true));
    }
    times
}

/// Asserts the text says what the JSON says at `at`; returns the JSON.
fn assert_same_verdicts(at: &str) -> Value {
    let json: Value = serde_json::from_str(&once(at, "json")).expect("JSON");
    let text = once(at, "text");
    let kinds = json_kinds(&json);
    assert!(!kinds.is_empty(), "--at {at}: no verdict in the JSON");
    assert_eq!(text_kinds(&text), kinds, "--at {at}:\n{text}");
    assert_eq!(json["schema_version"], 2, "--at {at}");
    if !json["recovery"].is_null() {
        assert!(
            text.lines()
                .any(|l| l.starts_with("recovery  crash now → recovery ~")),
            "--at {at}: no recovery line\n{text}"
        );
    }
    if let Some(advice) = json["sizing"]["advice"].as_str() {
        assert!(
            text.contains(&format!("sizing    {advice}")),
            "--at {at}: no sizing advice\n{text}"
        );
    }
    // MariaDB's own names for the points, as the checkpoint panel shows them.
    let redo = text
        .lines()
        .find(|l| l.starts_with("redo "))
        .expect("redo line");
    assert!(
        redo.contains(" · async ") && redo.contains(" · furious flush (M) "),
        "{redo}"
    );
    assert!(
        !text.contains("flushing starts"),
        "MySQL 8's words on MariaDB:\n{text}"
    );
    json
}

#[test]
fn text_carries_the_verdicts_the_json_has_at_every_moment() {
    // A read view blocks purge with the lag trap armed.
    let json = assert_same_verdicts("+100s");
    assert_eq!(
        json_kinds(&json),
        ["blocked_by_read_view", "purge_lag_trap"]
    );

    let moments = moments_n_visits();
    assert!(
        moments.len() >= 3,
        "the demo has too few moments to prove anything: {moments:?}"
    );
    let mut seen = std::collections::BTreeSet::new();
    for at in &moments {
        let json = assert_same_verdicts(at);
        // `--at` lands on the very sample `n` went to.
        let sampled =
            chrono::DateTime::parse_from_rfc3339(json["sampled_at"].as_str().expect("time"))
                .expect("RFC 3339");
        let wanted = chrono::DateTime::parse_from_rfc3339(at).expect("RFC 3339");
        assert_eq!(sampled, wanted, "--at {at}");
        seen.extend(json_kinds(&json));
    }
    // The moments cover more than one judgement (the test would prove little otherwise).
    assert!(seen.len() >= 2, "{seen:?}");
}
