//! The bundled GPU configurations under `configs/`, embedded at build time so
//! that the browser has them, with lookup by name and short alias.

use crate::error::ConfigError;
use crate::gpu::GpuConfig;

/// One bundled configuration: a directory of `configs/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// The directory name, e.g. `SM7_QV100`.
    pub name: &'static str,
    /// Short names accepted too (case-insensitive), e.g. `QV100`.
    pub aliases: &'static [&'static str],
    /// One line saying what GPU this is.
    pub description: &'static str,
    /// (file name, text) in the order they are applied.
    pub files: &'static [(&'static str, &'static str)],
}

/// Every preset; the first is the default.
pub const PRESETS: [Preset; 7] = [
    Preset {
        name: "SM7_QV100",
        aliases: &["QV100"],
        description: "NVIDIA Quadro GV100 (Volta), Accel-Sim's tested config: 80 SMs, 6 MB L2, HBM2",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/SM7_QV100/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/SM7_QV100/trace.config")),
            ("config_volta_islip.icnt", include_str!("../../../configs/SM7_QV100/config_volta_islip.icnt")),
        ],
    },
    Preset {
        name: "SM86_RTX3070",
        aliases: &["RTX3070"],
        description: "NVIDIA GeForce RTX 3070 (Ampere), Accel-Sim's tested config: 46 SMs, 4 MB L2, GDDR6",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/SM86_RTX3070/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/SM86_RTX3070/trace.config")),
            ("config_ampere_islip.icnt", include_str!("../../../configs/SM86_RTX3070/config_ampere_islip.icnt")),
        ],
    },
    Preset {
        name: "SM80_A100",
        aliases: &["A100"],
        description: "NVIDIA A100 (Ampere), Accel-Sim's tested config: 108 SMs, 40 MB L2, HBM2",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/SM80_A100/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/SM80_A100/trace.config")),
        ],
    },
    Preset {
        name: "SM90_H100",
        aliases: &["H100"],
        description: "NVIDIA H100 (Hopper), Accel-Sim 2.0 config: 132 SMs, 50 MB L2, BookSim network",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/SM90_H100/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/SM90_H100/trace.config")),
            ("config_hopper_islip.icnt", include_str!("../../../configs/SM90_H100/config_hopper_islip.icnt")),
        ],
    },
    Preset {
        name: "mdm-pascal-28sm",
        aliases: &["mdm"],
        description: "The MDM paper's Pascal-like GPU: 28 SMs at 1.4 GHz, 3 MB LLC in 24 slices, 1,050 GB/s NoC, 480 GB/s DRAM",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/mdm-pascal-28sm/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/mdm-pascal-28sm/trace.config")),
        ],
    },
    Preset {
        name: "scalemodel-128sm",
        aliases: &["scalemodel"],
        description: "The scale-model paper's target: 128 SMs at 1 GHz, 32 MB LLC in 64 slices, 2.7 TB/s NoC, 2.3 TB/s DRAM",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/scalemodel-128sm/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/scalemodel-128sm/trace.config")),
        ],
    },
    Preset {
        name: "chiplet-1024sm",
        aliases: &["chiplet"],
        description: "The scale-model paper's chiplet GPU: 16 chiplets of 64 SMs, 18 MB LLC, 1.2 TB/s DRAM and 900 GB/s links each",
        files: &[
            ("gpgpusim.config", include_str!("../../../configs/chiplet-1024sm/gpgpusim.config")),
            ("trace.config", include_str!("../../../configs/chiplet-1024sm/trace.config")),
        ],
    },
];

/// The preset called `name` (its directory name or an alias, any case).
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| {
        preset.name.eq_ignore_ascii_case(name) || preset.aliases.iter().any(|alias| alias.eq_ignore_ascii_case(name))
    })
}

/// The default preset (the first, `SM7_QV100`).
pub fn default_preset() -> &'static Preset {
    &PRESETS[0]
}

impl Preset {
    /// Reads the preset's files.
    ///
    /// # Errors
    ///
    /// Never for the bundled presets (a test reads every one); the `Result`
    /// is that of [`GpuConfig::read`].
    pub fn config(&self) -> Result<GpuConfig, ConfigError> {
        GpuConfig::read(self.files.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, expect: Option<&str>) {
        assert_eq!(preset(name).map(|p| p.name), expect, "{name}");
    }

    #[test]
    fn lookup_by_name_and_alias() {
        check("SM7_QV100", Some("SM7_QV100"));
        check("qv100", Some("SM7_QV100"));
        check("RTX3070", Some("SM86_RTX3070"));
        check("a100", Some("SM80_A100"));
        check("H100", Some("SM90_H100"));
        check("sm90_h100", Some("SM90_H100"));
        check("MDM-Pascal-28SM", Some("mdm-pascal-28sm"));
        check("scalemodel-128sm", Some("scalemodel-128sm"));
        check("V100", None);
        check("", None);
        assert_eq!(default_preset().name, "SM7_QV100");
    }
}
