//! `cargo xtask screenshots`: the README's pictures from the page as it is
//! now (`tests/screenshots.mjs`: the default experiment with its three IPCs,
//! and a run of strided gs = 32 paused part-way), into `docs/`.

use std::process::ExitCode;

use crate::shell::{Result, command, exec, root};
use crate::{dist, tools};

/// Builds the app and takes the pictures in headless Chromium.
pub fn run() -> Result<ExitCode> {
    tools::ensure_all()?;
    let dist = dist::build()?;
    let mut node = command("node", &["screenshots.mjs"]);
    node.current_dir(root().join("tests")).env("WARPLAB_DIST", dist);
    exec(&mut node)?;
    Ok(ExitCode::SUCCESS)
}
