//! `cargo xtask test`: every check the project has, in one run, ending with a
//! single `N passed, N failed` line.
//!
//! Tests counted one by one: native `cargo test` (unit, integration, doc and
//! xtask's tidy tests), the wasm-bindgen tests in headless Chromium, and the
//! Playwright end-to-end tests. Checks counted as one each: installing the
//! tools, rustfmt, clippy (native and wasm32) and building `dist/`. A suite that
//! runs no test at all counts as a failure, so a missing browser, driver or
//! runner can never pass as a skip.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::shell::{Result, command, exec, root, run_scanning};
use crate::{dist, tools};

/// Passed and failed counts, with the names of what failed.
#[derive(Debug, Default)]
struct Tally {
    passed: u64,
    failed: u64,
    failures: Vec<String>,
}

impl Tally {
    /// Counts a check that passes or fails as a whole.
    fn check(&mut self, name: &str, result: Result<()>) {
        match result {
            Ok(()) => self.passed += 1,
            Err(error) => {
                eprintln!("xtask: {name}: {error}");
                self.failed += 1;
                self.failures.push(name.to_owned());
            }
        }
    }

    /// Runs a test suite, counting the tests its output reports.
    fn suite(&mut self, name: &str, command: &mut Command) {
        let mut counts = Counts::default();
        match run_scanning(command, |line| counts.scan(line)) {
            Ok(exit_ok) => {
                self.passed += counts.passed;
                self.failed += counts.failed;
                if counts.failed > 0 {
                    self.failures.push(format!("{name} ({} failed)", counts.failed));
                }
                // A suite that crashed, or ran nothing, fails on top of what it counted.
                if !exit_ok && counts.failed == 0 {
                    self.check(name, Err("exited with failure".to_owned()));
                } else if counts.passed + counts.failed == 0 {
                    self.check(name, Err("ran no tests".to_owned()));
                }
            }
            Err(error) => self.check(name, Err(error)),
        }
    }
}

/// Test counts read from the summary lines of libtest (`test result: ok. 3
/// passed; 0 failed; ...`, which wasm-bindgen-test-runner prints too) and of
/// TAP (`# pass 3`, `# fail 0`, node's test runner).
#[derive(Debug, Default, PartialEq)]
struct Counts {
    passed: u64,
    failed: u64,
}

impl Counts {
    fn scan(&mut self, line: &str) {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("test result: ") {
            self.passed += number_before(rest, " passed");
            self.failed += number_before(rest, " failed");
        } else if let Some(n) = line.strip_prefix("# pass ") {
            self.passed += n.trim().parse::<u64>().unwrap_or(0);
        } else if let Some(n) = line.strip_prefix("# fail ") {
            self.failed += n.trim().parse::<u64>().unwrap_or(0);
        }
    }
}

/// The number just before `label` in `text` (`"ok. 3 passed; 0 failed"`).
fn number_before(text: &str, label: &str) -> u64 {
    let Some(end) = text.find(label) else { return 0 };
    let start = text[..end].rfind(|c: char| !c.is_ascii_digit()).map_or(0, |i| i + 1);
    text[start..end].parse().unwrap_or(0)
}

/// Runs everything and prints the summary line.
pub fn run() -> Result<ExitCode> {
    let mut tally = Tally::default();
    tally.check("install tools", tools::ensure_all());
    if tally.failed > 0 {
        return Ok(finish(&tally));
    }
    tally.check("cargo fmt --check", exec(&mut command("cargo", &["fmt", "--all", "--check"])));
    tally.check(
        "clippy (native)",
        exec(&mut command("cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])),
    );
    let wasm_crates = crates_with_wasm_tests()?;
    tally.check("clippy (wasm32)", exec(&mut wasm_cargo("clippy", &wasm_crates, &["--", "-D", "warnings"])));
    tally.suite("native tests", &mut command("cargo", &["test", "--workspace"]));
    tally.check("profile-guided CLI gives the release CLI's reports", crate::pgo::check_same_reports());
    match dist::build() {
        Ok(dist) => {
            tally.check("build dist/", Ok(()));
            let test_dist = root().join("crates/web/test-dist");
            tally.check("copy dist/ for the web crate's browser tests", refresh(&dist, &test_dist));
            let mut wasm_tests = wasm_cargo("test", &wasm_crates, &[]);
            tally.suite("wasm-bindgen tests (headless Chromium)", wasm_tests.env("WASM_BINDGEN_TEST_ONLY_WEB", "1"));
            // The lab tests compare the page's figures with the CLI's for the
            // page's link; `cargo test --workspace` above built it.
            let cli = crate::shell::target_dir().join("debug/warplab");
            let mut e2e = command("npm", &["test"]);
            e2e.current_dir(root().join("tests")).env("WARPLAB_DIST", &dist).env("WARPLAB_CLI", cli);
            tally.suite("end-to-end tests (Playwright)", &mut e2e);
        }
        Err(error) => tally.check("build dist/", Err(error)),
    }
    Ok(finish(&tally))
}

/// `cargo <subcommand> --target wasm32-unknown-unknown -p <crate>... <extra>`.
fn wasm_cargo(subcommand: &str, crates: &[String], extra: &[&str]) -> Command {
    // Benchmarks are native only, and doctests do not run on wasm32: the wasm
    // side is the libraries, binaries and tests.
    let mut args = vec![subcommand, "--target", "wasm32-unknown-unknown", "--lib", "--bins", "--tests"];
    for name in crates {
        args.extend(["-p", name.as_str()]);
    }
    args.extend(extra);
    command("cargo", &args)
}

/// The packages with wasm-bindgen browser tests: those whose sources or tests
/// configure `run_in_browser`.
fn crates_with_wasm_tests() -> Result<Vec<String>> {
    let mut names = Vec::new();
    let crates = std::fs::read_dir(root().join("crates")).map_err(|e| format!("reading crates/: {e}"))?;
    for entry in crates.flatten() {
        let dir = entry.path();
        if mentions(&dir.join("tests"), "run_in_browser") || mentions(&dir.join("src"), "run_in_browser") {
            let manifest =
                std::fs::read_to_string(dir.join("Cargo.toml")).map_err(|e| format!("{}: {e}", dir.display()))?;
            let name = manifest.lines().find_map(|l| l.strip_prefix("name = \"")).map(|n| n.trim_end_matches('"'));
            names.push(name.ok_or(format!("{}: no package name", dir.display()))?.to_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// Whether any `.rs` file under `dir` contains `needle`.
fn mentions(dir: &Path, needle: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().any(|entry| {
        let path = entry.path();
        if path.is_dir() {
            mentions(&path, needle)
        } else {
            path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).is_ok_and(|text| text.contains(needle))
        }
    })
}

/// Replaces `to` with a copy of `from`.
fn refresh(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| format!("removing {}: {e}", to.display()))?;
    }
    dist::copy_tree(from, to)
}

fn finish(tally: &Tally) -> ExitCode {
    if !tally.failures.is_empty() {
        eprintln!("failed: {}", tally.failures.join("; "));
    }
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(lines: &[&str], expect: Counts) {
        let mut counts = Counts::default();
        lines.iter().for_each(|line| counts.scan(line));
        assert_eq!(counts, expect);
    }

    #[test]
    fn reads_libtest_and_tap_summaries() {
        check(
            &[
                "test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
                "test result: FAILED. 10 passed; 2 failed; 0 ignored",
                "# pass 3",
                "# fail 1",
                "test foo ... ok",
            ],
            Counts { passed: 19, failed: 3 },
        );
    }
}
