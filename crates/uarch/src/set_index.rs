//! Cache set-index functions of GPGPU-Sim's cache strings: which set an address maps to.
//!
//! Every function starts from the same split of a byte address: the line
//! number (`addr / line_size_bytes`), its low part `index = line % n_sets`
//! and the bits above it, `higher_bits = line / n_sets`. Linear indexing uses
//! `index` alone; the hashes fold `higher_bits` into it so that power-of-two
//! strides, common in GPU code, stop landing on one set.
//!
//! GPGPU-Sim masks and shifts because its set counts are powers of two; this
//! module divides and takes remainders instead, which gives the same answer for
//! powers of two and keeps non-power-of-two counts (which a scaled or carved-out
//! configuration may produce) in range without a panic.

use warplab_config::cache::SetIndex;

/// The set `addr` maps to, in `0..n_sets`, under `function`.
///
/// - [`SetIndex::Linear`]: `(addr / line_size_bytes) % n_sets`.
/// - [`SetIndex::Xor`]: GPGPU-Sim's bitwise XOR function, `index ^ (higher_bits
///   % n_sets)`. For a set count that is not a power of two the XOR could leave
///   the range, so it falls back to linear.
/// - [`SetIndex::Ipoly`]: [`ipoly_hash`] for 16, 32 or 64 sets; linear for any
///   other count (GPGPU-Sim has no equations for them and asserts).
/// - [`SetIndex::FermiHash`]: the Fermi L1 hash (Nugteren et al., HPCA 2014) for
///   32 or 64 sets: line-number bits 0..5 XOR address bits 13, 14, 15, 17 and
///   19, with address bit 12 on top for 64 sets; linear for any other count.
/// - [`SetIndex::Custom`]: GPGPU-Sim leaves its custom function unimplemented
///   (it returns set 0 or trips an assertion, depending on the version), so
///   warplab uses linear indexing.
///
/// A zero `line_size_bytes` or `n_sets` (which validation rules out) is taken
/// as 1, so the function never divides by zero.
pub fn set_index(function: SetIndex, addr: u64, line_size_bytes: u32, n_sets: u32) -> u32 {
    SetIndexer::new(function, line_size_bytes, n_sets).set_of(addr)
}

/// [`set_index`] for one cache's geometry, with what depends only on the
/// geometry worked out once: the shifts of its powers of two and the function
/// its set count leaves (a hash without equations for the count falls back to
/// linear). A cache looks up a set for every access and fill: deciding
/// these per call cost 0.1–0.5% of a run's host instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetIndexer {
    function: Applied,
    split: Split,
    n_sets: u32,
}

/// The function a cache applies, after the fallbacks of [`set_index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Applied {
    Linear,
    Xor,
    Ipoly,
    FermiHash,
}

/// How a byte address splits into the line number, its set part and the bits above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// A power-of-two line size and set count: shifts and a mask (the same
    /// numbers, without the divisions that dominate a look-up in a large LLC).
    Shifts { line_shift: u32, set_shift: u32 },
    /// Divisions otherwise.
    Divide { line_size_bytes: u32 },
}

impl SetIndexer {
    /// `function` for lines of `line_size_bytes` in `n_sets` sets (either 0,
    /// which validation rules out, is taken as 1).
    pub fn new(function: SetIndex, line_size_bytes: u32, n_sets: u32) -> Self {
        let (line_size_bytes, n_sets) = (line_size_bytes.max(1), n_sets.max(1));
        let function = match function {
            SetIndex::Xor if n_sets.is_power_of_two() => Applied::Xor,
            SetIndex::Ipoly if matches!(n_sets, 16 | 32 | 64) => Applied::Ipoly,
            SetIndex::FermiHash if matches!(n_sets, 32 | 64) => Applied::FermiHash,
            _ => Applied::Linear,
        };
        let split = if line_size_bytes.is_power_of_two() && n_sets.is_power_of_two() {
            Split::Shifts { line_shift: line_size_bytes.trailing_zeros(), set_shift: n_sets.trailing_zeros() }
        } else {
            Split::Divide { line_size_bytes }
        };
        Self { function, split, n_sets }
    }

