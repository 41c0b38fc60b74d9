//! `cargo xtask sampling`: Photon's sampled simulation against the full
//! simulation, a recorded run (not part of `cargo xtask test`).
//!
//! Each case runs `warplab run --sample photon --against-full --json` (release
//! CLI), one at a time so that the wall times are not shared between two
//! runs; the large single-kernel cases run once more, sampled only, with a
//! four times larger warp window, as a sensitivity study compared against the
//! same full run. The tables (levels, detailed work, IPC errors, speedups)
//! go into `docs/validation.md` between the markers below. Like the other
//! recorded validations it reads the CLI's JSON only, so xtask depends on no
//! warplab crate.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::numbers::grouped;
use crate::parallel::run_jobs;
use crate::recorded::made_now;
use crate::shell::{Result, cli_json, release_cli, root};
use crate::validate_models::{Markers, write};

/// Where a case's workload comes from.
#[derive(Clone, Copy)]
enum Source {
    Gen(&'static str),
    Trace(&'static str),
}

/// One workload on one config, and whether it is a large regular kernel (the
/// goal's domain, and the sensitivity study's).
#[derive(Clone, Copy)]
struct Case {
    source: Source,
    config: &'static str,
    large: bool,
}

const fn large(spec: &'static str) -> Case {
    Case { source: Source::Gen(spec), config: "QV100", large: true }
}

const fn multi(source: Source, config: &'static str) -> Case {
    Case { source, config, large: false }
}

/// Large regular kernels of at least 10 M warp instructions each
/// (`warplab info --gen SPEC --for QV100`), then multi-kernel workloads.
const CASES: [Case; 9] = [
    large("vecadd:size=22528"),
    large("gemm-tiled:size=64,n=1024,k=48"),
    large("reduction:size=4096"),
    large("stencil2d:size=1216"),
    large("maxflops:size=128,iters=12"),
    multi(Source::Gen("bfs:size=256"), "QV100"),
    multi(Source::Gen("vecadd:size=2048,launches=8"), "QV100"),
    multi(Source::Gen("gemm-tiled:size=32,n=1024,k=16,launches=4"), "QV100"),
    multi(Source::Trace("crates/trace/test_data/rodinia-bptree-128-1000-sm90-h100pcie-v5-xz"), "H100"),
];

/// The sensitivity study's warp window (the default is 1,024).
const WIDE_WINDOW: u32 = 4096;

/// The goal on large regular kernels: at least this speedup in wall time...
const GOAL_SPEEDUP: f64 = 10.0;
/// ...at an IPC error of at most this many percent.
const GOAL_ERROR_PCT: f64 = 5.0;

const MARKERS: Markers = Markers {
    begin: "<!-- sampling-validation:begin -->",
    end: "<!-- sampling-validation:end -->",
    heading: "Sampled simulation (Photon)",
};

/// What a sampled run did and measured.
#[derive(Debug, Clone, PartialEq)]
struct Sampled {
    levels: Vec<String>,
    /// Per kernel: the simulated kernel it is nearest to, and the distance.
    nearest: Vec<Option<(u64, f64)>>,
    switched_at: Vec<Option<u64>>,
    warps: u64,
    detailed_warps: u64,
    warp_insts: u64,
    detailed_insts: u64,
    kernel_ipc: Vec<f64>,
    ipc: f64,
    wall_s: f64,
}

/// What the full run measured (from the report's `against_full`).
#[derive(Debug, Clone, PartialEq)]
struct Full {
    kernel_ipc: Vec<f64>,
    ipc: f64,
    wall_s: f64,
}

/// One case's result: the sampled run against the full run.
struct Outcome {
    sampled: Sampled,
    full: Full,
}

impl Outcome {
    fn kernel_errors(&self) -> Vec<f64> {
        self.sampled.kernel_ipc.iter().zip(&self.full.kernel_ipc).map(|(s, f)| error(*s, *f)).collect()
    }

    fn error(&self) -> f64 {
        error(self.sampled.ipc, self.full.ipc)
    }

    fn wall_speedup(&self) -> f64 {
        self.full.wall_s / self.sampled.wall_s
    }

    fn instruction_speedup(&self) -> f64 {
        self.sampled.warp_insts as f64 / self.sampled.detailed_insts as f64
    }

    fn meets_goal(&self) -> bool {
        self.wall_speedup() >= GOAL_SPEEDUP && 100.0 * self.error().abs() <= GOAL_ERROR_PCT
    }
}

/// (value − truth) / truth.
fn error(value: f64, truth: f64) -> f64 {
    (value - truth) / truth
}

/// Builds the CLI, runs every case and the sensitivity study, writes the docs.
pub fn run() -> Result<ExitCode> {
    let cli = release_cli()?;
    // One at a time: the wall-time speedup is a measurement, two runs beside
    // each other on two cores would share the machine with the full runs.
    let main = run_jobs(&CASES, 1, |c| describe(c, ""), summary, |c| against_full(&cli, c));
    let main = main.into_iter().collect::<Result<Vec<Outcome>>>()?;
    let wide: Vec<(&Case, &Outcome)> = CASES.iter().zip(&main).filter(|(c, _)| c.large).collect();
    let extra = format!(" --warp-window {WIDE_WINDOW}");
    let wide = run_jobs(&wide, 1, |(c, _)| describe(c, &extra), summary, |(c, o)| widened(&cli, c, &o.full));
    let wide = wide.into_iter().collect::<Result<Vec<Outcome>>>()?;
    let path = root().join("docs").join("validation.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &MARKERS.replace(&text, &section(&main, &wide)?))?;
    println!("sampling: wrote docs/validation.md");
    Ok(ExitCode::SUCCESS)
}

fn describe(case: &Case, extra: &str) -> String {
    format!("{} on {}{extra}", label(case), case.config)
}

fn summary(outcome: &Outcome) -> String {
    format!(
        "IPC error {:+.1}%, {:.1}x wall, {:.1}x detailed instructions",
        100.0 * outcome.error(),
        outcome.wall_speedup(),
        outcome.instruction_speedup()
    )
}

fn label(case: &Case) -> &'static str {
    match case.source {
        Source::Gen(spec) => spec,
        Source::Trace(dir) => dir.rsplit('/').next().unwrap_or(dir),
    }
}

/// `warplab run --sample photon --json` on `case` with `extra` options.
fn sampled_run(cli: &Path, case: &Case, extra: &[&str]) -> Result<Value> {
    let (flag, what) = match case.source {
        Source::Gen(spec) => ("--gen", spec),
        Source::Trace(dir) => ("--trace", dir),
    };
    let mut args = vec!["run", "--config", case.config, flag, what, "--sample", "photon", "--json"];
    args.extend_from_slice(extra);
    cli_json(cli, &args, label(case))
}

fn against_full(cli: &Path, case: &Case) -> Result<Outcome> {
    let report = sampled_run(cli, case, &["--against-full"])?;
    Ok(Outcome { sampled: sampled(&report)?, full: full(&report)? })
}

/// The sensitivity run: sampled only, against the full run already made.
fn widened(cli: &Path, case: &Case, full: &Full) -> Result<Outcome> {
    let window = WIDE_WINDOW.to_string();
    let report = sampled_run(cli, case, &["--warp-window", &window])?;
    Ok(Outcome { sampled: sampled(&report)?, full: full.clone() })
}

fn number(v: &Value) -> Result<f64> {
    v.as_f64().ok_or_else(|| format!("expected a number, found {v}"))
}

fn count(v: &Value) -> Result<u64> {
    v.as_u64().ok_or_else(|| format!("expected a count, found {v}"))
}

fn list<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| format!("the report has no `{what}` list"))
}

