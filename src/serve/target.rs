//! One polled server of `innodebt serve`: the live poller on its own cadence, a [`Deriver`],
//! and the latest state in a watch channel. A scrape only reads that state — it never waits
//! on the server, except for a brand-new target's first sample, and then no longer than the
//! scrape's own timeout.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use innodebt_capture::CaptureSender;

/// A target's triggered capture, shared with the server so shutdown can finish its file.
pub type SharedIncidents = Arc<Mutex<Option<crate::trigger::files::Incidents>>>;
use crate::cli::ConnectOptions;
use crate::openmetrics::PollingState;
use crate::target::{Derived, DerivedEvents, PollerSpec, connector, spawn_target};
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_engine::measure::counters::Counters;
use innodebt_engine::verdicts::staleness;
use innodebt_poller::live::{PollerCommand, PollerConfig};
use innodebt_server::sample::SourceEvent;

/// What a scrape reads.
#[derive(Debug, Clone, Default)]
pub struct TargetState {
    pub figures: Option<Arc<Figures>>,
    /// The latest sample's raw counters (`*_total`).
    pub counters: Option<Arc<Counters>>,
    pub connected: bool,
    pub last_sample: Option<Instant>,
    pub last_error: Option<String>,
    pub last_poll_s: Option<f64>,
    pub server_seconds_total: f64,
    pub polls_total: u64,
}

/// Raw events kept for `/events` (a fleet view's dashboard of this target): the last two
/// minutes, at most 120 of them (two minutes at 1 s, 24 events at 5 s).
pub const RECENT_EVENTS: usize = 120;
pub const RECENT_SPAN: Duration = Duration::from_secs(120);

// One zstd context each way per runtime thread, not one made and freed per event: making one
// asks the CPU its features (`cpuid`), which in a virtual machine traps to the hypervisor —
// a fleet view's first `/events` of a thousand targets made 24,000 of them.
thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(1).ok());
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
    // An event's JSON and its compressed form, written into buffers kept per thread: made
    // afresh they were several large allocations per sample of every target, each one
    // sweeping glibc's fast bins (`malloc_consolidate`; BENCHMARKS.md, serve's design choices).
    static SCRATCH: std::cell::RefCell<(Vec<u8>, Vec<u8>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The latest raw events, numbered, query texts reduced to digests as in captures. Kept as
/// their `/events` JSON compressed with zstd (about a fifth of the decoded sample's size):
/// every target of a thousand keeps them, and a fleet view reads them (its rows and their
/// dashboards).
#[derive(Debug, Default)]
pub struct Recent {
    next: u64,
    events: VecDeque<Kept>,
    /// The latest `Connected`, every `Variables` change since folded into its server: sent
    /// first to a reader who missed events (a fleet that starts after two minutes), whose
    /// deriver knows no server without it.
    connected: Option<Kept>,
}

#[derive(Debug, Clone)]
struct Kept {
    number: u64,
    kept_at: Instant,
    json_len: usize,
    zstd: Box<[u8]>,
}

/// An event's JSON, compressed: its length and bytes.
fn encode(ev: &SourceEvent) -> Option<(usize, Box<[u8]>)> {
    SCRATCH.with(|s| {
        let (json, packed) = &mut *s.borrow_mut();
        json.clear();
        serde_json::to_writer(&mut *json, ev).ok()?;
        packed.clear();
        packed.reserve(zstd::zstd_safe::compress_bound(json.len()));
        COMPRESSOR.with(|c| {
            let mut c = c.borrow_mut();
            let c: &mut zstd::bulk::Compressor<'static> = c.as_mut()?;
            c.compress_to_buffer(json.as_slice(), packed).ok()
        })?;
        Some((json.len(), Box::<[u8]>::from(packed.as_slice())))
    })
}

/// A kept event's JSON.
fn decode(k: &Kept) -> Option<Vec<u8>> {
    DECOMPRESSOR.with(|d| {
        d.borrow_mut()
            .as_mut()
            .and_then(|d: &mut zstd::bulk::Decompressor<'static>| {
                d.decompress(&k.zstd, k.json_len).ok()
            })
    })
}

