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

/// Terminal input on a thread of its own, as a channel. crossterm's reader spins on a
/// terminal that hung up — `read` returns 0 bytes and it reads again, forever, at a full core
/// (`event/source/unix/mio.rs`, its TTY loop) — and whoever called it never returns. So the
/// thread waits on the terminal itself with `poll(2)`, and hands it to crossterm only when
/// there is input: a hang-up (`POLLHUP`) ends the screen instead. It waits with no timeout,
/// so an idle dashboard is not woken 20 times a second to look at a flag; dropping this
/// closes a pipe the thread also waits on, and it stops before the shell gets the terminal
/// back: keys typed next are the shell's.
pub struct InputThread {
    rx: tokio::sync::mpsc::Receiver<Input>,
    /// Closed on drop: the thread's wait ends and it stops.
    wake: Option<std::os::fd::OwnedFd>,
    stopped: std::sync::mpsc::Receiver<()>,
}

impl InputThread {
    pub async fn recv(&mut self) -> Option<Input> {
        self.rx.recv().await
    }
}

impl Drop for InputThread {
    fn drop(&mut self) {
        drop(self.wake.take());
        // It stops as soon as its wait ends; a reader spinning on a dead terminal never
        // does, and is not waited for.
        let _ = self
            .stopped
            .recv_timeout(std::time::Duration::from_millis(200));
    }
}

pub fn spawn_input() -> InputThread {
    use std::os::fd::AsRawFd as _;
    // crossterm reads standard input when it is a terminal, else /dev/tty: watch the same.
    // SAFETY: isatty only inspects the descriptor.
    let tty = (unsafe { libc::isatty(0) } != 1)
        .then(|| std::fs::File::open("/dev/tty").ok())
        .flatten();
    let fd = tty.as_ref().map_or(0, |f| f.as_raw_fd());
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let (stopped_tx, stopped) = std::sync::mpsc::channel();
    let (wake_rx, wake) = match pipe() {
        Ok((r, w)) => (Some(r), Some(w)),
        Err(e) => {
            let _ = tx.try_send(Input::Failed(e));
            (None, None)
        }
    };
    if let Some(wake_rx) = wake_rx {
        std::thread::spawn(move || {
            let _keep = tty;
            read_terminal(fd, wake_rx.as_raw_fd(), &tx, crossterm_events);
            let _ = stopped_tx.send(());
        });
    }
    InputThread { rx, wake, stopped }
}

/// What one look at the terminal found.
#[derive(Debug, PartialEq)]
enum Ready {
    Input,
    HungUp,
    /// The wake pipe closed (nobody listens any more) or poll failed for good.
    Stop,
}

/// Waits, without a timeout, until `fd` has input or hangs up, or `wake` closes.
fn wait_terminal(fd: i32, wake: i32) -> Ready {
    let mut p = [
        // POLLHUP, POLLERR and POLLNVAL come whether asked for or not.
        libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: wake,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: two valid pollfds for the call's duration.
        let n = unsafe { libc::poll(p.as_mut_ptr(), 2, -1) };
        if n < 0 {
            // EINTR (SIGWINCH, SIGCONT): wait again; anything else will not get better.
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Ready::Stop;
        }
        if p[1].revents != 0 {
            return Ready::Stop;
        }
        // A hang-up first: input that came with it has nobody left to read it.
        if p[0].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return Ready::HungUp;
        }
        if p[0].revents & libc::POLLIN != 0 {
            return Ready::Input;
        }
    }
}

/// The reader's loop: wait, then hand every event crossterm makes of the input to `tx`.
/// `events` drains what is ready (crossterm, outside tests); false when it failed.
fn read_terminal(
    fd: i32,
    wake: i32,
    tx: &tokio::sync::mpsc::Sender<Input>,
    mut events: impl FnMut(&tokio::sync::mpsc::Sender<Input>) -> bool,
) {
    loop {
        match wait_terminal(fd, wake) {
            Ready::Stop => return,
            Ready::HungUp => {
                let _ = tx.blocking_send(Input::Gone);
                return;
            }
            Ready::Input => {
                if !events(tx) {
                    return;
                }
            }
        }
    }
}

