//! The generator form: set a generated kernel's size and knobs with sliders
//! (the toolbar picks the kernel), and see the canonical spec the workload
//! panel's summary is for.
//!
//! The form holds no state of its own: the spec lives in the page state (a
//! share link carries it), and every edit hands the whole new spec up.

use std::iter;

use warplab_lab::{GenSpec, Generator, Knob, generator};
use yew::prelude::*;

use crate::components::KnobSlider;

/// Properties of [`GeneratorForm`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GeneratorFormProps {
    /// The spec of the generated workload; `None` when the workload is a trace.
    pub spec: Option<GenSpec>,
    /// The user changed the kernel or a knob: the new spec.
    pub on_change: Callback<GenSpec>,
}

/// The spec text and one slider per knob; nothing when the workload is not
/// generated.
#[component]
pub fn GeneratorForm(props: &GeneratorFormProps) -> Html {
    let Some(spec) = &props.spec else { return html! {} };
    html! {
        <div class="generator" data-testid="generator">
            <div class="controls">
                <span class="source">{ "Generated" }</span>
                <code class="spec" data-testid="generated-spec">{ spec.to_string() }</code>
            </div>
            if let Some(generator) = generator(&spec.kernel) {
                <p class="hint">{ generator.summary }</p>
                { knobs(generator, spec, &props.on_change) }
            }
        </div>
    }
}

/// The size slider, then one per knob.
fn knobs(generator: &'static Generator, spec: &GenSpec, on_change: &Callback<GenSpec>) -> Html {
    let knob_slider = |knob: &'static Knob| {
        let value = value_of(spec, knob);
        let (spec, on_change) = (spec.clone(), on_change.clone());
        let on_value = Callback::from(move |value| on_change.emit(with_value(generator, &spec, knob.name, value)));
        html! { <KnobSlider key={knob.name} knob={*knob} {value} on_change={on_value} /> }
    };
    html! {
        <>
            <div class="knobs">{ for iter::once(&generator.size).chain(generator.knobs).map(knob_slider) }</div>
            if generator.uses_config {
                <p class="hint">{ "Sized for the GPU below; choosing another GPU generates it again." }</p>
            }
        </>
    }
}

/// The value `spec` gives `knob` (the size or a knob), or the knob's default.
fn value_of(spec: &GenSpec, knob: &Knob) -> u64 {
    spec.value(knob.name).unwrap_or(knob.default)
}

/// `spec` with `name` set to `value`, in the generator's canonical form: the
/// size, then its knobs in its order, each left out at its default (the form
/// the worker's summary is labelled with).
fn with_value(generator: &Generator, spec: &GenSpec, name: &str, value: u64) -> GenSpec {
    let mut edited = spec.clone();
    edited.set(name, value);
    generator.canonical(&edited)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: &str, name: &str, value: u64, expect: &str) {
        let spec: GenSpec = spec.parse().expect("a well-formed spec");
        let generator = generator(&spec.kernel).expect("a known generator");
        assert_eq!(with_value(generator, &spec, name, value).to_string(), expect);
    }

    #[test]
    fn edits_keep_the_spec_canonical() {
        check("strided", "gs", 32, "strided:gs=32");
        check("strided:gs=32", "size", 64, "strided:size=64,gs=32");
        check("strided:n=4,gs=32", "gs", 1, "strided:n=4");
        let default_size = generator("strided").map(|g| g.size.default).unwrap_or_default();
        check("strided:size=64", "size", default_size, "strided");
        check("strided", "size", 0, "strided:size=0");
    }

    #[test]
    fn values_default_when_the_spec_leaves_them_out() {
        let strided = generator("strided").expect("strided is a generator");
        let spec: GenSpec = "strided:gs=8".parse().expect("a well-formed spec");
        let gs = strided.knobs.iter().find(|knob| knob.name == "gs").expect("strided has gs");
        assert_eq!(value_of(&spec, gs), 8);
        assert_eq!(value_of(&spec, &strided.size), strided.size.default);
    }
}
