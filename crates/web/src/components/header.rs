//! The page header: what warplab is, in one line.

use yew::prelude::*;

/// The title bar.
#[component]
pub fn Header() -> Html {
    html! {
        <header class="masthead">
            <h1>{ "warplab" }</h1>
            <p class="tagline">{ "A GPU architecture lab in the browser: simulated, analytical and scale-model IPC for the same workload." }</p>
        </header>
    }
}
