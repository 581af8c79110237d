//! Real SEIS texts of every generation, wrapped every way the mysql client wraps them.

use super::transactions::{QUERY_MAX_CHARS, host_and_user};
use super::*;

const MYSQL50: &str = "\
=====================================
060815 22:00:08 INNODB MONITOR OUTPUT
=====================================
------------
TRANSACTIONS
------------
Trx id counter 0 418256672
Purge done for trx's n:o < 0 418256427 undo n:o < 0 0
History list length 68
LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 0 0, not started, process no 15072, OS thread id 1309149536
MySQL thread id 7292664, query id 62690007 localhost baron
SHOW /*!5 ENGINE */ INNODB STATUS
---TRANSACTION 0 418256671, ACTIVE 1 sec, process no 26479, OS thread id 1167968576 fetching rows
mysql tables in use 1, locked 0
MySQL thread id 8561, query id 79637659 linux.example.com 192.168.33.253 app Sending data
SELECT *
FROM t
Trx read view will not see trx with id >= 0 418256672, sees < 0 418256427
--------
FILE I/O
--------
---
LOG
---
Log sequence number 17 3726916467
Log flushed up to   17 3726916467
Last checkpoint at  17 3717618537
----------------------
BUFFER POOL AND MEMORY
----------------------
Buffer pool size   131072
Free buffers       99
Database pages     110571
Modified db pages  3939
--------------
ROW OPERATIONS
--------------
3 read views open inside InnoDB
----------------------------
END OF INNODB MONITOR OUTPUT
============================
";

#[test]
fn two_part_numbers() {
    let st = parse(MYSQL50);
    assert_eq!(st.lsn, Some(17 * (1u64 << 32) + 3_726_916_467));
    assert_eq!(st.log_flushed_lsn, st.lsn);
    assert_eq!(st.checkpoint_lsn, Some(17 * (1u64 << 32) + 3_717_618_537));
    assert_eq!(st.trx_id_counter, Some(418_256_672));
    assert_eq!(st.purge_done_trx, Some(418_256_427));
    assert_eq!(st.purge_done_undo, Some(0));
    assert_eq!(st.purge_state, None);
    assert_eq!(st.history_length, Some(68));
    assert_eq!(st.buffer_pool_pages, Some(131_072));
    assert_eq!(st.free_pages, Some(99));
    assert_eq!(st.database_pages, Some(110_571));
    assert_eq!(st.modified_pages, Some(3939));
    assert_eq!(st.read_views_open, Some(3));
    assert!(!st.truncated);
    assert_eq!(
        st.sections,
        [
            "TRANSACTIONS",
            "FILE I/O",
            "LOG",
            "BUFFER POOL AND MEMORY",
            "ROW OPERATIONS"
        ]
    );
}

#[test]
fn transactions_old_format() {
    let st = parse(MYSQL50);
    assert_eq!(st.transactions.len(), 2);
    let [a, b] = st.transactions.as_slice() else {
        panic!("two transactions expected");
    };
    assert_eq!(a.trx_id.as_deref(), Some("0 0"));
    assert_eq!(a.state.as_deref(), Some("not started"));
    assert_eq!(a.thread_id, Some(7_292_664));
    assert_eq!(a.host.as_deref(), Some("localhost"));
    assert_eq!(a.user.as_deref(), Some("baron"));
    assert_eq!(
        a.query.as_deref(),
        Some("SHOW /*!5 ENGINE */ INNODB STATUS")
    );
    assert!(!a.has_read_view);
    assert_eq!(b.trx_id.as_deref(), Some("0 418256671"));
    assert_eq!(b.state.as_deref(), Some("ACTIVE"));
    assert_eq!(b.active_s, Some(1));
    assert_eq!(b.host.as_deref(), Some("linux.example.com"));
    assert_eq!(b.user.as_deref(), Some("app"));
    assert_eq!(b.query.as_deref(), Some("SELECT *\nFROM t"));
    assert!(b.has_read_view);
}

