//! Option files as the mysql client reads them: sections, includes, quoting, errors.

use super::*;

fn opt(group: &str, key: &str, value: Option<&str>, line: usize) -> Item {
    Item::Option {
        group: group.to_owned(),
        key: key.to_owned(),
        value: value.map(str::to_owned),
        line,
    }
}

#[test]
fn parses_groups_keys_values_and_comments() {
    let text = "\
# a comment
; another
[client]
user = dba
password=\"s3cr#et\"   # trailing comment
port=3307 # comment
socket = '/run/my sql.sock'
ssl_mode = REQUIRED
loose-ssl-ca=/etc/ca.pem
password2
[InnoDebt]
host=db1
";
    let items = parse(text).unwrap();
    assert_eq!(
        items,
        vec![
            opt("client", "user", Some("dba"), 4),
            opt("client", "password", Some("s3cr#et"), 5),
            opt("client", "port", Some("3307"), 6),
            opt("client", "socket", Some("/run/my sql.sock"), 7),
            opt("client", "ssl-mode", Some("REQUIRED"), 8),
            opt("client", "ssl-ca", Some("/etc/ca.pem"), 9),
            opt("client", "password2", None, 10),
            opt("innodebt", "host", Some("db1"), 12),
        ]
    );
}

#[test]
fn bare_key_and_empty_value_differ() {
    let items = parse("[client]\npassword\npassword=\n").unwrap();
    assert_eq!(
        items,
        vec![
            opt("client", "password", None, 2),
            opt("client", "password", Some(""), 3)
        ]
    );
}

#[test]
fn escapes_in_values() {
    let items = parse("[client]\na=x\\sy\\\\z\nb='it\\'s'\nc=C:\\path\n").unwrap();
    assert_eq!(
        items,
        vec![
            opt("client", "a", Some("x y\\z"), 2),
            opt("client", "b", Some("it's"), 3),
            opt("client", "c", Some("C:\\path"), 4),
        ]
    );
}

#[test]
fn include_directives() {
    let items = parse("!include /etc/a.cnf\n[client]\n!includedir conf.d/\n").unwrap();
    assert_eq!(
        items,
        vec![
            Item::Include {
                path: "/etc/a.cnf".into(),
                line: 1
            },
            Item::IncludeDir {
                path: "conf.d/".into(),
                line: 3
            },
        ]
    );
}

#[test]
fn syntax_errors_name_the_line() {
    let cases = [
        ("user=x\n", 1, "before any [group]"),
        ("[client\n", 1, "no closing ]"),
        ("[client]\n\n=3\n", 3, "no name"),
        ("[client]\npassword='abc\n", 2, "closing ' is missing"),
        ("[client]\nuser='a' b\n", 2, "after the quoted value"),
        ("!frobnicate x\n", 1, "unknown directive"),
        ("!include\n", 1, "needs a path"),
        ("[]\n", 1, "empty group"),
    ];
    for (text, line, needle) in cases {
        let e = parse(text).unwrap_err();
        assert_eq!(e.line, line, "{text:?}");
        assert!(e.message.contains(needle), "{text:?}: {}", e.message);
    }
}

#[test]
fn debug_hides_passwords() {
    let items = parse("[client]\npassword=hunter2\n").unwrap();
    assert!(!format!("{items:?}").contains("hunter2"));
    let setting = Setting {
        value: Some("hunter2".into()),
        origin: Origin {
            path: "f".into(),
            line: 1,
        },
    };
    assert!(!format!("{setting:?}").contains("hunter2"));
}

#[test]
fn file_order_follows_the_manual() {
    let system = vec![PathBuf::from("/etc/my.cnf")];
    let home = Path::new("/home/dba");
    let extra = Path::new("/tmp/extra.cnf");
    let files = files_to_read(&system, Some(home), None, Some(extra), false);
    let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(
        paths,
        vec![
            PathBuf::from("/etc/my.cnf"),
            PathBuf::from("/tmp/extra.cnf"),
            PathBuf::from("/home/dba/.my.cnf")
        ]
    );
    assert_eq!(files[1].given_by, Some("--defaults-extra-file"));
    let only = files_to_read(&system, Some(home), Some(extra), None, false);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].given_by, Some("--defaults-file"));
    assert!(files_to_read(&system, Some(home), Some(extra), None, true).is_empty());
}

#[test]
fn group_rank_beats_line_order_within_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my.cnf");
    std::fs::write(
        &path,
        "[innodebt]\nuser=tool\n[client]\nuser=human\nhost=h1\n[mysqld]\nuser=mysql\n",
    )
    .unwrap();
    let loaded = load(&[OptionFile::default_location(&path)]).unwrap();
    let s = loaded.settings;
    assert_eq!(s.user.unwrap().value.as_deref(), Some("tool"));
    let host = s.host.unwrap();
    assert_eq!(host.value.as_deref(), Some("h1"));
    assert_eq!(host.origin.line, 5);
}

#[test]
fn later_file_wins_and_includes_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    std::fs::write(conf_d.join("b.cnf"), "[client]\nport=3308\n").unwrap();
    std::fs::write(conf_d.join("a.cnf"), "[client]\nport=3307\nuser=a\n").unwrap();
    std::fs::write(conf_d.join("ignored.txt"), "[client]\nport=1\n").unwrap();
    let first = dir.path().join("first.cnf");
    std::fs::write(&first, "[client]\nuser=first\n!includedir conf.d\n").unwrap();
    let second = dir.path().join("second.cnf");
    std::fs::write(&second, "[client]\nuser=second\n").unwrap();
    let loaded = load(&[
        OptionFile::default_location(&first),
        OptionFile::default_location(dir.path().join("missing.cnf")),
        OptionFile::default_location(&second),
    ])
    .unwrap();
    assert_eq!(loaded.settings.port.unwrap().value.as_deref(), Some("3308"));
    assert_eq!(
        loaded.settings.user.unwrap().value.as_deref(),
        Some("second")
    );
    assert_eq!(loaded.read.len(), 4);
}

#[test]
fn explicit_missing_file_is_an_error_default_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.cnf");
    assert!(load(&[OptionFile::default_location(&missing)]).is_ok());
    let e = load(&[OptionFile {
        path: missing.clone(),
        given_by: Some("--defaults-file"),
    }])
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("nope.cnf") && msg.contains("--defaults-file"),
        "{msg}"
    );
}

#[test]
fn malformed_include_is_reported_with_its_own_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let inc = dir.path().join("inc.cnf");
    std::fs::write(&inc, "[client]\n\nbad line with [ =\n[oops\n").unwrap();
    let top = dir.path().join("top.cnf");
    std::fs::write(&top, format!("!include {}\n", inc.display())).unwrap();
    let e = load(&[OptionFile::default_location(&top)]).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("inc.cnf line 4"), "{msg}");
}

#[test]
fn include_loop_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.cnf");
    std::fs::write(&a, "!include a.cnf\n").unwrap();
    let e = load(&[OptionFile::default_location(&a)]).unwrap_err();
    assert!(e.to_string().contains("loop"), "{e}");
}
