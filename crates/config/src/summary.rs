//! What a config shows: the `ConfigSummary` of `warplab config show --json`,
//! and a grouped, labelled view model the web app renders.

use serde::{Deserialize, Serialize};

use crate::cache::{CacheConfig, SetIndex};
use crate::chiplets::{InterpretedOption, SmMapping};
use crate::dram::{BankGroupIndexing, BankIndexing};
use crate::gpu::{GpuConfig, KeptOption};
use crate::interconnect::NetworkMode;
use crate::units::{N_SPECIALIZED_SLOTS, UnitClass};

/// The headline figures of a config, plain data for JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigSummary {
    /// SMs.
    pub n_sms: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Core clock, MHz.
    pub core_clock_mhz: f64,
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Resident CTAs per SM.
    pub max_ctas_per_sm: u32,
    /// Registers per SM.
    pub regs_per_sm: u32,
    /// Shared memory per SM, bytes.
    pub shmem_per_sm: u32,
    /// Warp schedulers per SM.
    pub schedulers_per_sm: u32,
    /// The scheduling policy as the config writes it, e.g. `gto`.
    pub scheduler: String,
    /// Memory channels.
    pub n_mem_channels: u32,
    /// L2 slices in the GPU (channels × sub-partitions).
    pub n_sub_partitions: u32,
    /// The L1 data cache of one SM, as its cache string gives it; `None` without one.
    pub l1d: Option<CacheSummary>,
    /// One L2 slice.
    pub l2: CacheSummary,
    /// Chiplets (1: a monolithic GPU).
    pub chiplets: u32,
    /// Options warplab reads with a meaning of its own (see `chiplets.rs`).
    pub interpreted_options: Vec<InterpretedOption>,
    /// Options GPGPU-Sim does not know, with their values.
    pub unknown_options: Vec<KeptOption>,
    /// Options GPGPU-Sim knows and warplab does not model, with their values.
    pub unmodelled_options: Vec<KeptOption>,
}

/// A cache's geometry and MSHRs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheSummary {
    /// Sets.
    pub sets: u32,
    /// Line size, bytes.
    pub line_size: u32,
    /// Ways.
    pub assoc: u32,
    /// Whether lines fill in 32 B sectors.
    pub sectored: bool,
    /// MSHR entries.
    pub mshr_entries: u32,
    /// Merges per MSHR entry.
    pub mshr_max_merge: u32,
}

/// A config laid out for people: groups of labelled values with the option
/// each comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigView {
    /// Cores, Schedulers, Execution units, L1/shared, L2/partitions, DRAM, Interconnect, Clocks.
    pub groups: Vec<ViewGroup>,
}

/// One titled group of rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewGroup {
    /// The group's title.
    pub title: String,
    /// Its rows, in display order.
    pub rows: Vec<ViewRow>,
}

/// One labelled value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewRow {
    /// What the value is, e.g. `SMs`.
    pub label: String,
    /// The value with its unit, e.g. `80` or `6 MB`.
    pub value: String,
    /// The option it comes from (or the options, `+`-joined), e.g. `-gpgpu_n_clusters`.
    pub option: String,
}

impl CacheSummary {
    fn of(cache: &CacheConfig) -> Self {
        Self {
            sets: cache.n_sets,
            line_size: cache.line_size_bytes,
            assoc: cache.assoc,
            sectored: cache.is_sectored(),
            mshr_entries: cache.mshr_entries,
            mshr_max_merge: cache.mshr_max_merge,
        }
    }
}

impl GpuConfig {
    /// The headline figures.
    pub fn summary(&self) -> ConfigSummary {
        ConfigSummary {
            n_sms: self.n_sms(),
            warp_size: self.cores.warp_size,
            core_clock_mhz: self.clocks.core.mhz(),
            max_threads_per_sm: self.cores.max_threads_per_sm,
            max_ctas_per_sm: self.cores.max_ctas_per_sm,
            regs_per_sm: self.cores.regs_per_sm,
            shmem_per_sm: self.l1.shmem_per_sm_bytes,
            schedulers_per_sm: self.scheduling.schedulers_per_sm,
            scheduler: self.scheduling.policy.to_string(),
            n_mem_channels: self.memory.n_channels,
            n_sub_partitions: self.memory.n_sub_partitions(),
            l1d: self.l1.dl1.as_ref().map(CacheSummary::of),
            l2: CacheSummary::of(&self.memory.l2),
            chiplets: self.chiplets.count,
            interpreted_options: self.chiplets.interpreted(),
            unknown_options: self.unknown_options.clone(),
            unmodelled_options: self.unmodelled_options.clone(),
        }
    }

