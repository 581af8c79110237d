//! Incident files: the [`Watch`]'s steps made into capture files in one directory (the
//! ordinary format, derivation states and all, so each replays on its own), `--max-disk`
//! applied after every file, and `--exec` run when an incident opens. Nothing here blocks the
//! caller: events go to the capture writer (one [`Recorder`] for every incident file) through
//! its bounded queue, and waiting for a file to finish and the command run on threads of
//! their own, reporting through the caller's `report`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::{Incident, Step, Trigger, Watch, WatchConfig};
use innodebt_capture::disk_budget::{Budget, create_private, unused_path};
use innodebt_capture::{CaptureSender, Header, Note, Recorder, RecorderOptions, WriterHandle};
use innodebt_engine::figures::Figures;
use innodebt_server::sample::SourceEvent;

/// Events queued for the incident files' writer, every file together, before copies are
/// dropped (an incident's backlog goes to it apart, whole).
const QUEUE: usize = 4096;

/// The writer of incident files, shared by every [`Incidents`] of a process.
pub fn start_writer() -> Result<Arc<Recorder>, String> {
    Recorder::start(RecorderOptions {
        queue: QUEUE,
        files: crate::replay::capture_files(Default::default()),
        // A file's errors come back through its handle, to `report`.
        report: Arc::new(|_| {}),
    })
    .map(Arc::new)
    .map_err(|e| e.to_string())
}

/// Where incidents go and what runs when one opens.
#[derive(Debug, Clone)]
pub struct IncidentOptions {
    pub dir: PathBuf,
    pub watch: WatchConfig,
    /// `--max-disk`: incident files never take more than its `max_disk` together (the oldest
    /// go first). Its root is `dir`, or wider (`serve`: every target's directory under one).
    pub budget: Arc<Budget>,
    /// `sh -c` command run when an incident opens.
    pub exec: Option<String>,
    /// Past this the command (its whole process group) is killed.
    pub exec_timeout: Duration,
    pub keep_queries: bool,
    pub interval_ms: Option<u64>,
    /// The target's name in `serve` (`INNODEBT_TARGET`).
    pub target: Option<String>,
}

/// Where a message about incidents goes (`record`: stderr; `serve`: stderr with the target).
pub type Report = Arc<dyn Fn(String) + Send + Sync>;

struct OpenFile {
    path: PathBuf,
    sender: CaptureSender,
    handle: WriterHandle,
}

/// The incidents of one server.
pub struct Incidents {
    opts: IncidentOptions,
    writer: Arc<Recorder>,
    watch: Watch,
    open: Option<OpenFile>,
    report: Report,
    /// Threads finishing files and running commands (joined at the end).
    threads: Vec<JoinHandle<()>>,
    written: Arc<Mutex<Vec<PathBuf>>>,
}

impl Incidents {
    /// Creates the directory (mode 0700) and starts watching; `writer` writes the files
    /// (see [`start_writer`]).
    pub fn new(
        opts: IncidentOptions,
        triggers: Vec<Trigger>,
        report: Report,
        writer: Arc<Recorder>,
    ) -> Result<Incidents, String> {
        create_dir_private(&opts.dir)?;
        Ok(Incidents {
            watch: Watch::new(triggers, opts.watch),
            opts,
            writer,
            open: None,
            report,
            threads: Vec::new(),
            written: Arc::default(),
        })
    }

    pub fn options(&self) -> &IncidentOptions {
        &self.opts
    }

    /// One event and, for a sample, its figures. Never blocks on the disk or the command.
    pub fn push(&mut self, ev: &SourceEvent, figures: Option<&Figures>) {
        for step in self.watch.push(ev, figures) {
            match step {
                Step::Open {
                    incident,
                    server,
                    backlog,
                } => self.open(&incident, server, backlog),
                Step::Write(ev) => {
                    if let Some(f) = &self.open {
                        f.sender.send(ev);
                    }
                }
                Step::Close { incident, ended_at } => self.close(Some((&incident, ended_at))),
                Step::Suppressed {
                    cause,
                    cooldown_ends,
                } => (self.report)(format!(
                    "{} turned on again ({}) inside the cooldown after the last incident (until {}): not captured — a shorter --cooldown captures each",
                    cause.trigger,
                    cause.message,
                    cooldown_ends.format("%H:%M:%S UTC")
                )),
            }
        }
        self.threads.retain(|t| !t.is_finished());
    }

