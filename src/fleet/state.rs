//! The fleet view's state and `update(msg) -> Vec<Command>`: no I/O, the clock arrives in
//! messages. Rows are kept in "nearest breach first" order (optionally within their group),
//! `/` edits a filter over names, groups, tags and verdicts, Enter asks to open a server.

use std::time::Duration;

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent};

use super::row::{RowFigures, RowLink, breach_order};
use crate::keymap::{self, FleetKey, TextKey};
use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::staleness;

/// One server of the fleet.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub name: String,
    pub group: Option<String>,
    pub tags: Vec<String>,
    /// Where it is read from: `db1:3306`, or `agent http://…`.
    pub source: String,
    /// Polled directly, not through an agent.
    pub direct: bool,
    pub link: RowLink,
    pub figures: Option<RowFigures>,
    /// Time of the latest figures.
    pub updated: Option<DateTime<Utc>>,
    /// When the next figures are due, while they come; `None` once the source said it is down.
    pub every: Option<Duration>,
}

impl Server {
    pub fn new(name: &str, source: &str, direct: bool) -> Server {
        Server {
            name: name.to_string(),
            group: None,
            tags: Vec::new(),
            source: source.to_string(),
            direct,
            link: RowLink::Waiting,
            figures: None,
            updated: None,
            every: None,
        }
    }

    /// A server whose figures stopped coming is down by the rule the dashboard's STALE and
    /// serve's `innodebt_up` read, in serve's words (an agent row says the same). `true`
    /// when it just went down.
    fn judge_age(&mut self, now: DateTime<Utc>) -> bool {
        let (Some(at), Some(every)) = (self.updated, self.every) else {
            return false;
        };
        let age = (now - at).to_std().unwrap_or_default();
        if staleness::age(age, every) != staleness::Age::Stale {
            return false;
        }
        let was_up = self.link == RowLink::Up;
        self.link = RowLink::Down {
            error: staleness::stale_reason(age),
        };
        self.figures = None;
        was_up
    }

    fn matches(&self, filter: &str) -> bool {
        filter.split_whitespace().all(|term| {
            let term = term.to_lowercase();
            let has = |s: &str| s.to_lowercase().contains(&term);
            if let Some(g) = term.strip_prefix("group:") {
                return self
                    .group
                    .as_deref()
                    .is_some_and(|x| x.eq_ignore_ascii_case(g));
            }
            if let Some(t) = term.strip_prefix("tag:") {
                return self.tags.iter().any(|x| x.eq_ignore_ascii_case(t));
            }
            has(&self.name)
                || has(&self.source)
                || self.group.as_deref().is_some_and(has)
                || self.tags.iter().any(|t| has(t))
                || self
                    .figures
                    .as_ref()
                    .and_then(|f| f.verdict.as_ref())
                    .is_some_and(|v| has(&v.0))
                || (matches!(self.link, RowLink::Down { .. }) && has("disconnected"))
        })
    }
}

/// What changed for one server.
#[derive(Debug, Clone, PartialEq)]
pub enum RowUpdate {
    Figures {
        figures: Box<RowFigures>,
        at: DateTime<Utc>,
        /// When the next figures are due ([`staleness::due_every`]).
        every: Duration,
    },
    Down {
        error: String,
    },
}

impl RowUpdate {
    /// A direct server's new figures, due again when [`staleness::due_every`] says.
    pub fn figures(f: &Figures, interval: Duration, poll_ms: Option<u32>) -> RowUpdate {
        RowUpdate::Figures {
            figures: Box::new(RowFigures::from_figures(f, poll_ms)),
            at: f.sampled_at,
            every: staleness::due_every(interval, Some(f)),
        }
    }
}

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Row {
        index: usize,
        update: RowUpdate,
    },
    /// Many rows' news at once (a look at a whole fleet): applied, then sorted once.
    Rows(Vec<(usize, RowUpdate)>),
    /// Servers found after the start, at the next indices.
    Add(Vec<Server>),
    Notice(String),
    Tick(DateTime<Utc>),
    Resize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Quit,
    /// Open the six-panel dashboard of this server (index into `servers`).
    Open(usize),
    Suspend,
}

#[derive(Debug, Clone)]
pub struct Fleet {
    pub servers: Vec<Server>,
    /// Indices of the visible servers, in display order.
    pub order: Vec<usize>,
    /// Position in `order`.
    pub selected: usize,
    pub filter: String,
    pub editing_filter: bool,
    pub by_group: bool,
    pub now: DateTime<Utc>,
    pub needs_draw: bool,
    /// A one-line message (e.g. why a row cannot open).
    pub notice: Option<String>,
    /// Where every row is read from, when one place feeds them all ("via Prometheus …").
    pub via: Option<String>,
    /// `--at`: the fleet as it was then; the clock stays there and no row ages.
    pub as_of: Option<DateTime<Utc>>,
}