    /// The grouped view model.
    pub fn view(&self) -> ConfigView {
        ConfigView {
            groups: vec![
                self.cores_group(),
                self.schedulers_group(),
                self.units_group(),
                self.l1_group(),
                self.l2_group(),
                self.dram_group(),
                self.interconnect_group(),
                self.clocks_group(),
            ]
            .into_iter()
            .chain(self.chiplets_group())
            .collect(),
        }
    }

    fn cores_group(&self) -> ViewGroup {
        let c = &self.cores;
        group(
            "Cores",
            vec![
                row(
                    "SMs",
                    format!("{} ({} clusters x {})", c.n_sms(), c.n_clusters, c.cores_per_cluster),
                    "-gpgpu_n_clusters+-gpgpu_n_cores_per_cluster",
                ),
                row("Warp size", c.warp_size, "-gpgpu_shader_core_pipeline"),
                row(
                    "Threads per SM",
                    format!("{} ({} warps)", c.max_threads_per_sm, c.max_warps_per_sm()),
                    "-gpgpu_shader_core_pipeline",
                ),
                row("CTAs per SM", c.max_ctas_per_sm, "-gpgpu_shader_cta"),
                row("Registers per SM", c.regs_per_sm, "-gpgpu_shader_registers"),
                row("Registers per CTA", c.regs_per_cta, "-gpgpu_registers_per_block"),
            ],
        )
    }

    fn schedulers_group(&self) -> ViewGroup {
        let s = &self.scheduling;
        group(
            "Schedulers",
            vec![
                row("Schedulers per SM", s.schedulers_per_sm, "-gpgpu_num_sched_per_core"),
                row("Policy", &s.policy, "-gpgpu_scheduler"),
                row("Issue per warp per cycle", s.max_insn_issue_per_warp, "-gpgpu_max_insn_issue_per_warp"),
                row("Sub-core model", yes_no(s.sub_core_model), "-gpgpu_sub_core_model"),
                row("Fetches per cycle", s.inst_fetch_throughput, "-gpgpu_inst_fetch_throughput"),
                row("Perfect instruction cache", yes_no(s.perfect_inst_const_cache), "-gpgpu_perfect_inst_const_cache"),
            ],
        )
    }

    fn units_group(&self) -> ViewGroup {
        let u = &self.units;
        let mut rows = vec![row(
            "Units SP / INT / DP / SFU / tensor",
            format!(
                "{} / {} / {} / {} / {}",
                u.n_sp_units, u.n_int_units, u.n_dp_units, u.n_sfu_units, u.n_tensor_units
            ),
            "-gpgpu_num_sp_units+-gpgpu_num_int_units+-gpgpu_num_dp_units+-gpgpu_num_sfu_units+-gpgpu_num_tensor_core_units",
        )];
        let classes = [
            ("INT", UnitClass::Int, "int"),
            ("SP", UnitClass::Sp, "sp"),
            ("DP", UnitClass::Dp, "dp"),
            ("SFU", UnitClass::Sfu, "sfu"),
            ("Tensor", UnitClass::Tensor, "tensor"),
        ];
        for (label, class, suffix) in classes {
            let latency = u.latency(class);
            let value = format!("{} / {} cycles", latency.latency_cycles, latency.initiation_cycles);
            rows.push(row(
                &format!("{label} latency / initiation"),
                value,
                &format!("-trace_opcode_latency_initiation_{suffix}"),
            ));
        }
        for id in 1..=N_SPECIALIZED_SLOTS {
            if let Some(unit) = u.specialized_unit(id).filter(|unit| unit.enabled) {
                let value = format!(
                    "{} units, {} / {} cycles",
                    unit.n_units, unit.latency.latency_cycles, unit.latency.initiation_cycles
                );
                rows.push(row(
                    &format!("Specialized {} ({})", id, unit.name),
                    value,
                    &format!("-specialized_unit_{id}"),
                ));
            }
        }
        group("Execution units", rows)
    }

    fn l1_group(&self) -> ViewGroup {
        let l1 = &self.l1;
        let mut rows = vec![match &l1.dl1 {
            Some(dl1) => row("L1 data cache", describe_cache(dl1), "-gpgpu_cache:dl1"),
            None => row("L1 data cache", "none", "-gpgpu_cache:dl1"),
        }];
        rows.push(row("L1 hit latency", cycles(l1.l1_latency_cycles), "-gpgpu_l1_latency"));
        rows.push(row("Global loads skip L1", yes_no(l1.gmem_skip_l1d), "-gpgpu_gmem_skip_L1D"));
        rows.push(row("Shared memory per SM", kib(u64::from(l1.shmem_per_sm_bytes)), "-gpgpu_shmem_size"));
        rows.push(row("Shared memory latency", cycles(l1.shmem_latency_cycles), "-gpgpu_smem_latency"));
        if l1.adaptive_cache {
            let options: Vec<String> = l1.shmem_options_bytes.iter().map(|b| (b / 1024).to_string()).collect();
            let value =
                format!("{} unified, carve-outs {} KB", kib(u64::from(l1.unified_l1d_size_bytes)), options.join(", "));
            rows.push(row("Adaptive L1/shared", value, "-gpgpu_unified_l1d_size+-gpgpu_shmem_option"));
        }
        group("L1/shared", rows)
    }