    /// The set `addr` maps to, in `0..n_sets`.
    pub fn set_of(&self, addr: u64) -> u32 {
        let (line_number, index, higher_bits) = self.split(addr);
        match self.function {
            Applied::Linear => index,
            Applied::Xor => index ^ remainder(higher_bits, self.n_sets),
            Applied::Ipoly => ipoly_hash(higher_bits, index, self.n_sets),
            Applied::FermiHash => fermi_hash(addr, line_number, self.n_sets),
        }
    }

    /// The line number of `addr`, its set part and the bits above it.
    fn split(&self, addr: u64) -> (u64, u32, u64) {
        match self.split {
            Split::Shifts { line_shift, set_shift } => {
                let line_number = addr >> line_shift;
                // The mask keeps the value below `n_sets`, a u32.
                let index = (line_number & u64::from(self.n_sets - 1)) as u32;
                (line_number, index, line_number >> set_shift)
            }
            Split::Divide { line_size_bytes } => {
                let line_number = addr / u64::from(line_size_bytes);
                (line_number, remainder(line_number, self.n_sets), line_number / u64::from(self.n_sets))
            }
        }
    }
}

/// GPGPU-Sim's IPOLY hash: `index` (its low log2(`n_bins`) bits) XOR a
/// pseudo-random function of `higher_bits`, for 16, 32 or 64 bins.
///
/// The function is multiplication by `x^n` modulo an irreducible polynomial
/// over GF(2) (Rau, ISCA 1991; the equations of Khairy et al., TPDS 2017):
/// IPOLY(5) for 16 bins, IPOLY(37) for 32 and IPOLY(67) for 64. Because the
/// polynomial is irreducible, any `n_bins` consecutive multiples of a power of
/// two land in distinct bins. Each output bit is the parity of a fixed subset
/// of `higher_bits` (the masks below) XOR the matching bit of `index`.
///
/// The caller's address-to-slice mapping may use it with other inputs (e.g.
/// DRAM rows and banks). For a bin count other than 16, 32 or 64, for which
/// GPGPU-Sim has no equations, it returns `index % n_bins` (0 when `n_bins`
/// is 0), so the result is always below `n_bins` when `n_bins` is non-zero.
pub fn ipoly_hash(higher_bits: u64, index: u32, n_bins: u32) -> u32 {
    let table = match n_bins {
        16 => &IPOLY_16_TABLE,
        32 => &IPOLY_32_TABLE,
        64 => &IPOLY_64_TABLE,
        _ => return index.checked_rem(n_bins).unwrap_or(0),
    };
    (index & (n_bins - 1)) ^ table.fold(higher_bits)
}

/// The hash's output bits as a function of `higher_bits`, a byte at a time.
///
/// Each output bit is a parity over `higher_bits`, so the output is linear
/// over GF(2): the XOR of what each byte of `higher_bits` contributes alone.
/// The table holds that contribution for every value of each byte the masks
/// reach, so a hash is three look-ups instead of one parity per output bit
/// (a parity is a dozen instructions where the target has no `popcnt`, and
/// every L2 access and DRAM bank choice takes one hash).
struct ParityTable {
    by_byte: [[u8; 256]; PARITY_BYTES],
}

/// Bytes of `higher_bits` any IPOLY mask reaches (bits 0 to 18).
const PARITY_BYTES: usize = 3;

