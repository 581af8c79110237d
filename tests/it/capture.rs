//! The capture format end to end: writer → file → reader, truncation at every byte, damage,
//! foreign and future files, file mode, digests, size per hour, big-file index, CSV export.

use crate::common::builders;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Instant;

use chrono::{DateTime, Duration, TimeZone, Utc};
use innodebt::export::export_csv;
use innodebt_capture::format::{self, FORMAT_VERSION};
use innodebt_capture::reader::from_bytes;
use innodebt_capture::{
    CaptureError, CaptureIndex, CaptureWriter, End, FileSpec, Header, WriterOptions, open,
    spawn_writer,
};
use innodebt_server::flavor::{METRICS, STATUS, VARIABLES};
use innodebt_server::innodb_status;
use innodebt_server::sample::{
    AuditEntry, MetricValue, Sample, ServerInfo, SourceEvent, TrxRow, UndoScan,
};

const SEIS: &str = include_str!("../fixtures/ptstalk/2026_11_21_20_34_37-innodbstatus1");

/// Deterministic pseudo-random numbers (no dev-dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 20, 0, 0).unwrap()
}

/// The builders' MariaDB with every variable the poller reads (as long as a real server's
/// description).
fn server() -> ServerInfo {
    let mut info = builders::mariadb(&[]);
    for v in VARIABLES {
        info.variables
            .entry((*v).to_string())
            .or_insert_with(|| "4".to_string());
    }
    info.variables.remove("innodb_redo_log_capacity");
    info
}

/// Realistic polls at 1 s: ~25 status values, 19 metrics, a few trx rows, SEIS every 10 s.
struct Synth {
    rng: Lcg,
    status: BTreeMap<String, u64>,
    metrics: BTreeMap<String, i64>,
    i: u64,
    seis: innodb_status::InnodbStatus,
    with_queries: bool,
}

impl Synth {
    fn new(seed: u64, with_queries: bool) -> Self {
        let mut status: BTreeMap<String, u64> =
            STATUS.iter().map(|n| ((*n).to_string(), 1000)).collect();
        for extra in ["Threads_running", "Questions", "Com_commit"] {
            status.insert(extra.to_string(), 1);
        }
        status.remove("Innodb_redo_log_current_lsn");
        status.remove("Innodb_redo_log_checkpoint_lsn");
        status.remove("Innodb_redo_log_capacity_resized");
        status.insert("Innodb_lsn_current".into(), 8_925_759_000);
        status.insert("Innodb_lsn_last_checkpoint".into(), 8_900_000_000);
        status.insert("Innodb_buffer_pool_pages_total".into(), 8112);
        Synth {
            rng: Lcg(seed),
            status,
            metrics: METRICS.iter().map(|n| ((*n).to_string(), 0)).collect(),
            i: 0,
            seis: innodb_status::parse(SEIS),
            with_queries,
        }
    }

    fn sample(&mut self) -> Sample {
        let i = self.i;
        self.i += 1;
        let at = t0() + Duration::milliseconds(i as i64 * 1000 + self.rng.below(40) as i64);
        let mut s = Sample::new(at, i as f64 + self.rng.below(40_000) as f64 / 1e6);
        s.poll_ms = 2 + self.rng.below(5) as u32;
        let written = 2_000_000 + self.rng.below(3_000_000);
        for (name, v) in self.status.iter_mut() {
            *v = match name.as_str() {
                "Uptime" => 86_400 + i,
                "Innodb_lsn_current" => *v + written,
                "Innodb_os_log_written" => *v + written,
                "Innodb_lsn_last_checkpoint" | "Innodb_checkpoint_age" => *v,
                "Innodb_history_list_length" => 200 + self.rng.below(3000),
                "Innodb_buffer_pool_pages_dirty" => 1000 + self.rng.below(4000),
                "Innodb_buffer_pool_pages_free" => 500 + self.rng.below(200),
                "Innodb_buffer_pool_pages_data" => 7400 + self.rng.below(200),
                "Innodb_buffer_pool_pages_total" => 8112,
                "Innodb_checkpoint_max_age" => 80_000_000,
                "Threads_running" => 1 + self.rng.below(30),
                _ => *v + self.rng.below(5000),
            };
        }
        let lsn = self.status["Innodb_lsn_current"];
        let age = 40_000_000 + self.rng.below(30_000_000);
        self.status
            .insert("Innodb_lsn_last_checkpoint".into(), lsn - age);
        self.status.insert("Innodb_checkpoint_age".into(), age);
        s.status = self.status.clone();
        for (k, (name, v)) in self.metrics.iter_mut().enumerate() {
            *v += self.rng.below(800) as i64;
            s.metrics.insert(
                name.clone(),
                MetricValue {
                    count: *v,
                    enabled: k % 3 != 0,
                },
            );
        }
        for k in 0..(1 + self.rng.below(3)) {
            s.trx.push(TrxRow {
                trx_id: (10_000 + i * 7 + k).to_string(),
                state: "RUNNING".into(),
                age_s: k * 30 + self.rng.below(3),
                isolation: Some("REPEATABLE READ".into()),
                thread_id: Some(40 + k),
                user: Some("app".into()),
                host: Some("10.0.0.7:53312".into()),
                command: Some(if k == 0 { "Query" } else { "Sleep" }.into()),
                query: self.with_queries.then(|| {
                    format!(
                        "UPDATE orders SET status = 'shipped', n = n + 1 WHERE id IN ({}, {}, {})",
                        i,
                        i + 1,
                        self.rng.below(99_999)
                    )
                }),
                rows_modified: Some(self.rng.below(50)),
            });
        }
        if i.is_multiple_of(10) {
            let mut st = self.seis.clone();
            st.lsn = Some(lsn);
            st.checkpoint_lsn = Some(lsn - age);
            st.history_length = self.status.get("Innodb_history_list_length").copied();
            st.trx_id_counter = Some(10_000 + i * 7);
            if !self.with_queries {
                for t in &mut st.transactions {
                    t.query = None;
                }
            }
            s.innodb_status = Some(st);
        }
        if i % 3600 == 1800 {
            s.undo_scan = Some(UndoScan {
                undo_pages_cached: 123,
                took_ms: 31,
            });
        }
        s
    }
}

