//! Private, throw-away MariaDB servers: finding the binaries, the datadir template
//! `mariadb-install-db` builds once, and [`PrivateServer`] with its own temp dir, datadir,
//! unix socket, free TCP port and error log. Never the shared server.
//!
//! A missing MariaDB binary is a test failure (with the `apt-get` hint), never a silent skip.
//!
//! The datadir made by `mariadb-install-db` is built once, kept as a template
//! under Cargo's per-target temp dir (keyed by the server version and the
//! install arguments), and copied for each server: the copy takes a few tens
//! of milliseconds where `mariadb-install-db` took about 4 s on the lab VM, so
//! a server is ready about 0.2-0.3 s after `start` once the template exists.

use std::fs;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{OnceLock, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, Row};

/// Directories searched (after `PATH`) for the MariaDB binaries.
const SEARCH_DIRS: &[&str] = &[
    "/usr/sbin",
    "/usr/bin",
    "/usr/local/mysql/bin",
    "/usr/local/mysql/scripts",
];
const SERVER_NAMES: &[&str] = &["mariadbd", "mysqld"];
const INSTALL_NAMES: &[&str] = &["mariadb-install-db", "mysql_install_db"];

/// Redo log size of the template datadir (and the [`ServerConfig`] default).
const TEMPLATE_LOG_FILE_SIZE: &str = "16M";

/// `innodebt CONN --no-defaults --once --format json --interval 1s EXTRA`, parsed.
pub fn once_json(conn: &[String], extra: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(innodebt_bin())
        .args(conn)
        .args([
            "--no-defaults",
            "--once",
            "--format",
            "json",
            "--interval",
            "1s",
        ])
        .args(extra)
        .output()
        .expect("run innodebt");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "innodebt --once failed: {}\nstdout: {stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The `innodebt` binary built by Cargo for this test run.
pub fn innodebt_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_innodebt"))
}

// ---------------------------------------------------------------------------
// Binaries
// ---------------------------------------------------------------------------

/// Finds the first of `names` on `PATH`, then in the usual install directories.
/// The error names the binary and says how to install it.
pub fn find_binary(names: &[&str]) -> Result<PathBuf, String> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(SEARCH_DIRS.iter().map(PathBuf::from));
    for name in names {
        for dir in &dirs {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
    }
    Err(format!(
        "MariaDB binary `{}` not found (also tried {:?}) on PATH or in {:?}; \
         the integration tests need a local MariaDB server: \
         `apt-get install mariadb-server`",
        names.first().copied().unwrap_or("?"),
        names.get(1..).unwrap_or_default(),
        SEARCH_DIRS,
    ))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The server and install binaries and the server's `--version` line.
#[derive(Debug, Clone)]
pub struct Binaries {
    pub server: PathBuf,
    pub install_db: PathBuf,
    pub version: String,
}

/// Looks the binaries up once per test binary; panics with a clear message if
/// one is missing or is not MariaDB.
pub fn binaries() -> &'static Binaries {
    static BINS: OnceLock<Result<Binaries, String>> = OnceLock::new();
    let found = BINS.get_or_init(|| {
        let server = find_binary(SERVER_NAMES)?;
        let install_db = find_binary(INSTALL_NAMES)?;
        let out = Command::new(&server)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run `{} --version`: {e}", server.display()))?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !version.contains("MariaDB") {
            return Err(format!(
                "`{}` is not MariaDB ({version:?}); the harness needs MariaDB: \
                 `apt-get install mariadb-server`",
                server.display()
            ));
        }
        Ok(Binaries {
            server,
            install_db,
            version,
        })
    });
    match found {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    }
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

// ---------------------------------------------------------------------------
// Datadir template
// ---------------------------------------------------------------------------

fn install_args(datadir: &Path) -> Vec<String> {
    let mut args = vec![
        "--no-defaults".to_string(),
        format!("--datadir={}", datadir.display()),
        "--auth-root-authentication-method=normal".to_string(),
        "--skip-test-db".to_string(),
        "--skip-name-resolve".to_string(),
        format!("--innodb-log-file-size={TEMPLATE_LOG_FILE_SIZE}"),
        "--innodb-buffer-pool-size=32M".to_string(),
    ];
    if running_as_root() {
        args.push("--user=root".to_string());
    }
    args
}

