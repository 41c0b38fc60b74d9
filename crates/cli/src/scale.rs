//! `warplab scale`: the scale-model predictor from numbers (`predict`), over
//! a table of published data (`table`), and end to end from a trace or a
//! generator on a target GPU (`run`).

use std::fmt::Write as _;
use std::path::Path;

use warplab_lab::scale::{Inputs, Method, Prediction, Rule, Table, TableReport, predict as predict_ipc};

/// A comma-separated list of numbers for `flag`.
pub fn numbers<T: std::str::FromStr>(flag: &str, text: &str) -> Result<Vec<T>, String> {
    text.split(',')
        .map(|v| v.trim().parse::<T>().map_err(|_| format!("{flag}: `{}` is not a number", v.trim())))
        .collect()
}

/// `--rule reference|paper`.
pub fn rule(name: &str) -> Result<Rule, String> {
    Rule::from_name(name).ok_or_else(|| format!("--rule: `{name}` is not reference or paper"))
}

/// `warplab scale predict`.
pub fn predict(
    ipc: &str,
    mpki: &str,
    smallest: u32,
    f_mem: Option<f64>,
    rule_name: &str,
    json: bool,
) -> Result<String, String> {
    let ipc: Vec<f64> = numbers("--ipc", ipc)?;
    let [small, large] = ipc[..] else {
        return Err(format!("--ipc: give the two scale models' IPC, S,L (got {} values)", ipc.len()));
    };
    let inputs =
        Inputs::doubling(smallest, [small, large], numbers("--mpki", mpki)?, f_mem).map_err(|e| e.to_string())?;
    let prediction = predict_ipc(&inputs, rule(rule_name)?).map_err(|e| e.to_string())?;
    if json {
        return to_json(&prediction);
    }
    Ok(prediction_text(&prediction, &inputs.mpki, None))
}

/// `warplab scale table`.
pub fn table(path: &Path, rule_name: &str, json: bool) -> Result<String, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let table = Table::read(&name, &text).map_err(|e| e.to_string())?;
    let report = table.evaluate(&name, rule(rule_name)?).map_err(|e| e.to_string())?;
    if json {
        return to_json(&report);
    }
    Ok(table_text(&table, &report))
}

pub fn to_json(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value).map(|s| s + "\n").map_err(|e| e.to_string())
}

/// Every method's IPC per size, the MPKI beside it, and (when given) the
/// simulated IPC.
pub fn prediction_text(p: &Prediction, mpki: &[f64], simulated: Option<&[Option<f64>]>) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:>6} {:>9}", "SMs", "MPKI");
    for method in Method::ALL {
        let _ = write!(out, " {:>13}", method.label());
    }
    out.push_str(if simulated.is_some() { "     simulated\n" } else { "\n" });
    for (k, size) in p.sizes.iter().enumerate() {
        let _ = write!(out, "{size:>6} {:>9.3}", mpki[k]);
        for curve in &p.curves {
            let _ = write!(out, " {:>13.2}", curve.ipc[k]);
        }
        if let Some(sim) = simulated {
            match sim[k] {
                Some(ipc) => _ = write!(out, " {ipc:>13.2}"),
                None => out.push_str(&format!(" {:>13}", "-")),
            }
        }
        out.push_str(if k < 2 { "   (scale model)\n" } else { "\n" });
    }
    let _ = writeln!(out, "\nrule: {} (b = {:+.4})", p.rule.name(), p.shortfall);
    match (p.cliff, p.f_mem) {
        (Some(c), Some(f)) => {
            _ = writeln!(out, "cliff: MPKI drops more than 2x from {} to {} SMs; f_mem = {f:.3}", c.from, c.to)
        }
        _ => out.push_str("cliff: none\n"),
    }
    out
}

fn table_text(table: &Table, report: &TableReport) -> String {
    let units = table.units.name();
    let mut out = format!("{} benchmark(s); sizes in {units}\n\n", table.benchmarks.len());
    let target =
        |bench: &str| report.predictions.iter().filter(|r| r.benchmark == bench).map(|r| r.units).max().unwrap_or(0);
    let _ = write!(out, "{:<12} {:>6} {:>11}", "benchmark", units, "actual");
    for method in Method::ALL {
        let _ = write!(out, " {:>13}", method.label());
    }
    out.push('\n');
    for bench in &table.benchmarks {
        let t = target(&bench.name);
        let rows: Vec<_> = report.predictions.iter().filter(|r| r.benchmark == bench.name && r.units == t).collect();
        let _ = write!(out, "{:<12} {t:>6} {:>11.2}", bench.name, rows.first().map_or(0.0, |r| r.actual_ipc));
        for method in Method::ALL {
            let r = rows.iter().find(|r| r.model == method);
            let _ = write!(out, " {:>13}", r.map_or("-".to_owned(), |r| format!("{:.1}%", r.abs_err_pct)));
        }
        out.push('\n');
    }
    out.push_str("\nabsolute error, mean / max:\n");
    let _ = write!(out, "{:>6}", units);
    for method in Method::ALL {
        let _ = write!(out, " {:>15}", method.label());
    }
    out.push('\n');
    let mut sizes: Vec<u32> = report.summary.iter().map(|s| s.target_units).collect();
    sizes.dedup();
    for size in sizes {
        let _ = write!(out, "{size:>6}");
        for method in Method::ALL {
            let s = report.summary.iter().find(|s| s.model == method && s.target_units == size);
            let _ = write!(
                out,
                " {:>15}",
                s.map_or("-".to_owned(), |s| format!("{:.2} / {:.2}", s.mean_err_pct, s.max_err_pct))
            );
        }
        out.push('\n');
    }
    out
}
