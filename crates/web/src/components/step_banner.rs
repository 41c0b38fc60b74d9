//! The banner a handout's link opens the page with: the lab, the step and
//! what to watch (one figure, in one panel, a link away), until dismissed.
//! It sits in the dock, so it stays in view on a wide screen; on a phone it
//! is pinned to the bottom of the screen (`www/style.css`), since the page
//! opens scrolled to the panel.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::JumpLink;
use crate::lab_step::LabStep;

/// Properties of [`StepBanner`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StepBannerProps {
    /// The step the link carries.
    pub step: Rc<LabStep>,
    /// The banner was dismissed.
    pub on_dismiss: Callback<()>,
}

/// The lab step's banner.
#[component]
pub fn StepBanner(props: &StepBannerProps) -> Html {
    let step = &props.step;
    let lab = (!step.lab.is_empty())
        .then(|| html! { <><strong data-testid="step-banner-lab">{ &step.lab }</strong>{ ", " }</> });
    let panel = step.panel.zip(step.panel_label()).map(|(id, label)| {
        html! { <>{ " in " }<JumpLink to={id} testid="step-banner-panel">{ label }</JumpLink></> }
    });
    let watch = (!step.watch.is_empty()).then(|| {
        html! { <>{ ": watch " }<span class="step-watch" data-testid="step-banner-watch">{ &step.watch }</span>{ panel }</> }
    });
    html! {
        <aside class="step-banner" data-testid="step-banner" aria-label="Lab step">
            <p>
                { lab }
                { "step " }<strong data-testid="step-banner-step">{ &step.step }</strong>
                { watch }
            </p>
            <button type="button" class="dismiss" aria-label="Dismiss the step banner" data-testid="step-banner-dismiss"
                onclick={props.on_dismiss.reform(|_: MouseEvent| ())}>{ "×" }</button>
        </aside>
    }
}
