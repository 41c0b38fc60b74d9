//! The memory hierarchy above DRAM: the L1 data cache with shared memory and
//! its adaptive carve-out, and the memory partitions (channels, L2 slices,
//! latencies, queues, address mapping, partition indexing).

use serde::{Deserialize, Serialize};

use crate::cache::CacheConfig;
use crate::error::ConfigError;
use crate::lookup::{OptionReader, Value};
use crate::writer::OptionWriter;

/// The most memory channels (a documented limit).
pub const MAX_CHANNELS: u32 = 1024;
/// The most L2 slices (sub-partitions) per channel.
pub const MAX_SUB_PARTITIONS_PER_CHANNEL: u32 = 64;
/// The most shared memory per SM or per CTA, in bytes (4 MiB).
pub const MAX_SHMEM_BYTES: u32 = 4 << 20;
/// The largest fixed latency (L1, shared memory, ROP, DRAM), in core cycles.
pub const MAX_MEMORY_LATENCY_CYCLES: u32 = 100_000;

/// The L1 data cache and shared memory of one SM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1Config {
    /// `-gpgpu_cache:dl1`, as the string gives it (before any adaptive resize); `None` for `none`.
    pub dl1: Option<CacheConfig>,
    /// `-gpgpu_l1_latency`: L1 hit latency in core cycles.
    pub l1_latency_cycles: u32,
    /// `-gpgpu_l1_banks`.
    pub l1_banks: u32,
    /// `-gpgpu_gmem_skip_L1D`: global loads bypass the L1 (`-dlcm=cg`).
    pub gmem_skip_l1d: bool,
    /// `-gpgpu_flush_l1_cache`: an SM's L1 is invalidated whenever the SM has
    /// no CTA, so between kernels; otherwise it keeps its lines.
    pub flush_l1_cache: bool,
    /// `-gpgpu_smem_latency`: shared-memory latency in core cycles.
    pub shmem_latency_cycles: u32,
    /// `-gpgpu_shmem_size`: shared memory per SM.
    pub shmem_per_sm_bytes: u32,
    /// `-gpgpu_shmem_per_block`: shared memory one CTA may use.
    pub shmem_per_cta_bytes: u32,
    /// `-gpgpu_shmem_num_banks`.
    pub shmem_banks: u32,
    /// `-gpgpu_adaptive_cache_config`: carve the unified array per kernel.
    pub adaptive_cache: bool,
    /// `-gpgpu_unified_l1d_size` (given in KB): the unified L1 + shared array.
    pub unified_l1d_size_bytes: u32,
    /// `-gpgpu_shmem_option` (given in KB): the shared-memory carve-outs.
    pub shmem_options_bytes: Vec<u32>,
    /// `-gpgpu_n_cluster_ejection_buffer_size`: replies an SM's cluster holds
    /// between the crossbar and the LD/ST unit.
    pub ejection_buffer_entries: u32,
    /// `-gpgpu_n_ldst_response_buffer_size`: replies the LD/ST unit holds
    /// before it fills the L1 with them, one a cycle.
    pub ldst_response_entries: u32,
}

/// The memory partitions: channels, their L2 slices, and the path to DRAM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryPartitions {
    /// `-gpgpu_n_mem`: memory channels (controllers).
    pub n_channels: u32,
    /// `-gpgpu_n_sub_partition_per_mchannel`: L2 slices per channel.
    pub sub_partitions_per_channel: u32,
    /// `-gpgpu_cache:dl2`: one L2 slice.
    pub l2: CacheConfig,
    /// `-gpgpu_cache:dl2_texture_only`: the L2 caches texture accesses only.
    pub l2_texture_only: bool,
    /// `-gpgpu_l2_rop_latency`: core cycles from arriving at the partition to the L2.
    pub l2_rop_latency_cycles: u32,
    /// `-dram_latency`: core cycles added after an L2 miss before the DRAM queue.
    pub dram_latency_cycles: u32,
    /// `-gpgpu_dram_partition_queues`.
    pub queues: PartitionQueues,
    /// `-gpgpu_mem_address_mask`: which built-in address mapping.
    pub address_mask: u32,
    /// `-gpgpu_mem_addr_mapping`: overrides the built-in mapping.
    pub address_mapping: Option<AddressMapping>,
    /// `-gpgpu_memory_partition_indexing`.
    pub partition_indexing: PartitionIndexing,
    /// `-gpgpu_perf_sim_memcpy`: copies warm the L2 (warplab's default ignores it, DESIGN §2a).
    pub perf_sim_memcpy: bool,
}

