//! Who holds purge back. INNODB_TRX alone is cheap; joining it to the processlist built every
//! session on every tick (22 ms per tick at 1,500 sessions, 279 ms at 5,000). INNODB_TRX is
//! read without the statement text (copying it costs a quarter of the read with 500 open
//! transactions), so the purge blocker's session — user, host, command and statement — is
//! looked up by id: when the blocker changes, then again on a slow cadence while it stays
//! (its statement may change), and kept in between.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::cadence::SLOW_SOURCE_SHARE;
pub use innodebt_server::blocker::{NAMED_FROM_AGE_S, holds_read_view, purge_blocker};
use innodebt_server::blocker::{running, view_to_commit};
use innodebt_server::sample::TrxRow;

/// A known session is looked up again this often (its command and statement change), or
/// less often when the lookup is costly: at most [`SLOW_SOURCE_SHARE`] of the server's time.
pub const SESSION_REFRESH: Duration = Duration::from_secs(10);

/// What a by-id lookup returned for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionInfo {
    pub user: Option<String>,
    pub host: Option<String>,
    pub command: Option<String>,
    /// The statement it runs.
    pub info: Option<String>,
}

#[derive(Debug, Clone)]
struct Known {
    session: SessionInfo,
    looked_up: Instant,
}

/// The sessions behind the oldest transactions, by thread id.
#[derive(Debug, Clone)]
pub struct Sessions {
    known: BTreeMap<u64, Known>,
    /// How long a lookup stays fresh: [`SESSION_REFRESH`], longer when lookups are costly.
    refresh: Duration,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            known: BTreeMap::new(),
            refresh: SESSION_REFRESH,
        }
    }
}

impl Sessions {
    /// The one session to look up at `now`, if any: walking the transactions oldest first
    /// (from [`NAMED_FROM_AGE_S`]), the first that may hold purge back — a REPEATABLE READ
    /// one, or a READ COMMITTED one whose session is unknown or runs a statement — is looked
    /// up when it is new to us or its lookup is stale. A READ COMMITTED session last seen
    /// idle blocks nothing: it is passed over until its lookup is stale. Nobody else is
    /// looked up.
    pub fn wanted(&self, trx: &[TrxRow], now: Instant) -> Option<u64> {
        for t in trx.iter().filter(|t| t.age_s >= NAMED_FROM_AGE_S) {
            let Some(id) = t.thread_id else { continue };
            let known = self.known.get(&id);
            let stale = known.is_none_or(|k| now >= k.looked_up + self.refresh);
            let idle = known.is_some_and(|k| !running(k.session.command.as_deref()));
            if view_to_commit(t) || !idle {
                return stale.then_some(id);
            }
            if stale {
                return Some(id);
            }
        }
        None
    }

    /// Keeps what a lookup at `now` returned, and what it took (a costly lookup is repeated
    /// less often). `None` (the session is gone) is remembered too, so a vanished session is
    /// not asked for again every tick.
    pub fn learn(
        &mut self,
        thread_id: u64,
        session: Option<SessionInfo>,
        now: Instant,
        took: Duration,
    ) {
        self.refresh = SESSION_REFRESH.max(took.div_f64(SLOW_SOURCE_SHARE));
        self.known.insert(
            thread_id,
            Known {
                session: session.unwrap_or_default(),
                looked_up: now,
            },
        );
    }

    /// How long a lookup stays fresh now.
    pub fn refresh_every(&self) -> Duration {
        self.refresh
    }

