//! The root component: asks the worker for the default sample workload and
//! shows what it answers.

use warplab_lab::SAMPLE_TRACES;
use yew::prelude::*;

use crate::agent::{WorkerInput, WorkerOutput};
use crate::components::{Header, WorkloadPanel};
use crate::fetch::page_url;
use crate::hooks::use_lab_worker;
use crate::state::{Action, State};

/// Properties of [`App`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct AppProps {
    /// Where the app's static files (the worker's bootstrap `worker.js`, the
    /// sample traces) are, relative to the page and ending in `/`: `./` in the
    /// built app.
    pub asset_base: AttrValue,
}

/// The whole page.
#[component]
pub fn App(props: &AppProps) -> Html {
    let default_sample = SAMPLE_TRACES[0];
    let state = use_reducer(|| State::new(default_sample.name));

    let on_output = {
        let state = state.dispatcher();
        Callback::from(move |output: WorkerOutput| match output {
            WorkerOutput::Loaded(summary) => state.dispatch(Action::Loaded(summary)),
            WorkerOutput::Failed(message) => state.dispatch(Action::Failed(message)),
        })
    };
    let worker = use_lab_worker(format!("{}worker.js", props.asset_base).into(), on_output);

    {
        let worker = worker.clone();
        let state = state.dispatcher();
        use_effect_with(props.asset_base.clone(), move |asset_base| {
            state.dispatch(Action::SampleRequested { label: default_sample.name.to_owned() });
            match page_url(&format!("{asset_base}{}/", default_sample.dir)) {
                Ok(dir_url) => worker.send(WorkerInput::LoadSample { name: default_sample.name.to_owned(), dir_url }),
                Err(message) => state.dispatch(Action::Failed(message)),
            }
        });
    }

    html! {
        <main class="warplab">
            <Header />
            <WorkloadPanel label={state.workload_label.clone()} status={state.workload.clone()} />
        </main>
    }
}
