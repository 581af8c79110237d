//! The crate as published: its `rust-version` is no lower than what the locked dependencies
//! declare they need (so `cargo install --locked` on an older toolchain says "needs 1.89"
//! instead of failing deep in a dependency), and `cargo package --list` holds the code, what it
//! embeds, the docs and the licences — nothing of the test harness, and not the sample corpus.
//! The packages themselves (`cargo package --workspace --no-verify`) are made in `.ci/run`.

use std::path::Path;
use std::process::Command;

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn version(v: &str) -> (u64, u64, u64) {
    let mut parts = v
        .split('.')
        .map(|p| p.parse::<u64>().expect("a numeric version part"));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// The host's target triple (`rustc -vV`): the platform the tests build for.
fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// `rust-version` is at least the highest one among the packages the locked tree builds on
/// this platform (and at least 1.85, edition 2024's), as `cargo metadata` reads them.
#[test]
fn rust_version_covers_every_locked_dependency() {
    let out = cargo()
        .args([
            "metadata",
            "--locked",
            "--format-version",
            "1",
            "--filter-platform",
        ])
        .arg(host_triple())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let in_graph: std::collections::BTreeSet<&str> = meta["resolve"]["nodes"]
        .as_array()
        .expect("resolve.nodes")
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    let mut ours = None;
    let mut needed = ((1, 85, 0), "edition 2024".to_string());
    for p in meta["packages"].as_array().expect("packages") {
        let (Some(id), Some(name)) = (p["id"].as_str(), p["name"].as_str()) else {
            continue;
        };
        let rv = p["rust_version"].as_str();
        if name == "innodebt" {
            ours = rv.map(version);
            continue;
        }
        if !in_graph.contains(id) {
            continue;
        }
        if let Some(v) = rv.map(version)
            && v > needed.0
        {
            needed = (
                v,
                format!("{name} {}", p["version"].as_str().unwrap_or("?")),
            );
        }
    }
    let ours = ours.expect("Cargo.toml sets rust-version");
    assert!(
        ours >= needed.0,
        "Cargo.toml's rust-version {ours:?} is lower than {:?}, which {} needs: raise it (and \
         its comment)",
        needed.0,
        needed.1
    );
}

/// What `cargo package` would publish: nothing outside the code, its embedded files, the docs
/// and the licences.
#[test]
fn the_package_holds_nothing_stray() {
    let out = cargo()
        .args(["package", "--list", "--locked", "--allow-dirty"])
        .output()
        .expect("cargo package --list runs");
    assert!(
        out.status.success(),
        "cargo package --list failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = list.lines().collect();
    let top = [
        "Cargo.toml",
        "Cargo.toml.orig",
        "Cargo.lock",
        "build.rs",
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        ".cargo_vcs_info.json",
    ];
    let allowed = |f: &str| {
        top.contains(&f)
            || (f.starts_with("src/") && f.ends_with(".rs"))
            || (f.starts_with("themes/") && f.ends_with(".toml"))
            || (f.starts_with("demo/") && f.ends_with(".idbt"))
            || (f.starts_with("docs/") && f.ends_with(".md"))
    };
    let stray: Vec<&&str> = files.iter().filter(|f| !allowed(f)).collect();
    assert!(stray.is_empty(), "stray files in the package: {stray:?}");
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "src/main.rs",
        "src/lib.rs",
        "demo/mariadb-10.11-blocker.idbt",
        "themes/dark.toml",
    ] {
        assert!(files.contains(&needed), "{needed} missing from the package");
    }
    // Every file the code embeds is in the package (else the package does not build).
    for f in [
        "themes/light.toml",
        "themes/high-contrast.toml",
        "themes/colorblind.toml",
    ] {
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(f).is_file() && files.contains(&f),
            "{f} missing from the package"
        );
    }
}

/// CI runs the README's test command, word for word: the first command of the README's Test
/// section is the one `.ci/run` runs (and a newcomer who copies it runs what CI ran).
#[test]
fn ci_runs_the_readme_test_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let section = readme
        .split("\n## Test\n")
        .nth(1)
        .expect("README.md has a ## Test section");
    let command = section
        .split("```sh\n")
        .nth(1)
        .and_then(|block| block.lines().next())
        .expect("the Test section opens with a sh block")
        .trim()
        .to_string();
    assert!(command.starts_with("cargo test"), "{command}");
    let ci = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    let runs: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("cargo test"))
        // Building (and linting) every target first is not running the tests.
        .filter(|l| !l.contains("--no-run"))
        .collect();
    assert_eq!(
        runs,
        vec![command.as_str()],
        ".ci/run must run exactly the README's test command, once"
    );
}
