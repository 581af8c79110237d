//! `innodebt completions SHELL` and `innodebt man [SUBCOMMAND | --out-dir DIR]`: the shell
//! completions and man pages, generated from the clap definitions so they cannot drift from
//! the flags. The Debian package installs what these print.

use std::io::Write;
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
    for page in pages {
        let path = dir.join(format!("{}.1", page.name));
        let written = manual::render(page).and_then(|text| std::fs::write(&path, text));
        if let Err(e) = written {
            return fail(EXIT_FAILURE, format!("{}: {e}", path.display()));
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}

fn print(bytes: &[u8]) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is the reader's choice, not a failure worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_FAILURE, format!("writing to standard output: {e}")),
    }
}
