//! The animation's controls: play or pause, step one cycle or to the next
//! event, the playback speed, and a jump to a cycle. The component holds no
//! run state; it turns clicks into callbacks and shows what its props say.
//!
//! While it is mounted, the keyboard drives it too (see [`Shortcut`]): a
//! document `keydown` listener, owned by the component and removed with it,
//! that leaves keys typed into form fields alone.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

/// How fast playback advances the simulated clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Speed {
    /// This many core cycles per second of wall time.
    CyclesPerSecond(u64),
    /// As fast as the worker simulates.
    Max,
}

/// What a key press asks of the controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Space: play, or pause while playing.
    PlayPause,
    /// Arrow right: step one core cycle.
    StepCycle,
    /// Shift + arrow right, or arrow down: step to the next event.
    StepEvent,
}

/// The shortcuts as the controls' hover text lists them.
pub const SHORTCUTS: &str = "Keys: Space play/pause, → step a cycle, Shift+→ or ↓ step an event";

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
    /// Replay the finished run from its start, at the speed selected.
    #[prop_or_default]
    pub on_replay: Callback<()>,
    /// The speed is the replay's (the run has finished): "max" is not
    /// offered, since a replay is for watching (Go jumps ahead).
    #[prop_or_default]
    pub replay: bool,
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

    /// The choices, with `current` among them in its place when a link set
    /// a speed the selector does not offer.
    pub fn choices_with(current: Speed) -> Vec<Speed> {
        let mut choices = Speed::CHOICES.to_vec();
        if !choices.contains(&current) {
            // The choices run slowest first.
            let at = choices.iter().take_while(|&&speed| speed.slower_than(current)).count();
            choices.insert(at, current);
        }
        choices
    }

    /// Whether `self` plays slower than `other` (every chosen speed is
    /// slower than "max").
    fn slower_than(self, other: Speed) -> bool {
        match (self, other) {
            (Speed::CyclesPerSecond(a), Speed::CyclesPerSecond(b)) => a < b,
            (Speed::CyclesPerSecond(_), Speed::Max) => true,
            (Speed::Max, _) => false,
        }
    }

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

impl Shortcut {
    /// The shortcut of a key press: `key` as `KeyboardEvent.key` names it,
    /// with Shift held or not; `None` for other keys and for any key pressed
    /// with Ctrl, Alt or Meta (the browser's and the system's own shortcuts).
    pub fn of(key: &str, shift: bool, other_modifier: bool) -> Option<Self> {
        match (key, shift, other_modifier) {
            (_, _, true) => None,
            (" ", false, _) => Some(Shortcut::PlayPause),
            ("ArrowRight", false, _) => Some(Shortcut::StepCycle),
            ("ArrowRight", true, _) | ("ArrowDown", false, _) => Some(Shortcut::StepEvent),
            _ => None,
        }
    }
}

