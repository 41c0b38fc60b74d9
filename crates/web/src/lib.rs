//! warplab's browser front end.
//!
//! A Yew (client-side rendered) app whose heavy work runs in a Web Worker. The
//! page and the worker exchange the typed messages of [`agent`] (serialized by
//! gloo-worker); the worker calls `warplab-lab`, the same facade the CLI uses,
//! so the browser shows the CLI's numbers.
//!
//! Central design decision: the page never owns a model and never reads a
//! trace. It renders state and turns what the user does into worker inputs;
//! files travel to the worker as URLs and are streamed there, so the page
//! stays responsive and memory stays bounded whatever the user opens.
//!
//! The crate builds two binaries from this library: `app` (the page, mounted by
//! `index.html`) and `worker` (registered as the reactor of [`agent`]).
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod agent;
mod analysis;
mod analysis_state;
mod app;
pub mod authored;
mod baseline;
mod blob_reader;
mod components;
mod download;
mod editor_js;
mod fetch;
mod files;
mod format;
mod glossary;
mod hooks;
mod keep_in_view;
mod kernel_examples;
mod kernel_state;
mod lab_step;
mod next_task;
mod palette;
mod published;
mod resize_watch;
mod run;
mod run_follow;
mod run_state;
mod scale_model;
mod scale_progress;
mod scale_state;
mod share;
mod state;
#[cfg(all(feature = "threads", target_arch = "wasm32"))]
pub mod threads;

/// The most threads a run uses in the threaded worker build, the simulating
/// thread among them: the SMs' phase of a cycle is cut into one share per
/// thread, so past eight the hand-overs cost more than the shares save on
/// the presets' 28 to 132 SMs.
pub const MAX_RUN_THREADS: usize = 8;

pub use analysis_state::{AnalysisState, Shown};
pub use app::{App, AppProps};
pub use baseline::Figures;
/// The GPU animation's components, and its layout and drawing for tests.
pub use components::animation;
pub use components::{
    AnalyticalPanel, AnalyticalPanelProps, ErrorKey, IpcSummary, IpcSummaryProps, KernelPanel, ReportView,
    ReportViewProps, SAMPLED_MEAN_ERROR_PCT, Sampled, SamplingPanel, SamplingPanelProps, ScalePanel, ScalePanelProps,
    ScaleTarget,
};
pub use kernel_state::KernelState;
pub use published::Published;
pub use scale_state::{ScaleAction, ScaleState};
pub use state::Experiment;
