//! Pure parsers of the other textual dumps a DBA hands over: SHOW GLOBAL STATUS /
//! SHOW GLOBAL VARIABLES, `mysqladmin extended-status [-i N]` (pt-stalk `*-mysqladmin`)
//! and `information_schema.INNODB_METRICS`, in the forms the mysql client prints them:
//! tab-separated (batch), `| name | value |` tables, `\G` (vertical) and plain spaces.
//!
//! Names are kept as printed (information_schema upper-cases them): compare them
//! case-insensitively. Nothing here panics, whatever the input.

use serde::{Deserialize, Serialize};

/// One table printed by `mysqladmin extended-status`: one sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MysqladminSample {
    /// The text after a pt-stalk `TS ` line (`1520256295.005 2018-03-05 13:24:55`), if any
    pub ts: Option<String>,
    pub values: Vec<(String, String)>,
}

/// One row of `information_schema.INNODB_METRICS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    pub name: String,
    /// SUBSYSTEM (`recovery` on 5.7/MariaDB, `log` on 8.0+ for the log counters)
    pub subsystem: Option<String>,
    /// COUNT; `None` when absent, NULL or masked (MTR results print `#`, `NNNN`)
    pub count: Option<i64>,
    /// MySQL's STATUS (`enabled`/`disabled`) or MariaDB ≥ 10.5's ENABLED (`1`/`0`)
    pub enabled: Option<bool>,
}

/// Name/value pairs of SHOW GLOBAL STATUS or SHOW GLOBAL VARIABLES, in printed order
/// (a file holding both yields both). A name printed alone (a list of names) gets an
/// empty value.
pub fn parse_name_values(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending_name: Option<String> = None;
    for raw in text.split('\n') {
        match classify(raw) {
            Line::Pair(n, v) => out.push((n, v)),
            Line::VerticalName(n) => pending_name = Some(n),
            Line::VerticalValue(v) => {
                if let Some(n) = pending_name.take() {
                    out.push((n, v));
                }
            }
            Line::Header | Line::Border | Line::Blank | Line::RowMark | Line::Ts(_) => {}
            Line::Other => {}
        }
    }
    out
}

/// Samples of `mysqladmin extended-status [-i N]`: a new sample starts at each table
/// header, at a pt-stalk `TS` line, or when the first name of the sample comes again
/// (output without headers).
pub fn parse_mysqladmin_samples(text: &str) -> Vec<MysqladminSample> {
    let mut out = Vec::new();
    let mut cur = MysqladminSample::default();
    let mut pending_name: Option<String> = None;
    let flush = |cur: &mut MysqladminSample, out: &mut Vec<MysqladminSample>| {
        let done = std::mem::take(cur);
        if !done.values.is_empty() {
            out.push(done);
        }
    };
    for raw in text.split('\n') {
        let pair = match classify(raw) {
            Line::Ts(ts) => {
                flush(&mut cur, &mut out);
                cur.ts = Some(ts);
                continue;
            }
            Line::Header => {
                if !cur.values.is_empty() {
                    flush(&mut cur, &mut out);
                }
                continue;
            }
            Line::Pair(n, v) => (n, v),
            Line::VerticalName(n) => {
                pending_name = Some(n);
                continue;
            }
            Line::VerticalValue(v) => match pending_name.take() {
                Some(n) => (n, v),
                None => continue,
            },
            Line::Border | Line::Blank | Line::RowMark | Line::Other => continue,
        };
        if cur
            .values
            .first()
            .is_some_and(|(first, _)| *first == pair.0)
        {
            flush(&mut cur, &mut out);
        }
        cur.values.push(pair);
    }
    flush(&mut cur, &mut out);
    out
}

/// Rows of INNODB_METRICS from any result whose first column is NAME: `SELECT *`,
/// `SELECT name, status`, `SELECT NAME, COUNT`, ... in tab, table or `\G` form; other
/// lines (SQL statements of MTR `.result` files, other results) are skipped. A table
/// without a header line cannot be read and yields nothing.
pub fn parse_innodb_metrics(text: &str) -> Vec<MetricRow> {
    let mut out = Vec::new();
    let mut table: Option<Columns> = None;
    let mut vertical: Option<Vec<(String, String)>> = None;
    for raw in text.split('\n') {
        let line = raw.trim_end_matches('\r');
        let t = line.trim();
        if is_row_mark(t) {
            if let Some(fields) = vertical.take() {
                out.extend(vertical_metric(&fields));
            }
            vertical = Some(Vec::new());
            table = None;
            continue;
        }
        if let Some(fields) = vertical.as_mut() {
            if let Some((k, v)) = t.split_once(':').filter(|(k, _)| is_identifier(k.trim())) {
                fields.push((k.trim().to_string(), v.trim().to_string()));
                continue;
            }
            out.extend(vertical_metric(fields));
            vertical = None;
        }
        if t.is_empty() || is_border(t) {
            continue;
        }
        let (form, cells) = split_cells(line);
        if cells
            .first()
            .is_some_and(|c| c.eq_ignore_ascii_case("name"))
        {
            table = Columns::from_header(form, &cells);
            continue;
        }
        let Some(cols) = table.as_ref() else {
            continue;
        };
        match cols.row(form, &cells) {
            Some(row) => out.push(row),
            None => table = None,
        }
    }
    if let Some(fields) = vertical {
        out.extend(vertical_metric(&fields));
    }
    out
}

