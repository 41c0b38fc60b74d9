//! Issue 23: the configs warplab writes run in Accel-Sim with the traces
//! warplab writes for them. For every preset, every generator's trace for
//! that preset is checked against the config `warplab config write` gives,
//! read back, by Accel-Sim's dispatch rules as `uarch` encodes them
//! (`accel_sim_problem`): no instruction may ask for a unit the config lacks,
//! and every pipeline an instruction uses must have an operand collector
//! unit that can take it. The two ways the recorded `pascal28*` runs failed
//! before generated traces carried the config's own SASS are checked to be
//! caught.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

use warplab_config::PRESETS;
use warplab_kernels::{GENERATORS, GenSpec, generate};
use warplab_lab::{GpuConfig, read_config_dir};
use warplab_trace::{Isa, OpcodeTable, describe};
use warplab_uarch::dispatch::accel_sim_problem;

/// The binary versions Accel-Sim has an opcode table for (it exits on any other).
const ACCEL_SIM_BINARY_VERSIONS: [u32; 7] = [35, 60, 61, 70, 75, 80, 86];

/// Options GPGPU-Sim 4.2 does not know and so refuses: the H100 preset
/// comes from a later Accel-Sim (chiplet options), and no GPGPU-Sim 4.2
/// config can say what they say.
const NEWER_THAN_GPGPU_SIM_4_2: &[&str] = &["SM90_H100"];

fn written_and_read_back(config: &GpuConfig) -> GpuConfig {
    read_config_dir(&config.to_files()).expect("a written config reads back")
}

/// What Accel-Sim would refuse in `opcodes` on `config`.
fn problems(opcodes: &OpcodeTable, config: &GpuConfig) -> Vec<String> {
    opcodes
        .iter()
        .filter_map(|(_, info)| accel_sim_problem(info.unit, config).map(|why| format!("`{}`: {why}", info.text)))
        .collect()
}

#[test]
fn every_presets_written_config_runs_every_generated_trace() {
    let mut failures = Vec::new();
    for preset in &PRESETS {
        let config = written_and_read_back(&preset.config().expect("the preset reads"));
        if NEWER_THAN_GPGPU_SIM_4_2.contains(&preset.name) {
            assert!(!config.unknown_options.is_empty(), "{}: listed as newer, but has no unknown options", preset.name);
        } else {
            let unknown: Vec<&str> = config.unknown_options.iter().map(|o| o.name.as_str()).collect();
            assert!(unknown.is_empty(), "{}: GPGPU-Sim 4.2 refuses {unknown:?}", preset.name);
        }
        for generator in GENERATORS {
            let spec: GenSpec = format!("{}:size=1", generator.name).parse().expect("a spec");
            let workload = generate(&spec, &config).expect("the generator runs for the preset");
            for kernel in workload.kernels() {
                let version = kernel.header().binary_version;
                if !ACCEL_SIM_BINARY_VERSIONS.contains(&version) {
                    failures.push(format!("{} on {}: binary version {version}", generator.name, preset.name));
                }
                for problem in problems(kernel.opcodes(), &config) {
                    failures.push(format!("{} on {}: {problem}", generator.name, preset.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pascal_targets_get_pascal_sass() {
    let config = warplab_config::preset("mdm-pascal-28sm").unwrap().config().unwrap();
    let workload = generate(&"strided:size=1,gs=32".parse().unwrap(), &config).unwrap();
    let kernel = workload.kernels().next().unwrap();
    assert_eq!(kernel.header().binary_version, 61);
    assert_eq!(kernel.opcodes().isa(), Isa::Pascal);
}

fn pinned(name: &str) -> GpuConfig {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/accelsim/configs").join(name);
    let files = ["gpgpusim.config", "trace.config"]
        .iter()
        .map(|file| ((*file).to_owned(), std::fs::read_to_string(dir.join(file)).unwrap()))
        .collect::<Vec<_>>();
    read_config_dir(&files).unwrap()
}

#[test]
fn the_recorded_pascal_failures_are_caught() {
    // Volta SASS's BRA asks for specialized unit 1.
    let bra = describe(Isa::Volta, "BRA").unit;
    // `config write mdm-pascal-28sm` as recorded: no such unit, Accel-Sim aborts.
    let aborts = accel_sim_problem(bra, &pinned("pascal28")).expect("a problem");
    assert!(aborts.contains("aborts") && aborts.contains("specialized unit 1"), "{aborts}");
    // With the unit added but no generic collector units to feed it: deadlock.
    let deadlocks = accel_sim_problem(bra, &pinned("pascal28_bra")).expect("a problem");
    assert!(deadlocks.contains("deadlocks"), "{deadlocks}");
    // Pascal SASS's BRA is a branch for the SP units, which the config feeds.
    assert_eq!(accel_sim_problem(describe(Isa::Pascal, "BRA").unit, &pinned("pascal28")), None);
}