/// `-gpgpu_dram_partition_queues i2$:$2d:d2$:$2i`, in entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionQueues {
    /// Interconnect to L2.
    pub icnt_to_l2: u32,
    /// L2 to DRAM.
    pub l2_to_dram: u32,
    /// DRAM to L2.
    pub dram_to_l2: u32,
    /// L2 to interconnect.
    pub l2_to_icnt: u32,
}

/// `-gpgpu_mem_addr_mapping dramid@<bit>;<64 bits>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressMapping {
    /// The bit where log2(channels) channel-id bits start (`dramid@8`).
    pub dram_id_start_bit: Option<u32>,
    /// 64 characters, most significant bit first: `R` row, `B` bank, `C`
    /// column, `S` burst, `D` chip, `0` unused (separators removed).
    pub bits: String,
}

/// `-gpgpu_memory_partition_indexing`: how an address picks an L2 slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartitionIndexing {
    /// 0: consecutive (linear).
    Consecutive,
    /// 1: XOR with higher address bits.
    Xor,
    /// 2: IPOLY hash (16, 32 or 64 sub-partitions after rounding the channels up to a power of two).
    Ipoly,
    /// 3: PAE.
    Pae,
    /// 4: random.
    Random,
    /// 5: custom.
    Custom,
    /// 6: IPOLY modulo (Accel-Sim 2.0).
    IpolyModulo,
}

impl L1Config {
    /// Banks the L1's lookups are spread over: GPGPU-Sim 4 banks the L1
    /// only behind its latency queue (`-gpgpu_l1_latency` > 0); without one
    /// it takes one unbanked access a cycle.
    pub fn lookup_banks(&self) -> u32 {
        if self.l1_latency_cycles > 0 { self.l1_banks.max(1) } else { 1 }
    }

    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let shmem_size = r.value("-gpgpu_shmem_size")?;
        let l1 = Self {
            dl1: CacheConfig::read(&r.value("-gpgpu_cache:dl1")?)?,
            l1_latency_cycles: r.u32_in("-gpgpu_l1_latency", 0..=MAX_MEMORY_LATENCY_CYCLES)?,
            l1_banks: r.u32_in("-gpgpu_l1_banks", 1..=64)?,
            gmem_skip_l1d: r.bool("-gpgpu_gmem_skip_L1D")?,
            flush_l1_cache: r.bool("-gpgpu_flush_l1_cache")?,
            shmem_latency_cycles: r.u32_in("-gpgpu_smem_latency", 0..=MAX_MEMORY_LATENCY_CYCLES)?,
            shmem_per_sm_bytes: shmem_size.u32_in(0..=MAX_SHMEM_BYTES)?,
            shmem_per_cta_bytes: r.u32_in("-gpgpu_shmem_per_block", 0..=MAX_SHMEM_BYTES)?,
            shmem_banks: r.u32_in("-gpgpu_shmem_num_banks", 1..=64)?,
            adaptive_cache: r.bool("-gpgpu_adaptive_cache_config")?,
            unified_l1d_size_bytes: r.u32_in("-gpgpu_unified_l1d_size", 0..=MAX_SHMEM_BYTES / 1024)? * 1024,
            shmem_options_bytes: read_kb_list(&r.value("-gpgpu_shmem_option")?)?,
            ejection_buffer_entries: r.u32_in("-gpgpu_n_cluster_ejection_buffer_size", 1..=4096)?,
            ldst_response_entries: r.u32_in("-gpgpu_n_ldst_response_buffer_size", 1..=4096)?,
        };
        if l1.adaptive_cache {
            l1.check_carveout(&r.value("-gpgpu_unified_l1d_size")?, &shmem_size)?;
        }
        Ok(l1)
    }

    /// With the adaptive carve-out, the unified array must hold the L1 string's
    /// size a whole number of times, and every carve-out must fit in it.
    fn check_carveout(&self, unified: &Value, shmem_size: &Value) -> Result<(), ConfigError> {
        let Some(dl1) = &self.dl1 else {
            return Err(unified.inconsistent("the adaptive L1/shared carve-out needs an L1 cache string"));
        };
        let unit = dl1.size_bytes();
        let unified_bytes = u64::from(self.unified_l1d_size_bytes);
        if unified_bytes < unit || !unified_bytes.is_multiple_of(unit) {
            return Err(
                unified.inconsistent(&format!("the unified size must be a multiple of the L1 string's {unit} bytes"))
            );
        }
        if self.shmem_options_bytes.iter().any(|option| *option > self.unified_l1d_size_bytes) {
            return Err(unified.inconsistent("a -gpgpu_shmem_option carve-out is larger than the unified size"));
        }
        if self.shmem_per_sm_bytes > self.unified_l1d_size_bytes {
            return Err(shmem_size.inconsistent("shared memory per SM is larger than -gpgpu_unified_l1d_size"));
        }
        Ok(())
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("L1 data cache and shared memory (per SM)");
        w.option("-gpgpu_cache:dl1", self.dl1.as_ref().map_or_else(|| "none".to_owned(), CacheConfig::to_string));
        w.option("-gpgpu_l1_latency", self.l1_latency_cycles);
        w.option("-gpgpu_l1_banks", self.l1_banks);
        w.option("-gpgpu_gmem_skip_L1D", u32::from(self.gmem_skip_l1d));
        w.option("-gpgpu_flush_l1_cache", u32::from(self.flush_l1_cache));
        w.option("-gpgpu_smem_latency", self.shmem_latency_cycles);
        w.option("-gpgpu_shmem_size", self.shmem_per_sm_bytes);
        w.option("-gpgpu_shmem_per_block", self.shmem_per_cta_bytes);
        w.option("-gpgpu_shmem_num_banks", self.shmem_banks);
        w.option("-gpgpu_adaptive_cache_config", u32::from(self.adaptive_cache));
        w.option("-gpgpu_unified_l1d_size", self.unified_l1d_size_bytes / 1024);
        let options: Vec<String> = self.shmem_options_bytes.iter().map(|bytes| (bytes / 1024).to_string()).collect();
        w.option("-gpgpu_shmem_option", options.join(","));
        w.option("-gpgpu_n_cluster_ejection_buffer_size", self.ejection_buffer_entries);
        w.option("-gpgpu_n_ldst_response_buffer_size", self.ldst_response_entries);
    }

    /// The adaptive carve-out for a kernel needing `shmem_bytes` of shared
    /// memory per SM: the smallest option that holds it, and the L1 ways left,
    /// round(max ways × (1 − carve-out / unified)) with max ways = the L1
    /// string's ways × unified / L1 string size. `None` without the adaptive
    /// carve-out or when no option is large enough.
    pub fn carveout_for(&self, shmem_bytes: u32) -> Option<(u32, u32)> {
        let dl1 = self.dl1.as_ref().filter(|_| self.adaptive_cache)?;
        let carveout = self.shmem_options_bytes.iter().copied().filter(|option| *option >= shmem_bytes).min()?;
        let unified = u64::from(self.unified_l1d_size_bytes);
        let max_ways = u64::from(dl1.assoc) * unified / dl1.size_bytes();
        let remaining = unified - u64::from(carveout);
        // round(max_ways * remaining / unified) in integers: add half the divisor.
        let ways = (2 * max_ways * remaining + unified) / (2 * unified);
        Some((carveout, u32::try_from(ways).unwrap_or(u32::MAX)))
    }
}

