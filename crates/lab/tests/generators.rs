//! Properties every generator shares, checked through the lab against the
//! default preset: default sizes give a reasonable amount of work, the
//! kernels whose shape allows it fill at least four waves of CTAs on
//! `SM7_QV100`, warp instructions grow about linearly with `--size`, and the
//! same spec gives the same trace.

use warplab_lab::{GENERATORS, GenSpec, GpuConfig, default_config, generate, generated_files, summarize_generated};
use warplab_trace::{Addresses, Cta, Instruction, KernelReader, OpcodeTable, open_trace};
use warplab_uarch::occupancy::{CtaShape, occupancy, waves};

/// The kernels the issue asks to fill at least four waves at their default size.
const WAVE_FILLERS: &[&str] = &["vecadd", "strided", "stencil2d", "histogram", "bw-l1", "bw-l2", "bw-dram", "maxflops"];

fn qv100() -> GpuConfig {
    default_config().expect("default preset").1
}

fn warp_insts(spec: &GenSpec, config: &GpuConfig) -> u64 {
    summarize_generated(spec, config).unwrap_or_else(|e| panic!("{spec}: {e}")).totals.warp_insts
}

#[test]
fn default_sizes_give_a_tenth_to_two_million_warp_instructions() {
    let config = qv100();
    for generator in GENERATORS {
        let insts = warp_insts(&GenSpec::new(generator.name), &config);
        assert!((100_000..=2_000_000).contains(&insts), "{}: {insts} warp instructions", generator.name);
    }
}

#[test]
fn wave_filling_kernels_fill_four_waves_on_qv100() {
    let config = qv100();
    for name in WAVE_FILLERS {
        let workload = generate(&GenSpec::new(name), &config).unwrap();
        for kernel in workload.kernels() {
            let header = kernel.header();
            let shape = CtaShape {
                threads: header.block.size() as u32,
                regs_per_thread: header.nregs,
                shmem_bytes: header.shmem_bytes,
            };
            let occupancy = occupancy(&config, shape).unwrap();
            let waves = waves(kernel.cta_count(), occupancy, config.n_sms());
            assert!(waves >= 4, "{name}: {} CTAs, {occupancy:?}: {waves} waves", kernel.cta_count());
        }
    }
}

#[test]
fn warp_instructions_grow_about_linearly_with_size() {
    let config = qv100();
    for generator in GENERATORS {
        let small = (generator.size.default / 8).max(1);
        let mut spec = GenSpec::new(generator.name);
        spec.size = Some(small);
        let one = warp_insts(&spec, &config) as f64;
        spec.size = Some(2 * small);
        let two = warp_insts(&spec, &config) as f64;
        let ratio = two / one;
        assert!((1.6..=2.4).contains(&ratio), "{}: size {small} -> {one}, {} -> {two}", generator.name, 2 * small);
    }
}

#[test]
fn the_same_spec_gives_the_same_trace() {
    for generator in GENERATORS {
        let spec = format!("{}:size={}", generator.name, (generator.size.default / 32).max(1));
        let first = generated_files(&spec, false).unwrap();
        let second = generated_files(&spec, false).unwrap();
        assert!(first == second, "{spec}");
    }
}

/// A small run of every generator, for the per-instruction checks.
fn small_runs() -> impl Iterator<Item = (String, warplab_kernels::Workload)> {
    let config = qv100();
    GENERATORS.iter().map(move |generator| {
        let spec: GenSpec =
            format!("{}:size={}", generator.name, (generator.size.default / 32).max(1)).parse().unwrap();
        (spec.to_string(), generate(&spec, &config).unwrap())
    })
}

