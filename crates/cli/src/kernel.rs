//! Authored kernels on the command line: `warplab kernel check FILE.cu`
//! (compile and run functionally, print the SASS listing and what ran) and
//! `--kernel FILE.cu`, a workload beside `--trace` and `--gen`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Value, json};
use warplab_lab::cuda::run::DeviceArray;
use warplab_lab::cuda::types::Scalar;
use warplab_lab::cuda::{self, Compiled, Run, listing, listing_rows};
use warplab_lab::occupancy::{CtaShape, occupancy};
use warplab_lab::{GpuConfig, WorkloadSource, WorkloadSummary, authored_workload, run_kernel, summarize_workload};

/// `warplab kernel ...`.
#[derive(Debug, Subcommand)]
pub enum KernelCommand {
    /// Compile a CUDA C file and run it functionally (no timing): print each kernel's SASS listing with its
    /// source lines, registers per thread, shared memory, occupancy and warp instructions.
    Check {
        /// The .cu file.
        file: PathBuf,
        /// The GPU (a preset name, a directory or files); default SM7_QV100.
        #[arg(long, num_args = 1.., value_name = "CONFIG")]
        config: Vec<PathBuf>,
        /// Print JSON: {"arrays": {NAME: [...]}, "kernels": [...], "warp_insts": N}.
        #[arg(long)]
        json: bool,
        /// Print the final contents of this host array (repeatable).
        #[arg(long = "dump", value_name = "NAME")]
        dump: Vec<String>,
        /// The most warp instructions one launch may execute.
        #[arg(long, value_name = "N", default_value_t = cuda::DEFAULT_MAX_WARP_INSTS)]
        max_warp_insts: u64,
    },
}

/// Runs a `kernel` subcommand.
pub fn command(command: KernelCommand) -> Result<String, String> {
    match command {
        KernelCommand::Check { file, config, json, dump, max_warp_insts } => {
            let config = crate::generated::target(&config)?;
            check(&file, &config, json, &dump, max_warp_insts)
        }
    }
}

/// Whether an error is already located (`FILE:LINE:COL: error: ...`), so
/// it prints as clang prints it, without another `error:` in front.
pub fn is_located(message: &str) -> bool {
    message.lines().next().is_some_and(|line| {
        let mut parts = line.splitn(4, ':');
        let (_, line_no, column) = (parts.next(), parts.next(), parts.next());
        let numeric = |part: Option<&str>| part.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        numeric(line_no) && numeric(column) && parts.next().is_some_and(|rest| rest.starts_with(" error: "))
    })
}

/// An authored kernel file, read once.
#[derive(Debug, Clone)]
pub struct KernelFile {
    /// The path as given, the name in errors.
    pub name: String,
    source: String,
}

impl KernelFile {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<KernelFile, String> {
        let source = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(KernelFile::new(path.display().to_string(), source))
    }

    /// A file named `name` holding `source`.
    pub fn new(name: String, source: String) -> KernelFile {
        KernelFile { name, source }
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.source
    }

    /// Compiles and runs the file for `config`.
    fn run(&self, config: &GpuConfig, record: bool, max_warp_insts: u64) -> Result<(Compiled, Run), String> {
        run_kernel(&self.name, &self.source, config, record, max_warp_insts, "set with --max-warp-insts")
            .map_err(|error| error.to_string())
    }

    /// The file's workload as the models read it.
    pub fn source(&self, config: &GpuConfig) -> Result<Box<dyn WorkloadSource>, String> {
        let workload = authored_workload(&self.name, &self.source, config)?;
        Ok(Box::new(workload.into_source()))
    }

    /// What `info` prints for the file.
    pub fn summarize(&self, config: &GpuConfig) -> Result<WorkloadSummary, String> {
        let workload = authored_workload(&self.name, &self.source, config)?;
        Ok(summarize_workload(&self.name, &workload))
    }
}

