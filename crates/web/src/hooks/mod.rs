//! Custom hooks of the page.

mod use_baseline_worker;
mod use_lab_worker;
mod use_scale_progress;

pub use use_baseline_worker::{BaselineFigure, BaselineWorker, use_baseline_worker};
pub use use_lab_worker::{LabWorkerHandle, use_lab_worker};
pub use use_scale_progress::use_scale_progress;
