//! warplab's browser front end.
//!
//! A Yew (client-side rendered) app whose heavy work runs in a Web Worker. The
//! page and the worker exchange the typed messages of [`agent`] (serialized by
//! gloo-worker); the worker calls `warplab-lab`, the same facade the CLI uses,
//! so the browser shows the CLI's numbers.
//!
//! Central design decision: the page never owns a model. It renders state and
//! turns DOM events into worker inputs; everything that takes time happens in
//! the worker, so the page stays responsive.
//!
//! The crate builds two binaries from this library: `app` (the page, mounted by
//! `index.html`) and `worker` (registered as the reactor of [`agent`]).
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod agent;
mod app;
mod components;
mod fetch;
mod hooks;
mod state;

pub use app::{App, AppProps};