/// A session: connect, samples, a variables change, an audit entry, a disconnect.
fn session(n: usize, with_queries: bool) -> Vec<SourceEvent> {
    let mut synth = Synth::new(42, with_queries);
    let mut events = vec![SourceEvent::Connected {
        at: t0(),
        info: server(),
    }];
    for k in 0..n {
        if k == n / 2 {
            events.push(SourceEvent::Variables {
                at: t0() + Duration::seconds(k as i64),
                variables: BTreeMap::from([("innodb_max_purge_lag".into(), "100000".into())]),
            });
            events.push(SourceEvent::Audit(AuditEntry {
                at: t0() + Duration::seconds(k as i64),
                account: "root@localhost".into(),
                server: "127.0.0.1:3306".into(),
                action: "SET GLOBAL innodb_max_purge_lag = 100000".into(),
                old_value: Some("0".into()),
                new_value: Some("100000".into()),
                result: "ok".into(),
            }));
        }
        if k == n * 3 / 4 {
            events.push(SourceEvent::Disconnected {
                since: t0() + Duration::seconds(k as i64),
                retry_in_ms: 250,
                error: "Lost connection to server during query".into(),
            });
        }
        events.push(SourceEvent::Sample(Box::new(synth.sample())));
    }
    events
}

/// A small session for byte-by-byte tests: every event kind, short samples, one small SEIS
/// (debug builds parse JSON slowly, and every cut re-reads the whole prefix).
fn small_session(n: usize) -> Vec<SourceEvent> {
    let mut events = session(n, true);
    let seis = innodb_status::parse(
        "LOG\n---\nLog sequence number 8925759\nLast checkpoint at  44404\nHistory list length 24\n",
    );
    for e in &mut events {
        if let SourceEvent::Sample(s) = e {
            s.status
                .retain(|k, _| k == "Innodb_lsn_current" || k == "Uptime" || k.contains("history"));
            s.metrics.retain(|k, _| k == "purge_undo_log_pages");
            s.trx.truncate(1);
            s.innodb_status = (s.mono_s < 1.0).then(|| seis.clone());
        }
    }
    events
}

fn header(keep_queries: bool) -> Header {
    Header::new(t0(), Some(server()), keep_queries)
}

fn write(path: &Path, events: &[SourceEvent], opts: WriterOptions, keep: bool) -> u64 {
    let mut w = CaptureWriter::create_with(path, &header(keep), opts).expect("create the capture");
    for e in events {
        w.append(e).expect("append an event");
    }
    w.finish().expect("finish the capture").bytes
}

fn small_frames() -> WriterOptions {
    WriterOptions {
        frame_records: 8,
        ..WriterOptions::default()
    }
}

