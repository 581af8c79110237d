//! The dashboard's event loop: one task owns the App; a biased select over terminal input,
//! source events, signals and a slow clock; draws only when something changed, at most
//! ~15 frames/s. It never awaits the network: the poller runs in its own task.

use std::time::Duration;

use anyhow::Context as _;
use chrono::Utc;
use crossterm::event::Event;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::notes::NoteInto;
use crate::app::{App, Command, Msg};
use crate::capture::{CaptureSender, Note};
use crate::control::{self, AuditLog};
use crate::sample::SourceEvent;
use crate::source::connect::ConnectOptions;
use crate::source::live::PollerCommand;
use crate::term::{self, Input};
use crate::theme::Theme;

const MIN_FRAME: Duration = Duration::from_millis(66);
const CLOCK: Duration = Duration::from_millis(250);

/// Test hook, read once at start: with `INNODEBT_FAILPOINT=panic-in-render` the dashboard
/// panics inside `terminal.draw` once it has shown a few samples, so the fault tests can check
/// what a bug in a render leaves behind (terminal restored, message readable, capture
/// finished). Unset (always, outside tests) it does nothing.
const FAILPOINT_ENV: &str = "INNODEBT_FAILPOINT";
const PANIC_IN_RENDER: &str = "panic-in-render";
/// Samples shown before the failpoint fires: enough for a recording to hold some.
const PANIC_AFTER_SAMPLES: u64 = 3;

fn panic_in_render_requested() -> bool {
    std::env::var_os(FAILPOINT_ENV).is_some_and(|v| v == PANIC_IN_RENDER)
}

/// What runtime changes need: where to connect (a side connection, never the poller's) and
/// the audit log.
pub struct Control {
    pub opts: ConnectOptions,
    pub audit: Option<AuditLog>,
}

/// Where app commands go: the poller (live) or nowhere (replay).
pub struct Wiring {
    /// Runtime changes; `None` in replays.
    pub control: Option<Control>,
    pub events: mpsc::Receiver<SourceEvent>,
    pub poller: Option<mpsc::Sender<PollerCommand>>,
    /// Messages from a background loader (a big capture streaming in).
    pub messages: Option<mpsc::Receiver<Msg>>,
    /// A copy of every source event for the recorder, when recording.
    pub recorder: Option<CaptureSender>,
    /// The recording's file name, for messages.
    pub recording: Option<String>,
}

pub async fn run(mut app: App, theme: Theme, mut wiring: Wiring) -> anyhow::Result<()> {
    let mut terminal = term::init().context("cannot set up the terminal")?;
    let result = event_loop(&mut app, &theme, &mut wiring, &mut terminal).await;
    term::restore();
    result
}