/// A `,`-separated list of KB values, stored in bytes.
fn read_kb_list(value: &Value) -> Result<Vec<u32>, ConfigError> {
    let kb = value.decimal_list(',', &[], 1..=64, 0..=MAX_SHMEM_BYTES / 1024)?;
    Ok(kb.into_iter().map(|kb| kb * 1024).collect())
}

impl MemoryPartitions {
    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let l2_value = r.required("-gpgpu_cache:dl2", "the L2 cache string (one slice) is required")?;
        let l2 = CacheConfig::read(&l2_value)?
            .ok_or_else(|| l2_value.inconsistent("warplab models an L2: give a cache string, not none"))?;
        let indexing_value = r.value("-gpgpu_memory_partition_indexing")?;
        let partitions = Self {
            n_channels: r.u32_in("-gpgpu_n_mem", 1..=MAX_CHANNELS)?,
            sub_partitions_per_channel: read_sub_partitions(&r.value("-gpgpu_n_sub_partition_per_mchannel")?)?,
            l2,
            l2_texture_only: r.bool("-gpgpu_cache:dl2_texture_only")?,
            l2_rop_latency_cycles: r.u32_in("-gpgpu_l2_rop_latency", 0..=MAX_MEMORY_LATENCY_CYCLES)?,
            dram_latency_cycles: r.u32_in("-dram_latency", 0..=MAX_MEMORY_LATENCY_CYCLES)?,
            queues: PartitionQueues::read(&r.value("-gpgpu_dram_partition_queues")?)?,
            address_mask: r.u32_in("-gpgpu_mem_address_mask", 0..=16)?,
            address_mapping: AddressMapping::read(&r.value("-gpgpu_mem_addr_mapping")?)?,
            partition_indexing: PartitionIndexing::read(&indexing_value)?,
            perf_sim_memcpy: r.bool("-gpgpu_perf_sim_memcpy")?,
        };
        if !partitions.indexing_fits() {
            return Err(indexing_value.inconsistent(&partitions.ipoly_rule()));
        }
        Ok(partitions)
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("Memory partitions: L2 slices = channels x sub-partitions; total L2 = slices x slice size");
        w.option("-gpgpu_n_mem", self.n_channels);
        w.option("-gpgpu_n_sub_partition_per_mchannel", self.sub_partitions_per_channel);
        w.option("-gpgpu_cache:dl2", &self.l2);
        w.option("-gpgpu_cache:dl2_texture_only", u32::from(self.l2_texture_only));
        w.option("-gpgpu_l2_rop_latency", self.l2_rop_latency_cycles);
        w.option("-dram_latency", self.dram_latency_cycles);
        let q = self.queues;
        w.option(
            "-gpgpu_dram_partition_queues",
            format!("{}:{}:{}:{}", q.icnt_to_l2, q.l2_to_dram, q.dram_to_l2, q.l2_to_icnt),
        );
        w.option("-gpgpu_mem_address_mask", self.address_mask);
        w.option(
            "-gpgpu_mem_addr_mapping",
            self.address_mapping.as_ref().map_or_else(|| "NULL".to_owned(), AddressMapping::to_text),
        );
        w.option("-gpgpu_memory_partition_indexing", self.partition_indexing.code());
        w.option("-gpgpu_perf_sim_memcpy", u32::from(self.perf_sim_memcpy));
    }

    /// L2 slices in the GPU: channels × sub-partitions per channel.
    pub fn n_sub_partitions(&self) -> u32 {
        self.n_channels * self.sub_partitions_per_channel
    }

    /// Total L2 capacity: slices × slice size.
    pub fn l2_total_bytes(&self) -> u64 {
        u64::from(self.n_sub_partitions()) * self.l2.size_bytes()
    }

    /// Whether the partition indexing works for this many slices: IPOLY needs
    /// 16, 32 or 64 sub-partitions after rounding the channel count up to a
    /// power of two.
    pub fn indexing_fits(&self) -> bool {
        self.partition_indexing != PartitionIndexing::Ipoly
            || [16, 32, 64].contains(&(self.n_channels.next_power_of_two() * self.sub_partitions_per_channel))
    }

    pub(crate) fn ipoly_rule(&self) -> String {
        let rounded = self.n_channels.next_power_of_two() * self.sub_partitions_per_channel;
        format!(
            "IPOLY partition indexing needs 16, 32 or 64 sub-partitions after rounding the channels up to a power of two, and {} channels x {} give {rounded}",
            self.n_channels, self.sub_partitions_per_channel
        )
    }
}

