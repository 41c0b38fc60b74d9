//! Read → write (version 5, plain or xz) → read gives the same workload, for
//! every anchor trace and for generated CTAs.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;

use proptest::prelude::*;
use warplab_trace::{
    Addresses, Cta, Dim3, Instruction, Isa, KernelHeader, KernelReader, OpcodeTable, Reg, WarpTrace, XzTraceWriter,
    open_trace, write_cta, write_header,
};

/// Every CTA of a trace, with its header and opcode texts.
struct Kernel {
    header: KernelHeader,
    ctas: Vec<Cta>,
    opcodes: Vec<String>,
}

fn read_all(name: &str, bytes: &[u8]) -> Kernel {
    let mut reader = KernelReader::new(name, open_trace(bytes).expect("opens")).expect("header");
    let mut ctas = Vec::new();
    let mut cta = Cta::default();
    while reader.next_cta(&mut cta).unwrap_or_else(|e| panic!("{e}")) {
        ctas.push(cta.clone());
    }
    let opcodes = reader.opcodes().iter().map(|(_, info)| info.text.clone()).collect();
    Kernel { header: reader.header().clone(), ctas, opcodes }
}

fn write_all(kernel: &Kernel, table: &OpcodeTable, out: &mut impl Write) {
    write_header(out, &kernel.header).expect("writes");
    for cta in &kernel.ctas {
        write_cta(out, cta, table).expect("writes");
    }
}

/// The opcode table of a kernel that was read, rebuilt in id order.
fn table_of(kernel: &Kernel) -> OpcodeTable {
    let mut table = OpcodeTable::new(Isa::Ampere);
    for text in &kernel.opcodes {
        table.intern(text, &mut Vec::new());
    }
    table
}

/// What a version-5 rewrite cannot keep: the version, and source line numbers.
fn as_v5(mut kernel: Kernel) -> Kernel {
    kernel.header.tracer_version = 5;
    kernel.header.line_info = false;
    for cta in &mut kernel.ctas {
        cta.instructions.iter_mut().for_each(|i| i.source_line = 0);
    }
    kernel
}

fn assert_same(a: &Kernel, b: &Kernel) {
    assert_eq!(a.header, b.header);
    assert_eq!(a.opcodes, b.opcodes);
    assert_eq!(a.ctas.len(), b.ctas.len());
    for (x, y) in a.ctas.iter().zip(&b.ctas) {
        assert_eq!(x, y);
    }
}

fn round_trip(name: &str, bytes: &[u8]) {
    let original = as_v5(read_all(name, bytes));
    let table = table_of(&original);
    let mut text = Vec::new();
    write_all(&original, &table, &mut text);
    assert_same(&original, &read_all("rewritten.traceg", &text));

    let mut xz = XzTraceWriter::new(Vec::new(), 1).expect("xz options");
    write_all(&original, &table, &mut xz);
    let compressed = xz.finish().expect("xz finishes");
    assert!(compressed.len() * 5 < text.len(), "xz really compresses: {} of {}", compressed.len(), text.len());
    assert_same(&original, &read_all("rewritten.traceg.xz", &compressed));
}

#[test]
fn anchor_traces_survive_a_rewrite() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/");
    for file in [
        "vectoradd-sm61-gtx1080-v4/kernel-1.traceg",
        "matrixmul-32x32-sm61-gtx1080-v4/kernel-1.traceg",
        "vectorAdd-sm80-a100-v5/kernel-1.traceg",
        "rodinia-bptree-128-1000-sm90-h100pcie-v5-xz/kernel-1-ctx_0x5607b0e17740.traceg.xz",
    ] {
        let bytes = std::fs::read(format!("{dir}{file}")).expect("test data");
        round_trip(file, &bytes);
    }
}

const OPCODES: [&str; 6] = ["IMAD.MOV.U32", "LDG.E.128", "STS", "FFMA", "BAR.SYNC", "EXIT"];

