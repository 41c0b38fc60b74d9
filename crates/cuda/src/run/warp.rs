//! Executing one CTA of a compiled kernel, warp by warp, on the functional
//! memory image, recording each warp's instructions with their active masks
//! and addresses.
//!
//! Each warp has GPGPU-Sim's SIMT stack: a divergent branch replaces the top
//! entry's PC by the branch's immediate post-dominator and pushes the
//! not-taken and then the taken path, each to run until it reaches that PC;
//! exited lanes leave every entry. Warps run in order, each until it reaches
//! `BAR.SYNC` or exits; when every live warp waits, the barrier opens, so
//! shared memory sees exactly the orderings `__syncthreads` guarantees.

use super::memory::{DeviceMemory, Miss};
use crate::codegen::CompiledKernel;
use crate::sass::{AtomicOp, Inst, Memory, MufuFn, NO_RECONVERGENCE, Op, Operand, Src};

/// A step's instruction index carries this bit when its addresses are
/// stored as a base and a stride.
pub(crate) const STRIDED: u32 = 1 << 31;

/// What a launch's CTAs share.
pub(crate) struct Launch<'a> {
    pub kernel: &'a CompiledKernel,
    /// Constant bank 0 as 32-bit words: shapes at 0x0, parameters at 0x160.
    pub constants: &'a [u32],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Static and dynamic shared memory, in bytes.
    pub shared_bytes: u32,
}

/// A fault: the instruction and the message.
#[derive(Debug)]
pub(crate) struct Fault {
    pub inst: usize,
    pub message: String,
}

/// One warp's recorded stream.
#[derive(Default)]
pub(crate) struct WarpStream {
    /// (instruction index, possibly with [`STRIDED`], mask).
    pub steps: Vec<(u32, u32)>,
    /// Memory steps' addresses: one per active lane, or base and stride.
    pub addresses: Vec<u64>,
}

#[derive(Clone, Copy)]
struct Entry {
    pc: u32,
    reconverge: u32,
    mask: u32,
}

#[derive(Default)]
struct WarpState {
    stack: Vec<Entry>,
    exited: u32,
    waiting: bool,
}

/// Runs CTAs one after another, reusing its buffers.
#[derive(Default)]
pub(crate) struct CtaRunner {
    regs: Vec<u32>,
    /// Per warp, P0..P6 as lane masks.
    preds: Vec<[u32; 7]>,
    shared: Vec<u32>,
    warps: Vec<WarpState>,
    /// Each warp's stream of the last CTA run.
    pub streams: Vec<WarpStream>,
    n_regs: usize,
    block_index: [u32; 3],
}

enum Flow {
    Continue,
    Wait,
    Done,
}

impl CtaRunner {
    /// Runs CTA `block_index` of `launch`, spending `budget` warp instructions.
    pub fn run(
        &mut self,
        launch: &Launch<'_>,
        block_index: [u32; 3],
        memory: &mut DeviceMemory,
        budget: &mut u64,
    ) -> Result<(), Fault> {
        let threads = launch.block.iter().map(|&d| d as usize).product::<usize>();
        let n_warps = threads.div_ceil(32);
        self.n_regs = (launch.kernel.registers as usize).max(1);
        self.block_index = block_index;
        self.regs.clear();
        self.regs.resize(n_warps * self.n_regs * 32, 0);
        self.preds.clear();
        self.preds.resize(n_warps, [0; 7]);
        self.shared.clear();
        self.shared.resize(launch.shared_bytes.div_ceil(4) as usize, 0);
        self.warps.resize_with(n_warps, WarpState::default);
        self.streams.resize_with(n_warps, WarpStream::default);
        for (warp, state) in self.warps.iter_mut().enumerate() {
            let lanes = (threads - warp * 32).min(32);
            let mask = if lanes == 32 { u32::MAX } else { (1u32 << lanes) - 1 };
            state.stack.clear();
            state.stack.push(Entry { pc: 0, reconverge: NO_RECONVERGENCE, mask });
            state.exited = 0;
            state.waiting = false;
            self.streams[warp].steps.clear();
            self.streams[warp].addresses.clear();
        }
        loop {
            let mut live = false;
            for warp in 0..n_warps {
                if self.warps[warp].stack.is_empty() {
                    continue;
                }
                if !self.warps[warp].waiting {
                    self.run_warp(launch, warp, memory, budget)?;
                }
                live |= !self.warps[warp].stack.is_empty();
            }
            if !live {
                return Ok(());
            }
            // Every live warp waits at the barrier: it opens.
            self.warps.iter_mut().for_each(|state| state.waiting = false);
        }
    }

