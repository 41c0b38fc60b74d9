//! `cargo xtask bench`: the criterion benchmarks of every crate that has them,
//! then the browser benchmark (a 1,000-point analytical-model sweep in
//! headless Chromium, `crates/lab/benches/sweep_speed.rs`).

use std::process::ExitCode;

use crate::shell::{Result, command, exec, target_dir};
use crate::tools;

/// Runs `cargo bench --workspace`, passing `args` on to criterion, then the
/// wasm-bindgen benchmark (which takes no arguments).
pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut cargo_args = vec!["bench", "--workspace", "--benches"];
    if !args.is_empty() {
        cargo_args.push("--");
        cargo_args.extend(args.iter().map(String::as_str));
    }
    exec(&mut command("cargo", &cargo_args))?;
    tools::ensure_wasm_target()?;
    tools::ensure_wasm_bindgen()?;
    tools::ensure_browser()?;
    let mut browser = command(
        "cargo",
        &["bench", "--target", "wasm32-unknown-unknown", "-p", "warplab-lab", "--bench", "sweep_speed"],
    );
    // A whole run takes minutes, longer than the tests' limit; wasm-bindgen's
    // criterion keeps its baseline in the target directory, not in the crate.
    browser
        .env("WASM_BINDGEN_TEST_ONLY_WEB", "1")
        .env("WASM_BINDGEN_TEST_TIMEOUT", "900")
        .env("WASM_BINDGEN_BENCH_RESULT", target_dir().join("wbg_benchmark.json"));
    exec(&mut browser)?;
    println!(
        "criterion's reports are in target/criterion/, the browser's are above; record what you measured in docs/performance.md"
    );
    Ok(ExitCode::SUCCESS)
}
