//! Build facts for `innodebt_build_info`: the commit (`INNODEBT_REVISION` from the
//! environment wins — a package built from a tarball has no .git — else `git rev-parse`,
//! else "unknown") and the compiler's version.

use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=INNODEBT_REVISION");
    // A new commit (or checkout) changes the revision: watch HEAD and the branch refs (the
    // directory: a commit on a packed branch writes a new file there). Only paths that
    // exist: cargo takes a missing one as changed on every build, and a checkout without
    // packed-refs then rebuilt innodebt for each cargo command.
    for path in ["HEAD", "packed-refs", "refs/heads"] {
        if let Some(p) = output("git", &["rev-parse", "--git-path", path])
            && std::path::Path::new(&p).exists()
        {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    let revision = std::env::var("INNODEBT_REVISION")
        .ok()
        .filter(|r| !r.is_empty())
        .or_else(|| output("git", &["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = output(&rustc, &["--version"])
        .and_then(|v| v.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=INNODEBT_REVISION={revision}");
    println!("cargo:rustc-env=INNODEBT_RUSTC={version}");
}