/// A power of two (the sub-partition is picked by `bank & (n − 1)`).
fn read_sub_partitions(value: &Value) -> Result<u32, ConfigError> {
    let n = value.u32_in(1..=MAX_SUB_PARTITIONS_PER_CHANNEL)?;
    if !n.is_power_of_two() {
        return Err(value.bad("a power of two"));
    }
    Ok(n)
}

impl PartitionQueues {
    fn read(value: &Value) -> Result<Self, ConfigError> {
        let names = ["icnt to L2", "L2 to DRAM", "DRAM to L2", "L2 to icnt"];
        let q = value.decimal_list(':', &names, 4..=4, 0..=65_536)?;
        Ok(Self { icnt_to_l2: q[0], l2_to_dram: q[1], dram_to_l2: q[2], l2_to_icnt: q[3] })
    }
}

impl AddressMapping {
    /// `NULL` (GPGPU-Sim's default) means no override.
    fn read(value: &Value) -> Result<Option<Self>, ConfigError> {
        let text = value.text();
        if text == "NULL" || text.is_empty() {
            return Ok(None);
        }
        let (dram_id_start_bit, map) = match text.strip_prefix("dramid@") {
            Some(rest) => {
                let (bit, map) = rest
                    .split_once(';')
                    .ok_or_else(|| value.bad_field("dramid", "expected `dramid@<bit>;` before the map"))?;
                (Some(value.decimal_field(bit, "dramid", &(0..=63))?), map)
            }
            None => (None, text.as_str()),
        };
        let bits: String = map.chars().filter(|c| !matches!(c, '.' | '|' | ' ')).collect();
        if let Some(bad) = bits.chars().find(|c| !matches!(c, 'R' | 'B' | 'C' | 'S' | 'D' | '0')) {
            return Err(value.bad_field("map", &format!("`{bad}` is not one of R B C S D 0")));
        }
        if bits.len() != 64 {
            return Err(value.bad_field("map", &format!("must describe 64 bits, describes {}", bits.len())));
        }
        Ok(Some(Self { dram_id_start_bit, bits }))
    }