    fn run_warp(
        &mut self,
        launch: &Launch<'_>,
        warp: usize,
        memory: &mut DeviceMemory,
        budget: &mut u64,
    ) -> Result<(), Fault> {
        loop {
            let state = &mut self.warps[warp];
            let Some(top) = state.stack.last().copied() else { return Ok(()) };
            let active = top.mask & !state.exited;
            let Some(inst) = launch.kernel.insts.get(top.pc as usize) else {
                // Past the end (only after a path that cannot reconverge):
                // the lanes are done.
                state.exited |= active;
                normalize(state);
                continue;
            };
            if *budget == 0 {
                return Err(Fault { inst: top.pc as usize, message: String::new() });
            }
            *budget -= 1;
            match self.execute(launch, warp, top.pc, inst, active, memory)? {
                Flow::Continue => {}
                Flow::Wait => {
                    self.warps[warp].waiting = !self.warps[warp].stack.is_empty();
                    return Ok(());
                }
                Flow::Done => return Ok(()),
            }
        }
    }

    fn execute(
        &mut self,
        launch: &Launch<'_>,
        warp: usize,
        pc: u32,
        inst: &Inst,
        active: u32,
        memory: &mut DeviceMemory,
    ) -> Result<Flow, Fault> {
        let exec = match inst.guard {
            Some(guard) => active & self.predicate(warp, guard.index, guard.negate),
            None => active,
        };
        if inst.divisor {
            self.check_divisor(launch, warp, pc, inst, exec)?;
        }
        let recorded = if inst.op == Op::Bra { active } else { exec };
        let mut lanes_out = [0u64; 32];
        match inst.op {
            Op::Bra => {
                self.streams[warp].steps.push((pc, recorded));
                self.branch(warp, inst, active, exec);
                return Ok(self.after_control(warp));
            }
            Op::Exit => {
                self.streams[warp].steps.push((pc, recorded));
                let state = &mut self.warps[warp];
                state.exited |= exec;
                advance(state);
                return Ok(self.after_control(warp));
            }
            Op::Bar => {
                self.streams[warp].steps.push((pc, recorded));
                advance(&mut self.warps[warp]);
                let flow = self.after_control(warp);
                return Ok(if matches!(flow, Flow::Done) { flow } else { Flow::Wait });
            }
            Op::ISetp { .. } | Op::FSetp(_) => {
                let mut mask = 0;
                for lane in lanes(exec) {
                    mask |= u32::from(self.compare(launch, warp, inst, lane)) << lane;
                }
                let p = &mut self.preds[warp][0];
                *p = (*p & !exec) | mask;
            }
            Op::Load(_) | Op::Store(_) | Op::Atomic(..) => {
                let count = self.memory_access(launch, warp, pc, inst, exec, memory, &mut lanes_out)?;
                self.record_memory(warp, pc, recorded, &lanes_out[..count]);
                advance(&mut self.warps[warp]);
                return Ok(Flow::Continue);
            }
            _ => {
                for lane in lanes(exec) {
                    lanes_out[lane as usize] = self.alu(launch, warp, inst, lane);
                }
                self.write(warp, inst, exec, &lanes_out);
            }
        }
        self.streams[warp].steps.push((pc, recorded));
        advance(&mut self.warps[warp]);
        Ok(Flow::Continue)
    }

