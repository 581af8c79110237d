//! The fleet's reader of remote `innodebt serve` agents: one target's raw events (`/events`)
//! through innodebt's HTTP client ([`innodebt_http`]), so an agent behind `--web-config` is
//! read as Prometheus reads it — https checked against the web's roots or a CA file
//! (`agent_ssl_ca`), and basic auth with a password from a file or the environment (never the
//! command line, where `ps` shows it).

use std::path::PathBuf;
use std::time::Duration;

use innodebt_http::{Client, Credentials, Settings, Url, UrlProblem};
use innodebt_server::sample::SourceEvent;

/// The largest agent answer read: the first `/events` holds up to two minutes of samples
/// (a few MiB with many transactions open), later ones a poll or two.
const MAX_BODY: usize = 16 << 20;

/// How long one read may take until the fleet's `--timeout` is applied ([`Agent::with_timeout`]).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The environment variable that holds the agents' basic-auth password.
pub const PASSWORD_ENV: &str = "INNODEBT_AGENT_PASSWORD";

/// How to reach agents: a CA file for https, a basic-auth user and where its password is.
/// A `[targets.NAME]` table's `agent_*` keys win over the fleet flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    pub ssl_ca: Option<PathBuf>,
    pub user: Option<String>,
    pub password_file: Option<PathBuf>,
}

impl Access {
    /// `self`'s settings, then `defaults`' where `self` has none.
    pub fn or(&self, defaults: &Access) -> Access {
        Access {
            ssl_ca: self.ssl_ca.clone().or_else(|| defaults.ssl_ca.clone()),
            user: self.user.clone().or_else(|| defaults.user.clone()),
            password_file: self
                .password_file
                .clone()
                .or_else(|| defaults.password_file.clone()),
        }
    }
}

/// One `/events` answer: the events numbered above the cursor asked with, and the next cursor.
#[derive(Debug, serde::Deserialize)]
pub struct Batch {
    pub next: u64,
    pub events: Vec<SourceEvent>,
}

/// One agent target: where its events are, with the client and credentials to read them.
#[derive(Debug, Clone)]
pub struct Agent {
    /// The URL as configured (its `/metrics`, or `/probe?target=NAME`).
    pub url: String,
    /// The same target's `/events`, without the cursor.
    events: Url,
    client: Client,
}

impl Agent {
    /// Checks the URL and reads the CA and the password now, so a mistake is told at start.
    /// `env_password` is what [`PASSWORD_ENV`] holds (passed in: tests set no environment).
    pub fn new(url: &str, access: &Access, env_password: Option<&str>) -> Result<Agent, String> {
        let parsed = innodebt_http::url(url).map_err(|e| match e {
            innodebt_http::Error::Url {
                problem: UrlProblem::Credentials,
                ..
            } => format!("{e}: give agent_user and agent_password_file"),
            e => format!("{e} (an agent URL is innodebt serve's http[s]://HOST:PORT/metrics)"),
        })?;
        if access.ssl_ca.is_some() && parsed.scheme() != "https" {
            return Err(format!(
                "{url}: agent_ssl_ca is for https:// agents; use https:// (the agent's \
                 --web-config has tls_server_config) or drop the CA"
            ));
        }
        let credentials = match (&access.user, &access.password_file, env_password) {
            (None, None, _) => Credentials::None,
            (None, Some(f), _) => {
                return Err(format!(
                    "agent_password_file {} is set without agent_user: give the basic-auth \
                     user too (agent_user in [targets.NAME], or --agent-user)",
                    f.display()
                ));
            }
            (Some(user), Some(file), _) => Credentials::Basic {
                user: user.clone(),
                password: innodebt_http::password_file(file)
                    .map_err(|e| format!("agent_password_file {e}"))?,
            },
            (Some(user), None, Some(p)) => Credentials::Basic {
                user: user.clone(),
                password: p.to_string(),
            },
            (Some(user), None, None) => {
                return Err(format!(
                    "agent_user {user:?} has no password: put it in a file named by \
                     agent_password_file (or --agent-password-file), or in {PASSWORD_ENV}"
                ));
            }
        };
        let client = Client::new(Settings {
            ca_file: access.ssl_ca.as_deref(),
            credentials,
            timeout: DEFAULT_TIMEOUT,
            max_body: MAX_BODY,
        })
        .map_err(|e| match e {
            innodebt_http::Error::File { .. } => format!("agent_ssl_ca {e}"),
            innodebt_http::Error::Credentials(why) => {
                format!("agent_user and its password: {why}")
            }
            e => format!("{url}: {e}"),
        })?;
        Ok(Agent {
            url: url.to_string(),
            events: events_url(&parsed)?,
            client,
        })
    }

    /// The same agent with `timeout` for each read (the fleet's `--timeout`).
    pub fn with_timeout(mut self, timeout: Duration) -> Agent {
        self.client = self.client.with_timeout(timeout);
        self
    }

