//! `warplab`: the lab's models on the command line, for batch work and sweeps.
//!
//! Every command goes through `warplab-lab`, so it prints the same figures as
//! the web app. Today there is `summary`; `run`, `predict`, `sweep`,
//! `gen-trace` and `convert` arrive with the issues that build their models.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use warplab_lab::{WorkloadSummary, summarize_trace};

/// warplab: a GPU architecture lab (simulation, analytical and scale-model IPC).
#[derive(Debug, Parser)]
#[command(name = "warplab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read a trace and print its kernels with their warp and thread instruction counts.
    Summary {
        /// An Accel-Sim trace directory, or its kernelslist.g file.
        #[arg(long, value_name = "DIR|FILE")]
        trace: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Summary { trace } => read_trace_dir(&trace).map(|summary| print_summary(&summary)),
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

/// Reads a trace directory (or its `kernelslist.g`) through the lab.
fn read_trace_dir(path: &Path) -> Result<WorkloadSummary, String> {
    let (dir, list_path) = if path.is_file() {
        (path.parent().map(Path::to_path_buf).unwrap_or_default(), path.to_path_buf())
    } else {
        (path.to_path_buf(), path.join("kernelslist.g"))
    };
    let list = std::fs::read_to_string(&list_path).map_err(|e| format!("{}: {e}", list_path.display()))?;
    let label = dir.display().to_string();
    summarize_trace(&label, &list, |file| std::fs::read(dir.join(file)).map_err(|e| e.to_string()))
        .map_err(|e| format!("{}: {e}", dir.display()))
}

fn print_summary(summary: &WorkloadSummary) {
    println!("{}: {} kernel(s), {} MemcpyHtoD", summary.label, summary.kernels.len(), summary.memcpy_commands);
    println!(
        "{:<40} {:>14} {:>10} {:>8} {:>18} {:>20}",
        "kernel", "grid", "CTAs", "warps", "warp instructions", "thread instructions"
    );
    for kernel in &summary.kernels {
        let grid = format!("({},{},{})", kernel.grid.x, kernel.grid.y, kernel.grid.z);
        println!(
            "{:<40} {:>14} {:>10} {:>8} {:>18} {:>20}",
            kernel.name, grid, kernel.ctas, kernel.warps, kernel.warp_instructions, kernel.thread_instructions
        );
    }
    println!(
        "total warp instructions {}, thread instructions {}",
        summary.warp_instructions(),
        summary.thread_instructions()
    );
}
