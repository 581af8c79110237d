//! Who holds purge back. INNODB_TRX alone is cheap; joining it to the processlist built every
//! session on every tick (22 ms per tick at 1,500 sessions, 279 ms at 5,000). So only the
//! purge blocker's session — user, host, command — is looked up, by id, when the blocker
//! changes or starts or stops running a statement, and kept while it stays the blocker.

use std::collections::BTreeMap;

use crate::sample::TrxRow;

/// A transaction younger than this is not named: autocommit writes pass through INNODB_TRX
/// for milliseconds and block nothing (the purge-blocker verdict uses the same age).
pub const NAMED_FROM_AGE_S: u64 = 2;

/// Whether a transaction keeps a read view open: REPEATABLE READ / SERIALIZABLE keep theirs
/// to commit; READ COMMITTED (and READ UNCOMMITTED) only while a statement runs — INNODB_TRX
/// shows its statement then, and the session's command is not `Sleep`.
pub fn holds_read_view(t: &TrxRow) -> bool {
    let iso = t.isolation.as_deref().unwrap_or("REPEATABLE READ");
    let running = t.query.is_some() || t.command.as_deref().is_some_and(|c| c != "Sleep");
    match iso {
        "REPEATABLE READ" | "SERIALIZABLE" => true,
        _ => running,
    }
}

/// The transaction that holds purge back: the oldest one at least [`NAMED_FROM_AGE_S`] old
/// that keeps a read view. Ages are whole seconds: on a tie the first row (INNODB_TRX sorted
/// oldest first) wins.
pub fn purge_blocker(trx: &[TrxRow]) -> Option<&TrxRow> {
    trx.iter()
        .filter(|t| t.age_s >= NAMED_FROM_AGE_S && holds_read_view(t))
        .rev()
        .max_by_key(|t| t.age_s)
}

/// What a by-id lookup returned for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionInfo {
    pub user: Option<String>,
    pub host: Option<String>,
    pub command: Option<String>,
    /// The statement it runs, when INNODB_TRX did not carry one.
    pub info: Option<String>,
}

#[derive(Debug, Clone)]
struct Known {
    session: SessionInfo,
    /// Whether INNODB_TRX showed a running statement when it was looked up.
    running: bool,
}

/// The sessions behind the oldest transactions, by thread id.
#[derive(Debug, Clone, Default)]
pub struct Sessions {
    known: BTreeMap<u64, Known>,
}

impl Sessions {
    /// The one session to look up this tick, if any: the purge blocker's, when it is new to
    /// us or has started or stopped running a statement since. Nobody else is looked up.
    pub fn wanted(&self, trx: &[TrxRow]) -> Option<u64> {
        let t = purge_blocker(trx)?;
        let id = t.thread_id?;
        let stale = self
            .known
            .get(&id)
            .is_none_or(|k| k.running != t.query.is_some());
        stale.then_some(id)
    }

    /// Keeps what a lookup returned; `None` (the session is gone) is remembered too, so a
    /// vanished session is not asked for again every tick.
    pub fn learn(&mut self, thread_id: u64, session: Option<SessionInfo>, trx: &[TrxRow]) {
        let running = trx
            .iter()
            .find(|t| t.thread_id == Some(thread_id))
            .is_some_and(|t| t.query.is_some());
        self.known.insert(
            thread_id,
            Known {
                session: session.unwrap_or_default(),
                running,
            },
        );
    }

    /// Fills user, host and command (and the statement when INNODB_TRX had none) from what
    /// is known, and forgets the sessions no longer among the oldest.
    pub fn fill(&mut self, trx: &mut [TrxRow]) {
        self.known
            .retain(|id, _| trx.iter().any(|t| t.thread_id == Some(*id)));
        for t in trx.iter_mut() {
            let Some(k) = t.thread_id.and_then(|id| self.known.get(&id)) else {
                continue;
            };
            t.user = k.session.user.clone();
            t.host = k.session.host.clone();
            t.command = k.session.command.clone();
            if t.query.is_none() && k.running {
                t.query = k.session.info.clone();
            }
        }
    }

