//! A capture read back through the binary's own `export --format json`, as a DBA would: the
//! figures the import tests compare, sample by sample.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::server::innodebt_bin;

/// (sample time, history length, checkpoint age) of every sample of `file`.
pub fn history_and_age(file: &Path) -> Vec<(DateTime<Utc>, Option<f64>, Option<f64>)> {
    let out = Command::new(innodebt_bin())
        .arg("--no-defaults")
        .args(["export", &file.display().to_string(), "--format", "json"])
        .output()
        .expect("run innodebt export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let at = v["sampled_at"]
                .as_str()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                .unwrap_or_else(|| panic!("no sampled_at: {l}"))
                .with_timezone(&Utc);
            (
                at,
                v["history"]["length"].as_f64(),
                v["redo"]["checkpoint_age_bytes"].as_f64(),
            )
        })
        .collect()
}
