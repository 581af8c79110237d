//! One row per recorded sample: its time and the few derived values a replay needs without
//! deriving again — every chart series' value and the verdict engine's series inputs. A
//! capture stores them per section, so a replay draws an hour of chart, or rebuilds the
//! engine's two-hour series, from a few kilobytes instead of thousands of samples.
//!
//! Values are stored bit for bit (`f64` little-endian, NaN for "no value"), times to the
//! nanosecond, so what is rebuilt from rows is exactly what sequential derivation computed.

use chrono::{DateTime, Utc};

use innodebt_engine::figures::Figures;
use innodebt_engine::verdicts::{ENGINE_SERIES, series_inputs};

/// Chart series per sample, in [`super::Charts::series_mut`] order.
pub const CHART_COLUMNS: usize = 13;

/// The chart values of one sample's figures (NaN: no point), in chart order.
pub fn chart_values(f: &Figures) -> [f64; CHART_COLUMNS] {
    let by = &f.flush.by_source_pages_per_s;
    [
        f.redo.checkpoint_age_bytes.map(|v| v as f64),
        f.history.length.map(|v| v as f64),
        f.purge.records_per_s,
        f.purge.inflow_records_per_s,
        f.purge.undo_pages_per_s,
        f.dirty.pct,
        by.adaptive,
        by.lru,
        by.sync,
        by.background,
        by.neighbor,
        f.flush.total_pages_per_s,
        f.undo.size_bytes.map(|v| v as f64),
    ]
    .map(|v| v.unwrap_or(f64::NAN))
}

/// What one sample left behind for a replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub at: DateTime<Utc>,
    /// Monotonic seconds (the charts' and the engine's time axis).
    pub t: f64,
    /// `None` when the sample gave no figures (no server description yet).
    pub values: Option<RowValues>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RowValues {
    pub chart: [f64; CHART_COLUMNS],
    pub engine: [f64; ENGINE_SERIES],
}

impl Row {
    pub fn new(at: DateTime<Utc>, t: f64, figures: Option<&Figures>) -> Self {
        Row {
            at,
            t,
            values: figures.map(|f| RowValues {
                chart: chart_values(f),
                engine: series_inputs(f).map(|v| v.unwrap_or(f64::NAN)),
            }),
        }
    }

    /// The engine series input `i`, when it is a point.
    pub fn engine_point(&self, i: usize) -> Option<(f64, f64)> {
        let v = *self.values.as_ref()?.engine.get(i)?;
        v.is_finite().then_some((self.t, v))
    }
}

const VALUES: usize = CHART_COLUMNS + ENGINE_SERIES;

