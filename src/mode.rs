//! What every mode (the dashboard, `serve`, `fleet`, …) shares: how it ends on an error (one
//! clear line on stderr after the terminal is restored, and an exit code that says which kind
//! of failure it was), how it writes to standard output and whether a screen has a terminal.
//! Below `run`, `config`, `serve`, `fleet` and the screen loop, which all use it; it uses none
//! of them.

use std::io::{self, Write};
use std::process::ExitCode;

/// Exit codes: 0 fine, 1 runtime failure, 2 bad usage/configuration/input, ≥ 10 connection
/// failure classes (see `ConnectError::exit_code`).
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_CONFIG: u8 = 2;

pub fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    crate::terminal::restore();
    eprintln!("innodebt: {message}");
    ExitCode::from(code)
}

/// A headless command's text to standard output: written whole, or ended quietly when the
/// reader went away (`| head`), or a failure on stderr with exit 1 (a full disk, EIO).
pub fn emit(text: &str) -> ExitCode {
    match write_stdout(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, e),
    }
}

/// [`emit`]'s writing, for a caller with its own exit codes (`check`): `Ok` also when the
/// reader went away; the message names standard output.
pub fn write_stdout(text: &str) -> Result<(), String> {
    to_stdout(|out| out.write_all(text.as_bytes()))
}

/// Everything a headless command writes to standard output goes through here. Rust ignores
/// SIGPIPE (and resets it for the commands it starts), so a reader that went away shows up as
/// an `EPIPE` write error rather than a signal: that ends the command quietly with success, as
/// `cat` or `grep` end under `| head`; any other write error is a failure naming standard
/// output. `write`'s own errors that are not the output's (a capture that cannot be read)
/// come back in their own words.
pub fn to_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), String> {
    write_to(io::stdout().lock(), "standard output", write)
}

/// [`to_stdout`] to any writer; `name` says where the output goes ("standard output", a
/// path), for the message.
pub fn write_to<W: Write>(
    inner: W,
    name: &str,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), String> {
    let mut out = Sink::new(inner, name);
    let result = write(&mut out).and_then(|()| out.flush());
    match out.finish(result) {
        Ok(_) => Ok(()),
        Err(Failed::Output(e)) => Err(e),
        Err(Failed::Input(e)) => Err(e.to_string()),
    }
}

/// Why writing through a [`Sink`] stopped short.
#[derive(Debug)]
enum Failed {
    /// The output itself failed (not a closed pipe): the message names it.
    Output(String),
    /// Something else the writer called failed (reading a capture): its own error.
    Input(io::Error),
}

/// A writer that remembers its own first error. The exporters return one `io::Error` for a
/// capture they could not read and for an output they could not write (serde_json even turns
/// the latter into `ErrorKind::Other`); this tells the two apart, and a closed pipe from a
/// full disk.
struct Sink<W> {
    inner: W,
    name: String,
    failed: Option<io::Error>,
}

impl<W: Write> Sink<W> {
    fn new(inner: W, name: impl Into<String>) -> Self {
        Sink {
            inner,
            name: name.into(),
            failed: None,
        }
    }

    /// The outcome of writing through this sink: `Ok(None)` when the reader went away
    /// (a quiet success), `Ok(Some(value))` when all was written.
    fn finish<T>(self, result: io::Result<T>) -> Result<Option<T>, Failed> {
        match (result, self.failed) {
            (_, Some(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(None),
            (_, Some(e)) => Err(Failed::Output(format!("writing to {}: {e}", self.name))),
            (Ok(v), None) => Ok(Some(v)),
            (Err(e), None) => Err(Failed::Input(e)),
        }
    }

    fn note<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        r.map_err(|e| {
            let kind = e.kind();
            let copy = io::Error::new(kind, e.to_string());
            self.failed.get_or_insert(e);
            copy
        })
    }
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        // A write interrupted by a signal is retried by `write_all`: not a failure.
        match r {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            r => self.note(r),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.note(r)
    }
}

/// A full screen (the dashboard, a replay, the compare screen, the fleet) draws on standard
/// output and reads keys from standard input, or from the controlling terminal (`/dev/tty`)
/// when standard input is redirected, as crossterm does. Checked before anything connects or
/// reads, so that no terminal (cron, `ssh host innodebt`, `setsid`, a pipe) gets one line
/// saying what works instead — `instead` — not an OS error from raw mode. Exit 2: the
/// command line asks for what cannot be had here.
pub fn need_terminal(instead: &str) -> Result<(), ExitCode> {
    screen_refusal(instead).map_err(|e| fail(EXIT_CONFIG, e))
}

/// [`need_terminal`]'s check alone: `Err` is its message.
pub fn screen_refusal(instead: &str) -> Result<(), String> {
    match missing_terminal() {
        None => Ok(()),
        Some(why) => Err(no_terminal(why, instead)),
    }
}

/// The words for a screen without a terminal, shared with `screen_loop`'s set-up error.
pub fn no_terminal(why: &str, instead: &str) -> String {
    format!(
        "no terminal to draw the screen on ({why}): {instead}; over ssh, `ssh -t` gives the \
         command a terminal"
    )
}

/// What is missing for a screen, or `None` when there is a terminal.
fn missing_terminal() -> Option<&'static str> {
    use std::io::IsTerminal as _;
    if !io::stdout().is_terminal() {
        return Some("standard output is not a terminal");
    }
    let keys = io::stdin().is_terminal()
        || std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .is_ok();
    (!keys).then_some("standard input is not a terminal and there is no controlling terminal")
}

/// What a live dashboard without a terminal can do instead.
pub const LIVE_INSTEAD: &str = "for one look use --once (text, or --format json), and to \
     record without a screen `innodebt record FILE`";

/// How long `--once` may watch: the verdicts' trend window plus two intervals of slack.
pub fn once_watch_limit(interval: std::time::Duration) -> std::time::Duration {
    let trend = innodebt_engine::verdicts::Thresholds::default().trend_min_span_s;
    std::time::Duration::from_secs_f64(trend) + interval * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails every write with `kind`.
    struct Failing(io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn through(kind: io::ErrorKind) -> Result<Option<()>, Failed> {
        let mut sink = Sink::new(Failing(kind), "standard output");
        // As the JSON exporter does: serde_json hands the write error back as `Other`.
        let r = sink
            .write_all(b"{}\n")
            .map_err(|e| io::Error::other(e.to_string()));
        sink.finish(r)
    }

    #[test]
    fn a_closed_pipe_is_a_quiet_end_and_a_full_disk_a_failure() {
        assert!(matches!(through(io::ErrorKind::BrokenPipe), Ok(None)));
        match through(io::ErrorKind::StorageFull) {
            Err(Failed::Output(m)) => assert!(m.starts_with("writing to standard output: ")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_writers_own_errors_are_not_the_outputs() {
        let sink = Sink::new(Vec::new(), "standard output");
        let read = Err::<(), _>(io::Error::new(io::ErrorKind::BrokenPipe, "x.idbt: cut"));
        match sink.finish(read) {
            Err(Failed::Input(e)) => assert_eq!(e.to_string(), "x.idbt: cut"),
            other => panic!("{other:?}"),
        }
        let mut sink = Sink::new(Vec::new(), "standard output");
        let r = sink.write_all(b"ok");
        assert!(matches!(sink.finish(r), Ok(Some(()))));
    }
}
