//! `innodebt serve` secured as an operator deploys it: `--web-config` in the exporter
//! toolkit's format with real certificates (made by openssl) and bcrypt basic auth, checked
//! with `curl` and with Debian's real Prometheus scraping through TLS with basic auth; client
//! certificates; `/probe` reaching only configured targets unless `--probe-allow` (or
//! `probe_allow`) opens it, a refusal answered 403 and logged without credentials.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::certs::{Certs, openssl, sign_client_cert};
use common::serve::{Prometheus, Serve, metric, serve_args};
use common::{PrivateServer, ServerConfig};

const PASSWORD: &str = "scrape s3cret:with colon";

/// curl's answer: exit code, status, headers, body.
struct Curl {
    exit: i32,
    status: u16,
    head: String,
    body: String,
}

fn curl(url: &str, args: &[&str]) -> Curl {
    let dir = tempfile::tempdir().expect("tempdir");
    let head = dir.path().join("head");
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "10", "-o", "-", "-D"])
        .arg(&head)
        .args(["-w", "\n%{http_code}"])
        .args(args)
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("cannot run curl ({e}): apt-get install curl"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", &text));
    Curl {
        exit: out.status.code().unwrap_or(-1),
        status: code.trim().parse().unwrap_or(0),
        head: std::fs::read_to_string(&head).unwrap_or_default(),
        body: body.to_string(),
    }
}

impl Curl {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
}

fn web_config(dir: &Path, yaml: &str) -> String {
    let p = dir.join("web-config.yml");
    std::fs::write(&p, yaml).expect("write the web config");
    p.display().to_string()
}

/// [`common::wait::wait_until`] with `log` (serve's, Prometheus's) in the message if it times out.
#[track_caller]
fn wait_for(what: &str, limit: Duration, ok: impl FnMut() -> bool, log: impl Fn() -> String) {
    common::wait::wait_until(
        limit,
        common::wait::OnTimeout(|| format!("{what}; log:\n{}", log())),
        ok,
    );
}

#[test]
fn tls_and_basic_auth_for_curl_and_prometheus() {
    let server = PrivateServer::start(ServerConfig::default());
    let certs = Certs::generate();
    let (cert, key) = certs.localhost_cert_and_key();
    let dir = tempfile::tempdir().unwrap();
    let hash = bcrypt::hash(PASSWORD, 10).unwrap();
    let web = web_config(
        dir.path(),
        &format!(
            "tls_server_config:\n  cert_file: {}\n  key_file: {}\n  min_version: TLS12\n\
             basic_auth_users:\n  prometheus: '{hash}'\n",
            cert.display(),
            key.display()
        ),
    );
    let serve = Serve::start(&serve_args(&server, &["--web-config", &web]));
    // Serve::start returns once the "listening on" line is in the log.
    let log = serve.log();
    assert!(
        log.contains("listening on https://") && log.contains("(basic auth)"),
        "{log}"
    );
    let url = format!("https://127.0.0.1:{}/metrics", serve.addr.port());
    let ca = certs.ca().display().to_string();
    let user = format!("prometheus:{PASSWORD}");
    let good = || curl(&url, &["--cacert", &ca, "-u", &user]);
    wait_for(
        "innodebt_up 1 over https",
        Duration::from_secs(30),
        || metric(&good().body, "innodebt_up") == Some(1.0),
        || serve.log(),
    );
    let r = good();
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body.contains("innodebt_build_info{version="),
        "{}",
        r.body
    );
    assert!(r.body.contains("innodebt_lsn_bytes_total "), "{}", r.body);
    // Gzip only when asked; curl unpacks it.
    let z = curl(&url, &["--cacert", &ca, "-u", &user, "--compressed"]);
    assert_eq!(
        z.header("content-encoding").as_deref(),
        Some("gzip"),
        "{}",
        z.head
    );
    assert!(z.body.contains("innodebt_up 1"), "{}", z.body);
    assert!(r.header("content-encoding").is_none(), "{}", r.head);
    // Wrong password, unknown user, none at all: 401 with the challenge, and no metrics.
    for creds in [
        vec!["-u", "prometheus:wrong"],
        vec!["-u", "nobody:x"],
        vec![],
    ] {
        let mut args = vec!["--cacert", ca.as_str()];
        args.extend(creds.iter().copied());
        let r = curl(&url, &args);
        assert_eq!(r.status, 401, "{creds:?}: {}", r.body);
        assert!(
            r.header("www-authenticate")
                .is_some_and(|v| v.starts_with("Basic")),
            "{}",
            r.head
        );
        assert!(!r.body.contains("innodebt_up"), "{}", r.body);
    }
    // A client that does not trust the CA, and plain HTTP on the TLS port, get nothing.
    let wrong_ca = certs.wrong_ca().display().to_string();
    let r = curl(&url, &["--cacert", &wrong_ca, "-u", &user]);
    assert_eq!(r.exit, 60, "curl should refuse the certificate: {}", r.body);
    let r = curl(&url.replace("https://", "http://"), &["-u", &user]);
    assert_ne!(r.status, 200);
    assert!(!r.body.contains("innodebt_up"), "{}", r.body);

    // A real Prometheus through TLS with basic auth; the same target with a wrong password
    // stays down.
    let target = format!("127.0.0.1:{}", serve.addr.port());
    let job = |name: &str, password: &str| {
        format!(
            "  - job_name: {name}\n    scheme: https\n    tls_config:\n      ca_file: {ca}\n\
             \x20   basic_auth:\n      username: prometheus\n      password: '{password}'\n\
             \x20   static_configs:\n      - targets: ['{target}']\n"
        )
    };
    let config = format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n{}{}",
        job("secure", PASSWORD),
        job("wrongpw", "not it")
    );
    let prom = Prometheus::start_with_config(tempfile::tempdir().unwrap(), &config);
    let value = |q: &str| {
        let r = prom.query(q, chrono::Utc::now().timestamp() as f64);
        r[0]["value"][1].as_str().map(str::to_string)
    };
    wait_for(
        "Prometheus scraping through TLS with basic auth",
        Duration::from_secs(60),
        || {
            value("up{job=\"secure\"}").as_deref() == Some("1")
                && value("innodebt_up{job=\"secure\"}").as_deref() == Some("1")
                && value("up{job=\"wrongpw\"}").as_deref() == Some("0")
        },
        || format!("{}\n{}", serve.log(), prom.log()),
    );
    let lsn = value("innodebt_lsn_bytes_total{job=\"secure\"}").expect("the LSN counter");
    assert!(lsn.parse::<f64>().unwrap() > 0.0, "{lsn}");
    assert!(value("process_resident_memory_bytes{job=\"secure\"}").is_some());
    assert!(!serve.log().contains(PASSWORD), "{}", serve.log());
}

