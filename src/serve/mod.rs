//! `innodebt serve`: the derived figures for Prometheus (and anything that scrapes the same
//! format). `/metrics` answers for the server of the usual connection flags, `/probe?target=`
//! for any other (mysqld_exporter's multi-target convention): a name from the servers file,
//! or a `host[:port]` reached with innodebt's own credentials. Each target is polled on its
//! own cadence; a scrape reads its latest sample. With `--record-dir` every target also keeps
//! a rolling capture (the flight recorder).

pub mod allow;
mod any_cert;
pub mod auth;
pub mod config;
pub mod http;
pub mod process;
pub mod recorder;
mod setup;
pub mod target;
pub mod web_config;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::cli::{ConnectOptions, Endpoint};
use crate::mode::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::openmetrics::exporter::{Build, Exporter};
use crate::openmetrics::{self, Format};
use allow::ProbeAllow;
use config::{check_name, parse_host_port};
use http::{Request, Response};
use innodebt_capture::Recorder;
use innodebt_engine::derive::Deriver;
use innodebt_poller::live::PollerConfig;
use recorder::Budget;
pub use setup::Settings;
use setup::{IncidentPlan, bind};
use target::Target;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:9385";
const DEFAULT_RETAIN: Duration = Duration::from_secs(48 * 3600);
const DEFAULT_MAX_DISK: u64 = 500 << 20;
/// Unknown (`host:port`) targets kept polling at once; a probe beyond that is refused.
const MAX_DYNAMIC_TARGETS: usize = 256;
/// An unknown target nobody scraped for this long stops being polled.
const DYNAMIC_IDLE: Duration = Duration::from_secs(600);

/// Target names the start-up line lists before it gives only their count.
const LISTED_NAMES: usize = 10;
/// From this many named targets on, their polls are spread over the interval.
const SPREAD_FROM: usize = 16;

/// When the `i`-th of `count` named targets first connects: many targets are spread evenly
/// over one interval, so a thousand polls are not a thousand at once every interval (a
/// burst the scrapes would wait behind); a few start at once.
fn phase(i: usize, count: usize, interval: Duration) -> Duration {
    if count < SPREAD_FROM {
        return Duration::ZERO;
    }
    interval.mul_f64(i as f64 / count as f64)
}

/// Everything the request handler needs.
struct Server {
    /// The /metrics target; `None` with --probe-only.
    local: Option<Arc<Target>>,
    /// Targets named in the config file, started at once.
    named: HashMap<String, Arc<Target>>,
    /// `host[:port]` targets started by a probe.
    dynamic: Mutex<HashMap<String, Arc<Target>>>,
    /// innodebt's own connection: credentials for unknown targets.
    own: ConnectOptions,
    poller: PollerConfig,
    /// Each target's deriver, fresh: `--recovery-rate` and `--sizing-span`.
    deriver: Deriver,
    scrape_timeout: Duration,
    budget: Option<Arc<Budget>>,
    /// The flight recorder's writer, with `--record-dir`.
    recorder: Option<Recorder>,
    /// `--trigger` with `--incident-dir`: what every target watches for, and the writer of
    /// every target's incident files.
    incidents: Option<(IncidentPlan, Arc<Recorder>)>,
    watching: Mutex<Vec<target::SharedIncidents>>,
    /// Unnamed targets `/probe` may reach (none by default).
    allow: ProbeAllow,
}

