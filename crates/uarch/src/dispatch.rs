//! Which execution pipeline of a configured SM runs each opcode: Accel-Sim's
//! dispatch rules, and the fallbacks of DESIGN §2a for units the config lacks.
//!
//! Accel-Sim's scheduler sends loads, stores and memory fences to the LD/ST
//! unit; SP work to the SP units; double precision to the DP units, or to the
//! SFUs when there are none; special functions to the SFUs; tensor and
//! specialized-unit work to those units; and everything else (ALU, integer,
//! branches, barriers, exits) to the INT units, or to SP without INT units.
//! Where a trace asks for a unit the config does not have (uniform-datapath
//! opcodes on a Volta config, say), the instruction runs on INT (SP without
//! INT) and a diagnostic says so, instead of the run stopping.

use warplab_config::{CollectorSetKind, ExecutionUnits, GpuConfig, UnitClass as ConfigUnit};
use warplab_trace::{OpcodeTable, UnitClass as TraceUnit};

/// Where an instruction issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    /// An execution unit of the given class.
    Unit(ConfigUnit),
    /// The load/store unit; timing comes from the memory pipeline.
    Memory,
}

/// The pipeline of one opcode, and why it is not the one asked for, if it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// Where it issues.
    pub pipe: Pipe,
    /// A message when the config lacks the unit the opcode asks for.
    pub fallback: Option<String>,
}

/// The pipeline for an instruction that asks for `asked`, on an SM with `units`.
pub fn dispatch(asked: TraceUnit, units: &ExecutionUnits) -> Dispatch {
    let integer = if units.has_unit(ConfigUnit::Int) { ConfigUnit::Int } else { ConfigUnit::Sp };
    let wanted = match asked {
        TraceUnit::Memory => return Dispatch { pipe: Pipe::Memory, fallback: None },
        TraceUnit::Int => integer,
        TraceUnit::Sp => ConfigUnit::Sp,
        TraceUnit::Dp if !units.has_unit(ConfigUnit::Dp) => ConfigUnit::Sfu,
        TraceUnit::Dp => ConfigUnit::Dp,
        TraceUnit::Sfu => ConfigUnit::Sfu,
        TraceUnit::Tensor => ConfigUnit::Tensor,
        TraceUnit::Specialized(k) => ConfigUnit::Specialized(k),
    };
    if units.has_unit(wanted) {
        return Dispatch { pipe: Pipe::Unit(wanted), fallback: None };
    }
    let message =
        format!("the config has no {} unit; these instructions run on {}", name(wanted, units), name(integer, units));
    Dispatch { pipe: Pipe::Unit(integer), fallback: Some(message) }
}

/// The pipeline of every opcode of a kernel, indexed by `OpcodeId`, so that a
/// model looks it up instead of deciding per instruction; and one diagnostic
/// per opcode that falls back.
pub fn dispatch_table(opcodes: &OpcodeTable, units: &ExecutionUnits) -> (Vec<Pipe>, Vec<String>) {
    let mut pipes = Vec::new();
    let mut diagnostics = Vec::new();
    for (_, info) in opcodes.iter() {
        let Dispatch { pipe, fallback } = dispatch(info.unit, units);
        if let Some(message) = fallback {
            diagnostics.push(format!("`{}`: {message}", info.text));
        }
        pipes.push(pipe);
    }
    (pipes, diagnostics)
}

/// One input port of the operand collector: the pipelines whose `ID_OC`
/// registers it takes instructions from, and the collector-unit sets it
/// allocates in, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectorPort {
    /// The pipelines it serves.
    pub pipes: Vec<Pipe>,
    /// The sets it allocates in, first to last.
    pub sets: Vec<CollectorSetKind>,
}

