//! A scale-model run's progress, from the worker to the page while the run
//! goes on.
//!
//! A run (`warplab_lab::scale::run_scale`) is one synchronous call of up to
//! minutes: the worker's event loop does not turn until it returns, and the
//! reactor's outputs only leave the worker from that loop, so progress sent
//! as outputs would arrive all at once at the end. A `BroadcastChannel`'s
//! `postMessage` is delivered to the page straight away, from inside the
//! call, so the page names a channel of its own in each `Scale` input and the
//! worker posts each step there ([`ProgressPoster`]); the page listens with
//! `hooks::use_scale_progress`. The name is random per page, so two tabs of
//! the app never see each other's runs.

use js_sys::Array;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::JsValue;
use web_sys::BroadcastChannel;

/// A step of a run is starting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleProgress {
    /// The step starting, from 1.
    pub step: u32,
    /// Steps in the run: two scale models, the miss-rate curve, and any
    /// targets simulated to validate.
    pub steps: u32,
    /// What the step does, in words.
    pub what: String,
}

impl ScaleProgress {
    /// The message posted: `[step, steps, what]`.
    pub(crate) fn to_js(&self) -> JsValue {
        Array::of3(&self.step.into(), &self.steps.into(), &self.what.as_str().into()).into()
    }

    /// The progress a message carries, if it is one.
    pub(crate) fn from_js(value: &JsValue) -> Option<Self> {
        let array: &Array = value.dyn_ref()?;
        let whole = |index: u32| array.get(index).as_f64().filter(|v| v.fract() == 0.0 && *v >= 0.0).map(|v| v as u32);
        Some(Self { step: whole(0)?, steps: whole(1)?, what: array.get(2).as_string()? })
    }
}

/// The worker's end: posts progress on the channel the page named. Without a
/// channel (no name, or none could be opened) posting does nothing: progress
/// is a courtesy, the report still comes.
pub struct ProgressPoster {
    channel: Option<BroadcastChannel>,
}

impl ProgressPoster {
    /// Opens the channel called `name`; an empty name opens none.
    pub fn open(name: &str) -> Self {
        Self { channel: (!name.is_empty()).then(|| BroadcastChannel::new(name).ok()).flatten() }
    }

    /// Posts `progress`; a failure (a closed channel) is ignored, as above.
    pub fn post(&self, progress: &ScaleProgress) {
        if let Some(channel) = &self.channel {
            let _ = channel.post_message(&progress.to_js());
        }
    }
}

impl Drop for ProgressPoster {
    fn drop(&mut self) {
        if let Some(channel) = &self.channel {
            channel.close();
        }
    }
}
