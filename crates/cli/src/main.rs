//! `warplab`: the lab's models on the command line, for batch work and sweeps.
//!
//! Every command goes through `warplab-lab`, so it prints the same figures as
//! the web app. Bad input is one line on standard error naming the file, line
//! and field, and exit code 2.

mod trace_files;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use warplab_lab::WorkloadSummary;

/// warplab: a GPU architecture lab (simulation, analytical and scale-model IPC).
#[derive(Debug, Parser)]
#[command(name = "warplab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Describe a trace: a directory with kernelslist.g, that file, or one .traceg(.xz) file.
    Info {
        /// What to describe.
        path: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite any readable trace (any tracer version, plain or xz) as version-5 traces.
    Convert {
        /// A trace directory, its kernelslist.g, or one .traceg(.xz) file.
        trace: PathBuf,
        /// The output directory (created if missing).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Compress the kernel traces with xz.
        #[arg(long)]
        xz: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { path, json } => trace_files::summarize(&path).and_then(|s| print_info(&s, json)),
        Command::Convert { trace, output, xz } => trace_files::convert(&trace, &output, xz),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Bad input (a missing or malformed file) exits with 2, as clap does
        // for a bad command line.
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn print_info(summary: &WorkloadSummary, json: bool) -> Result<(), String> {
    if json {
        let text = serde_json::to_string_pretty(summary).map_err(|e| format!("writing JSON: {e}"))?;
        println!("{text}");
        return Ok(());
    }
    let totals = &summary.totals;
    println!("{}: {} kernel(s), {} MemcpyHtoD", summary.label, totals.kernels, summary.memcpys.len());
    println!(
        "{:<40} {:>14} {:>12} {:>8} {:>8} {:>12} {:>14} {:>10} {:>10}",
        "kernel", "grid", "block", "CTAs", "warps", "warp insts", "thread insts", "mem insts", "sectors"
    );
    for k in &summary.kernels {
        let dim = |d: warplab_lab::Dim3| format!("({},{},{})", d.x, d.y, d.z);
        println!(
            "{:<40} {:>14} {:>12} {:>8} {:>8} {:>12} {:>14} {:>10} {:>10}",
            k.name,
            dim(k.grid),
            dim(k.block),
            k.ctas,
            k.warps,
            k.warp_insts,
            k.thread_insts,
            k.mem_insts,
            k.sectors
        );
    }
    println!(
        "total: {} CTAs, {} warps, {} warp instructions, {} thread instructions",
        totals.ctas, totals.warps, totals.warp_insts, totals.thread_insts
    );
    for diagnostic in &summary.diagnostics {
        println!("note: {diagnostic}");
    }
    Ok(())
}
