//! `innodebt generate-assets DIR` (hidden, for packaging): the man pages and the shell
//! completions, generated from the clap definitions so they cannot drift from the flags.
//! `DIR/man/innodebt.1`, `innodebt-serve.1`, … and `DIR/completions/{innodebt.bash,
//! _innodebt, innodebt.fish}`.

use std::path::{Path, PathBuf};

use clap_complete::Shell;

pub fn write(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let man = dir.join("man");
    let completions = dir.join("completions");
    for d in [&man, &completions] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: cannot create: {e}", d.display()))?;
    }
    let mut written = Vec::new();
    let cmd = crate::cli::command();
    clap_mangen::generate_to(cmd.clone(), &man)
        .map_err(|e| format!("{}: writing man pages: {e}", man.display()))?;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&man)
        .map_err(|e| format!("{}: {e}", man.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    pages.sort();
    written.extend(pages);
    for (shell, name) in [
        (Shell::Bash, "innodebt.bash"),
        (Shell::Zsh, "_innodebt"),
        (Shell::Fish, "innodebt.fish"),
    ] {
        let path = completions.join(name);
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut cmd.clone(), "innodebt", &mut out);
        std::fs::write(&path, out).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
