//! `innodebt serve` resolved before it starts: its flags over the config file's `[serve]`, the
//! flight recorder's budget, the triggered capture's plan, the named targets' connections —
//! and, once it runs, the listening socket; each with the fix in its error.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::allow::ProbeAllow;
use super::config::ConfigFile;
use super::recorder::Budget;
use super::web_config::{self, Web};
use super::{DEFAULT_LISTEN, DEFAULT_MAX_DISK, DEFAULT_RETAIN};
use crate::cli::{ConnectOptions, ServeArgs, parse_size, parse_timeout};
use innodebt_poller::live::PollerConfig;

/// What `innodebt serve` runs with.
pub struct Settings {
    /// innodebt's own connection: `/metrics`'s server, and the credentials of unnamed targets.
    pub own: ConnectOptions,
    pub listen: String,
    /// The config file's targets polled directly, with their connections.
    pub targets: Vec<(String, ConnectOptions)>,
    /// `--record-dir`: the flight recorder's directory and its limits.
    pub record: Option<Arc<Budget>>,
    /// `--trigger` with `--incident-dir`: what every target watches for.
    pub incidents: Option<IncidentPlan>,
    /// Unnamed targets `/probe` may reach.
    pub allow: ProbeAllow,
    /// `--web-config`: TLS and basic auth.
    pub web: Web,
    pub scrape_timeout: Duration,
    /// Only `/probe`: the server of the connection flags is not polled for `/metrics`.
    pub probe_only: bool,
}

