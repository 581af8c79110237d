//! The terminal: raw mode + alternate screen in, and always back out — on quit, on error, on
//! panic, on SIGTERM/SIGHUP, around Ctrl-Z. Restoring twice is harmless.

use std::io::{self, BufWriter, Stdout, Write};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::{Hide, Show};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Frames go out whole: standard output alone flushes every 1 KiB, so a full frame (tens of
/// KiB of cells and escapes) left in dozens of writes, and a slow ssh link or a screen
/// capture could show half of one. ratatui flushes once per frame.
pub type Tui = Terminal<CrosstermBackend<BufWriter<Stdout>>>;

/// Bigger than a full 200×60 frame with colours.
const FRAME_BUFFER: usize = 1 << 17;

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Enter raw mode and the alternate screen, and make sure a panic leaves the terminal usable.
pub fn init() -> io::Result<Tui> {
    install_panic_hook();
    enter()?;
    let mut t = Terminal::new(CrosstermBackend::new(BufWriter::with_capacity(
        FRAME_BUFFER,
        io::stdout(),
    )))?;
    t.clear()?;
    Ok(t)
}

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(io::stdout(), EnterAlternateScreen, Hide)
}

/// Leave the alternate screen and raw mode. Safe to call at any time, any number of times.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let mut out = io::stdout();
        let _ = execute!(out, LeaveAlternateScreen, Show);
        let _ = out.flush();
    }
}

