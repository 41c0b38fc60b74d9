//! [`ProfileKey`]: what of a config the analytical profile reads, so that a
//! sweep (or the page) profiles a workload once for every config that
//! agrees on it and reuses that profile for the rest.

use warplab_config::GpuConfig;

/// The options only the timing model and the analytical models read, never
/// the profile: the issue width, the front end, the memory partition's
/// queues, the interconnect's arbitration and output buffers, launch
/// latencies and concurrent kernels. The profile walks each warp's
/// instructions through the caches in program order (`warplab_model`:
/// `walk.rs`, `cache_pass.rs`, `llc.rs`), ranks its paths by the idle
/// latencies (`warplab_uarch::IdleLatencies`) and serves each kernel's
/// sampled DRAM requests on a DRAM channel (`dram_rate.rs`), so whatever
/// those read, the clock domains, DRAM timing, scheduler and queues,
/// latencies, flit size, stays in the key; so does the warp scheduler,
/// whose policy decides the order in which the pass's warps take their
/// turns (oldest first, or round robin), and the instruction cache, through
/// which it counts each warp's cold lines of code (`code_fetch.rs`).
/// A test profiles workloads with each of these changed.
pub const NOT_PROFILED: &[&str] = &[
    "-gpgpu_num_sched_per_core",
    "-gpgpu_max_insn_issue_per_warp",
    "-gpgpu_dual_issue_diff_exec_units",
    "-gpgpu_inst_fetch_throughput",
    "-gpgpu_n_cluster_ejection_buffer_size",
    "-gpgpu_n_ldst_response_buffer_size",
    "-gpgpu_dram_partition_queues",
    "-icnt_out_buffer_limit",
    "-icnt_subnets",
    "-icnt_arbiter_algo",
    "-icnt_grant_cycles",
    "-gpgpu_kernel_launch_latency",
    "-gpgpu_TB_launch_latency",
    "-gpgpu_concurrent_kernel_sm",
    "-gpgpu_max_concurrent_kernel",
];

/// The options a config sets that the analytical profile reads, as the
/// config writes them: two configs with the same key give the same profile
/// of any workload.
///
/// Over-approximate by design: every option not in [`NOT_PROFILED`] counts,
/// kept options (unknown to GPGPU-Sim or not modelled) and the BookSim file
/// excepted, since nothing reads them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProfileKey(Vec<String>);

