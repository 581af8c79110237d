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

/// What a series measures, from its name (Prometheus's naming conventions), as the Grafana
/// unit that shows it: one panel, one unit, one axis.
fn unit_class(expr: &str, name: &str) -> &'static str {
    if expr.starts_with("rate(") && name.ends_with("_seconds_total") {
        "share of time" // seconds per second
    } else if name.ends_with("_bytes") {
        "bytes"
    } else if name.ends_with("_seconds") || name.contains("_seconds_to_") {
        "seconds"
    } else if name.ends_with("_ratio") {
        "ratio"
    } else if name.ends_with("_per_second") {
        "per second"
    } else if name == "innodebt_up" || name == "innodebt_severity" || name == "innodebt_verdict" {
        "state"
    } else {
        "count"
    }
}

/// `… * 16384`, `… / 1e6`: a series multiplied or divided by a number.
fn scales_by_constant(expr: &str) -> bool {
    expr.match_indices(['*', '/']).any(|(at, _)| {
        expr[at + 1..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn each_grafana_panel_charts_one_unit_on_its_axis() {
    let text = std::fs::read_to_string(contrib("grafana/innodebt.json")).unwrap();
    let dash: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    for p in dash["panels"].as_array().expect("panels") {
        let title = p["title"].as_str().unwrap_or("?");
        let mut classes: Vec<&str> = Vec::new();
        for t in p["targets"].as_array().into_iter().flatten() {
            let expr = t["expr"].as_str().expect("expr");
            // A constant factor hides a conversion (pages × 16 KiB, seconds × 1e6) that the
            // exporter's own unit does not say.
            assert!(
                !scales_by_constant(expr),
                "panel {title:?} scales a series by a constant: {expr}"
            );
            for name in metric_names(expr) {
                let class = unit_class(expr, &name);
                if !classes.contains(&class) {
                    classes.push(class);
                }
            }
        }
        assert_eq!(classes.len(), 1, "panel {title:?} mixes units: {classes:?}");
        let unit = p["fieldConfig"]["defaults"]["unit"].as_str();
        let want = match classes[0] {
            "bytes" => Some("bytes"),
            "seconds" => Some("s"),
            "ratio" | "share of time" => Some("percentunit"),
            "count" | "per second" => Some("short"),
            _ => unit, // states are drawn through value mappings
        };
        assert_eq!(unit, want, "panel {title:?}: unit for {}", classes[0]);
    }
}

/// The colour a state-timeline panel gives value `value` of the series shown as `name`: the
/// first override whose regexp (only `.* word$` forms are used) matches, else the defaults.
fn timeline_colour(panel: &serde_json::Value, name: &str, value: &str) -> String {
    let fc = &panel["fieldConfig"];
    let mut mappings = &fc["defaults"]["mappings"];
    for o in fc["overrides"].as_array().into_iter().flatten() {
        let re = o["matcher"]["options"].as_str().expect("matcher");
        let word = re
            .strip_prefix(".* ")
            .and_then(|r| r.strip_suffix('$'))
            .unwrap_or_else(|| panic!("unexpected matcher {re}"));
        if name.ends_with(&format!(" {word}")) {
            mappings = &o["properties"][0]["value"];
        }
    }
    mappings[0]["options"][value]["color"]
        .as_str()
        .unwrap_or_else(|| panic!("no colour for {name}={value}: {mappings}"))
        .to_string()
}

#[test]
fn the_verdict_timeline_colours_healthy_green_and_only_problems_red() {
    let text = std::fs::read_to_string(contrib("grafana/innodebt.json")).unwrap();
    let dash: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let timeline = dash["panels"]
        .as_array()
        .expect("panels")
        .iter()
        .find(|p| p["title"] == "Verdict")
        .expect("a Verdict panel");
    assert_eq!(timeline["type"], "state-timeline");
    for kind in innodebt::openmetrics::families::VERDICT_STATES {
        let name = format!("db1 {}", kind.as_str());
        let holds = timeline_colour(timeline, &name, "1");
        match kind.as_str() {
            "healthy" => assert_eq!(holds, "green", "{name}"),
            "unknown" => assert!(holds != "red" && holds != "green", "{name}: {holds}"),
            _ => assert_eq!(holds, "red", "{name}"),
        }
        assert_eq!(
            timeline_colour(timeline, &name, "0"),
            "transparent",
            "{name}"
        );
    }
    // The worst-severity row: ok green, warning orange, critical red, unknown neither.
    for (value, colour) in [
        ("0", "green"),
        ("1", "orange"),
        ("2", "red"),
        ("-1", "text"),
    ] {
        assert_eq!(timeline_colour(timeline, "db1 severity", value), colour);
    }
}
