//! The server dies under the dashboard: kill -9 under write load while recording, and
//! restarts with another redo log size (plus a resize at runtime).

use std::time::Duration;

use chrono::{DateTime, Utc};
use innodebt_engine::derive::Deriver;
use innodebt_engine::figures::Figures;
use innodebt_poller::live::BACKOFF_CAP;
use innodebt_server::sample::SourceEvent;

use super::{
    SCREEN_WAIT, background_runtime, capture_events, header, numbers_after, recording_dashboard,
    replay_json_at, run_innodebt, shown_uptime,
};
use crate::common::recorded;
use crate::common::wait::{OnTimeout, wait_until};
use crate::common::{PrivateServer, ServerConfig, WriteLoad};

/// What a capture's events derive to, sample by sample, with the index of the event.
fn derive_all(events: &[SourceEvent]) -> Vec<(usize, Figures)> {
    let mut deriver = Deriver::new();
    events
        .iter()
        .enumerate()
        .filter_map(|(i, ev)| deriver.push(ev).map(|f| (i, f)))
        .collect()
}

/// `SHOW GLOBAL STATUS` statements the recording waits for on each side of the crash. Each
/// tick asks it once (`status_sql`); the session sums ask it too, on the first two ticks and
/// every 10 s after (`session_sums_sql`, `innodebt_poller::live::session`). 14 are at least 11 ticks
/// begun, so at least 10 samples recorded: the assertions below want 8 on each side.
const STATUS_STATEMENTS: u64 = 14;

/// Waits until the dashboard's poller has sent `statements` `SHOW GLOBAL STATUS` to `server`
/// since it started — counted at the server (`Com_show_status`), less this probe's own
/// (the counter includes the statement that reads it). A fixed time instead gives fewer
/// samples when a loaded machine makes the latency guard stretch the cadence.
fn wait_for_status_reads(
    rt: &tokio::runtime::Runtime,
    server: &PrivateServer,
    statements: u64,
    what: &str,
) {
    let mut probes = 0;
    wait_until(SCREEN_WAIT, what, || {
        probes += 1;
        rt.block_on(server.status_u64("Com_show_status"))
            .saturating_sub(probes)
            >= statements
    });
}