/// How the cells of a result line are separated.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Form {
    Tab,
    Table,
    Space,
}

/// Column positions of an INNODB_METRICS result.
struct Columns {
    form: Form,
    width: usize,
    name: usize,
    subsystem: Option<usize>,
    count: Option<usize>,
    enabled: Option<usize>,
}

impl Columns {
    fn from_header(form: Form, cells: &[String]) -> Option<Columns> {
        let find = |want: &str| cells.iter().position(|c| c.eq_ignore_ascii_case(want));
        Some(Columns {
            form,
            width: cells.len(),
            name: find("name")?,
            subsystem: find("subsystem"),
            count: find("count"),
            enabled: find("status").or_else(|| find("enabled")),
        })
    }

    /// A data row of this table, or `None` when the line is not one (the table ended).
    fn row(&self, form: Form, cells: &[String]) -> Option<MetricRow> {
        // A one-column result prints a bare name per line: that reads as Space form.
        let same_form = form == self.form || (self.width == 1 && form == Form::Space);
        if !same_form || cells.len() != self.width {
            return None;
        }
        let name = cells.get(self.name)?;
        if !is_identifier(name) {
            return None;
        }
        let cell = |i: Option<usize>| i.and_then(|i| cells.get(i)).map(String::as_str);
        Some(MetricRow {
            name: name.clone(),
            subsystem: cell(self.subsystem)
                .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("NULL"))
                .map(str::to_string),
            count: cell(self.count).and_then(|c| c.parse().ok()),
            enabled: cell(self.enabled).and_then(parse_enabled),
        })
    }
}

fn vertical_metric(fields: &[(String, String)]) -> Option<MetricRow> {
    let get = |k: &str| {
        fields
            .iter()
            .find(|(f, _)| f.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.as_str())
    };
    let name = get("name").filter(|n| is_identifier(n))?;
    Some(MetricRow {
        name: name.to_string(),
        subsystem: get("subsystem")
            .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("NULL"))
            .map(str::to_string),
        count: get("count").and_then(|c| c.parse().ok()),
        enabled: get("status")
            .or_else(|| get("enabled"))
            .and_then(parse_enabled),
    })
}

fn parse_enabled(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "enabled" | "1" => Some(true),
        "disabled" | "0" => Some(false),
        _ => None,
    }
}

/// Splits a result line into trimmed cells.
fn split_cells(line: &str) -> (Form, Vec<String>) {
    let t = line.trim();
    if let Some(inner) = t.strip_prefix('|') {
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        return (
            Form::Table,
            inner.split('|').map(|c| c.trim().to_string()).collect(),
        );
    }
    if line.contains('\t') {
        return (
            Form::Tab,
            line.split('\t').map(|c| c.trim().to_string()).collect(),
        );
    }
    (
        Form::Space,
        t.split_whitespace().map(str::to_string).collect(),
    )
}

/// What one line of a name/value dump is.
#[derive(Debug, PartialEq)]
enum Line {
    Pair(String, String),
    /// `Variable_name: x` of `\G` output
    VerticalName(String),
    /// `Value: y` of `\G` output
    VerticalValue(String),
    /// `Variable_name | Value` and the like
    Header,
    Border,
    Blank,
    /// `*************************** 1. row ***************************`
    RowMark,
    /// pt-stalk `TS <epoch> <date>`
    Ts(String),
    Other,
}

