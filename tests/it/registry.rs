//! The registry of figures ([`FigureId`]) is the one list: every figure is watched by the
//! trigger grammar (the trigger's own tests), in the JSON (the figures' own tests), and here:
//! a CSV column or listed as left out with a reason, an OpenMetrics family or listed as not
//! exported with a reason — and where it is a column or a family, the value there is the
//! registry's. A figure added to the registry fails here until each reader has said.

use std::collections::BTreeMap;

use crate::common::openmetrics::parse;
use innodebt::export::{NOT_IN_CSV, csv_columns, csv_figures, export_csv_figures};
use innodebt::openmetrics::families::FIGURES;
use innodebt::openmetrics::figures::{NOT_EXPORTED, exported, in_family_unit};
use innodebt::openmetrics::{Exposition, Format};
use innodebt_engine::figures::{Blocker, FigureId, Figures, Unit};

/// Figures with a distinct number at every numeric path (a flag true), so a reader that
/// reads another field than its figure's shows.
fn populated() -> Figures {
    let f = Figures {
        blocker: Some(Blocker::default()),
        ..Figures::default()
    };
    let mut json = serde_json::to_value(&f).expect("figures serialise");
    for (i, id) in FigureId::ALL.iter().enumerate() {
        let value = match id.unit() {
            Unit::Flag => serde_json::json!(true),
            _ if *id == FigureId::Blocker => continue,
            u if u.is_number() => serde_json::json!(100 + i),
            _ => continue,
        };
        *json.pointer_mut(&id.pointer()).expect("path") = value;
    }
    json["blocker"]["age_s"] = serde_json::json!(77);
    serde_json::from_value(json).expect("figures back")
}

/// Every id once, in exactly one of the two lists.
fn partition(listed: &[FigureId], left_out: &[(FigureId, &str)], what: &str) {
    let mut seen: BTreeMap<FigureId, usize> = BTreeMap::new();
    for id in listed.iter().chain(left_out.iter().map(|(id, _)| id)) {
        *seen.entry(*id).or_default() += 1;
    }
    for id in FigureId::ALL {
        match seen.get(id) {
            Some(1) => {}
            Some(n) => panic!("{id:?} ({}) is listed {n} times for {what}", id.path()),
            None => panic!(
                "{id:?} ({}) is neither in {what} nor listed as left out with a reason",
                id.path()
            ),
        }
    }
    for (id, why) in left_out {
        assert!(
            !why.trim().is_empty(),
            "{id:?}: left out of {what} without a reason"
        );
    }
}

#[test]
fn every_figure_is_a_csv_column_or_left_out_with_a_reason() {
    let columns: Vec<FigureId> = csv_figures().iter().map(|(id, _)| *id).collect();
    partition(&columns, NOT_IN_CSV, "the CSV");
    // The column holds the registry's value.
    let f = populated();
    let mut out = Vec::new();
    export_csv_figures([Ok(f.clone())], &[], &mut out).expect("csv");
    let mut rdr = csv::Reader::from_reader(&out[..]);
    let row = rdr.records().next().expect("a row").expect("csv row");
    let names = csv_columns();
    for (id, column) in csv_figures() {
        let at = names.iter().position(|n| *n == column).expect("column");
        if !id.unit().is_number() {
            continue;
        }
        let cell: f64 = row[at].parse().expect("a number");
        let want = id.number(&f).expect("populated");
        assert!(
            (cell - want).abs() < 1e-9,
            "{column}: {cell} vs {want} ({id:?})"
        );
    }
}

/// The families name the figures they carry; each carried number is the registry's, in the
/// family's unit.
#[test]
fn every_figure_is_a_family_or_not_exported_with_a_reason() {
    let carried = exported();
    let ids: Vec<FigureId> = carried.iter().map(|c| c.id).collect();
    partition(&ids, NOT_EXPORTED, "the OpenMetrics families");
    let f = populated();
    let mut e = Exposition::new();
    e.add_figures(&f, None);
    let scrape = parse(&e.render(Format::OpenMetrics)).expect("parses");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
    for c in &carried {
        assert!(FIGURES.iter().any(|fam| fam.name == c.family), "{c:?}");
        // Words (the flush regime) are a StateSet's states, no number.
        let Some(want) = c.id.number(&f) else {
            assert!(!c.id.unit().is_number(), "{c:?}: populated, yet unknown");
            continue;
        };
        let sample = scrape
            .all(c.family)
            .find(|s| match c.label {
                None => s.labels.is_empty(),
                Some((k, v)) => s.label(k) == Some(v),
            })
            .unwrap_or_else(|| panic!("{c:?}: no sample in the scrape"));
        let in_unit = in_family_unit(c.id, want);
        assert!(
            close(sample.value, in_unit),
            "{c:?}: {} vs {in_unit}",
            sample.value
        );
    }
}
