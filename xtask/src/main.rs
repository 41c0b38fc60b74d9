//! The project's chores, reached as `cargo xtask <command>` (an alias in
//! `.cargo/config.toml`), so that a fresh machine needs nothing but cargo.
//!
//! - `serve [--port N]`: install what is missing, build the app (release) and serve `dist/`.
//! - `test`: every test (native, wasm-bindgen in headless Chromium, end-to-end,
//!   clippy, rustfmt), ending with one `N passed, N failed` line.
//! - `dist`: the static bundle in `dist/`, with the wasm sizes.
//! - `bench [ARGS]`: the criterion benchmarks, then the browser sweep benchmark in headless Chromium.
//! - `samples`: regenerate the generated sample traces in `sample-traces/`.
//! - `screenshots`: the README's pictures in `docs/`, from the page as it is now.
//! - `labs [--base-url URL] [--links-only]`: the links and figures of the
//!   course-lab handouts in `docs/labs/`, computed from their experiment
//!   files, the links under the instructor's URL (default the local one).
//! - `validate-models`: the analytical models against the timing model on
//!   the teaching kernels and the MSHR and SM-count sweeps, written into
//!   `docs/validation.md` and `docs/validation-*.svg` (a recorded run, not a test).
//! - `validate-scale`: the scale-model prediction of 64 and 128 SMs from 8 and
//!   16 against the timing model on the teaching set, strong and weak scaling,
//!   with the speedups, written into `docs/validation.md` (lab 3 links to it).
//! - `validate-chiplets`: the multi-chiplet case study, 16 chiplets predicted
//!   from 4 and 8 under weak scaling against the 16-chiplet simulation,
//!   written into `docs/validation.md`.
//! - `validate-sim`: the timing model against the recorded Accel-Sim runs of
//!   `crates/lab/test_data/accelsim/`, every case and counter, written into
//!   `docs/validation.md` (the same cases `accelsim_reference.rs` asserts).
//! - `sampling`: Photon's sampled simulation against the full simulation on
//!   large regular kernels and multi-kernel workloads (IPC error, speedup),
//!   written into `docs/validation.md` (a recorded run, not a test).
//! - `pgo`: the command line built with profile-guided optimisation, trained
//!   on workloads other than the benchmark's (`target/pgo/`).

mod bench;
mod dist;
mod labs;
mod numbers;
mod parallel;
mod pgo;
mod plot;
mod recorded;
mod samples;
mod screenshots;
mod serve;
mod shell;
mod test;
#[cfg(test)]
mod tidy;
mod tools;
mod validate_chiplets;
mod validate_models;
mod validate_sampling;
mod validate_scale;
mod validate_sim;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <serve [--port N] | test | dist | bench [criterion args] | samples | screenshots | labs [--base-url URL] [--links-only] | validate-models | validate-scale [--tables-only] | validate-chiplets [--tables-only] | validate-sim | sampling | pgo>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve::run(rest),
        Some("test") => test::run(),
        Some("dist") => dist::run(),
        Some("bench") => bench::run(rest),
        Some("samples") => samples::run(),
        Some("screenshots") => screenshots::run(),
        Some("labs") => labs::run(rest),
        Some("validate-models") => validate_models::run(),
        Some("validate-scale") => validate_scale::run(rest),
        Some("validate-chiplets") => validate_chiplets::run(rest),
        Some("validate-sim") => validate_sim::run(),
        Some("sampling") => validate_sampling::run(),
        Some("pgo") => pgo::run(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("xtask: {error}");
            ExitCode::FAILURE
        }
    }
}
