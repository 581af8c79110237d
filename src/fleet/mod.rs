//! `innodebt fleet`: one screen for many servers. One row per server — verdict, checkpoint
//! age against the async point, time to the stall point, history and its ETA, blocker age,
//! dirty pages, DML delay, innodebt's own cost — nearest breach first; `/` filters, `g`
//! groups, Enter opens the six-panel dashboard of a server, Esc comes back. Every server is
//! polled by its own task (timeout and backoff of its own); the loop never awaits one.

pub mod agent;
pub mod once;
pub mod poll;
pub mod prometheus;
pub mod render;
pub mod row;
pub mod state;

use std::process::ExitCode;
use std::time::Duration;

use chrono::Utc;
use crossterm::event::KeyEvent;
use tokio::sync::mpsc;

use crate::app::{self, App, DataView};
use crate::config::{self, Config};
use crate::keymap::ScreenKey;
use crate::mode::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::screen_loop::{Flow, Screen, ScreenError, ScreenEvent};
use crate::serve::config::TargetConfig;
use crate::terminal;
use crate::theme::Theme;
use poll::{Incoming, Recent};
use state::{Command, Fleet, Msg, Server};

/// How to read each server.
enum Source {
    Direct(crate::cli::ConnectOptions),
    Agent(agent::Agent),
}

fn servers(fleet: &config::Fleet) -> Result<Vec<(Server, Source)>, String> {
    let (args, file) = (&fleet.args, &fleet.file);
    let Some(own) = fleet.connection.as_ref() else {
        return Err("no connection options for the fleet's servers".into());
    };
    let defaults = agent::Access {
        ssl_ca: args.agent_ssl_ca.clone(),
        user: args.agent_user.clone(),
        password_file: args.agent_password_file.clone(),
    };
    let env_password = std::env::var(agent::PASSWORD_ENV).ok();
    let mut out = Vec::new();
    let mut add = |name: &str, spec: &TargetConfig| -> Result<(), String> {
        let (mut server, source) = match &spec.agent {
            Some(url) => {
                let access = agent::Access {
                    ssl_ca: spec.agent_ssl_ca.clone(),
                    user: spec.agent_user.clone(),
                    password_file: spec.agent_password_file.clone(),
                }
                .or(&defaults);
                let agent = agent::Agent::new(url, &access, env_password.as_deref())
                    .map_err(|e| format!("{name}: {e}"))?;
                (
                    Server::new(name, &format!("agent {url}"), false),
                    Source::Agent(agent),
                )
            }
            None => {
                let opts = spec
                    .connect_options(name, own)
                    .map_err(|e| format!("{name}: {e}"))?;
                (Server::new(name, &opts.label(), true), Source::Direct(opts))
            }
        };
        server.group = spec.group.clone();
        server.tags = spec.tags.clone();
        out.push((server, source));
        Ok(())
    };
    for (name, spec) in &file.targets {
        add(name, spec)?;
    }
    for h in &args.hosts {
        add(h, &TargetConfig::default())?;
    }
    if out.is_empty() {
        return Err(
            "no servers: give --config FILE with [targets.NAME] sections, or -h HOST[:PORT] \
             (repeatable), e.g. innodebt -u monitor -p fleet -h db1 -h db2:3307"
                .into(),
        );
    }
    Ok(out)
}

