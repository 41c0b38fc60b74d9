//! Issue 41's "behave like the generator": an authored kernel and the
//! generator it was written after, with the same problem size and block
//! shape, simulated on SM7_QV100, give IPCs within 25% of each other and L1
//! and L2 read accesses and DRAM reads within 10% (`docs/cuda.md`'s table
//! "Authored and generated, side by side" says where and why they differ).

use warplab_lab::{
    Cycle, GenSpec, GeneratedWorkload, GpuConfig, SimOptions, SimReport, Simulation, WorkloadSource, authored_workload,
    preset_config,
};

/// Each authored file (name, text) and the generator spec it matches.
const PAIRS: [(&str, &str, &str); 3] = [
    ("vecadd.cu", include_str!("../../cuda/examples/vecadd.cu"), "vecadd:size=1024"),
    ("reduction_pairs.cu", include_str!("../../cuda/benches/reduction_pairs.cu"), "reduction:size=256"),
    ("matmul.cu", include_str!("../../cuda/examples/matmul.cu"), "gemm-tiled:size=16"),
];

fn simulate(config: &GpuConfig, workload: impl WorkloadSource) -> SimReport {
    let mut simulation = Simulation::new(config, SimOptions::default(), workload);
    simulation.run_until(Cycle(u64::MAX));
    simulation.report()
}

/// L1 read accesses, L2 read accesses and DRAM reads.
fn requests(report: &SimReport) -> [u64; 3] {
    [report.l1d.reads.accesses(), report.l2.reads.accesses(), report.dram.totals.reads]
}

/// `authored` relative to `generated`, minus one.
fn relative(authored: f64, generated: f64) -> f64 {
    authored / generated - 1.0
}

#[test]
fn authored_kernels_behave_like_their_generators() {
    let config = preset_config("SM7_QV100").unwrap().1;
    for (file, source, spec) in PAIRS {
        let authored = simulate(&config, authored_workload(file, source, &config).unwrap().into_source());
        let spec: GenSpec = spec.parse().unwrap();
        let generated = simulate(&config, GeneratedWorkload::new(&spec, &config).unwrap());
        let ipc = relative(authored.ipc, generated.ipc);
        assert!(ipc.abs() <= 0.25, "{file}: IPC {} against {spec}'s {}", authored.ipc, generated.ipc);
        let (ours, theirs) = (requests(&authored), requests(&generated));
        for (what, (a, g)) in ["L1 reads", "L2 reads", "DRAM reads"].iter().zip(ours.into_iter().zip(theirs)) {
            assert!(relative(a as f64, g as f64).abs() <= 0.10, "{file}: {what} {a} against {spec}'s {g}");
        }
    }
}
