//! Running commands: the workspace root, a PATH that includes the tools xtask
//! installs, and a runner that echoes a command's output while scanning it.

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Errors of xtask are messages for the person at the terminal.
pub type Result<T> = std::result::Result<T, String>;

/// The workspace root (the parent of `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives one level below the root").to_path_buf()
}

/// Cargo's target directory: `CARGO_TARGET_DIR` when set, else `target/`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

/// Where xtask installs cargo tools (wasm-bindgen-cli): inside the target
/// directory, so a clean clone starts without them and `cargo clean` removes them.
pub fn tools_root() -> PathBuf {
    target_dir().join("tools")
}

/// `PATH` with the tools directory first.
pub fn path_with_tools() -> OsString {
    let mut paths = vec![tools_root().join("bin")];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(paths).expect("PATH entries contain no separator")
}

/// A command in the workspace root with the tools on `PATH`.
pub fn command(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args).current_dir(root()).env("PATH", path_with_tools());
    command
}

/// Runs `command` with inherited output; an error unless it exits with 0.
pub fn exec(command: &mut Command) -> Result<()> {
    eprintln!("$ {}", describe(command));
    let status = command.status().map_err(|e| format!("cannot start {}: {e}", describe(command)))?;
    if status.success() { Ok(()) } else { Err(format!("{} failed: {status}", describe(command))) }
}

/// Runs `command`, echoing its standard output line by line and handing each
/// line to `on_line`; standard error goes straight to the terminal. Returns
/// whether it exited with 0.
pub fn run_scanning(command: &mut Command, mut on_line: impl FnMut(&str)) -> Result<bool> {
    eprintln!("$ {}", describe(command));
    let mut child =
        command.stdout(Stdio::piped()).spawn().map_err(|e| format!("cannot start {}: {e}", describe(command)))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading output of {}: {e}", describe(command)))?;
        println!("{line}");
        on_line(&line);
    }
    let status = child.wait().map_err(|e| format!("waiting for {}: {e}", describe(command)))?;
    Ok(status.success())
}

/// Runs `command` and returns its standard output, or an error with its
/// standard error when it fails.
pub fn output(command: &mut Command) -> Result<String> {
    let output = command.output().map_err(|e| format!("cannot start {}: {e}", describe(command)))?;
    if !output.status.success() {
        return Err(format!("{} failed: {}", describe(command), String::from_utf8_lossy(&output.stderr)));
    }
    String::from_utf8(output.stdout).map_err(|_| format!("{} printed non-UTF-8 output", describe(command)))
}

/// Builds the release CLI (what the recorded validations run) and returns its path.
pub fn release_cli() -> Result<PathBuf> {
    exec(&mut command("cargo", &["build", "--release", "-p", "warplab"]))?;
    Ok(target_dir().join("release").join("warplab"))
}

/// Runs the CLI at `cli` with `args` and parses the JSON it prints; errors
/// name `what` was being run.
pub fn cli_json(cli: &Path, args: &[&str], what: &str) -> Result<serde_json::Value> {
    let program = cli.to_str().ok_or("the CLI's path is not UTF-8")?;
    let json = output(&mut command(program, args))?;
    serde_json::from_str(&json).map_err(|e| format!("{what}: reading the CLI's JSON: {e}"))
}

fn describe(command: &Command) -> String {
    let mut words = vec![command.get_program().to_string_lossy().into_owned()];
    words.extend(command.get_args().map(|arg| arg.to_string_lossy().into_owned()));
    words.join(" ")
}
