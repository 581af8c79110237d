//! App state and `update(Msg) -> Vec<Command>`: no I/O, no clock of its own (time arrives in
//! messages). Side effects leave as [`Command`]s and come back as messages.

pub mod compare;
pub mod keys;
pub mod notes;
mod now;
mod playback;
mod server_keys;
pub mod transport;

/// The view and the moments live below the app (a capture's writer uses them too).
pub use crate::data_view::{self, moments};

use std::time::Duration;

use chrono::{DateTime, Utc};
use crossterm::event::KeyEvent;

use crate::control::{ChangeOutcome, ChangePlan, PlanContext, PurgeVariable, VariableFacts};
use crate::keymap;
use crate::replay::{LoadRequest, LoadedSample};
pub use data_view::{DataView, Link};
use innodebt_engine::verdicts::staleness;
use innodebt_engine::verdicts::whatif::WhatIfReport;
use innodebt_server::sample::SourceEvent;
pub use transport::{Recording, Replay};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Panel {
    Checkpoint,
    Flush,
    History,
    Purge,
    Dirty,
    Undo,
}

impl Panel {
    pub const ALL: [Panel; 6] = [
        Panel::Checkpoint,
        Panel::Flush,
        Panel::History,
        Panel::Purge,
        Panel::Dirty,
        Panel::Undo,
    ];

    /// The zoom key, 1–6.
    pub fn number(self) -> usize {
        Panel::ALL.iter().position(|p| *p == self).unwrap_or(0) + 1
    }

    pub fn from_number(n: usize) -> Option<Panel> {
        n.checked_sub(1).and_then(|i| Panel::ALL.get(i)).copied()
    }

    pub fn title(self) -> &'static str {
        match self {
            Panel::Checkpoint => "Checkpoint age",
            Panel::Flush => "Flush sources",
            Panel::History => "History list length",
            Panel::Purge => "Purge",
            Panel::Dirty => "Dirty pages",
            Panel::Undo => "Undo residency",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartWindow {
    OneMinute,
    FiveMinutes,
    FifteenMinutes,
    OneHour,
}

impl ChartWindow {
    pub fn secs(self) -> f64 {
        match self {
            ChartWindow::OneMinute => 60.0,
            ChartWindow::FiveMinutes => 300.0,
            ChartWindow::FifteenMinutes => 900.0,
            ChartWindow::OneHour => 3600.0,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ChartWindow::OneMinute => "1m",
            ChartWindow::FiveMinutes => "5m",
            ChartWindow::FifteenMinutes => "15m",
            ChartWindow::OneHour => "1h",
        }
    }

    pub fn next(self) -> ChartWindow {
        match self {
            ChartWindow::OneMinute => ChartWindow::FiveMinutes,
            ChartWindow::FiveMinutes => ChartWindow::FifteenMinutes,
            ChartWindow::FifteenMinutes => ChartWindow::OneHour,
            ChartWindow::OneHour => ChartWindow::OneMinute,
        }
    }
}

/// What a confirmed prompt will do. Confirmation is data: nothing runs until `update` turns
/// a confirmed `Action` into a `Command`.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Count undo pages in INNODB_BUFFER_PAGE_LRU now (scans the whole buffer pool).
    UndoScanNow,
    /// A runtime change (SET GLOBAL, enable monitors, KILL) exactly as planned and shown.
    Change(Box<ChangePlan>),
}

/// What to do with a variable's facts once they are read from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactsThen {
    /// `t` / `T`: one step up or down.
    Step(i64),
    /// Ask for a value.
    Prompt,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub title: String,
    /// Explanation lines shown above the choice.
    pub lines: Vec<String>,
    /// The exact SQL that will run, when it is SQL.
    pub sql: Option<String>,
    /// The highlighted answer; the default is No.
    pub yes_selected: bool,
    pub action: Action,
}

