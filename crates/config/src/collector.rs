//! The operand collector between issue and the execution units: its collector
//! units, ports and register banks (GPGPU-Sim's `opndcoll_rfu_t` options).

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::lookup::OptionReader;
use crate::writer::OptionWriter;

/// The largest count of collector units, ports or register banks (a documented limit).
pub const MAX_COLLECTOR_RESOURCES: u32 = 256;

/// The collector unit sets GPGPU-Sim builds, in the order it builds them:
/// the generic set, then (with `-gpgpu_enable_specialized_operand_collector`)
/// one set per pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CollectorSetKind {
    /// `gen`: takes any pipeline's instructions, including the specialized units'.
    Generic,
    /// `sp`.
    Sp,
    /// `dp`.
    Dp,
    /// `tensor_core`.
    Tensor,
    /// `sfu`.
    Sfu,
    /// `mem`: the LD/ST unit's.
    Memory,
    /// `int`.
    Int,
}

/// One set of collector units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectorSet {
    /// Which set.
    pub kind: CollectorSetKind,
    /// `-gpgpu_operand_collector_num_units_<set>`: collector units.
    pub units: u32,
    /// `-gpgpu_operand_collector_num_in_ports_<set>`: ports that hand it instructions.
    pub in_ports: u32,
    /// `-gpgpu_operand_collector_num_out_ports_<set>`: instructions it may
    /// dispatch per step (its dispatch units).
    pub out_ports: u32,
}

/// The operand collector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperandCollector {
    /// `-gpgpu_enable_specialized_operand_collector`: the per-pipeline sets
    /// exist beside the generic one.
    pub specialized_sets: bool,
    /// Every set in GPGPU-Sim's order (generic first); a specialized set is
    /// listed even when `specialized_sets` is off, with its options as read.
    pub sets: Vec<CollectorSet>,
    /// `-gpgpu_num_reg_banks`: register-file banks (an SM's; split evenly
    /// among the schedulers under the sub-core model).
    pub reg_banks: u32,
    /// `-gpgpu_reg_file_port_throughput`: operand-collector steps per cycle.
    pub reg_file_port_throughput: u32,
}

/// The option-name part of each set, in [`CollectorSetKind`] order.
const SET_NAMES: [(CollectorSetKind, &str); 7] = [
    (CollectorSetKind::Generic, "gen"),
    (CollectorSetKind::Sp, "sp"),
    (CollectorSetKind::Dp, "dp"),
    (CollectorSetKind::Tensor, "tensor_core"),
    (CollectorSetKind::Sfu, "sfu"),
    (CollectorSetKind::Memory, "mem"),
    (CollectorSetKind::Int, "int"),
];

impl OperandCollector {
    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let range = 0..=MAX_COLLECTOR_RESOURCES;
        let mut sets = Vec::with_capacity(SET_NAMES.len());
        for (kind, name) in SET_NAMES {
            sets.push(CollectorSet {
                kind,
                units: r.u32_in(&format!("-gpgpu_operand_collector_num_units_{name}"), range.clone())?,
                in_ports: r.u32_in(&format!("-gpgpu_operand_collector_num_in_ports_{name}"), range.clone())?,
                out_ports: r.u32_in(&format!("-gpgpu_operand_collector_num_out_ports_{name}"), range.clone())?,
            });
        }
        Ok(Self {
            specialized_sets: r.bool("-gpgpu_enable_specialized_operand_collector")?,
            sets,
            reg_banks: r.u32_in("-gpgpu_num_reg_banks", 1..=MAX_COLLECTOR_RESOURCES)?,
            reg_file_port_throughput: r.u32_in("-gpgpu_reg_file_port_throughput", 1..=16)?,
        })
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("Operand collector");
        w.option("-gpgpu_enable_specialized_operand_collector", u32::from(self.specialized_sets));
        for set in &self.sets {
            let name = SET_NAMES.iter().find(|(kind, _)| *kind == set.kind).map_or("gen", |(_, name)| name);
            w.option(&format!("-gpgpu_operand_collector_num_units_{name}"), set.units);
            w.option(&format!("-gpgpu_operand_collector_num_in_ports_{name}"), set.in_ports);
            w.option(&format!("-gpgpu_operand_collector_num_out_ports_{name}"), set.out_ports);
        }
        w.option("-gpgpu_num_reg_banks", self.reg_banks);
        w.option("-gpgpu_reg_file_port_throughput", self.reg_file_port_throughput);
    }

    /// The set of `kind`.
    pub fn set(&self, kind: CollectorSetKind) -> CollectorSet {
        self.sets.iter().copied().find(|set| set.kind == kind).unwrap_or(CollectorSet {
            kind,
            units: 0,
            in_ports: 0,
            out_ports: 0,
        })
    }

    /// The sets GPGPU-Sim builds: the generic one always, the others only
    /// with `specialized_sets`.
    pub fn built_sets(&self) -> impl Iterator<Item = CollectorSet> + '_ {
        self.sets.iter().copied().filter(|set| self.specialized_sets || set.kind == CollectorSetKind::Generic)
    }
}
