//! What the user sets: the rule, with what it means (for runs and the
//! published data alike); before a run, the scale models (the pairs the
//! loaded config divides into), the target, whether to validate, and
//! Predict; then the run's progress by steps.

use warplab_lab::scale::Rule;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::agent::ScaleSetup;
use crate::glossary;
use crate::scale_state::{ScaleAction, ScaleState, targets};

/// The callbacks the controls call.
pub struct ControlCallbacks<'a> {
    /// A pair of scale models was chosen: the worker plans it.
    pub on_pair: &'a Callback<[u32; 2]>,
    /// A choice that stays on the page (target, rule, validate).
    pub on_change: &'a Callback<ScaleAction>,
    /// Predict was pressed.
    pub on_predict: &'a Callback<()>,
    /// Cancel was pressed while the scale models ran.
    pub on_cancel: &'a Callback<()>,
}

/// The controls for `setup`; `ready` says a workload and config have loaded,
/// `generated` that the workload can grow with the GPU (weak scaling).
pub fn controls(
    state: &ScaleState,
    setup: &ScaleSetup,
    ready: bool,
    generated: bool,
    callbacks: ControlCallbacks,
) -> Html {
    let running = state.running.is_some();
    let weak = state.weak && generated;
    let can_run =
        ready && state.idle() && setup.error.is_none() && !setup.sizes.is_empty() && (generated || !state.weak);
    let on_predict = callbacks.on_predict.reform(|_: MouseEvent| ());
    html! {
        <>
            <div class="controls scale-controls">
                { pair_select(setup, running, callbacks.on_pair) }
                { target_select(state, setup, running, callbacks.on_change) }
                <label class="check" data-tap-explains="" title="Simulate the target too, to measure each method's error (as long again as the target takes)">
                    <input type="checkbox" data-testid="scale-validate" checked={state.validate} disabled={running}
                        onchange={callbacks.on_change.reform(|e: Event| {
                            ScaleAction::ValidateSet(e.target_unchecked_into::<HtmlInputElement>().checked())
                        })} />
                    { "Validate (simulate the target too)" }
                </label>
                <label class="check" data-tap-explains="" title={if generated { glossary::WEAK_SCALING } else { "Weak scaling grows a generated workload with the GPU; a trace has one size" }}>
                    <input type="checkbox" data-testid="scale-weak" checked={weak} disabled={running || !generated}
                        onchange={callbacks.on_change.reform(|e: Event| {
                            ScaleAction::WeakSet(e.target_unchecked_into::<HtmlInputElement>().checked())
                        })} />
                    { "Weak scaling (each size runs its share)" }
                </label>
                <button class="button primary" data-testid="scale-predict" disabled={!can_run} onclick={on_predict}
                    title="Simulate the two scale models in the worker, take the miss-rate curve, and predict the target">
                    { "Predict" }
                </button>
            </div>
            { progress(state, callbacks.on_cancel) }
        </>
    }
}

/// The pairs the config divides into, `S, 2S SMs`.
fn pair_select(setup: &ScaleSetup, running: bool, on_pair: &Callback<[u32; 2]>) -> Html {
    let on_change = on_pair.reform(|e: Event| parse_pair(&e.target_unchecked_into::<HtmlSelectElement>().value()));
    let disabled = running || setup.workable.is_empty();
    html! {
        <label class="field" data-tap-explains="" title={glossary::SCALE_MODEL}>
            { "Scale models" }
            <select data-testid="scale-pair" onchange={on_change} {disabled}>
                if setup.workable.is_empty() {
                    <option selected=true>{ "none divide this GPU" }</option>
                }
                { for setup.workable.iter().map(|&[s, l]| html! {
                    <option value={format!("{s},{l}")} selected={[s, l] == setup.scale_models}>
                        { format!("{s} and {l} SMs (1/{} and 1/{})", setup.target_sms / s, setup.target_sms / l) }
                    </option>
                }) }
            </select>
        </label>
    }
}

/// `S,2S` back to the pair; an option's value is always well formed, and
/// anything else reads as the paper's pair, which the worker then explains.
fn parse_pair(value: &str) -> [u32; 2] {
    let mut parts = value.split(',').map(|part| part.trim().parse().unwrap_or(0));
    match (parts.next(), parts.next()) {
        (Some(s), Some(l)) if s > 0 && l == 2 * s => [s, l],
        _ => [8, 16],
    }
}