fn classify(raw: &str) -> Line {
    let line = raw.trim_end_matches('\r');
    let t = line.trim();
    if t.is_empty() {
        return Line::Blank;
    }
    if is_border(t) {
        return Line::Border;
    }
    if is_row_mark(t) {
        return Line::RowMark;
    }
    if let Some(ts) = t.strip_prefix("TS ") {
        let ts = ts.trim();
        if ts
            .split_whitespace()
            .next()
            .is_some_and(|e| e.parse::<f64>().is_ok())
        {
            return Line::Ts(ts.to_string());
        }
    }
    if let Some(inner) = t.strip_prefix('|') {
        // Wide tables are sometimes cut before their right border.
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        let Some((n, v)) = inner.split_once('|') else {
            return Line::Other;
        };
        return pair(n.trim(), v.trim());
    }
    if let Some(v) = t.strip_prefix("Variable_name:") {
        return Line::VerticalName(v.trim().to_string());
    }
    if let Some(v) = t.strip_prefix("Value:") {
        return Line::VerticalValue(v.trim().to_string());
    }
    if let Some((n, v)) = line.split_once('\t') {
        return pair(n.trim(), v.trim());
    }
    // Plain spaces (`mysqladmin` without borders, pt-summary extras, lists of names).
    let mut words = t.splitn(2, char::is_whitespace);
    let n = words.next().unwrap_or("");
    let v = words.next().unwrap_or("").trim();
    if is_sql_or_prompt(n) {
        return Line::Other;
    }
    pair(n, v)
}

fn pair(n: &str, v: &str) -> Line {
    if n.eq_ignore_ascii_case("Variable_name") {
        return Line::Header;
    }
    if !is_variable_name(n) {
        return Line::Other;
    }
    Line::Pair(n.to_string(), v.to_string())
}

