//! Wiring only: parse the command line, pick the mode, map errors to exit codes.

use std::process::ExitCode;

/// Hides `-pSECRET` from `ps` (the binary's own argv; see the module).
mod argv;

fn main() -> ExitCode {
    innodebt::timings::mark_start();
    let cli = match innodebt::cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Some(password) = &cli.connection.password {
        argv::hide_password(password.expose());
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
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
