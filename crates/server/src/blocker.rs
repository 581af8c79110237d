//! Who holds purge back: the oldest transaction that keeps a read view open, as the server's
//! isolation levels and SHOW ENGINE INNODB STATUS tell it. The poller uses it to choose whom
//! to look up; the engine, to name the blocker.

use crate::innodb_status::InnodbStatus;
use crate::sample::TrxRow;

/// A transaction younger than this is not named: autocommit writes pass through INNODB_TRX
/// for milliseconds and block nothing (the purge-blocker verdict uses the same age).
pub const NAMED_FROM_AGE_S: u64 = 2;

/// Whether the isolation level keeps a read view to commit (REPEATABLE READ, SERIALIZABLE;
/// the server's default when unknown). READ COMMITTED and READ UNCOMMITTED keep one only
/// while a statement runs.
pub fn view_to_commit(t: &TrxRow) -> bool {
    matches!(
        t.isolation.as_deref().unwrap_or("REPEATABLE READ"),
        "REPEATABLE READ" | "SERIALIZABLE"
    )
}

/// Whether a session runs a statement: its command is known and not `Sleep`.
pub fn running(command: Option<&str>) -> bool {
    command.is_some_and(|c| c != "Sleep")
}

/// Whether a transaction keeps a read view open: REPEATABLE READ / SERIALIZABLE keep theirs
/// to commit; READ COMMITTED (and READ UNCOMMITTED) only while a statement runs — its
/// session's command (looked up by id) is not `Sleep`.
pub fn holds_read_view(t: &TrxRow) -> bool {
    view_to_commit(t) || t.query.is_some() || running(t.command.as_deref())
}

/// Whether SHOW ENGINE INNODB STATUS listed this read-write transaction (same thread, same
/// id) without a read view, on a flavour whose text prints one under every transaction
/// that has it ([`Flavor::seis_lists_read_views`]: the caller passes the text only then).
/// A REPEATABLE READ transaction opens its view at its first consistent read: one that has
/// only written holds none and keeps no purge back. Trusted only in a complete text and
/// for an id both print (MariaDB lists read-only transactions by address); a view opened
/// after that text was read is seen at the next one.
///
/// [`Flavor::seis_lists_read_views`]: crate::flavor::Flavor::seis_lists_read_views
fn listed_without_view(t: &TrxRow, seis: &InnodbStatus) -> bool {
    let id = |s: &str| s.trim().parse::<u64>().ok().filter(|id| *id != 0);
    let Some(trx_id) = id(&t.trx_id) else {
        return false;
    };
    !seis.truncated
        && t.thread_id.is_some()
        && seis.transactions.iter().any(|s| {
            s.thread_id == t.thread_id
                && s.trx_id.as_deref().and_then(id) == Some(trx_id)
                && !s.has_read_view
        })
}

/// The transaction that holds purge back: the oldest one at least [`NAMED_FROM_AGE_S`] old
/// that keeps a read view — and, when the latest SHOW ENGINE INNODB STATUS is given, was
/// not listed there without one ([`listed_without_view`]). Ages are whole seconds: on a tie
/// the first row (INNODB_TRX sorted oldest first) wins.
pub fn purge_blocker<'a>(trx: &'a [TrxRow], seis: Option<&InnodbStatus>) -> Option<&'a TrxRow> {
    trx.iter()
        .filter(|t| {
            t.age_s >= NAMED_FROM_AGE_S
                && holds_read_view(t)
                && !seis.is_some_and(|s| listed_without_view(t, s))
        })
        .rev()
        .max_by_key(|t| t.age_s)
}
