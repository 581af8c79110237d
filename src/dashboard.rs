//! The dashboard on the one screen loop ([`crate::screen_loop`]): the app is the state; its data
//! are the source's events, a background loader's messages and side tasks' answers; its
//! commands go to the poller, the recorder or a side task. It never awaits the network: the
//! poller runs in its own task.

use std::io;

use tokio::sync::mpsc;

use crate::app::notes::NoteInto;
use crate::app::{App, Command, Msg, Showing};
use crate::control::{self, AuditLog};
use crate::replay::{LoadRequest, Loader};
use crate::screen_loop::{Flow, Screen, ScreenError, ScreenEvent};
use crate::terminal;
use crate::theme::Theme;
use innodebt_capture::{CaptureSender, Note};
use innodebt_poller::connect::ConnectOptions;
use innodebt_poller::live::PollerCommand;
use innodebt_server::sample::SourceEvent;

/// Test hook, read once at start: with `INNODEBT_FAILPOINT=panic-in-render` the dashboard
/// panics inside `terminal.draw` once it has shown a few samples, so the fault tests can check
/// what a bug in a render leaves behind (terminal restored, message readable, capture
/// finished). Compiled into debug builds only (the tests'), never into a release binary.
const FAILPOINT_ENV: &str = "INNODEBT_FAILPOINT";
const PANIC_IN_RENDER: &str = "panic-in-render";
/// Samples shown before the failpoint fires: enough for a recording to hold some.
const PANIC_AFTER_SAMPLES: u64 = 3;

