//! Where an address lives in memory: its DRAM channel, L2 sub-partition, bank,
//! row and column, and the address an L2 slice indexes its sets with.
//!
//! This is GPGPU-Sim's linear-to-raw address translation. Four bit masks
//! (channel, bank, row, column) select the address bits of each field; the
//! selected bits are packed, lowest first, into the field's value. The masks
//! come from `-gpgpu_mem_addr_mapping` when it is given, else from the built-in
//! mapping `-gpgpu_mem_address_mask` picks.
//!
//! The channel ("chip") field starts at a bit (`dramid@N`, or the built-in
//! mapping's start bit):
//! - with a power-of-two channel count, log2(channels) channel bits are
//!   inserted at that bit and every other field's bits at or above it move up
//!   to make room;
//! - with any other channel count GPGPU-Sim's "gap" rule applies: the address
//!   is split at the start bit, the channel is the upper part modulo the
//!   channel count, and the other fields are decoded from the quotient
//!   stitched back onto the lower part. The field masks are not moved.
//!
//! `-gpgpu_memory_partition_indexing` may then re-pick the channel (see
//! [`AddressMap::new`] for each mode), and the sub-partition (L2 slice) is
//! channel × sub-partitions per channel + the lowest bank bits.
//!
//! On a GPU of several chiplets ([`AddressMap::for_gpu`]) the address space is
//! first dealt out across the chiplets in stretches of
//! `-warplab_chiplet_interleave_bytes`: stretch `k` lives on chiplet
//! `k mod N` (its home chiplet). The stretches of one chiplet, put end to
//! end, form that chiplet's local address, which one chiplet's channels
//! decode as above; the slice is then the home chiplet's block of slices
//! (chiplet `c` holds channels `c·C/N ..`, as Accel-Sim 2.0 splits them).
//! Taking the chiplet bits out first keeps them from biasing which of the
//! chiplet's channels an address picks.

use crate::bit_field::BitField;
use crate::set_index::ipoly_hash;
use warplab_config::{DramConfig, GpuConfig, MemoryPartitions, PartitionIndexing};

/// One address decoded into DRAM coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramAddress {
    /// The memory channel (controller), `0..n_channels`.
    pub channel: u32,
    /// The L2 slice, as a global id `0..n_channels × sub_partitions_per_channel`;
    /// always within `channel`'s slices.
    pub sub_partition: u32,
    /// The bank within the channel, `0..n_banks` (the mapping's bank bits
    /// modulo the configured bank count).
    pub bank: u32,
    /// The row (the mapping's row bits; truncated to 32 bits).
    pub row: u32,
    /// The column, burst bits included (GPGPU-Sim counts `S` bits as column bits too).
    pub column: u32,
}

/// The address decoder of one GPU configuration: built once, then queried per
/// request without allocating.
#[derive(Debug, Clone)]
pub struct AddressMap {
    n_channels: u32,
    sub_partitions_per_channel: u32,
    n_banks: u32,
    channel_field: ChannelField,
    bank: BitField,
    row: BitField,
    column: BitField,
    /// The bits [`AddressMap::partition_address`] keeps: all but the channel
    /// bits and the lowest log2(sub-partitions per channel) bank bits, which
    /// pick the slice within a channel.
    kept_bits: BitField,
    /// How far to shift the address (or, in the modulo case, the quotient) to
    /// get the "higher bits" the XOR and IPOLY hashes mix in.
    high_bits_shift: u32,
    indexing: Indexing,
    /// On a chiplet GPU, how addresses are dealt out across chiplets; the
    /// fields above then describe one chiplet's channels.
    chiplets: Option<ChipletSplit>,
}

/// The address space dealt out across chiplets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ChipletSplit {
    count: u32,
    /// log2 of the bytes on one chiplet before the next chiplet's.
    shift: u32,
}

impl ChipletSplit {
    /// The home chiplet of `addr` and its address within that chiplet.
    fn split(self, addr: u64) -> (u32, u64) {
        let stretch = addr >> self.shift;
        let count = u64::from(self.count);
        let local = ((stretch / count) << self.shift) | (addr & low_bits_mask(self.shift));
        ((stretch % count) as u32, local)
    }
}

