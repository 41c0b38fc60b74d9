//! The line under a panel's title: what is loading, or why the last load failed.

use yew::prelude::*;

/// Properties of [`StatusLine`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StatusLineProps {
    /// What the worker is doing, e.g. `Reading vectoradd`.
    pub loading: Option<String>,
    /// The last error (file and line).
    pub error: Option<String>,
}

/// Loading text, an error, or nothing.
#[component]
pub fn StatusLine(props: &StatusLineProps) -> Html {
    match (&props.loading, &props.error) {
        (Some(activity), _) => {
            html! { <p class="status" role="status" data-testid="status">{ format!("{activity} in the worker…") }</p> }
        }
        (None, Some(error)) => html! { <p class="error" role="alert" data-testid="error">{ error }</p> },
        (None, None) => html! {},
    }
}
