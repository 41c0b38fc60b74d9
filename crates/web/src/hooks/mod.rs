//! Custom hooks of the page.

mod use_baseline_worker;
mod use_foldable_panels;
mod use_lab_worker;
mod use_scale_progress;
mod use_scroll_to_panel;
mod use_tap_explanations;

pub use use_baseline_worker::{BaselineFigure, BaselineWorker, use_baseline_worker};
pub use use_foldable_panels::use_foldable_panels;
pub use use_lab_worker::{LabWorkerHandle, Spawn, use_lab_worker};
pub use use_scale_progress::use_scale_progress;
pub use use_scroll_to_panel::use_scroll_to_panel;
pub use use_tap_explanations::use_tap_explanations;
