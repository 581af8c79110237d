//! `innodebt report`: the page of the demo capture (its structure and text, snapshotted), what
//! a damaged capture, an empty window or a failed write do, hostile server text kept as text,
//! and the page in a real browser (headless Chromium: it draws, and every chart has data).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use regex::Regex;

use crate::common::wait::wait_until_async;
use crate::common::{self, BlockingSnapshot, PrivateServer, ServerConfig, WriteLoad, gate};

/// Snapshots live in the top-level `snapshots/` directory, named `report_*`.
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!(
            { snapshot_path => "../../snapshots", prepend_module_to_snapshot => false },
            { insta::assert_snapshot!($name, $value) }
        )
    };
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt")
}

fn report(args: &[&str]) -> Output {
    Command::new(common::innodebt_bin())
        .arg("report")
        .args(args)
        .output()
        .expect("run innodebt report")
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "innodebt report failed: {stderr}");
    stderr
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The version is the package's: the snapshots outlive it.
fn redact(s: &str) -> String {
    s.replace(
        &format!("innodebt {}", env!("CARGO_PKG_VERSION")),
        "innodebt [version]",
    )
}

/// The page as a reviewable outline: each element on its own line, indented by depth, with
/// its id and class; text as quoted lines; each chart's SVG folded into one line with how many
/// lines with data it draws and every text it holds (axes, legend, labels).
fn outline(html: &str) -> String {
    let token =
        Regex::new(r"(?s)<(/?)([!a-zA-Z0-9]+)([^>]*?)(/?)>|([^<]+)").expect("the token regex");
    let attr = |attrs: &str, name: &str| {
        Regex::new(&format!(r#"\b{name}="([^"]*)""#))
            .expect("an attribute regex")
            .captures(attrs)
            .map(|c| c[1].to_string())
    };
    let void = ["meta", "br", "path", "rect", "circle"];
    let mut out = String::new();
    let mut depth = 0usize;
    let mut svg: Option<(String, usize, Vec<String>)> = None;
    let mut in_style = false;
    for c in token.captures_iter(html) {
        if let Some(text) = c.get(5) {
            let text = text
                .as_str()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if text.is_empty() || in_style {
                continue;
            }
            match svg.as_mut() {
                Some((_, _, texts)) => texts.push(text),
                None => out.push_str(&format!("{}\"{text}\"\n", "  ".repeat(depth))),
            }
            continue;
        }
        let close = &c[1] == "/";
        let tag = c[2].to_ascii_lowercase();
        let attrs = c.get(3).map_or("", |a| a.as_str());
        let selfclose = &c[4] == "/" || void.contains(&tag.as_str()) || tag == "!doctype";
        if tag == "style" {
            in_style = !close;
            continue;
        }
        if let Some((label, paths, texts)) = svg.as_mut() {
            if tag == "path" && attr(attrs, "d").is_some_and(|d| d.contains('L')) {
                *paths += 1;
            }
            if close && tag == "svg" {
                out.push_str(&format!(
                    "{}<svg \"{label}\"> {paths} lines with data; text: {}\n",
                    "  ".repeat(depth),
                    texts.join(" | ")
                ));
                svg = None;
            }
            continue;
        }
        if tag == "svg" && !close {
            svg = Some((attr(attrs, "aria-label").unwrap_or_default(), 0, Vec::new()));
            continue;
        }
        if close {
            depth = depth.saturating_sub(1);
            continue;
        }
        let mut name = tag.clone();
        if let Some(id) = attr(attrs, "id") {
            name.push_str(&format!("#{id}"));
        }
        if let Some(class) = attr(attrs, "class") {
            name.push_str(&format!(".{}", class.replace(' ', ".")));
        }
        if tag != "!doctype" {
            out.push_str(&format!("{}<{name}>\n", "  ".repeat(depth)));
        }
        if !selfclose {
            depth += 1;
        }
    }
    out
}

#[test]
fn the_demo_page_says_what_went_wrong_in_the_dashboards_words() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("demo.html");
    ok(&report(&[path(&demo()), "-o", path(&page)]));
    let html = std::fs::read_to_string(&page).unwrap();
    // One file, nothing fetched or run.
    assert!(!html.contains("<script"), "a script in the page");
    for fetch in ["http://", "https://", "@import", "url(", "<link", "<img"] {
        let outside_svg_ns = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!outside_svg_ns.contains(fetch), "the page fetches: {fetch}");
    }
    assert!(html.contains("@media print") && html.contains("prefers-color-scheme:dark"));
    // The verdict line's words and the blocker named, as the dashboard says them.
    for words in [
        "blocked by read view",
        "purge lag trap",
        "flush pressure",
        "thread 14",
        "report@localhost",
        "none running (idle in transaction)",
        "innodb_log_file_size = 22M",
        "checkpoint age crossed the async point",
        "innodb_max_purge_lag: 2000 → 0",
        // The what-ifs behind the advice: the advised size, and the trap's way out.
        "What if innodb_log_file_size = 22M",
        "What if innodb_max_purge_lag = 0",
    ] {
        assert!(html.contains(words), "{words} is not on the page");
    }
    snapshot!("report_demo_html", redact(&outline(&html)));
}