/// What typed text is for.
#[derive(Debug, Clone, PartialEq)]
pub enum InputPurpose {
    /// Replay: go to a time.
    Goto,
    /// A new value for a variable, checked against these facts.
    Variable(PurgeVariable, Box<VariableFacts>),
    /// A bookmark at this moment.
    Note { at: DateTime<Utc> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub title: String,
    pub lines: Vec<String>,
    pub text: String,
    /// Shown under the field after a rejected entry.
    pub error: Option<String>,
    pub purpose: InputPurpose,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help,
    /// `v`: every verdict that holds now, each in full (the verdict line may cut them).
    Verdicts,
    Input(Input),
    Confirm(Confirm),
    /// A one-off message (an error or a result); any key closes it.
    Notice {
        title: String,
        lines: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Quit,
    SetPollInterval(Duration),
    UndoScanNow,
    /// Ctrl-Z: leave the terminal, stop, and come back on `fg`.
    Suspend,
    /// Read a variable's current value, range and dynamism on a side connection.
    FetchFacts {
        variable: PurgeVariable,
        then: FactsThen,
    },
    /// Run a confirmed plan on its own connection, audit it, report back.
    Execute(Box<ChangePlan>),
    /// Load a replay window off the update path (`replay::Loader::load` on a blocking
    /// thread); the answer is [`Msg::Loaded`].
    Load(LoadRequest),
    /// Store a bookmark (the recording's writer, or a finished file), report back.
    SaveNote {
        note: innodebt_capture::Note,
        into: notes::NoteInto,
    },
}

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Source(SourceEvent),
    /// The clock moved (drives staleness and countdowns).
    Tick(DateTime<Utc>),
    Resize,
    /// A variable's facts arrived (or could not be read).
    Facts {
        variable: PurgeVariable,
        then: FactsThen,
        result: Result<Box<VariableFacts>, String>,
    },
    /// A runtime change finished.
    Executed {
        plan: Box<ChangePlan>,
        outcome: Box<ChangeOutcome>,
        /// The change ran but could not be written to the audit log.
        audit_error: Option<String>,
    },
    /// A replay window was loaded, or could not be (why): shown if `ticket` is still the
    /// load awaited, else dropped.
    Loaded {
        ticket: u64,
        result: Result<Box<LoadedSample>, String>,
    },
    /// A bookmark was stored (where), or could not be (why).
    NoteSaved {
        note: innodebt_capture::Note,
        result: Result<String, String>,
    },
}

/// How fresh the newest data is, for the header badge.
#[derive(Debug, Clone, PartialEq)]
pub enum Freshness {
    Waiting,
    Fresh {
        age_s: f64,
        /// The next sample is overdue (not yet stale): the header counts the seconds then,
        /// and only then, so an on-time screen is redrawn once per sample, not per second.
        late: bool,
    },
    Stale {
        age_s: f64,
    },
    Disconnected {
        retry_in_s: f64,
        down_for_s: f64,
        error: String,
    },
}

pub use innodebt_poller::live::MIN_INTERVAL;

pub const MAX_INTERVAL: Duration = Duration::from_secs(60);

/// What the dashboard shows, and so which keys act: each mode holds what only it has.
#[derive(Debug)]
pub enum Showing {
    /// A server as it runs, its figures fed by `feed`.
    Live(Feed),
    /// `p`: the figures of one moment held still while the feed goes on into `App::live`;
    /// `p` again lets go.
    Frozen { feed: Feed, held: Box<DataView> },
    /// A capture played back (`innodebt replay`, `--demo`): it changes no server.
    Replay(Box<Replay>),
    /// `innodebt compare` on a terminal: two captures' differences, ranked.
    Compare(Box<compare::Compare>),
}

/// Where a live dashboard's figures come from, which says what it may steer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// innodebt polls the server itself (`innodebt -h HOST`): the interval and the undo scan
    /// are this screen's, and so are runtime changes unless `--read-only`.
    Server { read_only: bool },
    /// A server opened from `innodebt fleet`: the fleet polls it, nothing here steers that.
    Fleet,
    /// `innodebt prometheus`: the figures come from Prometheus; there is no connection.
    Prometheus,
}