impl Recent {
    fn push(&mut self, ev: &SourceEvent, now: Instant) {
        let ev = innodebt_capture::writer::scrub(ev, false);
        self.next += 1;
        while self.events.len() >= RECENT_EVENTS
            || self
                .events
                .front()
                .is_some_and(|k| now.duration_since(k.kept_at) > RECENT_SPAN)
        {
            self.events.pop_front();
        }
        if let SourceEvent::Variables { .. } = &*ev {
            self.fold_into_connected(&ev);
        }
        // An event that does not serialise or compress is left out of /events (the numbers
        // still count it; the dashboard misses one point), never a failed poll.
        let Some((json_len, zstd)) = encode(&ev) else {
            return;
        };
        let kept = Kept {
            number: self.next,
            kept_at: now,
            json_len,
            zstd,
        };
        if let SourceEvent::Connected { .. } = &*ev {
            self.connected = Some(kept.clone());
        }
        self.events.push_back(kept);
    }

    /// A variable change, kept in the pinned `Connected` too (rare: a few a day).
    fn fold_into_connected(&mut self, variables: &SourceEvent) {
        let Some(pinned) = self.connected.as_mut() else {
            return;
        };
        let Some(json) = decode(pinned) else {
            return;
        };
        let Ok(SourceEvent::Connected { at, info }) = serde_json::from_slice(&json) else {
            return;
        };
        let mut server = Some(info);
        variables.describe(&mut server);
        let Some(info) = server else {
            return;
        };
        if let Some((json_len, zstd)) = encode(&SourceEvent::Connected { at, info }) {
            pinned.json_len = json_len;
            pinned.zstd = zstd;
        }
    }

    /// The `/events` answer: `{"next":N,"events":[…]}` with the events numbered above
    /// `after`; `next` is the number to ask from next time. A reader who missed events (the
    /// first it asks for are gone) gets the server's latest `Connected` first.
    pub fn after_json(&self, after: u64) -> String {
        let mut out = format!("{{\"next\":{},\"events\":[", self.next);
        let first_kept = self.events.front().map_or(self.next + 1, |k| k.number);
        let missed = after.saturating_add(1) < first_kept;
        let resume = self
            .connected
            .as_ref()
            .filter(|c| missed && c.number < first_kept);
        let kept = self.events.iter().filter(|k| k.number > after);
        let mut first = true;
        for k in resume.into_iter().chain(kept) {
            // serde_json's own output is UTF-8: checked, not copied through a lossy decode.
            let Some(json) = decode(k) else {
                continue;
            };
            let Ok(json) = std::str::from_utf8(&json) else {
                continue;
            };
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(json);
        }
        out.push_str("]}");
        out
    }

    /// Bytes held by the kept events (compressed).
    pub fn held_bytes(&self) -> usize {
        self.events.iter().map(|k| k.zstd.len()).sum::<usize>()
            + self.connected.as_ref().map_or(0, |k| k.zstd.len())
    }
}

/// `innodebt_up`: connected, with a sample that is not stale by the rule the dashboard's
/// STALE badge and the fleet row read ([`staleness`]).
pub fn up(
    connected: bool,
    sample_age: Option<Duration>,
    interval: Duration,
    latest: Option<&Figures>,
) -> bool {
    let every = staleness::due_every(interval, latest);
    connected && sample_age.is_some_and(|a| staleness::age(a, every) != staleness::Age::Stale)
}

pub struct Target {
    pub name: String,
    /// Where it connects (never credentials), for logs and the index page.
    pub label: String,
    state: watch::Receiver<TargetState>,
    last_scrape: Mutex<std::time::Instant>,
    /// The refresh interval: with the latency guard's stretch, when samples are due.
    interval: Duration,
    recent: Arc<Mutex<Recent>>,
    tasks: [JoinHandle<()>; 2],
    /// Kept so the poller keeps running (it stops when every command sender is gone).
    _commands: mpsc::Sender<PollerCommand>,
}

impl Drop for Target {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Target {
    pub fn start(
        name: &str,
        opts: ConnectOptions,
        (mut cfg, phase): (PollerConfig, Duration),
        deriver: Deriver,
        recorder: Option<CaptureSender>,
        incidents: Option<SharedIncidents>,
    ) -> Arc<Target> {
        let label = opts.label();
        cfg.label = label.clone();
        let interval = cfg.interval;
        let target = spawn_target(PollerSpec {
            first: None,
            connect: connector(opts),
            cfg,
            deriver: Some(deriver),
            events: 256,
            commands: 4,
            start_after: phase,
        });
        let (state_tx, state) = watch::channel(TargetState::default());
        let who = if name.is_empty() || name == label {
            label.clone()
        } else {
            format!("{name} ({label})")
        };
        let recent = Arc::new(Mutex::new(Recent::default()));
        let consumer = tokio::spawn(consume(
            target.feed,
            state_tx,
            (recorder, incidents),
            Arc::clone(&recent),
            who,
        ));
        Arc::new(Target {
            name: name.to_string(),
            label,
            state,
            last_scrape: Mutex::new(std::time::Instant::now()),
            interval,
            recent,
            tasks: [target.poller, consumer],
            _commands: target.commands,
        })
    }