#[test]
fn hex_ids_with_old_header() {
    // InnoDB plugin / 5.5: hex ids, even without a letter.
    let text = "=====================================\n\
        120206 10:00:00 INNODB MONITOR OUTPUT\n\
        =====================================\n\
        Trx id counter 1007\n\
        Purge done for trx's n:o < 1F69D12D8 undo n:o < 0\n";
    let st = parse(text);
    assert_eq!(st.trx_id_counter, Some(0x1007));
    assert_eq!(st.purge_done_trx, Some(0x1F69D12D8));
    assert_eq!(st.purge_done_undo, Some(0));
    assert!(st.truncated);
}

#[test]
fn hex_ids_without_header() {
    let st = parse("Trx id counter 8A3C\nPurge done for trx's n:o < 8A30 undo n:o < 0\n");
    assert_eq!(st.trx_id_counter, Some(0x8A3C));
    assert_eq!(st.purge_done_trx, Some(0x8A30));
    let st = parse("Trx id counter 0 A3F2\n");
    assert_eq!(st.trx_id_counter, Some(0xA3F2));
}

#[test]
fn decimal_ids_with_new_header_and_purge_state() {
    let text = "2019-07-08 14:30:01 0x7fe6628b9700 INNODB MONITOR OUTPUT\n\
        Trx id counter 42325\n\
        Purge done for trx's n:o < 42300 undo n:o < 0 state: running but idle\n";
    let st = parse(text);
    assert_eq!(st.trx_id_counter, Some(42_325));
    assert_eq!(st.purge_done_trx, Some(42_300));
    assert_eq!(st.purge_state.as_deref(), Some("running but idle"));
    // Without a header the purge state alone says "decimal".
    let st =
        parse("Trx id counter 1007\nPurge done for trx's n:o < 1004 undo n:o < 0 state: stopped\n");
    assert_eq!(st.trx_id_counter, Some(1007));
    assert_eq!(st.purge_state.as_deref(), Some("stopped"));
}

#[test]
fn crlf_and_tabs() {
    let text = MYSQL50
        .replace('\n', "\r\n")
        .replace("Buffer pool size   ", "Buffer pool size\t");
    let st = parse(&text);
    assert_eq!(st, parse(MYSQL50));
}

#[test]
fn mysql_client_vertical_output() {
    let text = format!(
        "mysql> SHOW ENGINE INNODB STATUS\\G\n\
         *************************** 1. row ***************************\n  \
         Type: InnoDB\n  Name: \nStatus: \n{MYSQL50}1 row in set (0.00 sec)\n"
    );
    assert_eq!(parse(&text), parse(MYSQL50));
}

#[test]
fn table_wrapped_with_escapes() {
    let body = MYSQL50.replace('\n', "\\n");
    let text = format!(
        "+--------+------+--------+\n| Type   | Name | Status |\n+--------+------+--------+\n\
         | InnoDB |      | \\n{body} |\n+--------+------+--------+\n"
    );
    assert_eq!(parse(&text), parse(MYSQL50));
    // Batch (tab) form.
    let text = format!("Type\tName\tStatus\nInnoDB\t\t\\n{body}\n");
    assert_eq!(parse(&text), parse(MYSQL50));
}

#[test]
fn table_wrapped_every_line() {
    let text: String = MYSQL50.lines().map(|l| format!("| {l:<60} |\n")).collect();
    assert_eq!(parse(&text), parse(MYSQL50));
}

#[test]
fn first_complete_output_wins() {
    let cut = MYSQL50.split("---\nLOG").next().unwrap_or("");
    let second = MYSQL50.replace("Log sequence number 17", "Log sequence number 18");
    let st = parse(&format!("{cut}\n{second}\n{MYSQL50}"));
    assert_eq!(st.lsn, Some(18 * (1u64 << 32) + 3_726_916_467));
    assert!(!st.truncated);
    // Only incomplete outputs: the first, marked truncated.
    let st = parse(&format!("{cut}\n{cut}"));
    assert!(st.truncated);
    assert_eq!(st.history_length, Some(68));
}