impl Feed {
    /// The keys that act on a live dashboard so fed.
    pub fn keys(self) -> &'static keymap::Table<keymap::LiveKey> {
        match self {
            Feed::Server { read_only: false } => &keymap::LIVE,
            Feed::Server { read_only: true } => &keymap::READ_ONLY,
            Feed::Fleet | Feed::Prometheus => &keymap::WATCHED,
        }
    }

    /// Nothing here changes the server.
    pub fn read_only(self) -> bool {
        !matches!(self, Feed::Server { read_only: false })
    }
}

#[derive(Debug)]
pub struct App {
    /// The figures the source feeds: the server's (on through a freeze), or the replay's
    /// window loaded last.
    pub live: DataView,
    /// The mode: what is shown, and so which keys act.
    pub showing: Showing,
    pub now: DateTime<Utc>,
    pub interval: Duration,
    pub window: ChartWindow,
    pub zoom: Option<Panel>,
    pub focus: Panel,
    pub overlay: Option<Overlay>,
    /// The capture file being written, if recording.
    pub recording: Option<String>,
    pub quit: bool,
    /// Something on screen changed since the last draw.
    pub needs_draw: bool,
    /// A past moment looked at (`--prometheus … --at`): the clock stays there, so the figures
    /// of that moment read as that moment's, not as stale.
    pub pinned_clock: Option<DateTime<Utc>>,
    /// A side task in flight (reading facts, running a change), for the status line.
    pub busy: Option<String>,
    /// Bookmarks added live this session (a replay's are on its recording).
    pub notes: Vec<innodebt_capture::Note>,
}

impl App {
    /// The dashboard of a server innodebt polls and may change.
    pub fn new(interval: Duration, now: DateTime<Utc>) -> Self {
        App::fed_by(Feed::Server { read_only: false }, interval, now)
    }

    /// The dashboard of a live server fed by `feed`.
    pub fn fed_by(feed: Feed, interval: Duration, now: DateTime<Utc>) -> Self {
        App::showing(Showing::Live(feed), interval, now)
    }

    fn showing(showing: Showing, interval: Duration, now: DateTime<Utc>) -> Self {
        App {
            live: DataView::default(),
            showing,
            now,
            interval,
            window: ChartWindow::FiveMinutes,
            zoom: None,
            focus: Panel::Checkpoint,
            overlay: None,
            recording: None,
            quit: false,
            needs_draw: true,
            pinned_clock: None,
            busy: None,
            notes: Vec::new(),
        }
    }

    /// An app showing a capture; its first window (the first sample, or `--from`) is the
    /// load [`start`](Self::start) asks for.
    pub fn replaying(replay: Replay, interval: Duration) -> Self {
        App::showing(
            Showing::Replay(Box::new(replay)),
            interval,
            DateTime::<Utc>::default(),
        )
    }

    /// What to do before the first event: a replay loads its first window.
    pub fn start(&mut self) -> Vec<Command> {
        match &self.showing {
            Showing::Replay(r) if r.unloaded() => self.seek(r.pos),
            _ => Vec::new(),
        }
    }

    /// What the panels show: the held copy while frozen, else what the source fed.
    pub fn view(&self) -> &DataView {
        match &self.showing {
            Showing::Frozen { held, .. } => held,
            Showing::Live(_) | Showing::Replay(_) | Showing::Compare(_) => &self.live,
        }
    }

    pub fn is_frozen(&self) -> bool {
        matches!(self.showing, Showing::Frozen { .. })
    }

    /// Nothing from here changes the server: `--read-only`, a fleet's server, Prometheus, a
    /// replay, a comparison.
    pub fn read_only(&self) -> bool {
        match self.showing {
            Showing::Live(feed) | Showing::Frozen { feed, .. } => feed.read_only(),
            Showing::Replay(_) | Showing::Compare(_) => true,
        }
    }

    /// What feeds a live (or frozen) dashboard now becomes `feed`; a replay or a comparison
    /// has no feed, and stays as it is.
    pub fn set_feed(&mut self, to: Feed) {
        if let Showing::Live(feed) | Showing::Frozen { feed, .. } = &mut self.showing {
            *feed = to;
        }
    }

