//! `innodebt completions SHELL` and `innodebt man [SUBCOMMAND | --out-dir DIR]`: the shell
//! completions and man pages, generated from the clap definitions so they cannot drift from
//! the flags. The Debian package installs what these print.

use std::path::Path;
use std::process::ExitCode;

use clap_complete::Shell;

use crate::cli::manual;
use crate::mode::{EXIT_CONFIG, EXIT_FAILURE, fail};

pub fn completions(shell: Shell) -> ExitCode {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut crate::cli::command(), "innodebt", &mut out);
    print(&out)
}

pub fn man(page: Option<&str>, out_dir: Option<&Path>) -> ExitCode {
    let pages = manual::pages();
    if let Some(dir) = out_dir {
        return write_all(&pages, dir);
    }
    let name = page.map_or("innodebt".to_owned(), |p| {
        format!("innodebt-{}", p.trim().replace(' ', "-"))
    });
    let Some(page) = pages.iter().find(|p| p.name == name) else {
        let known: Vec<&str> = pages
            .iter()
            .filter_map(|p| p.name.strip_prefix("innodebt-"))
            .collect();
        return fail(
            EXIT_CONFIG,
            format!(
                "no man page for {name:?}: give one of {} (or none for innodebt(1))",
                known.join(", ")
            ),
        );
    };
    match manual::render(page) {
        Ok(text) => print(&text),
        Err(e) => fail(EXIT_FAILURE, format!("rendering {}(1): {e}", page.name)),
    }
}

fn write_all(pages: &[manual::Page], dir: &Path) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        return fail(
            EXIT_FAILURE,
            format!("{}: cannot create: {e}", dir.display()),
        );
    }
    let mut written = String::new();
    for page in pages {
        let path = dir.join(format!("{}.1", page.name));
        if let Err(e) = manual::render(page).and_then(|text| std::fs::write(&path, text)) {
            return fail(EXIT_FAILURE, format!("{}: {e}", path.display()));
        }
        written.push_str(&format!("{}\n", path.display()));
    }
    crate::mode::emit(&written)
}

fn print(bytes: &[u8]) -> ExitCode {
    match crate::mode::to_stdout(|out| out.write_all(bytes)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, e),
    }
}
