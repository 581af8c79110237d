//! Replay in bounded memory: the screen at any moment of a capture, rebuilt from the state
//! stored before its section, equals a replay from the start — every figure (to 1e-9), the
//! link state, and every chart point of the longest window (bit for bit) — at hundreds of
//! random moments of a three-hour capture whose derivation carries state across sections in
//! every way it can (a three-hour blocker, SEIS refusals, undo scans, reconnects, a crash, a
//! redo resize, verdict hysteresis, the hour-long write rate). Also: stepping on from a seek,
//! rotated files, separate recordings in one directory, format 1 files, damaged and cut
//! files, forged sections, notable moments and their grouping.

use crate::common::feed;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use innodebt::data_view::moments::{Moment, MomentKind, Scanner, peak_moment};
use innodebt::data_view::{DataView, Link};
use innodebt::replay::{CHART_SPAN_S, CaptureSet, create_writer, open_replay};
use innodebt_capture::{self as capture, Header, WriterOptions};
use innodebt_engine::derive::DERIVATION_VERSION;
use innodebt_engine::verdicts::RecoveryModel;
use innodebt_server::sample::SourceEvent;
use serde_json::Value;

/// What a replay shows at one moment.
#[derive(Debug)]
struct Snap {
    figures: Option<Value>,
    link: Link,
    samples_seen: u64,
    latest_t: f64,
    charts: Vec<Vec<(u64, u64)>>,
}

fn snap(view: &DataView) -> Snap {
    let since = view.latest_t - CHART_SPAN_S;
    Snap {
        figures: view
            .latest
            .as_ref()
            .map(|f| serde_json::to_value(f).expect("figures serialise")),
        link: view.link.clone(),
        samples_seen: view.samples_seen,
        latest_t: view.latest_t,
        charts: view
            .charts
            .series()
            .iter()
            .map(|s| {
                s.window(since)
                    .into_iter()
                    .map(|(t, v)| (t.to_bits(), v.to_bits()))
                    .collect()
            })
            .collect(),
    }
}

/// Numbers equal to 1e-9 (relative, or absolute near zero); everything else exactly.
fn same_value(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let tol = 1e-9 * x.abs().max(y.abs()).max(1.0);
            if (x - y).abs() <= tol {
                Ok(())
            } else {
                Err(format!("{path}: {x} ≠ {y}"))
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let null = Value::Null;
                same_value(
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    &format!("{path}.{k}"),
                )?;
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same_value(p, q, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} ≠ {b}")),
    }
}

fn same(expected: &Snap, got: &Snap, at: &str) {
    match (&expected.figures, &got.figures) {
        (Some(e), Some(g)) => {
            if let Err(e) = same_value(e, g, "figures") {
                panic!("{at}: {e}");
            }
        }
        (None, None) => {}
        (e, g) => panic!("{at}: figures {} vs {}", e.is_some(), g.is_some()),
    }
    assert_eq!(expected.link, got.link, "{at}: link");
    assert_eq!(
        expected.samples_seen, got.samples_seen,
        "{at}: samples seen"
    );
    assert_eq!(
        expected.latest_t.to_bits(),
        got.latest_t.to_bits(),
        "{at}: time"
    );
    for (i, (e, g)) in expected.charts.iter().zip(&got.charts).enumerate() {
        assert!(
            e == g,
            "{at}: chart series {i}: {} points expected, {} rebuilt (first difference at {:?})",
            e.len(),
            g.len(),
            e.iter().zip(g).position(|(a, b)| a != b)
        );
    }
}