/// Writes the workload of an authored kernel file as an Accel-Sim trace
/// directory, as `gen-trace` writes a generator's.
pub fn write_trace(path: &Path, config: &GpuConfig, output: &Path, xz: bool) -> Result<String, String> {
    let file = KernelFile::read(path)?;
    let workload = authored_workload(&file.name, &file.source, config)?;
    std::fs::create_dir_all(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let mut create = |name: &str| -> Result<Box<dyn std::io::Write>, String> {
        let created = std::fs::File::create(output.join(name)).map_err(|e| e.to_string())?;
        Ok(Box::new(std::io::BufWriter::new(created)))
    };
    warplab_lab::write_workload(&workload, xz, &mut create).map_err(|e| format!("{}: {e}", output.display()))?;
    Ok(format!("{}: wrote {}\n", file.name, output.display()))
}

fn check(path: &Path, config: &GpuConfig, json: bool, dump: &[String], max_warp_insts: u64) -> Result<String, String> {
    let file = KernelFile::read(path)?;
    let (compiled, run) = file.run(config, false, max_warp_insts)?;
    let arrays = dump.iter().map(|name| dumped(&run, name)).collect::<Result<Vec<_>, _>>()?;
    if json {
        return json_report(&compiled, &file.source, &run, config, &arrays);
    }
    let mut out = String::new();
    for kernel in &compiled.kernels {
        let _ = writeln!(
            out,
            "{}: {} instructions, {} registers per thread, {} bytes of static shared memory",
            kernel.name,
            kernel.insts.len(),
            kernel.registers,
            kernel.shared_bytes
        );
        out.push_str(&listing(kernel, &file.source));
        out.push('\n');
    }
    for launch in &run.launches {
        let [gx, gy, gz] = launch.grid;
        let [bx, by, bz] = launch.block;
        let _ = writeln!(
            out,
            "launch {}<<<({gx},{gy},{gz}), ({bx},{by},{bz}), {}>>>: {} warp instructions, {}",
            launch.kernel,
            launch.shared_bytes,
            launch.warp_insts,
            occupancy_text(config, launch)
        );
    }
    let _ = writeln!(out, "total: {} warp instructions", run.warp_insts);
    for array in arrays {
        let values: Vec<String> = values(array).iter().map(Value::to_string).collect();
        let _ = writeln!(out, "{} = [{}]", array.name, values.join(", "));
    }
    Ok(out)
}

fn dumped<'a>(run: &'a Run, name: &str) -> Result<&'a DeviceArray, String> {
    run.arrays.iter().find(|array| array.name == name).ok_or_else(|| {
        let names: Vec<&str> = run.arrays.iter().map(|array| array.name.as_str()).collect();
        format!("--dump {name}: no host array of that name (the arrays are: {})", names.join(", "))
    })
}

fn occupancy_text(config: &GpuConfig, launch: &cuda::LaunchSummary) -> String {
    let shape = CtaShape {
        threads: launch.block.iter().product(),
        regs_per_thread: launch.registers,
        shmem_bytes: launch.shared_bytes,
    };
    match occupancy(config, shape) {
        Ok(fit) => {
            format!("{} CTAs ({} warps) per SM, limited by {:?}", fit.ctas_per_sm, fit.warps_per_sm, fit.limiter)
        }
        Err(error) => format!("does not fit an SM: {error}"),
    }
}

fn values(array: &DeviceArray) -> Vec<Value> {
    array
        .words
        .iter()
        .map(|&word| match array.elem {
            // The float's shortest decimal, not its widening to f64's digits.
            Scalar::Float => format!("{}", f32::from_bits(word)).parse::<f64>().map_or(Value::Null, |v| json!(v)),
            Scalar::Unsigned => json!(word),
            _ => json!(word as i32),
        })
        .collect()
}

fn json_report(
    compiled: &Compiled,
    source: &str,
    run: &Run,
    config: &GpuConfig,
    arrays: &[&DeviceArray],
) -> Result<String, String> {
    let kernels: Vec<Value> = compiled
        .kernels
        .iter()
        .map(|kernel| {
            let launches: Vec<Value> = run
                .launches
                .iter()
                .filter(|launch| launch.kernel == kernel.name)
                .map(|launch| {
                    json!({
                        "grid": launch.grid,
                        "block": launch.block,
                        "shared_bytes": launch.shared_bytes,
                        "warp_insts": launch.warp_insts,
                        "occupancy": occupancy_text(config, launch),
                    })
                })
                .collect();
            let listing: Vec<Value> = listing_rows(kernel, source)
                .into_iter()
                .map(|row| json!({ "pc": row.pc, "sass": row.sass, "line": row.line }))
                .collect();
            json!({
                "name": kernel.name,
                "registers": kernel.registers,
                "shared_bytes": kernel.shared_bytes,
                "listing": listing,
                "launches": launches,
            })
        })
        .collect();
    let arrays: serde_json::Map<String, Value> =
        arrays.iter().map(|array| (array.name.clone(), Value::Array(values(array)))).collect();
    crate::to_json(&json!({ "arrays": arrays, "kernels": kernels, "warp_insts": run.warp_insts }))
}