/// The sampled run's figures from `warplab run --sample ... --json`.
fn sampled(report: &Value) -> Result<Sampled> {
    let kernels = list(&report["sampling"]["kernels"], "sampling.kernels")?;
    let sum = |key: &str| kernels.iter().map(|k| count(&k[key])).sum::<Result<u64>>();
    Ok(Sampled {
        levels: kernels.iter().map(|k| k["level"].as_str().unwrap_or("?").to_owned()).collect(),
        nearest: kernels.iter().map(|k| Some((k["nearest"][0].as_u64()?, k["nearest"][1].as_f64()?))).collect(),
        switched_at: kernels.iter().map(|k| k["switched_at"].as_u64()).collect(),
        warps: sum("warps")?,
        detailed_warps: sum("detailed_warps")?,
        warp_insts: count(&report["warp_insts"])?,
        detailed_insts: count(&report["sampling"]["detailed_warp_insts"])?,
        kernel_ipc: list(&report["kernels"], "kernels")?.iter().map(|k| number(&k["ipc"])).collect::<Result<_>>()?,
        ipc: number(&report["ipc"])?,
        wall_s: number(&report["sim_wall_s"])?,
    })
}

/// The full run's figures from the report's `against_full`; its wall time is
/// the sampled run's times the wall speedup the CLI measured.
fn full(report: &Value) -> Result<Full> {
    let c = &report["against_full"];
    let kernels = list(&c["kernels"], "against_full.kernels")?;
    Ok(Full {
        kernel_ipc: kernels.iter().map(|k| number(&k["full_ipc"])).collect::<Result<_>>()?,
        ipc: number(&c["full_ipc"])?,
        wall_s: number(&report["sim_wall_s"])? * number(&c["wall_speedup"])?,
    })
}

