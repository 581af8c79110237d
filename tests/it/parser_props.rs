//! Properties of the text parsers: they never panic, whatever the input (arbitrary strings,
//! status-like lines, corpus files cut anywhere, corpus lines shuffled and duplicated), and
//! a status output cut after its LOG section still gives the LSN of the whole output.
//! The corpus is `tests/data/samples` (or `$INNODEBT_SAMPLES`); in CI a missing corpus or file
//! fails, elsewhere the corpus-based properties say loudly that they did not run.

use crate::common::gate;

use std::sync::OnceLock;

use innodebt_server::error_log;
use innodebt_server::innodb_status;
use innodebt_server::status_dump;
use proptest::prelude::*;
use proptest::sample::Index;

struct Sample {
    kind: String,
    has_log: bool,
    text: String,
}

fn corpus() -> &'static [Sample] {
    static CORPUS: OnceLock<Vec<Sample>> = OnceLock::new();
    CORPUS.get_or_init(load_corpus)
}

fn load_corpus() -> Vec<Sample> {
    let Some(dir) = gate::samples_dir("the corpus-based properties") else {
        return Vec::new();
    };
    let index = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv is readable");
    index
        .lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let (file, kind, has_log) = (c.first()?, c.get(1)?, c.get(4)?);
            // A file the index lists is there: a missing one fails, never shrinks the corpus.
            let bytes = gate::sample_bytes(&dir, file);
            Some(Sample {
                kind: kind.to_string(),
                has_log: *has_log == "yes",
                text: String::from_utf8_lossy(&bytes).into_owned(),
            })
        })
        .collect()
}

fn run_all_parsers(s: &str) {
    let _ = innodb_status::parse(s);
    let _ = status_dump::parse_name_values(s);
    let _ = status_dump::parse_mysqladmin_samples(s);
    let _ = status_dump::parse_innodb_metrics(s);
    let _ = error_log::calibrate_from_error_log(s);
}

/// Rounds `i` down to a char boundary of `s`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Rounds `i` up to a char boundary of `s`.
fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Line starts that reach deep into the parsers, with random tails.
const FRAGMENTS: &[&str] = &[
    "=====================================",
    "060815 22:00:08 INNODB MONITOR OUTPUT",
    "2024-10-23 18:05:51 0x720545ed3700 INNODB MONITOR OUTPUT",
    "END OF INNODB MONITOR OUTPUT",
    "---",
    "LOG",
    "TRANSACTIONS",
    "------------",
    "Log sequence number ",
    "Log sequence number 0 ",
    "Last checkpoint at ",
    "Checkpoint age target ",
    "Checkpoint age ",
    "Max checkpoint age ",
    "Trx id counter ",
    "Purge done for trx's n:o < ",
    " undo n:o < 0 state: ",
    "History list length ",
    "---TRANSACTION ",
    "---TRANSACTION (0x7f00), not started",
    "---TRANSACTION 1, ACTIVE ",
    "MySQL thread id ",
    "MariaDB thread id 1, OS thread handle 2, query id ",
    "Trx read view will not see trx with id >= 1",
    "read views open inside InnoDB",
    "| InnoDB |      | ",
    "|",
    "\\n",
    "\t",
    "*************************** 1. row ***************************",
    "Variable_name: ",
    "Value: ",
    "+---+---+",
    "| Variable_name | Value |",
    "TS 1520256295.005 ",
    "name\tstatus",
    "NAME\tSUBSYSTEM\tCOUNT\tENABLED",
    "log_lsn_current\t",
    "é",
];