#[test]
fn truncated_output() {
    let cut = MYSQL50.split("--------------\nROW").next().unwrap_or("");
    let st = parse(cut);
    assert!(st.truncated);
    assert_eq!(st.lsn, parse(MYSQL50).lsn);
    assert_eq!(st.read_views_open, None);
}

#[test]
fn percona_and_mysql8_log_lines() {
    let text = "---\nLOG\n---\n\
        Log sequence number          32368884\n\
        Log buffer assigned up to    32368884\n\
        Log flushed up to            32368880\n\
        Added dirty pages up to      32368884\n\
        Pages flushed up to          32298273\n\
        Last checkpoint at           32298270\n\
        Max checkpoint age    434154333\n\
        Checkpoint age target 420587011\n\
        Modified age          8899922\n\
        Checkpoint age        8899914\n";
    let st = parse(text);
    assert_eq!(st.lsn, Some(32_368_884));
    assert_eq!(st.log_flushed_lsn, Some(32_368_880));
    assert_eq!(st.pages_flushed_lsn, Some(32_298_273));
    assert_eq!(st.checkpoint_lsn, Some(32_298_270));
    assert_eq!(st.max_checkpoint_age, Some(434_154_333));
    assert_eq!(st.checkpoint_age_target, Some(420_587_011));
    assert_eq!(st.checkpoint_age, Some(8_899_914));
    assert_eq!(st.sections, ["LOG"]);
}

#[test]
fn mariadb_pointer_ids_and_thread_lines() {
    let text = "------------\nTRANSACTIONS\n------------\n\
        ---TRANSACTION (0x78d93821fa80), not started\n\
        0 lock struct(s), heap size 1128, 0 row lock(s)\n\
        ---TRANSACTION 125587, ACTIVE (PREPARED) 3 sec fetching rows\n\
        mysql tables in use 5, locked 5\n\
        351 lock struct(s), heap size 41080, 17224 row lock(s)\n\
        MariaDB thread id 418, OS thread handle 132874375390784, query id 19199809 127.0.0.1 shopper_3 Sending data\n\
        \x20   INSERT INTO t\n\
        \x20     VALUES (1)\n\
        Trx read view will not see trx with id >= 125588, sees < 125482\n\
        ---TRANSACTION 125580, ACTIVE 0 sec\n\
        MySQL thread id 9, OS thread handle 1, query id 5 Waiting for master to send event\n\
        ------- TRX HAS BEEN WAITING 0 SEC FOR THIS LOCK TO BE GRANTED:\n";
    let st = parse(text);
    let [a, b, c] = st.transactions.as_slice() else {
        panic!("three transactions expected: {:?}", st.transactions);
    };
    assert_eq!(a.trx_id.as_deref(), Some("0x78d93821fa80"));
    assert_eq!(a.state.as_deref(), Some("not started"));
    assert_eq!(a.thread_id, None);
    assert_eq!(b.trx_id.as_deref(), Some("125587"));
    assert_eq!(b.state.as_deref(), Some("ACTIVE (PREPARED)"));
    assert_eq!(b.active_s, Some(3));
    assert_eq!(b.thread_id, Some(418));
    assert_eq!(b.host.as_deref(), Some("127.0.0.1"));
    assert_eq!(b.user.as_deref(), Some("shopper_3"));
    assert_eq!(b.query.as_deref(), Some("INSERT INTO t\n      VALUES (1)"));
    assert!(b.has_read_view);
    assert_eq!(c.thread_id, Some(9));
    assert_eq!(c.host, None);
    assert_eq!(c.user, None);
    assert_eq!(c.query, None);
}