/// How the channel is taken from the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChannelField {
    /// The channel bits are these address bits, packed lowest first; the value
    /// is taken modulo the channel count (a no-op unless an explicit `D` field
    /// has more bits than the channel count needs).
    Bits(BitField),
    /// A channel count that is not a power of two: the address above
    /// `start_bit`, modulo the channel count (GPGPU-Sim's "gap" case).
    Modulo { start_bit: u32 },
}

/// The partition indexing actually applied, after the fallbacks of [`AddressMap::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Indexing {
    Consecutive,
    Xor,
    /// IPOLY over `n_sets` (16, 32 or 64) sub-partitions, then modulo the real
    /// count when the channels are not a power of two.
    Ipoly {
        n_sets: u32,
    },
    IpolyModulo,
    /// A fixed pseudo-random slice per block of `1 << block_shift` bytes.
    Random {
        block_shift: u32,
    },
}

/// The built-in mappings of `-gpgpu_mem_address_mask`: the channel start bit
/// and the bank, row and column masks before the channel bits are inserted.
struct BuiltinMapping {
    channel_start_bit: u32,
    bank_mask: u64,
    row_mask: u64,
    column_mask: u64,
}

impl AddressMap {
    /// The decoder for `memory`'s channels, mapping and partition indexing and
    /// `dram`'s bank count.
    ///
    /// Partition indexing modes, as GPGPU-Sim applies them, and warplab's
    /// fallbacks where GPGPU-Sim has none:
    /// - `Consecutive`: the decoded channel as it is.
    /// - `Xor`: channel XOR the low log2(channels) of the higher address bits.
    ///   GPGPU-Sim asserts a power-of-two channel count; otherwise warplab
    ///   falls back to `Consecutive`.
    /// - `Ipoly`: the slice (channel × per-channel + bank bits) is hashed with
    ///   the IPOLY polynomial for 16, 32 or 64 slices (channels rounded up to a
    ///   power of two), then taken modulo the real slice count. If the rounded
    ///   count is not 16, 32 or 64 (a validated config never has that) warplab
    ///   uses `IpolyModulo`.
    /// - `IpolyModulo`: warplab's definition (the GPGPU-Sim sources we can
    ///   read have no mode 6): (consecutive slice + IPOLY-64 hash of the higher
    ///   bits) modulo the slice count. Adding a value that depends only on the
    ///   higher bits permutes the slices of each stretch of the address space,
    ///   so streaming accesses stay exactly balanced for any slice count while
    ///   power-of-two strides are spread over the slices.
    /// - `Pae`: GPGPU-Sim's address decoder has no PAE case (selecting it
    ///   trips its "undefined set index function" assertion), and its PAE hash,
    ///   defined for 32 sets only, is not a permutation of the channels; warplab
    ///   falls back to `Consecutive`.
    /// - `Random`: GPGPU-Sim draws `rand()` once per block of
    ///   2^(channel start bit − log2(per-channel slices)) bytes and remembers it
    ///   in a hash table; warplab keeps the block size but derives the slice
    ///   from a fixed integer hash of the block number, so runs are
    ///   deterministic and nothing is allocated.
    /// - `Custom`: GPGPU-Sim implements none, so the channel stays as decoded.
    ///
    /// Other configurations GPGPU-Sim rejects with an assertion are decoded
    /// rather than refused: `D` characters together with `dramid@` are
    /// ignored (the `dramid@` field wins); an explicit `D` field whose value
    /// can exceed the channel count is taken modulo the channel count; a bank
    /// field wider than the configured banks is taken modulo the bank count
    /// for [`DramAddress::bank`] (the sub-partition still uses the raw bits).
    /// Unknown `-gpgpu_mem_address_mask` values use GPGPU-Sim's initial masks
    /// (channel start bit 10) without their overlapping channel mask.
    pub fn new(memory: &MemoryPartitions, dram: &DramConfig) -> Self {
        let n_channels = memory.n_channels.max(1);
        // The config guarantees a power of two; rounding keeps a hand-built
        // value from breaking the `bank & (n − 1)` selection.
        let sub_partitions_per_channel = memory.sub_partitions_per_channel.max(1).next_power_of_two();
        let log2_sub_partitions = sub_partitions_per_channel.trailing_zeros();
        let channels_power_of_two = n_channels.is_power_of_two();
        let log2_channels = n_channels.ilog2();

        let (channel_start_bit, explicit_channel_mask, mut bank_mask, mut row_mask, mut column_mask) =
            match &memory.address_mapping {
                Some(mapping) => {
                    let masks = masks_from_string(&mapping.bits);
                    let explicit_channel_mask = if mapping.dram_id_start_bit.is_some() { 0 } else { masks.channel };
                    (mapping.dram_id_start_bit, explicit_channel_mask, masks.bank, masks.row, masks.column)
                }
                None => {
                    let builtin = builtin_mapping(memory.address_mask);
                    (Some(builtin.channel_start_bit), 0, builtin.bank_mask, builtin.row_mask, builtin.column_mask)
                }
            };

        let channel_field = match channel_start_bit {
            Some(start_bit) if channels_power_of_two => {
                // Make room for the channel bits: every field bit at or above
                // the start bit moves up by log2(channels).
                let below_start = low_bits_mask(start_bit);
                let insert = |mask: u64| shift_left(mask & !below_start, log2_channels) | (mask & below_start);
                bank_mask = insert(bank_mask);
                row_mask = insert(row_mask);
                column_mask = insert(column_mask);
                let channel_mask = shift_left(low_bits_mask(log2_channels), start_bit);
                ChannelField::Bits(BitField::new(channel_mask))
            }
            Some(start_bit) => ChannelField::Modulo { start_bit: start_bit.min(63) },
            None => ChannelField::Bits(BitField::new(explicit_channel_mask)),
        };

        let sub_partition_id_mask = lowest_set_bits(bank_mask, log2_sub_partitions);
        let high_bits_shift = match channel_field {
            // The quotient above the start bit is already the higher part.
            ChannelField::Modulo { .. } => 0,
            ChannelField::Bits(channel) => {
                let channel_end = match channel_start_bit {
                    Some(start_bit) => start_bit + log2_channels,
                    None => 64 - channel.mask().leading_zeros(),
                };
                channel_end + log2_sub_partitions
            }
        };
        let is_modulo = matches!(channel_field, ChannelField::Modulo { .. });

        let rounded_slices = n_channels.next_power_of_two().saturating_mul(sub_partitions_per_channel);
        let indexing = match memory.partition_indexing {
            PartitionIndexing::Consecutive | PartitionIndexing::Pae | PartitionIndexing::Custom => {
                Indexing::Consecutive
            }
            PartitionIndexing::Xor if channels_power_of_two && !is_modulo => Indexing::Xor,
            PartitionIndexing::Xor => Indexing::Consecutive,
            PartitionIndexing::Ipoly if [16, 32, 64].contains(&rounded_slices) => {
                Indexing::Ipoly { n_sets: rounded_slices }
            }
            PartitionIndexing::Ipoly | PartitionIndexing::IpolyModulo => Indexing::IpolyModulo,
            PartitionIndexing::Random => {
                let channel_low_bit = match (channel_start_bit, channel_field) {
                    (Some(start_bit), _) => start_bit,
                    (None, ChannelField::Bits(channel)) if channel.mask() != 0 => channel.mask().trailing_zeros(),
                    (None, _) => 0,
                };
                Indexing::Random { block_shift: channel_low_bit.saturating_sub(log2_sub_partitions) }
            }
        };

        let kept_mask = match channel_field {
            ChannelField::Bits(channel) => !(channel.mask() | sub_partition_id_mask),
            ChannelField::Modulo { .. } => !sub_partition_id_mask,
        };
        Self {
            n_channels,
            sub_partitions_per_channel,
            n_banks: dram.timing.n_banks.max(1),
            channel_field,
            bank: BitField::new(bank_mask),
            row: BitField::new(row_mask),
            column: BitField::new(column_mask),
            kept_bits: BitField::new(kept_mask),
            high_bits_shift: high_bits_shift.min(64),
            indexing,
            chiplets: None,
        }
    }

