//! Option files (`~/.my.cnf`, `--defaults-file`) on arbitrary text, with `!include` and
//! `!includedir` followed inside a scratch directory. The input is one or more files in the
//! `head`/`tail` layout (see `innodebt_fuzz::split_files`); the first is the one read.
//! Includes that would leave the scratch directory (absolute or `..` paths) are not
//! followed: the fuzzer must not read this machine's files (`/dev/zero`, a FIFO, ...).
#![no_main]

use std::path::{Component, Path};

use innodebt_server::mycnf::{self, Item, OptionFile};
use libfuzzer_sys::fuzz_target;

fn stays_inside(path: &Path) -> bool {
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

fuzz_target!(|data: &[u8]| {
    let files = innodebt_fuzz::split_files(data, "my.cnf");
    let mut contained = true;
    for (_, contents) in &files {
        if let Ok(items) = mycnf::parse(&String::from_utf8_lossy(contents)) {
            contained &= items.iter().all(|item| match item {
                Item::Include { path, .. } | Item::IncludeDir { path, .. } => stays_inside(path),
                Item::Option { .. } => true,
            });
        }
    }
    let Some((first, _)) = files.first() else {
        return;
    };
    if !contained {
        return;
    }
    let dir = innodebt_fuzz::scratch_dir().join("d");
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::create_dir(&dir).is_err() {
        return;
    }
    for (name, contents) in &files {
        let _ = std::fs::write(dir.join(name), contents);
    }
    let read = [OptionFile {
        path: dir.join(first),
        given_by: Some("--defaults-file"),
    }];
    match mycnf::load(&read) {
        Ok(loaded) => {
            // Only files inside the scratch directory were read.
            assert!(
                loaded.read.iter().all(|p| p.starts_with(&dir)),
                "{:?}",
                loaded.read
            );
            let _ = format!("{:?}", loaded.settings);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
