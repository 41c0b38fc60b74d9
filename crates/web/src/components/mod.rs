//! The page's components, one per file.

mod header;
mod workload_panel;

pub use header::Header;
pub use workload_panel::WorkloadPanel;
