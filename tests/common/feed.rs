//! A recorded MariaDB 10.11 for replay tests and the replay benchmark: the demo capture's real
//! server description and SHOW ENGINE INNODB STATUS, and one sample per second of a server
//! whose debts move — write load in waves, checkpoint age crossing the async and furious-flush
//! points, a read view blocking purge for five minutes of every twenty and once for three
//! hours (purge's position in SEIS standing still meanwhile), SEIS every tenth poll (refused
//! for a stretch), an undo residency scan every half hour, variable changes, reconnects, a
//! crash with every counter from zero, a redo resize, a runtime change. Poll times jitter by
//! fractions of a millisecond, as real polls do.
//!
//! Everything a verdict or a chart remembers across sections is in here, so a replay that
//! rebuilds state from a checkpoint has to get all of it right. The soak test drives the live
//! path with it for half a million seconds ([`Plan::soak`]).
#![allow(dead_code)]

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use innodebt_capture as capture;
use innodebt_server::innodb_status::InnodbStatus;
use innodebt_server::sample::{
    AuditEntry, MetricValue, Sample, ServerInfo, SourceEvent, SourceKind, TrxRow, Unavailable,
    UndoScan,
};

/// The most the fed server does in a second; no derived rate may exceed it.
pub const REDO_PER_S: u64 = 6 << 20;
pub const FLUSH_PER_S: u64 = 900;
pub const DML_PER_S: u64 = 4_000;
pub const PURGE_PER_S: u64 = 4_000;

/// What the feed does when; `Plan::default()` is the rich mix the equality tests use.
#[derive(Debug, Clone)]
pub struct Plan {
    /// A read view blocks purge for 300 s of every this many seconds (0: never).
    pub blocker_every: u64,
    /// Checkpoint age rises past the async point and falls back once every this many seconds.
    pub age_period: u64,
    /// One long blocker from/to (seconds).
    pub long_blocker: Option<(u64, u64)>,
    pub reconnect_every: u64,
    pub restart_every: u64,
    /// The redo log doubles at this second (a restart with another size).
    pub resize_at: Option<u64>,
    /// SEIS is refused (no PROCESS) during this stretch.
    pub seis_refused: Option<(u64, u64)>,
    pub undo_scan_every: u64,
    pub variables_every: u64,
    pub audit_at: Option<u64>,
    /// `FLUSH STATUS` every this many seconds: `Handler_*` start again, `Uptime` does not.
    pub flush_status_every: u64,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            blocker_every: 1_200,
            age_period: 600,
            long_blocker: Some((1_500, 12_300)),
            reconnect_every: 3_700,
            restart_every: 9_100,
            resize_at: Some(5_300),
            seis_refused: Some((2_000, 2_650)),
            undo_scan_every: 1_800,
            variables_every: 900,
            audit_at: Some(4_444),
            flush_status_every: 0,
        }
    }
}

impl Plan {
    /// A steady week: load waves and a blocker now and then, nothing else.
    pub fn quiet() -> Self {
        Plan {
            blocker_every: 7_200,
            age_period: 600,
            long_blocker: None,
            reconnect_every: 0,
            restart_every: 0,
            resize_at: None,
            seis_refused: None,
            undo_scan_every: 0,
            variables_every: 0,
            audit_at: None,
            flush_status_every: 0,
        }
    }

    /// The soak's long run: load waves, a reporting job's read view for 5 minutes of every
    /// 20, a crash every 50,000 s, a `FLUSH STATUS` every 70,000 s, the purge threads changed
    /// every 10 minutes.
    pub fn soak() -> Self {
        Plan {
            blocker_every: 1_200,
            age_period: 300,
            long_blocker: None,
            reconnect_every: 0,
            restart_every: 50_000,
            resize_at: None,
            seis_refused: None,
            undo_scan_every: 0,
            variables_every: 600,
            audit_at: None,
            flush_status_every: 70_000,
        }
    }
}

pub struct Feed {
    plan: Plan,
    info: ServerInfo,
    seis: InnodbStatus,
    /// Seconds since the feed started.
    t: u64,
    t0: DateTime<Utc>,
    uptime: u64,
    lsn: u64,
    log_written: u64,
    flushed: u64,
    lru_flushed: u64,
    handler_update: u64,
    handler_delete: u64,
    purged: u64,
    undo_pages_purged: u64,
    history: u64,
    /// SEIS's `Trx id counter` and `Purge done for trx's n:o <`: purge's position stands
    /// still behind a blocking read view while commits move the counter (`purge.moving`).
    trx_counter: u64,
    purge_done: u64,
    purge_threads: u32,
    redo_mib: u64,
    /// Connections lost so far, and of those the server restarts.
    pub disconnects: u64,
    pub restarts: u64,
}

/// Integer triangle wave 0 → `amp` → 0 over `period`.
fn wave(t: u64, period: u64, amp: u64) -> u64 {
    let p = t % period;
    let half = (period / 2).max(1);
    amp * p.min(period - p) / half
}