/// `poller`: how each target is polled; `deriver`: the judge each target's samples go through
/// (a template, cloned per target).
pub async fn main(poller: &PollerConfig, deriver: &Deriver, settings: &Settings) -> ExitCode {
    process::raise_fd_limit();
    let recorder = match settings
        .record
        .as_ref()
        .map(|_| recorder::start())
        .transpose()
    {
        Ok(r) => r,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    let incident_writer = match settings
        .incidents
        .as_ref()
        .map(|_| crate::trigger::files::start_writer())
        .transpose()
    {
        Ok(w) => w,
        Err(e) => return fail(EXIT_FAILURE, e),
    };
    let listener = match bind(&settings.listen).await {
        Ok(l) => l,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let poller = poller.clone();
    let poller_interval = poller.interval;
    let mut server = Server {
        local: None,
        named: HashMap::new(),
        dynamic: Mutex::new(HashMap::new()),
        own: settings.own.clone(),
        poller,
        deriver: deriver.clone(),
        scrape_timeout: settings.scrape_timeout,
        budget: settings.record.clone(),
        recorder,
        incidents: settings.incidents.clone().zip(incident_writer),
        watching: Mutex::new(Vec::new()),
        allow: settings.allow.clone(),
    };
    if !settings.probe_only {
        server.local = Some(server.start_target("", settings.own.clone(), "local", Duration::ZERO));
    }
    let count = settings.targets.len();
    for (i, (name, opts)) in settings.targets.iter().enumerate() {
        let t = server.start_target(name, opts.clone(), name, phase(i, count, poller_interval));
        server.named.insert(name.clone(), t);
    }
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| settings.listen.clone());
    if let Some((p, _)) = &server.incidents {
        let shown: Vec<String> = p.triggers.iter().map(ToString::to_string).collect();
        eprintln!(
            "innodebt serve: every target watches for {}; incidents go to {}/TARGET/ (at most {})",
            shown.join(", "),
            p.opts.dir.display(),
            innodebt_engine::units::bytes(p.opts.budget.max_disk)
        );
    }
    // Before the "listening on" line: a SIGTERM that follows it (systemd's stop, a test)
    // must find the handler, not the default action that ends the process mid-recording.
    let signals = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    );
    let unnamed = if server.allow.is_empty() {
        "no other host (--probe-allow opens it)".to_string()
    } else {
        format!(
            "host[:port] matching {} with innodebt's own credentials",
            server.allow.describe()
        )
    };
    eprintln!(
        "innodebt serve: listening on {}://{addr}{} — /metrics: {}; /probe?target=NAME: {}{}",
        settings.web.scheme(),
        if settings.web.auth.is_some() {
            " (basic auth)"
        } else {
            ""
        },
        server
            .local
            .as_ref()
            .map_or("off (--probe-only)".to_string(), |t| t.label.clone()),
        if server.named.is_empty() {
            unnamed
        } else {
            let mut names: Vec<&str> = server.named.keys().map(String::as_str).collect();
            names.sort();
            let listed = if names.len() > LISTED_NAMES {
                format!(
                    "{}, … ({} targets)",
                    names[..LISTED_NAMES].join(", "),
                    names.len()
                )
            } else {
                names.join(", ")
            };
            format!("{listed}; {unnamed}")
        },
        server
            .budget
            .as_ref()
            .map(|b| format!(
                "; recording to {} (retain {}, max {})",
                b.root.display(),
                innodebt_engine::units::duration(b.retain.unwrap_or_default().as_secs()),
                innodebt_engine::units::bytes(b.max_disk)
            ))
            .unwrap_or_default()
    );
    let server = Arc::new(server);
    run(
        listener,
        Arc::new(settings.web.clone()),
        Arc::clone(&server),
        signals,
    )
    .await;
    server.shutdown().await
}

type Signals = (std::io::Result<Signal>, std::io::Result<Signal>);

async fn run(
    listener: TcpListener,
    web: Arc<web_config::Web>,
    server: Arc<Server>,
    signals: Signals,
) {
    let stop = async {
        match signals {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    };
    let janitor_server = Arc::clone(&server);
    let janitor = tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(30));
        loop {
            every.tick().await;
            janitor_server.forget_idle();
        }
    });
    let handler_server = Arc::clone(&server);
    http::serve(
        listener,
        web,
        move |req| {
            let s = Arc::clone(&handler_server);
            async move { s.handle(req).await }
        },
        stop,
    )
    .await;
    janitor.abort();
}