/// `levels` with runs of one level folded: `warp`, `detailed, kernel ×7`.
fn folded(levels: &[String]) -> String {
    let mut runs: Vec<(&str, usize)> = Vec::new();
    for level in levels {
        match runs.last_mut() {
            Some((last, n)) if last == level => *n += 1,
            _ => runs.push((level, 1)),
        }
    }
    let cell = |(level, n): &(&str, usize)| if *n == 1 { (*level).to_owned() } else { format!("{level} ×{n}") };
    runs.iter().map(cell).collect::<Vec<_>>().join(", ")
}

/// `part / whole (share%)`.
fn share(part: u64, whole: u64) -> String {
    format!("{} / {} ({:.1}%)", grouped(part), grouped(whole), 100.0 * part as f64 / whole as f64)
}

fn percent(e: f64) -> String {
    format!("{:+.1}%", 100.0 * e)
}

fn section(main: &[Outcome], wide: &[Outcome]) -> Result<String> {
    let mut out = format!(
        "Written by `cargo xtask sampling` {} (release CLI, one run at a time on the 2-core machine: `warplab run --config CONFIG --gen SPEC --sample photon --against-full --json`, or `--trace DIR`; Photon's default thresholds).\n\
         IPC is thread instructions per cycle; errors are signed, (sampled − full) / full. Speedup in wall time is the full run's `sim_wall_s` over the sampled run's; in detailed instructions, the workload's warp instructions over those simulated in detail.\n\n",
        made_now()?
    );
    out += &main_table(main);
    out += &verdict(main);
    out += &kernel_table(main);
    out += &sensitivity_table(main, wide);
    Ok(out)
}

fn main_table(main: &[Outcome]) -> String {
    let mut out = "| workload | config | kernels | level per kernel | detailed warps / total | detailed warp insts / total | IPC error per kernel | IPC error | speedup (wall) | speedup (detailed insts) |\n|---|---|---:|---|---:|---:|---|---:|---:|---:|\n".to_owned();
    for (case, o) in CASES.iter().zip(main) {
        let s = &o.sampled;
        let errors: Vec<String> = o.kernel_errors().into_iter().map(percent).collect();
        out += &format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {:.1}× | {:.1}× |\n",
            label(case),
            case.config,
            s.levels.len(),
            folded(&s.levels),
            share(s.detailed_warps, s.warps),
            share(s.detailed_insts, s.warp_insts),
            errors.join(", "),
            percent(o.error()),
            o.wall_speedup(),
            o.instruction_speedup()
        );
    }
    out
}

/// The goal on the large kernels, and the mean error over every case.
fn verdict(main: &[Outcome]) -> String {
    let large: Vec<&Outcome> = CASES.iter().zip(main).filter(|(c, _)| c.large).map(|(_, o)| o).collect();
    let met = large.iter().filter(|o| o.meets_goal()).count();
    let mean = |os: &[&Outcome]| 100.0 * os.iter().map(|o| o.error().abs()).sum::<f64>() / os.len() as f64;
    let all: Vec<&Outcome> = main.iter().collect();
    format!(
        "\nLarge regular kernels meeting the goal (≥ {GOAL_SPEEDUP}× in wall time at ≤ {GOAL_ERROR_PCT}% IPC error): **{met} of {}**; mean |IPC error| {:.1}% on them, {:.1}% over all {} cases (Photon's paper: 6.83% mean, up to 24.65×).\n\n",
        large.len(),
        mean(&large),
        mean(&all),
        all.len()
    )
}

