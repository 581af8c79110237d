//! The soak test's driver in a release build: 500,000 samples (or the count given) through
//! poller channel → `App::update` → recorder → `TestBackend` frames, with resident memory
//! every 50,000 samples and the peak (VmHWM).
//!
//! `cargo bench --bench soak` or `cargo bench --bench soak -- 5000000`

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/it/bounded_memory/soak.rs"]
mod soak;

fn main() {
    let samples = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(500_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = soak::SoakConfig {
        samples,
        checkpoint_every: (samples / 10).max(1),
        ..soak::SoakConfig::new(dir.path().join("soak.idbt"))
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let report = runtime.block_on(soak::run(cfg.clone()));
    soak::print_report(&report);
    soak::check_capture(&cfg.capture, &report);
}