#[test]
fn round_trip_gives_equal_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.idbt");
    let events = session(120, false);
    write(&path, &events, small_frames(), true);
    let cap = open(&path).unwrap();
    assert_eq!(cap.end, End::Complete);
    assert_eq!(cap.header, header(true));
    assert_eq!(cap.header.tool_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(cap.events.len(), events.len());
    assert_eq!(cap.events, events);
    let trailer = cap.trailer.unwrap();
    assert_eq!((trailer.records, trailer.dropped), (events.len() as u64, 0));

    // The index sees the same events, section by section.
    let idx = CaptureIndex::open(&path).unwrap();
    assert_eq!(idx.end(), &End::Complete);
    assert_eq!(idx.frames().len(), events.len().div_ceil(8));
    let mut all = Vec::new();
    for i in 0..idx.frames().len() {
        let f = idx.read_frame(i).unwrap();
        assert_eq!(f.end, End::Complete);
        assert_eq!(f.first_record as usize, all.len());
        all.extend(f.events);
    }
    assert_eq!(all, events);
    assert!(matches!(
        idx.read_frame(999),
        Err(CaptureError::NoFrame { index: 999, .. })
    ));
}

#[test]
fn plain_zstd_sees_the_records() {
    // The skippable frames make the file a valid zstd stream of the records.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.idbt");
    let events = session(20, false);
    write(&path, &events, small_frames(), true);
    let raw = zstd::decode_all(std::fs::File::open(&path).unwrap()).unwrap();
    let first_len = u32::from_le_bytes(raw[0..4].try_into().unwrap()) as usize;
    let first: SourceEvent = serde_json::from_slice(&raw[8..8 + first_len]).unwrap();
    assert_eq!(first, events[0]);
}

#[test]
fn truncation_at_every_byte_yields_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.idbt");
    let events = small_session(26);
    let len = write(&path, &events, small_frames(), true) as usize;
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), len);
    let header_len = 8 + format::le_u32(&bytes, 4).unwrap() as usize;
    let mut last_n = 0;
    for cut in 0..=len {
        match from_bytes(&bytes[..cut], &path) {
            Err(CaptureError::Empty { .. }) => assert_eq!(cut, 0),
            Err(CaptureError::HeaderTruncated { .. }) => assert!(cut < header_len, "cut {cut}"),
            Err(e) => panic!("cut {cut}: {e}"),
            Ok(cap) => {
                assert!(cut >= header_len);
                let n = cap.events.len();
                assert_eq!(cap.events[..], events[..n], "cut {cut}");
                assert!(n >= last_n, "cut {cut}: fewer events than a shorter cut");
                last_n = n;
                match &cap.end {
                    End::Complete => assert_eq!(cut, len),
                    End::Truncated { at_byte, reason } => {
                        assert!(*at_byte as usize <= cut, "cut {cut}: at {at_byte}");
                        assert!(reason.contains("t.idbt"), "{reason}");
                    }
                }
            }
        }
    }
    let full = from_bytes(&bytes, &path).unwrap();
    assert_eq!(full.events, events);
    assert_eq!(full.end, End::Complete);
    // Before the trailer every record is complete: all events, but "not finished".
    let no_trailer = from_bytes(&bytes[..len - 40], &path).unwrap();
    assert_eq!(no_trailer.events, events);
    assert!(matches!(no_trailer.end, End::Truncated { .. }));

    // The index agrees on cut files (every 13th byte, through real files).
    let cut_path = dir.path().join("cut.idbt");
    for cut in (header_len..=len).step_by(13) {
        std::fs::write(&cut_path, &bytes[..cut]).unwrap();
        let idx = CaptureIndex::open(&cut_path).unwrap();
        let mut got = Vec::new();
        for i in 0..idx.frames().len() {
            let f = idx.read_frame(i).unwrap();
            got.extend(f.events);
            if !f.end.is_complete() {
                break;
            }
        }
        assert_eq!(got[..], events[..got.len()], "cut {cut}");
        assert_eq!(
            got.len(),
            from_bytes(&bytes[..cut], &path).unwrap().events.len()
        );
    }
}

