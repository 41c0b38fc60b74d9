//! Every anchor trace read through the streaming reader: the counts an
//! independent script takes from the text, natively and in the browser.

use warplab_trace::{Cta, Dim3, KernelList, KernelReader, KernelSummary, MemSpace, open_trace};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The anchor files, embedded so the same tests run in the browser.
fn file(dir: &str, name: &str) -> &'static [u8] {
    macro_rules! files {
        ($($dir:literal / $name:literal),* $(,)?) => {
            match (dir, name) {
                $(($dir, $name) => include_bytes!(concat!("../test_data/", $dir, "/", $name)),)*
                _ => panic!("no test file {dir}/{name}"),
            }
        };
    }
    files![
        "vectoradd-sm61-gtx1080-v4" / "kernelslist.g",
        "vectoradd-sm61-gtx1080-v4" / "kernel-1.traceg",
        "matrixmul-32x32-sm61-gtx1080-v4" / "kernelslist.g",
        "matrixmul-32x32-sm61-gtx1080-v4" / "kernel-1.traceg",
        "vectorAdd-sm80-a100-v5" / "kernelslist.g",
        "vectorAdd-sm80-a100-v5" / "kernel-1.traceg",
        "vectorAdd-sm80-a100-v5-xz" / "kernelslist.g",
        "vectorAdd-sm80-a100-v5-xz" / "kernel-1.traceg.xz",
        "rodinia-bptree-128-1000-sm90-h100pcie-v5-xz" / "kernelslist.g",
        "rodinia-bptree-128-1000-sm90-h100pcie-v5-xz" / "kernel-1-ctx_0x5607b0e17740.traceg.xz",
        "rodinia-bptree-128-1000-sm90-h100pcie-v5-xz" / "kernel-2-ctx_0x5607b0e17740.traceg.xz",
    ]
}

/// Summaries of every kernel of the trace directory `dir`.
fn summarize(dir: &str) -> Vec<KernelSummary> {
    let list = std::str::from_utf8(file(dir, "kernelslist.g")).expect("kernelslist.g is text");
    let list = KernelList::parse("kernelslist.g", list).expect("kernelslist.g parses");
    list.kernel_files()
        .map(|name| {
            let reader = open_trace(file(dir, name)).expect("opens");
            KernelSummary::read(name, reader).unwrap_or_else(|e| panic!("{dir}: {e}"))
        })
        .collect()
}

/// (ctas, warps, warp insts, thread insts, mem insts) of each kernel.
fn check(dir: &str, expect: &[(u64, u64, u64, u64, u64)]) {
    let got: Vec<_> =
        summarize(dir).iter().map(|s| (s.ctas, s.warps, s.warp_insts, s.thread_insts, s.mem_insts)).collect();
    assert_eq!(got, expect, "{dir}");
}

#[wasm_bindgen_test(unsupported = test)]
fn every_anchor_trace_has_the_counted_figures() {
    check("vectoradd-sm61-gtx1080-v4", &[(1, 32, 344, 10_516, 12)]);
    check("matrixmul-32x32-sm61-gtx1080-v4", &[(1, 32, 4_416, 139_264, 1_440)]);
    check("vectorAdd-sm80-a100-v5", &[(196, 1_568, 26_601, 801_056, 4_689)]);
    check("vectorAdd-sm80-a100-v5-xz", &[(196, 1_568, 26_601, 801_056, 4_689)]);
    let bptree = (8, 32, 21_832, 546_076, 14_664);
    check("rodinia-bptree-128-1000-sm90-h100pcie-v5-xz", &[bptree, bptree]);
}

