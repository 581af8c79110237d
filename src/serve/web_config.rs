//! `--web-config FILE`: TLS and basic authentication in the Prometheus exporter-toolkit's
//! format (`web-config.yml`), so the file an operator keeps for node_exporter or
//! mysqld_exporter works here unchanged. Paths are relative to the file's directory, as the
//! toolkit reads them. A key we do not know is an error naming it; a toolkit key innodebt does
//! not implement is an error saying so, never silently ignored (a rate limit or a cipher list
//! the operator believes in force would not be). TLS is rustls's (ring, as mysql_async uses).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use serde::Deserialize;

use super::auth::BasicAuth;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tls_server_config: Option<TlsFile>,
    http_server_config: Option<HttpFile>,
    basic_auth_users: Option<BTreeMap<String, String>>,
    rate_limit: Option<serde_yaml_ng::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsFile {
    cert: Option<String>,
    key: Option<String>,
    client_ca: Option<String>,
    cert_file: Option<PathBuf>,
    key_file: Option<PathBuf>,
    client_auth_type: Option<ClientAuth>,
    client_ca_file: Option<PathBuf>,
    min_version: Option<TlsVersion>,
    max_version: Option<TlsVersion>,
    client_allowed_sans: Option<serde_yaml_ng::Value>,
    cipher_suites: Option<serde_yaml_ng::Value>,
    prefer_server_cipher_suites: Option<serde_yaml_ng::Value>,
    curve_preferences: Option<serde_yaml_ng::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpFile {
    /// Accepted for the toolkit's files; innodebt answers HTTP/1.1 only (what scrapes use).
    #[allow(dead_code)]
    http2: Option<bool>,
    headers: Option<serde_yaml_ng::Value>,
}

/// The toolkit's `client_auth_type` values (Go's `tls.ClientAuthType` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ClientAuth {
    NoClientCert,
    RequestClientCert,
    #[serde(alias = "RequireClientCert")]
    RequireAnyClientCert,
    VerifyClientCertIfGiven,
    RequireAndVerifyClientCert,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
enum TlsVersion {
    TLS10,
    TLS11,
    TLS12,
    TLS13,
}

/// What the web config sets up: TLS on the listener, basic auth on every request.
#[derive(Default, Clone)]
pub struct Web {
    pub tls: Option<Arc<rustls::ServerConfig>>,
    pub auth: Option<Arc<BasicAuth>>,
}

impl Web {
    /// `https` or `http`, for the "listening on" line.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }
}

/// Reads and checks the file: every error names the file, the key and the fix.
pub fn load(path: &Path) -> Result<Web, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--web-config {shown}: cannot read: {e}"))?;
    let file: File = if text.trim().is_empty() {
        File::default()
    } else {
        serde_yaml_ng::from_str(&text)
            .map_err(|e| format!("--web-config {shown}: not valid: {e}"))?
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    build(file, dir).map_err(|e| format!("--web-config {shown}: {e}"))
}

fn unsupported(key: &str, why: &str) -> String {
    format!("{key} is an exporter-toolkit setting innodebt does not implement ({why}): remove it")
}

fn build(file: File, dir: &Path) -> Result<Web, String> {
    if file.rate_limit.is_some() {
        return Err(unsupported(
            "rate_limit",
            "connections are capped and slow clients dropped instead",
        ));
    }
    if file.http_server_config.is_some_and(|h| h.headers.is_some()) {
        return Err(unsupported(
            "http_server_config.headers",
            "the answers are metrics, not pages",
        ));
    }
    let auth = match file.basic_auth_users {
        Some(users) if !users.is_empty() => Some(Arc::new(BasicAuth::new(users)?)),
        _ => None,
    };
    let tls = match file.tls_server_config {
        Some(t) => Some(Arc::new(tls_config(t, dir)?)),
        None => None,
    };
    Ok(Web { tls, auth })
}

/// PEM from `NAME_file` (relative to the config's directory) or inline `NAME`, not both.
fn pem(
    inline: Option<String>,
    file: Option<PathBuf>,
    key: &str,
    dir: &Path,
) -> Result<Option<Vec<u8>>, String> {
    match (inline, file) {
        (Some(_), Some(_)) => Err(format!(
            "tls_server_config: give {key} or {key}_file, not both"
        )),
        (Some(text), None) => Ok(Some(text.into_bytes())),
        (None, Some(f)) => {
            let path = dir.join(&f);
            std::fs::read(&path).map(Some).map_err(|e| {
                format!(
                    "tls_server_config.{key}_file {}: cannot read: {e}",
                    path.display()
                )
            })
        }
        (None, None) => Ok(None),
    }
}

fn certificates(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("tls_server_config.{what}: not PEM certificates: {e}"))?;
    if certs.is_empty() {
        return Err(format!(
            "tls_server_config.{what}: no certificate in it (a PEM file with BEGIN CERTIFICATE)"
        ));
    }
    Ok(certs)
}