/// openssl in `dir`, panicking with what it said.
/// A client certificate signed by a CA of its own: (ca, cert, key).
fn client_cert(dir: &Path) -> (String, String, String) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            "cca-key.pem",
            "-out",
            "cca.pem",
            "-subj",
            "/CN=innodebt client CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ],
    );
    let (client, key) = sign_client_cert(
        dir,
        &dir.join("cca.pem"),
        &dir.join("cca-key.pem"),
        "/CN=prometheus",
    );
    let p = |f: &Path| f.display().to_string();
    (p(&dir.join("cca.pem")), p(&client), p(&key))
}

#[test]
fn client_certificates_as_the_toolkit_defines_them() {
    let certs = Certs::generate();
    let (cert, key) = certs.localhost_cert_and_key();
    let dir = tempfile::tempdir().unwrap();
    let (client_ca, client, client_key) = client_cert(dir.path());
    let ca = certs.ca().display().to_string();
    let no_server = [
        "--no-defaults",
        "-h",
        "127.0.0.1",
        "-P",
        "1",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--probe-only",
        "--web-config",
    ];
    for (auth, anonymous_ok) in [
        ("RequireAndVerifyClientCert", false),
        ("VerifyClientCertIfGiven", true),
    ] {
        let web = web_config(
            dir.path(),
            &format!(
                "tls_server_config:\n  cert_file: {}\n  key_file: {}\n  client_ca_file: {client_ca}\n  client_auth_type: {auth}\n",
                cert.display(),
                key.display()
            ),
        );
        let mut args: Vec<String> = no_server.iter().map(|s| s.to_string()).collect();
        args.push(web);
        let serve = Serve::start(&args);
        let url = format!("https://127.0.0.1:{}/metrics", serve.addr.port());
        let with = curl(
            &url,
            &["--cacert", &ca, "--cert", &client, "--key", &client_key],
        );
        assert_eq!(with.status, 200, "{auth}: {}", with.body);
        assert!(with.body.contains("innodebt_build_info"), "{}", with.body);
        let without = curl(&url, &["--cacert", &ca]);
        assert_eq!(
            without.status == 200,
            anonymous_ok,
            "{auth}: {} {}",
            without.exit,
            without.body
        );
        // A certificate the client CA did not sign is refused under both.
        let server_as_client = curl(
            &url,
            &[
                "--cacert",
                &ca,
                "--cert",
                &cert.display().to_string(),
                "--key",
                &key.display().to_string(),
            ],
        );
        assert_ne!(server_as_client.status, 200, "{auth}");
    }
}

