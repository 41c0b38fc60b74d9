//! The GPU configuration panel: open config files (the toolbar chooses among
//! the presets), and read the config grouped by part of the GPU, with the
//! options warplab keeps but does not model.
//!
//! The groups can be searched (label, option or value), each row explains
//! its option with GPGPU-Sim's own help text, rows whose value differs from
//! the preset the config started from are marked and listed in a diff, and
//! the config can be saved as a `gpgpusim.config` that Accel-Sim reads.

mod compare;

use std::rc::Rc;

use warplab_lab::{ConfigReport, ConfigView, KeptOption, ViewRow, config_report, option_help, preset_config};
use web_sys::{FileList, HtmlInputElement};
use yew::prelude::*;

use crate::components::{DropZone, FilePicker, HelpLink, StatusLine};
use crate::download::download_text;
use crate::state::Loadable;
use compare::{Difference, base_value, differences, row_matches};

/// Properties of [`ConfigPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConfigPanelProps {
    /// The config's state.
    pub state: Loadable<ConfigReport>,
    /// The preset the experiment's config started from, whose values edited
    /// rows are compared with (`None`: a config from files, nothing to compare).
    #[prop_or_default]
    pub base_preset: Option<AttrValue>,
    /// Files were picked or dropped.
    pub on_files: Callback<Option<FileList>>,
    /// The `.icnt` file the config files chosen name and need but did not
    /// include, to ask for.
    #[prop_or_default]
    pub needs_file: Option<AttrValue>,
    /// The file asked for was picked: it joins the files chosen before.
    #[prop_or_default]
    pub on_needed_file: Callback<Option<FileList>>,
}

/// The base preset's name and view, read on the page (a few milliseconds).
#[derive(Debug, Clone, PartialEq)]
struct Base {
    name: String,
    view: ConfigView,
}

/// Shows the current config, what is loading, and the last error.
#[component]
pub fn ConfigPanel(props: &ConfigPanelProps) -> Html {
    let query = use_state(String::new);
    let base = use_memo(props.base_preset.clone(), |name| {
        let (name, config) = preset_config(name.as_deref()?).ok()?;
        Some(Base { name: name.to_owned(), view: config_report(name, &config, Vec::new()).view })
    });
    let label = props.state.current.as_ref().map(|r| r.label.clone()).unwrap_or_default();
    let view =
        props.state.current.as_ref().map(|report| LoadedConfig { report, base: base.as_ref().as_ref(), query: &query });
    html! {
        <section class="panel config" id="config-panel" data-testid="config">
            <DropZone on_files={props.on_files.clone()}>
                <h2>{ "GPU: " }<span data-testid="config-label">{ label }</span><HelpLink id="config" /></h2>
                <div class="controls">
                    <FilePicker label="Open config files…" testid="config-files" accept=".config,.icnt" on_files={props.on_files.clone()} />
                    <span class="hint">{ "or drop gpgpusim.config, trace.config and .icnt files here" }</span>
                </div>
                <StatusLine loading={props.state.loading.clone()} error={props.state.error.clone()} />
                { props.needs_file.as_ref().map(|file| ask_for(file, &props.on_needed_file)).unwrap_or_default() }
                { view.map(|view| view.render()).unwrap_or_default() }
            </DropZone>
        </section>
    }
}

/// Asks for the BookSim file the chosen files name; the config shown stays
/// loaded meanwhile.
fn ask_for(file: &AttrValue, on_files: &Callback<Option<FileList>>) -> Html {
    html! {
        <p class="needs-file" data-testid="config-needs-file">
            { "These config files name " }<code>{ file.clone() }</code>
            { " with -inter_config_file, and their BookSim interconnect (-network_mode 1) reads it. \
               Choose it too; the config below stays loaded until then. " }
            <FilePicker label={format!("Choose {file}…")} testid="config-needed-file" accept=".icnt"
                on_files={on_files.clone()} />
        </p>
    }
}

/// What the loaded config's part of the panel shows.
struct LoadedConfig<'a> {
    report: &'a ConfigReport,
    base: Option<&'a Base>,
    query: &'a UseStateHandle<String>,
}

