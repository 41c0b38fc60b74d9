//! One generator knob: a range slider with an exact number beside it, and
//! what the knob means.
//!
//! Knobs whose range spans many values (a size of 1 to 2²⁰) get a
//! logarithmic slider, so both ends and every power of two are in reach; the
//! number field sets any exact value.

use std::str::FromStr;

use warplab_lab::Knob;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Slider positions of a logarithmic knob.
const LOG_STEPS: u64 = 1000;
/// A knob with at most this many values beyond its minimum gets one slider
/// position per value, unless its maximum is 64 times its minimum or more.
const MAX_LINEAR_STEPS: u64 = 1024;

/// Properties of [`KnobSlider`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct KnobSliderProps {
    /// The knob: name, meaning and range.
    pub knob: Knob,
    /// Its value in the spec (possibly outside the range, as the user typed it).
    pub value: u64,
    /// The user set a value.
    pub on_change: Callback<u64>,
}

/// A labelled slider, its exact value, and the knob's help text, as four
/// cells of the form's grid.
#[component]
pub fn KnobSlider(props: &KnobSliderProps) -> Html {
    let knob = props.knob;
    let on_slide = number_callback(&props.on_change, move |position: u64| Some(from_position(&knob, position)));
    let on_type = number_callback(&props.on_change, Some::<u64>);
    let id = format!("knob-{}", knob.name);
    let help_id = format!("{id}-help");
    html! {
        <>
            <label class="knob-name" for={id.clone()}>{ knob.name }</label>
            <input type="range" id={id.clone()} data-testid={id.clone()} min="0" max={steps(&knob).to_string()}
                step="1" value={to_position(&knob, props.value).to_string()} aria-describedby={help_id.clone()}
                oninput={on_slide} />
            <input type="number" class="knob-value" data-testid={format!("{id}-value")} min={knob.min.to_string()}
                max={knob.max.to_string()} value={props.value.to_string()} aria-label={format!("{} value", knob.name)}
                oninput={on_type} />
            <span class="hint knob-help" id={help_id}>{ knob.help }</span>
        </>
    }
}

/// Reads a number from an input and emits what `map` makes of it; anything
/// else (an empty or half-typed field), or a number `map` refuses, is ignored
/// until the field holds one it takes. Shared by every slider's two inputs.
pub fn number_callback<T: FromStr, U: 'static>(
    on_change: &Callback<U>,
    map: impl Fn(T) -> Option<U> + 'static,
) -> Callback<InputEvent> {
    let on_change = on_change.clone();
    Callback::from(move |event: InputEvent| {
        let input: HtmlInputElement = event.target_unchecked_into();
        if let Some(value) = input.value().trim().parse::<T>().ok().and_then(&map) {
            on_change.emit(value);
        }
    })
}

fn is_logarithmic(knob: &Knob) -> bool {
    let range = knob.max.saturating_sub(knob.min);
    range > MAX_LINEAR_STEPS || (knob.min > 0 && knob.max / knob.min >= 64)
}

/// The slider's positions beyond 0.
fn steps(knob: &Knob) -> u64 {
    if is_logarithmic(knob) { LOG_STEPS } else { knob.max.saturating_sub(knob.min) }
}

/// The slider position showing `value`; values outside the range sit at its ends.
fn to_position(knob: &Knob, value: u64) -> u64 {
    let offset = value.clamp(knob.min, knob.max.max(knob.min)) - knob.min;
    if !is_logarithmic(knob) {
        return offset;
    }
    // Offsets 0..=range map onto ln(1)..=ln(range + 1).
    let span = ((knob.max - knob.min) as f64 + 1.0).ln();
    ((offset as f64 + 1.0).ln() / span * LOG_STEPS as f64).round() as u64
}

/// The value at slider `position`: exact at both ends of the range.
fn from_position(knob: &Knob, position: u64) -> u64 {
    let range = knob.max.saturating_sub(knob.min);
    let position = position.min(steps(knob));
    if !is_logarithmic(knob) {
        return knob.min + position;
    }
    let fraction = position as f64 / LOG_STEPS as f64;
    let offset = ((range as f64 + 1.0).powf(fraction).round() as u64).saturating_sub(1);
    knob.min + offset.min(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knob(min: u64, max: u64) -> Knob {
        Knob { name: "k", help: "", default: min, min, max }
    }

    #[test]
    fn small_ranges_are_linear_with_one_position_per_value() {
        for knob in [knob(0, 1023), knob(32, 1024)] {
            assert!(!is_logarithmic(&knob));
            assert_eq!(steps(&knob), knob.max - knob.min);
            for value in knob.min..=knob.max {
                assert_eq!(from_position(&knob, to_position(&knob, value)), value);
            }
        }
    }

    #[test]
    fn large_ranges_are_logarithmic_and_reach_both_ends() {
        for knob in [knob(1, 1024), knob(1, 1 << 20), knob(0, u64::from(u32::MAX))] {
            assert!(is_logarithmic(&knob));
            assert_eq!(from_position(&knob, 0), knob.min);
            assert_eq!(from_position(&knob, LOG_STEPS), knob.max);
            assert_eq!(to_position(&knob, knob.max), LOG_STEPS);
            let values: Vec<u64> = (0..=LOG_STEPS).map(|p| from_position(&knob, p)).collect();
            assert!(values.windows(2).all(|pair| pair[0] <= pair[1]), "monotonic");
        }
        let gs = knob(1, 1024);
        assert_eq!(to_position(&gs, 32), 500, "32 is halfway to 1024 on a log scale");
        assert_eq!(from_position(&gs, 500), 32);
        for value in [1, 2, 3, 5, 8, 13] {
            assert_eq!(from_position(&gs, to_position(&gs, value)), value, "small values are exact");
        }
    }

    #[test]
    fn out_of_range_values_and_positions_stay_at_the_ends() {
        let size = knob(1, 1 << 18);
        assert_eq!(to_position(&size, 0), 0);
        assert_eq!(to_position(&size, u64::MAX), LOG_STEPS);
        assert_eq!(from_position(&size, u64::MAX), 1 << 18);
    }
}
