//! The options GPGPU-Sim and Accel-Sim register: name, type and default,
//! from the embedded `data/all_options.tsv` plus the trace driver's options.

use std::sync::OnceLock;

/// How GPGPU-Sim's option parser reads an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// `OPT_BOOL`: 0 or 1, and may stand alone (then it means 1).
    Bool,
    /// `OPT_INT32`, `OPT_UINT32`, `OPT_INT64`: an integer in C notation.
    Integer,
    /// `OPT_CSTR`: a string parsed later by whoever uses it.
    Text,
}

/// What GPGPU-Sim registers for one option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownOption {
    /// How its value is read.
    pub kind: OptionKind,
    /// The registered default, as text.
    pub default: &'static str,
    /// GPGPU-Sim's help text for it (empty when it has none).
    pub help: &'static str,
}

/// The option GPGPU-Sim (or Accel-Sim's trace driver) registers under `name`, if any.
pub fn known_option(name: &str) -> Option<KnownOption> {
    let table = table();
    if let Ok(index) = table.binary_search_by(|(known, _)| (*known).cmp(name)) {
        return Some(table[index].1);
    }
    trace_driver_option(name)
}

/// The embedded option list, copied from `shared/anchors/accel-sim/`.
const ALL_OPTIONS_TSV: &str = include_str!("../data/all_options.tsv");

/// Options registered outside the TSV (README §7 of the Accel-Sim anchors),
/// with their upstream defaults (`gpu-sim.cc`): 0 queue size means unlimited.
const EXTRA_OPTIONS: [(&str, KnownOption); 3] = [
    (
        "-gpgpu_frfcfs_dram_sched_queue_size",
        KnownOption { kind: OptionKind::Integer, default: "0", help: "0 = unlimited (default); # entries per chip" },
    ),
    (
        "-gpgpu_dram_return_queue_size",
        KnownOption { kind: OptionKind::Integer, default: "0", help: "0 = unlimited (default); # entries per chip" },
    ),
    (
        "-enable_ptx_file_line_stats",
        KnownOption { kind: OptionKind::Bool, default: "1", help: "Turn on PTX source line statistic profiling" },
    ),
];

/// The Accel-Sim 2.0 development line's chiplet options, with the defaults
/// its source registers (see `chiplets.rs` for where and what they mean).
const ACCEL_SIM_2_OPTIONS: [(&str, KnownOption); 4] = [
    (
        "-gpgpu_n_chiplet_partition",
        KnownOption { kind: OptionKind::Integer, default: "1", help: "Number of chiplet partitions" },
    ),
    (
        "-gpgpu_chiplet_interleave",
        KnownOption {
            kind: OptionKind::Integer,
            default: "0",
            help: "Chiplet TPC mapping: 0 = contiguous blocks, 1 = interleaved (cluster i on chiplet i mod N)",
        },
    ),
    (
        "-inter_chiplet_queue_size",
        KnownOption {
            kind: OptionKind::Integer,
            default: "128",
            help: "max entries in inter-chiplet request/reply queues",
        },
    ),
    (
        "-inter_chiplet_queue_latency",
        KnownOption {
            kind: OptionKind::Integer,
            default: "100",
            help: "latency (in core cycles) for inter-chiplet queue",
        },
    ),
];

/// warplab's own options (`configs/README.md`), written after `#warplab `.
pub const WARPLAB_OPTIONS: [(&str, KnownOption); 3] = [
    (
        "-warplab_chiplet_link_gbps",
        KnownOption {
            kind: OptionKind::Integer,
            default: "0",
            help: "GB/s each chiplet sends and receives over its inter-chiplet links; 0 = one 32-B sector per L2 slice \
                   of the chiplet per L2 cycle (what Accel-Sim 2.0's queues carry)",
        },
    ),
    (
        "-warplab_chiplet_interleave_bytes",
        KnownOption {
            kind: OptionKind::Integer,
            default: "8192",
            help: "consecutive bytes of the address space on one chiplet before the next chiplet's (a power of two)",
        },
    ),
    (
        "-warplab_chiplet_topology",
        KnownOption {
            kind: OptionKind::Text,
            default: "all_to_all",
            help: "inter-chiplet topology: all_to_all (every chiplet linked to every other) or ring",
        },
    ),
];

/// Accel-Sim's trace driver registers families of options by prefix; every
/// name under these prefixes counts as known (the anchors' README says to
/// treat them so). Defaults are upstream's (`trace_config.cc`): `4,1` for the
/// unit classes, `4,4` for specialized units, and a disabled BRA unit.
fn trace_driver_option(name: &str) -> Option<KnownOption> {
    let mut extras = EXTRA_OPTIONS.iter().chain(&ACCEL_SIM_2_OPTIONS).chain(&WARPLAB_OPTIONS);
    if let Some((_, extra)) = extras.find(|(known, _)| *known == name) {
        return Some(*extra);
    }
    let (default, help) = if let Some(suffix) = name.strip_prefix("-trace_opcode_latency_initiation_") {
        let default = if suffix.starts_with("spec_op_") { "4,4" } else { "4,1" };
        (default, "Opcode latencies and initiation intervals for this unit class {<latency>,<initiation>}")
    } else if name.starts_with("-specialized_unit_") {
        (
            "0,4,4,4,4,BRA",
            "A specialized unit {<enabled>,<num_units>,<latency>,<initiation>,<ID_OC_SPEC>,<OC_EX_SPEC>,<NAME>}",
        )
    } else {
        return None;
    };
    Some(KnownOption { kind: OptionKind::Text, default, help })
}