/// A sequential replay of files, each starting from a fresh derivation (unless `continuous`,
/// for the files of one rotation), charts kept across files: snapshots at `at`, and the
/// notable moments with sample indices over all files.
fn reference(
    files: &[Vec<SourceEvent>],
    continuous: bool,
    at: &BTreeSet<u64>,
) -> (BTreeMap<u64, Snap>, Vec<Moment>) {
    type Peak = Option<(u64, chrono::DateTime<chrono::Utc>, u64)>;
    let mut view = DataView::default();
    let mut scan = Scanner::default();
    let mut snaps = BTreeMap::new();
    let mut moments = Vec::new();
    let mut peak: Peak = None;
    let mut pos = 0u64;
    let mut base = 0u64;
    let end_file = |scan: &mut Scanner, base: u64, moments: &mut Vec<Moment>, peak: &mut Peak| {
        moments.extend(scan.take().into_iter().map(|mut m| {
            m.sample += base;
            m
        }));
        if let Some((s, t, h)) = scan.peak()
            && peak.is_none_or(|(_, _, p)| h > p)
        {
            *peak = Some((s + base, t, h));
        }
    };
    for (i, events) in files.iter().enumerate() {
        if i > 0 && !continuous {
            end_file(&mut scan, base, &mut moments, &mut peak);
            let charts = std::mem::take(&mut view.charts);
            view = DataView::default();
            view.charts = charts;
            scan = Scanner::default();
            base = pos;
        }
        for ev in events {
            let step = view.step(ev, ev.at());
            scan.feed(ev, view.latest.as_ref().filter(|_| step.figures));
            if matches!(ev, SourceEvent::Sample(_)) {
                if at.contains(&pos) {
                    snaps.insert(pos, snap(&view));
                }
                pos += 1;
            }
        }
    }
    end_file(&mut scan, base, &mut moments, &mut peak);
    moments.extend(peak_moment(peak));
    moments.sort_by_key(|m| (m.sample, m.at));
    (snaps, moments)
}

/// The events as the capture holds them (query texts digested, as a replay reads them).
fn stored(paths: &[PathBuf]) -> Vec<SourceEvent> {
    paths
        .iter()
        .flat_map(|p| capture::open(p).expect("the capture reads").events)
        .collect()
}

fn write(path: &Path, events: &[SourceEvent], frame_records: u32) {
    let opts = WriterOptions {
        frame_records,
        ..WriterOptions::default()
    };
    let start = events.first().map(SourceEvent::at).unwrap_or_default();
    let mut w =
        create_writer(path, &Header::new(start, None, false), opts).expect("create the capture");
    for ev in events {
        w.append(ev).expect("append");
    }
    w.finish().expect("finish");
}

fn samples(events: &[SourceEvent]) -> u64 {
    events
        .iter()
        .filter(|e| matches!(e, SourceEvent::Sample(_)))
        .count() as u64
}

/// Deterministic positions: `n` spread by a fixed LCG, plus every section's first and last.
fn moments_to_check(set: &CaptureSet, n: usize) -> BTreeSet<u64> {
    let len = set.len();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut at: BTreeSet<u64> = (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 17) % len
        })
        .collect();
    at.extend([0, len - 1]);
    at.extend(set.section_starts().flat_map(|s| [s, s.saturating_sub(1)]));
    at
}

fn open(path: &Path) -> CaptureSet {
    open_replay(path, RecoveryModel::published_default()).expect("the capture opens")
}

/// Seeks to every position in a shuffled (fixed) order — back and forth across the file, as
/// a DBA does — and compares each screen with the sequential replay's.
fn check_every(set: &mut CaptureSet, snaps: &BTreeMap<u64, Snap>, what: &str) {
    let mut order: Vec<(&u64, &Snap)> = snaps.iter().collect();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..order.len()).rev() {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        order.swap(i, (x >> 33) as usize % (i + 1));
    }
    for (pos, expected) in order {
        let (view, cursor) = set
            .view_at(*pos, true)
            .unwrap_or_else(|e| panic!("{what}: seek to {pos}: {e}"));
        assert_eq!(cursor.pos(), *pos, "{what}: the cursor stands where asked");
        same(expected, &snap(&view), &format!("{what}, sample {pos}"));
    }
}

#[test]
fn any_moment_equals_a_sequential_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("3h.idbt");
    // Three hours and ten minutes: past the verdict engine's two-hour history series.
    let events = feed::Feed::new(feed::Plan::default()).events(11_400);
    write(&path, &events, 250);
    let mut set = open(&path);
    assert_eq!(set.len(), samples(&events));
    assert!(set.note().is_none(), "{:?}", set.note());
    let at = moments_to_check(&set, 200);
    let (snaps, moments) = reference(&[stored(std::slice::from_ref(&path))], false, &at);
    assert_eq!(snaps.len(), at.len());
    check_every(&mut set, &snaps, "3 h capture");
    assert_eq!(set.moments(), &moments[..], "notable moments");
    // The feed's debts show up as moments of every kind it provokes.
    for kind in [
        MomentKind::AsyncCrossed,
        MomentKind::SyncCrossed,
        MomentKind::BlockerAppeared,
        MomentKind::PurgeStopped,
        MomentKind::Disconnected,
        MomentKind::Reconnected,
        MomentKind::RuntimeChange,
        MomentKind::Verdict,
        MomentKind::HistoryPeak,
    ] {
        assert!(moments.iter().any(|m| m.kind == kind), "{kind:?}");
    }
}

