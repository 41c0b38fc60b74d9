//! GPU configurations as the lab offers them: the bundled presets, configs
//! read from (file name, text) pairs, and the report the CLI and the web app
//! show for one.

use serde::{Deserialize, Serialize};
use warplab_config::{
    ConfigSummary, ConfigView, GpuConfig, PRESETS, order_chosen_config_files, order_config_files, preset,
};

use crate::LabError;

/// A bundled preset, as pickers list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresetInfo {
    /// The preset's name, e.g. `SM7_QV100`.
    pub name: String,
    /// Short names accepted too, e.g. `QV100`.
    pub aliases: Vec<String>,
    /// One line on the GPU.
    pub description: String,
}

/// Everything shown about a config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigReport {
    /// A label: the preset name or the files it was read from.
    pub label: String,
    /// The headline figures (also `warplab config show --json`).
    pub summary: ConfigSummary,
    /// The grouped, labelled view.
    pub view: ConfigView,
    /// Adjustments made on the way (e.g. by scaling), as messages.
    pub diagnostics: Vec<String>,
    /// The config written back as `(file name, text)` pairs
    /// ([`GpuConfig::to_files`]): `gpgpusim.config`, `trace.config`, and the
    /// BookSim `.icnt` file when the config has one; what a download saves.
    pub files: Vec<(String, String)>,
}

/// The bundled presets; the first is the default.
pub fn presets() -> Vec<PresetInfo> {
    PRESETS
        .iter()
        .map(|p| PresetInfo {
            name: p.name.to_owned(),
            aliases: p.aliases.iter().map(|a| (*a).to_owned()).collect(),
            description: p.description.to_owned(),
        })
        .collect()
}

/// The preset called `name` (or one of its aliases, any case), read, with
/// its full name.
///
/// # Errors
/// No preset has that name.
pub fn preset_config(name: &str) -> Result<(&'static str, GpuConfig), LabError> {
    let found = preset(name).ok_or_else(|| LabError::UnknownPreset(name.to_owned()))?;
    Ok((found.name, found.config()?))
}

/// The default preset (`SM7_QV100`), read, with its name: the GPU of the
/// default experiment and the one generators are sized for unless told.
///
/// # Errors
/// Never for the bundled presets (a test reads every one).
pub fn default_config() -> Result<(&'static str, GpuConfig), LabError> {
    let found = warplab_config::default_preset();
    Ok((found.name, found.config()?))
}

/// Reads the config of a directory from its files as `(file name, text)`
/// pairs, by the directory rule: `gpgpusim.config`, then `*trace.config`,
/// then `.icnt`; other files are ignored.
///
/// # Errors
/// A malformed or invalid config, naming file, line and option.
pub fn read_config_dir(files: &[(String, String)]) -> Result<GpuConfig, LabError> {
    read_in_order(files, order_config_files)
}

/// Reads a config from files the user chose one by one: every option file is
/// applied, option files other than `*trace.config` first (in the order
/// given), then `*trace.config`, then `.icnt` files; other files are ignored.
///
/// # Errors
/// A malformed or invalid config, naming file, line and option.
pub fn read_config_files(files: &[(String, String)]) -> Result<GpuConfig, LabError> {
    read_in_order(files, order_chosen_config_files)
}

/// The BookSim file an option file's text names with `-inter_config_file`
/// (its last setting), which GPGPU-Sim opens by that name from where it
/// runs: the CLI looks for it beside the config file, the page asks for it.
pub fn named_icnt(text: &str) -> Option<String> {
    let raw = warplab_config::RawConfig::read([("gpgpusim.config", text)]).ok()?;
    raw.get("-inter_config_file")?.value.clone().filter(|name| !name.is_empty())
}

/// The `.icnt` file `files` (as `(name, text)`) name and do not hold, when
/// reading them failed for want of it: what to ask the user for.
pub fn missing_icnt(files: &[(String, String)], error: &LabError) -> Option<String> {
    if !error.to_string().contains(".icnt file") {
        return None;
    }
    let named = files.iter().rev().find_map(|(_, text)| named_icnt(text))?;
    let wanted = warplab_config::base_name(&named);
    (!files.iter().any(|(name, _)| warplab_config::base_name(name) == wanted)).then(|| wanted.to_owned())
}

/// Reads `files` in the order `order` gives their names.
fn read_in_order<'a>(
    files: &'a [(String, String)],
    order: fn(std::vec::IntoIter<&'a str>) -> Vec<&'a str>,
) -> Result<GpuConfig, LabError> {
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    let ordered = order(names.into_iter()).into_iter().filter_map(|name| files.iter().find(|(n, _)| n == name));
    Ok(GpuConfig::read(ordered.map(|(name, text)| (name.as_str(), text.as_str())))?)
}

/// The report of `config`, labelled `label`, with `diagnostics` from the way it was made.
pub fn config_report(label: &str, config: &GpuConfig, diagnostics: Vec<String>) -> ConfigReport {
    ConfigReport {
        label: label.to_owned(),
        summary: config.summary(),
        view: config.view(),
        diagnostics,
        files: config.to_files(),
    }
}

/// GPGPU-Sim's one-line help for the option (or `+`-joined options) a
/// [`ConfigView`] row names, the options' helps joined by `; `; `None` when
/// GPGPU-Sim registers none of them with a help text.
pub fn option_help(option: &str) -> Option<String> {
    let helps: Vec<&str> = option
        .split('+')
        .filter_map(|name| warplab_config::known_options::known_option(name.trim()))
        .map(|known| known.help)
        .filter(|help| !help.is_empty())
        .collect();
    (!helps.is_empty()).then(|| helps.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_icnt_is_the_last_setting_and_missing_only_when_not_given() {
        let text = "-inter_config_file a.icnt\n-inter_config_file_x b\n-inter_config_file \"c.icnt\" # ok\n";
        assert_eq!(named_icnt(text).as_deref(), Some("c.icnt"));
        assert_eq!(named_icnt("-network_mode 1\n"), None);
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../config/test_data/gtx1080/");
        let config = ("gpgpusim.config".to_owned(), std::fs::read_to_string(format!("{dir}gpgpusim.config")).unwrap());
        let alone = [config.clone()];
        let error = read_config_files(&alone).unwrap_err();
        assert_eq!(missing_icnt(&alone, &error).as_deref(), Some("config_fermi_islip.icnt"));
        let icnt = std::fs::read_to_string(format!("{dir}config_fermi_islip.icnt")).unwrap();
        let both = [config, ("config_fermi_islip.icnt".to_owned(), icnt)];
        assert!(read_config_files(&both).is_ok());
    }

    #[test]
    fn a_report_carries_the_config_written_back() {
        let (name, config) = preset_config("QV100").expect("a bundled preset");
        let report = config_report(name, &config, Vec::new());
        let names: Vec<&str> = report.files.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(&names[..2], ["gpgpusim.config", "trace.config"]);
        assert!(report.files[0].1.contains("-gpgpu_n_clusters 80"), "the SMs are written");
        let reread = read_config_files(&report.files).expect("the written files read back");
        assert_eq!(reread.n_sms(), 80);
    }

    #[test]
    fn rows_are_explained_by_gpgpu_sims_help() {
        assert_eq!(option_help("-gpgpu_n_clusters").as_deref(), Some("number of processing clusters"));
        let joined = option_help("-gpgpu_n_clusters+-gpgpu_n_cores_per_cluster").unwrap_or_default();
        assert!(joined.starts_with("number of processing clusters; "), "{joined}");
        assert_eq!(option_help("-not_an_option"), None);
    }
}