    /// The option text: `dramid@<bit>;` then the bits in dot-separated bytes.
    pub fn to_text(&self) -> String {
        let bytes: Vec<&str> = (0..8).map(|i| &self.bits[i * 8..i * 8 + 8]).collect();
        let prefix = self.dram_id_start_bit.map(|bit| format!("dramid@{bit};")).unwrap_or_default();
        format!("{prefix}{}", bytes.join("."))
    }
}

impl PartitionIndexing {
    /// Every mode, in option-code order (0 to 6).
    pub const ALL: [PartitionIndexing; 7] = [
        PartitionIndexing::Consecutive,
        PartitionIndexing::Xor,
        PartitionIndexing::Ipoly,
        PartitionIndexing::Pae,
        PartitionIndexing::Random,
        PartitionIndexing::Custom,
        PartitionIndexing::IpolyModulo,
    ];

    fn read(value: &Value) -> Result<Self, ConfigError> {
        let code = value.u32_in(0..=6)?;
        Ok(Self::ALL[code as usize])
    }

    /// The option's number.
    pub fn code(self) -> u32 {
        Self::ALL.iter().position(|indexing| *indexing == self).map_or(0, |index| index as u32)
    }

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Consecutive => "consecutive",
            Self::Xor => "xor",
            Self::Ipoly => "ipoly",
            Self::Pae => "pae",
            Self::Random => "random",
            Self::Custom => "custom",
            Self::IpolyModulo => "ipoly-modulo",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn check(text: &str, expect: Result<Option<&str>, &str>) {
        let value = Value {
            option: "-gpgpu_mem_addr_mapping".into(),
            text: Some(text.into()),
            at: Location::new("g.config", 2),
        };
        let got = AddressMapping::read(&value).map(|mapping| mapping.map(|m| m.to_text())).map_err(|e| e.to_string());
        assert_eq!(got, expect.map(|m| m.map(str::to_owned)).map_err(str::to_owned));
    }

    #[test]
    fn address_mappings() {
        check(
            "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS",
            Ok(Some("dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS")),
        );
        check(
            "0000000000000000 00000000|00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS",
            Ok(Some("00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS")),
        );
        check("NULL", Ok(None));
        check(
            "dramid@8;0000RRRR",
            Err(
                "g.config:2: -gpgpu_mem_addr_mapping: map: must describe 64 bits, describes 8 (in `dramid@8;0000RRRR`)",
            ),
        );
        check(
            "dramid@8;0000XRRR",
            Err("g.config:2: -gpgpu_mem_addr_mapping: map: `X` is not one of R B C S D 0 (in `dramid@8;0000XRRR`)"),
        );
    }

    #[test]
    fn carveout() {
        let dl1 = CacheConfig::parse("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32").expect("parses");
        let l1 = L1Config {
            dl1,
            l1_latency_cycles: 20,
            l1_banks: 4,
            gmem_skip_l1d: false,
            flush_l1_cache: true,
            shmem_latency_cycles: 20,
            shmem_per_sm_bytes: 96 * 1024,
            shmem_per_cta_bytes: 64 * 1024,
            shmem_banks: 32,
            adaptive_cache: true,
            unified_l1d_size_bytes: 128 * 1024,
            shmem_options_bytes: [0, 8, 16, 32, 64, 96].map(|kb| kb * 1024).to_vec(),
            ejection_buffer_entries: 32,
            ldst_response_entries: 2,
        };
        // No shared memory: 256 ways of 512 B = 128 KB of L1 (the README's QV100 example).
        assert_eq!(l1.carveout_for(0), Some((0, 256)));
        assert_eq!(l1.carveout_for(1), Some((8 * 1024, 240)));
        assert_eq!(l1.carveout_for(96 * 1024), Some((96 * 1024, 64)));
        assert_eq!(l1.carveout_for(97 * 1024), None);
    }
}
