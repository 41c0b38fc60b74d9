//! Writing traces back out in the version-5 text format, which Accel-Sim
//! itself reads (plain, or through `xz -dc`).

use std::io::{self, Write};

use crate::opcode::OpcodeTable;
use crate::{Addresses, Cta, Instruction, KernelHeader, Reg, lanes_in_one_run};

/// The tracer version the writer produces.
pub const WRITTEN_TRACER_VERSION: u32 = 5;

/// Writes the header of a version-5 trace (no line numbers). Header lines
/// warplab does not interpret are written back as they were read.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_header(out: &mut impl Write, header: &KernelHeader) -> io::Result<()> {
    writeln!(out, "-kernel name = {}", header.name)?;
    writeln!(out, "-kernel id = {}", header.id)?;
    writeln!(out, "-grid dim = {}", header.grid)?;
    writeln!(out, "-block dim = {}", header.block)?;
    writeln!(out, "-shmem = {}", header.shmem_bytes)?;
    writeln!(out, "-nregs = {}", header.nregs)?;
    writeln!(out, "-binary version = {}", header.binary_version)?;
    writeln!(out, "-cuda stream id = {}", header.stream_id)?;
    writeln!(out, "-shmem base_addr = {:#018x}", header.shmem_base)?;
    writeln!(out, "-local mem base_addr = {:#018x}", header.local_base)?;
    writeln!(out, "-nvbit version = {}", header.nvbit_version)?;
    writeln!(out, "-accelsim tracer version = {WRITTEN_TRACER_VERSION}")?;
    writeln!(out, "-enable lineinfo = 0")?;
    for (key, value) in &header.other {
        writeln!(out, "-{key} = {value}")?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate"
    )?;
    writeln!(out)
}

/// Writes one CTA with all its warps.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_cta(out: &mut impl Write, cta: &Cta, opcodes: &OpcodeTable) -> io::Result<()> {
    writeln!(out, "\n#BEGIN_TB\n\nthread block = {},{},{}\n", cta.id.x, cta.id.y, cta.id.z)?;
    for warp in &cta.warps {
        writeln!(out, "warp = {}\ninsts = {}", warp.warp_id, warp.len)?;
        for instruction in cta.warp_instructions(warp) {
            write_instruction(out, cta, instruction, opcodes)?;
        }
        writeln!(out)?;
    }
    writeln!(out, "#END_TB")
}

fn write_instruction(out: &mut impl Write, cta: &Cta, inst: &Instruction, opcodes: &OpcodeTable) -> io::Result<()> {
    write!(out, "{:04x} {:08x} {}", inst.pc, inst.mask, inst.n_dst)?;
    write_registers(out, inst.dsts())?;
    write!(out, " {} {}", opcodes.info(inst.opcode).text, inst.n_src)?;
    write_registers(out, inst.srcs())?;
    write!(out, " {}", inst.mem_width)?;
    if inst.mem_width > 0 {
        write_addresses(out, cta, inst)?;
    }
    writeln!(out, " {}", inst.immediate)
}

fn write_registers(out: &mut impl Write, regs: &[Reg]) -> io::Result<()> {
    for reg in regs {
        match reg.0.checked_sub(Reg::UR0) {
            Some(n) => write!(out, " UR{n}")?,
            None => write!(out, " R{}", reg.0)?,
        }
    }
    Ok(())
}

/// Mode 1 (base, stride) when the access is strided over a contiguous run of
/// active lanes, which is the only case Accel-Sim decompresses as we do;
/// otherwise mode 2 (base and deltas), the tracer's own fallback.
fn write_addresses(out: &mut impl Write, cta: &Cta, inst: &Instruction) -> io::Result<()> {
    if inst.mask == 0 {
        return write!(out, " 0");
    }
    if let (Addresses::Strided { base, stride }, true) = (inst.addresses, lanes_in_one_run(inst.mask)) {
        return write!(out, " 1 {base:#x} {stride}");
    }
    let mut lanes = cta.lane_addresses(inst).map(|(_, address)| address);
    let base = lanes.next().unwrap_or(0);
    write!(out, " 2 {base:#x}")?;
    let mut previous = base;
    for address in lanes {
        write!(out, " {}", address.wrapping_sub(previous) as i64)?;
        previous = address;
    }
    Ok(())
}
