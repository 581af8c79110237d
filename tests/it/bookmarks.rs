//! Bookmarks end to end, the real binary in tmux against a private MariaDB: `a` in the live
//! dashboard while recording stores the note in the capture (Esc cancels; without a recording
//! the prompt and the answer say the note lasts the session); `export` carries it in CSV and
//! JSON; in replay it is a `*` on the timeline that `n` reaches, and `a` there adds one to the
//! finished file, which still ends cleanly.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::recorded;
use common::tmux::Tmux;
use common::{PrivateServer, ServerConfig};
use innodebt_capture::{self as capture, CaptureIndex};

const LONG: Duration = Duration::from_secs(20);

fn command_line(server: &PrivateServer, extra: &str) -> String {
    format!(
        "{} --no-defaults -S {} -u root --interval 300ms {extra}",
        common::innodebt_bin().display(),
        server.socket().display()
    )
}

fn export(file: &Path, format: &str) -> String {
    let out = Command::new(common::innodebt_bin())
        .arg("export")
        .arg(file)
        .args(["--format", format])
        .output()
        .expect("export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `q`, then waits for the shell to answer: the program has exited (its file is finished).
/// The caller has seen the screen answer any Esc before: an Esc still unread when the q comes
/// reads with it as Alt-q.
fn quit(tmux: &Tmux, shown: &str) {
    tmux.keys(&["q"]);
    tmux.wait_for("the shell back", LONG, |s| !s.contains(shown));
    tmux.type_text("clear; echo exited-$((40+2))");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the shell to answer", LONG, |s| s.contains("exited-42"));
    tmux.type_text("clear");
    tmux.keys(&["Enter"]);
    tmux.wait_for("a clear screen", LONG, |s| !s.contains("exited-42"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_round_trip_through_recording_export_and_replay() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("rec.idbt");
    let tmux = Tmux::start(dir.path(), 200, 60);

    // Live, not recording: the prompt says where the note goes, and so does the answer.
    tmux.type_text(&command_line(&server, ""));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the dashboard", LONG, |s| s.contains("Checkpoint age"));
    tmux.keys(&["a"]);
    tmux.wait_for("the note prompt", LONG, |s| {
        s.contains("Note at") && s.contains("not recording")
    });
    tmux.type_text("nowhere to go");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the answer", LONG, |s| {
        s.contains("Note kept for this session") && s.contains("start with --record")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the answer closed", LONG, |s| {
        !s.contains("Note kept for this session")
    });
    quit(&tmux, "Checkpoint age");

    // Live, recording: one note saved, one cancelled with Esc.
    tmux.type_text(&command_line(
        &server,
        &format!("--record {}", file.display()),
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the dashboard", LONG, |s| s.contains("Checkpoint age"));
    // A note is at the time `a` is pressed: the recording holds a sample from before it.
    recorded::wait_for_samples(&file, 1, LONG);
    tmux.keys(&["a"]);
    tmux.wait_for("the note prompt", LONG, |s| {
        s.contains("Note at") && s.contains("saved in the recording")
    });
    tmux.type_text("deploy 4.2 started");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the note saved", LONG, |s| {
        s.contains("Note saved") && s.contains("deploy 4.2 started")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the notice closed", LONG, |s| !s.contains("Note saved"));
    // The cancelled note comes samples after the saved one.
    let saved_at = recorded::wait_for_note(&file, LONG);
    recorded::wait_for_sample_after(&file, saved_at, LONG);
    tmux.keys(&["a"]);
    tmux.wait_for("the note prompt", LONG, |s| s.contains("Note at"));
    tmux.type_text("never mind");
    tmux.keys(&["Escape"]);
    tmux.wait_for("the prompt gone", LONG, |s| !s.contains("Note at"));
    recorded::wait_for_sample_after(&file, chrono::Utc::now(), LONG);
    quit(&tmux, "Checkpoint age");

    let cap = capture::open(&file).expect("the recording opens");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    let texts: Vec<&str> = cap.notes.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(texts, ["deploy 4.2 started"]);
    let note_at = cap.notes[0].at;
    let sample_times: Vec<_> = cap
        .events
        .iter()
        .filter_map(|e| e.as_sample())
        .map(|s| s.taken_at)
        .collect();
    assert!(
        sample_times.first().is_some_and(|t| *t < note_at)
            && sample_times.last().is_some_and(|t| *t > note_at),
        "the note is inside the recording"
    );
    let index = CaptureIndex::open(&file).expect("index");
    assert_eq!(index.notes(), &cap.notes[..]);

    // Export: the CSV's last column and the JSON's `notes`, on the sample at or after it.
    let csv = export(&file, "csv");
    let mut lines = csv.lines();
    assert!(lines.next().is_some_and(|h| h.ends_with(",notes")));
    let noted: Vec<&str> = lines
        .filter(|l| l.ends_with(",deploy 4.2 started"))
        .collect();
    assert_eq!(noted.len(), 1, "{csv}");
    let row_time: chrono::DateTime<chrono::Utc> =
        noted[0].split(',').next().unwrap().parse().expect("time");
    assert!(row_time >= note_at - chrono::Duration::milliseconds(1));
    let json = export(&file, "json");
    let with_notes: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|v| v.get("notes").is_some())
        .collect();
    assert_eq!(with_notes.len(), 1, "{json}");
    assert_eq!(with_notes[0]["notes"][0]["text"], "deploy 4.2 started");
    assert!(with_notes[0]["history"].is_object());

    // Replay: `n` reaches it, shown as the moment; `a` adds one to the finished file.
    tmux.type_text(&format!(
        "{} replay {}",
        common::innodebt_bin().display(),
        file.display()
    ));
    tmux.keys(&["Enter"]);
    // The header says REPLAY at once; the window arrives from its loader a moment later.
    let screen = tmux.wait_for("the replay's first window", LONG, |s| {
        s.contains("REPLAY") && !s.contains("waiting for the first sample")
    });
    let timeline = screen
        .lines()
        .rev()
        .find(|l| l.contains("play"))
        .unwrap_or_default();
    assert!(
        timeline.contains('*'),
        "no note mark on the timeline:\n{screen}"
    );
    tmux.keys(&["n"]);
    tmux.wait_for("n to reach the note", LONG, |s| {
        s.contains("note: deploy 4.2 started")
    });
    tmux.keys(&["End"]);
    tmux.keys(&["a"]);
    tmux.wait_for("the note prompt", LONG, |s| {
        s.contains("Note at") && s.contains("saved in") && s.contains("rec.idbt")
    });
    tmux.type_text("replayed: looked here");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the note saved", LONG, |s| s.contains("Note saved"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the notice closed", LONG, |s| !s.contains("Note saved"));
    quit(&tmux, "REPLAY");

    let cap = capture::open(&file).expect("the capture opens");
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    let texts: Vec<&str> = cap.notes.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(texts, ["deploy 4.2 started", "replayed: looked here"]);
}

/// `replay --once --format json --at T` carries the bookmarks riding on that moment's sample
/// (those after the previous sample, up to it), as `export --format json` does; the sample
/// before carries none, and the text form names the note too.
#[test]
fn replay_once_carries_the_notes_of_its_moment() {
    use innodebt::replay::CaptureSet;
    use innodebt_engine::verdicts::RecoveryModel;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("demo.idbt");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt"),
        &file,
    )
    .expect("copy the demo");
    let mut set = CaptureSet::open_file(&file, RecoveryModel::published_default()).expect("open");
    let (before, at) = (
        set.sample_time(49).expect("sample 49"),
        set.sample_time(50).expect("sample 50"),
    );
    assert!(set.bookmarks().is_empty(), "the demo has notes of its own");
    let note_at = at - chrono::Duration::milliseconds(100);
    assert!(note_at > before);
    capture::notes::append_note(&file, &capture::Note::new(note_at, "failover started"))
        .expect("note");
    let once = |t: chrono::DateTime<chrono::Utc>, format: &str| {
        let out = Command::new(common::innodebt_bin())
            .arg("replay")
            .arg(&file)
            .args(["--once", "--format", format, "--at", &t.to_rfc3339()])
            .output()
            .expect("replay --once");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let json: serde_json::Value = serde_json::from_str(&once(at, "json")).expect("JSON");
    assert_eq!(json["notes"][0]["text"], "failover started", "{json}");
    assert_eq!(json["notes"].as_array().map(Vec::len), Some(1));
    assert!(json["history"].is_object());
    let json: serde_json::Value = serde_json::from_str(&once(before, "json")).expect("JSON");
    assert!(json.get("notes").is_none(), "{json}");
    let text = once(at, "text");
    assert!(text.contains(": failover started"), "{text}");
}
