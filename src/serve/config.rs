//! The servers file shared by `innodebt serve` (`/probe?target=NAME`) and `innodebt fleet`:
//! TOML, one `[targets.NAME]` table per server with its own connection settings (a
//! password file or an option file's `[client]` group instead of a password in the file,
//! ideally), a group and tags for the fleet view, or the URL of a remote `innodebt serve`
//! agent. Settings a target leaves out come from innodebt's own connection (flags, option
//! files, environment), as mysqld_exporter does for its `[client.NAME]` sections.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::cli::{ConnectOptions, ConnectionArgs, DEFAULT_PORT, Endpoint, Environment, Secret};

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub serve: ServeSection,
    #[serde(default)]
    pub targets: BTreeMap<String, TargetConfig>,
}

/// `[serve]`: defaults for `innodebt serve` (its flags win).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServeSection {
    pub listen: Option<String>,
    pub record_dir: Option<PathBuf>,
    pub retain: Option<String>,
    pub max_disk: Option<String>,
    /// Poll the server of innodebt's own connection for `/metrics` (default true).
    pub metrics_target: Option<bool>,
    /// Host patterns `/probe?target=` may reach beyond `[targets.*]` (`--probe-allow`).
    pub probe_allow: Option<Vec<String>>,
}

/// `[targets.NAME]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TargetConfig {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub socket: Option<PathBuf>,
    pub user: Option<String>,
    /// Prefer `password_file` or `defaults_file`: this file is then not a secret.
    pub password: Option<String>,
    /// A file holding only the password (a trailing newline is ignored).
    pub password_file: Option<PathBuf>,
    /// An option file whose `[client]` group gives host, port, user, password, socket, TLS.
    pub defaults_file: Option<PathBuf>,
    pub ssl_mode: Option<String>,
    pub ssl_ca: Option<PathBuf>,
    /// Fleet view: the group this server is listed under.
    pub group: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Fleet view: read this server from a remote `innodebt serve` agent
    /// (`http://host:port/metrics` or `.../probe?target=NAME`) instead of connecting.
    pub agent: Option<String>,
    /// Fleet view: an https agent's certificate is checked against this CA (PEM).
    pub agent_ssl_ca: Option<PathBuf>,
    /// Fleet view: the basic-auth user of the agent's `--web-config`.
    pub agent_user: Option<String>,
    /// Fleet view: a file holding only that user's password.
    pub agent_password_file: Option<PathBuf>,
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{path}: cannot read: {source} (check the path and its permissions)")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not valid: {message}")]
    Syntax { path: String, message: String },
    #[error("{path}: target {name:?}: {message}")]
    Target {
        path: String,
        name: String,
        message: String,
    },
}

impl ConfigFile {
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
        let file: ConfigFile = toml::from_str(&text).map_err(|e| ConfigError::Syntax {
            path: shown.clone(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        for (name, spec) in &file.targets {
            spec.check().map_err(|message| ConfigError::Target {
                path: shown.clone(),
                name: name.clone(),
                message,
            })?;
            check_name(name).map_err(|message| ConfigError::Target {
                path: shown.clone(),
                name: name.clone(),
                message,
            })?;
        }
        Ok(file)
    }
}

/// Target names become directory names and URL parameters: keep them plain.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']'));
    if ok {
        Ok(())
    } else {
        Err(
            "a target name is letters, digits, '.', '-', '_' (and host:port), at most 128 \
             characters, not starting with '.'"
                .into(),
        )
    }
}

impl TargetConfig {
    fn check(&self) -> Result<(), String> {
        let secrets = [
            self.password.is_some(),
            self.password_file.is_some(),
            self.defaults_file.is_some(),
        ];
        if secrets.iter().filter(|s| **s).count() > 1 {
            return Err("give only one of password, password_file and defaults_file".to_string());
        }
        if let Some(mode) = &self.ssl_mode {
            mode.parse::<crate::cli::SslMode>()?;
        }
        if let Some(a) = &self.agent
            && !((a.starts_with("http://") && a.len() > 7)
                || (a.starts_with("https://") && a.len() > 8))
        {
            return Err(format!(
                "agent = {a:?}: give the http:// or https:// URL of an innodebt serve \
                 endpoint, e.g. http://db1:9385/metrics"
            ));
        }
        let agent_keys = [
            self.agent_ssl_ca.is_some(),
            self.agent_user.is_some(),
            self.agent_password_file.is_some(),
        ];
        if self.agent.is_none() && agent_keys.iter().any(|k| *k) {
            return Err(
                "agent_ssl_ca, agent_user and agent_password_file are for an agent target: \
                 add agent = URL, or use ssl_ca, user and password_file for a server"
                    .into(),
            );
        }
        if self.agent.is_some() && (self.password.is_some() || self.password_file.is_some()) {
            return Err("an agent target connects to no server: remove its password".into());
        }
        Ok(())
    }

