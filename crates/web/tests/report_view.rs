//! The report view in a real browser, on a report simulated there through
//! `warplab-lab`: the IPC headline reads the report's IPC, the four charts are
//! drawn, and the numbers on the bars (their `data-value`s) are the report's;
//! an empty report shows "no data" notes instead of NaN bars.

mod common;

use std::rc::Rc;

use common::{all, text, values};
use warplab_lab::{GenSpec, GpuConfig, SimOptions, SimReport, preset_config, simulate_generated};
use warplab_web::{ReportView, ReportViewProps};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

const CHARTS: [&str; 4] = ["issue-chart", "cache-chart", "mshr-chart", "latency-chart"];

/// Simulates `spec` on the QV100 preset, in this wasm module.
fn simulate(spec: &str) -> (GpuConfig, SimReport) {
    let (_, config) = preset_config("QV100").expect("QV100 is a preset");
    let spec: GenSpec = spec.parse().expect("a well-formed spec");
    let report = simulate_generated(&config, SimOptions::default(), &spec).expect("the spec runs");
    (config, report)
}

/// Mounts a report view on a new div and returns the div once it has rendered.
async fn mount(report: SimReport) -> Element {
    common::mount::<ReportView>(ReportViewProps { report: Rc::new(report) }, "[data-testid=report]").await
}

#[wasm_bindgen_test]
async fn the_view_draws_the_simulated_reports_numbers() {
    let (config, report) = simulate("vecadd:size=64");
    let host = mount(report.clone()).await;

    // IPC of 1 or more is written with two decimals.
    assert!(report.ipc >= 1.0, "vecadd issues more than one thread instruction a cycle: {}", report.ipc);
    assert_eq!(text(&host, "[data-testid=ipc]"), Some(format!("{:.2}", report.ipc)));
    for chart in CHARTS {
        let svg = host.query_selector(&format!("[data-testid={chart}] svg.chart-drawing[role=group]")).ok().flatten();
        let svg = svg.unwrap_or_else(|| panic!("{chart} has a drawing"));
        assert!(svg.get_attribute("aria-label").is_some_and(|label| label.len() > 20), "{chart} is labelled");
        assert_eq!(all(&host, &format!("[data-testid={chart}] .no-data")).len(), 0, "{chart} has data");
    }

    // Every scheduler of every SM did one thing each cycle.
    let scheduler_cycles = u64::from(config.n_sms() * config.scheduling.schedulers_per_sm) * report.cycles;
    let issue = values(&host, "[data-testid=issue-chart] rect[data-value]");
    assert_eq!(issue.iter().sum::<f64>(), scheduler_cycles as f64, "segments {issue:?}");

    // One bar per bucket (QV100's 512 MSHRs fill all of them), each its bucket's cycles.
    let mshr = values(&host, "[data-testid=mshr-chart] rect[data-value]");
    let buckets: Vec<f64> = report.mshr_occupancy.cycles.iter().map(|&cycles| cycles as f64).collect();
    assert_eq!(report.mshr_occupancy.entries, 512);
    assert_eq!(mshr, buckets);

    // The latency bar adds up to the mean miss latency.
    let latency = &report.latency_breakdown;
    let mean = latency.total_cycles() as f64 / latency.misses as f64;
    let drawn: f64 = values(&host, "[data-testid=latency-chart] rect[data-value]").iter().sum();
    assert!((drawn - mean).abs() < 1e-6 * mean, "drawn {drawn}, mean {mean}");
    assert_eq!(all(&host, "[data-testid=cache-chart] .row").len(), 4, "L1D and L2, reads and writes");
    assert_eq!(report.shmem_bank_conflict_cycles, 0, "vecadd has no shared memory");
    assert_eq!(text(&host, "[data-testid=bank-conflicts]").as_deref(), Some("0"), "the bank-conflict cycles are shown");
}

/// Issue 41: the run's shared-memory bank-conflict cycles among the headline figures.
#[wasm_bindgen_test]
async fn the_bank_conflict_cycles_are_the_reports() {
    let (_, mut report) = simulate("vecadd:size=1");
    report.shmem_bank_conflict_cycles = 253_952;
    let host = mount(report).await;
    assert_eq!(text(&host, "[data-testid=bank-conflicts]").as_deref(), Some("253,952"));
}

#[wasm_bindgen_test]
async fn an_empty_report_says_so_instead_of_drawing() {
    let (_, mut report) = simulate("vecadd:size=1");
    report.cycles = 0;
    report.issue_breakdown = Default::default();
    report.l1d = Default::default();
    report.l2 = Default::default();
    report.latency_breakdown = Default::default();
    report.mshr_occupancy.entries = 0;
    report.diagnostics = vec!["kernel 1: nothing ran".to_owned()];
    let host = mount(report).await;

    for chart in CHARTS {
        assert_eq!(all(&host, &format!("[data-testid={chart}] svg")).len(), 0, "{chart} draws nothing");
        assert_eq!(all(&host, &format!("[data-testid={chart}] .no-data")).len(), 1, "{chart} says why");
    }
    assert!(!host.inner_html().contains("NaN"));
    assert_eq!(text(&host, "[data-testid=report-diagnostics]").as_deref(), Some("kernel 1: nothing ran"));
}

#[wasm_bindgen_test]
async fn a_chiplet_gpus_report_says_what_crossed_and_a_monolithic_one_does_not() {
    let (_, config) = preset_config("H100").expect("H100 is a preset");
    let spec: GenSpec = "vecadd:size=16".parse().expect("a well-formed spec");
    let report = simulate_generated(&config, SimOptions::default(), &spec).expect("the spec runs");
    let chiplets = report.chiplets.clone().expect("H100 is two chiplets");
    let host = mount(report).await;
    assert_eq!(text(&host, "[data-testid=chiplets]"), Some("2".to_owned()));
    let remote = text(&host, "[data-testid=remote-share]").expect("the remote share is shown");
    let shown: f64 = remote.trim_end_matches('%').parse().expect("a percentage");
    assert!((shown - 100.0 * chiplets.remote_share).abs() < 1.0, "{remote} against {}", chiplets.remote_share);
    let busy = text(&host, "[data-testid=links-busy]").expect("the links' business is shown");
    assert!(busy.contains(" / "), "mean / busiest: {busy}");

    let (_, monolithic) = simulate("vecadd:size=16");
    let host = mount(monolithic).await;
    assert_eq!(all(&host, "[data-testid=remote-share]").len(), 0, "a monolithic GPU has no chiplet figures");
}