impl Fleet {
    pub fn new(servers: Vec<Server>, now: DateTime<Utc>) -> Fleet {
        let by_group = servers.iter().any(|s| s.group.is_some());
        let mut f = Fleet {
            servers,
            order: Vec::new(),
            selected: 0,
            filter: String::new(),
            editing_filter: false,
            by_group,
            now,
            needs_draw: true,
            notice: None,
            via: None,
            as_of: None,
        };
        f.reorder();
        f
    }

    pub fn selected_server(&self) -> Option<usize> {
        self.order.get(self.selected).copied()
    }

    /// Re-sorts and re-filters, keeping the selected server selected.
    fn reorder(&mut self) {
        let keep = self.selected_server();
        let mut order: Vec<usize> = (0..self.servers.len())
            .filter(|i| self.servers[*i].matches(&self.filter))
            .collect();
        let s = &self.servers;
        order.sort_by(|a, b| {
            let (x, y) = (&s[*a], &s[*b]);
            let group = if self.by_group {
                x.group.cmp(&y.group)
            } else {
                std::cmp::Ordering::Equal
            };
            group.then_with(|| {
                breach_order(
                    (&x.link, x.figures.as_ref(), &x.name),
                    (&y.link, y.figures.as_ref(), &y.name),
                )
            })
        });
        self.order = order;
        self.selected = keep
            .and_then(|k| self.order.iter().position(|i| *i == k))
            .unwrap_or(0)
            .min(self.order.len().saturating_sub(1));
        self.needs_draw = true;
    }

