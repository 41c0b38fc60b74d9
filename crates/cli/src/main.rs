//! `warplab`: the lab's models on the command line, for batch work and sweeps.
//!
//! Every command goes through `warplab-lab`, so it prints the same figures as
//! the web app. Bad input is one line on standard error naming the file, line
//! and field, and exit code 2.

mod accelsim;
mod config_files;
mod events;
mod experiment;
mod experiment_args;
mod generated;
mod kernel;
mod notes;
mod predict;
mod run;
mod sampling;
mod scale;
mod svg_chart;
mod sweep;
mod trace_files;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use experiment_args::ExperimentArgs;
use warplab_lab::{WorkloadSummary, config_report};

/// mimalloc, not the system's allocator: where transparent huge pages are
/// given only to memory that asks for them (Linux's `madvise` setting, the
/// common default), mimalloc asks and glibc does not. A simulated GPU's
/// state is then mapped by 2 MB pages instead of 4 KB ones: a run takes a
/// few hundred page faults instead of thousands, and likely fewer TLB misses
/// as every cycle sweeps the SMs (docs/performance.md, issue 40). Reports are
/// the same with either allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// warplab: a GPU architecture lab (simulation, analytical and scale-model IPC).
#[derive(Debug, Parser)]
#[command(name = "warplab", version, about)]
struct Cli {
    /// Print every note of a report as it came, not each distinct one once with the kernels it applies to.
    #[arg(long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Describe a trace (a directory with kernelslist.g, that file, or one .traceg(.xz) file), a config, or a
    /// generated workload (--gen).
    Info {
        /// What to describe.
        #[arg(required_unless_present_any = ["generated", "kernel"], conflicts_with_all = ["generated", "kernel"])]
        path: Option<PathBuf>,
        /// A generated workload instead: KERNEL[:name=value,...], e.g. strided:gs=32,size=64.
        #[arg(long = "gen", value_name = "KERNEL[:k=v,...]", group = "made")]
        generated: Option<String>,
        /// An authored kernel instead: a CUDA C file, compiled and run functionally.
        #[arg(long = "kernel", value_name = "FILE.cu", group = "made")]
        kernel: Option<PathBuf>,
        /// The config the generator sizes its arrays for, or the kernel runs on (a preset name, a directory or files).
        #[arg(long = "for", value_name = "CONFIG", num_args = 1.., requires = "made")]
        for_config: Vec<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Compare the timing model with recorded Accel-Sim runs: every case of a reference set (a directory laid out
    /// like crates/lab/test_data/accelsim), its trace checked against what Accel-Sim ran, on its pinned config.
    Accelsim {
        /// The reference set's directory.
        dir: PathBuf,
        /// Only the cases whose name contains this.
        #[arg(long)]
        case: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Generate a teaching kernel or microbenchmark and write it as an Accel-Sim trace.
    GenTrace {
        /// The generator (see `warplab generators`), optionally with knobs: KERNEL[:name=value,...].
        #[arg(required_unless_present = "kernel_file", conflicts_with = "kernel_file")]
        kernel: Option<String>,
        /// An authored kernel instead: a CUDA C file, compiled and run functionally for --for.
        #[arg(long = "kernel", value_name = "FILE.cu", conflicts_with_all = ["size", "set"])]
        kernel_file: Option<PathBuf>,
        /// Scale the work; warp instructions grow about linearly with N.
        #[arg(long, value_name = "N")]
        size: Option<u64>,
        /// Set a knob (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// The config the generator sizes its arrays for (a preset name, a directory or files).
        #[arg(long = "for", value_name = "CONFIG", num_args = 1..)]
        for_config: Vec<PathBuf>,
        /// The output directory (created if missing).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Compress the kernel traces with xz.
        #[arg(long)]
        xz: bool,
    },
    /// List the generators, what their size means and their knobs.
    Generators,
    /// List the bundled sample traces; with --regenerate, rewrite the generated ones.
    Samples {
        /// The repository root whose sample-traces/ to rewrite.
        #[arg(long, value_name = "ROOT")]
        regenerate: Option<PathBuf>,
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
    /// Simulate a trace or a generated workload on a GPU with the cycle-level timing model; with --experiment
    /// or --link, compute the simulated, analytical and scale-model IPC of a saved experiment.
    Run {
        #[command(flatten)]
        experiment: ExperimentArgs,
        /// An experiment saved by the web app (JSON; `-` reads standard input): prints the simulated, analytical
        /// and scale-model IPC. --config and --trace then give the user's files it names, checked by content hash.
        #[arg(long = "experiment", value_name = "FILE", conflicts_with_all = ["generated", "set", "memcpy_warms_l2", "events"])]
        experiment_file: Option<PathBuf>,
        /// A share link (`#x=...`, or the whole URL) instead of --experiment.
        #[arg(long, value_name = "LINK", conflicts_with_all = ["experiment_file", "generated", "set", "memcpy_warms_l2", "events"])]
        link: Option<String>,
        /// With --experiment or --link: skip the scale-model prediction (the slow part).
        #[arg(long)]
        no_scale: bool,
        /// Stop after this many core cycles (0: run to the end).
        #[arg(long, default_value_t = 0, value_name = "CYCLES")]
        max_cycles: u64,
        /// Threads the SMs' cycles run on; the report is the same on any number. Default: SLURM_CPUS_PER_TASK
        /// in a Slurm task, else every core.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Count the warp instructions issued at each PC and sample where warps stall (by
        /// reason, every 64 cycles); the text report lists the PCs warps wait at most, the JSON report (`per_pc`) every PC.
        #[arg(long)]
        per_pc: bool,
        /// Write the event stream (CTA launches, issues, warp states, MSHRs, queues) to FILE as JSON Lines.
        #[arg(long, value_name = "FILE")]
        events: Option<PathBuf>,
        /// Core cycles whose events are written: A..B (B excluded), A.. or ..B.
        #[arg(long, default_value = "0..", value_name = "A..B", requires = "events")]
        window: String,
        /// SMs whose SM-side events are written: A..B, A.. or ..B (memory-side events are for all).
        #[arg(long, default_value = "0..", value_name = "A..B", requires = "events")]
        sms: String,
        /// Also write a snapshot of the whole GPU every N cycles of the window (0: none).
        #[arg(long, default_value_t = 0, value_name = "N", requires = "events")]
        snapshot_every: u64,
        /// The most events held between two writes; more are counted as dropped.
        #[arg(long, default_value_t = warplab_lab::EventWindow::DEFAULT_MAX_EVENTS, value_name = "N", requires = "events")]
        max_events: usize,
        #[command(flatten)]
        sampling: sampling::SamplingArgs,
    },
    /// Predict IPC with the analytical models (GPUMech, GPUMech+, MDM-Queue, MDM-MSHR, MDM) from one profile.
    Predict {
        /// The model: mdm, gpumech, gpumech+, mdm-queue, mdm-mshr, gpumech-md1 (warplab's M/D/1 variant), mdm-limits (warplab's MDM with throughput floors), warplab (warplab's core model, the headline) or all.
        #[arg(long, default_value = "all")]
        model: String,
        #[command(flatten)]
        experiment: ExperimentArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Evaluate the analytical models (and with --simulate the timing model) at every point of workloads × varied
    /// settings (knobs or any GPGPU-Sim option), here on all cores or on a Slurm cluster; write CSV and an SVG chart.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Sweep {
        #[command(subcommand)]
        command: Option<SweepCommand>,
        #[command(flatten)]
        args: Box<SweepArgs>,
    },
    /// Predict a big GPU's IPC from two proportionally scaled-down ones (scale-model simulation).
    Scale {
        #[command(subcommand)]
        command: ScaleCommand,
    },
    /// Authored CUDA C kernels: compile and run functionally.
    Kernel {
        #[command(subcommand)]
        command: kernel::KernelCommand,
    },
    /// Between an experiment file (the web app's "Download experiment") and its share link.
    Experiment {
        #[command(subcommand)]
        command: ExperimentCommand,
    },
    /// Read, scale and write GPU configurations.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
}

/// What `warplab sweep` plans and where it runs.
#[derive(Debug, clap::Args)]
struct SweepArgs {
    /// The base GPU: a preset name, a directory, or files in order.
    #[arg(long, num_args = 1.., value_name = "CONFIG")]
    config: Vec<PathBuf>,
    /// Set a config knob on the base (n_sms, l1_mshrs, noc_bw_scale, dram_bw_scale, core_clock_mhz); repeatable.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    set: Vec<String>,
    /// A generated workload, KERNEL[:name=value,...] (repeatable); sized once, for the base config.
    #[arg(long = "gen", value_name = "KERNEL[:k=v,...]")]
    generated: Vec<String>,
    /// A trace directory, its kernelslist.g, or one .traceg(.xz) file (repeatable).
    #[arg(long)]
    trace: Vec<PathBuf>,
    /// An authored kernel, a CUDA C file (repeatable); compiled and run for the base config.
    #[arg(long = "kernel", value_name = "FILE.cu")]
    kernel: Vec<PathBuf>,
    /// A varied setting and its values (repeatable; the first varies slowest): a knob, KNOB=v1,v2,..., or any
    /// GPGPU-Sim option, -option=v1,v2,... (with ; between values that hold commas).
    #[arg(long, value_name = "SETTING=V1,V2,...", allow_hyphen_values = true)]
    vary: Vec<String>,
    /// Allow --vary of an option warplab does not know or does not model (its rows would all be the same).
    #[arg(long)]
    allow_unmodelled: bool,
    /// The model: mdm, gpumech, gpumech+, mdm-queue, mdm-mshr, gpumech-md1 (warplab's M/D/1 variant), mdm-limits (warplab's MDM with throughput floors), warplab (warplab's core model, the headline) or all.
    #[arg(long, default_value = "all")]
    model: String,
    /// Also simulate every point with the timing model (simulated IPC, cycles and each model's error).
    #[arg(long)]
    simulate: bool,
    /// Sample the simulations: photon, kernel, warp, bb, or off (as `warplab run --sample`).
    #[arg(long = "sample", default_value = "off", value_name = "MODE", requires = "simulate")]
    sample: warplab_lab::sampling::SampleMode,
    /// Make a generated workload for each point's config instead of once for the base config.
    #[arg(long)]
    size_per_point: bool,
    /// Host-to-device copies fill the L2.
    #[arg(long)]
    memcpy_warms_l2: bool,
    /// Write the results here as CSV (required).
    // Checked in `run_sweep`: clap would also ask for it with `run-point`.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Also draw IPC against the first varied setting as an SVG line chart.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Points run at once on this machine, each on one thread. Default: SLURM_CPUS_PER_TASK in a Slurm task, else
    /// every core.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024), conflicts_with = "slurm")]
    jobs: Option<u32>,
    /// Submit the sweep to Slurm instead: DIR gets plan.json, a job array runs one point per task, and a collect
    /// job writes the CSV. Again on the same DIR, submits only the missing and failed points.
    #[arg(long, value_name = "DIR")]
    slurm: Option<PathBuf>,
    /// The Slurm partition.
    #[arg(long, requires = "slurm")]
    partition: Option<String>,
    /// Each task's time limit (HH:MM:SS).
    #[arg(long, requires = "slurm", value_name = "HH:MM:SS")]
    time: Option<String>,
    /// At most this many tasks of the array at once.
    #[arg(long, requires = "slurm", value_name = "K")]
    max_parallel: Option<u32>,
    /// Write the plan and the sbatch scripts into DIR and print them; submit nothing (DIR/plan.json also serves
    /// other schedulers, with `warplab sweep run-point` and `collect`).
    #[arg(long, requires = "slurm")]
    dry_run: bool,
}

#[derive(Debug, Subcommand)]
enum SweepCommand {
    /// Run one point of a planned sweep (what each Slurm array task runs); writes DIR/points/I.json.
    RunPoint {
        /// The sweep's directory (holding plan.json).
        dir: PathBuf,
        /// The point.
        #[arg(long)]
        index: usize,
    },
    /// Merge a planned sweep's points into CSV (and SVG); lists the missing and failed ones.
    Collect {
        /// The sweep's directory (holding plan.json).
        dir: PathBuf,
        /// Write the results here as CSV.
        #[arg(long, value_name = "FILE")]
        csv: PathBuf,
        /// Also draw IPC against the first varied setting as an SVG line chart.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum ScaleCommand {
    /// Predict from numbers: the two scale models' IPC and the LLC MPKI at every size.
    Predict {
        /// IPC of the two scale models (S and 2S SMs): S,L.
        #[arg(long, value_name = "S,L")]
        ipc: String,
        /// LLC misses per 1,000 thread instructions at every size, smallest first: a,b,c,...
        #[arg(long, value_name = "A,B,...")]
        mpki: String,
        /// SMs (or chiplets) of the smallest scale model; each further size doubles.
        #[arg(long, value_name = "S")]
        smallest: u32,
        /// f_mem of the larger scale model, a fraction in [0, 1); needed when there is a cliff.
        #[arg(long, value_name = "FRACTION")]
        fmem: Option<f64>,
        /// The scale-model rule: reference (the published tool's compounding rule) or paper (as printed).
        #[arg(long, default_value = "reference")]
        rule: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Simulate two scale models of a target GPU, take the LLC miss-rate curve, and predict the target with
    /// every method (--validate also simulates the targets).
    Run {
        #[command(flatten)]
        experiment: ExperimentArgs,
        /// SMs of the two scale models, S,2S; each divides the target's SMs and memory channels.
        #[arg(long, value_name = "S,2S", required_unless_present = "chiplets", conflicts_with = "chiplets")]
        scale_models: Option<String>,
        /// Chiplets of the two scale models of a chiplet GPU, C,2C: whole chiplets, each kept as it is,
        /// the inter-chiplet bandwidth divided with them; --targets then counts chiplets too.
        #[arg(long, value_name = "C,2C")]
        chiplets: Option<String>,
        /// SM counts (chiplet counts with --chiplets) to predict, each S·2^k (default: the target's own).
        #[arg(long, value_name = "T1,T2,...")]
        targets: Option<String>,
        /// Also simulate the targets, and report each method's error and the simulation-time speedup.
        #[arg(long)]
        validate: bool,
        /// Weak scaling: grow the generator's size with the system (size × SMs / target SMs).
        #[arg(long)]
        weak: bool,
        /// The scale-model rule: reference or paper.
        #[arg(long, default_value = "reference")]
        rule: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Predict every benchmark of a CSV (benchmark, num_sms or num_chiplets, ipc, mpki, optional fmem_pct)
    /// with every method, and the mean/max error per method and size.
    Table {
        /// The CSV; its smallest size is the smallest scale model.
        csv: PathBuf,
        /// The scale-model rule: reference or paper.
        #[arg(long, default_value = "reference")]
        rule: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ExperimentCommand {
    /// Print the share link (`#x=...`, to append to the page's URL) of an experiment file (`-`: standard input).
    Link {
        /// The experiment JSON.
        file: PathBuf,
    },
    /// Decode a share link (`#x=...`, the payload or the whole URL) and print the experiment as JSON.
    Show {
        /// The link.
        link: String,
    },
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Show a config: a preset name (QV100, A100, RTX3070, H100, ...), a directory, or files in order.
    Show {
        /// The config.
        #[arg(required = true, value_name = "CONFIG")]
        config: Vec<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Scale a config's shared resources (SMs and memory channels) down by a factor, or up with --up.
    Scale {
        /// The config.
        #[arg(required = true, value_name = "CONFIG")]
        config: Vec<PathBuf>,
        /// The factor; it must divide the SM and channel counts.
        #[arg(long)]
        factor: u32,
        /// Multiply instead of divide.
        #[arg(long)]
        up: bool,
        /// Write the scaled config into this directory.
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a config back out in gpgpusim.config format (for Accel-Sim).
    Write {
        /// The config.
        #[arg(required = true, value_name = "CONFIG")]
        config: Vec<PathBuf>,
        /// The output directory.
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    notes::set_verbose(cli.verbose);
    let result = match cli.command {
        Command::Info { path, kernel: Some(file), for_config, json, .. } if path.is_none() => {
            kernel::KernelFile::read(&file)
                .and_then(|file| file.summarize(&generated::target(&for_config)?))
                .and_then(|summary| render_info(&summary, json))
        }
        Command::Info { path, generated, for_config, json, .. } => info(path, generated, &for_config, json),
        Command::Kernel { command } => kernel::command(command),
        Command::GenTrace { kernel_file: Some(file), for_config, output, xz, .. } => {
            generated::target(&for_config).and_then(|config| kernel::write_trace(&file, &config, &output, xz))
        }
        Command::GenTrace { kernel, size, set, for_config, output, xz, .. } => {
            generated::spec(kernel.as_deref().unwrap_or_default(), size, &set)
                .and_then(|spec| generated::write_trace(&spec, &generated::target(&for_config)?, &output, xz))
        }
        Command::Accelsim { dir, case, json } => accelsim::check(&dir, case.as_deref(), json),
        Command::Generators => Ok(generated::list()),
        Command::Samples { regenerate: None } => Ok(generated::list_samples()),
        Command::Samples { regenerate: Some(root) } => generated::regenerate_samples(&root),
        Command::Convert { trace, output, xz } => trace_files::convert(&trace, &output, xz).map(|()| String::new()),
        Command::Config { command } => run_config(command),
        Command::Scale { command } => run_scale(command),
        Command::Predict { model, experiment, json } => predict::predict(&experiment, &model, json),
        Command::Sweep { command: Some(SweepCommand::RunPoint { dir, index }), .. } => sweep::run_point(&dir, index),
        Command::Sweep { command: Some(SweepCommand::Collect { dir, csv, svg }), .. } => {
            sweep::collect(&dir, &csv, svg.as_deref())
        }
        Command::Sweep { command: None, args } => run_sweep(*args),
        Command::Experiment { command: ExperimentCommand::Link { file } } => experiment::link(&file),
        Command::Experiment { command: ExperimentCommand::Show { link } } => experiment::show(&link),
        Command::Run { experiment: files, experiment_file, link, no_scale, json, threads, .. }
            if experiment_file.is_some() || link.is_some() =>
        {
            let threads = threads.unwrap_or_else(run::default_threads);
            experiment::run(&experiment::ExperimentRun { file: experiment_file, link, files, no_scale, json, threads })
        }
        Command::Run {
            experiment,
            max_cycles,
            threads,
            json,
            events,
            window,
            sms,
            snapshot_every,
            max_events,
            sampling,
            per_pc,
            ..
        } => (|| {
            let options = warplab_lab::SimOptions {
                memcpy_warms_l2: experiment.memcpy_warms_l2,
                max_cycles,
                sampling: sampling.options()?,
                threads: threads.unwrap_or_else(run::default_threads),
                per_pc,
                ..Default::default()
            };
            if sampling.against_full && sampling.mode == warplab_lab::sampling::SampleMode::Off {
                return Err("--against-full needs --sample photon|kernel|warp|bb".to_owned());
            }
            let events = match events {
                Some(file) => Some(events::EventArgs {
                    file,
                    cycles: events::parse_range(&window, u64::MAX).map_err(|e| format!("--window: {e}"))?,
                    sms: events::parse_range(&sms, u32::MAX).map_err(|e| format!("--sms: {e}"))?,
                    snapshot_every,
                    max_events,
                }),
                None => None,
            };
            run::run(&run::RunArgs { experiment, options, json, events, against_full: sampling.against_full })
        })(),
    };
    match result {
        Ok(output) => {
            // A reader that stops early (`| head`) is not an error.
            let _ = std::io::stdout().lock().write_all(output.as_bytes());
            ExitCode::SUCCESS
        }
        // Bad input (a missing or malformed file) exits with 2, as clap does
        // for a bad command line.
        Err(message) => {
            if kernel::is_located(&message) {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::from(2)
        }
    }
}

/// A report as pretty JSON with a final newline, what every `--json` of the
/// modelling commands prints.
pub fn to_json(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value).map(|text| text + "\n").map_err(|e| format!("writing JSON: {e}"))
}

fn info(path: Option<PathBuf>, spec: Option<String>, for_config: &[PathBuf], json: bool) -> Result<String, String> {
    let summary = match (path, spec) {
        (Some(path), _) if config_files::is_config(&path) => return show_config(&[path], json),
        (Some(path), _) => trace_files::summarize(&path)?,
        (None, Some(spec)) => {
            generated::summarize(&generated::spec(&spec, None, &[])?, &generated::target(for_config)?)?
        }
        (None, None) => return Err("give a trace, a config or --gen KERNEL".to_owned()),
    };
    render_info(&summary, json)
}

fn run_sweep(args: SweepArgs) -> Result<String, String> {
    let csv = args.csv.ok_or("give --csv FILE, where the results go")?;
    let slurm = args.slurm.map(|dir| sweep::SlurmArgs {
        dir,
        partition: args.partition,
        time: args.time,
        max_parallel: args.max_parallel,
        dry_run: args.dry_run,
    });
    sweep::sweep(&sweep::SweepArgs {
        experiment: ExperimentArgs {
            config: args.config,
            set: args.set,
            trace: None,
            generated: None,
            kernel: None,
            memcpy_warms_l2: args.memcpy_warms_l2,
        },
        generated: args.generated,
        traces: args.trace,
        kernels: args.kernel,
        vary: args.vary,
        allow_unmodelled: args.allow_unmodelled,
        model: args.model,
        simulate: args.simulate,
        sample: args.sample,
        size_per_point: args.size_per_point,
        csv,
        svg: args.svg,
        jobs: args.jobs.unwrap_or_else(run::default_threads) as usize,
        slurm,
    })
}

fn run_scale(command: ScaleCommand) -> Result<String, String> {
    match command {
        ScaleCommand::Predict { ipc, mpki, smallest, fmem, rule, json } => {
            scale::predict(&ipc, &mpki, smallest, fmem, &rule, json)
        }
        ScaleCommand::Table { csv, rule, json } => scale::table(&csv, &rule, json),
        ScaleCommand::Run { experiment, scale_models, chiplets, targets, validate, weak, rule, json } => {
            let sizes = match (scale_models, chiplets) {
                (_, Some(chiplets)) => scale::Sizes::Chiplets(chiplets),
                (models, None) => scale::Sizes::Sms(models.unwrap_or_default()),
            };
            scale::run(&scale::RunArgs { experiment, sizes, targets, validate, weak, rule, json })
        }
    }
}

fn run_config(command: ConfigCommand) -> Result<String, String> {
    match command {
        ConfigCommand::Show { config, json } => show_config(&config, json),
        ConfigCommand::Scale { config, factor, up, output, json } => {
            let (label, config) = config_files::load(&config)?;
            let scaled = if up { config.scale_up(factor) } else { config.scale_shared(factor) };
            let scaled = scaled.map_err(|e| e.to_string())?;
            if let Some(dir) = &output {
                config_files::write(&scaled.config, dir)?;
            }
            let notes = scaled.diagnostics.iter().map(|d| format!("{}: {}", d.option, d.message)).collect();
            let label = format!("{label} {} {factor}", if up { "scaled up by" } else { "scaled down by" });
            config_files::render(&config_report(&label, &scaled.config, notes), json)
        }
        ConfigCommand::Write { config, output } => {
            config_files::write(&config_files::load(&config)?.1, &output).map(|()| String::new())
        }
    }
}

fn show_config(specs: &[PathBuf], json: bool) -> Result<String, String> {
    let (label, config) = config_files::load(specs)?;
    config_files::render(&config_report(&label, &config, Vec::new()), json)
}

fn render_info(summary: &WorkloadSummary, json: bool) -> Result<String, String> {
    if json {
        return serde_json::to_string_pretty(summary).map_err(|e| format!("writing JSON: {e}"));
    }
    let totals = &summary.totals;
    let mut out = format!("{}: {} kernel(s), {} MemcpyHtoD\n", summary.label, totals.kernels, summary.memcpys.len());
    out += &format!(
        "{:<40} {:>14} {:>12} {:>8} {:>8} {:>12} {:>14} {:>10} {:>10}\n",
        "kernel", "grid", "block", "CTAs", "warps", "warp insts", "thread insts", "mem insts", "sectors"
    );
    for k in &summary.kernels {
        out += &format!(
            "{:<40} {:>14} {:>12} {:>8} {:>8} {:>12} {:>14} {:>10} {:>10}\n",
            k.name,
            k.grid.to_string(),
            k.block.to_string(),
            k.ctas,
            k.warps,
            k.warp_insts,
            k.thread_insts,
            k.mem_insts,
            k.sectors
        );
    }
    out += &format!(
        "total: {} CTAs, {} warps, {} warp instructions, {} thread instructions\n",
        totals.ctas, totals.warps, totals.warp_insts, totals.thread_insts
    );
    out += &notes::render(&summary.diagnostics);
    Ok(out)
}