    /// The decoder of a whole GPU: [`AddressMap::new`] for a monolithic one;
    /// on a chiplet GPU, one chiplet's channels behind the interleaving
    /// across chiplets (see the module doc).
    pub fn for_gpu(config: &GpuConfig) -> Self {
        let chiplets = &config.chiplets;
        if !chiplets.enabled() {
            return Self::new(&config.memory, &config.dram);
        }
        let mut one_chiplet = config.memory.clone();
        one_chiplet.n_channels = (config.memory.n_channels / chiplets.count).max(1);
        let split = ChipletSplit { count: chiplets.count, shift: chiplets.interleave_bytes.trailing_zeros() };
        Self { chiplets: Some(split), ..Self::new(&one_chiplet, &config.dram) }
    }

    /// The home chiplet of `addr` (0 on a monolithic GPU).
    pub fn chiplet(&self, addr: u64) -> u32 {
        self.chiplets.map_or(0, |split| split.split(addr).0)
    }

    /// Decodes `addr` into its channel, L2 slice, bank, row and column.
    pub fn decode(&self, addr: u64) -> DramAddress {
        let (sub_partition, raw_bank, rest_of_addr) = self.slice_fields(addr);
        DramAddress {
            channel: sub_partition / self.sub_partitions_per_channel,
            sub_partition,
            bank: (raw_bank % u64::from(self.n_banks)) as u32,
            row: self.row.extract(rest_of_addr) as u32,
            column: self.column.extract(rest_of_addr) as u32,
        }
    }

