//! pt-stalk import: a real capture of MariaDB 10.11 under write load (`tests/fixtures/ptstalk`,
//! made with `pt-stalk --no-stalk --iterations=1 --run-time=20`; the mysqladmin file keeps its
//! first 4 tables, path-valued variables were removed), and the innodbstatus-only pt-stalk
//! files of the sample corpus (`tests/data/samples`).

use crate::common::gate;

use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use innodebt::export::export_csv;
use innodebt_capture::{ImportError, WriterOptions, import_dir, open};
use innodebt_engine::derive::Deriver;
use innodebt_server::flavor::FlavorKind;
use innodebt_server::sample::SourceEvent;

const PREFIX: &str = "2026_11_21_20_34_37";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ptstalk")
}

/// The sample corpus directory holding pt-stalk files, or `None` (with a loud note) outside CI.
/// With the corpus there, a missing `percona-5.5` is a failure.
fn shared_ptstalk() -> Option<PathBuf> {
    let dir = gate::samples_dir("the pt-stalk corpus tests")?.join("percona-5.5");
    assert!(
        dir.is_dir(),
        "pt-stalk samples not found at {}",
        dir.display()
    );
    Some(dir)
}

fn samples(events: &[SourceEvent]) -> Vec<&innodebt_server::sample::Sample> {
    events.iter().filter_map(SourceEvent::as_sample).collect()
}

#[test]
fn imports_the_real_capture() {
    let (header, events) = import_dir(fixture(), None).unwrap();
    assert_eq!(header.origin, format!("pt-stalk {PREFIX}"));
    assert_eq!(header.tool_version, env!("CARGO_PKG_VERSION"));
    assert!(!header.keep_queries);
    assert_eq!(header.interval_ms, Some(1000));
    // The -procstat TS lines give the machine's offset (UTC here): no guess was needed.
    assert!(
        header.notes.iter().all(|n| !n.contains("time zone")),
        "{:?}",
        header.notes
    );
    let info = header.server.as_ref().unwrap();
    assert_eq!(info.flavor.kind, FlavorKind::Mariadb);
    assert_eq!((info.flavor.major, info.flavor.minor), (10, 11));
    assert_eq!(info.version, "10.11.19-MariaDB-0+deb12u1");
    assert_eq!(info.var_u64("innodb_log_file_size"), Some(100_663_296));
    assert_eq!(info.label, format!("pt-stalk {PREFIX} on vm"));
    // Only the variables the dashboard reads.
    assert!(info.var("socket").is_none() && info.var("datadir").is_none());

    let SourceEvent::Connected { at, .. } = &events[0] else {
        panic!("first event is not Connected: {:?}", events[0]);
    };
    let start = Utc.with_ymd_and_hms(2026, 11, 21, 20, 34, 37).unwrap();
    assert_eq!(*at, start);
    let s = samples(&events);
    // 4 mysqladmin tables at 1 s, and innodbstatus2 (20 s later) on its own.
    assert_eq!(s.len(), 5);
    for (i, sample) in s[..4].iter().enumerate() {
        assert_eq!(sample.taken_at, start + chrono::Duration::seconds(i as i64));
        assert_eq!(sample.mono_s, i as f64);
        assert!(sample.status.len() > 400, "{}", sample.status.len());
        assert!(sample.status("Innodb_lsn_current").is_some());
    }
    assert_eq!(s[1].status("Uptime"), s[0].status("Uptime").map(|u| u + 1));
    let first = s[0].innodb_status.as_ref().unwrap();
    assert_eq!(first.history_length, Some(24));
    assert_eq!(first.lsn, Some(8_925_759));
    assert!(s[1..4].iter().all(|x| x.innodb_status.is_none()));
    let last = s[4];
    assert_eq!(
        last.taken_at,
        Utc.with_ymd_and_hms(2026, 11, 21, 20, 34, 57).unwrap()
    );
    assert!(last.status.is_empty());
    assert_eq!(last.innodb_status.as_ref().unwrap().lsn, Some(55_391_473));

    // The dashboard's figures come out of it.
    let mut d = Deriver::new();
    let figures: Vec<_> = events.iter().filter_map(|e| d.push(e)).collect();
    assert_eq!(figures.len(), 5);
    assert!(figures[1].redo.checkpoint_age_bytes.is_some());
    assert!(figures[1].redo.written_bytes_per_s.is_some_and(|w| w > 0.0));
    assert_eq!(figures[1].redo.capacity_bytes, Some(100_663_296));
    assert!(figures[3].flush.total_pages_per_s.is_some());
}