    fn l2_group(&self) -> ViewGroup {
        let m = &self.memory;
        group(
            "L2/partitions",
            vec![
                row("Memory channels", m.n_channels, "-gpgpu_n_mem"),
                row(
                    "L2 slices",
                    format!("{} ({} per channel)", m.n_sub_partitions(), m.sub_partitions_per_channel),
                    "-gpgpu_n_sub_partition_per_mchannel",
                ),
                row("L2 slice", describe_cache(&m.l2), "-gpgpu_cache:dl2"),
                row("L2 total", kib(m.l2_total_bytes()), "-gpgpu_cache:dl2"),
                row("ROP latency", cycles(m.l2_rop_latency_cycles), "-gpgpu_l2_rop_latency"),
                row("Partition indexing", m.partition_indexing.name(), "-gpgpu_memory_partition_indexing"),
            ],
        )
    }

    fn dram_group(&self) -> ViewGroup {
        let d = &self.dram;
        let bandwidth = format!(
            "{:.1} GB/s = {} ch x {} B x {} chips x {} x {} MHz",
            self.dram_bandwidth_bytes_per_second() as f64 / 1e9,
            self.memory.n_channels,
            d.bus_width_bytes,
            d.chips_per_channel,
            d.data_command_freq_ratio,
            self.clocks.dram
        );
        let t = d.timing;
        group(
            "DRAM",
            vec![
                row(
                    "Bandwidth",
                    bandwidth,
                    "-gpgpu_dram_buswidth+-gpgpu_n_mem_per_ctrlr+-dram_data_command_freq_ratio+-gpgpu_clock_domains",
                ),
                row("Access", format!("{} B (burst {})", d.access_bytes(), d.burst_length), "-gpgpu_dram_burst_length"),
                row("Latency", cycles(self.memory.dram_latency_cycles), "-dram_latency"),
                row(
                    "Timing tRCD / CL / tRP / tRAS",
                    format!("{} / {} / {} / {} clocks", t.t_rcd, t.cl, t.t_rp, t.t_ras),
                    "-gpgpu_dram_timing_opt",
                ),
                row(
                    "Scheduler",
                    format!("{}, queue {}", d.scheduler, d.scheduler_queue_entries),
                    "-gpgpu_dram_scheduler",
                ),
                row(
                    "Bank groups",
                    format!(
                        "{} of {} banks, tCCDL {} clocks, {}",
                        t.n_bank_groups,
                        t.n_banks,
                        t.t_ccdl,
                        match d.bank_group_indexing {
                            BankGroupIndexing::HighBits => "group from the bank's high bits",
                            BankGroupIndexing::LowBits => "group from the bank's low bits",
                        }
                    ),
                    "-dram_bnkgrp_indexing_policy",
                ),
                row(
                    "Bank indexing",
                    match d.bank_indexing {
                        BankIndexing::Linear => "address bank bits",
                        BankIndexing::XorRow => "bank bits XOR row bits",
                        BankIndexing::Ipoly => "IPOLY of bank and row bits",
                    }
                    .to_owned(),
                    "-dram_bnk_indexing_policy",
                ),
            ],
        )
    }

    fn interconnect_group(&self) -> ViewGroup {
        let i = &self.interconnect;
        let mode = match i.mode {
            NetworkMode::BookSim => format!("BookSim ({})", i.config_file),
            NetworkMode::LocalCrossbar => "built-in crossbar".to_owned(),
        };
        let (ports, cycles) = self.noc_bottleneck();
        let bandwidth = format!(
            "{:.1} GB/s = {} B blocks x {ports} ports / {cycles} cycle{} a packet x {} MHz",
            self.noc_bandwidth_bytes_per_second() as f64 / 1e9,
            self.l1_block_bytes(),
            if cycles == 1 { "" } else { "s" },
            self.clocks.icnt
        );
        group(
            "Interconnect",
            vec![
                row("Network", mode, "-network_mode"),
                row("Flit size", format!("{} B", i.effective_flit_size_bytes()), "-icnt_flit_size"),
                row("Bandwidth", bandwidth, "-icnt_flit_size+-gpgpu_clock_domains"),
                row(
                    "Buffers in / out",
                    format!("{} / {}", i.in_buffer_limit, i.out_buffer_limit),
                    "-icnt_in_buffer_limit+-icnt_out_buffer_limit",
                ),
            ],
        )
    }

