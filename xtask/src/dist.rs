//! The static bundle in `dist/`: the app and worker wasm (release) bound by
//! wasm-bindgen for ES modules, the kernel editor (CodeMirror 6 bundled by
//! esbuild from `crates/web/editor/`, its npm packages installed from their
//! lockfile), `index.html`, `www/` and the sample traces.
//! The service worker `sw.js` gets the bundle's build id (a hash of the built
//! files) in place of its placeholder, so each build has its own cache.
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

/// What `www/sw.js` says where the build id goes.
const BUILD_ID_PLACEHOLDER: &str = "__WARPLAB_BUILD_ID__";

/// What `www/sw.js` says where the list of wasm-bindgen's JS snippets goes.
const SNIPPETS_PLACEHOLDER: &str = "__WARPLAB_SNIPPETS__";

/// The web crate's binaries and the names of their bound JS modules.
const BINARIES: [(&str, &str); 2] = [("app", "warplab_app"), ("worker", "warplab_worker")];

/// The bound JS module of the threaded worker build (`worker.js` loads it
/// where the page is cross-origin isolated).
const THREADED_WORKER: &str = "warplab_worker_mt";

/// The threaded worker's code generation: atomics, and a memory that is
/// shared, imported (each pool thread instantiates the module on the same
/// memory) and exports what wasm-bindgen needs to give each thread its own
/// thread-local storage (rustc passes none of these link arguments itself
/// for `wasm32-unknown-unknown`). The shared memory's maximum is wasm32's
/// whole 4 GiB address space, as far as the single-thread build's memory
/// may grow (the largest preset, `chiplet-1024sm`, takes about 400 MB for
/// `vecadd`).
const THREADED_RUSTFLAGS: &str = "-C target-feature=+atomics,+bulk-memory,+mutable-globals \
     -C link-arg=--shared-memory -C link-arg=--import-memory -C link-arg=--max-memory=4294967296 \
     -C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size \
     -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base";
/// The kernel editor's npm folder, and the bundle it becomes in `dist/`
/// (index.html imports it the first time the editor shows).
const EDITOR_DIR: &str = "crates/web/editor";
const EDITOR_BUNDLE: &str = "editor.js";

