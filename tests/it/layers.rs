//! The module graph of `src/` has no cycles and no import against the layers `src/lib.rs`
//! declares, so the rule cannot rot: adding `use crate::ui::…` to `metrics`, or a pair of
//! files that import each other, fails here with the edge or the cycle named.
//!
//! The graph: one node per module file (the tree of `mod` declarations from `src/lib.rs`);
//! an edge A → B when A names B or an item of B — in a `use` (`crate::`, `super::`, `self::`
//! or a child module) or in any `crate::…` / `super::…` path in its code, tests included.
//! A path names the longest module prefix it has. A module may use its own submodules
//! freely (it declares them); every other edge counts. Cycles are looked for twice: between
//! files, and between the modules the layer list names (each file folded into the deepest
//! listed module holding it), so two modules that import each other through different files
//! are caught too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One module file.
#[derive(Debug)]
struct Module {
    /// `metrics::series`; the crate root is `""`.
    path: String,
    /// Code with comments and literals removed.
    code: String,
    /// Child modules declared with `mod x;` (files of their own).
    children: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// Reading the sources

/// Code without comments, string and char literals: what is left can be tokenised safely.
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            }
            'r' if (i == 0 || !ident(c[i - 1]))
                && matches!(next, Some('"') | Some('#'))
                && c[i + 1..].iter().find(|ch| **ch != '#') == Some(&'"') =>
            {
                // Raw string: r##"…"##.
                let hashes = c[i + 1..].iter().take_while(|ch| **ch == '#').count();
                i += 2 + hashes;
                while i < c.len() {
                    if c[i] == '"'
                        && c[i + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|h| **h == '#')
                            .count()
                            == hashes
                    {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
                out.push_str("\"\"");
            }
            '"' => {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                out.push_str("\"\"");
            }
            '\'' if next == Some('\\') => {
                // '\n', '\u{1b}'
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if c.get(i + 2) == Some(&'\'') => {
                i += 3;
                out.push_str("' '");
            }
            ch => {
                // A lifetime ('a) or any other code.
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

fn tokens(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else if ch.is_whitespace() {
            i += 1;
        } else {
            out.push(ch.to_string());
            i += 1;
        }
    }
    out
}

/// Every module file from `lib.rs` down, through `mod x;` declarations.
fn load_tree(src_dir: &Path) -> Vec<Module> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
    };
    let mut modules = Vec::new();
    let mut todo = vec![(String::new(), src_dir.join("lib.rs"))];
    while let Some((path, file)) = todo.pop() {
        let code = strip(&read(&file));
        let children = declared_children(&code);
        // foo.rs keeps its children in foo/; mod.rs and lib.rs in their own directory.
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs") | Some("lib.rs") => file.parent().map(Path::to_path_buf),
            _ => Some(file.with_extension("")),
        }
        .unwrap_or_else(|| PathBuf::from("."));
        for child in &children {
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(child).join("mod.rs");
            let child_file = if flat.exists() { flat } else { nested };
            assert!(
                child_file.exists(),
                "{}: `mod {child};` has no file",
                file.display()
            );
            let child_path = if path.is_empty() {
                child.clone()
            } else {
                format!("{path}::{child}")
            };
            todo.push((child_path, child_file));
        }
        modules.push(Module {
            path,
            code,
            children,
        });
    }
    modules
}

/// `mod x;` at the top level of a file (inline `mod x { … }` stays part of the file).
fn declared_children(code: &str) -> Vec<String> {
    let t = tokens(code);
    let mut depth = 0usize;
    let mut out = Vec::new();
    for i in 0..t.len() {
        match t[i].as_str() {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "mod" if depth == 0 && t.get(i + 2).is_some_and(|s| s == ";") => {
                out.push(t[i + 1].clone())
            }
            _ => {}
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The graph

/// The paths a `use` tree names, each as its segments (`{self, x}` and `*` included).
fn use_paths(t: &[String], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    loop {
        match t.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    match t.get(i).map(String::as_str) {
                        Some("}") => return i + 1,
                        Some(",") => i += 1,
                        Some(_) => i = use_paths(t, i, path.clone(), out),
                        None => return i,
                    }
                }
            }
            Some("::") => i += 1,
            Some("*") => {
                out.push(path);
                return i + 1;
            }
            Some("self") if !path.is_empty() => i += 1,
            Some(word) if word.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                path.push(word.to_string());
                i += 1;
                if t.get(i).is_some_and(|s| s == "as") {
                    i += 2;
                }
            }
            _ => {
                out.push(path);
                return i;
            }
        }
    }
}