    /// Only for a GPU of several chiplets; an interpreted option says so in its value.
    fn chiplets_group(&self) -> Option<ViewGroup> {
        let c = &self.chiplets;
        if !c.enabled() {
            return None;
        }
        let interpreted = c.interpreted();
        let mark = |option: &str, value: String| {
            if interpreted.iter().any(|i| i.name == option) { format!("{value} (interpreted)") } else { value }
        };
        let per_chiplet = format!(
            "{} SMs, {} channels, {} L2 slices",
            self.n_sms() / c.count,
            self.memory.n_channels / c.count,
            self.memory.n_sub_partitions() / c.count
        );
        let mapping = match c.sm_mapping {
            SmMapping::Contiguous => "contiguous blocks of clusters (consecutive CTAs share a chiplet)",
            SmMapping::Interleaved => "cluster i on chiplet i mod N (CTAs dealt round robin)",
        };
        let link = c.link_bytes_per_second(&self.memory, &self.clocks) as f64 / 1e9;
        let rows = vec![
            row(
                "Chiplets",
                mark("-gpgpu_n_chiplet_partition", format!("{} ({per_chiplet} each)", c.count)),
                "-gpgpu_n_chiplet_partition",
            ),
            row("SMs to chiplets", mark("-gpgpu_chiplet_interleave", mapping.to_owned()), "-gpgpu_chiplet_interleave"),
            row("Link bandwidth", format!("{link:.1} GB/s out and in per chiplet"), "-warplab_chiplet_link_gbps"),
            row(
                "Link latency",
                mark("-inter_chiplet_queue_latency", format!("{} core cycles", c.latency_cycles)),
                "-inter_chiplet_queue_latency",
            ),
            row(
                "Link queue",
                mark(
                    "-inter_chiplet_queue_size",
                    format!(
                        "{} packets per L2 slice ({} a link direction)",
                        c.queue_entries,
                        c.link_queue_packets(&self.memory)
                    ),
                ),
                "-inter_chiplet_queue_size",
            ),
            row(
                "Address interleave",
                format!("{} per chiplet", binary_size(c.interleave_bytes)),
                "-warplab_chiplet_interleave_bytes",
            ),
            row("Topology", c.topology.name(), "-warplab_chiplet_topology"),
        ];
        Some(group("Chiplets", rows))
    }

    fn clocks_group(&self) -> ViewGroup {
        let c = &self.clocks;
        let mhz = |f: crate::clocks::Frequency| format!("{f} MHz");
        group(
            "Clocks",
            vec![
                row("Core", mhz(c.core), "-gpgpu_clock_domains"),
                row("Interconnect", mhz(c.icnt), "-gpgpu_clock_domains"),
                row("L2", mhz(c.l2), "-gpgpu_clock_domains"),
                row("DRAM", mhz(c.dram), "-gpgpu_clock_domains"),
            ],
        )
    }
}

fn group(title: &str, rows: Vec<ViewRow>) -> ViewGroup {
    ViewGroup { title: title.to_owned(), rows }
}

fn row(label: &str, value: impl ToString, option: &str) -> ViewRow {
    ViewRow { label: label.to_owned(), value: value.to_string(), option: option.to_owned() }
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

fn cycles(n: u32) -> String {
    format!("{n} cycles")
}

/// Bytes as KB, or MB when a whole number of MB.
fn kib(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MB", bytes >> 20)
    } else {
        format!("{} KB", bytes / 1024)
    }
}

/// A power-of-two size in the largest binary unit that keeps it whole:
/// `512 B`, `8 KB`, `64 GB`.
fn binary_size(bytes: u64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"];
    let step = (bytes.trailing_zeros() / 10).min(units.len() as u32 - 1);
    format!("{} {}", bytes >> (10 * step), units[step as usize])
}

/// `32 KB, 4 sets x 128 B x 64 ways, sectored, 512 MSHRs (merge 8), IPOLY`.
fn describe_cache(cache: &CacheConfig) -> String {
    let index = match cache.set_index {
        SetIndex::Linear => "linear",
        SetIndex::FermiHash => "Fermi hash",
        SetIndex::Ipoly => "IPOLY",
        SetIndex::Xor => "XOR",
        SetIndex::Custom => "custom",
    };
    format!(
        "{}, {} sets x {} B x {} ways, {}, {} MSHRs (merge {}), {} index",
        kib(cache.size_bytes()),
        cache.n_sets,
        cache.line_size_bytes,
        cache.assoc,
        if cache.is_sectored() { "sectored" } else { "whole lines" },
        cache.mshr_entries,
        cache.mshr_max_merge,
        index
    )
}
