//! A user's config as the nearest bundled preset plus option edits, so that
//! a config that differs from a preset in a few options travels inside a
//! share link instead of being asked for as files.

use std::collections::BTreeMap;

use warplab_config::{GpuConfig, PRESETS};

use crate::experiment::{ConfigEdit, MAX_EDITS, apply_edits};

/// The preset nearest to `config` and the [`ConfigEdit::Option`]s that turn
/// it into `config`, or `None` when no preset comes within [`MAX_EDITS`]
/// options or the edits would not read back to exactly `config`.
///
/// "Nearest" counts the options whose written value (`GpuConfig::to_files`)
/// differs; an option the preset sets and `config` does not cannot be
/// removed by an edit, so such a preset is tried last. The answer is always
/// checked: the preset with the edits applied, through the config reader as
/// a link's reader will apply them, equals `config`.
pub fn config_delta(config: &GpuConfig) -> Option<(&'static str, Vec<ConfigEdit>)> {
    let target = written_options(config);
    let mut candidates: Vec<(bool, usize, &'static str, GpuConfig, Vec<ConfigEdit>)> = PRESETS
        .iter()
        .filter_map(|preset| {
            let base = preset.config().ok()?;
            // A BookSim file is not an option: a different one cannot travel.
            if config.to_files().get(2) != base.to_files().get(2) {
                return None;
            }
            let base_options = written_options(&base);
            let edits: Vec<ConfigEdit> = target
                .iter()
                .filter(|(name, value)| base_options.get(*name) != Some(*value))
                .map(|(name, value)| ConfigEdit::Option { name: name.clone(), value: value.clone() })
                .collect();
            let removals = base_options.keys().any(|name| !target.contains_key(name));
            Some((removals, edits.len(), preset.name, base, edits))
        })
        .filter(|(_, count, ..)| *count <= MAX_EDITS)
        .collect();
    candidates.sort_by_key(|(removals, count, ..)| (*removals, *count));
    candidates.into_iter().find_map(|(_, _, name, base, edits)| {
        let spelled = edits.iter().all(|edit| edit.check_spelling().is_ok());
        (spelled && apply_edits(&base, &edits).ok().as_ref() == Some(config)).then_some((name, edits))
    })
}

/// Every `-name value` line of the option files `config` writes (the
/// value as written, quotes included), the last setting of a name winning.
fn written_options(config: &GpuConfig) -> BTreeMap<String, String> {
    let mut options = BTreeMap::new();
    for (_, text) in config.to_files().iter().take(2) {
        for line in text.lines().map(str::trim).filter(|line| line.starts_with('-')) {
            let (name, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            options.insert(name.to_owned(), value.trim().to_owned());
        }
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_is_its_own_delta() {
        let (_, qv100) = crate::preset_config("SM7_QV100").unwrap();
        assert_eq!(config_delta(&qv100), Some(("SM7_QV100", Vec::new())));
    }
}
