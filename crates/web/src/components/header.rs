//! The page header: what warplab is, in one line, and the experiment's
//! share controls (copy the link, download or open the experiment as JSON),
//! with any message about the link the page opened.

use web_sys::FileList;
use yew::prelude::*;

use crate::components::FilePicker;

/// Properties of [`Header`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct HeaderProps {
    /// Why the experiment cannot travel in a link, if it cannot.
    #[prop_or_default]
    pub unshareable: Option<AttrValue>,
    /// Why the link cannot carry the experiment though its file can (an
    /// authored kernel's source too long for a link).
    #[prop_or_default]
    pub link_too_long: Option<AttrValue>,
    /// A message about the link or file the page opened.
    #[prop_or_default]
    pub notice: Option<AttrValue>,
    /// "Copy link" was pressed.
    pub on_copy: Callback<()>,
    /// "Download experiment" was pressed.
    pub on_download: Callback<()>,
    /// An experiment file was picked.
    pub on_open: Callback<Option<FileList>>,
    /// The notice was dismissed.
    pub on_dismiss: Callback<()>,
}

/// The title bar.
#[component]
pub fn Header(props: &HeaderProps) -> Html {
    let disabled = props.unshareable.is_some();
    let why = props.unshareable.clone().unwrap_or_else(|| "The link opens exactly this experiment".into());
    let copy_why = props.link_too_long.clone().unwrap_or_else(|| why.clone());
    html! {
        <header class="masthead">
            <div class="masthead-title">
                <h1>{ "warplab" }</h1>
                <p class="tagline">{ "A GPU architecture lab in the browser: simulated, analytical and scale-model IPC for the same workload." }</p>
            </div>
            <div class="share" role="group" aria-label="Share this experiment">
                <button data-testid="copy-link" disabled={disabled || props.link_too_long.is_some()} title={copy_why}
                    onclick={props.on_copy.reform(|_: MouseEvent| ())}>{ "Copy link" }</button>
                <button data-testid="download-experiment" {disabled} title={why}
                    onclick={props.on_download.reform(|_: MouseEvent| ())}>{ "Download experiment" }</button>
                <FilePicker label="Open experiment…" testid="open-experiment" accept=".json,application/json"
                    on_files={props.on_open.clone()} />
            </div>
            if let Some(too_long) = &props.link_too_long {
                <p class="notice" data-testid="link-too-long">{ too_long.clone() }</p>
            }
            if let Some(notice) = &props.notice {
                <p class="notice" role="alert" data-testid="link-notice">
                    { notice.clone() }
                    <button class="dismiss" aria-label="Dismiss" onclick={props.on_dismiss.reform(|_: MouseEvent| ())}>
                        { "×" }
                    </button>
                </p>
            }
        </header>
    }
}
