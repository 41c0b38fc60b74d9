//! Execution units of an SM: pipeline widths, unit counts, specialized units,
//! and the latency / initiation interval of each unit class (trace mode) with
//! the PTX tables that set the units' pipeline depths.

use serde::{Deserialize, Serialize};

use crate::collector::OperandCollector;
use crate::error::ConfigError;
use crate::lookup::{OptionReader, Value};
use crate::writer::OptionWriter;

/// Specialized-unit slots Accel-Sim registers (`SPECIALIZED_UNIT_NUM`).
pub const N_SPECIALIZED_SLOTS: u8 = 8;
/// The largest latency or initiation interval, in core cycles (a documented limit).
pub const MAX_LATENCY_CYCLES: u32 = 100_000;

/// The SM's functional units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionUnits {
    /// `-gpgpu_pipeline_widths`.
    pub widths: PipelineWidths,
    /// `-gpgpu_tensor_core_avail`.
    pub tensor_core_available: bool,
    /// `-gpgpu_num_sp_units`.
    pub n_sp_units: u32,
    /// `-gpgpu_num_dp_units` (0: DP instructions run on the SFU).
    pub n_dp_units: u32,
    /// `-gpgpu_num_int_units` (0: integer instructions run on SP).
    pub n_int_units: u32,
    /// `-gpgpu_num_sfu_units`.
    pub n_sfu_units: u32,
    /// `-gpgpu_num_tensor_core_units`.
    pub n_tensor_units: u32,
    /// `-specialized_unit_1` … `_8` with `-trace_opcode_latency_initiation_spec_op_<k>`:
    /// always eight slots, slot k at index k − 1.
    pub specialized: Vec<SpecializedUnit>,
    /// `-trace_opcode_latency_initiation_<int|sp|dp|sfu|tensor>`.
    pub trace_latencies: ClassLatencies,
    /// `-ptx_opcode_latency_*` / `-ptx_opcode_initiation_*`.
    pub ptx: PtxLatencies,
    /// The operand collector between issue and the units.
    pub operand_collector: OperandCollector,
}

/// `-gpgpu_pipeline_widths`: pipeline registers between stages, in GPGPU-Sim's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineWidths {
    /// Issue to operand collector, SP.
    pub id_oc_sp: u32,
    /// Issue to operand collector, DP.
    pub id_oc_dp: u32,
    /// Issue to operand collector, INT.
    pub id_oc_int: u32,
    /// Issue to operand collector, SFU.
    pub id_oc_sfu: u32,
    /// Issue to operand collector, LD/ST.
    pub id_oc_mem: u32,
    /// Operand collector to execute, SP.
    pub oc_ex_sp: u32,
    /// Operand collector to execute, DP.
    pub oc_ex_dp: u32,
    /// Operand collector to execute, INT.
    pub oc_ex_int: u32,
    /// Operand collector to execute, SFU.
    pub oc_ex_sfu: u32,
    /// Operand collector to execute, LD/ST.
    pub oc_ex_mem: u32,
    /// Execute to write-back.
    pub ex_wb: u32,
    /// Issue to operand collector, tensor (0 when the config gives 11 widths).
    pub id_oc_tensor: u32,
    /// Operand collector to execute, tensor (0 when the config gives 11 widths).
    pub oc_ex_tensor: u32,
}

/// One `-specialized_unit_<k> enabled,units,depth,id_oc,oc_ex,name` slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecializedUnit {
    /// The slot number k, 1 to 8 (opcode category `SPECIALIZED_UNIT_k_OP`).
    pub id: u8,
    /// Whether the unit exists.
    pub enabled: bool,
    /// Units per SM.
    pub n_units: u32,
    /// Pipeline depth (the most cycles an instruction stays in the unit).
    pub depth_cycles: u32,
    /// Issue to operand collector pipeline width.
    pub id_oc_width: u32,
    /// Operand collector to execute pipeline width.
    pub oc_ex_width: u32,
    /// The unit's name, e.g. `BRA`, `TEX`, `TENSOR`, `UDP`.
    pub name: String,
    /// `-trace_opcode_latency_initiation_spec_op_<k>`.
    pub latency: LatencyInitiation,
}

/// `<latency>,<initiation>`: an instruction holds the unit's dispatch register
/// for `initiation` cycles and its result is ready `latency` cycles after issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyInitiation {
    /// Cycles from issue to result.
    pub latency_cycles: u32,
    /// Cycles before the unit accepts the next instruction.
    pub initiation_cycles: u32,
}