#[test]
fn a_damaged_byte_stops_with_a_clear_message_and_the_index_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.idbt");
    let events = session(40, false);
    write(&path, &events, small_frames(), true);
    let good = std::fs::read(&path).unwrap();
    let idx = CaptureIndex::open(&path).unwrap();
    let frames = idx.frames().to_vec();
    assert!(frames.len() >= 4);
    // Flip bytes in the middle of the third section's compressed data.
    let f = &frames[2];
    let mut saw_crc_or_zstd = false;
    for delta in [5u64, 17, 40, 90] {
        let at = (f.data_offset + delta).min(f.end - 1) as usize;
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        let cap = from_bytes(&bad, &path).unwrap();
        let n = cap.events.len();
        assert!(
            n >= f.first_record as usize && n < events.len(),
            "delta {delta}: {n}"
        );
        assert_eq!(cap.events[..], events[..n]);
        let End::Truncated { at_byte, reason } = &cap.end else {
            panic!("damage not reported");
        };
        assert!(
            *at_byte >= f.data_offset && *at_byte < f.end,
            "{at_byte} {reason}"
        );
        assert!(
            reason.contains("d.idbt") && reason.contains("damaged"),
            "{reason}"
        );
        assert!(reason.contains("later section"), "{reason}");
        saw_crc_or_zstd |= reason.contains("checksum") || reason.contains("decode");
        // The index loses at most that section.
        let bad_path = dir.path().join("bad.idbt");
        std::fs::write(&bad_path, &bad).unwrap();
        let idx = CaptureIndex::open(&bad_path).unwrap();
        assert_eq!(idx.frames().len(), frames.len());
        let after = idx.read_frame(3).unwrap();
        assert_eq!(after.end, End::Complete);
        assert_eq!(
            after.events[..],
            events[frames[3].first_record as usize..frames[4].first_record as usize]
        );
    }
    assert!(saw_crc_or_zstd);

    // A damaged record checksum (payload byte flipped inside the decompressed stream is not
    // reachable from outside; damage the marker instead): the scan resynchronises.
    let mut bad = good.clone();
    let m = frames[1].offset as usize + 10;
    bad[m] ^= 1;
    let bad_path = dir.path().join("marker.idbt");
    std::fs::write(&bad_path, &bad).unwrap();
    let idx = CaptureIndex::open(&bad_path).unwrap();
    assert_eq!(idx.frames().len(), frames.len() - 1);
    assert_eq!(idx.frames()[1].first_record, frames[2].first_record);
    let cap = from_bytes(&bad, &path).unwrap();
    assert!(cap.events.len() <= frames[1].first_record as usize);
    assert!(matches!(cap.end, End::Truncated { .. }));
}

#[test]
fn foreign_empty_future_and_cut_headers_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.idbt");
    let msg = |bytes: &[u8]| from_bytes(bytes, &p).unwrap_err().to_string();

    let m = msg(b"");
    assert!(m.contains("x.idbt") && m.contains("empty"), "{m}");
    let m = msg(b"time,checkpoint_age\n1,2\n");
    assert!(
        m.contains("not an innodebt capture") && m.contains("\"time,che\""),
        "{m}"
    );
    let m = msg(&zstd::encode_all(&b"hello"[..], 3).unwrap());
    assert!(m.contains("plain zstd"), "{m}");

    let events = session(3, false);
    write(&p, &events, WriterOptions::default(), false);
    let good = std::fs::read(&p).unwrap();
    let mut future = good.clone();
    future[16..18].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let m = msg(&future);
    assert!(
        m.contains(&format!("format version {}", FORMAT_VERSION + 1))
            && m.contains("upgrade innodebt"),
        "{m}"
    );
    let m = msg(&good[..30]);
    assert!(
        m.contains("inside its header") && m.contains("byte 30"),
        "{m}"
    );
    let mut bad = good.clone();
    bad[40] ^= 1;
    let m = msg(&bad);
    assert!(
        m.contains("header is damaged") && m.contains("checksum"),
        "{m}"
    );
    let m = open(dir.path().join("missing.idbt"))
        .unwrap_err()
        .to_string();
    assert!(
        m.contains("missing.idbt") && m.contains("reading the capture"),
        "{m}"
    );
}

#[test]
fn files_are_private_and_never_overwritten_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.idbt");
    write(&p, &session(2, false), WriterOptions::default(), false);
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let e = CaptureWriter::create(&p, &header(false)).err().unwrap();
    assert!(matches!(e, CaptureError::Exists { .. }));
    assert!(e.to_string().contains("already exists"), "{e}");
    // Asked to overwrite: replaced, and a file that was 0644 becomes 0600.
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    let opts = WriterOptions {
        overwrite: true,
        ..WriterOptions::default()
    };
    let one = vec![session(1, false).remove(0)];
    write(&p, &one, opts, false);
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(open(&p).unwrap().events, one);
}

