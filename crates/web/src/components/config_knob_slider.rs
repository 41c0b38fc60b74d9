//! One config knob (`warplab_lab::CONFIG_KNOBS`): a range slider over a
//! grid of sensible values, an exact number beside it, and what the knob
//! changes.
//!
//! Unlike a generator's [`crate::components::KnobSlider`], a config knob can
//! be fractional (a bandwidth scale of 0.5), and a slider moves in steps
//! that keep it valid (SMs in whole clusters) or even on a log scale (MSHRs
//! and scales in quarter octaves, so every power of two is a stop). Each
//! input is handed up at once: the models re-evaluate in well under a
//! millisecond, and the worker hook drops superseded requests.

use yew::prelude::*;

use crate::components::knob_slider::number_callback;

/// The values a slider stops at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SliderScale {
    /// `min`, `min + step`, … up to `max`.
    Linear {
        /// The first stop.
        min: f64,
        /// The last stop (at most).
        max: f64,
        /// The distance between stops (positive).
        step: f64,
    },
    /// `min · 2^(k / per_octave)` up to `max`, rounded to whole numbers or
    /// to three significant digits.
    Log {
        /// The first stop (positive).
        min: f64,
        /// The last stop.
        max: f64,
        /// Stops per doubling.
        per_octave: u32,
        /// Whether values are whole numbers.
        whole: bool,
    },
}

/// Properties of [`ConfigKnobSlider`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConfigKnobSliderProps {
    /// The knob's name, as `Predict` and `--set` take it.
    pub name: &'static str,
    /// What it changes.
    pub help: &'static str,
    /// Where the slider stops.
    pub scale: SliderScale,
    /// The value (possibly off the grid, as the config has it or the user typed it).
    pub value: f64,
    /// Whether the value is the loaded config's own.
    pub at_base: bool,
    /// While nothing can be evaluated (an analysis is running).
    #[prop_or_default]
    pub disabled: bool,
    /// The user set a value.
    pub on_change: Callback<f64>,
}

/// A labelled slider, its exact value and the knob's help, as four cells of
/// the knob grid.
#[component]
pub fn ConfigKnobSlider(props: &ConfigKnobSliderProps) -> Html {
    let scale = props.scale;
    let on_slide = number_callback(&props.on_change, move |position: u32| Some(scale.value_at(position)));
    // Infinity parses as a number but is no value a knob takes.
    let on_type = number_callback(&props.on_change, |value: f64| value.is_finite().then_some(value));
    let id = format!("config-knob-{}", props.name);
    let help_id = format!("{id}-help");
    let class = classes!("knob-name", (!props.at_base).then_some("moved"));
    html! {
        <>
            <label class={class} for={id.clone()}>{ props.name }</label>
            <input type="range" id={id.clone()} data-testid={id.clone()} min="0" max={scale.stops().to_string()}
                step="1" value={scale.position(props.value).to_string()} aria-describedby={help_id.clone()}
                aria-valuetext={value_text(props.value)} disabled={props.disabled} oninput={on_slide} />
            <input type="number" class="knob-value" data-testid={format!("{id}-value")} step="any"
                value={value_text(props.value)} aria-label={format!("{} value", props.name)}
                disabled={props.disabled} oninput={on_type} />
            <span class="hint knob-help" id={help_id}>{ props.help }</span>
        </>
    }
}

/// A value as its field shows it: whole numbers without decimals.
fn value_text(value: f64) -> String {
    if value.fract() == 0.0 { format!("{value:.0}") } else { format!("{value}") }
}

impl SliderScale {
    /// The last stop's position; positions run from 0.
    pub fn stops(self) -> u32 {
        let stops = match self {
            SliderScale::Linear { min, max, step } => (max - min) / step,
            SliderScale::Log { min, max, per_octave, .. } => (max / min).log2() * f64::from(per_octave),
        };
        // A bad scale (NaN, negative) is a slider with one stop, not a panic.
        if stops.is_finite() { (stops + 1e-9).floor().clamp(0.0, 10_000.0) as u32 } else { 0 }
    }

    /// The value at `position` (beyond the last stop: the last stop).
    pub fn value_at(self, position: u32) -> f64 {
        let k = f64::from(position.min(self.stops()));
        match self {
            SliderScale::Linear { min, step, .. } => min + k * step,
            SliderScale::Log { min, per_octave, whole, .. } => {
                let value = min * (k / f64::from(per_octave.max(1))).exp2();
                if whole { value.round() } else { three_digits(value) }
            }
        }
    }

    /// The stop nearest `value`; values off the scale sit at its ends.
    pub fn position(self, value: f64) -> u32 {
        let k = match self {
            SliderScale::Linear { min, step, .. } => (value - min) / step,
            SliderScale::Log { min, per_octave, .. } => (value / min).log2() * f64::from(per_octave),
        };
        if k.is_nan() { 0 } else { k.round().clamp(0.0, f64::from(self.stops())) as u32 }
    }
}

/// `value` rounded to three significant digits: 1.189… is 1.19.
fn three_digits(value: f64) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(2 - value.abs().log10().floor() as i32);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSHRS: SliderScale = SliderScale::Log { min: 8.0, max: 1024.0, per_octave: 4, whole: true };
    const BANDWIDTH: SliderScale = SliderScale::Log { min: 0.125, max: 4.0, per_octave: 4, whole: false };

    #[test]
    fn log_scales_stop_at_every_power_of_two() {
        assert_eq!(MSHRS.stops(), 28);
        let values: Vec<f64> = (0..=MSHRS.stops()).map(|p| MSHRS.value_at(p)).collect();
        assert_eq!(values[..6], [8.0, 10.0, 11.0, 13.0, 16.0, 19.0]);
        for power in [8.0, 16.0, 32.0, 128.0, 256.0, 1024.0] {
            assert_eq!(MSHRS.value_at(MSHRS.position(power)), power);
        }
        assert!(values.windows(2).all(|pair| pair[0] < pair[1]), "every stop is a new value: {values:?}");
        assert_eq!(BANDWIDTH.stops(), 20);
        assert_eq!([0, 3, 12, 13, 20].map(|p| BANDWIDTH.value_at(p)), [0.125, 0.21, 1.0, 1.19, 4.0]);
        assert_eq!(MSHRS.position(384.0), 22, "off the grid: the nearest stop (362)");
    }

    #[test]
    fn linear_scales_step_by_whole_clusters() {
        let sms = SliderScale::Linear { min: 2.0, max: 132.0, step: 2.0 };
        assert_eq!(sms.stops(), 65);
        assert_eq!((sms.value_at(0), sms.value_at(13), sms.value_at(99)), (2.0, 28.0, 132.0));
        assert_eq!(sms.position(28.0), 13);
    }

    #[test]
    fn values_off_the_scale_sit_at_its_ends() {
        assert_eq!((MSHRS.position(2.0), MSHRS.position(1e9), MSHRS.position(f64::NAN)), (0, 28, 0));
        assert_eq!(MSHRS.position(-1.0), 0);
        let broken = SliderScale::Linear { min: 1.0, max: 0.0, step: 0.0 };
        assert_eq!((broken.stops(), broken.position(3.0), broken.value_at(5)), (0, 0, 1.0));
    }
}
