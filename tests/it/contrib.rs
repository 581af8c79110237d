//! What ships in `contrib/`: the Prometheus alerting rules pass `promtool check rules` and
//! their own `promtool test rules` cases (each alert fires on the series that should fire it),
//! and the Grafana dashboard is valid JSON whose every query names only metrics innodebt
//! exports (so a renamed metric cannot silently empty a panel or an alert).

use crate::common;

use common::serve::promtool;
use std::path::Path;

fn contrib(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("contrib")
        .join(path)
}

/// Every `innodebt_…` identifier in a PromQL expression.
fn metric_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("innodebt_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let before = rest[..at].chars().last();
        // A label name inside braces (`innodebt_verdict="…"`) is followed by `=`/`!`/`~`.
        let after = tail[end..].trim_start().chars().next();
        let is_label = matches!(after, Some('=') | Some('!') | Some('~'))
            && before.is_some_and(|c| c == '{' || c == ',' || c == ' ');
        if !is_label {
            out.push(tail[..end].to_string());
        }
        rest = &tail[end..];
    }
    out
}

#[test]
fn alert_rules_pass_promtool() {
    let rules = contrib("prometheus/alerts.yml");
    promtool(&["check", "rules", rules.to_str().unwrap()], None);
    let cases = contrib("prometheus/alerts_test.yml");
    promtool(&["test", "rules", cases.to_str().unwrap()], None);
    // Every metric the rules use is one innodebt exports.
    let known = innodebt::openmetrics::sample_names();
    let text = std::fs::read_to_string(&rules).unwrap();
    let exprs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("expr:"))
        .collect();
    assert!(exprs.len() >= 8, "{exprs:?}");
    for e in exprs {
        for name in metric_names(e) {
            assert!(
                known.contains(&name),
                "alerts.yml uses {name}, which innodebt does not export"
            );
        }
    }
    // Both kinds are there: verdict-based and trajectory-based.
    for needed in [
        "innodebt_verdict{innodebt_verdict=\"blocked_by_read_view\"}",
        "innodebt_seconds_to_stall_point",
        "innodebt_history_seconds_to_max_purge_lag",
        "innodebt_purge_blocker_age_seconds",
    ] {
        assert!(text.contains(needed), "alerts.yml lacks a rule on {needed}");
    }
}

#[test]
fn the_grafana_dashboard_queries_only_exported_metrics() {
    let text = std::fs::read_to_string(contrib("grafana/innodebt.json")).unwrap();
    let dash: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let panels = dash["panels"].as_array().expect("panels");
    let titles: Vec<&str> = panels.iter().filter_map(|p| p["title"].as_str()).collect();
    for six in innodebt::app::Panel::ALL {
        let want = format!("{} {}", six.number(), six.title());
        assert!(
            titles.contains(&want.as_str()),
            "no panel {want:?} in {titles:?}"
        );
    }
    let known = innodebt::openmetrics::sample_names();
    let mut used = 0;
    for p in panels {
        for t in p["targets"].as_array().into_iter().flatten() {
            let expr = t["expr"].as_str().expect("expr");
            for name in metric_names(expr) {
                assert!(
                    known.contains(&name),
                    "panel {:?} queries {name}, which innodebt does not export",
                    p["title"]
                );
                used += 1;
            }
        }
    }
    assert!(used >= 20, "{used}");
    assert_eq!(
        metric_names("innodebt_verdict{innodebt_verdict=\"x\"}"),
        ["innodebt_verdict"]
    );
}