#[wasm_bindgen_test(unsupported = test)]
fn vectoradd_anchor_header_and_accel_sim_figures() {
    let [summary] = &summarize("vectoradd-sm61-gtx1080-v4")[..] else { panic!("one kernel") };
    assert_eq!(summary.name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!((summary.grid, summary.block), (Dim3 { x: 1, y: 1, z: 1 }, Dim3 { x: 1024, y: 1, z: 1 }));
    assert_eq!((summary.binary_version, summary.tracer_version), (61, 4));
    // Accel-Sim's log for this trace: gpu_sim_insn = 10516.
    assert_eq!(summary.thread_insts, 10_516);
    // 100 floats each in a, b and c: 400 bytes = 12.5 sectors per array, in three 512-byte-aligned buffers.
    assert_eq!(summary.sectors, 3 * 13);
    assert_eq!(summary.mem_insts_by_space.get("global"), Some(&12));
    assert!(summary.diagnostics.is_empty(), "{:?}", summary.diagnostics);
}

#[wasm_bindgen_test(unsupported = test)]
fn hopper_trace_uses_the_ampere_table_with_hopper_additions() {
    let summaries = summarize("rodinia-bptree-128-1000-sm90-h100pcie-v5-xz");
    let spaces = &summaries[0].mem_insts_by_space;
    assert!(spaces["local"] > 0 && spaces["global"] > 0, "{spaces:?}");
    assert_eq!(spaces.values().sum::<u64>(), 14_664);
    assert_eq!(
        summaries[0].diagnostics,
        [
            "kernel-1-ctx_0x5607b0e17740.traceg.xz: binary version 90 has no opcode table of its own; using the Ampere table with the Hopper additions"
        ]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn xz_copy_gives_the_identical_workload() {
    let plain = file("vectorAdd-sm80-a100-v5", "kernel-1.traceg");
    let xz = file("vectorAdd-sm80-a100-v5-xz", "kernel-1.traceg.xz");
    let mut a = KernelReader::new("plain", open_trace(plain).expect("opens")).expect("header");
    let mut b = KernelReader::new("xz", open_trace(xz).expect("opens")).expect("header");
    assert_eq!(a.header(), b.header());
    let (mut cta_a, mut cta_b) = (Cta::default(), Cta::default());
    let mut ctas = 0;
    while a.next_cta(&mut cta_a).expect("plain reads") {
        assert!(b.next_cta(&mut cta_b).expect("xz reads"));
        assert_eq!(cta_a, cta_b);
        ctas += 1;
    }
    assert!(!b.next_cta(&mut cta_b).expect("xz ends"));
    assert_eq!(ctas, 196);
}

#[wasm_bindgen_test(unsupported = test)]
fn matrixmul_shared_memory_accesses() {
    let summary = &summarize("matrixmul-32x32-sm61-gtx1080-v4")[0];
    let shared = summary.mem_insts_by_space.get("shared").copied().unwrap_or(0);
    let global = summary.mem_insts_by_space.get("global").copied().unwrap_or(0);
    assert_eq!(shared + global, 1_440);
    assert!(shared > global, "a tiled matmul reads shared memory more than global: {shared} vs {global}");
    assert_eq!(MemSpace::Shared.name(), "shared");
}

/// Reads a fixture and returns its one CTA with the opcode texts.
fn fixture(text: &str) -> (Cta, Vec<String>) {
    let mut reader = KernelReader::new("fixture.traceg", text.as_bytes()).expect("header");
    let mut cta = Cta::default();
    assert!(reader.next_cta(&mut cta).expect("reads"));
    assert!(!reader.next_cta(&mut cta.clone()).expect("ends"));
    (cta, reader.opcodes().iter().map(|(_, info)| info.text.clone()).collect())
}

#[wasm_bindgen_test(unsupported = test)]
fn pre_v3_fixture_with_warp_prefixes() {
    let (cta, opcodes) = fixture(include_str!("../test_data/fixtures/pre-v3.traceg"));
    assert_eq!(opcodes, ["IMAD.WIDE", "LDG.E.SYS", "STG.E.SYS"]);
    let [_, load, store] = cta.instructions[..] else { panic!("three instructions") };
    assert_eq!((load.pc, load.mask), (0x290, 0xffff_0000));
    let lanes: Vec<_> = cta.lane_addresses(&load).collect();
    assert_eq!(lanes.len(), 16);
    assert_eq!((lanes[0], lanes[15]), ((16, 0x7fe0_3370_2880), (31, 0x7fe0_3370_2880 + 15 * 4)));
    let lanes: Vec<_> = cta.lane_addresses(&store).map(|(_, a)| a - 0x7fe0_3370_2900).collect();
    assert_eq!(lanes, [0, 4, 8, 16]);
}

#[wasm_bindgen_test(unsupported = test)]
fn v3_fixture_with_deltas_and_a_predicated_off_instruction() {
    let (cta, _) = fixture(include_str!("../test_data/fixtures/v3.traceg"));
    let [_, shuffle, load] = cta.instructions[..] else { panic!("three instructions") };
    assert_eq!((shuffle.mask, shuffle.n_src, shuffle.active_lanes()), (0, 4, 0));
    let deltas: Vec<i64> =
        cta.lane_addresses(&load).map(|(_, a)| a as i64).collect::<Vec<_>>().windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(deltas.len(), 31);
    assert_eq!(&deltas[..4], [16, 16, 16, 2000]);
    // 24 deltas of 16 and 2000 + 976 + 2000 + 6096 + 4048 + 3024 + 976 = 19120 from the line.
    let last = cta.lane_addresses(&load).last().map(|(lane, a)| (lane, a - 0x7efe_7b60_c300));
    assert_eq!(last, Some((31, 24 * 16 + 19_120)));
}
