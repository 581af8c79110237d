//! Resolving the connection: flags, then option files (the global ones, `~/.my.cnf`, then
//! `~/.mylogin.cnf` with its `--login-path` group), then environment (`MYSQL_PWD`,
//! `MYSQL_HOST`, `MYSQL_TCP_PORT`, `MYSQL_UNIX_PORT`, read by clap), then built-in defaults —
//! the precedence of the mysql client (`mysql_real_connect` reads a variable only when no
//! option gave the value) — into [`ConnectOptions`], with the files read and what was skipped.

use std::ffi::OsStr;
use std::io;
use std::path::PathBuf;

use thiserror::Error;

use super::args::MysqlEnv;
use super::args::{Cli, ConnectionArgs};
use super::values::parse_port;
use innodebt_poller::connect::{ConnectOptions, Endpoint, Secret, SslMode};
use innodebt_server::mycnf::{self, MyCnfError, Setting};

/// Where the mysql client looks for the server's socket when nothing names one.
pub const SOCKET_PATHS: &[&str] = &[
    "/run/mysqld/mysqld.sock",
    "/var/run/mysqld/mysqld.sock",
    "/tmp/mysql.sock",
    "/var/lib/mysql/mysql.sock",
];

/// The default MySQL TCP port.
pub const DEFAULT_PORT: u16 = 3306;

/// The outcome of resolving the connection: options plus things worth telling the user.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub options: ConnectOptions,
    /// Option files that were read, in order.
    pub files_read: Vec<PathBuf>,
    /// E.g. a default option file that could not be read and was skipped.
    pub warnings: Vec<String>,
}

/// Errors found while resolving the connection options.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error(transparent)]
    OptionFile(#[from] MyCnfError),
    #[error("{key} = {value:?} in option file {origin} is not valid: {reason}; fix that line")]
    BadSetting {
        key: &'static str,
        value: String,
        origin: mycnf::Origin,
        reason: String,
    },
    #[error(
        "`{key}` in option file {origin} needs a value: write `{key} = ...` or remove the line"
    )]
    MissingValue {
        key: &'static str,
        origin: mycnf::Origin,
    },
    #[error("environment variable {name}={value:?} is not valid: {reason}; fix or unset it")]
    BadEnv {
        name: &'static str,
        value: String,
        reason: String,
    },
    #[error("could not tell which user to connect as: give -u USER")]
    NoUser,
    #[error(
        "cannot read the password from the terminal: {0}; give it with -pPASSWORD, \
         in ~/.my.cnf ([client] password=...), with --login-path (mysql_config_editor), \
         or in MYSQL_PWD"
    )]
    Prompt(#[source] io::Error),
}

/// What the process environment contributes; a value, so tests can build their own.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub home: Option<PathBuf>,
    pub os_user: Option<String>,
    pub mysql_pwd: Option<Secret>,
    pub mysql_host: Option<String>,
    pub mysql_tcp_port: Option<String>,
    pub mysql_unix_port: Option<String>,
    /// Global option files, read before the user's.
    pub system_files: Vec<PathBuf>,
    /// Sockets to try, in order, when nothing names one.
    pub socket_candidates: Vec<PathBuf>,
}

impl Environment {
    /// This process's home, user, files and sockets, with the MYSQL_* values clap read
    /// (`from_env`).
    pub fn from_process(from_env: &MysqlEnv) -> Self {
        Self {
            home: dirs::home_dir(),
            os_user: os_user(),
            mysql_pwd: from_env.pwd.clone(),
            mysql_host: from_env.host.clone(),
            mysql_tcp_port: from_env.tcp_port.map(|p| p.to_string()),
            mysql_unix_port: from_env
                .unix_port
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            system_files: mycnf::SYSTEM_FILES.iter().map(PathBuf::from).collect(),
            socket_candidates: SOCKET_PATHS.iter().map(PathBuf::from).collect(),
        }
    }
}

/// The user name the mysql client would use: `root` for euid 0, else the passwd entry,
/// else `$USER`/`$LOGNAME`.
fn os_user() -> Option<String> {
    let euid = nix::unistd::geteuid();
    if euid.is_root() {
        return Some("root".to_owned());
    }
    // getpwuid_r(3), through nix.
    nix::unistd::User::from_uid(euid)
        .ok()
        .flatten()
        .map(|u| u.name)
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("LOGNAME").ok())
        .filter(|u| !u.is_empty())
}

/// Asks for the password on the controlling terminal without echo.
pub fn prompt_on_tty(prompt: &str) -> io::Result<String> {
    rpassword::prompt_password(prompt)
}

impl Cli {
    /// `--no-color`, or `NO_COLOR` set to anything but the empty string.
    pub fn no_color(&self) -> bool {
        no_color(
            self.options.no_color,
            std::env::var_os("NO_COLOR").as_deref(),
        )
    }
}

/// Whether colours are off, given the flag and the value of `NO_COLOR` (see no-color.org).
pub fn no_color(flag: bool, no_color_env: Option<&OsStr>) -> bool {
    flag || no_color_env.is_some_and(|v| !v.is_empty())
}

