//! `--login-path` and the mysql client's environment against a private MariaDB: a
//! `.mylogin.cnf` written by this test's own encoder (mysql_config_editor's format: 4 unused
//! bytes, a 20-byte key folded to 16 by XOR, each line AES-128-ECB with PKCS padding behind
//! its 4-byte little-endian length), checked against `openssl enc`, then used to log in;
//! MYSQL_HOST/MYSQL_TCP_PORT/MYSQL_PWD count after the option files, as in the mysql client.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use aes::Aes128;
use aes::cipher::{BlockCipherEncrypt, KeyInit};
use common::accounts::{Account, Run, run_with};
use common::{PrivateServer, ServerConfig};
use innodebt::cli::{Environment, parse_args};

const PASSWORD: &str = "Login-pw-41q";
const KEY: [u8; 20] = *b"innodebt-login-key-0";

/// mysql_config_editor's encoding of `text` (one record per line, newline included).
fn encode(text: &str, key: [u8; 20]) -> Vec<u8> {
    let mut folded = [0u8; 16];
    for (i, b) in key.iter().enumerate() {
        folded[i % 16] ^= b;
    }
    let cipher = Aes128::new(&folded.into());
    let mut out = vec![0u8; 4];
    out.extend_from_slice(&key);
    for line in text.split_inclusive('\n') {
        let mut plain = line.as_bytes().to_vec();
        let pad = 16 - plain.len() % 16;
        plain.extend(std::iter::repeat_n(pad as u8, pad));
        let mut encrypted = Vec::new();
        for chunk in plain.chunks_exact(16) {
            let mut block = aes::Block::default();
            block.copy_from_slice(chunk);
            cipher.encrypt_block(&mut block);
            encrypted.extend_from_slice(&block);
        }
        out.extend_from_slice(&(encrypted.len() as u32).to_le_bytes());
        out.extend(encrypted);
    }
    out
}

fn write_login_file(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join(".mylogin.cnf");
    std::fs::write(&path, encode(text, KEY)).expect("write the login file");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path
}

