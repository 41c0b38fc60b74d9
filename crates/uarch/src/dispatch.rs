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

use warplab_config::{ExecutionUnits, UnitClass as ConfigUnit};
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
