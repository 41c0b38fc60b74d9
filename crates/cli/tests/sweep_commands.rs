//! `warplab sweep`: the CSV's shape, its agreement with `warplab predict`,
//! the simulated columns, the SVG, GPGPU-Sim options and several workloads,
//! `--jobs`, a plan run point by point and collected, and the errors for bad
//! `--vary` lists. (`slurm_sweep.rs` runs a sweep through Slurm.)

mod common;

use std::path::PathBuf;

use common::{json, warplab};

const MODELS: [&str; 8] =
    ["gpumech", "gpumech+", "mdm-queue", "mdm-mshr", "mdm", "gpumech-md1", "mdm-limits", "warplab"];

fn scratch(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("warplab-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// The CSV's header and its rows as numbers (the text columns, the
/// workload and the sample mode, as NaN).
fn read_csv(path: &PathBuf) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).expect("the CSV was written");
    let _ = std::fs::remove_file(path);
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().expect("a header").split(',').map(str::to_owned).collect();
    let number = |(name, cell): (&String, &str)| match name.as_str() {
        "workload" | "sample_mode" => f64::NAN,
        _ => cell.parse().unwrap_or_else(|_| panic!("{name}: `{cell}` is not a number")),
    };
    let rows = lines.map(|l| header.iter().zip(cells(l).iter().map(String::as_str)).map(number).collect()).collect();
    (header, rows)
}