#[test]
fn stepping_on_from_a_seek_equals_a_sequential_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("steps.idbt");
    let events = feed::Feed::new(feed::Plan::default()).events(4_000);
    write(&path, &events, 120);
    let mut set = open(&path);
    let starts = [0u64, 117, 1_234, 2_990];
    let at: BTreeSet<u64> = starts
        .iter()
        .flat_map(|s| (*s..*s + 400).step_by(7))
        .filter(|p| *p < set.len())
        .collect();
    let (snaps, _) = reference(&[stored(std::slice::from_ref(&path))], false, &at);
    for start in starts {
        let (mut view, mut cursor) = set.view_at(start, true).expect("seek");
        for _ in 0..400 {
            if let Some(expected) = snaps.get(&cursor.pos()) {
                same(
                    expected,
                    &snap(&view),
                    &format!("stepped to {}", cursor.pos()),
                );
            }
            if !set.step(&mut view, &mut cursor).expect("step") {
                break;
            }
        }
    }
}

#[test]
fn rotated_files_replay_as_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = feed::Feed::new(feed::Plan::default()).events(9_000);
    // A flight recorder's rotation: files cut at arbitrary events, derivation carried over.
    let cuts = [0usize, 2_345, 2_346, 6_100, events.len()];
    let header = Header::new(events[0].at(), None, false);
    let opts = WriterOptions {
        frame_records: 300,
        ..WriterOptions::default()
    };
    let name = |i: usize| dir.path().join(format!("2026-03-14T{i:02}.idbt"));
    let mut w = create_writer(name(0), &header, opts).expect("create");
    for (i, pair) in cuts.windows(2).enumerate() {
        if i > 0 {
            w = w.rotate(name(i), &header).expect("rotate").1;
        }
        for ev in &events[pair[0]..pair[1]] {
            w.append(ev).expect("append");
        }
    }
    w.finish().expect("finish");
    let mut set = open(dir.path());
    assert_eq!(set.files().count(), 4);
    assert_eq!(set.len(), samples(&events));
    let at = moments_to_check(&set, 120);
    let files: Vec<PathBuf> = (0..4).map(name).collect();
    let (snaps, moments) = reference(&[stored(&files)], true, &at);
    check_every(&mut set, &snaps, "rotated files");
    assert_eq!(set.moments(), &moments[..], "notable moments");
}

#[test]
fn separate_recordings_in_one_directory_each_start_afresh() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut feed = feed::Feed::new(feed::Plan::default());
    let first = feed.events(2_500);
    // The recorder restarted: a new file, the poller's clock from zero again.
    let mut second = feed::Feed::new(feed::Plan::quiet()).events(1_800);
    for ev in &mut second {
        if let SourceEvent::Sample(s) = ev {
            s.taken_at += chrono::Duration::seconds(2_600);
        }
    }
    let (a, b) = (dir.path().join("a.idbt"), dir.path().join("b.idbt"));
    write(&a, &first, 200);
    write(&b, &second, 200);
    let mut set = open(dir.path());
    let at = moments_to_check(&set, 80);
    let (snaps, moments) = reference(&[stored(&[a]), stored(&[b])], false, &at);
    check_every(&mut set, &snaps, "two recordings");
    assert_eq!(set.moments(), &moments[..], "notable moments");
}

#[test]
fn format_1_capture_replays_like_a_sequential_replay() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt");
    let cap = capture::open(&path).expect("the demo reads");
    let mut set = open(&path);
    assert_eq!(set.files().next().map(|f| f.version()), Some(1));
    let at: BTreeSet<u64> = (0..set.len()).collect();
    let (snaps, moments) = reference(&[cap.events], false, &at);
    check_every(&mut set, &snaps, "format 1 demo");
    assert_eq!(set.moments(), &moments[..]);
}