#[test]
fn an_import_saves_replays_and_exports() {
    let (header, events) = import_dir(fixture(), Some(PREFIX)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("imported.idbt");
    let mut w = innodebt::replay::create_writer(&p, &header, WriterOptions::default()).unwrap();
    for e in &events {
        w.append(e).unwrap();
    }
    w.finish().unwrap();
    let cap = open(&p).unwrap();
    assert_eq!(cap.header, header);
    assert_eq!(cap.events.len(), events.len());
    // Query texts from SHOW ENGINE INNODB STATUS were digested on the way to disk.
    let s = samples(&cap.events);
    let q = s[0].innodb_status.as_ref().unwrap().transactions[0]
        .query
        .clone()
        .unwrap();
    assert_eq!(
        q,
        "INSERT INTO capture_ptstalk_load (v, n) SELECT REPEAT(?, ?), seq FROM seq_1_to_500"
    );
    assert_eq!(samples(&cap.events)[1], samples(&events)[1]);

    let mut csv = Vec::new();
    assert_eq!(export_csv(&cap.events, &mut csv).unwrap(), 5);
    let text = String::from_utf8(csv).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("2026-11-21T20:34:37.000Z,")
    );
}

#[test]
fn the_shared_innodbstatus_only_files() {
    let Some(dir) = shared_ptstalk() else { return };
    // Two captures in one directory: say which, and how to choose.
    let e = import_dir(&dir, None).unwrap_err();
    let m = e.to_string();
    assert!(
        matches!(e, ImportError::SeveralPrefixes { count: 2, .. }),
        "{m}"
    );
    assert!(
        m.contains("ptstalk-2018_03_05_13_24_55")
            && m.contains("ptstalk-2018_03_05_13_34_55")
            && m.contains("--prefix"),
        "{m}"
    );

    // One chosen by its time part: only SHOW ENGINE INNODB STATUS, and the notes say what
    // is missing and what that costs.
    let (header, events) = import_dir(&dir, Some("2018_03_05_13_24_55")).unwrap();
    let s = samples(&events);
    assert_eq!(s.len(), 2);
    assert_eq!(
        s[0].taken_at,
        Utc.with_ymd_and_hms(2018, 3, 5, 13, 24, 56).unwrap()
    );
    assert_eq!(s[1].mono_s, 30.0);
    assert!(s.iter().all(|x| x.status.is_empty()));
    let st = s[0].innodb_status.as_ref().unwrap();
    assert!(st.history_length.is_some() && st.lsn.is_some() && st.checkpoint_lsn.is_some());
    let notes = header.notes.join("\n");
    assert!(notes.contains("-mysqladmin is missing"), "{notes}");
    assert!(notes.contains("-variables is missing"), "{notes}");
    assert!(notes.contains("taken as UTC"), "{notes}");
    let mut d = Deriver::new();
    let figures: Vec<_> = events.iter().filter_map(|e| d.push(e)).collect();
    assert_eq!(figures.len(), 2);
    assert_eq!(figures[0].history.length, st.history_length);
    assert!(figures[0].redo.checkpoint_age_bytes.is_some());

    let (_, events) = import_dir(&dir, Some("ptstalk-2018_03_05_13_34_55")).unwrap();
    assert_eq!(samples(&events).len(), 1);
}

#[test]
fn incomplete_empty_and_unknown_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let shown = dir.path().display().to_string();

    let e = import_dir(dir.path(), None).unwrap_err();
    assert!(matches!(e, ImportError::NoCapture { .. }), "{e}");
    assert!(e.to_string().contains(&shown) && e.to_string().contains("pt-stalk --dest"));

    std::fs::write(dir.path().join(format!("{PREFIX}-df")), "TS 1 x\n").unwrap();
    std::fs::write(dir.path().join(format!("{PREFIX}-hostname")), "vm\n").unwrap();
    let e = import_dir(dir.path(), None).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, ImportError::Incomplete { .. }), "{m}");
    assert!(
        m.contains(&format!("{PREFIX}-mysqladmin"))
            && m.contains("innodbstatus1/2")
            && m.contains("df, hostname"),
        "{m}"
    );

    // Files present but empty: still a clear message, not an empty import.
    std::fs::write(dir.path().join(format!("{PREFIX}-mysqladmin")), "").unwrap();
    std::fs::write(dir.path().join(format!("{PREFIX}-innodbstatus1")), "").unwrap();
    let m = import_dir(dir.path(), None).unwrap_err().to_string();
    assert!(m.contains("anything readable"), "{m}");

    let e = import_dir(dir.path(), Some("2020_01_01_00_00_00")).unwrap_err();
    assert!(matches!(e, ImportError::UnknownPrefix { .. }));
    assert!(e.to_string().contains(PREFIX), "{e}");

    let e = import_dir(dir.path().join("nope"), None).unwrap_err();
    assert!(matches!(e, ImportError::ReadDir { .. }), "{e}");
}

#[test]
fn a_cut_mysqladmin_table_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let admin = dir.path().join(format!("{PREFIX}-mysqladmin"));
    let text = std::fs::read_to_string(&admin).unwrap();
    // Cut in the middle of the 4th table, as a killed pt-stalk leaves it.
    let fourth = text.match_indices("| Variable_name").nth(3).unwrap().0;
    std::fs::write(&admin, &text[..fourth + 20_000]).unwrap();
    let (header, events) = import_dir(dir.path(), None).unwrap();
    assert_eq!(samples(&events).len(), 4); // 3 tables + innodbstatus2
    assert!(
        header.notes.iter().any(|n| n.contains("cut short")),
        "{:?}",
        header.notes
    );
}