/// A CSV line's cells, a quoted one unquoted.
fn cells(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

fn close(a: f64, b: f64, relative: f64) -> bool {
    (a - b).abs() <= relative * a.abs().max(b.abs())
}

/// `strided gs=32` on the MDM paper's GPU over 32, 64 and 128 MSHRs.
fn mshr_sweep(extra: &[&str]) -> (i32, String, String) {
    let args =
        ["sweep", "--config", "mdm-pascal-28sm", "--gen", "strided:gs=32,size=8", "--vary", "l1_mshrs=32,64,128"];
    warplab(&[&args[..], extra].concat())
}

#[test]
fn an_mshr_sweep_writes_one_row_per_point_that_predict_agrees_with() {
    let csv = scratch("mshrs.csv");
    let (code, stdout, stderr) = mshr_sweep(&["--csv", csv.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("3 point(s)") && stdout.contains("MDM"), "{stdout}");
    let (header, rows) = read_csv(&csv);
    let mut expected = vec!["workload".to_owned(), "l1_mshrs".to_owned()];
    expected.extend(MODELS.iter().map(|m| format!("{m}_ipc")));
    assert_eq!(header, expected);
    assert_eq!(rows.iter().map(|r| r[1]).collect::<Vec<_>>(), [32.0, 64.0, 128.0]);
    let predicted = json(&[
        "predict",
        "--config",
        "mdm-pascal-28sm",
        "--gen",
        "strided:gs=32,size=8",
        "--set",
        "l1_mshrs=64",
        "--json",
    ]);
    for model in MODELS {
        let from_predict = predicted["models"][model]["ipc"].as_f64().expect("an IPC");
        let from_sweep = rows[1][column(&header, &format!("{model}_ipc"))];
        assert!(close(from_sweep, from_predict, 1e-9), "{model}: sweep {from_sweep}, predict {from_predict}");
    }
}

#[test]
fn simulating_adds_the_simulated_ipc_and_each_models_error() {
    let csv = scratch("simulated.csv");
    let args = ["sweep", "--config", "mdm-pascal-28sm", "--gen", "vecadd:size=2", "--vary", "dram_bw_scale=0.5,2"];
    let (code, stdout, stderr) = warplab(&[&args[..], &["--simulate", "--csv", csv.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("simulated") && stdout.contains("mean |error|"), "{stdout}");
    let (header, rows) = read_csv(&csv);
    // The workload, the knob, the models, the simulation's IPC, cycles and
    // sample mode, each model's error, the host time.
    assert_eq!(header.len(), 2 + MODELS.len() + 3 + MODELS.len() + 1, "{header:?}");
    assert_eq!(header.last().map(String::as_str), Some("sim_wall_s"));
    assert_eq!(rows.len(), 2);
    let sim = column(&header, "simulated_ipc");
    for row in &rows {
        assert!(row[sim] > 0.0);
        for model in MODELS {
            let ipc = row[column(&header, &format!("{model}_ipc"))];
            let error = row[column(&header, &format!("{model}_err_pct"))];
            assert!(close(error, 100.0 * (ipc - row[sim]) / row[sim], 1e-12), "{model}: {row:?}");
        }
    }
}

#[test]
fn svg_writes_a_chart_of_every_model() {
    let (csv, svg) = (scratch("chart.csv"), scratch("chart.svg"));
    let (code, _, stderr) = mshr_sweep(&["--csv", csv.to_str().unwrap(), "--svg", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&svg).expect("the SVG was written");
    let _ = (std::fs::remove_file(&svg), std::fs::remove_file(&csv));
    assert!(text.starts_with("<svg"), "{}", &text[..text.len().min(200)]);
    assert_eq!(text.matches("<polyline").count(), MODELS.len());
    assert!(text.contains("IPC (thread instructions / cycle)") && text.contains("mdm-pascal-28sm"));
}

#[test]
fn a_bad_vary_list_is_one_error_line_naming_the_flag() {
    for (vary, says) in [
        ("warps=1,2", "unknown knob `warps`"),
        ("l1_mshrs=32,abc", "l1_mshrs=abc: not a number"),
        ("l1_mshrs=", "empty"),
        ("l1_mshrs=32,0", "positive"),
        ("l1_mshrs", "KNOB=v1,v2"),
    ] {
        let csv = scratch("bad.csv");
        let args = ["sweep", "--config", "mdm-pascal-28sm", "--gen", "strided:gs=32,size=8", "--vary", vary];
        let (code, stdout, stderr) = warplab(&[&args[..], &["--csv", csv.to_str().unwrap()]].concat());
        assert_eq!(code, 2, "{vary}: {stdout}");
        assert!(stderr.starts_with("error: --vary") && stderr.contains(says), "{vary}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!csv.exists(), "{vary}: nothing is written");
    }
}

#[test]
fn a_sweep_past_the_point_limit_or_an_unwritable_csv_stops_before_any_work() {
    let many = (1..=317).map(|n| n.to_string()).collect::<Vec<_>>().join(",");
    let (n_sms, mshrs) = (format!("n_sms={many}"), format!("l1_mshrs={many}"));
    let args = ["sweep", "--config", "mdm-pascal-28sm", "--gen", "strided:gs=32", "--csv", "/dev/null"];
    let (code, _, stderr) = warplab(&[&args[..], &["--vary", &n_sms, "--vary", &mshrs]].concat());
    assert_eq!(code, 2);
    assert!(stderr.contains("100489 points") && stderr.contains("at most 100000"), "{stderr}");
    let (code, _, stderr) =
        warplab(&["sweep", "--config", "QV100", "--gen", "vecadd", "--vary", "n_sms=80", "--csv", "no/such/dir/x.csv"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--csv") && stderr.contains("no/such/dir"), "{stderr}");
}

/// Runs `warplab ARGS --csv <scratch file NAME>`, which must succeed: the
/// CSV's text and what it printed.
fn sweep_csv(name: &str, args: &[&str]) -> (String, String) {
    let csv = scratch(name);
    let (code, stdout, stderr) = warplab(&[args, &["--csv", csv.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let _ = std::fs::remove_file(&csv);
    (text, stdout)
}

/// Two workloads × two schedulers on `jobs` threads: the CSV's text.
fn scheduler_sweep(jobs: &str, extra: &[&str]) -> (String, String) {
    let args = [
        "sweep",
        "--config",
        "mdm-pascal-28sm",
        "--gen",
        "vecadd:size=2",
        "--gen",
        "strided:gs=8,size=2",
        "--vary",
        "-gpgpu_scheduler=gto,lrr",
        "--jobs",
        jobs,
    ];
    sweep_csv(&format!("schedulers-{jobs}.csv"), &[&args[..], extra].concat())
}

#[test]
fn an_option_sweep_over_two_workloads_is_the_same_on_any_number_of_jobs() {
    let (one, stdout) = scheduler_sweep("1", &[]);
    let (two, _) = scheduler_sweep("2", &[]);
    assert_eq!(one, two, "--jobs 1 and --jobs 2");
    let rows: Vec<&str> = one.lines().collect();
    assert!(rows[0].starts_with("workload,-gpgpu_scheduler,gpumech_ipc"), "{}", rows[0]);
    assert_eq!(rows.len(), 5);
    assert!(rows[1].starts_with("vecadd:size=2,gto,") && rows[4].starts_with("\"strided:size=2,gs=8\",lrr,"), "{one}");
    // The profile reads the scheduler (its policy orders the cache pass's
    // turns): a profile per point.
    assert!(stdout.contains("4 of 4 point(s), 4 profile(s)"), "{stdout}");
    let gto = predict_mdm(&["--gen", "vecadd:size=2"]);
    let cell = |row: &str, k: usize| row.split(',').nth(k).unwrap().parse::<f64>().unwrap();
    assert!(close(cell(rows[1], 6), gto, 1e-12), "the sweep's MDM IPC at gto is predict's: {} vs {gto}", rows[1]);
}

#[test]
fn points_that_differ_only_in_what_the_profile_does_not_read_share_one_profile() {
    let args = ["sweep", "--config", "mdm-pascal-28sm", "--gen", "vecadd:size=2"];
    let (_, stdout) =
        sweep_csv("launch-latency.csv", &[&args[..], &["--vary", "-gpgpu_kernel_launch_latency=0,5000"]].concat());
    assert!(stdout.contains("2 of 2 point(s), 1 profile(s)"), "{stdout}");
}

/// `warplab predict`'s MDM IPC on the MDM paper's GPU with the GTO scheduler.
fn predict_mdm(workload: &[&str]) -> f64 {
    let dir = scratch("gto-config");
    let _ = std::fs::remove_dir_all(&dir);
    let (code, _, stderr) = warplab(&["config", "write", "mdm-pascal-28sm", "-o", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let config = dir.join("gpgpusim.config");
    let text = std::fs::read_to_string(&config).unwrap() + "-gpgpu_scheduler gto\n";
    std::fs::write(&config, text).unwrap();
    let value = json(&[&["predict", "--config", dir.to_str().unwrap(), "--model", "mdm", "--json"], workload].concat());
    let _ = std::fs::remove_dir_all(&dir);
    value["models"]["mdm"]["ipc"].as_f64().expect("an IPC")
}

#[test]
fn an_option_warplab_does_not_model_is_refused_unless_allowed() {
    let csv = scratch("unmodelled.csv");
    let args = ["sweep", "--config", "QV100", "--gen", "vecadd:size=1", "--csv", csv.to_str().unwrap()];
    let (code, _, stderr) = warplab(&[&args[..], &["--vary", "-gpgpu_ptx_sim_mode=0,1"]].concat());
    assert_eq!(code, 2);
    assert!(stderr.contains("does not model") && stderr.contains("--allow-unmodelled"), "{stderr}");
    let (code, _, stderr) = warplab(&[&args[..], &["--vary", "-no_such_option=1,2"]].concat());
    assert_eq!(code, 2);
    assert!(stderr.contains("no option `-no_such_option`"), "{stderr}");
    assert!(!csv.exists(), "nothing ran");
    let allowed = [&args[..], &["--vary", "-gpgpu_ptx_sim_mode=0,1", "--allow-unmodelled", "--model", "mdm"]].concat();
    let (code, stdout, stderr) = warplab(&allowed);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2 of 2 point(s)"), "{stdout}");
    let _ = std::fs::remove_file(&csv);
}

/// `warplab sweep --config mdm-pascal-28sm SWEEP --csv CSV --slurm DIR --dry-run`:
/// writes the plan into `dir` and submits nothing.
fn plan_into(dir: &std::path::Path, csv: &std::path::Path, sweep: &[&str]) -> (i32, String, String) {
    let (dir, csv) = (dir.to_str().unwrap(), csv.to_str().unwrap());
    let args = [&["sweep", "--config", "mdm-pascal-28sm"], sweep, &["--csv", csv, "--slurm", dir, "--dry-run"]];
    warplab(&args.concat())
}

#[test]
fn a_planned_sweep_runs_point_by_point_and_collects_what_finished() {
    let dir = scratch("plan-dir");
    let _ = std::fs::remove_dir_all(&dir);
    let (local, _) = scheduler_sweep("2", &[]);
    let csv = scratch("collected.csv");
    let sweep = ["--gen", "vecadd:size=2", "--gen", "strided:gs=8,size=2", "--vary", "-gpgpu_scheduler=gto,lrr"];
    let (code, stdout, stderr) = plan_into(&dir, &csv, &sweep);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("#SBATCH --array=0-3") && stdout.contains("afterany"), "{stdout}");
    let dir_text = dir.to_str().unwrap();
    for index in ["0", "1", "3"] {
        let (code, _, stderr) = warplab(&["sweep", "run-point", dir_text, "--index", index]);
        assert_eq!(code, 0, "{stderr}");
    }
    let (code, _, stderr) = warplab(&["sweep", "run-point", dir_text, "--index", "4"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--index 4") && stderr.contains("0 to 3"), "{stderr}");
    let collect = ["sweep", "collect", dir_text, "--csv", csv.to_str().unwrap()];
    let (code, _, stderr) = warplab(&collect);
    assert_eq!(code, 2, "a point is missing");
    assert!(stderr.contains("missing: point 2 (strided:size=2,gs=8 -gpgpu_scheduler=gto)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 1 + 3, "the finished points");
    let (code, _, stderr) = warplab(&["sweep", "run-point", dir_text, "--index", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = warplab(&collect);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), local, "collected as the local run wrote it");
    let first = dir.join("points/0.json");
    let text = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&first, text.replacen("\"ipc\":[", "\"ipc\":[\"1\",", 1)).unwrap();
    let (code, _, stderr) = warplab(&collect);
    assert_eq!(code, 2, "a damaged point file");
    assert!(stderr.contains("failed: point 0") && stderr.contains("9 IPCs for the plan's 8 models"), "{stderr}");
    std::fs::write(&first, text).unwrap();
    let points = std::fs::read_dir(dir.join("points")).unwrap().flatten();
    assert!(
        points
            .map(|e| e.file_name().into_string().unwrap())
            .all(|name| name.ends_with(".json") && !name.starts_with('.'))
    );
    let _ = (std::fs::remove_dir_all(&dir), std::fs::remove_file(&csv));
}

#[test]
fn a_trace_that_changed_since_the_plan_fails_its_points() {
    let root = scratch("trace-root");
    let _ = std::fs::remove_dir_all(&root);
    let trace = root.join("trace");
    let (code, _, stderr) =
        warplab(&["gen-trace", "vecadd", "--size", "1", "--for", "mdm-pascal-28sm", "-o", trace.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (dir, csv) = (root.join("sweep"), root.join("out.csv"));
    let sweep = ["--trace", trace.to_str().unwrap(), "--vary", "l1_mshrs=32,64", "--model", "mdm"];
    let (code, _, stderr) = plan_into(&dir, &csv, &sweep);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = warplab(&["sweep", "run-point", dir.to_str().unwrap(), "--index", "0"]);
    assert_eq!(code, 0, "{stderr}");
    let list = trace.join("kernelslist.g");
    let text = std::fs::read_to_string(&list).unwrap();
    std::fs::write(&list, text + "\n").unwrap();
    let (code, _, stderr) = warplab(&["sweep", "run-point", dir.to_str().unwrap(), "--index", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("point 1") && stderr.contains("changed since the sweep was planned"), "{stderr}");
    let (code, _, stderr) = warplab(&["sweep", "collect", dir.to_str().unwrap(), "--csv", csv.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("failed: point 1") && stderr.contains("changed since"), "{stderr}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn predict_names_its_headline_model_and_it_is_the_same_for_every_workload_and_config() {
    // The page's strip leads with this model; `headline` is one fixed key,
    // chosen in the code, whatever the workload, config or model list.
    for (config, workload) in [("QV100", "vecadd:size=16"), ("mdm-pascal-28sm", "strided:gs=32,size=28")] {
        for model in ["all", "mdm"] {
            let value = json(&["predict", "--config", config, "--gen", workload, "--model", model, "--json"]);
            assert_eq!(value["headline"], "warplab", "{config} {workload} --model {model}");
        }
        let value = json(&["predict", "--config", config, "--gen", workload, "--model", "all", "--json"]);
        let headline = value["headline"].as_str().expect("a key");
        assert!(value["models"][headline]["ipc"].as_f64().is_some_and(|ipc| ipc > 0.0), "{value}");
    }
}
