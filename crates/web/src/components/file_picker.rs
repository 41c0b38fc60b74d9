//! A button that opens the browser's file (or folder) picker.

use web_sys::{FileList, HtmlInputElement};
use yew::prelude::*;

/// Properties of [`FilePicker`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct FilePickerProps {
    /// The button's text.
    pub label: AttrValue,
    /// `data-testid` of the input, for tests.
    pub testid: AttrValue,
    /// Pick a folder instead of files.
    #[prop_or_default]
    pub folder: bool,
    /// The `accept` filter, e.g. `.config,.icnt`.
    #[prop_or_default]
    pub accept: AttrValue,
    /// Receives what was picked.
    pub on_files: Callback<Option<FileList>>,
}

/// A labelled, styled file input.
#[component]
pub fn FilePicker(props: &FilePickerProps) -> Html {
    let on_change = {
        let on_files = props.on_files.clone();
        Callback::from(move |event: Event| {
            let input: HtmlInputElement = event.target_unchecked_into();
            on_files.emit(input.files());
            // Cleared so that picking the same file again is a change too.
            input.set_value("");
        })
    };
    html! {
        <label class="button">
            { props.label.clone() }
            <input type="file" class="visually-hidden" multiple=true webkitdirectory={props.folder}
                accept={props.accept.clone()} data-testid={props.testid.clone()} onchange={on_change} />
        </label>
    }
}