impl ParityTable {
    /// The table of the hash whose output bit `b` is the parity of `masks[b]`.
    const fn of(masks: &[u64]) -> Self {
        let mut by_byte = [[0u8; 256]; PARITY_BYTES];
        let mut byte = 0;
        while byte < PARITY_BYTES {
            let mut value = 0;
            while value < 256 {
                let bits = (value as u64) << (8 * byte);
                let mut out = 0u8;
                let mut bit = 0;
                while bit < masks.len() {
                    out |= (((bits & masks[bit]).count_ones() & 1) as u8) << bit;
                    bit += 1;
                }
                by_byte[byte][value] = out;
                value += 1;
            }
            byte += 1;
        }
        Self { by_byte }
    }

    /// The output bits for `higher_bits`: each byte's contribution, XORed.
    fn fold(&self, higher_bits: u64) -> u32 {
        let byte = |i: usize| self.by_byte[i][((higher_bits >> (8 * i)) & 0xFF) as usize];
        u32::from(byte(0) ^ byte(1) ^ byte(2))
    }
}

static IPOLY_16_TABLE: ParityTable = ParityTable::of(&IPOLY_16_BINS);
static IPOLY_32_TABLE: ParityTable = ParityTable::of(&IPOLY_32_BINS);
static IPOLY_64_TABLE: ParityTable = ParityTable::of(&IPOLY_64_BINS);

/// Which bits of `higher_bits` feed output bit 0, 1, 2, 3 of the 16-bin hash.
const IPOLY_16_BINS: [u64; 4] = [
    bits(&[11, 10, 9, 8, 6, 4, 3, 0]),
    bits(&[12, 8, 7, 6, 5, 3, 1, 0]),
    bits(&[9, 8, 7, 6, 4, 2, 1]),
    bits(&[10, 9, 8, 7, 5, 3, 2]),
];

/// Which bits of `higher_bits` feed output bits 0..5 of the 32-bin hash.
const IPOLY_32_BINS: [u64; 5] = [
    bits(&[13, 12, 11, 10, 9, 6, 5, 3, 0]),
    bits(&[14, 13, 12, 11, 10, 7, 6, 4, 1]),
    bits(&[14, 10, 9, 8, 7, 6, 3, 2, 0]),
    bits(&[11, 10, 9, 8, 7, 4, 3, 1]),
    bits(&[12, 11, 10, 9, 8, 5, 4, 2]),
];

/// Which bits of `higher_bits` feed output bits 0..6 of the 64-bin hash.
const IPOLY_64_BINS: [u64; 6] = [
    bits(&[18, 17, 16, 15, 12, 10, 6, 5, 0]),
    bits(&[15, 13, 12, 11, 10, 7, 5, 1, 0]),
    bits(&[16, 14, 13, 12, 11, 8, 6, 2, 1]),
    bits(&[17, 15, 14, 13, 12, 9, 7, 3, 2]),
    bits(&[18, 16, 15, 14, 13, 10, 8, 4, 3]),
    bits(&[17, 16, 15, 14, 11, 9, 5, 4]),
];

/// A mask with the listed bit positions set; written as lists so the tables
/// read like the published equations.
const fn bits(positions: &[u32]) -> u64 {
    let mut mask = 0;
    let mut i = 0;
    while i < positions.len() {
        mask |= 1 << positions[i];
        i += 1;
    }
    mask
}

/// `value % divisor` as a `u32`; the result is below `divisor`, so it fits.
fn remainder(value: u64, divisor: u32) -> u32 {
    // The remainder is below a u32 divisor, so the conversion cannot fail.
    u32::try_from(value % u64::from(divisor)).unwrap_or(0)
}