/// FNV-1a: a hash that stays the same across runs and toolchains.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The installed (never started) datadir that servers copy. Built at most once
/// per test binary; reused across runs while the server version is the same.
fn datadir_template() -> &'static Path {
    static TEMPLATE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match TEMPLATE.get_or_init(build_template) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn build_template() -> Result<PathBuf, String> {
    let bins = binaries();
    let key_args = install_args(Path::new("")).join(" ");
    let key = fnv1a(&[&bins.version, &bins.install_db.to_string_lossy(), &key_args]);
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = base.join(format!("innodebt-datadir-{key:016x}"));
    if dir.join("mysql").is_dir() {
        return Ok(dir);
    }
    fs::create_dir_all(&base).map_err(|e| format!("create {}: {e}", base.display()))?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = base.join(format!(
        "innodebt-datadir-{key:016x}.tmp-{}-{nanos}",
        std::process::id()
    ));
    let out = Command::new(&bins.install_db)
        .args(install_args(&tmp))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bins.install_db.display()))?;
    if !out.status.success() {
        let _ = fs::remove_dir_all(&tmp);
        return Err(format!(
            "{} failed ({}):\n{}\n{}",
            bins.install_db.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // Atomic publish: a concurrent test binary may have won the race.
    match fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        Err(_) if dir.join("mysql").is_dir() => {
            let _ = fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => Err(format!(
            "cannot move {} to {}: {e}",
            tmp.display(),
            dir.display()
        )),
    }
}

fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Process spawning
// ---------------------------------------------------------------------------

type SpawnRequest = (Command, mpsc::Sender<io::Result<Child>>);

/// Spawns `cmd` so that it dies with the test process (`PR_SET_PDEATHSIG`),
/// even if the test binary is killed before `Drop` runs. The death signal
/// fires when the *thread* that forked exits, so all servers are forked from
/// one thread that lives as long as the process.
fn spawn_tied_to_process(mut cmd: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<mpsc::Sender<SpawnRequest>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("private-server-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("cannot start the server spawner thread");
        tx
    });
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    let (reply_tx, reply_rx) = mpsc::channel();
    spawner
        .send((cmd, reply_tx))
        .map_err(|_| io::Error::other("server spawner thread is gone"))?;
    reply_rx
        .recv()
        .map_err(|_| io::Error::other("server spawner thread is gone"))?
}

/// A port for a private server, below Linux's ephemeral range (32768–60999), and never one
/// handed out before in this process. A server killed and restarted keeps its port: with
/// ports from `bind(:0)`, another test's listener (or a second private server) was handed
/// the port in the window between the kill and the restart, and the restart failed with
/// "Address already in use" when eight tests ran at once.
fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    // Processes running at once (two clones' test runs) start far apart.
    let offset = (std::process::id() * 97) % SPAN;
    for _ in 0..SPAN {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = (FIRST + (offset + n) % SPAN) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {FIRST}..{}", FIRST + SPAN);
}

// ---------------------------------------------------------------------------
// PrivateServer
// ---------------------------------------------------------------------------

/// Settings of a private server. Sizes use MariaDB's suffixes (`32M`).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `--innodb-buffer-pool-size`.
    pub buffer_pool_size: String,
    /// `--innodb-log-file-size` (MariaDB 10.11 minimum: 4M, and it must be at
    /// least `log_buffer_size`).
    pub log_file_size: String,
    /// `--innodb-log-buffer-size` (minimum 2M).
    pub log_buffer_size: String,
    /// `--max-connections`.
    pub max_connections: u32,
    /// Extra `mariadbd` arguments, appended last (they override the above).
    pub extra_args: Vec<String>,
    /// How long to wait for the first successful query after a (re)start.
    pub ready_timeout: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            buffer_pool_size: "32M".into(),
            log_file_size: TEMPLATE_LOG_FILE_SIZE.into(),
            log_buffer_size: "4M".into(),
            max_connections: 64,
            extra_args: Vec::new(),
            ready_timeout: Duration::from_secs(60),
        }
    }
}

impl ServerConfig {
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.extra_args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn log_file_size(mut self, size: &str) -> Self {
        self.log_file_size = size.into();
        self
    }

    pub fn buffer_pool_size(mut self, size: &str) -> Self {
        self.buffer_pool_size = size.into();
        self
    }
}

/// What one (re)start took and what it wrote to the error log.
#[derive(Debug, Clone, Default)]
pub struct StartInfo {
    /// From spawning `mariadbd` to the first successful `SELECT 1`.
    pub elapsed: Duration,
    /// The error-log text written by this start (crash-recovery lines land here).
    pub log: String,
}