async fn event_loop(
    app: &mut App,
    theme: &Theme,
    wiring: &mut Wiring,
    terminal: &mut term::Tui,
) -> anyhow::Result<()> {
    let mut input = term::spawn_input();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    // The input thread watches the terminal, not window sizes: the resize comes from here.
    let mut winch = signal(SignalKind::window_change())?;
    let mut clock = tokio::time::interval(CLOCK);
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_draw = Instant::now() - MIN_FRAME;
    let mut source_open = true;
    let panic_in_render = panic_in_render_requested();
    let mut timings = crate::timings::Timings::from_env();
    // Side tasks (facts, changes) report back here; the loop never awaits them.
    let (side_tx, mut side_rx) = mpsc::channel::<Msg>(16);

    loop {
        if app.needs_draw && last_draw.elapsed() >= MIN_FRAME {
            terminal.draw(|f| {
                if panic_in_render && app.view().samples_seen >= PANIC_AFTER_SAMPLES {
                    failpoint_panic();
                }
                crate::ui::render(f, app, theme)
            })?;
            app.needs_draw = false;
            last_draw = Instant::now();
            timings.drawn();
        }
        let frame_due = last_draw + MIN_FRAME;
        let msg = tokio::select! {
            biased;
            _ = sigterm.recv() => break,
            _ = sighup.recv() => break,
            _ = winch.recv() => Msg::Resize,
            ev = input.recv() => match ev {
                Some(Input::Event(Event::Key(k))) => {
                    timings.key();
                    Msg::Key(k)
                }
                Some(Input::Event(Event::Resize(_, _))) => Msg::Resize,
                Some(Input::Event(_)) => continue,
                Some(Input::Failed(e)) => return Err(e).context("reading the terminal failed"),
                // The terminal hung up: finish like on SIGHUP (the capture is closed after).
                Some(Input::Gone) | None => break,
            },
            ev = wiring.events.recv(), if source_open => match ev {
                Some(ev) => {
                    if let Some(rec) = &wiring.recorder {
                        // Bounded: a slow disk drops records (counted by the writer), never stalls the UI.
                        rec.send(ev.clone());
                    }
                    Msg::Source(ev)
                }
                None => {
                    source_open = false;
                    continue;
                }
            },
            Some(msg) = recv_opt(&mut wiring.messages) => msg,
            Some(msg) = side_rx.recv() => {
                if let Msg::Executed { outcome, .. } = &msg {
                    let audit = SourceEvent::Audit(outcome.audit.clone());
                    if let Some(rec) = &wiring.recorder {
                        rec.send(audit);
                    }
                    send(wiring, PollerCommand::RefreshVariables);
                }
                msg
            }
            _ = tokio::time::sleep_until(frame_due), if app.needs_draw => continue,
            _ = clock.tick() => Msg::Tick(Utc::now()),
        };
        for cmd in app.update(msg) {
            match cmd {
                Command::Quit => return Ok(()),
                Command::Suspend => {
                    term::suspend(terminal)?;
                    app.needs_draw = true;
                }
                Command::SetPollInterval(d) => send(wiring, PollerCommand::SetInterval(d)),
                Command::UndoScanNow => send(wiring, PollerCommand::UndoScanNow),
                Command::FetchFacts { knob, then } => {
                    let (Some(c), Some(info)) = (&wiring.control, app.live.info()) else {
                        continue;
                    };
                    let (opts, flavor, tx) = (c.opts.clone(), info.flavor, side_tx.clone());
                    tokio::spawn(async move {
                        let result = control::fetch_facts(&opts, flavor, knob)
                            .await
                            .map(Box::new)
                            .map_err(|e| e.to_string());
                        let _ = tx.send(Msg::Facts { knob, then, result }).await;
                    });
                }
                Command::SaveNote { note, into } => save_note(wiring, &side_tx, note, into),
                Command::Execute(plan) => {
                    let Some(c) = &wiring.control else {
                        continue;
                    };
                    let (opts, audit, tx) = (c.opts.clone(), c.audit.clone(), side_tx.clone());
                    tokio::spawn(async move {
                        let outcome = control::execute(&opts, &plan).await;
                        let audit_error = match audit {
                            Some(log) => log.append(&outcome.audit).err().map(|e| e.to_string()),
                            None => Some("no audit log (no state directory)".into()),
                        };
                        let _ = tx
                            .send(Msg::Executed {
                                plan,
                                outcome: Box::new(outcome),
                                audit_error,
                            })
                            .await;
                    });
                }
            }
        }
        if app.quit {
            return Ok(());
        }
    }
    Ok(())
}

/// Stores a bookmark without waiting: the recording's writer takes it through its channel;
/// a finished file is written on a blocking thread. The result comes back as a message.
fn save_note(wiring: &Wiring, side: &mpsc::Sender<Msg>, note: Note, into: NoteInto) {
    let reply = |note, result| {
        let _ = side.try_send(Msg::NoteSaved { note, result });
    };
    match into {
        NoteInto::Recording => {
            let result = match &wiring.recorder {
                Some(rec) if rec.send_note(note.clone()) => Ok(wiring
                    .recording
                    .clone()
                    .unwrap_or_else(|| "the recording".into())),
                Some(_) => Err("the recording's writer is behind or failed: not saved".into()),
                None => Err("not recording".into()),
            };
            reply(note, result);
        }
        NoteInto::File(path) => {
            let tx = side.clone();
            tokio::task::spawn_blocking(move || {
                let result = crate::capture::notes::append_note(&path, &note)
                    .map(|()| path.display().to_string())
                    .map_err(|e| e.to_string());
                let _ = tx.blocking_send(Msg::NoteSaved { note, result });
            });
        }
        NoteInto::Session(why) => reply(note, Err(why)),
    }
}

/// Receives from an optional channel; pends forever when there is none or it closed.
async fn recv_opt(rx: &mut Option<mpsc::Receiver<Msg>>) -> Option<Msg> {
    match rx {
        Some(r) => match r.recv().await {
            Some(m) => Some(m),
            None => {
                *rx = None;
                std::future::pending().await
            }
        },
        None => std::future::pending().await,
    }
}

fn send(wiring: &Wiring, cmd: PollerCommand) {
    if let Some(p) = &wiring.poller {
        let _ = p.try_send(cmd);
    }
}

/// The test hook's deliberate panic, reached only with `INNODEBT_FAILPOINT=panic-in-render`.
#[allow(clippy::panic)]
fn failpoint_panic() -> ! {
    panic!("{FAILPOINT_ENV}={PANIC_IN_RENDER}: a deliberate panic inside a render");
}