/// The beginnings of error-log lines around a crash recovery (MariaDB 10.5+, MySQL 5.6–8.x),
/// with timestamps of every shape the parser reads, and broken ones.
const ERROR_LOG_FRAGMENTS: &[&str] = &[
    "2026-11-21 20:37:20 0 [Note] Starting MariaDB 10.11.19-MariaDB as process ",
    "2026-11-21 20:37:20 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=",
    "2026-11-21 20:37:21 0 [Note] InnoDB: End of log at LSN=",
    "2026-11-21  9:37:21 0 [Note] InnoDB: To recover: ",
    "2026-11-21 20:37:21 0 [Note] InnoDB: To recover: LSN ",
    "2026-11-21 20:37:21 0 [Note] InnoDB: Read redo log up to LSN=",
    "2026-11-21 20:37:21 0 [Note] InnoDB: Multi-batch recovery needed at LSN ",
    "2026-11-21 20:37:21 0 [Note] InnoDB: log sequence number ",
    "; transaction id ",
    " pages",
    "2026-11-21 20:37:22 0 [Note] mariadbd: ready for connections.",
    "2025-03-01T10:00:00.1Z 0 [System] [MY-010116] [Server] mysqld (mysqld 8.0.36) starting as process ",
    "2025-03-01T10:00:00.300000+08:00 1 [Note] [MY-013086] [InnoDB] Starting to parse redo log at lsn = ",
    ", whereas checkpoint_lsn = ",
    "2025-03-01T10:00:01.3-99:99 1 [Note] [MY-012550] [InnoDB] Doing recovery: scanned up to log sequence number ",
    "2025-03-01T10:00:04.300000Z 1 [Note] [MY-012535] [InnoDB] Apply batch completed!",
    "2025-03-01T10:00:0",
    "[MY-012557] [InnoDB] Database was not shutdown normally!",
    "The latest found checkpoint is at lsn = ",
    "Log scan progressed past the checkpoint lsn ",
    "120314 11:03:18  InnoDB: Starting an apply batch of log records to the database...",
    "9999-99-99 99:99:99 ",
    "18446744073709551616",
    "-1",
    "é",
];

fn error_log_like() -> impl Strategy<Value = String> {
    let line = (
        prop::sample::select(ERROR_LOG_FRAGMENTS),
        "[0-9 /;.:a-z\u{e9}]{0,24}",
    )
        .prop_map(|(a, b)| format!("{a}{b}"));
    let sep = prop::sample::select(&["\n", "\r\n", " "][..]);
    (prop::collection::vec(line, 0..60), sep).prop_map(|(lines, sep)| lines.join(sep))
}

fn status_like() -> impl Strategy<Value = String> {
    let line = (
        prop::sample::select(FRAGMENTS),
        "[ -~\t\u{e9}\u{1F600}]{0,24}",
    )
        .prop_map(|(a, b)| format!("{a}{b}"));
    let sep = prop::sample::select(&["\n", "\r\n", "\\n", "\r", " "][..]);
    (prop::collection::vec(line, 0..80), sep).prop_map(|(lines, sep)| lines.join(sep))
}

/// A small deterministic generator for shuffling.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        run_all_parsers(&s);
    }

    #[test]
    fn status_like_strings_never_panic(s in status_like()) {
        run_all_parsers(&s);
    }

    /// Odd recovery logs never panic, and a calibration they give is self-consistent.
    #[test]
    fn error_log_like_strings_never_panic(s in error_log_like()) {
        if let Ok(c) = error_log::calibrate_from_error_log(&s) {
            prop_assert!(c.end_lsn > c.checkpoint_lsn);
            prop_assert_eq!(c.redo_bytes, c.end_lsn - c.checkpoint_lsn);
            prop_assert!(c.seconds >= 0.0 && c.rate_bytes_per_s.is_finite());
        }
    }

    /// performance_schema.error_log rows of any content become lines the parser reads.
    #[test]
    fn error_log_table_rows_never_panic(
        rows in prop::collection::vec(
            ("[-0-9.e+]{0,20}", "[A-Za-z]{0,8}", "[A-Z0-9-]{0,10}", "[A-Za-z]{0,8}", any::<String>()),
            0..20,
        )
    ) {
        let text = error_log::lines_from_table(
            rows.iter().map(|(a, b, c, d, e)| (a.as_str(), b.as_str(), c.as_str(), d.as_str(), e.as_str())),
        );
        prop_assert_eq!(text.lines().count(), rows.len());
        let _ = error_log::calibrate_from_error_log(&text);
    }
}