/// Trace-mode latency and initiation interval per unit class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassLatencies {
    /// ALU, INTP, branch, call and return opcodes.
    pub int: LatencyInitiation,
    /// Single-precision opcodes.
    pub sp: LatencyInitiation,
    /// Double-precision opcodes.
    pub dp: LatencyInitiation,
    /// Special-function opcodes.
    pub sfu: LatencyInitiation,
    /// Tensor-core opcodes.
    pub tensor: LatencyInitiation,
}

/// The PTX opcode tables, which in trace mode still set the SP/INT/DP/SFU/tensor
/// pipeline depths. Lists are `ADD,MAX,MUL,MAD,DIV[,SHFL]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxLatencies {
    /// `-ptx_opcode_latency_int` (5 or 6 entries).
    pub int_latency: Vec<u32>,
    /// `-ptx_opcode_initiation_int` (5 or 6 entries).
    pub int_initiation: Vec<u32>,
    /// `-ptx_opcode_latency_fp` (5 entries).
    pub fp_latency: Vec<u32>,
    /// `-ptx_opcode_initiation_fp` (5 entries).
    pub fp_initiation: Vec<u32>,
    /// `-ptx_opcode_latency_dp` (5 entries).
    pub dp_latency: Vec<u32>,
    /// `-ptx_opcode_initiation_dp` (5 entries).
    pub dp_initiation: Vec<u32>,
    /// `-ptx_opcode_latency_sfu`.
    pub sfu_latency: u32,
    /// `-ptx_opcode_initiation_sfu`.
    pub sfu_initiation: u32,
    /// `-ptx_opcode_latency_tesnor` (the option's misspelling is GPGPU-Sim's).
    pub tensor_latency: u32,
    /// `-ptx_opcode_initiation_tensor`.
    pub tensor_initiation: u32,
}

/// A class of execution unit an instruction can be dispatched to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum UnitClass {
    /// Integer unit (ALU, INTP, branches when no BRA unit).
    Int,
    /// Single-precision unit.
    Sp,
    /// Double-precision unit.
    Dp,
    /// Special-function unit.
    Sfu,
    /// Tensor-core unit.
    Tensor,
    /// Specialized unit slot k (1 to 8).
    Specialized(u8),
}