/// Status and variable names: letters, digits, `_`; pt-summary adds `-` and `.`.
fn is_variable_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 128
        && n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_identifier(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 128
        && n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// First words of SQL statements and client chatter found around results in captures and
/// MTR `.result` files; no status or variable is named like these.
fn is_sql_or_prompt(first: &str) -> bool {
    const WORDS: [&str; 26] = [
        "select", "where", "and", "or", "from", "set", "show", "drop", "create", "insert",
        "update", "delete", "use", "flush", "begin", "commit", "rollback", "alter", "unlock",
        "lock", "error", "warning", "not", "order", "query", "empty",
    ];
    first.ends_with('>') || WORDS.iter().any(|w| first.eq_ignore_ascii_case(w))
}

fn is_border(t: &str) -> bool {
    t.starts_with('+') && t.bytes().all(|b| b == b'+' || b == b'-')
}

fn is_row_mark(t: &str) -> bool {
    t.starts_with("***") && t.ends_with("***") && t.contains(" row ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn tab_separated_with_header_and_empty_value() {
        let text = "Variable_name\tValue\r\nAborted_clients\t0\r\nadmin_address\t\r\nTls_library_version\tOpenSSL 3.0.2 15 Mar 2022\r\n";
        assert_eq!(
            parse_name_values(text),
            pairs(&[
                ("Aborted_clients", "0"),
                ("admin_address", ""),
                ("Tls_library_version", "OpenSSL 3.0.2 15 Mar 2022")
            ])
        );
    }

    #[test]
    fn table_form_with_and_without_right_border() {
        let text = "+-----------------+-------+\n\
                    | Variable_name   | Value |\n\
                    +-----------------+-------+\n\
                    | version         | 8.0.30 |\n\
                    | version_comment | MySQL Community Server - GPL      \n\
                    +-----------------+-------+\n";
        assert_eq!(
            parse_name_values(text),
            pairs(&[
                ("version", "8.0.30"),
                ("version_comment", "MySQL Community Server - GPL")
            ])
        );
    }

    #[test]
    fn vertical_form() {
        let text = "*************************** 1. row ***************************\n\
                    Variable_name: Innodb_history_list_length\n\
                    \x20       Value: 24\n\
                    *************************** 2. row ***************************\n\
                    Variable_name: Innodb_have_atomic_builtins\n\
                    \x20       Value: \n";
        assert_eq!(
            parse_name_values(text),
            pairs(&[
                ("Innodb_history_list_length", "24"),
                ("Innodb_have_atomic_builtins", "")
            ])
        );
    }

    #[test]
    fn plain_spaces_names_only_and_sql_skipped() {
        let text = "SELECT variable_name FROM information_schema.global_status\n\
                    WHERE variable_name LIKE 'INNODB_%'\n\
                    ('INNODB_A','INNODB_B',\n\
                    variable_name\n\
                    INNODB_HISTORY_LIST_LENGTH\n\
                    pt-summary-internal-symbols   Yes\n\
                    mysql> SHOW STATUS;\n";
        assert_eq!(
            parse_name_values(text),
            pairs(&[
                ("INNODB_HISTORY_LIST_LENGTH", ""),
                ("pt-summary-internal-symbols", "Yes")
            ])
        );
    }

    #[test]
    fn mysqladmin_tables_and_ts_lines() {
        let table = |v: u32| {
            format!(
                "+---------------+-------+\n| Variable_name | Value |\n+---------------+-------+\n\
                 | Aborted_clients | {v} |\n| Uptime | 10{v} |\n+---------------+-------+\n"
            )
        };
        let text = format!("{}\n{}{}", table(1), table(2), table(3));
        let s = parse_mysqladmin_samples(&text);
        assert_eq!(s.len(), 3);
        assert_eq!(
            s.get(2).map(|x| x.values.clone()),
            Some(pairs(&[("Aborted_clients", "3"), ("Uptime", "103")]))
        );
        assert!(s.iter().all(|x| x.ts.is_none()));

        let text = format!(
            "TS 1520256295.005 2018-03-05 13:24:55\n{}TS 1520256296.007 2018-03-05 13:24:56\n{}",
            table(1),
            table(2)
        );
        let s = parse_mysqladmin_samples(&text);
        let ts: Vec<_> = s.iter().map(|x| x.ts.as_deref()).collect();
        assert_eq!(
            ts,
            [
                Some("1520256295.005 2018-03-05 13:24:55"),
                Some("1520256296.007 2018-03-05 13:24:56")
            ]
        );
        // No headers: a repeated first name starts the next sample.
        let s = parse_mysqladmin_samples("a\t1\nb\t2\na\t3\nb\t4\n");
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn metrics_status_and_enabled_columns() {
        let mysql = "select name, status from information_schema.innodb_metrics;\n\
                     name\tstatus\n\
                     log_lsn_current\tdisabled\n\
                     trx_rseg_history_len\tenabled\n\
                     set global innodb_monitor_enable = all;\n\
                     select name from information_schema.innodb_metrics where status!='enabled';\n\
                     name\n\
                     set global innodb_monitor_enable = aaa;\n\
                     NAME\tCOUNT\n\
                     buffer_page_written_index_leaf\tNNNN\n\
                     buffer_page_written_index_leaf\t12\n";
        let rows = parse_innodb_metrics(mysql);
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.name.as_str(), r.count, r.enabled))
            .collect();
        assert_eq!(
            got,
            [
                ("log_lsn_current", None, Some(false)),
                ("trx_rseg_history_len", None, Some(true)),
                ("buffer_page_written_index_leaf", None, None),
                ("buffer_page_written_index_leaf", Some(12), None),
            ]
        );

        let mariadb = "+----------------------+-----------+-------+---------+\n\
                       | NAME                 | SUBSYSTEM | COUNT | ENABLED |\n\
                       +----------------------+-----------+-------+---------+\n\
                       | trx_rseg_history_len | transaction | 53 | 1 |\n\
                       | log_lsn_current      | recovery  | 0     | 0       |\n\
                       +----------------------+-----------+-------+---------+\n";
        assert_eq!(
            parse_innodb_metrics(mariadb),
            [
                MetricRow {
                    name: "trx_rseg_history_len".into(),
                    subsystem: Some("transaction".into()),
                    count: Some(53),
                    enabled: Some(true)
                },
                MetricRow {
                    name: "log_lsn_current".into(),
                    subsystem: Some("recovery".into()),
                    count: Some(0),
                    enabled: Some(false)
                },
            ]
        );
    }

    #[test]
    fn metrics_vertical() {
        let text = "*************************** 1. row ***************************\n\
                    \x20          NAME: log_lsn_checkpoint_age\n\
                    \x20     SUBSYSTEM: log\n\
                    \x20         COUNT: -5\n\
                    \x20        STATUS: enabled\n\
                    *************************** 2. row ***************************\n\
                    \x20          NAME: log_lsn_current\n\
                    \x20       ENABLED: 0\n\
                    2 rows in set (0.00 sec)\n";
        let rows = parse_innodb_metrics(text);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.first().and_then(|r| r.count), Some(-5));
        assert_eq!(
            rows.first().and_then(|r| r.subsystem.clone()).as_deref(),
            Some("log")
        );
        assert_eq!(rows.get(1).and_then(|r| r.enabled), Some(false));
    }

    #[test]
    fn garbage_does_not_panic() {
        for s in [
            "",
            "|",
            "||",
            "| |\t",
            "\t",
            "TS ",
            "TS x",
            "Value:",
            "***row***",
            "name\n|",
        ] {
            let _ = parse_name_values(s);
            let _ = parse_mysqladmin_samples(s);
            let _ = parse_innodb_metrics(s);
        }
    }
}
