//! Regression tests for what the fuzzing work found (`fuzz/`, see FUZZING.md): each holds
//! the minimised input inline and failed before its fix.

use chrono::{DateTime, Utc};
use innodebt_capture::import_dir;
use innodebt_server::sample::SourceEvent;

/// pt-stalk files in a fresh directory.
fn ptstalk_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("a pt-stalk file");
    }
    dir
}

fn sample_times(events: &[SourceEvent]) -> Vec<DateTime<Utc>> {
    events
        .iter()
        .filter_map(|e| match e {
            SourceEvent::Sample(s) => Some(s.taken_at),
            _ => None,
        })
        .collect()
}

const TABLE: &str = "| Variable_name | Value |\n| Uptime | 10 |\n| Innodb_lsn_current | 100 |\n";

/// A `TS` line whose epoch (year −261,000) and local time (year 9999) are hundreds of
/// thousands of years apart gave a "UTC offset" that pushed the file-name time out of the
/// date range: `NaiveDateTime - TimeDelta overflowed`, a panic in `import pt-stalk`.
/// Now such a line is not taken as the time zone.
#[test]
fn ptstalk_ts_line_with_an_impossible_offset_is_ignored() {
    let dir = ptstalk_dir(&[
        ("2026_11_21_20_34_37-mysqladmin", TABLE),
        (
            "2026_11_21_20_34_37-procstat",
            "TS -8300000000000 9999-12-31 23:59:59\n",
        ),
    ]);
    let (header, events) = import_dir(dir.path(), None).expect("the import works");
    assert!(
        header.notes.iter().any(|n| n.contains("taken as UTC")),
        "{:?}",
        header.notes
    );
    let want: DateTime<Utc> = "2026-11-21T20:34:37Z".parse().expect("a time");
    assert_eq!(sample_times(&events), vec![want]);
}

/// The same overflow by another path: a real offset (UTC+2) applied to a status output whose
/// header time is the first day chrono can hold (year −262143): it is kept as printed.
#[test]
fn ptstalk_status_time_at_the_start_of_the_date_range_is_not_a_panic() {
    let status = "-262143-01-01 00:00:00 0x7f00 INNODB MONITOR OUTPUT\n\
                  ---\nLOG\n---\nLog sequence number 100\nLast checkpoint at 90\n";
    let dir = ptstalk_dir(&[
        ("2026_11_21_20_34_37-mysqladmin", TABLE),
        ("2026_11_21_20_34_37-innodbstatus1", status),
        (
            "2026_11_21_20_34_37-procstat",
            "TS 1795293277.0 2026-11-21 22:34:37\n",
        ),
    ]);
    let (_, events) = import_dir(dir.path(), None).expect("the import works");
    let times = sample_times(&events);
    assert!(!times.is_empty());
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}
