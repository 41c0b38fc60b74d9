//! A region that accepts files dropped onto it.

use web_sys::{DragEvent, FileList};
use yew::prelude::*;

/// Properties of [`DropZone`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct DropZoneProps {
    /// Receives the dropped files.
    pub on_files: Callback<Option<FileList>>,
    /// What the zone contains.
    pub children: Children,
}

/// Highlights while files are dragged over it and hands dropped files on.
#[component]
pub fn DropZone(props: &DropZoneProps) -> Html {
    let active = use_state(|| false);
    let on_drag_over = {
        let active = active.clone();
        Callback::from(move |event: DragEvent| {
            // Without this the browser opens the file instead of dropping it here.
            event.prevent_default();
            active.set(true);
        })
    };
    let on_drag_leave = {
        let active = active.clone();
        Callback::from(move |_: DragEvent| active.set(false))
    };
    let on_drop = {
        let (active, on_files) = (active.clone(), props.on_files.clone());
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            active.set(false);
            on_files.emit(event.data_transfer().and_then(|transfer| transfer.files()));
        })
    };
    html! {
        <div class={classes!("drop-zone", active.then_some("active"))} data-testid="drop-zone"
            ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
            { props.children.clone() }
        </div>
    }
}
