//! One event loop for every full screen (the dashboard, the fleet): one task owns the state;
//! a biased select over signals, terminal input, the screen's own data and a slow clock; a
//! draw only after an event changed something, at most ~15 frames/s; the terminal restored on
//! every way out (quit, SIGTERM/SIGHUP, a hung-up terminal, an error — and a panic, through
//! `terminal`'s hook). A screen says what its data is and what an event does ([`Screen`]).

use std::future::Future;
use std::io;
use std::time::Duration;

use chrono::{DateTime, Utc};
use crossterm::event::{Event, KeyEvent};
use futures_util::FutureExt;
use tokio::signal::unix::{SignalKind, signal};
use tokio::time::Instant;

use crate::terminal::{self, Input};

/// At most ~15 frames a second.
pub const MIN_FRAME: Duration = Duration::from_millis(66);
/// The slow clock: ages, countdowns and staleness move with it.
pub const CLOCK: Duration = Duration::from_millis(250);
/// At most this many items of data that are already waiting are applied before the next
/// draw, so input is never held back long by a flood.
const BURST: usize = 4096;

/// Why a screen stopped other than by a quit.
#[derive(Debug, thiserror::Error)]
pub enum ScreenError {
    #[error("{}", setup_words(.0))]
    Setup(io::Error),
    #[error("reading the terminal failed: {0}")]
    Input(io::Error),
    #[error("writing to the terminal failed: {0}")]
    Output(#[from] io::Error),
}

/// A terminal that is not there (ENXIO: no controlling terminal; ENOTTY: not a terminal) in
/// the words `mode::need_terminal` uses, which checks first; anything else as it is.
fn setup_words(e: &io::Error) -> String {
    use nix::errno::Errno;
    match e.raw_os_error().map(Errno::from_raw) {
        Some(Errno::ENXIO | Errno::ENOTTY) => {
            crate::mode::no_terminal("it went away or was never there", "for one look use --once")
        }
        _ => format!("cannot set up the terminal: {e}"),
    }
}

/// What happens after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// An event for the screen, in the order the loop prefers them.
#[derive(Debug)]
pub enum ScreenEvent<D> {
    Key(KeyEvent),
    Resize,
    Data(D),
    Tick(DateTime<Utc>),
}

/// A full screen: its state, its data, and what an event does to it.
pub trait Screen {
    type Data;

    /// The next item of the screen's own data (sources, side tasks). Must be cancel-safe (the
    /// loop drops it when input or the clock comes first) and pend while there is none.
    fn next_data(&mut self) -> impl Future<Output = Self::Data>;

    /// Something changed since the last draw.
    fn needs_draw(&self) -> bool;

    /// Draws the state and marks it drawn.
    fn draw(&mut self, terminal: &mut terminal::Tui) -> io::Result<()>;

    /// One event; the terminal is there for Ctrl-Z (`terminal::suspend`).
    fn handle(
        &mut self,
        event: ScreenEvent<Self::Data>,
        terminal: &mut terminal::Tui,
    ) -> Result<Flow, ScreenError>;
}

/// Takes the terminal, runs the screen until it quits, gives the terminal back.
pub async fn run<S: Screen>(screen: &mut S) -> Result<(), ScreenError> {
    let mut terminal = terminal::init().map_err(ScreenError::Setup)?;
    let result = event_loop(screen, &mut terminal).await;
    terminal::restore();
    result
}

async fn event_loop<S: Screen>(
    screen: &mut S,
    terminal: &mut terminal::Tui,
) -> Result<(), ScreenError> {
    let mut input = terminal::spawn_input();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    // The input thread watches the terminal, not window sizes: the resize comes from here.
    let mut winch = signal(SignalKind::window_change())?;
    let mut clock = tokio::time::interval(CLOCK);
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_draw = Instant::now() - MIN_FRAME;
    loop {
        if screen.needs_draw() && last_draw.elapsed() >= MIN_FRAME {
            screen.draw(terminal)?;
            last_draw = Instant::now();
        }
        let dirty = screen.needs_draw();
        let frame_due = last_draw + MIN_FRAME;
        let event = tokio::select! {
            biased;
            _ = sigterm.recv() => return Ok(()),
            _ = sighup.recv() => return Ok(()),
            _ = winch.recv() => ScreenEvent::Resize,
            ev = input.recv() => match ev {
                Some(Input::Event(Event::Key(k))) => ScreenEvent::Key(k),
                Some(Input::Event(Event::Resize(_, _))) => ScreenEvent::Resize,
                Some(Input::Event(_)) => continue,
                Some(Input::Failed(e)) => return Err(ScreenError::Input(e)),
                // The terminal hung up: nothing more will be typed; finish as on SIGHUP.
                Some(Input::Gone) | None => return Ok(()),
            },
            data = screen.next_data() => ScreenEvent::Data(data),
            _ = tokio::time::sleep_until(frame_due), if dirty => continue,
            _ = clock.tick() => ScreenEvent::Tick(Utc::now()),
        };
        let data = matches!(event, ScreenEvent::Data(_));
        if screen.handle(event, terminal)? == Flow::Quit {
            return Ok(());
        }
        if data {
            // What came as one burst (a window read from Prometheus, a look's rows) is
            // applied whole before the next draw: no frame shows half of it, e.g. a window
            // half read as STALE.
            for _ in 0..BURST {
                let Some(more) = screen.next_data().now_or_never() else {
                    break;
                };
                if screen.handle(ScreenEvent::Data(more), terminal)? == Flow::Quit {
                    return Ok(());
                }
            }
        }
    }
}
