//! Bookmarks: `a` asks for a note at the moment shown, and says where it will go — into the
//! recording running now, into the replayed file, or (no recording) nowhere that outlives
//! the session. Storing is a [`Command`]; the result comes back as [`Msg::NoteSaved`].

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::{App, Command, Input, InputPurpose, Overlay, Showing};
use innodebt_capture::Note;

/// Where a note goes.
#[derive(Debug, Clone, PartialEq)]
pub enum NoteInto {
    /// The capture being recorded now (`--record FILE`).
    Recording,
    /// A finished capture file being replayed.
    File(PathBuf),
    /// Nowhere that lasts: why, and what would keep it.
    Session(String),
}

impl NoteInto {
    /// One line for the prompt: where the note will be kept.
    fn said(&self, app: &App) -> String {
        match self {
            NoteInto::Recording => format!(
                "saved in the recording {}",
                app.recording.as_deref().unwrap_or("being written")
            ),
            NoteInto::File(p) => format!("saved in {}", p.display()),
            NoteInto::Session(why) => why.clone(),
        }
    }
}

/// The moment a note is for: the replayed sample, the frozen display, or now.
fn moment(app: &App) -> DateTime<Utc> {
    match &app.showing {
        Showing::Replay(r) => r.now().unwrap_or(app.now),
        Showing::Frozen { held, .. } => held.latest.as_ref().map_or(app.now, |f| f.sampled_at),
        Showing::Live(_) | Showing::Compare(_) => app.now,
    }
}

fn destination(app: &App, at: DateTime<Utc>) -> NoteInto {
    match &app.showing {
        Showing::Replay(r) => match r.recording.file_for(at) {
            Some(p) => NoteInto::File(p.to_path_buf()),
            None => NoteInto::Session(
                "the built-in demo is not a file: the note is shown until you quit".into(),
            ),
        },
        _ if app.recording.is_some() => NoteInto::Recording,
        Showing::Live(_) | Showing::Frozen { .. } | Showing::Compare(_) => NoteInto::Session(
            "not recording: the note is kept only until you quit (start with --record FILE to keep notes in a capture)"
                .into(),
        ),
    }
}

/// `a`: the prompt.
pub fn start(app: &mut App) {
    let at = moment(app);
    let into = destination(app, at);
    app.overlay = Some(Overlay::Input(Input {
        title: format!("Note at {}", at.format("%H:%M:%S")),
        lines: vec![
            "What happened here? (e.g. deploy 4.2 started)".into(),
            into.said(app),
        ],
        text: String::new(),
        error: None,
        purpose: InputPurpose::Note { at },
    }));
}

/// Enter on the prompt: show the note now, and store it where it goes.
pub fn submit(app: &mut App, mut input: Input, at: DateTime<Utc>) -> Vec<Command> {
    let note = Note::new(at, &input.text);
    if note.text.is_empty() {
        input.error = Some("type a few words, or Esc to cancel".into());
        app.overlay = Some(Overlay::Input(input));
        return Vec::new();
    }
    let into = destination(app, at);
    match &mut app.showing {
        Showing::Replay(r) => {
            let sample = r.pos;
            r.recording.add_bookmark(note.clone(), sample);
        }
        Showing::Live(_) | Showing::Frozen { .. } | Showing::Compare(_) => {
            app.notes.push(note.clone())
        }
    }
    match into {
        NoteInto::Session(why) => {
            saved(app, &note, Err(why));
            Vec::new()
        }
        into => vec![Command::SaveNote { note, into }],
    }
}

/// The outcome of storing a note, as a notice.
pub fn saved(app: &mut App, note: &Note, result: Result<String, String>) {
    let head = format!("\"{}\" at {}", note.text, note.at.format("%H:%M:%S UTC"));
    let (title, line) = match result {
        Ok(where_) => ("Note saved", format!("saved in {where_}")),
        Err(why) if matches!(app.showing, Showing::Replay(_)) => (
            "Note not saved",
            format!("{why}; it is shown on the timeline until you quit"),
        ),
        Err(why) => ("Note kept for this session", why),
    };
    app.overlay = Some(Overlay::Notice {
        title: title.into(),
        lines: vec![head, line],
    });
    app.needs_draw = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Msg;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    /// Through the app's own `update`, as the event loop does.
    fn handle(app: &mut App, k: KeyEvent) -> Vec<Command> {
        app.update(Msg::Key(k))
    }

    fn typed(app: &mut App, s: &str) -> Vec<Command> {
        s.chars().for_each(|c| {
            handle(app, key(KeyCode::Char(c)));
        });
        handle(app, key(KeyCode::Enter))
    }

    fn app() -> App {
        let now = DateTime::from_timestamp(1_767_225_600, 0).unwrap_or_default();
        App::new(std::time::Duration::from_secs(1), now)
    }

    #[test]
    fn a_note_while_recording_goes_to_the_recording() {
        let mut a = app();
        a.recording = Some("rec.idbt".into());
        handle(&mut a, key(KeyCode::Char('a')));
        let Some(Overlay::Input(i)) = &a.overlay else {
            panic!("{:?}", a.overlay)
        };
        assert_eq!(i.lines[1], "saved in the recording rec.idbt");
        let cmds = typed(&mut a, "deploy 4.2 started");
        assert_eq!(
            cmds,
            vec![Command::SaveNote {
                note: Note::new(a.now, "deploy 4.2 started"),
                into: NoteInto::Recording
            }]
        );
    }

    #[test]
    fn without_a_recording_it_says_the_note_lasts_the_session() {
        let mut a = app();
        handle(&mut a, key(KeyCode::Char('a')));
        assert!(typed(&mut a, "x").is_empty());
        let Some(Overlay::Notice { title, lines }) = &a.overlay else {
            panic!("{:?}", a.overlay)
        };
        assert_eq!(title, "Note kept for this session");
        assert!(lines[1].contains("start with --record FILE"), "{lines:?}");
        assert_eq!(a.notes.len(), 1);
    }

    #[test]
    fn esc_cancels_and_an_empty_note_is_refused() {
        let mut a = app();
        a.recording = Some("rec.idbt".into());
        handle(&mut a, key(KeyCode::Char('a')));
        handle(&mut a, key(KeyCode::Char('x')));
        assert!(handle(&mut a, key(KeyCode::Esc)).is_empty());
        assert_eq!(a.overlay, None);
        assert!(a.notes.is_empty());
        handle(&mut a, key(KeyCode::Char('a')));
        assert!(typed(&mut a, "   ").is_empty());
        let Some(Overlay::Input(i)) = &a.overlay else {
            panic!("{:?}", a.overlay)
        };
        assert_eq!(
            i.error.as_deref(),
            Some("type a few words, or Esc to cancel")
        );
    }
}
