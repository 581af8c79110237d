//! Wiring only: parse the command line, pick the mode, map errors to exit codes.

use std::process::ExitCode;

/// Hides `-pSECRET` from `ps` (the binary's own argv; see the module).
mod argv;

fn main() -> ExitCode {
    innodebt::timings::mark_start();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match innodebt::cli::parse_args(args.clone()) {
        Ok(cli) => cli,
        Err(e) => match innodebt::cli::usage_error_status(&args, &e) {
            // `check`'s caller is a monitoring system: UNKNOWN, on standard output.
            Some(status) => {
                // Written or not (a closed pipe is no news to give), the check is UNKNOWN.
                if let Err(e) = innodebt::mode::write_stdout(&format!("{status}\n")) {
                    eprintln!("innodebt: {e}");
                }
                return ExitCode::from(3);
            }
            None => e.exit(),
        },
    };
    if let Some(password) = &cli.connection.password {
        argv::hide_password(password.expose());
    }
    keep_driver_buffers_small();
    let serve = matches!(cli.command, Some(innodebt::cli::Command::Serve(_)));
    // `serve` runs every target, scrape and timer on the one thread that starts it (a
    // thousand targets' polls and scrapes need a tenth of a core): a worker beside it only
    // adds wake-ups between the two, accepting on one and answering on the other, and each
    // worker more costs CPU (BENCHMARKS.md, serve's design choices). The dashboards keep two
    // workers; tokio's own TOKIO_WORKER_THREADS, when set, asks for that many.
    let workers = std::env::var_os("TOKIO_WORKER_THREADS").is_some();
    let mut builder = if serve && !workers {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    if !workers && !serve {
        builder.worker_threads(2);
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("innodebt: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(innodebt::run::main(cli));
    // Don't wait for a poller stuck on a dead server: everything worth keeping is flushed.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}

/// mysql_async keeps every reply buffer it reuses at up to 4 MiB: one SHOW ENGINE INNODB
/// STATUS reply of a server with thousands of sessions would stay resident for good. Above
/// 64 KiB a buffer is shrunk when it goes back to the pool (the rows innodebt reads per tick
/// are far smaller; the rare big reply pays one allocation). A value the user set is kept.
fn keep_driver_buffers_small() {
    const VAR: &str = "MYSQL_ASYNC_BUFFER_SIZE_CAP";
    if std::env::var_os(VAR).is_none() {
        // SAFETY: called first thing in main, before the runtime or any other thread starts,
        // so nothing reads the environment concurrently.
        unsafe { std::env::set_var(VAR, "65536") };
    }
}