#[test]
fn every_lane_exits_once_and_runs_nothing_after() {
    for (spec, workload) in small_runs() {
        for kernel in workload.kernels() {
            kernel.for_each_cta(|cta| {
                for warp in &cta.warps {
                    let (mut ran, mut exited) = (0u32, 0u32);
                    for inst in cta.warp_instructions(warp) {
                        assert_eq!(inst.mask & exited, 0, "{spec}: pc {:#x} runs exited lanes", inst.pc);
                        ran |= inst.mask;
                        if kernel.opcodes().info(inst.opcode).text == "EXIT" {
                            exited |= inst.mask;
                        }
                    }
                    assert_eq!(exited, ran, "{spec}: warp {} lanes that never exit", warp.warp_id);
                }
            });
        }
    }
}

#[test]
fn a_pc_is_always_the_same_static_instruction() {
    use std::collections::HashMap;
    for (spec, workload) in small_runs() {
        for kernel in workload.kernels() {
            let mut listing = HashMap::new();
            kernel.for_each_cta(|cta| {
                for inst in &cta.instructions {
                    let form = (inst.opcode, inst.dst, inst.src, inst.n_dst, inst.n_src, inst.mem_width);
                    assert_eq!(*listing.entry(inst.pc).or_insert(form), form, "{spec}: pc {:#x}", inst.pc);
                }
            });
        }
    }
}

#[test]
fn written_traces_read_back_instruction_for_instruction() {
    for (spec, workload) in small_runs() {
        let files = generated_files(&spec, false).unwrap();
        for kernel in workload.kernels() {
            let name = format!("kernel-{}.traceg", kernel.header().id);
            let bytes = &files.iter().find(|(file, _)| *file == name).unwrap().1;
            let mut reader = KernelReader::new(&name, open_trace(bytes.as_slice()).unwrap()).unwrap();
            assert_eq!(reader.header(), kernel.header(), "{spec}");
            let (mut read, mut generated) = (Cta::default(), Cta::default());
            for index in 0..kernel.cta_count() {
                assert!(reader.next_cta(&mut read).unwrap(), "{spec}: CTA {index} missing");
                kernel.fill_cta(index, &mut generated);
                let tables = (reader.opcodes(), kernel.opcodes());
                assert_same_cta(&spec, (&read, tables.0), (&generated, tables.1));
            }
            assert!(!reader.next_cta(&mut read).unwrap(), "{spec}: extra CTAs");
            assert!(reader.diagnostics().is_empty(), "{spec}: {:?}", reader.diagnostics());
        }
    }
}

/// Compares two CTAs, naming the first instruction that differs (a whole CTA
/// is too long to print). Opcodes are compared by text: each side interns
/// them in its own table, in the order it met them.
fn assert_same_cta(spec: &str, read: (&Cta, &OpcodeTable), generated: (&Cta, &OpcodeTable)) {
    let ((a_cta, a_ops), (b_cta, b_ops)) = (read, generated);
    assert_eq!((a_cta.id, &a_cta.warps), (b_cta.id, &b_cta.warps), "{spec}");
    for (index, (a, b)) in a_cta.instructions.iter().zip(&b_cta.instructions).enumerate() {
        let at = format!("{spec}: CTA {:?}, instruction {index}", a_cta.id);
        assert_eq!(a_ops.info(a.opcode).text, b_ops.info(b.opcode).text, "{at}");
        let same_opcode = Instruction { opcode: a.opcode, ..*b };
        let lanes = |cta: &Cta, inst| cta.lane_addresses(inst).collect::<Vec<_>>();
        assert_eq!(lanes(a_cta, a), lanes(b_cta, b), "{at}");
        let (a, b) = (
            Instruction { addresses: Addresses::None, ..*a },
            Instruction { addresses: Addresses::None, ..same_opcode },
        );
        assert_eq!(a, b, "{at}");
    }
}

#[test]
fn the_seed_decides_the_data() {
    for generator in GENERATORS.iter().filter(|g| g.knobs.iter().any(|knob| knob.name == "seed")) {
        let files =
            |seed: u64| generated_files(&format!("{}:size=1,seed={seed}", generator.name), false).expect("small run");
        assert!(files(7) == files(7), "{}: same seed, different traces", generator.name);
        assert!(files(7) != files(8), "{}: the seed changes nothing", generator.name);
    }
}
