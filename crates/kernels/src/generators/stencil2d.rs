//! `stencil2d`: one 5-point Jacobi step on an H × W float grid,
//! `out[y][x] = c · (in[y][x] + in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1])`,
//! one thread per point in 32 × 8 CTAs (a warp is 32 consecutive points of
//! one row).
//!
//! The kernel starts with `if (x < 1 || x >= W-1 || y < 1 || y >= H-1) return;`
//! so the grid's boundary is left alone: its lanes take the `@P0 EXIT`, the
//! first and last columns' lanes drop out of their warps' masks and the
//! warps of the first and last rows end right there. Interior lanes load the
//! point and its four neighbours (west and east share the centre's pointer
//! with a ±4-byte offset, north and south are one row, W floats, away) and
//! store the weighted sum. Each interior warp runs 33 instructions, a
//! boundary-row warp 14.
//!
//! At the default size (1024 × 640 points, 2560 CTAs) the kernel fills
//! SM7_QV100 for exactly four waves: 24 registers per thread and 256 threads
//! per CTA fit 8 CTAs (thread-limited) on each of its 80 SMs.

use warplab_trace::{Cta, Dim3};

use crate::generator::{Knob, Params, size};
use crate::generators::grid_x;
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, WarpWriter, Workload};
use crate::{for_each_warp, mask_where};

/// CTA width in threads (one warp).
const BLOCK_X: u64 = 32;
/// CTA height in threads; also the rows per unit of `size`.
const BLOCK_Y: u64 = 8;
/// Bytes per float.
const FLOAT: u64 = 4;
/// The five loads' `(dx, dy)`, in source order: centre, north, south, west,
/// east.
const POINTS: [(i64, i64); 5] = [(0, 0), (0, -1), (0, 1), (-1, 0), (1, 0)];

pub(crate) const GENERATOR: Generator = Generator {
    name: "stencil2d",
    summary: "5-point Jacobi step on a float grid, one thread per point, boundary lanes masked off",
    size: size("N: H = 8·N rows (one row of CTAs per N, up to 16384 rows); ≈ 8.25·N·width warp instructions", 80, 2048),
    knobs: &[Knob {
        name: "width",
        help: "W, points per row (a multiple of 32, one CTA per 32)",
        default: 1024,
        min: 32,
        max: 8192,
    }],
    uses_config: false,
    build,
};