/// A MariaDB server of its own: temp datadir, socket, port and error log.
/// Dropping it kills the server and removes the temp dir.
pub struct PrivateServer {
    cfg: ServerConfig,
    dir: tempfile::TempDir,
    /// Holds the socket when the main temp dir's path is too long for one.
    _socket_dir: Option<tempfile::TempDir>,
    socket: PathBuf,
    port: u16,
    child: Option<Child>,
    last_start: StartInfo,
}

impl PrivateServer {
    /// Installs (copies the template datadir) and starts a server; panics with
    /// the error log's tail if it is not ready within `cfg.ready_timeout`.
    pub fn start(cfg: ServerConfig) -> PrivateServer {
        let template = datadir_template();
        let dir = tempfile::Builder::new()
            .prefix("innodebt-srv-")
            .tempdir()
            .expect("create temp dir for private server");
        let datadir = dir.path().join("data");
        copy_dir(template, &datadir).unwrap_or_else(|e| {
            panic!(
                "copy datadir template {} -> {}: {e}",
                template.display(),
                datadir.display()
            )
        });
        // sun_path holds 108 bytes; keep well under it.
        let (socket_dir, socket) = if dir.path().join("mysqld.sock").as_os_str().len() > 100 {
            let short = tempfile::Builder::new()
                .prefix("idb-")
                .tempdir_in("/tmp")
                .expect("create short temp dir for the socket");
            let sock = short.path().join("mysqld.sock");
            (Some(short), sock)
        } else {
            (None, dir.path().join("mysqld.sock"))
        };
        let mut server = PrivateServer {
            cfg,
            dir,
            _socket_dir: socket_dir,
            socket,
            port: 0,
            child: None,
            last_start: StartInfo::default(),
        };
        // Another process may grab the free port between probe and bind: retry.
        let mut attempt = 0;
        loop {
            attempt += 1;
            server.port = free_port();
            match server.launch() {
                Ok(info) => {
                    server.last_start = info;
                    return server;
                }
                Err(msg) if attempt < 3 && msg.contains("Bind on TCP/IP port") => continue,
                Err(msg) => panic!("{msg}"),
            }
        }
    }