fn panic_in_render_requested() -> bool {
    cfg!(debug_assertions) && std::env::var_os(FAILPOINT_ENV).is_some_and(|v| v == PANIC_IN_RENDER)
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

pub async fn run(app: App, theme: Theme, wiring: Wiring) -> Result<(), ScreenError> {
    // Side tasks (facts, changes, notes, replay loads) report back here; the loop never awaits them.
    let (side_tx, side_rx) = mpsc::channel::<Msg>(16);
    let mut dashboard = Dashboard {
        app,
        theme,
        wiring,
        source_open: true,
        side_tx,
        side_rx,
        panic_in_render: panic_in_render_requested(),
        timings: crate::timings::Timings::from_env(),
    };
    for cmd in dashboard.app.start() {
        if let Command::Load(req) = cmd {
            dashboard.load_window(req);
        }
    }
    crate::screen_loop::run(&mut dashboard).await
}

struct Dashboard {
    app: App,
    theme: Theme,
    wiring: Wiring,
    source_open: bool,
    side_tx: mpsc::Sender<Msg>,
    side_rx: mpsc::Receiver<Msg>,
    panic_in_render: bool,
    timings: crate::timings::Timings,
}

impl Screen for Dashboard {
    type Data = Msg;

    async fn next_data(&mut self) -> Msg {
        loop {
            tokio::select! {
                biased;
                ev = self.wiring.events.recv(), if self.source_open => match ev {
                    Some(ev) => {
                        if let Some(rec) = &self.wiring.recorder {
                            // Bounded: a slow disk drops records (counted by the writer), never
                            // stalls the UI.
                            rec.send(ev.clone());
                        }
                        return Msg::Source(ev);
                    }
                    None => self.source_open = false,
                },
                Some(msg) = recv_opt(&mut self.wiring.messages) => return msg,
                Some(msg) = self.side_rx.recv() => {
                    if let Msg::Executed { outcome, .. } = &msg {
                        let audit = SourceEvent::Audit(outcome.audit.clone());
                        if let Some(rec) = &self.wiring.recorder {
                            rec.send(audit);
                        }
                        send(&self.wiring, PollerCommand::RefreshVariables);
                    }
                    return msg;
                }
            }
        }
    }

    fn needs_draw(&self) -> bool {
        self.app.needs_draw
    }

    fn draw(&mut self, terminal: &mut terminal::Tui) -> io::Result<()> {
        let (app, theme, panic_in_render) = (&self.app, &self.theme, self.panic_in_render);
        terminal.draw(|f| {
            if panic_in_render && app.view().samples_seen >= PANIC_AFTER_SAMPLES {
                failpoint_panic();
            }
            crate::render::render(f, app, theme)
        })?;
        self.app.needs_draw = false;
        self.timings.drawn();
        Ok(())
    }

    fn handle(
        &mut self,
        event: ScreenEvent<Msg>,
        terminal: &mut terminal::Tui,
    ) -> Result<Flow, ScreenError> {
        let msg = match event {
            ScreenEvent::Key(k) => {
                self.timings.key();
                Msg::Key(k)
            }
            ScreenEvent::Resize => Msg::Resize,
            ScreenEvent::Data(msg) => msg,
            ScreenEvent::Tick(now) => Msg::Tick(now),
        };
        for cmd in self.app.update(msg) {
            if self.command(cmd, terminal)? == Flow::Quit {
                return Ok(Flow::Quit);
            }
        }
        Ok(if self.app.quit {
            Flow::Quit
        } else {
            Flow::Continue
        })
    }
}

impl Dashboard {
    /// Carries out one of the app's commands.
    fn command(&mut self, cmd: Command, terminal: &mut terminal::Tui) -> Result<Flow, ScreenError> {
        let wiring = &self.wiring;
        match cmd {
            Command::Quit => return Ok(Flow::Quit),
            Command::Suspend => {
                terminal::suspend(terminal)?;
                self.app.needs_draw = true;
            }
            Command::SetPollInterval(d) => send(wiring, PollerCommand::SetInterval(d)),
            Command::UndoScanNow => send(wiring, PollerCommand::UndoScanNow),
            Command::FetchFacts { variable, then } => {
                let (Some(c), Some(info)) = (&wiring.control, self.app.live.info()) else {
                    return Ok(Flow::Continue);
                };
                let (opts, flavor, tx) = (c.opts.clone(), info.flavor, self.side_tx.clone());
                tokio::spawn(async move {
                    let result = control::fetch_facts(&opts, flavor, variable)
                        .await
                        .map(Box::new)
                        .map_err(|e| e.to_string());
                    let _ = tx
                        .send(Msg::Facts {
                            variable,
                            then,
                            result,
                        })
                        .await;
                });
            }
            Command::SaveNote { note, into } => save_note(wiring, &self.side_tx, note, into),
            Command::Load(req) => self.load_window(req),
            Command::Execute(plan) => {
                let Some(c) = &wiring.control else {
                    return Ok(Flow::Continue);
                };
                let (opts, audit, tx) = (c.opts.clone(), c.audit.clone(), self.side_tx.clone());
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
        Ok(Flow::Continue)
    }
}

impl Dashboard {
    /// Loads a replay window on a blocking thread; the window comes back as a message.
    fn load_window(&self, req: LoadRequest) {
        let Showing::Replay(r) = &self.app.showing else {
            return;
        };
        let loader = r.recording.loader.clone();
        let tx = self.side_tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.blocking_send(load_window(&loader, req));
        });
    }
}

/// One replay load, as the message the app takes. Blocks on file reads.
pub fn load_window(loader: &Loader, req: LoadRequest) -> Msg {
    Msg::Loaded {
        ticket: req.ticket,
        result: loader.load(&req).map(Box::new),
    }
}

/// Runs the app's replay loads the way the dashboard does, but on this thread and at once:
/// each load's answer goes back through `update`, until none is asked for. Returns the other
/// commands. For tests and a first frame that must not wait.
pub fn settle(app: &mut App, cmds: Vec<Command>) -> Vec<Command> {
    let mut queue = std::collections::VecDeque::from(cmds);
    let mut rest = Vec::new();
    while let Some(cmd) = queue.pop_front() {
        match cmd {
            Command::Load(req) => {
                let Showing::Replay(r) = &app.showing else {
                    continue;
                };
                let loader = r.recording.loader.clone();
                queue.extend(app.update(load_window(&loader, req)));
            }
            other => rest.push(other),
        }
    }
    rest
}

/// An app showing `replay`, its first window loaded (as [`settle`] does).
pub fn replay_now(replay: crate::app::Replay, interval: std::time::Duration) -> App {
    let mut app = App::replaying(replay, interval);
    let first = app.start();
    settle(&mut app, first);
    app
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
                let result = innodebt_capture::notes::append_note(&path, &note)
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

/// The dashboard over what `app` holds already (a replay with its own transport, a
/// comparison): no live source, nothing arrives but keys.
pub async fn run_without_source(app: App, theme: Theme) -> std::process::ExitCode {
    // The sender lives until the screen closes: the source channel stays open and empty.
    let (_tx, rx) = tokio::sync::mpsc::channel(1);
    let wiring = Wiring {
        control: None,
        events: rx,
        messages: None,
        poller: None,
        recorder: None,
        recording: None,
    };
    match run(app, theme, wiring).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => crate::mode::fail(crate::mode::EXIT_FAILURE, format!("{e:#}")),
    }
}
