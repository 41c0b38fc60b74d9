//! The page's components, one per file.

mod analytical_panel;
pub mod animation;
pub(crate) mod chart;
mod chart_export;
mod config_knob_slider;
mod config_panel;
mod drop_zone;
mod event_log;
mod file_picker;
mod generator_form;
mod glossary_panel;
mod header;
mod ipc_summary;
mod jump_link;
mod kernel_editor;
mod kernel_panel;
mod knob_slider;
mod per_pc_panel;
mod report_view;
mod sampling_panel;
pub(crate) mod sass_listing;
mod scale_panel;
mod section_nav;
mod status_line;
mod step_banner;
pub(crate) mod toolbar;
mod workload_panel;

#[cfg(test)]
pub(crate) use analytical_panel::CPI_SERIES;
pub use analytical_panel::{AnalyticalPanel, AnalyticalPanelProps, SLIDER_KNOBS};
pub use animation::{Animation, AnimationControls};
pub use chart_export::{ChartExport, csv_text};
pub use config_panel::ConfigPanel;
pub use drop_zone::DropZone;
pub use event_log::EventLog;
pub use file_picker::FilePicker;
pub use generator_form::GeneratorForm;
pub use glossary_panel::{Glossary, HelpLink};
pub use header::Header;
pub use ipc_summary::{ErrorKey, IpcSummary, IpcSummaryProps, SAMPLED_MEAN_ERROR_PCT, Sampled, ScaleTarget};
pub use jump_link::JumpLink;
pub use kernel_editor::KernelEditor;
pub use kernel_panel::KernelPanel;
pub use knob_slider::KnobSlider;
pub use per_pc_panel::PerPcPanel;
#[cfg(test)]
pub(crate) use report_view::{ISSUE_SERIES, LATENCY_SERIES, OUTCOME_SERIES};
pub use report_view::{ReportView, ReportViewProps};
pub use sampling_panel::{SamplingPanel, SamplingPanelProps};
pub use sass_listing::SassListing;
pub use scale_panel::{RunIpc, ScalePanel, ScalePanelProps};
pub use section_nav::{SectionNav, section_label};
pub use status_line::StatusLine;
pub use step_banner::StepBanner;
pub use toolbar::Toolbar;
pub use workload_panel::WorkloadPanel;