#[test]
fn host_ip_user_shapes() {
    let h = |s: &str| host_and_user(&s.split_whitespace().collect::<Vec<_>>());
    let some = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
    assert_eq!(h("upload 10.0.0.1 admin"), some("upload", "admin"));
    assert_eq!(
        h("10.0.0.1 foozle Sending data"),
        some("10.0.0.1", "foozle")
    );
    assert_eq!(h("localhost root updating"), some("localhost", "root"));
    assert_eq!(h("localhost 127.0.0.1 root"), some("localhost", "root"));
    assert_eq!(h("db.example.com ::1 app"), some("db.example.com", "app"));
    assert_eq!(h("Has read all relay log"), (None, None));
    assert_eq!(h(""), (None, None));
}

#[test]
fn query_is_capped() {
    let long = "x".repeat(3000);
    let text = format!(
        "---TRANSACTION 1, ACTIVE 5 sec\nMySQL thread id 1, query id 2 localhost u\n{long}\n{long}\n"
    );
    let st = parse(&text);
    let q = st
        .transactions
        .first()
        .and_then(|t| t.query.clone())
        .unwrap_or_default();
    assert_eq!(q.chars().count(), QUERY_MAX_CHARS);
}

#[test]
fn many_headers_stay_linear() {
    let text: String = (0..50_000).map(|i| format!("---\nSECTION {i}\n")).collect();
    let st = parse(&text);
    assert_eq!(st.sections.len(), MAX_SECTIONS);
}

#[test]
fn garbage_does_not_panic() {
    for s in [
        "",
        "\n\n",
        "---TRANSACTION",
        "---TRANSACTION (",
        "---TRANSACTION ,ACTIVE",
        "Log sequence number 99999999999999999999 1",
        "Log sequence number 4294967296000 4294967295",
        "Purge done for trx's n:o < ",
        "Purge done for trx's n:o < undo n:o < state:",
        "\\n\\n\\n\\",
        "---\nÉ\n---",
        "INNODB MONITOR OUTPUT",
        "END OF INNODB MONITOR OUTPUT\nINNODB MONITOR OUTPUT",
        "MySQL thread id ,",
    ] {
        let _ = parse(s);
    }
    assert_eq!(
        parse("Log sequence number 4294967296000 4294967295").lsn,
        None
    );
}

#[test]
fn keeping_only_the_oldest_transactions() {
    let text = "=====================================\n\
        2026-11-23 18:00:00 0x7f INNODB MONITOR OUTPUT\n\
        =====================================\n\
        ------------\nTRANSACTIONS\n------------\n\
        Trx id counter 900\n\
        ---TRANSACTION 564, ACTIVE 7 sec\n\
        ---TRANSACTION 563, ACTIVE 724 sec\n\
        ---TRANSACTION (0x7f01), not started\n\
        ---TRANSACTION 561, ACTIVE 30 sec\n\
        ---TRANSACTION 560, ACTIVE 724 sec\n\
        ----------------------------\nEND OF INNODB MONITOR OUTPUT\n";
    assert_eq!(parse(text).transactions.len(), 5);
    let kept = parse_keeping(text, 3);
    assert_eq!(kept.trx_id_counter, Some(900));
    let ids: Vec<_> = kept
        .transactions
        .iter()
        .map(|t| t.trx_id.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        ids,
        ["563", "561", "560"],
        "the oldest three, in printed order"
    );
    assert!(parse_keeping(text, 0).transactions.is_empty());
    // Eight writers opened within a second, listed newest first: the last printed are the
    // oldest, the ones INNODB_TRX's five oldest rows name.
    let mut tied = String::from(
        "=====================================\n\
         2026-11-23 18:00:00 0x7f INNODB MONITOR OUTPUT\n\
         =====================================\n\
         ------------\nTRANSACTIONS\n------------\n",
    );
    for id in (490..498).rev() {
        tied.push_str(&format!("---TRANSACTION {id}, ACTIVE 12 sec\n"));
    }
    tied.push_str("----------------------------\nEND OF INNODB MONITOR OUTPUT\n");
    let kept: Vec<_> = parse_keeping(&tied, 5)
        .transactions
        .into_iter()
        .filter_map(|t| t.trx_id)
        .collect();
    assert_eq!(kept, ["494", "493", "492", "491", "490"]);
}
