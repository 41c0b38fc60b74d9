//! What the CLI's integration tests share: running the built `warplab` binary
//! from the repository root.

use std::process::Command;

/// The repository root, where the tests' relative paths start.
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Runs `warplab args` and returns (exit code, stdout, stderr).
pub fn warplab(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_warplab")).args(args).current_dir(ROOT).output().expect("runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8 output");
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

/// Runs `warplab args`, which must succeed, and parses its JSON output.
pub fn json(args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = warplab(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("JSON output")
}
