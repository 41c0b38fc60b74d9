//! The SMs: how many, their thread/CTA/register limits, their warp
//! schedulers (count, policy, issue width, sub-core model) and the
//! instruction fetch that feeds them.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::lookup::{OptionReader, Value};
use crate::writer::OptionWriter;

/// The largest GPU warplab accepts, in SMs (a documented limit).
pub const MAX_SMS: u32 = 1024;
/// The most threads per SM (128 warps of 32).
pub const MAX_THREADS_PER_SM: u32 = 4096;
/// The most CTAs per SM (GPGPU-Sim's `MAX_CTA_PER_SHADER`).
pub const MAX_CTAS_PER_SM: u32 = 32;
/// The most registers per SM.
pub const MAX_REGS_PER_SM: u32 = 1 << 20;

/// SM count and per-SM thread, CTA and register limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cores {
    /// `-gpgpu_n_clusters`: SIMT clusters (TPCs).
    pub n_clusters: u32,
    /// `-gpgpu_n_cores_per_cluster`: SMs per cluster.
    pub cores_per_cluster: u32,
    /// `-gpgpu_shader_core_pipeline` second field: threads per warp.
    pub warp_size: u32,
    /// `-gpgpu_shader_core_pipeline` first field: resident threads per SM.
    pub max_threads_per_sm: u32,
    /// `-gpgpu_shader_cta`: resident CTAs per SM.
    pub max_ctas_per_sm: u32,
    /// `-gpgpu_shader_registers`: 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// `-gpgpu_registers_per_block`: registers one CTA may use.
    pub regs_per_cta: u32,
    /// `-gpgpu_compute_capability_major` and `_minor`: the architecture, which
    /// says which SASS (binary version) traces generated for this GPU carry.
    #[serde(default)]
    pub compute_capability: ComputeCapability,
}

/// A CUDA compute capability, `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputeCapability {
    /// The architecture generation (6 Pascal, 7 Volta and Turing, 8 Ampere, 9 Hopper).
    pub major: u32,
    /// The revision within it.
    pub minor: u32,
}

impl Default for ComputeCapability {
    /// GPGPU-Sim's default, 7.0 (Volta).
    fn default() -> Self {
        Self { major: 7, minor: 0 }
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The most fetch-and-decode steps per SM cycle warplab accepts.
pub const MAX_INST_FETCH_THROUGHPUT: u32 = 64;

/// Instruction fetch, warp scheduling and issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheduling {
    /// `-gpgpu_num_sched_per_core`: warp schedulers per SM.
    pub schedulers_per_sm: u32,
    /// `-gpgpu_scheduler`.
    pub policy: SchedulerPolicy,
    /// `-gpgpu_max_insn_issue_per_warp`: instructions one warp may issue per cycle (1 or 2).
    pub max_insn_issue_per_warp: u32,
    /// `-gpgpu_dual_issue_diff_exec_units`: a dual issue must use two different units.
    pub dual_issue_diff_exec_units: bool,
    /// `-gpgpu_sub_core_model`: each scheduler has its own register file slice
    /// and units; warp w belongs to scheduler w mod schedulers.
    pub sub_core_model: bool,
    /// `-gpgpu_inst_fetch_throughput`: fetch-and-decode steps per SM cycle,
    /// each bringing the next two instructions of one warp.
    pub inst_fetch_throughput: u32,
    /// `-gpgpu_perfect_inst_const_cache`: every instruction fetch hits the
    /// instruction cache (no cold misses).
    pub perfect_inst_const_cache: bool,
}

/// `-gpgpu_scheduler`: the warp scheduling policy with its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchedulerPolicy {
    /// `lrr`: loose round robin.
    Lrr,
    /// `gto`: greedy then oldest.
    Gto,
    /// `rrr`: strict round robin.
    Rrr,
    /// `old`: oldest first.
    OldestFirst,
    /// `two_level_active:<active warps>:<inner>:<outer>`.
    TwoLevelActive {
        /// Warps in the active set.
        active_warps: u32,
        /// Prioritization inside the active set (GPGPU-Sim's enum value).
        inner_prioritization: u32,
        /// Prioritization of the pending set (GPGPU-Sim's enum value).
        outer_prioritization: u32,
    },
    /// `warp_limiting:<prioritization>:<warps>` (static warp limiting).
    WarpLimiting {
        /// Prioritization (GPGPU-Sim's enum value).
        prioritization: u32,
        /// Warps allowed to issue.
        warps_to_limit: u32,
    },
}

impl Cores {
    /// The number of SMs: clusters × cores per cluster.
    pub fn n_sms(&self) -> u32 {
        self.n_clusters * self.cores_per_cluster
    }