/// Rates that follow the write load, so after the restart they should look like before:
/// a rate taken across the gap (a baseline from before the crash) shows up here as a spike,
/// since the LSN and the handler counters it would span kept growing.
fn load_rates(f: &Figures) -> [(&'static str, Option<f64>); 2] {
    [
        ("redo written bytes/s", f.redo.written_bytes_per_s),
        ("purge inflow rows/s", f.purge.inflow_records_per_s),
    ]
}

/// Pages in the private server's 32 MiB buffer pool: no interval flushes more than that.
const POOL_PAGES: f64 = 32.0 * 1024.0 * 1024.0 / 16384.0;

#[test]
fn kill_9_under_load_while_the_dashboard_records() {
    let rt = background_runtime();
    let mut server = PrivateServer::start(ServerConfig::default());
    let load = {
        let _in_rt = rt.enter();
        WriteLoad::start(server.opts(), 3)
    };
    let (dir, tmux, file, command) = recording_dashboard(server.conn_args(), "250ms", "crash.idbt");
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    let before = tmux.wait_for("the recording dashboard", SCREEN_WAIT, |s| {
        header(s).contains("REC") && header(s).contains("data ")
    });
    let uptime_before = shown_uptime(&before);
    // Rates under load before the crash: enough samples for the figures below.
    wait_for_status_reads(
        &rt,
        &server,
        STATUS_STATEMENTS,
        "the dashboard's samples before the crash",
    );

    server.kill9();
    let killed_at = Utc::now();
    let first = tmux.wait_for("DISCONNECTED", SCREEN_WAIT, |s| {
        header(s).contains("DISCONNECTED")
    });
    assert!(
        ["connection lost", "no server answers"]
            .iter()
            .any(|why| header(&first).contains(why)),
        "the reason is shown:\n{first}"
    );
    // Down until the countdown shows the backoff at its cap (0.25+0.5+1+2+4 s, then 5 s),
    // watching it on every screen.
    let cap = BACKOFF_CAP.as_secs();
    let mut countdowns = Vec::new();
    wait_until(
        SCREEN_WAIT,
        OnTimeout(|| {
            format!(
                "the retry countdown at its {cap}s cap; screen is:\n{}",
                tmux.screen()
            )
        }),
        || {
            let s = tmux.screen();
            assert!(header(&s).contains("DISCONNECTED"), "still down:\n{s}");
            assert!(s.contains("Checkpoint age"), "the dashboard stays up:\n{s}");
            let now = numbers_after(header(&s), "retry in ");
            let at_cap = now.contains(&cap);
            countdowns.extend(now);
            at_cap
        },
    );
    let longest = countdowns.iter().copied().max().unwrap_or(0);
    assert!(
        longest <= cap,
        "countdown above the {cap}s cap: {countdowns:?}"
    );
    assert!(
        countdowns.iter().any(|n| *n < cap),
        "the backoff grows to its cap: {countdowns:?}"
    );
    assert!(tmux.alternate_on());

    let start = server.restart();
    assert!(
        start.log.contains("crash recovery"),
        "the restart really recovered from the crash:\n{}",
        start.log
    );
    let restarted_at = Utc::now();
    let back = tmux.wait_for("reconnected by itself", SCREEN_WAIT, |s| {
        let h = header(s);
        !h.contains("DISCONNECTED") && h.contains("data ") && shown_uptime(s) != uptime_before
    });
    // Samples after the reconnect, then quit.
    let uptime_after = shown_uptime(&back);
    tmux.wait_for("values moving after the reconnect", SCREEN_WAIT, |s| {
        shown_uptime(s).is_some_and(|u| Some(&u) != uptime_after.as_ref())
    });
    wait_for_status_reads(
        &rt,
        &server,
        STATUS_STATEMENTS,
        "the dashboard's samples after the reconnect",
    );
    tmux.keys(&["q"]);
    let after = tmux.wait_for("the recording summary", SCREEN_WAIT, |s| {
        s.contains("recorded")
    });
    assert!(!tmux.alternate_on(), "{after}");
    let stats = rt.block_on(load.stop());
    assert!(stats.errors > 0, "the load saw the crash: {stats:?}");

    // The capture: complete, the gap marked by Disconnected events between the samples.
    let (events, end) = capture_events(&file);
    assert!(end.is_complete(), "{end:?}");
    let first_down = events
        .iter()
        .position(|e| matches!(e, SourceEvent::Disconnected { .. }))
        .expect("the gap is marked in the capture");
    let reconnect = first_down
        + events[first_down..]
            .iter()
            .position(|e| matches!(e, SourceEvent::Connected { .. }))
            .expect("the reconnection is in the capture");
    let downs = events[first_down..reconnect]
        .iter()
        .filter(|e| matches!(e, SourceEvent::Disconnected { .. }))
        .count();
    assert!(downs >= 4, "each retry is recorded: {downs}");
    if let SourceEvent::Disconnected { since, .. } = &events[first_down] {
        let lag = (*since - killed_at).num_milliseconds().abs();
        assert!(lag < 3000, "gap starts at the kill ({lag} ms off)");
    }

    // Rates: fresh baselines after the reconnect — no negative value, no spike.
    let figures = derive_all(&events);
    let before_kill: Vec<&Figures> = figures
        .iter()
        .filter(|(i, _)| *i < first_down)
        .map(|(_, f)| f)
        .collect();
    let after_reconnect: Vec<&Figures> = figures
        .iter()
        .filter(|(i, _)| *i > reconnect)
        .map(|(_, f)| f)
        .collect();
    assert!(before_kill.len() >= 8, "{}", before_kill.len());
    assert!(after_reconnect.len() >= 8, "{}", after_reconnect.len());
    let fresh = after_reconnect[0];
    assert!(fresh.interval_s.is_none(), "the first sample is a baseline");
    let across_gap = [
        fresh.redo.written_bytes_per_s,
        fresh.purge.inflow_records_per_s,
        fresh.flush.total_pages_per_s,
        fresh.history.growth_per_s,
    ];
    assert!(
        across_gap.iter().all(Option::is_none),
        "no rate across the gap: {across_gap:?}"
    );
    for (k, (name, _)) in load_rates(fresh).iter().enumerate() {
        let peak = |fs: &[&Figures]| {
            fs.iter()
                .filter_map(|f| load_rates(f)[k].1)
                .fold(0.0_f64, f64::max)
        };
        let (peak_before, peak_after) = (peak(&before_kill), peak(&after_reconnect));
        // The load's own level after the reconnect: the median rate, which one spike cannot
        // move. How fast the load writes before and after a crash recovery depends on what
        // else the machine runs; a rate taken across the gap is far above both.
        let mut after: Vec<f64> = after_reconnect
            .iter()
            .filter_map(|f| load_rates(f)[k].1)
            .collect();
        after.sort_by(f64::total_cmp);
        let level_after = after.get(after.len() / 2).copied().unwrap_or(0.0);
        eprintln!(
            "{name}: peak {peak_before:.0} before the kill, {peak_after:.0} after \
             (median {level_after:.0})"
        );
        assert!(
            peak_before > 0.0,
            "{name}: the load was measured before the kill"
        );
        assert!(
            peak_after <= 5.0 * peak_before.max(level_after),
            "{name} spikes after the reconnect: {peak_after} vs {peak_before} before, \
             {level_after} the median after"
        );
    }
    for f in &after_reconnect[1..] {
        let interval = f.interval_s.expect("an interval after the baseline");
        for r in load_rates(f).iter().filter_map(|(_, r)| *r) {
            assert!(r >= 0.0, "negative rate after the reconnect: {r}");
        }
        // Crash recovery flushes what it replayed, so compare with what the pool can hold.
        if let Some(flushed) = f.flush.total_pages_per_s {
            assert!(
                (0.0..=POOL_PAGES).contains(&(flushed * interval)),
                "flushed {flushed} pages/s over {interval} s"
            );
        }
    }
    assert!(
        after_reconnect[1..]
            .iter()
            .any(|f| f.redo.written_bytes_per_s.is_some()),
        "rates come back after the baseline"
    );
    let uptime = after_reconnect
        .last()
        .and_then(|f| f.server.uptime_s)
        .unwrap_or(u64::MAX);
    let since_restart = (Utc::now() - restarted_at).num_seconds().unsigned_abs();
    assert!(
        uptime <= since_restart + 2,
        "the new server's uptime: {uptime}"
    );

    // Replay across the gap: one moment after the reconnect, and the CSV export.
    let at = after_reconnect[2].sampled_at;
    let moment = replay_json_at(&file, &at.to_rfc3339());
    let moment_time: DateTime<Utc> = moment["sampled_at"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("sampled_at");
    assert!(moment_time > killed_at, "the moment is after the gap");
    for path in [
        ["redo", "written_bytes_per_s"],
        ["flush", "total_pages_per_s"],
    ] {
        let v = &moment[path[0]][path[1]];
        assert!(v.as_f64().is_some_and(|r| r >= 0.0), "{path:?}: {v}");
    }
    let csv_path = dir.path().join("crash.csv");
    let out = run_innodebt(&[
        "export".into(),
        file.display().to_string(),
        "--format".into(),
        "csv".into(),
        "-o".into(),
        csv_path.display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&csv_path).expect("csv");
    let mut lines = csv.lines();
    let columns: Vec<&str> = lines.next().expect("header row").split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), figures.len(), "one row per sample");
    let col = |name: &str| columns.iter().position(|c| *c == name).expect(name);
    let interval = col("interval_s");
    // Baselines (no interval): the first sample, and the first after the reconnect.
    let baselines = rows.iter().filter(|r| r[interval].is_empty()).count();
    assert_eq!(baselines, 2, "the gap restarts the rates once");
    for name in columns
        .iter()
        .filter(|c| c.ends_with("_per_s") && !c.starts_with("history"))
    {
        let c = col(name);
        assert!(
            rows.iter().all(|r| !r[c].starts_with('-')),
            "negative {name} in the export"
        );
    }
}

#[test]
fn redo_log_resized_by_restart_and_at_runtime() {
    let rt = background_runtime();
    let mut server = PrivateServer::start(ServerConfig::default());
    let load = {
        let _in_rt = rt.enter();
        WriteLoad::start(server.opts(), 2)
    };
    let furious_at =
        |server: &PrivateServer| rt.block_on(server.status_u64("Innodb_checkpoint_max_age"));
    let max_age_16m = furious_at(&server);
    let (_dir, tmux, file, command) =
        recording_dashboard(server.conn_args(), "300ms", "resize.idbt");
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    tmux.wait_for("the dashboard with a 16 MiB redo log", SCREEN_WAIT, |s| {
        header(s).contains("data ") && s.contains("16.0 MiB")
    });
    // A sample with the 16 MiB log in the recording, a second clear of the restart.
    wait_until(
        SCREEN_WAIT,
        "the recording to hold a sample a second old before the restart",
        || {
            recorded::sample_times(&file)
                .first()
                .is_some_and(|t| *t <= Utc::now() - chrono::Duration::seconds(1))
        },
    );

    server.restart_with(["--innodb-log-file-size=32M"]);
    let restarted_at = Utc::now();
    let max_age_32m = furious_at(&server);
    assert!(max_age_32m > max_age_16m);
    let screen = tmux.wait_for("the restart with 32 MiB noticed", SCREEN_WAIT, |s| {
        header(s).contains("redo capacity changed 16.0 MiB → 32.0 MiB")
    });
    assert!(screen.contains("32.0 MiB"), "{screen}");

    // MariaDB ≥ 10.11 resizes the redo log at runtime; variables are re-read every 10 s.
    rt.block_on(server.sql("SET GLOBAL innodb_log_file_size = 48 * 1024 * 1024"));
    let resized_at = Utc::now();
    let max_age_48m = furious_at(&server);
    assert!(max_age_48m > max_age_32m);
    tmux.wait_for("the runtime resize noticed", Duration::from_secs(40), |s| {
        header(s).contains("redo capacity changed 32.0 MiB → 48.0 MiB")
    });
    // A sample after the runtime resize in the recording.
    recorded::wait_for_sample_after(&file, Utc::now(), SCREEN_WAIT);
    tmux.keys(&["q"]);
    tmux.wait_for("the recording summary", SCREEN_WAIT, |s| {
        s.contains("recorded")
    });
    rt.block_on(load.stop());

    // Each size's figures follow the server's own furious-flush point (SHOW STATUS).
    let (events, end) = capture_events(&file);
    assert!(end.is_complete(), "{end:?}");
    let figures = derive_all(&events);
    let sample_times: Vec<DateTime<Utc>> = figures.iter().map(|(_, f)| f.sampled_at).collect();
    let last_16 = sample_times
        .iter()
        .rev()
        .find(|t| **t < restarted_at - chrono::Duration::seconds(1))
        .copied()
        .expect("a sample before the restart");
    // The first sample after the reconnection (the screen showed it before the resize).
    let reconnected = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, SourceEvent::Connected { .. }))
        .map(|(i, _)| i)
        .nth(1)
        .expect("the reconnection after the restart");
    let first_32 = figures
        .iter()
        .find(|(i, _)| *i > reconnected)
        .map(|(_, f)| f.sampled_at)
        .expect("a sample after the restart");
    assert!(first_32 < resized_at);
    let last_48 = *sample_times.last().expect("samples");
    for (at, mib, max_age) in [
        (last_16, 16u64, max_age_16m),
        (first_32, 32, max_age_32m),
        (last_48, 48, max_age_48m),
    ] {
        let v = replay_json_at(&file, &at.to_rfc3339());
        let redo = &v["redo"];
        assert_eq!(redo["capacity_bytes"].as_u64(), Some(mib << 20), "{redo}");
        assert_eq!(
            redo["sync_point_bytes"].as_u64(),
            Some(max_age),
            "MariaDB's furious-flush point at {mib} MiB: {redo}"
        );
        let async_point = redo["async_point_bytes"].as_u64().expect("async point");
        assert_eq!(async_point, max_age - max_age / 8, "{redo}");
        let warnings = v["warnings"].to_string();
        if mib == 16 {
            assert!(!warnings.contains("redo capacity changed"), "{warnings}");
            continue;
        }
        let from = if mib == 32 { "16.0 MiB" } else { "32.0 MiB" };
        assert!(
            warnings.contains(&format!("redo capacity changed {from} → {mib}.0 MiB"))
                && warnings.contains("innodb_log_file_size"),
            "{warnings}"
        );
        // Peak and sizing count from the change: never a 16 MiB peak against 32 MiB.
        let sizing = &v["sizing"];
        if let Some(peak_at) = sizing["peak_at"].as_str() {
            let peak_at: DateTime<Utc> = peak_at.parse().expect("peak_at");
            let change = if mib == 32 { restarted_at } else { resized_at };
            assert!(
                peak_at >= change - chrono::Duration::seconds(2),
                "peak from before the resize: {sizing}"
            );
            assert_eq!(sizing["current_capacity_bytes"].as_u64(), Some(mib << 20));
        }
    }
}