fn demo() -> (ServerInfo, InnodbStatus) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/mariadb-10.11-blocker.idbt"
    );
    let events = capture::open(path).expect("the demo capture").events;
    let info = events
        .iter()
        .find_map(|e| match e {
            SourceEvent::Connected { info, .. } => Some(info.clone()),
            _ => None,
        })
        .expect("a Connected event in the demo");
    let seis = events
        .iter()
        .find_map(|e| match e {
            SourceEvent::Sample(s) => s.innodb_status.clone(),
            _ => None,
        })
        .expect("SHOW ENGINE INNODB STATUS in the demo");
    (info, seis)
}

impl Feed {
    pub fn new(plan: Plan) -> Feed {
        let (info, seis) = demo();
        Feed {
            plan,
            info,
            seis,
            t: 0,
            t0: DateTime::parse_from_rfc3339("2026-03-14T09:00:00Z")
                .expect("valid time")
                .with_timezone(&Utc),
            uptime: 86_400,
            lsn: 40_000_000_000,
            log_written: 30_000_000_000,
            flushed: 9_000_000,
            lru_flushed: 1_000_000,
            handler_update: 70_000_000,
            handler_delete: 5_000_000,
            purged: 60_000_000,
            undo_pages_purged: 2_000_000,
            history: 1_000,
            trx_counter: 421_000_000,
            purge_done: 421_000_000 - 20,
            purge_threads: 4,
            redo_mib: 16,
            disconnects: 0,
            restarts: 0,
        }
    }

    /// Seconds fed so far.
    pub fn t(&self) -> u64 {
        self.t
    }

    fn now(&self) -> DateTime<Utc> {
        self.t0 + chrono::Duration::nanoseconds((self.mono() * 1e9) as i64 + 123)
    }

    /// The poller's clock: whole seconds plus a deterministic jitter under a millisecond.
    fn mono(&self) -> f64 {
        self.t as f64 + ((self.t * 7_919) % 997) as f64 / 1.0e6
    }

    pub fn connected(&self) -> SourceEvent {
        let mut info = self.info.clone();
        info.variables.insert(
            "innodb_log_file_size".into(),
            (self.redo_mib << 20).to_string(),
        );
        info.variables
            .insert("innodb_max_purge_lag".into(), "200000".into());
        SourceEvent::Connected {
            at: self.now(),
            info,
        }
    }

    /// `seconds` of events, the first `Connected` included when `t` is 0.
    pub fn events(&mut self, seconds: u64) -> Vec<SourceEvent> {
        let mut out = Vec::with_capacity(seconds as usize + 16);
        if self.t == 0 {
            out.push(self.connected());
        }
        for _ in 0..seconds {
            self.next_events(&mut out);
        }
        out
    }

    fn every(&self, n: u64, at: u64) -> bool {
        n > 0 && self.t % n == at % n
    }