    /// Resident warps per SM.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size
    }

    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let n_clusters = r.u32_in("-gpgpu_n_clusters", 1..=MAX_SMS)?;
        let cores = r.value("-gpgpu_n_cores_per_cluster")?;
        let cores_per_cluster = cores.u32_in(1..=MAX_SMS)?;
        let n_sms = u64::from(n_clusters) * u64::from(cores_per_cluster);
        if n_sms > u64::from(MAX_SMS) {
            let limit = format!("at most {MAX_SMS} SMs (-gpgpu_n_clusters x -gpgpu_n_cores_per_cluster)");
            return Err(cores.out_of_range(&format!("{n_sms} SMs"), &limit));
        }
        let (warp_size, max_threads_per_sm) = read_pipeline(&r.value("-gpgpu_shader_core_pipeline")?)?;
        let regs = r.value("-gpgpu_shader_registers")?;
        let regs_per_sm = regs.u32_in(1..=MAX_REGS_PER_SM)?;
        Ok(Self {
            n_clusters,
            cores_per_cluster,
            warp_size,
            max_threads_per_sm,
            max_ctas_per_sm: r.u32_in("-gpgpu_shader_cta", 1..=MAX_CTAS_PER_SM)?,
            regs_per_sm,
            regs_per_cta: r.u32_in("-gpgpu_registers_per_block", 1..=MAX_REGS_PER_SM)?,
            compute_capability: ComputeCapability {
                major: r.u32_in("-gpgpu_compute_capability_major", 1..=99)?,
                minor: r.u32_in("-gpgpu_compute_capability_minor", 0..=9)?,
            },
        })
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("SMs: count = clusters x cores per cluster");
        w.option("-gpgpu_n_clusters", self.n_clusters);
        w.option("-gpgpu_n_cores_per_cluster", self.cores_per_cluster);
        w.option("-gpgpu_shader_core_pipeline", format!("{}:{}", self.max_threads_per_sm, self.warp_size));
        w.option("-gpgpu_shader_cta", self.max_ctas_per_sm);
        w.option("-gpgpu_shader_registers", self.regs_per_sm);
        w.option("-gpgpu_registers_per_block", self.regs_per_cta);
        w.option("-gpgpu_compute_capability_major", self.compute_capability.major);
        w.option("-gpgpu_compute_capability_minor", self.compute_capability.minor);
    }
}

/// `<threads per SM>:<warp size>`: the warp size is a power of two up to 32
/// (a trace's active mask has 32 bits) and divides the thread count.
fn read_pipeline(value: &Value) -> Result<(u32, u32), ConfigError> {
    let fields = value.decimal_list(':', &["threads per SM", "warp size"], 2..=2, 1..=MAX_THREADS_PER_SM)?;
    let (threads, warp_size) = (fields[0], fields[1]);
    if !warp_size.is_power_of_two() || warp_size > 32 {
        return Err(value.bad_field("warp size", "must be a power of two up to 32"));
    }
    if !threads.is_multiple_of(warp_size) {
        return Err(value.bad_field("threads per SM", "must be a multiple of the warp size"));
    }
    Ok((warp_size, threads))
}

impl Scheduling {
    pub(crate) fn read(r: &mut OptionReader<'_>, cores: &Cores) -> Result<Self, ConfigError> {
        let schedulers = r.value("-gpgpu_num_sched_per_core")?;
        let schedulers_per_sm = schedulers.u32_in(1..=32)?;
        if schedulers_per_sm > cores.max_warps_per_sm() {
            return Err(schedulers.inconsistent("more warp schedulers than resident warps"));
        }
        Ok(Self {
            schedulers_per_sm,
            policy: SchedulerPolicy::read(&r.value("-gpgpu_scheduler")?)?,
            max_insn_issue_per_warp: r.u32_in("-gpgpu_max_insn_issue_per_warp", 1..=2)?,
            dual_issue_diff_exec_units: r.bool("-gpgpu_dual_issue_diff_exec_units")?,
            sub_core_model: r.bool("-gpgpu_sub_core_model")?,
            inst_fetch_throughput: r.u32_in("-gpgpu_inst_fetch_throughput", 1..=MAX_INST_FETCH_THROUGHPUT)?,
            perfect_inst_const_cache: r.bool("-gpgpu_perfect_inst_const_cache")?,
        })
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("Warp schedulers");
        w.option("-gpgpu_num_sched_per_core", self.schedulers_per_sm);
        w.option("-gpgpu_scheduler", &self.policy);
        w.option("-gpgpu_max_insn_issue_per_warp", self.max_insn_issue_per_warp);
        w.option("-gpgpu_dual_issue_diff_exec_units", u32::from(self.dual_issue_diff_exec_units));
        w.option("-gpgpu_sub_core_model", u32::from(self.sub_core_model));
        w.option("-gpgpu_inst_fetch_throughput", self.inst_fetch_throughput);
        w.option("-gpgpu_perfect_inst_const_cache", u32::from(self.perfect_inst_const_cache));
    }
}

