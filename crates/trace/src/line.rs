//! The instruction-line parser: one `.traceg` line into an [`Instruction`],
//! for every layout Accel-Sim's tracer has produced.
//!
//! ```text
//! [tb_x tb_y tb_z warp]  (version < 3)   [line]  (lineinfo)
//! PC mask n_dst dst… OPCODE n_src src… mem_width [mode addresses…] [immediate (version >= 5)]
//! ```
//! Address modes: 0 one hex address per active lane; 1 `base stride`, the k-th
//! active lane at `base + k * stride`; 2 `base` and one signed delta per
//! further active lane, each relative to the previous active lane.

use crate::fields::{Fields, IN_RANGE};
use crate::instruction::{MAX_DST_REGS, MAX_SRC_REGS};
use crate::opcode::OpcodeTable;
use crate::static_fields::{StaticFields, StaticFieldsByPc};
use crate::{Addresses, Diagnostic, Instruction, MemSpace, Reg};

/// Generic accesses within this many bytes above the local-memory base are
/// local (Accel-Sim's window check).
const LOCAL_WINDOW_BYTES: u64 = 16 * 1024;

/// What a malformed line gets wrong: the field and a message.
pub(crate) type LineError = (&'static str, String);

/// How instruction lines are laid out, from the header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub tracer_version: u32,
    pub line_info: bool,
    pub shmem_base: u64,
    pub local_base: u64,
}

/// The state a line parse writes into: the kernel's opcodes, diagnostics and
/// static fields by PC, and the CTA's address pool.
pub(crate) struct LineSink<'a> {
    pub opcodes: &'a mut OpcodeTable,
    pub diagnostics: &'a mut Vec<Diagnostic>,
    pub pool: &'a mut Vec<u64>,
    pub static_fields: &'a mut StaticFieldsByPc,
}

/// Parses one instruction line.
pub(crate) fn parse_instruction(
    line: &[u8],
    layout: Layout,
    sink: &mut LineSink<'_>,
) -> Result<Instruction, LineError> {
    let mut tokens = Fields::new(line);
    let mut inst = Instruction::default();
    if layout.tracer_version < 3 {
        for field in ["tb_x", "tb_y", "tb_z", "warp id"] {
            tokens.decimal::<u32>(field)?;
        }
    }
    if layout.line_info {
        inst.source_line = tokens.decimal("line number")?;
    }
    inst.pc = u32::try_from(tokens.hex("PC")?).map_err(|_| ("PC", "larger than 32 bits".to_owned()))?;
    inst.mask = tokens.mask()?;
    tokens.rest();
    let start = tokens.at;
    let whole_line_remembered = static_fields(&mut tokens, start, sink, &mut inst)?;
    if !whole_line_remembered && inst.mem_width > 0 {
        inst.addresses = addresses(&mut tokens, inst.mask, sink.pool)?;
    }
    inst.space = resolve_space(sink.opcodes.info(inst.opcode).space, &inst, sink.pool, layout);
    if whole_line_remembered {
        return Ok(inst);
    }
    if tokens.has_more() {
        inst.immediate = tokens.signed("immediate", "a number")?;
    } else if layout.tracer_version >= 5 {
        return Err(("immediate", "missing (tracer version 5 ends every line with one)".to_owned()));
    }
    if let Some(extra) = tokens.next_token() {
        return Err(("line", format!("unexpected `{}` after the end of the instruction", extra?)));
    }
    if inst.mem_width == 0 {
        // No addresses: the rest of the line is the program's, and may come back whole.
        sink.static_fields.remember(inst.pc, &line[start..], StaticFields::of(&inst), Some(inst.immediate));
    }
    Ok(inst)
}

/// Reads the static part of the line at `tokens`, which begins at byte
/// `start`, from the destination count to the access width, or takes it from
/// the fields remembered at its PC; `true` when the memo held the rest of the
/// line, immediate and all.
fn static_fields(
    tokens: &mut Fields<'_>,
    start: usize,
    sink: &mut LineSink<'_>,
    inst: &mut Instruction,
) -> Result<bool, LineError> {
    if let Some(found) = sink.static_fields.find(inst.pc, &tokens.line[start..]) {
        found.fields.write_to(inst);
        tokens.at = start + found.len;
        inst.immediate = found.immediate.unwrap_or(0);
        return Ok(found.immediate.is_some());
    }
    inst.n_dst = registers(tokens, &DESTINATIONS, &mut inst.dst)?;
    let opcode = tokens.next("opcode")?;
    inst.opcode = sink
        .opcodes
        .intern(opcode, sink.diagnostics)
        .ok_or_else(|| ("opcode", format!("more than {} distinct opcodes in one kernel", crate::MAX_OPCODES)))?;
    inst.n_src = registers(tokens, &SOURCES, &mut inst.src)?;
    inst.mem_width = tokens.decimal("mem_width")?;
    sink.static_fields.remember(inst.pc, &tokens.line[start..tokens.at], StaticFields::of(inst), None);
    Ok(false)
}

