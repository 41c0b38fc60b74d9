//! `warplab run`: the timing model on a trace or a generated workload, with a
//! progress bar for long runs and the wall-clock rates only the CLI can measure.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use warplab_lab::per_pc::{PcStalls, SAMPLE_INTERVAL};
use warplab_lab::sampling::{self, SamplingComparison};
use warplab_lab::{Cycle, GpuConfig, SimOptions, SimReport, Simulation};

use crate::events::{EventArgs, EventFile};
use crate::experiment_args::{ExperimentArgs, Workload};

/// Core cycles simulated between two looks at the clock.
const SLICE_CYCLES: u64 = 20_000;

/// A run shows a progress bar once it has taken this long.
pub const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// What to run.
pub struct RunArgs {
    pub experiment: ExperimentArgs,
    pub options: SimOptions,
    pub json: bool,
    /// Write the event stream of a window to a file.
    pub events: Option<EventArgs>,
    /// With sampling on: also run in full and compare.
    pub against_full: bool,
}

/// Runs the simulation and renders the report.
pub fn run(args: &RunArgs) -> Result<String, String> {
    let (label, config) = args.experiment.config()?;
    let started = Instant::now();
    let workload = args.experiment.workload()?;
    let workload_label = workload.label();
    let mut source = workload.source(&config)?;
    let simulation = Simulation::new(&config, args.options, &mut *source);
    let (report, per_pc) = drive(simulation, started, args.events.as_ref(), [&label, &workload_label])?;
    let wall_s = started.elapsed().as_secs_f64();
    let comparison = if args.against_full {
        let full_started = Instant::now();
        let options = SimOptions { sampling: Default::default(), ..args.options };
        let mut source = workload.source(&config)?;
        let (full, _) =
            drive(Simulation::new(&config, options, &mut *source), full_started, None, [&label, &workload_label])?;
        Some(sampling::compare(&report, &full, Some((wall_s, full_started.elapsed().as_secs_f64()))))
    } else {
        None
    };
    if args.json {
        return json(&report, per_pc.as_deref(), wall_s, comparison.as_ref());
    }
    let mut out = text(&label, &workload_label, &report, wall_s);
    if let Some(sampled) = &report.sampling {
        out += &crate::sampling::text(sampled, comparison.as_ref());
    }
    if let Some(rows) = &per_pc {
        out += &per_pc_text(rows);
    }
    Ok(out)
}

/// PCs the text report lists (the JSON report has every one).
const PER_PC_ROWS: usize = 20;

/// The PCs where warps waited longest, with what they waited for.
fn per_pc_text(rows: &[PcStalls]) -> String {
    let mut order: Vec<&PcStalls> = rows.iter().collect();
    order.sort_by_key(|row| (std::cmp::Reverse(row.stalls.total()), row.kernel, row.pc));
    let mut out = format!(
        "\nwhere warps waited (sampled every {SAMPLE_INTERVAL} cycles; the {} of {} PCs with the most warp-cycles):\n",
        order.len().min(PER_PC_ROWS),
        rows.len()
    );
    out += "kernel       pc  opcode              issued    stalled   memory  depend. barrier   fetch  struct. not sel. draining  bank conf.\n";
    for row in order.into_iter().take(PER_PC_ROWS) {
        let s = row.stalls;
        out += &format!(
            "{:>6} {:>#8x}  {:<16} {:>9} {:>10} {:>8} {:>8} {:>7} {:>7} {:>8} {:>8} {:>8} {:>11}\n",
            row.kernel,
            row.pc,
            row.opcode,
            row.issued,
            s.total(),
            s.memory,
            s.dependence,
            s.barrier,
            s.fetch,
            s.structural,
            s.not_selected,
            s.draining,
            row.bank_conflict_cycles
        );
    }
    out
}

/// Threads a run uses unless `--threads` says: the CPUs Slurm gave the task
/// (`SLURM_CPUS_PER_TASK`), else every core this process may use.
pub fn default_threads() -> u32 {
    let slurm = std::env::var("SLURM_CPUS_PER_TASK").ok().and_then(|cpus| cpus.trim().parse::<u32>().ok());
    let cores = || std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX));
    slurm.filter(|&cpus| cpus > 0).unwrap_or_else(cores).min(1024)
}

/// The timing model on `workload` for `config`, to the end and in one call
/// (no slices, no events): what a sweep runs per point and what
/// `run --experiment` runs with the experiment's options.
pub fn simulate(config: &GpuConfig, workload: &Workload, options: SimOptions) -> Result<SimReport, String> {
    Ok(warplab_lab::simulate_workload(config, options, &mut *workload.source(config)?))
}

/// Advances the simulation in slices, showing progress once the run is long
/// and writing the event stream when asked; `labels` are the config's and
/// the workload's, for the event file's header.
fn drive(
    mut simulation: Simulation<'_>,
    started: Instant,
    events: Option<&EventArgs>,
    labels: [&str; 2],
) -> Result<(SimReport, Option<Vec<PcStalls>>), String> {
    let mut bar: Option<ProgressBar> = None;
    let mut file = match events {
        Some(args) => Some(EventFile::start(args, labels[0], labels[1], &mut simulation)?),
        None => None,
    };
    loop {
        let stop = file.as_ref().map_or(u64::MAX, EventFile::next_stop);
        let now = simulation.progress().cycle.0;
        let target = Cycle((now + SLICE_CYCLES).min(stop.max(now + 1)));
        let progress = simulation.run_until(target);
        if let Some(file) = &mut file {
            file.after_slice(&mut simulation)?;
        }
        if progress.finished {
            break;
        }
        if bar.is_none() && started.elapsed() > PROGRESS_AFTER {
            let new = ProgressBar::new_spinner();
            new.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}").unwrap_or(ProgressStyle::default_spinner()),
            );
            bar = Some(new);
        }
        if let Some(bar) = &bar {
            bar.set_message(format!("cycle {} · {} warp instructions", progress.cycle.0, progress.warp_insts));
            bar.tick();
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(file) = file {
        file.finish(simulation.progress().cycle.0)?;
    }
    Ok((simulation.report(), simulation.per_pc()))
}