/// The TSV parsed once into a table sorted by name. Rows whose name does not
/// start with `-` (the DRAM timing sub-options, a computed name) are not
/// command-line options and are skipped; a duplicate row keeps the first.
fn table() -> &'static [(&'static str, KnownOption)] {
    static TABLE: OnceLock<Vec<(&'static str, KnownOption)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut options: Vec<_> = ALL_OPTIONS_TSV.lines().filter_map(parse_row).collect();
        // A stable sort keeps the first of two rows with the same name first.
        options.sort_by(|a, b| a.0.cmp(b.0));
        options.dedup_by(|later, earlier| later.0 == earlier.0);
        options
    })
}

fn parse_row(row: &'static str) -> Option<(&'static str, KnownOption)> {
    let mut columns = row.split('\t');
    let _source_file = columns.next()?;
    let name = columns.next()?;
    let kind = columns.next()?;
    let default = columns.next().unwrap_or("");
    let help = columns.next().unwrap_or("").trim();
    if !name.starts_with('-') {
        return None;
    }
    let kind = match kind {
        "OPT_BOOL" => OptionKind::Bool,
        "OPT_CSTR" => OptionKind::Text,
        _ => OptionKind::Integer,
    };
    Some((name, KnownOption { kind, default, help }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, expect: Option<(OptionKind, &str)>) {
        let found = known_option(name).map(|option| (option.kind, option.default));
        assert_eq!(found, expect, "{name}");
    }

    #[test]
    fn tsv_options_have_their_kind_and_default() {
        check("-gpgpu_n_clusters", Some((OptionKind::Integer, "10")));
        check("-gpgpu_perf_sim_memcpy", Some((OptionKind::Bool, "1")));
        check("-gpgpu_cache:dl1", Some((OptionKind::Text, "none")));
        check("-gpgpu_clock_domains", Some((OptionKind::Text, "500.0:2000.0:2000.0:2000.0")));
        check("-gpgpu_shmem_warp_parts", Some((OptionKind::Integer, "2")));
        check("-hw_perf_bench_name", Some((OptionKind::Text, "")));
    }

    #[test]
    fn options_carry_gpgpu_sims_help_text() {
        let help = |name: &str| known_option(name).map(|option| option.help);
        assert_eq!(help("-gpgpu_n_clusters"), Some("number of processing clusters"));
        assert!(help("-gpgpu_cache:dl1").is_some_and(|h| h.starts_with("per-shader L1 data cache config")));
        assert!(help("-trace_opcode_latency_initiation_sp").is_some_and(|h| h.contains("latencies")));
        assert_eq!(help("-no_such_option"), None);
    }

    #[test]
    fn trace_driver_and_newer_options_are_known() {
        check("-trace_opcode_latency_initiation_int", Some((OptionKind::Text, "4,1")));
        check("-trace_opcode_latency_initiation_spec_op_3", Some((OptionKind::Text, "4,4")));
        check("-trace_opcode_latency_initiation_spec_op_9", Some((OptionKind::Text, "4,4")));
        check("-specialized_unit_2", Some((OptionKind::Text, "0,4,4,4,4,BRA")));
        check("-gpgpu_frfcfs_dram_sched_queue_size", Some((OptionKind::Integer, "0")));
        check("-enable_ptx_file_line_stats", Some((OptionKind::Bool, "1")));
        check("-gpgpu_n_chiplet_partition", Some((OptionKind::Integer, "1")));
        check("-inter_chiplet_queue_size", Some((OptionKind::Integer, "128")));
        check("-warplab_chiplet_topology", Some((OptionKind::Text, "all_to_all")));
    }

    #[test]
    fn sub_options_and_accel_sim_2_options_are_unknown() {
        check("nbk", None);
        check("-nbk", None);
        check("-gpgpu_lrc_enabled", None);
        check("-config", None);
    }

    #[test]
    fn the_table_is_sorted_and_has_every_command_line_row() {
        let rows = ALL_OPTIONS_TSV.lines().filter(|row| row.split('\t').nth(1).is_some_and(|n| n.starts_with('-')));
        // 226 command-line rows, one of them (-gpgpu_shmem_warp_parts) twice.
        assert_eq!(rows.count(), 212);
        assert_eq!(table().len(), 211);
        assert!(table().windows(2).all(|pair| pair[0].0 < pair[1].0));
    }
}
