//! The animation's controls: play or pause, step one cycle or to the next
//! event, the playback speed, and a jump to a cycle. The component holds no
//! run state; it turns clicks into callbacks and shows what its props say.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// How fast playback advances the simulated clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Speed {
    /// This many core cycles per second of wall time.
    CyclesPerSecond(u64),
    /// As fast as the worker simulates.
    Max,
}

/// Properties of [`AnimationControls`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct AnimationControlsProps {
    /// Playback is running.
    pub playing: bool,
    /// A run exists to control.
    pub running: bool,
    /// The run reached its end: nothing left to play or step.
    pub finished: bool,
    /// The selected speed.
    pub speed: Speed,
    /// Play was pressed.
    pub on_play: Callback<()>,
    /// Pause was pressed.
    pub on_pause: Callback<()>,
    /// Step one core cycle.
    pub on_step_cycle: Callback<()>,
    /// Step to the next cycle at which anything changes.
    pub on_step_event: Callback<()>,
    /// A speed was chosen.
    pub on_speed: Callback<Speed>,
    /// Jump to this core cycle.
    pub on_seek: Callback<u64>,
}

impl Speed {
    /// The choices the speed selector offers, slowest first.
    pub const CHOICES: [Speed; 5] = [
        Speed::CyclesPerSecond(100),
        Speed::CyclesPerSecond(1_000),
        Speed::CyclesPerSecond(10_000),
        Speed::CyclesPerSecond(100_000),
        Speed::Max,
    ];

    /// Cycles per second as the worker protocol carries them (0: as fast as possible).
    pub fn cycles_per_second(self) -> u64 {
        match self {
            Speed::CyclesPerSecond(cycles) => cycles.max(1),
            Speed::Max => 0,
        }
    }

    /// The speed the worker protocol's `cycles` (0: as fast as possible) means.
    pub fn from_cycles_per_second(cycles: u64) -> Self {
        if cycles == 0 { Speed::Max } else { Speed::CyclesPerSecond(cycles) }
    }

    /// How the selector names it, e.g. `10k cycles/s`.
    pub fn label(self) -> String {
        match self {
            Speed::CyclesPerSecond(cycles) if cycles >= 1000 && cycles.is_multiple_of(1000) => {
                format!("{}k cycles/s", cycles / 1000)
            }
            Speed::CyclesPerSecond(cycles) => format!("{cycles} cycles/s"),
            Speed::Max => "max".to_owned(),
        }
    }
}

/// Play/pause, step, speed and seek.
#[component]
pub fn AnimationControls(props: &AnimationControlsProps) -> Html {
    let seek_input = use_node_ref();
    let can_advance = props.running && !props.finished;
    let can_step = can_advance && !props.playing;
    let play_or_pause = if props.playing {
        html! { <button type="button" class="button" data-testid="pause" onclick={emit(&props.on_pause)}>{ "Pause" }</button> }
    } else {
        html! { <button type="button" class="button" data-testid="play" disabled={!can_advance} onclick={emit(&props.on_play)}>{ "Play" }</button> }
    };
    let on_speed = {
        let on_speed = props.on_speed.clone();
        Callback::from(move |event: Event| {
            let select: HtmlSelectElement = event.target_unchecked_into();
            if let Some(&speed) = select.value().parse::<usize>().ok().and_then(|index| Speed::CHOICES.get(index)) {
                on_speed.emit(speed);
            }
        })
    };
    let on_seek = {
        let (on_seek, seek_input) = (props.on_seek.clone(), seek_input.clone());
        Callback::from(move |event: SubmitEvent| {
            // The form only carries the value; the page must not navigate.
            event.prevent_default();
            let typed = seek_input.cast::<HtmlInputElement>().map(|input| input.value());
            if let Some(cycle) = typed.and_then(|text| text.trim().parse::<u64>().ok()) {
                on_seek.emit(cycle);
            }
        })
    };
    html! {
        <div class="controls animation-controls" data-testid="animation-controls">
            { play_or_pause }
            <button type="button" class="button" data-testid="step-cycle" disabled={!can_step} onclick={emit(&props.on_step_cycle)}
                title="Advance one core cycle">{ "Step 1 cycle" }</button>
            <button type="button" class="button" data-testid="step-event" disabled={!can_step} onclick={emit(&props.on_step_event)}
                title="Advance to the next cycle at which something changes">{ "Step 1 event" }</button>
            <label class="hint" for="animation-speed">{ "Speed" }</label>
            <select id="animation-speed" data-testid="speed" onchange={on_speed}>
                { for Speed::CHOICES.iter().enumerate().map(|(index, &speed)| html! {
                    <option value={index.to_string()} selected={speed == props.speed}>{ speed.label() }</option>
                }) }
            </select>
            <form class="seek" onsubmit={on_seek}>
                <input ref={seek_input} type="number" min="0" step="1" inputmode="numeric" data-testid="seek-input"
                    placeholder="cycle" aria-label="Cycle to jump to" disabled={!props.running} />
                <button type="submit" class="button" data-testid="seek" disabled={!props.running}>{ "Go" }</button>
            </form>
        </div>
    }
}

/// A click handler that emits `()`.
fn emit(callback: &Callback<()>) -> Callback<MouseEvent> {
    callback.reform(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_are_labelled_compactly() {
        let labels: Vec<String> = Speed::CHOICES.iter().map(|speed| speed.label()).collect();
        assert_eq!(labels, ["100 cycles/s", "1k cycles/s", "10k cycles/s", "100k cycles/s", "max"]);
        assert_eq!(Speed::CyclesPerSecond(1500).label(), "1500 cycles/s");
    }
}
