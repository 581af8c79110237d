//! What the tests do to a server: a real write load ([`WriteLoad`]), many idle sessions
//! ([`idle_sessions`]) and a purge-blocking read view ([`BlockingSnapshot`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts};

const LOAD_DDL: &[&str] = &[
    "CREATE DATABASE IF NOT EXISTS test",
    "CREATE TABLE IF NOT EXISTS test.load (\
       id INT AUTO_INCREMENT PRIMARY KEY, \
       k INT, \
       pad CHAR(200), \
       KEY (k)\
     ) ENGINE=InnoDB",
];

/// Creates `test.load` (and the `test` database) if missing.
pub async fn ensure_load_table(conn: &mut Conn) -> Result<(), mysql_async::Error> {
    for q in LOAD_DDL {
        conn.query_drop(*q).await?;
    }
    Ok(())
}

/// Counters of a [`WriteLoad`].
#[derive(Debug, Clone, Default)]
pub struct LoadStats {
    /// Successful statements (inserts + updates + deletes).
    pub ops: u64,
    pub inserts: u64,
    pub updates: u64,
    pub deletes: u64,
    /// Failed statements and failed connects (expected while the server is
    /// killed or restarting).
    pub errors: u64,
    /// Successful connects (one per task, plus reconnects after errors).
    pub connects: u64,
    pub last_error: Option<String>,
    pub elapsed: Duration,
}

impl LoadStats {
    pub fn ops_per_sec(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.ops as f64 / s } else { 0.0 }
    }
}

#[derive(Default)]
struct LoadCounters {
    inserts: AtomicU64,
    updates: AtomicU64,
    deletes: AtomicU64,
    errors: AtomicU64,
    connects: AtomicU64,
    max_id: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl LoadCounters {
    fn error(&self, e: impl std::fmt::Display) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
    }
}

/// Autocommit inserts, updates of random rows and occasional deletes on
/// `test.load` from `threads` tokio tasks of the current runtime. Errors are
/// counted (and the connection re-made), never panicked on, so the load
/// survives a `kill9` + `restart`. Bounded by [`stop`](Self::stop), by a
/// maximum duration (default 5 min) and by being dropped.
pub struct WriteLoad {
    stop: Arc<AtomicBool>,
    counters: Arc<LoadCounters>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    started: Instant,
}

impl WriteLoad {
    pub const DEFAULT_MAX_DURATION: Duration = Duration::from_secs(300);

    /// Must be called inside a tokio runtime.
    pub fn start(opts: Opts, threads: usize) -> WriteLoad {
        Self::start_for(opts, threads, Self::DEFAULT_MAX_DURATION)
    }

    /// A load of `threads` sessions each running at most `per_thread` statements a second:
    /// for tests that need history to pile up behind a read view, not a server at its limit
    /// (an unpaced load takes all the CPU it gets, from every other test beside it).
    pub fn paced(opts: Opts, threads: usize, per_thread: u32) -> WriteLoad {
        let every = Duration::from_secs(1) / per_thread.max(1);
        Self::spawn(opts, threads, Self::DEFAULT_MAX_DURATION, Some(every))
    }

    /// Like [`start`](Self::start) with an explicit maximum duration.
    pub fn start_for(opts: Opts, threads: usize, max_duration: Duration) -> WriteLoad {
        Self::spawn(opts, threads, max_duration, None)
    }

    fn spawn(
        opts: Opts,
        threads: usize,
        max_duration: Duration,
        pace: Option<Duration>,
    ) -> WriteLoad {
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(LoadCounters::default());
        let started = Instant::now();
        let deadline = started + max_duration;
        let tasks = (0..threads.max(1))
            .map(|i| {
                tokio::spawn(load_worker(
                    opts.clone(),
                    i as u64,
                    stop.clone(),
                    (deadline, pace),
                    counters.clone(),
                ))
            })
            .collect();
        WriteLoad {
            stop,
            counters,
            tasks,
            started,
        }
    }

    /// Waits until the load has run `n` statements: it is running, not still connecting.
    pub async fn wait_ops(&self, n: u64) {
        super::wait::wait_until_async(
            Duration::from_secs(30),
            format!("{n} statements of write load"),
            || std::future::ready(self.stats().ops >= n),
        )
        .await;
    }

    /// Counters so far, without stopping.
    pub fn stats(&self) -> LoadStats {
        let c = &self.counters;
        let inserts = c.inserts.load(Ordering::Relaxed);
        let updates = c.updates.load(Ordering::Relaxed);
        let deletes = c.deletes.load(Ordering::Relaxed);
        LoadStats {
            ops: inserts + updates + deletes,
            inserts,
            updates,
            deletes,
            errors: c.errors.load(Ordering::Relaxed),
            connects: c.connects.load(Ordering::Relaxed),
            last_error: c
                .last_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
            elapsed: self.started.elapsed(),
        }
    }

