//! The page's components, one per file.

mod analytical_panel;
pub mod animation;
mod chart;
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
mod knob_slider;
mod report_view;
mod run_panel;
mod scale_panel;
mod status_line;
mod workload_panel;

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
pub use ipc_summary::IpcSummary;
pub use knob_slider::KnobSlider;
pub use report_view::{ReportView, ReportViewProps};
pub use run_panel::RunPanel;
pub use scale_panel::{ScalePanel, ScalePanelProps};
pub use status_line::StatusLine;
pub use workload_panel::WorkloadPanel;