/// Play/pause, step, speed and seek.
#[component]
pub fn AnimationControls(props: &AnimationControlsProps) -> Html {
    use_keyboard_shortcuts(props);
    let seek_input = use_node_ref();
    let can_advance = props.running && !props.finished;
    let can_step = can_advance && !props.playing;
    let play_or_pause = if props.finished {
        // The run is over, but not the watching: the selected speed is now
        // the replay's.
        html! { <button type="button" class="button" data-testid="replay" onclick={emit(&props.on_replay)}
        title="Play the run again from its start, at the speed selected (Space)">{ "Replay" }</button> }
    } else if props.playing {
        html! { <button type="button" class="button" data-testid="pause" onclick={emit(&props.on_pause)}
        title="Pause (Space)">{ "Pause" }</button> }
    } else {
        html! { <button type="button" class="button" data-testid="play" disabled={!can_advance} onclick={emit(&props.on_play)}
        title="Play (Space)">{ "Play" }</button> }
    };
    let on_speed = {
        let on_speed = props.on_speed.clone();
        Callback::from(move |event: Event| {
            let select: HtmlSelectElement = event.target_unchecked_into();
            if let Ok(cycles) = select.value().parse::<u64>() {
                on_speed.emit(Speed::from_cycles_per_second(cycles));
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
        <div class="controls animation-controls" data-testid="animation-controls" title={SHORTCUTS}>
            { play_or_pause }
            <button type="button" class="button" data-testid="step-cycle" disabled={!can_step} onclick={emit(&props.on_step_cycle)}
                title="Advance one core cycle (→)">{ "Step 1 cycle" }</button>
            <button type="button" class="button" data-testid="step-event" disabled={!can_step} onclick={emit(&props.on_step_event)}
                title="Advance to the next cycle at which something changes (Shift+→ or ↓)">{ "Step 1 event" }</button>
            <label class="hint" for="animation-speed">{ "Speed" }</label>
            <select id="animation-speed" data-testid="speed" onchange={on_speed}>
                { for Speed::choices_with(props.speed).into_iter().filter(|&speed| !(props.replay && speed == Speed::Max)).map(|speed| html! {
                    <option value={speed.cycles_per_second().to_string()} selected={speed == props.speed}>{ speed.label() }</option>
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

/// Listens for the [`Shortcut`]s on the document while the controls are
/// mounted; the listener reads the latest props, so it is added only once.
#[hook]
fn use_keyboard_shortcuts(props: &AnimationControlsProps) {
    let latest = use_mut_ref(|| props.clone());
    *latest.borrow_mut() = props.clone();
    use_effect_with((), move |()| {
        // Not passive: a handled key's default (Space scrolls the page) is prevented.
        let options = EventListenerOptions::enable_prevent_default();
        let listener = EventListener::new_with_options(&gloo::utils::document(), "keydown", options, move |event| {
            let Some(event) = event.dyn_ref::<KeyboardEvent>() else { return };
            let other_modifier = event.ctrl_key() || event.alt_key() || event.meta_key();
            let Some(shortcut) = Shortcut::of(&event.key(), event.shift_key(), other_modifier) else { return };
            let target = event.target().and_then(|target| target.dyn_into::<Element>().ok());
            if target.is_some_and(|element| typing_in(&element, shortcut)) {
                return;
            }
            if apply(&latest.borrow(), shortcut) {
                event.prevent_default();
            }
        });
        move || drop(listener)
    });
}

/// Whether a key pressed with focus on `element` belongs to it: text typed
/// into a field or a choice in a list, or Space pressing a focused button.
fn typing_in(element: &Element, shortcut: Shortcut) -> bool {
    let tag = element.tag_name().to_ascii_lowercase();
    let field = matches!(tag.as_str(), "input" | "select" | "textarea") || element.has_attribute("contenteditable");
    field || (shortcut == Shortcut::PlayPause && matches!(tag.as_str(), "button" | "a" | "summary"))
}

/// Emits what `shortcut` asks for if the controls allow it now (as the
/// buttons would be enabled; Space replays a finished run); returns whether
/// it did.
fn apply(props: &AnimationControlsProps, shortcut: Shortcut) -> bool {
    let can_advance = props.running && !props.finished;
    let can_step = can_advance && !props.playing;
    let callback = match shortcut {
        Shortcut::PlayPause if props.finished => &props.on_replay,
        Shortcut::PlayPause if props.playing => &props.on_pause,
        Shortcut::PlayPause if can_advance => &props.on_play,
        Shortcut::StepCycle if can_step => &props.on_step_cycle,
        Shortcut::StepEvent if can_step => &props.on_step_event,
        _ => return false,
    };
    callback.emit(());
    true
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

    #[test]
    fn a_speed_the_selector_lacks_is_offered_in_its_place() {
        assert_eq!(Speed::choices_with(Speed::Max), Speed::CHOICES.to_vec());
        let with = |cycles| Speed::choices_with(Speed::CyclesPerSecond(cycles));
        assert_eq!(with(2_000)[2], Speed::CyclesPerSecond(2_000));
        assert_eq!(with(5)[0], Speed::CyclesPerSecond(5));
        assert_eq!(with(500_000)[4..], [Speed::CyclesPerSecond(500_000), Speed::Max]);
    }

    #[test]
    fn keys_map_to_shortcuts_and_modified_keys_do_not() {
        let check = |key: &str, shift: bool, other: bool, expect: Option<Shortcut>| {
            assert_eq!(Shortcut::of(key, shift, other), expect, "{key:?} shift {shift} other {other}");
        };
        check(" ", false, false, Some(Shortcut::PlayPause));
        check("ArrowRight", false, false, Some(Shortcut::StepCycle));
        check("ArrowRight", true, false, Some(Shortcut::StepEvent));
        check("ArrowDown", false, false, Some(Shortcut::StepEvent));
        check(" ", true, false, None);
        check("ArrowRight", false, true, None);
        check("ArrowLeft", false, false, None);
        check("a", false, false, None);
    }
}
