//! A throwaway Debian system with systemd as its init, to install packages into: the host's
//! own root as the lower layer of an overlay whose writes go to a tmpfs, booted by
//! `systemd-nspawn` with no network but loopback. Nothing it does reaches the host: the mounts
//! live in a private mount namespace (`unshare --mount`) that dies with it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub struct Container {
    /// `unshare`, exec'd into `systemd-nspawn`.
    nspawn: Child,
    /// The container's PID 1 (systemd), as the host sees it.
    init: u32,
}

/// The tools a container needs, or the first missing one.
pub fn missing_tool() -> Option<&'static str> {
    ["systemd-nspawn", "unshare", "nsenter"]
        .into_iter()
        .find(|tool| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

impl Container {
    /// Boots the container, with `share` visible read-only at `/share` inside; returns once
    /// its systemd reports the system running.
    pub fn boot(name: &str, share: &Path) -> Container {
        let script = r#"set -e
o=$(mktemp -d)
mount -t tmpfs -o mode=0755 tmpfs "$o"
mkdir "$o/up" "$o/work" "$o/root"
mount -t overlay overlay -o lowerdir=/,upperdir="$o/up",workdir="$o/work" "$o/root"
exec systemd-nspawn --quiet --directory="$o/root" --boot --register=no --keep-unit \
    --private-network --machine="$1" --bind-ro="$2":/share \
    -- systemd.firstboot=off systemd.unit=basic.target"#;
        let nspawn = Command::new("unshare")
            .args([
                "--mount",
                "--propagation",
                "private",
                "--",
                "sh",
                "-c",
                script,
                "sh",
            ])
            .arg(name)
            .arg(share)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("unshare/systemd-nspawn starts");
        let pid = nspawn.id();
        let mut container = Container { nspawn, init: 0 };
        super::wait::wait_until(
            Duration::from_secs(60),
            "the container's systemd to reach a running system",
            || {
                if let Some(init) = child_of(pid).filter(|&c| comm(c).as_deref() == Some("systemd"))
                {
                    container.init = init;
                    let state = container.sh("systemctl is-system-running || true");
                    let state = String::from_utf8_lossy(&state.stdout).trim().to_owned();
                    if state == "running" || state == "degraded" {
                        return true;
                    }
                }
                if let Ok(Some(status)) = container.nspawn.try_wait() {
                    let mut err = String::new();
                    if let Some(mut e) = container.nspawn.stderr.take() {
                        let _ = std::io::Read::read_to_string(&mut e, &mut err);
                    }
                    panic!("systemd-nspawn exited ({status}) before the container ran: {err}");
                }
                false
            },
        );
        container
    }

    /// Runs `script` with `sh -c` inside the container (all its namespaces).
    pub fn sh(&self, script: &str) -> Output {
        Command::new("nsenter")
            .args([
                "-t",
                &self.init.to_string(),
                "-m",
                "-u",
                "-i",
                "-n",
                "-p",
                "--",
            ])
            .args(["sh", "-c", script])
            .output()
            .expect("nsenter runs")
    }

    /// Runs `script` inside and returns its stdout, failing the test when it fails.
    pub fn run(&self, script: &str) -> String {
        let out = self.sh(script);
        assert!(
            out.status.success(),
            "in the container: {script}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Polls `script`'s stdout inside until `ok` holds, for at most `within`; returns the
    /// last output, failing the test with `what` when time runs out.
    pub fn wait_for(
        &self,
        what: &str,
        within: Duration,
        script: &str,
        ok: impl Fn(&str) -> bool,
    ) -> String {
        super::wait::wait_for(
            within,
            super::wait::OnTimeout(|| {
                let out = self.sh(script);
                format!(
                    "{what}; `{script}` says {:?} {}",
                    String::from_utf8_lossy(&out.stdout).trim(),
                    String::from_utf8_lossy(&out.stderr)
                )
            }),
            || {
                let out = self.sh(script);
                let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                ok(&text).then_some(text)
            },
        )
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        // SIGRTMIN+4 asks systemd for a clean poweroff; the overlay then goes with the namespace.
        let _ = Command::new("kill")
            .args(["-s", "SIGRTMIN+4", &self.init.to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if matches!(self.nspawn.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.nspawn.kill();
        let _ = self.nspawn.wait();
    }
}

fn child_of(pid: u32) -> Option<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn comm(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_owned())
}
