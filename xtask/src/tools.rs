//! Installing what the build and the tests need, from the package registries
//! only: the wasm32 target, wasm-bindgen-cli at the lockfile's version (its
//! dependencies pinned by `xtask/tools/wasm-bindgen-cli`'s lockfile),
//! Debian's Chromium and ChromeDriver, the npm packages of `tests/`, and
//! rustup's `llvm-tools` for `cargo xtask pgo`.

use std::path::{Path, PathBuf};

use crate::shell::{Result, command, exec, output, root, tools_root};

/// Debian's browser and driver, where the wasm-bindgen runner and Playwright expect them.
pub const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Adds the `wasm32-unknown-unknown` target to the active toolchain if missing.
pub fn ensure_wasm_target() -> Result<()> {
    let installed = output(&mut command("rustup", &["target", "list", "--installed"]))?;
    if installed.lines().any(|line| line.trim() == "wasm32-unknown-unknown") {
        return Ok(());
    }
    exec(&mut command("rustup", &["target", "add", "wasm32-unknown-unknown"]))
}

/// The nightly toolchain the threaded worker is built with: WebAssembly
/// threads need the standard library rebuilt with atomics (`-Z build-std`),
/// which only a nightly does. Pinned, so a new nightly elsewhere cannot break
/// the build; `cargo xtask dist` installs it with its `rust-src`.
pub const THREADS_TOOLCHAIN: &str = "nightly-2026-05-20";

/// `llvm-profdata` of the active toolchain, with rustup's `llvm-tools`
/// component installed if it is missing (the one that matches the
/// compiler's LLVM, which a system `llvm-profdata` need not).
pub fn ensure_llvm_profdata() -> Result<PathBuf> {
    let sysroot = output(&mut command("rustc", &["--print", "sysroot"]))?;
    let version = output(&mut command("rustc", &["-vV"]))?;
    let host = version.lines().find_map(|line| line.strip_prefix("host: ")).ok_or("rustc -vV names no host")?;
    let tool = Path::new(sysroot.trim()).join("lib/rustlib").join(host.trim()).join("bin/llvm-profdata");
    if !tool.exists() {
        exec(&mut command("rustup", &["component", "add", "llvm-tools"]))?;
    }
    if tool.exists() { Ok(tool) } else { Err(format!("{} is missing after installing llvm-tools", tool.display())) }
}

/// Installs [`THREADS_TOOLCHAIN`] with `rust-src` through rustup if missing.
pub fn ensure_threads_toolchain() -> Result<()> {
    let src = output(&mut command("rustup", &["component", "list", "--installed", "--toolchain", THREADS_TOOLCHAIN]));
    if src.is_ok_and(|installed| installed.lines().any(|line| line.starts_with("rust-src"))) {
        return Ok(());
    }
    exec(&mut command(
        "rustup",
        &["toolchain", "install", THREADS_TOOLCHAIN, "--profile", "minimal", "--component", "rust-src"],
    ))
}

/// The manifest whose lockfile pins wasm-bindgen-cli and everything it
/// depends on (`xtask/tools/wasm-bindgen-cli`).
fn wasm_bindgen_pin() -> PathBuf {
    root().join("xtask/tools/wasm-bindgen-cli/Cargo.toml")
}

/// The binaries wasm-bindgen-cli builds, which `target/tools/bin` gets.
const WASM_BINDGEN_BINARIES: [&str; 3] = ["wasm-bindgen", "wasm-bindgen-test-runner", "wasm2es6js"];