impl ExecutionUnits {
    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let tensor_core_available = r.value("-gpgpu_tensor_core_avail")?.u32_in(0..=1)? == 1;
        let widths = PipelineWidths::read(&r.value("-gpgpu_pipeline_widths")?, tensor_core_available)?;
        let units = Self {
            widths,
            tensor_core_available,
            n_sp_units: r.u32_in("-gpgpu_num_sp_units", 0..=64)?,
            n_dp_units: r.u32_in("-gpgpu_num_dp_units", 0..=64)?,
            n_int_units: r.u32_in("-gpgpu_num_int_units", 0..=64)?,
            n_sfu_units: r.u32_in("-gpgpu_num_sfu_units", 0..=64)?,
            n_tensor_units: r.u32_in("-gpgpu_num_tensor_core_units", 0..=64)?,
            specialized: read_specialized(r)?,
            trace_latencies: ClassLatencies::read(r)?,
            ptx: PtxLatencies::read(r)?,
            operand_collector: OperandCollector::read(r)?,
        };
        if units.n_sp_units == 0 {
            return Err(r.value("-gpgpu_num_sp_units")?.inconsistent("an SM needs at least one SP unit"));
        }
        Ok(units)
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("Execution units");
        w.option("-gpgpu_pipeline_widths", self.widths.to_list());
        w.option("-gpgpu_tensor_core_avail", u32::from(self.tensor_core_available));
        w.option("-gpgpu_num_sp_units", self.n_sp_units);
        w.option("-gpgpu_num_dp_units", self.n_dp_units);
        w.option("-gpgpu_num_int_units", self.n_int_units);
        w.option("-gpgpu_num_sfu_units", self.n_sfu_units);
        w.option("-gpgpu_num_tensor_core_units", self.n_tensor_units);
        self.ptx.write(w);
        self.trace_latencies.write(w);
        for unit in &self.specialized {
            unit.write(w);
        }
        self.operand_collector.write(w);
    }

    /// Whether the SM has units of this class (an enabled slot for a specialized class).
    pub fn has_unit(&self, class: UnitClass) -> bool {
        self.n_units(class) > 0
    }

    /// Units of this class per SM: 0 for tensor units without
    /// `-gpgpu_tensor_core_avail` and for a disabled specialized slot.
    pub fn n_units(&self, class: UnitClass) -> u32 {
        match class {
            UnitClass::Int => self.n_int_units,
            UnitClass::Sp => self.n_sp_units,
            UnitClass::Dp => self.n_dp_units,
            UnitClass::Sfu => self.n_sfu_units,
            UnitClass::Tensor if self.tensor_core_available => self.n_tensor_units,
            UnitClass::Tensor => 0,
            UnitClass::Specialized(id) => {
                self.specialized_unit(id).filter(|unit| unit.enabled).map_or(0, |unit| unit.n_units)
            }
        }
    }

    /// The unit classes this SM has, in the order Int, Sp, Dp, Sfu, Tensor, specialized by slot.
    pub fn unit_classes(&self) -> Vec<UnitClass> {
        let fixed = [UnitClass::Int, UnitClass::Sp, UnitClass::Dp, UnitClass::Sfu, UnitClass::Tensor];
        let specialized = (1..=N_SPECIALIZED_SLOTS).map(UnitClass::Specialized);
        fixed.into_iter().chain(specialized).filter(|class| self.has_unit(*class)).collect()
    }

    /// Trace-mode latency and initiation interval of a class (the slot's
    /// values for a specialized class, enabled or not).
    pub fn latency(&self, class: UnitClass) -> LatencyInitiation {
        match class {
            UnitClass::Int => self.trace_latencies.int,
            UnitClass::Sp => self.trace_latencies.sp,
            UnitClass::Dp => self.trace_latencies.dp,
            UnitClass::Sfu => self.trace_latencies.sfu,
            UnitClass::Tensor => self.trace_latencies.tensor,
            UnitClass::Specialized(id) => self.specialized_unit(id).map_or(DEFAULT_SPEC_LATENCY, |unit| unit.latency),
        }
    }

    /// Pipeline depth of a class's units, as GPGPU-Sim derives it: the PTX
    /// table's MAX entry (INT: the larger of MAX and SHFL; SFU: the larger of
    /// the SFU latency and DP DIV), or a specialized unit's own depth.
    pub fn pipeline_depth(&self, class: UnitClass) -> u32 {
        let ptx = &self.ptx;
        match class {
            UnitClass::Int => ptx.int_latency[1].max(ptx.int_latency.get(5).copied().unwrap_or(0)),
            UnitClass::Sp => ptx.fp_latency[1],
            UnitClass::Dp => ptx.dp_latency[1],
            UnitClass::Sfu => ptx.sfu_latency.max(ptx.dp_latency[4]),
            UnitClass::Tensor => ptx.tensor_latency,
            UnitClass::Specialized(id) => self.specialized_unit(id).map_or(0, |unit| unit.depth_cycles),
        }
    }

    /// Specialized slot `id` (1 to 8).
    pub fn specialized_unit(&self, id: u8) -> Option<&SpecializedUnit> {
        self.specialized.iter().find(|unit| unit.id == id)
    }

    /// The enabled specialized unit with this name (`BRA`, `TEX`, `TENSOR`, `UDP`), case-insensitively.
    pub fn specialized_unit_named(&self, name: &str) -> Option<&SpecializedUnit> {
        self.specialized.iter().find(|unit| unit.enabled && unit.name.eq_ignore_ascii_case(name))
    }
}

const DEFAULT_SPEC_LATENCY: LatencyInitiation = LatencyInitiation { latency_cycles: 4, initiation_cycles: 4 };

const WIDTH_NAMES: [&str; 13] = [
    "ID_OC_SP",
    "ID_OC_DP",
    "ID_OC_INT",
    "ID_OC_SFU",
    "ID_OC_MEM",
    "OC_EX_SP",
    "OC_EX_DP",
    "OC_EX_INT",
    "OC_EX_SFU",
    "OC_EX_MEM",
    "EX_WB",
    "ID_OC_TENSOR_CORE",
    "OC_EX_TENSOR_CORE",
];

