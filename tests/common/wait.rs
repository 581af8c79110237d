//! The one way a test waits: for a condition, with a deadline, saying what it waited for when
//! the deadline passes ([`wait_until`], [`wait_for`] and their `async` twins). A fixed sleep
//! as synchronisation passes or fails with the machine's load; a wait on the condition does
//! not, and returns as soon as the condition holds. Where the duration itself is what the
//! scenario is about — a read view held for 40 s, a poller's cadence, a measurement window —
//! [`duration_is_the_point`] says so, with why; nothing else in the tests lets time pass.
#![allow(dead_code)]

use std::fmt::Display;
use std::future::Future;
use std::time::{Duration, Instant};

/// How often a condition is looked at: seldom enough not to load a 2-core machine, and
/// slower than 100 ms — the server serves INNODB_TRX from a cache it refreshes only after
/// 100 ms without a read (`trx_i_s_cache`), so a faster probe would keep it stale.
const POLL: Duration = Duration::from_millis(200);

/// A description of what a wait waits for, formatted only if it times out, so that it can
/// show the state at that moment (a log, a screen).
pub struct OnTimeout<F>(pub F);

impl<F: Fn() -> String> Display for OnTimeout<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&(self.0)())
    }
}

/// Waits until `cond` holds; panics after `timeout` naming `what` it waited for (`what` is
/// formatted only then, so it may show the state at that moment).
#[track_caller]
pub fn wait_until(timeout: Duration, what: impl Display, mut cond: impl FnMut() -> bool) {
    wait_for(timeout, what, || cond().then_some(()))
}

/// Waits until `probe` gives a value and returns it; panics after `timeout` naming `what`.
#[track_caller]
pub fn wait_for<T>(
    timeout: Duration,
    what: impl Display,
    mut probe: impl FnMut() -> Option<T>,
) -> T {
    let started = Instant::now();
    loop {
        if let Some(v) = probe() {
            return v;
        }
        if started.elapsed() >= timeout {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(POLL);
    }
}

/// [`wait_until`] for a condition that awaits (a query, a scrape).
#[track_caller]
pub fn wait_until_async<F, Fut>(
    timeout: Duration,
    what: impl Display,
    mut cond: F,
) -> impl Future<Output = ()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    wait_for_async(timeout, what, move || {
        let fut = cond();
        async move { fut.await.then_some(()) }
    })
}

/// [`wait_for`] for a probe that awaits.
#[track_caller]
pub fn wait_for_async<T, F, Fut>(
    timeout: Duration,
    what: impl Display,
    probe: F,
) -> impl Future<Output = T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    wait_for_async_every(timeout, POLL, what, probe)
}

/// [`wait_for_async`] looking every `poll`: for a moment that must be caught close to when
/// it comes (a crash at a checkpoint age).
#[track_caller]
pub fn wait_for_async_every<T, F, Fut>(
    timeout: Duration,
    poll: Duration,
    what: impl Display,
    mut probe: F,
) -> impl Future<Output = T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let caller = std::panic::Location::caller();
    async move {
        let started = Instant::now();
        loop {
            if let Some(v) = probe().await {
                return v;
            }
            if started.elapsed() >= timeout {
                panic!("timed out after {timeout:?} waiting for {what} ({caller})");
            }
            tokio::time::sleep(poll).await;
        }
    }
}

/// Lets `how_long` pass because that duration is what the scenario is about (`why` says
/// what: an age a verdict judges, a window a figure is counted over, a client's cadence) —
/// never to wait for something to happen: that is [`wait_until`], which returns as soon as
/// it has.
pub fn duration_is_the_point(how_long: Duration, why: &str) {
    assert!(!why.is_empty(), "say why the duration is the point");
    std::thread::sleep(how_long);
}

/// [`duration_is_the_point`] inside a runtime.
pub async fn duration_is_the_point_async(how_long: Duration, why: &str) {
    assert!(!why.is_empty(), "say why the duration is the point");
    tokio::time::sleep(how_long).await;
}

/// [`duration_is_the_point`] until `since + how_long` (nothing if that is already past): a
/// cadence, each round taking its own time out of the period.
pub fn duration_is_the_point_since(since: Instant, how_long: Duration, why: &str) {
    duration_is_the_point(how_long.saturating_sub(since.elapsed()), why);
}