    /// Fills user, host, command and — while it runs one — the statement from what is
    /// known, and forgets the sessions no longer among the oldest.
    pub fn fill(&mut self, trx: &mut [TrxRow]) {
        self.known
            .retain(|id, _| trx.iter().any(|t| t.thread_id == Some(*id)));
        for t in trx.iter_mut() {
            let Some(k) = t.thread_id.and_then(|id| self.known.get(&id)) else {
                continue;
            };
            t.user.clone_from(&k.session.user);
            t.host.clone_from(&k.session.host);
            t.command.clone_from(&k.session.command);
            if running(k.session.command.as_deref()) {
                t.query.clone_from(&k.session.info);
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
    use innodebt_server::innodb_status::InnodbStatus;

    const MS: Duration = Duration::from_millis(1);

    /// A transaction as INNODB_TRX gives it per tick: no statement, no session.
    fn trx(id: u64, age_s: u64) -> TrxRow {
        TrxRow {
            trx_id: format!("{}", 1000 + id),
            state: "RUNNING".into(),
            age_s,
            thread_id: Some(id),
            ..TrxRow::default()
        }
    }

    fn rc(id: u64, age_s: u64) -> TrxRow {
        TrxRow {
            isolation: Some("READ COMMITTED".into()),
            ..trx(id, age_s)
        }
    }

    fn who(user: &str, command: &str, info: Option<&str>) -> Option<SessionInfo> {
        Some(SessionInfo {
            user: Some(user.into()),
            host: Some("app1:4242".into()),
            command: Some(command.into()),
            info: info.map(str::to_string),
        })
    }

    /// SEIS as MariaDB 10.11.19 printed it for an open INSERT (thread 3) and an open SELECT
    /// (thread 4), both REPEATABLE READ.
    const TWO_OPEN: &str = "=====================================\n\
        2026-11-27 01:20:00 0x7f8dec0b4700 INNODB MONITOR OUTPUT\n\
        =====================================\n\
        ------------\nTRANSACTIONS\n------------\nTrx id counter 1021\n\
        Purge done for trx's n:o < 1000 undo n:o < 0 state: running but idle\n\
        History list length 0\nLIST OF TRANSACTIONS FOR EACH SESSION:\n\
        ---TRANSACTION (0x7f8ded11a680), ACTIVE 31 sec\n\
        0 lock struct(s), heap size 1128, 0 row lock(s)\n\
        MariaDB thread id 4, OS thread handle 140247862695616, query id 15 localhost 127.0.0.1 root \n\
        Trx read view will not see trx with id >= 1020, sees < 1020\n\
        ---TRANSACTION 1003, ACTIVE 40 sec\n\
        1 lock struct(s), heap size 1128, 0 row lock(s), undo log entries 1\n\
        MariaDB thread id 3, OS thread handle 140247863002816, query id 12 localhost 127.0.0.1 root \n\
        --------\nFILE I/O\n--------\n\
        ----------------------------\nEND OF INNODB MONITOR OUTPUT\n\
        ============================\n";

    #[test]
    fn a_writer_the_status_lists_without_a_read_view_holds_no_purge_back() {
        let seis = innodebt_server::innodb_status::parse(TWO_OPEN);
        let reader = TrxRow {
            trx_id: "421967708638832".into(),
            ..trx(4, 30)
        };
        let rows = vec![trx(3, 40), reader.clone()];
        // INNODB_TRX alone: the older REPEATABLE READ writer is taken for a view holder.
        assert_eq!(
            purge_blocker(&rows, None).and_then(|t| t.thread_id),
            Some(3)
        );
        // The status text shows it has none: the reader is the one.
        assert_eq!(
            purge_blocker(&rows, Some(&seis)).and_then(|t| t.thread_id),
            Some(4)
        );
        // Nothing proven when the text was cut, names another transaction of the same
        // session (committed and begun again since), or the row has no thread id.
        let cut = InnodbStatus {
            truncated: true,
            ..seis.clone()
        };
        assert_eq!(
            purge_blocker(&rows, Some(&cut)).and_then(|t| t.thread_id),
            Some(3)
        );
        let again = vec![
            TrxRow {
                trx_id: "1010".into(),
                ..trx(3, 40)
            },
            reader.clone(),
        ];
        assert_eq!(
            purge_blocker(&again, Some(&seis)).and_then(|t| t.thread_id),
            Some(3)
        );
        let anonymous = vec![TrxRow {
            thread_id: None,
            ..trx(3, 40)
        }];
        assert!(purge_blocker(&anonymous, Some(&seis)).is_some());
        // Only writers without a view: no blocker at all.
        assert_eq!(purge_blocker(&[trx(3, 40)], Some(&seis)), None);
    }

    #[test]
    fn young_transactions_are_not_looked_up() {
        let s = Sessions::default();
        assert_eq!(s.wanted(&[trx(7, 0), trx(8, 1)], Instant::now()), None);
    }

    #[test]
    fn only_the_blocker_is_looked_up_then_again_only_when_stale() {
        let t0 = Instant::now();
        let mut s = Sessions::default();
        let rows = vec![trx(9, 40), trx(7, 3), trx(8, 0)];
        assert_eq!(
            s.wanted(&rows, t0),
            Some(9),
            "the oldest holding a read view"
        );
        s.learn(9, who("report", "Query", Some("SELECT SLEEP(60)")), t0, MS);
        assert_eq!(
            s.wanted(&rows, t0 + Duration::from_secs(9)),
            None,
            "known: no lookup, and no one else is asked"
        );
        let mut filled = rows.clone();
        s.fill(&mut filled);
        assert_eq!(filled[0].user.as_deref(), Some("report"));
        assert_eq!(filled[0].host.as_deref(), Some("app1:4242"));
        assert_eq!(filled[0].query.as_deref(), Some("SELECT SLEEP(60)"));
        assert_eq!(filled[1].user, None, "not the blocker: never looked up");
        // Its statement may have changed: asked again once the lookup is stale.
        assert_eq!(s.wanted(&rows, t0 + SESSION_REFRESH), Some(9));
        // It commits: the next blocker is named, once.
        let later = vec![trx(7, 5), trx(8, 2)];
        s.fill(&mut later.clone());
        assert_eq!(s.wanted(&later, t0), Some(7));
    }

    #[test]
    fn a_costly_lookup_is_repeated_less_often() {
        let t0 = Instant::now();
        let mut s = Sessions::default();
        let rows = vec![trx(9, 40)];
        // 2 ms (performance_schema.threads at 5,000 sessions): at most 0.01 % of the time.
        s.learn(9, who("report", "Sleep", None), t0, 2 * MS);
        assert_eq!(s.refresh_every(), Duration::from_secs(20));
        assert_eq!(s.wanted(&rows, t0 + Duration::from_secs(19)), None);
        assert_eq!(s.wanted(&rows, t0 + Duration::from_secs(20)), Some(9));
    }

    #[test]
    fn a_tie_in_age_goes_to_the_first_row_and_read_committed_idle_blocks_nothing() {
        let rows = vec![trx(12, 3), trx(43, 3)];
        assert_eq!(
            purge_blocker(&rows, None).and_then(|t| t.thread_id),
            Some(12)
        );
        let t0 = Instant::now();
        let mut s = Sessions::default();
        // READ COMMITTED: only the lookup says whether it runs a statement.
        let rows = vec![rc(5, 30), rc(6, 20)];
        assert_eq!(
            purge_blocker(&rows, None),
            None,
            "not known to run anything"
        );
        assert_eq!(s.wanted(&rows, t0), Some(5));
        s.learn(5, who("app", "Sleep", None), t0, MS);
        assert_eq!(s.wanted(&rows, t0), Some(6), "5 is idle: the next one");
        s.learn(6, who("batch", "Query", Some("SELECT * FROM big")), t0, MS);
        assert_eq!(s.wanted(&rows, t0), None);
        let mut filled = rows.clone();
        s.fill(&mut filled);
        assert_eq!(
            purge_blocker(&filled, None).and_then(|t| t.thread_id),
            Some(6)
        );
        assert_eq!(
            purge_blocker(&filled, None).and_then(|t| t.query.as_deref()),
            Some("SELECT * FROM big")
        );
        // The idle one may start a statement: looked at again when stale.
        assert_eq!(s.wanted(&rows, t0 + SESSION_REFRESH), Some(5));
    }

    #[test]
    fn an_idle_session_shows_no_statement() {
        let t0 = Instant::now();
        let mut s = Sessions::default();
        let rows = vec![trx(9, 40)];
        s.learn(9, who("report", "Sleep", Some("stale text")), t0, MS);
        let mut filled = rows.clone();
        s.fill(&mut filled);
        assert_eq!(filled[0].command.as_deref(), Some("Sleep"));
        assert_eq!(filled[0].query, None);
    }

    #[test]
    fn gone_sessions_are_forgotten_and_not_asked_again() {
        let t0 = Instant::now();
        let mut s = Sessions::default();
        let rows = vec![trx(9, 40)];
        s.learn(9, None, t0, MS);
        assert_eq!(
            s.wanted(&rows, t0 + Duration::from_secs(1)),
            None,
            "a vanished session is not asked every tick"
        );
        let mut later = vec![trx(10, 5)];
        s.fill(&mut later);
        assert!(
            s.known.is_empty(),
            "only the sessions among the oldest are kept"
        );
    }
}
