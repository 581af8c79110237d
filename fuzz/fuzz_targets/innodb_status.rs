//! SHOW ENGINE INNODB STATUS and the other text dumps (SHOW STATUS / VARIABLES, mysqladmin
//! extended-status, INNODB_METRICS) on arbitrary bytes: no panic, no hang, and the
//! documented limits hold (query texts at most 1,000 chars, at most 64 section names).
#![no_main]

use innodebt_server::{innodb_status, status_dump};
use libfuzzer_sys::fuzz_target;

fn check(text: &str) {
    let st = innodb_status::parse(text);
    assert!(
        st.sections.len() <= 64,
        "{} sections kept",
        st.sections.len()
    );
    for trx in &st.transactions {
        if let Some(q) = &trx.query {
            assert!(
                q.chars().count() <= 1000,
                "query of {} chars kept",
                q.chars().count()
            );
        }
    }
    // What the parser returns is stored in captures: it must survive a JSON round trip.
    let json = serde_json::to_string(&st).expect("a parsed status serialises");
    let back: innodb_status::InnodbStatus =
        serde_json::from_str(&json).expect("a serialised status reads back");
    assert_eq!(back, st);
    let _ = status_dump::parse_name_values(text);
    let _ = status_dump::parse_mysqladmin_samples(text);
    let _ = status_dump::parse_innodb_metrics(text);
}

fuzz_target!(|data: &[u8]| {
    match std::str::from_utf8(data) {
        Ok(text) => check(text),
        Err(_) => check(&String::from_utf8_lossy(data)),
    }
});