    /// The events numbered above `after`: one GET within the timeout, at most 16 MiB.
    pub async fn events(&self, after: u64) -> Result<Batch, String> {
        let shown = self.events.as_str();
        let mut url = self.events.clone();
        url.query_pairs_mut()
            .append_pair("after", &after.to_string());
        let reply = self
            .client
            .get(&url, "application/json")
            .await
            .map_err(|e| match e {
                innodebt_http::Error::Tls { why, .. } => format!(
                    "{shown}: TLS: {why} (checked against agent_ssl_ca, or the web's roots \
                     without it)"
                ),
                innodebt_http::Error::Connect { why, .. } => {
                    format!("{shown}: cannot connect: {why}")
                }
                e => e.to_string(),
            })?;
        match reply.status.as_u16() {
            200 => serde_json::from_slice(&reply.body).map_err(|e| {
                format!(
                    "{shown}: not innodebt serve's events ({e}): the agent URL names an \
                     innodebt serve of this version or later"
                )
            }),
            401 => Err(format!(
                "{shown}: HTTP 401: the agent wants basic auth{}: set agent_user and \
                 agent_password_file (or --agent-user with --agent-password-file or \
                 {PASSWORD_ENV}) to a user of its --web-config",
                if self.client.has_credentials() {
                    " and refused this user and password"
                } else {
                    ""
                }
            )),
            code => Err(format!("{shown}: HTTP {code}: {}", reply.first_line())),
        }
    }
}

/// The agent's `/events` for the target `agent` names: the same scheme, host and port; its
/// `/metrics` or `/probe` (under any prefix a proxy adds) become `/events`, and a `target=`
/// stays.
pub fn events_url(agent: &Url) -> Result<Url, String> {
    let mut url = agent.clone();
    let path = agent.path();
    let (prefix, page) = path.rsplit_once('/').unwrap_or(("", path));
    let target: Option<String> = agent
        .query_pairs()
        .find(|(k, _)| k == "target")
        .map(|(_, v)| v.into_owned());
    match (page, &target) {
        ("" | "metrics", _) | ("probe", Some(_)) => {}
        ("probe", None) => {
            return Err(format!(
                "{agent}: /probe needs ?target=NAME (a target of the agent's config file, or \
                 a host:port its --probe-allow allows)"
            ));
        }
        _ => {
            return Err(format!(
                "{agent}: an agent URL is innodebt serve's /metrics, or its \
                 /probe?target=NAME for one of its targets"
            ));
        }
    }
    url.set_path(&format!("{prefix}/events"));
    url.set_query(None);
    if let Some(t) = target {
        url.query_pairs_mut().append_pair("target", &t);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(url: &str) -> Result<String, String> {
        events_url(&innodebt_http::url(url).unwrap()).map(|u| u.to_string())
    }

    #[test]
    fn agent_urls() {
        assert_eq!(
            events("http://db1:9385/probe?target=x").unwrap(),
            "http://db1:9385/events?target=x"
        );
        assert_eq!(
            events("http://db1:9385/metrics").unwrap(),
            "http://db1:9385/events"
        );
        assert_eq!(events("http://db1").unwrap(), "http://db1/events");
        assert_eq!(
            events("https://[::1]:9385/metrics").unwrap(),
            "https://[::1]:9385/events"
        );
        assert_eq!(
            events("https://proxy/db1/probe?target=a%20b&x=1").unwrap(),
            "https://proxy/db1/events?target=a+b"
        );
        assert!(
            events("http://db1:9385/probe")
                .unwrap_err()
                .contains("target")
        );
        assert!(
            events("http://db1:9385/other")
                .unwrap_err()
                .contains("/metrics")
        );
        let new = |url: &str| Agent::new(url, &Access::default(), None);
        assert!(new("ftp://db1").unwrap_err().contains("http://"));
        assert!(new("https://u:p@db1/").unwrap_err().contains("agent_user"));
        assert!(new("http://db1:x/").is_err());
        assert!(new("http://db1:9385/probe").is_err());
    }

    #[test]
    fn credentials_are_complete_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret\n").unwrap();
        let user = |u: &str| Some(u.to_string());
        let ok = Agent::new(
            "http://db1:9385/metrics",
            &Access {
                user: user("prom"),
                password_file: Some(file.clone()),
                ..Access::default()
            },
            None,
        )
        .unwrap();
        assert!(ok.client.has_credentials());
        assert!(!format!("{ok:?}").contains("s3cret"), "{ok:?}");
        let from_env = Agent::new(
            "http://db1",
            &Access {
                user: user("prom"),
                ..Access::default()
            },
            Some("envpw"),
        )
        .unwrap();
        assert!(from_env.client.has_credentials());
        let e = Agent::new(
            "http://db1",
            &Access {
                user: user("prom"),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(
            e.contains(PASSWORD_ENV) && e.contains("agent_password_file"),
            "{e}"
        );
        let e = Agent::new(
            "http://db1",
            &Access {
                password_file: Some(file.clone()),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("without agent_user"), "{e}");
        let e = Agent::new(
            "http://db1",
            &Access {
                ssl_ca: Some(file.clone()),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("https://"), "{e}");
        let e = Agent::new(
            "https://db1",
            &Access {
                ssl_ca: Some(file),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(
            e.contains("agent_ssl_ca") && e.contains("no certificate"),
            "{e}"
        );
        let e = Agent::new(
            "https://db1",
            &Access {
                ssl_ca: Some(dir.path().join("missing.pem")),
                ..Access::default()
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("missing.pem: cannot read"), "{e}");
        let e = Agent::new(
            "https://db1",
            &Access {
                user: user("a:b"),
                ..Access::default()
            },
            Some("pw"),
        )
        .unwrap_err();
        assert!(e.contains("':'"), "{e}");
    }
}