    /// The replay shown, if a replay is.
    pub fn replay(&self) -> Option<&Replay> {
        match &self.showing {
            Showing::Replay(r) => Some(r),
            _ => None,
        }
    }

    pub fn replay_mut(&mut self) -> Option<&mut Replay> {
        match &mut self.showing {
            Showing::Replay(r) => Some(r),
            _ => None,
        }
    }

    /// The comparison shown, if one is.
    pub fn compare(&self) -> Option<&compare::Compare> {
        match &self.showing {
            Showing::Compare(c) => Some(c),
            _ => None,
        }
    }

    /// `replay --what-if`: the recording re-judged under another setting, when replaying one.
    pub fn what_if(&self) -> Option<&WhatIfReport> {
        match &self.showing {
            Showing::Replay(r) => r.what_if.as_ref(),
            _ => None,
        }
    }

    /// `p`: hold what is shown still, or let go of it.
    fn toggle_freeze(&mut self) {
        self.showing = match &self.showing {
            Showing::Live(feed) => Showing::Frozen {
                feed: *feed,
                held: Box::new(self.live.clone()),
            },
            Showing::Frozen { feed, .. } => Showing::Live(*feed),
            Showing::Replay(_) | Showing::Compare(_) => return,
        };
    }

    pub fn freshness(&self) -> Freshness {
        if let Link::Disconnected {
            since,
            retry_at,
            error,
        } = &self.live.link
        {
            return Freshness::Disconnected {
                retry_in_s: secs_between(self.now, *retry_at).max(0.0),
                down_for_s: secs_between(*since, self.now).max(0.0),
                error: error.clone(),
            };
        }
        let Some(latest) = &self.live.latest else {
            return Freshness::Waiting;
        };
        let age = (self.now - latest.sampled_at).to_std().unwrap_or_default();
        let age_s = age.as_secs_f64();
        // Due at the interval, or later where the latency guard stretched the tick: the one
        // rule serve's `innodebt_up` and the fleet row read too.
        match staleness::age(age, staleness::due_every(self.interval, Some(latest))) {
            staleness::Age::Stale => Freshness::Stale { age_s },
            a => Freshness::Fresh {
                age_s,
                late: a == staleness::Age::Late,
            },
        }
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Command> {
        match msg {
            Msg::Key(key) => keys::handle(self, key),
            Msg::Source(event) => {
                if self.live.ingest(&event, self.now) && !self.is_frozen() {
                    self.needs_draw = true;
                }
                Vec::new()
            }
            Msg::Tick(now) if matches!(self.showing, Showing::Replay(_)) => self.tick_replay(now),
            Msg::Loaded { ticket, result } => {
                self.loaded(ticket, result);
                Vec::new()
            }
            Msg::Tick(now) => {
                let before = self.freshness();
                self.now = self.pinned_clock.unwrap_or(now);
                // Redraw only when the badge or countdown text would change.
                if shown_freshness(&before) != shown_freshness(&self.freshness()) {
                    self.needs_draw = true;
                }
                Vec::new()
            }
            Msg::Resize => {
                self.needs_draw = true;
                Vec::new()
            }
            Msg::Facts {
                variable,
                then,
                result,
            } => {
                self.needs_draw = true;
                self.facts_arrived(variable, then, result);
                Vec::new()
            }
            Msg::Executed {
                plan,
                outcome,
                audit_error,
            } => {
                self.needs_draw = true;
                self.busy = None;
                let mut lines = outcome.lines(&plan);
                if let Some(e) = audit_error {
                    lines.push(format!("warning: not written to the audit log: {e}"));
                }
                self.overlay = Some(Overlay::Notice {
                    title: outcome.title(&plan),
                    lines,
                });
                Vec::new()
            }
            Msg::NoteSaved { note, result } => {
                notes::saved(self, &note, result);
                Vec::new()
            }
        }
    }

    /// The context plans are checked in: flavour, read-only, and whether purge is blocked now.
    pub fn plan_context(&self) -> Option<PlanContext> {
        let flavor = self.live.info()?.flavor;
        Some(match &self.live.latest {
            Some(f) => PlanContext::from_figures(flavor, self.read_only(), f),
            None => PlanContext::new(flavor, self.read_only()),
        })
    }

    /// Shows a refusal or error as a notice.
    pub fn notice(&mut self, title: &str, line: String) {
        self.overlay = Some(Overlay::Notice {
            title: title.to_string(),
            lines: vec![line],
        });
        self.needs_draw = true;
    }

    /// Opens the confirmation for a plan (the default answer is No).
    pub fn confirm_plan(&mut self, plan: ChangePlan) {
        let mut lines = plan.confirm_lines();
        if let Some(alt) = &plan.alternative {
            lines.push(format!("a: {} instead ({})", alt.title, alt.sql_text()));
        }
        self.overlay = Some(Overlay::Confirm(Confirm {
            title: plan.title.clone(),
            lines,
            sql: Some(plan.sql_text()),
            yes_selected: false,
            action: Action::Change(Box::new(plan)),
        }));
    }

    fn facts_arrived(
        &mut self,
        variable: PurgeVariable,
        then: FactsThen,
        result: Result<Box<VariableFacts>, String>,
    ) {
        self.busy = None;
        let facts = match result {
            Ok(f) => f,
            Err(e) => return self.notice(variable.name(), e),
        };
        let Some(ctx) = self.plan_context() else {
            return self.notice(variable.name(), "not connected to a server yet".into());
        };
        match then {
            FactsThen::Step(delta) => {
                match crate::control::plan_step(variable, delta, &facts, &ctx) {
                    Ok(plan) => self.confirm_plan(plan),
                    Err(r) => self.notice(variable.name(), r.to_string()),
                }
            }
            FactsThen::Prompt => {
                let range = match (facts.min, facts.max) {
                    (Some(lo), Some(hi)) => format!("allowed {lo} … {hi} {}", variable.unit()),
                    _ => "range unknown".to_string(),
                };
                self.overlay = Some(Overlay::Input(Input {
                    title: format!("Set {}", variable.name()),
                    lines: vec![
                        format!(
                            "now {} {}  ·  {range}",
                            facts
                                .current
                                .map(|c| c.to_string())
                                .unwrap_or_else(|| "?".into()),
                            variable.unit()
                        ),
                        "type the new value, Enter to review, Esc to cancel".into(),
                    ],
                    text: facts.current.map(|c| c.to_string()).unwrap_or_default(),
                    error: None,
                    purpose: InputPurpose::Variable(variable, facts),
                }));
            }
        }
    }

    /// Runs a confirmed action: the only way from a prompt to a side effect.
    fn confirmed(&mut self, action: Action) -> Vec<Command> {
        match action {
            Action::UndoScanNow => vec![Command::UndoScanNow],
            Action::Change(plan) => {
                self.busy = Some(format!("running: {}", plan.sql_text()));
                vec![Command::Execute(plan)]
            }
        }
    }
}

/// Whole seconds are what the header shows, so that is what decides a redraw.
/// What the header shows of the freshness, as a value that changes when its text does (the
/// clock compares it four times a second; nothing is formatted for that).
fn shown_freshness(f: &Freshness) -> (u8, u64) {
    match f {
        Freshness::Waiting => (0, 0),
        // On time, the header shows the sample's own time, which only a sample changes.
        Freshness::Fresh { late: false, .. } => (1, 0),
        Freshness::Fresh { age_s, late: true } => (2, *age_s as u64),
        Freshness::Stale { age_s } => (3, *age_s as u64),
        Freshness::Disconnected { retry_in_s, .. } => (4, retry_in_s.ceil() as u64),
    }
}

pub fn secs_between(a: DateTime<Utc>, b: DateTime<Utc>) -> f64 {
    (b - a).num_milliseconds() as f64 / 1000.0
}