fn instruction() -> impl Strategy<Value = (Instruction, Vec<u64>)> {
    let regs = prop::collection::vec(0u16..256, 0..=5);
    let addresses = prop::collection::vec(any::<u64>(), 32);
    (any::<u32>(), any::<u32>(), 0..OPCODES.len(), 0u8..=2, regs, 0u16..=16, any::<bool>(), addresses, any::<i32>())
        .prop_map(|(pc, mask, op, n_dst, srcs, width, strided, mut addrs, imm)| {
            let mut inst =
                Instruction { pc, mask, immediate: i64::from(imm), mem_width: width, ..Instruction::default() };
            inst.opcode = warplab_trace::OpcodeId(op as u16);
            inst.n_dst = n_dst;
            for i in 0..usize::from(n_dst) {
                inst.dst[i] = Reg(srcs.first().copied().unwrap_or(1) + i as u16 % 2);
            }
            inst.n_src = srcs.len() as u8;
            inst.src[..srcs.len()].copy_from_slice(&srcs.iter().map(|r| Reg(*r)).collect::<Vec<_>>());
            addrs.truncate(mask.count_ones() as usize);
            if width == 0 {
                addrs.clear();
            } else if strided || addrs.len() < 3 {
                let base = addrs.first().copied().unwrap_or(0);
                inst.addresses = Addresses::Strided { base, stride: i64::from(imm % 4096) };
                addrs.clear();
            }
            (inst, addrs)
        })
}

fn cta() -> impl Strategy<Value = Cta> {
    prop::collection::vec(prop::collection::vec(instruction(), 0..8), 1..4).prop_map(|warps| {
        let mut cta = Cta { id: Dim3 { x: 3, y: 1, z: 0 }, ..Cta::default() };
        for (warp_id, instructions) in warps.into_iter().enumerate() {
            let first = cta.instructions.len() as u32;
            for (mut inst, addresses) in instructions {
                if inst.mem_width > 0 && inst.addresses == Addresses::None {
                    inst.addresses = Addresses::Listed { start: cta.addresses.len() as u32 };
                    cta.addresses.extend(addresses);
                }
                cta.instructions.push(inst);
            }
            let len = cta.instructions.len() as u32 - first;
            cta.warps.push(WarpTrace { warp_id: warp_id as u32, first, len });
        }
        cta
    })
}

/// The canonical form a reader produces (listed runs that are strided become
/// `Strided` and leave the pool; opcodes are numbered in order of first use),
/// with the table its opcode ids refer to.
fn canonical(cta: &Cta, table: &OpcodeTable) -> (Cta, OpcodeTable) {
    let header = KernelHeader { tracer_version: 5, binary_version: 80, ..KernelHeader::default() };
    let mut text = Vec::new();
    write_header(&mut text, &header).expect("writes");
    write_cta(&mut text, cta, table).expect("writes");
    let mut kernel = read_all("generated", &text);
    let table = table_of(&kernel);
    (kernel.ctas.remove(0), table)
}

fn opcode_table() -> OpcodeTable {
    let mut table = OpcodeTable::new(Isa::Ampere);
    for op in OPCODES {
        table.intern(op, &mut Vec::new());
    }
    table
}

proptest! {
    #[test]
    fn generated_ctas_survive_a_rewrite(cta in cta()) {
        let table = opcode_table();
        let (once, once_table) = canonical(&cta, &table);
        prop_assert_eq!(cta.instructions.len(), once.instructions.len());
        // Per-lane addresses are what a rewrite must keep, whatever the encoding.
        for (a, b) in cta.instructions.iter().zip(&once.instructions) {
            let lanes_a: Vec<_> = cta.lane_addresses(a).collect();
            let lanes_b: Vec<_> = once.lane_addresses(b).collect();
            prop_assert_eq!(lanes_a, lanes_b);
            prop_assert_eq!(&table.info(a.opcode).text, &once_table.info(b.opcode).text);
            prop_assert_eq!((a.pc, a.mask, a.dsts(), a.srcs(), a.mem_width, a.immediate),
                            (b.pc, b.mask, b.dsts(), b.srcs(), b.mem_width, b.immediate));
        }
        // And the canonical form is a fixed point.
        prop_assert_eq!(canonical(&once, &once_table).0, once);
    }
}