/// The digest of what derivation remembers along the demo's events: pinned to
/// [`DERIVATION_VERSION`] so a change to what derivation computes cannot slip by while old
/// captures still carry checkpoints made the old way.
#[test]
fn derivation_fingerprint_is_pinned_to_its_version() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt");
    let cap = capture::open(&path).expect("the demo reads");
    let mut view = DataView::default();
    let mut crc = crc32fast::Hasher::new();
    for ev in &cap.events {
        view.ingest(ev, ev.at());
        crc.update(&serde_json::to_vec(&view.state()).expect("state serialises"));
    }
    let fingerprint = crc.finalize();
    let pinned: &[(u32, u32)] = &[
        (1, 0xc0bf_0e2a),
        (2, 0x32cd_bf31),
        (3, 0xdaef_38e7),
        (4, 0x711f_a278),
        (5, 0x8975_a7f2),
        (6, 0x68be_e849),
        (7, 0xe957_5ae0),
        (8, 0xab45_3404),
        (9, 0x5295_f136),
        // The view's state as 9: the moment scanner reads `purge.moving` now, so the moments
        // and scanner state stored beside it are made another way.
        (10, 0x5295_f136),
        // The recovery estimate split into start-up and redo application, with its range.
        (11, 0x38ae_8590),
        // Purge and inflow rates kept for twice the trend window, not an hour.
        (12, 0x92c2_4e4f),
        // The redo write rate's hour kept as minute sums in the state, not as points.
        (13, 0x843a_7069),
        // The recovery estimate carries its rate's origin and evidence and the recoveries
        // passed over as too small to time; `purge.lag_trx` is `lag_trx_numbers`; the peak
        // tracker keeps the span it watched and sizing states it; the flush regime judged on
        // the oldest dirty page's age (with the age it used); MySQL 8.0 redo points by
        // release; purge lag on MySQL bounded by history.
        (16, 0x9bcc_e78b),
    ];
    let want = pinned
        .iter()
        .find(|(v, _)| *v == DERIVATION_VERSION)
        .map(|p| p.1);
    assert_eq!(
        want,
        Some(fingerprint),
        "derivation changed what it computes or remembers (fingerprint {fingerprint:#010x}): \
         bump DERIVATION_VERSION in src/derive/state.rs and pin the new fingerprint here, \
         so captures recorded before are re-derived instead of trusted"
    );
}

fn copy_with(path: &Path, to: &Path, f: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(path).expect("read");
    f(&mut bytes);
    std::fs::write(to, &bytes).expect("write");
    to.to_path_buf()
}

#[test]
fn damaged_and_cut_captures_replay_what_they_hold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("whole.idbt");
    let events = feed::Feed::new(feed::Plan::default()).events(3_000);
    write(&path, &events, 250);
    let whole = open(&path);
    let len = whole.len();
    let bytes = std::fs::metadata(&path).expect("stat").len() as usize;

    // Cut inside the last sections (a writer killed mid-write): everything before replays,
    // and the moments after the last stored state are derived from it.
    for cut in [bytes - 40, bytes * 9 / 10, bytes * 3 / 4] {
        let p = copy_with(&path, &dir.path().join("cut.idbt"), |b| b.truncate(cut));
        let mut set = open(&p);
        let n = set.len();
        assert!(n > 0 && n <= len, "{n} of {len}");
        assert!(set.note().is_some_and(|n| n.contains("cut.idbt")));
        let readable = capture::open(&p).expect("reads").events;
        assert_eq!(samples(&readable), n, "cut at {cut}");
        let at: BTreeSet<u64> = [0, n / 2, n - 1].into();
        let (snaps, _) = reference(&[readable], false, &at);
        check_every(&mut set, &snaps, &format!("cut at {cut}"));
    }

    // A damaged byte in the middle: the section is read up to it, the rest of the capture
    // replays from the states the writer stored after it.
    let p = copy_with(&path, &dir.path().join("damaged.idbt"), |b| {
        let mid = b.len() / 2;
        for x in &mut b[mid..mid + 64] {
            *x ^= 0x5a;
        }
    });
    // The section's summary is intact, so the damage is found when the section is first read:
    // a replay's loader brings it to the dashboard's header then.
    {
        use innodebt::replay::{Goto, LoadRequest, Recording};
        let rec = Recording::new(open(&p));
        assert_eq!(rec.damage, None, "not read yet");
        let last = rec.len() - 1;
        let found = (0..=last).step_by(97).find_map(|pos| {
            let req = LoadRequest {
                ticket: pos,
                to: Goto::Sample(pos),
                first: 0,
                last,
            };
            rec.loader.load(&req).expect("a window").damage
        });
        assert!(
            found
                .as_deref()
                .is_some_and(|d| d.starts_with("damaged: ") && d.ends_with("could be read")),
            "{found:?}"
        );
    }
    let mut set = open(&p);
    let n = set.len();
    assert!(n > len / 2, "{n} of {len}");
    for pos in (0..n).step_by(97) {
        set.view_at(pos, true)
            .unwrap_or_else(|e| panic!("sample {pos} of a damaged capture: {e}"));
    }
    assert!(
        set.note().is_some_and(|n| n.contains("damaged")),
        "{:?}",
        set.note()
    );
    // What it cost: the samples after the last one decoded, up to the section's last by its
    // summary.
    let notes = set.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("(the section's last, by its summary; ")),
        "{notes:?}"
    );
    let (view, _) = set.view_at(n - 1, true).expect("the end replays");
    let (expected, _) = reference(
        &[stored(std::slice::from_ref(&path))],
        false,
        &[len - 1].into(),
    );
    same(&expected[&(len - 1)], &snap(&view), "the end after damage");
}

