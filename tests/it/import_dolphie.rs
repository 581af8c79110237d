//! `innodebt import dolphie` against real parts: a private MariaDB under write load with a
//! read view holding purge back, the real Dolphie (PyPI, the version `.ci/run` pins) recording
//! it in daemon mode, a purge variable changed at run time while it records. The import replays
//! with history rising while the read view is open, and the change is a note on the timeline.
//! Bad input (another schema version, a cut file, a SQLite that is not Dolphie's, no file):
//! one clear message each and no file left behind.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use chrono::Utc;
use common::dolphie::{Daemon, dolphie_bin};
use common::{BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad};
use serde_json::Value;

fn innodebt(args: &[&str]) -> Output {
    Command::new(common::innodebt_bin())
        .arg("--no-defaults")
        .args(args)
        .output()
        .expect("run innodebt")
}

fn import(file: &Path, out: &Path) -> Output {
    innodebt(&[
        "import",
        "dolphie",
        &file.display().to_string(),
        "-o",
        &out.display().to_string(),
    ])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A refused import: its message, exit status 2, and no output file.
fn refused(file: &Path, out: &Path) -> String {
    let o = import(file, out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let msg = stderr(&o);
    assert!(!msg.contains("panicked"), "{msg}");
    assert!(!out.exists(), "a failed import leaves no file: {msg}");
    let dir = out.parent().expect("dir");
    let partial: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".innodebt-import-"))
        .collect();
    assert!(partial.is_empty(), "temporary files left: {partial:?}");
    msg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dolphie_daemon_recording_replays_with_the_blocker_and_the_change() {
    let Some(bin) = dolphie_bin("the Dolphie import test") else {
        return;
    };
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let load = WriteLoad::paced(server.opts(), 2, 200);
    let mut daemon = Daemon::start(&bin, &server, dir.path()).await;
    let file = daemon.file.clone();
    // Samples from before the read view opens.
    let before = daemon.wait_for_rows(5);
    let blocker = BlockingSnapshot::open(server.opts()).await;
    let held_from = Utc::now();
    // A purge variable changed at run time while the view holds purge, as a DBA does in an
    // incident: Dolphie's variable_changes, a note on the imported timeline.
    daemon.wait_for_rows(before + 3);
    server.sql("SET GLOBAL innodb_purge_batch_size = 77").await;
    // Enough samples while the view holds purge for the checks below: 12 and more, 2 s
    // after it opened and 1 s before it closes.
    let held = daemon.wait_for_rows(before + 18);
    let held_to = Utc::now();
    blocker.commit().await;
    // Purge catching up after the commit, recorded.
    daemon.wait_for_rows(held + 3);
    daemon.stop();
    load.stop().await;
    let log = daemon.log();
    assert!(log.contains("innodb_purge_batch_size"), "{log}");

    let imported = dir.path().join("imported.idbt");
    let out = import(&file, &imported);
    assert!(out.status.success(), "import: {}\n{log}", stderr(&out));
    let said = stderr(&out);
    // The resolution is Dolphie's poll spacing: 1 s asked for, 2 s when a loaded machine
    // stretches most polls past the next second.
    let at_s: u64 = said
        .split("imported from Dolphie at ")
        .nth(1)
        .and_then(|r| r.split(" s").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no resolution stated: {said}"));
    assert!((1..=2).contains(&at_s), "{said}");
    assert!(said.contains("runtime change(s)"), "{said}");

    // Through the library's reader: the header says what the file lacks, the change is a
    // note at its moment, the server is the private MariaDB.
    let cap = innodebt_capture::open(&imported).expect("open the import");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    let summary = &cap.header.notes[0];
    assert!(
        summary.starts_with(&format!("imported from Dolphie at {at_s} s")),
        "{summary}"
    );
    assert_eq!(cap.header.interval_ms, Some(at_s * 1000));
    assert!(summary.contains("unknown (not in the file): "), "{summary}");
    assert!(summary.contains("idle transactions"), "{summary}");
    assert!(
        !summary.contains("checkpoint age") && !summary.contains("history list length"),
        "{summary}"
    );
    let info = cap.header.server.as_ref().expect("server");
    assert!(info.version.contains("MariaDB"), "{}", info.version);
    let change = cap
        .notes
        .iter()
        .find(|n| n.text.contains("innodb_purge_batch_size"))
        .unwrap_or_else(|| panic!("no runtime-change note: {:?}", cap.notes));
    assert!(change.text.ends_with("→ 77"), "{}", change.text);
    assert!(
        change.at >= held_from - chrono::Duration::seconds(2)
            && change.at <= held_to + chrono::Duration::seconds(2),
        "the change's moment {} lies inside the window it was made in",
        change.at
    );
    // The figures follow the change too.
    let changed = cap.events.iter().any(|e| {
        matches!(e, innodebt_server::sample::SourceEvent::Variables { variables, .. }
            if variables.get("innodb_purge_batch_size").map(String::as_str) == Some("77"))
    });
    assert!(changed, "no variables event with the new batch size");

    // Replayed: history rises while the read view is open, checkpoint age known throughout.
    let figs = common::export::history_and_age(&imported);
    assert!(figs.len() >= 25, "{} imported samples", figs.len());
    assert!(
        figs.iter().all(|(_, h, a)| h.is_some() && a.is_some()),
        "history and checkpoint age known in every sample: {figs:?}"
    );
    let held: Vec<f64> = figs
        .iter()
        .filter(|(t, _, _)| {
            *t >= held_from + chrono::Duration::seconds(2)
                && *t <= held_to - chrono::Duration::seconds(1)
        })
        .filter_map(|(_, h, _)| *h)
        .collect();
    assert!(held.len() >= 12, "{} samples while held", held.len());
    let (first, last) = (held[0], held[held.len() - 1]);
    assert!(
        last >= first + 200.0,
        "history rises while the read view is open: {held:?}"
    );
    // Rising, not just higher at the end: each third of the hold ends above the last.
    let third = held.len() / 3;
    assert!(
        held[third] > first && held[2 * third] > held[third] && last > held[2 * third],
        "{held:?}"
    );
    let once = innodebt(&[
        "replay",
        &imported.display().to_string(),
        "--once",
        "--format",
        "json",
    ]);
    assert!(once.status.success(), "{}", stderr(&once));
    let v: Value = serde_json::from_slice(&once.stdout).expect("json");
    assert!(
        v["unavailable"]
            .to_string()
            .contains("Dolphie records only sessions running a statement"),
        "an idle blocker is unknown, not absent: {}",
        v["unavailable"]
    );
    eprintln!(
        "imported {} samples; history {first} → {last} while held",
        figs.len()
    );

    // The same file, damaged three ways: a message each, no output left.
    let bad = dir.path().join("bad.idbt");
    let v3 = dir.path().join("v3.db");
    std::fs::copy(&file, &v3).expect("copy");
    rusqlite::Connection::open(&v3)
        .and_then(|db| db.execute("UPDATE metadata SET schema_version = 3", []))
        .expect("alter the copy");
    let msg = refused(&v3, &bad);
    assert!(msg.contains("Dolphie replay schema version 3"), "{msg}");
    assert!(msg.contains("reads version 2"), "{msg}");

    let cut = dir.path().join("cut.db");
    let bytes = std::fs::read(&file).expect("read");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("cut");
    let msg = refused(&cut, &bad);
    assert!(msg.contains("damaged or cut short"), "{msg}");
}

#[test]
fn files_that_are_not_dolphie_replays_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("x.idbt");

    let msg = refused(&dir.path().join("nosuch.db"), &out);
    assert!(msg.contains("nosuch.db: no such file"), "{msg}");

    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .and_then(|db| db.execute_batch("CREATE TABLE t (a INT); INSERT INTO t VALUES (1);"))
        .expect("make a SQLite file");
    let msg = refused(&other, &out);
    assert!(
        msg.contains("a SQLite database but not a Dolphie replay file"),
        "{msg}"
    );
    assert!(msg.contains("no metadata table"), "{msg}");

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database at all\n".repeat(100)).expect("write");
    let msg = refused(&text, &out);
    assert!(msg.contains("is not a SQLite file"), "{msg}");

    // An output that exists is never overwritten.
    std::fs::write(&out, b"keep me").expect("write");
    let o = import(&other, &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).expect("read"), b"keep me");
}