    /// The L2 slice (global sub-partition id) of `addr`; the same as
    /// `decode(addr).sub_partition`, without the row and column.
    pub fn sub_partition(&self, addr: u64) -> u32 {
        self.slice_fields(addr).0
    }

    /// The slice of `addr`, its raw bank bits, and the address the bank, row
    /// and column are read from (without the channel, in the modulo case).
    fn slice_fields(&self, addr: u64) -> (u32, u64, u64) {
        match self.chiplets {
            None => self.chiplet_slice_fields(addr),
            Some(split) => {
                let (home, local) = split.split(addr);
                let (slice, raw_bank, rest_of_addr) = self.chiplet_slice_fields(local);
                (home * self.n_channels * self.sub_partitions_per_channel + slice, raw_bank, rest_of_addr)
            }
        }
    }

    /// [`AddressMap::slice_fields`] within one chiplet (the whole GPU when monolithic).
    fn chiplet_slice_fields(&self, addr: u64) -> (u32, u64, u64) {
        let (channel, rest_of_addr, high_bits) = match self.channel_field {
            ChannelField::Bits(channel_bits) => {
                let channel = channel_bits.extract(addr) % u64::from(self.n_channels);
                (channel as u32, addr, shift_right(addr, self.high_bits_shift))
            }
            ChannelField::Modulo { start_bit } => {
                let upper = addr >> start_bit;
                let quotient = upper / u64::from(self.n_channels);
                let channel = (upper % u64::from(self.n_channels)) as u32;
                let rest_of_addr = (quotient << start_bit) | (addr & low_bits_mask(start_bit));
                (channel, rest_of_addr, quotient)
            }
        };
        let raw_bank = self.bank.extract(rest_of_addr);
        let bank_in_channel = (raw_bank & u64::from(self.sub_partitions_per_channel - 1)) as u32;
        let consecutive_sub_partition = channel * self.sub_partitions_per_channel + bank_in_channel;
        let n_slices = self.n_channels * self.sub_partitions_per_channel;

        let sub_partition = match self.indexing {
            Indexing::Consecutive => consecutive_sub_partition,
            Indexing::Xor => {
                // Only chosen for power-of-two channel counts, so the result stays in range.
                let hashed_channel = channel ^ (high_bits as u32 & (self.n_channels - 1));
                hashed_channel * self.sub_partitions_per_channel + bank_in_channel
            }
            Indexing::Ipoly { n_sets } => ipoly_hash(high_bits, consecutive_sub_partition, n_sets) % n_slices,
            Indexing::IpolyModulo => {
                let offset = ipoly_hash(high_bits, 0, 64);
                ((u64::from(consecutive_sub_partition) + u64::from(offset)) % u64::from(n_slices)) as u32
            }
            Indexing::Random { block_shift } => (mix64(shift_right(addr, block_shift)) % u64::from(n_slices)) as u32,
        };
        (sub_partition, raw_bank, rest_of_addr)
    }