#[test]
fn a_forged_section_of_millions_of_records_is_cut_short() {
    use innodebt_capture::format;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("forged.idbt");
    let events = feed::Feed::new(feed::Plan::quiet()).events(3);
    let start = events[0].at();
    let mut out = format::encode_header(&Header::new(start, None, false)).expect("header");
    out.extend(format::encode_marker(&format::Marker {
        frame_no: 0,
        first_record: 0,
        first_at: start,
    }));
    // One valid, checksummed record, over and over: far more than any section holds.
    let record = format::encode_record(&events[1]).expect("record");
    let copies = 10_000;
    let mut plain = Vec::with_capacity(record.len() * copies);
    for _ in 0..copies {
        plain.extend_from_slice(&record);
    }
    out.extend(zstd::encode_all(&plain[..], 3).expect("compress"));
    std::fs::write(&path, &out).expect("write");
    let mut set = open(&path);
    assert!(
        set.len() <= u64::from(format::MAX_SECTION_RECORDS),
        "{} samples held",
        set.len()
    );
    assert!(
        set.note().is_some_and(|n| n.contains("more than")),
        "{:?}",
        set.note()
    );
    let (view, _) = set
        .view_at(set.len() / 2, true)
        .expect("what was read replays");
    assert!(view.samples_seen <= u64::from(format::MAX_SECTION_RECORDS));
}

#[test]
fn a_flight_recorders_hourly_files_replay_as_one_recording() {
    use innodebt::serve::recorder::{self, Budget, segments};
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("db1");
    std::fs::create_dir_all(&target).expect("mkdir");
    let budget = Budget::new(
        dir.path().to_path_buf(),
        Some(std::time::Duration::from_secs(48 * 3600)),
        1 << 30,
    );
    // Three hours and a half from 09:00: four hourly files, the verdict engine's two-hour
    // history and the hour's write rate reaching across them.
    let events = feed::Feed::new(feed::Plan::default()).events(12_600);
    let mut rolling = recorder::rolling(target.clone(), budget);
    for ev in &events {
        rolling.append(ev).expect("record");
    }
    rolling.close().expect("finish the last file");
    let files: Vec<PathBuf> = segments(&target).into_iter().map(|s| s.path).collect();
    assert_eq!(files.len(), 4, "{files:?}");
    let mut set = open(&target);
    assert_eq!(set.len(), samples(&events));
    let at = moments_to_check(&set, 100);
    let (snaps, moments) = reference(&[stored(&files)], true, &at);
    check_every(&mut set, &snaps, "flight recorder");
    assert_eq!(set.moments(), &moments[..], "notable moments");
}