/// The operand collector's input ports as GPGPU-Sim builds them
/// (`shader_core_ctx::create_exec_pipeline`): each generic port takes the
/// SP, SFU and LD/ST registers, the tensor, DP and INT ones when the SM has
/// those units, and every specialized unit's, allocating in the generic set;
/// with `-gpgpu_enable_specialized_operand_collector`, each pipeline's own
/// ports take only its register and allocate in its own set, then the
/// generic one. Specialized units have no ports of their own.
pub fn collector_ports(config: &GpuConfig) -> Vec<CollectorPort> {
    let units = &config.units;
    let oc = &units.operand_collector;
    let mut generic_pipes = vec![Pipe::Unit(ConfigUnit::Sp), Pipe::Unit(ConfigUnit::Sfu), Pipe::Memory];
    if units.tensor_core_available {
        generic_pipes.push(Pipe::Unit(ConfigUnit::Tensor));
    }
    if units.n_dp_units > 0 {
        generic_pipes.push(Pipe::Unit(ConfigUnit::Dp));
    }
    if units.n_int_units > 0 {
        generic_pipes.push(Pipe::Unit(ConfigUnit::Int));
    }
    for unit in units.specialized.iter().filter(|unit| unit.enabled) {
        generic_pipes.push(Pipe::Unit(ConfigUnit::Specialized(unit.id)));
    }
    let mut ports = Vec::new();
    for _ in 0..oc.set(CollectorSetKind::Generic).in_ports {
        ports.push(CollectorPort { pipes: generic_pipes.clone(), sets: vec![CollectorSetKind::Generic] });
    }
    if oc.specialized_sets {
        let own = [
            (CollectorSetKind::Sp, Pipe::Unit(ConfigUnit::Sp)),
            (CollectorSetKind::Dp, Pipe::Unit(ConfigUnit::Dp)),
            (CollectorSetKind::Sfu, Pipe::Unit(ConfigUnit::Sfu)),
            (CollectorSetKind::Tensor, Pipe::Unit(ConfigUnit::Tensor)),
            (CollectorSetKind::Memory, Pipe::Memory),
            (CollectorSetKind::Int, Pipe::Unit(ConfigUnit::Int)),
        ];
        for (kind, pipe) in own {
            for _ in 0..oc.set(kind).in_ports {
                ports.push(CollectorPort { pipes: vec![pipe], sets: vec![kind, CollectorSetKind::Generic] });
            }
        }
    }
    ports
}

/// Whether some collector unit can ever take `pipe`'s instructions: a port
/// serves it and one of that port's sets is built with units in it.
pub fn can_collect(pipe: Pipe, config: &GpuConfig) -> bool {
    let oc = &config.units.operand_collector;
    let has_units = |kind: CollectorSetKind| oc.built_sets().any(|set| set.kind == kind && set.units > 0);
    collector_ports(config).iter().any(|port| port.pipes.contains(&pipe) && port.sets.iter().any(|&k| has_units(k)))
}

/// Why Accel-Sim (GPGPU-Sim 4.2's trace-driven mode) cannot run instructions
/// that ask for `asked` on `config`, or `None` if it runs them as warplab
/// does. It aborts on a specialized unit the config does not define (it
/// indexes its list of enabled units: `spec_id < m_specialized_unit.size()`
/// in `shader.cc`), and an instruction whose pipeline no collector unit can
/// take waits in its `ID_OC` register forever, which it reports as a
/// deadlock. Where warplab's dispatch falls back to another unit (a unit the
/// config lacks), Accel-Sim does not run the instruction there either.
pub fn accel_sim_problem(asked: TraceUnit, config: &GpuConfig) -> Option<String> {
    let units = &config.units;
    if let TraceUnit::Specialized(k) = asked {
        let defined = (1..=k).all(|j| units.specialized_unit(j).is_some_and(|unit| unit.enabled));
        if !defined {
            return Some(format!(
                "Accel-Sim aborts: the instruction asks for specialized unit {k}, and the config does not define \
                 specialized units 1 to {k} (`-specialized_unit_N`)"
            ));
        }
    }
    let Dispatch { pipe, fallback } = dispatch(asked, units);
    if let Some(message) = fallback {
        return Some(format!("Accel-Sim does not run it elsewhere: {message}"));
    }
    if !can_collect(pipe, config) {
        let what = match pipe {
            Pipe::Unit(unit) => name(unit, units),
            Pipe::Memory => "LD/ST".to_owned(),
        };
        return Some(format!(
            "Accel-Sim deadlocks: no operand collector unit can take {what} instructions (its ports allocate only in \
             collector sets with no units)"
        ));
    }
    None
}

/// Specialized units 1 to 4 as Accel-Sim's `trace.config` files number them.
const CONVENTIONAL_NAMES: [&str; 4] = ["BRA", "TEX", "TENSOR", "UDP"];