impl Server {
    fn start_target(
        &self,
        name: &str,
        opts: ConnectOptions,
        dir: &str,
        phase: Duration,
    ) -> Arc<Target> {
        let recording = self
            .recorder
            .as_ref()
            .zip(self.budget.as_ref())
            .and_then(|(r, budget)| {
                let dir = if dir.is_empty() { "local" } else { dir };
                match recorder::add(r, budget, &dir.replace([':', '[', ']'], "_")) {
                    Ok(sender) => Some(sender),
                    Err(e) => {
                        eprintln!("innodebt serve: {e}; {name} is not recorded");
                        None
                    }
                }
            });
        let incidents = self.incidents.as_ref().and_then(|(p, writer)| {
            let dir = if dir.is_empty() { "local" } else { dir };
            let mut opts = p.opts.clone();
            opts.dir = opts.dir.join(dir.replace([':', '[', ']', '/'], "_"));
            opts.target = Some(if name.is_empty() { "local" } else { name }.to_string());
            let who = opts.target.clone().unwrap_or_default();
            let report: crate::trigger::files::Report =
                Arc::new(move |line| eprintln!("innodebt serve: {who}: {line}"));
            let triggers = p.triggers.clone();
            match crate::trigger::files::Incidents::new(opts, triggers, report, Arc::clone(writer))
            {
                Ok(i) => {
                    let shared = Arc::new(Mutex::new(Some(i)));
                    if let Ok(mut w) = self.watching.lock() {
                        w.push(Arc::clone(&shared));
                    }
                    Some(shared)
                }
                Err(e) => {
                    eprintln!("innodebt serve: {e}; {name} has no triggered capture");
                    None
                }
            }
        });
        Target::start(
            name,
            opts,
            (self.poller.clone(), phase),
            self.deriver.clone(),
            recording,
            incidents,
        )
    }

    async fn handle(&self, req: Request) -> Response {
        let started = Instant::now();
        let format = Format::negotiate(req.accept.as_deref());
        match req.path.as_str() {
            // innodebt's own build and process families, with the local target's (if any).
            "/metrics" => {
                self.scrape(self.local.as_deref(), &req, format, started, true)
                    .await
            }
            "/probe" => match self.probe_target(&req) {
                Ok(t) => self.scrape(Some(&t), &req, format, started, false).await,
                Err(resp) => resp,
            },
            "/events" => self.events(&req),
            "/healthz" => Response::text(200, "ok"),
            "/" => Response::text(200, self.index()),
            other => Response::text(
                404,
                format!("no page {other:?} here: scrape /metrics or /probe?target=NAME"),
            ),
        }
    }

    fn probe_target(&self, req: &Request) -> Result<Arc<Target>, Response> {
        let Some(name) = req.param("target").map(str::trim).filter(|t| !t.is_empty()) else {
            return Err(Response::text(
                400,
                "missing ?target=NAME: a target of the config file or a host[:port]",
            ));
        };
        if let Some(t) = self.named.get(name) {
            return Ok(Arc::clone(t));
        }
        let endpoint = parse_host_port(name).map_err(|e| Response::text(400, e))?;
        check_name(name).map_err(|e| Response::text(400, format!("target {name:?}: {e}")))?;
        if let Endpoint::Tcp { host, port } = &endpoint
            && !self.allow.allows(host, *port)
        {
            // The name passed parse_host_port: no credentials or paths in it to leak.
            let peer = req.peer.map(|p| p.to_string()).unwrap_or_default();
            eprintln!(
                "innodebt serve: refused /probe?target={name} from {peer}: not a configured \
                 target and not allowed by --probe-allow"
            );
            return Err(Response::text(
                403,
                format!(
                    "target {name:?} is not one of the config file's [targets.*] and matches no \
                     --probe-allow pattern (probe_allow in [serve]); name it in the config file, \
                     or allow it, e.g. --probe-allow '{}'",
                    host
                ),
            ));
        }
        let Ok(mut dynamic) = self.dynamic.lock() else {
            return Err(Response::text(500, "internal error: target table poisoned"));
        };
        if let Some(t) = dynamic.get(name) {
            return Ok(Arc::clone(t));
        }
        if dynamic.len() >= MAX_DYNAMIC_TARGETS {
            return Err(Response::text(
                503,
                format!(
                    "already polling {MAX_DYNAMIC_TARGETS} unnamed targets: name this one in the \
                     config file, or wait for idle ones to stop (after {} min unscraped)",
                    DYNAMIC_IDLE.as_secs() / 60
                ),
            ));
        }
        let mut opts = self.own.clone();
        opts.endpoint = endpoint;
        let t = self.start_target(name, opts, name, Duration::ZERO);
        dynamic.insert(name.to_string(), Arc::clone(&t));
        Ok(t)
    }

