//! The terminal: raw mode + alternate screen in, and always back out — on quit, on error, on
//! panic, on SIGTERM/SIGHUP, around Ctrl-Z. Restoring twice is harmless.

use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::{Hide, Show};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Enter raw mode and the alternate screen, and make sure a panic leaves the terminal usable.
pub fn init() -> io::Result<Tui> {
    install_panic_hook();
    enter()?;
    let mut t = Terminal::new(CrosstermBackend::new(io::stdout()))?;
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
    // SAFETY: raising a signal on our own process; SIGTSTP's default action stops us and
    // execution continues here after SIGCONT.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
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

/// Terminal input on threads of their own, as a channel. crossterm's reader spins on a
/// terminal that hung up — `read` returns 0 bytes and it reads again, forever, at a full core
/// (`event/source/unix/mio.rs`, its TTY loop) — and whoever called it never returns. So it
/// reads on a thread of its own, and a second thread watches the terminal itself without
/// reading (`poll(2)`: `POLLHUP`) and says when it is gone. The screen's loop only ever
/// awaits the channel, so SIGHUP, SIGTERM and a hang-up all end it. Dropped, it stops reading
/// before the shell gets the terminal back: keys typed next are the shell's.
pub struct InputThread {
    rx: tokio::sync::mpsc::Receiver<Input>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    stopped: std::sync::mpsc::Receiver<()>,
}

impl InputThread {
    pub async fn recv(&mut self) -> Option<Input> {
        self.rx.recv().await
    }
}

impl Drop for InputThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // It stops within one of its polls; a reader spinning on a dead terminal never does,
        // and is not waited for.
        let _ = self
            .stopped
            .recv_timeout(std::time::Duration::from_millis(INPUT_POLL_MS as u64 * 4));
    }
}

/// How long the reader waits for a key before it looks at its stop flag again.
const INPUT_POLL_MS: u32 = 50;

pub fn spawn_input() -> InputThread {
    use std::os::fd::AsRawFd as _;
    // crossterm reads standard input when it is a terminal, else /dev/tty: watch the same.
    // SAFETY: isatty only inspects the descriptor.
    let tty = (unsafe { libc::isatty(0) } != 1)
        .then(|| std::fs::File::open("/dev/tty").ok())
        .flatten();
    let fd = tty.as_ref().map_or(0, |f| f.as_raw_fd());
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let (stopped_tx, stopped) = std::sync::mpsc::channel();
    let (reader, halt) = (tx.clone(), stop.clone());
    std::thread::spawn(move || {
        let wait = std::time::Duration::from_millis(INPUT_POLL_MS.into());
        while !halt.load(Ordering::SeqCst) {
            let input = match crossterm::event::poll(wait) {
                Ok(false) => continue,
                Ok(true) => crossterm::event::read().map_or_else(Input::Failed, Input::Event),
                Err(e) => Input::Failed(e),
            };
            let failed = matches!(input, Input::Failed(_));
            if reader.blocking_send(input).is_err() || failed {
                break;
            }
        }
        let _ = stopped_tx.send(());
    });
    watch_hangup(fd, tty, tx);
    InputThread { rx, stop, stopped }
}

/// Sends [`Input::Gone`] once `fd` hangs up (looked at every quarter second; `keep` holds it
/// open meanwhile), or stops when nobody listens any more.
fn watch_hangup(fd: i32, keep: Option<std::fs::File>, tx: tokio::sync::mpsc::Sender<Input>) {
    std::thread::spawn(move || {
        let _keep = keep;
        while !tx.is_closed() {
            if hung_up(fd, 250) {
                let _ = tx.blocking_send(Input::Gone);
                return;
            }
        }
    });
}

/// Whether `fd`'s terminal is gone, waiting at most `timeout_ms` for a change; reads nothing.
fn hung_up(fd: i32, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        // Asking for nothing: POLLHUP, POLLERR and POLLNVAL come anyway, and waiting input
        // does not end the wait (the reader takes it).
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the call's duration.
    let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
    if n <= 0 {
        // Nothing happened, or EINTR (a signal: SIGWINCH, SIGCONT).
        return false;
    }
    p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A terminal whose other end closes (an ssh session dropped, a window closed) is noticed
    /// as gone within a poll, not read forever.
    #[test]
    fn a_hung_up_terminal_is_gone_not_spun_on() {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty fills the two descriptors; the other arguments may be null.
        let r = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(r, 0, "openpty: {}", io::Error::last_os_error());
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        watch_hangup(slave, None, tx);
        // Nothing typed: nothing arrives.
        std::thread::sleep(Duration::from_millis(300));
        assert!(rx.try_recv().is_err());
        // SAFETY: closing the master we opened: the slave side hangs up.
        unsafe { libc::close(master) };
        let start = Instant::now();
        let got = loop {
            match rx.try_recv() {
                Ok(i) => break Some(i),
                Err(_) if start.elapsed() > Duration::from_secs(3) => break None,
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        assert!(matches!(got, Some(Input::Gone)), "{got:?}");
        // SAFETY: closing the slave we opened.
        unsafe { libc::close(slave) };
    }
}