/// The fields of a register list: its count's and each register's names, and
/// how many registers an instruction has room for.
struct RegisterList {
    count: &'static str,
    register: &'static str,
    max: usize,
}

const DESTINATIONS: RegisterList =
    RegisterList { count: "dest_num", register: "destination register", max: MAX_DST_REGS };
const SOURCES: RegisterList = RegisterList { count: "src_num", register: "source register", max: MAX_SRC_REGS };

/// Reads a count and that many register names into `regs`; returns the count.
fn registers(fields: &mut Fields<'_>, list: &RegisterList, regs: &mut [Reg]) -> Result<u8, LineError> {
    let count: usize = fields.decimal(list.count)?;
    if count > regs.len() {
        return Err((list.count, format!("{count} registers; at most {} are supported", list.max)));
    }
    for slot in regs.iter_mut().take(count) {
        *slot = fields.register(list.register)?;
    }
    Ok(count as u8)
}

/// Reads the address mode and addresses of a memory instruction.
fn addresses(tokens: &mut Fields<'_>, mask: u32, pool: &mut Vec<u64>) -> Result<Addresses, LineError> {
    let lanes = mask.count_ones() as usize;
    let start = pool.len();
    match tokens.decimal::<u8>("address mode")? {
        0 => {
            for _ in 0..lanes {
                pool.push(tokens.hex("address")?);
            }
        }
        1 => {
            let base = tokens.hex("base address")?;
            let stride = tokens.signed("stride", IN_RANGE)?;
            return Ok(Addresses::Strided { base, stride });
        }
        2 => {
            let mut address = tokens.hex("base address")?;
            if lanes > 0 {
                pool.push(address);
            }
            for _ in 1..lanes {
                address = address.wrapping_add_signed(tokens.signed("address delta", IN_RANGE)?);
                pool.push(address);
            }
        }
        mode => return Err(("address mode", format!("expected 0, 1 or 2, found {mode}"))),
    }
    Ok(crate::instruction::compact(pool, start))
}

