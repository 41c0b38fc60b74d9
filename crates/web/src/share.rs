//! The page side of share links: the experiment the page shows, assembled
//! from its states, written to the URL fragment whenever it changes, and
//! read back from a link the page opens with. The user's files travel by
//! content hash (the worker hashes them as they load), config files as the
//! nearest preset and its edits when those read back to the same config.
//!
//! The codec is `warplab_lab`'s (`encode_link`, `decode_link`), the same the
//! CLI's `--link` reads, so a link names the same numbers everywhere.

use warplab_lab::{
    ConfigChoice, ConfigEdit, Experiment as Shared, MAX_EDITS, MAX_LINK_BYTES, ScaleChoice, ViewState,
    WorkloadChoice as SharedWorkload, decode_link, encode_link,
};
use wasm_bindgen::JsValue;

use crate::analysis_state::AnalysisState;
use crate::lab_step::LabStep;
use crate::run_state::RunState;
use crate::scale_state::ScaleState;
use crate::state::{State, WorkloadChoice};

/// The experiment the page shows, or why it cannot travel in a link yet
/// (files the user opened whose content hash is not known).
pub fn experiment_of(
    state: &State,
    run: &RunState,
    scale: &ScaleState,
    analysis: &AnalysisState,
) -> Result<Shared, String> {
    let (config, edits) = config_choice(state)?;
    let workload = match (&state.choice, state.trace_hash) {
        (WorkloadChoice::Sample(name), _) => SharedWorkload::Sample(name.clone()),
        (WorkloadChoice::Generated(spec), _) => SharedWorkload::Generated(spec.clone()),
        (WorkloadChoice::TraceFiles(label), Some(hash)) => SharedWorkload::Trace { name: label.clone(), hash },
        (WorkloadChoice::TraceFiles(label), None) => {
            return Err(format!("the trace {label} is still being read; its link follows"));
        }
        (WorkloadChoice::Kernel { file, source }, _) => {
            SharedWorkload::Kernel { name: file.clone(), source: source.clone() }
        }
    };
    Ok(Shared {
        config,
        edits,
        workload,
        memcpy_warms_l2: false,
        sampling: run.sampling,
        scale: ScaleChoice {
            scale_models: scale.chosen_pair,
            rule: scale.rule,
            validate: scale.validate,
            target_sms: scale.chosen_target(),
            weak: scale.weak && state.choice.spec().is_some(),
        },
        view: ViewState {
            watch_sm: run.watch,
            speed: run.speed,
            paper_models_only: analysis.paper_models_only,
            replay_speed: run.replay_speed,
        },
        baseline: state.baseline.as_ref().map(|pinned| Box::new(pinned.experiment.clone())),
    })
}

/// The experiment's config and edits: a preset's; or the user's files as the
/// nearest preset with the edits that make them (then the page's own edits),
/// when those fit a link, else named by label and content hash.
fn config_choice(state: &State) -> Result<(ConfigChoice, Vec<ConfigEdit>), String> {
    if let Some(name) = &state.preset {
        return Ok((ConfigChoice::Preset(name.clone()), state.edits.clone()));
    }
    let Some(origin) = &state.config_origin else {
        return Err("the config files are still being read; their link follows".to_owned());
    };
    if let Some((preset, delta)) = &origin.delta
        && delta.len() + state.edits.len() <= MAX_EDITS
    {
        let edits = delta.iter().chain(&state.edits).cloned().collect();
        return Ok((ConfigChoice::Preset(preset.clone()), edits));
    }
    Ok((ConfigChoice::Files { name: origin.label.clone(), hash: origin.hash }, state.edits.clone()))
}

/// Why a link cannot carry `experiment`: an authored kernel's source that
/// makes the page's address (`address_bytes` before the fragment) longer
/// than a link may be. The experiment file carries it instead.
pub fn link_too_long(experiment: &Shared, address_bytes: usize) -> Option<String> {
    // Only a kernel's source makes a link long; the others are not encoded
    // twice on every render.
    if !matches!(experiment.workload, SharedWorkload::Kernel { .. }) {
        return None;
    }
    let bytes = address_bytes + "#x=".len() + encode_link(experiment).len();
    (bytes > MAX_LINK_BYTES).then(|| {
        format!(
            "The kernel's source makes a link of {bytes} bytes, more than the {MAX_LINK_BYTES} a link may have: \
             use Download experiment instead (the file holds the source; Open experiment… opens it)."
        )
    })
}