/// The report as JSON, with the per-PC figures (`per_pc`) when counted, the
/// comparison with a full run and the wall-clock rates.
fn json(
    report: &SimReport,
    per_pc: Option<&[PcStalls]>,
    wall_s: f64,
    comparison: Option<&SamplingComparison>,
) -> Result<String, String> {
    let mut value = serde_json::to_value(report).map_err(|e| format!("writing JSON: {e}"))?;
    if let Some(object) = value.as_object_mut() {
        if let Some(rows) = per_pc {
            object.insert("per_pc".to_owned(), serde_json::to_value(rows).map_err(|e| format!("writing JSON: {e}"))?);
        }
        if let Some(comparison) = comparison {
            let comparison = serde_json::to_value(comparison).map_err(|e| format!("writing JSON: {e}"))?;
            object.insert("against_full".to_owned(), comparison);
        }
        object.insert("sim_wall_s".to_owned(), serde_json::json!(wall_s));
        object.insert("warp_insts_per_s".to_owned(), serde_json::json!(rate(report.warp_insts, wall_s)));
    }
    crate::to_json(&value)
}

fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 { count as f64 / seconds } else { 0.0 }
}

fn text(config: &str, workload: &str, r: &SimReport, wall_s: f64) -> String {
    let mut out = format!("{workload} on {config}\n");
    out += &format!("cycles {}  IPC {:.3}  warp IPC {:.3}\n", r.cycles, r.ipc, r.warp_ipc);
    out += &format!("instructions: {} warp, {} thread\n", r.warp_insts, r.thread_insts);
    out += &format!("f_mem {:.3}  L2 MPKI {:.2}\n", r.f_mem, r.l2_mpki);
    let i = &r.issue_breakdown;
    out += &format!(
        "issue slots: issued {}  memory {}  fetch {}  dependence {}  barrier {}  structural {}  no warp {}\n",
        i.issued, i.memory, i.fetch, i.dependence, i.barrier, i.structural, i.no_warp
    );
    let c = &r.l1i;
    if c.miss + c.hit_reserved + c.reservation_fail > 0 {
        out += &format!(
            "L1I fetches: hit {}  hit-reserved {}  miss {}  reservation fail {}\n",
            c.hit, c.hit_reserved, c.miss, c.reservation_fail
        );
    }
    for (name, cache) in [("L1D", &r.l1d), ("L2", &r.l2)] {
        for (kind, c) in [("reads", &cache.reads), ("writes", &cache.writes), ("atomics", &cache.atomics)] {
            if c.accesses() + c.reservation_fail == 0 {
                continue;
            }
            out += &format!(
                "{name} {kind}: hit {}  hit-reserved {}  miss {}  sector miss {}  reservation fail {}\n",
                c.hit, c.hit_reserved, c.miss, c.sector_miss, c.reservation_fail
            );
        }
    }
    out += &format!("shared memory: {} bank-conflict cycles\n", r.shmem_bank_conflict_cycles);
    let [mshr, noc, l2, dram_queue, dram_service] = r.latency_breakdown.means();
    out += &format!(
        "L1 miss latency (mean cycles over {} misses): MSHR wait {mshr:.1}  NoC {noc:.1}  L2 {l2:.1}  DRAM queue {dram_queue:.1}  DRAM service {dram_service:.1}\n",
        r.latency_breakdown.misses
    );
    let d = &r.dram;
    out += &format!(
        "DRAM: {} reads, {} writes, {:.1} GB/s ({:.1}% of peak), row-buffer hit rate {:.1}%\n",
        d.totals.reads,
        d.totals.writes,
        d.bandwidth_bytes_per_s / 1e9,
        100.0 * d.bandwidth_utilization,
        100.0 * d.row_buffer_hit_rate
    );
    if let Some(c) = &r.chiplets {
        out += &format!(
            "chiplets: {} of {} L2 requests ({:.1}%) went to another of the {} chiplets; links: {:.2} MB sent, \
             {:.1}% busy on average, {:.1}% the busiest, {:.1} GB/s each way\n",
            c.remote_l2_requests,
            c.l2_requests,
            100.0 * c.remote_share,
            c.chiplets,
            c.link_bytes as f64 / 1e6,
            100.0 * c.link_utilization,
            100.0 * c.busiest_link_utilization,
            c.link_bandwidth_bytes_per_s / 1e9
        );
    }
    for k in &r.kernels {
        out += &format!(
            "kernel {} {}: cycles {}..{}  IPC {:.3}  {} CTAs ({} per SM, limited by {})\n",
            k.id, k.name, k.start_cycle, k.end_cycle, k.ipc, k.ctas, k.ctas_per_sm, k.occupancy_limiter
        );
    }
    out += &crate::notes::render(&r.diagnostics);
    out += &format!("simulated in {wall_s:.2} s ({:.0} warp instructions/s)\n", rate(r.warp_insts, wall_s));
    out
}
