//! `warplab predict`: the analytical models (GPUMech, GPUMech+, MDM-Queue,
//! MDM-MSHR, MDM) on a trace or a generated workload.

use std::fmt::Write as _;
use std::time::Instant;

use warplab_lab::{AnalyticalReport, GpuConfig, ModelKind, Prediction, Profile, ProfileOptions};

use crate::experiment_args::{ExperimentArgs, Workload};

/// Which models `--model` asks for.
pub fn models(name: &str) -> Result<Vec<ModelKind>, String> {
    if name.eq_ignore_ascii_case("all") {
        return Ok(ModelKind::ALL.to_vec());
    }
    name.parse::<ModelKind>().map(|m| vec![m]).map_err(|e| format!("--model: {e}, or all"))
}

/// Profiles `workload` for `config`.
pub fn profile(config: &GpuConfig, workload: &Workload, options: ProfileOptions) -> Result<Profile, String> {
    warplab_lab::profile_workload(config, &mut *workload.source(config)?, options).map_err(|e| workload.context(e))
}

/// Profiles, predicts and renders `models` (a name or `all`).
pub fn predict(experiment: &ExperimentArgs, models_arg: &str, json: bool) -> Result<String, String> {
    let models = models(models_arg)?;
    let (label, config) = experiment.config()?;
    let started = Instant::now();
    let options = ProfileOptions { memcpy_warms_l2: experiment.memcpy_warms_l2 };
    let workload = experiment.workload()?;
    let profile = profile(&config, &workload, options)?;
    let profiled = started.elapsed().as_secs_f64();
    let mut report = warplab_lab::predict(&profile, &config);
    report.models.retain(|model, _| models.contains(model));
    for kernel in &mut report.kernels {
        kernel.models.retain(|model, _| models.contains(model));
    }
    if json {
        let mut value = serde_json::to_value(&report).map_err(|e| e.to_string())?;
        value["profile_wall_s"] = serde_json::json!(profiled);
        // The model the page's strip leads with: one fixed key, whatever
        // the workload and config.
        value["headline"] = serde_json::json!(warplab_lab::HEADLINE.name());
        return crate::to_json(&value);
    }
    Ok(text(&label, &workload.label(), &report, profiled))
}

fn text(config: &str, workload: &str, report: &AnalyticalReport, profiled: f64) -> String {
    let mut out = format!("{workload} on {config} (profiled in {profiled:.2} s)\n\n");
    let _ = write!(out, "{:<13} {:>10} {:>9} {:>12} | CPI/SM", "model", "IPC", "warp IPC", "cycles");
    for term in CPI_TERM_NAMES {
        let _ = write!(out, " {term:>7}");
    }
    out.push('\n');
    for (model, p) in &report.models {
        let _ = writeln!(out, "{}", row(model.label(), p));
    }
    out.push_str("\nkernels:\n");
    for k in &report.kernels {
        let _ = writeln!(
            out,
            "  {} ({}): {}, DPKI {:.1}, W = {} warps/SM on {} SMs, {} wave(s), L1 miss {:.1}%, L2 miss {:.1}%",
            k.id,
            k.name,
            if k.md {
                format!("memory-divergent ({:.0}% of instructions)", 100.0 * k.md_share)
            } else {
                "not memory-divergent".to_owned()
            },
            k.dpki,
            k.warps_per_sm,
            k.active_sms,
            k.waves,
            100.0 * k.l1_miss_rate,
            100.0 * k.l2_miss_rate
        );
        for (model, p) in &k.models {
            let _ = writeln!(out, "    {}", row(model.label(), p));
        }
    }
    out += &crate::notes::render(&report.diagnostics);
    out
}

/// Column heads of the CPI stack's terms, in `CpiStack::terms` order (the
/// six after `dram` are "MDM + limits"' floors).
const CPI_TERM_NAMES: [&str; warplab_lab::CPI_TERMS] = [
    "base", "issue", "pending", "barrier", "exit", "mshr", "noc", "dram", "ldst", "units", "l2slice", "noc-bw",
    "dram-bw", "slowest", "fetch", "launch",
];

fn row(label: &str, p: &Prediction) -> String {
    let mut out = format!("{label:<13} {:>10.2} {:>9.3} {:>12.0} |       ", p.ipc, p.warp_ipc, p.cycles);
    for term in p.cpi_stack.terms() {
        let _ = write!(out, " {term:>7.3}");
    }
    out
}
