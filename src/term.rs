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