/// Every event crossterm has ready, without waiting (one read may carry several keys, and
/// an escape sequence may need a second look); false once the terminal failed or nobody
/// listens.
fn crossterm_events(tx: &tokio::sync::mpsc::Sender<Input>) -> bool {
    loop {
        let input = match crossterm::event::poll(std::time::Duration::ZERO) {
            Ok(false) => return true,
            Ok(true) => crossterm::event::read().map_or_else(Input::Failed, Input::Event),
            Err(e) => Input::Failed(e),
        };
        let failed = matches!(input, Input::Failed(_));
        if tx.blocking_send(input).is_err() || failed {
            return false;
        }
    }
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd as _;
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    Ok(unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn openpty() -> (i32, i32) {
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
        (master, slave)
    }

    /// A stand-in for crossterm: reads what is there and says a key came.
    fn one_key_per_read(tx: &tokio::sync::mpsc::Sender<Input>) -> bool {
        let _ = tx.blocking_send(Input::Event(crossterm::event::Event::FocusGained));
        true
    }

    /// A terminal whose other end closes (an ssh session dropped, a window closed) is noticed
    /// as gone within a poll, not read forever; a key is handed on; closing the wake pipe
    /// stops the thread at once, with no timeout to wait out.
    #[test]
    fn a_hung_up_terminal_is_gone_not_spun_on() {
        let (master, slave) = openpty();
        let (wake_rx, wake) = pipe().expect("pipe");
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::os::fd::AsRawFd as _;
            read_terminal(slave, wake_rx.as_raw_fd(), &tx, move |tx| {
                // Consume what the slave has, as crossterm would.
                let mut buf = [0u8; 16];
                // SAFETY: reading into a buffer we own from a descriptor we opened.
                unsafe { libc::read(slave, buf.as_mut_ptr().cast(), buf.len()) };
                one_key_per_read(tx)
            });
            let _ = done_tx.send(());
        });
        // Nothing typed: nothing arrives.
        std::thread::sleep(Duration::from_millis(300));
        assert!(rx.try_recv().is_err());
        // A key typed is handed on (a line: the pty is in canonical mode, where input is
        // ready at a newline).
        // SAFETY: writing two bytes we own to the master we opened.
        unsafe { libc::write(master, b"q\n".as_ptr().cast(), 2) };
        assert!(matches!(wait_for(&mut rx), Some(Input::Event(_))));
        // SAFETY: closing the master we opened: the slave side hangs up.
        unsafe { libc::close(master) };
        assert!(matches!(wait_for(&mut rx), Some(Input::Gone)));
        assert!(done.recv_timeout(Duration::from_secs(3)).is_ok());
        drop(wake);
        // SAFETY: closing the slave we opened.
        unsafe { libc::close(slave) };
    }

    /// Dropping the input (the screen ends) stops the waiting thread at once.
    #[test]
    fn closing_the_wake_pipe_stops_the_wait() {
        let (master, slave) = openpty();
        let (wake_rx, wake) = pipe().expect("pipe");
        let (tx, _rx) = tokio::sync::mpsc::channel(4);
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::os::fd::AsRawFd as _;
            read_terminal(slave, wake_rx.as_raw_fd(), &tx, one_key_per_read);
            let _ = done_tx.send(());
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(done.try_recv().is_err(), "the reader stopped on its own");
        let start = Instant::now();
        drop(wake);
        assert!(done.recv_timeout(Duration::from_secs(3)).is_ok());
        assert!(start.elapsed() < Duration::from_millis(500));
        // SAFETY: closing the descriptors we opened.
        unsafe {
            libc::close(master);
            libc::close(slave);
        }
    }

    fn wait_for(rx: &mut tokio::sync::mpsc::Receiver<Input>) -> Option<Input> {
        let start = Instant::now();
        loop {
            match rx.try_recv() {
                Ok(i) => return Some(i),
                Err(_) if start.elapsed() > Duration::from_secs(3) => return None,
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}