#[test]
fn the_demo_in_markdown_links_its_charts_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("incident.md");
    ok(&report(&[
        path(&demo()),
        "--format",
        "markdown",
        "-o",
        path(&page),
    ]));
    let md = std::fs::read_to_string(&page).unwrap();
    let charts = Regex::new(r"!\[[^\]]*\]\(([^)]+)\)").unwrap();
    let files: Vec<String> = charts
        .captures_iter(&md)
        .map(|c| c[1].to_string())
        .collect();
    assert_eq!(files.len(), 7, "{files:?}");
    for f in &files {
        let svg = std::fs::read_to_string(dir.path().join(f))
            .unwrap_or_else(|e| panic!("{f} beside the page: {e}"));
        assert!(svg.starts_with("<?xml") && svg.contains("<style>") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("d=\"M"), "{f} draws nothing");
    }
    snapshot!("report_demo_markdown", redact(&md));
}

/// Copies the demo with `f` applied to its bytes.
fn demo_copy(to: &Path, f: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(demo()).expect("read the demo");
    f(&mut bytes);
    std::fs::write(to, &bytes).expect("write the copy");
    to.to_path_buf()
}

#[test]
fn a_damaged_capture_says_what_was_skipped_on_the_page_and_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let capture = demo_copy(&dir.path().join("damaged.idbt"), |b| {
        let mid = b.len() / 2;
        for x in &mut b[mid..mid + 64] {
            *x ^= 0x5a;
        }
    });
    let page = dir.path().join("damaged.html");
    let stderr = ok(&report(&[path(&capture), "-o", path(&page)]));
    let note = stderr
        .lines()
        .find(|l| l.starts_with("innodebt: note:") && l.contains("damaged.idbt"))
        .unwrap_or_else(|| panic!("no note of the damage on stderr: {stderr}"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("What the reader skipped or found"), "{html}");
    // Said at the top too, before anyone trusts the figures.
    let header = &html[..html.find("</header>").expect("a header")];
    assert!(header.contains("of damage or skipped data"), "{header}");
    let said = note.trim_start_matches("innodebt: note: ");
    let escaped = said
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(html.contains(&escaped), "the page does not say: {said}");
}

