//! One server from Prometheus against the direct look at it: `innodebt --prometheus URL
//! --instance NAME --once` fed by mysqld_exporter's series and by `innodebt serve`'s, both
//! scraped every 15 s by a real Prometheus, against `innodebt --once` connected to the same
//! private MariaDB at the same moment.
//!
//! `cargo bench --bench prometheus_vs_direct` (options after `--`: `--runs 3`, `--history N`
//! to pile up before each look, `--innodebt PATH`).
//!
//! Each run: a paced write load behind an open read view until history reaches `--history`;
//! then the load stops and the server is left to hold still (history held by the read view,
//! checkpoint age settled), so the newest scrape and the direct look see the same state; once
//! Prometheus has scraped both sources after that, the three looks run back to back. Per run
//! and source: history length and checkpoint age against the direct look's, and the worst
//! verdict (the first of the most severe) of each.

#[path = "../tests/common/mod.rs"]
mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::load::{BlockingSnapshot, WriteLoad};
use common::mysqld_exporter::Exporter;
use common::serve::{Prometheus, Serve, serve_args};
use common::{PrivateServer, ServerConfig};
use serde_json::Value;

const STEP_S: u64 = 15;

struct Args {
    runs: usize,
    history: u64,
    innodebt: std::path::PathBuf,
}

fn args() -> Args {
    let mut a = Args {
        runs: 3,
        history: 20_000,
        innodebt: common::innodebt_bin(),
    };
    let argv: Vec<String> = std::env::args()
        .skip(1)
        .filter(|x| x != "--bench")
        .collect();
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let v = it
            .next()
            .unwrap_or_else(|| panic!("{flag} needs a value"))
            .clone();
        let num = || -> u64 {
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{flag} N, not {v}"))
        };
        match flag.as_str() {
            "--runs" => a.runs = num().max(1) as usize,
            "--history" => a.history = num().max(1),
            "--innodebt" => a.innodebt = v.into(),
            other => panic!("unknown option {other}"),
        }
    }
    a
}

/// What one look said.
struct Look {
    history: f64,
    checkpoint_age: f64,
    verdict: String,
}

fn look(a: &Args, args: &[String]) -> Look {
    let out = Command::new(&a.innodebt)
        .arg("--no-defaults")
        .args(args)
        .args(["--once", "--format", "json"])
        .output()
        .expect("run innodebt");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "innodebt {args:?} --once is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let num = |section: &str, key: &str| {
        v[section][key]
            .as_f64()
            .unwrap_or_else(|| panic!("no {section}.{key} in {v}"))
    };
    Look {
        history: num("history", "length"),
        checkpoint_age: num("redo", "checkpoint_age_bytes"),
        verdict: worst(&v),
    }
}

/// The first of the most severe verdicts, as `kind (severity)`.
fn worst(v: &Value) -> String {
    let rank = |s: &str| {
        ["ok", "unknown", "warning", "critical"]
            .iter()
            .position(|x| *x == s)
    };
    let verdicts = v["verdicts"].as_array().cloned().unwrap_or_default();
    let top = verdicts
        .iter()
        .filter_map(|x| rank(x["severity"].as_str()?))
        .max()
        .unwrap_or(0);
    verdicts
        .iter()
        .find(|x| x["severity"].as_str().and_then(rank) == Some(top))
        .map(|x| {
            format!(
                "{} ({})",
                x["kind"].as_str().unwrap_or("?"),
                x["severity"].as_str().unwrap_or("?")
            )
        })
        .unwrap_or_else(|| "none".into())
}

/// The newest scrape Prometheus holds of `series` (unix seconds).
fn newest_scrape(prom: &Prometheus, series: &str) -> Option<f64> {
    let r = prom.query(&format!("timestamp({series})"), now_unix());
    r.as_array()?.first()?["value"][1].as_str()?.parse().ok()
}

fn now_unix() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