#[test]
fn queries_are_digested_unless_kept_and_secrets_always() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Sample::new(t0(), 0.0);
    s.trx.push(TrxRow {
        query: Some("UPDATE t SET a = 'x' WHERE id IN (1, 2, 3)".into()),
        ..TrxRow::default()
    });
    s.trx.push(TrxRow {
        query: Some("CREATE USER 'bob'@'%' IDENTIFIED BY 'hunter2'".into()),
        ..TrxRow::default()
    });
    let mut st = innodb_status::parse(SEIS);
    assert!(
        st.transactions[0]
            .query
            .as_deref()
            .unwrap()
            .contains("REPEAT('x',80)")
    );
    st.transactions[0].query = Some("ALTER USER u IDENTIFIED BY 'hunter2'".into());
    s.innodb_status = Some(st);
    let ev = vec![SourceEvent::Sample(Box::new(s))];
    let queries = |keep: bool| {
        let p = dir.path().join(format!("q{keep}.idbt"));
        write(&p, &ev, WriterOptions::default(), keep);
        let raw = std::fs::read(&p).unwrap();
        let cap = open(&p).unwrap();
        let SourceEvent::Sample(s) = &cap.events[0] else {
            panic!()
        };
        let mut q: Vec<String> = s.trx.iter().filter_map(|t| t.query.clone()).collect();
        q.push(
            s.innodb_status.as_ref().unwrap().transactions[0]
                .query
                .clone()
                .unwrap(),
        );
        (q, raw)
    };
    let (digested, raw) = queries(false);
    assert_eq!(
        digested,
        [
            "UPDATE t SET a = ? WHERE id IN (...)",
            "CREATE USER ? @ ? IDENTIFIED BY ?",
            "ALTER USER u IDENTIFIED BY ?"
        ]
    );
    assert!(!raw.windows(7).any(|w| w == b"hunter2"));
    let (kept, raw) = queries(true);
    assert_eq!(kept[0], "UPDATE t SET a = 'x' WHERE id IN (1, 2, 3)");
    assert_eq!(kept[1], "CREATE USER ? @ ? IDENTIFIED BY ?");
    assert_eq!(kept[2], "ALTER USER u IDENTIFIED BY ?");
    let text = zstd::decode_all(&raw[..]).unwrap();
    assert!(!text.windows(7).any(|w| w == b"hunter2"));
}

#[test]
fn size_per_hour_at_one_second() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("hour.idbt");
    let events = session(3600, true);
    let started = Instant::now();
    let bytes = write(&p, &events, WriterOptions::default(), false);
    let took = started.elapsed();
    println!(
        "size per hour at 1 s: {bytes} bytes ({:.2} MB; {:.0} B/sample; written in {took:?})",
        bytes as f64 / 1e6,
        bytes as f64 / 3600.0,
    );
    assert!(bytes <= 2_000_000, "{bytes} bytes per hour");
}

/// Writes `seconds` samples at 1 s (a fresh sample every `fresh_every`, re-stamped copies
/// between), then times the index, the first section and a seek.
fn indexed_capture(seconds: i64, fresh_every: i64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("day.idbt");
    let mut synth = Synth::new(7, false);
    let mut w = CaptureWriter::create(&p, &header(false)).expect("create the capture");
    w.append(&SourceEvent::Connected {
        at: t0(),
        info: server(),
    })
    .expect("append the connection");
    let mut sample = synth.sample();
    for i in 0..seconds {
        // Copies compress better than fresh samples, so the file is smaller than a real one;
        // debug builds need them to stay quick.
        sample.taken_at = t0() + Duration::seconds(i);
        sample.mono_s = i as f64;
        if let Some(v) = sample.status.get_mut("Innodb_lsn_current") {
            *v += 3_000_000;
        }
        w.append(&SourceEvent::Sample(Box::new(sample.clone())))
            .expect("append a sample");
        if i % fresh_every == 0 {
            sample = synth.sample();
        }
    }
    let summary = w.finish().expect("finish the capture");
    let started = Instant::now();
    let idx = CaptureIndex::open(&p).expect("index the capture");
    let indexed = started.elapsed();
    let first = idx.read_frame(0).expect("read the first section");
    let first_events = started.elapsed();
    assert_eq!(first.events.len(), 600);
    let seek_started = Instant::now();
    let target = t0() + Duration::seconds(seconds * 7 / 10 + 3);
    let k = idx.frame_at(target).expect("a section at the target time");
    let f = idx.read_frame(k).expect("read the section at the target");
    let seek = seek_started.elapsed();
    assert!(f.events.iter().any(|e| format::event_time(e) == target));
    let total = seconds as u64 + 1;
    let k = idx
        .frame_of_record(total - 1)
        .expect("the section of the last record");
    let last = idx.read_frame(k).expect("read the last section");
    assert_eq!(last.first_record + last.events.len() as u64, total);
    // Loading everything is what the index avoids; measured where it means something.
    let whole = if cfg!(debug_assertions) {
        None
    } else {
        let t = Instant::now();
        let all = open(&p).expect("open the whole capture");
        assert_eq!(all.events.len() as u64, total);
        Some(t.elapsed())
    };
    println!(
        "{seconds} samples at 1 s: {} bytes in {} sections; index {indexed:?}; first events {first_events:?}; seek {seek:?}; whole file {whole:?}",
        summary.bytes,
        idx.frames().len()
    );
    // Debug builds parse JSON ~10x slower, and CI machines are shared: hold the 300 ms
    // promise where it is made, in release builds.
    if !cfg!(debug_assertions) {
        assert!(first_events.as_millis() < 300, "{first_events:?}");
    }
}

