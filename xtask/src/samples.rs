//! `cargo xtask samples`: rewrite the generated sample traces in
//! `sample-traces/` with the CLI, so they are exactly what `warplab gen-trace`
//! makes (a test in warplab-lab checks that regeneration is byte-identical).

use std::process::ExitCode;

use crate::shell::{Result, command, exec, root};

/// Runs `warplab samples --regenerate <repository root>` (release build).
pub fn run() -> Result<ExitCode> {
    let root = root();
    let root = root.to_str().ok_or_else(|| "the repository path is not UTF-8".to_owned())?;
    exec(&mut command("cargo", &["run", "--release", "-p", "warplab", "--", "samples", "--regenerate", root]))?;
    Ok(ExitCode::SUCCESS)
}