/// `--at`, `--from`, `g`: a sample's own time (to the nanosecond) finds that sample, a time
/// between two samples the later one, a time past the end the last.
#[test]
fn a_time_finds_its_sample() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.idbt");
    let events = feed::Feed::new(feed::Plan::default()).events(3_000);
    write(&path, &events, 250);
    let mut set = open(&path);
    let times: Vec<_> = stored(std::slice::from_ref(&path))
        .iter()
        .filter_map(|e| e.as_sample().map(|s| s.taken_at))
        .collect();
    assert!(
        times
            .iter()
            .any(|t| t.timestamp_subsec_nanos() % 1_000 != 0)
    );
    for p in (0..set.len()).step_by(37).chain([set.len() - 1]) {
        let t = times[p as usize];
        assert_eq!(set.sample_time(p), Some(t));
        assert_eq!(set.index_at(t), p, "{t}");
        if p > 0 {
            let between = t - chrono::Duration::nanoseconds(1);
            assert_eq!(set.index_at(between), p, "{between}");
        }
    }
    let late = times[times.len() - 1] + chrono::Duration::days(1);
    assert_eq!(set.index_at(late), set.len() - 1);
    assert_eq!(set.index_at(times[0] - chrono::Duration::days(1)), 0);
}

/// A capture where the same debts come back every minute for two hours: the timeline folds
/// the repeats into a few marks that say how many they hold, `n`/`N` step group by group, and
/// the header says "1 of N like it" at a group.
#[test]
fn periodic_moments_fold_into_groups_that_n_steps_through() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use innodebt::app::{App, Msg, Recording, Replay};
    use innodebt::theme::Theme;
    use ratatui::{Terminal, backend::TestBackend};

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("periodic.idbt");
    let plan = feed::Plan {
        age_period: 60,
        ..feed::Plan::quiet()
    };
    let events = feed::Feed::new(plan).events(7_200);
    write(&path, &events, 600);
    let rec = Recording::new(open(&path));
    let moments = rec.moments().len();
    let groups = rec.groups.clone();
    // Two crossings a minute for two hours; the grouping gap is 72 s.
    assert!(moments >= 200, "{moments} moments");
    assert!(groups.len() * 20 <= moments, "{} groups", groups.len());
    assert_eq!(groups.iter().map(|g| g.count).sum::<usize>(), moments);
    let big = groups.iter().max_by_key(|g| g.count).expect("a group");
    assert!(big.count >= 100, "{big:?}");

    let last = rec.len() - 1;
    let mut app = innodebt::dashboard::replay_now(
        Replay::new(rec, 0, last),
        std::time::Duration::from_secs(1),
    );
    let press = |app: &mut App, c: char| {
        let cmds = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )));
        innodebt::dashboard::settle(app, cmds);
        app.replay().map(|r| r.pos).expect("replaying")
    };
    let starts: Vec<u64> = groups
        .iter()
        .map(|g| g.first.sample)
        .filter(|s| *s > 0)
        .collect();
    let mut visited = Vec::new();
    for _ in 0..=starts.len() {
        let p = press(&mut app, 'n');
        if visited.last() == Some(&p) {
            break;
        }
        visited.push(p);
    }
    let mut distinct = starts.clone();
    distinct.dedup();
    assert_eq!(visited, distinct, "n visits each group's first moment once");
    let mut back = Vec::new();
    for _ in 0..distinct.len() {
        back.push(press(&mut app, 'N'));
    }
    let mut expected: Vec<u64> = distinct.iter().rev().skip(1).copied().collect();
    expected.extend(groups.iter().map(|g| g.first.sample).filter(|s| *s == 0));
    assert_eq!(
        &back[..expected.len()],
        &expected[..],
        "N goes back group by group"
    );

    // At the biggest group the header counts its moments; elsewhere (the cursor not on it)
    // the timeline's mark does.
    let screen = |app: &App| {
        let mut term = Terminal::new(TestBackend::new(200, 50)).expect("backend");
        term.draw(|f| innodebt::render::render(f, app, &Theme::default()))
            .expect("draw");
        term.backend()
            .buffer()
            .content
            .chunks(200)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
            .collect::<String>()
    };
    let cmds = app.seek(big.first.sample);
    innodebt::dashboard::settle(&mut app, cmds);
    let text = screen(&app);
    assert!(
        text.contains(&format!("(1 of {} like it over", big.count)),
        "{text}"
    );
    let cmds = app.seek(if big.first.sample < last / 2 { last } else { 0 });
    innodebt::dashboard::settle(&mut app, cmds);
    let text = screen(&app);
    assert!(
        text.contains(&format!("{}{}", big.mark, big.count)),
        "{text}"
    );
}