impl Settings {
    /// The flags over the config file's `[serve]`; `own` resolves innodebt's own connection,
    /// asked last (after every check that needs no password).
    pub fn resolve(
        args: &ServeArgs,
        poll: &PollerConfig,
        record_queries: bool,
        own: impl FnOnce() -> Result<ConnectOptions, String>,
    ) -> Result<Settings, String> {
        let file = match &args.config {
            Some(p) => ConfigFile::load(p).map_err(|e| e.to_string())?,
            None => ConfigFile::default(),
        };
        let allow = ProbeAllow::parse(if args.probe_allow.is_empty() {
            file.serve.probe_allow.as_deref().unwrap_or_default()
        } else {
            &args.probe_allow
        })?;
        let web = match &args.web_config {
            Some(p) => web_config::load(p)?,
            None => Web::default(),
        };
        let listen = args
            .listen
            .clone()
            .or(file.serve.listen.clone())
            .unwrap_or_else(|| DEFAULT_LISTEN.to_string());
        let record = record_budget(args, &file)?;
        let incidents = incident_plan(args, poll, record_queries)?;
        let own = own()?;
        let targets = file
            .targets
            .iter()
            .filter(|(_, s)| s.agent.is_none())
            .map(|(name, spec)| match spec.connect_options(name, &own) {
                Ok(opts) => Ok((name.clone(), opts)),
                Err(e) => Err(format!("target {name:?}: {e}")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Settings {
            own,
            listen,
            targets,
            record,
            incidents,
            allow,
            web,
            scrape_timeout: args.scrape_timeout,
            probe_only: args.probe_only || file.serve.metrics_target == Some(false),
        })
    }
}

/// Triggered capture under `serve`: the same for every target, files in `DIR/TARGET/`.
#[derive(Clone)]
pub struct IncidentPlan {
    pub triggers: Vec<crate::trigger::Trigger>,
    pub opts: crate::trigger::files::IncidentOptions,
}

/// `--trigger` with `--incident-dir` (each needs the other).
fn incident_plan(
    args: &ServeArgs,
    poll: &PollerConfig,
    record_queries: bool,
) -> Result<Option<IncidentPlan>, String> {
    let Some((triggers, watch)) = crate::trigger::from_args(&args.trigger)? else {
        return match (&args.incident_dir, args.incident_max_disk) {
            (Some(_), _) => Err("--incident-dir goes with --trigger KIND (it is where incident files go); add --trigger, e.g. --trigger blocked_by_read_view".into()),
            (None, Some(_)) => Err("--incident-max-disk goes with --trigger KIND and --incident-dir DIR".into()),
            (None, None) => Ok(None),
        };
    };
    let Some(dir) = args.incident_dir.clone() else {
        return Err(
            "--trigger under serve writes one directory per target: add --incident-dir DIR".into(),
        );
    };
    Ok(Some(IncidentPlan {
        triggers,
        opts: crate::trigger::files::IncidentOptions {
            // --incident-max-disk bounds every target's files together.
            budget: Budget::new(
                dir.clone(),
                None,
                args.incident_max_disk
                    .unwrap_or(crate::trigger::DEFAULT_MAX_DISK),
            ),
            dir,
            watch,
            exec: args.trigger.exec.clone(),
            exec_timeout: args
                .trigger
                .exec_timeout
                .unwrap_or(crate::trigger::DEFAULT_EXEC_TIMEOUT),
            keep_queries: record_queries,
            interval_ms: u64::try_from(poll.interval.as_millis()).ok(),
            target: None,
        },
    }))
}

fn record_budget(args: &ServeArgs, file: &ConfigFile) -> Result<Option<Arc<Budget>>, String> {
    let Some(dir) = args.record_dir.clone().or(file.serve.record_dir.clone()) else {
        if args.retain.is_some() || args.max_disk.is_some() {
            return Err("--retain and --max-disk go with --record-dir DIR".into());
        }
        return Ok(None);
    };
    let in_file = |key: &str, v: &Option<String>, parse: fn(&str) -> Result<u64, String>| {
        v.as_deref()
            .map(parse)
            .transpose()
            .map_err(|e| format!("[serve] {key} in the config file: {e}"))
    };
    let retain = match args.retain {
        Some(d) => d,
        None => in_file("retain", &file.serve.retain, |s| {
            parse_timeout(s).map(|d| d.as_secs())
        })?
        .map(Duration::from_secs)
        .unwrap_or(DEFAULT_RETAIN),
    };
    let max_disk = match args.max_disk {
        Some(m) => m,
        None => in_file("max_disk", &file.serve.max_disk, parse_size)?.unwrap_or(DEFAULT_MAX_DISK),
    };
    Ok(Some(Budget::new(dir, Some(retain), max_disk)))
}

/// Binds, with the fix in the message when the port is taken or privileged.
pub(super) async fn bind(listen: &str) -> Result<TcpListener, String> {
    let addrs: Vec<std::net::SocketAddr> = match tokio::net::lookup_host(listen).await {
        Ok(a) => a.collect(),
        Err(e) => {
            return Err(format!(
                "--listen {listen:?}: not an address: {e}; give ADDR:PORT, e.g. 127.0.0.1:9385 or 0.0.0.0:9385"
            ));
        }
    };
    let Some(addr) = addrs.first() else {
        return Err(format!(
            "--listen {listen:?}: the name resolves to no address"
        ));
    };
    listen_on(*addr).map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "cannot listen on {addr}: the port is already in use (another innodebt serve or an exporter?); \
             stop it or choose another port with --listen"
        ),
        std::io::ErrorKind::PermissionDenied => format!(
            "cannot listen on {addr}: permission denied (ports below 1024 need root or \
             CAP_NET_BIND_SERVICE); choose a port above 1024 with --listen"
        ),
        _ => format!("cannot listen on {addr}: {e}"),
    })
}

/// Connections the kernel may hold for `accept` (it clamps this to `net.core.somaxconn`, as
/// Go's listeners and so the other exporters get). tokio's default of 1,024 is less than a
/// fleet's burst of scrapers plus a slowloris's reconnects; a full queue drops the SYN, and
/// the scraper waits a second for its resend.
const ACCEPT_QUEUE: u32 = 4096;

fn listen_on(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As std's and tokio's own `bind`: a restarted exporter gets its port back at once.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(ACCEPT_QUEUE)
}