impl LoadedConfig<'_> {
    fn render(&self) -> Html {
        let report = self.report;
        let summary = &report.summary;
        let query = self.query.as_str();
        let n_rows: usize = report.view.groups.iter().map(|group| group.rows.len()).sum();
        let n_matches: usize =
            report.view.groups.iter().flat_map(|group| &group.rows).filter(|row| row_matches(row, query)).count();
        let diff = self.base.map(|base| (base, differences(&report.view, &base.view)));
        html! {
            <>
                <p class="totals" data-testid="config-totals">
                    <strong data-testid="config-sms">{ summary.n_sms }</strong>{ " SMs at " }
                    { summary.core_clock_mhz }{ " MHz, " }{ summary.n_sub_partitions }{ " L2 slices on " }
                    { summary.n_mem_channels }{ " memory channels" }
                </p>
                <div class="controls config-tools">
                    <input type="search" class="config-search" data-testid="config-search" placeholder="Search options…"
                        aria-label="Search the config's options by name, option or value" value={query.to_owned()}
                        oninput={self.on_search()} />
                    <span class="hint" data-testid="config-match-count" aria-live="polite">
                        { if query.trim().is_empty() { format!("{n_rows} options") } else { format!("{n_matches} of {n_rows} match") } }
                    </span>
                    { download_button(report) }
                </div>
                if let Some((base, diff)) = &diff {
                    { diff_view(base, diff) }
                }
                <div class="config-groups">
                    { for report.view.groups.iter().filter(|group| group.rows.iter().any(|row| row_matches(row, query))).map(|group| html! {
                        <table class="config-group" data-testid="config-group">
                            <caption>{ &group.title }</caption>
                            <tbody>
                                { for group.rows.iter().filter(|row| row_matches(row, query)).map(|row| self.row(row)) }
                            </tbody>
                        </table>
                    }) }
                </div>
                { kept_list("Options GPGPU-Sim does not know", "unknown-options", &summary.unknown_options) }
                { kept_list("Options warplab keeps but does not model", "unmodelled-options", &summary.unmodelled_options) }
                if !report.diagnostics.is_empty() {
                    <ul class="diagnostics">{ for report.diagnostics.iter().map(|d| html! { <li>{ d }</li> }) }</ul>
                }
            </>
        }
    }

    fn on_search(&self) -> Callback<InputEvent> {
        let query = self.query.clone();
        Callback::from(move |event: InputEvent| query.set(event.target_unchecked_into::<HtmlInputElement>().value()))
    }

    /// One row: marked (class and a visible `*`) when it differs from the
    /// base preset, with the option, its help and the preset's value on hover.
    fn row(&self, row: &ViewRow) -> Html {
        let base = self.base.map(|base| (base.name.as_str(), base_value(&base.view, row)));
        let edited = base.is_some_and(|(_, value)| value != Some(row.value.as_str()));
        let mut title = row.option.clone();
        if let Some(help) = option_help(&row.option) {
            title = format!("{title}: {help}");
        }
        if let Some((name, value)) = base.filter(|_| edited) {
            title = format!("{title}\n{name} has {}", value.unwrap_or("no such row"));
        }
        html! {
            <tr {title} class={classes!(edited.then_some("edited"))} data-testid="config-row" data-edited={edited.to_string()}>
                <th>
                    { &row.label }
                    if edited {
                        <span class="edited-mark" aria-label="edited">{ " *" }</span>
                    }
                </th>
                <td>{ &row.value }</td>
            </tr>
        }
    }
}

/// The rows that differ from the base preset, as option, preset value, this value.
fn diff_view(base: &Base, diff: &[Difference]) -> Html {
    html! {
        <details class="config-diff" data-testid="config-diff">
            <summary>
                { match diff.len() {
                    0 => format!("Same as preset {}", base.name),
                    1 => format!("1 value differs from preset {} (marked *)", base.name),
                    n => format!("{n} values differ from preset {} (marked *)", base.name),
                } }
            </summary>
            if !diff.is_empty() {
                <div class="table-scroll" tabindex="0">
                    <table class="config-diff-table">
                        <thead><tr><th>{ "Option" }</th><th>{ base.name.clone() }</th><th>{ "This config" }</th></tr></thead>
                        <tbody>
                            { for diff.iter().map(|d| html! {
                                <tr data-testid="config-diff-row">
                                    <th title={d.option.clone()}>{ &d.label }</th>
                                    <td>{ d.base.clone().unwrap_or_else(|| "–".to_owned()) }</td>
                                    <td>{ &d.value }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </details>
    }
}

/// Saves the config as `gpgpusim.config` (what `warplab config write` writes).
fn download_button(report: &ConfigReport) -> Html {
    let text: Option<Rc<str>> = report.files.first().map(|(_, text)| text.as_str().into());
    let onclick = text
        .clone()
        .map(|text| Callback::from(move |_: MouseEvent| download_text("gpgpusim.config", "text/plain", &text)));
    html! {
        <button type="button" class="button" data-testid="config-download" {onclick} disabled={text.is_none()}
            title="Save this config as gpgpusim.config, in GPGPU-Sim's format (run Accel-Sim with -config gpgpusim.config)">
            { "Download gpgpusim.config" }
        </button>
    }
}

fn kept_list(title: &str, testid: &'static str, options: &[KeptOption]) -> Html {
    html! {
        <details class="kept-options" data-testid={testid}>
            <summary>{ format!("{title} ({})", options.len()) }</summary>
            <ul>
                { for options.iter().map(|o| html! {
                    <li><code>{ &o.name }</code>{ " " }{ o.value.clone().unwrap_or_default() }</li>
                }) }
            </ul>
        </details>
    }
}