/// Installs `wasm-bindgen-cli` into `target/tools` at exactly the version of the
/// `wasm-bindgen` crate in `Cargo.lock` (a different version fails with a
/// schema mismatch). It is built from `xtask/tools/wasm-bindgen-cli` with
/// `--locked`, so its whole dependency tree is the one committed there: the
/// CLI's own lockfile cannot be used (it pins a `webpki-roots` release the
/// registry lacks), and an unlocked install would resolve
/// afresh on every fresh machine.
pub fn ensure_wasm_bindgen() -> Result<()> {
    let version = lockfile_version(&root().join("Cargo.lock"), "wasm-bindgen")?;
    let bin = tools_root().join("bin");
    let binary = bin.join("wasm-bindgen");
    if binary.exists() {
        let installed = output(&mut command(binary.to_str().expect("UTF-8 path"), &["--version"]))?;
        if installed.split_whitespace().nth(1) == Some(version.as_str()) {
            return Ok(());
        }
    }
    let pin = wasm_bindgen_pin();
    let pinned = lockfile_version(&pin.with_file_name("Cargo.lock"), "wasm-bindgen-cli")?;
    if pinned != version {
        return Err(format!(
            "xtask/tools/wasm-bindgen-cli pins wasm-bindgen-cli {pinned} but Cargo.lock has wasm-bindgen {version}: \
             move the pin (its Cargo.toml says how)"
        ));
    }
    let build = tools_root().join("wasm-bindgen-cli");
    let manifest = pin.to_str().ok_or("the repository path is not UTF-8")?;
    let args = ["build", "--release", "--locked", "--manifest-path", manifest, "-p", "wasm-bindgen-cli", "--bins"];
    exec(command("cargo", &args).env("CARGO_TARGET_DIR", &build))?;
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    for name in WASM_BINDGEN_BINARIES {
        let built = build.join("release").join(name);
        std::fs::copy(&built, bin.join(name)).map_err(|e| format!("{}: {e}", built.display()))?;
    }
    Ok(())
}

/// The version of `package` in the lockfile at `lock` (its single entry of
/// that name).
pub fn lockfile_version(lock: &Path, package: &str) -> Result<String> {
    let text = std::fs::read_to_string(lock).map_err(|e| format!("{}: {e}", lock.display()))?;
    let needle = format!("name = \"{package}\"");
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == needle {
            let version = lines.next().and_then(|l| l.trim().strip_prefix("version = \""));
            return version
                .map(|v| v.trim_end_matches('"').to_owned())
                .ok_or(format!("{}: no version for {package}", lock.display()));
        }
    }
    Err(format!("{} has no package {package}", lock.display()))
}

/// Installs Debian's `chromium` and `chromium-driver` when either is missing
/// and we are root; otherwise a missing browser is an error, never a skip.
pub fn ensure_browser() -> Result<()> {
    ensure_debian_packages(&[CHROMIUM, CHROMEDRIVER], &["chromium", "chromium-driver"])
}

/// Installs Debian's `slurm-wlm` and `munge`, which the sweep test starts a
/// one-node cluster with (`crates/cli/tests/slurm_sweep.rs`), as
/// [`ensure_browser`] does the browser.
pub fn ensure_slurm() -> Result<()> {
    ensure_debian_packages(&["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged"], &["slurm-wlm", "munge"])
}

/// Installs `packages` with apt when one of `files` is missing and we are
/// root; a missing file is an error otherwise.
fn ensure_debian_packages(files: &[&str], packages: &[&str]) -> Result<()> {
    if files.iter().all(|file| Path::new(file).exists()) {
        return Ok(());
    }
    let uid = output(&mut command("id", &["-u"]))?;
    if uid.trim() != "0" {
        return Err(format!("{} is missing: install Debian's {}", files.join(" or "), packages.join(" and ")));
    }
    exec(&mut command("apt-get", &["update"]))?;
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend(packages);
    exec(command("apt-get", &install).env("DEBIAN_FRONTEND", "noninteractive"))
}

/// Installs the end-to-end tests' npm packages from their lockfile when
/// `node_modules` is missing or older than the lockfile.
pub fn ensure_npm_packages() -> Result<()> {
    ensure_npm_packages_in(&root().join("tests"))
}

/// Installs the npm packages of the folder `dir` from its lockfile when its
/// `node_modules` is missing or older than the lockfile (the tests', the
/// kernel editor's).
pub fn ensure_npm_packages_in(dir: &Path) -> Result<()> {
    let lock = dir.join("package-lock.json");
    let installed = dir.join("node_modules").join(".package-lock.json");
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if matches!((modified(&installed), modified(&lock)), (Some(installed), Some(lock)) if installed >= lock) {
        return Ok(());
    }
    exec(command("npm", &["ci", "--no-audit", "--no-fund"]).current_dir(dir))
}

/// Everything the browser build and the tests need (the browser tests and the Slurm sweep test).
pub fn ensure_all() -> Result<()> {
    ensure_wasm_target()?;
    ensure_wasm_bindgen()?;
    ensure_browser()?;
    ensure_slurm()?;
    ensure_npm_packages()
}