    /// The connection for this target: its own settings over `base` (innodebt's own).
    pub fn connect_options(
        &self,
        name: &str,
        base: &ConnectOptions,
    ) -> Result<ConnectOptions, String> {
        let mut opts = match &self.defaults_file {
            Some(file) => {
                let args = ConnectionArgs {
                    defaults_file: Some(file.clone()),
                    connect_timeout: base.connect_timeout,
                    ..ConnectionArgs::default()
                };
                let env = Environment {
                    os_user: Some(base.user.clone()),
                    ..Environment::default()
                };
                let mut no_prompt = |_: &str| {
                    Err(std::io::Error::other(
                        "a service cannot prompt; put password = ... in the file",
                    ))
                };
                args.resolve(&env, &mut no_prompt)
                    .map_err(|e| e.to_string())?
                    .options
            }
            None => base.clone(),
        };
        if let Some(socket) = &self.socket {
            opts.endpoint = Endpoint::Socket(socket.clone());
        } else if let Some(host) = &self.host {
            opts.endpoint = Endpoint::Tcp {
                host: host.clone(),
                port: self.port.unwrap_or(DEFAULT_PORT),
            };
        } else if self.defaults_file.is_none() && self.agent.is_none() {
            // A name that is a host[:port] connects there, as an unknown target would.
            opts.endpoint = parse_host_port(name)?;
        }
        if let Some(u) = &self.user {
            opts.user = u.clone();
        }
        if let Some(p) = &self.password {
            opts.password = Some(Secret::new(p.clone())).filter(|p| !p.expose().is_empty());
        }
        if let Some(file) = &self.password_file {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("password_file {}: cannot read: {e}", file.display()))?;
            let pw = text.strip_suffix('\n').unwrap_or(&text);
            let pw = pw.strip_suffix('\r').unwrap_or(pw);
            opts.password = Some(Secret::new(pw)).filter(|p| !p.expose().is_empty());
        }
        if let Some(mode) = &self.ssl_mode {
            opts.ssl_mode = mode.parse()?;
        }
        if let Some(ca) = &self.ssl_ca {
            opts.ssl_ca = Some(ca.clone());
        }
        Ok(opts)
    }
}

/// `host`, `host:port` or `[v6]:port` (an unknown `/probe` target, or a fleet `-h`).
pub fn parse_host_port(s: &str) -> Result<Endpoint, String> {
    let bad = || {
        format!(
            "{s:?} is not a host[:port]: give a host name or IP with an optional port \
             (db1, db1:3307, [::1]:3306), or a target named in the config file"
        )
    };
    if s.contains('@') || s.contains('/') {
        return Err(format!(
            "{s:?}: credentials and paths don't go in a target: name the target in the \
             config file ([targets.NAME] with user and password_file)"
        ));
    }
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, after) = rest.split_once(']').ok_or_else(bad)?;
        match after.strip_prefix(':') {
            Some(p) => (h, Some(p)),
            None if after.is_empty() => (h, None),
            None => return Err(bad()),
        }
    } else if s.matches(':').count() > 1 {
        (s, None) // a bare IPv6 address
    } else {
        match s.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        }
    };
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(bad)?,
        None => DEFAULT_PORT,
    };
    let host_ok = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
    if !host_ok {
        return Err(bad());
    }
    Ok(Endpoint::Tcp {
        host: host.to_string(),
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_ports() {
        let tcp = |h: &str, p| Endpoint::Tcp {
            host: h.into(),
            port: p,
        };
        assert_eq!(parse_host_port("db1"), Ok(tcp("db1", 3306)));
        assert_eq!(parse_host_port("db1:3307"), Ok(tcp("db1", 3307)));
        assert_eq!(parse_host_port("[::1]:3308"), Ok(tcp("::1", 3308)));
        assert_eq!(parse_host_port("::1"), Ok(tcp("::1", 3306)));
        for bad in [
            "",
            "db1:0",
            "db1:x",
            "db 1",
            "root:pw@db1",
            "db1:3306/x",
            "[::1",
        ] {
            assert!(parse_host_port(bad).is_err(), "{bad}");
        }
        assert!(
            parse_host_port("u:p@db1")
                .unwrap_err()
                .contains("credentials and paths don't go in a target")
        );
    }

    #[test]
    fn a_malformed_file_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.toml");
        std::fs::write(&path, "[targets.db1]\nhots = \"x\"\n").unwrap();
        let e = ConfigFile::load(&path).unwrap_err().to_string();
        assert!(e.contains("t.toml: not valid") && e.contains("hots"), "{e}");
        assert!(e.contains("line 2"), "{e}");
        std::fs::write(
            &path,
            "[targets.db1]\npassword = \"a\"\npassword_file = \"/x\"\n",
        )
        .unwrap();
        let e = ConfigFile::load(&path).unwrap_err().to_string();
        assert!(e.contains("target \"db1\": give only one of"), "{e}");
    }

    #[test]
    fn a_target_inherits_what_it_leaves_out() {
        let dir = tempfile::tempdir().unwrap();
        let pw = dir.path().join("pw");
        std::fs::write(&pw, "s3cret\n").unwrap();
        let mut base = ConnectOptions::new(Endpoint::Tcp {
            host: "127.0.0.1".into(),
            port: 3306,
        });
        base.user = "monitor".into();
        let spec = TargetConfig {
            host: Some("db2".into()),
            port: Some(3307),
            password_file: Some(pw),
            ..TargetConfig::default()
        };
        let o = spec.connect_options("db2", &base).unwrap();
        assert_eq!(o.label(), "db2:3307");
        assert_eq!(o.user, "monitor");
        assert_eq!(o.password.as_ref().map(Secret::expose), Some("s3cret"));
        let named = TargetConfig::default()
            .connect_options("db3:3310", &base)
            .unwrap();
        assert_eq!(named.label(), "db3:3310");
    }
}