#[test]
fn an_hour_indexes_fast_and_seeks_anywhere() {
    indexed_capture(3_600, 100);
}

#[test]
fn writer_thread_drains_on_shutdown_and_counts_drops() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.idbt");
    let events = session(50, false);
    let (tx, handle) = spawn_writer(&p, &header(false), 1000, &FileSpec::default()).unwrap();
    for e in &events {
        assert!(tx.send(e.clone()));
    }
    drop(tx);
    let summary = handle.join().unwrap();
    assert_eq!((summary.records, summary.dropped), (events.len() as u64, 0));
    assert_eq!(open(&p).unwrap().events, digested(&events));

    // A tiny channel and a burst: the sender never blocks; what could not wait is counted
    // and written into the trailer.
    let p = dir.path().join("w2.idbt");
    let (tx, handle) = spawn_writer(&p, &header(false), 1, &FileSpec::default()).unwrap();
    let started = Instant::now();
    let sent = events.iter().filter(|e| tx.send((*e).clone())).count() as u64;
    assert!(started.elapsed().as_millis() < 500);
    let dropped = tx.dropped();
    assert_eq!(sent + dropped, events.len() as u64);
    drop(tx);
    let summary = handle.join().unwrap();
    assert_eq!((summary.records, summary.dropped), (sent, dropped));
    let cap = open(&p).unwrap();
    assert_eq!(cap.trailer.unwrap().dropped, dropped);
    assert_eq!(cap.events.len() as u64, sent);
}

/// What the writer stores for events without query texts: the same events.
fn digested(events: &[SourceEvent]) -> Vec<SourceEvent> {
    events.to_vec()
}

#[test]
fn a_file_being_written_is_readable_and_the_index_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("live.idbt");
    let events = session(30, false);
    let mut w = CaptureWriter::create_with(&p, &header(false), small_frames()).unwrap();
    for e in &events[..13] {
        w.append(e).unwrap();
    }
    let cap = open(&p).unwrap();
    assert_eq!(cap.events, events[..13]);
    let End::Truncated { reason, .. } = &cap.end else {
        panic!()
    };
    assert!(reason.contains("still recording"), "{reason}");
    let mut idx = CaptureIndex::open(&p).unwrap();
    assert_eq!(idx.frames().len(), 2);
    assert_eq!(idx.read_frame(1).unwrap().events, events[8..13]);
    for e in &events[13..] {
        w.append(e).unwrap();
    }
    // Read past the scanned end: the open last section shows what was appended.
    assert_eq!(idx.read_frame(1).unwrap().events, events[8..16]);
    idx.refresh().unwrap();
    assert_eq!(idx.frames().len(), events.len().div_ceil(8));
    w.finish().unwrap();
    idx.refresh().unwrap();
    assert_eq!(idx.end(), &End::Complete);
    assert!(idx.trailer().is_some());
}