    fn after_control(&mut self, warp: usize) -> Flow {
        let state = &mut self.warps[warp];
        normalize(state);
        if state.stack.is_empty() { Flow::Done } else { Flow::Continue }
    }

    fn branch(&mut self, warp: usize, inst: &Inst, active: u32, taken: u32) {
        let state = &mut self.warps[warp];
        let Some(top) = state.stack.last_mut() else { return };
        if taken == active {
            top.pc = inst.target;
        } else if taken == 0 {
            top.pc += 1;
        } else {
            let (next, reconverge) = (top.pc + 1, inst.reconverge);
            top.pc = reconverge;
            state.stack.push(Entry { pc: next, reconverge, mask: active & !taken });
            state.stack.push(Entry { pc: inst.target, reconverge, mask: taken });
        }
    }

    fn predicate(&self, warp: usize, index: u8, negate: bool) -> u32 {
        let mask = if index >= 7 { u32::MAX } else { self.preds[warp][usize::from(index)] };
        if negate { !mask } else { mask }
    }

    fn reg(&self, warp: usize, reg: u32, lane: u32) -> u32 {
        self.regs[(warp * self.n_regs + reg as usize) * 32 + lane as usize]
    }

    /// A source's 32 bits, integer negation applied.
    fn int(&self, launch: &Launch<'_>, warp: usize, src: &Src, lane: u32) -> u32 {
        let value = self.raw(launch, warp, src.operand, lane);
        if src.negate { value.wrapping_neg() } else { value }
    }

    /// A source as a float, `|x|` and `-x` applied.
    fn float(&self, launch: &Launch<'_>, warp: usize, src: &Src, lane: u32) -> f32 {
        let mut bits = self.raw(launch, warp, src.operand, lane);
        if src.abs {
            bits &= 0x7fff_ffff;
        }
        if src.negate {
            bits ^= 0x8000_0000;
        }
        f32::from_bits(bits)
    }

    fn raw(&self, launch: &Launch<'_>, warp: usize, operand: Operand, lane: u32) -> u32 {
        match operand {
            Operand::Zero => 0,
            Operand::Reg(reg) => self.reg(warp, reg, lane),
            Operand::Imm(value) => value,
            Operand::Const(offset) => launch.constants.get(offset as usize / 4).copied().unwrap_or(0),
        }
    }

    fn wide(&self, launch: &Launch<'_>, warp: usize, operand: Operand, lane: u32) -> u64 {
        match operand {
            Operand::Reg(reg) => {
                u64::from(self.reg(warp, reg, lane)) | (u64::from(self.reg(warp, reg + 1, lane)) << 32)
            }
            Operand::Const(offset) => {
                let word = |i: usize| u64::from(launch.constants.get(i).copied().unwrap_or(0));
                word(offset as usize / 4) | (word(offset as usize / 4 + 1) << 32)
            }
            other => u64::from(self.raw(launch, warp, other, lane)),
        }
    }

    fn compare(&self, launch: &Launch<'_>, warp: usize, inst: &Inst, lane: u32) -> bool {
        match inst.op {
            Op::FSetp(cmp) => {
                let (a, b) =
                    (self.float(launch, warp, &inst.src[0], lane), self.float(launch, warp, &inst.src[1], lane));
                cmp.holds(a.partial_cmp(&b))
            }
            Op::ISetp { cmp, signed } => {
                let (a, b) = (self.int(launch, warp, &inst.src[0], lane), self.int(launch, warp, &inst.src[1], lane));
                cmp.holds(Some(if signed { (a as i32).cmp(&(b as i32)) } else { a.cmp(&b) }))
            }
            _ => false,
        }
    }