/// The Fermi hash for 32 or 64 sets. The upper bits are fixed address bits
/// (they assume 128 B lines, as the Fermi L1 had), whatever the line size.
fn fermi_hash(addr: u64, line_number: u64, n_sets: u32) -> u32 {
    let lower = line_number & 0x1F;
    let upper = ((addr >> 13) & 0b111) | ((addr >> 17) & 1) << 3 | ((addr >> 19) & 1) << 4;
    let mut set = lower ^ upper;
    if n_sets == 64 {
        // The 48 KB configuration doubles the sets and takes bit 12 as the top index bit.
        set |= ((addr >> 12) & 1) << 5;
    }
    // Five bits, six with 64 sets: already below `n_sets` (no remainder to
    // take, which would be a division on every L1 look-up).
    set as u32
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const ALL_FUNCTIONS: [SetIndex; 5] =
        [SetIndex::Linear, SetIndex::Xor, SetIndex::Ipoly, SetIndex::FermiHash, SetIndex::Custom];

    /// The sets of `count` addresses `stride` bytes apart, starting at 0.
    fn check(function: SetIndex, n_sets: u32, stride: u64, count: u64, expect: &[u32]) {
        let got: Vec<u32> = (0..count).map(|k| set_index(function, k * stride, 128, n_sets)).collect();
        assert_eq!(got, expect, "{function:?} with {n_sets} sets, stride {stride}");
    }

    /// How many of `count` addresses `stride` bytes apart land in each set.
    fn histogram(function: SetIndex, n_sets: u32, stride: u64, count: u64) -> Vec<u32> {
        let mut hits = vec![0; n_sets as usize];
        for k in 0..count {
            hits[set_index(function, k * stride, 128, n_sets) as usize] += 1;
        }
        hits
    }

    #[test]
    fn linear_examples() {
        check(SetIndex::Linear, 4, 128, 6, &[0, 1, 2, 3, 0, 1]);
        check(SetIndex::Linear, 4, 32, 5, &[0, 0, 0, 0, 1]);
        // Sets need not be a power of two for linear indexing.
        check(SetIndex::Linear, 3, 128, 5, &[0, 1, 2, 0, 1]);
        assert_eq!(set_index(SetIndex::Linear, 0x1234_5680, 128, 64), (0x1234_5680 / 128) % 64);
        // Custom is linear too.
        check(SetIndex::Custom, 4, 128, 5, &[0, 1, 2, 3, 0]);
    }

    #[test]
    fn xor_folds_the_next_bits_in() {
        // With 4 sets of 128 B, bits 9..11 are the higher bits XORed into the index.
        check(SetIndex::Xor, 4, 512, 5, &[0, 1, 2, 3, 0]);
        assert_eq!(set_index(SetIndex::Xor, 512 + 128, 128, 4), 1 ^ 1);
        // Non-power-of-two sets fall back to linear.
        check(SetIndex::Xor, 3, 128, 4, &[0, 1, 2, 0]);
    }

    #[test]
    fn fermi_hash_examples() {
        // Bit 13 flips set bit 0; bit 12 is the top set bit with 64 sets.
        assert_eq!(set_index(SetIndex::FermiHash, 1 << 13, 128, 32), 1);
        assert_eq!(set_index(SetIndex::FermiHash, (1 << 13) | 128, 128, 32), 0);
        assert_eq!(set_index(SetIndex::FermiHash, 1 << 19, 128, 32), 0b10000);
        assert_eq!(set_index(SetIndex::FermiHash, 1 << 12, 128, 64), 32);
        assert_eq!(set_index(SetIndex::FermiHash, 1 << 12, 128, 32), 0);
        // Other set counts are linear.
        check(SetIndex::FermiHash, 16, 128, 3, &[0, 1, 2]);
    }

    #[test]
    fn ipoly_spreads_a_power_of_two_stride_over_every_set() {
        for n_sets in [16u32, 32, 64] {
            let stride = u64::from(n_sets) * 128;
            let count = u64::from(n_sets) * 4;
            // Linear indexing camps on set 0.
            let linear = histogram(SetIndex::Linear, n_sets, stride, count);
            assert_eq!(linear[0], n_sets * 4, "{n_sets} sets");
            // IPOLY is conflict-free for power-of-two strides: every set gets exactly 4.
            let ipoly = histogram(SetIndex::Ipoly, n_sets, stride, count);
            assert_eq!(ipoly, vec![4; n_sets as usize], "{n_sets} sets");
            // Larger power-of-two strides too.
            for shift in 1..6 {
                let ipoly = histogram(SetIndex::Ipoly, n_sets, stride << shift, u64::from(n_sets));
                assert_eq!(ipoly, vec![1; n_sets as usize], "{n_sets} sets, stride {}", stride << shift);
            }
        }
    }

    #[test]
    fn ipoly_of_zero_higher_bits_is_the_index() {
        assert_eq!(ipoly_hash(0, 5, 16), 5);
        assert_eq!(ipoly_hash(0, 63, 64), 63);
        assert_eq!(ipoly_hash(1, 0, 32), 0b00101);
        // Other bin counts fall back to the index, kept in range.
        assert_eq!(ipoly_hash(7, 9, 8), 1);
        assert_eq!(ipoly_hash(7, 9, 0), 0);
        check(SetIndex::Ipoly, 8, 128, 3, &[0, 1, 2]);
    }

    proptest! {
        #[test]
        fn results_are_always_in_range(
            addr in any::<u64>(),
            function_idx in 0usize..5,
            n_sets in 0u32..200,
            line_shift in 0u32..13,
            higher_bits in any::<u64>(),
            index in any::<u32>(),
            n_bins in 1u32..100,
        ) {
            let got = set_index(ALL_FUNCTIONS[function_idx], addr, 1 << line_shift, n_sets);
            prop_assert!(got < n_sets.max(1));
            prop_assert!(ipoly_hash(higher_bits, index, n_bins) < n_bins);
        }

        /// The byte tables give each output bit the parity of its mask, as
        /// the published equations define it, for any input.
        #[test]
        fn the_tables_are_the_parities(higher_bits in any::<u64>(), index in any::<u32>(), log2_bins in 4u32..7) {
            let n_bins = 1 << log2_bins;
            let masks: &[u64] = match n_bins {
                16 => &IPOLY_16_BINS,
                32 => &IPOLY_32_BINS,
                _ => &IPOLY_64_BINS,
            };
            let parities = masks.iter().enumerate().fold(0, |out, (bit, mask)| out | ((higher_bits & mask).count_ones() & 1) << bit);
            prop_assert_eq!(ipoly_hash(higher_bits, index, n_bins), (index & (n_bins - 1)) ^ parities);
        }

        /// The indexer's shifts give the sets the definition's divisions
        /// give, and its fallbacks are the definition's, for any geometry.
        #[test]
        fn the_indexer_is_the_definition(
            addr in any::<u64>(),
            function_idx in 0usize..5,
            n_sets in prop_oneof![0u32..200, (0u32..8).prop_map(|k| 16 << k)],
            line_size_bytes in prop_oneof![0u32..300, (0u32..9).prop_map(|k| 1 << k)],
        ) {
            let function = ALL_FUNCTIONS[function_idx];
            let (line, n) = (u64::from(line_size_bytes.max(1)), n_sets.max(1));
            let line_number = addr / line;
            let (index, higher_bits) = ((line_number % u64::from(n)) as u32, line_number / u64::from(n));
            let expected = match function {
                SetIndex::Xor if n.is_power_of_two() => index ^ (higher_bits % u64::from(n)) as u32,
                SetIndex::Ipoly if matches!(n, 16 | 32 | 64) => ipoly_hash(higher_bits, index, n),
                SetIndex::FermiHash if matches!(n, 32 | 64) => fermi_hash(addr, line_number, n),
                _ => index,
            };
            prop_assert_eq!(SetIndexer::new(function, line_size_bytes, n_sets).set_of(addr), expected);
        }
    }

    #[test]
    fn the_tables_reach_every_mask_bit() {
        let reach = (1u64 << (8 * PARITY_BYTES)) - 1;
        for mask in IPOLY_16_BINS.iter().chain(&IPOLY_32_BINS).chain(&IPOLY_64_BINS) {
            assert_eq!(mask & !reach, 0, "mask {mask:#x} reaches past the tables' bytes");
        }
    }
}