fn tls_config(t: TlsFile, dir: &Path) -> Result<rustls::ServerConfig, String> {
    for (key, set, why) in [
        (
            "cipher_suites",
            t.cipher_suites.is_some(),
            "rustls offers only modern suites",
        ),
        (
            "prefer_server_cipher_suites",
            t.prefer_server_cipher_suites.is_some(),
            "rustls offers only modern suites",
        ),
        (
            "curve_preferences",
            t.curve_preferences.is_some(),
            "rustls picks X25519 or P-256",
        ),
        (
            "client_allowed_sans",
            t.client_allowed_sans.is_some(),
            "use a client CA that signs only the allowed clients",
        ),
    ] {
        if set {
            return Err(unsupported(&format!("tls_server_config.{key}"), why));
        }
    }
    let cert = pem(t.cert, t.cert_file, "cert", dir)?
        .ok_or("tls_server_config: missing cert_file (the server's certificate, PEM)")?;
    let key = pem(t.key, t.key_file, "key", dir)?
        .ok_or("tls_server_config: missing key_file (the certificate's private key, PEM)")?;
    let client_ca = pem(t.client_ca, t.client_ca_file, "client_ca", dir)?;
    let certs = certificates(&cert, "cert_file")?;
    let key = PrivateKeyDer::from_pem_slice(&key)
        .map_err(|e| format!("tls_server_config.key_file: no private key in it ({e})"))?;

    let min = t.min_version.unwrap_or(TlsVersion::TLS12);
    let max = t.max_version.unwrap_or(TlsVersion::TLS13);
    if min < TlsVersion::TLS12 || max < TlsVersion::TLS12 {
        return Err(
            "min_version/max_version: innodebt speaks TLS12 and TLS13 only (TLS 1.0 and 1.1 are \
             broken); use TLS12 or TLS13"
                .into(),
        );
    }
    if min > max {
        return Err("min_version is above max_version".into());
    }
    let versions: Vec<&'static rustls::SupportedProtocolVersion> = [
        (TlsVersion::TLS12, &rustls::version::TLS12),
        (TlsVersion::TLS13, &rustls::version::TLS13),
    ]
    .into_iter()
    .filter(|(v, _)| *v >= min && *v <= max)
    .map(|(_, p)| p)
    .collect();

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&versions)
        .map_err(|e| format!("tls_server_config: {e}"))?;
    let auth = t.client_auth_type.unwrap_or(ClientAuth::NoClientCert);
    let roots = match &client_ca {
        Some(pem) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in certificates(pem, "client_ca_file")? {
                roots
                    .add(c)
                    .map_err(|e| format!("tls_server_config.client_ca_file: {e}"))?;
            }
            Some(Arc::new(roots))
        }
        None => None,
    };
    let verifier: Option<Arc<dyn rustls::server::danger::ClientCertVerifier>> = match (auth, roots)
    {
        (ClientAuth::NoClientCert, None) => None,
        (ClientAuth::NoClientCert, Some(_)) => {
            return Err(
                "client_ca_file is set but client_auth_type is NoClientCert: set \
                 client_auth_type: RequireAndVerifyClientCert to check clients against it"
                    .into(),
            );
        }
        (ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert, None) => {
            return Err(format!(
                "client_auth_type {auth:?} needs client_ca_file (the CA that signs the clients' \
                 certificates)"
            ));
        }
        (ClientAuth::VerifyClientCertIfGiven, Some(roots)) => Some(
            WebPkiClientVerifier::builder_with_provider(roots, Arc::clone(&provider))
                .allow_unauthenticated()
                .build()
                .map_err(|e| format!("tls_server_config.client_ca_file: {e}"))?,
        ),
        (ClientAuth::RequireAndVerifyClientCert, Some(roots)) => Some(
            WebPkiClientVerifier::builder_with_provider(roots, Arc::clone(&provider))
                .build()
                .map_err(|e| format!("tls_server_config.client_ca_file: {e}"))?,
        ),
        (ClientAuth::RequestClientCert | ClientAuth::RequireAnyClientCert, _) => {
            Some(Arc::new(super::any_cert::AnyClientCert::new(
                auth == ClientAuth::RequireAnyClientCert,
                Arc::clone(&provider),
            )))
        }
    };
    let builder = match verifier {
        Some(v) => builder.with_client_cert_verifier(v),
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(certs, key).map_err(|e| {
        format!("tls_server_config: the certificate and key do not go together: {e}")
    })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Web, String> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("web.yml");
        std::fs::write(&p, yaml).unwrap();
        load(&p)
    }

    fn err(yaml: &str) -> String {
        match parse(yaml) {
            Ok(_) => panic!("accepted: {yaml}"),
            Err(e) => e,
        }
    }

    #[test]
    fn unknown_and_unimplemented_keys_are_named() {
        let e = err("tls_server_config:\n  cert_fil: x\n");
        assert!(
            e.contains("unknown field `cert_fil`") && e.contains("web.yml"),
            "{e}"
        );
        let e = err("basic_auth_user:\n  a: b\n");
        assert!(e.contains("unknown field `basic_auth_user`"), "{e}");
        let e = err("rate_limit:\n  interval: 1s\n  burst: 2\n");
        assert!(
            e.contains("rate_limit is an exporter-toolkit setting innodebt does not implement"),
            "{e}"
        );
        let e = err("tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n");
        assert!(e.contains("tls_server_config.cipher_suites"), "{e}");
        let e = err("tls_server_config:\n  client_auth_type: Maybe\n");
        assert!(e.contains("unknown variant `Maybe`"), "{e}");
        let e = err("tls_server_config:\n  key_file: k.pem\n");
        assert!(e.contains("missing cert_file"), "{e}");
        let e = err("tls_server_config:\n  cert_file: nothere.pem\n  key_file: k.pem\n");
        assert!(e.contains("nothere.pem: cannot read"), "{e}");
    }

    #[test]
    fn an_empty_file_or_users_only_is_plain_http() {
        let w = parse("").unwrap();
        assert!(w.tls.is_none() && w.auth.is_none());
        let hash = bcrypt::hash("pw", 4).unwrap();
        let w = parse(&format!("basic_auth_users:\n  alice: '{hash}'\n")).unwrap();
        assert!(w.tls.is_none() && w.auth.is_some());
        assert_eq!(w.scheme(), "http");
        let e = err("basic_auth_users:\n  alice: plaintext\n");
        assert!(e.contains("alice") && e.contains("bcrypt"), "{e}");
    }
}