    /// The value of an arithmetic instruction in one lane (64 bits for a
    /// wide destination).
    fn alu(&self, launch: &Launch<'_>, warp: usize, inst: &Inst, lane: u32) -> u64 {
        let int = |i: usize| self.int(launch, warp, &inst.src[i], lane);
        let float = |i: usize| self.float(launch, warp, &inst.src[i], lane);
        let bits = |f: f32| u64::from(f.to_bits());
        let selected = self.predicate(warp, inst.pred.index, inst.pred.negate) & (1 << lane) != 0;
        let value = match inst.op {
            Op::Mov => int(0),
            Op::IAdd3 => int(0).wrapping_add(int(1)).wrapping_add(int(2)),
            Op::IMad => int(0).wrapping_mul(int(1)).wrapping_add(int(2)),
            Op::IMadHi => ((u64::from(int(0)) * u64::from(int(1))) >> 32) as u32 + int(2),
            Op::IMadWide { signed } => return self.mad_wide(launch, warp, inst, lane, signed),
            Op::Shl => int(0).checked_shl(int(1)).unwrap_or(0),
            Op::ShrU => int(2).checked_shr(int(1)).unwrap_or(0),
            Op::ShrS => ((int(2) as i32) >> int(1).min(31)) as u32,
            Op::Lop3(lut) => lop3(lut, int(0), int(1), int(2)),
            Op::Sel => {
                if selected {
                    int(0)
                } else {
                    int(1)
                }
            }
            Op::FAdd => return bits(float(0) + float(1)),
            Op::FMul => return bits(float(0) * float(1)),
            Op::FFma => return bits(float(0).mul_add(float(1), float(2))),
            Op::FMnMx => return bits(if selected { float(0).min(float(1)) } else { float(0).max(float(1)) }),
            Op::IMnMx { signed } => {
                let (a, b) = (int(0), int(1));
                let a_less = if signed { (a as i32) < (b as i32) } else { a < b };
                if a_less == selected { a } else { b }
            }
            Op::Mufu(function) => return bits(mufu(function, float(0))),
            Op::I2F { signed: true } => return bits(int(0) as i32 as f32),
            Op::I2F { signed: false } => return bits(int(0) as f32),
            Op::I2FRoundUp => return bits(round_up(int(0))),
            Op::F2I { signed: true } => float(0) as i32 as u32,
            Op::F2I { signed: false } => float(0) as u32,
            Op::IAbs => (int(0) as i32).unsigned_abs(),
            Op::S2R { block, axis } => self.special(launch, warp, block, axis, lane),
            _ => 0,
        };
        u64::from(value)
    }

    fn mad_wide(&self, launch: &Launch<'_>, warp: usize, inst: &Inst, lane: u32, signed: bool) -> u64 {
        let extend = |src: &Src| {
            let raw = self.raw(launch, warp, src.operand, lane);
            let value = if signed { i64::from(raw as i32) } else { i64::from(raw) };
            if src.negate { value.wrapping_neg() } else { value }
        };
        let base = self.wide(launch, warp, inst.src[2].operand, lane);
        (extend(&inst.src[0]).wrapping_mul(extend(&inst.src[1])) as u64).wrapping_add(base)
    }

    fn special(&self, launch: &Launch<'_>, warp: usize, block: bool, axis: u8, lane: u32) -> u32 {
        let axis = usize::from(axis.min(2));
        if block {
            return self.block_index[axis];
        }
        thread_index(launch.block, warp, lane)[axis]
    }

    fn write(&mut self, warp: usize, inst: &Inst, exec: u32, values: &[u64; 32]) {
        let Operand::Reg(reg) = inst.dst else { return };
        let base = (warp * self.n_regs + reg as usize) * 32;
        let wide = inst.wide_dst();
        for lane in lanes(exec) {
            let value = values[lane as usize];
            self.regs[base + lane as usize] = value as u32;
            if wide {
                self.regs[base + 32 + lane as usize] = (value >> 32) as u32;
            }
        }
    }

