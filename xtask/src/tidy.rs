//! Tidy tests: rules about the source tree that the compiler does not check,
//! run by `cargo test --workspace` (and so by `cargo xtask test`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::shell::{command, output, root};

/// The model crates, below the `lab` facade in the dependency graph (the
/// CUDA front end among them: `lab` will compile authored kernels with it).
const MODEL_CRATES: [&str; 8] = [
    "warplab-cuda",
    "warplab-trace",
    "warplab-config",
    "warplab-kernels",
    "warplab-uarch",
    "warplab-sim",
    "warplab-model",
    "warplab-scale",
];
/// What the core crates (the model crates and `lab`: everything but the web
/// front end and the native CLI) must not depend on for wasm32.
const BROWSER_CRATES: [&str; 3] = ["wasm-bindgen", "web-sys", "js-sys"];

/// The dependency direction of DESIGN §1: the warplab crates each crate may
/// depend on directly. `model` never reaches `sim`; only `lab` reaches every
/// model crate; the front ends reach everything through `lab`.
const ALLOWED_DEPENDENCIES: [(&str, &[&str]); 11] = [
    // An authored kernel's functional run produces a workload of the
    // generators' form.
    ("warplab-cuda", &["warplab-trace", "warplab-kernels"]),
    ("warplab-trace", &[]),
    ("warplab-config", &[]),
    ("warplab-kernels", &["warplab-trace", "warplab-config"]),
    ("warplab-uarch", &["warplab-trace", "warplab-config"]),
    ("warplab-sim", &["warplab-trace", "warplab-config", "warplab-uarch"]),
    ("warplab-model", &["warplab-trace", "warplab-config", "warplab-uarch"]),
    ("warplab-scale", &["warplab-trace", "warplab-config", "warplab-uarch", "warplab-sim", "warplab-model"]),
    ("warplab-lab", &MODEL_CRATES),
    ("warplab", &["warplab-lab"]),
    ("warplab-web", &["warplab-lab"]),
];

/// The packages `package` depends on for `target` (normal dependencies only),
/// `depth` levels deep, as `cargo tree` resolves them.
fn dependencies(package: &str, target: &str, depth: &str) -> BTreeSet<String> {
    let args = [
        "tree", "-p", package, "-e", "normal", "--target", target, "--depth", depth, "--prefix", "none", "--format",
        "{p}",
    ];
    let tree = output(&mut command("cargo", &args)).expect("cargo tree runs");
    tree.lines()
        .skip(1) // the package itself
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn core_crates_know_nothing_of_the_browser() {
    for package in MODEL_CRATES.into_iter().chain(["warplab-lab"]) {
        let deps = dependencies(package, "wasm32-unknown-unknown", "100");
        let browser: Vec<_> = BROWSER_CRATES.iter().filter(|name| deps.contains(**name)).collect();
        assert!(
            browser.is_empty(),
            "{package} depends on {browser:?} for wasm32; core crates must not (ARCHITECTURE.md)"
        );
    }
}

#[test]
fn the_pinned_wasm_bindgen_cli_is_the_workspaces_wasm_bindgen() {
    let version = |lock: PathBuf, package| crate::tools::lockfile_version(&lock, package).expect("a locked version");
    assert_eq!(
        version(root().join("xtask/tools/wasm-bindgen-cli/Cargo.lock"), "wasm-bindgen-cli"),
        version(root().join("Cargo.lock"), "wasm-bindgen"),
        "move xtask/tools/wasm-bindgen-cli with the workspace's wasm-bindgen (its Cargo.toml says how)"
    );
}

#[test]
fn crates_depend_only_in_the_designed_direction() {
    for (package, allowed) in ALLOWED_DEPENDENCIES {
        let deps = dependencies(package, "all", "1");
        let ours: BTreeSet<_> = deps.iter().filter(|d| d.starts_with("warplab")).map(String::as_str).collect();
        let unexpected: Vec<_> = ours.iter().filter(|d| !allowed.contains(d)).collect();
        assert!(unexpected.is_empty(), "{package} depends on {unexpected:?}, against the direction of DESIGN §1");
    }
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let missing: Vec<_> = rust_files()
        .into_iter()
        .filter(|path| !std::fs::read_to_string(path).unwrap_or_default().starts_with("//!"))
        .collect();
    assert!(missing.is_empty(), "these files do not open with a `//!` line saying what they are for: {missing:?}");
}

#[test]
fn no_tests_that_cannot_fail_or_are_skipped() {
    // Spelled in pieces so this file does not match itself.
    let banned = [concat!("#[should", "_panic"), concat!("#[ig", "nore")];
    for path in rust_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for pattern in banned {
            assert!(
                !text.contains(pattern),
                "{}: `{pattern}` is banned; check `Err` explicitly instead",
                path.display()
            );
        }
    }
}

/// Every `.rs` file of the workspace's crates and of xtask.
fn rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect_rust_files(&root().join("crates"), &mut files);
    collect_rust_files(&root().join("xtask"), &mut files);
    assert!(files.len() > 10, "found only {} Rust files; is the root right?", files.len());
    files
}

fn collect_rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && name != "target" && name != "test-dist" && name != "fuzz" {
            collect_rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
