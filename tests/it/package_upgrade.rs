//! The Debian package's life with a real systemd (a throwaway container booted from this
//! machine's own system, `common::container`): install enables and starts `innodebt serve`,
//! an upgrade restarts it so the new binary runs, remove stops it and keeps its data, purge
//! drops the data and the user. Also: `systemd-analyze security` scores the unit "OK" (≤ 2.0).

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::container::{self, Container};

fn build_deb(version: &str, out: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = Command::new(root.join("packaging/build-deb.sh"))
        .env("INNODEBT_BIN", common::innodebt_bin())
        .env("DEB_VERSION", version)
        // The package's life is under test here, not its compression (xz takes ~20 s of CPU).
        .env("DEB_COMPRESS", "gzip")
        .env("OUT_DIR", out)
        .output()
        .expect("build-deb.sh runs");
    assert!(
        built.status.success(),
        "build-deb.sh: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let deb = String::from_utf8_lossy(&built.stdout).trim().to_owned();
    let name = Path::new(&deb).file_name().expect("a .deb path");
    name.to_string_lossy().into_owned()
}

/// The service's main process and the binary it runs, as `pid exe`.
#[test]
fn install_enables_upgrade_restarts_remove_keeps_data_purge_drops_it() {
    if let Some(tool) = container::missing_tool() {
        common::gate::missing::<()>(
            &format!("{tool} is not installed"),
            "apt-get install systemd-container util-linux",
            "the package upgrade test",
        );
        return;
    }
    let debs = tempfile::tempdir().expect("tempdir");
    let v1 = build_deb("0.1.0~test1", debs.path());
    let v2 = build_deb("0.1.0~test2", debs.path());
    let c = Container::boot(&format!("innodebt-pkg-{}", std::process::id()), debs.path());
    // A container image's policy-rc.d forbids starting services (exit 101); a real system
    // has none, and the package's start on install is under test.
    c.run("rm -f /usr/sbin/policy-rc.d");
    // man-db's trigger would rebuild the whole host's manual database on each install (about
    // 15 s of CPU each time); the package's man pages are checked by `package.rs`.
    c.run("rm -f /var/lib/man-db/auto-update");

    // Install: enabled, started, running the installed binary.
    c.run(&format!("dpkg -i /share/{v1} >/dev/null"));
    assert_eq!(c.run("systemctl is-enabled innodebt.service"), "enabled");
    c.wait_for(
        "the service to run",
        Duration::from_secs(20),
        "systemctl is-active innodebt.service",
        |s| s == "active",
    );
    let (pid1, exe1) = c.wait_for_main_process_other_than("0");
    assert_eq!(exe1, "/usr/bin/innodebt", "pid {pid1}");
    // It answers under the hardened unit (no server to poll here: innodebt_up is 0).
    let metrics = c.wait_for(
        "/metrics to answer",
        Duration::from_secs(20),
        "curl -s http://127.0.0.1:9385/metrics || true",
        |s| s.contains("innodebt_up"),
    );
    assert!(metrics.contains("innodebt_up"), "{metrics:.200}");
    c.run("touch /var/lib/innodebt/kept-on-remove");

    // Upgrade: the old process is gone, the new binary runs (not a deleted file).
    c.run(&format!("dpkg -i /share/{v2} >/dev/null"));
    assert_eq!(
        c.run("dpkg-query -W -f '${Version}' innodebt"),
        "0.1.0~test2"
    );
    let (pid2, exe2) = c.wait_for_main_process_other_than(&pid1);
    assert_eq!(
        exe2, "/usr/bin/innodebt",
        "after the upgrade pid {pid2} runs {exe2:?}"
    );
    assert_eq!(c.run("systemctl is-enabled innodebt.service"), "enabled");

    // An admin's `systemctl disable` survives an upgrade.
    c.run("systemctl disable innodebt.service 2>/dev/null");
    c.run(&format!("dpkg -i /share/{v2} >/dev/null"));
    assert_eq!(
        c.run("systemctl is-enabled innodebt.service || true"),
        "disabled"
    );
    c.run("systemctl enable innodebt.service 2>/dev/null");

    // Remove: stopped, data and user kept, the config files kept (conffiles).
    c.run("dpkg -r innodebt >/dev/null");
    assert_eq!(
        c.run("systemctl is-active innodebt.service || true"),
        "inactive"
    );
    c.run("test -f /var/lib/innodebt/kept-on-remove");
    c.run("getent passwd innodebt >/dev/null");
    c.run("test -f /etc/default/innodebt && test -f /etc/innodebt/innodebt.toml");

    // Purge: data, user and config gone.
    c.run("dpkg -P innodebt >/dev/null");
    c.run("test ! -e /var/lib/innodebt && test ! -e /etc/default/innodebt");
    c.run("! getent passwd innodebt >/dev/null");
}

trait MainProcess {
    fn wait_for_main_process_other_than(&self, old: &str) -> (String, String);
}

impl MainProcess for Container {
    /// The service's main process other than `old`, once it has exec'd: systemd calls a
    /// simple service active when it forks, while the child still runs systemd's own image.
    fn wait_for_main_process_other_than(&self, old: &str) -> (String, String) {
        let seen = self.wait_for(
            "the service's main process to exec",
            Duration::from_secs(20),
            "pid=$(systemctl show -p MainPID --value innodebt.service); \
             echo \"$pid $(readlink /proc/$pid/exe 2>/dev/null)\"",
            |s| {
                let (pid, exe) = s.split_once(' ').unwrap_or((s, ""));
                !pid.is_empty()
                    && pid != "0"
                    && pid != old
                    && !exe.is_empty()
                    && !exe.ends_with("/systemd")
            },
        );
        let (pid, exe) = seen.split_once(' ').unwrap_or((&seen, ""));
        (pid.to_string(), exe.to_string())
    }
}

#[test]
fn the_unit_scores_ok_in_systemd_analyze_security() {
    let unit = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/debian/innodebt.service");
    let out = match Command::new("systemd-analyze")
        .args(["security", "--offline=true", "--no-pager"])
        .arg(&unit)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            common::gate::missing::<()>(
                &format!("systemd-analyze cannot run ({e})"),
                "apt-get install systemd",
                "the unit's security score",
            );
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("Overall exposure level"))
        .unwrap_or_else(|| panic!("no overall score in:\n{text}"));
    let score: f64 = line
        .split(':')
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("unreadable score line {line:?}"));
    assert!(score <= 2.0, "systemd-analyze security: {line}\n{text}");
}