    /// The `/events` answer after `after` (see [`Recent::after_json`]). A read like a
    /// scrape: a fleet that reads only `/events` keeps a probed target polled.
    pub fn events_json(&self, after: u64) -> String {
        if let Ok(mut t) = self.last_scrape.lock() {
            *t = std::time::Instant::now();
        }
        self.recent
            .lock()
            .map(|r| r.after_json(after))
            .unwrap_or_else(|_| r#"{"next":0,"events":[]}"#.to_string())
    }

    /// Stops polling (and so feeding the recorder).
    pub fn stop(&self) {
        for t in &self.tasks {
            t.abort();
        }
    }

    /// Time since the last scrape or `/events` (idle dynamic targets are stopped).
    pub fn idle_for(&self) -> Duration {
        self.last_scrape
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }

    /// The latest figures, raw counters and innodebt's own state. Waits (at most `wait`)
    /// only while the target has neither a sample nor an error yet.
    pub async fn read(
        &self,
        wait: Duration,
    ) -> (PollingState, Option<Arc<Figures>>, Option<Arc<Counters>>) {
        if let Ok(mut t) = self.last_scrape.lock() {
            *t = std::time::Instant::now();
        }
        let mut rx = self.state.clone();
        let nothing_yet = |s: &TargetState| s.figures.is_none() && s.last_error.is_none();
        let mut timed_out = false;
        if nothing_yet(&rx.borrow()) {
            timed_out = tokio::time::timeout(wait, rx.wait_for(|s| !nothing_yet(s)))
                .await
                .is_err();
        }
        let s = rx.borrow().clone();
        let sample_age = s.last_sample.map(|t| t.elapsed());
        let up = up(s.connected, sample_age, self.interval, s.figures.as_deref());
        let last_error = match (&s.last_error, up) {
            (Some(e), _) => Some(e.clone()),
            (None, false) if timed_out => Some(format!(
                "no answer from {} within the scrape timeout ({:.1}s); still trying",
                self.label,
                wait.as_secs_f64()
            )),
            (None, false) => sample_age.map(staleness::stale_reason),
            (None, true) => None,
        };
        let own = PollingState {
            up,
            scrape_duration_s: 0.0,
            sample_age_s: sample_age.map(|a| a.as_secs_f64()),
            last_poll_s: s.last_poll_s,
            server_seconds_total: s.server_seconds_total,
            polls_total: s.polls_total,
            last_error,
        };
        (own, s.figures.clone(), s.counters.clone())
    }
}

/// Turns the poller's events into the state scrapes read (and feeds the recorder).
async fn consume(
    mut feed: DerivedEvents,
    state: watch::Sender<TargetState>,
    (recorder, incidents): (Option<CaptureSender>, Option<SharedIncidents>),
    recent: Arc<Mutex<Recent>>,
    who: String,
) {
    while let Some(Derived { event: ev, figures }) = feed.next().await {
        if let Ok(mut r) = recent.lock() {
            r.push(&ev, Instant::now());
        }
        let figures = figures.map(Arc::new);
        // Never blocks: the incident files' writer takes events through its bounded queue.
        if let Some(Ok(mut guard)) = incidents.as_ref().map(|i| i.lock())
            && let Some(i) = guard.as_mut()
        {
            i.push(&ev, figures.as_deref());
        }
        state.send_modify(|s| match &ev {
            SourceEvent::Connected { info, .. } => {
                eprintln!(
                    "innodebt serve: {who}: connected ({} {})",
                    info.flavor.kind.as_str(),
                    info.version
                );
                s.connected = true;
                s.last_error = None;
            }
            SourceEvent::Disconnected { error, .. } => {
                if s.connected || s.last_error.as_deref() != Some(error) {
                    eprintln!("innodebt serve: {who}: down: {error}");
                }
                s.connected = false;
                s.last_error = Some(error.clone());
                // Figures of a server that is gone are not the server's figures now.
                s.figures = None;
                s.counters = None;
            }
            SourceEvent::Sample(sample) => {
                let poll_s = f64::from(sample.poll_ms) / 1000.0;
                s.polls_total += 1;
                s.server_seconds_total += poll_s;
                s.last_poll_s = Some(poll_s);
                s.last_sample = Some(Instant::now());
                let lsn = figures.as_ref().and_then(|f| f.redo.lsn);
                s.counters = Some(Arc::new(Counters::read(sample, lsn)));
                if let Some(f) = figures {
                    s.figures = Some(f);
                }
            }
            SourceEvent::Variables { .. } | SourceEvent::Audit(_) => {}
        });
        // Last, so the event is handed over rather than copied.
        if let Some(r) = &recorder {
            r.send(ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use innodebt_server::sample::{Sample, TrxRow};

    fn sample(trx: usize, query: &str) -> SourceEvent {
        let mut s = Sample::new(chrono::Utc::now(), 1.0);
        s.status.insert("Innodb_lsn_current".into(), 42);
        s.trx = (0..trx)
            .map(|i| TrxRow {
                trx_id: i.to_string(),
                state: "RUNNING".into(),
                query: Some(format!("{query} {i}")),
                ..TrxRow::default()
            })
            .collect();
        SourceEvent::Sample(Box::new(s))
    }

    /// Each kept event reads back as the JSON of the scrubbed event, whatever the size of the
    /// one before it in the reused buffers, and `after` skips the ones already read.
    #[test]
    fn events_read_back_as_kept_whatever_came_before() {
        let mut recent = Recent::default();
        let now = Instant::now();
        let events = [
            sample(200, "UPDATE t SET secret = 'hunter2' WHERE id ="),
            sample(1, "SELECT 1 FROM dual WHERE x ="),
            SourceEvent::Disconnected {
                since: chrono::Utc::now(),
                retry_in_ms: 1_000,
                error: "gone".into(),
            },
        ];
        for ev in &events {
            recent.push(ev, now);
        }
        let expected: Vec<serde_json::Value> = events
            .iter()
            .map(|ev| {
                serde_json::to_value(&*innodebt_capture::writer::scrub(ev, false))
                    .expect("an event serialises")
            })
            .collect();
        let all: serde_json::Value =
            serde_json::from_str(&recent.after_json(0)).expect("/events is JSON");
        assert_eq!(all["next"], 3);
        assert_eq!(
            all["events"].as_array().expect("an events array"),
            &expected
        );
        assert!(
            !recent.after_json(0).contains("hunter2"),
            "query texts are digests"
        );
        let last: serde_json::Value =
            serde_json::from_str(&recent.after_json(2)).expect("/events is JSON");
        assert_eq!(
            last["events"].as_array().expect("an events array"),
            &expected[2..]
        );
        assert!(recent.held_bytes() > 0);
    }

    /// A reader who starts late, or missed events, still learns the server: the latest
    /// `Connected` comes first, with the variable changes since; one who kept up does not get
    /// it again.
    #[test]
    fn a_late_reader_gets_the_server_first() {
        use innodebt_server::sample::ServerInfo;
        let mut recent = Recent::default();
        let now = Instant::now();
        let at = chrono::Utc::now();
        let info = ServerInfo::mariadb_10_11(&[("innodb_max_purge_lag", "0".into())]);
        recent.push(&SourceEvent::Connected { at, info }, now);
        recent.push(
            &SourceEvent::Variables {
                at,
                variables: [("innodb_max_purge_lag".to_string(), "5000".to_string())].into(),
            },
            now,
        );
        for _ in 0..RECENT_EVENTS + 10 {
            recent.push(&sample(0, "SELECT 1"), now);
        }
        let read = |after: u64| -> Vec<serde_json::Value> {
            let v: serde_json::Value =
                serde_json::from_str(&recent.after_json(after)).expect("/events is JSON");
            v["events"].as_array().expect("events").clone()
        };
        let all = read(0);
        assert_eq!(all.len(), RECENT_EVENTS + 1);
        let connected = &all[0];
        assert_eq!(connected["event"], "connected");
        assert_eq!(
            connected["info"]["variables"]["innodb_max_purge_lag"], "5000",
            "{connected}"
        );
        assert_eq!(all[1]["event"], "sample");
        // Missed some (asked from 5, the oldest kept is later): the server first again.
        assert_eq!(read(5)[0]["event"], "connected");
        // Kept up: only what is new.
        let next = recent.next;
        assert_eq!(read(next - 1).len(), 1);
        assert_eq!(read(next - 1)[0]["event"], "sample");
        assert!(read(next).is_empty());
    }
}