impl ProfileKey {
    /// The key of `config`.
    pub fn of(config: &GpuConfig) -> Self {
        let kept = |name: &str| {
            config.unknown_options.iter().chain(&config.unmodelled_options).any(|option| option.name == name)
        };
        let mut lines: Vec<String> = Vec::new();
        for (_, text) in config.to_files().iter().take(2) {
            for line in text.lines().map(str::trim).filter(|line| line.starts_with('-')) {
                let name = line.split_whitespace().next().unwrap_or(line);
                if !NOT_PROFILED.contains(&name) && !kept(name) {
                    lines.push(line.to_owned());
                }
            }
        }
        Self(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConfigEdit, GenSpec, ProfileOptions, apply_edits, profile_generated};

    fn edited(base: &GpuConfig, name: &str, value: &str) -> GpuConfig {
        let edit = ConfigEdit::Option { name: name.to_owned(), value: value.to_owned() };
        apply_edits(base, &[edit]).unwrap()
    }

    /// A value other than QV100's for each option of [`NOT_PROFILED`].
    const CHANGES: &[(&str, &str)] = &[
        ("-gpgpu_num_sched_per_core", "2"),
        ("-gpgpu_max_insn_issue_per_warp", "2"),
        ("-gpgpu_dual_issue_diff_exec_units", "0"),
        ("-gpgpu_inst_fetch_throughput", "1"),
        ("-gpgpu_n_cluster_ejection_buffer_size", "8"),
        ("-gpgpu_n_ldst_response_buffer_size", "1"),
        ("-gpgpu_dram_partition_queues", "4:4:4:4"),
        ("-icnt_out_buffer_limit", "8"),
        ("-icnt_subnets", "1"),
        ("-icnt_arbiter_algo", "0"),
        ("-icnt_grant_cycles", "2"),
        ("-gpgpu_kernel_launch_latency", "100"),
        ("-gpgpu_TB_launch_latency", "100"),
        ("-gpgpu_concurrent_kernel_sm", "1"),
        ("-gpgpu_max_concurrent_kernel", "4"),
    ];

    #[test]
    fn a_config_that_differs_only_in_options_the_profile_ignores_profiles_the_same() {
        let base = warplab_config::preset("QV100").unwrap().config().unwrap();
        let specs: Vec<GenSpec> = ["vecadd:size=4", "bfs:size=4", "gemm-tiled:size=1", "strided:gs=8,size=2"]
            .iter()
            .map(|text| text.parse().unwrap())
            .collect();
        let options = ProfileOptions::default();
        let profiles: Vec<_> = specs.iter().map(|spec| profile_generated(&base, spec, options).unwrap()).collect();
        assert_eq!(CHANGES.len(), NOT_PROFILED.len());
        let mut changed = base.clone();
        for &(name, value) in CHANGES {
            assert!(NOT_PROFILED.contains(&name), "{name}");
            let one = edited(&base, name, value);
            assert!(one.to_files() != base.to_files(), "{name} {value} must change the config");
            assert_eq!(ProfileKey::of(&one), ProfileKey::of(&base), "{name}");
            changed = edited(&changed, name, value);
        }
        // Every one changed at once.
        assert_eq!(ProfileKey::of(&changed), ProfileKey::of(&base));
        for (spec, profile) in specs.iter().zip(&profiles) {
            assert_eq!(&profile_generated(&changed, spec, options).unwrap(), profile, "{spec}");
        }
    }

    #[test]
    fn an_option_the_profile_reads_changes_the_key() {
        let base = warplab_config::preset("QV100").unwrap().config().unwrap();
        for (name, value) in [
            ("-gpgpu_l1_latency", "60"),
            ("-gpgpu_clock_domains", "1000.0:1000.0:1000.0:500.0"),
            ("-gpgpu_scheduler", "gto"),
            ("-gpgpu_frfcfs_dram_sched_queue_size", "16"),
            ("-gpgpu_dram_scheduler", "0"),
            ("-gpgpu_perfect_inst_const_cache", "0"),
            ("-gpgpu_cache:il1", "N:32:128:16,L:R:f:N:L,S:2:48,4:0,128"),
        ] {
            assert_ne!(ProfileKey::of(&edited(&base, name, value)), ProfileKey::of(&base), "{name}");
        }
        let spec: GenSpec = "vecadd:size=4".parse().unwrap();
        let slower = edited(&base, "-gpgpu_l1_latency", "60");
        let options = ProfileOptions::default();
        assert_ne!(
            profile_generated(&slower, &spec, options).unwrap(),
            profile_generated(&base, &spec, options).unwrap()
        );
        // A real instruction cache: the warps' first lines of code are cold.
        let fetching = edited(&base, "-gpgpu_perfect_inst_const_cache", "0");
        let cold = profile_generated(&fetching, &spec, options).unwrap();
        assert!(cold.kernels[0].work.fetch_misses > 0.0 && cold != profile_generated(&base, &spec, options).unwrap());
        // Oldest first, a divergent kernel's warps in turn are the few in
        // the memory pipeline, which keep lines that round robin's turns
        // through every warp evict; and how many there are is the
        // pipeline's registers'.
        let pascal = warplab_config::preset("mdm-pascal-28sm").unwrap().config().unwrap();
        let divergent: GenSpec = "strided:gs=32,size=14".parse().unwrap();
        let lrr = edited(&pascal, "-gpgpu_scheduler", "lrr");
        let wide = edited(&pascal, "-gpgpu_pipeline_widths", "4,0,0,1,4,4,0,0,1,4,6");
        assert_ne!(ProfileKey::of(&wide), ProfileKey::of(&pascal));
        let gto = profile_generated(&pascal, &divergent, options).unwrap();
        for other in [&lrr, &wide] {
            assert_ne!(profile_generated(other, &divergent, options).unwrap(), gto);
        }
    }
}