/// The module paths (absolute segments) this file names, with the inline module depth the
/// name was written at (`super` inside `mod tests { … }` is the file itself).
fn named_paths(m: &Module) -> Vec<Vec<String>> {
    let t = tokens(&m.code);
    let here: Vec<String> = m
        .path
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let mut out = Vec::new();
    // Inline modules open at these brace depths.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < t.len() {
        let tok = t[i].as_str();
        match tok {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if t.get(i + 2).is_some_and(|s| s == "{") => {
                inline.push((t[i + 1].clone(), depth));
            }
            _ => {}
        }
        let at_start = i == 0 || t[i - 1] != "::";
        let mut raw = Vec::new();
        if tok == "use" {
            i = use_paths(&t, i + 1, Vec::new(), &mut raw);
        } else if at_start && (tok == "crate" || tok == "super") {
            let mut p = vec![tok.to_string()];
            let mut j = i + 1;
            while t.get(j).is_some_and(|s| s == "::")
                && t.get(j + 1)
                    .is_some_and(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_'))
            {
                p.push(t[j + 1].clone());
                j += 2;
            }
            raw.push(p);
            i = j;
        } else {
            i += 1;
        }
        let mut location = here.clone();
        location.extend(inline.iter().map(|(n, _)| n.clone()));
        for p in raw {
            let Some(first) = p.first() else { continue };
            let abs = match first.as_str() {
                "crate" => p[1..].to_vec(),
                "super" | "self" => {
                    let mut base = location.clone();
                    let mut rest = &p[..];
                    while rest.first().is_some_and(|s| s == "super" || s == "self") {
                        if rest[0] == "super" {
                            base.pop();
                        }
                        rest = &rest[1..];
                    }
                    base.extend(rest.iter().cloned());
                    base
                }
                // A child module, named from the file's top level.
                child if inline.is_empty() && m.children.iter().any(|c| c == child) => {
                    let mut base = here.clone();
                    base.extend(p.iter().cloned());
                    base
                }
                _ => continue,
            };
            out.push(abs);
        }
    }
    out
}

struct Graph {
    modules: BTreeSet<String>,
    edges: BTreeMap<String, BTreeSet<String>>,
}

fn is_within(inner: &str, outer: &str) -> bool {
    outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"))
}