    /// The events of the next second: one sample, sometimes more around it.
    pub fn next_events(&mut self, out: &mut Vec<SourceEvent>) {
        self.t += 1;
        let t = self.t;
        if self.every(self.plan.restart_every, self.plan.restart_every / 2)
            || self.plan.resize_at == Some(t)
        {
            out.push(SourceEvent::Disconnected {
                since: self.now(),
                retry_in_ms: 1_000,
                error: "Lost connection to server during query".into(),
            });
            self.disconnects += 1;
            self.restarts += 1;
            self.t += 6;
            self.uptime = 2;
            (self.flushed, self.lru_flushed) = (0, 0);
            (self.handler_update, self.handler_delete) = (0, 0);
            (self.purged, self.undo_pages_purged) = (0, 0);
            self.log_written = 0;
            if self.plan.resize_at == Some(t) {
                self.redo_mib *= 2;
            }
            out.push(self.connected());
        } else if self.every(self.plan.reconnect_every, 1_000) {
            out.push(SourceEvent::Disconnected {
                since: self.now(),
                retry_in_ms: 2_000,
                error: "MySQL server has gone away".into(),
            });
            self.disconnects += 1;
            self.t += 3;
            out.push(self.connected());
        }
        if self.every(
            self.plan.flush_status_every,
            self.plan.flush_status_every / 2,
        ) {
            (self.handler_update, self.handler_delete) = (0, 0);
        }
        if self.every(self.plan.variables_every, 450) {
            self.purge_threads = if self.purge_threads == 4 { 8 } else { 4 };
            out.push(SourceEvent::Variables {
                at: self.now(),
                variables: BTreeMap::from([(
                    "innodb_purge_threads".into(),
                    self.purge_threads.to_string(),
                )]),
            });
        }
        if self.plan.audit_at == Some(t) {
            out.push(SourceEvent::Audit(AuditEntry {
                at: self.now(),
                account: "dba@%".into(),
                server: self.info.label.clone(),
                action: "SET GLOBAL innodb_purge_threads".into(),
                old_value: Some("4".into()),
                new_value: Some("8".into()),
                result: "ok".into(),
            }));
        }
        let t = self.t;
        self.uptime += 1;
        let load = 1 + wave(t, 900, 9);
        let redo = REDO_PER_S * load / 10;
        self.lsn += redo;
        self.log_written += redo;
        let flush = FLUSH_PER_S * load / 10;
        self.flushed += flush;
        self.lru_flushed += flush / 5;
        let dml = DML_PER_S * load / 10;
        self.handler_update += dml * 3 / 4;
        self.handler_delete += dml / 4;
        let short = (self.plan.blocker_every > 0)
            .then(|| (t % self.plan.blocker_every).checked_sub(600))
            .flatten()
            .filter(|a| *a < 300);
        let long = self
            .plan
            .long_blocker
            .filter(|(a, b)| t >= *a && t < *b)
            .map(|(a, _)| t - a);
        let blocked_for = long.or(short);
        let purged = if blocked_for.is_some() {
            0
        } else {
            (dml + 2_000).min(PURGE_PER_S).min(self.history + dml)
        };
        self.history = self.history + dml - purged;
        // Ten rows a commit, two transaction numbers each; purge keeps pace unless blocked.
        self.trx_counter += dml / 5;
        if blocked_for.is_none() {
            self.purge_done = self.trx_counter - 20;
        }
        self.purged += purged;
        self.undo_pages_purged += purged / 40;

        let mut s = Sample::new(self.now(), self.mono());
        s.poll_ms = 3 + (t % 7) as u32;
        let capacity = self.redo_mib << 20;
        let age = capacity / 8 + wave(t, self.plan.age_period, capacity * 7 / 10);
        for (name, v) in [
            ("Uptime", self.uptime),
            ("Innodb_lsn_current", self.lsn),
            ("Innodb_lsn_last_checkpoint", self.lsn - age),
            ("Innodb_checkpoint_age", age),
            ("Innodb_os_log_written", self.log_written),
            ("Innodb_history_list_length", self.history),
            ("Innodb_buffer_pool_pages_flushed", self.flushed),
            ("Innodb_buffer_pool_pages_LRU_flushed", self.lru_flushed),
            ("Innodb_buffer_pool_pages_dirty", 1_000 + wave(t, 120, 900)),
            ("Innodb_buffer_pool_pages_data", 1_900),
            ("Innodb_buffer_pool_pages_free", 130),
            ("Handler_update", self.handler_update),
            ("Handler_delete", self.handler_delete),
        ] {
            s.status.insert(name.into(), v);
        }
        let on = |count: u64| MetricValue {
            count: count as i64,
            enabled: true,
        };
        for (name, v) in [
            ("trx_rseg_history_len", self.history),
            ("trx_rseg_current_size", 300 + self.history / 100),
            ("purge_del_mark_records", self.purged / 3),
            (
                "purge_upd_exist_or_extern_records",
                self.purged - self.purged / 3,
            ),
            ("purge_undo_log_pages", self.undo_pages_purged),
            ("buffer_LRU_batch_flush_total_pages", self.lru_flushed),
        ] {
            s.metrics.insert(name.into(), on(v));
        }
        if let Some(age) = blocked_for {
            let id = if long.is_some() { 7 } else { 1_000 + t / 1_200 };
            s.trx.push(TrxRow {
                trx_id: format!("{}", 421_000_000 + id),
                state: "RUNNING".into(),
                age_s: age,
                isolation: Some("REPEATABLE READ".into()),
                thread_id: Some(id),
                user: Some("report".into()),
                host: Some("10.0.3.17:51234".into()),
                command: Some("Sleep".into()),
                query: Some(format!("SELECT SUM(total) FROM orders WHERE batch = {id}")),
                rows_modified: Some(0),
            });
        }
        let refused = self.plan.seis_refused.is_some_and(|(a, b)| t >= a && t < b);
        if t.is_multiple_of(10) {
            if refused {
                s.unavailable.push(Unavailable {
                    source: SourceKind::InnodbStatus,
                    privilege: Some("PROCESS".into()),
                    error: "Access denied; you need the PROCESS privilege".into(),
                });
            } else {
                let mut st = self.seis.clone();
                st.lsn = Some(self.lsn);
                st.checkpoint_lsn = Some(self.lsn - age);
                // The oldest dirty page at the checkpoint: its age is the checkpoint age.
                st.pages_flushed_lsn = Some(self.lsn - age);
                st.history_length = Some(self.history);
                st.trx_id_counter = Some(self.trx_counter);
                st.purge_done_trx = Some(self.purge_done);
                s.innodb_status = Some(st);
            }
        }
        if self.every(self.plan.undo_scan_every, 17) {
            s.undo_scan = Some(UndoScan {
                undo_pages_cached: 200 + self.history / 150,
                took_ms: 40,
            });
        }
        out.push(SourceEvent::Sample(Box::new(s)));
    }
}
