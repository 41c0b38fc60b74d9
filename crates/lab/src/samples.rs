//! The sample traces bundled with warplab.
//!
//! They are served as static files next to the web app (never compiled into
//! the wasm) from the repository's `sample-traces/` directory, so the paths here
//! are relative to the app's root URL and to the repository root alike.

/// A bundled sample trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleTrace {
    /// Short name shown in pickers and accepted on the command line.
    pub name: &'static str,
    /// Directory holding `kernelslist.g`, relative to the app root / repository root.
    pub dir: &'static str,
    /// One line on what the workload is and where it comes from.
    pub description: &'static str,
}

/// The bundled sample traces; the first is the default.
pub const SAMPLE_TRACES: &[SampleTrace] = &[SampleTrace {
    name: "vectoradd",
    dir: "sample-traces/vectoradd-sm61-gtx1080-v4",
    description: "vecAdd<float>, n = 100, traced with Accel-Sim's NVBit tracer on a GTX 1080",
}];