impl SchedulerPolicy {
    /// Parses `lrr`, `gto`, `rrr`, `old`, `two_level_active:a:i:o` or
    /// `warp_limiting:p:n`. GPGPU-Sim matches substrings; warplab wants the
    /// exact form so that a typo is an error rather than a surprise.
    fn read(value: &Value) -> Result<Self, ConfigError> {
        let text = value.text();
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or("");
        let params: Vec<&str> = parts.collect();
        let number = |index: usize, field: &str| value.decimal_field(params[index], field, &(0..=4096));
        let policy = match (name, params.len()) {
            ("lrr", 0) => Self::Lrr,
            ("gto", 0) => Self::Gto,
            ("rrr", 0) => Self::Rrr,
            ("old", 0) => Self::OldestFirst,
            ("two_level_active", 3) => Self::TwoLevelActive {
                active_warps: number(0, "active warps")?,
                inner_prioritization: number(1, "inner prioritization")?,
                outer_prioritization: number(2, "outer prioritization")?,
            },
            ("warp_limiting", 2) => {
                Self::WarpLimiting { prioritization: number(0, "prioritization")?, warps_to_limit: number(1, "warps")? }
            }
            _ => {
                return Err(value.bad(
                    "lrr, gto, rrr, old, two_level_active:<active warps>:<inner>:<outer> or warp_limiting:<prioritization>:<warps>",
                ));
            }
        };
        Ok(policy)
    }

    /// The policy's short name (`two_level_active` without parameters).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Lrr => "lrr",
            Self::Gto => "gto",
            Self::Rrr => "rrr",
            Self::OldestFirst => "old",
            Self::TwoLevelActive { .. } => "two_level_active",
            Self::WarpLimiting { .. } => "warp_limiting",
        }
    }
}

/// The config text, e.g. `gto` or `two_level_active:6:0:1`.
impl fmt::Display for SchedulerPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TwoLevelActive { active_warps, inner_prioritization, outer_prioritization } => {
                write!(f, "two_level_active:{active_warps}:{inner_prioritization}:{outer_prioritization}")
            }
            Self::WarpLimiting { prioritization, warps_to_limit } => {
                write!(f, "warp_limiting:{prioritization}:{warps_to_limit}")
            }
            other => f.write_str(other.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn check(text: &str, expect: Result<SchedulerPolicy, &str>) {
        let value =
            Value { option: "-gpgpu_scheduler".into(), text: Some(text.into()), at: Location::new("g.config", 9) };
        let got = SchedulerPolicy::read(&value);
        assert_eq!(got.clone().map_err(|e| e.to_string()), expect.map_err(str::to_owned));
        if let Ok(policy) = got {
            assert_eq!(policy.to_string(), text, "writes back as read");
        }
    }

    #[test]
    fn policies() {
        check("lrr", Ok(SchedulerPolicy::Lrr));
        check("gto", Ok(SchedulerPolicy::Gto));
        check("rrr", Ok(SchedulerPolicy::Rrr));
        check("old", Ok(SchedulerPolicy::OldestFirst));
        check(
            "two_level_active:6:0:1",
            Ok(SchedulerPolicy::TwoLevelActive { active_warps: 6, inner_prioritization: 0, outer_prioritization: 1 }),
        );
        check("warp_limiting:2:8", Ok(SchedulerPolicy::WarpLimiting { prioritization: 2, warps_to_limit: 8 }));
    }

    #[test]
    fn bad_policies() {
        let expected = "lrr, gto, rrr, old, two_level_active:<active warps>:<inner>:<outer> or warp_limiting:<prioritization>:<warps>";
        check("greedy", Err(&format!("g.config:9: -gpgpu_scheduler: expected {expected}, found `greedy`")));
        check(
            "two_level_active:6",
            Err(&format!("g.config:9: -gpgpu_scheduler: expected {expected}, found `two_level_active:6`")),
        );
        check(
            "two_level_active:x:0:1",
            Err(
                "g.config:9: -gpgpu_scheduler: active warps: expected an unsigned decimal number, found `x` (in `two_level_active:x:0:1`)",
            ),
        );
    }
}