fn name(unit: ConfigUnit, units: &ExecutionUnits) -> String {
    match unit {
        ConfigUnit::Int => "INT".to_owned(),
        ConfigUnit::Sp => "SP".to_owned(),
        ConfigUnit::Dp => "DP".to_owned(),
        ConfigUnit::Sfu => "SFU".to_owned(),
        ConfigUnit::Tensor => "tensor".to_owned(),
        // An enabled slot has the name its config gives it; a missing one is
        // named by Accel-Sim's trace.config convention, which the opcode
        // tables follow (disabled slots keep GPGPU-Sim's default name, `BRA`).
        ConfigUnit::Specialized(k) => {
            match (units.specialized_unit(k), CONVENTIONAL_NAMES.get(usize::from(k).wrapping_sub(1))) {
                (Some(slot), _) if slot.enabled => format!("specialized {k} ({})", slot.name),
                (_, Some(name)) => format!("specialized {k} ({name})"),
                _ => format!("specialized {k}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use warplab_config::preset;
    use warplab_trace::{Isa, describe};

    use super::*;

    /// The pipe of `opcode` (looked up in `isa`'s table) on `preset_name`, and the fallback message.
    fn check(preset_name: &str, isa: Isa, opcode: &str, expect: (Pipe, Option<&str>)) {
        let config = preset(preset_name).expect("a preset").config().expect("reads");
        let got = dispatch(describe(isa, opcode).unit, &config.units);
        assert_eq!((got.pipe, got.fallback.as_deref()), expect, "{opcode} on {preset_name}");
    }

    #[test]
    fn volta_config_runs_each_class_on_its_own_unit() {
        check("QV100", Isa::Volta, "FFMA", (Pipe::Unit(ConfigUnit::Sp), None));
        check("QV100", Isa::Volta, "IMAD.MOV.U32", (Pipe::Unit(ConfigUnit::Int), None));
        check("QV100", Isa::Volta, "DFMA", (Pipe::Unit(ConfigUnit::Dp), None));
        check("QV100", Isa::Volta, "MUFU.RCP", (Pipe::Unit(ConfigUnit::Sfu), None));
        check("QV100", Isa::Volta, "BRA", (Pipe::Unit(ConfigUnit::Specialized(1)), None));
        check("QV100", Isa::Volta, "HMMA.884.F32", (Pipe::Unit(ConfigUnit::Specialized(3)), None));
        check("QV100", Isa::Volta, "LDG.E.SYS", (Pipe::Memory, None));
        check("QV100", Isa::Volta, "MEMBAR.GL", (Pipe::Memory, None));
    }

    #[test]
    fn uniform_datapath_on_a_volta_config_falls_back_to_int() {
        // An Ampere trace's ULDC asks for specialized unit 4 (UDP), which the QV100 config lacks.
        let message = "the config has no specialized 4 (UDP) unit; these instructions run on INT";
        check("QV100", Isa::Ampere, "ULDC.64", (Pipe::Unit(ConfigUnit::Int), Some(message)));
        check("A100", Isa::Ampere, "ULDC.64", (Pipe::Unit(ConfigUnit::Specialized(4)), None));
    }

    #[test]
    fn pascal_style_config_without_int_or_dp_units() {
        // mdm-pascal-28sm: 4 SP, 0 INT, 0 DP, 1 SFU.
        check("mdm-pascal-28sm", Isa::Pascal, "IADD", (Pipe::Unit(ConfigUnit::Sp), None));
        check("mdm-pascal-28sm", Isa::Pascal, "DFMA", (Pipe::Unit(ConfigUnit::Sfu), None));
        check("mdm-pascal-28sm", Isa::Pascal, "BRA", (Pipe::Unit(ConfigUnit::Sp), None));
    }

    #[test]
    fn a_kernel_table_has_one_pipe_per_opcode_and_one_diagnostic_per_fallback() {
        let config = preset("QV100").expect("a preset").config().expect("reads");
        let mut opcodes = OpcodeTable::new(Isa::Ampere);
        for op in ["FADD", "ULDC.64", "S2UR", "LDG.E"] {
            opcodes.intern(op, &mut Vec::new());
        }
        let (pipes, diagnostics) = dispatch_table(&opcodes, &config.units);
        assert_eq!(
            pipes,
            [Pipe::Unit(ConfigUnit::Sp), Pipe::Unit(ConfigUnit::Int), Pipe::Unit(ConfigUnit::Int), Pipe::Memory]
        );
        assert_eq!(diagnostics.len(), 2);
        assert!(diagnostics[0].starts_with("`ULDC.64`: the config has no specialized 4 (UDP) unit"), "{diagnostics:?}");
    }
}