/// `a` against `b`, in per cent of `b`.
fn off_by(a: f64, b: f64) -> String {
    if b == 0.0 {
        return if a == 0.0 {
            "0 %".into()
        } else {
            "— (direct 0)".into()
        };
    }
    format!("{:+.1} %", 100.0 * (a - b) / b)
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let server = PrivateServer::start(ServerConfig::default());
    let exporter = rt.block_on(Exporter::start(&server));
    let serve = Serve::start_bin(&a.innodebt, &serve_args(&server, &[]));
    let config = format!(
        "global:\n  scrape_interval: {STEP_S}s\n  scrape_timeout: 10s\nscrape_configs:\n  \
         - job_name: mysql\n    static_configs:\n      - targets: ['{}']\n  \
         - job_name: innodebt\n    static_configs:\n      - targets: ['{}']\n",
        exporter.addr(),
        serve.addr
    );
    let prom = Prometheus::start_with_config(tempfile::tempdir().expect("tempdir"), &config);
    let url = format!("http://{}", prom.addr);
    let from = |instance: &str| -> Vec<String> {
        [
            "--prometheus",
            &url,
            "--instance",
            instance,
            "--step",
            "15s",
        ]
        .map(String::from)
        .to_vec()
    };
    let direct_args = server.tcp_conn_args();

    println!(
        "\none private MariaDB, scraped every {STEP_S} s; {} runs, history piled to {} each\n",
        a.runs, a.history
    );
    println!("| run | figure | direct | serve series | off by | mysqld_exporter series | off by |");
    println!("|---|---|---|---|---|---|---|");
    for run in 1..=a.runs {
        let (load, blocker) = rt.block_on(async {
            let load = WriteLoad::paced(server.opts(), 2, 200);
            let blocker = BlockingSnapshot::open(server.opts()).await;
            (load, blocker)
        });
        common::wait::wait_until(
            Duration::from_secs(600),
            format!("history to reach {}", a.history),
            || rt.block_on(server.status_u64("Innodb_history_list_length")) >= a.history,
        );
        rt.block_on(load.stop());
        // Holding still: checkpoint age unchanged for a few seconds (the page cleaner done).
        let age = || rt.block_on(server.status_u64("Innodb_checkpoint_age"));
        let mut last = (age(), Instant::now());
        common::wait::wait_until(Duration::from_secs(300), "checkpoint age to settle", || {
            let now = age();
            if now != last.0 {
                last = (now, Instant::now());
            }
            last.1.elapsed() >= Duration::from_secs(3)
        });
        let still = now_unix();
        common::wait::wait_until(
            Duration::from_secs(3 * STEP_S),
            "a scrape of both sources after the server held still",
            || {
                ["mysql_up", "innodebt_up"]
                    .iter()
                    .all(|s| newest_scrape(&prom, s).is_some_and(|t| t > still + 1.0))
            },
        );
        let direct = look(&a, &direct_args);
        let served = look(&a, &from(&serve.addr.to_string()));
        let exported = look(&a, &from(&exporter.addr()));
        let row = |what: &str, f: &dyn Fn(&Look) -> f64| {
            println!(
                "| {run} | {what} | {:.0} | {:.0} | {} | {:.0} | {} |",
                f(&direct),
                f(&served),
                off_by(f(&served), f(&direct)),
                f(&exported),
                off_by(f(&exported), f(&direct)),
            );
        };
        row("history length", &|l| l.history);
        row("checkpoint age, bytes", &|l| l.checkpoint_age);
        let same = |l: &Look| {
            if l.verdict == direct.verdict {
                "same"
            } else {
                "differs"
            }
        };
        println!(
            "| {run} | worst verdict | {} | {} | {} | {} | {} |",
            direct.verdict,
            served.verdict,
            same(&served),
            exported.verdict,
            same(&exported)
        );
        rt.block_on(blocker.commit());
        rt.block_on(common::load::wait_for_purge(&server, 100));
    }
}