#[test]
fn a_bad_web_config_names_the_key_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    for (yaml, words) in [
        (
            "tls_server_config:\n  cert_fil: a.pem\n",
            vec!["unknown field `cert_fil`", "web-config.yml"],
        ),
        (
            "tls_server_config:\n  cert_file: a.pem\n  key_file: b.pem\n  min_version: TLS10\n",
            vec!["a.pem: cannot read"],
        ),
        (
            "basic_auth_users:\n  alice: hunter2\n",
            vec!["\"alice\"", "not a bcrypt hash", "htpasswd -nBC 10"],
        ),
        (
            "rate_limit:\n  interval: 1s\n",
            vec!["rate_limit", "does not implement"],
        ),
    ] {
        let web = web_config(dir.path(), yaml);
        let out = Command::new(common::innodebt_bin())
            .args([
                "--no-defaults",
                "-h",
                "127.0.0.1",
                "-P",
                "1",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--web-config",
                &web,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{yaml}: {err}");
        for w in words {
            assert!(err.contains(w), "{yaml}: {w:?} not in {err}");
        }
        assert!(!err.contains("hunter2"), "{err}");
    }
}

#[test]
fn probe_reaches_only_configured_or_allowed_targets() {
    let server = PrivateServer::start(ServerConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let port = server.port();
    let cfg = dir.path().join("innodebt.toml");
    let write = |extra: &str| {
        std::fs::write(
            &cfg,
            format!("{extra}[targets.named]\nhost = \"127.0.0.1\"\nport = {port}\n"),
        )
        .unwrap();
    };
    write("");
    let start = |extra: &[&str]| {
        let mut args = server.tcp_conn_args();
        args.extend(
            [
                "--no-defaults",
                "--interval",
                "1s",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--probe-only",
                "--config",
            ]
            .map(String::from),
        );
        args.push(cfg.display().to_string());
        args.extend(extra.iter().map(|s| s.to_string()));
        Serve::start(&args)
    };
    let up = |serve: &Serve, target: &str| {
        wait_for(
            &format!("{target} up"),
            Duration::from_secs(30),
            || {
                metric(
                    &serve.get(&format!("/probe?target={target}")).body,
                    "innodebt_up",
                ) == Some(1.0)
            },
            || serve.log(),
        );
    };
    let direct = format!("127.0.0.1:{port}");
    let serve = start(&[]);
    up(&serve, "named");
    for path in [
        format!("/probe?target={direct}"),
        format!("/events?target={direct}"),
    ] {
        let r = serve.get(&path);
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        assert!(
            r.body
                .contains("is not one of the config file's [targets.*]")
                && r.body.contains("--probe-allow"),
            "{}",
            r.body
        );
    }
    // serve logs the refusal before it answers; its stderr reaches this test through a
    // reader thread, a moment later.
    let refused = format!("refused /probe?target={direct} from 127.0.0.1:");
    wait_for(
        "the refusal in serve's log",
        Duration::from_secs(5),
        || serve.log().contains(&refused),
        || serve.log(),
    );
    let log = serve.log();
    assert!(
        log.contains("no other host (--probe-allow opens it)"),
        "{log}"
    );
    // A target with credentials in it is still a 400 that never reaches the log.
    let r = serve.get("/probe?target=root:hunter2@db1");
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(!serve.log().contains("hunter2"), "{}", serve.log());
    drop(serve);

    // The flag opens it to a pattern, and only to that pattern.
    let serve = start(&["--probe-allow", "127.0.0.*,db9.example.com"]);
    up(&serve, &direct);
    let r = serve.get(&format!("/probe?target=localhost:{port}"));
    assert_eq!(r.status, 403, "{}", r.body);
    drop(serve);

    // So does the config key, here with a port.
    write(&format!(
        "[serve]\nprobe_allow = [\"127.0.0.1:{port}\"]\n\n"
    ));
    let serve = start(&[]);
    up(&serve, &direct);
    let r = serve.get("/probe?target=127.0.0.1:1");
    assert_eq!(r.status, 403, "{}", r.body);
}

#[test]
fn a_silent_tls_client_is_dropped_at_the_handshake_deadline() {
    use std::io::{Read, Write};
    let certs = Certs::generate();
    let (cert, key) = certs.localhost_cert_and_key();
    let dir = tempfile::tempdir().unwrap();
    let web = web_config(
        dir.path(),
        &format!(
            "tls_server_config:\n  cert_file: {}\n  key_file: {}\n",
            cert.display(),
            key.display()
        ),
    );
    let args: Vec<String> = [
        "--no-defaults",
        "-h",
        "127.0.0.1",
        "-P",
        "1",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--probe-only",
        "--web-config",
        &web,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let serve = Serve::start(&args);
    // Fifty connections that never start the handshake, fifty that stop inside it.
    let opened = Instant::now();
    let held: Vec<std::net::TcpStream> = (0..100)
        .map(|i| {
            let mut s = std::net::TcpStream::connect(serve.addr).unwrap();
            if i % 2 == 1 {
                s.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01]).unwrap();
            }
            s
        })
        .collect();
    let url = format!("https://127.0.0.1:{}/metrics", serve.addr.port());
    let ca = certs.ca().display().to_string();
    let started = Instant::now();
    let r = curl(&url, &["--cacert", &ca]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    for (i, mut s) in held.into_iter().enumerate() {
        s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        let mut buf = Vec::new();
        assert!(s.read_to_end(&mut buf).is_ok(), "connection {i} still open");
        let after = opened.elapsed();
        assert!(
            after < Duration::from_secs(14),
            "{i}: closed after {after:?}"
        );
    }
    assert!(
        opened.elapsed() >= Duration::from_secs(9),
        "{:?}",
        opened.elapsed()
    );
}
