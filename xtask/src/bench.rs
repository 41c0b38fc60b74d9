//! `cargo xtask bench`: the criterion benchmarks of every crate that has them,
//! then the browser benchmarks in headless Chromium (a 1,000-point
//! analytical-model sweep, `crates/lab/benches/sweep_speed.rs`, and the
//! timing model on the default page's workload, `simulate_speed.rs`).

use std::process::ExitCode;

use crate::shell::{Result, command, exec, target_dir};
use crate::tools;

/// The wasm-bindgen benchmarks of `warplab-lab`, run in headless Chromium.
const BROWSER_BENCHES: [&str; 2] = ["sweep_speed", "simulate_speed"];

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
    for bench in BROWSER_BENCHES {
        let mut browser =
            command("cargo", &["bench", "--target", "wasm32-unknown-unknown", "-p", "warplab-lab", "--bench", bench]);
        // A whole run takes minutes, longer than the tests' limit; wasm-bindgen's
        // criterion keeps its baseline in the target directory, not in the crate.
        browser
            .env("WASM_BINDGEN_TEST_ONLY_WEB", "1")
            .env("WASM_BINDGEN_TEST_TIMEOUT", "900")
            .env("WASM_BINDGEN_BENCH_RESULT", target_dir().join(format!("wbg_{bench}.json")));
        exec(&mut browser)?;
    }
    println!(
        "criterion's reports are in target/criterion/, the browser's are above; record what you measured in docs/performance.md"
    );
    Ok(ExitCode::SUCCESS)
}
