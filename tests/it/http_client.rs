//! The one HTTP client (`innodebt_http`) over https with basic auth, as the Prometheus import
//! and live view use it: against an `innodebt serve` behind `--web-config` (a private CA,
//! bcrypt basic auth), the CA file and a credentials file get through, to a page that is not
//! the Prometheus API; a CA that did not sign the certificate and a wrong password are each
//! named. (The fleet's agents, the other user of the client, are `fleet_agent_tls`.)

use crate::common;

use common::certs::Certs;
use common::serve::{Serve, serve_args};
use common::{PrivateServer, ServerConfig};
use innodebt_capture::prometheus::PromError;
use innodebt_capture::prometheus::api::{Auth, Endpoint};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prometheus_client_reads_https_with_a_ca_file_and_basic_auth() {
    let server = PrivateServer::start(ServerConfig::default());
    let certs = Certs::generate();
    let (cert, key) = certs.localhost_cert_and_key();
    let dir = tempfile::tempdir().unwrap();
    let hash = bcrypt::hash("reader-pw", 10).unwrap();
    let web = dir.path().join("web-config.yml");
    std::fs::write(
        &web,
        format!(
            "tls_server_config:\n  cert_file: {}\n  key_file: {}\n\
             basic_auth_users:\n  reader: '{hash}'\n",
            cert.display(),
            key.display()
        ),
    )
    .unwrap();
    let serve = Serve::start(&serve_args(
        &server,
        &["--web-config", &web.display().to_string()],
    ));
    let url = format!("https://127.0.0.1:{}", serve.addr.port());
    let good = dir.path().join("good.auth");
    std::fs::write(&good, "reader:reader-pw\n").unwrap();
    let bad = dir.path().join("bad.auth");
    std::fs::write(&bad, "reader:not-it\n").unwrap();
    let get = |auth: Auth| {
        let url = url.clone();
        async move {
            Endpoint::new(&url, &auth)
                .expect("an endpoint")
                .get("/api/v1/status/buildinfo", &[])
                .await
        }
    };
    let auth = |ca: std::path::PathBuf, basic: &std::path::Path| Auth {
        basic_file: Some(basic.to_path_buf()),
        ca_file: Some(ca),
        ..Auth::default()
    };
    // Through TLS and the password: serve answers, and it is no Prometheus.
    match get(auth(certs.ca(), &good)).await {
        Err(PromError::NotPrometheus { status: 404, .. }) => {}
        other => panic!("{other:?}"),
    }
    match get(auth(certs.ca(), &bad)).await {
        Err(e @ PromError::Refused { status: 401, .. }) => {
            assert!(e.to_string().contains("--basic-auth-file"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    match get(auth(certs.wrong_ca(), &good)).await {
        Err(e @ PromError::Tls(_)) => {
            let e = e.to_string();
            assert!(
                e.contains("UnknownIssuer") || e.contains("invalid peer certificate"),
                "{e}"
            );
            assert!(e.contains("--ca-file"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}
