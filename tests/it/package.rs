//! The Debian package: `packaging/build-deb.sh` builds it with dpkg-deb from this checkout's
//! binary; it holds the binary, man pages and shell completions generated from the clap
//! definitions, the systemd unit for `serve` (running as its own user, config in /etc), the
//! config files as conffiles and the contrib files. `systemd-analyze verify` accepts the unit,
//! lintian finds no error (in CI both tools are required; elsewhere a missing one is said
//! loudly), and the shipped config starts `innodebt serve`.

use crate::common;

use std::io::Read;
use std::path::Path;
use std::process::Command;

use common::serve::Serve;

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn gunzip(path: &Path) -> String {
    let out = run(Command::new("gzip").arg("-dc").arg(path));
    let mut s = String::new();
    out.as_bytes()
        .read_to_string(&mut s)
        .expect("gunzip output as text");
    s
}

#[test]
fn the_debian_package_installs_binary_man_completions_and_service() {
    let out = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = run(Command::new(root.join("packaging/build-deb.sh"))
        .env("INNODEBT_BIN", common::innodebt_bin())
        // What the package holds is under test here, not dpkg-deb's xz (~20 s of CPU).
        .env("DEB_COMPRESS", "gzip")
        .env("OUT_DIR", out.path()));
    let deb = Path::new(built.trim());
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        deb.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("innodebt_{version}_")),
        "{deb:?}"
    );
    let listing = run(Command::new("dpkg-deb").arg("-c").arg(deb));
    for path in [
        "./usr/bin/innodebt",
        "./usr/share/man/man1/innodebt.1.gz",
        "./usr/share/man/man1/innodebt-serve.1.gz",
        "./usr/share/man/man1/innodebt-fleet.1.gz",
        "./usr/share/bash-completion/completions/innodebt",
        "./usr/share/zsh/vendor-completions/_innodebt",
        "./usr/share/fish/vendor_completions.d/innodebt.fish",
        "./lib/systemd/system/innodebt.service",
        "./etc/innodebt/innodebt.toml",
        "./etc/innodebt/my.cnf",
        "./etc/default/innodebt",
        "./usr/share/innodebt/prometheus/alerts.yml",
        "./usr/share/innodebt/grafana/innodebt.json",
        "./usr/share/doc/innodebt/copyright",
        "./usr/share/doc/innodebt/docs/prometheus.md.gz",
    ] {
        assert!(
            listing.lines().any(|l| l.ends_with(path)),
            "{path} missing from the package:\n{listing}"
        );
    }
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("-rw-r-----") && l.ends_with("./etc/innodebt/my.cnf")),
        "the client option file is not world-readable:\n{listing}"
    );
    let info = run(Command::new("dpkg-deb").arg("-I").arg(deb));
    assert!(info.contains("Package: innodebt"), "{info}");
    assert!(info.contains(&format!("Version: {version}")), "{info}");
    assert!(info.contains("Depends: adduser"), "{info}");
    let ctrl = tempfile::tempdir().unwrap();
    run(Command::new("dpkg-deb").arg("-e").arg(deb).arg(ctrl.path()));
    let conffiles = std::fs::read_to_string(ctrl.path().join("conffiles")).unwrap();
    assert_eq!(
        conffiles,
        "/etc/default/innodebt\n/etc/innodebt/innodebt.toml\n/etc/innodebt/my.cnf\n"
    );
    let postinst = std::fs::read_to_string(ctrl.path().join("postinst")).unwrap();
    assert!(postinst.contains("adduser --system --group"), "{postinst}");
    let default = std::fs::read_to_string(root.join("packaging/debian/default")).unwrap();
    assert!(
        default.lines().any(|l| l == "ARGS=\"\""),
        "/etc/default/innodebt sets ARGS as Debian's exporters do:\n{default}"
    );

    // The files themselves.
    let x = tempfile::tempdir().unwrap();
    run(Command::new("dpkg-deb").arg("-x").arg(deb).arg(x.path()));
    let bin = x.path().join("usr/bin/innodebt");
    assert!(run(Command::new(&bin).arg("--version")).contains(version));
    let man = gunzip(&x.path().join("usr/share/man/man1/innodebt-serve.1.gz"));
    assert!(man.contains(".TH innodebt-serve 1"), "{man:.300}");
    assert!(
        man.contains("record\\-dir") || man.contains("record-dir"),
        "{man}"
    );
    let bash = std::fs::read_to_string(
        x.path()
            .join("usr/share/bash-completion/completions/innodebt"),
    )
    .unwrap();
    assert!(bash.contains("serve") && bash.contains("fleet") && bash.contains("--record-dir"));
    let unit =
        std::fs::read_to_string(x.path().join("lib/systemd/system/innodebt.service")).unwrap();
    for line in [
        "User=innodebt",
        "EnvironmentFile=-/etc/default/innodebt",
        "ExecStart=/usr/bin/innodebt --defaults-file=/etc/innodebt/my.cnf serve --config /etc/innodebt/innodebt.toml $ARGS",
        "StateDirectory=innodebt",
        "WantedBy=multi-user.target",
    ] {
        assert!(
            unit.lines().any(|l| l == line),
            "unit lacks {line:?}:\n{unit}"
        );
    }

    // The unit, as systemd reads it (its ExecStart pointed at the extracted binary).
    if have("systemd-analyze") {
        let local = x.path().join("innodebt.service");
        std::fs::write(
            &local,
            unit.replace("/usr/bin/innodebt", bin.to_str().unwrap()),
        )
        .unwrap();
        let out = Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(&local)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && said.trim().is_empty(),
            "systemd-analyze verify: {said}"
        );
    } else {
        common::gate::missing::<()>(
            "systemd-analyze is not installed",
            "apt-get install systemd",
            "`systemd-analyze verify` of the unit",
        );
    }
    if have("lintian") {
        let out = Command::new("lintian").arg(deb).output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            !said.lines().any(|l| l.starts_with("E:")),
            "lintian errors:\n{said}"
        );
    } else {
        common::gate::missing::<()>(
            "lintian is not installed",
            "apt-get install lintian",
            "lintian of the package",
        );
    }

    // The shipped config starts the service's command (recording to a temp dir here).
    let rec = tempfile::tempdir().unwrap();
    let mut serve = Serve::start(&[
        "--no-defaults".into(),
        "serve".into(),
        "--config".into(),
        x.path()
            .join("etc/innodebt/innodebt.toml")
            .display()
            .to_string(),
        "--listen".into(),
        "127.0.0.1:0".into(),
        "--record-dir".into(),
        rec.path().display().to_string(),
        "--probe-only".into(),
    ]);
    assert_eq!(serve.get("/healthz").status, 200);
    assert!(
        serve.log().contains("retain 2d 00h, max 500.0 MiB"),
        "{}",
        serve.log()
    );
    let status = serve.terminate();
    assert!(status.success(), "{status:?}: {}", serve.log());
}
