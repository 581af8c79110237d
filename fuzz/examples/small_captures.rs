//! Seeds for the `capture_reader` target: each real capture given is rewritten small — its
//! first events only, a few per section — so the fuzzer runs fast and every seed has several
//! sections (markers, frames, trailer) to damage. Run by `fuzz/seed.sh`:
//!
//! ```sh
//! cargo run --manifest-path fuzz/Cargo.toml --example small_captures -- OUT_DIR CAPTURE...
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use innodebt_capture::writer::{CaptureWriter, WriterOptions};

/// Events kept per capture, and per section.
const EVENTS: usize = 24;
const PER_SECTION: u32 = 5;

fn rewrite(input: &Path, output: &Path) -> Result<usize, String> {
    let cap = innodebt_capture::open(input).map_err(|e| e.to_string())?;
    let opts = WriterOptions {
        overwrite: true,
        frame_records: PER_SECTION,
        ..WriterOptions::default()
    };
    let mut w = CaptureWriter::create_with(output, &cap.header, opts).map_err(|e| e.to_string())?;
    let kept = cap.events.len().min(EVENTS);
    for e in &cap.events[..kept] {
        w.append(e).map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())?;
    Ok(kept)
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(out_dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: small_captures OUT_DIR CAPTURE...");
        return ExitCode::FAILURE;
    };
    let mut failed = false;
    for (k, input) in args.map(PathBuf::from).enumerate() {
        let output = out_dir.join(format!("small{}.idbt", k + 1));
        match rewrite(&input, &output) {
            Ok(n) => println!("{}: {n} events -> {}", input.display(), output.display()),
            Err(e) => {
                eprintln!("{}: {e}", input.display());
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
