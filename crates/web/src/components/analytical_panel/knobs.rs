//! The config knob sliders: the SM count, the L1 MSHRs and the NoC and DRAM
//! bandwidth scales, each over a range around the loaded config's value,
//! with the note on what they change: a moved slider previews the models at
//! once (profiling again only for a new SM count or MSHRs), and once it
//! rests the page makes it an edit of the experiment's config (analyzed and
//! simulated again).

use warplab_lab::config_knob;
use yew::prelude::*;

use crate::agent::KnobBase;
use crate::analysis_state::KnobEdit;
use crate::components::AnalyticalPanelProps;
use crate::components::config_knob_slider::{ConfigKnobSlider, SliderScale};
use crate::glossary;

/// The SM slider reaches at least this many SMs (an H100's 132), and at least
/// twice the config's.
const MIN_TOP_SMS: f64 = 132.0;

/// MSHRs per SM from 8 to 1,024, four stops an octave.
const MSHR_SCALE: SliderScale = SliderScale::Log { min: 8.0, max: 1024.0, per_octave: 4, whole: true };

/// A bandwidth from an eighth to four times the config's, four stops an octave.
const BANDWIDTH_SCALE: SliderScale = SliderScale::Log { min: 0.125, max: 4.0, per_octave: 4, whole: false };

/// One slider: its knob, its stops and the loaded config's value.
struct SliderKnob {
    name: &'static str,
    scale: SliderScale,
    base: f64,
}

/// The knobs the sliders set, as config edits name them.
pub const SLIDER_KNOBS: [&str; 4] = ["n_sms", "l1_mshrs", "noc_bw_scale", "dram_bw_scale"];

/// The sliders for a config with `base`'s values; no MSHR slider without an L1.
fn slider_knobs(base: &KnobBase) -> Vec<SliderKnob> {
    let per_cluster = f64::from(base.cores_per_cluster.max(1));
    let top = (2.0 * f64::from(base.n_sms)).max(MIN_TOP_SMS);
    let sms =
        SliderScale::Linear { min: per_cluster, max: (top / per_cluster).floor() * per_cluster, step: per_cluster };
    let mut knobs = vec![SliderKnob { name: "n_sms", scale: sms, base: f64::from(base.n_sms) }];
    if let Some(mshrs) = base.l1_mshrs {
        knobs.push(SliderKnob { name: "l1_mshrs", scale: MSHR_SCALE, base: f64::from(mshrs) });
    }
    for &name in &SLIDER_KNOBS[2..] {
        knobs.push(SliderKnob { name, scale: BANDWIDTH_SCALE, base: 1.0 });
    }
    knobs
}

/// The sliders, the note on what they change, and Reset. A moved slider
/// emits every knob then set (those away from the config's values).
pub fn knob_sliders(base: &KnobBase, props: &AnalyticalPanelProps) -> Html {
    let (state, on_knobs, on_reset) = (&props.state, &props.on_knobs, &props.on_reset);
    let disabled = state.analyzing.is_some();
    let sliders = slider_knobs(base).into_iter().map(|SliderKnob { name, scale, base }| {
        let value = state.knob(name).unwrap_or(base);
        let (state, on_knobs) = (state.clone(), on_knobs.clone());
        let on_change = Callback::from(move |value| on_knobs.emit(state.with_knob(KnobEdit { name, value, base })));
        let help = config_knob(name).map_or("", |knob| knob.summary);
        html! {
            <ConfigKnobSlider key={name} {name} {help} {scale} {value} at_base={value == base} {disabled} {on_change} />
        }
    });
    html! {
        <div class="config-knobs" data-testid="config-knobs">
            <h3 class="subheading" title={glossary::CONFIG_KNOBS}>{ "What if the GPU were different?" }</h3>
            <p class="note" data-testid="knobs-note">
                { "A moved slider re-evaluates the models at once (the SM count and MSHRs profile the workload again). " }
                <strong>{ "When it rests, the change becomes an edit of the experiment's config" }</strong>
                { ": the workload is profiled and simulated again, and the link carries the edit." }
            </p>
            <div class="knobs">{ for sliders }</div>
            <button class="button" data-testid="reset-knobs" disabled={(state.knobs.is_empty() && !props.slider_edits) || disabled}
                onclick={on_reset.reform(|_: MouseEvent| ())}>{ "Reset the sliders' edits" }</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_and_tops(base: KnobBase) -> Vec<(&'static str, u32, f64)> {
        slider_knobs(&base).iter().map(|k| (k.name, k.scale.stops(), k.scale.value_at(u32::MAX))).collect()
    }

    #[test]
    fn ranges_sit_around_the_config() {
        let pascal = KnobBase { n_sms: 28, cores_per_cluster: 1, l1_mshrs: Some(128) };
        assert_eq!(
            names_and_tops(pascal),
            [("n_sms", 131, 132.0), ("l1_mshrs", 28, 1024.0), ("noc_bw_scale", 20, 4.0), ("dram_bw_scale", 20, 4.0)]
        );
        let clustered = KnobBase { n_sms: 100, cores_per_cluster: 3, l1_mshrs: None };
        assert_eq!(names_and_tops(clustered)[..1], [("n_sms", 65, 198.0)], "3 to 198 in whole clusters");
        assert_eq!(names_and_tops(clustered).len(), 3, "no L1, no MSHR slider");
    }
}
