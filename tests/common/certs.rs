//! Throw-away TLS certificates made with the `openssl` command line, in a temp dir:
//! a CA, a server certificate it signs for `127.0.0.1` / `localhost`, one it signs for
//! another name only, one with no subjectAltName, and an unrelated "wrong" CA. [`Certs::server_args`] gives the
//! `mariadbd` flags that serve one of them.
//!
//! A missing `openssl` is a test failure with the install hint, never a skip.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The name on [`Certs::other_cert`], which no test dials.
pub const OTHER_NAME: &str = "db.other.example";

pub struct Certs {
    dir: tempfile::TempDir,
}

/// Which server certificate `mariadbd` presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerCert {
    /// subjectAltName `IP:127.0.0.1, DNS:localhost`.
    Localhost,
    /// subjectAltName `DNS:db.other.example` only, signed by the same CA.
    OtherName,
    /// No subjectAltName at all (a name in the CN only, as MySQL's auto-generated
    /// certificates have), signed by the same CA.
    NoNames,
}

/// Runs `openssl ARGS` in `dir`, failing the test with what it said.
pub fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run openssl ({e}): the TLS tests need it: apt-get install openssl")
        });
    assert!(
        out.status.success(),
        "openssl {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Certs {
    /// Generates everything (ECDSA P-256 keys, far cheaper to make than RSA 2048; valid for 2
    /// days) in a fresh temp dir.
    pub fn generate() -> Certs {
        let dir = tempfile::Builder::new()
            .prefix("innodebt-certs-")
            .tempdir()
            .expect("temp dir for certificates");
        let d = dir.path();
        let self_signed_ca = |name: &str, cn: &str| {
            openssl(
                d,
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
                    &format!("{name}-key.pem"),
                    "-out",
                    &format!("{name}.pem"),
                    "-subj",
                    &format!("/CN={cn}"),
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign",
                ],
            );
        };
        self_signed_ca("ca", "innodebt test CA");
        self_signed_ca("wrong-ca", "innodebt unrelated CA");
        let signed = |name: &str, cn: &str, san: Option<&str>| {
            openssl(
                d,
                &[
                    "req",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:P-256",
                    "-nodes",
                    "-keyout",
                    &format!("{name}-key.pem"),
                    "-out",
                    &format!("{name}.csr"),
                    "-subj",
                    &format!("/CN={cn}"),
                ],
            );
            let ext = format!("{name}.ext");
            std::fs::write(
                d.join(&ext),
                format!(
                    "{}basicConstraints=CA:FALSE\n\
                     keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
                    san.map(|s| format!("subjectAltName={s}\n"))
                        .unwrap_or_default()
                ),
            )
            .expect("write extensions file");
            openssl(
                d,
                &[
                    "x509",
                    "-req",
                    "-in",
                    &format!("{name}.csr"),
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca-key.pem",
                    "-CAcreateserial",
                    "-days",
                    "2",
                    "-out",
                    &format!("{name}.pem"),
                    "-extfile",
                    &ext,
                ],
            );
        };
        signed("server", "localhost", Some("IP:127.0.0.1,DNS:localhost"));
        signed("other", OTHER_NAME, Some(&format!("DNS:{OTHER_NAME}")));
        signed("nonames", "127.0.0.1", None);
        Certs { dir }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The CA that signed both server certificates.
    pub fn ca(&self) -> PathBuf {
        self.file("ca.pem")
    }

    /// A CA that signed nothing the server presents.
    pub fn wrong_ca(&self) -> PathBuf {
        self.file("wrong-ca.pem")
    }

    /// The certificate and key of the server named `localhost` (what `server_args` gives
    /// `mariadbd` for [`ServerCert::Localhost`]), for `innodebt serve`'s web config.
    pub fn localhost_cert_and_key(&self) -> (PathBuf, PathBuf) {
        (self.file("server.pem"), self.file("server-key.pem"))
    }

    /// `--ssl-ca/--ssl-cert/--ssl-key` for `mariadbd`.
    pub fn server_args(&self, which: ServerCert) -> Vec<String> {
        let name = match which {
            ServerCert::Localhost => "server",
            ServerCert::OtherName => "other",
            ServerCert::NoNames => "nonames",
        };
        vec![
            format!("--ssl-ca={}", self.ca().display()),
            format!("--ssl-cert={}", self.file(&format!("{name}.pem")).display()),
            format!(
                "--ssl-key={}",
                self.file(&format!("{name}-key.pem")).display()
            ),
        ]
    }
}

/// A client certificate for `subject` (clientAuth), signed by `ca` with `ca_key`, written into
/// `dir` as `client.pem` and `client-key.pem`: (cert, key).
pub fn sign_client_cert(dir: &Path, ca: &Path, ca_key: &Path, subject: &str) -> (PathBuf, PathBuf) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "client-key.pem",
            "-out",
            "client.csr",
            "-subj",
            subject,
        ],
    );
    std::fs::write(
        dir.join("client.ext"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n\
         extendedKeyUsage=clientAuth\n",
    )
    .expect("write client.ext");
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "client.csr",
            "-CA",
            ca.to_str().expect("a UTF-8 path"),
            "-CAkey",
            ca_key.to_str().expect("a UTF-8 path"),
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            "client.pem",
            "-extfile",
            "client.ext",
        ],
    );
    (dir.join("client.pem"), dir.join("client-key.pem"))
}