    fn check_divisor(&self, launch: &Launch<'_>, warp: usize, pc: u32, inst: &Inst, exec: u32) -> Result<(), Fault> {
        match lanes(exec).find(|&lane| self.int(launch, warp, &inst.src[0], lane) == 0) {
            Some(lane) => Err(Fault {
                inst: pc as usize,
                message: format!("integer division by zero {}", self.who(launch, warp, lane)),
            }),
            None => Ok(()),
        }
    }

    /// `by thread (x,y,z) in block (x,y,z)`, as compute-sanitizer names them.
    fn who(&self, launch: &Launch<'_>, warp: usize, lane: u32) -> String {
        let [x, y, z] = thread_index(launch.block, warp, lane);
        let [bx, by, bz] = self.block_index;
        format!("by thread ({x},{y},{z}) in block ({bx},{by},{bz})")
    }

    /// Executes a memory instruction lane by lane in lane order (atomics
    /// from one warp are applied in that order) and returns how many lane
    /// addresses it put in `addresses`.
    #[allow(clippy::too_many_arguments)]
    fn memory_access(
        &mut self,
        launch: &Launch<'_>,
        warp: usize,
        pc: u32,
        inst: &Inst,
        exec: u32,
        memory: &mut DeviceMemory,
        addresses: &mut [u64; 32],
    ) -> Result<usize, Fault> {
        let mut values = [0u64; 32];
        let mut count = 0;
        for lane in lanes(exec) {
            let (space, address) = match inst.op {
                Op::Load(Memory::Global) | Op::Store(Memory::Global) | Op::Atomic(Memory::Global, _) => {
                    (Memory::Global, self.wide(launch, warp, inst.src[0].operand, lane))
                }
                _ => (Memory::Shared, u64::from(self.int(launch, warp, &inst.src[0], lane))),
            };
            addresses[count] = address;
            count += 1;
            let operand = |i: usize| self.int(launch, warp, &inst.src[i], lane);
            let (b, c) = (operand(1), operand(2));
            let word = match space {
                Memory::Global => match memory.locate(address) {
                    Ok((array, word)) => &mut memory.arrays[array].words[word],
                    Err(miss) => {
                        let place = match miss {
                            Miss::OutOfBounds { array, index } => memory.arrays.get(array).map(|a| {
                                let len = a.words.len() as i64;
                                (a.name.clone(), index, len)
                            }),
                            Miss::Misaligned => None,
                        };
                        let message = self.access_message(launch, inst, place, address, warp, lane);
                        return Err(Fault { inst: pc as usize, message });
                    }
                },
                Memory::Shared => {
                    let index = address as usize / 4;
                    if !address.is_multiple_of(4) || index >= self.shared.len() {
                        let place = Some(shared_place(launch.kernel, address as u32));
                        let message = self.access_message(launch, inst, place, address, warp, lane);
                        return Err(Fault { inst: pc as usize, message });
                    }
                    &mut self.shared[index]
                }
            };
            values[lane as usize] = u64::from(*word);
            match inst.op {
                Op::Store(_) => *word = b,
                Op::Atomic(_, op) => *word = atomic(op, *word, b, c),
                _ => {}
            }
        }
        self.write(warp, inst, exec, &values);
        Ok(count)
    }

    /// compute-sanitizer's description of a bad access: the space, the
    /// kind, the size, the thread, and the array and index (`place`).
    fn access_message(
        &self,
        launch: &Launch<'_>,
        inst: &Inst,
        place: Option<(String, i64, i64)>,
        address: u64,
        warp: usize,
        lane: u32,
    ) -> String {
        let kind = match inst.op {
            Op::Load(_) => "read",
            Op::Store(_) => "write",
            _ => "atomic",
        };
        let space = match inst.op {
            Op::Load(Memory::Shared) | Op::Store(Memory::Shared) | Op::Atomic(Memory::Shared, _) => "__shared__",
            _ => "__global__",
        };
        let who = self.who(launch, warp, lane);
        match place {
            Some((name, index, len)) => format!(
                "invalid {space} {kind} of size 4 bytes {who}: index {index} is out of bounds for '{name}' ({len} elements)"
            ),
            None => format!("invalid {space} {kind} of size 4 bytes {who}: misaligned address {address:#x}"),
        }
    }