    pub fn socket(&self) -> PathBuf {
        self.socket.clone()
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn datadir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn error_log(&self) -> PathBuf {
        self.dir.path().join("error.log")
    }

    pub fn pid_file(&self) -> PathBuf {
        self.dir.path().join("mysqld.pid")
    }

    /// Process id of the running server, if it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    /// Start-up time and log of the last (re)start.
    pub fn last_start(&self) -> &StartInfo {
        &self.last_start
    }

    /// root, no password, over the unix socket.
    pub fn opts(&self) -> Opts {
        OptsBuilder::default()
            .user(Some("root"))
            .socket(Some(self.socket.to_string_lossy().into_owned()))
            .into()
    }

    /// root, no password, over TCP to 127.0.0.1 (no switch to the socket).
    pub fn tcp_opts(&self) -> Opts {
        OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(self.port)
            .user(Some("root"))
            .prefer_socket(false)
            .into()
    }

    /// Client flags for the `innodebt` binary (mysql-client style).
    pub fn conn_args(&self) -> Vec<String> {
        vec![
            "-S".into(),
            self.socket.to_string_lossy().into_owned(),
            "-u".into(),
            "root".into(),
        ]
    }

    /// Client flags for the `innodebt` binary over TCP.
    pub fn tcp_conn_args(&self) -> Vec<String> {
        vec![
            "-h".into(),
            "127.0.0.1".into(),
            "-P".into(),
            self.port.to_string(),
            "-u".into(),
            "root".into(),
        ]
    }

    /// The full `mariadbd` command line (without the binary).
    pub fn server_args(&self) -> Vec<String> {
        let c = &self.cfg;
        let p = self.dir.path();
        let mut args = vec![
            "--no-defaults".to_string(),
            format!("--datadir={}", self.datadir().display()),
            format!("--socket={}", self.socket.display()),
            format!("--port={}", self.port),
            "--bind-address=127.0.0.1".into(),
            format!("--pid-file={}", p.join("mysqld.pid").display()),
            format!("--log-error={}", self.error_log().display()),
            format!("--tmpdir={}", p.display()),
            "--skip-log-bin".into(),
            format!("--innodb-buffer-pool-size={}", c.buffer_pool_size),
            format!("--innodb-log-file-size={}", c.log_file_size),
            format!("--innodb-log-buffer-size={}", c.log_buffer_size),
            format!("--max-connections={}", c.max_connections),
            "--innodb-buffer-pool-load-at-startup=OFF".into(),
            "--innodb-buffer-pool-dump-at-shutdown=OFF".into(),
        ];
        if running_as_root() {
            args.push("--user=root".into());
        }
        args.extend(c.extra_args.iter().cloned());
        args
    }

    /// The whole error log (lossy UTF-8).
    pub fn error_log_text(&self) -> String {
        fs::read(self.error_log())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }

    /// The last `n` lines of the error log (and of the server's stdout/stderr).
    pub fn error_log_tail(&self, n: usize) -> String {
        let tail = |path: PathBuf| {
            let text = fs::read(&path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(n)..].join("\n")
        };
        let mut out = tail(self.error_log());
        let stdio = tail(self.dir.path().join("mariadbd.stdio"));
        if !stdio.trim().is_empty() {
            out.push_str("\n--- mariadbd stdout/stderr ---\n");
            out.push_str(&stdio);
        }
        out
    }

    /// SIGKILL the server and reap it (a crash: the next start recovers).
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Clean shutdown (SIGTERM, waits up to 60 s, then SIGKILL). Returns how
    /// long the shutdown took.
    pub fn stop(&mut self) -> Duration {
        let started = Instant::now();
        let Some(mut child) = self.child.take() else {
            return Duration::ZERO;
        };
        // SAFETY: plain kill(2) on our own child's pid.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = started + Duration::from_secs(60);
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "server did not shut down within 60 s; log tail:\n{}",
                        self.error_log_tail(30)
                    );
                }
            }
        }
        started.elapsed()
    }

    /// Starts the server again on the same datadir, port, socket and arguments
    /// (after [`kill9`](Self::kill9) this is crash recovery). Stops it cleanly
    /// first if it still runs. Waits until ready.
    pub fn restart(&mut self) -> StartInfo {
        if self.child.is_some() {
            self.stop();
        }
        match self.launch() {
            Ok(info) => {
                self.last_start = info.clone();
                info
            }
            Err(msg) => panic!("{msg}"),
        }
    }

    /// Like [`restart`](Self::restart) with `extra_args` replacing the
    /// configured extra arguments (kept for later restarts).
    pub fn restart_with<I, S>(&mut self, extra_args: I) -> StartInfo
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.cfg.extra_args = extra_args.into_iter().map(Into::into).collect();
        self.restart()
    }

    /// Runs `q` on a fresh connection and returns all rows; panics on error.
    pub async fn sql(&self, q: &str) -> Vec<Row> {
        match self.try_sql(q).await {
            Ok(rows) => rows,
            Err(e) => panic!("query failed: {q}: {e}"),
        }
    }

    pub async fn try_sql(&self, q: &str) -> Result<Vec<Row>, mysql_async::Error> {
        let mut conn = Conn::new(self.opts()).await?;
        let rows = conn.query(q).await;
        let _ = conn.disconnect().await;
        rows
    }

    /// A `SHOW GLOBAL STATUS` counter as u64; panics if missing.
    pub async fn status_u64(&self, name: &str) -> u64 {
        self.show_u64("GLOBAL STATUS", name).await
    }

    /// A `SHOW GLOBAL VARIABLES` value as u64; panics if missing.
    pub async fn var_u64(&self, name: &str) -> u64 {
        self.show_u64("GLOBAL VARIABLES", name).await
    }

    async fn show_u64(&self, what: &str, name: &str) -> u64 {
        let rows = self.sql(&format!("SHOW {what} LIKE '{name}'")).await;
        let row = rows
            .first()
            .unwrap_or_else(|| panic!("SHOW {what}: {name} is missing"));
        let value: String = row.get(1).expect("value column");
        value
            .parse()
            .unwrap_or_else(|_| panic!("SHOW {what}: {name} = {value:?} is not a number"))
    }

    fn log_len(&self) -> u64 {
        fs::metadata(self.error_log()).map(|m| m.len()).unwrap_or(0)
    }

    fn log_since(&self, offset: u64) -> String {
        let mut buf = Vec::new();
        if let Ok(mut f) = fs::File::open(self.error_log())
            && f.seek(SeekFrom::Start(offset)).is_ok()
        {
            let _ = f.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// Spawns mariadbd and waits until a query works. Err carries a message
    /// with the error log's tail.
    fn launch(&mut self) -> Result<StartInfo, String> {
        let bins = binaries();
        let _ = fs::remove_file(&self.socket); // stale after a kill -9
        let log_offset = self.log_len();
        let stdio = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("mariadbd.stdio"))
            .map_err(|e| format!("open mariadbd.stdio: {e}"))?;
        let stdio2 = stdio
            .try_clone()
            .map_err(|e| format!("clone stdio handle: {e}"))?;
        let mut cmd = Command::new(&bins.server);
        cmd.args(self.server_args())
            .stdin(Stdio::null())
            .stdout(stdio)
            .stderr(stdio2);
        let started = Instant::now();
        let child = spawn_tied_to_process(cmd)
            .map_err(|e| format!("cannot spawn {}: {e}", bins.server.display()))?;
        self.child = Some(child);
        match self.wait_ready(started) {
            Ok(()) => Ok(StartInfo {
                elapsed: started.elapsed(),
                log: self.log_since(log_offset),
            }),
            Err(why) => {
                self.kill9();
                Err(format!(
                    "private MariaDB server ({}) not ready: {why}\nargs: {:?}\n\
                     --- error log tail ({}) ---\n{}",
                    bins.version,
                    self.server_args(),
                    self.error_log().display(),
                    self.error_log_tail(40)
                ))
            }
        }
    }

    fn wait_ready(&mut self, started: Instant) -> Result<(), String> {
        let deadline = started + self.cfg.ready_timeout;
        let opts = self.opts();
        let socket = self.socket.clone();
        let child = self.child.as_mut().expect("child just spawned");
        // A thread with its own runtime: this is callable from sync code and
        // from inside a test's tokio runtime alike.
        std::thread::scope(|s| {
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("tokio runtime: {e}"))?;
                let mut last_err = String::from("socket not created yet");
                loop {
                    if let Ok(Some(status)) = child.try_wait() {
                        return Err(format!("mariadbd exited early ({status})"));
                    }
                    if Instant::now() > deadline {
                        return Err(format!(
                            "timed out after {:?}; last error: {last_err}",
                            started.elapsed()
                        ));
                    }
                    if socket.exists() {
                        let probe = rt.block_on(async {
                            let fut = async {
                                let mut conn = Conn::new(opts.clone()).await?;
                                let one: Option<u8> = conn.query_first("SELECT 1").await?;
                                let _ = conn.disconnect().await;
                                Ok::<_, mysql_async::Error>(one)
                            };
                            tokio::time::timeout(Duration::from_secs(5), fut).await
                        });
                        match probe {
                            Ok(Ok(Some(1))) => return Ok(()),
                            Ok(Ok(other)) => last_err = format!("SELECT 1 returned {other:?}"),
                            Ok(Err(e)) => last_err = e.to_string(),
                            Err(_) => last_err = "connect timed out".into(),
                        }
                    }
                    std::thread::sleep(Duration::from_millis(25));
                }
            })
            .join()
            .unwrap_or_else(|_| Err("readiness thread panicked".into()))
        })
    }
}

