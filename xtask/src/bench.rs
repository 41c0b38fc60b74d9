//! `cargo xtask bench`: the criterion benchmarks of every crate that has them.

use std::process::ExitCode;

use crate::shell::{Result, command, exec};

/// Runs `cargo bench --workspace`, passing `args` on to criterion.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut cargo_args = vec!["bench", "--workspace", "--benches"];
    if !args.is_empty() {
        cargo_args.push("--");
        cargo_args.extend(args.iter().map(String::as_str));
    }
    exec(&mut command("cargo", &cargo_args))?;
    println!("criterion's reports are in target/criterion/; record what you measured in docs/performance.md");
    Ok(ExitCode::SUCCESS)
}
