//! Shared-memory bank conflicts: how many cycles a warp's shared-memory
//! access occupies the banks.
//!
//! GPGPU-Sim's rule (`-gpgpu_shmem_limited_broadcast 0`, as every preset sets
//! it): shared memory is `n_banks` banks of 4-B words, word w in bank
//! w mod `n_banks`. Lanes reading the same word are served together (a
//! broadcast), so a bank costs one cycle per distinct word it must serve. The
//! access takes, for each subwarp, the largest such count over the banks, and
//! the subwarps go one after another.
//!
//! Wide (8- and 16-B) accesses: GPGPU-Sim looks only at the word holding each
//! lane's first byte. warplab counts every word a lane's access covers. The two
//! agree for any access aligned to its width when the bank count is a multiple
//! of width / 4 (every configuration: 32 banks): the k-th word of each lane's
//! access then falls in bank (first bank + k), which serves exactly the lanes
//! the first bank serves, so every bank of the group has the same count. For
//! contiguous 8- and 16-B accesses this gives 2 and 4 cycles, the phases the
//! hardware takes. They differ only for misaligned or overlapping accesses,
//! where warplab charges the extra words GPGPU-Sim ignores.
//!
//! Not modelled: `-gpgpu_shmem_limited_broadcast 1` (one broadcast word per
//! access).

use crate::coalescer::{Subwarps, WARP_LANES, access_width_bytes};

/// Bytes per shared-memory bank word.
pub const BANK_WORD_BYTES: u64 = 4;
/// The widest shared-memory access per lane (128-bit loads and stores); wider
/// widths are clamped to it.
pub const MAX_SHARED_ACCESS_BYTES: u32 = 16;

/// Words one lane's access can cover: a misaligned 16-B access spans five.
const MAX_WORDS_PER_LANE: usize = 5;

