//! The worker's side of the analytical panel: what the page's knob sliders
//! start from, and the loaded config with the sliders' knobs set. Profiling
//! and evaluating stay in `agent.rs`, which owns the workload and the
//! profiles; nothing here reads a workload.

use warplab_lab::{GpuConfig, apply_knob};

use crate::agent::KnobBase;

/// The knob values `gpu` has, and the step `n_sms` moves by.
pub fn knob_base(gpu: &GpuConfig) -> KnobBase {
    KnobBase {
        n_sms: gpu.n_sms(),
        cores_per_cluster: gpu.cores.cores_per_cluster.max(1),
        l1_mshrs: gpu.l1.dl1.as_ref().map(|dl1| dl1.mshr_entries),
    }
}

/// `gpu` with `knobs` applied in order.
///
/// # Errors
/// The first knob that is unknown or whose value the config cannot take,
/// named with its value.
pub fn with_knobs(gpu: &GpuConfig, knobs: &[(String, f64)]) -> Result<GpuConfig, String> {
    let mut config = gpu.clone();
    for (name, value) in knobs {
        config = apply_knob(&config, name, *value).map_err(|e| naming(name, *value, &e.to_string()))?;
    }
    Ok(config)
}

/// `message` with the knob and value in front, unless it names the knob
/// already (a config reader's message names only the option it rejected).
fn naming(name: &str, value: f64, message: &str) -> String {
    if message.contains(name) { message.to_owned() } else { format!("{name} = {value}: {message}") }
}

#[cfg(test)]
mod tests {
    use warplab_lab::{ProfileOptions, predict, preset_config, profile_generated};

    use super::*;

    fn pascal() -> GpuConfig {
        preset_config("mdm-pascal-28sm").expect("a bundled preset").1
    }

    #[test]
    fn the_base_is_the_configs_own_values() {
        assert_eq!(knob_base(&pascal()), KnobBase { n_sms: 28, cores_per_cluster: 1, l1_mshrs: Some(128) });
    }

    #[test]
    fn the_mshrs_move_mdm_on_a_divergent_kernel() {
        let gpu = pascal();
        let spec = "strided:gs=32,size=28".parse().expect("a well-formed spec");
        let mdm = |mshrs: f64| {
            let knobbed = with_knobs(&gpu, &[("l1_mshrs".to_owned(), mshrs)]).expect("valid");
            let profile = profile_generated(&knobbed, &spec, ProfileOptions::default()).expect("profiles");
            predict(&profile, &knobbed).models[&warplab_lab::ModelKind::Mdm].ipc
        };
        assert!(mdm(8.0) < 0.8 * mdm(128.0), "starved of MSHRs: {} vs {}", mdm(8.0), mdm(128.0));
        assert!(mdm(16.0) < 0.9 * mdm(128.0), "{} vs {}", mdm(16.0), mdm(128.0));
        // Not monotonic: more MSHRs also put more requests in the NoC's
        // queue and more warps' lines through the L1 (the simulator, too, is
        // faster with 32 than with 64).
        assert!(mdm(32.0) > mdm(64.0), "{} vs {}", mdm(32.0), mdm(64.0));
    }

    #[test]
    fn bad_knobs_are_errors_that_name_them() {
        let gpu = pascal();
        let message = |knobs: &[(&str, f64)]| {
            let knobs: Vec<(String, f64)> = knobs.iter().map(|&(name, value)| (name.to_owned(), value)).collect();
            with_knobs(&gpu, &knobs).err().unwrap_or_default()
        };
        assert!(message(&[("l1_mshrs", 2.5)]).starts_with("l1_mshrs = 2.5: "), "{}", message(&[("l1_mshrs", 2.5)]));
        assert!(message(&[("n_sms", 28.0), ("warps", 4.0)]).contains("unknown knob `warps`"));
        let too_many = message(&[("n_sms", 5000.0)]);
        assert!(too_many.starts_with("n_sms = 5000: ") && too_many.contains("-gpgpu_n_clusters"), "{too_many}");
        assert_eq!(with_knobs(&gpu, &[]).ok(), Some(gpu), "no knobs: the loaded config");
    }
}