    fn record_memory(&mut self, warp: usize, pc: u32, mask: u32, addresses: &[u64]) {
        let stream = &mut self.streams[warp];
        let stride = match addresses {
            [first, second, ..] => second.wrapping_sub(*first),
            _ => 0,
        };
        let strided = addresses.windows(2).all(|pair| pair[1].wrapping_sub(pair[0]) == stride);
        if strided && !addresses.is_empty() {
            stream.steps.push((pc | STRIDED, mask));
            stream.addresses.extend([addresses[0], stride]);
        } else {
            stream.steps.push((pc, mask));
            stream.addresses.extend_from_slice(addresses);
        }
    }
}

/// The shared array a byte offset falls in or nearest to, with the index.
fn shared_place(kernel: &CompiledKernel, offset: u32) -> (String, i64, i64) {
    let offset = i64::from(offset as i32);
    let arrays = &kernel.shared_arrays;
    let chosen = arrays.iter().rev().find(|a| i64::from(a.1) <= offset).or(arrays.first());
    match chosen {
        Some((name, start, len)) => (name.clone(), (offset - i64::from(*start)).div_euclid(4), i64::from(*len)),
        None => ("dynamic shared memory".to_owned(), offset / 4, 0),
    }
}

fn advance(state: &mut WarpState) {
    if let Some(top) = state.stack.last_mut() {
        top.pc += 1;
    }
    normalize(state);
}

/// Pops entries that reached their reconvergence point or have no live lane.
fn normalize(state: &mut WarpState) {
    while let Some(top) = state.stack.last() {
        if top.mask & !state.exited == 0 || top.pc == top.reconverge {
            state.stack.pop();
        } else {
            break;
        }
    }
}

fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    let mut mask = mask;
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let lane = mask.trailing_zeros();
            mask &= mask - 1;
            lane
        })
    })
}

/// The thread index of a lane of a warp in a block of shape `block`.
pub(crate) fn thread_index(block: [u32; 3], warp: usize, lane: u32) -> [u32; 3] {
    let thread = warp as u64 * 32 + u64::from(lane);
    let (x, y) = (u64::from(block[0].max(1)), u64::from(block[1].max(1)));
    [(thread % x) as u32, (thread / x % y) as u32, (thread / (x * y)) as u32]
}

fn lop3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..8).filter(|bit| lut & (1 << bit) != 0).fold(0, |acc, bit| {
        let pick = |on: bool, v: u32| if on { v } else { !v };
        acc | (pick(bit & 4 != 0, a) & pick(bit & 2 != 0, b) & pick(bit & 1 != 0, c))
    })
}

fn mufu(function: MufuFn, x: f32) -> f32 {
    match function {
        MufuFn::Rcp => 1.0 / x,
        MufuFn::Sqrt => x.sqrt(),
        MufuFn::Ex2 => x.exp2(),
        MufuFn::Sin => (x * std::f32::consts::TAU).sin(),
    }
}

/// `value` as a float rounded toward +infinity.
fn round_up(value: u32) -> f32 {
    let nearest = value as f32;
    if f64::from(nearest) < f64::from(value) { f32::from_bits(nearest.to_bits() + 1) } else { nearest }
}

fn atomic(op: AtomicOp, old: u32, b: u32, c: u32) -> u32 {
    match op {
        AtomicOp::AddInt => old.wrapping_add(b),
        AtomicOp::AddFloat => (f32::from_bits(old) + f32::from_bits(b)).to_bits(),
        AtomicOp::MaxSigned => (old as i32).max(b as i32) as u32,
        AtomicOp::MaxUnsigned => old.max(b),
        AtomicOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    }
}