/// One private server (the default configuration) that tests share when they only read from
/// it or make objects of their own unique names — never one that sets a global, restarts, kills
/// or needs the server quiet: those start their own. Started on first use; its `mariadbd` dies
/// with the test process (`PR_SET_PDEATHSIG`, however the process ends), and at exit it is
/// killed and its directories removed (a static is never dropped).
pub fn shared() -> &'static PrivateServer {
    static SHARED: OnceLock<PrivateServer> = OnceLock::new();
    extern "C" fn remove_at_exit() {
        if let Some(server) = SHARED.get() {
            server.kill_and_remove();
        }
    }
    SHARED.get_or_init(|| {
        let server = PrivateServer::start(ServerConfig::default());
        // SAFETY: atexit(3) registers a plain `extern "C" fn` that takes no arguments; it runs
        // at exit, after the tests, on the thread that exits.
        unsafe {
            libc::atexit(remove_at_exit);
        }
        server
    })
}

impl PrivateServer {
    /// For a server that is never dropped ([`shared`]): SIGKILL by pid, reap, and remove its
    /// directories.
    fn kill_and_remove(&self) {
        if let Some(pid) = self.pid() {
            // SAFETY: kill(2) and waitpid(2) on our own child's pid; no memory is shared.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
                libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0);
            }
        }
        let _ = fs::remove_dir_all(self.dir.path());
        if let Some(socket_dir) = &self._socket_dir {
            let _ = fs::remove_dir_all(socket_dir.path());
        }
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        self.kill9();
        // The TempDir fields remove the directories.
    }
}