/// Resolves a generic access by its first active address: in the shared window
/// → shared, in the local window → local, else global; with either window
/// base unknown (0), generic accesses are shared, as in Accel-Sim.
fn resolve_space(space: MemSpace, inst: &Instruction, pool: &[u64], layout: Layout) -> MemSpace {
    if space != MemSpace::Generic || inst.mem_width == 0 {
        return space;
    }
    if layout.shmem_base == 0 || layout.local_base == 0 {
        return MemSpace::Shared;
    }
    let first = match inst.addresses {
        Addresses::Strided { base, .. } => base,
        Addresses::Listed { start } => pool.get(start as usize).copied().unwrap_or(0),
        Addresses::None => return MemSpace::Global,
    };
    if (layout.shmem_base..layout.local_base).contains(&first) {
        MemSpace::Shared
    } else if (layout.local_base..layout.local_base.saturating_add(LOCAL_WINDOW_BYTES)).contains(&first) {
        MemSpace::Local
    } else {
        MemSpace::Global
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Isa;

    pub(super) const V5: Layout = Layout { tracer_version: 5, line_info: false, shmem_base: 0, local_base: 0 };

    /// What a kernel reader keeps for its lines, and the address pool of a CTA.
    pub(super) struct KernelState {
        pub opcodes: OpcodeTable,
        pub diagnostics: Vec<Diagnostic>,
        pub pool: Vec<u64>,
        pub static_fields: StaticFieldsByPc,
    }

    impl KernelState {
        pub fn new() -> Self {
            KernelState {
                opcodes: OpcodeTable::new(Isa::Ampere),
                diagnostics: Vec::new(),
                pool: Vec::new(),
                static_fields: StaticFieldsByPc::new(),
            }
        }

        pub fn parse(&mut self, line: &[u8], layout: Layout) -> Result<Instruction, LineError> {
            let mut sink = LineSink {
                opcodes: &mut self.opcodes,
                diagnostics: &mut self.diagnostics,
                pool: &mut self.pool,
                static_fields: &mut self.static_fields,
            };
            parse_instruction(line, layout, &mut sink)
        }
    }

    /// Parses `line` and renders what was read, or the error as `field: message`.
    fn check(layout: Layout, line: &str, expect: &str) {
        let mut state = KernelState::new();
        let got = match state.parse(line.as_bytes(), layout) {
            Ok(i) => format!(
                "pc={:x} mask={:08x} dst={:?} src={:?} op={} w={} addr={:x?} pool={:x?} space={:?} imm={} line={}",
                i.pc,
                i.mask,
                i.dsts().iter().map(|r| r.0).collect::<Vec<_>>(),
                i.srcs().iter().map(|r| r.0).collect::<Vec<_>>(),
                state.opcodes.info(i.opcode).text,
                i.mem_width,
                i.addresses,
                state.pool,
                i.space,
                i.immediate,
                i.source_line
            ),
            Err((field, message)) => format!("{field}: {message}"),
        };
        assert_eq!(got, expect);
    }

    #[test]
    fn v5_lines_of_the_anchors() {
        check(
            V5,
            "00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0",
            "pc=a0 mask=ffffffff dst=[4] src=[4] op=LDG.E w=4 addr=Strided { base: 7fb0fc430e00, stride: 4 } pool=[] space=Global imm=0 line=0",
        );
        check(
            V5,
            "00d0 00000000 0 BRA 0 0 2944",
            "pc=d0 mask=00000000 dst=[] src=[] op=BRA w=0 addr=None pool=[] space=None imm=2944 line=0",
        );
        check(
            V5,
            "0220 ffffffff 0 STL.64 2 R1 R4 8 1 0xfffbd0 0 0",
            "pc=220 mask=ffffffff dst=[] src=[1, 4] op=STL.64 w=8 addr=Strided { base: fffbd0, stride: 0 } pool=[] space=Local imm=0 line=0",
        );
        check(
            V5,
            "0010 0000ffff 1 R1 MOV 0 0 -7",
            "pc=10 mask=0000ffff dst=[1] src=[] op=MOV w=0 addr=None pool=[] space=None imm=-7 line=0",
        );
    }

    #[test]
    fn address_modes_0_and_2_expand_per_active_lane() {
        // Mode 2 with a gap in the mask (lanes 0, 1, 3): base, then a delta per further lane.
        check(
            V5,
            "0870 0000000b 1 R28 LDL 1 R6 4 2 0x100 8 -4 0",
            "pc=870 mask=0000000b dst=[28] src=[6] op=LDL w=4 addr=Listed { start: 0 } pool=[100, 108, 104] space=Local imm=0 line=0",
        );
        // Mode 0 that is really strided is kept compact.
        check(
            V5,
            "0010 00000007 0 STG.E 2 R2 R3 4 0 0x1000 0x1004 0x1008 0",
            "pc=10 mask=00000007 dst=[] src=[2, 3] op=STG.E w=4 addr=Strided { base: 1000, stride: 4 } pool=[] space=Global imm=0 line=0",
        );
    }

    #[test]
    fn older_layouts() {
        let v4_line_info = Layout { tracer_version: 4, line_info: true, ..V5 };
        check(
            v4_line_info,
            "17 0048 ffffffff 0 ISETP.GE.AND 1 R0 0",
            "pc=48 mask=ffffffff dst=[] src=[0] op=ISETP.GE.AND w=0 addr=None pool=[] space=None imm=0 line=17",
        );
        let pre_v3 = Layout { tracer_version: 1, ..v4_line_info };
        let pre_v3 = Layout { line_info: false, ..pre_v3 };
        check(
            pre_v3,
            "0 0 0 0 0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4",
            "pc=290 mask=ffff0000 dst=[8] src=[2] op=LDG.E.SYS w=4 addr=Strided { base: 7fe033702880, stride: 4 } pool=[] space=Global imm=0 line=0",
        );
    }

    #[test]
    fn generic_accesses_resolve_by_window() {
        let windows = Layout { shmem_base: 0x7000_0000, local_base: 0x7100_0000, ..V5 };
        check(
            windows,
            "0010 00000001 1 R1 LD.E 1 R2 4 1 0x70000010 0 0",
            "pc=10 mask=00000001 dst=[1] src=[2] op=LD.E w=4 addr=Strided { base: 70000010, stride: 0 } pool=[] space=Shared imm=0 line=0",
        );
        check(
            windows,
            "0010 00000001 1 R1 LD.E 1 R2 4 1 0x71000010 0 0",
            "pc=10 mask=00000001 dst=[1] src=[2] op=LD.E w=4 addr=Strided { base: 71000010, stride: 0 } pool=[] space=Local imm=0 line=0",
        );
        check(
            windows,
            "0010 00000001 1 R1 LD.E 1 R2 4 1 0x1000 0 0",
            "pc=10 mask=00000001 dst=[1] src=[2] op=LD.E w=4 addr=Strided { base: 1000, stride: 0 } pool=[] space=Global imm=0 line=0",
        );
    }

    #[test]
    fn malformed_lines_name_the_field() {
        check(V5, "00a0 fffffffff 0 NOP 0 0 0", "mask: expected up to 8 hex digits, found `fffffffff`");
        check(V5, "00a0 ffffffff 1 X4 NOP 0 0 0", "destination register: expected `R<n>` or `UR<n>`, found `X4`");
        check(V5, "00a0 ffffffff 3 R1 R2 R3 NOP 0 0 0", "dest_num: 3 registers; at most 2 are supported");
        check(V5, "00a0 00000003 1 R4 LDG.E 1 R4 4 0 0x10", "address: missing: the line ends early");
        check(V5, "00a0 00000003 1 R4 LDG.E 1 R4 4 7 0x10 0", "address mode: expected 0, 1 or 2, found 7");
        check(V5, "00a0 ffffffff 0 NOP 0 0", "immediate: missing (tracer version 5 ends every line with one)");
        check(V5, "00a0 ffffffff 0 NOP 0 0 1 2", "line: unexpected `2` after the end of the instruction");
        check(V5, "zz ffffffff 0 NOP 0 0 1", "PC: expected a hex number, found `zz`");
        check(V5, "00a0 ffffffff 0 NOP 0 99999 1", "mem_width: expected a decimal number in range, found `99999`");
    }
}

/// Property tests (native only, as proptest is).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use proptest::prelude::*;

    use super::tests::{KernelState, V5};
    use super::*;

    /// A line of every layout element, with one byte changed to `byte` at
    /// `at` (modulo its length).
    fn corrupted(at: usize, byte: u8) -> Vec<u8> {
        let mut line = b"00a0 0000000b 2 R4 UR5 LDG.E.64 1 R4 4 2 0x7fb0fc430e00 8 -4 -7".to_vec();
        let at = at % line.len();
        line[at] = byte;
        line
    }

    /// Lines at a few PCs whose static parts differ a little, in every way
    /// the memo must tell apart (a longer field, another register, spacing).
    fn repeated_lines() -> impl Strategy<Value = Vec<String>> {
        // Rests of lines that differ from one another by a field's end, an
        // immediate, a token more, or spacing, so that most cases meet them
        // at one PC; and random ones.
        let near = proptest::sample::select(vec![
            "0 NOP 0 0",
            "0 NOP 0 0 0",
            "0 NOP 0 0 -2",
            "0 NOP 0 0 -2 5",
            "0 NOP 0 0 -2 ",
            "0 NOP 0 0  -2",
            "1 R4 LDG.E 1 R4 4 1 0x10 4 0",
            "1 R4 LDG.E 1 R4 40 1 0x10 4 0",
            "1 R4 LDG.E 1 R4 4 1 0x10 4",
        ])
        .prop_map(str::to_owned);
        let random = proptest::string::string_regex(
            "(0|1 R4|1 UR4|2 R4 R40|1 R4\t) {1,2}(LDG.E|LDG|NOP|MOV|BAD.X) (0|1 R4|1 R44|1 RZ) (0|4|40) ?(1 0x10 4 )?(0|-2)?",
        )
        .expect("a valid pattern");
        let line = (prop_oneof![Just("0010"), Just("0020"), Just("1010")], prop_oneof![near, random])
            .prop_map(|(pc, rest)| format!("{pc} 0000000f {rest}"));
        proptest::collection::vec(line, 1..40)
    }

    /// Each line parsed in order with one kernel's state, the memo of static
    /// fields kept across the lines or started afresh for each.
    fn parse_all(lines: &[String], keep_memo: bool) -> Vec<String> {
        let mut state = KernelState::new();
        let layout = Layout { tracer_version: 4, ..V5 };
        let mut parsed = Vec::new();
        for line in lines {
            if !keep_memo {
                state.static_fields = StaticFieldsByPc::new();
            }
            parsed.push(format!("{:?}", state.parse(line.as_bytes(), layout)));
        }
        parsed.push(format!("{:?} {:?}", state.diagnostics, state.pool));
        parsed
    }

    proptest! {
        #[test]
        fn remembered_static_fields_are_what_parsing_gives(lines in repeated_lines()) {
            prop_assert_eq!(parse_all(&lines, true), parse_all(&lines, false));
        }

        #[test]
        fn a_line_that_is_not_utf8_never_parses(at in 0usize..64, byte in prop_oneof![Just(0x80u8), Just(0xc2), Just(0xe9), Just(0xff), 0u8..=255]) {
            let line = corrupted(at, byte);
            let parsed = KernelState::new().parse(&line, V5);
            prop_assert!(parsed.is_err() || std::str::from_utf8(&line).is_ok());
        }
    }
}
