//! A replay row's bytes → the parts of it `map` reads: zstd-decompressed (with the file's
//! dictionary, or without one for the rows before Dolphie had built it) and parsed keeping
//! only `global_status`, `innodb_metrics`, `processlist` and the variables innodebt reads.
//!
//! Why not parse the whole row: 23 of a row's ~26 KB are SHOW GLOBAL VARIABLES, of which
//! innodebt reads a few dozen names; building all of it as JSON values was most of a day's
//! import. What is kept is the same `Value` a whole parse gives for those keys, so `map` sees
//! no difference; a row that is not an object reads as one without those keys, as before.

use std::fmt;

use serde::Deserializer as _;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use innodebt_server::flavor::VARIABLES;

/// Larger than any row Dolphie writes (a 1,000-thread processlist is a few MB): a frame
/// claiming more is damage, not a row.
const MAX_ROW_BYTES: usize = 256 << 20;

/// Decompresses and parses rows. One zstd context each, reused: a new one per row cost as
/// much as the row.
pub struct Unpacker {
    dict: Option<zstd::bulk::Decompressor<'static>>,
    plain: zstd::bulk::Decompressor<'static>,
    out: Vec<u8>,
    /// For a frame that does not say its size (a streaming compressor's).
    dict_bytes: Option<Vec<u8>>,
}

impl Unpacker {
    /// `dict`: the file's `compression_dict` (raw content or trained: zstd tells them apart by
    /// their first bytes). None if zstd refuses it.
    pub fn new(dict: Option<&[u8]>) -> Option<Unpacker> {
        Some(Unpacker {
            dict: match dict {
                Some(d) => Some(zstd::bulk::Decompressor::with_dictionary(d).ok()?),
                None => None,
            },
            plain: zstd::bulk::Decompressor::new().ok()?,
            out: Vec::new(),
            dict_bytes: dict.map(<[u8]>::to_vec),
        })
    }

    /// One row's data, decoded; None if neither way gives JSON.
    pub fn decode(&mut self, blob: &[u8]) -> Option<Value> {
        let Some(size) = zstd::bulk::Decompressor::upper_bound(blob) else {
            return self.decode_streamed(blob);
        };
        let size = size.min(MAX_ROW_BYTES);
        let out = &mut self.out;
        let mut with = |z: &mut zstd::bulk::Decompressor<'static>| -> Option<Value> {
            out.clear();
            out.reserve(size);
            z.decompress_to_buffer(blob, out).ok()?;
            parse(out)
        };
        match self.dict.as_mut().and_then(&mut with) {
            Some(v) => Some(v),
            None => with(&mut self.plain),
        }
    }

    fn decode_streamed(&mut self, blob: &[u8]) -> Option<Value> {
        use std::io::Read as _;
        let out = &mut self.out;
        let mut with = |dict: &[u8]| -> Option<Value> {
            out.clear();
            zstd::stream::Decoder::with_dictionary(blob, dict)
                .ok()?
                .take(MAX_ROW_BYTES as u64)
                .read_to_end(out)
                .ok()?;
            parse(out)
        };
        match self.dict_bytes.as_deref().and_then(&mut with) {
            Some(v) => Some(v),
            None => with(&[]),
        }
    }
}

/// The row's JSON, keeping what `map` reads.
pub fn parse(json: &[u8]) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let row = de.deserialize_any(Picked { top: true }).ok()?;
    de.end().ok()?;
    Some(row)
}

/// A visitor taking any JSON value: at the top, an object's read sections (anything else is an
/// empty row); inside `global_variables`, the variables innodebt reads.
struct Picked {
    top: bool,
}

/// The value of one key: kept whole, filtered, or skipped.
enum Keep {
    Whole,
    Variables,
    Skip,
}

impl<'de> DeserializeSeed<'de> for Keep {
    type Value = Option<Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        match self {
            Keep::Whole => serde::Deserialize::deserialize(d).map(Some),
            Keep::Variables => d.deserialize_any(Picked { top: false }).map(Some),
            Keep::Skip => <IgnoredAny as serde::Deserialize>::deserialize(d).map(|_| None),
        }
    }
}