/// The bytes of the page's address before its fragment.
pub fn address_bytes() -> usize {
    current_link().map_or(0, |href| href.split('#').next().map_or(0, str::len))
}

/// The experiment in the page's URL fragment (`#x=...`): `None` without
/// one, else the experiment or why the link cannot be opened.
pub fn experiment_in_location() -> Option<Result<Shared, String>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let payload = hash.strip_prefix("#x=")?;
    Some(decode_link(payload).map_err(|e| format!("This link cannot be opened: {e}. Showing the default experiment.")))
}

/// The lab step the page's URL fragment carries after its experiment, if any.
pub fn lab_step_in_location() -> Option<LabStep> {
    LabStep::from_fragment(&web_sys::window()?.location().hash().ok()?)
}

/// Replaces the URL's fragment with `experiment`'s link, followed by the lab
/// step while its banner shows (so a reload shows it again), without a new
/// history entry (every slider step would be one otherwise).
pub fn show_in_location(experiment: &Shared, step: Option<&LabStep>) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let step = step.map(LabStep::params).unwrap_or_default();
    // A link too long to open is not written: the address keeps no
    // experiment rather than an older one.
    let fragment = match link_too_long(experiment, address_bytes()) {
        None => format!("#x={}{step}", encode_link(experiment)),
        Some(_) => window.location().pathname().map_err(|e| crate::fetch::js_message(&e))?,
    };
    if window.location().hash().ok().as_deref() == Some(fragment.as_str()) {
        return Ok(());
    }
    let history = window.history().map_err(|e| crate::fetch::js_message(&e))?;
    history.replace_state_with_url(&JsValue::NULL, "", Some(&fragment)).map_err(|e| crate::fetch::js_message(&e))
}

/// The page's address, fragment included: what "Copy link" copies.
pub fn current_link() -> Option<String> {
    web_sys::window()?.location().href().ok()
}

/// `edits` with the knob `name` set to `value`, replacing an earlier
/// setting of it, kept in the order first set.
pub fn with_knob(edits: &[ConfigEdit], name: &str, value: f64) -> Vec<ConfigEdit> {
    let mut edits = edits.to_vec();
    let edit = ConfigEdit::Knob { name: name.to_owned(), value };
    match edits.iter_mut().find(|e| matches!(e, ConfigEdit::Knob { name: n, .. } if n == name)) {
        Some(existing) => *existing = edit,
        None => edits.push(edit),
    }
    edits
}

/// `edits` without the edits of the knobs in `names`.
pub fn without_knobs(edits: &[ConfigEdit], names: &[&str]) -> Vec<ConfigEdit> {
    let edited = |e: &&ConfigEdit| matches!(e, ConfigEdit::Knob { name, .. } if names.contains(&name.as_str()));
    edits.iter().filter(|e| !edited(e)).cloned().collect()
}

/// The experiment in a JSON file the user picked.
pub async fn read_experiment_file(file: &web_sys::File) -> Result<Shared, String> {
    let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.map_err(|e| crate::fetch::js_message(&e))?;
    let text = text.as_string().ok_or("the file is not text")?;
    Shared::from_json(&text).map_err(|e| format!("{}: {e}", file.name()))
}

#[cfg(test)]
mod tests {
    use warplab_lab::ContentHash;

    use super::*;
    use crate::agent::FilesOrigin;

    fn knob(name: &str, value: f64) -> ConfigEdit {
        ConfigEdit::Knob { name: name.to_owned(), value }
    }

    #[test]
    fn a_knob_set_again_replaces_its_edit_in_place() {
        let edits = with_knob(&[], "l1_mshrs", 32.0);
        let edits = with_knob(&edits, "n_sms", 40.0);
        let edits = with_knob(&edits, "l1_mshrs", 64.0);
        assert_eq!(edits, vec![knob("l1_mshrs", 64.0), knob("n_sms", 40.0)]);
    }