/// Every kernel of the multi-kernel workloads: what it reused and both IPCs.
fn kernel_table(main: &[Outcome]) -> String {
    let mut out = "Per kernel, the multi-kernel workloads (nearest: the simulated kernel nearest in GPU BBV and the distance; a `kernel` level reuses its IPC):\n\n| workload | kernel | level | nearest | sampled IPC | full IPC | error |\n|---|---:|---|---|---:|---:|---:|\n".to_owned();
    for (case, o) in CASES.iter().zip(main).filter(|(c, _)| !c.large) {
        let s = &o.sampled;
        for (k, e) in o.kernel_errors().into_iter().enumerate() {
            let nearest = s.nearest[k].map_or("—".to_owned(), |(n, d)| format!("{n} at {d:.3}"));
            out += &format!(
                "| `{}` | {k} | {} | {nearest} | {:.1} | {:.1} | {} |\n",
                label(case),
                s.levels[k],
                s.kernel_ipc[k],
                o.full.kernel_ipc[k],
                percent(e)
            );
        }
    }
    out + "\n"
}

/// The large kernels at the default window and at [`WIDE_WINDOW`].
fn sensitivity_table(main: &[Outcome], wide: &[Outcome]) -> String {
    let mut out = format!(
        "Sensitivity study, not a default: the large kernels again with `--warp-window {WIDE_WINDOW}` (sampled only, against the same full run).\n\n| workload | warp window | level | switched at cycle | detailed warp insts / total | IPC error | speedup (wall) | speedup (detailed insts) |\n|---|---:|---|---:|---:|---:|---:|---:|\n"
    );
    let large = CASES.iter().zip(main).filter(|(c, _)| c.large);
    for ((case, o), w) in large.zip(wide) {
        for (window, o) in [(1024, o), (WIDE_WINDOW, w)] {
            let s = &o.sampled;
            let switched: Vec<String> = s.switched_at.iter().map(|c| c.map_or("—".to_owned(), grouped)).collect();
            out += &format!(
                "| `{}` | {window} | {} | {} | {} | {} | {:.1}× | {:.1}× |\n",
                label(case),
                folded(&s.levels),
                switched.join(", "),
                share(s.detailed_insts, s.warp_insts),
                percent(o.error()),
                o.wall_speedup(),
                o.instruction_speedup()
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_fold_into_runs_and_shares_show_both_counts() {
        let levels: Vec<String> = ["detailed", "kernel", "kernel", "warp"].map(str::to_owned).into();
        assert_eq!(folded(&levels), "detailed, kernel ×2, warp");
        assert_eq!(folded(&[]), "");
        assert_eq!(share(1, 4), "1 / 4 (25.0%)");
    }

    #[test]
    fn reads_a_sampled_report_against_the_full_run() {
        let report = serde_json::json!({
            "warp_insts": 200, "ipc": 11.0, "sim_wall_s": 2.0,
            "kernels": [{"ipc": 10.0}, {"ipc": 12.0}],
            "sampling": {"detailed_warp_insts": 20, "kernels": [
                {"level": "detailed", "nearest": null, "switched_at": null, "warps": 4, "detailed_warps": 4},
                {"level": "kernel", "nearest": [0, 0.01], "switched_at": null, "warps": 4, "detailed_warps": 0}]},
            "against_full": {"full_ipc": 10.0, "wall_speedup": 5.0,
                "kernels": [{"full_ipc": 10.0}, {"full_ipc": 15.0}]}
        });
        let o = Outcome { sampled: sampled(&report).unwrap(), full: full(&report).unwrap() };
        assert_eq!(o.sampled.nearest, vec![None, Some((0, 0.01))]);
        assert_eq!((o.sampled.warps, o.sampled.detailed_warps), (8, 4));
        assert_eq!(o.kernel_errors(), vec![0.0, -0.2]);
        assert!((o.error() - 0.1).abs() < 1e-12);
        assert_eq!((o.wall_speedup(), o.instruction_speedup()), (5.0, 10.0));
        assert!(!o.meets_goal());
    }
}
