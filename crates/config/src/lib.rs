//! Typed GPU configurations.
//!
//! This crate will read GPGPU-Sim / Accel-Sim `gpgpusim.config` files (and the
//! `trace.config` and `.icnt` files beside them) into a typed, validated
//! `GpuConfig`, write configs back out, embed the presets under `configs/`, and
//! scale a config proportionally for the scale models. It arrives with the
//! "Real inputs" issue; until then it is empty rather than guessing.
//!
//! Central design decision: a config is parsed in two stages, raw options as
//! typed, then a validated `GpuConfig`, so that nothing downstream of this crate
//! handles a malformed value.
#![deny(missing_docs)]