impl PipelineWidths {
    /// 13 widths, or 11 when tensor cores are unavailable (then the tensor widths are 0).
    fn read(value: &Value, tensor_core_available: bool) -> Result<Self, ConfigError> {
        let counts = if tensor_core_available { 13..=13 } else { 11..=13 };
        let w = value.decimal_list(',', &WIDTH_NAMES, counts, 0..=64)?;
        let get = |index: usize| w.get(index).copied().unwrap_or(0);
        Ok(Self {
            id_oc_sp: get(0),
            id_oc_dp: get(1),
            id_oc_int: get(2),
            id_oc_sfu: get(3),
            id_oc_mem: get(4),
            oc_ex_sp: get(5),
            oc_ex_dp: get(6),
            oc_ex_int: get(7),
            oc_ex_sfu: get(8),
            oc_ex_mem: get(9),
            ex_wb: get(10),
            id_oc_tensor: get(11),
            oc_ex_tensor: get(12),
        })
    }

    fn to_list(self) -> String {
        let widths = [
            self.id_oc_sp,
            self.id_oc_dp,
            self.id_oc_int,
            self.id_oc_sfu,
            self.id_oc_mem,
            self.oc_ex_sp,
            self.oc_ex_dp,
            self.oc_ex_int,
            self.oc_ex_sfu,
            self.oc_ex_mem,
            self.ex_wb,
            self.id_oc_tensor,
            self.oc_ex_tensor,
        ];
        join(&widths)
    }
}

/// Reads all eight slots; an enabled slot needs every lower slot enabled
/// (Accel-Sim numbers them without gaps).
fn read_specialized(r: &mut OptionReader<'_>) -> Result<Vec<SpecializedUnit>, ConfigError> {
    let mut units = Vec::new();
    let mut first_disabled: Option<u8> = None;
    for id in 1..=N_SPECIALIZED_SLOTS {
        let value = r.value(&format!("-specialized_unit_{id}"))?;
        let latency = LatencyInitiation::read(&r.value(&format!("-trace_opcode_latency_initiation_spec_op_{id}"))?)?;
        let unit = SpecializedUnit::read(id, &value, latency)?;
        match (unit.enabled, first_disabled) {
            (true, Some(gap)) => {
                return Err(value.inconsistent(&format!(
                    "specialized units are numbered without gaps, and unit {gap} is disabled"
                )));
            }
            (false, None) => first_disabled = Some(id),
            _ => {}
        }
        units.push(unit);
    }
    Ok(units)
}

impl SpecializedUnit {
    fn read(id: u8, value: &Value, latency: LatencyInitiation) -> Result<Self, ConfigError> {
        let text = value.text();
        let fields: Vec<&str> = text.splitn(6, ',').collect();
        if fields.len() != 6 {
            return Err(value.bad_field(
                "number of values",
                "expected <enabled>,<units>,<depth>,<ID_OC width>,<OC_EX width>,<name>",
            ));
        }
        let name = fields[5];
        if name.is_empty() || name.contains([',', ' ']) {
            return Err(value.bad_field("name", "expected a name without commas or spaces"));
        }
        Ok(Self {
            id,
            enabled: value.decimal_field(fields[0], "enabled", &(0..=1))? == 1,
            n_units: value.decimal_field(fields[1], "units", &(0..=64))?,
            depth_cycles: value.decimal_field(fields[2], "depth", &(0..=MAX_LATENCY_CYCLES))?,
            id_oc_width: value.decimal_field(fields[3], "ID_OC width", &(0..=64))?,
            oc_ex_width: value.decimal_field(fields[4], "OC_EX width", &(0..=64))?,
            name: name.to_owned(),
            latency,
        })
    }

    /// Whether the slot is as Accel-Sim registers it (disabled `0,4,4,4,4,BRA`, `4,4`):
    /// the writer leaves such slots out.
    fn is_default(&self) -> bool {
        !self.enabled
            && (self.n_units, self.depth_cycles, self.id_oc_width, self.oc_ex_width) == (4, 4, 4, 4)
            && self.name == "BRA"
            && self.latency == DEFAULT_SPEC_LATENCY
    }

    fn write(&self, w: &mut OptionWriter) {
        if self.is_default() {
            return;
        }
        let enabled = u32::from(self.enabled);
        let spec = format!(
            "{enabled},{},{},{},{},{}",
            self.n_units, self.depth_cycles, self.id_oc_width, self.oc_ex_width, self.name
        );
        w.option(&format!("-specialized_unit_{}", self.id), spec);
        w.option(&format!("-trace_opcode_latency_initiation_spec_op_{}", self.id), self.latency);
    }
}

