//! `innodebt fleet`: one screen for many servers. One row per server — verdict, checkpoint
//! age against the async point, time to the stall point, history and its ETA, blocker age,
//! dirty pages, DML delay, innodebt's own cost — nearest breach first; `/` filters, `g`
//! groups, Enter opens the six-panel dashboard of a server, Esc comes back. Every server is
//! polled by its own task (timeout and backoff of its own); the loop never awaits one.

pub mod agent;
pub mod poll;
pub mod row;
pub mod state;
pub mod ui;

use std::collections::VecDeque;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use chrono::Utc;
use crossterm::event::{Event, KeyEvent};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::{self, App, DataView};
use crate::cli::{Cli, FleetArgs};
use crate::derive::Deriver;
use crate::keymap::{self, KeyAction, Mode};
use crate::run::shared::{EXIT_CONFIG, EXIT_FAILURE, fail};
use crate::serve::config::{ConfigFile, TargetSpec};
use crate::source::live::PollerConfig;
use crate::term::{self, Input};
use crate::theme::Theme;
use poll::Incoming;
use state::{Command, Fleet, Msg, Server};

/// Raw events kept per direct server, so its dashboard opens with a little history.
const RECENT_EVENTS: usize = 180;
const MIN_FRAME: Duration = Duration::from_millis(66);

/// How to read each server.
enum Source {
    Direct(crate::cli::ConnectOptions),
    Agent(agent::Agent),
}

fn servers(cli: &Cli, args: &FleetArgs) -> Result<Vec<(Server, Source)>, String> {
    let file = match &args.config {
        Some(p) => ConfigFile::load(p).map_err(|e| e.to_string())?,
        None => ConfigFile::default(),
    };
    let own = cli.connect_options().map_err(|e| e.to_string())?.options;
    let defaults = agent::Access {
        ssl_ca: args.agent_ssl_ca.clone(),
        user: args.agent_user.clone(),
        password_file: args.agent_password_file.clone(),
    };
    let env_password = std::env::var(agent::PASSWORD_ENV).ok();
    let mut out = Vec::new();
    let mut add = |name: &str, spec: &TargetSpec| -> Result<(), String> {
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
                    .connect_options(name, &own)
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
        add(h, &TargetSpec::default())?;
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

pub async fn main(cli: &Cli, args: &FleetArgs) -> ExitCode {
    let list = match servers(cli, args) {
        Ok(l) => l,
        Err(e) => return fail(EXIT_CONFIG, e),
    };
    let theme = match crate::run::shared::theme(cli) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let cfg = PollerConfig {
        interval: cli.options.interval,
        innodb_status_every: cli.options.innodb_status_interval,
        query_timeout: args.timeout,
        ..PollerConfig::default()
    };
    let (tx, rx) = mpsc::channel(1024);
    let mut tasks = Vec::new();
    let mut rows = Vec::new();
    let mut agents = Vec::new();
    for (i, (server, source)) in list.into_iter().enumerate() {
        rows.push(server);
        agents.push(match &source {
            Source::Agent(a) => a.events().ok(),
            Source::Direct(_) => None,
        });
        tasks.push(match source {
            Source::Direct(opts) => poll::spawn_direct(
                i,
                opts,
                cfg.clone(),
                crate::run::shared::recovery_model(cli),
                tx.clone(),
            ),
            Source::Agent(a) => {
                poll::spawn_agent(i, a, cli.options.interval, args.timeout, tx.clone())
            }
        });
    }
    let fleet = Fleet::new(rows, Utc::now());
    let wiring = Wiring {
        incoming: rx,
        tx,
        agents,
        timeout: args.timeout,
    };
    let result = run(fleet, theme, wiring, cli).await;
    tasks.iter().for_each(|t| t.abort());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("{e:#}")),
    }
}

/// The open dashboard of one server (and, for an agent row, the task fetching its events).
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

/// The loop's ends of the tasks.
struct Wiring {
    incoming: mpsc::Receiver<Incoming>,
    /// For the events task of an agent row's dashboard.
    tx: mpsc::Sender<Incoming>,
    /// Per server: the agent's `/events` (agent rows only).
    agents: Vec<Option<agent::Agent>>,
    timeout: Duration,
}

async fn run(mut fleet: Fleet, theme: Theme, mut wiring: Wiring, cli: &Cli) -> anyhow::Result<()> {
    let mut terminal = term::init().context("cannot set up the terminal")?;
    let result = event_loop(&mut fleet, &theme, &mut wiring, &mut terminal, cli).await;
    term::restore();
    result
}

