//! An address field spread over bits of a mask: the bits gathered, packed
//! lowest first (a software `pext`).
//!
//! An address mapping names each DRAM field (channel, bank, row, column) by a
//! mask whose bits need not be consecutive. Every request is decoded several
//! times on its way (its L2 slice at the SM, the slice's set index at each
//! look-up and fill, the bank, row and column at the DRAM), so a field keeps
//! its mask's runs of consecutive bits, found once, instead of searching the
//! mask on every use: then one run costs a shift, a mask and an OR.

/// Runs kept per field; a mask with more is gathered by searching it, with
/// the same result. Every field of the presets' mappings fits
/// (`every_presets_fields_keep_their_runs` in `address_map`).
const MAX_RUNS: usize = 4;

/// One run of consecutive mask bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Run {
    /// The run's lowest bit in the value.
    start: u32,
    /// The run's bits, shifted down to bit 0.
    bits: u64,
    /// Where the run's bits go in the gathered field.
    to: u32,
}

/// The bits of `mask`, gathered from a value lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitField {
    mask: u64,
    runs: [Run; MAX_RUNS],
    /// Runs of `mask` kept in `runs`, or `None` when it has more than [`MAX_RUNS`].
    n_runs: Option<usize>,
}

impl BitField {
    /// The field of `mask`'s bits.
    pub fn new(mask: u64) -> Self {
        let mut runs = [Run::default(); MAX_RUNS];
        let mut n_runs = Some(0);
        for_each_run(mask, |run| match n_runs {
            Some(n) if n < MAX_RUNS => {
                runs[n] = run;
                n_runs = Some(n + 1);
            }
            _ => n_runs = None,
        });
        Self { mask, runs, n_runs }
    }

    /// The mask the field was made from.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Whether the field gathers from its kept runs, not by searching its mask.
    pub fn keeps_runs(&self) -> bool {
        self.n_runs.is_some()
    }

    /// The bits of `value` the mask selects, packed together lowest first.
    pub fn extract(&self, value: u64) -> u64 {
        let Some(n) = self.n_runs else { return extract_bits(value, self.mask) };
        self.runs[..n].iter().fold(0, |field, run| field | ((value >> run.start) & run.bits) << run.to)
    }
}

/// The bits of `value` that `mask` selects, packed together lowest first,
/// searching the mask's runs as it goes.
fn extract_bits(value: u64, mask: u64) -> u64 {
    let mut field = 0;
    for_each_run(mask, |run| field |= ((value >> run.start) & run.bits) << run.to);
    field
}

/// Calls `each` with every run of consecutive bits of `mask`, lowest first.
fn for_each_run(mask: u64, mut each: impl FnMut(Run)) {
    let mut remaining = mask;
    let mut to = 0;
    while remaining != 0 {
        let start = remaining.trailing_zeros();
        let width = (!(remaining >> start)).trailing_zeros();
        let bits = if width >= 64 { u64::MAX } else { (1 << width) - 1 };
        each(Run { start, bits, to });
        // `to` stays below 64 while bits remain: the widths add up to at most 64.
        to += width;
        remaining &= !(bits << start);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn bits_are_packed_lowest_first() {
        assert_eq!(extract_bits(0b1011_0110, 0b1111_0000), 0b1011);
        assert_eq!(extract_bits(0b1011_0110, 0b1010_0101), 0b1110);
        assert_eq!(extract_bits(u64::MAX, u64::MAX), u64::MAX);
        assert_eq!(extract_bits(0x8000_0000_0000_0001, (1 << 63) | 1), 0b11);
        assert_eq!(BitField::new(0b1010_0101).extract(0b1011_0110), 0b1110);
        assert_eq!(BitField::new(u64::MAX).extract(0x1234_5678_9ABC_DEF0), 0x1234_5678_9ABC_DEF0);
        assert_eq!(BitField::new(0).extract(u64::MAX), 0);
    }

    #[test]
    fn a_mask_of_many_runs_is_searched() {
        let alternate = 0x5555_5555_5555_5555;
        let field = BitField::new(alternate);
        assert_eq!(field.n_runs, None);
        assert_eq!(field.extract(u64::MAX), u64::from(u32::MAX));
        assert_eq!(BitField::new(0b1010_1010).n_runs, Some(4), "four runs are kept");
    }

    proptest! {
        /// The kept runs gather exactly what a bit-by-bit gather does.
        #[test]
        fn a_field_gathers_the_masks_bits(mask in any::<u64>(), value in any::<u64>(), runs in 1u32..6) {
            // Masks of a few runs, as mappings have, and arbitrary ones.
            let few = mask & (u64::MAX >> (64 - 12 * runs)) & 0x0F0F_0F0F_0F0F_0F0F;
            for mask in [mask, few, mask & 0xFFFF_0000, !mask] {
                let mut expected = 0;
                for (to, bit) in (0..64).filter(|bit| mask >> bit & 1 == 1).enumerate() {
                    expected |= (value >> bit & 1) << to;
                }
                prop_assert_eq!(BitField::new(mask).extract(value), expected);
                prop_assert_eq!(extract_bits(value, mask), expected);
            }
        }
    }
}