/// Nanoseconds since the epoch (exact from 1677 to 2262; times outside are clamped).
fn nanos(t: DateTime<Utc>) -> i64 {
    t.timestamp_nanos_opt().unwrap_or(if t.timestamp() < 0 {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// Appends `words` byte-plane by byte-plane (every first byte, then every second, …): the
/// sign, exponent and high mantissa bytes of neighbouring values then sit together, which
/// is what compresses — the low mantissa bytes of a rate are noise.
fn put_planes(out: &mut Vec<u8>, words: &[[u8; 8]]) {
    for k in 0..8 {
        out.extend(words.iter().map(|w| w[k]));
    }
}

fn get_planes(b: &[u8], n: usize) -> Option<Vec<[u8; 8]>> {
    let mut words = vec![[0u8; 8]; n];
    for k in 0..8 {
        let plane = b.get(k * n..(k + 1) * n)?;
        for (w, byte) in words.iter_mut().zip(plane) {
            w[k] = *byte;
        }
    }
    Some(words)
}

/// Rows as bytes, column by column (times as deltas, then each value), each column in byte
/// planes: neighbouring values of one series sit together, which is what compresses.
pub fn encode(rows: &[Row]) -> Vec<u8> {
    let n = rows.len();
    let mut out = Vec::with_capacity(4 + n * (17 + 8 * VALUES));
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
    let mut prev = 0i64;
    let at: Vec<[u8; 8]> = rows
        .iter()
        .map(|r| {
            let ns = nanos(r.at);
            let d = ns.wrapping_sub(prev);
            prev = ns;
            d.to_le_bytes()
        })
        .collect();
    put_planes(&mut out, &at);
    let t: Vec<[u8; 8]> = rows.iter().map(|r| r.t.to_le_bytes()).collect();
    put_planes(&mut out, &t);
    out.extend(rows.iter().map(|r| u8::from(r.values.is_some())));
    for c in 0..VALUES {
        let col: Vec<[u8; 8]> = rows
            .iter()
            .map(|r| {
                let v = r.values.as_ref().map_or(f64::NAN, |v| {
                    if c < CHART_COLUMNS {
                        v.chart[c]
                    } else {
                        v.engine[c - CHART_COLUMNS]
                    }
                });
                v.to_le_bytes()
            })
            .collect();
        put_planes(&mut out, &col);
    }
    out
}

/// [`encode`]'s bytes back to rows; `None` when they are not well formed.
pub fn decode(b: &[u8]) -> Option<Vec<Row>> {
    let n = usize::try_from(u32::from_le_bytes(b.get(0..4)?.try_into().ok()?)).ok()?;
    let need = n.checked_mul(17 + 8 * VALUES)?.checked_add(4)?;
    if b.len() != need {
        return None;
    }
    let mut at = 4;
    let mut column = || {
        let words = get_planes(&b[at..], n);
        at += 8 * n;
        words
    };
    let deltas = column()?;
    let times = column()?;
    let mut values = Vec::with_capacity(VALUES);
    let flags_at = 4 + 16 * n;
    for _ in 0..VALUES {
        values.push(Vec::new());
    }
    let mut vat = flags_at + n;
    for col in values.iter_mut() {
        *col = get_planes(b.get(vat..)?, n)?;
        vat += 8 * n;
    }
    let mut rows = Vec::with_capacity(n);
    let mut ns = 0i64;
    for i in 0..n {
        ns = ns.wrapping_add(i64::from_le_bytes(deltas[i]));
        let at = DateTime::<Utc>::from_timestamp_nanos(ns);
        let t = f64::from_le_bytes(times[i]);
        let v = |c: usize| f64::from_le_bytes(values[c][i]);
        let values = match b.get(flags_at + i)? {
            0 => None,
            1 => Some(RowValues {
                chart: std::array::from_fn(v),
                engine: std::array::from_fn(|c| v(CHART_COLUMNS + c)),
            }),
            _ => return None,
        };
        rows.push(Row { at, t, values });
    }
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_bit_for_bit() {
        let at = DateTime::<Utc>::from_timestamp_nanos(1_700_000_000_123_456_789);
        let mut chart = [f64::NAN; CHART_COLUMNS];
        chart[0] = 0.1 + 0.2;
        chart[5] = -0.0;
        chart[7] = f64::INFINITY;
        let rows = vec![
            Row {
                at,
                t: 1.000_000_000_1,
                values: None,
            },
            Row {
                at,
                t: 2.5,
                values: Some(RowValues {
                    chart,
                    engine: [1.0, f64::NAN, 3.0e300, 4.0],
                }),
            },
        ];
        let back = decode(&encode(&rows)).unwrap();
        let bits = |r: &Row| {
            r.values.as_ref().map(|v| {
                v.chart
                    .iter()
                    .chain(v.engine.iter())
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(back.len(), 2);
        for (a, b) in rows.iter().zip(&back) {
            assert_eq!((a.at, a.t.to_bits()), (b.at, b.t.to_bits()));
            assert_eq!(bits(a), bits(b));
        }
        assert_eq!(back[1].engine_point(0), Some((2.5, 1.0)));
        assert_eq!(back[1].engine_point(1), None);
        assert!(decode(&encode(&rows)[1..]).is_none());
        assert!(decode(&[]).is_none());
    }
}