/// Our encoder agrees with OpenSSL's AES-128-ECB, line by line.
#[test]
fn the_encoder_matches_openssl() {
    let text = "[client]\nuser = \"ann\"\npassword = a-much-longer-password-than-one-block\n";
    let ours = encode(text, KEY);
    let mut folded = [0u8; 16];
    for (i, b) in KEY.iter().enumerate() {
        folded[i % 16] ^= b;
    }
    let hex_key: String = folded.iter().map(|b| format!("{b:02x}")).collect();
    let mut theirs = vec![0u8; 4];
    theirs.extend_from_slice(&KEY);
    for line in text.split_inclusive('\n') {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("line");
        std::fs::write(&input, line).unwrap();
        let out = Command::new("openssl")
            .args(["enc", "-aes-128-ecb", "-K", &hex_key, "-in"])
            .arg(&input)
            .output()
            .unwrap_or_else(|e| panic!("cannot run openssl ({e}): apt-get install openssl"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        theirs.extend_from_slice(&(out.stdout.len() as u32).to_le_bytes());
        theirs.extend(out.stdout);
    }
    assert_eq!(ours, theirs);
    assert_eq!(innodebt_server::mycnf::login::decode(&ours).unwrap(), text);
}

fn once(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec!["--once", "--format", "json", "--ssl-mode", "DISABLED"];
    all.extend_from_slice(args);
    let run = run_with(&all, env, None);
    assert!(
        !run.stdout.contains(PASSWORD) && !run.stderr.contains(PASSWORD),
        "{args:?}: the password shows:\n{}\n{}",
        run.stdout,
        run.stderr
    );
    run
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_path_and_environment_log_in_as_the_mysql_client_would() {
    let server = PrivateServer::start(ServerConfig::default());
    let account = Account::create(&server, "lp_user", PASSWORD, "PROCESS").await;
    let port = server.port().to_string();
    let dir = tempfile::tempdir().unwrap();
    // [client] has a wrong password; the login path [prod] the right one.
    let login = write_login_file(
        dir.path(),
        &format!(
            "[client]\nuser = \"{}\"\npassword = \"wrong-one\"\nhost = \"127.0.0.1\"\nport = {port}\n\
             [prod]\npassword = \"{PASSWORD}\"\n",
            account.user
        ),
    );
    let login_env = [("MYSQL_TEST_LOGIN_FILE", login.to_str().unwrap())];

    once(&["--no-defaults", "--login-path", "prod"], &login_env).ok("--login-path prod");
    // Without --login-path only [client] counts: its password is wrong.
    let denied = once(&["--no-defaults"], &login_env);
    assert_eq!(denied.code, Some(18), "{}", denied.stderr);
    // After the subcommand too.
    let demo = dir.path().join("none.idbt");
    let r = run_with(
        &[
            "record",
            demo.to_str().unwrap(),
            "--duration",
            "1s",
            "--login-path",
            "prod",
            "--no-defaults",
            "--ssl-mode",
            "DISABLED",
        ],
        &login_env,
        None,
    );
    assert_eq!(r.code, Some(0), "record --login-path prod:\n{}", r.stderr);

    // The default place is ~/.mylogin.cnf.
    once(
        &["--no-defaults", "--login-path", "prod"],
        &[("HOME", dir.path().to_str().unwrap())],
    )
    .ok("~/.mylogin.cnf");

    // The environment: MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_PWD when nothing else says.
    let empty_home = tempfile::tempdir().unwrap();
    let home = empty_home.path().to_str().unwrap();
    let env = [
        ("HOME", home),
        ("MYSQL_HOST", "127.0.0.1"),
        ("MYSQL_TCP_PORT", port.as_str()),
        ("MYSQL_PWD", PASSWORD),
    ];
    once(&["--no-defaults", "-u", &account.user], &env).ok("MYSQL_* variables");
    // The command line wins over MYSQL_PWD.
    let r = once(
        &["--no-defaults", "-u", &account.user, "--password=nope"],
        &env,
    );
    assert_eq!(r.code, Some(18), "{}", r.stderr);
    // An option file wins over MYSQL_PWD (here the login file's right password over a wrong
    // variable), as mysql_real_connect reads MYSQL_PWD only when no option gave one.
    let wrong_env = [
        ("MYSQL_TEST_LOGIN_FILE", login.to_str().unwrap()),
        ("MYSQL_PWD", "wrong-too"),
    ];
    once(&["--no-defaults", "--login-path", "prod"], &wrong_env).ok("login file over MYSQL_PWD");
}

/// What the resolution does with a login file others may read, a damaged one, and a login
/// path that is not in the file.
#[test]
fn unusable_login_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let login = write_login_file(dir.path(), "[client]\nuser = ann\n[prod]\npassword = pw\n");
    let env = Environment {
        os_user: Some("osuser".into()),
        ..Environment::default()
    };
    let resolve = |args: &[&str]| {
        let mut all = vec![
            "innodebt",
            "--no-defaults",
            "--login-file",
            login.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        parse_args(all)
            .unwrap()
            .connection
            .resolve(&env, &mut |_| panic!("no prompt"))
    };

    let r = resolve(&["--login-path", "prod"]).unwrap();
    assert_eq!(r.options.user, "ann");
    assert_eq!(r.options.password.as_ref().map(|p| p.expose()), Some("pw"));
    assert!(r.files_read.contains(&login), "{:?}", r.files_read);

    let r = resolve(&["--login-path", "staging"]).unwrap();
    assert!(r.options.password.is_none());
    assert!(
        r.warnings.iter().any(|w| w.contains("[staging]")),
        "{:?}",
        r.warnings
    );

    // Readable by others: ignored, as the mysql client does, and said.
    std::fs::set_permissions(&login, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = resolve(&[]).unwrap();
    assert_eq!(r.options.user, "osuser");
    assert!(
        r.warnings.iter().any(|w| w.contains("chmod 600")),
        "{:?}",
        r.warnings
    );

    // Damaged: an error when the login path was asked for, naming the file and the fix.
    std::fs::write(&login, b"not a login file at all, just text").unwrap();
    std::fs::set_permissions(&login, std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = resolve(&["--login-path", "prod"]).unwrap_err().to_string();
    assert!(
        e.contains(login.to_str().unwrap()) && e.contains("mysql_config_editor"),
        "{e}"
    );
    let r = resolve(&[]).unwrap();
    assert!(
        r.warnings.iter().any(|w| w.contains("login file")),
        "{:?}",
        r.warnings
    );
}

mod props {
    use proptest::prelude::*;

    use super::encode;
    use innodebt_server::mycnf::login::decode;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// What mysql_config_editor writes, any text and any key, decodes to that text.
        #[test]
        fn encoded_text_decodes_back(
            lines in proptest::collection::vec("[^\n]{0,80}", 0..8),
            key in any::<[u8; 20]>(),
        ) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            prop_assert_eq!(decode(&encode(&text, key)).unwrap(), text);
        }

        /// Any bytes: a text or a named error, never a panic; a damaged valid file too.
        #[test]
        fn any_bytes_never_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            flip in any::<prop::sample::Index>(),
        ) {
            let _ = decode(&bytes);
            let mut file = encode("[client]\nuser = ann\npassword = x\n", *b"0123456789abcdefghij");
            let at = flip.index(file.len());
            file[at] ^= 0x5a;
            let _ = decode(&file);
            file.truncate(at);
            let _ = decode(&file);
        }
    }
}