    /// `addr` with the bits that chose its slice removed (the channel bits, or
    /// in the modulo case the address above the start bit divided by the
    /// channel count, and the sub-partition's bank bits), as GPGPU-Sim's
    /// `partition_address`. An L2 slice indexes its sets with this, so
    /// consecutive addresses of one slice use all of its sets instead of the
    /// few whose index bits happen to match the slice. Partition indexing
    /// hashes are not undone, as in GPGPU-Sim.
    pub fn partition_address(&self, addr: u64) -> u64 {
        let addr = self.chiplets.map_or(addr, |split| split.split(addr).1);
        match self.channel_field {
            ChannelField::Bits { .. } => self.kept_bits.extract(addr),
            ChannelField::Modulo { start_bit } => {
                let quotient = (addr >> start_bit) / u64::from(self.n_channels);
                let without_channel = (quotient << start_bit) | (addr & low_bits_mask(start_bit));
                self.kept_bits.extract(without_channel)
            }
        }
    }

    /// Memory channels.
    pub fn n_channels(&self) -> u32 {
        self.n_channels * self.chiplets.map_or(1, |split| split.count)
    }

    /// L2 slices in the GPU (channels × sub-partitions per channel).
    pub fn n_sub_partitions(&self) -> u32 {
        self.n_channels() * self.sub_partitions_per_channel
    }
}

/// The masks a `-gpgpu_mem_addr_mapping` string describes.
struct StringMasks {
    channel: u64,
    bank: u64,
    row: u64,
    column: u64,
}

/// Reads the 64 mapping characters, most significant bit first. Burst (`S`)
/// bits count as column bits, as in GPGPU-Sim; the burst field itself is not
/// needed. Characters beyond 64 are ignored (the config reader checks the length).
fn masks_from_string(bits: &str) -> StringMasks {
    let mut masks = StringMasks { channel: 0, bank: 0, row: 0, column: 0 };
    for (position_from_top, character) in bits.bytes().take(64).enumerate() {
        let bit = 1u64 << (63 - position_from_top);
        match character.to_ascii_uppercase() {
            b'D' => masks.channel |= bit,
            b'B' => masks.bank |= bit,
            b'R' => masks.row |= bit,
            b'C' | b'S' => masks.column |= bit,
            _ => {}
        }
    }
    masks
}

/// GPGPU-Sim's built-in mappings for `-gpgpu_mem_address_mask` (none of them
/// has channel bits before the insertion at the start bit).
fn builtin_mapping(address_mask: u32) -> BuiltinMapping {
    const ROW_27: u64 = 0x0000_0000_07FF_E000;
    let newer = |channel_start_bit| BuiltinMapping {
        channel_start_bit,
        bank_mask: 0x1800,
        row_mask: ROW_27,
        column_mask: 0x07FF,
    };
    match address_mask {
        0 => BuiltinMapping { channel_start_bit: 10, bank_mask: 0x0300, row_mask: ROW_27, column_mask: 0x1CFF },
        1 => newer(13),
        2 => newer(11),
        3 => BuiltinMapping { channel_start_bit: 11, bank_mask: 0x1800, row_mask: 0x0FFF_E000, column_mask: 0x07FF },
        5 | 6 | 14 | 15 | 16 => newer(address_mask),
        106 => newer(6),
        100 | 103 => BuiltinMapping {
            channel_start_bit: if address_mask == 100 { 1 } else { 3 },
            bank_mask: 0x3,
            row_mask: ROW_27,
            column_mask: 0x1FFC,
        },
        160 => BuiltinMapping { channel_start_bit: 6, bank_mask: 0x0300, row_mask: ROW_27, column_mask: 0x1CFF },
        // GPGPU-Sim's initial masks, without their channel mask (it overlaps
        // the inserted channel bits and could name channels that do not exist).
        _ => BuiltinMapping { channel_start_bit: 10, bank_mask: 0x0300, row_mask: 0x0FFF_0000, column_mask: 0xE0FF },
    }
}