impl LatencyInitiation {
    /// `<latency>,<initiation>` with initiation ≤ latency (the instruction
    /// enters the pipeline at stage latency − initiation).
    fn read(value: &Value) -> Result<Self, ConfigError> {
        let pair = value.decimal_list(',', &["latency", "initiation interval"], 2..=2, 0..=MAX_LATENCY_CYCLES)?;
        if pair[0] == 0 {
            return Err(value.bad_field("latency", "must be at least 1 cycle"));
        }
        if pair[1] > pair[0] {
            return Err(value.bad_field("initiation interval", "must not exceed the latency"));
        }
        Ok(Self { latency_cycles: pair[0], initiation_cycles: pair[1] })
    }
}

/// `<latency>,<initiation>`.
impl std::fmt::Display for LatencyInitiation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{}", self.latency_cycles, self.initiation_cycles)
    }
}

const CLASS_OPTIONS: [&str; 5] = [
    "-trace_opcode_latency_initiation_int",
    "-trace_opcode_latency_initiation_sp",
    "-trace_opcode_latency_initiation_dp",
    "-trace_opcode_latency_initiation_sfu",
    "-trace_opcode_latency_initiation_tensor",
];

impl ClassLatencies {
    fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let mut read = |index: usize| -> Result<LatencyInitiation, ConfigError> {
            LatencyInitiation::read(&r.value(CLASS_OPTIONS[index])?)
        };
        Ok(Self { int: read(0)?, sp: read(1)?, dp: read(2)?, sfu: read(3)?, tensor: read(4)? })
    }

    fn write(&self, w: &mut OptionWriter) {
        for (option, latency) in CLASS_OPTIONS.iter().zip([self.int, self.sp, self.dp, self.sfu, self.tensor]) {
            w.option(option, latency);
        }
    }
}

const PTX_NAMES: [&str; 6] = ["ADD", "MAX", "MUL", "MAD", "DIV", "SHFL"];

impl PtxLatencies {
    fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        Ok(Self {
            int_latency: list(r, "-ptx_opcode_latency_int", 5..=6)?,
            int_initiation: list(r, "-ptx_opcode_initiation_int", 5..=6)?,
            fp_latency: list(r, "-ptx_opcode_latency_fp", 5..=5)?,
            fp_initiation: list(r, "-ptx_opcode_initiation_fp", 5..=5)?,
            dp_latency: list(r, "-ptx_opcode_latency_dp", 5..=5)?,
            dp_initiation: list(r, "-ptx_opcode_initiation_dp", 5..=5)?,
            sfu_latency: single(r, "-ptx_opcode_latency_sfu")?,
            sfu_initiation: single(r, "-ptx_opcode_initiation_sfu")?,
            tensor_latency: single(r, "-ptx_opcode_latency_tesnor")?,
            tensor_initiation: single(r, "-ptx_opcode_initiation_tensor")?,
        })
    }

    fn write(&self, w: &mut OptionWriter) {
        w.option("-ptx_opcode_latency_int", join(&self.int_latency));
        w.option("-ptx_opcode_initiation_int", join(&self.int_initiation));
        w.option("-ptx_opcode_latency_fp", join(&self.fp_latency));
        w.option("-ptx_opcode_initiation_fp", join(&self.fp_initiation));
        w.option("-ptx_opcode_latency_dp", join(&self.dp_latency));
        w.option("-ptx_opcode_initiation_dp", join(&self.dp_initiation));
        w.option("-ptx_opcode_latency_sfu", self.sfu_latency);
        w.option("-ptx_opcode_initiation_sfu", self.sfu_initiation);
        w.option("-ptx_opcode_latency_tesnor", self.tensor_latency);
        w.option("-ptx_opcode_initiation_tensor", self.tensor_initiation);
    }
}

fn list(
    r: &mut OptionReader<'_>,
    option: &str,
    counts: std::ops::RangeInclusive<usize>,
) -> Result<Vec<u32>, ConfigError> {
    r.value(option)?.decimal_list(',', &PTX_NAMES, counts, 0..=MAX_LATENCY_CYCLES)
}

fn single(r: &mut OptionReader<'_>, option: &str) -> Result<u32, ConfigError> {
    let (text, value) = r.text(option)?;
    value.decimal_field(&text, "value", &(0..=MAX_LATENCY_CYCLES))
}

fn join(numbers: &[u32]) -> String {
    numbers.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}