async fn event_loop(
    fleet: &mut Fleet,
    theme: &Theme,
    wiring: &mut Wiring,
    terminal: &mut term::Tui,
    cli: &Cli,
) -> anyhow::Result<()> {
    let mut input = term::spawn_input();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut winch = signal(SignalKind::window_change())?;
    let mut clock = tokio::time::interval(Duration::from_millis(250));
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut recent: Vec<VecDeque<crate::sample::SourceEvent>> =
        vec![VecDeque::new(); fleet.servers.len()];
    let mut open: Option<Open> = None;
    let mut last_draw = Instant::now() - MIN_FRAME;
    loop {
        let dirty = match &open {
            Some(o) => o.app.needs_draw,
            None => fleet.needs_draw,
        };
        if dirty && last_draw.elapsed() >= MIN_FRAME {
            match open.as_mut() {
                Some(o) => {
                    terminal.draw(|f| crate::ui::render(f, &o.app, theme))?;
                    o.app.needs_draw = false;
                }
                None => {
                    terminal.draw(|f| ui::render(f, fleet, theme))?;
                    fleet.needs_draw = false;
                }
            }
            last_draw = Instant::now();
        }
        let frame_due = last_draw + MIN_FRAME;
        tokio::select! {
            biased;
            _ = sigterm.recv() => return Ok(()),
            _ = sighup.recv() => return Ok(()),
            _ = winch.recv() => {
                fleet.needs_draw = true;
                if let Some(o) = open.as_mut() {
                    o.app.update(app::Msg::Resize);
                }
            }
            ev = input.recv() => match ev {
                Some(Input::Event(Event::Key(k))) => {
                    if let Some(o) = open.as_mut() {
                        if dashboard_key(&mut o.app, k, terminal)? {
                            open = None;
                            fleet.needs_draw = true;
                        }
                        continue;
                    }
                    for cmd in fleet.update(Msg::Key(k)) {
                        match cmd {
                            Command::Quit => return Ok(()),
                            Command::Suspend => {
                                term::suspend(terminal)?;
                                fleet.needs_draw = true;
                            }
                            Command::Open(i) => {
                                let agent = wiring.agents.get(i).cloned().flatten();
                                // An agent row's history comes from the agent itself.
                                let seen = match agent {
                                    Some(_) => VecDeque::new(),
                                    None => recent[i].clone(),
                                };
                                let mut o = open_dashboard(i, &seen, cli);
                                if let Some(a) = agent {
                                    o.events = Some(poll::spawn_agent_events(
                                        i,
                                        a,
                                        cli.options.interval,
                                        wiring.timeout,
                                        wiring.tx.clone(),
                                    ));
                                }
                                open = Some(o);
                            }
                        }
                    }
                }
                Some(Input::Event(Event::Resize(_, _))) => {
                    fleet.needs_draw = true;
                    if let Some(o) = open.as_mut() {
                        o.app.update(app::Msg::Resize);
                    }
                }
                Some(Input::Event(_)) => {}
                Some(Input::Failed(e)) => return Err(e).context("reading the terminal failed"),
                // The terminal hung up: nothing more will be typed.
                Some(Input::Gone) | None => return Ok(()),
            },
            msg = wiring.incoming.recv() => match msg {
                Some(Incoming::Row(index, update)) => {
                    fleet.update(Msg::Row { index, update });
                }
                Some(Incoming::Event(index, ev)) => {
                    if let Some(o) = open.as_mut().filter(|o| o.index == index) {
                        o.app.update(app::Msg::Source(ev.clone()));
                    }
                    if let Some(r) = recent.get_mut(index) {
                        if r.len() >= RECENT_EVENTS {
                            r.pop_front();
                        }
                        r.push_back(ev);
                    }
                }
                None => {}
            },
            _ = tokio::time::sleep_until(frame_due), if dirty => {}
            _ = clock.tick() => {
                let now = Utc::now();
                fleet.update(Msg::Tick(now));
                if let Some(o) = open.as_mut() {
                    o.app.update(app::Msg::Tick(now));
                }
            }
        }
    }
}

/// A read-only dashboard for server `index`, fed what was seen of it so far.
fn open_dashboard(index: usize, recent: &VecDeque<crate::sample::SourceEvent>, cli: &Cli) -> Open {
    let mut app = App::new(cli.options.interval, Utc::now());
    app.live = DataView::new(Deriver::with_recovery(crate::run::shared::recovery_model(
        cli,
    )));
    // Runtime changes stay with the one-server dashboard (`innodebt -h HOST`).
    app.read_only = true;
    for ev in recent {
        app.update(app::Msg::Source(ev.clone()));
    }
    app.needs_draw = true;
    Open {
        index,
        app,
        events: None,
    }
}

/// A key in the dashboard; `true` when it goes back to the fleet (Esc or q with nothing open).
fn dashboard_key(app: &mut App, k: KeyEvent, terminal: &mut term::Tui) -> anyhow::Result<bool> {
    let nothing_open = app.overlay.is_none() && app.zoom.is_none();
    let back = matches!(
        keymap::action(Mode::Live, &k),
        Some(KeyAction::Quit | KeyAction::Back)
    );
    if nothing_open && back {
        return Ok(true);
    }
    for cmd in app.update(app::Msg::Key(k)) {
        match cmd {
            app::Command::Quit => return Ok(true),
            app::Command::Suspend => {
                term::suspend(terminal)?;
                app.needs_draw = true;
            }
            // Read-only: the fleet's pollers are not steered from here.
            _ => {}
        }
    }
    Ok(false)
}
