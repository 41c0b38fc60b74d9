//! Photon's online analysis of a kernel's sample of warps: each warp's
//! basic-block vector (instructions executed per block type), warp types
//! (warps with identical vectors), and the kernel's GPU BBV that kernel
//! sampling compares.
//!
//! The GPU BBV lists the warp types by weight (their share of the sampled
//! warps, heaviest first); each type's vector is normalised, randomly
//! projected to `DIMS` dimensions (SimPoint's way of making vectors of
//! different code comparable in a fixed size) and scaled by its share. Two
//! kernels are compared by the Manhattan distance between their lists, so the
//! distance is 0 for the same mix of the same warps and at most 2.
//!
//! The projection of a block depends only on its PCs, never on the order in
//! which a kernel met its blocks, so two launches of the same code project
//! alike. All arithmetic is plain IEEE addition and multiplication, the same
//! natively and in WebAssembly.

use rustc_hash::FxHashMap;
use warplab_trace::Cta;

use super::blocks::{BlockKey, BlockTable};

/// Dimensions of a projected BBV (Photon: 16).
pub const DIMS: usize = 16;

/// The most warp types a GPU BBV lists; lighter ones are dropped (a kernel
/// with more types than this is irregular and will not be reused anyway).
pub const MAX_LISTED_TYPES: usize = 64;

/// What the sample says about a kernel.
#[derive(Debug, Clone, Default)]
pub(crate) struct SampleAnalysis {
    /// Warps analysed.
    pub warps: u64,
    /// Their warp instructions.
    pub warp_insts: u64,
    /// Their thread instructions.
    pub thread_insts: u64,
    /// Distinct warp types among them.
    pub warp_types: u32,
    /// Warps of the most common type.
    pub dominant_warps: u64,
    /// The GPU BBV.
    pub bbv: GpuBbv,
}

/// A kernel's GPU BBV: `DIMS` values per listed warp type, heaviest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GpuBbv(pub Vec<f64>);

impl GpuBbv {
    /// Manhattan distance, the shorter list padded with zeros (0 to 2).
    pub(crate) fn distance(&self, other: &GpuBbv) -> f64 {
        let (long, short) = if self.0.len() >= other.0.len() { (&self.0, &other.0) } else { (&other.0, &self.0) };
        long.iter().enumerate().map(|(i, a)| (a - short.get(i).copied().unwrap_or(0.0)).abs()).sum()
    }
}

/// Builds the analysis while the sample's CTAs are read, one at a time.
#[derive(Debug, Default)]
pub(crate) struct SampleBuilder {
    analysis: SampleAnalysis,
    /// Warp types: a sorted (block key, instructions) vector → warps of that type.
    types: FxHashMap<Vec<(BlockKey, u64)>, u64>,
    scratch: FxHashMap<BlockKey, u64>,
}

impl SampleBuilder {
    /// Adds every warp of `cta`; `ends[opcode]` says whether an opcode ends a block.
    pub(crate) fn add_cta(&mut self, cta: &Cta, ends: &[bool], table: &mut BlockTable) {
        for warp in &cta.warps {
            self.scratch.clear();
            table.walk(cta, warp, ends, |_, block| {
                let key = BlockKey { first_pc: block[0].pc, last_pc: block[block.len() - 1].pc };
                *self.scratch.entry(key).or_default() += block.len() as u64;
            });
            let mut vector: Vec<(BlockKey, u64)> = self.scratch.iter().map(|(&k, &n)| (k, n)).collect();
            vector.sort_unstable();
            *self.types.entry(vector).or_default() += 1;
            let instructions = cta.warp_instructions(warp);
            self.analysis.warps += 1;
            self.analysis.warp_insts += instructions.len() as u64;
            self.analysis.thread_insts += instructions.iter().map(|i| u64::from(i.active_lanes())).sum::<u64>();
        }
    }

    /// Warps added so far.
    pub(crate) fn warps(&self) -> u64 {
        self.analysis.warps
    }