    fn open(
        &mut self,
        incident: &Incident,
        server: Option<innodebt_server::sample::ServerInfo>,
        backlog: Vec<SourceEvent>,
    ) {
        let first_at = backlog.first().map_or(incident.started_at, SourceEvent::at);
        let path = self.path_for(incident);
        let mut header = Header::new(first_at, server.clone(), self.opts.keep_queries);
        header.interval_ms = self.opts.interval_ms;
        let w = self.opts.watch;
        header.notes.push(format!(
            "triggered capture: {} turned on at {} ({}); {} before, {} after, cooldown {}",
            incident.cause.trigger,
            incident.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
            incident.cause.message,
            innodebt_engine::units::duration(w.before.as_secs()),
            innodebt_engine::units::duration(w.after.as_secs()),
            innodebt_engine::units::duration(w.cooldown.as_secs()),
        ));
        // Each file replays on its own: it starts with the server's description.
        let mut backlog = backlog;
        if let Some(info) = server
            && !matches!(backlog.first(), Some(SourceEvent::Connected { .. }))
        {
            backlog.insert(0, SourceEvent::Connected { at: first_at, info });
        }
        let (sender, handle) = match self.writer.file(&path, &header, backlog) {
            Ok(x) => x,
            Err(e) => {
                (self.report)(format!(
                    "incident {} at {}: cannot write it: {e}",
                    incident.cause.trigger,
                    incident.started_at.format("%H:%M:%S UTC")
                ));
                return;
            }
        };
        self.opts.budget.opened(&path);
        // A bookmark at the moment it turned on: `n` in the replay goes straight there.
        sender.send_note(Note::new(
            incident.started_at,
            &format!(
                "incident: {} — {}",
                incident.cause.trigger, incident.cause.message
            ),
        ));
        (self.report)(format!(
            "incident: {} ({}) — writing {}",
            incident.cause.trigger,
            incident.cause.message,
            path.display()
        ));
        if let Some(cmd) = &self.opts.exec {
            self.exec(cmd.clone(), &path, incident);
        }
        self.open = Some(OpenFile {
            path,
            sender,
            handle,
        });
    }

    /// `DIR/20251123T180102Z-blocked_by_read_view.idbt` (name order is time order).
    fn path_for(&self, incident: &Incident) -> PathBuf {
        let stamp = incident.started_at.format("%Y%m%dT%H%M%SZ");
        let slug: String = incident
            .cause
            .trigger
            .chars()
            .map(|c| match c {
                'a'..='z' | '0'..='9' | '_' => c,
                '>' => 'G',
                '<' => 'L',
                '=' => 'E',
                _ => '_',
            })
            .collect();
        unused_path(&self.opts.dir, &format!("{stamp}-{slug}"))
    }

