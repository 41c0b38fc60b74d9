//! `warplab sweep`: the CSV's shape, its agreement with `warplab predict`,
//! the simulated columns, the SVG, and the errors for bad `--vary` lists.

mod common;

use std::path::PathBuf;

use common::{json, warplab};

const MODELS: [&str; 7] = ["gpumech", "gpumech+", "mdm-queue", "mdm-mshr", "mdm", "gpumech-md1", "mdm-limits"];

fn scratch(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("warplab-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// The CSV's header and its rows as numbers.
fn read_csv(path: &PathBuf) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).expect("the CSV was written");
    let _ = std::fs::remove_file(path);
    let mut lines = text.lines();
    let header = lines.next().expect("a header").split(',').map(str::to_owned).collect();
    let rows = lines.map(|l| l.split(',').map(|c| c.parse().expect("a number")).collect()).collect();
    (header, rows)
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
    let mut expected = vec!["l1_mshrs".to_owned()];
    expected.extend(MODELS.iter().map(|m| format!("{m}_ipc")));
    assert_eq!(header, expected);
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), [32.0, 64.0, 128.0]);
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
    assert_eq!(header.len(), 1 + MODELS.len() + 1 + MODELS.len(), "{header:?}");
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
        ("l1_mshrs=32,abc", "`abc` is not a number"),
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
    let many = (1..=101).map(|n| n.to_string()).collect::<Vec<_>>().join(",");
    let (n_sms, mshrs) = (format!("n_sms={many}"), format!("l1_mshrs={many}"));
    let args = ["sweep", "--config", "mdm-pascal-28sm", "--gen", "strided:gs=32", "--csv", "/dev/null"];
    let (code, _, stderr) = warplab(&[&args[..], &["--vary", &n_sms, "--vary", &mshrs]].concat());
    assert_eq!(code, 2);
    assert!(stderr.contains("10201 points") && stderr.contains("at most 10000"), "{stderr}");
    let (code, _, stderr) =
        warplab(&["sweep", "--config", "QV100", "--gen", "vecadd", "--vary", "n_sms=80", "--csv", "no/such/dir/x.csv"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--csv") && stderr.contains("no/such/dir"), "{stderr}");
}