#[test]
fn an_empty_window_is_an_error_that_names_the_captures_span_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("old.html");
    std::fs::write(&page, "the page of yesterday").unwrap();
    // Outside the capture and reversed, as every command that reads a capture says them; a
    // window no sample falls in (between two samples, or just before the first), the report's.
    for (from, to, says) in [
        ("23:00:00", "23:10:00", "is after the capture"),
        ("21:21:00", "21:20:00", "is after --to"),
        (
            "2026-11-21T21:19:12.1Z",
            "2026-11-21T21:19:12.5Z",
            "the window is empty",
        ),
        ("", "21:19:11", "the window is empty"),
    ] {
        let capture = demo();
        let mut args = vec![path(&capture), "--to", to, "-o", path(&page)];
        if !from.is_empty() {
            args.extend(["--from", from]);
        }
        let out = report(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{from}..{to}: {stderr}");
        assert!(stderr.contains(says), "{from}..{to}: {stderr}");
        if says != "is after --to" {
            assert!(
                stderr.contains("holds 2026-11-21 21:19:11 → 21:22:40 UTC"),
                "{from}..{to}: the capture's span is not named: {stderr}"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(&page).unwrap(),
        "the page of yesterday"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "files left behind: {left:?}");

    // A window inside the capture is reported, from its first to its last sample.
    ok(&report(&[
        path(&demo()),
        "--from",
        "21:20:00",
        "--to",
        "+2m",
        "-o",
        path(&page),
    ]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("21:20:00 → 21:21:11"), "the window's span");
    assert!(
        html.contains("a window of the capture"),
        "the capture's span"
    );
}

#[test]
fn a_page_that_cannot_be_written_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/report.html");
    let out = report(&[path(&demo()), "-o", path(&missing)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write there"), "{stderr}");

    // The page's name taken by a directory: the charts written first are taken back.
    let page = dir.path().join("taken.md");
    std::fs::create_dir(&page).unwrap();
    let out = report(&[path(&demo()), "--format", "markdown", "-o", path(&page)]);
    assert_eq!(out.status.code(), Some(1));
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["taken.md"], "files left behind");
}

/// Debian's `chromium` (or another Chromium on PATH); in CI a missing one fails the test.
fn chromium(skipped: &str) -> Option<PathBuf> {
    match common::find_binary(&["chromium", "chromium-browser", "google-chrome"]) {
        Ok(p) => Some(p),
        Err(e) => gate::missing(&e, "apt-get install chromium", skipped),
    }
}

/// Headless Chromium on `page` with `extra` arguments, its standard output into `stdout`;
/// bounded in time.
fn headless(chromium: &Path, profile: &Path, page: &Path, extra: &[String], stdout: &Path) {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(File::create(stdout).expect("create the output file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut status = None;
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        common::wait::wait_until(Duration::from_secs(120), "chromium to finish", || {
            status = child.try_wait().expect("wait for chromium");
            status.is_some()
        })
    }));
    if waited.is_err() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("chromium did not finish within 120 s");
    }
    assert!(
        status.is_some_and(|s| s.success()),
        "chromium failed: {status:?}"
    );
}

/// The PNG's width and height from its header.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().expect("4 bytes"));
    (be(16), be(20))
}