    #[test]
    fn the_default_page_is_an_experiment_a_link_carries() {
        let mut state = State { preset: Some("SM7_QV100".into()), ..State::default() };
        let (run, scale) = (RunState::default(), ScaleState::default());
        let analysis = AnalysisState { paper_models_only: true, ..AnalysisState::default() };
        let experiment = experiment_of(&state, &run, &scale, &analysis).expect("shareable");
        assert_eq!(experiment.config, ConfigChoice::Preset("SM7_QV100".into()));
        assert!(experiment.view.paper_models_only, "the panel's choice of models travels");
        assert_eq!(decode_link(&encode_link(&experiment)).ok(), Some(experiment));
        state.choice = WorkloadChoice::TraceFiles("mine".into());
        let not_hashed = experiment_of(&state, &run, &scale, &analysis);
        assert!(not_hashed.is_err_and(|e| e.contains("mine")), "not hashed yet");
        let hash = ContentHash(0x1234);
        state.trace_hash = Some(hash);
        let experiment = experiment_of(&state, &run, &scale, &analysis).expect("hashed files travel by hash");
        assert_eq!(experiment.workload, SharedWorkload::Trace { name: "mine".into(), hash });
        assert_eq!(decode_link(&encode_link(&experiment)).ok(), Some(experiment));
    }

    /// Issue 41: the link carries the editor's text, and a text too long
    /// for a link says so (the experiment file carries it).
    #[test]
    fn issue_41_a_kernel_travels_in_the_link_unless_too_long() {
        let source = include_str!("../../cuda/examples/transpose.cu").to_owned();
        let state = State {
            preset: Some("SM7_QV100".into()),
            choice: WorkloadChoice::Kernel { file: "t.cu".into(), source: source.clone() },
            ..State::default()
        };
        let (run, scale, analysis) = (RunState::default(), ScaleState::default(), AnalysisState::default());
        let experiment = experiment_of(&state, &run, &scale, &analysis).expect("shareable");
        assert_eq!(experiment.workload, SharedWorkload::Kernel { name: "t.cu".into(), source });
        assert_eq!(decode_link(&encode_link(&experiment)).ok(), Some(experiment.clone()));
        let address = "https://example.invalid/warplab/".len();
        assert_eq!(link_too_long(&experiment, address), None);
        // Random text does not compress: a few kilobytes of it make too long a link.
        let mut noise = String::new();
        let mut x: u32 = 1;
        for _ in 0..8000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            noise.push(char::from(b'!' + (x >> 16) as u8 % 90));
        }
        let long = Shared { workload: SharedWorkload::Kernel { name: "t.cu".into(), source: noise }, ..experiment };
        let why = link_too_long(&long, address).expect("too long");
        assert!(why.contains("more than the 8192") && why.contains("Download experiment"), "{why}");
        assert_eq!(Shared::from_json(&long.to_json_pretty()).ok(), Some(long), "the file carries it");
    }

    #[test]
    fn config_files_travel_as_a_preset_and_edits_when_they_can() {
        let mshrs = ConfigEdit::Option { name: "-gpgpu_cache:dl1".into(), value: "x".into() };
        let delta = Some(("SM7_QV100".to_owned(), vec![mshrs.clone()]));
        let origin = FilesOrigin { label: "gpgpusim.config".into(), hash: ContentHash(7), delta };
        let mut state = State {
            choice: WorkloadChoice::Sample("vecadd".into()),
            config_origin: Some(Box::new(origin.clone())),
            edits: vec![knob("n_sms", 40.0)],
            ..State::default()
        };
        let (config, edits) = config_choice(&state).expect("loaded");
        assert_eq!(config, ConfigChoice::Preset("SM7_QV100".into()));
        assert_eq!(edits, vec![mshrs, knob("n_sms", 40.0)], "the delta, then the page's edits");
        state.config_origin = Some(Box::new(FilesOrigin { delta: None, ..origin }));
        let (config, edits) = config_choice(&state).expect("loaded");
        assert_eq!(config, ConfigChoice::Files { name: "gpgpusim.config".into(), hash: ContentHash(7) });
        assert_eq!(edits, vec![knob("n_sms", 40.0)]);
    }
}