    pub fn clear(&mut self) {
        self.known.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trx(id: u64, age_s: u64, query: Option<&str>) -> TrxRow {
        TrxRow {
            trx_id: format!("{}", 1000 + id),
            state: "RUNNING".into(),
            age_s,
            thread_id: Some(id),
            query: query.map(str::to_string),
            ..TrxRow::default()
        }
    }

    fn who(user: &str, command: &str) -> Option<SessionInfo> {
        Some(SessionInfo {
            user: Some(user.into()),
            host: Some("app1:4242".into()),
            command: Some(command.into()),
            info: None,
        })
    }

    #[test]
    fn young_transactions_are_not_looked_up() {
        let s = Sessions::default();
        assert_eq!(
            s.wanted(&[trx(7, 0, Some("UPDATE t")), trx(8, 1, None)]),
            None
        );
    }

    #[test]
    fn only_the_blocker_is_looked_up_and_only_once() {
        let mut s = Sessions::default();
        let rows = vec![trx(9, 40, None), trx(7, 3, None), trx(8, 0, None)];
        assert_eq!(s.wanted(&rows), Some(9), "the oldest holding a read view");
        s.learn(9, who("report", "Sleep"), &rows);
        assert_eq!(
            s.wanted(&rows),
            None,
            "known: no lookup, and no one else is asked"
        );
        let mut filled = rows.clone();
        s.fill(&mut filled);
        assert_eq!(filled[0].user.as_deref(), Some("report"));
        assert_eq!(filled[0].host.as_deref(), Some("app1:4242"));
        assert_eq!(filled[1].user, None, "not the blocker: never looked up");
        // It commits: the next blocker is named, once.
        let later = vec![trx(7, 5, None), trx(8, 2, None)];
        assert_eq!(s.wanted(&later), Some(7));
    }

    #[test]
    fn a_tie_in_age_goes_to_the_first_row_and_read_committed_idle_blocks_nothing() {
        let rows = vec![trx(12, 3, None), trx(43, 3, None)];
        assert_eq!(purge_blocker(&rows).and_then(|t| t.thread_id), Some(12));
        let rc = |id, query: Option<&str>| TrxRow {
            isolation: Some("READ COMMITTED".into()),
            ..trx(id, 30, query)
        };
        assert_eq!(purge_blocker(&[rc(5, None)]), None);
        assert_eq!(
            purge_blocker(&[rc(5, None), rc(6, Some("SELECT 1"))]).and_then(|t| t.thread_id),
            Some(6)
        );
    }

    #[test]
    fn a_session_that_starts_a_statement_is_looked_up_again() {
        let mut s = Sessions::default();
        let idle = vec![trx(9, 40, None)];
        s.learn(9, who("report", "Sleep"), &idle);
        assert_eq!(s.wanted(&idle), None);
        let busy = vec![trx(9, 41, Some("SELECT SLEEP(60)"))];
        assert_eq!(s.wanted(&busy), Some(9));
        s.learn(9, who("report", "Query"), &busy);
        let mut filled = busy.clone();
        s.fill(&mut filled);
        assert_eq!(filled[0].command.as_deref(), Some("Query"));
        assert_eq!(filled[0].query.as_deref(), Some("SELECT SLEEP(60)"));
    }

    #[test]
    fn gone_sessions_are_forgotten_and_not_asked_again() {
        let mut s = Sessions::default();
        let rows = vec![trx(9, 40, None)];
        s.learn(9, None, &rows);
        assert_eq!(
            s.wanted(&rows),
            None,
            "a vanished session is not asked every tick"
        );
        let mut later = vec![trx(10, 5, None)];
        s.fill(&mut later);
        assert!(
            s.known.is_empty(),
            "only the sessions among the oldest are kept"
        );
    }
}
