//! The static bundle in `dist/`: the app and worker wasm (release) bound by
//! wasm-bindgen for ES modules, `index.html`, `www/` and the sample traces.
//!
//! xtask drives `cargo build` and `wasm-bindgen` itself instead of using trunk:
//! trunk takes about six minutes to install on every fresh machine, and the
//! build needs nothing trunk adds (no asset hashing, no preprocessing).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::shell::{Result, command, exec, root, target_dir};
use crate::tools;

/// The web crate's binaries and the names of their bound JS modules.
const BINARIES: [(&str, &str); 2] = [("app", "warplab_app"), ("worker", "warplab_worker")];

/// `cargo xtask dist`: build and print the sizes of the wasm files.
pub fn run() -> Result<ExitCode> {
    tools::ensure_wasm_target()?;
    tools::ensure_wasm_bindgen()?;
    let dist = build()?;
    for (_, name) in BINARIES {
        let wasm = dist.join(format!("{name}_bg.wasm"));
        let bytes = fs::read(&wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
        println!(
            "{:<28} {:>9} bytes, {:>9} gzipped",
            wasm.file_name().unwrap_or_default().to_string_lossy(),
            bytes.len(),
            gzipped_len(&bytes)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds the bundle into `dist/` (replacing it) and returns its path.
/// Expects the wasm target and wasm-bindgen to be installed.
pub fn build() -> Result<PathBuf> {
    let root = root();
    exec(&mut command(
        "cargo",
        &["build", "--release", "--target", "wasm32-unknown-unknown", "-p", "warplab-web", "--bins"],
    ))?;
    let dist = root.join("dist");
    if dist.exists() {
        fs::remove_dir_all(&dist).map_err(|e| format!("removing {}: {e}", dist.display()))?;
    }
    let out_dir = dist.to_str().ok_or("the dist path is not UTF-8")?;
    for (binary, name) in BINARIES {
        let wasm = target_dir().join(format!("wasm32-unknown-unknown/release/{binary}.wasm"));
        let wasm = wasm.to_str().ok_or("the target path is not UTF-8")?;
        exec(&mut command(
            "wasm-bindgen",
            &["--target", "web", "--no-typescript", "--out-dir", out_dir, "--out-name", name, wasm],
        ))?;
    }
    copy_file(&root.join("index.html"), &dist.join("index.html"))?;
    copy_tree(&root.join("www"), &dist)?;
    copy_tree(&root.join("sample-traces"), &dist.join("sample-traces"))?;
    Ok(dist)
}

/// Copies the files under `from` into `to`, keeping the directory structure.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).map_err(|e| format!("creating {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("reading {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("reading {}: {e}", from.display()))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            copy_file(&entry.path(), &target)?;
        }
    }
    Ok(())
}

fn copy_file(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to).map(drop).map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

fn gzipped_len(bytes: &[u8]) -> usize {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).expect("writing to a Vec cannot fail");
    encoder.finish().expect("writing to a Vec cannot fail").len()
}