pub async fn main(config: &Config, fleet: &config::Fleet) -> ExitCode {
    let args = &fleet.args;
    if args.prometheus.prometheus.is_some() {
        return from_prometheus(config, args).await;
    }
    let list = match servers(fleet) {
        Ok(l) => l,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    // Before any server is polled.
    let theme = match theme_and_terminal(
        config,
        args.once,
        "for the fleet as text or JSON use `innodebt fleet … --once`, for one server \
         `innodebt -h HOST --once` (or `check`)",
    ) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let cfg = config.poll.clone();
    let (tx, rx) = mpsc::channel(1024);
    let mut tasks = Vec::new();
    let mut rows = Vec::new();
    for (i, (server, source)) in list.into_iter().enumerate() {
        rows.push(server);
        // One look answers as --once does: a verdict holds once a sample shows it.
        let deriver = config.judging.deriver();
        let deriver = if args.once {
            deriver.one_shot()
        } else {
            deriver
        };
        tasks.push(match source {
            Source::Direct(opts) => poll::spawn_direct(i, opts, cfg.clone(), deriver, tx.clone()),
            Source::Agent(a) => {
                poll::spawn_agent(i, a, deriver, cfg.interval, args.timeout, tx.clone())
            }
        });
    }
    let mut fleet = Fleet::new(rows, Utc::now());
    if args.once {
        // Long enough for a poll to time out, two samples and the verdicts' trend window.
        let limit = args.timeout + crate::mode::once_watch_limit(cfg.interval);
        let mut rx = rx;
        once::look(&mut fleet, &mut rx, limit).await;
        tasks.iter().for_each(|t| t.abort());
        return once::print(&fleet, args.format, limit);
    }
    let wiring = Wiring {
        incoming: rx,
        tx,
        prometheus: None,
    };
    let result = run(fleet, theme, wiring, config).await;
    tasks.iter().for_each(|t| t.abort());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}

/// `fleet --prometheus URL`: every instance the selector finds, from the first look on (read
/// before the screen opens, so a wrong URL or credential is a message and an exit code).
async fn from_prometheus(config: &Config, args: &crate::cli::FleetArgs) -> ExitCode {
    let p = &args.prometheus;
    if let Some(what) = [
        (!args.hosts.is_empty()).then_some("-h"),
        args.config.is_some().then_some("--config"),
    ]
    .into_iter()
    .flatten()
    .next()
    {
        return fail(
            EXIT_CONFIG,
            format!(
                "{what} with fleet --prometheus: the fleet is every instance Prometheus holds \
                 (narrow it with --job and --match); one server: innodebt --prometheus URL \
                 --instance NAME"
            ),
        );
    }
    let at = match p
        .at
        .map(|t| crate::from_prometheus::moment(Some(t)))
        .transpose()
    {
        Ok(at) => at,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let theme = match theme_and_terminal(
        config,
        args.once,
        "for the fleet as text or JSON use `innodebt fleet --prometheus URL --once`",
    ) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let origin = prometheus::Origin::from_args(p, config.poll.query_timeout, at);
    let deriver = config.judging.deriver();
    let deriver = if args.once || at.is_some() {
        deriver.one_shot()
    } else {
        deriver
    };
    let instances = match prometheus::Instances::new(&origin, deriver) {
        Ok(i) => i,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let url = instances.url().to_string();
    let moment = at.unwrap_or_else(Utc::now);
    let (tx, rx) = mpsc::channel(1024);
    // `--once` and `--at`: one look, nothing follows.
    let follow = (!args.once && at.is_none()).then(|| tx.clone());
    let changes = match prometheus::start(instances, moment, follow).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return fail(EXIT_FAILURE, e),
        Err(_) => return fail(EXIT_FAILURE, "the fleet's looks stopped before the first"),
    };
    if changes.added.is_empty() {
        return fail(
            EXIT_FAILURE,
            format!(
                "Prometheus at {} holds no mysqld_exporter or innodebt series{} at {}: check \
                 --job and --match, and that it scrapes the exporters",
                url,
                match (&p.job, p.matchers.is_empty()) {
                    (None, true) => String::new(),
                    (job, _) => format!(
                        " with {}",
                        job.iter()
                            .map(|j| format!("job=\"{j}\""))
                            .chain(p.matchers.iter().cloned())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                moment.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
        );
    }
    let mut fleet = Fleet::new(Vec::new(), moment);
    fleet.via = Some(format!("via Prometheus {url}"));
    fleet.as_of = at;
    let mut keys = Vec::new();
    for m in prometheus::messages(changes) {
        let (msg, new_keys) = m.into_msg();
        keys.extend(new_keys);
        if let Some(msg) = msg {
            fleet.update(msg);
        }
    }
    // The screen opens on the nearest breach, not on the first instance found.
    fleet.selected = 0;
    if args.once {
        fleet.update(Msg::Tick(Utc::now()));
        return once::print(&fleet, args.format, p.step);
    }
    let wiring = Wiring {
        incoming: rx,
        tx,
        prometheus: Some(PrometheusRows { origin, keys }),
    };
    // The looks' thread ends at its next send, when the screen is gone.
    match run(fleet, theme, wiring, config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}

/// The theme, and — for the screen, not `--once` — a terminal to draw it on (`instead` says
/// what to run without one).
fn theme_and_terminal(config: &Config, once: bool, instead: &str) -> Result<Theme, ExitCode> {
    let theme = config.look.theme()?;
    if !once {
        crate::mode::need_terminal(instead)?;
    }
    Ok(theme)
}

/// The Prometheus a fleet's rows come from, and each row's instance.
struct PrometheusRows {
    origin: prometheus::Origin,
    keys: Vec<innodebt_capture::prometheus::fleet::InstanceKey>,
}

/// The open dashboard of one server (and, for a Prometheus row, the task reading its series).
struct Open {
    index: usize,
    app: App,
    events: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Some(t) = &self.events {
            t.abort();
        }
    }
}

/// The loop's end of the tasks.
struct Wiring {
    incoming: mpsc::Receiver<Incoming>,
    /// For the task reading a Prometheus row's dashboard.
    tx: mpsc::Sender<Incoming>,
    /// `fleet --prometheus`: where each row's dashboard is read from.
    prometheus: Option<PrometheusRows>,
}

async fn run(
    fleet: Fleet,
    theme: Theme,
    wiring: Wiring,
    config: &Config,
) -> Result<(), ScreenError> {
    let recent = (0..fleet.servers.len())
        .map(|_| Recent::default())
        .collect();
    let mut screen = FleetScreen {
        fleet,
        theme,
        wiring,
        config,
        recent,
        open: None,
    };
    crate::screen_loop::run(&mut screen).await
}

/// The fleet on the one screen loop ([`crate::screen_loop`]): the rows, or one server's dashboard
/// while it is open.
struct FleetScreen<'a> {
    fleet: Fleet,
    theme: Theme,
    wiring: Wiring,
    config: &'a Config,
    /// Per server: its latest raw events, for its dashboard.
    recent: Vec<Recent>,
    open: Option<Open>,
}

impl Screen for FleetScreen<'_> {
    type Data = Incoming;

    async fn next_data(&mut self) -> Incoming {
        match self.wiring.incoming.recv().await {
            Some(incoming) => incoming,
            // The tasks run until aborted: closed only if every one of them failed.
            None => std::future::pending().await,
        }
    }

    fn needs_draw(&self) -> bool {
        match &self.open {
            Some(o) => o.app.needs_draw,
            None => self.fleet.needs_draw,
        }
    }

    fn draw(&mut self, terminal: &mut terminal::Tui) -> std::io::Result<()> {
        let theme = &self.theme;
        match self.open.as_mut() {
            Some(o) => {
                terminal.draw(|f| crate::render::render(f, &o.app, theme))?;
                o.app.needs_draw = false;
            }
            None => {
                let fleet = &self.fleet;
                terminal.draw(|f| render::render(f, fleet, theme))?;
                self.fleet.needs_draw = false;
            }
        }
        Ok(())
    }

    fn handle(
        &mut self,
        event: ScreenEvent<Incoming>,
        terminal: &mut terminal::Tui,
    ) -> Result<Flow, ScreenError> {
        match event {
            ScreenEvent::Key(k) => return self.key(k, terminal),
            ScreenEvent::Resize => {
                self.fleet.needs_draw = true;
                if let Some(o) = self.open.as_mut() {
                    o.app.update(app::Msg::Resize);
                }
            }
            ScreenEvent::Data(Incoming::Row(index, update)) => {
                self.fleet.update(Msg::Row { index, update });
            }
            ScreenEvent::Data(Incoming::Rows(updates)) => {
                self.fleet.update(Msg::Rows(updates));
            }
            ScreenEvent::Data(Incoming::Added(servers)) => {
                let (servers, keys): (Vec<_>, Vec<_>) = servers.into_iter().unzip();
                self.recent
                    .extend(std::iter::repeat_with(Recent::default).take(servers.len()));
                self.fleet.update(Msg::Add(servers));
                if let Some(p) = self.wiring.prometheus.as_mut() {
                    p.keys.extend(keys);
                }
            }
            ScreenEvent::Data(Incoming::Notice(n)) => {
                self.fleet.update(Msg::Notice(n));
            }
            ScreenEvent::Data(Incoming::Event(index, ev)) => {
                if let Some(o) = self.open.as_mut().filter(|o| o.index == index) {
                    o.app.update(app::Msg::Source(ev.clone()));
                }
                if let Some(r) = self.recent.get_mut(index) {
                    r.push(ev);
                }
            }
            ScreenEvent::Tick(now) => {
                self.fleet.update(Msg::Tick(now));
                if let Some(o) = self.open.as_mut() {
                    o.app.update(app::Msg::Tick(now));
                }
            }
        }
        Ok(Flow::Continue)
    }
}

impl FleetScreen<'_> {
    fn key(&mut self, k: KeyEvent, terminal: &mut terminal::Tui) -> Result<Flow, ScreenError> {
        if let Some(o) = self.open.as_mut() {
            if dashboard_key(&mut o.app, k, terminal)? {
                self.open = None;
                self.fleet.needs_draw = true;
            }
            return Ok(Flow::Continue);
        }
        for cmd in self.fleet.update(Msg::Key(k)) {
            match cmd {
                Command::Quit => return Ok(Flow::Quit),
                Command::Suspend => {
                    terminal::suspend(terminal)?;
                    self.fleet.needs_draw = true;
                }
                Command::Open(i) if self.wiring.prometheus.is_some() => {
                    let Some(p) = self.wiring.prometheus.as_ref() else {
                        continue;
                    };
                    let Some(key) = p.keys.get(i).cloned() else {
                        continue;
                    };
                    let mut o = open_dashboard(
                        i,
                        &Recent::default(),
                        self.config,
                        app::Feed::Prometheus,
                        p.origin.step,
                    );
                    if let Some(at) = p.origin.at {
                        o.app.pinned_clock = Some(at);
                        o.app.now = at;
                    }
                    o.events = Some(prometheus::spawn_dashboard(
                        i,
                        p.origin.clone(),
                        key,
                        self.wiring.tx.clone(),
                    ));
                    self.open = Some(o);
                }
                Command::Open(i) => {
                    if let Some(seen) = self.recent.get(i) {
                        self.open = Some(open_dashboard(
                            i,
                            seen,
                            self.config,
                            app::Feed::Fleet,
                            self.config.poll.interval,
                        ));
                    }
                }
            }
        }
        Ok(Flow::Continue)
    }
}

/// A read-only dashboard for server `index`, fed what was seen of it so far.
fn open_dashboard(
    index: usize,
    recent: &Recent,
    config: &Config,
    feed: app::Feed,
    interval: Duration,
) -> Open {
    // Runtime changes stay with the one-server dashboard (`innodebt -h HOST`).
    let mut app = App::fed_by(feed, interval, Utc::now());
    app.live = DataView::new(config.judging.deriver());
    for ev in recent.replay() {
        app.update(app::Msg::Source(ev));
    }
    app.needs_draw = true;
    Open {
        index,
        app,
        events: None,
    }
}

/// A key in the dashboard; `true` when it goes back to the fleet (Esc or q with nothing open).
fn dashboard_key(
    app: &mut App,
    k: KeyEvent,
    terminal: &mut terminal::Tui,
) -> Result<bool, ScreenError> {
    let nothing_open = app.overlay.is_none() && app.zoom.is_none();
    let back = matches!(
        app.screen_key_of(&k),
        Some(ScreenKey::Quit | ScreenKey::Back)
    );
    if nothing_open && back {
        return Ok(true);
    }
    for cmd in app.update(app::Msg::Key(k)) {
        match cmd {
            app::Command::Quit => return Ok(true),
            app::Command::Suspend => {
                terminal::suspend(terminal)?;
                app.needs_draw = true;
            }
            // Read-only: the fleet's pollers are not steered from here.
            _ => {}
        }
    }
    Ok(false)
}
