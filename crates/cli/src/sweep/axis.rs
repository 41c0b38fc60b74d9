//! `--vary`: one varied setting and its values, a sweep knob (`l1_mshrs=32,64`)
//! or any GPGPU-Sim option (`-gpgpu_scheduler=gto,lrr`), each value checked
//! against the base config before any work starts.

use serde::{Deserialize, Serialize};
use warplab_lab::{ConfigEdit, GpuConfig};

/// What an axis varies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Varied {
    /// A sweep knob (`warplab_lab::CONFIG_KNOBS`), by name.
    Knob(String),
    /// A `gpgpusim.config` option, with its dash.
    Option(String),
}

/// One `--vary`: a setting and its values, as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    pub varied: Varied,
    pub values: Vec<String>,
}

impl Axis {
    /// The setting's name: the knob, or the option with its dash.
    pub fn name(&self) -> &str {
        match &self.varied {
            Varied::Knob(name) | Varied::Option(name) => name,
        }
    }

    /// The config edit that sets this axis to `value` (one of its values,
    /// so a knob's parses).
    pub fn edit(&self, value: &str) -> ConfigEdit {
        match &self.varied {
            Varied::Knob(name) => ConfigEdit::Knob { name: name.clone(), value: value.parse().unwrap_or(f64::NAN) },
            Varied::Option(name) => ConfigEdit::Option { name: name.clone(), value: value.to_owned() },
        }
    }
}

/// Parses `--vary TEXT`: `KNOB=v1,v2,...` or `-option=v1,v2,...`, with `;`
/// between the values instead when they hold commas. Every value is
/// applied alone to `base` through the config reader; an option GPGPU-Sim
/// does not know, or one warplab reads but does not model, is refused
/// unless `allow_unmodelled` (it would sweep to identical rows).
pub fn parse(text: &str, base: &GpuConfig, allow_unmodelled: bool) -> Result<Axis, String> {
    let fail = |message: String| format!("--vary {text}: {message}");
    let (name, list) =
        text.split_once('=').ok_or_else(|| fail("expected KNOB=v1,v2,... or -option=v1,v2,...".into()))?;
    let name = name.trim();
    let separator = if list.contains(';') { ';' } else { ',' };
    let values: Vec<String> = list.split(separator).map(|value| value.trim().to_owned()).collect();
    if values.iter().any(String::is_empty) {
        return Err(fail("a value is empty".to_owned()));
    }
    let varied = if name.starts_with('-') {
        check_option(name, allow_unmodelled).map_err(fail)?;
        Varied::Option(name.to_owned())
    } else {
        let knob = warplab_lab::config_knob(name).map_err(|e| fail(e.to_string()))?;
        Varied::Knob(knob.name.to_owned())
    };
    let axis = Axis { varied, values };
    for value in &axis.values {
        check_value(&axis, value, base, allow_unmodelled)?;
    }
    Ok(axis)
}

/// A known option warplab models, or `allow_unmodelled`.
fn check_option(name: &str, allow_unmodelled: bool) -> Result<(), String> {
    if allow_unmodelled {
        return Ok(());
    }
    if warplab_lab::known_option(name).is_none() {
        return Err(format!(
            "GPGPU-Sim has no option `{name}` (every point would be the same; --allow-unmodelled sweeps it anyway)"
        ));
    }
    Ok(())
}

/// `value` alone on `base`: spelled as one value, read back by the config
/// reader, and (unless allowed) taken by warplab's model.
fn check_value(axis: &Axis, value: &str, base: &GpuConfig, allow_unmodelled: bool) -> Result<(), String> {
    let name = axis.name();
    let fail = |message: String| format!("--vary {name}={value}: {message}");
    if let Varied::Knob(_) = axis.varied {
        value.parse::<f64>().map_err(|_| fail("not a number".to_owned()))?;
    }
    let edit = axis.edit(value);
    edit.check_spelling().map_err(fail)?;
    let config = warplab_lab::apply_edits(base, &[edit]).map_err(|e| fail(e.to_string()))?;
    let kept = config.unknown_options.iter().chain(&config.unmodelled_options).any(|kept| kept.name == name);
    if kept && !allow_unmodelled {
        return Err(fail(
            "warplab does not model this option (every point would be the same; --allow-unmodelled sweeps it anyway)"
                .to_owned(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qv100() -> GpuConfig {
        warplab_lab::preset_config("QV100").unwrap().1
    }

    #[test]
    fn knobs_and_options_parse_with_commas_or_semicolons() {
        let base = qv100();
        let knob = parse("l1_mshrs=32,64", &base, false).unwrap();
        assert_eq!((knob.name(), knob.values.len()), ("l1_mshrs", 2));
        let option = parse("-gpgpu_scheduler=gto, lrr", &base, false).unwrap();
        assert_eq!(option.values, ["gto", "lrr"]);
        let caches = "-gpgpu_cache:dl1=S:4:128:64,L:T:m:L:L,A:512:8,16:0,32;S:4:128:32,L:T:m:L:L,A:512:8,16:0,32";
        let caches = parse(caches, &base, false).unwrap();
        assert_eq!(caches.values.len(), 2);
        assert_eq!(caches.values[1], "S:4:128:32,L:T:m:L:L,A:512:8,16:0,32");
    }

    #[test]
    fn a_bad_name_or_value_is_one_line_naming_it() {
        let base = qv100();
        let cases = [
            ("-gpgpu_schedular=gto", "no option `-gpgpu_schedular`"),
            ("-gpgpu_scheduler=gto,fastest", "-gpgpu_scheduler=fastest"),
            ("l1_mshrz=1,2", "l1_mshrz"),
            ("l1_mshrs=32,many", "l1_mshrs=many"),
            ("-gpgpu_ptx_sim_mode=0,1", "does not model"),
            ("n_sms=", "empty"),
            ("n_sms", "expected"),
        ];
        for (text, needle) in cases {
            let error = parse(text, &base, false).unwrap_err();
            assert!(error.contains(needle), "{text}: {error}");
            assert!(!error.contains('\n'), "{text}: one line");
        }
        assert!(parse("-gpgpu_ptx_sim_mode=0,1", &base, true).is_ok(), "allowed when asked");
    }
}