    /// One row's news; `false` when there is no such row.
    fn apply(&mut self, index: usize, update: RowUpdate) -> bool {
        let Some(s) = self.servers.get_mut(index) else {
            return false;
        };
        match update {
            RowUpdate::Figures { figures, at, every } => {
                s.link = RowLink::Up;
                s.figures = Some(*figures);
                s.updated = Some(at);
                s.every = Some(every);
            }
            RowUpdate::Down { error } => {
                s.link = RowLink::Down { error };
                // Figures of a server that is gone are not its figures now.
                s.figures = None;
                s.every = None;
            }
        }
        true
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Command> {
        match msg {
            Msg::Row { index, update } => {
                if self.apply(index, update) {
                    self.reorder();
                }
                Vec::new()
            }
            Msg::Rows(updates) => {
                let mut any = false;
                for (index, update) in updates {
                    any |= self.apply(index, update);
                }
                if any {
                    self.reorder();
                }
                Vec::new()
            }
            Msg::Add(servers) => {
                self.servers.extend(servers);
                self.reorder();
                Vec::new()
            }
            Msg::Notice(n) => {
                self.notice = Some(n);
                self.needs_draw = true;
                Vec::new()
            }
            Msg::Tick(_) if self.as_of.is_some() => Vec::new(),
            Msg::Tick(now) => {
                // Whole seconds of "updated … ago" are what the screen shows.
                if now.timestamp() != self.now.timestamp() {
                    self.needs_draw = true;
                }
                self.now = now;
                // Every row is judged (no short cut): each stale one's words say its age.
                let mut gone = false;
                for s in &mut self.servers {
                    gone |= s.judge_age(now);
                }
                if gone {
                    self.reorder();
                }
                Vec::new()
            }
            Msg::Resize => {
                self.needs_draw = true;
                Vec::new()
            }
            Msg::Key(k) => self.key(k),
        }
    }

    /// A key: the fleet's table says what it means (the filter line, while typed, takes every
    /// key but Ctrl-C and Ctrl-Z).
    fn key(&mut self, k: KeyEvent) -> Vec<Command> {
        use FleetKey as A;
        self.needs_draw = true;
        self.notice = None;
        let action = keymap::FLEET.action(&k);
        match action {
            Some(A::QuitNow) => return vec![Command::Quit],
            Some(A::Suspend) => return vec![Command::Suspend],
            _ => {}
        }
        if self.editing_filter {
            match keymap::FLEET_FILTER.action(&k) {
                Some(TextKey::Submit) => self.editing_filter = false,
                Some(TextKey::Cancel) => {
                    self.editing_filter = false;
                    self.filter.clear();
                }
                Some(TextKey::Erase) => {
                    self.filter.pop();
                }
                Some(TextKey::Type) => match k.code {
                    KeyCode::Char(c) if self.filter.chars().count() < 64 => self.filter.push(c),
                    _ => return Vec::new(),
                },
                None => return Vec::new(),
            }
            self.reorder();
            return Vec::new();
        }
        match action {
            Some(A::Quit) => return vec![Command::Quit],
            Some(A::Filter) => self.editing_filter = true,
            Some(A::ClearFilter) if !self.filter.is_empty() => {
                self.filter.clear();
                self.reorder();
            }
            Some(A::GroupServers) => {
                self.by_group = !self.by_group;
                self.reorder();
            }
            Some(A::SelectDown) => {
                self.selected = (self.selected + 1).min(self.order.len().saturating_sub(1));
            }
            Some(A::SelectUp) => self.selected = self.selected.saturating_sub(1),
            Some(A::SelectFirst) => self.selected = 0,
            Some(A::SelectLast) => self.selected = self.order.len().saturating_sub(1),
            Some(A::OpenServer) => {
                if let Some(i) = self.selected_server() {
                    return vec![Command::Open(i)];
                }
            }
            _ => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;
    use innodebt_engine::figures::Severity;

    fn key(c: KeyCode) -> Msg {
        Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
    }

    fn fleet() -> Fleet {
        let mut a = Server::new("db-a", "db-a:3306", true);
        a.group = Some("eu".into());
        a.tags = vec!["primary".into()];
        let mut b = Server::new("db-b", "db-b:3306", true);
        b.group = Some("us".into());
        let c = Server::new("db-c", "agent http://c:9385/metrics", false);
        Fleet::new(vec![a, b, c], Utc::now())
    }

    fn warn() -> RowUpdate {
        RowUpdate::Figures {
            figures: Box::new(RowFigures {
                verdict: Some(("blocked_by_read_view".into(), Severity::Warning)),
                ..RowFigures::default()
            }),
            at: Utc::now(),
            every: Duration::from_secs(1),
        }
    }

    #[test]
    fn a_looks_rows_order_as_row_by_row() {
        let crit = || RowUpdate::Figures {
            figures: Box::new(RowFigures {
                verdict: Some(("checkpoint_near_sync".into(), Severity::Critical)),
                ..RowFigures::default()
            }),
            at: Utc::now(),
            every: Duration::from_secs(15),
        };
        let down = RowUpdate::Down {
            error: "Prometheus cannot scrape it (up is 0)".into(),
        };
        let mut one_by_one = Fleet::new(Vec::new(), Utc::now());
        let mut at_once = one_by_one.clone();
        let servers: Vec<Server> = (0..6)
            .map(|i| Server::new(&format!("db{i}"), "prometheus job=mysql", false))
            .collect();
        let updates = vec![
            (0, warn()),
            (1, crit()),
            (2, down),
            (4, crit()),
            (5, warn()),
            (7, warn()),
        ];
        for s in servers.clone() {
            one_by_one.update(Msg::Add(vec![s]));
        }
        for (index, update) in updates.clone() {
            one_by_one.update(Msg::Row { index, update });
        }
        at_once.update(Msg::Add(servers));
        at_once.update(Msg::Rows(updates));
        assert_eq!(at_once.order, one_by_one.order);
        assert_eq!(at_once.servers, one_by_one.servers);
        let names: Vec<&str> = at_once
            .order
            .iter()
            .map(|i| at_once.servers[*i].name.as_str())
            .collect();
        // Critical, warning, down, never heard from; a row that does not exist is no row.
        assert_eq!(names, ["db1", "db4", "db0", "db5", "db2", "db3"]);
    }

    #[test]
    fn a_blocked_server_moves_to_the_top_and_stays_selected() {
        let mut f = fleet();
        f.by_group = false;
        f.update(key(KeyCode::End));
        let selected = f.selected_server();
        f.update(Msg::Row {
            index: 2,
            update: warn(),
        });
        assert_eq!(f.order[0], 2);
        assert_eq!(f.selected_server(), selected);
        f.update(Msg::Row {
            index: 0,
            update: RowUpdate::Down {
                error: "refused".into(),
            },
        });
        assert_eq!(f.order[..2], [2, 0]);
    }

    #[test]
    fn filter_by_name_group_tag_and_state() {
        let mut f = fleet();
        for c in "/tag:primary".chars() {
            f.update(key(KeyCode::Char(c)));
        }
        assert_eq!(f.order, [0]);
        f.update(key(KeyCode::Esc));
        assert_eq!(f.order.len(), 3);
        f.update(Msg::Row {
            index: 1,
            update: RowUpdate::Down { error: "x".into() },
        });
        for c in "/disconn".chars() {
            f.update(key(KeyCode::Char(c)));
        }
        f.update(key(KeyCode::Enter));
        assert_eq!(f.order, [1]);
        assert_eq!(f.update(key(KeyCode::Enter)), vec![Command::Open(1)]);
    }

    #[test]
    fn ctrl_c_and_ctrl_z_work_while_the_filter_is_typed() {
        let mut f = fleet();
        f.update(key(KeyCode::Char('/')));
        f.update(key(KeyCode::Char('q')));
        assert_eq!(f.filter, "q");
        let ctrl = |c| Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
        assert_eq!(f.update(ctrl('z')), vec![Command::Suspend]);
        assert_eq!(f.update(ctrl('c')), vec![Command::Quit]);
        // Other Ctrl keys type nothing.
        f.update(ctrl('x'));
        assert_eq!(f.filter, "q");
    }
}