#[test]
fn csv_export_has_a_header_and_one_row_per_sample() {
    let events = session(5, false);
    let mut out = Vec::new();
    let rows = export_csv(&events, &mut out).unwrap();
    assert_eq!(rows, 5);
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);
    let head: Vec<&str> = lines[0].split(',').collect();
    for col in [
        "time",
        "checkpoint_age_bytes",
        "redo_capacity_bytes",
        "async_point_bytes",
        "sync_point_bytes",
        "flush_adaptive_pages_per_s",
        "flush_lru_pages_per_s",
        "history_length",
        "history_growth_per_s",
        "purge_records_per_s",
        "dml_delay_us",
        "dml_delay_applied_us",
        "dirty_pct",
        "undo_size_bytes",
        "undo_reads_per_s",
        "undo_resident_pct",
        "blocker_thread_id",
        "blocker_age_s",
        "severity",
        "verdicts",
    ] {
        assert!(head.contains(&col), "{col} missing from {head:?}");
    }
    // Each row's judgement as the verdicts made it: the worst severity and every kind.
    let mut deriver = innodebt_engine::derive::Deriver::new();
    let figures: Vec<_> = events.iter().filter_map(|e| deriver.push(e)).collect();
    for (line, f) in lines[1..].iter().zip(&figures) {
        let row: BTreeMap<&str, &str> = head.iter().copied().zip(line.split(',')).collect();
        let kinds: Vec<&str> = f.verdicts.iter().map(|v| v.kind.as_str()).collect();
        assert!(!kinds.is_empty());
        assert_eq!(row["verdicts"], kinds.join(" "));
        let worst = f.worst_verdict().map(|v| v.severity.as_str());
        assert_eq!(Some(row["severity"]), worst);
    }
    let row: BTreeMap<&str, &str> = head.iter().copied().zip(lines[2].split(',')).collect();
    let SourceEvent::Sample(s) = &events[2] else {
        panic!()
    };
    assert_eq!(
        row["time"],
        s.taken_at
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    );
    assert_eq!(
        row["checkpoint_age_bytes"],
        (s.status["Innodb_lsn_current"] - s.status["Innodb_lsn_last_checkpoint"]).to_string()
    );
    assert_eq!(
        row["history_length"],
        s.status["Innodb_history_list_length"].to_string()
    );
    // MariaDB 96 MiB log: capacity is the file size; sync is M.
    assert_eq!(row["redo_capacity_bytes"], "100663296");
    assert!(!row["sync_point_bytes"].is_empty());
    assert!(!row["flush_total_pages_per_s"].is_empty());
    // Unknown → empty, never 0: no undo scan in this sample; the blocker is the 30 s trx.
    assert_eq!(row["undo_resident_pct"], "");
    let blocker = innodebt_engine::measure::find_blocker(&s.trx, None);
    assert_eq!(
        row["blocker_thread_id"],
        blocker
            .and_then(|b| b.thread_id)
            .map(|t| t.to_string())
            .unwrap_or_default()
    );
    // The first row has no rates yet.
    let first: BTreeMap<&str, &str> = head.iter().copied().zip(lines[1].split(',')).collect();
    assert_eq!(first["flush_total_pages_per_s"], "");
}