struct Ops {
    setup: [Op; 7],
    guard: [Op; 6],
    exit_guard: Op,
    addressing: [Op; 6],
    loads: [Op; 5],
    math: [Op; 5],
    address_out: Op,
    store: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        setup: [
            code.op("MOV", &[1], &[]),
            code.op("S2R", &[0], &[]),
            code.op("S2R", &[3], &[]),
            code.op("S2R", &[2], &[]),
            code.op("S2R", &[5], &[]),
            code.op("IMAD", &[0], &[0, 3]),
            code.op("IMAD", &[2], &[2, 5]),
        ],
        // P0 = x >= W-1 || x < 1 || y >= H-1 || y < 1.
        guard: [
            code.op("IADD3", &[4], &[RZ]),
            code.op("IADD3", &[6], &[RZ]),
            code.op("ISETP.GE.AND", &[], &[0, 4]),
            code.op("ISETP.LT.OR", &[], &[0]),
            code.op("ISETP.GE.OR", &[], &[2, 6]),
            code.op("ISETP.LT.OR", &[], &[2]),
        ],
        exit_guard: code.op("EXIT", &[], &[]),
        // R8 = y*W + x; R10:11 = &in[idx]; R14:15 = &in[idx+W]; R16:17 = &in[idx-W].
        addressing: [
            code.op("MOV", &[7], &[]),
            code.op("MOV", &[12], &[]),
            code.op("IMAD", &[8], &[2, 12, 0]),
            code.op("IMAD.WIDE", &[10], &[8, 7]),
            code.op("IMAD.WIDE", &[14], &[12, 7, 10]),
            code.op("IMAD.WIDE", &[16], &[12, 10]),
        ],
        loads: [
            code.op("LDG.E.SYS", &[18], &[10]),
            code.op("LDG.E.SYS", &[19], &[16]),
            code.op("LDG.E.SYS", &[20], &[14]),
            code.op("LDG.E.SYS", &[21], &[10]),
            code.op("LDG.E.SYS", &[22], &[10]),
        ],
        math: [
            code.op("FADD", &[18], &[18, 19]),
            code.op("FADD", &[18], &[18, 20]),
            code.op("FADD", &[18], &[18, 21]),
            code.op("FADD", &[18], &[18, 22]),
            code.op("FMUL", &[18], &[18]),
        ],
        address_out: code.op("IMAD.WIDE", &[8], &[8, 7]),
        store: code.op("STG.E.SYS", &[], &[8, 18]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct Stencil {
    ops: Ops,
    input: Array,
    output: Array,
    width: u64,
    height: u64,
}

impl Stencil {
    fn interior(&self, (x, y): (u64, u64)) -> bool {
        (1..self.width - 1).contains(&x) && (1..self.height - 1).contains(&y)
    }

    /// The element index of the point `(dx, dy)` away from interior point `(x, y)`.
    fn index(&self, (x, y): (u64, u64), (dx, dy): (i64, i64)) -> u64 {
        y.wrapping_add_signed(dy) * self.width + x.wrapping_add_signed(dx)
    }

    /// The loads, the weighted sum and the store of the interior lanes `inside`.
    fn update(&self, w: &mut WarpWriter<'_>, inside: u32, point: impl Fn(u32) -> (u64, u64)) {
        let ops = &self.ops;
        for op in ops.addressing {
            w.exec(op, inside);
        }
        for (&op, offset) in ops.loads.iter().zip(POINTS) {
            w.mem(op, inside, |lane| self.input.at(self.index(point(lane), offset)));
        }
        for op in ops.math {
            w.exec(op, inside);
        }
        w.exec(ops.address_out, inside);
        w.mem(ops.store, inside, |lane| self.output.at(self.index(point(lane), (0, 0))));
        w.exec(ops.exit, inside);
    }
}

impl CtaBody for Stencil {
    fn fill(&self, _index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        let id = cta.id;
        for_each_warp(cta, BLOCK_X * BLOCK_Y, |w, warp| {
            let point = |lane| {
                let thread = warp.thread(lane);
                (u64::from(id.x) * BLOCK_X + thread % BLOCK_X, u64::from(id.y) * BLOCK_Y + thread / BLOCK_X)
            };
            for op in ops.setup.into_iter().chain(ops.guard) {
                w.exec(op, warp.mask);
            }
            let inside = warp.mask & mask_where(|lane| self.interior(point(lane)));
            w.exec(ops.exit_guard, warp.mask & !inside);
            if inside != 0 {
                self.update(w, inside, point);
            }
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let (width, height) = (params.knob("width"), params.size() * BLOCK_Y);
    if width % BLOCK_X != 0 {
        return Err(GenError::Inconsistent(format!("width = {width} is not a multiple of {BLOCK_X}")));
    }
    let mut memory = DeviceMemory::default();
    let input = memory.input(width * height, FLOAT);
    let output = memory.alloc(width * height, FLOAT);
    let mut code = params.code();
    let ops = listing(&mut code);
    let launch = Launch {
        name: "_Z9stencil2dPKfPfiif",
        grid: Dim3 { x: grid_x(width / BLOCK_X)?, y: (height / BLOCK_Y) as u32, z: 1 },
        block: Dim3 { x: BLOCK_X as u32, y: BLOCK_Y as u32, z: 1 },
        shmem_bytes: 0,
    };
    let kernel = Kernel::new(launch, &code, Stencil { ops, input, output, width, height });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::Command;
    use crate::test_support::{for_each_op, run};

    /// The base of the array the host copies in.
    fn input_base(workload: &crate::Workload) -> u64 {
        let mut copies = workload.commands.iter().filter_map(|command| match command {
            Command::MemcpyHtoD { addr, .. } => Some(*addr),
            Command::Kernel(_) => None,
        });
        copies.next().expect("the input is copied in")
    }

    #[test]
    fn interior_points_read_themselves_and_their_four_neighbours_and_the_boundary_nothing() {
        let (width, height) = (64u64, 24u64);
        let workload = run("stencil2d:size=3,width=64");
        let kernel = workload.kernels().next().unwrap();
        let base = input_base(&workload);
        // Per thread (CTA, warp, lane), the element indices of its loads.
        let mut reads: HashMap<(u32, u32, u32), Vec<u64>> = HashMap::new();
        let mut stores = Vec::new();
        kernel.for_each_cta(|cta| {
            for warp in &cta.warps {
                let range = warp.first as usize..(warp.first + warp.len) as usize;
                for inst in &cta.instructions[range] {
                    let text = &kernel.opcodes().info(inst.opcode).text;
                    for (lane, address) in cta.lane_addresses(inst) {
                        let thread = (cta.id.x + 2 * cta.id.y, warp.warp_id, lane);
                        if text.starts_with("LDG") {
                            reads.entry(thread).or_default().push((address - base) / 4);
                        } else if text.starts_with("STG") {
                            stores.push(thread);
                        }
                    }
                }
            }
        });
        let mut interior = 0;
        for cta in 0..2 * 3 {
            for warp in 0..8 {
                for lane in 0..32 {
                    let (x, y) = (u64::from(cta % 2) * 32 + u64::from(lane), u64::from(cta / 2) * 8 + u64::from(warp));
                    let loads = reads.get(&(cta, warp, lane));
                    if x == 0 || x == width - 1 || y == 0 || y == height - 1 {
                        assert!(loads.is_none(), "boundary point ({x}, {y}) loads nothing");
                        continue;
                    }
                    interior += 1;
                    let centre = y * width + x;
                    let expected = vec![centre, centre - width, centre + width, centre - 1, centre + 1];
                    assert_eq!(loads, Some(&expected), "point ({x}, {y})");
                }
            }
        }
        assert_eq!(interior, (width - 2) * (height - 2));
        assert_eq!(stores.len() as u64, interior, "one store per interior point, none on the boundary");
        assert_eq!(reads.len() as u64, interior);
    }

    #[test]
    fn boundary_rows_exit_whole_warps_and_edge_columns_mask_one_lane() {
        let workload = run("stencil2d:size=2,width=32");
        let kernel = workload.kernels().next().unwrap();
        let mut masks = Vec::new();
        for_each_op(kernel, "LDG", |_, inst, _| masks.push(inst.mask));
        // 16 rows, 14 of them interior, 5 loads each, lanes 0 and 31 masked.
        assert_eq!(masks.len(), 14 * 5);
        assert!(masks.iter().all(|&mask| mask == 0x7fff_fffe));
    }
}