fn graph(modules: &[Module]) -> Graph {
    let names: BTreeSet<String> = modules.iter().map(|m| m.path.clone()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in modules {
        let set = edges.entry(m.path.clone()).or_default();
        for p in named_paths(m) {
            // The longest prefix that is a module file.
            let target = (0..=p.len())
                .rev()
                .map(|n| p[..n].join("::"))
                .find(|cand| names.contains(cand));
            match target {
                Some(t) if !t.is_empty() && !is_within(&t, &m.path) => {
                    set.insert(t);
                }
                _ => {}
            }
        }
    }
    Graph {
        modules: names,
        edges,
    }
}

/// Strongly connected components with more than one module, each as one cycle through it.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    // Tarjan, iteratively small enough to recurse: the crate has ~100 modules.
    struct St<'a> {
        g: &'a Graph,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on: BTreeSet<String>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit(s: &mut St, v: &str) {
        s.index.insert(v.to_string(), s.next);
        s.low.insert(v.to_string(), s.next);
        s.next += 1;
        s.stack.push(v.to_string());
        s.on.insert(v.to_string());
        let succ: Vec<String> = s.g.edges.get(v).into_iter().flatten().cloned().collect();
        for w in succ {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let lw = s.low[&w];
                let lv = s.low[v];
                s.low.insert(v.to_string(), lv.min(lw));
            } else if s.on.contains(&w) {
                let iw = s.index[&w];
                let lv = s.low[v];
                s.low.insert(v.to_string(), lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(&w);
                let done = w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for m in &g.modules {
        if !s.index.contains_key(m) {
            visit(&mut s, m);
        }
    }
    s.out
        .into_iter()
        .map(|comp| one_cycle(g, &comp.into_iter().collect()))
        .collect()
}

/// A concrete cycle inside a strongly connected component, for the message.
fn one_cycle(g: &Graph, comp: &BTreeSet<String>) -> Vec<String> {
    let Some(start) = comp.iter().next() else {
        return Vec::new();
    };
    // Breadth-first from `start` back to `start` within the component.
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(v) = queue.pop_front() {
        for w in g.edges.get(&v).into_iter().flatten() {
            if !comp.contains(w) {
                continue;
            }
            if w == start {
                // v, its predecessors back to start, then round to start again.
                let mut path = vec![v.clone()];
                let mut cur = v.clone();
                while let Some(p) = prev.get(&cur) {
                    path.push(p.clone());
                    cur = p.clone();
                }
                if cur != *start {
                    path.push(start.clone());
                }
                path.reverse();
                path.push(start.clone());
                return path;
            }
            if !prev.contains_key(w) && w != start {
                prev.insert(w.clone(), v.clone());
                queue.push_back(w.clone());
            }
        }
    }
    comp.iter().cloned().collect()
}

// ---------------------------------------------------------------------------------------
// The layers

/// `//! 3. name: `a`, `b::c` — …` lines of the crate docs: layer number → module paths.
fn layers(lib_rs: &str) -> Vec<(u32, String, Vec<String>)> {
    let mut out = Vec::new();
    for line in lib_rs.lines() {
        let Some(rest) = line.strip_prefix("//! ") else {
            continue;
        };
        let Some((num, text)) = rest.split_once(". ") else {
            continue;
        };
        let Ok(n) = num.trim().parse::<u32>() else {
            continue;
        };
        let name = text
            .split(':')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let modules = text
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        out.push((n, name, modules));
    }
    out
}

/// What is wrong with the graph against the layers: modules in no layer, names that are no
/// module, imports upwards, cycles. Empty when all is well.
fn problems(modules: &[Module], lib_rs: &str) -> Vec<String> {
    let g = graph(modules);
    let table = layers(lib_rs);
    let mut problems = Vec::new();
    if table.is_empty() {
        problems.push("src/lib.rs lists no layers (`//! 1. name: `module`, …` lines)".into());
    }
    let mut layer_of_prefix: BTreeMap<String, (u32, String)> = BTreeMap::new();
    for (n, name, mods) in &table {
        for m in mods {
            if !g.modules.contains(m) {
                problems.push(format!(
                    "layer {n} ({name}) lists `{m}`, which is no module"
                ));
            }
            if layer_of_prefix
                .insert(m.clone(), (*n, name.clone()))
                .is_some()
            {
                problems.push(format!("`{m}` is listed in two layers"));
            }
        }
    }
    let layer = |m: &str| -> Option<(u32, String)> {
        let segs: Vec<&str> = m.split("::").collect();
        (1..=segs.len())
            .rev()
            .find_map(|n| layer_of_prefix.get(&segs[..n].join("::")).cloned())
    };
    for m in g.modules.iter().filter(|m| !m.is_empty()) {
        if layer(m).is_none() {
            problems.push(format!(
                "module `{m}` is in no layer: add it (or a parent) to the list in src/lib.rs"
            ));
        }
    }
    for (from, tos) in &g.edges {
        let Some((lf, nf)) = layer(from) else {
            continue;
        };
        for to in tos {
            let Some((lt, nt)) = layer(to) else { continue };
            if lt > lf {
                problems.push(format!(
                    "`{from}` (layer {lf}, {nf}) imports `{to}` (layer {lt}, {nt}): a layer \
                     may only import the layers below it"
                ));
            }
        }
    }
    for c in cycles(&g) {
        problems.push(format!("import cycle: {}", c.join(" → ")));
    }
    // A cycle of files is one kind; two modules that import each other through different
    // files (as `fleet` → `run::shared` and `run` → `fleet` were) are another, invisible file by file.
    // Fold every file into the module the layer list names it under (`source::flavor` is a
    // module of its own there, below `sample`; `source` above it) and look again.
    let room = |m: &str| -> String {
        let segs: Vec<&str> = m.split("::").collect();
        (1..=segs.len())
            .rev()
            .map(|n| segs[..n].join("::"))
            .find(|p| layer_of_prefix.contains_key(p))
            .unwrap_or_else(|| segs[0].to_string())
    };
    let folded = fold_graph(&g, &room);
    for c in cycles(&folded.graph) {
        let through: Vec<String> = c
            .windows(2)
            .map(|w| {
                let (a, b) = (&w[0], &w[1]);
                let (f, t) = folded
                    .via
                    .get(&(a.clone(), b.clone()))
                    .cloned()
                    .unwrap_or_default();
                format!("{a} → {b} ({f} → {t})")
            })
            .collect();
        problems.push(format!(
            "import cycle between modules: {}; through {}",
            c.join(" → "),
            through.join(", ")
        ));
    }
    problems
}

/// The graph with each module replaced by `fold(module)`, edges inside one folded module
/// dropped, and for each folded edge one file edge that makes it (for the message).
struct Folded {
    graph: Graph,
    via: BTreeMap<(String, String), (String, String)>,
}

fn fold_graph(g: &Graph, fold: &dyn Fn(&str) -> String) -> Folded {
    let mut modules = BTreeSet::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut via = BTreeMap::new();
    for m in g.modules.iter().filter(|m| !m.is_empty()) {
        modules.insert(fold(m));
    }
    for (from, tos) in &g.edges {
        if from.is_empty() {
            continue;
        }
        let f = fold(from);
        for to in tos {
            let t = fold(to);
            if f == t {
                continue;
            }
            edges.entry(f.clone()).or_default().insert(t.clone());
            via.entry((f.clone(), t))
                .or_insert((from.clone(), to.clone()));
        }
    }
    Folded {
        graph: Graph { modules, edges },
        via,
    }
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn src_has_no_cycle_and_no_import_against_the_layers() {
    let modules = load_tree(&src_dir());
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).expect("src/lib.rs");
    let problems = problems(&modules, &lib);
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn the_reader_sees_the_real_graph() {
    // Guards against a reader that finds nothing (and so no cycle): the known edges of the
    // data flow must be there.
    let modules = load_tree(&src_dir());
    assert!(modules.len() > 50, "only {} modules found", modules.len());
    let g = graph(&modules);
    for (from, to) in [
        ("derive", "verdicts"),
        ("derive", "metrics"),
        ("verdicts", "figures"),
        ("metrics", "sample"),
        ("sample", "source::flavor"),
        ("metrics", "source::flavor"),
        ("serve::target", "target"),
        ("ui::checkpoint", "ui::flow"),
        ("output", "text"),
    ] {
        assert!(
            g.edges.get(from).is_some_and(|t| t.contains(to)),
            "edge {from} → {to} not found; {from} → {:?}",
            g.edges.get(from)
        );
    }
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).expect("src/lib.rs");
    assert!(layers(&lib).len() >= 5, "{:?}", layers(&lib));
}

/// A little crate in memory.
fn fake(files: &[(&str, &str, &[&str])]) -> Vec<Module> {
    files
        .iter()
        .map(|(path, src, children)| Module {
            path: path.to_string(),
            code: strip(src),
            children: children.iter().map(|c| c.to_string()).collect(),
        })
        .collect()
}

const FAKE_LIB: &str = "//! 1. bottom: `text`\n//! 2. middle: `metrics`\n//! 3. top: `ui`\n";

#[test]
fn an_upward_import_and_a_cycle_are_caught() {
    let ok = fake(&[
        ("", FAKE_LIB, &["text", "metrics", "ui"]),
        ("text", "pub fn width() {}", &[]),
        ("metrics", "use crate::text::width;", &[]),
        (
            "ui",
            "use crate::{metrics, text::width};\nfn f() { crate::metrics::x(); }",
            &[],
        ),
    ]);
    assert_eq!(problems(&ok, FAKE_LIB), Vec::<String>::new());

    let upward = fake(&[
        ("", FAKE_LIB, &["text", "metrics", "ui"]),
        ("text", "fn f() { let _ = crate::ui::draw(); }", &[]),
        ("metrics", "", &[]),
        ("ui", "", &[]),
    ]);
    let p = problems(&upward, FAKE_LIB);
    assert!(
        p.iter()
            .any(|m| m.starts_with("`text` (layer 1, bottom) imports `ui` (layer 3, top)")),
        "{p:?}"
    );

    let cycle = fake(&[
        ("", "//! 1. all: `a`\n", &["a"]),
        ("a", "mod b;\nmod c;", &["b", "c"]),
        ("a::b", "use super::c::X;", &[]),
        ("a::c", "use crate::a::b::Y;", &[]),
    ]);
    let p = problems(&cycle, "//! 1. all: `a`\n");
    assert!(
        p.iter()
            .any(|m| m.starts_with("import cycle: a::b → a::c → a::b")
                || m.starts_with("import cycle: a::c → a::b → a::c")),
        "{p:?}"
    );
}

#[test]
fn a_cycle_between_modules_through_different_files_is_caught() {
    // No two files import each other, but `run` and `fleet` do: `fleet` uses
    // `run::shared`, `run`'s dispatcher calls `fleet`.
    let lib = "//! 1. all: `run`, `fleet`\n";
    let m = fake(&[
        ("", lib, &["run", "fleet"]),
        (
            "run",
            "pub mod shared;\nfn main() { crate::fleet::main(); }",
            &["shared"],
        ),
        ("run::shared", "pub fn fail() {}", &[]),
        (
            "fleet",
            "use crate::run::shared::fail;\npub fn main() {}",
            &[],
        ),
    ]);
    assert!(cycles(&graph(&m)).is_empty(), "no cycle of files");
    let p = problems(&m, lib);
    assert!(
        p.iter()
            .any(|m| m.starts_with("import cycle between modules: ")
                && m.contains("fleet → run (fleet → run::shared)")
                && m.contains("run → fleet (run → fleet)")),
        "{p:?}"
    );

    // A module the layer list names on its own is its own room: `sample` may use
    // `source::flavor` while `source` uses `sample`, as long as `source::flavor` does not.
    let lib = "//! 1. low: `source::flavor`, `sample`\n//! 2. high: `source`\n";
    let files = |flavor_src: &'static str| {
        fake(&[
            ("", lib, &["source", "sample"]),
            (
                "source",
                "pub mod flavor;\nuse crate::sample::Sample;",
                &["flavor"],
            ),
            ("source::flavor", flavor_src, &[]),
            ("sample", "use crate::source::flavor::Flavor;", &[]),
        ])
    };
    assert_eq!(
        problems(&files("pub struct Flavor;"), lib),
        Vec::<String>::new()
    );
    let p = problems(
        &files("use crate::sample::Sample;\npub struct Flavor;"),
        lib,
    );
    assert!(
        p.iter().any(
            |m| m.starts_with("import cycle: sample → source::flavor → sample")
                || m.starts_with("import cycle: source::flavor → sample → source::flavor")
        ),
        "{p:?}"
    );
}

#[test]
fn comments_strings_and_test_modules_are_read_right() {
    let m = fake(&[
        ("", "//! 1. all: `a`, `b`, `c`\n", &["a", "b", "c"]),
        (
            "a",
            "// use crate::b;\nconst S: &str = \"crate::b::x\";\nconst R: &str = r#\"crate::b\"#;\n\
             fn f<'a>(c: char) { let q = '\"'; }\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::c::Z;\n}\n",
            &[],
        ),
        ("b", "", &[]),
        ("c", "", &[]),
    ]);
    let g = graph(&m);
    assert_eq!(
        g.edges.get("a").cloned().unwrap_or_default(),
        BTreeSet::from(["c".to_string()]),
        "comments and strings name nothing; `super` in a test module is the file itself"
    );
    assert_eq!(
        layers("//! 1. all: `a`, `b`, `c`\n"),
        vec![(
            1,
            "all".to_string(),
            vec!["a".into(), "b".into(), "c".into()]
        )]
    );
}