    /// Stops the tasks, waits for them (aborting any stuck for 30 s) and
    /// returns the final counters.
    pub async fn stop(mut self) -> LoadStats {
        self.stop.store(true, Ordering::Relaxed);
        for task in std::mem::take(&mut self.tasks) {
            let abort = task.abort_handle();
            if tokio::time::timeout(Duration::from_secs(30), task)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        self.stats()
    }
}

impl Drop for WriteLoad {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// xorshift64*: enough randomness for row picks, no extra dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        Rng((nanos ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

enum LoadOp {
    Insert,
    Update,
    Delete,
}

async fn load_worker(
    opts: Opts,
    index: u64,
    stop: Arc<AtomicBool>,
    (deadline, pace): (Instant, Option<Duration>),
    c: Arc<LoadCounters>,
) {
    let mut rng = Rng::new(index + 1);
    let mut conn: Option<Conn> = None;
    let mut pacer = pace.map(|every| {
        let mut t = tokio::time::interval(every);
        t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        t
    });
    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
        if let Some(t) = pacer.as_mut() {
            t.tick().await;
        }
        if conn.is_none() {
            let connect = async {
                let mut cn = Conn::new(opts.clone()).await?;
                ensure_load_table(&mut cn).await?;
                Ok::<_, mysql_async::Error>(cn)
            };
            match tokio::time::timeout(Duration::from_secs(5), connect).await {
                Ok(Ok(cn)) => {
                    c.connects.fetch_add(1, Ordering::Relaxed);
                    conn = Some(cn);
                }
                Ok(Err(e)) => {
                    c.error(format!("connect: {e}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
                Err(_) => {
                    c.error("connect: timed out");
                    continue;
                }
            }
        }
        let Some(cn) = conn.as_mut() else { continue };
        let letter = char::from(b'a' + rng.below(26) as u8);
        let max_id = c.max_id.load(Ordering::Relaxed);
        let roll = rng.below(100);
        let (op, q) = if roll < 45 || max_id == 0 {
            let k = rng.below(1_000_000);
            (
                LoadOp::Insert,
                format!("INSERT INTO test.load (k, pad) VALUES ({k}, REPEAT('{letter}', 200))"),
            )
        } else if roll < 95 {
            let id = 1 + rng.below(max_id);
            (
                LoadOp::Update,
                format!(
                    "UPDATE test.load SET k = k + 1, pad = REPEAT('{letter}', 200) WHERE id = {id}"
                ),
            )
        } else {
            let id = 1 + rng.below(max_id);
            (
                LoadOp::Delete,
                format!("DELETE FROM test.load WHERE id = {id}"),
            )
        };
        match tokio::time::timeout(Duration::from_secs(30), cn.query_drop(q)).await {
            Ok(Ok(())) => match op {
                LoadOp::Insert => {
                    if let Some(id) = cn.last_insert_id() {
                        c.max_id.fetch_max(id, Ordering::Relaxed);
                    }
                    c.inserts.fetch_add(1, Ordering::Relaxed);
                }
                LoadOp::Update => {
                    c.updates.fetch_add(1, Ordering::Relaxed);
                }
                LoadOp::Delete => {
                    c.deletes.fetch_add(1, Ordering::Relaxed);
                }
            },
            Ok(Err(e)) => {
                c.error(e);
                conn = None;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(_) => {
                c.error("statement timed out");
                conn = None;
            }
        }
    }
    if let Some(cn) = conn {
        let _ = tokio::time::timeout(Duration::from_secs(2), cn.disconnect()).await;
    }
}

/// Waits until `server`'s history list holds `at_least` records, for as long as it keeps
/// growing: how fast a write load piles history up is the machine's speed (a loaded 2-core
/// machine took over 120 s for 12,000), so the deadline is on progress — no growth for 60 s
/// fails, naming the length it stalled at — not on the whole wait.
pub async fn wait_for_history(server: &super::PrivateServer, at_least: u64) -> u64 {
    history_moving_to(server, at_least, true).await
}

/// Waits until purge has taken `server`'s history list below `below`, for as long as it
/// keeps falling (see [`wait_for_history`]).
pub async fn wait_for_purge(server: &super::PrivateServer, below: u64) -> u64 {
    history_moving_to(server, below, false).await
}

async fn history_moving_to(server: &super::PrivateServer, target: u64, up: bool) -> u64 {
    const STALL: Duration = Duration::from_secs(60);
    // The load stops after 5 minutes at most: a stall ends any wait well before this.
    const WHOLE: Duration = Duration::from_secs(600);
    let way = if up { "growing" } else { "falling" };
    // The best length so far and when it was reached.
    let progress = &std::cell::Cell::new((None::<u64>, Instant::now()));
    super::wait::wait_for_async(WHOLE, format!("history {way} to {target}"), || async move {
        let now = server.status_u64("Innodb_history_list_length").await;
        if (up && now >= target) || (!up && now < target) {
            return Some(now);
        }
        let (best, moved_at) = progress.get();
        if best.is_none_or(|b| if up { now > b } else { now < b }) {
            progress.set((Some(now), Instant::now()));
        } else {
            assert!(
                moved_at.elapsed() < STALL,
                "history stopped {way} at {best:?} for {STALL:?}, short of {target}"
            );
        }
        None
    })
    .await
}

// ---------------------------------------------------------------------------
// Many sessions
// ---------------------------------------------------------------------------

/// Opens idle sessions number `from..upto` with `opts`; every tenth (by number) holds an open
/// write transaction: `BEGIN; INSERT INTO {table} (id) VALUES (number)` (`table` needs an
/// integer primary key `id` and nothing else required). 32 connect at a time.
pub async fn idle_sessions(opts: Opts, table: &str, from: usize, upto: usize) -> Vec<Conn> {
    use futures_util::StreamExt;
    futures_util::stream::iter(from..upto)
        .map(|i| {
            let opts = opts.clone();
            async move {
                let mut c = Conn::new(opts).await.expect("idle session connects");
                if i % 10 == 0 {
                    c.query_drop("BEGIN").await.expect("BEGIN");
                    c.query_drop(format!("INSERT INTO {table} (id) VALUES ({i})"))
                        .await
                        .expect("INSERT in the held transaction");
                }
                c
            }
        })
        .buffer_unordered(32)
        .collect()
        .await
}

// ---------------------------------------------------------------------------
// Blocking snapshot
// ---------------------------------------------------------------------------

/// A REPEATABLE READ transaction whose read view keeps purge from removing
/// undo newer than it: history list length grows until it commits.
pub struct BlockingSnapshot {
    conn: Conn,
    thread_id: u64,
}

impl BlockingSnapshot {
    /// Opens its own connection, creates `test.load` if missing, and opens the
    /// read view (`START TRANSACTION` + a consistent read).
    pub async fn open(opts: Opts) -> BlockingSnapshot {
        Self::begin(opts, "SELECT 1", "SELECT id, k FROM test.load LIMIT 1").await
    }

    /// A read-write transaction with no read view instead (`START TRANSACTION` + an INSERT
    /// into a table of its own, so no load statement waits on its row lock; no consistent
    /// read): purge passes it, but on MariaDB ≥ 10.6.16 it keeps any history from being freed
    /// while it is open.
    pub async fn open_writer(opts: Opts) -> BlockingSnapshot {
        Self::begin(
            opts,
            "CREATE TABLE IF NOT EXISTS test.held (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
            "INSERT INTO test.held (v) VALUES (1)",
        )
        .await
    }

    async fn begin(opts: Opts, setup: &str, first: &str) -> BlockingSnapshot {
        let mut conn = Conn::new(opts)
            .await
            .unwrap_or_else(|e| panic!("BlockingSnapshot: connect: {e}"));
        ensure_load_table(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("BlockingSnapshot: create test.load: {e}"));
        for q in [
            setup,
            "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "START TRANSACTION",
            first,
        ] {
            conn.query_drop(q)
                .await
                .unwrap_or_else(|e| panic!("BlockingSnapshot: {q}: {e}"));
        }
        let thread_id: u64 = conn
            .query_first("SELECT CONNECTION_ID()")
            .await
            .unwrap_or_else(|e| panic!("BlockingSnapshot: CONNECTION_ID(): {e}"))
            .expect("CONNECTION_ID() row");
        BlockingSnapshot { conn, thread_id }
    }

    /// `CONNECTION_ID()` of the snapshot's session (= `trx_mysql_thread_id`).
    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }

    /// Ends the transaction (releasing the read view) and disconnects.
    pub async fn commit(mut self) {
        self.conn
            .query_drop("COMMIT")
            .await
            .unwrap_or_else(|e| panic!("BlockingSnapshot: COMMIT: {e}"));
        let _ = self.conn.disconnect().await;
    }
}