    /// `/events?target=NAME&after=N`: the target's latest raw events as JSON (query texts as
    /// digests), for the dashboard a remote fleet view opens. Without `target`: /metrics's.
    fn events(&self, req: &Request) -> Response {
        let target = match req.param("target") {
            Some(_) => match self.probe_target(req) {
                Ok(t) => t,
                Err(resp) => return resp,
            },
            None => match &self.local {
                Some(t) => Arc::clone(t),
                None => {
                    return Response::text(
                        404,
                        "no /metrics target (--probe-only): give ?target=NAME",
                    );
                }
            },
        };
        let after = match req.param("after").map(str::parse::<u64>) {
            None => 0,
            Some(Ok(n)) => n,
            Some(Err(_)) => {
                return Response::text(400, "after= takes the number of the last event seen");
            }
        };
        Response::new(200, "application/json", target.events_json(after))
    }

    /// One target's families (none under `--probe-only`'s `/metrics`), and innodebt's own
    /// when `exporter` (on `/metrics` only, as mysqld_exporter's `/probe` leaves them out).
    async fn scrape(
        &self,
        t: Option<&Target>,
        req: &Request,
        format: Format,
        started: Instant,
        exporter: bool,
    ) -> Response {
        // Answer inside Prometheus's own timeout, with room to send the answer.
        let wait = req
            .scrape_timeout_s
            .map(|s| Duration::from_secs_f64((s - 0.5).max(0.2)))
            .unwrap_or(self.scrape_timeout)
            .min(self.scrape_timeout);
        let (own, figures, counters) = match t {
            Some(t) => {
                let (mut own, figures, counters) = t.read(wait).await;
                own.scrape_duration_s = started.elapsed().as_secs_f64();
                (Some(own), figures, counters)
            }
            None => (None, None, None),
        };
        let me = exporter.then(|| Exporter {
            build: Build::current(),
            process: process::read(),
        });
        let body = openmetrics::scrape(
            &openmetrics::Scrape {
                figures: figures.as_deref(),
                counters: counters.as_deref(),
                own: own.as_ref(),
                exporter: me.as_ref(),
            },
            format,
        );
        Response::new(200, format.content_type(), body)
    }

    fn index(&self) -> String {
        let mut names: Vec<&String> = self.named.keys().collect();
        names.sort();
        let mut out = String::from("innodebt serve\n\n");
        if let Some(t) = &self.local {
            out.push_str(&format!("/metrics            {}\n", t.label));
        }
        for n in names {
            out.push_str(&format!("/probe?target={n}\n"));
        }
        if !self.allow.is_empty() {
            out.push_str(&format!(
                "/probe?target=HOST[:PORT]   a server matching {}, with innodebt's own credentials\n",
                self.allow.describe()
            ));
        }
        out
    }

    fn forget_idle(&self) {
        if let Ok(mut d) = self.dynamic.lock() {
            d.retain(|_, t| t.idle_for() < DYNAMIC_IDLE);
        }
    }

    /// Stops polling and finishes every recording.
    async fn shutdown(&self) -> ExitCode {
        if let Ok(mut d) = self.dynamic.lock() {
            d.values().for_each(|t| t.stop());
            d.clear();
        }
        self.local
            .iter()
            .chain(self.named.values())
            .for_each(|t| t.stop());
        let watching = self
            .watching
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default();
        let incident_writer = self.incidents.as_ref().map(|(_, w)| Arc::clone(w));
        let _ = tokio::task::spawn_blocking(move || {
            for w in watching {
                if let Some(i) = w.lock().ok().and_then(|mut g| g.take()) {
                    i.finish();
                }
            }
            if let Some(Err(e)) = incident_writer.as_deref().map(Recorder::finish) {
                eprintln!("innodebt serve: finishing the incident files: {e}");
            }
        })
        .await;
        let Some(recorders) = self.recorder.as_ref().filter(|r| r.recordings() > 0) else {
            return ExitCode::SUCCESS;
        };
        eprintln!(
            "innodebt serve: finishing {} recording(s)",
            recorders.recordings()
        );
        // The writer thread needs nothing of the runtime: waiting for it on the runtime's
        // own thread only holds back pollers that are already stopped.
        let finished = match tokio::runtime::Handle::current().runtime_flavor() {
            tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| recorders.finish())
            }
            _ => recorders.finish(),
        };
        match finished {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => fail(
                EXIT_FAILURE,
                format!("finishing the recordings failed: {e}"),
            ),
        }
    }
}
