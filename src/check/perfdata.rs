//! The performance data of `check`, as the Monitoring Plugins guidelines write it:
//! `'label'=value[UOM];[warn];[crit];[min];[max]`, space-separated, `U` for a value that
//! cannot be read. Every figure a threshold can watch comes first (from the trigger's
//! registry, with the `--warning`/`--critical` ranges on it), then the other main figures.

use super::PluginThresholds;
use crate::trigger::{Figure, Op, Trigger};
use innodebt_engine::figures::{Figures, Unit};

/// One item. `value` `None` is `U`; numbers are plain decimals (no exponent, no grouping).
struct Item {
    label: &'static str,
    value: Option<f64>,
    uom: &'static str,
    warn: String,
    crit: String,
    min: Option<f64>,
    max: Option<f64>,
}

impl Item {
    fn new(label: &'static str, value: Option<f64>, uom: &'static str) -> Item {
        Item {
            label,
            value: value.filter(|v| v.is_finite()),
            uom,
            warn: String::new(),
            crit: String::new(),
            min: None,
            max: None,
        }
    }

    fn min(mut self, v: f64) -> Item {
        self.min = Some(v);
        self
    }

    fn max(mut self, v: Option<f64>) -> Item {
        self.max = v;
        self
    }

    fn render(&self) -> String {
        let value = match self.value {
            Some(v) => format!("{}{}", number(v), self.uom),
            None => "U".to_string(),
        };
        let mut fields = vec![
            value,
            self.warn.clone(),
            self.crit.clone(),
            self.min.map(number).unwrap_or_default(),
            self.max.map(number).unwrap_or_default(),
        ];
        // Trailing empty fields may be dropped.
        while fields.len() > 1 && fields.last().is_some_and(String::is_empty) {
            fields.pop();
        }
        format!("{}={}", label(self.label), fields.join(";"))
    }
}

/// A label is quoted when it has a space, `=` or a quote (a quote doubled inside).
fn label(l: &str) -> String {
    if l.contains([' ', '=', '\'']) {
        format!("'{}'", l.replace('\'', "''"))
    } else {
        l.to_string()
    }
}

/// Up to three decimals, trailing zeros dropped: `12.5`, `3`, `0.125`.
fn number(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The plugin range that alerts where the first threshold on `figure` holds: `>X` → `X`
/// (outside 0..X), `<X` → `X:` (below X). `>=`/`<=` read the same: a range cannot say "at".
fn range(set: &[Trigger], figure: Figure) -> String {
    set.iter()
        .find_map(|t| match t {
            Trigger::Threshold {
                figure: f,
                op,
                value,
                ..
            } if *f == figure => Some(match op {
                Op::Above | Op::AtLeast => number(*value),
                Op::Below | Op::AtMost => format!("{}:", number(*value)),
            }),
            _ => None,
        })
        .unwrap_or_default()
}

fn unit(figure: Figure) -> &'static str {
    match figure {
        Figure::CheckpointAgePct | Figure::CheckpointAgePctOfAsync | Figure::DirtyPct => "%",
        Figure::BlockerAge => "s",
        Figure::DmlDelayUs => "us",
        Figure::History => "",
        Figure::Id(id) => match id.unit() {
            Unit::Percent => "%",
            Unit::Seconds => "s",
            Unit::Microseconds => "us",
            Unit::Bytes => "B",
            _ => "",
        },
    }
}

/// The performance data of these figures, with the thresholds' ranges.
pub fn perfdata(f: &Figures, t: &PluginThresholds) -> String {
    let u = |v: Option<u64>| v.map(|v| v as f64);
    let mut items: Vec<Item> = Figure::ALL
        .iter()
        .map(|&figure| {
            let pct_of_capacity = matches!(figure, Figure::CheckpointAgePct | Figure::DirtyPct);
            Item {
                warn: range(&t.warning, figure),
                crit: range(&t.critical, figure),
                ..Item::new(figure.name(), figure.value(f), unit(figure))
                    .min(0.0)
                    .max(pct_of_capacity.then_some(100.0))
            }
        })
        .collect();
    let r = &f.redo;
    items.extend([
        Item::new("checkpoint_age", u(r.checkpoint_age_bytes), "B")
            .min(0.0)
            .max(u(r.capacity_bytes)),
        Item::new("async_point", u(r.async_point_bytes), "B").min(0.0),
        Item::new("redo_written_bytes_per_s", r.written_bytes_per_s, "").min(0.0),
        Item::new("history_growth_per_s", f.history.growth_per_s, ""),
        Item::new("purge_records_per_s", f.purge.records_per_s, "").min(0.0),
        Item::new("purge_lag_trx_numbers", u(f.purge.lag_trx_numbers), "").min(0.0),
        Item::new("open_rw_trx", u(f.purge.open_rw_trx), "").min(0.0),
        Item::new(
            "recovery_estimate",
            f.recovery.as_ref().map(|r| r.estimate_s),
            "s",
        )
        .min(0.0),
    ]);
    let rendered: Vec<String> = items.iter().map(Item::render).collect();
    rendered.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_follow_the_guidelines() {
        assert_eq!(number(12.0), "12");
        assert_eq!(number(0.1256), "0.126");
        assert_eq!(number(-0.0001), "0");
        assert_eq!(label("history"), "history");
        assert_eq!(label("it's a label"), "'it''s a label'");
        let mut i = Item::new("blocker_age", Some(312.0), "s").min(0.0);
        i.crit = "300".into();
        assert_eq!(i.render(), "blocker_age=312s;;300;0");
        assert_eq!(Item::new("history", None, "").render(), "history=U");
    }

    #[test]
    fn thresholds_become_ranges() {
        let t = PluginThresholds::parse(Some("history>1000"), Some("history<=5,dirty_pct>=90"))
            .unwrap();
        assert_eq!(range(&t.warning, Figure::History), "1000");
        assert_eq!(range(&t.critical, Figure::History), "5:");
        assert_eq!(range(&t.critical, Figure::DirtyPct), "90");
        assert_eq!(range(&t.warning, Figure::DirtyPct), "");
    }
}