/// `cargo xtask dist`: build and print the sizes of the wasm files.
pub fn run() -> Result<ExitCode> {
    tools::ensure_wasm_target()?;
    tools::ensure_wasm_bindgen()?;
    let dist = build()?;
    let names = BINARIES.iter().map(|(_, name)| *name).chain([THREADED_WORKER]);
    for name in names {
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
/// Expects the wasm target and wasm-bindgen to be installed; installs the
/// threaded worker's toolchain if missing.
pub fn build() -> Result<PathBuf> {
    tools::ensure_threads_toolchain()?;
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
        bind(wasm, out_dir, name)?;
    }
    let threaded = build_threaded_worker()?;
    bind(threaded.to_str().ok_or("the target path is not UTF-8")?, out_dir, THREADED_WORKER)?;
    copy_file(&root.join("index.html"), &dist.join("index.html"))?;
    copy_tree(&root.join("www"), &dist)?;
    copy_tree(&root.join("sample-traces"), &dist.join("sample-traces"))?;
    bundle_editor(&dist)?;
    stamp_service_worker(&dist)?;
    Ok(dist)
}

/// Binds `wasm` for ES modules as `dist/{name}.js` and `{name}_bg.wasm`.
fn bind(wasm: &str, out_dir: &str, name: &str) -> Result<()> {
    exec(&mut command(
        "wasm-bindgen",
        &["--target", "web", "--no-typescript", "--out-dir", out_dir, "--out-name", name, wasm],
    ))
}

/// Builds the worker with threads (feature `threads`) on the pinned nightly,
/// its standard library rebuilt with atomics, in a target directory of its
/// own so the two builds' flags never invalidate each other's artefacts;
/// returns the wasm file.
fn build_threaded_worker() -> Result<PathBuf> {
    let target = target_dir().join("wasm-threads");
    let args = [
        "run",
        tools::THREADS_TOOLCHAIN,
        "cargo",
        "build",
        "--release",
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        "warplab-web",
        "--bin",
        "worker",
        "--features",
        "threads",
        "-Z",
        "build-std=panic_abort,std",
    ];
    exec(command("rustup", &args).env("RUSTFLAGS", THREADED_RUSTFLAGS).env("CARGO_TARGET_DIR", &target))?;
    Ok(target.join("wasm32-unknown-unknown/release/worker.wasm"))
}

/// Bundles the kernel editor into `dist/editor.js`: one minified ES module
/// holding CodeMirror and its language and lint packages, at the versions
/// `crates/web/editor/package-lock.json` pins, so the page needs no network
/// once loaded (the service worker caches it with the shell).
fn bundle_editor(dist: &Path) -> Result<()> {
    let editor = root().join(EDITOR_DIR);
    tools::ensure_npm_packages_in(&editor)?;
    let outfile = dist.join(EDITOR_BUNDLE);
    let outfile = format!("--outfile={}", outfile.to_str().ok_or("the dist path is not UTF-8")?);
    let esbuild = editor.join("node_modules/.bin/esbuild");
    let esbuild = esbuild.to_str().ok_or("the editor's path is not UTF-8")?;
    let args = ["src/editor.js", "--bundle", "--format=esm", "--minify", "--target=es2020", "--log-level=warning"];
    exec(command(esbuild, &args).arg(&outfile).current_dir(&editor))
}

/// Writes the build id of the bundle in `dist` into its `sw.js`: a hash of
/// the wasm and JS files, the page and its stylesheet, which change with
/// every build that changes what the service worker caches.
fn stamp_service_worker(dist: &Path) -> Result<()> {
    let mut shell =
        vec!["index.html".to_owned(), "style.css".to_owned(), "worker.js".to_owned(), EDITOR_BUNDLE.to_owned()];
    for name in BINARIES.iter().map(|(_, name)| *name).chain([THREADED_WORKER]) {
        shell.extend([format!("{name}.js"), format!("{name}_bg.wasm")]);
    }
    let mut contents = Vec::new();
    for name in &shell {
        let path = dist.join(name);
        contents.push(fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let snippets = snippet_paths(dist)?;
    for path in &snippets {
        contents.push(fs::read(dist.join(path)).map_err(|e| format!("{path}: {e}"))?);
    }
    let sw = dist.join("sw.js");
    let text = fs::read_to_string(&sw).map_err(|e| format!("{}: {e}", sw.display()))?;
    for placeholder in [BUILD_ID_PLACEHOLDER, SNIPPETS_PLACEHOLDER] {
        if !text.contains(placeholder) {
            return Err(format!("{} has no {placeholder} to replace", sw.display()));
        }
    }
    let stamped = text
        .replace(BUILD_ID_PLACEHOLDER, &build_id(contents.iter().map(Vec::as_slice)))
        .replace(SNIPPETS_PLACEHOLDER, &snippets.join(","));
    fs::write(&sw, stamped).map_err(|e| format!("writing {}: {e}", sw.display()))
}

/// The files wasm-bindgen wrote under `dist/snippets`, as paths relative to
/// `dist` with `/` between the parts, sorted.
fn snippet_paths(dist: &Path) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    let mut folders = vec![PathBuf::from("snippets")];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(dist.join(&folder)) else { continue };
        for entry in entries {
            let entry = entry.map_err(|e| format!("reading {}: {e}", folder.display()))?;
            let path = folder.join(entry.file_name());
            if entry.path().is_dir() {
                folders.push(path);
            } else {
                let parts: Vec<String> = path.iter().map(|part| part.to_string_lossy().into_owned()).collect();
                paths.push(parts.join("/"));
            }
        }
    }
    paths.sort();
    Ok(paths)
}

/// A 64-bit FNV-1a hash of `files` in order (each preceded by its length, so
/// moving bytes between files changes it), as 16 hex digits.
fn build_id<'a>(files: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in files {
        for &byte in (file.len() as u64).to_le_bytes().iter().chain(file) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_id_changes_with_any_file() {
        let id = build_id([b"wasm".as_slice(), b"js".as_slice()]);
        assert_eq!(id.len(), 16);
        assert_eq!(id, build_id([b"wasm".as_slice(), b"js".as_slice()]), "the same files, the same id");
        assert_ne!(id, build_id([b"wasm".as_slice(), b"jS".as_slice()]));
        assert_ne!(id, build_id([b"wasmj".as_slice(), b"s".as_slice()]), "bytes moved between files");
    }

    #[test]
    fn the_service_worker_has_the_placeholders() {
        let sw = std::fs::read_to_string(root().join("www/sw.js")).expect("www/sw.js is readable");
        assert_eq!(sw.matches(BUILD_ID_PLACEHOLDER).count(), 1);
        assert_eq!(sw.matches(SNIPPETS_PLACEHOLDER).count(), 1);
    }

    #[test]
    fn the_snippets_are_listed_relative_to_dist() {
        let dist = std::env::temp_dir().join(format!("warplab-snippets-{}", std::process::id()));
        let helper = dist.join("snippets/rayon-0123/src");
        fs::create_dir_all(&helper).expect("a temporary folder");
        fs::write(helper.join("helper.js"), "export {}").expect("a file");
        fs::write(dist.join("snippets/top.js"), "").expect("a file");
        let listed = snippet_paths(&dist);
        fs::remove_dir_all(&dist).expect("removing the temporary folder");
        assert_eq!(listed.expect("listed"), ["snippets/rayon-0123/src/helper.js", "snippets/top.js"]);
        assert_eq!(snippet_paths(Path::new("/nonexistent")).expect("no snippets"), Vec::<String>::new());
    }

    /// The editor works offline: the service worker caches its bundle with
    /// the shell, and the page loads it by the same name.
    #[test]
    fn the_editor_bundle_is_cached_and_loaded_by_name() {
        let sw = std::fs::read_to_string(root().join("www/sw.js")).expect("www/sw.js is readable");
        assert!(sw.contains(&format!("\"{EDITOR_BUNDLE}\"")), "sw.js caches {EDITOR_BUNDLE}");
        let page = std::fs::read_to_string(root().join("index.html")).expect("index.html is readable");
        assert!(page.contains(&format!("import(\"./{EDITOR_BUNDLE}\")")), "index.html imports {EDITOR_BUNDLE}");
        let lock = std::fs::read_to_string(root().join(EDITOR_DIR).join("package-lock.json")).expect("a lockfile");
        assert!(lock.contains("\"node_modules/@codemirror/view\"") && lock.contains("\"node_modules/esbuild\""));
    }
}