/// The cycles a shared-memory access takes under GPGPU-Sim's bank-conflict
/// rule (see the module documentation): the sum over subwarps of the largest
/// number of distinct words one bank must serve. At least 1 when any lane is
/// active, 0 when none is.
///
/// `lanes` yields `(lane, address)` for the active lanes; lanes outside
/// `0..32` and repeats of a lane are ignored. `width_bytes` 0 is taken as 4,
/// and widths above [`MAX_SHARED_ACCESS_BYTES`] are clamped. `n_banks` 0 is
/// taken as 1, and `subwarps` is split as in [`crate::coalescer::coalesce`].
/// Never allocates.
pub fn shared_memory_cycles(
    lanes: impl Iterator<Item = (u32, u64)>,
    width_bytes: u32,
    n_banks: u32,
    subwarps: u32,
) -> u32 {
    let width_bytes = u64::from(access_width_bytes(width_bytes).min(MAX_SHARED_ACCESS_BYTES));
    let n_banks = u64::from(n_banks.max(1));
    let subwarps = Subwarps::new(subwarps);

    // Every (subwarp, bank, word) touched; sorting groups each bank's words
    // so distinct words can be counted without a table per bank.
    let mut touched = [(0u32, 0u64, 0u64); WARP_LANES as usize * MAX_WORDS_PER_LANE];
    let mut n_touched = 0;
    let mut lanes_seen = 0u32;
    for (lane, addr) in lanes {
        if lane >= WARP_LANES || lanes_seen & (1 << lane) != 0 {
            continue;
        }
        lanes_seen |= 1 << lane;
        let subwarp = subwarps.of_lane(lane);
        let first_word = addr / BANK_WORD_BYTES;
        let last_word = addr.saturating_add(width_bytes - 1) / BANK_WORD_BYTES;
        for word in first_word..=last_word {
            touched[n_touched] = (subwarp, word % n_banks, word);
            n_touched += 1;
        }
    }
    let touched = &mut touched[..n_touched];
    touched.sort_unstable();

    let mut cycles = 0;
    let mut subwarp_worst = 0;
    let mut bank_words = 0;
    for (index, &(subwarp, bank, word)) in touched.iter().enumerate() {
        match index.checked_sub(1).map(|previous| touched[previous]) {
            Some((previous_subwarp, previous_bank, previous_word)) if previous_subwarp == subwarp => {
                if previous_bank != bank {
                    bank_words = 1;
                } else if previous_word != word {
                    bank_words += 1;
                }
            }
            _ => {
                cycles += subwarp_worst;
                subwarp_worst = 0;
                bank_words = 1;
            }
        }
        subwarp_worst = subwarp_worst.max(bank_words);
    }
    cycles + subwarp_worst
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The cycles for one address per lane from lane 0.
    fn check(addresses: &[u64], width_bytes: u32, subwarps: u32, expect: u32) {
        let lanes = addresses.iter().copied().enumerate().map(|(lane, addr)| (lane as u32, addr));
        assert_eq!(shared_memory_cycles(lanes, width_bytes, 32, subwarps), expect, "{addresses:?}");
    }

    fn strided(stride_bytes: u64) -> Vec<u64> {
        (0..32).map(|lane| 0x100 + lane * stride_bytes).collect()
    }

    #[test]
    fn bank_conflicts() {
        check(&strided(4), 4, 1, 1);
        check(&strided(8), 4, 1, 2);
        check(&strided(128), 4, 1, 32);
        check(&strided(0), 4, 1, 1);
        check(&[], 4, 1, 0);
        // Odd strides are conflict-free.
        check(&strided(12), 4, 1, 1);
        // Two lanes of one word and one of another word in the same bank: 2.
        check(&[0, 0, 128], 4, 1, 2);
        // Sub-word accesses to one word broadcast.
        check(&strided(1), 1, 1, 1);
        // 2-B lanes at a 2-B stride cover 16 words in 16 banks.
        check(&strided(2), 2, 1, 1);
    }

    #[test]
    fn wide_accesses_take_their_phases() {
        check(&strided(8), 8, 1, 2);
        check(&strided(16), 16, 1, 4);
        // Aligned wide accesses agree with GPGPU-Sim's first-word rule.
        check(&strided(32), 8, 1, 8);
        check(&strided(64), 16, 1, 16);
        // Lane 0 covers words 1-2 and lane 1 words 32-33: bank 1 serves two words.
        check(&[4, 128], 8, 1, 2);
        // Lane 1 crosses from word 31 into word 32, which shares bank 0 with lane 0's word.
        check(&[0, 126], 4, 1, 2);
    }

    #[test]
    fn subwarps_add_up() {
        // Two halves, each conflict-free: one cycle each.
        check(&strided(4), 4, 2, 2);
        // Each half has 16 lanes in one bank.
        check(&strided(128), 4, 2, 32);
        check(&strided(0), 4, 32, 32);
    }

    #[test]
    fn odd_inputs() {
        let lanes = [(40, 0), (0, u64::MAX), (0, 4)].into_iter();
        assert_eq!(shared_memory_cycles(lanes, 64, 0, 0), 1);
    }

    proptest! {
        #[test]
        fn cycles_are_bounded(
            mask in 1u32..,
            offsets in proptest::collection::vec(0u64..4096, 32),
            width_index in 0usize..6,
            subwarps_log2 in 0u32..=5,
            sixteen_banks: bool,
        ) {
            let width = [0u32, 1, 2, 4, 8, 16][width_index];
            let n_banks = if sixteen_banks { 16 } else { 32 };
            let lanes = (0..32).filter(|lane| mask & (1 << lane) != 0).map(|lane| (lane, offsets[lane as usize]));
            let cycles = shared_memory_cycles(lanes, width, n_banks, 1 << subwarps_log2);
            let words_per_lane = (access_width_bytes(width) / 4).max(1);
            prop_assert!((1..=32 * words_per_lane).contains(&cycles), "{}", cycles);
            // With at least five banks a lane adds at most one word to any bank.
            prop_assert!(cycles <= mask.count_ones());
        }
    }
}