impl ConnectionArgs {
    /// Resolves these flags against option files and `env`. `prompt` is called (with the
    /// prompt text) only when the password has to be typed.
    pub fn resolve(
        &self,
        env: &Environment,
        prompt: &mut dyn FnMut(&str) -> io::Result<String>,
    ) -> Result<Resolved, ConfigError> {
        let files = mycnf::files_to_read(
            &env.system_files,
            env.home.as_deref(),
            self.defaults_file.as_deref(),
            self.defaults_extra_file.as_deref(),
            self.no_defaults,
        );
        let mut loaded = mycnf::load(&files)?;
        // Read whatever the other files say, as the mysql client does (--no-defaults too).
        let login_file = self
            .login_file
            .clone()
            .or_else(|| env.home.as_ref().map(|h| h.join(".mylogin.cnf")));
        if let Some(path) = &login_file {
            mycnf::load_login_file(&mut loaded, path, self.login_path.as_deref())?;
        }
        let file = &loaded.settings;

        let host = match &self.host {
            Some(h) => Some(h.clone()),
            None => setting_value("host", &file.host)?.or_else(|| env.mysql_host.clone()),
        }
        .filter(|h| !h.is_empty());

        let port = match self.port {
            Some(p) => p,
            None => match &file.port {
                Some(s) => parse_port_setting(s)?,
                None => match &env.mysql_tcp_port {
                    Some(v) => parse_port(v).map_err(|reason| ConfigError::BadEnv {
                        name: "MYSQL_TCP_PORT",
                        value: v.clone(),
                        reason,
                    })?,
                    None => DEFAULT_PORT,
                },
            },
        };

        let socket: Option<PathBuf> = match &self.socket {
            Some(s) => Some(s.clone()),
            None => setting_value("socket", &file.socket)?
                .or_else(|| env.mysql_unix_port.clone())
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        };

        let local = host.as_deref().is_none_or(|h| h == "localhost");
        let endpoint = if let (false, Some(host)) = (local, &host) {
            Endpoint::Tcp {
                host: host.clone(),
                port,
            }
        } else if self.port.is_some() && self.socket.is_none() {
            // A port typed on the command line means TCP, as the MariaDB client does.
            Endpoint::Tcp {
                host: "127.0.0.1".to_owned(),
                port,
            }
        } else if let Some(socket) = socket {
            Endpoint::Socket(socket)
        } else if let Some(found) = env.socket_candidates.iter().find(|p| p.exists()) {
            Endpoint::Socket(found.clone())
        } else {
            Endpoint::Tcp {
                host: "127.0.0.1".to_owned(),
                port,
            }
        };

        let user = match &self.user {
            Some(u) => u.clone(),
            None => setting_value("user", &file.user)?
                .or_else(|| env.os_user.clone())
                .ok_or(ConfigError::NoUser)?,
        };

        let password = if let Some(p) = &self.password {
            Some(p.clone())
        } else if self.password_prompt {
            Some(ask(prompt)?)
        } else if let Some(setting) = &file.password {
            match &setting.value {
                Some(v) => Some(Secret::new(v.clone())),
                None => Some(ask(prompt)?),
            }
        } else {
            env.mysql_pwd.clone()
        }
        // An empty password is no password ("using password: NO").
        .filter(|p| !p.expose().is_empty());

        let ssl_ca = match &self.ssl_ca {
            Some(p) => Some(p.clone()),
            None => setting_value("ssl-ca", &file.ssl_ca)?
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        };
        let file_path = |key, flag: &Option<PathBuf>, setting: &Option<Setting>| match flag {
            Some(p) => Ok(Some(p.clone())),
            None => {
                setting_value(key, setting).map(|v| v.filter(|s| !s.is_empty()).map(PathBuf::from))
            }
        };
        let ssl_cert = file_path("ssl-cert", &self.ssl_cert, &file.ssl_cert)?;
        let ssl_key = file_path("ssl-key", &self.ssl_key, &file.ssl_key)?;
        let ssl_mode = match self.ssl_mode {
            Some(m) => m,
            None => match &file.ssl_mode {
                Some(s) => {
                    let value = required_value("ssl-mode", s)?;
                    value
                        .parse::<SslMode>()
                        .map_err(|reason| ConfigError::BadSetting {
                            key: "ssl-mode",
                            value: value.to_owned(),
                            origin: s.origin.clone(),
                            reason,
                        })?
                }
                // A CA given without a mode asks for verification, as in the mysql client.
                None if ssl_ca.is_some() => SslMode::VerifyCa,
                None => SslMode::Preferred,
            },
        };

        Ok(Resolved {
            options: ConnectOptions {
                endpoint,
                user,
                password,
                database: self.database.clone(),
                ssl_mode,
                ssl_ca,
                // One file may hold both, as the mysql client (vio) takes it.
                ssl_cert: ssl_cert.clone().or_else(|| ssl_key.clone()),
                ssl_key: ssl_key.or(ssl_cert),
                connect_timeout: self.connect_timeout,
            },
            files_read: loaded.read,
            warnings: loaded.warnings,
        })
    }
}

fn ask(prompt: &mut dyn FnMut(&str) -> io::Result<String>) -> Result<Secret, ConfigError> {
    prompt("Enter password: ")
        .map(Secret::new)
        .map_err(ConfigError::Prompt)
}

fn required_value<'a>(key: &'static str, setting: &'a Setting) -> Result<&'a str, ConfigError> {
    setting
        .value
        .as_deref()
        .ok_or_else(|| ConfigError::MissingValue {
            key,
            origin: setting.origin.clone(),
        })
}

fn setting_value(
    key: &'static str,
    setting: &Option<Setting>,
) -> Result<Option<String>, ConfigError> {
    setting
        .as_ref()
        .map(|s| required_value(key, s).map(str::to_owned))
        .transpose()
}

fn parse_port_setting(setting: &Setting) -> Result<u16, ConfigError> {
    let value = required_value("port", setting)?;
    parse_port(value).map_err(|reason| ConfigError::BadSetting {
        key: "port",
        value: value.to_owned(),
        origin: setting.origin.clone(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_rules() {
        assert!(!no_color(false, None));
        assert!(!no_color(false, Some(OsStr::new(""))));
        assert!(no_color(false, Some(OsStr::new("0"))));
        assert!(no_color(true, None));
    }
}