// Fewer cases: each one parses a corpus file (up to 1 MB) several times.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn corpus_cut_anywhere_never_panics(file in any::<Index>(), a in any::<Index>(), b in any::<Index>()) {
        let corpus = corpus();
        if corpus.is_empty() {
            return Ok(());
        }
        let text = &file.get(corpus).text;
        let (x, y) = (a.index(text.len() + 1), b.index(text.len() + 1));
        let (start, end) = (floor_boundary(text, x.min(y)), floor_boundary(text, x.max(y)));
        run_all_parsers(text.get(..end).unwrap_or(""));
        run_all_parsers(text.get(start..).unwrap_or(""));
        run_all_parsers(text.get(start..end).unwrap_or(""));
    }

    #[test]
    fn corpus_lines_shuffled_and_duplicated_never_panic(
        file in any::<Index>(),
        picks in prop::collection::vec(any::<Index>(), 0..400),
        seed in any::<u64>(),
    ) {
        let corpus = corpus();
        if corpus.is_empty() {
            return Ok(());
        }
        let lines: Vec<&str> = file.get(corpus).text.lines().collect();
        if lines.is_empty() {
            return Ok(());
        }
        // Random lines with repeats, in random order.
        let picked: Vec<&str> = picks.iter().map(|i| *i.get(&lines)).collect();
        run_all_parsers(&picked.join("\n"));
        // Every line of a window once, shuffled (a window keeps debug builds quick).
        let start = (seed % lines.len() as u64) as usize;
        let window = lines.get(start..(start + 2000).min(lines.len())).unwrap_or(&lines);
        let mut all = window.to_vec();
        let mut state = seed | 1;
        for i in (1..all.len()).rev() {
            let j = (xorshift(&mut state) % (i as u64 + 1)) as usize;
            all.swap(i, j);
        }
        run_all_parsers(&all.join("\n"));
        // Every line twice, in order (two monitor outputs back to back, or interleaved).
        let doubled: Vec<&str> = window.iter().flat_map(|l| [*l, *l]).collect();
        run_all_parsers(&doubled.join("\n"));
    }

    #[test]
    fn prefix_holding_the_log_section_keeps_the_lsn(file in any::<Index>(), cut in any::<Index>()) {
        let with_log: Vec<&Sample> = corpus()
            .iter()
            .filter(|s| s.has_log && (s.kind == "innodb_status" || s.kind == "ptstalk"))
            .collect();
        if with_log.is_empty() {
            return Ok(());
        }
        let text = &file.get(&with_log).text;
        let whole = innodb_status::parse(text);
        prop_assert!(whole.lsn.is_some());
        // The LOG section ends where BUFFER POOL AND MEMORY starts, in every layout
        // (Percona prints its checkpoint ages after "Last checkpoint at").
        let Some(lsn_at) = text.find("Log sequence number") else {
            return Err(TestCaseError::fail("no Log sequence number line"));
        };
        let Some(log_end) = text[lsn_at..].find("BUFFER POOL AND MEMORY").map(|n| lsn_at + n) else {
            return Err(TestCaseError::fail("no BUFFER POOL AND MEMORY after LOG"));
        };
        let end = ceil_boundary(text, log_end + cut.index(text.len() - log_end + 1));
        let prefix = &text[..end];
        let part = innodb_status::parse(prefix);
        prop_assert_eq!(part.lsn, whole.lsn);
        prop_assert_eq!(part.checkpoint_lsn, whole.checkpoint_lsn);
        prop_assert_eq!(part.max_checkpoint_age, whole.max_checkpoint_age);
        if !prefix.contains("END OF INNODB MONITOR OUTPUT") {
            prop_assert!(part.truncated);
        }
    }
}

/// The same prefix property, exhaustively at every line end of every status file.
#[test]
fn every_line_prefix_after_the_log_section_keeps_the_lsn() {
    for s in corpus()
        .iter()
        .filter(|s| s.has_log && (s.kind == "innodb_status" || s.kind == "ptstalk"))
    {
        let whole = innodb_status::parse(&s.text);
        let Some(at) = s.text.find("Last checkpoint at") else {
            panic!("a status file with a LOG section has no Last checkpoint line");
        };
        let ends: Vec<usize> = s
            .text
            .match_indices('\n')
            .map(|(i, _)| i + 1)
            .filter(|&e| e > at)
            .collect();
        // About 100 cuts per file keeps the big files quick in debug builds.
        for &end in ends.iter().step_by((ends.len() / 100).max(1)) {
            let part = innodb_status::parse(&s.text[..end]);
            assert_eq!(part.lsn, whole.lsn, "prefix of {end} bytes");
        }
    }
}