/// Headless Chromium draws `page` (a screenshot that is not blank) and builds a DOM with the
/// report's charts, each drawn with data.
fn drawn_in_a_browser(chromium: &Path, page: &Path, dir: &Path) {
    let shot = dir.join("shot.png");
    let profile = dir.join("profile");
    headless(
        chromium,
        &profile,
        page,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2400".into(),
        ],
        &dir.join("screenshot.out"),
    );
    let png = std::fs::read(&shot).expect("the screenshot exists");
    assert_eq!(png_size(&png), (1280, 2400));
    // A blank page of that size compresses to a few kilobytes; the page's text and charts
    // take hundreds.
    assert!(
        png.len() > 100_000,
        "the screenshot is nearly blank: {} bytes",
        png.len()
    );

    let dom = dir.join("dom.html");
    headless(chromium, &profile, page, &["--dump-dom".into()], &dom);
    let dom = std::fs::read_to_string(&dom).expect("the DOM");
    assert!(dom.contains("What went wrong") && !dom.contains("<script"));
    let svgs: Vec<&str> = dom
        .split("<svg")
        .skip(1)
        .map(|s| s.split("</svg>").next().unwrap_or(""))
        .collect();
    assert_eq!(svgs.len(), 7, "charts in the page");
    let drawn = Regex::new(r#"<path [^>]*d="M[-0-9. ]+L[-0-9. ]+L"#).expect("the path regex");
    for svg in &svgs {
        let title = svg
            .split("aria-label=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("?");
        // A time chart draws lines through its points; the verdict timeline draws runs.
        let runs = svg.matches("<rect class=\"sev-").count();
        assert!(
            drawn.is_match(svg) || runs > 1,
            "{title}: no line with data and no runs"
        );
    }
}

#[test]
fn a_browser_draws_the_demo_page_and_every_chart_has_data() {
    let Some(chromium) = chromium("the report's browser test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("demo.html");
    ok(&report(&[path(&demo()), "-o", path(&page)]));
    drawn_in_a_browser(&chromium, &page, dir.path());
}

/// The verdict kinds of the capture's last moment, as `replay --once` gives them (none while
/// the capture cannot be read yet).
fn verdicts_at_the_end(file: &Path) -> Vec<String> {
    let out = Command::new(common::innodebt_bin())
        .args(["replay", path(file), "--once", "--format", "json"])
        .output()
        .expect("run replay --once");
    let json: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(_) => return Vec::new(),
    };
    json["verdicts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["kind"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_incident_on_a_private_server_reads_in_a_browser() {
    let Some(chromium) = chromium("the report of a recorded incident") else {
        return;
    };
    let server = PrivateServer::start(ServerConfig::default());
    let load = WriteLoad::paced(server.opts(), 3, 200);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("incident.idbt");
    let recorder = Command::new(common::innodebt_bin())
        .args(server.conn_args())
        .args(["--no-defaults", "--interval", "500ms", "record"])
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the recorder");
    let snapshot = BlockingSnapshot::open(server.opts()).await;
    let thread = snapshot.thread_id();
    let holds = |kind: &'static str, held: bool| {
        let file = file.clone();
        move || {
            let file = file.clone();
            async move {
                tokio::task::spawn_blocking(move || verdicts_at_the_end(&file))
                    .await
                    .expect("read the capture")
                    .iter()
                    .any(|k| k == kind)
                    == held
            }
        }
    };
    wait_until_async(
        Duration::from_secs(120),
        "the recording to judge purge blocked by the read view",
        holds("blocked_by_read_view", true),
    )
    .await;
    snapshot.commit().await;
    wait_until_async(
        Duration::from_secs(60),
        "the recording to see the read view gone",
        holds("blocked_by_read_view", false),
    )
    .await;
    let status = Command::new("kill")
        .args(["-TERM", &recorder.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = recorder.wait_with_output().expect("wait for the recorder");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    load.stop().await;

    let page = dir.path().join("incident.html");
    ok(&report(&[path(&file), "-o", path(&page)]));
    let html = std::fs::read_to_string(&page).unwrap();
    for said in [
        "blocked by read view".to_string(),
        format!("thread {thread}"),
        "root@localhost".to_string(),
        "Who held the read view".to_string(),
    ] {
        assert!(html.contains(&said), "{said} is not on the page");
    }
    drawn_in_a_browser(&chromium, &page, dir.path());
}

const HOSTILE_STATEMENT: &str = "SELECT '</svg><script>alert(1)</script>' /* | `x` ** [a](b) */";
const HOSTILE_NOTE: &str = "deploy </table><script>alert(2)</script> done";

/// The demo with the blocker's statement, account and host, the server's name and a bookmark
/// made of markup: what a hostile client can put in front of the monitor.
fn hostile_capture(dir: &Path) -> PathBuf {
    use innodebt_server::sample::SourceEvent;
    let read = innodebt_capture::open(demo()).expect("read the demo");
    let mut header = read.header.clone();
    header.keep_queries = true;
    let hostile_info = |info: &mut innodebt_server::sample::ServerInfo| {
        info.label = "<b>db</b> via socket".into();
        info.variables.insert(
            "hostname".into(),
            "</title><script>alert(3)</script>".into(),
        );
    };
    if let Some(info) = header.server.as_mut() {
        hostile_info(info);
    }
    let path = dir.join("hostile.idbt");
    let mut w = innodebt::replay::create_writer(&path, &header, Default::default())
        .expect("create the capture");
    let mut noted = false;
    for mut ev in read.events {
        match &mut ev {
            SourceEvent::Connected { info, .. } => hostile_info(info),
            SourceEvent::Sample(s) => {
                for trx in &mut s.trx {
                    trx.query = Some(HOSTILE_STATEMENT.into());
                    trx.command = Some("Query".into());
                    trx.user = Some("<img src=x onerror=alert(4)>".into());
                    trx.host = Some("\"><svg onload=alert(5)>".into());
                }
                if !noted && s.trx.iter().any(|t| t.thread_id == Some(14)) {
                    w.add_note(&innodebt_capture::Note::new(s.taken_at, HOSTILE_NOTE))
                        .expect("add the note");
                    noted = true;
                }
            }
            _ => {}
        }
        w.append(&ev).expect("append");
    }
    assert!(noted, "the demo's blocker was not found");
    w.finish().expect("finish the capture");
    path
}

#[test]
fn hostile_server_text_is_shown_as_text_never_read_as_markup() {
    let dir = tempfile::tempdir().unwrap();
    let capture = hostile_capture(dir.path());
    let page = dir.path().join("hostile.html");
    ok(&report(&[path(&capture), "-o", path(&page)]));
    let html = std::fs::read_to_string(&page).unwrap();
    let lower = html.to_ascii_lowercase();
    for tag in ["<script", "<img", "<b>", "onload=alert(5)>"] {
        assert!(!lower.contains(tag), "{tag} reached the page as markup");
    }
    // The page's title and its charts end where they should, not where the server's text says.
    let title = &html[html.find("<title>").unwrap()..html.find("</title>").unwrap()];
    assert!(
        title.contains("&lt;/title&gt;&lt;script&gt;alert(3)"),
        "{title}"
    );
    assert_eq!(
        lower.matches("</svg>").count(),
        7,
        "an SVG was closed early"
    );
    for shown in [
        "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(4)&gt;@&quot;&gt;&lt;svg onload=alert(5)&gt;",
        "deploy &lt;/table&gt;&lt;script&gt;alert(2)&lt;/script&gt; done",
        "&lt;/title&gt;&lt;script&gt;alert(3)&lt;/script&gt;",
    ] {
        assert!(html.contains(shown), "{shown} is not shown as text");
    }

    let md_page = dir.path().join("hostile.md");
    ok(&report(&[
        path(&capture),
        "--format",
        "markdown",
        "-o",
        path(&md_page),
    ]));
    let md = std::fs::read_to_string(&md_page).unwrap();
    // The statement is a code span (literal in every renderer); all other text is escaped.
    let spans = Regex::new(r"(`+)[^`].*?(`+)").unwrap();
    assert!(
        md.contains(&format!("``{}``", HOSTILE_STATEMENT.replace('|', "\\|"))),
        "the statement is not one code span"
    );
    // What is left outside code spans, with backslash-escaped `<` (text, not a tag) taken out.
    let outside = spans.replace_all(&md, "").replace("\\<", "");
    let outside = outside.to_ascii_lowercase();
    for tag in ["<script", "<img", "<svg", "<b>", "</table"] {
        if let Some(at) = outside.find(tag) {
            let from = outside[..at]
                .char_indices()
                .rev()
                .nth(80)
                .map_or(0, |(i, _)| i);
            panic!(
                "{tag} reached the Markdown as markup: …{}",
                &outside[from..at + 20]
            );
        }
    }
    assert!(md.contains("deploy \\</table\\>\\<script\\>alert(2)\\</script\\> done"));
    for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".svg") {
            let svg = std::fs::read_to_string(entry.path()).unwrap();
            assert!(!svg.to_ascii_lowercase().contains("<script"), "{name}");
        }
    }
}

#[test]
fn a_baseline_ranks_what_differs_as_compare_does() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("vs.html");
    let baseline = format!("{}@..+30s", path(&demo()));
    ok(&report(&[
        path(&demo()),
        "--from",
        "+40s",
        "--to",
        "+150s",
        "--baseline",
        &baseline,
        "-o",
        path(&page),
    ]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<section id=\"baseline\">"),
        "no baseline section"
    );
    // compare's own first line for these two ranges (docs/compare-whatif.md).
    let out = Command::new(common::innodebt_bin())
        .args([
            "compare",
            &format!("{}@+40s..+150s", path(&demo())),
            &baseline,
        ])
        .args(["--format", "text", "--top", "1"])
        .output()
        .expect("run compare");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("1. "))
        .expect("a ranked difference");
    let (score, what) = first
        .trim_start_matches('[')
        .split_once("] ")
        .expect("[score] what");
    let esc = what
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(
        html.contains(&format!("<td>1</td><td>{score}</td><td>{esc}</td>")),
        "compare's first difference is not the page's: [{score}] {what}"
    );
    // A baseline that cannot be read is an error, and nothing is written.
    let other = dir.path().join("other.html");
    let out = report(&[
        path(&demo()),
        "--baseline",
        "/no/such/baseline.idbt",
        "-o",
        path(&other),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--baseline"));
    assert!(!other.exists());
}

#[test]
fn a_directory_of_captures_and_a_pt_stalk_directory_are_reported_as_replay_opens_them() {
    let dir = tempfile::tempdir().unwrap();
    let recorder = dir.path().join("db1");
    std::fs::create_dir(&recorder).unwrap();
    demo_copy(&recorder.join("2026-11-21T21.idbt"), |_| {});
    let page = dir.path().join("dir.html");
    ok(&report(&[path(&recorder), "-o", path(&page)]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<code>db1</code>") && html.contains("blocked by read view"));

    let stalk = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ptstalk");
    ok(&report(&[path(&stalk), "-o", path(&page)]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("2026-11-21 20:34:37 → 20:34:57 UTC"),
        "the pt-stalk span"
    );
    assert!(html.contains("No verdict but healthy held"));
}
