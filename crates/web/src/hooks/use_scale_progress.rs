//! `use_scale_progress`: the page's end of a scale-model run's progress
//! channel (see `crate::scale_progress` for why progress does not come as
//! worker outputs).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{BroadcastChannel, MessageEvent};
use yew::prelude::*;

use crate::scale_progress::ScaleProgress;

/// The page's end: calls back with each progress message until dropped.
struct ProgressListener {
    channel: BroadcastChannel,
    /// Kept alive while the channel may call it.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl ProgressListener {
    fn new(name: &str, on_progress: Callback<ScaleProgress>) -> Option<Self> {
        let channel = BroadcastChannel::new(name).ok()?;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(progress) = ScaleProgress::from_js(&event.data()) {
                on_progress.emit(progress);
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Some(Self { channel, _on_message: on_message })
    }
}

impl Drop for ProgressListener {
    fn drop(&mut self) {
        self.channel.set_onmessage(None);
        self.channel.close();
    }
}

/// Listens for scale-run progress while the component is mounted and returns
/// the channel's name, for `Scale` inputs to carry.
#[hook]
pub fn use_scale_progress(on_progress: Callback<ScaleProgress>) -> AttrValue {
    let name = use_memo((), |()| {
        // Random enough to tell a user's tabs apart; not a secret.
        AttrValue::from(format!("warplab-scale-progress-{}", (js_sys::Math::random() * 1e15) as u64))
    });
    let listened = (*name).clone();
    use_effect_with((), move |()| {
        let listener = ProgressListener::new(&listened, on_progress);
        move || drop(listener)
    });
    (*name).clone()
}