    fn exec(&mut self, cmd: String, path: &Path, incident: &Incident) {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(&cmd)
            .env("INNODEBT_FILE", path)
            .env("INNODEBT_VERDICT", &incident.cause.trigger)
            .env("INNODEBT_MESSAGE", &incident.cause.message)
            .env("INNODEBT_STARTED_AT", incident.started_at.to_rfc3339())
            .env(
                "INNODEBT_BEFORE_S",
                self.opts.watch.before.as_secs().to_string(),
            )
            .env(
                "INNODEBT_AFTER_S",
                self.opts.watch.after.as_secs().to_string(),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(t) = &self.opts.target {
            c.env("INNODEBT_TARGET", t);
        }
        let report = Arc::clone(&self.report);
        let what = format!("--exec for {}", path.display());
        let what_here = what.clone();
        let limit = self.opts.exec_timeout;
        let spawned = std::thread::Builder::new()
            .name("incident-exec".into())
            .spawn(move || {
                if let Err(why) = run_limited(c, limit) {
                    report(format!("{what}: `{cmd}` {why}"));
                }
            });
        match spawned {
            Ok(t) => self.threads.push(t),
            Err(e) => (self.report)(format!("{what_here}: cannot start a thread: {e}")),
        }
    }

    /// Finishes the open file on a thread of its own, then applies `--max-disk`.
    fn close(&mut self, why: Option<(&Incident, DateTime<Utc>)>) {
        let Some(OpenFile {
            path,
            sender,
            handle,
        }) = self.open.take()
        else {
            return;
        };
        let dropped = sender.dropped();
        drop(sender);
        let report = Arc::clone(&self.report);
        let budget = Arc::clone(&self.opts.budget);
        let written = Arc::clone(&self.written);
        let flaps = why.map_or(0, |(i, _)| i.rejoined);
        let ended = why.map(|(_, at)| at.format("%H:%M:%S UTC").to_string());
        let finish = move || {
            let result = handle.join();
            budget.closed(&path);
            match result {
                Ok(s) => {
                    let mut line = format!(
                        "incident file done: {} ({} events, {} bytes{}{})",
                        s.path.display(),
                        s.records,
                        s.bytes,
                        ended
                            .map(|e| format!(", quiet since {e}"))
                            .unwrap_or_default(),
                        if flaps > 0 {
                            format!(", {flaps} more trigger(s) joined it")
                        } else {
                            String::new()
                        }
                    );
                    let dropped = s.dropped.max(dropped);
                    if dropped > 0 {
                        line.push_str(&format!(
                            "; {dropped} events dropped: the disk could not keep up"
                        ));
                    }
                    report(line);
                    if let Ok(mut w) = written.lock() {
                        w.push(s.path);
                    }
                }
                Err(e) => report(format!("incident file {}: {e}", path.display())),
            }
            for gone in budget.enforce() {
                report(format!(
                    "--max-disk: deleted the oldest incident file {} ({} bytes)",
                    gone.path.display(),
                    gone.bytes
                ));
            }
        };
        match std::thread::Builder::new()
            .name("incident-close".into())
            .spawn(finish)
        {
            Ok(t) => self.threads.push(t),
            Err(e) => (self.report)(format!("cannot finish an incident file: {e}")),
        }
    }

    /// Finishes the open file (an incident still going is cut here) and waits for every
    /// file and command; returns the files written. Blocking: call from a blocking context.
    /// The writer goes on (it may be shared): its owner finishes it.
    pub fn finish(mut self) -> Vec<PathBuf> {
        if let Some(i) = self.watch.open_incident() {
            (self.report)(format!(
                "stopping inside an incident ({} since {}): its file ends here",
                i.cause.trigger,
                i.started_at.format("%H:%M:%S UTC")
            ));
        }
        self.close(None);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.written.lock().map(|w| w.clone()).unwrap_or_default()
    }
}

/// How often a running `--exec` is looked at, and how long its stderr may take to close.
const EXEC_POLL: Duration = Duration::from_millis(50);
const STDERR_GRACE: Duration = Duration::from_secs(1);

/// Runs `c` (stderr piped) until it exits or `limit` passes; past the limit its process group —
/// `sh` and whatever it started — is killed. `Err` says what went wrong, in words that follow
/// the command: "failed (exit status: 3): pager unreachable".
pub fn run_limited(mut c: Command, limit: Duration) -> Result<(), String> {
    use std::io::Read as _;
    use std::os::unix::process::CommandExt as _;
    // Its own group, so a kill reaches the children `sh -c` started too.
    c.process_group(0);
    let mut child = c.spawn().map_err(|e| format!("cannot run: {e}"))?;
    // Read stderr aside (a chatty command must not block on a full pipe); only its tail is
    // reported.
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(mut pipe) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
    }
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                return Err(format!(
                    "still running after {}: killed (--exec-timeout)",
                    short(limit)
                ));
            }
            Ok(None) => std::thread::sleep(EXEC_POLL),
            Err(e) => return Err(format!("cannot be waited for: {e}")),
        }
    };
    if status.success() {
        return Ok(());
    }
    // A grandchild still holding stderr open must not hold this thread: a short grace only.
    let err = rx.recv_timeout(STDERR_GRACE).unwrap_or_default();
    let err = String::from_utf8_lossy(&err);
    let tail = err.trim().lines().last().unwrap_or("").to_string();
    Err(format!(
        "failed ({status}){}",
        if tail.is_empty() {
            String::new()
        } else {
            format!(": {tail}")
        }
    ))
}

/// SIGKILL to the child's process group, then reaps the child.
fn kill_group(child: &mut std::process::Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // The group is the child's own (process_group(0)), so nothing else is hit.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `60s`, `1m 30s`, `500ms`.
fn short(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{}ms", d.as_millis())
    } else {
        innodebt_engine::units::duration(d.as_secs())
    }
}

fn create_dir_private(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{}: is a file; a triggered recording writes one file per incident into a directory — name a directory",
            dir.display()
        ));
    }
    create_private(
        dir,
        "incident directory",
        "check the path and its permissions",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    }

    /// Alive and not a zombie waiting for its new parent to reap it.
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
    }

    #[test]
    fn exec_past_its_limit_is_killed_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > '{}'; wait", pidfile.display());
        let start = Instant::now();
        let err = run_limited(sh(&script), Duration::from_millis(500)).unwrap_err();
        assert_eq!(err, "still running after 500ms: killed (--exec-timeout)");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        let pid = pid.trim();
        let gone = Instant::now();
        while running(pid) && gone.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!running(pid), "the sleep sh started outlived the kill");
    }

    #[test]
    fn exec_within_its_limit_says_how_it_ended() {
        assert_eq!(run_limited(sh("exit 0"), Duration::from_secs(10)), Ok(()));
        let err = run_limited(
            sh("echo first >&2; echo pager unreachable >&2; exit 3"),
            Duration::from_secs(10),
        )
        .unwrap_err();
        assert_eq!(err, "failed (exit status: 3): pager unreachable");
    }
}
