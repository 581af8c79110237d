//! `innodebt serve` as a child process, a tiny blocking HTTP client, and a real Prometheus
//! (Debian's `prometheus`) on a free port with its own config and storage in a temp dir.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `innodebt CONN --no-defaults --interval 1s serve --listen 127.0.0.1:0 EXTRA` for `server`.
pub fn serve_args(server: &super::PrivateServer, extra: &[&str]) -> Vec<String> {
    let mut args = server.tcp_conn_args();
    let fixed = [
        "--no-defaults",
        "--interval",
        "1s",
        "serve",
        "--listen",
        "127.0.0.1:0",
    ];
    args.extend(fixed.iter().chain(extra).map(|s| s.to_string()));
    args
}

/// A running `innodebt ... serve`, with its stderr collected.
pub struct Serve {
    pub child: Child,
    pub addr: SocketAddr,
    pub log: Arc<Mutex<String>>,
}

impl Serve {
    /// Runs `innodebt ARGS` (which include `serve` and `--listen 127.0.0.1:0`) and waits for
    /// its "listening on" line.
    pub fn start(args: &[String]) -> Serve {
        Self::start_bin(&super::innodebt_bin(), args)
    }

    /// [`Serve::start`] of another `innodebt` binary (a benchmark's `--innodebt PATH`).
    pub fn start_bin(bin: &Path, args: &[String]) -> Serve {
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start innodebt serve");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                // Into the log before the address goes out: a test that has the address may
                // read the "listening on" line at once.
                {
                    let mut l = sink.lock().unwrap_or_else(|p| p.into_inner());
                    l.push_str(&line);
                    l.push('\n');
                }
                if let Some(rest) = line.split("listening on http").nth(1)
                    && let Some(rest) = rest.split("://").nth(1)
                {
                    let addr = rest
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    let _ = tx.send(addr);
                }
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(a) => a.parse().expect("listen address"),
            Err(_) => {
                let _ = child.kill();
                let status = child.wait();
                panic!(
                    "innodebt serve did not start ({status:?}): {}",
                    log.lock().expect("the serve log")
                );
            }
        };
        Serve { child, addr, log }
    }

    pub fn get(&self, path: &str) -> HttpResponse {
        http_get(self.addr, path, &[])
    }

    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
        http_get(self.addr, path, headers)
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// SIGTERM, then the exit status (killed after 20 s).
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        // On a timeout the panic drops `self`, which kills it.
        let log = Arc::clone(&self.log);
        super::wait::wait_for(
            Duration::from_secs(20),
            super::wait::OnTimeout(|| {
                format!(
                    "innodebt serve to end on SIGTERM: {}",
                    log.lock().unwrap_or_else(|p| p.into_inner())
                )
            }),
            || self.child.try_wait().ok().flatten(),
        )
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    pub head: String,
    pub body: String,
    /// From connect to the whole answer read.
    pub took: Duration,
    /// Of `took`, waiting for the TCP connection: the kernel's part (a full accept queue
    /// drops the SYN and the client resends it after a second), not the server's.
    pub connecting: Duration,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
}

/// A raw request (the exact bytes), answered within 30 s.
pub fn http_raw(addr: SocketAddr, request: &[u8]) -> HttpResponse {
    let started = Instant::now();
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect");
    let connecting = started.elapsed();
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("set a read timeout");
    s.write_all(request).expect("send");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    HttpResponse {
        status,
        head: head.to_string(),
        body: body.to_string(),
        took: started.elapsed(),
        connecting,
    }
}

pub fn http_get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    http_raw(addr, req.as_bytes())
}

/// A free TCP port on 127.0.0.1 (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// A real Prometheus scraping `targets` every second.
pub struct Prometheus {
    child: Child,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
}

pub fn prometheus_bin() -> PathBuf {
    super::find_binary(&["prometheus"]).unwrap_or_else(|_| {
        panic!("`prometheus` not found: apt-get install prometheus (.ci/run installs it)")
    })
}

pub fn promtool_bin() -> PathBuf {
    super::find_binary(&["promtool"]).unwrap_or_else(|_| {
        panic!("`promtool` not found: apt-get install prometheus (.ci/run installs it)")
    })
}

/// `promtool ARGS` (with `stdin` fed in); its stdout, or a panic with everything it said.
pub fn promtool(args: &[&str], stdin: Option<&str>) -> String {
    use std::io::Write as _;
    let mut child = Command::new(promtool_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run promtool");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("promtool stdin");
    }
    drop(input);
    let out = child.wait_with_output().expect("promtool");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "promtool {args:?}: {stdout}{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        stdin.unwrap_or_default()
    );
    stdout
}

impl Prometheus {
    /// `jobs`: (job name, metrics path, targets).
    pub fn start(jobs: &[(&str, &str, Vec<String>)]) -> Prometheus {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = String::from(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\nscrape_configs:\n",
        );
        for (job, path, targets) in jobs {
            // `/probe?target=x` → metrics_path plus params, as Prometheus wants them.
            let (path, params) = match path.split_once('?') {
                Some((p, q)) => {
                    let (k, v) = q.split_once('=').unwrap_or((q, ""));
                    (p, format!("    params:\n      {k}: ['{v}']\n"))
                }
                None => (*path, String::new()),
            };
            config.push_str(&format!(
                "  - job_name: {job}\n    metrics_path: {path}\n{params}    static_configs:\n      - targets: [{}]\n",
                targets
                    .iter()
                    .map(|t| format!("'{t}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Self::start_with_config(dir, &config)
    }

    /// Prometheus with `config` (a whole prometheus.yml) in `dir`.
    pub fn start_with_config(dir: tempfile::TempDir, config: &str) -> Prometheus {
        let cfg = dir.path().join("prometheus.yml");
        std::fs::write(&cfg, config).expect("write prometheus.yml");
        let port = free_port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let log = std::fs::File::create(dir.path().join("prometheus.log"))
            .expect("create prometheus.log");
        let child = Command::new(prometheus_bin())
            .arg(format!("--config.file={}", cfg.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start prometheus");
        let p = Prometheus {
            child,
            addr,
            _dir: dir,
        };
        super::wait::wait_until(
            Duration::from_secs(60),
            super::wait::OnTimeout(|| format!("prometheus to be ready: {}", p.log())),
            || {
                std::net::TcpStream::connect(addr).is_ok()
                    && http_get(addr, "/-/ready", &[]).status == 200
            },
        );
        p
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("prometheus.log")).unwrap_or_default()
    }

    /// `/api/v1/query` at `time` (unix seconds): the JSON `data.result`.
    pub fn query(&self, promql: &str, time: f64) -> serde_json::Value {
        let path = format!(
            "/api/v1/query?query={}&time={time:.3}",
            percent_encode(promql)
        );
        let r = http_get(self.addr, &path, &[]);
        let v: serde_json::Value = serde_json::from_str(&r.body)
            .unwrap_or_else(|e| panic!("prometheus answered {} ({e}): {}", r.status, r.body));
        assert_eq!(v["status"], "success", "{promql}: {}", r.body);
        v["data"]["result"].clone()
    }

    pub fn data_dir(&self) -> &Path {
        self._dir.path()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The value of the unlabelled sample `name` in an exposition text.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(name)?.strip_prefix(' ')?;
        let v = rest.split_whitespace().next()?;
        match v {
            "+Inf" => Some(f64::INFINITY),
            v => v.parse().ok(),
        }
    })
}