/// The lowest `count` set bits of `mask`.
fn lowest_set_bits(mask: u64, count: u32) -> u64 {
    let mut remaining = mask;
    let mut selected = 0;
    for _ in 0..count {
        if remaining == 0 {
            break;
        }
        let lowest = remaining & remaining.wrapping_neg();
        selected |= lowest;
        remaining &= !lowest;
    }
    selected
}

/// A mask of the `width` lowest bits (all 64 for `width` ≥ 64).
fn low_bits_mask(width: u32) -> u64 {
    if width >= 64 { u64::MAX } else { (1 << width) - 1 }
}

/// `value << shift`, 0 when everything is shifted out.
fn shift_left(value: u64, shift: u32) -> u64 {
    value.checked_shl(shift).unwrap_or(0)
}

/// `value >> shift`, 0 when everything is shifted out.
fn shift_right(value: u64, shift: u32) -> u64 {
    value.checked_shr(shift).unwrap_or(0)
}

/// The SplitMix64 finaliser: a fixed, well-mixed hash of a block number for
/// the random partition indexing.
fn mix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use warplab_config::{AddressMapping, GpuConfig, preset};

    use super::*;

    const PRESETS: [&str; 6] = ["QV100", "RTX3070", "A100", "H100", "mdm", "scalemodel"];

    fn config(name: &str) -> GpuConfig {
        preset(name).unwrap().config().unwrap()
    }

    fn map_for(config: &GpuConfig) -> AddressMap {
        AddressMap::new(&config.memory, &config.dram)
    }

    /// The number of bits a field of `map` can carry, to bound its values.
    fn width(mask: u64) -> u32 {
        mask.count_ones().min(32)
    }

    fn check_in_range(map: &AddressMap, addr: u64) {
        let decoded = map.decode(addr);
        assert!(decoded.channel < map.n_channels, "{addr:#x}: {decoded:?}");
        assert!(decoded.sub_partition < map.n_sub_partitions(), "{addr:#x}: {decoded:?}");
        assert_eq!(decoded.sub_partition / map.sub_partitions_per_channel, decoded.channel);
        assert!(decoded.bank < map.n_banks, "{addr:#x}: {decoded:?}");
        assert!(u64::from(decoded.row) <= low_bits_mask(width(map.row.mask())), "{addr:#x}: {decoded:?}");
        assert!(u64::from(decoded.column) <= low_bits_mask(width(map.column.mask())), "{addr:#x}: {decoded:?}");
        assert_eq!(map.sub_partition(addr), decoded.sub_partition);
    }

    #[test]
    fn every_presets_fields_keep_their_runs() {
        // A field of more runs is gathered by searching its mask: the same
        // result, at a cost every request would pay.
        for name in PRESETS {
            let map = map_for(&config(name));
            let channel = match map.channel_field {
                ChannelField::Bits(channel) => channel,
                ChannelField::Modulo { .. } => BitField::new(0),
            };
            for field in [channel, map.bank, map.row, map.column, map.kept_bits] {
                assert!(field.keeps_runs(), "{name}: {:#x}", field.mask());
            }
        }
    }

    proptest! {
        #[test]
        fn decoded_fields_are_in_range(preset_index in 0..PRESETS.len(), addr in any::<u64>()) {
            check_in_range(&map_for(&config(PRESETS[preset_index])), addr);
        }

        #[test]
        fn every_indexing_mode_stays_in_range(
            mode in 0..7usize,
            n_channels in 1..=48u32,
            log2_per_channel in 0..=3u32,
            explicit_mapping: bool,
            addr in any::<u64>(),
        ) {
            let mut config = config("QV100");
            config.memory.partition_indexing = PartitionIndexing::ALL[mode];
            config.memory.n_channels = n_channels;
            config.memory.sub_partitions_per_channel = 1 << log2_per_channel;
            if !explicit_mapping {
                config.memory.address_mapping = None;
            }
            check_in_range(&map_for(&config), addr);
        }
    }

    #[test]
    fn streaming_spreads_evenly_over_channels_and_slices() {
        for name in PRESETS {
            let config = config(name);
            let map = map_for(&config);
            let mut per_channel = vec![0u32; map.n_channels as usize];
            let mut per_slice = vec![0u32; map.n_sub_partitions() as usize];
            // 128 KiB per channel: a multiple of every preset's interleave period.
            let range_bytes = u64::from(map.n_channels) * 128 * 1024;
            for addr in (0..range_bytes).step_by(32) {
                let decoded = map.decode(addr);
                per_channel[decoded.channel as usize] += 1;
                per_slice[decoded.sub_partition as usize] += 1;
            }
            let expected_per_slice = (range_bytes / 32) as u32 / map.n_sub_partitions();
            assert!(
                per_channel.iter().all(|n| *n == expected_per_slice * map.sub_partitions_per_channel),
                "{name}: {per_channel:?}"
            );
            assert!(per_slice.iter().all(|n| *n == expected_per_slice), "{name}: {per_slice:?}");
        }
    }

    #[test]
    fn consecutive_256_byte_chunks_visit_every_channel() {
        // With dramid@8 each 256-B chunk of a channel-count run lands on a different channel.
        for name in PRESETS {
            let map = map_for(&config(name));
            let mut seen = vec![false; map.n_channels as usize];
            for chunk in 0..u64::from(map.n_channels) {
                seen[map.decode(chunk * 256).channel as usize] = true;
            }
            // IPOLY hashing may reorder channels but never repeats one within an aligned run.
            assert!(seen.iter().all(|s| *s), "{name}: {seen:?}");
        }
    }

    /// A mapping with `n_channels` channels of 2 slices and `dramid@8;bits`, for hand-decoded examples.
    fn small_map(bits: &str, n_channels: u32, indexing: PartitionIndexing) -> AddressMap {
        let mut config = config("QV100");
        config.memory.n_channels = n_channels;
        config.memory.sub_partitions_per_channel = 2;
        config.memory.partition_indexing = indexing;
        config.memory.address_mapping =
            Some(AddressMapping { dram_id_start_bit: Some(8), bits: bits.replace('.', "") });
        map_for(&config)
    }

    const SMALL: &str = "00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS";

    #[test]
    fn hand_computed_explicit_mapping() {
        let map = small_map(SMALL, 4, PartitionIndexing::Consecutive);
        // Low bits: S 0-4 and C 5-7 stay; channel bits 8-9 are inserted; the
        // B at 8 moves to 10, C 9-11 to 11-13, B 12-14 to 14-16, R 15-27 to 17-29.
        let addr: u64 = (0b101 << 17) // row 5
            | (0b110 << 14) // bank bits 1-3 = 0b110
            | (0b011 << 11) // column bits 8-10 = 0b011
            | (1 << 10) // bank bit 0
            | (0b10 << 8) // channel 2
            | 0x7F; // column bits 0-7 (burst included)
        let decoded = map.decode(addr);
        assert_eq!(
            decoded,
            DramAddress { channel: 2, sub_partition: 5, bank: 0b1101, row: 5, column: (0b011 << 8) | 0x7F }
        );
        // The slice's sets see the address without channel bits 8-9 and the slice bit 10.
        let expected_partition_address = ((addr >> 11) << 8) | (addr & 0xFF);
        assert_eq!(map.partition_address(addr), expected_partition_address);
    }

    #[test]
    fn hand_computed_modulo_mapping() {
        // Three channels: the channel is (addr >> 8) % 3 and the fields are
        // decoded from (addr >> 8) / 3 put back at bit 8, with the masks unmoved.
        let map = small_map(SMALL, 3, PartitionIndexing::Consecutive);
        let addr: u64 = (7 << 8) | 0x25;
        // 7 = 2 × 3 + 1: channel 1, rest of address (2 << 8) | 0x25.
        let decoded = map.decode(addr);
        assert_eq!(decoded, DramAddress { channel: 1, sub_partition: 2, bank: 0, row: 0, column: (1 << 8) | 0x25 });
        assert_eq!(map.partition_address(addr), (1 << 8) | 0x25);
    }

    #[test]
    fn ipoly_hash_matches_its_equations() {
        // Higher bits 0: the hash leaves the index unchanged.
        assert_eq!(ipoly_hash(0, 0b10110, 32), 0b10110);
        // Higher bit 0 feeds output bits 0 and 2 of the 32-set hash, and bits 0 and 1 of the 64-set one.
        assert_eq!(ipoly_hash(1, 0, 32), 0b00101);
        assert_eq!(ipoly_hash(1, 0, 64), 0b000011);
        assert_eq!(ipoly_hash(1, 0, 16), 0b0011);
        // Higher bit 14 feeds output bits 1 and 2 of the 32-set hash.
        assert_eq!(ipoly_hash(1 << 14, 0, 32), 0b00110);
    }

    #[test]
    fn bank_row_column_round_trip_within_a_channel() {
        // Distinct addresses of one channel's stretch of the address space
        // must decode to distinct (bank, row, column): otherwise two
        // addresses would alias in DRAM.
        for name in PRESETS {
            let map = map_for(&config(name));
            let mut seen = std::collections::HashMap::new();
            // 4 MiB, in 32-B steps with the lowest bit set so the burst bits vary too.
            for addr in (0..4u64 << 20).step_by(32).map(|addr| addr | 1) {
                let decoded = map.decode(addr);
                let key = (decoded.channel, decoded.bank, decoded.row, decoded.column);
                if let Some(previous) = seen.insert(key, addr) {
                    panic!("{name}: {previous:#x} and {addr:#x} both decode to {decoded:?}");
                }
            }
        }
    }

    #[test]
    fn partition_address_is_dense_within_a_slice() {
        // A slice's addresses, renumbered by partition_address, cover a
        // contiguous range: the L2 uses all of its sets.
        let map = small_map(SMALL, 4, PartitionIndexing::Consecutive);
        let mut lines: Vec<u64> = (0..1u64 << 20)
            .step_by(128)
            .filter(|addr| map.sub_partition(*addr) == 3)
            .map(|addr| map.partition_address(addr) / 128)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let n_lines = lines.len() as u64;
        assert_eq!(lines.first(), Some(&0));
        assert_eq!(lines.last(), Some(&(n_lines - 1)));
    }

    #[test]
    fn chiplets_take_stretches_of_the_interleave_and_their_own_slices() {
        let gpu = config("chiplet");
        let map = AddressMap::for_gpu(&gpu);
        let (chiplets, stretch) = (gpu.chiplets.count, gpu.chiplets.interleave_bytes);
        assert_eq!((map.n_channels(), map.n_sub_partitions()), (128, 1024));
        let slices_per_chiplet = map.n_sub_partitions() / chiplets;
        let mut per_slice = vec![0u32; map.n_sub_partitions() as usize];
        for addr in (0..64 * stretch * u64::from(chiplets)).step_by(32) {
            let home = map.chiplet(addr);
            assert_eq!(u64::from(home), (addr / stretch) % u64::from(chiplets), "{addr:#x}");
            let decoded = map.decode(addr);
            assert_eq!(decoded.sub_partition / slices_per_chiplet, home, "{addr:#x}: a slice of its home chiplet");
            assert_eq!(decoded.channel, decoded.sub_partition / 8);
            per_slice[decoded.sub_partition as usize] += 1;
        }
        // A stream spreads evenly over every slice of every chiplet.
        assert!(per_slice.iter().all(|&n| n == per_slice[0]), "{per_slice:?}");
        // No two addresses of one slice share a partition address.
        let mut seen = std::collections::HashSet::new();
        for addr in (0..16 * stretch * u64::from(chiplets)).step_by(128) {
            assert!(seen.insert((map.sub_partition(addr), map.partition_address(addr))), "{addr:#x}");
        }
    }

    #[test]
    fn a_monolithic_gpu_decodes_as_before() {
        let gpu = config("QV100");
        let (whole, plain) = (AddressMap::for_gpu(&gpu), map_for(&gpu));
        for addr in (0..1u64 << 22).step_by(96) {
            assert_eq!(whole.decode(addr), plain.decode(addr));
            assert_eq!(whole.chiplet(addr), 0);
        }
    }
}
