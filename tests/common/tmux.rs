//! Driving the real binary in tmux: a private tmux server (own socket) per test, keys in,
//! screen text out. Used for end-to-end tests of the dashboard.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A shell line that runs `command` in the foreground with its pid written to `pidfile`
/// first (`sh` writes its own pid, then execs). Unlike `cmd & echo $!; fg`, the program
/// never starts in a background process group, where setting up the terminal stops it.
pub fn with_pidfile(command: &str, pidfile: &Path) -> String {
    format!("sh -c 'echo $$ > {}; exec {command}'", pidfile.display())
}

pub struct Tmux {
    socket: PathBuf,
    session: String,
}

impl Tmux {
    /// A detached session of `width`×`height` running `bash --norc` in `dir`.
    pub fn start(dir: &Path, width: u16, height: u16) -> Tmux {
        let which = Command::new("tmux").arg("-V").output();
        assert!(
            which.is_ok_and(|o| o.status.success()),
            "tmux is needed for the end-to-end tests: apt-get install tmux"
        );
        let t = Tmux {
            socket: dir.join("tmux.sock"),
            session: "innodebt-e2e".into(),
        };
        t.run(&[
            "new-session",
            "-d",
            "-s",
            &t.session,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "env",
            "PS1=$ ",
            "TERM=xterm-256color",
            "bash",
            "--norc",
            "--noprofile",
        ]);
        t
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types literal text (no key-name interpretation).
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", &self.session, "-l", text]);
    }

    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, `q`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.session.as_str()];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", &self.session])
    }

    /// The normal screen with all its scrollback (what a program printed before and after
    /// its full-screen part).
    pub fn scrollback(&self) -> String {
        self.run(&[
            "capture-pane",
            "-p",
            "-S",
            "-",
            "-E",
            "-",
            "-t",
            &self.session,
        ])
    }

    pub fn resize(&self, width: u16, height: u16) {
        self.run(&[
            "resize-window",
            "-t",
            &self.session,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// A tmux format about the pane (`#{pane_title}`, `#{window_bell_flag}`), trimmed.
    pub fn display(&self, format: &str) -> String {
        self.run(&["display", "-p", "-t", &self.session, format])
            .trim()
            .to_string()
    }

    /// Whether the pane is showing the alternate screen (a full-screen program is up).
    pub fn alternate_on(&self) -> bool {
        self.run(&["display", "-p", "-t", &self.session, "#{alternate_on}"])
            .trim()
            == "1"
    }

    /// Whether the pane's terminal echoes what is typed (`stty -a` of its tty: `-echo` is off).
    pub fn echo_on(&self) -> bool {
        let tty = self.display("#{pane_tty}");
        let out = std::process::Command::new("stty")
            .args(["-F", &tty, "-a"])
            .output()
            .expect("run stty");
        let flags = String::from_utf8_lossy(&out.stdout);
        !flags.split_whitespace().any(|f| f == "-echo")
    }

    /// Waits until a prompt has turned echo off (after printing itself, a password prompt
    /// turns it off: typing before that would show the secret).
    pub fn wait_for_echo_off(&self, what: &str, timeout: Duration) {
        let start = Instant::now();
        while self.echo_on() {
            if start.elapsed() > timeout {
                panic!(
                    "timed out waiting for {what} to turn echo off:\n{}",
                    self.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the screen satisfies `pred`, returning it; panics with the last screen.
    pub fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; screen was:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["kill-server"])
            .output();
    }
}