    /// The analysis of everything added.
    pub(crate) fn finish(mut self) -> SampleAnalysis {
        let mut types: Vec<(Vec<(BlockKey, u64)>, u64)> = self.types.into_iter().collect();
        // Heaviest first; equal weights in a fixed order (the vectors themselves).
        types.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let total = self.analysis.warps.max(1) as f64;
        let mut bbv = Vec::with_capacity(DIMS * types.len().min(MAX_LISTED_TYPES));
        for (vector, warps) in types.iter().take(MAX_LISTED_TYPES) {
            let share = *warps as f64 / total;
            bbv.extend(project(vector).iter().map(|v| v * share));
        }
        self.analysis.warp_types = u32::try_from(types.len()).unwrap_or(u32::MAX);
        self.analysis.dominant_warps = types.first().map_or(0, |t| t.1);
        self.analysis.bbv = GpuBbv(bbv);
        self.analysis
    }
}

/// `vector` (instructions per block) normalised to sum 1, projected to
/// `DIMS` dimensions and normalised to Manhattan length 1.
fn project(vector: &[(BlockKey, u64)]) -> [f64; DIMS] {
    let total: u64 = vector.iter().map(|v| v.1).sum();
    let mut out = [0.0; DIMS];
    if total == 0 {
        return out;
    }
    for &(key, insts) in vector {
        let weight = insts as f64 / total as f64;
        let mut state = (u64::from(key.first_pc) << 32) | u64::from(key.last_pc);
        for value in &mut out {
            *value += weight * unit_random(&mut state);
        }
    }
    let length: f64 = out.iter().map(|v| v.abs()).sum();
    if length > 0.0 {
        for value in &mut out {
            *value /= length;
        }
    }
    out
}

/// The next value in [-1, 1) of a SplitMix64 sequence: the projection
/// matrix's entries for one block, a pure function of its PCs.
fn unit_random(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    // 53 random bits scaled to [0, 2), shifted to [-1, 1).
    (z >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

#[cfg(test)]
mod tests {
    use warplab_trace::{Instruction, OpcodeId, WarpTrace};

    use super::*;

    /// A CTA whose warps run `paths` (each a list of PCs; opcode 1 at PC 32 is a branch).
    fn cta(paths: &[&[u32]]) -> Cta {
        let mut cta = Cta::default();
        for (w, path) in paths.iter().enumerate() {
            let first = cta.instructions.len() as u32;
            for &pc in *path {
                let opcode = OpcodeId(u16::from(pc == 32));
                cta.instructions.push(Instruction { pc, opcode, mask: 1, ..Instruction::default() });
            }
            cta.warps.push(WarpTrace { warp_id: w as u32, first, len: path.len() as u32 });
        }
        cta
    }

    fn analyse(paths: &[&[u32]]) -> SampleAnalysis {
        let mut builder = SampleBuilder::default();
        builder.add_cta(&cta(paths), &[false, true], &mut BlockTable::default());
        builder.finish()
    }

    const ONCE: &[u32] = &[0, 16, 32, 48];
    const TWICE: &[u32] = &[0, 16, 32, 16, 32, 48];

    #[test]
    fn identical_warps_are_one_type() {
        let analysis = analyse(&[ONCE, ONCE, ONCE, TWICE]);
        assert_eq!(analysis.warps, 4);
        assert_eq!(analysis.warp_types, 2);
        assert_eq!(analysis.dominant_warps, 3);
        assert_eq!(analysis.warp_insts, 18);
        assert_eq!(analysis.thread_insts, 18);
        assert_eq!(analysis.bbv.0.len(), 2 * DIMS);
        let length: f64 = analysis.bbv.0.iter().map(|v| v.abs()).sum();
        assert!((length - 1.0).abs() < 1e-12, "{length}");
    }

    #[test]
    fn the_same_mix_is_at_distance_zero_and_a_different_one_is_not() {
        let a = analyse(&[ONCE, ONCE, TWICE]);
        let b = analyse(&[TWICE, ONCE, ONCE]);
        assert_eq!(a.bbv.distance(&b.bbv), 0.0);
        let c = analyse(&[TWICE, TWICE, ONCE]);
        assert!(a.bbv.distance(&c.bbv) > 0.1, "{}", a.bbv.distance(&c.bbv));
        assert!(a.bbv.distance(&c.bbv) <= 2.0);
    }

    #[test]
    fn projection_entries_lie_in_minus_one_to_one() {
        let mut state = 7;
        for _ in 0..1000 {
            let v = unit_random(&mut state);
            assert!((-1.0..1.0).contains(&v));
        }
    }
}