/// Ctrl-Z: give the shell its terminal back, stop, and take it again on `fg`.
pub fn suspend(t: &mut Tui) -> io::Result<()> {
    restore();
    // SIGTSTP's default action stops us; execution continues here after SIGCONT.
    nix::sys::signal::raise(nix::sys::signal::Signal::SIGTSTP).map_err(io::Error::from)?;
    enter()?;
    t.clear()
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// What the terminal gives the screen's loop.
#[derive(Debug)]
pub enum Input {
    Event(crossterm::event::Event),
    /// The terminal went away (its ssh session or window closed without a SIGHUP reaching
    /// us): nothing will ever be typed again.
    Gone,
    Failed(io::Error),
}

/// Terminal input, as a stream the screen's loop awaits. Keys come from crossterm's
/// `EventStream`: idle, its thread waits for the terminal with no timeout (no wake-ups while
/// nobody types), and dropping it wakes that thread, which stops before the shell gets the
/// terminal back: keys typed next are the shell's. crossterm spins on a terminal that hung up
/// — `read` returns 0 bytes and it reads again, forever (`event/source/unix/mio.rs`, its TTY
/// loop) — and it does so inside `poll_next` too, on whichever thread polls the stream. So
/// the stream is polled on a thread of its own (which forwards what it reads), never on the
/// screen's: a hang-up that lands while crossterm reads can spin that thread, never the
/// screen's loop, which still hears SIGHUP, SIGTERM and the watcher below and ends (an
/// orphaned `fleet` once spun a core for hours, deaf to SIGTERM, that way). A second thread
/// watches the terminal itself without reading (`poll(2)`: `POLLHUP`, no timeout either) and
/// says when it is gone.
pub struct InputThread {
    events: tokio::sync::mpsc::Receiver<Input>,
    gone: tokio::sync::mpsc::Receiver<Input>,
    /// Dropped on drop: the forwarder drops crossterm's stream and says so on `stopped`.
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    stopped: Option<std::sync::mpsc::Receiver<()>>,
    /// Closed on drop: the watcher's wait ends and it stops.
    _wake: Option<std::os::fd::OwnedFd>,
}

impl InputThread {
    /// The next key, resize or hang-up. Cancel-safe: an event not yet taken stays queued.
    pub async fn recv(&mut self) -> Option<Input> {
        tokio::select! {
            biased;
            gone = self.gone.recv() => gone,
            ev = self.events.recv() => ev,
        }
    }
}

impl Drop for InputThread {
    fn drop(&mut self) {
        self.stop.take();
        // Until crossterm's stream is gone (the shell's keys are then the shell's), but not
        // for ever: a forwarder spinning on a hung-up terminal never answers.
        if let Some(stopped) = self.stopped.take() {
            let _ = stopped.recv_timeout(std::time::Duration::from_millis(250));
        }
    }
}

/// Polls crossterm's stream on this thread until `stop` or the screen's end, forwarding
/// what it reads; says on `stopped` once the stream is dropped.
fn forward_events(
    tx: tokio::sync::mpsc::Sender<Input>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
    stopped: std::sync::mpsc::Sender<()>,
) {
    use futures_util::StreamExt as _;
    // crossterm's stream wakes this runtime from its own thread: no I/O or timer driver.
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else {
        let _ = stopped.send(());
        return;
    };
    runtime.block_on(async {
        let mut events = crossterm::event::EventStream::new();
        loop {
            let input = tokio::select! {
                biased;
                _ = &mut stop => break,
                ev = events.next() => match ev {
                    Some(Ok(e)) => Input::Event(e),
                    Some(Err(e)) => Input::Failed(e),
                    None => break,
                },
            };
            if tx.send(input).await.is_err() {
                break;
            }
        }
    });
    let _ = stopped.send(());
}

pub fn spawn_input() -> InputThread {
    use std::os::fd::AsFd as _;
    // crossterm reads standard input when it is a terminal, else /dev/tty: watch the same.
    let tty = (!nix::unistd::isatty(io::stdin()).unwrap_or(false))
        .then(|| std::fs::File::open("/dev/tty").ok())
        .flatten();
    let (tx, gone) = tokio::sync::mpsc::channel(4);
    let wake = match pipe() {
        Ok((wake_rx, wake)) => {
            std::thread::spawn(move || {
                let stdin = io::stdin();
                let fd = match &tty {
                    Some(f) => f.as_fd(),
                    None => stdin.as_fd(),
                };
                if wait_for_hangup(fd, wake_rx.as_fd()) {
                    let _ = tx.blocking_send(Input::Gone);
                }
            });
            Some(wake)
        }
        // Without the watcher a hang-up still ends the screen by SIGHUP, as it mostly does.
        Err(_) => None,
    };
    let (events_tx, events) = tokio::sync::mpsc::channel(64);
    let (stop, stop_rx) = tokio::sync::oneshot::channel();
    let (stopped_tx, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || forward_events(events_tx, stop_rx, stopped_tx));
    InputThread {
        events,
        gone,
        stop: Some(stop),
        stopped: Some(stopped),
        _wake: wake,
    }
}

/// Waits, without a timeout and without reading, until `fd` hangs up (true) or the `wake`
/// pipe closes (false: nobody listens any more).
fn wait_for_hangup(fd: BorrowedFd<'_>, wake: BorrowedFd<'_>) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let mut p = [
        // Asking for nothing: POLLHUP, POLLERR and POLLNVAL come anyway, and waiting input
        // does not end the wait (crossterm takes it).
        PollFd::new(fd, PollFlags::empty()),
        PollFd::new(wake, PollFlags::POLLIN),
    ];
    let hangup = PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL;
    loop {
        match poll(&mut p, PollTimeout::NONE) {
            // SIGWINCH, SIGCONT: wait again.
            Err(nix::errno::Errno::EINTR) => continue,
            // Anything else will not get better.
            Err(_) => return false,
            Ok(_) => {}
        }
        if p[1].revents().is_some_and(|r| !r.is_empty()) {
            return false;
        }
        if p[0].revents().is_some_and(|r| r.intersects(hangup)) {
            return true;
        }
    }
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    use std::os::fd::AsFd as _;

    /// (master, slave) of a new pseudo-terminal.
    fn openpty() -> (OwnedFd, OwnedFd) {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        (pty.master, pty.slave)
    }

    /// The hang-up watcher on `slave`, on a thread: its wake pipe, and where its answer comes.
    fn watch(slave: &OwnedFd) -> (OwnedFd, std::sync::mpsc::Receiver<bool>) {
        let (wake_rx, wake) = pipe().expect("pipe");
        let slave = slave.try_clone().expect("dup the slave");
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done_tx.send(wait_for_hangup(slave.as_fd(), wake_rx.as_fd()));
        });
        (wake, done)
    }

    /// A terminal whose other end closes (an ssh session dropped, a window closed) is noticed
    /// as gone at once, not read forever; input waiting meanwhile does not end the wait.
    #[test]
    fn a_hung_up_terminal_is_gone_not_spun_on() {
        let (master, slave) = openpty();
        let (wake, done) = watch(&slave);
        // A line typed (the pty is in canonical mode): not a hang-up, and not read here.
        assert_eq!(nix::unistd::write(&master, b"q\n"), Ok(2));
        std::thread::sleep(Duration::from_millis(300));
        assert!(done.try_recv().is_err(), "the watcher ended on input");
        // Closing the master: the slave side hangs up.
        drop(master);
        assert_eq!(done.recv_timeout(Duration::from_secs(3)), Ok(true));
        drop(wake);
        drop(slave);
    }

    /// Dropping the input (the screen ends) stops the watcher at once, with no timeout to
    /// wait out.
    #[test]
    fn closing_the_wake_pipe_stops_the_wait() {
        let (master, slave) = openpty();
        let (wake, done) = watch(&slave);
        std::thread::sleep(Duration::from_millis(100));
        assert!(done.try_recv().is_err(), "the watcher stopped on its own");
        let start = Instant::now();
        drop(wake);
        assert_eq!(done.recv_timeout(Duration::from_secs(3)), Ok(false));
        assert!(start.elapsed() < Duration::from_millis(500));
        drop((master, slave));
    }
}