impl<'de> Visitor<'de> for Picked {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut kept = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let keep = match (self.top, key.as_str()) {
                (true, "global_status" | "innodb_metrics" | "processlist") => Keep::Whole,
                (true, "global_variables") => Keep::Variables,
                (false, name) if VARIABLES.contains(&name.to_ascii_lowercase().as_str()) => {
                    Keep::Whole
                }
                _ => Keep::Skip,
            };
            // A later duplicate of a kept key replaces it, as in a whole parse.
            if let Some(v) = map.next_value_seed(keep)? {
                kept.insert(key, v);
            }
        }
        Ok(Value::Object(kept))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `map` reads of a whole parse: the three sections, and the variables it knows.
    fn read_by_map(v: &Value) -> Value {
        let mut out = Map::new();
        for k in ["global_status", "innodb_metrics", "processlist"] {
            if let Some(x) = v.get(k) {
                out.insert(k.into(), x.clone());
            }
        }
        if let Some(vars) = v.get("global_variables") {
            let kept: Map<String, Value> = vars
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| VARIABLES.contains(&k.to_ascii_lowercase().as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out.insert("global_variables".into(), Value::Object(kept));
        }
        Value::Object(out)
    }

    #[test]
    fn the_picked_parse_is_what_map_reads_of_a_whole_parse() {
        let row = json!({
            "global_status": {"Uptime": 5, "Innodb_lsn_current": 18446744073709551615u64,
                              "replay_polling_interval": 1.070373, "wsrep_provider_version": ""},
            "global_variables": {"version": "10.11.19-MariaDB", "INNODB_IO_CAPACITY": 200,
                                 "datadir": "/var/lib/mysql/", "innodb_log_file_size": 100663296,
                                 "optimizer_switch": "index_merge=on", "read_only": false},
            "processlist": [{"id": 7, "query": "SELECT 1", "trx_time": null}],
            "metric_manager": {"datetimes": ["26/11/26 16:08:59"], "dml": {"Queries": [17.75]}},
            "innodb_metrics": {"trx_rseg_history_len": 6, "ibuf_size": 1.5},
            "system_utilization": [1, 2, {"x": null}]
        });
        let bytes = serde_json::to_vec(&row).unwrap();
        let picked = parse(&bytes).unwrap();
        assert_eq!(picked, read_by_map(&row));
        let vars = picked["global_variables"].as_object().unwrap();
        assert!(vars.contains_key("INNODB_IO_CAPACITY") && !vars.contains_key("datadir"));
        assert!(picked.get("metric_manager").is_none());
    }

    #[test]
    fn odd_rows_read_as_empty_and_bad_json_fails() {
        for odd in ["[1, 2]", "7", "\"x\"", "null", "{\"global_variables\": 3}"] {
            let v = parse(odd.as_bytes()).unwrap();
            assert!(v.get("global_status").is_none(), "{odd}");
            assert!(
                v.get("global_variables")
                    .and_then(Value::as_object)
                    .is_none_or(Map::is_empty),
                "{odd}"
            );
        }
        assert!(parse(b"{\"global_status\": {").is_none());
        assert!(parse(b"{} trailing").is_none());
        // A later duplicate replaces the earlier value, as serde_json's own map does.
        let v =
            parse(br#"{"global_status": {"Uptime": 1}, "global_status": {"Uptime": 2}}"#).unwrap();
        assert_eq!(v["global_status"]["Uptime"], 2);
    }

    #[test]
    fn rows_with_the_dictionary_without_it_and_streamed_all_decode() {
        let row = serde_json::to_vec(&json!({
            "global_status": {"Uptime": 5, "Innodb_checkpoint_age": 1234},
            "global_variables": {"version": "10.11.19-MariaDB", "datadir": "/x/"},
            "metric_manager": {"dml": {"Queries": [1.5]}}
        }))
        .unwrap();
        // A raw-content dictionary, as Dolphie 6.18 builds one from its first rows.
        let dict = row.repeat(3);
        let with = zstd::bulk::Compressor::with_dictionary(9, &dict)
            .unwrap()
            .compress(&row)
            .unwrap();
        let plain = zstd::bulk::compress(&row, 3).unwrap();
        // A streaming compressor does not write the frame's size.
        let streamed = zstd::stream::encode_all(&row[..], 3).unwrap();
        assert!(zstd::bulk::Decompressor::upper_bound(&streamed).is_none());
        let want = parse(&row);
        assert!(
            want.as_ref()
                .is_some_and(|v| v["global_status"]["Uptime"] == 5)
        );
        let mut with_dict = Unpacker::new(Some(&dict)).unwrap();
        let mut without = Unpacker::new(None).unwrap();
        for blob in [&with, &plain, &streamed] {
            assert_eq!(with_dict.decode(blob), want);
        }
        for blob in [&plain, &streamed] {
            assert_eq!(without.decode(blob), want);
        }
        assert_eq!(without.decode(&with), None, "no dictionary, no row");
        assert_eq!(with_dict.decode(b"not zstd"), None);
        assert_eq!(with_dict.decode(&with[..with.len() / 2]), None, "cut short");
    }
}