/// The sizes the run can predict, the loaded config's by default.
fn target_select(state: &ScaleState, setup: &ScaleSetup, running: bool, on_change: &Callback<ScaleAction>) -> Html {
    let chosen = state.target_sms().unwrap_or(setup.target_sms);
    let on_select = on_change.reform(|e: Event| {
        let value = e.target_unchecked_into::<HtmlSelectElement>().value();
        ScaleAction::TargetChosen(value.parse().ok())
    });
    let sizes = targets(setup);
    html! {
        <label class="field" data-tap-explains="" title={glossary::SCALE_TARGET}>
            { "Target" }
            <select data-testid="scale-target" onchange={on_select} disabled={running || sizes.is_empty()}>
                { for sizes.into_iter().map(|sms| html! {
                    <option value={sms.to_string()} selected={sms == chosen}>
                        { if sms == setup.target_sms { format!("{sms} SMs (the loaded config)") } else { format!("{sms} SMs") } }
                    </option>
                }) }
            </select>
        </label>
    }
}

/// The rule switch and what the chosen rule does.
pub fn rule_controls(rule: Rule, on_change: &Callback<ScaleAction>) -> Html {
    html! {
        <>
            <div class="controls">{ rule_switch(rule, on_change) }</div>
            { rule_note(rule) }
        </>
    }
}

/// Reference or paper: both predictions come from the same measurements,
/// so switching redraws at once, without simulating again.
fn rule_switch(rule: Rule, on_change: &Callback<ScaleAction>) -> Html {
    let option = |value: Rule, label: &'static str, explain: &'static str| {
        let onchange = on_change.reform(move |_: Event| ScaleAction::RuleChosen(value));
        html! {
            <label class="radio" data-tap-explains="" title={explain}>
                <input type="radio" name="scale-rule" data-testid={format!("scale-rule-{}", value.name())}
                    checked={rule == value} {onchange} />
                { label }
            </label>
        }
    };
    html! {
        <fieldset class="rule-switch">
            <legend>{ "Scale-model rule" }</legend>
            { option(Rule::Reference, "reference", glossary::RULE_REFERENCE) }
            { option(Rule::Paper, "paper", glossary::RULE_PAPER) }
        </fieldset>
    }
}

/// What the two rules do, in one paragraph, the chosen one first.
fn rule_note(rule: Rule) -> Html {
    let text = match rule {
        Rule::Reference => {
            "Reference rule: b = (IPC₂ₛ − 2·IPCₛ) / IPC₂ₛ measures how far doubling the scale model fell short of \
             doubling its IPC; each further doubling multiplies IPC by 2·cf and then cf by (1 + b), so the shortfall \
             compounds. This is the rule of the tool that produced the paper's published errors, and it reproduces \
             them. The paper's text prints instead one correction factor C = (IPC₂ₛ / IPCₛ) / 2, applied once."
        }
        Rule::Paper => {
            "Paper rule: one correction factor C = (IPC₂ₛ / IPCₛ) / 2, applied once: IPC_T = IPC₂ₛ · T / 2S · C (at a \
             cliff, IPC₂ₛ · K / 2S / (1 − f_mem), then onwards from there). The reference tool, whose output the \
             paper's error figures come from, compounds the correction with each doubling instead; its errors \
             differ from these."
        }
    };
    html! { <p class="note rule-note" data-testid="scale-rule-note">{ text }</p> }
}

/// The run's steps as a bar, and that the worker waits for it.
fn progress(state: &ScaleState, on_cancel: &Callback<()>) -> Html {
    if state.running.is_none() {
        return html! {};
    }
    let (done, steps, what) = match &state.progress {
        Some(p) => (p.step.saturating_sub(1), p.steps.max(1), format!("step {} of {}: {}", p.step, p.steps, p.what)),
        None => (0, 1, "starting…".to_owned()),
    };
    html! {
        <div class="scale-progress" data-testid="scale-progress">
            <progress max={steps.to_string()} value={done.to_string()} title="Steps finished, of the run's steps" />
            <span class="status" data-testid="scale-step">{ what }</span>
            <button class="button" data-testid="scale-cancel" onclick={on_cancel.reform(|_: MouseEvent| ())}
                title="Stop the scale models: their worker is stopped and a new one takes its place">
                { "Cancel" }
            </button>
            <p class="hint">
                { "The scale models are simulated cycle by cycle, like a run: on a large workload this takes minutes. \
                   They have a worker of their own, so runs and analyses go on meanwhile; Cancel stops them." }
            </p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_read_back_from_their_option_values() {
        assert_eq!(parse_pair("16,32"), [16, 32]);
        assert_eq!(parse_pair(" 5, 10"), [5, 10]);
        for bad in ["", "8", "8,24", "x,y", "0,0"] {
            assert_eq!(parse_pair(bad), [8, 16], "{bad:?}");
        }
    }
}