#[test]
fn random_garbage_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.idbt");
    write(&p, &small_session(20), small_frames(), true);
    let good = std::fs::read(&p).unwrap();
    let mut rng = Lcg(99);
    // More on demand: INNODEBT_FUZZ_ROUNDS=200000 cargo test --release --test capture garbage
    let rounds = std::env::var("INNODEBT_FUZZ_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(300);
    for round in 0..rounds {
        let mut bad = good.clone();
        for _ in 0..(1 + rng.below(8)) {
            let at = rng.below(bad.len() as u64) as usize;
            bad[at] = rng.next() as u8;
        }
        if round % 4 == 0 {
            let cut = rng.below(bad.len() as u64) as usize;
            bad.truncate(cut);
        }
        let _ = from_bytes(&bad, &p);
        std::fs::write(&p, &bad).unwrap();
        if let Ok(idx) = CaptureIndex::open(&p) {
            for i in 0..idx.frames().len() {
                let _ = idx.read_frame(i);
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Total on any text; outside back-quoted identifiers no quoted literal survives.
    #[test]
    fn digests_are_total(q in "\\PC{0,200}") {
        let d = innodebt_capture::digest::digest(&q);
        if !q.contains('`') {
            proptest::prop_assert!(!d.contains('\'') && !d.contains('"'), "{q:?} -> {d:?}");
        }
        let _ = innodebt_capture::digest::redact(&q, true);
    }

    #[test]
    fn any_bytes_after_a_good_header_never_panic(
        tail in proptest::collection::vec(proptest::num::u8::ANY, 0..600)
    ) {
        let mut bytes = format::encode_header(&header(false)).unwrap();
        bytes.extend_from_slice(&tail);
        let cap = from_bytes(&bytes, Path::new("any.idbt")).unwrap();
        proptest::prop_assert!(cap.events.is_empty());
    }
}

/// Files written by earlier builds keep reading: the demo capture shipped in `demo/` (real
/// MariaDB 10.11 under load, recorded by `demo/record-demo.sh`).
#[test]
fn the_shipped_demo_capture_reads_completely() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt");
    let cap = open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(cap.end, End::Complete, "{:?}", cap.end);
    let samples = cap
        .events
        .iter()
        .filter(|e| matches!(e, SourceEvent::Sample(_)))
        .count();
    let bytes = std::fs::metadata(&p).unwrap().len();
    println!(
        "demo: {samples} samples, {bytes} bytes, {:.0} B/sample (interval {:?} ms)",
        bytes as f64 / samples as f64,
        cap.header.interval_ms
    );
    assert!(samples > 0);
}

fn nt(s: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_700_000_000 + s, 0).expect("a valid timestamp")
}

fn nsample(s: i64) -> SourceEvent {
    SourceEvent::Sample(Box::new(innodebt_server::sample::Sample::new(
        nt(s),
        s as f64,
    )))
}

/// A file with notes written live (mid-file, and after a section boundary), then one
/// added to the finished file: every reader path finds all three, the events are the
/// same as without notes, and the file still ends cleanly.
#[test]
fn notes_round_trip_live_and_added_later() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.idbt");
    let opts = WriterOptions {
        frame_records: 4,
        ..Default::default()
    };
    let mut w =
        innodebt::replay::create_writer(&path, &Header::new(nt(0), None, false), opts).unwrap();
    let plain_path = dir.path().join("plain.idbt");
    let mut plain = innodebt::replay::create_writer(
        &plain_path,
        &Header::new(nt(0), None, false),
        WriterOptions {
            frame_records: 4,
            ..Default::default()
        },
    )
    .unwrap();
    for s in 0..20 {
        w.append(&nsample(s)).unwrap();
        plain.append(&nsample(s)).unwrap();
        if s == 5 {
            w.add_note(&innodebt_capture::Note::new(nt(5), "deploy 4.2 started"))
                .unwrap();
        }
        if s == 7 {
            // Right at a section's end: no section is open.
            w.add_note(&innodebt_capture::Note::new(nt(7), "  second\n  note "))
                .unwrap();
        }
    }
    w.finish().unwrap();
    plain.finish().unwrap();
    innodebt_capture::notes::append_note(
        &path,
        &innodebt_capture::Note::new(nt(19), "replay: looked here"),
    )
    .unwrap();
    let want = vec![
        innodebt_capture::Note::new(nt(5), "deploy 4.2 started"),
        innodebt_capture::Note::new(nt(7), "second note"),
        innodebt_capture::Note::new(nt(19), "replay: looked here"),
    ];
    let cap = open(&path).unwrap();
    assert!(cap.end.is_complete(), "{:?}", cap.end);
    assert_eq!(cap.notes, want);
    assert_eq!(cap.events, open(&plain_path).unwrap().events);
    // The index walks the summaries back from the end: it finds them too.
    let index = CaptureIndex::open(&path).unwrap();
    assert!(index.end().is_complete(), "{:?}", index.end());
    assert_eq!(index.notes(), &want[..]);
    assert!(index.frames().len() >= 5);
    // A file without its end mark (still being written) is refused.
    let open_path = dir.path().join("open.idbt");
    let mut w = CaptureWriter::create(&open_path, &Header::new(nt(0), None, false)).unwrap();
    w.append(&nsample(0)).unwrap();
    let e =
        innodebt_capture::notes::append_note(&open_path, &innodebt_capture::Note::new(nt(0), "x"))
            .unwrap_err();
    assert!(e.to_string().contains("has no end mark"), "{e}");
}

/// Damage that lands on a block header (a reserved block type) costs the rest of its section,
/// not all of it: the records in the blocks before it are read.
#[test]
fn a_damaged_block_header_keeps_the_blocks_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.idbt");
    let events = session(40, false);
    write(&path, &events, small_frames(), true);
    let good = std::fs::read(&path).unwrap();
    let idx = CaptureIndex::open(&path).unwrap();
    let f = idx.frames()[1].clone();
    let (lo, hi) = (f.data_offset as usize, f.end as usize);
    let layout = format::frame_layout(&good[lo..hi]).unwrap();
    assert!(layout.block_ends.len() >= 4, "{layout:?}");
    // The third block's header: block type 3 (reserved).
    let at = lo + layout.block_ends[1];
    let mut bad = good.clone();
    bad[at] |= 0b110;
    let cap = from_bytes(&bad, &path).unwrap();
    let End::Truncated { at_byte, reason } = &cap.end else {
        panic!("damage not reported");
    };
    assert_eq!(*at_byte as usize, at, "{reason}");
    assert!(reason.contains("reserved block type"), "{reason}");
    // The writer ends a block with every record: the section's first records are read.
    let n = cap.events.len();
    assert!(
        n > f.first_record as usize,
        "{n} events, section from {}",
        f.first_record
    );
    assert_eq!(cap.events[..], events[..n]);
    // The index reads them too.
    let bad_path = dir.path().join("bad.idbt");
    std::fs::write(&bad_path, &bad).unwrap();
    let idx = CaptureIndex::open(&bad_path).unwrap();
    let read = idx.read_frame(1).unwrap();
    assert!(read.damaged);
    assert_eq!(read.events[..], events[f.first_record as usize..n]);
}
